"""``tf.contrib.estimator``'s heads and the estimators that take one (TF 1.5-1.15).

A head turns a model's logits into an ``EstimatorSpec``: the loss, the predictions, the
metrics and the exported signatures of a binary classifier, a multi-class classifier or a
regressor, as the canned estimators have them (estimator/canned.py's heads).
``head.create_estimator_spec(features, mode, logits, labels, optimizer=...)`` is what a
``model_fn`` returns; ``DNNEstimator``, ``LinearEstimator`` and ``RNNEstimator`` are the
canned models with the head given; ``multi_label_head`` is the head of examples with several
labels; ``poisson_regression_head`` and ``logistic_regression_head`` are regression heads
with a loss and an inverse link of their own (as ``regression_head(loss_fn=,
inverse_link_fn=)``); ``multi_head`` trains several heads over one model. (A
classification head's ``loss_fn`` or ``thresholds`` are not built.)
"""

from __future__ import annotations

from .. import metrics as metrics_lib
from .. import nn
from ..estimator.canned import (BaselineEstimator, DNNEstimator, DNNLinearCombinedEstimator,  # noqa: F401
                                LinearEstimator, _Canned, _Head, _MultiLabelHead, _public)
from ..estimator.estimator import EstimatorSpec, ModeKeys
from ..estimator.head import split_by_head
from ..framework import ops
from ..losses import Reduction
from ..ops import control_flow_ops, math_ops, unary_ops
from ..saved_model import signature_constants
from ..train.training_util import get_global_step
from .estimator_rnn import USE_DEFAULT, _checked, _rnn_model_fn


class _PublicHead(_Head):
    """A head a ``model_fn`` calls (``create_estimator_spec``)."""

    def __init__(self, kind, name=None, **kwargs):
        super().__init__(kind, **kwargs)
        self.name = name

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None, train_op_fn=None,
                              regularization_losses=None):
        """The EstimatorSpec of ``logits``: in TRAIN mode the train op is ``optimizer``'s minimize
        of the loss (with the global step), or ``train_op_fn(loss)``."""
        if mode == ModeKeys.TRAIN:
            if optimizer is not None and train_op_fn is not None:
                raise ValueError("train_op_fn and optimizer cannot both be set.")
            if optimizer is None and train_op_fn is None:
                raise ValueError("train_op_fn and optimizer cannot both be None.")
        if optimizer is not None:
            def train_op_fn(loss):
                return optimizer.minimize(loss, global_step=get_global_step())
        if mode != ModeKeys.PREDICT and labels is None:
            raise ValueError(f"The {self.kind} head needs labels in {mode} mode")
        return self.spec(features, mode, logits, labels, train_op_fn, regularization_losses)


def _not_built(loss_fn=None, thresholds=None):
    if loss_fn is not None:
        raise NotImplementedError("a head's loss_fn is not supported by distflow: its loss is the head's own")
    if thresholds is not None:
        raise NotImplementedError("a head's thresholds (precision and recall at thresholds) are not supported by "
                                  "distflow")


def binary_classification_head(weight_column=None, thresholds=None, label_vocabulary=None,
                               loss_reduction=Reduction.SUM_OVER_BATCH_SIZE, loss_fn=None, name=None):
    """A head for two classes: one logit, sigmoid cross-entropy."""
    _not_built(loss_fn, thresholds)
    if label_vocabulary is not None and len(label_vocabulary) != 2:
        raise ValueError(f"label_vocabulary must have 2 entries for a binary head, got {len(label_vocabulary)}")
    return _PublicHead("binary", name=name, n_classes=2, label_vocabulary=label_vocabulary,
                       weight_column=weight_column, loss_reduction=loss_reduction)


def multi_class_head(n_classes, weight_column=None, label_vocabulary=None,
                     loss_reduction=Reduction.SUM_OVER_BATCH_SIZE, loss_fn=None, name=None):
    """A head for ``n_classes`` (> 2) classes: softmax cross-entropy."""
    _not_built(loss_fn)
    if n_classes is None or n_classes <= 2:
        raise ValueError(f"n_classes must be > 2: {n_classes}")
    if label_vocabulary is not None and len(label_vocabulary) != n_classes:
        raise ValueError(f"label_vocabulary has {len(label_vocabulary)} entries for {n_classes} classes")
    return _PublicHead("multi", name=name, n_classes=n_classes, label_vocabulary=label_vocabulary,
                       weight_column=weight_column, loss_reduction=loss_reduction)


