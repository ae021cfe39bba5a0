"""Canned estimators, as TF 1.x's tutorials used them: ``DNNClassifier``, ``DNNRegressor``,
``LinearClassifier``, ``LinearRegressor``, ``DNNLinearCombinedClassifier`` and
``DNNLinearCombinedRegressor``.

Each is an Estimator whose model function TensorFlow 1.15 wrote: the features through
feature columns (``input_layer`` for the DNN under ``dnn/input_from_feature_columns``,
``linear_model`` under ``linear/linear_model``), hidden layers ``dnn/hiddenlayer_<i>``,
logits ``dnn/logits``; a *head* that turns logits into a loss (sigmoid cross-entropy for
two classes, softmax for more, squared error for regression; summed over the batch, TF
1.x's ``Reduction.SUM``), predictions and metrics (``accuracy``, ``average_loss`` and
``loss``; for two classes also ``auc``, ``auc_precision_recall``, ``precision``, ``recall``,
``prediction/mean``, ``label/mean`` and ``accuracy_baseline``; for regression also
``prediction/mean`` and ``label/mean``). Optimizers are named as TF
names them ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD') or given as objects; a DNN
defaults to Adagrad at 0.05 and a linear model to Ftrl at min(0.2, 1/sqrt(number of
columns)), and in the wide-and-deep estimators at TF's 0.001 and min(0.005, ...).
"""

from __future__ import annotations

import math

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..losses import Reduction, compute_weighted_loss
from .. import metrics as metrics_lib
from .. import nn
from ..ops import (array_ops, categorical_ops, init_ops, math_ops, reduction_ops, slicing_ops, sparse_ops, state_ops,
                   string_ops, unary_ops)
from ..ops.sparse_ops import SparseTensor
from ..ops import variable_scope as vs
from ..train import optimizers as optimizers_lib
from ..train.training_util import get_global_step
from ..feature_column import feature_column as fc
from ..saved_model import signature_constants
from . import export as export_lib
from .estimator import Estimator, EstimatorSpec, ModeKeys

_OPTIMIZERS = {"adagrad": optimizers_lib.AdagradOptimizer, "adam": optimizers_lib.AdamOptimizer,
               "ftrl": optimizers_lib.FtrlOptimizer, "rmsprop": optimizers_lib.RMSPropOptimizer,
               "sgd": optimizers_lib.GradientDescentOptimizer}


def _optimizer(optimizer, learning_rate: float):
    if isinstance(optimizer, str):
        cls = _OPTIMIZERS.get(optimizer.lower())
        if cls is None:
            raise ValueError(f"Unsupported optimizer name: {optimizer}. Supported names are: "
                             f"{sorted(_OPTIMIZERS)}")
        return cls(learning_rate)
    return optimizer() if callable(optimizer) and not hasattr(optimizer, "minimize") else optimizer


