"""Feature columns: how raw features (a dict of tensors) become a model's input.

*Dense* columns give a float tensor [batch] + ``_variable_shape``: ``numeric_column``,
``indicator_column`` (a one-hot or multi-hot of a categorical column), ``embedding_column``
(a trained embedding of one) and ``bucketized_column``. *Categorical* columns give a
SparseTensor of ids in [0, ``_num_buckets``) per example (its ``IdWeightPair``, with weights
for ``weighted_categorical_column``): ``categorical_column_with_vocabulary_list``,
``..._with_vocabulary_file``, ``..._with_identity``, ``..._with_hash_bucket`` (TF's FarmHash
fingerprint, so that a string lands in the bucket TF puts it in), ``crossed_column`` (TF's
SparseCross hash) and ``bucketized_column``.

The columns keep TF 1.x's protocol, so that a column written for TensorFlow (a subclass of
``_DenseColumn`` or ``_CategoricalColumn``) works here too: a ``_LazyBuilder`` holds the
features and each column's ``_transform_feature`` (built once, however many columns read it);
dense columns answer ``_get_dense_tensor`` and ``_variable_shape``, categorical ones
``_get_sparse_tensors`` and ``_num_buckets``, and every column ``_parse_example_spec``.

A dense raw feature becomes sparse as TF makes it: its "" (strings) or -1 (integers) cells are
no value. ``input_layer`` concatenates dense columns in the order of their names;
``linear_model`` gives logits as a weighted sum, a weight row per category or per dense value.
Variables are named as TF 1.x names them (``input_layer/<column>_embedding/embedding_weights``,
``linear_model/<column>/weights``, ``linear_model/bias_weights``).

Where distflow differs: a vocabulary is looked up by an op that carries it, so no
``tables_initializer`` is needed (running one does no harm); a vocabulary file is read when
the graph is built rather than when its table initializes.
"""

from __future__ import annotations

import collections
import collections.abc

import numpy as np

from ..framework import dtypes, ops, tensor_shape
from ..framework.ops import GraphKeys
from ..ops import (array_ops, categorical_ops, check_ops, hash_ops, init_ops, math_ops, nn_ops, reduction_ops,
                   segment_ops, slicing_ops)
from ..ops import variable_scope as vs
from ..ops.control_flow_v2 import cond
from ..ops.nd_ops import gather_nd
from ..ops.nn_impl import safe_embedding_lookup_sparse
from ..ops.parsing_ops import FixedLenFeature, VarLenFeature
from ..ops.sparse_ops import SparseTensor, convert_to_tensor_or_sparse_tensor, sparse_reshape, sparse_tensor_to_dense
from ..ops.string_ops import as_string
from ..ops.template import make_template
from ..ops.partitioned_variables import PartitionedVariable
from ..platform import gfile
from ..train.training_extras import init_from_checkpoint


class _FeatureColumn:
    """What every column has: a name, the raw features it parses (``_parse_example_spec``) and
    how it transforms them (``_transform_feature``, given a ``_LazyBuilder``)."""

    @property
    def name(self) -> str:
        raise NotImplementedError

    @property
    def _var_scope_name(self) -> str:
        """The variable scope of the column's variables (its name, unless shared)."""
        return self.name

    def _transform_feature(self, inputs):
        raise NotImplementedError

    @property
    def _parse_example_spec(self) -> dict:
        raise NotImplementedError


class _DenseColumn(_FeatureColumn):
    """A column that is a float tensor, [batch] + ``_variable_shape``."""

    @property
    def _variable_shape(self) -> tensor_shape.TensorShape:
        raise NotImplementedError

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        raise NotImplementedError


class _CategoricalColumn(_FeatureColumn):
    """A column that is ids: a SparseTensor [batch, values] of int ids in [0, ``_num_buckets``),
    and optionally their weights (a SparseTensor of the same indices)."""

    IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])

    @property
    def _num_buckets(self) -> int:
        raise NotImplementedError

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        raise NotImplementedError


