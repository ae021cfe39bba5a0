"""Nested structures of tuples, lists, dicts and namedtuples, flattened and rebuilt.

Dicts flatten in sorted key order, as in TensorFlow; anything else is a leaf.
"""

from __future__ import annotations


def is_nested(structure) -> bool:
    return isinstance(structure, (list, tuple, dict))


is_sequence = is_nested


def _children(structure):
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure)]
    return list(structure)


def flatten(structure, expand_composites=False) -> list:
    """The leaves of ``structure``, depth first."""
    if not is_nested(structure):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def _rebuild(structure, children):
    if isinstance(structure, dict):
        return type(structure)(zip(sorted(structure), children))
    if hasattr(structure, "_fields"):  # a namedtuple
        return type(structure)(*children)
    return type(structure)(children)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``flat_sequence`` arranged like ``structure`` (ValueError if the counts differ)."""
    flat = list(flat_sequence)
    expected = len(flatten(structure))
    if len(flat) != expected:
        raise ValueError(f"Could not pack sequence. Structure had {expected} elements, but flat_sequence had "
                         f"{len(flat)} elements.")
    it = iter(flat)

    def build(s):
        if not is_nested(s):
            return next(it)
        return _rebuild(s, [build(c) for c in _children(s)])

    return build(structure)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False) -> None:
    """ValueError (or TypeError for different sequence types) unless both have the same nesting."""
    if is_nested(nest1) != is_nested(nest2):
        raise ValueError(f"The two structures don't have the same nested structure: {nest1!r} and {nest2!r}")
    if not is_nested(nest1):
        return
    if check_types and type(nest1) is not type(nest2):
        raise TypeError(f"The two structures don't have the same sequence type: {type(nest1)} and {type(nest2)}")
    if isinstance(nest1, dict) and sorted(nest1) != sorted(nest2):
        raise ValueError(f"The two dictionaries don't have the same set of keys: {sorted(nest1)} and {sorted(nest2)}")
    c1, c2 = _children(nest1), _children(nest2)
    if len(c1) != len(c2):
        raise ValueError(f"The two structures don't have the same number of elements: {nest1!r} and {nest2!r}")
    for a, b in zip(c1, c2):
        assert_same_structure(a, b, check_types)


def map_structure(func, *structures, **kwargs):
    """``func`` applied to the corresponding leaves of ``structures``, in the first one's shape."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    for other in structures[1:]:
        assert_same_structure(structures[0], other, check_types)
    flat = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flat)])

