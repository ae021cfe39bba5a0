"""The structure of a dataset's elements: a tensor or a SparseTensor, or tuples and dicts of them.

A :class:`Spec` is that structure with a (dtype, static shape) at each leaf. Elements
travel through a pipeline flat (a tuple of arrays, dict keys in sorted order, as
TensorFlow flattens them; a SparseTensor as three, its indices, values and dense shape)
and are packed back into the structure by ``get_next()``.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework import ops
from ..framework.tensor_shape import TensorShape, as_shape
from ..ops.sparse_ops import SparseTensor, SparseTensorValue


class _Leaf:
    __slots__ = ("dtype", "shape")
    sparse = False

    def __init__(self, dtype, shape):
        self.dtype = dtypes.as_dtype(dtype).base_dtype
        self.shape = as_shape(shape)

    def like(self, shape) -> "_Leaf":
        return type(self)(self.dtype, shape)

    def wire(self) -> list:
        return [self]


class _SparseLeaf(_Leaf):
    """A SparseTensor component: ``dtype`` its values', ``shape`` its dense shape's."""

    __slots__ = ()
    sparse = True

    def wire(self) -> list:
        """Its three flat tensors: indices [n, rank], values [n], dense shape [rank]."""
        rank = self.shape.ndims
        return [_Leaf(dtypes.int64, [None, rank]), _Leaf(self.dtype, [None]), _Leaf(dtypes.int64, [rank])]


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
        return _same_tuple(tree, [_map(v, fn) for v in tree])
    return fn(tree)


def _same_tuple(like: tuple, items: list) -> tuple:
    """``items`` as a tuple of ``like``'s kind (a namedtuple stays one)."""
    return type(like)(*items) if hasattr(like, "_fields") else tuple(items)


def _pack(tree, flat: list):
    it = iter(flat)

    def take(_leaf):
        return next(it)

    return _map(tree, take)


def _grouped(leaves: list, flat: list) -> list:
    """Flat values (three for a sparse leaf) as one value per leaf: a SparseTensor (of tensors)
    or a SparseTensorValue (of arrays) for a sparse one."""
    out, it = [], iter(flat)
    for leaf in leaves:
        if leaf.sparse:
            parts = (next(it), next(it), next(it))
            if any(isinstance(p, ops.Tensor) for p in parts):
                out.append(SparseTensor(*parts))
                out[-1]._static_shape = leaf.shape  # (an element's dense shape, as far as the dataset knows it)
            else:
                out.append(SparseTensorValue(*parts))
        else:
            out.append(next(it))
    return out


