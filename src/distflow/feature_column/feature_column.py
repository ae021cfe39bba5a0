"""Feature columns: how raw features (a dict of tensors) become a model's input.

*Dense* columns give a float tensor [batch, dimension]: ``numeric_column``,
``indicator_column`` (a one-hot or multi-hot of a categorical column),
``embedding_column`` (a trained embedding of one), and ``bucketized_column``.
*Categorical* columns give ids in [0, num_buckets) per example, shaped [batch] or
[batch, k] (k values an example; -1 marks none): ``categorical_column_with_vocabulary_list``,
``..._with_vocabulary_file``, ``..._with_identity``, ``..._with_hash_bucket`` (TF's
FarmHash fingerprint, so a string lands in the bucket TF puts it in) and
``bucketized_column``.

``input_layer`` concatenates dense columns, in the order of their names as TF does;
``linear_model`` gives logits as a weighted sum, a weight row per category or per dense
value. Variables are named as TF 1.x names them (``input_layer/<column>_embedding/
embedding_weights``, ``linear_model/<column>/weights``, ``linear_model/bias_weights``).
``weighted_categorical_column`` gives each id a weight, ``shared_embedding_columns`` one
table to several columns, and ``make_parse_example_spec`` the features ``parse_example``
should read for the columns. Features may be dense or SparseTensors (read as dense with
TF's ignored values, "" and -1, where an example has fewer values).
"""

from __future__ import annotations

import collections

import numpy as np

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..ops import array_ops, categorical_ops, hash_ops, init_ops, math_ops, reduction_ops, slicing_ops, unary_ops
from ..ops import variable_scope as vs
from ..ops.nn_impl import embedding_lookup
from ..ops.special_math_ops import div_no_nan
from ..ops.parsing_ops import FixedLenFeature, VarLenFeature
from ..ops.sparse_ops import SparseTensor, SparseTensorValue, sparse_tensor_to_dense


class _FeatureColumn:
    """What every column has: a name (its key, or a name built from its parts)."""

    @property
    def name(self) -> str:
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


class _DenseColumn(_FeatureColumn):
    def dense(self, features: dict, state: dict) -> ops.Tensor:
        """[batch, variable_shape] float tensor (``state``: variables made, by the caller's scope)."""
        raise NotImplementedError

    @property
    def dimension(self) -> int:
        raise NotImplementedError


class _CategoricalColumn(_FeatureColumn):
    def ids(self, features: dict) -> ops.Tensor:
        """int64 ids, [batch, k] (k >= 1); -1 where an example has no value."""
        raise NotImplementedError

    def id_weights(self, features: dict):
        """float weights of ``ids``, [batch, k], or None: each id counts once."""
        return None

    @property
    def num_buckets(self) -> int:
        raise NotImplementedError


class _KeyedColumn(_CategoricalColumn):
    """A categorical column of one raw feature, named for its key."""

    @property
    def name(self):
        return self.key


def _feature(features: dict, key: str) -> ops.Tensor:
    """The feature ``key``, dense: a SparseTensor (``parse_example``'s VarLenFeature) is filled
    with the values TF's columns ignore, "" for strings and -1 for integers."""
    if key not in features:
        raise ValueError(f"The feature '{key}' a feature column needs is not among the features "
                         f"{sorted(features)}")
    value = features[key]
    if isinstance(value, (SparseTensor, SparseTensorValue)):
        sparse = value if isinstance(value, SparseTensor) else SparseTensor.from_value(value)
        dtype = sparse.values.dtype.base_dtype
        fill = b"" if dtype == dtypes.string else (-1 if dtype.is_integer else 0.0)
        return sparse_tensor_to_dense(sparse, default_value=fill)
    return ops.convert_to_tensor(value)


def _as_2d(t: ops.Tensor) -> ops.Tensor:
    """[batch] -> [batch, 1]; [batch, ...] -> [batch, rest] (flattened)."""
    if t.shape.ndims == 1:
        return array_ops.expand_dims(t, 1)
    if t.shape.ndims == 2:
        return t
    rest = int(np.prod(t.shape.as_list()[1:]))
    return array_ops.reshape(t, [-1, rest])


