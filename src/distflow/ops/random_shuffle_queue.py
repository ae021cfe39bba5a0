"""``tf.RandomShuffleQueue``: a queue that hands out its elements in a random order.

It keeps at least ``min_after_dequeue`` elements while open (so that a dequeue draws
from a well-mixed buffer), and gives out what is left once it is closed.
"""

from __future__ import annotations

import numpy as np

from ..framework import errors
from ..framework.random_seed import get_seed
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .data_flow_ops import QueueBase, FIFOQueueResource, handle_dtype, queue_spec
from .op_util import make_tensor


class _RandomShuffleQueue(FIFOQueueResource):
    def __init__(self, name, component_types, shapes, capacity, min_after_dequeue, seed, seed2):
        super().__init__(name, component_types, shapes, capacity)
        self.items = []  # random access: an element is taken by swapping it with the last
        self.min_after_dequeue = min_after_dequeue
        entropy = None if seed == 0 and seed2 == 0 else [seed, seed2]
        self.rng = np.random.default_rng(entropy)

    def dequeue(self, ctx, n: int, up_to: bool = False) -> list[tuple]:
        with self.cond:
            ctx.wait_for(self.cond, lambda: len(self.items) >= n + self.min_after_dequeue or self.closed,
                         f"{n} element(s) of queue '{self.name}' (which keeps {self.min_after_dequeue})")
            if len(self.items) < n:
                if not up_to or not self.items:
                    raise errors.OutOfRangeError(None, None, f"RandomShuffleQueue '{self.name}' is closed and has "
                                                             f"insufficient elements (requested {n}, current size "
                                                             f"{len(self.items)})")
                n = len(self.items)
            out = []
            for _ in range(n):
                i = int(self.rng.integers(len(self.items)))
                self.items[i], self.items[-1] = self.items[-1], self.items[i]
                out.append(self.items.pop())
            self.cond.notify_all()
            return out


@register_op("RandomShuffleQueueV2", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
@register_op("RandomShuffleQueue", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)  # (GraphDefs of older distflow)
def _random_shuffle_queue_kernel(ctx, *, component_types, shapes, capacity, min_after_dequeue, seed, seed2,
                                 container, shared_name):
    name = shared_name or ctx.op_name
    queue = ctx.resource_mgr.lookup_or_create(container, name, lambda: _RandomShuffleQueue(
        name, component_types, shapes, capacity, min_after_dequeue, seed, seed2))
    if not isinstance(queue, _RandomShuffleQueue):
        raise errors.InvalidArgumentError(None, None, f"Resource '{name}' on {ctx.device.name} is a "
                                                      f"{type(queue).__name__}, not a RandomShuffleQueue")
    queue.check_matches(component_types, shapes, capacity)
    return queue


not_differentiable("RandomShuffleQueue")
not_differentiable("RandomShuffleQueueV2")


class RandomShuffleQueue(QueueBase):
    """``tf.RandomShuffleQueue(capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None, ...)``."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,  # noqa: A002
                 shared_name=None, name="random_shuffle_queue"):
        dtypes_, shapes_, names = queue_spec("RandomShuffleQueue", dtypes, shapes, names)
        if min_after_dequeue < 0 or (capacity >= 0 and min_after_dequeue >= capacity):
            raise ValueError(f"min_after_dequeue ({min_after_dequeue}) must be in [0, capacity ({capacity}))")
        seed, seed2 = get_seed(seed)
        attrs = {"component_types": dtypes_, "capacity": int(capacity), "min_after_dequeue": int(min_after_dequeue),
                 "seed": seed or 0, "seed2": seed2 or 0, "container": "", "shared_name": shared_name or "",
                 "shapes": shapes_ if all(s.is_fully_defined() for s in shapes_) else []}
        ref = make_tensor("RandomShuffleQueueV2", [], attrs, name)
        super().__init__(dtypes_, shapes_, names, ref)
