"""Reductions (sum, mean, max, min, prod, all, any) and arg-reductions.

Built on math_ops.py (``tf.reduce_sum`` and the others are gathered into the ``tf``
namespace from here); their gradients are in math_grad.py.
"""

from __future__ import annotations

import math

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops
from .math_ops import range_
from .op_util import COMPLEX, NUMBERS, check_dtype, index_tensor, known_axis, make_tensor, normalize_axis

# ---------------------------------------------------------------------------
# Reductions


def _reduce_shape(op):
    x, axis_t = op.inputs
    keep = op._attr("keep_dims")
    axes = known_axis(axis_t)
    if x.shape.ndims is None:
        return TensorShape([] if not keep and _all_axes(axis_t, x) else None)
    r = x.shape.ndims
    if axes is None:
        return TensorShape([None] * r if keep else None)
    axes = {normalize_axis(a, r) for a in ([axes] if isinstance(axes, int) else axes)}
    dims = x.shape.as_list()
    if keep:
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes])


def _all_axes(axis_t, x) -> bool:
    """Whether ``axis_t`` is range(0, rank(x)): every axis of a tensor of unknown rank."""
    op = axis_t.op
    return op._type == "Range" and op.inputs[1].op._type == "Rank" and op.inputs[1].op.inputs[0] is x


def _axes(axis, ndim: int) -> tuple:
    """The reduced axes of an ``ndim``-D input, each once and non-negative (TF takes
    ``(0, -2)`` of a matrix as axis 0); one out of range is an InvalidArgumentError."""
    values = axis.tolist() if axis.__class__ is np.ndarray else np.reshape(axis, [-1]).tolist()
    out = set()
    for a in (values if values.__class__ is list else [values]):
        if not -ndim <= a < ndim:
            raise errors.InvalidArgumentError(None, None, f"Invalid reduction dimension ({a} for input with {ndim} "
                                                          "dimension(s))")
        out.add(a % ndim)
    return tuple(sorted(out))


_SMALL = 16384  # bytes: below, a reduction is mostly its call's overhead

# (NumPy's np.sum, np.max, ... are Python around these ufuncs' reduce: 1.3 us of a 2.3 us call)
_REDUCERS = {"add": np.add.reduce, "multiply": np.multiply.reduce, "maximum": np.maximum.reduce,
             "minimum": np.minimum.reduce, "logical_and": np.logical_and.reduce, "logical_or": np.logical_or.reduce}
_DEVICE_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min", "logical_and": "all",
                      "logical_or": "any"}


def _reduced(xp, ufunc: str, x, axes: tuple, keep_dims: bool, dtype=None):
    """``ufunc``'s reduction of ``x`` over ``axes``, called directly for NumPy arrays."""
    if xp is np:
        return _REDUCERS[ufunc](x, axis=axes, keepdims=keep_dims, dtype=dtype)
    extra = {"dtype": dtype} if dtype else {}
    return getattr(xp, _DEVICE_REDUCTIONS[ufunc])(x, axis=axes, keepdims=keep_dims, **extra)


def _leading(x, axes: tuple) -> int:
    """k when ``axes`` are exactly x's first k axes and not all of them (a batch's or an
    image's positions, reduced per channel: what BLAS sums fastest), else 0."""
    if x.ndim < 2 or x.dtype.kind != "f":
        return 0
    chosen = sorted({a % x.ndim for a in axes})
    return len(chosen) if chosen == list(range(len(chosen))) and len(chosen) < x.ndim else 0


def _sum_of_leading(xp, x, k: int, keep_dims: bool):
    total = array_ops.sum_leading_axes(xp, x, k)
    return total.reshape((1,) * k + total.shape) if keep_dims else total


def _middle_sum(x, axes: tuple, keep_dims: bool):
    """``x`` summed over one axis between its first and its last, where the axes after it
    are few elements (an attention's positions over time): as a product of ones with each
    [n, after] block, or None where that does not pay. NumPy's reduction walks such an
    axis with an inner loop as short as the last axes: 6.9 against 1.6 us for [12, 30, 8]
    over axis 1, 166 against 8 for [8, 1000, 16]; from some 128 elements after the axis
    NumPy's own is faster (1.1 against 1.7 ms for [64, 256, 512])."""
    if len(axes) != 1 or x.size < 1024 or not 0 < axes[0] < x.ndim - 1 or x.dtype not in array_ops._BLAS_FLOATS \
            or not x.flags.c_contiguous:
        return None  # (under 1024 elements NumPy's own costs less than the call)
    a = axes[0]
    after = math.prod(x.shape[a + 1:])
    if after > 128:
        return None
    total = np.matmul(np.ones(x.shape[a], x.dtype), x.reshape(-1, x.shape[a], after))
    return total.reshape(x.shape[:a] + ((1,) if keep_dims else ()) + x.shape[a + 1:])