class NumericColumn(_DenseColumn, collections.namedtuple(
        "NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):
    @property
    def name(self):
        return self.key

    @property
    def dimension(self):
        return int(np.prod(self.shape))

    def dense(self, features, state):
        value = math_ops.cast(_feature(features, self.key), dtypes.float32)
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        return array_ops.reshape(value, [-1, self.dimension])


def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32, normalizer_fn=None):
    shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
    if any(d < 1 for d in shape):
        raise ValueError(f"shape dimensions must be greater than 0, given: {shape}")
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise ValueError(f"dtype must be convertible to float, given {dtype.name} for key {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable, given: {normalizer_fn}")
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


class BucketizedColumn(_DenseColumn, _CategoricalColumn, collections.namedtuple(
        "BucketizedColumn", ["source_column", "boundaries"])):
    @property
    def name(self):
        return f"{self.source_column.name}_bucketized"

    @property
    def num_buckets(self):
        return (len(self.boundaries) + 1) * self.source_column.dimension

    @property
    def dimension(self):
        return self.num_buckets

    def _buckets(self, features):
        value = _as_2d(math_ops.cast(_feature(features, self.source_column.key), dtypes.float32))
        return categorical_ops.bucketize(value, self.boundaries)

    def ids(self, features):
        # (each source value's bucket, offset by its position, as TF's bucketized column)
        buckets = math_ops.cast(self._buckets(features), dtypes.int64)
        offsets = np.arange(self.source_column.dimension, dtype=np.int64) * (len(self.boundaries) + 1)
        return buckets + offsets

    def dense(self, features, state):
        one_hot = array_ops.one_hot(self._buckets(features), len(self.boundaries) + 1, dtype=dtypes.float32)
        return array_ops.reshape(one_hot, [-1, self.dimension])


def bucketized_column(source_column, boundaries):
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    boundaries = tuple(float(b) for b in boundaries)
    if not boundaries or list(boundaries) != sorted(set(boundaries)):
        raise ValueError(f"boundaries must be a sorted list, without duplicates. Given: {boundaries}")
    return BucketizedColumn(source_column, boundaries)


class VocabularyColumn(_KeyedColumn, collections.namedtuple(
        "VocabularyColumn", ["key", "vocabulary", "dtype", "default_value", "num_oov_buckets"])):
    @property
    def num_buckets(self):
        return len(self.vocabulary) + self.num_oov_buckets

    def ids(self, features):
        value = _as_2d(_feature(features, self.key))
        return categorical_ops.vocabulary_lookup(value, self.vocabulary, self.default_value, self.num_oov_buckets)


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0):
    vocabulary = tuple(vocabulary_list)
    if not vocabulary:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary)) != len(vocabulary):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    if num_oov_buckets and default_value != -1:
        raise ValueError(f"Can't specify both default_value and num_oov_buckets, column_name: {key}")
    if num_oov_buckets < 0:
        raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets}.")
    if dtype is None:
        dtype = dtypes.string if isinstance(vocabulary[0], (str, bytes)) else dtypes.int64
    return VocabularyColumn(key, vocabulary, dtypes.as_dtype(dtype), int(default_value), int(num_oov_buckets))


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0,
                                            default_value=None, dtype=dtypes.string):
    """A vocabulary read from a file, one entry a line (the first ``vocabulary_size`` lines)."""
    from ..platform import gfile  # noqa: PLC0415

    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    with gfile.GFile(vocabulary_file, "r") as f:
        lines = [line.rstrip("\n") for line in f]
    if vocabulary_size is not None:
        if vocabulary_size < 1 or vocabulary_size > len(lines):
            raise ValueError(f"Invalid vocabulary_size in {key}: {vocabulary_size} (the file has {len(lines)} lines)")
        lines = lines[:vocabulary_size]
    dtype = dtypes.as_dtype(dtype)
    vocabulary = tuple(lines if dtype == dtypes.string else [int(v) for v in lines])
    return categorical_column_with_vocabulary_list(key, vocabulary, dtype, -1 if default_value is None
                                                   else default_value, num_oov_buckets)


class IdentityColumn(_KeyedColumn, collections.namedtuple(
        "IdentityColumn", ["key", "number_buckets", "default_value"])):
    @property
    def num_buckets(self):
        return self.number_buckets

    def ids(self, features):
        value = math_ops.cast(_as_2d(_feature(features, self.key)), dtypes.int64)
        inside = math_ops.logical_and(value >= 0, value < self.number_buckets)
        default = -1 if self.default_value is None else self.default_value
        return math_ops.where(inside, value, array_ops.fill(array_ops.shape(value), np.int64(default)))


def categorical_column_with_identity(key, num_buckets, default_value=None):
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}")
    return IdentityColumn(key, int(num_buckets), default_value)


