"""TF 1.13-1.15's sequence feature columns (``tf.feature_column.sequence_*`` and
``tf.contrib.feature_column``), for models that read a sequence of steps an example (an
RNN), built on ``tf.feature_column``'s protocol.

A sequence feature is a SparseTensor [batch, steps] (ids, or numbers; a numeric column of
shape S takes S values a step). ``sequence_input_layer(features, columns)`` gives the
[batch, steps, units] input of the sequence columns (embedding or indicator columns of the
``sequence_categorical_column_with_*`` columns, and ``sequence_numeric_column``s), and
each example's number of steps; ``concatenate_context_input`` puts a per-example input
beside every step.
"""

from __future__ import annotations

import collections

import numpy as np

from . import feature_column as fc
from ..framework import dtypes, ops, tensor_shape
from ..ops import array_ops, check_ops, math_ops, slicing_ops
from ..ops import variable_scope as vs
from ..ops.parsing_ops import VarLenFeature
from ..ops.sparse_ops import SparseTensor, sparse_tensor_to_dense



def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    """The ids of a sequence feature, each in [0, num_buckets)."""
    return fc._SequenceCategoricalColumn(fc.categorical_column_with_identity(key, num_buckets, default_value))


def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """A sequence feature's strings (or integers) hashed into ``hash_bucket_size`` ids."""
    return fc._SequenceCategoricalColumn(fc.categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


def sequence_categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                                     num_oov_buckets=0):
    """A sequence feature's values as their positions in ``vocabulary_list``."""
    return fc._SequenceCategoricalColumn(fc.categorical_column_with_vocabulary_list(
        key, vocabulary_list, dtype=dtype, default_value=default_value, num_oov_buckets=num_oov_buckets))


def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0,
                                                     default_value=None, dtype=dtypes.string):
    """A sequence feature's values as their lines in ``vocabulary_file``."""
    return fc._SequenceCategoricalColumn(fc.categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size=vocabulary_size, num_oov_buckets=num_oov_buckets,
        default_value=default_value, dtype=dtype))


class _SequenceNumericColumn(fc._DenseColumn, collections.namedtuple(
        "_SequenceNumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):
    """A sequence of numbers an example, ``shape`` of them a step."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs):
        value = inputs.get(self.key)
        if not isinstance(value, SparseTensor):
            raise ValueError(f"sequence_numeric_column '{self.key}' needs its feature as a SparseTensor "
                             f"[batch, steps], got {value}")
        return self.normalizer_fn(value) if self.normalizer_fn is not None else value

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape(self.shape)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        raise ValueError(f"sequence_numeric_column '{self.key}' is a sequence: use sequence_input_layer")

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        sparse = inputs.get(self)
        dense = sparse_tensor_to_dense(sparse, default_value=np.asarray(self.default_value).item()
                                       if np.ndim(self.default_value) == 0 else 0)
        dense = math_ops.cast(dense, dtypes.float32)
        shape = slicing_ops.concat([array_ops.shape(dense)[:1], [-1], list(self.shape)], 0)
        dense = array_ops.reshape(dense, shape)
        size = int(np.prod(self.shape))
        return fc.TensorSequenceLengthPair(dense, fc._sequence_length(sparse, size))


def sequence_numeric_column(key, shape=(1,), default_value=0.0, dtype=dtypes.float32, normalizer_fn=None):
    """A sequence of numbers an example (``shape`` a step; missing values ``default_value``)."""
    shape = fc._check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return _SequenceNumericColumn(key, shape, default_value, dtype, normalizer_fn)


def sequence_input_layer(features, feature_columns, weight_collections=None, trainable=True):
    """The sequence columns' values side by side, [batch, steps, units] (each column's
    trailing dimensions flattened), and each example's number of steps (the columns must
    agree on it)."""
    feature_columns = fc._clean_feature_columns(feature_columns)
    for column in feature_columns:
        if not hasattr(column, "_get_sequence_dense_tensor"):
            raise ValueError(f"All feature_columns must be sequence columns (sequence_numeric_column, or an embedding "
                             f"or indicator column of a sequence_categorical_column_with_*). Given: {column}")
    with vs.variable_scope(None, default_name="sequence_input_layer", values=list(features.values())):
        builder = fc._LazyBuilder(features)
        outputs, lengths = [], []
        for column in sorted(feature_columns, key=lambda c: c.name):
            with vs.variable_scope(None, default_name=column._var_scope_name):
                dense, length = column._get_sequence_dense_tensor(builder, weight_collections=weight_collections,
                                                                  trainable=trainable)
                units = column._variable_shape.num_elements()
                out = array_ops.reshape(dense, slicing_ops.concat([array_ops.shape(dense)[:2], [units]], 0))
                out.set_shape(dense.shape[:2].concatenate([units]) if dense.shape.ndims else [None, None, units])
                outputs.append(out)
                lengths.append(length)
        checks = [check_ops.assert_equal(lengths[0], other, message="Difference in sequence lengths between the "
                                         "sequence columns") for other in lengths[1:]]
        with ops.control_dependencies(checks):  # (before the columns are joined: their steps must agree)
            return slicing_ops.concat(outputs, -1), array_ops.identity(lengths[0])


def concatenate_context_input(context_input, sequence_input):
    """``sequence_input`` [batch, steps, d] with ``context_input`` [batch, c] beside every
    step: [batch, steps, d + c]."""
    context_input = ops.convert_to_tensor(context_input)
    sequence_input = ops.convert_to_tensor(sequence_input)
    if sequence_input.shape.ndims not in (None, 3):
        raise ValueError(f"sequence_input must have rank 3, got shape {sequence_input.shape}")
    if context_input.shape.ndims not in (None, 2):
        raise ValueError(f"context_input must have rank 2, got shape {context_input.shape}")
    for t, what in ((sequence_input, "sequence_input"), (context_input, "context_input")):
        if not t.dtype.is_floating:
            raise TypeError(f"{what} must have dtype float32; got {t.dtype.name}")
    steps = array_ops.shape(sequence_input)[1]
    tiled = array_ops.tile(array_ops.expand_dims(context_input, 1), array_ops.stack([1, steps, 1]))
    return slicing_ops.concat([sequence_input, math_ops.cast(tiled, sequence_input.dtype)], 2)
