"""Turning raw feature values into category ids: ``Bucketize`` (TF's op, ``tf.math.bucketize``'s)
and a vocabulary lookup that feature columns use.

TensorFlow looks vocabularies up in a hash table resource made by ``tables_initializer``;
distflow's ``VocabularyLookup`` carries the vocabulary as an attribute and needs no
initializer. Ids are the same: a value's index in the vocabulary; a value outside it
gets ``vocab_size + Fingerprint64(value) % num_oov_buckets`` with OOV buckets (TF's
``string_to_hash_bucket_fast``, on the value's string form), else ``default_value``.
``SparseCross`` hashes crossed feature values (crossed_column, ``tf.sparse.cross_hashed``) into
buckets as TF's op does.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..framework import dtypes, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from . import math_ops
from .hash_ops import fingerprint64, fingerprint_cat64, fingerprint_cat64_array
from .op_util import make_op, make_tensor
from .sparse_ops import SparseTensor, convert_to_tensor_or_sparse_tensor


@register_op("Bucketize", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.int32)
def _bucketize_kernel(xp, x, *, boundaries):
    """The index of the bucket of each value: how many boundaries are <= it."""
    return np.searchsorted(np.asarray(boundaries, dtype=np.float64), np.asarray(x, dtype=np.float64),
                           side="right").astype(np.int32)


def bucketize(input, boundaries, name=None):  # noqa: A002
    boundaries = [float(b) for b in boundaries]
    if boundaries != sorted(boundaries):
        raise ValueError(f"bucketize: boundaries must be sorted, got {boundaries}")
    return make_tensor("Bucketize", [ops.convert_to_tensor(input)], {"boundaries": boundaries}, name or "Bucketize")


def _key(v) -> bytes:
    if isinstance(v, bytes):
        return v
    if isinstance(v, (np.integer, int)):
        return str(int(v)).encode()
    return str(v).encode()


_INDEXES: dict = {}  # id(an op's vocabulary) -> (that vocabulary, {key: its index})


def _index(vocabulary) -> dict:
    """{key: index} of ``vocabulary`` (an op's attr), made once per vocabulary object."""
    found = _INDEXES.get(id(vocabulary))
    if found is None or found[0] is not vocabulary:
        if len(_INDEXES) > 256:
            _INDEXES.clear()
        found = _INDEXES[id(vocabulary)] = (vocabulary, {_key(v): i for i, v in enumerate(vocabulary)})
    return found[1]


@register_op("VocabularyLookup", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.int64)
def _vocabulary_lookup_kernel(xp, x, *, vocabulary, default_value, num_oov_buckets):
    index, size = _index(vocabulary), len(vocabulary)

    def lookup(v):
        k = _key(v)
        found = index.get(k)
        if found is not None:
            return found
        return size + fingerprint64(k) % num_oov_buckets if num_oov_buckets else default_value

    x = np.asarray(x)
    if x.size > 64:  # (each distinct value looked up once: categorical features repeat theirs)
        try:
            distinct, where = np.unique(x.reshape(-1), return_inverse=True)
        except TypeError:  # (values that cannot be ordered: one by one)
            distinct = None
        if distinct is not None:
            found = np.fromiter(map(lookup, distinct), np.int64, len(distinct))
            return found[where.reshape(-1)].reshape(x.shape)
    return np.fromiter(map(lookup, x.reshape(-1)), np.int64, x.size).reshape(x.shape)


def _hashed_crosses(columns: list, num_buckets: int, hash_key: int) -> list:
    """Per example, the bucket of each combination of one value from each column (``columns``:
    per column, per example, its values), in TensorFlow's order and with its hashes."""
    rows = []
    for row in zip(*columns):
        crossed = []
        for combination in itertools.product(*[[_cross_hash(v) for v in values] for values in row]):
            h = hash_key
            for value_hash in combination:
                h = fingerprint_cat64(h, value_hash)
            crossed.append(h % num_buckets)
        rows.append(crossed)
    return rows


def _sparse_cross_shapes(op):
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]