class HashedColumn(_KeyedColumn, collections.namedtuple(
        "HashedColumn", ["key", "hash_bucket_size", "dtype"])):
    @property
    def num_buckets(self):
        return self.hash_bucket_size

    def ids(self, features):
        value = _as_2d(_feature(features, self.key))
        if value.dtype != dtypes.string:
            from ..ops.string_ops import as_string  # noqa: PLC0415

            value = as_string(value)
        return hash_ops.string_to_hash_bucket_fast(value, self.hash_bucket_size)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}")
    return HashedColumn(key, int(hash_bucket_size), dtypes.as_dtype(dtype))


class IndicatorColumn(_DenseColumn, collections.namedtuple("IndicatorColumn", ["categorical_column"])):
    @property
    def name(self):
        return f"{self.categorical_column.name}_indicator"

    @property
    def dimension(self):
        return self.categorical_column.num_buckets

    def dense(self, features, state):
        ids = self.categorical_column.ids(features)  # [batch, k]; -1 one-hot is all zeros
        one_hot = array_ops.one_hot(ids, self.dimension, dtype=dtypes.float32)
        id_weights = self.categorical_column.id_weights(features)
        if id_weights is not None:  # (a weighted column's one-hot holds the weights, as TF's)
            one_hot = one_hot * array_ops.expand_dims(math_ops.cast(id_weights, dtypes.float32), -1)
        return reduction_ops.reduce_sum(one_hot, axis=1)


def indicator_column(categorical_column):
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: {categorical_column}")
    return IndicatorColumn(categorical_column)


class EmbeddingColumn(_DenseColumn, collections.namedtuple(
        "EmbeddingColumn", ["categorical_column", "embedding_dimension", "combiner", "initializer", "trainable"])):
    @property
    def name(self):
        return f"{self.categorical_column.name}_embedding"

    @property
    def dimension(self):
        return self.embedding_dimension

    def dense(self, features, state):
        ids = self.categorical_column.ids(features)
        with vs.variable_scope(self.name):
            weights = vs.get_variable(
                "embedding_weights", [self.categorical_column.num_buckets, self.embedding_dimension],
                initializer=self.initializer, trainable=self.trainable and state.get("trainable", True),
                collections=state.get("collections"))
        return _combined_rows(weights, ids, self.combiner, self.categorical_column.id_weights(features))


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of mean, sqrtn, sum, given {combiner!r}")
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified.")
    if ckpt_to_load_from is not None or tensor_name_in_ckpt is not None or max_norm is not None:
        from ..framework import errors  # noqa: PLC0415

        raise errors.UnimplementedError(None, None, "embedding_column: ckpt_to_load_from, tensor_name_in_ckpt and "
                                        "max_norm are not supported (use tf.train.init_from_checkpoint)")
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(mean=0.0, stddev=1.0 / np.sqrt(dimension))
    return EmbeddingColumn(categorical_column, int(dimension), combiner, initializer, trainable)


_HASH_KEY = 0xDECAFCAFFE  # (the seed TF's crossed columns default to)


class CrossedColumn(_CategoricalColumn, collections.namedtuple(
        "CrossedColumn", ["keys", "hash_bucket_size", "hash_key"])):
    @property
    def name(self):
        return "_X_".join(k if isinstance(k, str) else k.name for k in self.keys)

    @property
    def num_buckets(self):
        return self.hash_bucket_size

    def ids(self, features):
        # (TF's order: the leaf keys, a crossed key's own keys in its place; then the categorical
        # columns' ids, which SparseCross takes as sparse inputs, before the raw features, dense)
        leaves = _leaf_keys(self)
        parts = [k.ids(features) for k in leaves if not isinstance(k, str)]
        parts += [_as_2d(_feature(features, k)) for k in leaves if isinstance(k, str)]
        return categorical_ops.cross_hashed(parts, self.hash_bucket_size, self.hash_key)


