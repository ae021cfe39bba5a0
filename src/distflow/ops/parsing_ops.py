"""``tf.parse_example`` / ``tf.parse_single_example``: tf.train.Example records to tensors.

``tf.FixedLenFeature(shape, dtype, default_value)`` gives a dense tensor; a feature missing
from a record takes its default (InvalidArgumentError without one). ``tf.VarLenFeature(dtype)``
gives a SparseTensor of [records, longest list] holding each record's values in order.
"""

from __future__ import annotations

import collections
import gzip
import zlib

import numpy as np
from google.protobuf import json_format
from google.protobuf.message import DecodeError

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape, as_shape
from ..protos import distflow_pb2 as pb
from . import example_layout
from .array_ops import constant, reshape, squeeze
from .op_util import make_op, make_tensor
from .slicing_ops import slice as slice_
from .sparse_ops import SparseTensor, sparse_merge

FixedLenFeature = collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])
FixedLenFeature.__new__.__defaults__ = (None,)
FixedLenSequenceFeature = collections.namedtuple("FixedLenSequenceFeature",
                                                 ["shape", "dtype", "allow_missing", "default_value"])
FixedLenSequenceFeature.__new__.__defaults__ = (False, None)
VarLenFeature = collections.namedtuple("VarLenFeature", ["dtype"])
SparseFeature = collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])
SparseFeature.__new__.__defaults__ = (False,)


_KINDS = {dtypes.string: "bytes_list", dtypes.float32: "float_list", dtypes.int64: "int64_list"}
_FLOATS = np.dtype("<f4")


