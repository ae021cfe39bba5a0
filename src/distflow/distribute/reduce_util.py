"""``tf.distribute.ReduceOp``: how the values of the replicas combine."""

from __future__ import annotations


class ReduceOp:
    """How values of the replicas combine: SUM or MEAN."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation):
        return {"sum": ReduceOp.SUM, "mean": ReduceOp.MEAN}[str(aggregation).lower().rsplit(".", 1)[-1]]


def reduce_op_name(reduce_op) -> str:
    """``reduce_op`` (a ReduceOp, or its name in any case) as "SUM" or "MEAN"."""
    name = getattr(reduce_op, "value", reduce_op)
    name = str(name).upper().rsplit(".", 1)[-1]
    if name not in (ReduceOp.SUM, ReduceOp.MEAN):
        raise ValueError(f"reduce_op must be tf.distribute.ReduceOp.SUM or MEAN, got {reduce_op!r}")
    return name
