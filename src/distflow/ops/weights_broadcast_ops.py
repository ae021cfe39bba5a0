"""How losses and metrics line their weights up with their values, as TF 1.x's do."""

from __future__ import annotations

from ..framework import ops
from . import array_ops


def check_broadcastable(weights: ops.Tensor, values: ops.Tensor) -> None:
    """ValueError unless ``weights`` broadcast to ``values`` without widening them (TF's rule,
    where both shapes are known): a scalar, or ``values``' rank with each dimension 1 or
    ``values``'."""
    w, v = weights.shape, values.shape
    if w.ndims is None or v.ndims is None or w.ndims == 0:
        return
    if w.ndims != v.ndims or any(a is not None and b is not None and a not in (1, b)
                                 for a, b in zip(w.as_list(), v.as_list())):
        raise ValueError(f"weights can not be broadcast to values. values.rank={v.ndims}. weights.rank={w.ndims}. "
                         f"values.shape={v}. weights.shape={w}.")


def squeeze_or_expand_weights(weights: ops.Tensor, values: ops.Tensor) -> ops.Tensor:
    """``weights`` with a last dimension of 1 dropped where they have one more dimension than
    ``values``, or one added where they have one fewer (TF's metrics take per-example weights
    of shape [batch] for values of shape [batch, n], and [batch, 1] for [batch])."""
    w, v = weights.shape.ndims, values.shape.ndims
    if w is None or v is None or w == 0:
        return weights
    if w - v == 1:
        return array_ops.squeeze(weights, [-1])
    if v - w == 1:
        return array_ops.expand_dims(weights, -1)
    return weights