@register_op("SparseCross", list_output=True, shape=_sparse_cross_shapes,
             dtype=lambda op: [dtypes.int64, op._attrs.get("out_type", dtypes.int64), dtypes.int64])
def _sparse_cross_kernel(xp, *inputs, N, hashed_output, num_buckets, hash_key, sparse_types=(),  # noqa: N803
                         dense_types=(), out_type=None, internal_type=None):
    """TensorFlow's cross of sparse tensors (``N`` of them: indices, then values, then shapes)
    and dense [batch, k] ones: hashed into ``num_buckets`` (what crossed_column builds in
    TensorFlow's graphs, and what distflow's SavedModels hold for its crosses), or, without
    ``hashed_output``, as strings joined by "_X_"."""
    indices, values, shapes, dense = inputs[:N], inputs[N:2 * N], inputs[2 * N:3 * N], inputs[3 * N:]
    batch = int(shapes[0][0]) if N else (len(dense[0]) if dense else 0)
    if hashed_output and batch and _one_value_a_row(indices, dense, batch):
        return _hashed_single_crosses(values, dense, batch, num_buckets, hash_key)
    columns = []
    for where, vals in zip(indices, values):
        rows = [[] for _ in range(batch)]
        for (r, _), v in zip(np.asarray(where).reshape(-1, 2), np.asarray(vals).reshape(-1)):
            rows[int(r)].append(v)
        columns.append(rows)
    columns += [[list(row) for row in np.asarray(d).reshape(batch, -1)] for d in dense]
    if hashed_output:
        crossed = _hashed_crosses(columns, num_buckets if num_buckets > 0 else (1 << 63) - 1, hash_key)  # (as TF)
        out_values = np.array([v for row in crossed for v in row], np.uint64).astype(np.int64)
    else:
        crossed = [[b"_X_".join(combination) for combination in itertools.product(*[[_key(v) for v in values]
                                                                                    for values in row])]
                   for row in zip(*columns)]
        out_values = np.array([v for row in crossed for v in row], object)
    out_indices = np.array([[r, j] for r, row in enumerate(crossed) for j in range(len(row))], np.int64).reshape(-1, 2)
    return out_indices, out_values, np.array([batch, max((len(r) for r in crossed), default=0)], np.int64)


def _one_value_a_row(indices, dense, batch: int) -> bool:
    """Whether each sparse input has exactly one value in each row, in row order, and each
    dense one is [batch, 1]: every example then has one combination."""
    for where in indices:
        where = np.asarray(where).reshape(-1, 2)
        if len(where) != batch or not np.array_equal(where[:, 0], np.arange(batch)):
            return False
    return all(np.asarray(d).reshape(batch, -1).shape[1] == 1 for d in dense)


def _hashes(values) -> np.ndarray:
    """``_cross_hash`` of each value, as uint64: integers as themselves, strings by their
    fingerprint (once per distinct value)."""
    values = np.asarray(values).reshape(-1)
    if values.dtype.kind in "iu":
        return values.astype(np.int64).view(np.uint64)
    distinct, where = np.unique(values, return_inverse=True)
    return np.array([_cross_hash(v) for v in distinct], np.uint64)[where.reshape(-1)]


def _hashed_single_crosses(values, dense, batch: int, num_buckets: int, hash_key: int):
    """SparseCross's hashed output where each example has one value of each input: the
    fingerprints folded for the whole batch at once (the same buckets as the general path)."""
    h = np.full(batch, hash_key & ((1 << 64) - 1), np.uint64)
    for column in list(values) + [np.asarray(d).reshape(batch) for d in dense]:
        h = fingerprint_cat64_array(h, _hashes(column))
    buckets = h % np.uint64(num_buckets if num_buckets > 0 else (1 << 63) - 1)
    indices = np.stack([np.arange(batch, dtype=np.int64), np.zeros(batch, np.int64)], 1)
    return indices, buckets.astype(np.int64), np.array([batch, 1], np.int64)


