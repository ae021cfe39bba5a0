"""Queues: state shared between steps, sessions and workers (accumulator_ops.py has the
gradient accumulators, built the same way).

A FIFOQueue or ConditionalAccumulator is a resource of the device that runs its
creating op, keyed by (container, shared name) like a variable, so that workers
whose graphs name the same queue on the same ps task share it. The creating op
outputs a reference (TF 1.x's ``string_ref`` handle); every op that takes it runs on
the resource's device. Ops that may wait (enqueue into a full queue, dequeue from
an empty one, take_grad before enough gradients came) are ``blocking``: they wait
inside their step and give up with CancelledError when the step is cancelled (the
session closed, another partition failed) or DeadlineExceededError past the step's
``RunOptions(timeout_in_ms)``.
"""

from __future__ import annotations

import collections
import logging
import threading

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape, as_shape
from .op_util import make_op, make_tensor

_log = logging.getLogger("distflow")


def handle_dtype(op):
    return dtypes.string._as_ref


def no_outputs(op):
    return []


def _check_component(what: str, i: int, value: np.ndarray, dtype: dtypes.DType, shape: TensorShape | None,
                     batched: bool = False) -> np.ndarray:
    """``value`` as component ``i`` of an element (a copy the resource owns), or InvalidArgumentError."""
    value = np.asarray(value)
    if value.dtype != dtype.as_numpy_dtype:
        raise errors.InvalidArgumentError(None, None, f"{what}: component {i} should be {dtype.name}, got "
                                          f"{dtypes.as_dtype(value.dtype).name}")
    element_shape = value.shape[1:] if batched else value.shape
    if shape is not None and not shape.is_compatible_with(TensorShape(element_shape)):
        raise errors.InvalidArgumentError(None, None, f"{what}: component {i} should have shape {shape}, got "
                                          f"{list(element_shape)}")
    return np.array(value, copy=True)


# ---------------------------------------------------------------------------
# FIFOQueue: the resource


