"""The structure of a dataset's elements: a tensor, or tuples and dicts of them.

A :class:`Spec` is that structure with a (dtype, static shape) at each leaf. Elements
travel through a pipeline flat (a tuple of arrays, dict keys in sorted order, as
TensorFlow flattens them) and are packed back into the structure by ``get_next()``.
"""

from __future__ import annotations

from ..framework import dtypes
from ..framework import ops
from ..framework.tensor_shape import TensorShape, as_shape


class _Leaf:
    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype = dtypes.as_dtype(dtype).base_dtype
        self.shape = as_shape(shape)


def _flatten(tree) -> list:
    if isinstance(tree, dict):
        return [x for k in sorted(tree) for x in _flatten(tree[k])]
    if isinstance(tree, tuple):
        return [x for item in tree for x in _flatten(item)]
    return [tree]


def _map(tree, fn):
    if isinstance(tree, dict):
        return {k: _map(v, fn) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(_map(v, fn) for v in tree)
    return fn(tree)


def _pack(tree, flat: list):
    it = iter(flat)

    def take(_leaf):
        return next(it)

    return _map(tree, take)


class Spec:
    """A structure of (dtype, shape) leaves."""

    def __init__(self, tree):
        self._tree = tree

    @staticmethod
    def tensor(dtype, shape) -> "Spec":
        return Spec(_Leaf(dtype, shape))

    @staticmethod
    def from_types(output_types, output_shapes=None) -> "Spec":
        """From ``output_types`` (a dtype or a structure of them) and matching ``output_shapes``."""
        types = _as_tuples(output_types)
        if output_shapes is None:
            shapes = _map(types, lambda _t: TensorShape(None))
        else:
            shapes = _as_tuples(output_shapes, shapes=True)
        flat_types, flat_shapes = _flatten(types), _flatten(shapes)
        if len(flat_types) != len(flat_shapes):
            raise ValueError(f"output_shapes {output_shapes} do not match the structure of output_types "
                             f"{output_types}")
        leaves = [_Leaf(t, s) for t, s in zip(flat_types, flat_shapes)]
        return Spec(_pack(types, leaves))

    @staticmethod
    def zipped(packing, specs: list) -> "Spec":
        return Spec(_pack(packing, [s._tree for s in specs]))

    # --- views -----------------------------------------------------------------------

    def leaves(self) -> list:
        return _flatten(self._tree)

    def flat_types(self) -> list:
        return [leaf.dtype for leaf in self.leaves()]

    def flat_shapes(self) -> list:
        return [leaf.shape for leaf in self.leaves()]

    def types(self):
        return _map(self._tree, lambda leaf: leaf.dtype)

    def shapes(self):
        return _map(self._tree, lambda leaf: leaf.shape)

    def classes(self):
        return _map(self._tree, lambda leaf: ops.Tensor)

    def is_tuple(self) -> bool:
        return isinstance(self._tree, tuple)

    def pack(self, flat: list):
        return _pack(self._tree, list(flat))

    def flatten_value(self, value) -> list:
        """A generator's element (a structure like this one) as a flat list; lists count as tuples."""
        value = _lists_to_tuples_where(self._tree, value)
        flat = _flatten(value)
        if len(flat) != len(self.leaves()):
            raise ValueError(f"`generator` yielded an element that does not match the expected structure "
                             f"{self.types()}: {value!r}")
        return flat

    # --- derived specs ---------------------------------------------------------------

    def sliced(self) -> "Spec":
        return Spec(_map(self._tree, lambda leaf: _Leaf(leaf.dtype, leaf.shape[1:] if leaf.shape.ndims
                                                         else TensorShape(None))))

    def batched(self, rows) -> "Spec":
        return Spec(_map(self._tree, lambda leaf: _Leaf(
            leaf.dtype, TensorShape([rows]).concatenate(leaf.shape) if leaf.shape.ndims is not None
            else TensorShape(None))))

    def most_specific_compatible(self, other: "Spec") -> "Spec":
        leaves = [_Leaf(a.dtype, _merge(a.shape, b.shape)) for a, b in zip(self.leaves(), other.leaves())]
        return Spec(_pack(self._tree, leaves))

    def is_compatible_with(self, other: "Spec") -> bool:
        mine, theirs = self.leaves(), other.leaves()
        return len(mine) == len(theirs) and all(
            a.dtype == b.dtype and a.shape.is_compatible_with(b.shape) for a, b in zip(mine, theirs))

    def __repr__(self):
        return f"Spec({self.types()}, {self.shapes()})"


def _merge(a: TensorShape, b: TensorShape) -> TensorShape:
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.as_list(), b.as_list())])


def _as_tuples(tree, shapes: bool = False):
    """Lists as tuples, except a shape written as a list of dims."""
    if isinstance(tree, dict):
        return {k: _as_tuples(v, shapes) for k, v in tree.items()}
    if shapes and _is_shape(tree):
        return as_shape(tree)
    if isinstance(tree, (tuple, list)):
        return tuple(_as_tuples(v, shapes) for v in tree)
    return tree


def _is_shape(value) -> bool:
    if isinstance(value, TensorShape) or value is None:
        return True
    return isinstance(value, (list, tuple)) and all(d is None or isinstance(d, int) for d in value)


def _lists_to_tuples_where(spec_tree, value):
    if isinstance(spec_tree, tuple) and isinstance(value, (list, tuple)):
        return tuple(_lists_to_tuples_where(s, v) for s, v in zip(spec_tree, value))
    if isinstance(spec_tree, dict) and isinstance(value, dict):
        return {k: _lists_to_tuples_where(spec_tree[k], value[k]) for k in spec_tree}
    return value


def flatten_like(spec: "Spec", value, what: str) -> list:
    """``value`` (a structure shaped as ``spec``'s elements: tuples or lists, dicts; a leaf is a
    shape written as a list of dims, or a scalar) as a flat list in the elements' order."""
    def walk(tree, v):
        if isinstance(tree, dict):
            if not isinstance(v, dict) or set(v) != set(tree):
                raise ValueError(f"{what} {value!r} does not match the structure of the elements {spec.types()}")
            return [x for k in sorted(tree) for x in walk(tree[k], v[k])]
        if isinstance(tree, tuple):
            if not isinstance(v, (tuple, list)) or len(v) != len(tree):
                raise ValueError(f"{what} {value!r} does not match the structure of the elements {spec.types()}")
            return [x for t, item in zip(tree, v) for x in walk(t, item)]
        return [v]

    return walk(spec._tree, value)


def to_tensors(value, graph_tensors_only: bool = False):
    """A structure of values as (flat list of Tensors, Spec); lists are values (converted), not structure."""
    if isinstance(value, dict):
        keys = sorted(value)
        parts = [to_tensors(value[k]) for k in keys]
        flat = [t for p, _ in parts for t in p]
        return flat, Spec({k: s._tree for k, (_, s) in zip(keys, parts)})
    if isinstance(value, tuple):
        parts = [to_tensors(v) for v in value]
        flat = [t for p, _ in parts for t in p]
        return flat, Spec(tuple(s._tree for _, s in parts))
    t = ops.convert_to_tensor(value)
    return [t], Spec.tensor(t.dtype, t.shape)


def flatten_datasets(datasets):
    """A structure of Datasets as (flat list, the structure with placeholders for packing)."""
    if isinstance(datasets, list):
        datasets = tuple(datasets)
    flat = _flatten(datasets)
    return flat, _map(datasets, lambda _d: None)
