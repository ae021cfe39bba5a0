"""``StagingArea`` (``tf.contrib.staging``): a buffer of tuples of tensors kept on a device
between steps, so that a step can take the batch that an earlier step put there.

TF 1.x's GPU input pipelines used it to overlap the copy of the next batch with the
current step: each step runs ``get()`` for its own batch and ``put()`` of the next, and a
warm-up run puts the first. The area is a resource of the device that its ops are
colocated with (the device scope where it was made), found by its shared name like a
queue. ``put`` waits while the area holds ``capacity`` elements, or while the element
would take it past ``memory_limit`` bytes; ``get`` and ``peek`` wait for an element. The
waits are a step's, as a queue's (data_flow_ops.py): cancelled with the step, bounded by
its deadline.
"""

from __future__ import annotations

import collections
import threading

import numpy as np

from ..framework import dtypes as dtypes_lib
from ..framework import errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .control_flow_ops import no_op
from .op_util import make_op, make_tensor


class StagingAreaResource:
    """The elements of one area, in the order they were put, with their total size in bytes."""

    def __init__(self, name: str, component_types: list, capacity: int, memory_limit: int):
        self.name = name
        self.component_types = list(component_types)
        self.capacity = capacity
        self.memory_limit = memory_limit
        self.cond = threading.Condition()
        self.items: collections.deque = collections.deque()
        self.bytes = 0

    def check_matches(self, component_types, capacity: int, memory_limit: int) -> None:
        if list(component_types) != self.component_types or (capacity, memory_limit) != (self.capacity,
                                                                                          self.memory_limit):
            raise errors.InvalidArgumentError(
                None, None, f"Staging area '{self.name}' holds {[d.name for d in self.component_types]} with "
                f"capacity {self.capacity} and memory limit {self.memory_limit}; an op asked for "
                f"{[d.name for d in component_types]}, {capacity} and {memory_limit}")

    def _has_room(self, size: int) -> bool:
        if self.capacity and len(self.items) >= self.capacity:
            return False
        return not self.memory_limit or self.bytes + size <= self.memory_limit

    def put(self, ctx, element: tuple) -> None:
        size = sum(a.nbytes for a in element)
        if self.memory_limit and size > self.memory_limit:
            raise errors.ResourceExhaustedError(
                None, None, f"Attempted to insert tensors with combined size of {size} bytes into staging area "
                f"'{self.name}' with a memory limit of {self.memory_limit} bytes")
        with self.cond:
            ctx.wait_for(self.cond, lambda: self._has_room(size), f"room in staging area '{self.name}'")
            self.items.append(element)
            self.bytes += size
            self.cond.notify_all()

    def get(self, ctx) -> tuple:
        with self.cond:
            ctx.wait_for(self.cond, lambda: bool(self.items), f"an element of staging area '{self.name}'")
            element = self.items.popleft()
            self.bytes -= sum(a.nbytes for a in element)
            self.cond.notify_all()
            return element

    def peek(self, ctx, index: int) -> tuple:
        if index < 0:
            raise errors.InvalidArgumentError(None, None, f"Peek of staging area '{self.name}': the index must be "
                                              f"at least 0, got {index}")
        with self.cond:
            ctx.wait_for(self.cond, lambda: len(self.items) > index,
                         f"element {index} of staging area '{self.name}'")
            return self.items[index]

    def clear(self) -> None:
        with self.cond:
            self.items.clear()
            self.bytes = 0
            self.cond.notify_all()


def _area(ctx, *, dtypes, capacity, memory_limit, container, shared_name, **_) -> StagingAreaResource:
    name = shared_name or ctx.op_name
    area = ctx.resource_mgr.lookup_or_create(container, name,
                                             lambda: StagingAreaResource(name, dtypes, capacity, memory_limit))
    if not isinstance(area, StagingAreaResource):
        raise errors.InvalidArgumentError(None, None, f"Resource '{name}' on {ctx.device.name} is a "
                                          f"{type(area).__name__}, not a staging area")
    area.check_matches(dtypes, capacity, memory_limit)
    return area


def _no_outputs(op):
    return []


def _element_dtypes(op):
    return list(op._attr("dtypes"))


def _element_shapes(op):
    return [TensorShape(None)] * len(op._attr("dtypes"))


@register_op("Stage", shape=_no_outputs, stateful=True, blocking=True)
def _stage_kernel(ctx, *values, **attrs):
    area = _area(ctx, **attrs)
    element = []
    for i, (value, dtype) in enumerate(zip(values, area.component_types)):
        value = np.asarray(value)
        if value.dtype != dtype.as_numpy_dtype:
            raise errors.InvalidArgumentError(None, None, f"Stage into '{area.name}': component {i} should be "
                                              f"{dtype.name}, got {dtypes_lib.as_dtype(value.dtype).name}")
        element.append(np.array(value, copy=True))  # (the area's own: the step may reuse its buffers)
    area.put(ctx, tuple(element))


@register_op("Unstage", shape=_element_shapes, dtype=_element_dtypes, stateful=True, blocking=True,
             list_output=True)
def _unstage_kernel(ctx, **attrs):
    return _area(ctx, **attrs).get(ctx)


@register_op("StagePeek", shape=_element_shapes, dtype=_element_dtypes, stateful=True, blocking=True,
             list_output=True, may_alias=True)
def _stage_peek_kernel(ctx, index, **attrs):
    return _area(ctx, **attrs).peek(ctx, int(index))