class _Head:
    """Logits to loss, predictions and metrics (TF's binary, multi-class and regression heads)."""

    def __init__(self, kind: str, n_classes: int = 2, label_dimension: int = 1, label_vocabulary=None,
                 weight_column=None, loss_reduction=Reduction.SUM):
        self.kind = kind
        self.n_classes = n_classes
        self.label_vocabulary = list(label_vocabulary) if label_vocabulary is not None else None
        self.weight_column = weight_column
        self.loss_reduction = loss_reduction
        self.logits_dimension = 1 if kind == "binary" else n_classes if kind == "multi" else label_dimension

    def _labels(self, labels):
        labels = ops.convert_to_tensor(labels)
        if self.kind == "regression":
            return array_ops.reshape(math_ops.cast(labels, dtypes.float32), [-1, self.logits_dimension])
        if self.label_vocabulary is not None:
            labels = categorical_ops.vocabulary_lookup(labels, self.label_vocabulary)
        return array_ops.reshape(math_ops.cast(labels, dtypes.int64), [-1])

    def _weights(self, features):
        if self.weight_column is None:
            return 1.0
        key = self.weight_column if isinstance(self.weight_column, str) else self.weight_column.key
        return array_ops.reshape(math_ops.cast(features[key], dtypes.float32), [-1, 1])

    def spec(self, features, mode, logits, labels, train_op_fn, regularization_losses=None) -> EstimatorSpec:
        predictions = self._predictions(logits)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=predictions, export_outputs=self._export_outputs(predictions))
        labels = self._labels(labels)
        weights = self._weights(features)
        unreduced = self._unreduced_loss(labels, logits)
        loss = compute_weighted_loss(unreduced, weights, reduction=self.loss_reduction)
        if regularization_losses:  # (added to the loss trained and reported, as TF's heads add them)
            loss = math_ops.add_n([loss, *regularization_losses])
        if mode == ModeKeys.TRAIN:
            return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op_fn(loss))
        return EstimatorSpec(mode, predictions=predictions, loss=loss,
                             eval_metric_ops=self._metrics(unreduced, weights, labels, predictions))

    def _unreduced_loss(self, labels, logits):
        """Each example's loss, [batch, 1] (or [batch, label_dimension] for regression)."""
        if self.kind == "regression":
            return unary_ops.square(logits - labels)
        if self.kind == "binary":
            return nn.sigmoid_cross_entropy_with_logits(
                labels=math_ops.cast(array_ops.reshape(labels, [-1, 1]), dtypes.float32), logits=logits)
        return array_ops.expand_dims(nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits), 1)

    def _predictions(self, logits) -> dict:
        if self.kind == "regression":
            return {"predictions": logits}
        if self.kind == "binary":
            logistic = unary_ops.sigmoid(logits)
            probabilities = slicing_ops.concat([1.0 - logistic, logistic], 1)
            class_ids = math_ops.cast(logistic > 0.5, dtypes.int64)
            out = {"logits": logits, "logistic": logistic, "probabilities": probabilities, "class_ids": class_ids}
        else:
            probabilities = nn.softmax(logits)
            class_ids = array_ops.expand_dims(reduction_ops.argmax(logits, 1), 1)
            out = {"logits": logits, "probabilities": probabilities, "class_ids": class_ids}
        # every class for every example, as TF's heads also predict them
        every = math_ops.range_(self.n_classes)
        out["all_class_ids"] = array_ops.tile(array_ops.expand_dims(every, 0), [array_ops.shape(logits)[0], 1])
        if self.label_vocabulary is not None:
            vocab = array_ops.constant([v.encode() if isinstance(v, str) else v for v in self.label_vocabulary])
            out["classes"] = slicing_ops.gather(vocab, class_ids)
            out["all_classes"] = slicing_ops.gather(vocab, out["all_class_ids"])
        else:
            out["classes"] = string_ops.as_string(class_ids)
            out["all_classes"] = string_ops.as_string(out["all_class_ids"])
        return out

    def _export_outputs(self, predictions) -> dict:
        """TF's heads' signatures: Classify (every class name and its probability) or Regress
        as the default, under its own name too, and Predict (every prediction)."""
        if self.kind == "regression":
            main, key = export_lib.RegressionOutput(predictions["predictions"]), "regression"
        else:
            main = export_lib.ClassificationOutput(scores=predictions["probabilities"],
                                                   classes=predictions["all_classes"])
            key = "classification"
        return {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: main, key: main,
                "predict": export_lib.PredictOutput(predictions)}

    def _metrics(self, unreduced, weights, labels, predictions) -> dict:
        weighted = weights if self.weight_column else None
        metrics = {"average_loss": metrics_lib.mean(unreduced, weights=weighted)}
        if self.kind == "regression":
            metrics["prediction/mean"] = metrics_lib.mean(predictions["predictions"], weights=weighted)
            metrics["label/mean"] = metrics_lib.mean(math_ops.cast(labels, dtypes.float32), weights=weighted)
            return metrics
        class_ids = array_ops.reshape(predictions["class_ids"], [-1])
        labels = array_ops.reshape(labels, [-1])
        w = array_ops.reshape(weights, [-1]) if self.weight_column else None  # (one per example, as TF weighs)
        metrics["accuracy"] = metrics_lib.accuracy(labels, class_ids, weights=w)
        if self.kind == "binary":
            logistic = array_ops.reshape(predictions["logistic"], [-1])
            labels_f = math_ops.cast(labels, dtypes.float32)
            metrics["auc"] = metrics_lib.auc(labels, logistic, weights=w)
            metrics["precision"] = metrics_lib.precision(labels, class_ids, weights=w)
            metrics["recall"] = metrics_lib.recall(labels, class_ids, weights=w)
            metrics["prediction/mean"] = metrics_lib.mean(logistic, weights=w)
            metrics["label/mean"] = label_mean = metrics_lib.mean(labels_f, weights=w)
            # (the accuracy of always guessing the more common label)
            metrics["accuracy_baseline"] = tuple(math_ops.maximum(t, 1.0 - t) for t in label_mean)
            metrics["auc_precision_recall"] = metrics_lib.auc(labels, logistic, weights=w, curve="PR")
        return metrics


