"""``tf.bitcast``: a tensor's bytes seen as another numeric type (TF's Bitcast op)."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import make_tensor


def _bitcast_shape(op):
    shape = op.inputs[0].shape
    src, dst = op.inputs[0].dtype.base_dtype.size, op._attr("type").size
    if shape.ndims is None or src == dst:
        return shape
    dims = shape.as_list()
    return TensorShape(dims + [src // dst]) if src > dst else TensorShape(dims[:-1])


@register_op("Bitcast", shape=_bitcast_shape, dtype=lambda op: op._attr("type"))
def _bitcast_kernel(xp, x, *, type):  # noqa: A002
    target = np.dtype(type.as_numpy_dtype)
    if x.dtype.itemsize > target.itemsize:
        return np.ascontiguousarray(x).view(target).reshape(x.shape + (x.dtype.itemsize // target.itemsize,))
    if x.dtype.itemsize < target.itemsize:
        if not x.ndim or x.shape[-1] != target.itemsize // x.dtype.itemsize:
            raise errors.InvalidArgumentError(None, None, f"Bitcast: the last dimension of shape {list(x.shape)} must "
                                                          f"be {target.itemsize // x.dtype.itemsize} to make "
                                                          f"{type.name}")
        return np.ascontiguousarray(x).view(target).reshape(x.shape[:-1])
    return np.ascontiguousarray(x).view(target).reshape(x.shape)  # (ascontiguousarray makes a scalar 1-D)


not_differentiable("Bitcast")


def bitcast(input, type, name=None):  # noqa: A002
    """The same bytes read as ``type``: a wider type eats the last dimension, a narrower adds one."""
    x = ops.convert_to_tensor(input)
    target = dtypes.as_dtype(type)
    if target == dtypes.string or x.dtype.base_dtype == dtypes.string:
        raise TypeError("bitcast works on numeric tensors, not strings")
    return make_tensor("Bitcast", [x], {"type": target}, name or "Bitcast")
