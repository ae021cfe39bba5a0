"""Joining and slicing: split, concat, unstack, gather, slice, strided slice, ``t[...]``.

Built on array_ops.py (which holds ``stack``, which the other array ops need); their
gradients are in array_grad.py.
"""

from __future__ import annotations

import builtins
import itertools
import numbers

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import Dimension, TensorShape
from .array_ops import identity, ones_like, stack
from .op_util import (add_rows_at, constant_shape, constant_value, index_tensor, known_axis, make_op, make_tensor,
                      normalize_axis, same_dtype_values)

# ---------------------------------------------------------------------------
# Split, SplitV


def _split_shape(op):
    axis_t, x = op.inputs
    n = op._attr("num_split")
    axis = known_axis(axis_t)
    if x.shape.ndims is None or axis is None:
        return [TensorShape(None if x.shape.ndims is None else [None] * x.shape.ndims)] * n
    dims = x.shape.as_list()
    axis = normalize_axis(axis, len(dims))
    if dims[axis] is not None:
        if dims[axis] % n:
            raise ValueError(f"Dimension size must be evenly divisible by {n} but is {dims[axis]}")
        dims[axis] //= n
    return [TensorShape(dims)] * n


@register_op("Split", shape=_split_shape, list_output=True,
             dtype=lambda op: [op.inputs[1].dtype.base_dtype] * op._attr("num_split"))
def _split_kernel(xp, axis, x, *, num_split):
    axis = normalize_axis(int(axis), x.ndim)
    size = x.shape[axis]
    if size % num_split:
        raise ValueError(f"Dimension size must be evenly divisible by {num_split} but is {size}")
    step = size // num_split
    return _views(x, axis, [i * step for i in range(num_split + 1)])


def _views(x, axis: int, bounds):
    """The views of ``x`` between consecutive ``bounds`` along ``axis``: basic slicing, some
    1 us a piece where ``np.split`` took 20 us for four (an LSTM cell's gates, each step)."""
    lead = (builtins.slice(None),) * axis
    bounds = list(bounds)
    return tuple(x[lead + (builtins.slice(a, b),)] for a, b in zip(bounds, bounds[1:]))


def _split_v_shape(op):
    x, sizes_t, axis_t = op.inputs
    n = op._attr("num_split")
    axis = known_axis(axis_t)
    sizes = constant_value(sizes_t)
    if x.shape.ndims is None or axis is None:
        return [TensorShape(None)] * n
    dims = x.shape.as_list()
    axis = normalize_axis(axis, len(dims))
    if sizes is None:
        return [TensorShape(dims[:axis] + [None] + dims[axis + 1:])] * n
    sizes = [int(s) for s in sizes]
    if sizes.count(-1) > 1:
        raise ValueError("Only one split size may be -1")
    if dims[axis] is not None:
        known = sum(s for s in sizes if s != -1)
        if -1 in sizes:
            if known > dims[axis]:
                raise ValueError(f"Split sizes {sizes} exceed dimension {dims[axis]}")
            sizes[sizes.index(-1)] = dims[axis] - known
        elif known != dims[axis]:
            raise ValueError(f"Determined shape must either match input shape along split_dim "
                             f"exactly if fully specified, or be less than the size of the input "
                             f"along split_dim if not fully specified. Got: {sizes} for a "
                             f"dimension of {dims[axis]}")
    return [TensorShape(dims[:axis] + [None if s == -1 else s] + dims[axis + 1:]) for s in sizes]


@register_op("SplitV", shape=_split_v_shape, list_output=True)
def _split_v_kernel(xp, x, size_splits, axis, *, num_split):
    axis = int(axis)
    sizes = [int(s) for s in size_splits]
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
    if sum(sizes) != x.shape[axis] or min(sizes) < 0:
        raise ValueError(f"split sizes {list(size_splits)} do not add up to dimension "
                         f"{x.shape[axis]} of the input along axis {axis}")
    return _views(x, normalize_axis(axis, x.ndim), [0, *itertools.accumulate(sizes)])


