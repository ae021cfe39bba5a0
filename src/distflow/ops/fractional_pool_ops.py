"""Fractional max and average pooling (``tf.nn.fractional_max_pool``, ``fractional_avg_pool``;
Benjamin Graham, "Fractional Max-Pooling", 2014).

The height and the width are each cut into ``floor(size / ratio)`` regions whose lengths are
``K = floor(size / out)`` or ``K + 1``, in an order drawn at random: a shuffle of those
lengths (``pseudo_random=False``), or the boundaries ``ceil(alpha * (i + u)) - ceil(alpha * u)``
for one draw of ``u`` (``pseudo_random=True``). With ``overlapping`` each region also takes
the row (column) on its far boundary. The op returns the pooled tensor and both sequences of
boundaries; the gradient routes through the same regions. The draws are distflow's own (a
NumPy generator seeded by ``seed``/``seed2`` when either is set, and the same sequences on
every run with ``deterministic``): they follow the same rules as TensorFlow's, not its
numbers.
"""

from __future__ import annotations

import math

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import make_op


def _out_size(size: int, ratio: float) -> int:
    return int(size / ratio)


def _sequence(rng, size: int, out: int, pseudo_random: bool) -> np.ndarray:
    """The ``out + 1`` region boundaries of a dimension of ``size``: 0, ..., size."""
    if out <= 0 or out > size:
        raise errors.InvalidArgumentError(None, None, f"fractional pooling: {size} rows or columns cannot make "
                                          f"{out} regions (the pooling ratio must be at least 1 and leave one)")
    alpha = size / out
    if pseudo_random and out > 1:
        for _ in range(100):
            u = rng.uniform(0.0, 1.0)
            bounds = [math.ceil(alpha * (i + u)) - math.ceil(alpha * u) for i in range(out)] + [size]
            steps = np.diff(bounds)
            if steps.min() >= 1 and steps.max() - steps.min() <= 1:
                return np.array(bounds, np.int64)
    base = size // out
    longer = size - base * out
    steps = np.array([base + 1] * longer + [base] * (out - longer), np.int64)
    rng.shuffle(steps)
    return np.concatenate([[0], np.cumsum(steps)]).astype(np.int64)


def _regions(bounds: np.ndarray, size: int, overlapping: bool) -> list[tuple[int, int]]:
    """Each region's [start, end) along a dimension."""
    return [(int(a), min(int(b) + (1 if overlapping else 0), size)) for a, b in zip(bounds[:-1], bounds[1:])]


def _draws(ctx, seed: int, seed2: int, deterministic: bool):
    state = ctx.state
    if deterministic:
        return np.random.default_rng([seed, seed2])  # (the same sequences every run)
    if "rng" not in state:
        state["rng"] = np.random.default_rng([seed, seed2] if (seed or seed2) else None)
    return state["rng"]


def _pooled(x, rows, cols, combine):
    out = np.empty((x.shape[0], len(rows), len(cols), x.shape[3]), dtype=x.dtype)
    for i, (r0, r1) in enumerate(rows):
        band = x[:, r0:r1]
        for j, (c0, c1) in enumerate(cols):
            out[:, i, j] = combine(band[:, :, c0:c1], axis=(1, 2))
    return out


def _fractional_kernel(combine):
    def kernel(ctx, x, *, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2):
        if x.ndim != 4:
            raise errors.InvalidArgumentError(None, None, f"fractional pooling needs a 4-D input, got shape "
                                              f"{list(x.shape)}")
        rng = _draws(ctx, seed, seed2, deterministic)
        height, width = x.shape[1], x.shape[2]
        row_seq = _sequence(rng, height, _out_size(height, pooling_ratio[1]), pseudo_random)
        col_seq = _sequence(rng, width, _out_size(width, pooling_ratio[2]), pseudo_random)
        pooled = _pooled(x, _regions(row_seq, height, overlapping), _regions(col_seq, width, overlapping), combine)
        return pooled, row_seq, col_seq
    return kernel


def _shape(op):
    x = op.inputs[0].shape
    ratio = op._attr("pooling_ratio")
    if x.ndims is None:
        return [TensorShape([None] * 4), TensorShape([None]), TensorShape([None])]
    dims = x.as_list()
    out = [None if dims[i] is None else _out_size(dims[i], ratio[i]) for i in (1, 2)]
    return [TensorShape([dims[0], out[0], out[1], dims[3]]),
            TensorShape([None if out[0] is None else out[0] + 1]), TensorShape([None if out[1] is None else out[1] + 1])]