class _LazyBuilder:
    """The features, and each column's transformation once made: a column that several others
    read (a bucketized column crossed and used alone) is transformed once.

    ``get(key)``: a string is a raw feature, as a Tensor or SparseTensor of rank >= 2 (a
    rank-1 feature is made [batch, 1]); a column is its ``_transform_feature``."""

    def __init__(self, features):
        self._features = dict(features)
        self._feature_tensors = {}

    def get(self, key):
        if key in self._feature_tensors:
            return self._feature_tensors[key]
        if key in self._features:
            self._feature_tensors[key] = self._raw_feature(key)
            return self._feature_tensors[key]
        if not isinstance(key, (str, _FeatureColumn)):
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Provided: {key}')
        if not isinstance(key, _FeatureColumn):
            raise ValueError(f"Feature {key} is not in features dictionary (it has {sorted(map(str, self._features))})")
        transformed = key._transform_feature(self)
        if transformed is None:
            raise ValueError(f"Column {key.name} is not supported.")
        self._feature_tensors[key] = transformed
        return transformed

    def _raw_feature(self, key):
        value = convert_to_tensor_or_sparse_tensor(self._features[key])

        def as_2d(t):
            if isinstance(t, SparseTensor):
                return sparse_reshape(t, array_ops.stack([t.dense_shape[0], -1]))
            return array_ops.expand_dims(t, -1)

        if isinstance(value, SparseTensor):
            rank = value.dense_shape.shape[0].value if value.dense_shape.shape.ndims == 1 else None
        else:
            rank = value.shape.ndims
        if rank == 0:
            raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {value}")
        if rank is not None:
            return as_2d(value) if rank == 1 else value
        actual = array_ops.size(value.dense_shape) if isinstance(value, SparseTensor) else array_ops.rank(value)
        with ops.control_dependencies([check_ops.assert_positive(
                actual, message=f"Feature (key: {key}) cannot have rank 0.")]):
            return cond(math_ops.equal(actual, 1), lambda: as_2d(value), lambda: value)


def _to_sparse_input(value, ignore_value=None) -> SparseTensor:
    """``value`` as a SparseTensor: a dense tensor without its cells equal to ``ignore_value``
    ("" for strings, -1 for integers, 0 for floats by default)."""
    value = convert_to_tensor_or_sparse_tensor(value)
    if isinstance(value, SparseTensor):
        return value
    with ops.name_scope(None, "to_sparse_input"):
        if ignore_value is None:
            ignore_value = "" if value.dtype == dtypes.string else (-1 if value.dtype.is_integer else 0)
        ignore = ops.convert_to_tensor(np.array(ignore_value, dtype=value.dtype.as_numpy_dtype)
                                       if value.dtype != dtypes.string else ignore_value, dtype=value.dtype)
        indices = math_ops.where(math_ops.not_equal(value, ignore), name="indices")
        return SparseTensor(indices, gather_nd(value, indices, name="values"),
                            array_ops.shape(value, out_type=dtypes.int64, name="dense_shape"))


def _transform_features(features, feature_columns) -> dict:
    """Each column's transformation (a Tensor or SparseTensor), by column."""
    feature_columns = _clean_feature_columns(feature_columns)
    outputs = {}
    with ops.name_scope(None, "transform_features"):
        builder = _LazyBuilder(features)
        for column in sorted(feature_columns, key=lambda c: c.name):
            with ops.name_scope(None, column.name):
                outputs[column] = builder.get(column)
    return outputs


def _clean_feature_columns(feature_columns) -> list:
    """``feature_columns`` as a list of columns with distinct names (a ValueError says what is not)."""
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    feature_columns = list(feature_columns)
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. Given (type {type(column)}): "
                             f"{column}.")
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    by_name = {}
    for column in feature_columns:
        if column.name in by_name:
            raise ValueError(f"Duplicate feature column name found for columns: {column} and {by_name[column.name]}. "
                             "This usually means that these columns refer to same base feature. Either one must be "
                             "discarded or a duplicated but renamed item must be inserted in features dict.")
        by_name[column.name] = column
    return feature_columns


def _weight_collections(weight_collections) -> list:
    collections_ = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in collections_:
            collections_.append(key)
    return collections_


def _check_static_batch_sizes(tensors, columns) -> None:
    expected, first = None, None
    for tensor, column in zip(tensors, columns):
        size = tensor.shape[0] if tensor.shape.ndims else tensor_shape.Dimension(None)
        if size.value is None:
            continue
        if expected is None:
            expected, first = size, column
        elif not expected.is_compatible_with(size):
            raise ValueError(f"Batch size (first dimension) of each feature must be same. Batch size of columns "
                             f"({first.name}, {column.name}): ({expected}, {size})")


def _flat(tensor, column):
    """[batch] + variable shape -> [batch, its number of elements]."""
    elements = column._variable_shape.num_elements()
    if tensor.shape.ndims == 2 and tensor.shape[1].value == elements:
        return tensor
    return array_ops.reshape(tensor, [-1, elements])