def split(value, num_or_size_splits, axis=0, num=None, name="split") -> list[ops.Tensor]:
    """Splits ``value`` into ``num_or_size_splits`` equal parts, or parts of the given sizes."""
    value = ops.convert_to_tensor(value)
    axis_t = ops.convert_to_tensor(axis, dtype=dtypes.int32)
    if isinstance(num_or_size_splits, Dimension) and num_or_size_splits.value is not None:
        num_or_size_splits = num_or_size_splits.value  # (x.shape[i], as TF takes it)
    if isinstance(num_or_size_splits, numbers.Integral):
        n = int(num_or_size_splits)
        if n < 1:
            raise ValueError(f"num_or_size_splits must be positive, got {n}")
        return list(make_op("Split", [axis_t, value], {"num_split": n}, name).outputs)
    sizes = ops.convert_to_tensor(num_or_size_splits, dtype=dtypes.int32)
    if num is None:
        if sizes.shape.ndims != 1 or sizes.shape[0].value is None:
            raise ValueError(f"Cannot infer the number of splits from {num_or_size_splits!r}; pass num")
        num = sizes.shape[0].value
    return list(make_op("SplitV", [value, sizes, axis_t], {"num_split": int(num)}, name).outputs)


# ---------------------------------------------------------------------------
# ConcatV2, Pack, Unpack


def _concat_shape(op):
    *values, axis_t = op.inputs
    axis = known_axis(axis_t)
    ranks = {v.shape.ndims for v in values if v.shape.ndims is not None}
    if len(ranks) > 1:
        raise ValueError(f"Shape must be rank {min(ranks)} but is rank {max(ranks)}")
    if not ranks:
        return TensorShape(None)
    r = ranks.pop()
    if axis is None:
        return TensorShape([None] * r)
    axis = normalize_axis(axis, r)
    out = [None] * r
    total = 0
    for v in values:
        if v.shape.ndims is None:
            total = None
            continue
        dims = v.shape.as_list()
        for i, d in enumerate(dims):
            if i == axis:
                continue
            if out[i] is not None and d is not None and out[i] != d:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {out[i]} "
                                 f"and {d}. Shapes are {values[0].shape} and {v.shape}")
            out[i] = out[i] if out[i] is not None else d
        total = None if total is None or dims[axis] is None else total + dims[axis]
    out[axis] = total
    return TensorShape(out)


@register_op("ConcatV2", shape=_concat_shape)
def _concat_kernel(xp, *values_and_axis):
    *values, axis = values_and_axis
    return xp.concatenate(values, axis=int(axis))


@register_op("ConcatOffset", shape=lambda op: [t.shape for t in op.inputs[1:]],
             dtype=lambda op: [t.dtype.base_dtype for t in op.inputs[1:]], list_output=True)
def _concat_offset_kernel(concat_dim, *shapes):
    """Where each of ``shapes`` starts in their concatenation along ``concat_dim`` (TF 1.x's
    gradient of a concat holds it)."""
    shapes = [np.asarray(s) for s in shapes]
    rank = shapes[0].size
    axis = int(concat_dim) % rank if rank else 0
    offsets, total = [], 0
    for i, shape in enumerate(shapes):
        if shape.size != rank or any(shape[d] != shapes[0][d] for d in range(rank) if d != axis):
            raise errors.InvalidArgumentError(None, None, f"ConcatOffset: input {i} should have shape "
                                              f"{shapes[0].tolist()} except in dimension {axis}, got {shape.tolist()}")
        offset = np.zeros_like(shape)
        offset[axis] = total
        total += int(shape[axis])
        offsets.append(offset)
    return tuple(offsets)


not_differentiable("ConcatOffset")


def concat(values, axis, name="concat") -> ops.Tensor:
    """Joins ``values`` along ``axis`` (a single value passes through an Identity)."""
    values = list(values)
    if not values:
        raise ValueError("concat needs at least one tensor")
    if len(values) == 1:
        return identity(values[0], name=name)
    tensors = same_dtype_values("ConcatV2", values)
    if any(t.shape.ndims == 0 for t in tensors):
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    return make_tensor("ConcatV2", tensors + [index_tensor(axis)],
                       {"N": len(tensors)}, name)


def _unpack_shape(op):
    x = op.inputs[0]
    num, axis = op._attr("num"), op._attr("axis")
    if x.shape.ndims is None:
        return [TensorShape(None)] * num
    dims = x.shape.as_list()
    axis = normalize_axis(axis, len(dims))
    if dims[axis] is not None and dims[axis] != num:
        raise ValueError(f"Dimension {axis} has size {dims[axis]}, but num={num}")
    return [TensorShape(dims[:axis] + dims[axis + 1:])] * num


