"""TensorFlow 1.x's TensorArray ops as TensorFlow's own GraphDefs hold them (``TensorArrayV3``,
``TensorArrayWriteV3``, ...), so that a frozen or exported TF 1.x graph with ``tf.map_fn``,
``tf.scan`` or ``tf.nn.dynamic_rnn`` imports and runs.

distflow's own ``tf.TensorArray`` is a value (a list carried as a ``variant`` tensor,
tensor_array_ops.py). TensorFlow's ops share a resource instead: ``TensorArrayV3`` makes an
array for the step and gives its handle and a "flow" (a float scalar that only orders the
ops: each write takes the flow of the write before it and gives a new one); the others
read or change the array through the handle. They do the same here: the handle is the
array itself (a ``resource`` tensor, made anew by each run of ``TensorArrayV3``), and the
checks and messages are TensorFlow's (writing an index twice, reading one that was never
written or was cleared after a read, shapes that differ from the array's element shape).

A TF 1.x training graph holds their gradients as ops too: ``TensorArrayGradV3`` gives the
gradient array of an array (one per ``source``, the same one each time it runs: a gradient
loop looks it up every iteration), whose writes to one index add up; TF 1.x's gradients of
the ops on it are the ops below. ``tf.gradients`` of these ops in an imported graph is not
built: such a graph is differentiated where TF 1.x did it, before it was exported.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape, unknown_shape

_FLOW = np.float32(0.0)


class TensorArrayResource:
    """One run's array of a ``TensorArrayV3`` node: its elements (None: not written), and
    whether each was read (and so cleared, with ``clear_after_read``)."""

    __slots__ = ("name", "dtype", "element_shape", "dynamic_size", "clear_after_read", "identical_shapes",
                 "items", "cleared", "aggregate", "grads")

    def __init__(self, name, size, dtype, element_shape, dynamic_size, clear_after_read, identical_shapes,
                 aggregate=False):
        self.name, self.dtype = name, dtype
        self.element_shape = element_shape if element_shape is not None else unknown_shape()
        self.dynamic_size, self.clear_after_read, self.identical_shapes = dynamic_size, clear_after_read, \
            identical_shapes
        self.items: list = [None] * size
        self.cleared = [False] * size
        self.aggregate = aggregate  # (a gradient's array: a second write to an index adds to it)
        self.grads: dict = {}  # source -> the gradient array TensorArrayGradV3 made for it

    def grad(self, source: str) -> "TensorArrayResource":
        """The gradient array of this one for ``source`` (one per source: made on first use)."""
        found = self.grads.get(source)
        if found is None:
            found = self.grads[source] = TensorArrayResource(
                f"{self.name}@{source}", len(self.items), self.dtype, self.element_shape, False, False,
                self.identical_shapes, aggregate=True)
        return found

    def __repr__(self):
        return f"TensorArray({self.name!r}, {len(self.items)} elements)"

    def _fail(self, message: str) -> errors.InvalidArgumentError:
        return errors.InvalidArgumentError(None, None, f"TensorArray {self.name}: {message}")

    def write(self, index: int, value: np.ndarray) -> None:
        if index < 0:
            raise self._fail(f"Tried to write to index {index} but it is negative")
        if index >= len(self.items):
            if not self.dynamic_size:
                raise self._fail(f"Tried to write to index {index} but array is not resizeable and size is: "
                                 f"{len(self.items)}")
            grow = index + 1 - len(self.items)
            self.items.extend([None] * grow)
            self.cleared.extend([False] * grow)
        value = np.asarray(value)
        if dtypes.as_dtype(value.dtype).base_dtype != self.dtype:
            raise self._fail(f"TensorArray dtype is {self.dtype.name} but Op is trying to write dtype "
                             f"{dtypes.as_dtype(value.dtype).name}")
        if not self.element_shape.is_compatible_with(TensorShape(value.shape)):
            raise self._fail(f"Could not write to TensorArray index {index} because the value shape is "
                             f"{list(value.shape)} which is incompatible with the TensorArray's inferred element "
                             f"shape: {self.element_shape} (consider setting infer_shape=False).")
        if self.aggregate and self.items[index] is not None:
            if self.items[index].shape != value.shape:
                raise self._fail(f"Could not aggregate to TensorArray index {index} because the existing shape is "
                                 f"{list(self.items[index].shape)} but the new input shape is {list(value.shape)}")
            self.items[index] = self.items[index] + value
            return
        if self.items[index] is not None or self.cleared[index]:
            raise self._fail(f"Could not write to TensorArray index {index} because it has already been "
                             "written to.")
        if self.identical_shapes:
            self.element_shape = TensorShape(value.shape)
        self.items[index] = value

    def read(self, index: int) -> np.ndarray:
        if not 0 <= index < len(self.items):
            raise self._fail(f"Tried to read from index {index} but array size is: {len(self.items)}")
        if self.cleared[index]:
            raise self._fail(f"Could not read index {index} twice because it was cleared after a previous read "
                             "(perhaps try setting clear_after_read = false?).")
        value = self.items[index]
        if value is None:
            if not self.element_shape.is_fully_defined():
                raise self._fail(f"Could not read from TensorArray index {index} because it has not yet been "
                                 "written to.")
            return np.zeros(self.element_shape.as_list(), self.dtype.as_numpy_dtype)
        if self.clear_after_read:
            self.items[index], self.cleared[index] = None, True
        return value

    def stacked(self, indices, element_shape: TensorShape | None = None) -> np.ndarray:
        """The elements at ``indices``, stacked; with none, an empty array of the op's element shape
        (``element_shape``) or else the array's, which must then be known."""
        values = [self.read(i) for i in indices]
        if not values:
            shape = element_shape if element_shape is not None and element_shape.is_fully_defined() \
                else self.element_shape
            if not shape.is_fully_defined():
                raise self._fail(f"TensorArray has size zero, but element shape {shape} is not fully "
                                 "defined. Currently only static shapes are supported when packing zero-size "
                                 "TensorArrays.")
            return np.zeros([0] + shape.as_list(), self.dtype.as_numpy_dtype)
        for k, value in enumerate(values[1:], 1):
            if value.shape != values[0].shape:
                raise self._fail(f"TensorArray has inconsistent shapes. Index {indices[0]} has "
                                 f"shape: {list(values[0].shape)} but index {indices[k]} has shape: "
                                 f"{list(value.shape)}")
        return np.stack(values)


