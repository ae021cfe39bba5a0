"""``tf.TensorArray``: a list of tensors that loops read and write one element at a time.

TF 1.x's API (read, write, stack, unstack, gather, scatter, concat, split, size,
identity, close). Each TensorArray holds a ``flow``: a ``variant`` tensor whose value is
the list (list_ops.py). As in TF 1.x, ``write`` and the other changing methods return a
new TensorArray, and the program must go on with that one (``ta = ta.write(i, x)``); in
distflow the old one keeps its old contents rather than becoming unusable.
"""

from __future__ import annotations

from ..framework import dtypes, ops
from ..framework.tensor_shape import TensorShape, as_shape, unknown_shape
from .op_util import make_tensor


class TensorArray:
    """A list of tensors of one dtype, built for loops (``tf.TensorArray``)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = as_shape(element_shape) if element_shape is not None else unknown_shape()
        if flow is not None or handle is not None:
            self._flow = ops.convert_to_tensor(flow if flow is not None else handle)
            if self._flow.dtype != dtypes.variant:
                raise TypeError(f"A TensorArray's flow must be a variant tensor, got {self._flow.dtype.name}")
            return
        if size is None:
            raise ValueError("Size must be provided if handle is not provided")
        with ops.name_scope(name, "TensorArray", [size]):
            size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
            self._flow = make_tensor("EmptyTensorList", [size], {
                "element_dtype": self._dtype, "element_shape": self._element_shape,
                "dynamic_size": self._dynamic_size}, tensor_array_name or "TensorArray")

    # -- properties ---------------------------------------------------------------------
    @property
    def flow(self) -> ops.Tensor:
        """The tensor holding the list: what a loop carries from one iteration to the next."""
        return self._flow

    @property
    def handle(self) -> ops.Tensor:
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def element_shape(self) -> TensorShape:
        return self._element_shape

    def _with_flow(self, flow: ops.Tensor, element_shape: TensorShape | None = None) -> "TensorArray":
        """A TensorArray like this one holding ``flow`` (what a loop rebuilds from its variables)."""
        ta = TensorArray.__new__(TensorArray)
        ta._dtype, ta._dynamic_size, ta._infer_shape = self._dtype, self._dynamic_size, self._infer_shape
        ta._element_shape = self._element_shape if element_shape is None else element_shape
        ta._flow = flow
        return ta

    def _merge_shape(self, shape: TensorShape) -> TensorShape:
        if not self._infer_shape:
            return self._element_shape
        try:
            return self._element_shape.merge_with(shape)
        except ValueError:
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self._element_shape} "
                             "(and infer_shape=True)") from None

    def _value(self, value, what: str) -> ops.Tensor:
        value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
        if value.dtype.base_dtype != self._dtype:
            raise TypeError(f"TensorArray dtype is {self._dtype.name} but Op is trying to {what} dtype "
                            f"{value.dtype.base_dtype.name}")
        return value

    def _attrs(self) -> dict:
        return {"element_dtype": self._dtype, "element_shape": self._element_shape}

    # -- reading ----------------------------------------------------------------------------
    def read(self, index, name=None) -> ops.Tensor:
        """Element ``index`` (InvalidArgumentError at run time if it was never written)."""
        index = ops.convert_to_tensor(index, dtype=dtypes.int32)
        return make_tensor("TensorListGetItem", [self._flow, index], self._attrs(), name or "TensorArrayRead")

    def stack(self, name=None) -> ops.Tensor:
        """All elements, stacked along a new first axis."""
        return make_tensor("TensorListStack", [self._flow], self._attrs(), name or "TensorArrayStack")

    def gather(self, indices, name=None) -> ops.Tensor:
        indices = ops.convert_to_tensor(indices, dtype=dtypes.int32)
        return make_tensor("TensorListGather", [self._flow, indices], self._attrs(), name or "TensorArrayGather")

    def concat(self, name=None) -> ops.Tensor:
        """All elements, concatenated along their first axis."""
        return make_tensor("TensorListConcat", [self._flow], self._attrs(), name or "TensorArrayConcat")

    def size(self, name=None) -> ops.Tensor:
        return make_tensor("TensorListLength", [self._flow], None, name or "TensorArraySize")

    # -- writing: each returns the TensorArray to go on with ----------------------------------
    def write(self, index, value, name=None) -> "TensorArray":
        value = self._value(value, "write")
        index = ops.convert_to_tensor(index, dtype=dtypes.int32)
        flow = make_tensor("TensorListSetItem", [self._flow, index, value], {"element_dtype": self._dtype},
                           name or "TensorArrayWrite")
        return self._with_flow(flow, self._merge_shape(value.shape))

    def unstack(self, value, name=None) -> "TensorArray":
        """A TensorArray holding the rows of ``value``."""
        value = self._value(value, "unstack")
        flow = make_tensor("TensorListFromTensor", [value], {"dynamic_size": self._dynamic_size},
                           name or "TensorArrayUnstack")
        element = value.shape[1:] if value.shape.ndims is not None else unknown_shape()
        return self._with_flow(flow, self._merge_shape(element))

    def scatter(self, indices, value, name=None) -> "TensorArray":
        value = self._value(value, "scatter")
        indices = ops.convert_to_tensor(indices, dtype=dtypes.int32)
        flow = make_tensor("TensorListScatter", [self._flow, indices, value], None, name or "TensorArrayScatter")
        element = value.shape[1:] if value.shape.ndims is not None else unknown_shape()
        return self._with_flow(flow, self._merge_shape(element))

    def split(self, value, lengths, name=None) -> "TensorArray":
        value = self._value(value, "split")
        lengths = ops.convert_to_tensor(lengths)
        if lengths.dtype.base_dtype != dtypes.int64:  # (int32 lengths too, as TF's to_int64 takes them)
            lengths = make_tensor("Cast", [lengths], {"SrcT": lengths.dtype.base_dtype, "DstT": dtypes.int64},
                                  "ToInt64")
        flow = make_tensor("TensorListSplit", [value, lengths], {"dynamic_size": self._dynamic_size},
                           name or "TensorArraySplit")
        return self._with_flow(flow)

    def identity(self) -> "TensorArray":
        return self._with_flow(make_tensor("Identity", [self._flow]))

    def close(self, name=None):
        """Nothing to release (the list goes when nothing refers to it); a no-op, as TF 1.x returns."""
        return make_tensor("Identity", [self._flow], None, name or "TensorArrayClose").op

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError("TensorArray.grad is not supported in distflow: tf.gradients differentiates "
                                  "through a TensorArray's reads and writes")