@register_op("Unpack", shape=_unpack_shape, list_output=True)
def _unpack_kernel(xp, x, *, num, axis):
    if x.shape[axis] != num:
        raise ValueError(f"Input dimension {axis} has size {x.shape[axis]}, but num={num}")
    return tuple(xp.moveaxis(x, axis, 0))


def unstack(value, num=None, axis=0, name="unstack") -> list[ops.Tensor]:
    value = ops.convert_to_tensor(value)
    rank = value.shape.ndims
    if rank is not None and not -rank <= axis < rank:
        raise ValueError(f"axis = {axis} not in [{-rank}, {rank})")
    if num is None:
        if rank is None:
            raise ValueError(f"Cannot infer num from shape {value.shape}")
        num = value.shape[axis].value
        if num is None:
            raise ValueError(f"Cannot infer num from shape {value.shape}")
    return list(make_op("Unpack", [value], {"num": int(num), "axis": int(axis)}, name).outputs)


# ---------------------------------------------------------------------------
# GatherV2


def _gather_shape(op):
    params, indices, axis_t = op.inputs
    axis = known_axis(axis_t)
    if params.shape.ndims is None or indices.shape.ndims is None:
        return TensorShape(None)
    batch_dims = op._attrs.get("batch_dims", 0)
    if axis is None:  # (the rank is known all the same)
        return TensorShape([None] * (params.shape.ndims + indices.shape.ndims - 1 - batch_dims))
    dims = params.shape.as_list()
    axis = normalize_axis(axis, len(dims))
    return TensorShape(dims[:axis] + indices.shape.as_list()[batch_dims:] + dims[axis + 1:])


def _batch_rows(xp, indices, batch_dims):
    """For a gather with ``batch_dims``: the flat index of each batch, shaped to broadcast
    against ``indices`` with its batch dimensions flattened into one."""
    rows = xp.arange(int(np.prod(indices.shape[:batch_dims], dtype=np.int64)))
    return rows.reshape((-1,) + (1,) * (indices.ndim - batch_dims))


@register_op("GatherV2", shape=_gather_shape)
def _gather_kernel(xp, params, indices, axis, *, batch_dims=0):
    axis = int(axis) % params.ndim
    n = params.shape[axis]
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        bad = indices[(indices < 0) | (indices >= n)].reshape(-1)[0]
        raise errors.InvalidArgumentError(None, None, f"indices contains {bad}, which is not in [0, {n})")
    if not batch_dims:
        return xp.take(params, indices, axis=axis)
    if params.shape[:batch_dims] != indices.shape[:batch_dims]:
        raise errors.InvalidArgumentError(None, None, f"GatherV2: params's batch dimensions {list(params.shape)} "
                                          f"differ from indices's {list(indices.shape)} (batch_dims={batch_dims})")
    # (the gathered axis brought next to the batch dimensions, one batch's rows indexed by its indices)
    moved = xp.moveaxis(params, axis, batch_dims).reshape((-1,) + (n,) + params.shape[batch_dims:axis]
                                                          + params.shape[axis + 1:])
    out = moved[_batch_rows(xp, indices, batch_dims), indices.reshape((-1,) + indices.shape[batch_dims:])]
    out = out.reshape(indices.shape + params.shape[batch_dims:axis] + params.shape[axis + 1:])
    # (the dimensions between the batch and the axis go back before the indices' own)
    k, m = indices.ndim - batch_dims, axis - batch_dims
    order = list(range(batch_dims)) + [batch_dims + k + j for j in range(m)] + [batch_dims + j for j in range(k)]
    return out.transpose(order + list(range(len(order), out.ndim)))


def _gather_grad_shape(op):
    return constant_shape(op.inputs[0])