def _dense_features(builder, feature_columns, weight_collections, trainable, cols_to_vars=None,
                    cols_to_output_tensors=None):
    """``input_layer``'s work in the current variable scope (also Keras's DenseFeatures')."""
    feature_columns = _clean_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, _DenseColumn):
            raise ValueError(f"Items of feature_columns must be a _DenseColumn. You can wrap a categorical column with "
                             f"an embedding_column or indicator_column. Given: {column}")
    outputs, ordered = [], sorted(feature_columns, key=lambda c: c.name)
    for column in ordered:
        with vs.variable_scope(None, default_name=column._var_scope_name):
            outputs.append(_flat(column._get_dense_tensor(builder, weight_collections=weight_collections,
                                                          trainable=trainable), column))
            if cols_to_vars is not None:
                cols_to_vars[column] = ops.get_collection(GraphKeys.GLOBAL_VARIABLES,
                                                          scope=vs.get_variable_scope().name)
            if cols_to_output_tensors is not None:
                cols_to_output_tensors[column] = outputs[-1]
    _check_static_batch_sizes(outputs, ordered)
    return slicing_ops.concat(outputs, 1)


def input_layer(features, feature_columns, weight_collections=None, trainable=True, cols_to_vars=None):
    """The dense columns' values, each [batch, elements], concatenated in name order."""
    return _internal_input_layer(features, feature_columns, weight_collections, trainable, cols_to_vars)


def _internal_input_layer(features, feature_columns, weight_collections=None, trainable=True, cols_to_vars=None,
                          scope=None):
    with vs.variable_scope(scope, default_name="input_layer"):
        return _dense_features(_LazyBuilder(features), feature_columns, _weight_collections(weight_collections),
                               trainable, cols_to_vars)


class InputLayer:
    """``input_layer`` as an object whose calls share their variables."""

    def __init__(self, feature_columns, weight_collections=None, trainable=True, cols_to_vars=None):
        self._feature_columns = feature_columns
        self._weight_collections = weight_collections
        self._trainable = trainable
        self._template = make_template("feature_column_input_layer", _internal_input_layer, create_scope_now_=True)
        self._scope = self._template.variable_scope

    def __call__(self, features):
        return self._template(features=features, feature_columns=self._feature_columns,
                              weight_collections=self._weight_collections, trainable=self._trainable,
                              cols_to_vars=None, scope=self._scope)

    trainable_variables = trainable_weights = property(lambda self: self._template.trainable_variables)
    non_trainable_variables = non_trainable_weights = property(lambda self: self._template.non_trainable_variables)
    variables = weights = property(lambda self: self._template.variables)


def linear_model(features, feature_columns, units=1, sparse_combiner="sum", weight_collections=None,
                 trainable=True, cols_to_vars=None):
    """Logits [batch, units]: for each column a weight matrix ([categories or elements, units])
    applied to its ids (summed, or combined by ``sparse_combiner``) or values, plus a bias."""
    if sparse_combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"sparse_combiner must be one of sum, mean, sqrtn, given {sparse_combiner!r}")
    feature_columns = _clean_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, (_DenseColumn, _CategoricalColumn)):
            raise ValueError(f"Items of feature_columns must be either a _DenseColumn or _CategoricalColumn. Given: "
                             f"{column}")
    collections_ = _weight_collections(weight_collections)
    with vs.variable_scope(None, default_name="linear_model"):
        builder = _LazyBuilder(features)
        sums, ordered = [], sorted(feature_columns, key=lambda c: c.name)
        for column in ordered:
            with vs.variable_scope(None, default_name=column._var_scope_name):
                sums.append(_weighted_sum(column, builder, units, sparse_combiner, collections_, trainable))
                if cols_to_vars is not None:
                    cols_to_vars[column] = ops.get_collection(GraphKeys.GLOBAL_VARIABLES,
                                                              scope=vs.get_variable_scope().name)
        _check_static_batch_sizes(sums, ordered)
        no_bias = math_ops.add_n(sums, name="weighted_sum_no_bias")
        bias = vs.get_variable("bias_weights", [units], initializer=init_ops.zeros_initializer(), trainable=trainable,
                               collections=collections_)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = list(bias) if isinstance(bias, PartitionedVariable) else [bias]
        return nn_ops.bias_add(no_bias, bias, name="weighted_sum")


def _as_2d(sparse) -> SparseTensor:
    """A SparseTensor [batch, ...] as [batch, the rest]."""
    if sparse.dense_shape.shape.ndims == 1 and sparse.dense_shape.shape[0].value == 2:
        return sparse
    return sparse_reshape(sparse, array_ops.stack([sparse.dense_shape[0], -1]))