class _MultiLabelHead(_Head):
    """Several of ``n_classes`` labels an example: one logit a class, sigmoid cross-entropy
    averaged over the classes (TF's multi_label_head)."""

    def __init__(self, n_classes, name=None, **kwargs):
        super().__init__("multi_label", n_classes=n_classes, **kwargs)
        self.name = name
        self.logits_dimension = n_classes

    def _labels(self, labels):
        """[batch, n_classes] of 0/1: dense multi-hot labels, or a SparseTensor of class ids
        (or of names, with ``label_vocabulary``)."""
        if isinstance(labels, SparseTensor):
            ids = labels.values
            if self.label_vocabulary is not None:
                ids = categorical_ops.vocabulary_lookup(ids, self.label_vocabulary)
            ids = SparseTensor(labels.indices, math_ops.cast(ids, dtypes.int64), labels.dense_shape)
            return math_ops.cast(sparse_ops.sparse_to_indicator(ids, self.n_classes), dtypes.int64)
        labels = math_ops.cast(ops.convert_to_tensor(labels), dtypes.int64)
        if labels.shape.ndims is not None and labels.shape[-1].value not in (None, self.n_classes):
            raise ValueError(f"multi_label_head: labels must be [batch, {self.n_classes}] (multi-hot), got shape "
                             f"{labels.shape}")
        return labels

    def _unreduced_loss(self, labels, logits):
        per_class = nn.sigmoid_cross_entropy_with_logits(labels=math_ops.cast(labels, logits.dtype), logits=logits)
        return reduction_ops.reduce_mean(per_class, axis=-1, keepdims=True)

    def _predictions(self, logits) -> dict:
        every = array_ops.tile(array_ops.expand_dims(math_ops.range_(self.n_classes), 0),
                               array_ops.stack([array_ops.shape(logits)[0], 1]))
        names = (slicing_ops.gather(array_ops.constant([v.encode() if isinstance(v, str) else v
                                                        for v in self.label_vocabulary]), every)
                 if self.label_vocabulary is not None else string_ops.as_string(every))
        return {"logits": logits, "probabilities": unary_ops.sigmoid(logits), "all_class_ids": every,
                "all_classes": names}

    def _metrics(self, unreduced, weights, labels, predictions) -> dict:
        weighted = weights if self.weight_column else None
        per_class_weights = None if weighted is None else array_ops.ones_like(predictions["probabilities"]) * weighted
        return {"average_loss": metrics_lib.mean(unreduced, weights=weighted),
                "auc": metrics_lib.auc(labels, predictions["probabilities"], weights=per_class_weights),
                "auc_precision_recall": metrics_lib.auc(labels, predictions["probabilities"],
                                                        weights=per_class_weights, curve="PR")}


def _head(n_classes, label_vocabulary, weight_column, loss_reduction):
    if n_classes is None or n_classes < 2:
        raise ValueError(f"n_classes must be > 1 for classification: {n_classes}")
    if label_vocabulary is not None and len(label_vocabulary) != n_classes:
        raise ValueError(f"label_vocabulary has {len(label_vocabulary)} entries for {n_classes} classes")
    return _Head("binary" if n_classes == 2 else "multi", n_classes=n_classes, label_vocabulary=label_vocabulary,
                 weight_column=weight_column, loss_reduction=loss_reduction)


def _dnn_logits(features, mode, hidden_units, feature_columns, units, activation_fn, dropout, batch_norm,
                input_layer_partitioner=None):
    with vs.variable_scope("dnn"):
        return dnn_layers(features, mode, hidden_units, feature_columns, units, activation_fn, dropout, batch_norm,
                          input_layer_partitioner)