@register_op("GatherV2Grad", shape=_gather_grad_shape, dtype=lambda op: op.inputs[2].dtype.base_dtype)
def _gather_grad_kernel(xp, params_shape, indices, grad, axis, *, batch_dims=0):
    """The dense gradient of GatherV2: ``grad`` summed into the gathered positions."""
    axis = int(axis) % len(params_shape)
    out = xp.zeros(params_shape.tolist(), dtype=grad.dtype)
    if batch_dims:
        # (each batch's gradient rows go to that batch's rows: one flat index over batch and axis)
        n = out.shape[axis]
        k, m = indices.ndim - batch_dims, axis - batch_dims
        g = grad.transpose(list(range(batch_dims)) + [batch_dims + m + j for j in range(k)]
                           + [batch_dims + j for j in range(m)] + list(range(batch_dims + m + k, grad.ndim)))
        flat = (_batch_rows(xp, indices, batch_dims) * n + indices.reshape((-1,) + indices.shape[batch_dims:]))
        flat = flat.reshape(-1)
        moved = xp.moveaxis(out, axis, batch_dims)
        rows = xp.zeros((int(np.prod(moved.shape[:batch_dims + 1], dtype=np.int64)),) + moved.shape[batch_dims + 1:],
                        dtype=grad.dtype)
        add_rows_at(rows, flat, g.reshape((flat.size,) + moved.shape[batch_dims + 1:]))
        moved[...] = rows.reshape(moved.shape)
        return out
    moved = xp.moveaxis(out, axis, 0)
    g = grad.reshape(grad.shape[:axis] + (-1,) + grad.shape[axis + indices.ndim:])
    add_rows_at(moved, indices, xp.moveaxis(g, axis, 0))
    return out


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0) -> ops.Tensor:
    """Slices of ``params`` along ``axis`` at ``indices``. With ``batch_dims`` = b, the first
    b dimensions of both are batch dimensions: batch i's indices pick from batch i's params
    (``axis`` then defaults to b)."""
    params = ops.convert_to_tensor(params)
    indices = ops.convert_to_tensor(indices)
    if indices.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"gather indices must be int32 or int64, got {indices.dtype.name}")
    attrs = None
    if batch_dims:
        if indices.shape.ndims is None or params.shape.ndims is None:
            raise ValueError("gather with batch_dims needs params and indices of known rank")
        batch_dims = int(batch_dims) + (indices.shape.ndims if batch_dims < 0 else 0)
        axis = batch_dims if axis is None else normalize_axis(int(axis), params.shape.ndims)
        if not batch_dims <= axis < params.shape.ndims:
            raise ValueError(f"gather: batch_dims ({batch_dims}) must be at most axis ({axis}), and axis less than "
                             f"params's rank ({params.shape.ndims})")
        params.shape[:batch_dims].assert_is_compatible_with(indices.shape[:batch_dims])
        attrs = {"batch_dims": int(batch_dims)}
    return make_tensor("GatherV2", [params, indices, index_tensor(0 if axis is None else axis)],
                       attrs, name or "GatherV2")


# ---------------------------------------------------------------------------
# Slice, StridedSlice


def _slice_shape(op):
    x, begin_t, size_t = op.inputs
    begin, sizes = _stacked_parts(begin_t), _stacked_parts(size_t)  # (each part an int, or None if unknown)
    if x.shape.ndims is None:
        return TensorShape(None if sizes is None else [None] * len(sizes))
    dims = x.shape.as_list()
    if sizes is None:
        return TensorShape([None] * len(dims))
    if len(sizes) != len(dims):
        raise ValueError(f"Expected size to have {len(dims)} elements, got {len(sizes)}")
    out = []
    for i, (d, s) in enumerate(zip(dims, sizes)):
        b = None if begin is None else begin[i]
        if s is None:
            out.append(None)
        elif s == -1:
            out.append(None if d is None or b is None else d - b)
        else:
            if d is not None and b is not None and b + s > d:
                raise ValueError(f"Slice of dimension {i}: begin {b} + size {s} exceeds {d}")
            out.append(int(s))
    return TensorShape(out)


@register_op("Slice", shape=_slice_shape)
def _slice_kernel(xp, x, begin, size):
    index = []
    for i, (b, s) in enumerate(zip(begin.tolist(), size.tolist())):
        end = x.shape[i] if s == -1 else b + s
        if b < 0 or end > x.shape[i] or end < b:
            raise ValueError(f"Expected begin[{i}]={b} and size[{i}]={s} to fit in dimension "
                             f"{i} of size {x.shape[i]}")
        index.append(builtins.slice(b, end))
    return x[tuple(index)]