class FIFOQueueResource:
    """A bounded first-in first-out queue of tuples of arrays."""

    def __init__(self, name: str, component_types: list, shapes: list, capacity: int):
        self.name = name
        self.component_types = list(component_types)
        self.shapes = [as_shape(s) for s in shapes] if shapes else [None] * len(component_types)
        self.capacity = capacity if capacity >= 0 else None
        self.cond = threading.Condition()
        self.items: collections.deque = collections.deque()
        self.closed = False
        self.enqueues_cancelled = False

    def check_matches(self, component_types, shapes, capacity) -> None:
        if list(component_types) != self.component_types:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has component types "
                f"{[d.name for d in self.component_types]} but requested component types "
                f"{[d.name for d in component_types]}")
        if (capacity if capacity >= 0 else None) != self.capacity:
            raise errors.InvalidArgumentError(None, None, f"Shared queue '{self.name}' has capacity {self.capacity} "
                                              f"but requested capacity was {capacity}")

    def _closed_error(self, requested: int) -> errors.OutOfRangeError:
        return errors.OutOfRangeError(None, None, f"FIFOQueue '{self.name}' is closed and has insufficient "
                                      f"elements (requested {requested}, current size {len(self.items)})")

    def _cancelled(self) -> errors.CancelledError:
        return errors.CancelledError(None, None, f"Queue '{self.name}' is closed.")

    def enqueue(self, ctx, elements: list[tuple], later_dequeues: int = 0) -> None:
        """Adds ``elements``, waiting for room; ``later_dequeues`` more than the capacity
        when that many dequeues of the step, which run after this op, will take them
        (see ``runtime.partition.later_dequeues``)."""
        with self.cond:
            for element in elements:
                if self.closed:
                    raise self._cancelled()
                if self.capacity is not None:
                    room = self.capacity + later_dequeues
                    ctx.wait_for(self.cond, lambda: len(self.items) < room or self.enqueues_cancelled,
                                 f"room in queue '{self.name}'")
                    if self.enqueues_cancelled:
                        raise self._cancelled()
                self._put(element)
                self.cond.notify_all()

    def _put(self, element: tuple) -> None:
        """Adds one element (a queue of another order keeps them otherwise)."""
        self.items.append(element)

    def dequeue(self, ctx, n: int, up_to: bool = False) -> list[tuple]:
        if self.capacity is not None and n > self.capacity:
            return self._dequeue_as_they_come(ctx, n, up_to)
        with self.cond:
            ctx.wait_for(self.cond, lambda: len(self.items) >= n or self.closed,
                         f"{n} element(s) of queue '{self.name}'")
            if len(self.items) < n:
                if not up_to or not self.items:
                    raise self._closed_error(n)
                n = len(self.items)
            out = [self.items.popleft() for _ in range(n)]
            self.cond.notify_all()
            return out

    def _dequeue_as_they_come(self, ctx, n: int, up_to: bool) -> list[tuple]:
        """More elements than the queue holds: take them as they arrive, freeing room for the
        producers (as TF does). If the wait fails, the elements taken go back to the front."""
        taken: list = []
        with self.cond:
            try:
                while len(taken) < n:
                    ctx.wait_for(self.cond, lambda: self.items or self.closed,
                                 f"{n - len(taken)} more element(s) of queue '{self.name}'")
                    while self.items and len(taken) < n:
                        taken.append(self.items.popleft())
                    self.cond.notify_all()
                    if len(taken) < n and not self.items and self.closed:
                        if up_to and taken:
                            return taken
                        raise self._closed_error(n)
            except BaseException:
                self.items.extendleft(reversed(taken))
                self.cond.notify_all()
                raise
        return taken

    def batch(self, elements: list[tuple]) -> tuple:
        """The components of ``elements`` stacked along a new dimension 0."""
        return tuple(np.stack(parts) for parts in zip(*elements))

    def close(self, cancel_pending_enqueues: bool) -> None:
        with self.cond:
            self.closed = True
            self.enqueues_cancelled = self.enqueues_cancelled or cancel_pending_enqueues
            self.cond.notify_all()


# ---------------------------------------------------------------------------
# FIFOQueue: ops


def queue_resource(ctx, kind, what, component_types, shapes, capacity, container, shared_name):
    """The queue of class ``kind`` this op names (made on first use; shared by ``shared_name``),
    checked to have the requested types and capacity."""
    name = shared_name or ctx.op_name
    queue = ctx.resource_mgr.lookup_or_create(container, name,
                                              lambda: kind(name, component_types, shapes, capacity))
    if type(queue) is not kind:
        raise errors.InvalidArgumentError(None, None, f"Resource '{name}' on {ctx.device.name} is a "
                                          f"{type(queue).__name__}, not {what}")
    queue.check_matches(component_types, shapes, capacity)
    return queue


