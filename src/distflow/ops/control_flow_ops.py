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