def _weighted_sum(column, builder, units, sparse_combiner, weight_collections, trainable):
    """One column's part of a linear model: its ids' weight rows, combined, or its values times
    a weight matrix."""
    if isinstance(column, _CategoricalColumn):
        pair = column._get_sparse_tensors(builder, weight_collections=weight_collections, trainable=trainable)
        ids, id_weights = _as_2d(pair.id_tensor), pair.weight_tensor and _as_2d(pair.weight_tensor)
        weights = vs.get_variable("weights", [column._num_buckets, units], initializer=init_ops.zeros_initializer(),
                                  trainable=trainable, collections=weight_collections)
        return safe_embedding_lookup_sparse(weights, ids, id_weights, combiner=sparse_combiner, name="weighted_sum")
    values = _flat(column._get_dense_tensor(builder, weight_collections=weight_collections, trainable=trainable),
                   column)
    weights = vs.get_variable("weights", [column._variable_shape.num_elements(), units],
                              initializer=init_ops.zeros_initializer(), trainable=trainable,
                              collections=weight_collections)
    return math_ops.matmul(values, weights, name="weighted_sum")


def make_parse_example_spec(feature_columns) -> dict:
    """The ``parse_example`` features the columns read: FixedLenFeature for numeric columns,
    VarLenFeature for categorical ones (their weights too), as TF's."""
    spec: dict = {}
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: {column}")
        for key, feature in column._parse_example_spec.items():
            if key in spec and spec[key] != feature:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. Given {feature} and "
                                 f"{spec[key]}")
        spec.update(column._parse_example_spec)
    return spec


# ---------------------------------------------------------------------------
# Numeric and bucketized columns


def _check_shape(shape, key) -> tuple:
    shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    for d in shape:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if d < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    return tuple(int(d) for d in shape)


def _filled(shape, value):
    return tuple(_filled(shape[1:], value) for _ in range(shape[0])) if shape else value


def _fits(value, shape) -> bool:
    if isinstance(value, (list, tuple)) != bool(shape):
        return False
    return not shape or (len(value) == shape[0] and all(_fits(v, shape[1:]) for v in value))


def _as_tuple(value):
    return tuple(_as_tuple(v) for v in value) if isinstance(value, (list, tuple)) else value


def _check_default_value(shape, default_value, dtype, key):
    """``default_value`` as a nested tuple of ``shape`` (one number is every element)."""
    if default_value is None:
        return None
    if isinstance(default_value, (int, np.integer)) and not isinstance(default_value, bool):
        return _filled(shape, int(default_value))
    if isinstance(default_value, (float, np.floating)) and dtype.is_floating:
        return _filled(shape, float(default_value))
    if callable(getattr(default_value, "tolist", None)):
        default_value = default_value.tolist()
    if isinstance(default_value, (list, tuple)):
        if not _fits(default_value, shape):
            raise ValueError(f"The shape of default_value must be equal to given shape. default_value: "
                             f"{default_value}, shape: {shape}, key: {key}")
        flat = list(_leaves(default_value))
        if all(isinstance(v, int) for v in flat) or (any(isinstance(v, float) for v in flat) and dtype.is_floating):
            return _as_tuple(default_value)
    raise TypeError(f"default_value must be compatible with dtype. default_value: {default_value}, dtype: {dtype}, "
                    f"key: {key}")


def _leaves(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            yield from _leaves(v)
        else:
            yield v


class _NumericColumn(_DenseColumn, collections.namedtuple(
        "_NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):
    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def _transform_feature(self, inputs):
        value = inputs.get(self.key)
        if isinstance(value, SparseTensor):
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. SparseTensor is not "
                             f"supported. key: {self.key}")
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        return math_ops.cast(value, dtypes.float32)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape(self.shape)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)


def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32, normalizer_fn=None):
    shape = _check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default_value = _check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return _NumericColumn(key, shape, default_value, dtype, normalizer_fn)


class _BucketizedColumn(_DenseColumn, _CategoricalColumn, collections.namedtuple(
        "_BucketizedColumn", ["source_column", "boundaries"])):
    @property
    def name(self):
        return f"{self.source_column.name}_bucketized"

    @property
    def _parse_example_spec(self):
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs):
        return categorical_ops.bucketize(inputs.get(self.source_column), self.boundaries)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,))

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return array_ops.one_hot(inputs.get(self), len(self.boundaries) + 1, on_value=1.0, off_value=0.0)

    @property
    def _num_buckets(self):
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        # (each example's bucket per source value, offset by the value's position: [batch, dimension])
        buckets = math_ops.cast(inputs.get(self), dtypes.int64)
        dimension = self.source_column.shape[0]
        if dimension > 1:
            buckets = buckets + np.arange(dimension, dtype=np.int64) * (len(self.boundaries) + 1)
        ids = SparseTensor(math_ops.where(array_ops.ones_like(buckets, dtype=dtypes.bool)),
                           array_ops.reshape(buckets, [-1]), array_ops.shape(buckets, out_type=dtypes.int64))
        return _CategoricalColumn.IdWeightPair(ids, None)