def _values(feature, dtype, key) -> np.ndarray:
    """A feature's values as a NumPy array of ``dtype``'s (bytes in an object array)."""
    kind = feature.WhichOneof("kind")
    want = _KINDS[dtype]
    if kind is None:
        return np.empty(0, dtype=_np_dtype(dtype))
    if kind != want:
        raise errors.InvalidArgumentError(None, None, f"Feature '{key}' has {kind}, but the parser expects "
                                                      f"{want} ({dtype.name})")
    if kind == "float_list":
        # (its floats as one packed field, serialized by the protobuf library: read in place,
        # not one Python float at a time; 784 floats 0.5 ms -> 5 us)
        packed = feature.float_list.SerializeToString()
        if not packed:
            return np.empty(0, np.float32)
        size, start = 0, 1
        shift = 0
        while True:
            byte = packed[start]
            size |= (byte & 0x7F) << shift
            start += 1
            shift += 7
            if not byte & 0x80:
                break
        return np.frombuffer(packed, dtype=_FLOATS, count=size // 4, offset=start).astype(np.float32)
    values = getattr(feature, kind).value
    if kind == "int64_list":
        return np.array(values, dtype=np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


@register_op("ParseExample", list_output=True,
             shape=lambda op: [TensorShape([None]).concatenate(s) for s in op._attr("dense_shapes")] + [
                 TensorShape(s) for _ in op._attr("sparse_keys") for s in ([None, 2], [None], [2])],
             dtype=lambda op: list(op._attr("Tdense")) + [
                 d for t in op._attr("Tsparse") for d in (dtypes.int64, t, dtypes.int64)])
def _parse_example_kernel(xp, serialized, *, dense_keys, Tdense, dense_shapes, defaults, has_default,  # noqa: N803
                          sparse_keys, Tsparse):  # noqa: N803
    records = np.asarray(serialized, dtype=object).reshape(-1)
    variable = [s.ndims is not None and s.ndims > 0 and s.dims[0].value is None for s in dense_shapes]
    if len(records) >= _ONE_LAYOUT_MIN and not any(variable):
        parsed = _parse_one_layout(records, dense_keys, Tdense, dense_shapes, defaults, has_default, sparse_keys,
                                   Tsparse)
        if parsed is not None:
            return parsed
    # (each dense feature's rows filled in place in an array for the whole batch; a feature of
    # variable length (a FixedLenSequenceFeature, its first dimension unknown) is gathered
    # first, then padded to the longest)
    dense = [[] if v else np.empty([len(records)] + s.as_list(), dtype=_np_dtype(d))
             for s, d, v in zip(dense_shapes, Tdense, variable)]
    # (a fixed-shape feature's rows are written straight into its batch's array, one row of
    # `size` values a record, its default's where the record lacks it)
    sizes = [None if v else (s.num_elements() if s.ndims else 1) for s, v in zip(dense_shapes, variable)]
    rows_of = [None if v else d.reshape(len(records), n) for d, v, n in zip(dense, variable, sizes)]
    kinds = [_KINDS[t] for t in Tdense]
    sparse = [([], 0) for _ in sparse_keys]
    example = pb.Example()
    for r, record in enumerate(records):
        try:
            example.ParseFromString(record if isinstance(record, bytes) else str(record).encode())
        except DecodeError:
            raise errors.InvalidArgumentError(None, None, f"Could not parse example input, value: record {r}") \
                from None
        features = example.features.feature
        for i, (key, dtype) in enumerate(zip(sparse_keys, Tsparse)):
            values = _values(features[key], dtype, key) if key in features else np.empty(0, _np_dtype(dtype))
            rows, widest = sparse[i]
            rows.append(values)
            sparse[i] = (rows, max(widest, len(values)))
        for i, (key, dtype, shape) in enumerate(zip(dense_keys, Tdense, dense_shapes)):
            if variable[i]:
                dense[i].append(_sequence_feature(features, key, dtype, shape))
                continue
            feature = features[key] if key in features else None
            kind = None if feature is None else feature.WhichOneof("kind")  # (a Feature of no kind is missing)
            if kind is None:
                if not has_default[i]:
                    raise errors.InvalidArgumentError(None, None, f"Feature: {key} (data type: {dtype.name}) is "
                                                                  "required but could not be found.")
                rows_of[i][r] = np.asarray(defaults[i], dtype=_np_dtype(dtype)).reshape(-1)  # (one value: repeated)
                continue
            values = getattr(feature, kind).value if kind == kinds[i] and kind != "float_list" else \
                _values(feature, dtype, key)  # (a list of another kind: its error; floats: read packed)
            if len(values) != sizes[i]:
                raise errors.InvalidArgumentError(None, None, f"Key: {key}.  Can't parse serialized Example: "
                                                              f"expected {sizes[i]} values, got {len(values)}")
            if sizes[i] == 1:
                rows_of[i][r, 0] = values[0]  # (a string goes in as bytes, not as a sequence of them)
            else:
                rows_of[i][r] = values
    for i in range(len(dense)):
        if variable[i]:
            dense[i] = _padded(dense[i], dense_shapes[i], Tdense[i], defaults[i], len(records))
    for (rows, widest), dtype in zip(sparse, Tsparse):
        counts = np.array([len(v) for v in rows], dtype=np.int64)
        indices = np.stack([np.repeat(np.arange(len(rows), dtype=np.int64), counts),
                            np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts,
                                                                                      counts)], axis=1)
        flat = np.concatenate(rows) if rows else np.empty(0, _np_dtype(dtype))
        dense += [indices.reshape(-1, 2), flat.astype(_np_dtype(dtype)), np.array([len(records), widest], np.int64)]
    return tuple(dense)


_ONE_LAYOUT_MIN = 8  # records: walking one record's layout (20-25 us) costs what parsing 4-5 of them does


def _parse_one_layout(records, dense_keys, Tdense, dense_shapes, defaults, has_default, sparse_keys,  # noqa: N803
                      Tsparse) -> tuple | None:  # noqa: N803
    """The kernel's outputs for records that share one wire layout (example_layout.py), each
    feature read from all of them at once; None where they do not, or where a feature is not
    as asked (missing without a default, of another kind or size): the record-by-record
    parse then gives the values, or the error that names the record."""
    found = example_layout.layout(records.tolist())
    if found is None:
        return None
    layout, batch = found
    n = len(records)
    out = []
    for key, dtype, shape, default, given in zip(dense_keys, Tdense, dense_shapes, defaults, has_default):
        feature = layout.features.get(key)
        size = shape.num_elements() if shape.ndims else 1
        if feature is None or feature.kind is None:
            value = np.asarray(default, dtype=_np_dtype(dtype)).reshape(-1)
            if not given or value.size not in (1, size):
                return None
            row = np.broadcast_to(value, [size]).reshape(shape.as_list())
            out.append(np.broadcast_to(row, [n] + shape.as_list()).copy())
        elif feature.kind != _KINDS[dtype] or len(feature.offsets) != size:
            return None
        else:
            out.append(layout.values(key, batch, records).reshape([n] + shape.as_list()))
    for key, dtype in zip(sparse_keys, Tsparse):
        feature = layout.features.get(key)
        if feature is None or feature.kind is None:
            values = np.empty((n, 0), _np_dtype(dtype))
        elif feature.kind != _KINDS[dtype]:
            return None
        else:
            values = layout.values(key, batch, records)
        count = values.shape[1]
        indices = np.stack([np.repeat(np.arange(n, dtype=np.int64), count),
                            np.tile(np.arange(count, dtype=np.int64), n)], axis=1)
        out += [indices, values.reshape(-1), np.array([n, count], np.int64)]
    return tuple(out)


def _sequence_feature(features, key, dtype, shape) -> np.ndarray:
    """A FixedLenSequenceFeature's values in one record: [n] + its shape (n = 0 where missing)."""
    inner = shape[1:]
    size = inner.num_elements() if inner.ndims else 1
    values = _values(features[key], dtype, key) if key in features else np.empty(0, _np_dtype(dtype))
    if size == 0 or len(values) % size:
        raise errors.InvalidArgumentError(None, None, f"Key: {key}.  Number of values: {len(values)} is not a "
                                          f"multiple of the feature's inner size {size} (shape {inner})")
    return values.reshape([len(values) // size] + inner.as_list())


def _padded(rows, shape, dtype, default, batch) -> np.ndarray:
    """[batch, longest] + the inner shape, each record's rows then the padding value (the
    feature's default, or zero)."""
    longest = max((len(r) for r in rows), default=0)
    fill = np.asarray(default).reshape(-1)[0] if np.size(default) else ("" if dtype == dtypes.string else 0)
    out = np.full([batch, longest] + shape[1:].as_list(), fill, dtype=_np_dtype(dtype))
    for r, row in enumerate(rows):
        out[r, :len(row)] = row
    return out


def _np_dtype(dtype):
    return object if dtype == dtypes.string else dtype.as_numpy_dtype


def _v2_shapes(op):
    n = op._attr("num_sparse")
    records = op.inputs[0].shape  # (a vector of records of known length: that many rows, as TF's)
    batch = records[0].value if records.ndims == 1 else None
    return ([TensorShape([None, 2])] * n + [TensorShape([None])] * n + [TensorShape([2])] * n
            + [TensorShape([batch]).concatenate(s) for s in op._attr("dense_shapes")])


def _v2_dtypes(op):
    n = op._attr("num_sparse")
    return [dtypes.int64] * n + list(op._attr("sparse_types")) + [dtypes.int64] * n + list(op._attr("Tdense"))


@register_op("ParseExampleV2", list_output=True, shape=_v2_shapes, dtype=_v2_dtypes)
def _parse_example_v2_kernel(xp, serialized, names, sparse_keys, dense_keys, ragged_keys, *dense_defaults,  # noqa: N803
                             Tdense, num_sparse, sparse_types, dense_shapes, ragged_value_types=(),
                             ragged_split_types=()):
    """TensorFlow's form (what ``tf.parse_example`` builds, and what TensorFlow's graphs hold):
    the keys and defaults as inputs (an empty default: the feature is required), and the
    outputs every sparse feature's indices, then their values, then their shapes, then the
    dense values."""
    if np.asarray(ragged_keys).size:
        raise errors.UnimplementedError(None, None, "ParseExampleV2: ragged features "
                                        f"{[_text(k) for k in np.asarray(ragged_keys).reshape(-1)]} (distflow parses "
                                        "dense and sparse ones)")
    sparse = [_text(k) for k in np.asarray(sparse_keys).reshape(-1)]
    dense = [_text(k) for k in np.asarray(dense_keys).reshape(-1)]
    if len(sparse) != num_sparse or len(dense) != len(Tdense):
        raise errors.InvalidArgumentError(None, None, f"ParseExampleV2: {len(sparse)} sparse and {len(dense)} dense "
                                          f"keys for {num_sparse} and {len(Tdense)} features")
    out = _parse_example_kernel(xp, serialized, dense_keys=dense, Tdense=Tdense, dense_shapes=dense_shapes,
                                defaults=list(dense_defaults), has_default=[np.size(d) > 0 for d in dense_defaults],
                                sparse_keys=sparse, Tsparse=sparse_types)
    values, triples = list(out[:len(dense)]), out[len(dense):]
    return tuple([triples[3 * i + part] for part in range(3) for i in range(num_sparse)] + values)


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _dense_feature(features, key, dtype, shape, default, has_default: bool, where: str, kind: str) -> np.ndarray:
    """A FixedLenFeature's value: the record's (of exactly the shape's size), else (missing, or
    a Feature with no list set) the default, else InvalidArgumentError (``where``/``kind``
    name it as TensorFlow does)."""
    size = shape.num_elements() if shape.ndims else 1
    if key in features and features[key].WhichOneof("kind") is not None:  # (a Feature of no kind is missing)
        values = _values(features[key], dtype, key)
        if len(values) != size:
            raise errors.InvalidArgumentError(None, None, f"{where}: expected {size} values, got {len(values)}")
    elif has_default:
        values = np.asarray(default, dtype=_np_dtype(dtype)).reshape(-1)
        values = values if values.size == size else np.repeat(values, size)
    else:
        raise errors.InvalidArgumentError(None, None, f"{kind}: {key} (data type: {dtype.name}) is required but "
                                                      "could not be found.")
    return values.reshape(shape.as_list())


not_differentiable("ParseExample")
not_differentiable("ParseExampleV2")


def _raw_features(features: dict) -> dict:
    """``features`` with each SparseFeature replaced by VarLenFeatures of its index and value
    keys, which are parsed and then merged (as TF parses a SparseFeature)."""
    raw: dict = {}

    def add(key, spec):
        if key in raw and raw[key] != spec:
            raise ValueError(f"Feature '{key}' is asked for as {raw[key]} and as {spec}")
        raw[key] = spec

    for key, spec in features.items():
        if isinstance(spec, SparseFeature):
            for index_key in ([spec.index_key] if isinstance(spec.index_key, str) else spec.index_key):
                add(index_key, VarLenFeature(dtypes.int64))
            add(spec.value_key, VarLenFeature(dtypes.as_dtype(spec.dtype)))
        else:
            add(key, spec)
    return raw


def parse_example(serialized, features, name=None, example_names=None):
    """A dict of tensors, one row per record of the 1-D string tensor ``serialized``: dense for
    each FixedLenFeature, a SparseTensor for each VarLenFeature and SparseFeature."""
    parsed = _parse_raw(serialized, _raw_features(features), name)
    for key, spec in features.items():
        if isinstance(spec, SparseFeature):
            several = not isinstance(spec.index_key, str)
            ids = [parsed[k] for k in spec.index_key] if several else parsed[spec.index_key]
            parsed[key] = sparse_merge(ids, parsed[spec.value_key], list(spec.size) if several else spec.size,
                                       already_sorted=spec.already_sorted)
    return {key: parsed[key] for key in features}


def _parse_raw(serialized, features: dict, name):
    serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string)
    keys = sorted(features)
    dense_keys, tdense, shapes, defaults, has_default = [], [], [], [], []
    sparse_keys, tsparse = [], []
    for key in keys:
        spec = features[key]
        if isinstance(spec, FixedLenSequenceFeature):
            if not spec.allow_missing:
                raise ValueError(f"Feature '{key}': a FixedLenSequenceFeature in an Example needs allow_missing=True")
        elif not isinstance(spec, (FixedLenFeature, VarLenFeature)):
            raise NotImplementedError(f"Feature '{key}': FixedLenFeature, FixedLenSequenceFeature, VarLenFeature "
                                      f"and SparseFeature are supported by distflow, got {type(spec).__name__}")
        dtype = dtypes.as_dtype(spec.dtype)
        if dtype not in (dtypes.string, dtypes.float32, dtypes.int64):
            raise ValueError(f"Feature '{key}': dtype must be string, float32 or int64, got {dtype.name}")
        if isinstance(spec, VarLenFeature):
            sparse_keys.append(key)
            tsparse.append(dtype)
            continue
        if spec.shape is None or not as_shape(spec.shape).is_fully_defined():
            raise ValueError(f"Missing shape for feature '{key}': a FixedLenFeature needs a fully defined shape, "
                             f"got {spec.shape}")
        dense_keys.append(key)
        tdense.append(dtype)
        sequence = isinstance(spec, FixedLenSequenceFeature)  # (its first dimension: as long as each record's)
        shapes.append(TensorShape([None]).concatenate(as_shape(spec.shape)) if sequence else as_shape(spec.shape))
        has_default.append(spec.default_value is not None)
        defaults.append(spec.default_value if isinstance(spec.default_value, ops.Tensor) else
                        np.asarray(spec.default_value if spec.default_value is not None else 0,
                                   dtype=object if dtype == dtypes.string else dtype.as_numpy_dtype))
    def strings(values):
        return constant(np.array([v.encode() for v in values], dtype=object).reshape(-1), dtypes.string)
    # (TensorFlow's ParseExampleV2, as TF 1.15's parse_example builds it: TensorFlow imports it)
    def default_input(key, value, given, shape, dtype):
        if isinstance(value, ops.Tensor):  # (a default known when run)
            return value if not shape.is_fully_defined() else reshape(value, shape.as_list())
        if not given:
            return constant(np.zeros(0, value.dtype), dtype)
        if shape.is_fully_defined() and value.size != shape.num_elements():
            raise ValueError(f"Feature {key!r}: its default_value has {value.size} elements, its shape {shape} "
                             f"{shape.num_elements()}")
        return constant(value if not shape.is_fully_defined() else np.reshape(value, shape.as_list()), dtype)

    default_inputs = [default_input(k, d, h, s, t)
                      for k, d, h, s, t in zip(dense_keys, defaults, has_default, shapes, tdense)]
    with ops.name_scope(name or "ParseExample"):
        op = make_op("ParseExampleV2", [serialized, strings([]), strings(sparse_keys), strings(dense_keys),
                                        strings([]), *default_inputs],
                     {"Tdense": tdense, "num_sparse": len(sparse_keys), "sparse_types": tsparse,
                      "ragged_value_types": [], "ragged_split_types": [], "dense_shapes": shapes}, "ParseExampleV2")
    n = len(sparse_keys)
    parsed = dict(zip(dense_keys, op.outputs[3 * n:]))
    for i, key in enumerate(sparse_keys):
        parsed[key] = SparseTensor(op.outputs[i], op.outputs[n + i], op.outputs[2 * n + i])
    return parsed


def parse_single_example(serialized, features, name=None, example_names=None):
    """``parse_example`` of one record: each feature without the leading row dimension."""
    serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string)
    parsed = parse_example(reshape(serialized, [1]), features, name)
    return {key: SparseTensor(slice_(value.indices, [0, 1], [-1, 1]), value.values, slice_(value.dense_shape, [1], [1]))
            if isinstance(value, SparseTensor) else squeeze(value, [0]) for key, value in parsed.items()}


# ---------------------------------------------------------------------------
# tf.train.SequenceExample records


def _sparse_parts(rows: list, dtype) -> list:
    """A SparseTensor's (indices, values, dense_shape) from ``rows``, each a list of values."""
    indices = [[r, k] for r, row in enumerate(rows) for k in range(len(row))]
    return [np.array(indices, np.int64).reshape(-1, 2), np.array([v for row in rows for v in row], _np_dtype(dtype)),
            np.array([len(rows), max((len(row) for row in rows), default=0)], np.int64)]


def _sequence_shape(op):
    shapes = [TensorShape(s) for s in op._attr("context_dense_shapes")]
    shapes += [TensorShape(s) for _ in op._attr("context_sparse_keys") for s in ([None, 1], [None], [1])]
    shapes += [TensorShape([None]).concatenate(s) for s in op._attr("feature_list_dense_shapes")]
    shapes += [TensorShape(s) for _ in op._attr("feature_list_sparse_keys") for s in ([None, 2], [None], [2])]
    return shapes


def _batched_sequence_shape(op):
    """ParseSequenceExample's outputs: each of ParseSingleSequenceExample's with the batch
    first (the sparse ones a rank more), then the dense feature lists' lengths."""
    shapes = [TensorShape([None]).concatenate(s) for s in op._attr("context_dense_shapes")]
    shapes += [TensorShape(s) for _ in op._attr("context_sparse_keys") for s in ([None, 2], [None], [2])]
    shapes += [TensorShape([None, None]).concatenate(s) for s in op._attr("feature_list_dense_shapes")]
    shapes += [TensorShape(s) for _ in op._attr("feature_list_sparse_keys") for s in ([None, 3], [None], [3])]
    return shapes + [TensorShape([None]) for _ in op._attr("feature_list_dense_keys")]


def _sequence_dtypes(op):
    out = list(op._attr("context_dense_types"))
    out += [d for t in op._attr("context_sparse_types") for d in (dtypes.int64, t, dtypes.int64)]
    out += list(op._attr("feature_list_dense_types"))
    out += [d for t in op._attr("feature_list_sparse_types") for d in (dtypes.int64, t, dtypes.int64)]
    return out


@register_op("ParseSingleSequenceExample", list_output=True, shape=_sequence_shape, dtype=_sequence_dtypes)
def _parse_sequence_example_kernel(xp, serialized, *, context_dense_keys, context_dense_types, context_dense_shapes,
                                   context_defaults, context_has_default, context_sparse_keys, context_sparse_types,
                                   feature_list_dense_keys, feature_list_dense_types, feature_list_dense_shapes,
                                   feature_list_allow_missing, feature_list_sparse_keys, feature_list_sparse_types):
    record = np.asarray(serialized, dtype=object).reshape(-1)
    if record.size != 1:
        raise errors.InvalidArgumentError(None, None, f"ParseSingleSequenceExample takes one record, got "
                                                      f"{record.size}")
    record = record[0]
    example = pb.SequenceExample()
    try:
        example.ParseFromString(record if isinstance(record, bytes) else str(record).encode())
    except DecodeError:
        raise errors.InvalidArgumentError(None, None, "Could not parse example input: not a SequenceExample") \
            from None
    context, lists = example.context.feature, example.feature_lists.feature_list
    out = []
    for key, dtype, shape, default, has_default in zip(context_dense_keys, context_dense_types, context_dense_shapes,
                                                        context_defaults, context_has_default):
        out.append(_dense_feature(context, key, dtype, shape, default, has_default, f"Context feature: {key}",
                                  "Context feature"))
    for key, dtype in zip(context_sparse_keys, context_sparse_types):
        values = _values(context[key], dtype, key) if key in context else []
        indices, flat, _ = _sparse_parts([values], dtype)
        out += [indices[:, 1:], flat, np.array([len(values)], np.int64)]
    for key, dtype, shape, allow_missing in zip(feature_list_dense_keys, feature_list_dense_types,
                                                feature_list_dense_shapes, feature_list_allow_missing):
        if key not in lists and not allow_missing:
            raise errors.InvalidArgumentError(None, None, f"Feature list: {key} (data type: {dtype.name}) is "
                                                          "required but could not be found.")
        size = shape.num_elements() if shape.ndims else 1
        steps = []
        for t, feature in enumerate(lists[key].feature if key in lists else []):
            values = _values(feature, dtype, key)
            if len(values) != size:
                raise errors.InvalidArgumentError(None, None, f"Feature list: {key}, step {t}: expected {size} "
                                                              f"values, got {len(values)}")
            steps.append(values)
        out.append(np.array(steps, dtype=_np_dtype(dtype)).reshape([len(steps)] + shape.as_list()))
    for key, dtype in zip(feature_list_sparse_keys, feature_list_sparse_types):
        rows = [_values(feature, dtype, key) for feature in (lists[key].feature if key in lists else [])]
        out += _sparse_parts(rows, dtype)
    return tuple(out)


not_differentiable("ParseSingleSequenceExample")


def _batched_sparse(parts: list, rank: int) -> list:
    """One SparseTensor of a batch from each example's (indices, values, dense shape) triple:
    the example's number leads every index."""
    indices = [np.concatenate([np.full((len(i), 1), b, np.int64), i.reshape(len(i), rank)], 1)
               for b, (i, _, _) in enumerate(parts)]
    shape = np.max([s for _, _, s in parts], axis=0) if parts else np.zeros(rank, np.int64)
    return [np.concatenate(indices).reshape(-1, rank + 1).astype(np.int64),
            np.concatenate([v for _, v, _ in parts]) if parts else np.zeros(0),
            np.concatenate([[len(parts)], shape]).astype(np.int64)]


@register_op("ParseSequenceExample", list_output=True, shape=_batched_sequence_shape,
             dtype=lambda op: _sequence_dtypes(op) + [dtypes.int64] * len(op._attr("feature_list_dense_keys")))
def _parse_sequence_examples_kernel(xp, serialized, **attrs):
    records = np.asarray(serialized, dtype=object).reshape(-1)
    parsed = [_parse_sequence_example_kernel(xp, np.array([r], dtype=object), **attrs) for r in records]
    n_cd, n_cs = len(attrs["context_dense_keys"]), len(attrs["context_sparse_keys"])
    n_fd, n_fs = len(attrs["feature_list_dense_keys"]), len(attrs["feature_list_sparse_keys"])
    out, lengths = [], []
    for k in range(n_cd):
        out.append(np.stack([p[k] for p in parsed]) if parsed else
                   np.zeros([0] + attrs["context_dense_shapes"][k].as_list(), _np_dtype(attrs["context_dense_types"][k])))
    for k in range(n_cs):
        at = n_cd + 3 * k
        out += _batched_sparse([p[at:at + 3] for p in parsed], 1)
    for k in range(n_fd):  # (padded with zeros to the longest, as TF's)
        at = n_cd + 3 * n_cs + k
        steps = [p[at] for p in parsed]
        longest = max((len(s) for s in steps), default=0)
        shape = attrs["feature_list_dense_shapes"][k].as_list()
        padded = np.zeros([len(steps), longest] + shape, _np_dtype(attrs["feature_list_dense_types"][k]))
        for b, s in enumerate(steps):
            padded[b, :len(s)] = s
        out.append(padded)
        lengths.append(np.array([len(s) for s in steps], np.int64))
    for k in range(n_fs):
        at = n_cd + 3 * n_cs + n_fd + 3 * k
        out += _batched_sparse([p[at:at + 3] for p in parsed], 2)
    return tuple(out + lengths)


not_differentiable("ParseSequenceExample")


def _checked_dtype(key, spec):
    dtype = dtypes.as_dtype(spec.dtype)
    if dtype not in (dtypes.string, dtypes.float32, dtypes.int64):
        raise ValueError(f"Feature '{key}': dtype must be string, float32 or int64, got {dtype.name}")
    return dtype


def _sequence_attrs(context_features, sequence_features) -> dict:
    """The parsing ops' attributes for these features."""
    context_features, sequence_features = dict(context_features or {}), dict(sequence_features or {})
    attrs = {k: [] for k in ("context_dense_keys", "context_dense_types", "context_dense_shapes", "context_defaults",
                             "context_has_default", "context_sparse_keys", "context_sparse_types",
                             "feature_list_dense_keys", "feature_list_dense_types", "feature_list_dense_shapes",
                             "feature_list_allow_missing", "feature_list_sparse_keys", "feature_list_sparse_types")}

    def sparse(prefix: str, key: str, dtype) -> None:
        attrs[f"{prefix}_sparse_keys"].append(key)
        attrs[f"{prefix}_sparse_types"].append(dtype)

    for key in sorted(context_features):
        spec, dtype = context_features[key], _checked_dtype(key, context_features[key])
        if isinstance(spec, VarLenFeature):
            sparse("context", key, dtype)
        elif isinstance(spec, FixedLenFeature):
            attrs["context_dense_keys"].append(key)
            attrs["context_dense_types"].append(dtype)
            attrs["context_dense_shapes"].append(as_shape(spec.shape))
            attrs["context_has_default"].append(spec.default_value is not None)
            attrs["context_defaults"].append(np.asarray(spec.default_value if spec.default_value is not None else 0,
                                                        dtype=_np_dtype(dtype)))
        else:
            raise ValueError(f"Context feature '{key}': FixedLenFeature or VarLenFeature, got {type(spec).__name__}")
    for key in sorted(sequence_features):
        spec, dtype = sequence_features[key], _checked_dtype(key, sequence_features[key])
        if isinstance(spec, VarLenFeature):
            sparse("feature_list", key, dtype)
        elif isinstance(spec, FixedLenSequenceFeature):
            if spec.default_value is not None:
                raise ValueError(f"Sequence feature '{key}': a FixedLenSequenceFeature's default_value is not "
                                 "supported (a missing list is empty with allow_missing=True)")
            attrs["feature_list_dense_keys"].append(key)
            attrs["feature_list_dense_types"].append(dtype)
            attrs["feature_list_dense_shapes"].append(as_shape(spec.shape))
            attrs["feature_list_allow_missing"].append(bool(spec.allow_missing))
        else:
            raise ValueError(f"Sequence feature '{key}': FixedLenSequenceFeature or VarLenFeature, got "
                             f"{type(spec).__name__}")
    return attrs


def _parsed(op, attrs):
    """The op's outputs as (context, sequences) dicts; the outputs left over after them."""
    outputs = list(op.outputs)

    def take(dense_keys, sparse_keys):
        parsed = {}
        for key in dense_keys:
            parsed[key] = outputs.pop(0)
        for key in sparse_keys:
            parsed[key] = SparseTensor(*[outputs.pop(0) for _ in range(3)])
        return parsed

    context = take(attrs["context_dense_keys"], attrs["context_sparse_keys"])
    return context, take(attrs["feature_list_dense_keys"], attrs["feature_list_sparse_keys"]), outputs


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """One tf.train.SequenceExample record as ``(context, sequences)``, two dicts of tensors
    (``tf.parse_single_sequence_example``).

    ``context_features``: FixedLenFeature (a dense tensor; its default where the record lacks
    it) and VarLenFeature (a 1-D SparseTensor). ``sequence_features``:
    FixedLenSequenceFeature (a dense ``[steps] + shape`` tensor, empty for a missing list with
    ``allow_missing``) and VarLenFeature (a SparseTensor ``[steps, longest]``).
    """
    attrs = _sequence_attrs(context_features, sequence_features)
    serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string)
    op = make_op("ParseSingleSequenceExample", [serialized], attrs, name or "ParseSingleSequenceExample")
    context, sequences, _ = _parsed(op, attrs)
    return context, sequences


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None):
    """A batch of tf.train.SequenceExample records (a 1-D string tensor) as ``(context,
    sequences, lengths)``: each of parse_single_sequence_example's tensors with the batch
    first (dense feature lists padded with zeros to the longest; sparse ones a rank more),
    and for each dense feature list its length in every example."""
    attrs = _sequence_attrs(context_features, sequence_features)
    serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string)
    op = make_op("ParseSequenceExample", [serialized], attrs, name or "ParseSequenceExample")
    context, sequences, lengths = _parsed(op, attrs)
    return context, sequences, dict(zip(attrs["feature_list_dense_keys"], lengths))