def dnn_layers(features, mode, hidden_units, feature_columns, units, activation_fn, dropout, batch_norm,
               input_layer_partitioner=None):
    """A DNN's logits in the current variable scope (``input_from_feature_columns``,
    ``hiddenlayer_<i>``, ``logits``)."""
    with vs.variable_scope("input_from_feature_columns", partitioner=input_layer_partitioner):
        net = fc.input_layer(features, feature_columns)
    for i, width in enumerate(hidden_units):
        with vs.variable_scope(f"hiddenlayer_{i}"):
            net = _dense(net, width, activation_fn)
            if batch_norm:
                from ..layers import normalization  # noqa: PLC0415

                net = normalization.batch_normalization(net, training=mode == ModeKeys.TRAIN,
                                                        name="batchnorm_%d" % i)
            if dropout is not None and mode == ModeKeys.TRAIN:
                net = nn.dropout(net, rate=dropout)
    with vs.variable_scope("logits"):
        return _dense(net, units, None)


def _dense(net, units, activation):
    """A dense layer whose variables are ``kernel`` and ``bias`` in the current variable scope
    (TF's canned names: dnn/hiddenlayer_0/kernel)."""
    kernel = vs.get_variable("kernel", [net.shape[-1].value, units],
                             initializer=init_ops.glorot_uniform_initializer())
    bias = vs.get_variable("bias", [units], initializer=init_ops.zeros_initializer())
    out = math_ops.matmul(net, kernel) + bias
    return activation(out) if activation is not None else out


def _linear_logits(features, feature_columns, units, sparse_combiner, partitioner=None):
    with vs.variable_scope("linear", partitioner=partitioner):
        return fc.linear_model(features, feature_columns, units=units, sparse_combiner=sparse_combiner)


def _train_op_fn(parts):
    """``parts``: (optimizer, variable scope) pairs; one minimize each over its own variables,
    and the global step incremented once."""
    def train_op_fn(loss):
        updates = []
        for optimizer, scope in parts:
            var_list = [v for v in ops.get_collection(GraphKeys.TRAINABLE_VARIABLES) if v.op.name.startswith(scope)]
            updates.append(optimizer.minimize(loss, var_list=var_list))
        with ops.control_dependencies(updates):
            return state_ops.assign_add(get_global_step(), 1).op

    return train_op_fn


def _check_columns(columns, what):
    columns = list(columns or [])
    if not columns:
        raise ValueError(f"{what} must be a non-empty list of feature columns")
    return columns


class _Canned(Estimator):
    def __init__(self, model_fn, model_dir, config, warm_start_from):
        super().__init__(model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from)


# The default learning rates TF 1.x's canned estimators give a named optimizer: a DNN's
# Adagrad 0.05 and a linear model's Ftrl at most 0.2 (1/sqrt(columns) when that is less); in
# the wide-and-deep estimators the historical 0.001 and at most 0.005.
DNN_RATE, LINEAR_RATE = 0.05, 0.2
COMBINED_DNN_RATE, COMBINED_LINEAR_RATE = 0.001, 0.005


def _combined_model_fn(head, linear_columns, linear_optimizer, dnn_columns, dnn_optimizer, hidden_units,
                       activation_fn, dropout, batch_norm, sparse_combiner, rates=(DNN_RATE, LINEAR_RATE),
                       input_layer_partitioner=None, linear_partitioner=None):
    """The model function of a canned estimator; the partitioners cut the DNN's input layer
    and the linear model's variables (ops/partitioned_variables.py), as TF's arguments do."""
    linear_columns, dnn_columns = list(linear_columns or []), list(dnn_columns or [])
    if not linear_columns and not dnn_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
    if dnn_columns and not hidden_units:
        raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is specified.")

    def model_fn(features, labels, mode):
        parts, logits = [], []
        if dnn_columns:
            logits.append(_dnn_logits(features, mode, hidden_units, dnn_columns, head.logits_dimension, activation_fn,
                                      dropout, batch_norm, input_layer_partitioner))
            parts.append((_optimizer(dnn_optimizer, rates[0]), "dnn"))
        if linear_columns:
            logits.append(_linear_logits(features, linear_columns, head.logits_dimension, sparse_combiner,
                                         linear_partitioner))
            parts.append((_optimizer(linear_optimizer, min(rates[1], 1.0 / math.sqrt(len(linear_columns)))),
                          "linear"))
        return head.spec(features, mode, math_ops.add_n(logits) if len(logits) > 1 else logits[0], labels,
                         _train_op_fn(parts))

    return model_fn