@register_op("FIFOQueueV2", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
@register_op("FIFOQueue", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)  # (GraphDefs of older distflow)
def _fifo_queue_kernel(ctx, *, component_types, shapes, capacity, container, shared_name):
    return queue_resource(ctx, FIFOQueueResource, "a queue", component_types, shapes, capacity, container, shared_name)


@register_op("QueueEnqueue", shape=no_outputs, stateful=True, blocking=True, ref_inputs=(0,))
def _enqueue_kernel(ctx, queue, *components, later_dequeues=0, **attrs):
    element = tuple(_check_component(f"Enqueue to '{queue.name}'", i, c, dtype, shape)
                    for i, (c, dtype, shape) in enumerate(zip(components, queue.component_types, queue.shapes)))
    queue.enqueue(ctx, [element], later_dequeues)


@register_op("QueueEnqueueMany", shape=no_outputs, stateful=True, blocking=True, ref_inputs=(0,))
def _enqueue_many_kernel(ctx, queue, *components, later_dequeues=0, **attrs):
    what = f"EnqueueMany to '{queue.name}'"
    batch = [_check_component(what, i, c, dtype, shape, batched=True)
             for i, (c, dtype, shape) in enumerate(zip(components, queue.component_types, queue.shapes))]
    sizes = {b.shape[0] if b.ndim else None for b in batch}
    if len(sizes) != 1 or None in sizes:
        raise errors.InvalidArgumentError(None, None, f"{what}: every component needs the same first dimension, "
                                          f"got shapes {[list(b.shape) for b in batch]}")
    queue.enqueue(ctx, list(zip(*batch)) if batch[0].shape[0] else [], later_dequeues)


def _dequeue_shapes(op, batched: bool):
    shapes = op._attr("_element_shapes") if "_element_shapes" in op._attrs else None
    n = len(op._attr("component_types"))
    shapes = [as_shape(s) for s in shapes] if shapes else [TensorShape(None)] * n
    if not batched:
        return shapes
    known = op.inputs[1].op.type == "Const" and not op._attr("_up_to")
    head = [int(op.inputs[1].op._attr("value"))] if known else [None]
    return [TensorShape(head).concatenate(s) for s in shapes]


def _component_dtypes(op):
    return list(op._attr("component_types"))


@register_op("QueueDequeue", shape=lambda op: _dequeue_shapes(op, False), dtype=_component_dtypes,
             stateful=True, blocking=True, list_output=True, ref_inputs=(0,))
def _dequeue_kernel(ctx, queue, **attrs):
    return queue.dequeue(ctx, 1)[0]


def _dequeue_many(ctx, queue, n, up_to: bool):
    n = int(n)
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"Dequeue of '{queue.name}': n must be >= 0, got {n}")
    if not getattr(queue, "pads", False) and not all(s is not None and s.is_fully_defined() for s in queue.shapes):
        raise errors.InvalidArgumentError(
            None, None, f"Queue '{queue.name}': DequeueMany and DequeueUpTo need every component's shape fully "
            f"defined when the queue is made (shapes=...), got {[str(s) for s in queue.shapes]}; a "
            "PaddingFIFOQueue takes shapes with unknown dimensions")
    elements = queue.dequeue(ctx, n, up_to) if n else []
    if not elements:
        return tuple(np.empty((0,) + tuple(s.as_list() if s is not None and s.is_fully_defined() else ()),
                              d.as_numpy_dtype) for d, s in zip(queue.component_types, queue.shapes))
    return queue.batch(elements)


@register_op("QueueDequeueMany", shape=lambda op: _dequeue_shapes(op, True), dtype=_component_dtypes,
             stateful=True, blocking=True, list_output=True, ref_inputs=(0,))
def _dequeue_many_kernel(ctx, queue, n, **attrs):
    return _dequeue_many(ctx, queue, n, up_to=False)


@register_op("QueueDequeueUpTo", shape=lambda op: _dequeue_shapes(op, True), dtype=_component_dtypes,
             stateful=True, blocking=True, list_output=True, ref_inputs=(0,))
def _dequeue_up_to_kernel(ctx, queue, n, **attrs):
    return _dequeue_many(ctx, queue, n, up_to=True)


@register_op("QueueClose", shape=no_outputs, stateful=True, ref_inputs=(0,))
def _queue_close_kernel(xp, queue, *, cancel_pending_enqueues):
    queue.close(cancel_pending_enqueues)


@register_op("QueueSize", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.int32, stateful=True,
             ref_inputs=(0,))
def _queue_size_kernel(xp, queue):
    with queue.cond:
        return np.array(len(queue.items), np.int32)


@register_op("QueueIsClosed", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.bool, stateful=True,
             ref_inputs=(0,))
def _queue_is_closed_kernel(xp, queue):
    return np.array(queue.closed)


for _t in ("FIFOQueue", "FIFOQueueV2", "QueueEnqueue", "QueueEnqueueMany", "QueueDequeue", "QueueDequeueMany",
           "QueueDequeueUpTo", "QueueClose", "QueueSize", "QueueIsClosed"):
    not_differentiable(_t)