def _leaf_keys(column) -> list:
    out = []
    for k in column.keys:
        out.extend(_leaf_keys(k) if isinstance(k, CrossedColumn) else [k])
    return out


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Every combination of the keys' values (raw string or int features, or categorical
    columns' ids), hashed into ``hash_bucket_size`` buckets as TF's SparseCross hashes them,
    so that every combination lands in the bucket it lands in with TensorFlow."""
    keys = tuple(keys)
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for k in keys:
        if not isinstance(k, (str, _CategoricalColumn)) or isinstance(k, HashedColumn):
            raise ValueError(f"Unsupported key type. All keys must be either string, or categorical column except "
                             f"HashedCategoricalColumn. Given: {k}")
    return CrossedColumn(keys, int(hash_bucket_size), _HASH_KEY if hash_key is None else int(hash_key))


def _combined_rows(weights, ids, combiner: str, id_weights=None):
    """The rows of ``weights`` that each example's ids ([batch, k], -1 for none) pick, each
    times its weight (1 without ``id_weights``), summed, divided by the sum of the weights
    ("mean") or by the root of the sum of their squares ("sqrtn"), as TF's
    embedding_lookup_sparse combines them."""
    present = math_ops.cast(ids >= 0, dtypes.float32)
    if id_weights is not None:
        present = present * math_ops.cast(id_weights, dtypes.float32)
    rows = embedding_lookup(weights, math_ops.maximum(ids, 0)) * array_ops.expand_dims(present, -1)
    total = reduction_ops.reduce_sum(rows, axis=1)
    if combiner == "sum":
        return total
    if combiner == "mean":
        norm = reduction_ops.reduce_sum(present, axis=1, keepdims=True)
    else:
        norm = unary_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(present), axis=1, keepdims=True))
    return div_no_nan(total, norm)


def _sorted(columns, kind, what):
    columns = list(columns) if isinstance(columns, (list, tuple)) else [columns]
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    for c in columns:
        if not isinstance(c, kind):
            raise ValueError(f"Items of feature_columns must be a {what}. Given (type {type(c).__name__}): {c}.")
    return sorted(columns, key=lambda c: c.name)


def input_layer(features, feature_columns, weight_collections=None, trainable=True, cols_to_vars=None):
    """The dense columns' values, each [batch, dimension], concatenated in name order."""
    state = {"trainable": trainable,
             "collections": None if weight_collections is None else
             list(weight_collections) + [GraphKeys.GLOBAL_VARIABLES]}
    with vs.variable_scope(None, default_name="input_layer"):
        return dense_values(features, feature_columns, state, cols_to_vars)


def dense_values(features, feature_columns, state, cols_to_vars=None, cols_to_output_tensors=None):
    """``input_layer``'s work in the current variable scope: each dense column's value,
    [batch, dimension], concatenated in name order (also Keras's DenseFeatures)."""
    columns = _sorted(feature_columns, _DenseColumn, "_DenseColumn (numeric, indicator, embedding, bucketized)")
    outputs = []
    for column in columns:
        with ops.name_scope(column.name):
            before = set(ops.get_collection(GraphKeys.GLOBAL_VARIABLES))
            outputs.append(column.dense(features, state))
            if cols_to_vars is not None:
                cols_to_vars[column] = [v for v in ops.get_collection(GraphKeys.GLOBAL_VARIABLES) if v not in before]
            if cols_to_output_tensors is not None:
                cols_to_output_tensors[column] = outputs[-1]
    return slicing_ops.concat(outputs, 1) if len(outputs) > 1 else outputs[0]


def linear_model(features, feature_columns, units=1, sparse_combiner="sum", weight_collections=None,
                 trainable=True, cols_to_vars=None):
    """Logits [batch, units]: for each column a weight matrix ([categories or dimension, units])
    applied to its ids (summed, or combined by ``sparse_combiner``) or values, plus a bias."""
    if sparse_combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"sparse_combiner must be one of sum, mean, sqrtn, given {sparse_combiner!r}")
    columns = _sorted(feature_columns, (_DenseColumn, _CategoricalColumn), "feature column")
    collections_ = None if weight_collections is None else list(weight_collections) + [GraphKeys.GLOBAL_VARIABLES]
    with vs.variable_scope(None, default_name="linear_model"):
        parts = []
        for column in columns:
            with vs.variable_scope(column.name):
                categorical = isinstance(column, _CategoricalColumn) and not isinstance(column, NumericColumn)
                rows = column.num_buckets if categorical else column.dimension
                weights = vs.get_variable("weights", [rows, units], initializer=init_ops.zeros_initializer(),
                                          trainable=trainable, collections=collections_)
                if cols_to_vars is not None:
                    cols_to_vars[column] = [weights]
                if categorical:
                    parts.append(_combined_rows(weights, column.ids(features), sparse_combiner,
                                                column.id_weights(features)))
                else:
                    parts.append(math_ops.matmul(column.dense(features, {"trainable": trainable,
                                                                         "collections": collections_}), weights))
        bias = vs.get_variable("bias_weights", [units], initializer=init_ops.zeros_initializer(), trainable=trainable,
                               collections=collections_)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        return math_ops.add_n(parts) + bias if len(parts) > 1 else parts[0] + bias