class DNNClassifier(_Canned):
    """A feed-forward network classifier (``tf.estimator.DNNClassifier``)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Adagrad", activation_fn=nn.relu, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None, loss_reduction=Reduction.SUM,
                 batch_norm=False):
        head = _head(n_classes, label_vocabulary, weight_column, loss_reduction)
        super().__init__(_combined_model_fn(head, None, None, _check_columns(feature_columns, "feature_columns"),
                                            optimizer, hidden_units, activation_fn, dropout, batch_norm, "sum",
                                            input_layer_partitioner=input_layer_partitioner),
                         model_dir, config, warm_start_from)


class DNNRegressor(_Canned):
    """A feed-forward network regressor (``tf.estimator.DNNRegressor``)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Adagrad", activation_fn=nn.relu, dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False):
        head = _Head("regression", label_dimension=label_dimension, weight_column=weight_column,
                     loss_reduction=loss_reduction)
        super().__init__(_combined_model_fn(head, None, None, _check_columns(feature_columns, "feature_columns"),
                                            optimizer, hidden_units, activation_fn, dropout, batch_norm, "sum",
                                            input_layer_partitioner=input_layer_partitioner),
                         model_dir, config, warm_start_from)


class LinearClassifier(_Canned):
    """A linear model classifier (``tf.estimator.LinearClassifier``)."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        head = _head(n_classes, label_vocabulary, weight_column, loss_reduction)
        super().__init__(_combined_model_fn(head, _check_columns(feature_columns, "feature_columns"), optimizer,
                                            None, None, None, None, None, False, sparse_combiner,
                                            linear_partitioner=partitioner),
                         model_dir, config, warm_start_from)


class LinearRegressor(_Canned):
    """A linear regression model (``tf.estimator.LinearRegressor``)."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None, optimizer="Ftrl",
                 config=None, partitioner=None, warm_start_from=None, loss_reduction=Reduction.SUM,
                 sparse_combiner="sum"):
        head = _Head("regression", label_dimension=label_dimension, weight_column=weight_column,
                     loss_reduction=loss_reduction)
        super().__init__(_combined_model_fn(head, _check_columns(feature_columns, "feature_columns"), optimizer,
                                            None, None, None, None, None, False, sparse_combiner,
                                            linear_partitioner=partitioner),
                         model_dir, config, warm_start_from)


class DNNLinearCombinedClassifier(_Canned):
    """Wide (linear) and deep (DNN) together (``tf.estimator.DNNLinearCombinedClassifier``)."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None, dnn_activation_fn=nn.relu,
                 dnn_dropout=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None, loss_reduction=Reduction.SUM,
                 batch_norm=False, linear_sparse_combiner="sum"):
        head = _head(n_classes, label_vocabulary, weight_column, loss_reduction)
        super().__init__(_combined_model_fn(head, linear_feature_columns, linear_optimizer, dnn_feature_columns,
                                            dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                                            batch_norm, linear_sparse_combiner,
                                            (COMBINED_DNN_RATE, COMBINED_LINEAR_RATE), input_layer_partitioner),
                         model_dir, config, warm_start_from)


class DNNLinearCombinedRegressor(_Canned):
    """Wide and deep regression (``tf.estimator.DNNLinearCombinedRegressor``)."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None, dnn_activation_fn=nn.relu,
                 dnn_dropout=None, label_dimension=1, weight_column=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        head = _Head("regression", label_dimension=label_dimension, weight_column=weight_column,
                     loss_reduction=loss_reduction)
        super().__init__(_combined_model_fn(head, linear_feature_columns, linear_optimizer, dnn_feature_columns,
                                            dnn_optimizer, dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                                            batch_norm, linear_sparse_combiner,
                                            (COMBINED_DNN_RATE, COMBINED_LINEAR_RATE), input_layer_partitioner),
                         model_dir, config, warm_start_from)




BASELINE_RATE = 0.3  # (TF's baseline estimators' default learning rate for a named optimizer)


