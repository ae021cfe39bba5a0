"""``tf.PriorityQueue``: a queue that hands out its elements lowest priority first.

Each element's first component is its priority, an int64 scalar, followed by the
components of ``types``; a dequeue gives the priority back as the first component.
Elements of equal priority leave in the order they came.
"""

from __future__ import annotations

import heapq
import itertools

from ..framework import dtypes, errors
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .data_flow_ops import FIFOQueueResource, QueueBase, _is_shape_list, handle_dtype, queue_resource, queue_spec
from .op_util import make_tensor


class _PriorityQueue(FIFOQueueResource):
    def __init__(self, name, component_types, shapes, capacity):
        super().__init__(name, component_types, shapes, capacity)
        self.items = []  # a heap of (priority, arrival, element)
        self._arrivals = itertools.count()

    def _put(self, element: tuple) -> None:
        heapq.heappush(self.items, (int(element[0]), next(self._arrivals), element))

    def dequeue(self, ctx, n: int, up_to: bool = False) -> list[tuple]:
        with self.cond:
            ctx.wait_for(self.cond, lambda: len(self.items) >= n or self.closed,
                         f"{n} element(s) of queue '{self.name}'")
            if len(self.items) < n:
                if not up_to or not self.items:
                    raise errors.OutOfRangeError(None, None, f"PriorityQueue '{self.name}' is closed and has "
                                                             f"insufficient elements (requested {n}, current size "
                                                             f"{len(self.items)})")
                n = len(self.items)
            out = [heapq.heappop(self.items)[2] for _ in range(n)]
            self.cond.notify_all()
            return out


@register_op("PriorityQueueV2", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
def _priority_queue_kernel(ctx, *, component_types, shapes, capacity, container, shared_name):
    # (as TensorFlow's op, the attributes leave out the priority, the first component)
    component_types, shapes = [dtypes.int64, *component_types], [TensorShape([]), *shapes] if shapes else []
    return queue_resource(ctx, _PriorityQueue, "a PriorityQueue", component_types, shapes, capacity, container,
                          shared_name)


not_differentiable("PriorityQueueV2")


class PriorityQueue(QueueBase):
    """``tf.PriorityQueue(capacity, types, shapes=None, names=None, shared_name=None, ...)``:
    elements are ``(priority, *components of types)``, dequeued lowest priority first."""

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"):
        types = list(types) if isinstance(types, (list, tuple)) else [types]
        if shapes is not None:
            shapes = list(shapes) if _is_shape_list(shapes) else [shapes]
            if len(shapes) != len(types):
                raise ValueError(f"PriorityQueue: {len(types)} types but {len(shapes)} shapes")
        dtypes_, shapes_, names = queue_spec("PriorityQueue", [dtypes.int64, *types],
                                             None if shapes is None else [[], *shapes],
                                             None if names is None else ["priority", *names])
        if shapes is None:
            shapes_[0] = TensorShape([])  # (the priority's shape is always known)
        attrs = {"component_types": dtypes_[1:], "capacity": int(capacity), "container": "",
                 "shared_name": shared_name or "",
                 "shapes": shapes_[1:] if all(s.is_fully_defined() for s in shapes_) else []}
        super().__init__(dtypes_, shapes_, names, make_tensor("PriorityQueueV2", [], attrs, name))
