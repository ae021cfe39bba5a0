"""How losses and metrics line their weights up with their values, as TF 1.x's do.

Weights broadcast to values when they are a scalar, or have the values' rank with each
dimension 1 or the values'. NumPy broadcasts more (weights of shape [4] to values of
shape [3, 2, 4]); TF refuses that, and so does distflow: when the graph is built where the
shapes say so, else when the step runs (an assertion that the loss or metric depends on).
"""

from __future__ import annotations

from ..framework import dtypes, ops
from . import array_ops, math_ops, reduction_ops
from .check_ops import Assert
from .control_flow_ops import no_op
from .slicing_ops import concat

_MESSAGE = "weights can not be broadcast to values."


def assert_broadcastable(weights, values, name=None) -> ops.Operation:
    """An op that fails the step unless ``weights`` broadcast to ``values`` by TF's rule (a
    no-op where the shapes decide it when the graph is built).

    Raises:
      ValueError: the static shapes cannot broadcast.
    """
    with ops.name_scope(name, "assert_broadcastable", (weights, values)) as scope:
        check = _check(ops.convert_to_tensor(weights, name="weights"), ops.convert_to_tensor(values, name="values"),
                       scope)
        return check if check is not None else no_op(name="static_shapes_valid")


def broadcast_weights(weights, values, name=None) -> ops.Tensor:
    """``weights`` broadcast to the shape of ``values`` (checked as :func:`assert_broadcastable`)."""
    with ops.name_scope(name, "broadcast_weights", (weights, values)) as scope:
        values = ops.convert_to_tensor(values, name="values")
        weights = ops.convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        if weights.shape.is_fully_defined() and values.shape.is_fully_defined() and \
                weights.shape.is_compatible_with(values.shape):
            return weights
        check = _check(weights, values, None)
        with ops.control_dependencies([check] if check is not None else []):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def check_broadcastable(weights: ops.Tensor, values: ops.Tensor) -> list:
    """The control inputs that check ``weights`` against ``values`` while the step runs: none
    where the static shapes decide it (a ValueError if they cannot broadcast)."""
    check = _check(weights, values, None)
    return [] if check is None else [check]


def _check(weights: ops.Tensor, values: ops.Tensor, name) -> ops.Operation | None:
    w, v = weights.shape, values.shape
    if w.ndims == 0:
        return None
    if w.ndims is not None and v.ndims is not None:
        mismatch = w.ndims != v.ndims or any(a is not None and b is not None and a not in (1, b)
                                             for a, b in zip(w.as_list(), v.as_list()))
        if mismatch:
            raise ValueError(f"{_MESSAGE} values.rank={v.ndims}. weights.rank={w.ndims}. values.shape={v}. "
                             f"weights.shape={w}.")
        if w.is_fully_defined() and v.is_fully_defined():
            return None
    with ops.name_scope(name, "assert_broadcastable"):
        w_shape, v_shape = array_ops.shape(weights), array_ops.shape(values)
        w_rank, v_rank = array_ops.rank(weights), array_ops.rank(values)
        is_scalar = math_ops.equal(w_rank, 0, name="is_scalar")
        # (each shape padded with the other's rank of ones: equal lengths, whatever the ranks)
        w_padded = concat([w_shape, array_ops.ones([v_rank], dtypes.int32)], 0)
        v_padded = concat([v_shape, array_ops.ones([w_rank], dtypes.int32)], 0)
        dims_fit = reduction_ops.reduce_all(math_ops.logical_or(math_ops.equal(w_padded, 1),
                                                                math_ops.equal(w_padded, v_padded)))
        valid = math_ops.logical_or(is_scalar, math_ops.logical_and(math_ops.equal(w_rank, v_rank), dims_fit))
        return Assert(valid, [_MESSAGE, "weights.shape=", w_shape, "values.shape=", v_shape, "is_scalar=",
                              is_scalar], name=name)


def squeeze_or_expand_weights(weights: ops.Tensor, values: ops.Tensor) -> ops.Tensor:
    """``weights`` with a last dimension of 1 dropped where they have one more dimension than
    ``values``, or one added where they have one fewer (TF's metrics take per-example weights
    of shape [batch] for values of shape [batch, n], and [batch, 1] for [batch]); where a rank
    is known only when the step runs, the same is decided then."""
    w, v = weights.shape.ndims, values.shape.ndims
    if w == 0:
        return weights
    if w is None or v is None:
        return adjust_last_dimension(weights, array_ops.rank(weights) - array_ops.rank(values), squeeze_at=1,
                                     expand_at=-1)
    if w - v == 1:
        return array_ops.squeeze(weights, [-1])
    if v - w == 1:
        return array_ops.expand_dims(weights, -1)
    return weights


def adjust_last_dimension(x: ops.Tensor, rank_diff: ops.Tensor, squeeze_at: int, expand_at: int | None = None):
    """``x`` without its last dimension where ``rank_diff`` is ``squeeze_at`` (and that
    dimension is 1), or with one more of size 1 where it is ``expand_at`` (and ``x`` is not a
    scalar): decided when the step runs, by one reshape (TF 1.x built a cond for it)."""
    shape, rank = array_ops.shape(x), array_ops.rank(x)
    last = reduction_ops.reduce_prod(shape[rank - 1:rank])  # (1 for a scalar)
    squeeze = math_ops.logical_and(math_ops.equal(rank_diff, squeeze_at), math_ops.equal(last, 1))
    parts = [shape[:rank - math_ops.cast(squeeze, dtypes.int32)]]
    if expand_at is not None:
        expand = math_ops.logical_and(math_ops.equal(rank_diff, expand_at), math_ops.greater(rank, 0))
        parts.append(array_ops.ones(array_ops.reshape(math_ops.cast(expand, dtypes.int32), [1]), dtypes.int32))
    return array_ops.reshape(x, concat(parts, 0))
