"""space_to_batch and batch_to_space: spatial blocks moved into (and out of) the batch
dimension, the building block of TF 1.x's dilated convolutions; and the atrous convolutions."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops
from .conv_ops import conv2d, conv2d_transpose, dilate_filter
from .op_util import constant_value, index_tensor, make_tensor


def _block_shape_fn(to_batch):
    def shape(op):
        x, block, amounts = op.inputs
        block, amounts = constant_value(block), constant_value(amounts)
        if x.shape.ndims is None or block is None or amounts is None:
            return TensorShape(None)
        dims = x.shape.as_list()
        m = len(block)
        prod = int(np.prod(block))
        out = list(dims)
        for i in range(m):
            d = dims[1 + i]
            if d is not None:
                out[1 + i] = (d + int(amounts[i][0]) + int(amounts[i][1])) // int(block[i]) if to_batch else \
                    d * int(block[i]) - int(amounts[i][0]) - int(amounts[i][1])
        if dims[0] is not None:
            out[0] = dims[0] * prod if to_batch else dims[0] // prod
        return TensorShape(out)
    return shape


@register_op("SpaceToBatchND", shape=_block_shape_fn(True))
def _space_to_batch_kernel(xp, x, block_shape, paddings):
    block = [int(b) for b in block_shape]
    m = len(block)
    pads = [(0, 0)] + [(int(a), int(b)) for a, b in np.reshape(paddings, (m, 2))] + [(0, 0)] * (x.ndim - 1 - m)
    padded = np.pad(x, pads)
    spatial = padded.shape[1:1 + m]
    for d, b in zip(spatial, block):
        if d % b:
            raise errors.InvalidArgumentError(None, None, f"SpaceToBatchND: padded spatial dimension {d} is not a "
                                                          f"multiple of its block size {b}")
    batch, rest = padded.shape[0], padded.shape[1 + m:]
    split = [batch] + [v for d, b in zip(spatial, block) for v in (d // b, b)] + list(rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, len(split)))
    moved = padded.reshape(split).transpose(perm)
    return moved.reshape([batch * int(np.prod(block))] + [d // b for d, b in zip(spatial, block)] + list(rest))


@register_op("BatchToSpaceND", shape=_block_shape_fn(False))
def _batch_to_space_kernel(xp, x, block_shape, crops):
    block = [int(b) for b in block_shape]
    m = len(block)
    prod = int(np.prod(block))
    if x.shape[0] % prod:
        raise errors.InvalidArgumentError(None, None, f"BatchToSpaceND: batch {x.shape[0]} is not divisible by the "
                                                      f"product of the block shape {prod}")
    batch, spatial, rest = x.shape[0] // prod, x.shape[1:1 + m], x.shape[1 + m:]
    split = block + [batch] + list(spatial) + list(rest)
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)] + list(range(2 * m + 1, len(split)))
    full = x.reshape(split).transpose(perm).reshape([batch] + [d * b for d, b in zip(spatial, block)] + list(rest))
    crops = np.reshape(crops, (m, 2)).astype(int)
    index = (slice(None),) + tuple(slice(int(a), full.shape[1 + i] - int(b)) for i, (a, b) in enumerate(crops))
    return np.ascontiguousarray(full[index])


@register_gradient("SpaceToBatchND")
def _space_to_batch_grad(op, grad):
    return make_tensor("BatchToSpaceND", [grad, op.inputs[1], op.inputs[2]]), None, None


@register_gradient("BatchToSpaceND")
def _batch_to_space_grad(op, grad):
    return make_tensor("SpaceToBatchND", [grad, op.inputs[1], op.inputs[2]]), None, None


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """Zero-pads the M spatial dimensions of [batch, *spatial, *rest] ``input`` by ``paddings``,
    then moves each ``block_shape`` block's positions into the batch dimension."""
    return make_tensor("SpaceToBatchND", [ops.convert_to_tensor(input),
                                          index_tensor(block_shape),
                                          index_tensor(paddings)],
                       None, name or "SpaceToBatchND")


def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """The inverse of ``space_to_batch_nd``: batch blocks back into space, then ``crops`` removed."""
    return make_tensor("BatchToSpaceND", [ops.convert_to_tensor(input),
                                          index_tensor(block_shape),
                                          index_tensor(crops)],
                       None, name or "BatchToSpaceND")


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa: A002
    """``space_to_batch_nd`` of a 4-D NHWC tensor with a square block."""
    block = block_size if block_size is not None else block_shape
    return space_to_batch_nd(input, [block, block], paddings, name)


def batch_to_space(input, crops, block_size, name=None, block_shape=None):  # noqa: A002
    block = block_size if block_size is not None else block_shape
    return batch_to_space_nd(input, [block, block], crops, name)


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) that make ``input_shape`` plus ``base_paddings`` divisible by ``block_shape``."""
    with ops.name_scope(name, "required_space_to_batch_paddings"):
        input_shape = ops.convert_to_tensor(input_shape, dtype=dtypes.int32)
        block_shape = ops.convert_to_tensor(block_shape, dtype=dtypes.int32)
        m = block_shape.shape[0].value
        if base_paddings is None:
            base_paddings = np.zeros((m, 2), np.int32)
        base_paddings = ops.convert_to_tensor(base_paddings, dtype=dtypes.int32)
        start, end = base_paddings[:, 0], base_paddings[:, 1]
        full = input_shape + start + end
        extra = (block_shape - full % block_shape) % block_shape
        paddings = array_ops.stack([start, end + extra], axis=1)
        crops = array_ops.stack([array_ops.zeros_like(extra), extra], axis=1)
        return paddings, crops


def atrous_conv2d(value, filters, rate, padding, name=None):
    """Convolution with ``rate - 1`` holes between the filter's taps (stride 1)."""
    with ops.name_scope(name, "atrous_conv2d", [value, filters]):
        if rate < 1:
            raise ValueError(f"rate {rate} cannot be less than one")
        return conv2d(value, filters, [1, 1, 1, 1], padding, dilations=[1, rate, rate, 1])


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose (gradient) of ``atrous_conv2d``."""
    with ops.name_scope(name, "atrous_conv2d_transpose", [value, filters]):
        if rate < 1:
            raise ValueError(f"rate {rate} cannot be less than one")
        f = dilate_filter(ops.convert_to_tensor(filters), rate, rate) if rate > 1 else filters
        return conv2d_transpose(value, f, output_shape, [1, 1, 1, 1], padding)