class _RegressionHead(_PublicHead):
    """A regression head with a loss of its own (``loss_fn(labels, logits)``, each example's
    loss, [batch, label_dimension]) and predictions ``inverse_link_fn(logits)``, the logits
    predicted beside them (TF's regression head with those arguments)."""

    def __init__(self, loss_fn=None, inverse_link_fn=None, **kwargs):
        super().__init__("regression", **kwargs)
        self._loss_fn, self._inverse_link_fn = loss_fn, inverse_link_fn

    def _unreduced_loss(self, labels, logits):
        if self._loss_fn is None:
            return super()._unreduced_loss(labels, logits)
        loss = ops.convert_to_tensor(self._loss_fn(labels=labels, logits=logits))
        if loss.shape.ndims is not None and loss.shape.ndims < 2:
            raise ValueError(f"loss_fn must return each example's loss, [batch, {self.logits_dimension}]; got shape "
                             f"{loss.shape}")
        return loss

    def _predictions(self, logits) -> dict:
        if self._inverse_link_fn is None:
            return super()._predictions(logits)
        return {"predictions": self._inverse_link_fn(logits), "logits": logits}


def regression_head(weight_column=None, label_dimension=1, loss_reduction=Reduction.SUM_OVER_BATCH_SIZE,
                    loss_fn=None, inverse_link_fn=None, name=None):
    """A head for ``label_dimension`` real labels: mean squared error, or ``loss_fn(labels,
    logits)``; the predictions are ``inverse_link_fn(logits)`` when it is given."""
    if label_dimension < 1:
        raise ValueError(f"Invalid label_dimension {label_dimension}.")
    return _RegressionHead(loss_fn, inverse_link_fn, name=name, label_dimension=label_dimension,
                           weight_column=weight_column, loss_reduction=loss_reduction)


def poisson_regression_head(weight_column=None, label_dimension=1, loss_reduction=Reduction.SUM_OVER_BATCH_SIZE,
                            compute_full_loss=True, name=None):
    """Counts: the logits are log rates, the loss ``tf.nn.log_poisson_loss`` (with Stirling's
    term unless ``compute_full_loss=False``), the predictions ``exp(logits)``."""
    def loss_fn(labels, logits):
        return nn.log_poisson_loss(targets=labels, log_input=logits, compute_full_loss=compute_full_loss)

    return regression_head(weight_column, label_dimension, loss_reduction, loss_fn, unary_ops.exp, name)


def logistic_regression_head(weight_column=None, loss_reduction=Reduction.SUM_OVER_BATCH_SIZE, name=None):
    """Labels in [0, 1]: sigmoid cross-entropy, predictions ``sigmoid(logits)``."""
    def loss_fn(labels, logits):
        return nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)

    return regression_head(weight_column, 1, loss_reduction, loss_fn, unary_ops.sigmoid, name)


class _PublicMultiLabelHead(_MultiLabelHead):
    """The multi-label head a ``model_fn`` calls (``create_estimator_spec``)."""

    create_estimator_spec = _PublicHead.create_estimator_spec


