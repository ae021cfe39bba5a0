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
    """TF's shape function of SpaceToBatchND (``to_batch``) or BatchToSpaceND: the checks it
    makes of what is known when the graph is built (a ValueError naming the op), and the
    output's dimensions where they follow."""
    amounts_name = "paddings" if to_batch else "crops"

    def shape(op):
        x, block_t, amounts_t = op.inputs
        what = f"{op.type} '{op.name}'"
        if block_t.shape.ndims not in (None, 1):
            raise ValueError(f"{what}: block_shape must be 1-D, got shape {block_t.shape}")
        m = block_t.shape[0].value if block_t.shape.ndims == 1 else None
        if amounts_t.shape.ndims is not None and (amounts_t.shape.ndims != 2 or amounts_t.shape[1].value not in
                                                  (None, 2) or amounts_t.shape[0].value not in (None, m)):
            raise ValueError(f"{what}: {amounts_name} must have shape [{m if m is not None else 'M'}, 2] (one pair "
                             f"per dimension of block_shape), got {amounts_t.shape}")
        if m is None and amounts_t.shape.ndims == 2:
            m = amounts_t.shape[0].value
        if m is not None and x.shape.ndims is not None and x.shape.ndims < 1 + m:
            raise ValueError(f"{what}: the input must have rank at least {1 + m} (a batch dimension and {m} block "
                             f"dimensions), got shape {x.shape}")
        block, amounts = constant_value(block_t), constant_value(amounts_t)
        if block is not None and np.any(np.asarray(block) < 1):
            raise ValueError(f"{what}: block_shape must be positive, got {np.asarray(block).tolist()}")
        if amounts is not None and np.any(np.asarray(amounts) < 0):
            raise ValueError(f"{what}: {amounts_name} must be non-negative, got {np.asarray(amounts).tolist()}")
        if x.shape.ndims is None:
            return TensorShape(None)
        dims = x.shape.as_list()
        out = [None] * len(dims) if m is None else [None] * (1 + m) + dims[1 + m:]
        if block is None:
            return TensorShape(out)
        block = [int(b) for b in block]
        prod = int(np.prod(block))
        if dims[0] is not None:
            if not to_batch and dims[0] % prod:
                raise ValueError(f"{what}: the batch {dims[0]} is not divisible by the product of block_shape "
                                 f"{block} ({prod})")
            out[0] = dims[0] * prod if to_batch else dims[0] // prod
        for i in range(m):
            d = dims[1 + i]
            if d is None or amounts is None:
                continue
            start, end = int(amounts[i][0]), int(amounts[i][1])
            if to_batch:
                if (d + start + end) % block[i]:
                    raise ValueError(f"{what}: padded dimension {1 + i} ({d} + {start} + {end}) is not divisible by "
                                     f"block_shape[{i}]={block[i]}")
                out[1 + i] = (d + start + end) // block[i]
            else:
                if start + end > d * block[i]:
                    raise ValueError(f"{what}: crops [{start}, {end}] of dimension {1 + i} take more than its "
                                     f"{d * block[i]} elements")
                out[1 + i] = d * block[i] - start - end
        return TensorShape(out)
    return shape


def _checked(op_type: str, x, block_shape, amounts, amounts_name: str) -> tuple[list, np.ndarray]:
    """The block shape and the [M, 2] paddings or crops, checked as TF's kernels check them."""
    block = [int(b) for b in np.reshape(block_shape, [-1])]
    m = len(block)
    amounts = np.asarray(amounts)
    if amounts.shape != (m, 2):
        raise errors.InvalidArgumentError(None, None, f"{op_type}: {amounts_name} must have shape [{m}, 2], got "
                                                      f"{list(amounts.shape)}")
    if any(b < 1 for b in block):
        raise errors.InvalidArgumentError(None, None, f"{op_type}: block_shape must be positive, got {block}")
    if np.any(amounts < 0):
        raise errors.InvalidArgumentError(None, None, f"{op_type}: {amounts_name} must be non-negative, got "
                                                      f"{amounts.tolist()}")
    if x.ndim < 1 + m:
        raise errors.InvalidArgumentError(None, None, f"{op_type}: the input must have rank at least {1 + m}, got "
                                                      f"shape {list(x.shape)}")
    return block, amounts.astype(int)