@register_op("Sum", shape=_reduce_shape)
def _sum_kernel(xp, x, axis, *, keep_dims):
    axes = _axes(axis, x.ndim)
    k = _leading(x, axes)
    if k:
        return _sum_of_leading(xp, x, k, keep_dims)
    if xp is np:
        total = _middle_sum(x, axes, keep_dims)
        if total is not None:
            return total
    return _reduced(xp, "add", x, axes, keep_dims, x.dtype)


@register_op("Prod", shape=_reduce_shape)
def _prod_kernel(xp, x, axis, *, keep_dims):
    return _reduced(xp, "multiply", x, _axes(axis, x.ndim), keep_dims, x.dtype)


def _empty_extremum(xp, x, axes, keep_dims, largest: bool):
    """A max (min) over no values: the dtype's lowest (highest) value, as TensorFlow's."""
    shape = np.empty(x.shape, np.bool_).max(axis=axes, keepdims=keep_dims, initial=False).shape
    if x.dtype.kind == "f":
        value = -np.inf if largest else np.inf
    elif x.dtype.kind == "b":
        value = not largest
    else:
        info = np.iinfo(x.dtype)
        value = info.min if largest else info.max
    return xp.full(shape, value, dtype=x.dtype)


@register_op("Max", shape=_reduce_shape)
def _max_kernel(xp, x, axis, *, keep_dims):
    if x.size == 0:
        return _empty_extremum(xp, x, _axes(axis, x.ndim), keep_dims, largest=True)
    return _reduced(xp, "maximum", x, _axes(axis, x.ndim), keep_dims)


@register_op("Min", shape=_reduce_shape)
def _min_kernel(xp, x, axis, *, keep_dims):
    if x.size == 0:
        return _empty_extremum(xp, x, _axes(axis, x.ndim), keep_dims, largest=False)
    return _reduced(xp, "minimum", x, _axes(axis, x.ndim), keep_dims)


