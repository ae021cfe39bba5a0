"""Op types that TensorFlow's own GraphDefs hold and distflow's Python API builds otherwise.

``tf.nn.selu`` or ``tf.segment_sum`` are compositions of other ops in distflow, and a
gradient built by distflow's ``tf.gradients`` needs no ``SqrtGrad``; but a frozen model or a
meta graph that TensorFlow wrote holds ``Selu``, ``SegmentSum``, ``FusedBatchNormV3``, and,
in a graph built for training, TensorFlow's gradient ops (``SqrtGrad``,
``BroadcastGradientArgs``, ``ShapeN``, ``FusedBatchNormGradV3``). Each is here, with
TensorFlow's inputs, attrs, outputs, semantics and messages, so that such a graph imports
and runs. (Ops that are another op under an older name are rewritten on import instead:
framework/op_upgrades.py; TensorFlow's resize ops become image.py's ResizeImage, whose file
also holds ResizeNearestNeighborGrad.)

They run on the CPU (under soft placement where a graph puts them on a GPU), and
``tf.gradients`` does not differentiate them: a graph TensorFlow built for training holds
its gradient ops already.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework.registry import register_gradient, register_op
from ..framework.tensor_shape import TensorShape, unknown_shape
from .op_util import binary_shape, constant_value, unary_shape
from .op_util import kernel_error as _fail

_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


# -- elementwise activations and TensorFlow's gradient ops of elementwise functions -------

@register_op("Selu", shape=unary_shape)
def _selu_kernel(xp, features):
    negative = _SELU_ALPHA * np.expm1(np.minimum(features, 0))
    return (_SELU_SCALE * np.where(features > 0, features, negative)).astype(features.dtype)


@register_op("SeluGrad", shape=unary_shape)
def _selu_grad_kernel(xp, gradients, outputs):
    return np.where(outputs > 0, gradients * _SELU_SCALE,
                    gradients * (outputs + _SELU_SCALE * _SELU_ALPHA)).astype(gradients.dtype)


@register_op("Softsign", shape=unary_shape)
def _softsign_kernel(xp, features):
    return features / (1 + np.abs(features))


@register_op("SoftsignGrad", shape=unary_shape)
def _softsign_grad_kernel(xp, gradients, features):
    return gradients / np.square(1 + np.abs(features))


@register_op("SqrtGrad", shape=unary_shape)
def _sqrt_grad_kernel(xp, y, dy):
    """The gradient of y = sqrt(x), from y: dy / (2 y)."""
    return dy * (0.5 / np.conj(y)).astype(y.dtype)


@register_op("RsqrtGrad", shape=unary_shape)
def _rsqrt_grad_kernel(xp, y, dy):
    """The gradient of y = 1 / sqrt(x), from y: -dy y^3 / 2."""
    return (dy * (-0.5 * np.conj(y) ** 3)).astype(y.dtype)


@register_op("ReciprocalGrad", shape=unary_shape)
def _reciprocal_grad_kernel(xp, y, dy):
    """The gradient of y = 1 / x, from y: -dy y^2."""
    return -dy * np.conj(y) ** 2


def _where_zero(condition, value, dtype):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(condition, np.zeros((), dtype), value).astype(dtype)


@register_op("Xlogy", shape=binary_shape)
def _xlogy_kernel(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _where_zero(x == 0, x * np.log(y), np.result_type(x, y))


@register_op("Xlog1py", shape=binary_shape)
def _xlog1py_kernel(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _where_zero(x == 0, x * np.log1p(y), np.result_type(x, y))


@register_op("Xdivy", shape=binary_shape)
def _xdivy_kernel(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _where_zero(x == 0, x / y, np.result_type(x, y))


@register_op("MulNoNan", shape=binary_shape)
def _mul_no_nan_kernel(xp, x, y):
    with np.errstate(invalid="ignore", over="ignore"):
        return _where_zero(y == 0, x * y, np.result_type(x, y))


@register_op("ClipByValue", shape=unary_shape)
def _clip_by_value_kernel(xp, t, clip_value_min, clip_value_max):
    for what, bound in (("clip_value_min", clip_value_min), ("clip_value_max", clip_value_max)):
        if np.ndim(bound) and np.shape(bound) != t.shape:
            raise _fail("ClipByValue", f"{what} must be a scalar or have the shape of t {list(t.shape)}, "
                        f"got {list(np.shape(bound))}")
    return np.minimum(np.maximum(t, clip_value_min), clip_value_max).astype(t.dtype)


@register_op("ApproximateEqual", shape=binary_shape, dtype=lambda op: dtypes.bool)
def _approximate_equal_kernel(xp, x, y, *, tolerance=1e-5):
    if x.shape != y.shape:
        raise _fail("ApproximateEqual", f"x and y must have the same shape, got {list(x.shape)} and {list(y.shape)}")
    return np.abs(x - y) < tolerance


@register_op("PreventGradient", shape=unary_shape, may_alias=True)
def _prevent_gradient_kernel(xp, input, *, message=""):  # noqa: A002 - TF's name
    return input


@register_gradient("PreventGradient")
def _prevent_gradient_grad(op, grad):
    raise LookupError(f"Gradient explicitly disabled. Reason: {op._attrs.get('message', '')} (node '{op.name}')")


# -- shapes ------------------------------------------------------------------------------

@register_op("ShapeN", shape=lambda op: [TensorShape([t.shape.ndims]) for t in op.inputs],
             dtype=lambda op: [op._attrs.get("out_type", dtypes.int32)] * len(op.inputs), list_output=True)
def _shape_n_kernel(xp, *inputs, out_type=dtypes.int32, N=None):  # noqa: N803 - TF's attr
    return tuple(np.array(np.shape(x), out_type.as_numpy_dtype) for x in inputs)


def _padded(shapes):
    rank = max(len(s) for s in shapes)
    return [[1] * (rank - len(s)) + [int(d) for d in s] for s in shapes], rank


@register_op("BroadcastArgs", shape=lambda op: TensorShape([None]))
def _broadcast_args_kernel(xp, s0, s1):
    try:
        return np.array(np.broadcast_shapes(tuple(s0.tolist()), tuple(s1.tolist())), s0.dtype)
    except ValueError:
        raise _fail("BroadcastArgs", f"Incompatible shapes: {s0.tolist()} vs. {s1.tolist()}") from None


@register_op("BroadcastGradientArgs", shape=lambda op: [TensorShape([None])] * 2,
             dtype=lambda op: [op.inputs[0].dtype.base_dtype] * 2, list_output=True)
def _broadcast_gradient_args_kernel(xp, s0, s1):
    """The axes along which each operand of a broadcasting op was broadcast: where its
    gradient is summed."""
    (a, b), rank = _padded([s0.tolist(), s1.tolist()])
    r0, r1 = [], []
    for axis, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise _fail("BroadcastGradientArgs", f"Incompatible shapes: {s0.tolist()} vs. {s1.tolist()}")
        if x == 1 and y == 1:  # (TensorFlow sums both along an axis where both are 1)
            r0.append(axis)
            r1.append(axis)
        elif x == 1:
            r0.append(axis)
        elif y == 1:
            r1.append(axis)
    return np.array(r0, s0.dtype), np.array(r1, s0.dtype)


@register_op("Empty", shape=lambda op: TensorShape(None) if constant_value(op.inputs[0]) is None else TensorShape(
    [int(d) for d in constant_value(op.inputs[0])]), dtype=lambda op: op._attr("dtype"), stateful=True)
def _empty_kernel(xp, shape, *, dtype, init=False):
    return np.zeros([int(d) for d in np.asarray(shape).reshape(-1)], dtype.as_numpy_dtype)


# -- sequences and diagonals -------------------------------------------------------------

@register_op("LinSpace", shape=lambda op: TensorShape(
    [int(constant_value(op.inputs[2])) if constant_value(op.inputs[2]) is not None else None]))
def _lin_space_kernel(xp, start, stop, num):
    n = int(num)
    if n <= 0:
        raise _fail("LinSpace", f"Requires num > 0: {n}")
    return np.linspace(start, stop, n).astype(start.dtype)


def _diag_shape(op):
    shape = op.inputs[0].shape
    if shape.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return shape.concatenate(shape) if shape.ndims is not None else unknown_shape()


@register_op("Diag", shape=_diag_shape)
def _diag_kernel(xp, diagonal):
    if diagonal.ndim < 1:
        raise _fail("Diag", f"Input must be at least rank 1, got {diagonal.ndim}")
    n = diagonal.size
    out = np.zeros((n, n), diagonal.dtype)
    out[np.arange(n), np.arange(n)] = diagonal.reshape(-1)
    return out.reshape(diagonal.shape + diagonal.shape)


def _diag_part_shape(op):
    shape = op.inputs[0].shape
    if shape.ndims is not None:
        half = shape.ndims // 2
        if shape.ndims % 2 or shape.ndims == 0:
            raise ValueError(f"Input must have even and non-zero rank, got {shape}")
        shape[:half].assert_is_compatible_with(shape[half:])
    return TensorShape(shape.as_list()[:shape.ndims // 2]) if shape.ndims is not None else unknown_shape()


@register_op("DiagPart", shape=_diag_part_shape)
def _diag_part_kernel(xp, input):  # noqa: A002 - TF's name
    half = input.ndim // 2
    if input.ndim % 2 or input.ndim == 0 or input.shape[:half] != input.shape[half:]:
        raise _fail("DiagPart", f"the input's shape must be [D1, ..., Dk, D1, ..., Dk], got {list(input.shape)}")
    n = int(np.prod(input.shape[:half]))
    return input.reshape(n, n)[np.arange(n), np.arange(n)].reshape(input.shape[:half])


@register_op("UnravelIndex", shape=lambda op: unknown_shape(), dtype=lambda op: op.inputs[0].dtype.base_dtype)
def _unravel_index_kernel(xp, indices, dims):
    dims = [int(d) for d in dims]
    if np.any(indices < 0) or np.any(indices >= int(np.prod(dims))):
        raise _fail("UnravelIndex", f"index out of bounds for dims {dims}")
    return np.stack(np.unravel_index(indices, dims)).astype(indices.dtype)


def _bound(side):
    def kernel(xp, sorted_inputs, values, *, out_type=dtypes.int32):
        if sorted_inputs.ndim != 2 or values.ndim != 2 or sorted_inputs.shape[0] != values.shape[0]:
            raise _fail("LowerBound" if side == "left" else "UpperBound",
                        f"sorted_inputs and values must be matrices of one batch size, got {list(sorted_inputs.shape)}"
                        f" and {list(values.shape)}")
        return np.stack([np.searchsorted(row, v, side=side) for row, v in zip(sorted_inputs, values)]).reshape(
            values.shape).astype(out_type.as_numpy_dtype)
    return kernel


for _op_type, _side in (("LowerBound", "left"), ("UpperBound", "right")):
    register_op(_op_type, shape=lambda op: op.inputs[1].shape,
                dtype=lambda op: op._attrs.get("out_type", dtypes.int32))(_bound(_side))


@register_op("Bincount", shape=lambda op: TensorShape([None]), dtype=lambda op: op.inputs[2].dtype.base_dtype)
def _bincount_kernel(xp, arr, size, weights):
    n = int(size)
    if n < 0:
        raise _fail("Bincount", f"size ({n}) must be non-negative")
    if np.any(arr < 0):
        raise _fail("Bincount", "Input arr must be non-negative!")
    values = arr.reshape(-1)
    kept = values < n
    w = weights.reshape(-1)[kept] if weights.size else None
    return np.bincount(values[kept], w, minlength=n)[:n].astype(weights.dtype)


# -- reductions and segments -------------------------------------------------------------

@register_op("EuclideanNorm", shape=lambda op: unknown_shape())
def _euclidean_norm_kernel(xp, input, reduction_indices, *, keep_dims=False):  # noqa: A002 - TF's name
    axes = tuple(int(a) for a in np.asarray(reduction_indices).reshape(-1))
    squares = np.real(input * np.conj(input)) if np.iscomplexobj(input) else input * input
    return np.sqrt(np.sum(squares, axis=axes, keepdims=keep_dims)).astype(input.dtype)


def _segment(op_type, reduce, empty):
    def kernel(xp, data, segment_ids):
        ids = np.asarray(segment_ids).reshape(-1)
        if ids.size != (data.shape[0] if data.ndim else 0):
            raise _fail(op_type, f"segment_ids should be the same size as dimension 0 of input, got {ids.size} "
                        f"and {data.shape[0] if data.ndim else 'a scalar'}")
        if ids.size and (ids[0] < 0 or np.any(np.diff(ids) < 0)):
            raise _fail(op_type, "segment ids must be >= 0 and sorted, in increasing order")
        count = int(ids[-1]) + 1 if ids.size else 0
        out = np.full((count,) + data.shape[1:], empty, data.dtype)
        if ids.size:
            starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            out[ids[starts]] = reduce(data, starts).astype(data.dtype)
        return out
    return kernel


def _segment_mean(data, starts):
    sizes = np.diff(np.r_[starts, len(data)]).reshape((-1,) + (1,) * (data.ndim - 1))
    return np.add.reduceat(data, starts, axis=0) / sizes


for _op_type, _reduce, _empty in (
        ("SegmentSum", lambda d, s: np.add.reduceat(d, s, axis=0), 0),
        ("SegmentProd", lambda d, s: np.multiply.reduceat(d, s, axis=0), 1),
        ("SegmentMax", lambda d, s: np.maximum.reduceat(d, s, axis=0), 0),
        ("SegmentMin", lambda d, s: np.minimum.reduceat(d, s, axis=0), 0),
        ("SegmentMean", _segment_mean, 0)):
    register_op(_op_type, shape=lambda op: TensorShape([None]).concatenate(op.inputs[0].shape[1:])
                if op.inputs[0].shape.ndims is not None else unknown_shape())(_segment(_op_type, _reduce, _empty))


def _sparse_segment(op_type, scale):
    def kernel(xp, data, indices, segment_ids, *num_segments):
        indices, ids = np.asarray(indices).reshape(-1), np.asarray(segment_ids).reshape(-1)
        if indices.size != ids.size:
            raise _fail(op_type, f"segment_ids and indices should have same size, got {ids.size} and {indices.size}")
        rows = data.shape[0]
        if indices.size and (indices.min() < 0 or indices.max() >= rows):
            bad = indices[(indices < 0) | (indices >= rows)][0]
            raise _fail(op_type, f"Bad: indices[...] == {bad} out of range [0, {rows})")
        if ids.size and (ids[0] < 0 or np.any(np.diff(ids) < 0)):
            raise _fail(op_type, "segment ids must be >= 0 and sorted, in increasing order")
        count = int(num_segments[0]) if num_segments else (int(ids[-1]) + 1 if ids.size else 0)
        if ids.size and ids[-1] >= count:
            raise _fail(op_type, f"segment id {int(ids[-1])} out of range [0, {count})")
        out = np.zeros((count,) + data.shape[1:], data.dtype)
        np.add.at(out, ids, data[indices])
        if scale is not None:
            sizes = np.bincount(ids, minlength=count).astype(data.dtype)
            out /= scale(np.maximum(sizes, 1)).reshape((-1,) + (1,) * (data.ndim - 1))
        return out
    return kernel


for _kind, _scale in (("Sum", None), ("Mean", lambda n: n), ("SqrtN", np.sqrt)):
    for _suffix in ("", "WithNumSegments"):
        register_op(f"SparseSegment{_kind}{_suffix}", shape=lambda op: TensorShape([None]).concatenate(
            op.inputs[0].shape[1:]) if op.inputs[0].shape.ndims is not None else unknown_shape())(
            _sparse_segment(f"SparseSegment{_kind}{_suffix}", _scale))


@register_op("ConjugateTranspose", shape=lambda op: unknown_shape())
def _conjugate_transpose_kernel(xp, x, perm):
    return np.conj(np.transpose(x, [int(p) for p in perm]))


# -- batch normalization -----------------------------------------------------------------

def _channels(data_format) -> int:
    return 1 if data_format in ("NCHW", "NCDHW") else -1


def _per_channel(v, x, axis):
    shape = [1] * x.ndim
    shape[axis] = -1
    return v.reshape(shape)


def _batch_norm_shapes(op):
    x = op.inputs[0].shape
    axis = _channels(op._attrs.get("data_format", "NHWC"))
    c = x.as_list()[axis] if x.ndims is not None else None
    n = 6 if op.type == "FusedBatchNormV3" else 5
    return [x] + [TensorShape([c])] * 4 + [unknown_shape()] * (n - 5)


def _batch_norm_dtypes(op):
    n = 6 if op.type == "FusedBatchNormV3" else 5
    return [op.inputs[0].dtype.base_dtype] + [op.inputs[1].dtype.base_dtype] * (n - 1)


def _fused_batch_norm(version: str):
    def kernel(xp, x, scale, offset, mean, variance, *, epsilon=1e-4, exponential_avg_factor=1.0,
               data_format="NHWC", is_training=True):
        axis = _channels(data_format)
        c = x.shape[axis]
        if scale.shape != (c,) or offset.shape != (c,):
            raise _fail(version, f"scale and offset must be vectors of the {c} channels, got {list(scale.shape)} and "
                        f"{list(offset.shape)}")
        compute = np.float64 if x.dtype == np.float64 else np.float32
        xs = x.astype(compute)
        reduce = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
        if is_training:
            m = xs.mean(axis=reduce)
            v = xs.var(axis=reduce)
            count = x.size // max(c, 1)
            unbiased = v * count / max(count - 1, 1)
            factor = exponential_avg_factor
            if factor != 1.0 and mean.size:
                batch_mean = (1 - factor) * mean + factor * m
                batch_var = (1 - factor) * variance + factor * unbiased
            else:
                batch_mean, batch_var = m, unbiased
        else:
            if mean.shape != (c,) or variance.shape != (c,):
                raise _fail(version, f"mean and variance must be vectors of the {c} channels for inference, got "
                            f"{list(mean.shape)} and {list(variance.shape)}")
            m, v = mean.astype(compute), variance.astype(compute)
            batch_mean, batch_var = mean, variance
        inv = 1.0 / np.sqrt(v + epsilon)
        y = (xs - _per_channel(m, x, axis)) * _per_channel(inv * scale, x, axis) + _per_channel(
            offset.astype(compute), x, axis)
        u = scale.dtype
        out = (y.astype(x.dtype), np.asarray(batch_mean, u), np.asarray(batch_var, u), m.astype(u), v.astype(u))
        return out + ((np.zeros(0, u),) if version == "FusedBatchNormV3" else ())
    return kernel


for _version in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
    register_op(_version, shape=_batch_norm_shapes, dtype=_batch_norm_dtypes, list_output=True)(
        _fused_batch_norm(_version))


def _fused_batch_norm_grad(version: str):
    def kernel(xp, y_backprop, x, scale, reserve_space_1, reserve_space_2, *reserve_space_3, epsilon=1e-4,
               data_format="NHWC", is_training=True):
        axis = _channels(data_format)
        compute = np.float64 if x.dtype == np.float64 else np.float32
        xs, dy = x.astype(compute), y_backprop.astype(compute)
        reduce = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
        m, v = reserve_space_1.astype(compute), reserve_space_2.astype(compute)
        inv = 1.0 / np.sqrt(v + epsilon)
        x_hat = (xs - _per_channel(m, x, axis)) * _per_channel(inv, x, axis)
        d_offset = dy.sum(axis=reduce)
        d_scale = (dy * x_hat).sum(axis=reduce)
        if is_training:
            count = x.size // max(x.shape[axis], 1)
            dx = _per_channel(scale * inv, x, axis) * (
                dy - _per_channel(d_offset / count, x, axis) - x_hat * _per_channel(d_scale / count, x, axis))
        else:
            dx = dy * _per_channel(scale * inv, x, axis)
        u = scale.dtype
        return dx.astype(x.dtype), d_scale.astype(u), d_offset.astype(u), np.zeros(0, u), np.zeros(0, u)
    return kernel


for _version in ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"):
    register_op(_version, shape=lambda op: [op.inputs[1].shape] + [op.inputs[2].shape] * 2 + [unknown_shape()] * 2,
                dtype=lambda op: [op.inputs[1].dtype.base_dtype] + [op.inputs[2].dtype.base_dtype] * 4,
                list_output=True)(_fused_batch_norm_grad(_version))

