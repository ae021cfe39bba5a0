"""Tensors as bytes: ``tf.serialize_tensor`` and ``tf.parse_tensor`` (a TensorProto each)."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops, wire
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import make_tensor


@register_op("SerializeTensor", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.string)
def _serialize_tensor_kernel(xp, tensor):
    return np.array(wire.tensor_to_proto(tensor).SerializeToString(), dtype=object)


@register_op("ParseTensor", shape=lambda op: TensorShape(None), dtype=lambda op: op._attr("out_type"))
def _parse_tensor_kernel(xp, serialized, *, out_type):
    from ..protos import distflow_pb2  # noqa: PLC0415

    from google.protobuf.message import DecodeError  # noqa: PLC0415

    if np.ndim(serialized) != 0:
        raise errors.InvalidArgumentError(None, None, f"Expected `serialized` to be a scalar, got shape: "
                                                      f"{list(np.shape(serialized))}")
    data = serialized.item() if hasattr(serialized, "item") else serialized
    try:
        proto = distflow_pb2.TensorProto.FromString(data)
        value = wire.tensor_from_proto(proto, writable=True)
    except (DecodeError, ValueError, TypeError) as e:
        shown = data[:40].decode("utf-8", "replace") if isinstance(data, bytes) else str(data)[:40]
        raise errors.InvalidArgumentError(None, None, f"Could not parse `serialized` as TensorProto: '{shown}' "
                                                      f"({e})") from None
    if dtypes.as_dtype(value.dtype if value.dtype != object else dtypes.string) != out_type:
        raise errors.InvalidArgumentError(None, None, f"Type mismatch between parsed tensor ({value.dtype}) and "
                                                      f"dtype ({out_type.name})")
    return value


for _t in ("SerializeTensor", "ParseTensor"):
    not_differentiable(_t)


def serialize_tensor(tensor, name=None):
    """``tensor`` as the bytes of a TensorProto."""
    return make_tensor("SerializeTensor", [ops.convert_to_tensor(tensor)], None, name or "SerializeTensor")


def parse_tensor(serialized, out_type, name=None):
    """The tensor a serialized TensorProto holds (InvalidArgumentError if its dtype is not ``out_type``)."""
    return make_tensor("ParseTensor", [ops.convert_to_tensor(serialized, dtype=dtypes.string)],
                       {"out_type": dtypes.as_dtype(out_type)}, name or "ParseTensor")