def _cross_hash(v) -> int:
    if isinstance(v, (np.integer, int)) and not isinstance(v, (bool, np.bool_)):
        return int(v) & ((1 << 64) - 1)
    return fingerprint64(_key(v))


def sparse_cross(inputs, name=None) -> SparseTensor:
    """``tf.sparse.cross``: per example, every combination of one value from each input
    (SparseTensors, or dense [batch, k] tensors whose every value counts), as the string of
    their values joined by "_X_" (integers in decimal), in TF's order."""
    return _sparse_cross(inputs, False, 0, 0, name, "sparse_cross")


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None) -> SparseTensor:
    """``tf.sparse.cross_hashed``: ``sparse_cross``'s combinations, hashed as TF's SparseCross
    hashes them (into ``num_buckets``; 0: modulo 2**63 - 1, as TF)."""
    return _sparse_cross(inputs, True, num_buckets, _HASH_KEY if hash_key is None else hash_key, name,
                         "sparse_cross_hashed")


def _sparse_cross(inputs, hashed: bool, num_buckets, hash_key, name, caller: str) -> SparseTensor:
    def int64(t):  # (TF's op crosses strings and int64s)
        if t.dtype.base_dtype == dtypes.string:
            return t
        if not t.dtype.is_integer:
            raise TypeError(f"{caller}: inputs must be strings or integers, got {t.dtype.name}")
        if isinstance(t, SparseTensor):
            return SparseTensor(t.indices, math_ops.cast(t.values, dtypes.int64), t.dense_shape)
        return math_ops.cast(t, dtypes.int64)

    inputs = [int64(convert_to_tensor_or_sparse_tensor(t)) for t in inputs]
    sparse = [t for t in inputs if isinstance(t, SparseTensor)]
    dense = [t for t in inputs if not isinstance(t, SparseTensor)]
    # (strings only: crossed as strings; with an integer among them, as int64 hashes, as TF's)
    internal = dtypes.string if not hashed or all(t.dtype.base_dtype == dtypes.string for t in inputs) \
        else dtypes.int64
    attrs = {"N": len(sparse), "hashed_output": hashed, "num_buckets": int(num_buckets), "hash_key": int(hash_key),
             "sparse_types": [t.dtype.base_dtype for t in sparse], "dense_types": [t.dtype.base_dtype for t in dense],
             "out_type": dtypes.int64 if hashed else dtypes.string, "internal_type": internal}
    indices, values, shape = make_op("SparseCross", [t.indices for t in sparse] + [t.values for t in sparse] +
                                     [t.dense_shape for t in sparse] + dense, attrs, name or "SparseCross").outputs
    return SparseTensor(indices, values, shape)


_HASH_KEY = 0xDECAFCAFFE  # (SparseCross's default key, FingerprintCat64's seed)


for _t in ("Bucketize", "VocabularyLookup", "SparseCross"):
    not_differentiable(_t)


def vocabulary_lookup(values, vocabulary, default_value=-1, num_oov_buckets=0, name=None):
    """Each value's index in ``vocabulary`` (see the module's notes for values outside it)."""
    values = ops.convert_to_tensor(values)
    vocab = [v.encode() if isinstance(v, str) else v for v in vocabulary]
    if values.dtype == dtypes.string:
        vocab = [v if isinstance(v, bytes) else str(v).encode() for v in vocab]
    else:
        vocab = [int(v) for v in vocab]
    if len(set(vocab)) != len(vocab):
        raise ValueError(f"vocabulary has duplicate entries: {vocabulary}")
    return make_tensor("VocabularyLookup", [values], {"vocabulary": vocab, "default_value": int(default_value),
                                                     "num_oov_buckets": int(num_oov_buckets)},
                       name or "VocabularyLookup")
