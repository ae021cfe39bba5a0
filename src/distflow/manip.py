"""``tf.manip``: the TF 1.x home of a few array manipulation ops."""

from ._namespace import missing
from .ops.array_ops import reshape, tile  # noqa: F401
from .ops.manip_ops import reverse, roll  # noqa: F401
from .ops.nd_ops import gather_nd, scatter_nd  # noqa: F401

__getattr__ = missing("tf.manip")