@register_op("RefSelect", shape=lambda op: op.inputs[1].shape, dtype=lambda op: op.inputs[1].dtype,
             ref_inputs=range(1, 1025))
def _ref_select_kernel(index, *refs):
    """The reference at ``index`` (a queue chosen at run time: QueueBase.from_list)."""
    i = int(index)
    if not 0 <= i < len(refs):
        raise errors.InvalidArgumentError(None, None, f"RefSelect index {i} is out of range [0, {len(refs)})")
    return refs[i]


not_differentiable("RefSelect")


class QueueBase:
    """A queue of tuples of tensors (``tf.QueueBase``); see FIFOQueue."""

    @staticmethod
    def from_list(index, queues) -> "QueueBase":
        """The queue ``queues[index]``, chosen when a step runs: each must have the same
        dtypes (and names); the shapes are the most specific ones all of them allow.

        Raises:
          TypeError: the queues' dtypes or names differ.
          ValueError: ``queues`` is empty.
        """
        queues = list(queues)
        if not queues:
            raise ValueError("from_list needs at least one queue")
        first = queues[0]
        for q in queues[1:]:
            if q.dtypes != first.dtypes:
                raise TypeError(f"Queue '{q.name}' has dtypes {q.dtypes}, but '{first.name}' has {first.dtypes}")
            if q.names != first.names:
                raise TypeError(f"Queue '{q.name}' has names {q.names}, but '{first.name}' has {first.names}")
        shapes = [TensorShape(None) if any(q.shapes[i] != first.shapes[i] for q in queues) else first.shapes[i]
                  for i in range(len(first.shapes))]
        with ops.colocate_with(first.queue_ref):
            ref = make_tensor("RefSelect", [ops.convert_to_tensor(index, dtype=dtypes.int32)] +
                              [q.queue_ref for q in queues], None, "RefSelect")
        return QueueBase(first.dtypes, shapes, first.names, ref)

    def __init__(self, dtypes_, shapes, names, queue_ref):
        self._dtypes = dtypes_
        self._shapes = shapes
        self._names = names
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name
        self._prefix = self._name.split("/")[-1]  # (its ops' default names start so, as TF's)

    @property
    def queue_ref(self) -> ops.Tensor:
        return self._queue_ref

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtypes(self) -> list:
        return list(self._dtypes)

    @property
    def shapes(self) -> list:
        return list(self._shapes)

    @property
    def names(self):
        return self._names

    def _attrs(self, **extra) -> dict:
        attrs = {"component_types": list(self._dtypes)}
        if any(s.dims is not None for s in self._shapes):
            attrs["_element_shapes"] = list(self._shapes)
        attrs.update(extra)
        return attrs

    def _components(self, vals, batched: bool) -> list[ops.Tensor]:
        if isinstance(vals, dict) and self._names is None:
            raise ValueError(f"Queue '{self._name}' must have names to enqueue a dictionary")
        if self._names is not None:
            if not isinstance(vals, dict) or set(vals) != set(self._names):
                raise ValueError(f"Queue '{self._name}' has names {self._names}: enqueue a dict with those keys, "
                                 f"got {vals!r}")
            vals = [vals[n] for n in self._names]
        elif not isinstance(vals, (list, tuple)):
            vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError(f"Queue '{self._name}' has {len(self._dtypes)} components, got {len(vals)} values")
        tensors = []
        for i, (v, dtype, shape) in enumerate(zip(vals, self._dtypes, self._shapes)):
            t = ops.convert_to_tensor(v, dtype=dtype, name=f"component_{i}")
            element = t.shape[1:] if batched and t.shape.dims is not None and t.shape.ndims else t.shape
            if batched and t.shape.ndims == 0:
                raise ValueError(f"enqueue_many to '{self._name}': component {i} must have a batch dimension")
            if not element.is_compatible_with(shape):
                raise ValueError(f"Queue '{self._name}': component {i} has shape {element}, expected {shape}")
            tensors.append(t)
        if batched:  # (every component's batch size must agree, where the graph knows them)
            sizes = {t.shape.as_list()[0] for t in tensors if t.shape.ndims} - {None}
            if len(sizes) > 1:
                raise ValueError(f"enqueue_many to '{self._name}': the components' first dimensions differ: "
                                 f"{[t.shape.as_list()[0] if t.shape.ndims else None for t in tensors]}")
        return tensors

    def enqueue(self, vals, name=None) -> ops.Operation:
        """Adds one element; blocks while the queue is full."""
        with ops.colocate_with(self._queue_ref):
            return make_op("QueueEnqueue", [self._queue_ref] + self._components(vals, False), self._attrs(),
                           name or f"{self._prefix}_enqueue")

    def enqueue_many(self, vals, name=None) -> ops.Operation:
        """Adds the slices of ``vals`` along dimension 0 as elements."""
        with ops.colocate_with(self._queue_ref):
            return make_op("QueueEnqueueMany", [self._queue_ref] + self._components(vals, True), self._attrs(),
                           name or f"{self._prefix}_EnqueueMany")

    def _outputs(self, op: ops.Operation):
        outs = list(op.outputs)
        if self._names is not None:
            return dict(zip(self._names, outs))
        return outs[0] if len(outs) == 1 else outs

    def dequeue(self, name=None):
        """Takes one element; blocks while the queue is empty; OutOfRangeError once closed and empty."""
        with ops.colocate_with(self._queue_ref):
            return self._outputs(make_op("QueueDequeue", [self._queue_ref], self._attrs(), name or f"{self._prefix}_Dequeue"))

    def _dequeue_n(self, op_type: str, n, name):
        with ops.colocate_with(self._queue_ref):
            n = ops.convert_to_tensor(n, dtype=dtypes.int32, name="n")
            op = make_op(op_type, [self._queue_ref, n], self._attrs(_up_to=op_type == "QueueDequeueUpTo"), name)
            return self._outputs(op)

    def dequeue_many(self, n, name=None):
        """Takes ``n`` elements stacked along a new dimension 0."""
        return self._dequeue_n("QueueDequeueMany", n, name or f"{self._prefix}_DequeueMany")

    def dequeue_up_to(self, n, name=None):
        """Like dequeue_many, but a closed queue gives what is left (at least one element)."""
        return self._dequeue_n("QueueDequeueUpTo", n, name or f"{self._prefix}_DequeueUpTo")

    def close(self, cancel_pending_enqueues=False, name=None) -> ops.Operation:
        with ops.colocate_with(self._queue_ref):
            return make_op("QueueClose", [self._queue_ref],
                           {"cancel_pending_enqueues": bool(cancel_pending_enqueues)}, name or f"{self._prefix}_Close")

    def is_closed(self, name=None) -> ops.Tensor:
        with ops.colocate_with(self._queue_ref):
            return make_tensor("QueueIsClosed", [self._queue_ref], None, name or f"{self._prefix}_IsClosed")

    def size(self, name=None) -> ops.Tensor:
        with ops.colocate_with(self._queue_ref):
            return make_tensor("QueueSize", [self._queue_ref], None, name or f"{self._prefix}_Size")