@register_op("Mean", shape=_reduce_shape)
def _mean_kernel(xp, x, axis, *, keep_dims):
    axes = _axes(axis, x.ndim)
    if x.dtype.kind in "iu":  # TF's integer mean truncates toward zero
        total = xp.sum(x, axis=axes, keepdims=keep_dims, dtype=np.int64)
        count = max(1, int(np.prod([x.shape[a] for a in axes])))
        return (np.sign(total) * (np.abs(total) // count)).astype(x.dtype)
    if x.dtype == np.float16:  # summed in float32, as TF's: a float16 sum overflows past 65504
        return xp.mean(x, axis=axes, keepdims=keep_dims, dtype=np.float32).astype(np.float16)
    if xp is np and x.dtype.kind == "f":
        count = 1
        for a in axes:
            count *= x.shape[a]
        if count:
            total = _middle_sum(x, axes, keep_dims)
            if total is not None:
                total /= count
                return total
            if x.nbytes < _SMALL:  # (a loop's small tensors: the least Python)
                return np.add.reduce(x, axis=axes, keepdims=keep_dims) / count
    k = _leading(x, axes)
    count = int(np.prod(x.shape[:k]))
    if k and count:  # (an empty mean is NaN: NumPy's)
        total = _sum_of_leading(xp, x, k, keep_dims)
        return xp.divide(total, count, out=total, dtype=x.dtype)
    if xp is np:  # (NumPy's mean, without np.mean's 5 us of Python around it)
        count = math.prod(x.shape[a] for a in axes)
        if count:
            total = np.add.reduce(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)
            return np.true_divide(total, count, out=total if total.__class__ is np.ndarray else None,
                                  dtype=x.dtype)
    return xp.mean(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)


@register_op("All", shape=_reduce_shape)
def _all_kernel(xp, x, axis, *, keep_dims):
    return _reduced(xp, "logical_and", x, _axes(axis, x.ndim), keep_dims)


@register_op("Any", shape=_reduce_shape)
def _any_kernel(xp, x, axis, *, keep_dims):
    return _reduced(xp, "logical_or", x, _axes(axis, x.ndim), keep_dims)


not_differentiable("All")
not_differentiable("Any")


@register_op("ReducedShape", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.int32)
def _reduced_shape_kernel(xp, shape, axes):
    """``shape`` with the reduced ``axes`` set to 1 (the keepdims shape)."""
    out = shape.astype(np.int32).copy()
    out[np.reshape(axes, [-1]) % max(1, len(out))] = 1
    return out


not_differentiable("ReducedShape")


@register_op("ProdGrad", shape=lambda op: op.inputs[0].shape)
def _prod_grad_kernel(xp, x, grad, axis):
    """d prod / dx_i = product of the others, computed without dividing (zeros are fine)."""
    if not np.reshape(axis, [-1]).size:
        return xp.broadcast_to(grad, x.shape).astype(x.dtype)
    flat, shape, order = _grouped(xp, x, axis)
    ones = xp.ones((1,) + flat.shape[1:], dtype=x.dtype)
    before = xp.cumprod(xp.concatenate([ones, flat[:-1]]), axis=0)
    after = xp.cumprod(xp.concatenate([ones, flat[:0:-1]]), axis=0)[::-1]
    others = xp.transpose((before * after).reshape(shape), np.argsort(order))
    return (others * grad).astype(x.dtype)


def _grouped(xp, x, axis):
    """``x`` with the reduced axes flattened into the first: (that array, the moved shape, the order)."""
    axes = sorted({a % x.ndim for a in np.reshape(axis, [-1]).tolist()})
    rest = [a for a in range(x.ndim) if a not in axes]
    moved = xp.transpose(x, axes + rest)
    return moved.reshape((-1,) + moved.shape[len(axes):]), moved.shape, axes + rest


@register_op("ProdGradGrad", shape=lambda op: op.inputs[0].shape)
def _prod_grad_grad_kernel(xp, x, h, grad, axis):
    """The gradient of ProdGrad(x, grad) for x, given ``h`` (shaped as x): grad times
    Q_j = sum over i != j of h_i times the product of the x_k other than x_i and x_j, within
    each reduced group. Without dividing: Q_j = (product after j) A_j + (product before j) B_j,
    where A and B sum the terms with i before and after j, each a pass along the group."""
    if not np.reshape(axis, [-1]).size:
        return xp.zeros_like(x)
    flat, shape, order = _grouped(xp, x, axis)
    hflat = _grouped(xp, h, axis)[0]
    n = flat.shape[0]
    before = xp.ones_like(flat)
    after = xp.ones_like(flat)
    for j in range(1, n):
        before[j] = before[j - 1] * flat[j - 1]
        after[n - 1 - j] = after[n - j] * flat[n - j]
    q = xp.zeros_like(flat)
    a = xp.zeros(flat.shape[1:], dtype=x.dtype)
    for j in range(n):  # a: the terms with i < j
        q[j] = after[j] * a
        a = a * flat[j] + hflat[j] * before[j]
    b = xp.zeros(flat.shape[1:], dtype=x.dtype)
    for j in range(n - 1, -1, -1):  # b: the terms with i > j
        q[j] += before[j] * b
        b = b * flat[j] + hflat[j] * after[j]
    out = xp.transpose(q.reshape(shape), np.argsort(order))
    return (out * grad).astype(x.dtype)


not_differentiable("ProdGradGrad")


@register_gradient("ProdGrad")
def _prod_grad_grad(op, h):
    x, g, axis = op.inputs
    others = make_tensor("ProdGrad", [x, make_tensor("OnesLike", [g]), axis], None, "ProdGrad")
    return (make_tensor("ProdGradGrad", [x, h, g, axis], None, "ProdGradGrad"),
            _reduce("Sum", "Sum", others * h, axis, True, None), None)


def _reduce(op_type: str, default_name: str, x, axis, keepdims, name, allowed=NUMBERS,
            keep_dims=None, reduction_indices=None) -> ops.Tensor:
    x = ops.convert_to_tensor(x, dtype=dtypes.bool if allowed == (dtypes.bool,) and not isinstance(
        x, ops.Tensor) and not hasattr(x, "_as_graph_element") else None)
    check_dtype(op_type, x, allowed, "input")
    keepdims = bool(keep_dims if keep_dims is not None else keepdims)
    axis = reduction_indices if axis is None else axis
    if axis is None:
        if x.shape.ndims is not None:
            axis = list(range(x.shape.ndims))
        else:
            axis = range_(0, array_ops.rank(x))
    axis_t = index_tensor(axis)
    return make_tensor(op_type, [x, axis_t], {"keep_dims": keepdims}, name or default_name)


def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Sum", "Sum", input_tensor, axis, keepdims, name, NUMBERS + COMPLEX, keep_dims=keep_dims,
                   reduction_indices=reduction_indices)


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Mean", "Mean", input_tensor, axis, keepdims, name, NUMBERS + COMPLEX, keep_dims=keep_dims,
                   reduction_indices=reduction_indices)


