"""``tf.sets``: set operations along the last dimension (ops/set_ops.py), under TF 1.x's
names and the shorter ones TF 1.13 added."""

from ._namespace import missing
from .ops.set_ops import set_difference, set_intersection, set_size, set_union  # noqa: F401

difference, intersection, size, union = set_difference, set_intersection, set_size, set_union

__getattr__ = missing("tf.sets")