class _MultiHead:
    """Several heads over one model (multi-task learning: TF's ``multi_head``). The logits are a
    dict by head name, or one tensor whose last dimension the heads share in their order; the
    labels a dict by head name. The loss is the heads' losses weighted by ``head_weights`` and
    summed; the predictions are keyed ``(head name, key)``; the metrics ``<key>/<head name>``;
    the signatures the first head's (the default) and each head's under its name."""

    def __init__(self, heads, head_weights=None):
        self._heads = list(heads)
        if not self._heads:
            raise ValueError("Must specify heads. Given: []")
        if head_weights is not None and len(head_weights) != len(self._heads):
            raise ValueError(f"heads and head_weights must have the same size. Given len(heads): {len(self._heads)}."
                             f" Given len(head_weights): {len(head_weights)}.")
        for head in self._heads:
            if not getattr(head, "name", None):
                raise ValueError(f"All given heads must have name specified. Given: {head}")
        self._weights = [1.0] * len(self._heads) if head_weights is None else [float(w) for w in head_weights]
        self.name = "_".join(head.name for head in self._heads)
        self.kind = "multi_head"
        self.logits_dimension = sum(head.logits_dimension for head in self._heads)

    def _split_logits(self, logits):
        return split_by_head(self._heads, logits)

    def spec(self, features, mode, logits, labels, train_op_fn, regularization_losses=None):
        parts = self._split_logits(logits)
        if mode == ModeKeys.PREDICT:
            specs = [h.spec(features, mode, part, None, None) for h, part in zip(self._heads, parts)]
            return EstimatorSpec(mode, predictions=self._predictions(specs), export_outputs=self._exports(specs))
        if not isinstance(labels, dict):
            raise ValueError(f"labels must be a dict by head name for a multi_head, got {labels!r}")
        missing = [h.name for h in self._heads if h.name not in labels]
        if missing:
            raise ValueError(f"labels has no entries for the heads {missing}; given {sorted(labels)}")
        eval_mode = ModeKeys.EVAL if mode == ModeKeys.EVAL else ModeKeys.TRAIN
        specs = [h.spec(features, eval_mode, part, labels[h.name], lambda loss: control_flow_ops.no_op())
                 for h, part in zip(self._heads, parts)]
        loss = math_ops.add_n([w * spec.loss for w, spec in zip(self._weights, specs)])
        if regularization_losses:
            loss = math_ops.add_n([loss, *regularization_losses])
        predictions = self._predictions(specs)
        if mode == ModeKeys.TRAIN:
            return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op_fn(loss))
        metrics = {}
        for head, spec in zip(self._heads, specs):
            for key, value in (spec.eval_metric_ops or {}).items():
                metrics[f"{key}/{head.name}"] = value
            metrics[f"loss/{head.name}"] = metrics_lib.mean(spec.loss)
        return EstimatorSpec(mode, predictions=predictions, loss=loss, eval_metric_ops=metrics)

    create_estimator_spec = _PublicHead.create_estimator_spec

    def _predictions(self, specs) -> dict:
        return {(head.name, key): value for head, spec in zip(self._heads, specs)
                for key, value in spec.predictions.items()}

    def _exports(self, specs) -> dict:
        default = signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
        out = {default: specs[0].export_outputs[default]}
        for head, spec in zip(self._heads, specs):
            out[head.name] = spec.export_outputs[default]
            for key, value in spec.export_outputs.items():
                if key != default:
                    out[f"{head.name}/{key}"] = value
        return out


def multi_head(heads, head_weights=None):
    """A head of several named heads (the class's text)."""
    return _MultiHead(heads, head_weights)


def multi_label_head(n_classes, weight_column=None, thresholds=None, label_vocabulary=None,
                     loss_reduction=Reduction.SUM_OVER_BATCH_SIZE, loss_fn=None,
                     classes_for_class_based_metrics=None, name=None):
    """A head for examples with any number of ``n_classes`` (> 1) labels each: one sigmoid a
    class. Labels are multi-hot [batch, n_classes], or a SparseTensor of class ids (names,
    with ``label_vocabulary``)."""
    _not_built(loss_fn, thresholds)
    if classes_for_class_based_metrics is not None:
        raise NotImplementedError("multi_label_head(classes_for_class_based_metrics=) is not supported by distflow")
    if n_classes is None or n_classes < 2:
        raise ValueError(f"n_classes must be > 1 for multi-class classification. Given: {n_classes}")
    if label_vocabulary is not None and len(label_vocabulary) != n_classes:
        raise ValueError(f"label_vocabulary has {len(label_vocabulary)} entries for {n_classes} classes")
    return _PublicMultiLabelHead(n_classes, name=name, label_vocabulary=label_vocabulary, weight_column=weight_column,
                           loss_reduction=loss_reduction)


class RNNEstimator(_Canned):
    """A recurrent network over sequence columns with the given head
    (``tf.contrib.estimator.RNNEstimator``; the model is RNNClassifier's)."""

    def __init__(self, head, sequence_feature_columns, context_feature_columns=None, num_units=None,
                 cell_type=USE_DEFAULT, rnn_cell_fn=None, model_dir=None, optimizer="Adagrad",
                 input_layer_partitioner=None, config=None):
        columns, cell_fn = _checked(sequence_feature_columns, num_units, rnn_cell_fn, cell_type)
        super().__init__(_rnn_model_fn(_public(head), columns, context_feature_columns, cell_fn, optimizer,
                                       input_layer_partitioner), model_dir, config, None)
