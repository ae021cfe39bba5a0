"""``tf.feature_column``: raw features into a model's input (feature_column.py says how)."""

from .._namespace import missing
from .feature_column import (bucketized_column, categorical_column_with_hash_bucket,  # noqa: F401
                             categorical_column_with_identity, categorical_column_with_vocabulary_file,
                             categorical_column_with_vocabulary_list, crossed_column, embedding_column, indicator_column,
                             input_layer, linear_model, make_parse_example_spec, numeric_column,
                             shared_embedding_columns, weighted_categorical_column)
from .sequence_feature_column import (sequence_categorical_column_with_hash_bucket,  # noqa: F401
                                      sequence_categorical_column_with_identity,
                                      sequence_categorical_column_with_vocabulary_file,
                                      sequence_categorical_column_with_vocabulary_list, sequence_numeric_column)

__getattr__ = missing("tf.feature_column")
