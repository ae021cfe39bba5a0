"""Tensors and their protocol buffers: ``make_tensor_proto``, ``make_ndarray``, ``is_tensor``,
and the static-shape helpers ``dimension_value`` / ``dimension_at_index``."""

from __future__ import annotations

import numpy as np

from . import dtypes
from . import ops
from .tensor_shape import Dimension, TensorShape, as_shape


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False, allow_broadcast=False):
    """``values`` (a NumPy array or Python value) as a TensorProto, optionally cast and reshaped."""
    from . import wire  # noqa: PLC0415 - protobuf only for programs that ask for protos

    arr = np.asarray(values, dtype=None if dtype is None else dtypes.as_dtype(dtype).as_numpy_dtype)
    if shape is not None:
        target = tuple(as_shape(shape).as_list())
        if verify_shape and arr.shape != target:
            raise TypeError(f"Expected Tensor's shape: {target}, got {arr.shape}.")
        if arr.size == 1 and np.prod(target) != 1:
            arr = np.broadcast_to(arr.reshape(()), target)
        elif allow_broadcast:
            arr = np.broadcast_to(arr, target)
        else:
            arr = arr.reshape(target)
    return wire.tensor_to_proto(np.ascontiguousarray(arr))


def make_ndarray(tensor):
    """The NumPy array a TensorProto holds."""
    from . import wire  # noqa: PLC0415

    return wire.tensor_from_proto(tensor, writable=True)


def is_tensor(x) -> bool:
    """True for a Tensor (or anything that converts to one as a graph element, such as a Variable)."""
    return isinstance(x, ops.Tensor) or hasattr(x, "_as_graph_element")


def dimension_value(dimension):
    """A dimension as an int (or None when unknown), whether given as an int or a Dimension."""
    return dimension.value if isinstance(dimension, Dimension) else dimension


def dimension_at_index(shape, index) -> Dimension:
    shape = as_shape(shape) if not isinstance(shape, TensorShape) else shape
    if shape.ndims is None:
        return Dimension(None)
    return shape.dims[index] if hasattr(shape, "dims") else Dimension(shape.as_list()[index])