# ---------------------------------------------------------------------------
# Decoding compressed strings and JSON examples


def _map_bytes(fn, data):
    flat = np.asarray(data, dtype=object)
    out = np.empty(flat.shape, dtype=object)
    for i, v in np.ndenumerate(flat):
        out[i] = fn(v if isinstance(v, bytes) else str(v).encode())
    return out


@register_op("DecodeCompressed", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.string)
def _decode_compressed_kernel(xp, data, *, compression_type):
    def decode(b: bytes) -> bytes:
        try:
            if compression_type == "ZLIB":
                return zlib.decompress(b)
            if compression_type == "GZIP":
                return gzip.decompress(b)
            return b
        except (zlib.error, OSError, EOFError) as e:
            raise errors.DataLossError(None, None, f"DecodeCompressed ({compression_type}): {e}") from None
    return _map_bytes(decode, data)


not_differentiable("DecodeCompressed")


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002
    """Each string decompressed: ``compression_type`` is "", "ZLIB" or "GZIP"."""
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise ValueError(f"compression_type must be '', 'ZLIB' or 'GZIP', got {compression_type!r}")
    return make_tensor("DecodeCompressed", [ops.convert_to_tensor(bytes, dtype=dtypes.string)],
                       {"compression_type": compression_type}, name or "DecodeCompressed")


@register_op("DecodeJSONExample", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.string)
def _decode_json_example_kernel(xp, json_examples):
    def decode(b: bytes) -> bytes:
        try:
            return json_format.Parse(b.decode(), pb.Example()).SerializeToString()
        except (json_format.ParseError, UnicodeDecodeError) as e:
            raise errors.InvalidArgumentError(None, None, f"Error while parsing JSON: {e}") from None
    return _map_bytes(decode, json_examples)


not_differentiable("DecodeJSONExample")


def decode_json_example(json_examples, name=None):
    """tf.train.Example messages written as JSON, converted to their binary serialization."""
    return make_tensor("DecodeJSONExample", [ops.convert_to_tensor(json_examples, dtype=dtypes.string)], None,
                       name or "DecodeJSONExample")
