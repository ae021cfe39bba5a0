"""``DenseFeatures`` and ``SequenceFeatures``: feature columns as the first layer of a Keras
model (TF 1.14+)."""

from __future__ import annotations

from ...feature_column.feature_column import _clean_feature_columns, _dense_features, _DenseColumn, _LazyBuilder
from ...framework import ops
from ...framework.ops import GraphKeys
from ...ops import variable_scope as vs
from ..engine.base_layer import Layer


class DenseFeatures(Layer):
    """The dense values of ``feature_columns`` (numeric, bucketized, indicator, embedding)
    from a dict of features, concatenated in the columns' name order, as
    ``tf.feature_column.input_layer``; the columns' variables (embeddings) are the layer's
    weights, under its name (``dense_features/<column>_embedding/embedding_weights``)."""

    def __init__(self, feature_columns, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._feature_columns = sorted(_clean_feature_columns(feature_columns), key=lambda c: c.name)
        for column in self._feature_columns:
            if not isinstance(column, _DenseColumn):
                raise ValueError(f"Items of feature_columns must be a _DenseColumn (numeric, indicator, embedding, "
                                 f"bucketized). Given: {column}")

    def __call__(self, features, cols_to_output_tensors=None, training=None):
        return _columns_call(self, features, lambda: _dense_features(
            _LazyBuilder(features), self._feature_columns, None, self.trainable, None, cols_to_output_tensors))

    def compute_output_shape(self, input_shape):
        return (input_shape[0] if isinstance(input_shape, (list, tuple)) and input_shape else None,
                sum(c._variable_shape.num_elements() for c in self._feature_columns))

    def get_config(self):
        return {**super().get_config(), "feature_columns": [c.name for c in self._feature_columns]}


def _columns_call(layer, features, build):
    """``build()`` (the columns' tensors of ``features``) under the layer's name, its new
    variables the layer's weights (made once: a second call reuses them)."""
    if not isinstance(features, dict):
        raise ValueError(f"We expected a dictionary here. Instead we got: {features!r}")
    with ops.name_scope(layer.name), vs.variable_scope(layer.name, reuse=vs.AUTO_REUSE if layer.built else None,
                                                        auxiliary_name_scope=False):
        before = set(ops.get_collection(GraphKeys.GLOBAL_VARIABLES))
        out = build()
        made = [v for v in ops.get_collection(GraphKeys.GLOBAL_VARIABLES) if v not in before]
    trainable = set(ops.get_collection(GraphKeys.TRAINABLE_VARIABLES))
    for v in made:
        (layer._trainable_weights if v in trainable else layer._non_trainable_weights).append(v)
    layer.built = True
    return out


class SequenceFeatures(Layer):
    """``tf.keras.experimental.SequenceFeatures``: the sequence columns of a dict of features
    as ``(sequence_input, sequence_length)``, [batch, steps, units] and [batch], as
    ``sequence_input_layer`` gives them; the columns' variables are the layer's weights."""

    def __init__(self, feature_columns, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self._feature_columns = list(feature_columns)
        for column in self._feature_columns:
            if not hasattr(column, "_get_sequence_dense_tensor"):
                raise ValueError(f"All feature_columns must be sequence columns (sequence_numeric_column, or an "
                                 f"embedding or indicator column of a sequence_categorical_column_with_*). "
                                 f"Given: {column}")

    def __call__(self, features, training=None):
        from ...feature_column.sequence_feature_column import sequence_input_layer  # noqa: PLC0415

        return _columns_call(self, features, lambda: sequence_input_layer(features, self._feature_columns,
                                                                          trainable=self.trainable))

    def get_config(self):
        return {**super().get_config(), "feature_columns": [c.name for c in self._feature_columns]}
