"""Gradients of the array ops (array_ops.py) and of joining and slicing (slicing_ops.py).

Each is built from graph ops, so gradients of gradients work. They live here, above
the files of the ops they differentiate, because a gradient needs ops of several of
those files (a pad's gradient is a slice, a slice's gradient a pad).
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework.registry import register_gradient
from .array_ops import broadcast_to, constant, pad, rank, reshape, shape, shape_of, stack, tile, transpose, unbroadcast
from .indexed_slices import IndexedSlices, gather_grad
from .nd_ops import scatter_nd
from .op_util import constant_value, known_axis, make_tensor
from .reduction_ops import reduce_sum
from .slicing_ops import SLICE_MASKS, concat, gather, slice, split, strided_slice, unstack


# -- array_ops -----------------------------------------------------------------


@register_gradient("PlaceholderWithDefault")
def _placeholder_with_default_grad(op, grad):
    return (grad,)


@register_gradient("SumToShape")
def _sum_to_shape_grad(op, grad):
    return broadcast_to(grad, shape_of(op.inputs[0])), None


@register_gradient("BroadcastTo")
def _broadcast_to_grad(op, grad):
    return unbroadcast(grad, op.inputs[0]), None


@register_gradient("Identity")
def _identity_grad(op, grad):
    return (grad,)


@register_gradient("Reshape")
def _reshape_grad(op, grad):
    return reshape(grad, shape_of(op.inputs[0])), None


@register_gradient("Transpose")
def _transpose_grad(op, grad):
    perm = constant_value(op.inputs[1])
    if perm is not None:
        inverse = constant(np.argsort(perm).astype(np.int32))
    else:
        inverse = make_tensor("InvertPermutation", [op.inputs[1]], None, "InvertPermutation")
    return transpose(grad, inverse), None


@register_gradient("ExpandDims")
def _expand_dims_grad(op, grad):
    return reshape(grad, shape_of(op.inputs[0])), None


@register_gradient("Squeeze")
def _squeeze_grad(op, grad):
    return (reshape(grad, shape_of(op.inputs[0])),)


@register_gradient("TileGrad")
def _tile_grad_grad(op, grad):
    return tile(grad, op.inputs[1]), None, None


@register_gradient("Tile")
def _tile_grad(op, grad):
    x, multiples = op.inputs
    return make_tensor("TileGrad", [grad, multiples, shape_of(x)], None, "TileGrad"), None


def _pad_grad(op, grad):
    x, paddings = op.inputs[:2]
    begin = reshape(slice(paddings, [0, 0], [-1, 1]), [-1])
    return (slice(grad, begin, shape_of(x)), None) + (None,) * (len(op.inputs) - 2)


register_gradient("Pad")(_pad_grad)


register_gradient("PadV2")(_pad_grad)


@register_gradient("MirrorPad")
def _mirror_pad_grad(op, grad):
    out = make_tensor("MirrorPadGrad", [grad, op.inputs[1]], {"mode": op._attr("mode")}, "MirrorPadGrad")
    out.set_shape(op.inputs[0].shape)
    return out, None


@register_gradient("Fill")
def _fill_grad(op, grad):
    return None, reduce_sum(grad)

# -- slicing_ops ---------------------------------------------------------------


@register_gradient("Split")
def _split_grad(op, *grads):
    return None, concat(list(grads), op.inputs[0])


@register_gradient("SplitV")
def _split_v_grad(op, *grads):
    return concat(list(grads), op.inputs[2]), None, None


@register_gradient("ConcatV2")
def _concat_grad(op, grad):
    *values, axis_t = op.inputs
    axis = known_axis(axis_t)
    if axis_t.dtype.base_dtype == dtypes.int64:  # (split takes an int32 axis)
        axis_t = constant(np.int32(axis)) if axis is not None else make_tensor(
            "Cast", [axis_t], {"SrcT": dtypes.int64, "DstT": dtypes.int32}, "Cast")
    dims = [v.shape[axis].value if axis is not None and v.shape.ndims is not None else None
            for v in values]
    if all(d is not None for d in dims):
        sizes = constant(np.array(dims, np.int32))
    else:
        axis_t = axis_t % rank(values[0])
        sizes = stack([gather(shape_of(v), axis_t) for v in values])
    return split(grad, sizes, axis=axis_t, num=len(values)) + [None]


@register_gradient("Pack")
def _pack_grad(op, grad):
    return unstack(grad, num=len(op.inputs), axis=op._attr("axis"))


@register_gradient("Unpack")
def _unpack_grad(op, *grads):
    return (stack(list(grads), axis=op._attr("axis")),)


@register_gradient("GatherV2Grad")
def _gather_grad_grad(op, grad):
    batch_dims = op._attrs.get("batch_dims", 0)
    if batch_dims:
        return None, None, gather(grad, op.inputs[1], axis=constant_value(op.inputs[3]), batch_dims=batch_dims), None
    return None, None, gather(grad, op.inputs[1], axis=op.inputs[3]), None


@register_gradient("GatherV2")
def _gather_v2_grad(op, grad):
    # Along axis 0 the gradient is an IndexedSlices (ops/indexed_slices.py), as in TF.
    return gather_grad(op, grad)


@register_gradient("Slice")
def _slice_grad(op, grad):
    x, begin, _ = op.inputs
    if begin.dtype.base_dtype == dtypes.int64:  # (shapes of the begin's type)
        after_ = shape(x, out_type=dtypes.int64) - begin - shape(grad, out_type=dtypes.int64)
    else:
        after_ = shape_of(x) - begin - shape_of(grad)
    return pad(grad, stack([begin, after_], axis=1)), None, None


@register_gradient("StridedSlice")
def _strided_slice_grad(op, grad):
    x, begin, end, strides = op.inputs
    attrs = {m: op._attr(m) for m in SLICE_MASKS}
    return (make_tensor("StridedSliceGrad", [shape_of(x), begin, end, strides, grad], attrs, "StridedSliceGrad"),
            None, None, None)


@register_gradient("StridedSliceGrad")
def _strided_slice_grad_grad(op, grad):
    _, begin, end, strides, _ = op.inputs
    attrs = {m: op._attr(m) for m in SLICE_MASKS}
    return None, None, None, None, strided_slice(grad, begin, end, strides, **attrs)


@register_gradient("GatherNd")
def _gather_nd_grad(op, grad):
    params, indices = op.inputs
    if indices.shape.ndims == 2 and indices.shape[-1].value == 1:  # (whole rows: sparse, as Gather's gradient)
        return IndexedSlices(grad, reshape(indices, [-1]), shape_of(params)), None
    return scatter_nd(indices, grad, shape_of(params)), None