def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Max", "Max", input_tensor, axis, keepdims, name, keep_dims=keep_dims,
                   reduction_indices=reduction_indices)


def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Min", "Min", input_tensor, axis, keepdims, name, keep_dims=keep_dims,
                   reduction_indices=reduction_indices)


def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Prod", "Prod", input_tensor, axis, keepdims, name, NUMBERS + COMPLEX, keep_dims=keep_dims,
                   reduction_indices=reduction_indices)


def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("All", "All", input_tensor, axis, keepdims, name, (dtypes.bool,),
                   keep_dims=keep_dims, reduction_indices=reduction_indices)


def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce("Any", "Any", input_tensor, axis, keepdims, name, (dtypes.bool,),
                   keep_dims=keep_dims, reduction_indices=reduction_indices)


# ---------------------------------------------------------------------------
# ArgMax, ArgMin


def _arg_shape(op):
    x, axis_t = op.inputs
    axis = known_axis(axis_t)
    if x.shape.ndims is None:
        return TensorShape(None)
    if axis is None:
        return TensorShape([None] * (x.shape.ndims - 1))
    axis = normalize_axis(axis, x.shape.ndims)
    return TensorShape([d for i, d in enumerate(x.shape.as_list()) if i != axis])


def _arg_dtype(op):
    return op._attr("output_type")


def _arg_axis(x, axis, op_type: str) -> int:
    """``axis`` of ``x`` checked as TF's ArgMax and ArgMin check it when they run."""
    axis = int(axis)
    if not -x.ndim <= axis < x.ndim:
        raise errors.InvalidArgumentError(None, None, f"{op_type}: expected dimension in the range [{-x.ndim}, "
                                          f"{x.ndim}), but got {axis}")
    if x.shape[axis] == 0:
        raise errors.InvalidArgumentError(None, None, f"{op_type}: Reduction axis {axis} is empty in shape "
                                          f"{list(x.shape)}")
    return axis


@register_op("ArgMax", shape=_arg_shape, dtype=_arg_dtype)
def _argmax_kernel(xp, x, axis, *, output_type):
    axis = _arg_axis(x, axis, "ArgMax")
    return xp.argmax(_without_nan(xp, x, -np.inf), axis=axis).astype(output_type.as_numpy_dtype)


@register_op("ArgMin", shape=_arg_shape, dtype=_arg_dtype)
def _argmin_kernel(xp, x, axis, *, output_type):
    axis = _arg_axis(x, axis, "ArgMin")
    return xp.argmin(_without_nan(xp, x, np.inf), axis=axis).astype(output_type.as_numpy_dtype)


def _without_nan(xp, x, fill):
    """NaN never wins TensorFlow's argmax or argmin (it compares with < and >); NumPy's
    picks the first NaN. (On NumPy only where there is a NaN; on a device always, since
    asking would wait for the device and a captured step cannot.)"""
    if x.dtype.kind != "f":
        return x
    if xp is np and not np.isnan(x).any():
        return x
    return xp.where(xp.isnan(x), fill, x)


not_differentiable("ArgMax")
not_differentiable("ArgMin")


def _arg(op_type, x, axis, name, dimension, output_type):
    x = ops.convert_to_tensor(x)
    check_dtype(op_type, x, NUMBERS, "input")
    axis = dimension if axis is None else axis
    axis = 0 if axis is None else axis
    return make_tensor(op_type, [x, index_tensor(axis)],
                       {"output_type": dtypes.as_dtype(output_type)}, name or op_type)


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    return _arg("ArgMax", input, axis, name, dimension, output_type)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    return _arg("ArgMin", input, axis, name, dimension, output_type)