def _indices(value) -> list:
    return [int(i) for i in np.asarray(value).reshape(-1)]


def _flow_shape(op):
    return TensorShape([])


def _flow_dtype(op):
    return dtypes.float32


def _element_shape(op):
    """The element shape of the array ``op`` reads, where its TensorArrayV3 node says it."""
    source = op.inputs[0].op
    if source.type == "TensorArrayV3":
        return source._attr("element_shape")
    return unknown_shape()


@register_op("TensorArrayV3", shape=lambda op: [TensorShape([2]), TensorShape([])],
             dtype=lambda op: [dtypes.resource, dtypes.float32], stateful=True, list_output=True)
def _tensor_array_kernel(ctx, size, *, dtype, element_shape=None, dynamic_size=False, clear_after_read=True,
                         identical_element_shapes=False, tensor_array_name=""):
    n = int(np.asarray(size))
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"{ctx.op_name}: the size of a TensorArray cannot be "
                                          f"negative, got {n}")
    array = TensorArrayResource(tensor_array_name or ctx.op_name, n, dtypes.as_dtype(dtype).base_dtype,
                                element_shape, bool(dynamic_size), bool(clear_after_read),
                                bool(identical_element_shapes))
    return array, _FLOW


@register_op("TensorArrayGradV3", shape=lambda op: [TensorShape([2]), TensorShape([])],
             dtype=lambda op: [dtypes.resource, dtypes.float32], stateful=True, list_output=True)
def _grad_kernel(handle, flow_in, *, source):
    return handle.grad(source), _FLOW


@register_op("TensorArrayWriteV3", shape=_flow_shape, dtype=_flow_dtype, stateful=True)
def _write_kernel(handle, index, value, flow_in):
    handle.write(int(np.asarray(index)), value)
    return _FLOW


@register_op("TensorArrayReadV3", shape=_element_shape, dtype=lambda op: op._attr("dtype"), stateful=True,
             may_alias=True)
def _read_kernel(handle, index, flow_in, *, dtype=None):
    return handle.read(int(np.asarray(index)))


@register_op("TensorArrayGatherV3", shape=lambda op: TensorShape([None]).concatenate(
    op._attr("element_shape") if op._attrs.get("element_shape") is not None else _element_shape(op)),
             dtype=lambda op: op._attr("dtype"), stateful=True)
def _gather_kernel(handle, indices, flow_in, *, dtype=None, element_shape=None):
    return handle.stacked(_indices(indices), element_shape)


@register_op("TensorArrayScatterV3", shape=_flow_shape, dtype=_flow_dtype, stateful=True)
def _scatter_kernel(handle, indices, value, flow_in):
    indices, value = _indices(indices), np.asarray(value)
    if value.ndim == 0 or len(indices) != value.shape[0]:
        raise handle._fail(f"Expected len(indices) == values.shape[0], but saw: {len(indices)} vs. "
                           f"{value.shape[0] if value.ndim else 'a scalar'}")
    for i, element in zip(indices, value):
        handle.write(i, element)
    return _FLOW


@register_op("TensorArraySizeV3", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.int32)
def _size_kernel(handle, flow_in):
    return np.int32(len(handle.items))


@register_op("TensorArrayConcatV3", shape=lambda op: [unknown_shape(), TensorShape([None])],
             dtype=lambda op: [op._attr("dtype"), dtypes.int64], stateful=True, list_output=True)
def _concat_kernel(handle, flow_in, *, dtype=None, element_shape_except0=None):
    values = [handle.read(i) for i in range(len(handle.items))]
    if any(v.ndim == 0 for v in values):
        raise handle._fail("Concat saw a scalar element: each must have at least one dimension")
    lengths = np.array([v.shape[0] for v in values], np.int64)
    if not values:
        rest = element_shape_except0.as_list() if element_shape_except0 is not None and \
            element_shape_except0.is_fully_defined() else []
        return np.zeros([0] + rest, handle.dtype.as_numpy_dtype), lengths
    return np.concatenate(values, axis=0), lengths


@register_op("TensorArraySplitV3", shape=_flow_shape, dtype=_flow_dtype, stateful=True)
def _split_kernel(handle, value, lengths, flow_in):
    value, lengths = np.asarray(value), [int(n) for n in np.asarray(lengths).reshape(-1)]
    if value.ndim == 0 or sum(lengths) != value.shape[0]:
        raise handle._fail(f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
                           f"{sum(lengths)} and value's shape is: {list(value.shape)}")
    if not handle.dynamic_size and len(lengths) != len(handle.items):
        raise handle._fail(f"TensorArray's size is not equal to the size of lengths ({len(handle.items)} vs. "
                           f"{len(lengths)}), and the TensorArray is not marked as dynamically resizeable")
    start = 0
    for i, n in enumerate(lengths):
        handle.write(i, value[start:start + n])
        start += n
    return _FLOW


@register_op("TensorArrayCloseV3", shape=lambda op: [], dtype=lambda op: [], stateful=True, list_output=True)
def _close_kernel(handle):
    handle.items[:] = [None] * len(handle.items)
    return ()