class WeightedColumn(_CategoricalColumn, collections.namedtuple(
        "WeightedColumn", ["categorical_column", "weight_feature_key", "dtype"])):
    """A categorical column whose ids each carry a weight, from the feature of that key."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def num_buckets(self):
        return self.categorical_column.num_buckets

    def ids(self, features):
        return self.categorical_column.ids(features)

    def id_weights(self, features):
        weights = _as_2d(math_ops.cast(_feature(features, self.weight_feature_key), dtypes.float32))
        return array_ops.broadcast_to(weights, array_ops.shape(self.ids(features)))


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """``categorical_column`` with a weight for each of its values: the feature
    ``weight_feature_key``, shaped as the column's raw feature (TF-IDF, counts)."""
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a CategoricalColumn, given {categorical_column}")
    return WeightedColumn(categorical_column, weight_feature_key, dtype)


class SharedEmbeddingColumn(_DenseColumn, collections.namedtuple(
        "SharedEmbeddingColumn", ["categorical_column", "embedding_dimension", "combiner", "initializer",
                                  "shared_embedding_collection_name", "trainable"])):
    """One of several columns that look their ids up in one embedding table."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def dimension(self):
        return self.embedding_dimension

    def dense(self, features, state):
        ids = self.categorical_column.ids(features)
        shared = ops.get_collection(self.shared_embedding_collection_name)
        if shared:
            weights = shared[0]
        else:  # (the first of the columns makes the table, under the caller's scope)
            with vs.variable_scope(self.shared_embedding_collection_name):
                weights = vs.get_variable(
                    "embedding_weights", [self.categorical_column.num_buckets, self.embedding_dimension],
                    initializer=self.initializer, trainable=self.trainable and state.get("trainable", True),
                    collections=state.get("collections"))
            ops.add_to_collection(self.shared_embedding_collection_name, weights)
        return _combined_rows(weights, ids, self.combiner, self.categorical_column.id_weights(features))


def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None, tensor_name_in_ckpt=None,
                             max_norm=None, trainable=True):
    """Embedding columns of ``categorical_columns`` (with the same number of buckets) that
    share one table, ``<names joined by _>_shared_embedding/embedding_weights``."""
    columns = list(categorical_columns)
    if not columns:
        raise ValueError("categorical_columns must not be empty.")
    for c in columns:
        if not isinstance(c, _CategoricalColumn):
            raise ValueError(f"All categorical_columns must be CategoricalColumn, given {c}")
    if len({c.num_buckets for c in columns}) > 1:
        raise ValueError(f"To use shared_embedding_column, all categorical_columns must have the same number of "
                         f"buckets, given {[c.num_buckets for c in columns]}")
    embedding_column(columns[0], dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt, max_norm,
                     trainable)  # (the same checks as one embedding column's)
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(mean=0.0, stddev=1.0 / np.sqrt(dimension))
    name = shared_embedding_collection_name or "_".join(sorted(c.name for c in columns)) + "_shared_embedding"
    return [SharedEmbeddingColumn(c, int(dimension), combiner, initializer, name, trainable) for c in columns]


def make_parse_example_spec(feature_columns) -> dict:
    """The ``parse_example`` features the columns read: FixedLenFeature for numeric
    columns, VarLenFeature for categorical ones (their weights too), as TF's."""
    spec: dict = {}

    def add(key, feature):
        if key in spec and spec[key] != feature:
            raise ValueError(f"Duplicate feature column key found for column: {key}. This may be due to the same "
                             f"key with different parsing configurations.")
        spec[key] = feature

    def visit(column):
        if isinstance(column, str):
            add(column, VarLenFeature(dtypes.string))
        elif isinstance(column, NumericColumn):
            add(column.key, FixedLenFeature(column.shape, column.dtype, column.default_value))
        elif isinstance(column, BucketizedColumn):
            visit(column.source_column)
        elif isinstance(column, VocabularyColumn):
            add(column.key, VarLenFeature(column.dtype))
        elif isinstance(column, IdentityColumn):
            add(column.key, VarLenFeature(dtypes.int64))
        elif isinstance(column, HashedColumn):
            add(column.key, VarLenFeature(column.dtype))
        elif isinstance(column, WeightedColumn):
            visit(column.categorical_column)
            add(column.weight_feature_key, VarLenFeature(column.dtype))
        elif isinstance(column, CrossedColumn):
            for key in column.keys:
                visit(key)
        elif isinstance(column, (IndicatorColumn, EmbeddingColumn, SharedEmbeddingColumn)):
            visit(column.categorical_column)
        else:
            raise ValueError(f"All feature_columns must be FeatureColumn instances. Given: {column}")

    for column in feature_columns:
        if isinstance(column, str):
            raise ValueError(f"All feature_columns must be FeatureColumn instances. Given: {column}")
        visit(column)
    return spec

