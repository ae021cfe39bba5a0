"""``tf.contrib.layers``'s feature columns, the ones TF 1.0-1.3's tutorials built
(``real_valued_column``, ``sparse_column_with_keys``, ``embedding_column``...): each the
``tf.feature_column`` column that replaced it, with the old arguments mapped onto it.
They are what contrib.learn's Estimators (and tf.estimator's) read. A sparse column's
``combiner`` is given to the embedding that reads it, as the old API combined there."""

from __future__ import annotations

from ..feature_column import feature_column as fc
from ..framework import dtypes, ops
from ..ops import array_ops, parsing_ops, sparse_ops
from ..ops import variable_scope as vs


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


def shared_embedding_columns(sparse_id_columns, dimension, combiner="mean", shared_embedding_name=None,
                             initializer=None, ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                             trainable=True):
    """Embedding columns of several sparse columns that share one embedding table
    (``tf.feature_column.shared_embedding_columns``)."""
    return fc.shared_embedding_columns(list(sparse_id_columns), dimension, combiner=combiner, initializer=initializer,
                                       shared_embedding_collection_name=shared_embedding_name,
                                       ckpt_to_load_from=ckpt_to_load_from, tensor_name_in_ckpt=tensor_name_in_ckpt,
                                       max_norm=max_norm, trainable=trainable)


def check_feature_columns(feature_columns) -> None:
    """Raises a ValueError if two of ``feature_columns`` have the same name."""
    seen = {}
    for column in feature_columns:
        if column.name in seen:
            raise ValueError(f"Duplicate feature column key found for column: {column.name}. This usually means "
                             f"that the column is almost identical to another column, and one must be discarded.")
        seen[column.name] = column


def create_feature_spec_for_parsing(feature_columns) -> dict:
    """The ``parse_example`` spec that the columns read (``make_parse_example_spec``)."""
    columns = feature_columns.values() if isinstance(feature_columns, dict) else feature_columns
    return fc.make_parse_example_spec(list(columns))


def parse_feature_columns_from_examples(serialized, feature_columns, name=None, example_names=None) -> dict:
    """``{column: its tensor}`` for serialized ``tf.train.Example``s: parsed by the columns'
    spec, then each column's transformation applied."""
    check_feature_columns(feature_columns)
    features = parsing_ops.parse_example(serialized, create_feature_spec_for_parsing(feature_columns), name=name,
                                         example_names=example_names)
    return transform_features(features, feature_columns)


def transform_features(features, feature_columns) -> dict:
    """``{column: its tensor}``: each column's transformation of ``features``."""
    check_feature_columns(feature_columns)
    return fc._transform_features(features, list(feature_columns))


def make_place_holder_tensors_for_base_features(feature_columns) -> dict:
    """A placeholder per feature the columns read (a sparse placeholder for a variable-length
    one), of a batch of any size."""
    placeholders = {}
    for key, spec in create_feature_spec_for_parsing(feature_columns).items():
        if isinstance(spec, parsing_ops.VarLenFeature):
            placeholders[key] = sparse_ops.sparse_placeholder(spec.dtype, name=f"Placeholder_{key}")
        else:
            placeholders[key] = array_ops.placeholder(spec.dtype, [None] + list(spec.shape),
                                                      name=f"Placeholder_{key}")
    return placeholders


def infer_real_valued_columns(features) -> list:
    """A ``real_valued_column`` per float or integer tensor of ``features`` (a dict of them,
    or one, named "")."""
    features = features if isinstance(features, dict) else {"": features}
    columns = []
    for key, tensor in sorted(features.items()):
        tensor = ops.convert_to_tensor(tensor)
        if not (tensor.dtype.is_floating or tensor.dtype.is_integer):
            raise ValueError(f"infer_real_valued_columns: feature {key!r} is {tensor.dtype.name}, not a number")
        shape = tensor.shape.as_list()[1:] if tensor.shape.ndims else []
        columns.append(fc.numeric_column(key, shape=tuple(shape) or (1,), dtype=tensor.dtype.base_dtype))
    return columns


def input_from_feature_columns(columns_to_tensors, feature_columns, weight_collections=None, trainable=True,
                               scope=None, cols_to_outs=None):
    """The dense input layer of ``feature_columns`` (``tf.feature_column.input_layer``) under
    the variable scope ``scope`` (default "input_from_feature_columns")."""
    check_feature_columns(feature_columns)
    with vs.variable_scope(scope, default_name="input_from_feature_columns", values=columns_to_tensors.values()):
        return fc.input_layer(columns_to_tensors, list(feature_columns), weight_collections=weight_collections,
                              trainable=trainable, cols_to_vars=cols_to_outs)


def weighted_sum_from_feature_columns(columns_to_tensors, feature_columns, num_outputs, weight_collections=None,
                                      trainable=True, scope=None):
    """A linear model of ``feature_columns`` (``tf.feature_column.linear_model``):
    ``(predictions, {column: [its weights]}, bias)``."""
    check_feature_columns(feature_columns)
    variables = {}
    with vs.variable_scope(scope, default_name="weighted_sum_from_feature_columns",
                           values=columns_to_tensors.values()):
        predictions = fc.linear_model(columns_to_tensors, list(feature_columns), units=num_outputs,
                                      weight_collections=weight_collections, trainable=trainable,
                                      cols_to_vars=variables)
    bias = variables.pop("bias")
    return predictions, variables, bias[0] if isinstance(bias, list) else bias


joint_weighted_sum_from_feature_columns = weighted_sum_from_feature_columns