class FIFOQueue(QueueBase):
    """``tf.FIFOQueue(capacity, dtypes, shapes=None, names=None, shared_name=None, name='fifo_queue')``.

    ``capacity`` < 0 means unbounded. Queues with the same ``shared_name`` on the same
    device are one queue, across sessions and worker processes.
    """

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):  # noqa: A002
        dtypes_, shapes_, names = queue_spec("FIFOQueue", dtypes, shapes, names)
        attrs = {"component_types": dtypes_, "capacity": int(capacity), "container": "",
                 "shared_name": shared_name or "",
                 "shapes": shapes_ if all(s.is_fully_defined() for s in shapes_) else []}
        ref = make_tensor("FIFOQueueV2", [], attrs, name)
        super().__init__(dtypes_, shapes_, names, ref)


class _PaddingFIFOQueue(FIFOQueueResource):
    """A FIFO queue whose elements may differ in the dimensions its shapes leave unknown;
    dequeue_many pads each component to the largest in the batch (zeros, or b"" for strings)."""

    pads = True  # (dequeue_many takes shapes with unknown dimensions)

    def batch(self, elements: list[tuple]) -> tuple:
        out = []
        for parts, dtype in zip(zip(*elements), self.component_types):
            widest = np.max([p.shape for p in parts], axis=0) if parts[0].ndim else ()
            fill = b"" if dtype == dtypes.string else 0
            batch = np.full((len(parts),) + tuple(int(d) for d in widest), fill, dtype=dtype.as_numpy_dtype)
            for k, part in enumerate(parts):
                batch[(k,) + tuple(slice(0, d) for d in part.shape)] = part
            out.append(batch)
        return tuple(out)