def bucketized_column(source_column, boundaries):
    if not isinstance(source_column, _NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for a, b in zip(boundaries, boundaries[1:]):
        if a >= b:
            raise ValueError(f"boundaries must be a sorted list. Given: {boundaries}")
    return _BucketizedColumn(source_column, tuple(boundaries))


# ---------------------------------------------------------------------------
# Categorical columns


def _assert_string_or_int(dtype, prefix):
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


def _keyed_sparse_input(column, inputs):
    """The column's raw feature as a SparseTensor, its dtype checked against the column's."""
    value = _to_sparse_input(inputs.get(column.key))
    if column.dtype.is_integer != value.dtype.is_integer:
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {column.key}, column dtype: "
                         f"{column.dtype}, tensor dtype: {value.dtype}")
    _assert_string_or_int(value.dtype, prefix=f"column_name: {column.key} input_tensor")
    return value


class _KeyedColumn(_CategoricalColumn):
    """A categorical column of one raw feature, named for its key; its transformation is its ids."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


class _SequenceCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "_SequenceCategoricalColumn", ["categorical_column"])):
    """A categorical column whose feature is a sequence of ids a example, [batch, steps]: its
    ids get a third dimension, one id a step, so that an embedding or indicator column of it
    is [batch, steps, ...] (``tf.contrib.feature_column.sequence_input_layer``)."""

    @property
    def name(self):
        return self.categorical_column.name

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return self.categorical_column._transform_feature(inputs)

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        pair = self.categorical_column._get_sparse_tensors(inputs, weight_collections, trainable)
        return _CategoricalColumn.IdWeightPair(_one_per_step(pair.id_tensor),
                                               None if pair.weight_tensor is None else
                                               _one_per_step(pair.weight_tensor))


def _one_per_step(sparse) -> SparseTensor:
    """A [batch, steps] SparseTensor as [batch, steps, 1]."""
    n = array_ops.shape(sparse.indices, out_type=dtypes.int64)[0]
    indices = slicing_ops.concat([sparse.indices, array_ops.zeros(array_ops.stack([n, 1]), dtypes.int64)], 1)
    return SparseTensor(indices, sparse.values, slicing_ops.concat([sparse.dense_shape, [1]], 0))


def _with_values(sparse, values) -> SparseTensor:
    return SparseTensor(sparse.indices, values, sparse.dense_shape)


class _HashedCategoricalColumn(_KeyedColumn, collections.namedtuple(
        "_HashedCategoricalColumn", ["key", "hash_bucket_size", "dtype"])):
    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    def _transform_feature(self, inputs):
        value = _keyed_sparse_input(self, inputs)
        strings = value.values if value.dtype == dtypes.string else as_string(value.values)
        return _with_values(value, hash_ops.string_to_hash_bucket_fast(strings, self.hash_bucket_size, name="lookup"))


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}")
    dtype = dtypes.as_dtype(dtype)
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return _HashedCategoricalColumn(key, int(hash_bucket_size), dtype)


def _vocabulary_ids(column, inputs, vocabulary):
    value = _keyed_sparse_input(column, inputs)
    ids = categorical_ops.vocabulary_lookup(value.values, vocabulary, column.default_value, column.num_oov_buckets,
                                            name=f"{column.key}_lookup")
    return _with_values(value, ids)


class _VocabularyListCategoricalColumn(_KeyedColumn, collections.namedtuple(
        "_VocabularyListCategoricalColumn", ["key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"])):
    @property
    def _num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets

    def _transform_feature(self, inputs):
        return _vocabulary_ids(self, inputs, self.vocabulary_list)


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0):
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    vocabulary = tuple(vocabulary_list)
    if len(set(vocabulary)) != len(vocabulary):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    vocabulary_dtype = dtypes.as_dtype(np.array(vocabulary).dtype) if not isinstance(vocabulary[0], (str, bytes)) \
        else dtypes.string
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    _assert_string_or_int(vocabulary_dtype, prefix=f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    dtype = dtypes.as_dtype(dtype)
    if dtype.is_integer != vocabulary_dtype.is_integer:
        raise ValueError(f"dtype {dtype} and vocabulary dtype {vocabulary_dtype} do not match, column_name: {key}")
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return _VocabularyListCategoricalColumn(key, vocabulary, dtype, int(default_value), int(num_oov_buckets or 0))


class _VocabularyFileCategoricalColumn(_KeyedColumn, collections.namedtuple(
        "_VocabularyFileCategoricalColumn", ["key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype",
                                             "default_value"])):
    @property
    def _num_buckets(self):
        return self.vocabulary_size + self.num_oov_buckets

    def _transform_feature(self, inputs):
        with gfile.GFile(self.vocabulary_file, "r") as f:
            lines = [line.rstrip("\r\n") for line in f]
        if len(lines) < self.vocabulary_size:
            raise ValueError(f"Invalid vocabulary_size in {self.key}: {self.vocabulary_size}, but the vocabulary file "
                             f"{self.vocabulary_file} has {len(lines)} lines")
        lines = lines[:self.vocabulary_size]
        return _vocabulary_ids(self, inputs, lines if self.dtype == dtypes.string else [int(v) for v in lines])


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0,
                                            default_value=None, dtype=dtypes.string):
    """A vocabulary read from a file, one entry a line (its first ``vocabulary_size`` lines;
    all of them by default)."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        if not gfile.Exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with gfile.GFile(vocabulary_file, "r") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = dtypes.as_dtype(dtype)
    _assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return _VocabularyFileCategoricalColumn(key, vocabulary_file, int(vocabulary_size), int(num_oov_buckets or 0),
                                            dtype, -1 if default_value is None else int(default_value))