def slice(input_, begin, size, name=None) -> ops.Tensor:  # noqa: A001 - TF's name
    return make_tensor("Slice", [ops.convert_to_tensor(input_), index_tensor(begin),
                                 index_tensor(size)], None, name or "Slice")


SLICE_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _python_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                  shrink_axis_mask) -> tuple:
    if not (begin_mask or end_mask or ellipsis_mask or new_axis_mask) and shrink_axis_mask == 1 and len(begin) == 1:
        return (int(begin[0]),)  # (x[i], a shape's dimension taken in a loop's body)
    begin, end, strides = (np.asarray(v).tolist() for v in (begin, end, strides))  # (Python ints, read once)
    index = []
    for i in range(len(begin)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(begin[i])
        else:
            index.append(builtins.slice(None if begin_mask & bit else begin[i],
                                        None if end_mask & bit else end[i], strides[i]))
    return tuple(index)


def _strided_slice_shape(op):
    x, begin_t, end_t, strides_t = op.inputs
    values = [constant_value(t) for t in (begin_t, end_t, strides_t)]
    masks = [op._attr(m) for m in SLICE_MASKS]
    if x.shape.ndims is None or values[2] is None:
        return TensorShape(None)
    if values[0] is None or values[1] is None:  # (x[i] for a scalar tensor i: stacks, some parts known)
        return _partly_known_slice_shape(x.shape.as_list(), begin_t, end_t, values[2], masks)
    index = _python_index(*values, *masks)
    return TensorShape(_sliced_dims(x.shape.as_list(), index))


def _partly_known_slice_shape(dims, begin_t, end_t, strides, masks) -> TensorShape:
    """The shape of a strided slice whose begin or end are stacks of scalars, some of them not
    constant (``x[i, ::2]``): an axis that an unknown index removes is removed, and an axis
    whose length depends on an unknown bound is unknown, as TF's shape inference says."""
    parts = [_stacked_parts(t) for t in (begin_t, end_t)]
    if any(p is None for p in parts) or len(parts[0]) != len(strides) or len(parts[1]) != len(strides):
        return TensorShape(None)
    shrink = masks[4]
    shapes = []
    # (each unknown begin, and each unknown end, stood in for by small and large values apart: an
    # axis whose length differs among them is unknown; an axis an unknown index removes: index 0)
    for begin_stand_in, end_stand_in in itertools.product((0, 1, 1_000_003), repeat=2):
        filled = [[(0 if shrink >> i & 1 else stand_in) if v is None else v for i, v in enumerate(p)]
                  for p, stand_in in zip(parts, (begin_stand_in, end_stand_in))]
        try:
            shapes.append(_sliced_dims(dims, _python_index(filled[0], filled[1], list(strides), *masks)))
        except ValueError:
            return TensorShape(None)
    return TensorShape([dims_[0] if len(set(dims_)) == 1 else None for dims_ in zip(*shapes)])


def _stacked_parts(t) -> list | None:
    """The scalars a 1-D index tensor is stacked from, each an int or None where not constant."""
    known = constant_value(t)
    if known is not None:
        return [int(v) for v in np.reshape(known, -1)]
    if t.op._type != "Pack" or t.op._attr("axis") != 0:
        return None
    parts = []
    for part in t.op.inputs:
        value = constant_value(part)
        parts.append(None if value is None or np.ndim(value) else int(value))
    return parts


_STAND_INS = (*range(8), 1_000_003, 1_000_033)


def _sliced_dims(dims: list, index: tuple) -> list:
    """The dimensions of ``x[index]`` for an ``x`` of ``dims`` (None: unknown), axis by axis.
    An unknown dimension is sliced with stand-ins, small and large: where the results differ,
    the output dimension depends on it (``x[:3]`` has 3 rows only when ``x`` has 3 or more)."""
    if index.count(Ellipsis) > 1:
        raise ValueError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for item in index if item is not None and item is not Ellipsis)
    if consumed > len(dims):
        raise ValueError(f"slice index out of range: too many indices ({consumed}) for a tensor of rank {len(dims)}")
    expanded = []
    for item in index:
        expanded.extend([builtins.slice(None)] * (len(dims) - consumed) if item is Ellipsis else [item])
    if Ellipsis not in index:
        expanded.extend([builtins.slice(None)] * (len(dims) - consumed))
    out, axis = [], 0
    for item in expanded:
        if item is None:
            out.append(1)
            continue
        d, axis = dims[axis], axis + 1
        if isinstance(item, builtins.slice):
            if d is None:
                lengths = {len(range(*item.indices(stand_in))) for stand_in in _STAND_INS}
                out.append(lengths.pop() if len(lengths) == 1 else None)
            else:
                out.append(len(range(*item.indices(d))))
        elif d is not None and not -d <= item < d:
            raise ValueError(f"slice index out of range: index {item} is out of bounds for axis {axis - 1} "
                             f"with size {d}")
    return out


