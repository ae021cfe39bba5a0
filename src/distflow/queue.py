"""``tf.queue``: the queue classes."""

from ._namespace import missing
from .ops.data_flow_ops import FIFOQueue, PaddingFIFOQueue, QueueBase  # noqa: F401
from .ops.priority_queue import PriorityQueue  # noqa: F401
from .ops.random_shuffle_queue import RandomShuffleQueue  # noqa: F401

__getattr__ = missing("tf.queue")
