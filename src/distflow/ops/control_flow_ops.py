"""Control ops: no_op, group, tuple and with_dependencies."""

from __future__ import annotations

import builtins

from ..framework import ops
from ..framework.registry import not_differentiable, register_op
from . import array_ops
from .op_util import make_op


@register_op("NoOp", shape=lambda op: [])
def _no_op_kernel():
    return None


not_differentiable("NoOp")


# TF 1.x's gradient loops hold it: a NoOp that also runs where its inputs are dead. distflow's
# graphs have no dead tensors (control flow is If and While ops), so it is a NoOp here.
@register_op("ControlTrigger", shape=lambda op: [])
def _control_trigger_kernel():
    return None


not_differentiable("ControlTrigger")


def no_op(name=None) -> ops.Operation:
    return make_op("NoOp", [], None, name or "NoOp")


def group(*inputs, name=None) -> ops.Operation:
    """An op that runs only after every one of ``inputs`` (ops or tensors) has run."""
    deps = []
    for item in inputs:
        items = item if isinstance(item, (list, builtins.tuple, set)) else [item]
        for i in items:
            op = _as_op(i)
            if op is not None and op not in deps:
                deps.append(op)
    graph = deps[0].graph if deps else ops.get_default_graph()
    with graph.as_default(), graph.control_dependencies(deps):
        return no_op(name=name or "group_deps")


def _as_op(item):
    if item is None:
        return None
    if hasattr(item, "_as_graph_element") and not isinstance(item, (ops.Tensor, ops.Operation)):
        item = item._as_graph_element()
    if isinstance(item, ops.Tensor):
        return item.op
    if isinstance(item, ops.Operation):
        return item
    if _is_indexed_slices(item):  # (its values' op, as TF groups one)
        return item.values.op
    raise TypeError(f"Expected a Tensor or Operation to group, got {item!r}")


def _is_indexed_slices(item) -> bool:
    return type(item).__name__ == "IndexedSlices" and hasattr(item, "values") and hasattr(item, "indices")


def with_dependencies(dependencies, output_tensor, name=None) -> ops.Tensor:
    """``output_tensor``'s value, produced only after every op in ``dependencies``."""
    deps = [_as_op(d) for d in dependencies]
    if not hasattr(output_tensor, "op") and not _is_indexed_slices(output_tensor):  # (a Python or NumPy value)
        output_tensor = ops.convert_to_tensor(output_tensor)
    with ops.colocate_with(_as_op(output_tensor)), ops.control_dependencies(deps):  # (where the value is, as TF's)
        if _is_indexed_slices(output_tensor):  # (its values gated; its indices and shape as they are, as TF's)
            return type(output_tensor)(_gated(output_tensor.values, name), output_tensor.indices,
                                       output_tensor.dense_shape)
        return _gated(output_tensor, name)


def _gated(value, name):
    """``value`` read after the control dependencies in force: a variable read anew (its cached
    read runs whenever it likes), as TF 1.x reads a reference there."""
    if not isinstance(value, ops.Tensor) and callable(getattr(value, "read_value", None)):
        return array_ops.identity(value.read_value(), name=name)
    return array_ops.identity(value, name=name)


def tuple(tensors, name=None, control_inputs=None) -> list:  # noqa: A001 - TF's name
    """Tensors with the same values, available only after all of them are computed."""
    tensors = list(tensors)
    with ops.name_scope(name, "tuple", [t for t in tensors if t is not None]):
        gate = group(*[t for t in tensors if t is not None], *(control_inputs or ()), name="gate")
        out = []
        for t in tensors:
            if t is None:
                out.append(None)
            elif isinstance(t, ops.Operation):
                with ops.control_dependencies([gate]):
                    out.append(group(t))
            else:
                out.append(with_dependencies([gate], t))
        return out


# -- Switch and Merge, as TF 1.x's dataflow control flow spelled them -----------------------------
#
# TF 1.x's ``switch(data, pred)`` gives ``data`` on one of two outputs and a dead tensor on the
# other; ops fed a dead tensor do not run, and ``merge`` forwards its one live input. distflow's
# graphs have no dead tensors (conditionals are If ops), so here both outputs of ``switch`` carry
# ``data``, each remembered with the predicate value that makes it live, and ``merge`` picks, at
# run time, the input whose switches' predicates hold. Programs that pass the live value through
# (TF-Slim's ``apply_with_random_selector``: one image transformation of several, chosen at
# random) compute the same values; the ops of the other branches run too, so a branch's side
# effects (an assignment, a print) happen whichever is chosen.

_SWITCHED = "__switch_outputs"  # (graph collection of (tensor, predicate, value))


def switch(data, pred, dtype=None, name=None):
    """(output_false, output_true): ``data`` on both; the first live where ``pred`` is False,
    the second where it is True (the module's text above)."""
    with ops.name_scope(name, "Switch", [data, pred]) as scope:
        data = ops.convert_to_tensor(data, dtype=dtype)
        pred = ops.convert_to_tensor(pred)
        if pred.dtype.base_dtype.name != "bool" or pred.shape.ndims not in (None, 0):
            raise ValueError(f"switch: pred must be a scalar bool tensor, got {pred.dtype.name} {pred.shape}")
        out_false = array_ops.identity(data, name=scope + "output_false" if scope else "output_false")
        out_true = array_ops.identity(data, name=scope + "output_true" if scope else "output_true")
        ops.add_to_collection(_SWITCHED, (out_false, pred, False))
        ops.add_to_collection(_SWITCHED, (out_true, pred, True))
        return out_false, out_true


def _live_when(tensor, switched) -> list:
    """The (predicate, value) pairs of the switch outputs ``tensor`` is computed from."""
    found, seen, stack = [], set(), [tensor.op]
    by_op = {t.op: (p, v) for t, p, v in switched}
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op in by_op:
            found.append(by_op[op])
            continue
        stack.extend(t.op for t in op.inputs)
    return found


def merge(inputs, name=None):
    """(output, value_index): the input whose switches' predicates hold (the first such, and
    the last input if none does), and its index."""
    from . import control_flow_v2, math_ops  # noqa: PLC0415 - (they import this module)

    inputs = [ops.convert_to_tensor(i) for i in inputs]
    if not inputs:
        raise ValueError("merge: no inputs")
    with ops.name_scope(name, "Merge", inputs):
        switched = ops.get_collection(_SWITCHED)
        conditions = []
        for tensor in inputs:
            live = None
            for pred, value in _live_when(tensor, switched):
                term = pred if value else math_ops.logical_not(pred)
                live = term if live is None else math_ops.logical_and(live, term)
            conditions.append(live)
        output, index = inputs[-1], array_ops.constant(len(inputs) - 1)
        for i in range(len(inputs) - 2, -1, -1):
            if conditions[i] is None:  # (an input of no switch is always live)
                output, index = inputs[i], array_ops.constant(i)
                continue
            output, index = control_flow_v2.cond(
                conditions[i], lambda i=i: (array_ops.identity(inputs[i]), array_ops.constant(i)),
                lambda o=output, k=index: (array_ops.identity(o), array_ops.identity(k)))
        return output, index