@register_op("StridedSlice", shape=_strided_slice_shape)
def _strided_slice_kernel(xp, x, begin, end, strides, *, begin_mask, end_mask, ellipsis_mask,
                          new_axis_mask, shrink_axis_mask):
    index = _python_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    try:
        return x[index]
    except IndexError as e:  # (what shape inference could not see: an input of unknown shape)
        raise errors.InvalidArgumentError(None, None, f"slice index out of range for a tensor of shape "
                                                      f"{list(np.shape(x))}: {e}") from None


@register_op("StridedSliceGrad", shape=lambda op: constant_shape(op.inputs[0]),
             dtype=lambda op: op.inputs[4].dtype.base_dtype)
def _strided_slice_grad_kernel(xp, shape, begin, end, strides, dy, *, begin_mask, end_mask, ellipsis_mask,
                               new_axis_mask, shrink_axis_mask):
    out = xp.zeros(shape.tolist(), dtype=dy.dtype)
    out[_python_index(begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                      shrink_axis_mask)] = dy
    return out


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None) -> ops.Tensor:
    """TensorFlow's strided slice; ``t[...]`` builds one from a Python index."""
    input_ = ops.convert_to_tensor(input_)
    if strides is None:
        strides = ones_like(index_tensor(begin)) if isinstance(begin, ops.Tensor) else [1] * len(begin)
    attrs = dict(zip(SLICE_MASKS, (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)))
    inputs = [index_tensor(v) for v in (begin, end, strides)]
    return make_tensor("StridedSlice", [input_] + inputs, attrs, name or "strided_slice")


def _getitem(tensor, key) -> ops.Tensor:
    """``tensor[key]`` for ints, slices (any step), tf.newaxis and Ellipsis."""
    if not isinstance(key, tuple):
        key = (key,)
    # (a 0-d NumPy integer array is an integer, as TF's slicing takes it)
    key = tuple(item[()] if isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype.kind in "iu" else item
                for item in key)
    begin, end, strides = [], [], []
    masks = dict.fromkeys(SLICE_MASKS, 0)
    for i, item in enumerate(key):
        bit = 1 << i
        if item is Ellipsis:
            masks["ellipsis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif item is None:
            masks["new_axis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(item, builtins.slice):
            step = 1 if item.step is None else item.step
            if step == 0:
                raise ValueError("slice step must not be zero")
            begin.append(0 if item.start is None else item.start)
            end.append(0 if item.stop is None else item.stop)
            strides.append(step)
            if item.start is None:
                masks["begin_mask"] |= bit
            if item.stop is None:
                masks["end_mask"] |= bit
        elif isinstance(item, (numbers.Integral, np.integer)) and not isinstance(item, bool):
            masks["shrink_axis_mask"] |= bit
            begin.append(int(item)), end.append(int(item) + 1), strides.append(1)
        elif isinstance(item, ops.Tensor) and item.dtype.is_integer and item.shape.ndims == 0:
            masks["shrink_axis_mask"] |= bit
            begin.append(item), end.append(item + 1), strides.append(1)
        else:
            raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) "
                            f"and scalar integer tensors are valid indices, got {item!r}")
    tensors = [v for v in begin + end + strides if isinstance(v, ops.Tensor)]
    if tensors:  # (packed as int64 where an index is, as TF's: tf.argmax's, say)
        dtype = dtypes.int64 if any(t.dtype.base_dtype == dtypes.int64 for t in tensors) else dtypes.int32
        begin, end, strides = (stack([ops.convert_to_tensor(v, dtype=dtype) for v in part])
                               for part in (begin, end, strides))
    return strided_slice(tensor, begin, end, strides, **masks)


ops.Tensor._override_operator("__getitem__", _getitem)
newaxis = None