class Spec:
    """A structure of (dtype, shape) leaves."""

    def __init__(self, tree):
        self._tree = tree

    @staticmethod
    def tensor(dtype, shape) -> "Spec":
        return Spec(_Leaf(dtype, shape))

    @staticmethod
    def from_types(output_types, output_shapes=None, output_classes=None) -> "Spec":
        """From ``output_types`` (a dtype or a structure of them) and matching ``output_shapes``
        and ``output_classes`` (SparseTensor where a component is one)."""
        types = _as_tuples(output_types)
        if output_shapes is None:
            shapes = _map(types, lambda _t: TensorShape(None))
        else:
            shapes = _as_tuples(output_shapes, shapes=True)
        flat_types, flat_shapes = _flatten(types), _flatten(shapes)
        flat_classes = [ops.Tensor] * len(flat_types) if output_classes is None else _flatten(
            _as_tuples(output_classes))
        if not len(flat_types) == len(flat_shapes) == len(flat_classes):
            raise ValueError(f"output_shapes {output_shapes} and output_classes {output_classes} do not match the "
                             f"structure of output_types {output_types}")
        leaves = [(_SparseLeaf if c is SparseTensor else _Leaf)(t, s)
                  for t, s, c in zip(flat_types, flat_shapes, flat_classes)]
        return Spec(_pack(types, leaves))

    @staticmethod
    def zipped(packing, specs: list) -> "Spec":
        return Spec(_pack(packing, [s._tree for s in specs]))

    # --- views -----------------------------------------------------------------------

    def components(self) -> list:
        """The leaves, one per component (a SparseTensor is one)."""
        return _flatten(self._tree)

    def leaves(self) -> list:
        """The leaves of the flat tensors the elements travel as (a SparseTensor is three)."""
        return [w for leaf in self.components() for w in leaf.wire()]

    def has_sparse(self) -> bool:
        return any(leaf.sparse for leaf in self.components())

    def flat_types(self) -> list:
        return [leaf.dtype for leaf in self.leaves()]

    def flat_shapes(self) -> list:
        return [leaf.shape for leaf in self.leaves()]

    def types(self):
        return _map(self._tree, lambda leaf: leaf.dtype)

    def shapes(self):
        return _map(self._tree, lambda leaf: leaf.shape)

    def classes(self):
        return _map(self._tree, lambda leaf: SparseTensor if leaf.sparse else ops.Tensor)

    def is_tuple(self) -> bool:
        """Whether a function is given the element's components as its arguments (a tuple's,
        not a namedtuple's, as TensorFlow unpacks them)."""
        return type(self._tree) is tuple

    def pack(self, flat: list):
        """Flat tensors or arrays (three for a SparseTensor) as the structure of an element."""
        return _pack(self._tree, _grouped(self.components(), list(flat)))

    def grouped(self, flat) -> list:
        """A flat element as one value per component (a SparseTensorValue for a sparse one)."""
        return _grouped(self.components(), list(flat))

    def ungrouped(self, values) -> tuple:
        """One value per component back to the flat element."""
        out = []
        for leaf, value in zip(self.components(), values):
            out.extend((value.indices, value.values, value.dense_shape) if leaf.sparse else (value,))
        return tuple(out)

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
        return Spec(_map(self._tree, lambda leaf: leaf.like(leaf.shape[1:] if leaf.shape.ndims
                                                            else TensorShape(None))))

    def batched(self, rows) -> "Spec":
        return Spec(_map(self._tree, lambda leaf: leaf.like(
            TensorShape([rows]).concatenate(leaf.shape) if leaf.shape.ndims is not None else TensorShape(None))))

    def most_specific_compatible(self, other: "Spec") -> "Spec":
        leaves = [a.like(_merge(a.shape, b.shape)) for a, b in zip(self.components(), other.components())]
        return Spec(_pack(self._tree, leaves))

    def is_compatible_with(self, other: "Spec") -> bool:
        mine, theirs = self.components(), other.components()
        return len(mine) == len(theirs) and all(
            a.dtype == b.dtype and a.sparse == b.sparse and a.shape.is_compatible_with(b.shape)
            for a, b in zip(mine, theirs))

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
    if isinstance(value, (SparseTensor, SparseTensorValue)):  # (before tuples: a SparseTensorValue is one)
        sparse = value if isinstance(value, SparseTensor) else SparseTensor(*value)
        return [sparse.indices, sparse.values, sparse.dense_shape], Spec(_SparseLeaf(sparse.dtype, sparse.shape))
    if isinstance(value, dict):
        keys = sorted(value)
        parts = [to_tensors(value[k]) for k in keys]
        flat = [t for p, _ in parts for t in p]
        return flat, Spec({k: s._tree for k, (_, s) in zip(keys, parts)})
    if isinstance(value, tuple):
        parts = [to_tensors(v) for v in value]
        flat = [t for p, _ in parts for t in p]
        return flat, Spec(_same_tuple(value, [s._tree for _, s in parts]))
    t = ops.convert_to_tensor(value)
    return [t], Spec.tensor(t.dtype, t.shape)


# --- SparseTensor values: rows, batches ------------------------------------------------------


def sparse_rows(value: SparseTensorValue) -> list:
    """The rows of a sparse value (its first dimension), each a SparseTensorValue of the rest."""
    indices, values = np.asarray(value.indices, np.int64).reshape(-1, len(value.dense_shape)), np.asarray(value.values)
    shape = np.asarray(value.dense_shape, np.int64)
    if indices.shape[1] == 0:
        raise ValueError("a SparseTensor of rank 0 has no rows to slice")
    order = np.argsort(indices[:, 0], kind="stable")
    indices, values = indices[order], values[order]
    bounds = np.searchsorted(indices[:, 0], np.arange(int(shape[0]) + 1))
    return [SparseTensorValue(indices[a:b, 1:], values[a:b], shape[1:]) for a, b in zip(bounds[:-1], bounds[1:])]


def sparse_batch(parts: list, what: str) -> SparseTensorValue:
    """Sparse values of one rank as one, a new first dimension the batch's; each other dimension
    the largest of theirs (TensorFlow's batching of SparseTensors)."""
    ranks = {len(p.dense_shape) for p in parts}
    if len(ranks) > 1:
        raise ValueError(f"{what}: cannot batch SparseTensors of different ranks {sorted(ranks)}")
    rank = ranks.pop()
    indices = [np.concatenate([np.full((len(p.values), 1), i, np.int64),
                               np.asarray(p.indices, np.int64).reshape(-1, rank)], axis=1) for i, p in enumerate(parts)]
    shape = np.max([np.asarray(p.dense_shape, np.int64) for p in parts], axis=0) if rank else np.zeros(0, np.int64)
    return SparseTensorValue(np.concatenate(indices).reshape(-1, rank + 1), np.concatenate([np.asarray(p.values)
                                                                                             for p in parts]),
                             np.concatenate([[len(parts)], shape]).astype(np.int64))


def flatten_datasets(datasets):
    """A structure of Datasets as (flat list, the structure with placeholders for packing)."""
    if isinstance(datasets, list):
        datasets = tuple(datasets)
    flat = _flatten(datasets)
    return flat, _map(datasets, lambda _d: None)
