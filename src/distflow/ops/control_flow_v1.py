"""TF 1.x's low-level ``switch`` and ``merge`` (``tensorflow.python.ops.control_flow_ops``).

TF 1.x's ``switch(data, pred)`` gives ``data`` on one of two outputs and a dead tensor on the
other; ops fed a dead tensor do not run, and ``merge`` forwards its one live input. distflow's
graphs have no dead tensors (conditionals are If ops), so here both outputs of ``switch`` carry
``data``, each remembered with the predicate value that makes it live, and ``merge`` picks, at
run time, the input whose switches' predicates hold. Programs that pass the live value through
(TF-Slim's ``apply_with_random_selector``: one image transformation of several, chosen at
random) compute the same values; the ops of the other branches run too, so a branch's side
effects (an assignment, a print) happen whichever is chosen.
"""

from __future__ import annotations

from ..framework import ops
from . import array_ops, control_flow_v2, math_ops

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
