"""``tf.nest``: nested structures of tuples, lists, dicts and namedtuples, flattened and rebuilt."""

from ._namespace import missing
from .framework.nest import (assert_same_structure, flatten, is_nested, is_sequence, map_structure,  # noqa: F401
                             pack_sequence_as)

__getattr__ = missing("tf.nest")