def _dtypes(op):
    return [op.inputs[0].dtype.base_dtype, dtypes.int64, dtypes.int64]


register_op("FractionalMaxPool", shape=_shape, dtype=_dtypes, list_output=True, stateful=True)(
    _fractional_kernel(np.max))
register_op("FractionalAvgPool", shape=_shape, dtype=_dtypes, list_output=True, stateful=True)(
    _fractional_kernel(np.mean))


@register_op("FractionalMaxPoolGrad", shape=lambda op: op.inputs[0].shape)
def _fractional_max_pool_grad_kernel(xp, x, y, grad, row_seq, col_seq, *, overlapping=False):
    """Each region's gradient to the first position (in row-major order) holding its maximum."""
    dx = np.zeros_like(x, dtype=grad.dtype)
    rows = _regions(row_seq, x.shape[1], overlapping)
    cols = _regions(col_seq, x.shape[2], overlapping)
    n, c = np.meshgrid(np.arange(x.shape[0]), np.arange(x.shape[3]), indexing="ij")
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            window = x[:, r0:r1, c0:c1].reshape(x.shape[0], -1, x.shape[3])
            first = np.argmax(window, axis=1)  # (the first maximum)
            dr, dc = np.divmod(first, c1 - c0)
            np.add.at(dx, (n, r0 + dr, c0 + dc, c), grad[:, i, j])
    return dx


@register_op("FractionalAvgPoolGrad", shape=lambda op: TensorShape(None))
def _fractional_avg_pool_grad_kernel(xp, input_shape, grad, row_seq, col_seq, *, overlapping=False):
    """Each region's gradient spread evenly over it."""
    shape = tuple(int(d) for d in np.reshape(input_shape, [-1]))
    dx = np.zeros(shape, dtype=grad.dtype)
    for i, (r0, r1) in enumerate(_regions(row_seq, shape[1], overlapping)):
        for j, (c0, c1) in enumerate(_regions(col_seq, shape[2], overlapping)):
            dx[:, r0:r1, c0:c1] += (grad[:, i, j] / ((r1 - r0) * (c1 - c0)))[:, None, None, :]
    return dx


not_differentiable("FractionalMaxPoolGrad")
not_differentiable("FractionalAvgPoolGrad")


@register_gradient("FractionalMaxPool")
def _fractional_max_pool_grad(op, grad, *_):
    x, = op.inputs
    y, rows, cols = op.outputs
    return make_op("FractionalMaxPoolGrad", [x, y, grad, rows, cols],
                   {"overlapping": op._attr("overlapping")}).outputs[0]


@register_gradient("FractionalAvgPool")
def _fractional_avg_pool_grad(op, grad, *_):
    from .array_ops import shape as shape_of  # noqa: PLC0415

    _, rows, cols = op.outputs
    return make_op("FractionalAvgPoolGrad", [shape_of(op.inputs[0], out_type=dtypes.int64), grad, rows, cols],
                   {"overlapping": op._attr("overlapping")}).outputs[0]


def _fractional(op_type, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed, seed2, name):
    value = ops.convert_to_tensor(value)
    ratio = [float(r) for r in pooling_ratio]
    if len(ratio) != 4 or ratio[0] != 1.0 or ratio[3] != 1.0:
        raise ValueError(f"{op_type}: pooling_ratio must be [1.0, row ratio, column ratio, 1.0], got {pooling_ratio}")
    if min(ratio[1], ratio[2]) < 1.0:
        raise ValueError(f"{op_type}: the row and column ratios must be at least 1.0, got {pooling_ratio}")
    outputs = make_op(op_type, [value], {"pooling_ratio": ratio, "pseudo_random": bool(pseudo_random),
                                         "overlapping": bool(overlapping), "deterministic": bool(deterministic),
                                         "seed": int(seed or 0), "seed2": int(seed2 or 0)},
                      name or op_type).outputs
    return tuple(outputs)


def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                        seed2=0, name=None):
    """(pooled, row boundaries, column boundaries): the maximum of each fractional region."""
    return _fractional("FractionalMaxPool", value, pooling_ratio, pseudo_random, overlapping, deterministic, seed,
                       seed2, name)


def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, deterministic=False, seed=0,
                        seed2=0, name=None):
    """(pooled, row boundaries, column boundaries): the mean of each fractional region."""
    return _fractional("FractionalAvgPool", value, pooling_ratio, pseudo_random, overlapping, deterministic, seed,
                       seed2, name)