@register_op("StageSize", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes_lib.int32, stateful=True)
def _stage_size_kernel(ctx, **attrs):
    area = _area(ctx, **attrs)
    with area.cond:
        return np.array(len(area.items), np.int32)


@register_op("StageClear", shape=_no_outputs, stateful=True)
def _stage_clear_kernel(ctx, **attrs):
    _area(ctx, **attrs).clear()


for _t in ("Stage", "Unstage", "StagePeek", "StageSize", "StageClear"):
    not_differentiable(_t)


class StagingArea:
    """``tf.contrib.staging.StagingArea(dtypes, shapes=None, names=None, shared_name=None,
    capacity=0, memory_limit=0)``: elements of ``len(dtypes)`` tensors, put and got in
    order. ``capacity`` (elements) and ``memory_limit`` (bytes) of 0 are unbounded. The
    area lives on the device of the scope it is made in; with ``names``, ``put`` takes
    and ``get`` returns a dict, otherwise lists."""

    def __init__(self, dtypes, shapes=None, names=None, shared_name=None, capacity=0, memory_limit=0):
        if shared_name is not None and not isinstance(shared_name, str):
            raise ValueError(f"shared_name must be a string, got {shared_name!r}")
        self._name = shared_name if shared_name is not None else ops.get_default_graph().unique_name(
            type(self).__name__)
        self._dtypes = [dtypes_lib.as_dtype(d) for d in dtypes]
        if shapes is not None and len(shapes) != len(self._dtypes):
            raise ValueError("StagingArea shapes must be the same length as dtypes")
        self._shapes = [TensorShape(s) for s in shapes] if shapes is not None else \
            [TensorShape(None) for _ in self._dtypes]
        if names is not None and len(names) != len(self._dtypes):
            raise ValueError("StagingArea names must be the same length as dtypes")
        self._names = list(names) if names is not None else None
        self._capacity = int(capacity)
        self._memory_limit = int(memory_limit)
        with ops.name_scope(f"{self._name}_root"):
            self._coloc_op = no_op()

    name = property(lambda self: self._name)
    dtypes = property(lambda self: list(self._dtypes))
    shapes = property(lambda self: list(self._shapes))
    names = property(lambda self: self._names)
    capacity = property(lambda self: self._capacity)
    memory_limit = property(lambda self: self._memory_limit)

    def _attrs(self) -> dict:
        return {"dtypes": list(self._dtypes), "capacity": self._capacity, "memory_limit": self._memory_limit,
                "container": "", "shared_name": self._name}

    def _components(self, values) -> list:
        """``values`` as the element's tensors, checked against the area's dtypes and shapes."""
        if isinstance(values, dict):
            if not self._names:
                raise ValueError("Staging areas must have names to enqueue a dictionary")
            if set(values) != set(self._names):
                raise ValueError(f"Keys in dictionary to put do not match names of staging area. Dictionary: "
                                 f"{sorted(values)} Area: {sorted(self._names)}")
            values = [values[n] for n in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a staging area with names")
            if not isinstance(values, (list, tuple)):
                values = [values]
        if len(values) != len(self._dtypes):
            raise ValueError(f"Staging area '{self._name}' holds {len(self._dtypes)} tensors an element, got "
                             f"{len(values)}")
        tensors = []
        for i, (value, dtype, shape) in enumerate(zip(values, self._dtypes, self._shapes)):
            t = ops.convert_to_tensor(value, name=f"component_{i}")
            if t.dtype.base_dtype != dtype:
                raise ValueError(f"Datatypes do not match. Received val.dtype {t.dtype.base_dtype.name} and dtype "
                                 f"{dtype.name} (component {i} of staging area '{self._name}')")
            t.shape.assert_is_compatible_with(shape)
            tensors.append(t)
        return tensors

    def put(self, values, name=None) -> ops.Operation:
        """The op that adds one element (it waits while the area is full)."""
        with ops.name_scope(name, f"{self._name}_put") as scope:
            tensors = self._components(values)
            with ops.colocate_with(self._coloc_op):
                return make_op("Stage", tensors, self._attrs(), scope)

    def _element(self, op: ops.Operation):
        outs = list(op.outputs)
        for t, shape in zip(outs, self._shapes):
            t.set_shape(shape)
        return dict(zip(self._names, outs)) if self._names else outs

    def get(self, name=None):
        """One element, taken out (the op waits while the area is empty)."""
        with ops.colocate_with(self._coloc_op):
            return self._element(make_op("Unstage", [], self._attrs(), name or f"{self._name}_get"))

    def peek(self, index, name=None):
        """The element at ``index`` (0 is the next ``get``'s), left in the area; waits until
        the area holds that many."""
        with ops.colocate_with(self._coloc_op):
            index = ops.convert_to_tensor(index, dtype=dtypes_lib.int32, name="index")
            return self._element(make_op("StagePeek", [index], self._attrs(), name or f"{self._name}_peek"))

    def size(self, name=None) -> ops.Tensor:
        """The number of elements in the area."""
        with ops.colocate_with(self._coloc_op):
            return make_tensor("StageSize", [], self._attrs(), name or f"{self._name}_size")

    def clear(self, name=None) -> ops.Operation:
        """The op that empties the area."""
        with ops.colocate_with(self._coloc_op):
            return make_op("StageClear", [], self._attrs(), name or f"{self._name}_clear")
