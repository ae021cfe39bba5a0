"""``tf.estimator.classifier_parse_example_spec`` and ``regressor_parse_example_spec``: the
``tf.parse_example`` spec of a canned estimator's features, its label and its weight."""

from __future__ import annotations

from ..feature_column import feature_column as fc
from ..framework import dtypes
from ..ops.parsing_ops import FixedLenFeature


def classifier_parse_example_spec(feature_columns, label_key, label_dtype=dtypes.int64, label_default=None,
                                  weight_column=None) -> dict:
    """The features' spec with the label (a [1] ``label_dtype``) and the weight column's."""
    return _with_label_and_weight(feature_columns, label_key, FixedLenFeature((1,), label_dtype, label_default),
                                  weight_column)


def regressor_parse_example_spec(feature_columns, label_key, label_dtype=dtypes.float32, label_default=None,
                                 label_dimension=1, weight_column=None) -> dict:
    """The features' spec with the label (``label_dimension`` values) and the weight column's."""
    return _with_label_and_weight(feature_columns, label_key,
                                  FixedLenFeature((label_dimension,), label_dtype, label_default), weight_column)


def _with_label_and_weight(feature_columns, label_key, label_spec, weight_column) -> dict:
    if label_key is None:
        raise ValueError("label_key should be given.")
    spec = fc.make_parse_example_spec(list(feature_columns))
    if label_key in spec:
        raise ValueError(f"label should not be used as feature. label_key: {label_key}, features: {sorted(spec)}")
    spec[label_key] = label_spec
    if weight_column is None:
        return spec
    if isinstance(weight_column, str):
        weight_column = fc.numeric_column(weight_column)
    if not isinstance(weight_column, fc._NumericColumn):
        raise ValueError(f"weight_column should be an instance of tf.feature_column.numeric_column. Given type: "
                         f"{type(weight_column)} value: {weight_column}")
    if weight_column.key in spec:
        raise ValueError(f"weight_column should not be used as feature. weight_column: {weight_column.key}, "
                         f"features: {sorted(spec)}")
    spec.update(fc.make_parse_example_spec([weight_column]))
    return spec
