"""``tf.contrib.feature_column``: TF 1.13-1.15's sequence feature columns
(feature_column/sequence_feature_column.py), which TF 1.15 also exports as
``tf.feature_column.sequence_*``."""

from .._namespace import missing
from ..feature_column.sequence_feature_column import (  # noqa: F401
    concatenate_context_input, sequence_categorical_column_with_hash_bucket, sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file, sequence_categorical_column_with_vocabulary_list,
    sequence_input_layer, sequence_numeric_column)

__getattr__ = missing("tf.contrib.feature_column")