class _IdentityCategoricalColumn(_KeyedColumn, collections.namedtuple(
        "_IdentityCategoricalColumn", ["key", "num_buckets", "default_value"])):
    dtype = dtypes.int64

    @property
    def _num_buckets(self):
        return self.num_buckets

    def _transform_feature(self, inputs):
        value = _to_sparse_input(inputs.get(self.key))
        if not value.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {value.dtype}")
        ids = math_ops.cast(value.values, dtypes.int64, name="values")
        if self.default_value is None:  # (an id outside [0, num_buckets) fails the step, naming the column)
            checks = [check_ops.assert_less(ids, np.int64(self.num_buckets), data=[ids],
                                            message=f"{self.key}: ids must be < num_buckets {self.num_buckets}"),
                      check_ops.assert_greater_equal(ids, np.int64(0), data=[ids],
                                                     message=f"{self.key}: ids must be >= 0")]
            with ops.control_dependencies(checks):
                ids = array_ops.identity(ids)
        else:
            outside = math_ops.logical_or(ids < 0, ids >= self.num_buckets, name="out_of_range")
            ids = math_ops.where(outside, array_ops.fill(array_ops.shape(ids), np.int64(self.default_value)), ids)
        return _with_values(value, ids)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}")
    return _IdentityCategoricalColumn(key, int(num_buckets), default_value)


class _WeightedCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "_WeightedCategoricalColumn", ["categorical_column", "weight_feature_key", "dtype"])):
    """A categorical column whose ids each carry a weight, from the feature of that key."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _parse_example_spec(self):
        spec = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in spec:
            raise ValueError(f"Parse config {spec[self.weight_feature_key]} already exists for "
                             f"{self.weight_feature_key}.")
        spec[self.weight_feature_key] = VarLenFeature(self.dtype)
        return spec

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs):
        weights = convert_to_tensor_or_sparse_tensor(inputs.get(self.weight_feature_key))
        if self.dtype != weights.dtype.base_dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {weights.dtype}.")
        if not isinstance(weights, SparseTensor):
            weights = _to_sparse_input(weights, ignore_value=0.0)
        if not weights.dtype.is_floating:
            weights = _with_values(weights, math_ops.cast(weights.values, dtypes.float32))
        return inputs.get(self.categorical_column), weights

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        ids, weights = inputs.get(self)
        return _CategoricalColumn.IdWeightPair(ids, weights)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """``categorical_column`` with a weight for each of its values: the feature
    ``weight_feature_key``, shaped as the column's raw feature (TF-IDF, counts)."""
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a _CategoricalColumn, given {categorical_column}")
    return _WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


_HASH_KEY = 0xDECAFCAFFE  # (the seed TF's crossed columns default to)


class _CrossedColumn(_CategoricalColumn, collections.namedtuple(
        "_CrossedColumn", ["keys", "hash_bucket_size", "hash_key"])):
    @property
    def name(self):
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in _leaf_keys(self)))

    @property
    def _parse_example_spec(self):
        spec = {}
        for key in self.keys:
            spec.update(key._parse_example_spec if isinstance(key, _FeatureColumn)
                        else {key: VarLenFeature(dtypes.string)})
        return spec

    def _transform_feature(self, inputs):
        parts = []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                parts.append(inputs.get(key))
                continue
            pair = key._get_sparse_tensors(inputs)
            if pair.weight_tensor is not None:
                raise ValueError(f"crossed_column does not support weight_tensor, but the given column populates "
                                 f"weight_tensor. Given column: {key.name}")
            parts.append(pair.id_tensor)
        return categorical_ops.sparse_cross_hashed(parts, self.hash_bucket_size, self.hash_key)

    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