@register_op("PaddingFIFOQueueV2", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
@register_op("PaddingFIFOQueue", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)  # (GraphDefs of older distflow)
def _padding_fifo_queue_kernel(ctx, *, component_types, shapes, capacity, container, shared_name):
    return queue_resource(ctx, _PaddingFIFOQueue, "a PaddingFIFOQueue", component_types, shapes, capacity,
                          container, shared_name)


not_differentiable("PaddingFIFOQueue")
not_differentiable("PaddingFIFOQueueV2")


class PaddingFIFOQueue(QueueBase):
    """``tf.PaddingFIFOQueue(capacity, dtypes, shapes, ...)``: shapes are required and may hold None
    dimensions; ``dequeue_many`` pads those to the longest element of the batch."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):  # noqa: A002
        if not isinstance(shapes, (list, tuple)) or not shapes or any(s is None or isinstance(s, int) for s in shapes):
            raise ValueError(f"PaddingFIFOQueue needs a list of shapes, one per component, each with its rank "
                             f"known (None for a dimension that varies), got {shapes!r}")
        dtypes_, shapes_, names = queue_spec("PaddingFIFOQueue", dtypes, shapes, names)
        if any(s.ndims is None for s in shapes_):
            raise ValueError(f"PaddingFIFOQueue needs every component's rank known, got shapes {shapes_}")
        attrs = {"component_types": dtypes_, "capacity": int(capacity), "container": "",
                 "shared_name": shared_name or "", "shapes": shapes_}
        super().__init__(dtypes_, shapes_, names, make_tensor("PaddingFIFOQueueV2", [], attrs, name))


def queue_spec(what: str, dtypes_, shapes, names):
    """A queue's component dtypes, shapes (unknown when not given) and names, checked against each other."""
    dtypes_ = [as_element_dtype(d) for d in (dtypes_ if isinstance(dtypes_, (list, tuple)) else [dtypes_])]
    if shapes is None:
        shapes_ = [TensorShape(None)] * len(dtypes_)
    else:
        # (as TF: a list of ints and Nones is one shape; otherwise each item is a shape, and a
        # bare int in it, as in shapes=((), (2)), is a shape of one dimension)
        shapes_ = [as_shape([s] if isinstance(s, int) else s) for s in (shapes if _is_shape_list(shapes) else [shapes])]
        if len(shapes_) != len(dtypes_):
            raise ValueError(f"{what}: {len(dtypes_)} dtypes but {len(shapes_)} shapes")
    if names is not None:
        names = list(names) if isinstance(names, (list, tuple)) else [names]
        if len(names) != len(dtypes_):
            raise ValueError(f"{what}: {len(dtypes_)} dtypes but {len(names)} names")
    return dtypes_, shapes_, names


def as_element_dtype(d) -> dtypes.DType:
    return dtypes.as_dtype(d).base_dtype


def _is_shape_list(shapes) -> bool:
    """True for [[2, 3], [4]], [TensorShape, ...] or ((), 2); False for one shape such as [2, 3] or ()."""
    if isinstance(shapes, TensorShape):
        return False
    items = list(shapes)
    return bool(items) and not all(s is None or isinstance(s, int) for s in items)