def _baseline_model_fn(head, optimizer):
    """Logits that are one learned bias per output (``baseline/bias``), whatever the features:
    the prior of the labels, as a reference for other models."""
    def model_fn(features, labels, mode):
        with vs.variable_scope("baseline"):
            bias = vs.get_variable("bias", [head.logits_dimension], initializer=init_ops.zeros_initializer())
            first = features if isinstance(features, ops.Tensor) else features[sorted(features)[0]]
            batch = array_ops.shape(ops.convert_to_tensor(first))[0]
            logits = bias * array_ops.ones(array_ops.stack([batch, head.logits_dimension]))
        return head.spec(features, mode, logits, labels, _train_op_fn([(_optimizer(optimizer, BASELINE_RATE),
                                                                         "baseline")]))

    return model_fn


class BaselineClassifier(_Canned):
    """Predicts each class with its frequency in the training labels (``tf.estimator.BaselineClassifier``)."""

    def __init__(self, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None, optimizer="Ftrl",
                 config=None, loss_reduction=Reduction.SUM):
        head = _head(n_classes, label_vocabulary, weight_column, loss_reduction)
        super().__init__(_baseline_model_fn(head, optimizer), model_dir, config, None)


class BaselineRegressor(_Canned):
    """Predicts the mean of the training labels (``tf.estimator.BaselineRegressor``)."""

    def __init__(self, model_dir=None, label_dimension=1, weight_column=None, optimizer="Ftrl", config=None,
                 loss_reduction=Reduction.SUM):
        head = _Head("regression", label_dimension=label_dimension, weight_column=weight_column,
                     loss_reduction=loss_reduction)
        super().__init__(_baseline_model_fn(head, optimizer), model_dir, config, None)


# -- the estimators that take a head (TF 1.15's tf.estimator; the heads are head.py's classes or
# tf.contrib.estimator's *_head functions) --------------------------------------------------------

def _public(head):
    if not isinstance(head, _Head) and not (hasattr(head, "spec") and hasattr(head, "logits_dimension")):
        raise TypeError(f"head must be a tf.estimator head (BinaryClassHead, MultiClassHead, RegressionHead, ...) "
                        f"or one of tf.contrib.estimator's (binary_classification_head, ...), got {head!r}")
    return head


class DNNEstimator(_Canned):
    """A feed-forward network with the given head (``tf.estimator.DNNEstimator``)."""

    def __init__(self, head, hidden_units, feature_columns, model_dir=None, optimizer="Adagrad",
                 activation_fn=nn.relu, dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, batch_norm=False):
        super().__init__(_combined_model_fn(_public(head), None, None, _check_columns(feature_columns,
                                                                                      "feature_columns"),
                                            optimizer, hidden_units, activation_fn, dropout, batch_norm, "sum",
                                            input_layer_partitioner=input_layer_partitioner),
                         model_dir, config, warm_start_from)


class LinearEstimator(_Canned):
    """A linear model with the given head (``tf.estimator.LinearEstimator``)."""

    def __init__(self, head, feature_columns, model_dir=None, optimizer="Ftrl", config=None, partitioner=None,
                 sparse_combiner="sum"):
        super().__init__(_combined_model_fn(_public(head), _check_columns(feature_columns, "feature_columns"),
                                            optimizer, None, None, None, None, None, False, sparse_combiner,
                                            linear_partitioner=partitioner), model_dir, config, None)


class DNNLinearCombinedEstimator(_Canned):
    """Wide and deep with the given head (``tf.estimator.DNNLinearCombinedEstimator``; the
    wide-and-deep estimators' default rates)."""

    def __init__(self, head, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None, dnn_activation_fn=nn.relu,
                 dnn_dropout=None, input_layer_partitioner=None, config=None, linear_sparse_combiner="sum"):
        super().__init__(_combined_model_fn(_public(head), linear_feature_columns, linear_optimizer,
                                            dnn_feature_columns, dnn_optimizer, dnn_hidden_units, dnn_activation_fn,
                                            dnn_dropout, False, linear_sparse_combiner,
                                            (COMBINED_DNN_RATE, COMBINED_LINEAR_RATE), input_layer_partitioner),
                         model_dir, config, None)


class BaselineEstimator(_Canned):
    """One learned bias per output with the given head (``tf.estimator.BaselineEstimator``)."""

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None):
        super().__init__(_baseline_model_fn(_public(head), optimizer), model_dir, config, None)