def _leaf_keys(cross) -> list:
    """The keys of a cross, a crossed key's own keys in its place."""
    out = []
    for k in cross.keys:
        out.extend(_leaf_keys(k) if isinstance(k, _CrossedColumn) else [k])
    return out


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Every combination of the keys' values (raw string or int features, or categorical
    columns' ids), hashed into ``hash_bucket_size`` buckets as TF's SparseCross hashes them,
    so that every combination lands in the bucket it lands in with TensorFlow."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, _CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or categorical column except "
                             f"_HashedCategoricalColumn. Given: {key}")
        if isinstance(key, _HashedCategoricalColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for crossing. Hashing before "
                             f"crossing will increase probability of collision. Instead, use the feature name as a "
                             f"string. Given: {key}")
    return _CrossedColumn(tuple(keys), int(hash_bucket_size), _HASH_KEY if hash_key is None else int(hash_key))


# ---------------------------------------------------------------------------
# Dense columns of categorical ones


class _IndicatorColumn(_DenseColumn, collections.namedtuple("_IndicatorColumn", ["categorical_column"])):
    """A multi-hot of a categorical column's ids (their weights, for a weighted column)."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_indicator"

    def _transform_feature(self, inputs):
        pair = self.categorical_column._get_sparse_tensors(inputs)
        depth = self.categorical_column._num_buckets
        one_hot = array_ops.one_hot(sparse_tensor_to_dense(pair.id_tensor, default_value=-1), depth, on_value=1.0,
                                    off_value=0.0)
        if pair.weight_tensor is not None:  # (an id given twice adds its weights up, as in TensorFlow)
            weights = math_ops.cast(sparse_tensor_to_dense(pair.weight_tensor), dtypes.float32)
            one_hot = one_hot * array_ops.expand_dims(weights, -1)
        return reduction_ops.reduce_sum(one_hot, axis=[-2])

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape([1, self.categorical_column._num_buckets])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return _sequence_of(self, inputs, weight_collections, trainable, "indicator_column")


def _sequence_length(sparse, num_elements=1):
    """The number of steps of each example of a [batch, steps, ...] SparseTensor (0 for an
    example without values): its last index on the second dimension plus 1, over
    ``num_elements`` values a step."""
    with ops.name_scope(None, "sequence_length"):
        rows, columns = sparse.indices[:, 0], sparse.indices[:, 1]
        last = segment_ops.unsorted_segment_max(columns + 1, rows, sparse.dense_shape[0])
        length = math_ops.maximum(last, 0)  # (unsorted_segment_max fills empty rows with the lowest int64)
        if num_elements != 1:
            length = math_ops.cast(math_ops.ceil(math_ops.cast(length, dtypes.float32) / num_elements), dtypes.int64)
        return length


def _check_sequence(column, what):
    if not isinstance(column.categorical_column, _SequenceCategoricalColumn):
        raise ValueError(f"In {what}: {column.name}. categorical_column must be of type _SequenceCategoricalColumn "
                         f"to use sequence_input_layer. Suggested fix: Use one of "
                         f"sequence_categorical_column_with_*. Given (type {type(column.categorical_column)}): "
                         f"{column.categorical_column}")


def _sequence_of(column, inputs, weight_collections, trainable, what):
    """A dense column of a sequence categorical column, [batch, steps, ...], and its lengths."""
    _check_sequence(column, what)
    dense = column._get_dense_tensor(inputs, weight_collections=weight_collections, trainable=trainable)
    ids = column.categorical_column._get_sparse_tensors(inputs).id_tensor
    return TensorSequenceLengthPair(dense, _sequence_length(ids))


TensorSequenceLengthPair = collections.namedtuple("TensorSequenceLengthPair", ["dense_tensor", "sequence_length"])


def indicator_column(categorical_column):
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a _CategoricalColumn. Given: {categorical_column}")
    return _IndicatorColumn(categorical_column)


def _lookup_embedding(column, inputs, table, weight_collections, trainable):
    """The combined embedding rows of ``column``'s categorical ids (after restoring the table from
    the column's checkpoint, if it names one)."""
    if column.ckpt_to_load_from is not None:
        parts = list(table) if isinstance(table, PartitionedVariable) else table
        init_from_checkpoint(column.ckpt_to_load_from, {column.tensor_name_in_ckpt: parts})
    pair = column.categorical_column._get_sparse_tensors(inputs, weight_collections=weight_collections,
                                                         trainable=trainable)
    return safe_embedding_lookup_sparse(table, pair.id_tensor, pair.weight_tensor, combiner=column.combiner,
                                        name=f"{column.name}_weights", max_norm=column.max_norm)