@register_op("SpaceToBatchND", shape=_block_shape_fn(True))
def _space_to_batch_kernel(xp, x, block_shape, paddings):
    block, paddings = _checked("SpaceToBatchND", x, block_shape, paddings, "paddings")
    m = len(block)
    pads = [(0, 0)] + [(int(a), int(b)) for a, b in paddings] + [(0, 0)] * (x.ndim - 1 - m)
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
    block, crops = _checked("BatchToSpaceND", x, block_shape, crops, "crops")
    m = len(block)
    prod = int(np.prod(block))
    if x.shape[0] % prod:
        raise errors.InvalidArgumentError(None, None, f"BatchToSpaceND: batch {x.shape[0]} is not divisible by the "
                                                      f"product of the block shape {prod}")
    batch, spatial, rest = x.shape[0] // prod, x.shape[1:1 + m], x.shape[1 + m:]
    split = block + [batch] + list(spatial) + list(rest)
    perm = [m] + [v for i in range(m) for v in (m + 1 + i, i)] + list(range(2 * m + 1, len(split)))
    full = x.reshape(split).transpose(perm).reshape([batch] + [d * b for d, b in zip(spatial, block)] + list(rest))
    for i, (a, b) in enumerate(crops):
        if a + b > full.shape[1 + i]:
            raise errors.InvalidArgumentError(None, None, f"BatchToSpaceND: crops {[int(a), int(b)]} of dimension "
                                                          f"{1 + i} take more than its {full.shape[1 + i]} elements")
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
    return _four_d("space_to_batch", space_to_batch_nd, input, [block, block], paddings, name)


def batch_to_space(input, crops, block_size, name=None, block_shape=None):  # noqa: A002
    """``batch_to_space_nd`` of a 4-D NHWC tensor with a square block."""
    block = block_size if block_size is not None else block_shape
    return _four_d("batch_to_space", batch_to_space_nd, input, [block, block], crops, name)


def _four_d(what, nd, input, block, amounts, name):  # noqa: A002
    """``nd`` of a 4-D input (TF 1.x's SpaceToBatch and BatchToSpace ops take only that rank)."""
    input = ops.convert_to_tensor(input)
    if input.shape.ndims not in (None, 4):
        raise ValueError(f"{what}: the input must be 4-D [batch, height, width, depth], got shape {input.shape}")
    out = nd(input, block, amounts, name)
    out.set_shape(out.shape.merge_with(TensorShape([None] * 4)))
    return out


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) that make ``input_shape`` plus ``base_paddings`` divisible by ``block_shape``."""
    with ops.name_scope(name, "required_space_to_batch_paddings"):
        input_shape = ops.convert_to_tensor(input_shape, dtype=dtypes.int32)
        block_shape = ops.convert_to_tensor(block_shape, dtype=dtypes.int32)
        m = block_shape.shape[0].value
        if base_paddings is None:
            base_paddings = np.zeros((m, 2), np.int32)
        base_paddings = ops.convert_to_tensor(base_paddings, dtype=dtypes.int32)
        known = [constant_value(t) for t in (input_shape, block_shape, base_paddings)]
        if all(k is not None for k in known):  # (constants give constants, as TF's do)
            shape, block, base = (np.asarray(k, np.int32) for k in known)
            extra = (block - (shape + base[:, 0] + base[:, 1]) % block) % block
            return (array_ops.constant(np.stack([base[:, 0], base[:, 1] + extra], 1), name="paddings"),
                    array_ops.constant(np.stack([np.zeros_like(extra), extra], 1), name="crops"))
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


