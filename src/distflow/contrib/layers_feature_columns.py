"""``tf.contrib.layers``'s feature columns, the ones TF 1.0-1.3's tutorials built
(``real_valued_column``, ``sparse_column_with_keys``, ``embedding_column``...): each the
``tf.feature_column`` column that replaced it, with the old arguments mapped onto it.
They are what contrib.learn's Estimators (and tf.estimator's) read. A sparse column's
``combiner`` is given to the embedding that reads it, as the old API combined there."""

from __future__ import annotations

from ..framework import dtypes
from ..feature_column import feature_column as fc


def real_valued_column(column_name, dimension=1, default_value=None, dtype=dtypes.float32, normalizer=None):
    """A dense column of ``dimension`` values (``tf.feature_column.numeric_column``)."""
    if dimension is None:
        raise ValueError("real_valued_column(dimension=None) (a variable-length column) is not supported: give "
                         "the number of values")
    return fc.numeric_column(column_name, shape=(int(dimension),), default_value=default_value, dtype=dtype,
                             normalizer_fn=normalizer)


def sparse_column_with_keys(column_name, keys, default_value=-1, combiner="sum", dtype=dtypes.string):
    """Ids of the values found in ``keys`` (``categorical_column_with_vocabulary_list``)."""
    return fc.categorical_column_with_vocabulary_list(column_name, list(keys), dtype=dtype,
                                                      default_value=default_value)


def sparse_column_with_vocabulary_file(column_name, vocabulary_file, num_oov_buckets=0, vocab_size=None,
                                       default_value=-1, combiner="sum", dtype=dtypes.string):
    """Ids of the values found in ``vocabulary_file`` (``categorical_column_with_vocabulary_file``)."""
    return fc.categorical_column_with_vocabulary_file(column_name, vocabulary_file, vocabulary_size=vocab_size,
                                                      num_oov_buckets=num_oov_buckets, default_value=default_value,
                                                      dtype=dtype)


def sparse_column_with_hash_bucket(column_name, hash_bucket_size, combiner="sum", dtype=dtypes.string,
                                   hash_keys=None):
    """Ids by hashing the values into ``hash_bucket_size`` buckets
    (``categorical_column_with_hash_bucket``)."""
    if hash_keys is not None:
        raise ValueError("sparse_column_with_hash_bucket(hash_keys=...) is not supported")
    return fc.categorical_column_with_hash_bucket(column_name, hash_bucket_size, dtype=dtype)


def sparse_column_with_integerized_feature(column_name, bucket_size, combiner="sum", dtype=dtypes.int64):
    """Integer values as ids in [0, bucket_size) (``categorical_column_with_identity``)."""
    return fc.categorical_column_with_identity(column_name, bucket_size)


def weighted_sparse_column(sparse_id_column, weight_column_name, dtype=dtypes.float32):
    """Ids with weights from ``weight_column_name`` (``weighted_categorical_column``)."""
    return fc.weighted_categorical_column(sparse_id_column, weight_column_name, dtype=dtype)


def bucketized_column(source_column, boundaries):
    """A real-valued column cut at ``boundaries`` (``tf.feature_column.bucketized_column``)."""
    return fc.bucketized_column(source_column, list(boundaries))


def crossed_column(columns, hash_bucket_size, combiner="sum", ckpt_to_load_from=None, tensor_name_in_ckpt=None,
                   hash_key=None):
    """The hashed cross of sparse or bucketized columns (``tf.feature_column.crossed_column``)."""
    if ckpt_to_load_from is not None or tensor_name_in_ckpt is not None:
        raise ValueError("crossed_column(ckpt_to_load_from=, tensor_name_in_ckpt=) is not supported: warm-start "
                         "the linear model's weights instead")
    return fc.crossed_column(list(columns), hash_bucket_size, hash_key=hash_key)


def one_hot_column(sparse_id_column):
    """A sparse column as one-hot (or multi-hot) vectors (``tf.feature_column.indicator_column``)."""
    return fc.indicator_column(sparse_id_column)


def embedding_column(sparse_id_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    """A sparse column's ids as the ``combiner`` of their embeddings (``tf.feature_column.embedding_column``)."""
    return fc.embedding_column(sparse_id_column, dimension, combiner=combiner, initializer=initializer,
                               ckpt_to_load_from=ckpt_to_load_from, tensor_name_in_ckpt=tensor_name_in_ckpt,
                               max_norm=max_norm, trainable=trainable)