class _Embedded(_DenseColumn):
    """What embedding columns share: their categorical column's features and ids, one vector
    of ``dimension`` an example."""

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape([self.dimension])


class _EmbeddingColumn(_Embedded, collections.namedtuple(
        "_EmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer", "ckpt_to_load_from",
                             "tensor_name_in_ckpt", "max_norm", "trainable"])):
    @property
    def name(self):
        return f"{self.categorical_column.name}_embedding"

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        table = vs.get_variable("embedding_weights", [self.categorical_column._num_buckets, self.dimension],
                                dtype=dtypes.float32, initializer=self.initializer,
                                trainable=self.trainable and trainable is not False, collections=weight_collections)
        return _lookup_embedding(self, inputs, table, weight_collections, trainable)

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return _sequence_of(self, inputs, weight_collections, trainable, "embedding_column")


def _check_embedding_arguments(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of mean, sqrtn, sum, given {combiner!r}")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt`.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Given: {initializer}")
    if initializer is None:  # (TF's default: a truncated normal of stddev 1 / sqrt(dimension))
        return init_ops.truncated_normal_initializer(mean=0.0, stddev=1.0 / np.sqrt(dimension))
    return initializer


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a _CategoricalColumn, given {categorical_column}")
    initializer = _check_embedding_arguments(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt)
    return _EmbeddingColumn(categorical_column, int(dimension), combiner, initializer, ckpt_to_load_from,
                            tensor_name_in_ckpt, max_norm, trainable)


class _SharedEmbeddingColumn(_Embedded, collections.namedtuple(
        "_SharedEmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer",
                                   "shared_embedding_collection_name", "ckpt_to_load_from", "tensor_name_in_ckpt",
                                   "max_norm", "trainable"])):
    """One of several columns that look their ids up in one embedding table: the first of them
    that builds makes it, and puts it in the graph collection of the shared name."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self):
        return self.shared_embedding_collection_name

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        shape = (self.categorical_column._num_buckets, self.dimension)
        with ops.name_scope(None, self.name):
            shared = ops.get_collection(self.shared_embedding_collection_name)
            if shared:
                if len(shared) > 1:
                    raise ValueError(f"Collection {self.shared_embedding_collection_name} can only contain one "
                                     f"variable (the shared embedding table), it holds {shared}")
                table = shared[0]
                if tuple(table.get_shape().as_list()) != shape:
                    raise ValueError(f"Shared embedding collection {self.shared_embedding_collection_name} contains "
                                     f"variable {table.name} of unexpected shape {table.get_shape()}. Expected "
                                     f"shape is {shape}.")
            else:
                table = vs.get_variable("embedding_weights", shape, dtype=dtypes.float32, initializer=self.initializer,
                                        trainable=self.trainable and trainable is not False,
                                        collections=weight_collections)
                ops.add_to_collection(self.shared_embedding_collection_name, table)
            return _lookup_embedding(self, inputs, table, weight_collections, trainable)


def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None, tensor_name_in_ckpt=None,
                             max_norm=None, trainable=True):
    """Embedding columns of ``categorical_columns`` (of one kind and number of buckets) that
    share one table, ``<names sorted and joined by _>_shared_embedding/embedding_weights``."""
    initializer = _check_embedding_arguments(dimension, combiner, initializer, ckpt_to_load_from, tensor_name_in_ckpt)
    columns = list(categorical_columns)
    if not columns:
        raise ValueError("categorical_columns must not be empty.")
    ordered = sorted(columns, key=lambda c: c.name)
    first = ordered[0]
    if not isinstance(first, _CategoricalColumn):
        raise ValueError(f"All categorical_columns must be subclasses of _CategoricalColumn. Given: {first}, of type: "
                         f"{type(first)}")
    kind = type(first.categorical_column if isinstance(first, _WeightedCategoricalColumn) else first)
    for c in ordered[1:]:
        inner = c.categorical_column if isinstance(c, _WeightedCategoricalColumn) else c
        if not isinstance(inner, kind):
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must have the same type, or be "
                             f"weighted_categorical_column of the same type. Given column: {first} of type: "
                             f"{type(first)} does not match given column: {c} of type: {type(c)}")
    if len({c._num_buckets for c in columns}) > 1:
        raise ValueError(f"To use shared_embedding_column, all categorical_columns must have the same number of "
                         f"buckets, given {[c._num_buckets for c in columns]}")
    name = shared_embedding_collection_name or "_".join(c.name for c in ordered) + "_shared_embedding"
    return [_SharedEmbeddingColumn(c, int(dimension), combiner, initializer, name, ckpt_to_load_from,
                                   tensor_name_in_ckpt, max_norm, trainable) for c in columns]
