"""TF 2's head classes, which TF 1.15 exports too: ``tf.estimator.BinaryClassHead``,
``MultiClassHead``, ``MultiLabelHead``, ``RegressionHead``, ``PoissonRegressionHead``,
``LogisticRegressionHead``, ``MultiHead``, and their interface ``Head``.

A head turns logits into what an Estimator needs, piece by piece: ``loss(labels, logits,
features)`` (the weighted loss reduced as ``loss_reduction`` says, by default its sum over
the batch's entries divided by their number, plus any regularization losses),
``predictions(logits, keys)``, ``metrics()`` (fresh tf.keras.metrics objects by key),
``update_metrics(eval_metrics, features, logits, labels)``, and all of them together,
``create_estimator_spec(features, mode, logits, labels, optimizer=...)``. The canned
estimators that take a head (``DNNEstimator`` and the others) take these. Metric keys are
TF's (``accuracy``, ``auc``, ``average_loss``, ...), with ``/<name>`` after them for a named
head; the predictions and signatures are the canned estimators' (estimator/canned.py).

Differences from TF: ``loss_reduction`` may be given as a ``tf.losses.Reduction`` too (TF
1.15 took only Keras's names); ``optimizer`` may be a ``tf.train`` optimizer besides a Keras
one, and without ``trainable_variables`` the graph's trainable variables are trained (TF
refused that); a binary head's ``loss_fn`` takes float labels of shape [batch, 1], a
multi-class head's integer ones, as TF's do.
"""

from __future__ import annotations

import functools
import inspect

from ..framework import dtypes, ops
from ..losses import Reduction, compute_weighted_loss
from ..ops import array_ops, control_flow_ops, math_ops, slicing_ops, state_ops, unary_ops
from ..ops.special_math_ops import div_no_nan
from ..train.training_util import get_global_step
from .canned import _Head, _MultiLabelHead
from .estimator import EstimatorSpec, ModeKeys

# Keras's reductions (TF 2's heads take these) and tf.losses' (TF 1.x's canned estimators')
_REDUCTIONS = {"auto": Reduction.SUM_OVER_BATCH_SIZE, "sum_over_batch_size": Reduction.SUM_OVER_BATCH_SIZE,
               "sum": Reduction.SUM, Reduction.SUM: Reduction.SUM, Reduction.MEAN: Reduction.MEAN,
               Reduction.SUM_OVER_BATCH_SIZE: Reduction.SUM_OVER_BATCH_SIZE,
               Reduction.SUM_BY_NONZERO_WEIGHTS: Reduction.SUM_BY_NONZERO_WEIGHTS}


def _reduction(value):
    if value not in _REDUCTIONS:
        raise ValueError(f"Invalid loss_reduction: {value}. It must be one of {sorted(set(_REDUCTIONS))}; 'none' "
                         "reduces nothing, which a head cannot train on.")
    return _REDUCTIONS[value]


def _check_loss_fn(loss_fn):
    if loss_fn is None:
        return None
    params = inspect.signature(loss_fn).parameters
    for needed in ("labels", "logits"):
        if needed not in params:
            raise ValueError(f"loss_fn must contain argument: {needed}. Given arguments: {tuple(params)}")
    extra = set(params) - {"labels", "logits", "features", "loss_reduction"}
    if extra:
        raise ValueError(f"loss_fn has unexpected args: {sorted(extra)}")
    return loss_fn


def _metrics():
    from ..keras import metrics as keras_metrics  # noqa: PLC0415 (Keras is loaded only for a head's metrics)

    return keras_metrics


class Head:
    """The interface of a head (the module's text). Subclasses set ``_impl`` (the canned
    estimators' head that computes labels, losses and predictions) and the metrics."""

    def __init__(self, impl, name, loss_reduction, loss_fn=None, weight_column=None):
        self._impl = impl
        self._name = name
        self._loss_reduction = loss_reduction
        self._reduce = _reduction(loss_reduction)
        self._loss_fn = _check_loss_fn(loss_fn)
        self._weight_column = weight_column

    @property
    def name(self):
        return self._name

    @property
    def logits_dimension(self) -> int:
        return self._impl.logits_dimension

    @property
    def loss_reduction(self):
        return self._loss_reduction

    def _key(self, key: str) -> str:
        return f"{key}/{self._name}" if self._name else key

    # -- the pieces ------------------------------------------------------------------------
    def _logits(self, logits):
        logits = ops.convert_to_tensor(logits)
        last = logits.shape[-1].value if logits.shape.ndims else None
        if last is not None and last != self.logits_dimension:
            raise ValueError(f"logits shape must be [D0, D1, ... DN, logits_dimension], got {logits.shape} for "
                             f"logits_dimension={self.logits_dimension}")
        return logits

    def _labels(self, labels):
        if labels is None:
            raise ValueError("You must provide a labels Tensor. Given: None. Suggested troubleshooting steps: "
                             "check that your data contains your label feature, and that your input_fn gives it.")
        return self._impl._labels(labels)

    def _loss_labels(self, labels):
        """The labels as the loss takes them (and a ``loss_fn`` is given them)."""
        return labels

    def _unweighted_loss(self, labels, logits, features):
        """Each example's loss, [batch, 1] (or [batch, label_dimension])."""
        if self._loss_fn is None:
            return self._impl._unreduced_loss(labels, logits)
        kwargs = {"labels": self._loss_labels(labels), "logits": logits}
        params = inspect.signature(self._loss_fn).parameters
        if "features" in params:
            kwargs["features"] = features
        if "loss_reduction" in params:
            kwargs["loss_reduction"] = self._loss_reduction
        loss = ops.convert_to_tensor(self._loss_fn(**kwargs))
        if loss.shape.ndims is not None and loss.shape.ndims < 2:
            raise ValueError(f"loss_fn must return each example's loss, [D0, ... DN, {self.logits_dimension}] or "
                             f"[D0, ... DN, 1]; got shape {loss.shape}")
        return loss

    def _weights(self, features):
        """Each example's weight, [batch, 1], or None without a weight column."""
        if self._weight_column is None:
            return None
        return self._impl._weights(features or {})

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The training loss: weighted, reduced, plus the regularization losses."""
        with ops.name_scope("losses"):
            logits = self._logits(logits)
            labels = self._labels(labels)
            unweighted = self._unweighted_loss(labels, logits, features)
            weights = self._weights(features)
            loss = compute_weighted_loss(unweighted, 1.0 if weights is None else weights, reduction=self._reduce)
            if regularization_losses:
                loss = loss + math_ops.add_n(list(regularization_losses))
            return loss

    def _all_predictions(self, logits) -> dict:
        return self._impl._predictions(logits)

    def predictions(self, logits, keys=None) -> dict:
        """The predictions by key (all of them, or those of ``keys``)."""
        with ops.name_scope("predictions"):
            out = self._all_predictions(self._logits(logits))
        if not keys:
            return out
        keys = [keys] if isinstance(keys, str) else list(keys)
        for key in keys:
            if key not in out:
                raise ValueError(f"Prediction key must be in PredictionKeys, given: {key}. Valid prediction keys "
                                 f"include {sorted(out)}.")
        return {key: out[key] for key in keys}

    def metrics(self, regularization_losses=None) -> dict:
        """Fresh metric objects by key."""
        M = _metrics()
        out = {self._key("average_loss"): M.Mean(name="average_loss")}
        out.update(self._own_metrics(M))
        if regularization_losses is not None:
            out[self._key("regularization_loss")] = M.Mean(name="regularization_loss")
        return out

    def update_metrics(self, eval_metrics, features, logits, labels, mode=None, regularization_losses=None) -> dict:
        """``eval_metrics`` updated with a batch; returns them."""
        logits = self._logits(logits)
        labels = self._labels(labels)
        weights = self._weights(features)
        eval_metrics[self._key("average_loss")].update_state(self._unweighted_loss(labels, logits, features),
                                                             sample_weight=weights)
        self._update_own(eval_metrics, self.predictions(logits), labels, weights)
        if regularization_losses is not None:
            eval_metrics[self._key("regularization_loss")].update_state(math_ops.add_n(list(regularization_losses)))
        return eval_metrics

    def _own_metrics(self, M) -> dict:
        return {}

    _thresholds: tuple = ()

    def _threshold_metrics(self, M) -> dict:
        """Accuracy, precision and recall at each of the head's thresholds (a prediction above
        one is positive), keyed ``<metric>/positive_threshold_<t>``."""
        out = {}
        for t in self._thresholds:
            for kind, cls, arg in (("accuracy", M.BinaryAccuracy, "threshold"),
                                   ("precision", M.Precision, "thresholds"), ("recall", M.Recall, "thresholds")):
                key = self._key(f"{kind}/positive_threshold_{t:g}")
                out[key] = cls(name=key, **{arg: t})
        return out

    def _update_thresholds(self, eval_metrics, labels, scores, weights) -> None:
        for t in self._thresholds:
            for kind in ("accuracy", "precision", "recall"):
                eval_metrics[self._key(f"{kind}/positive_threshold_{t:g}")].update_state(labels, scores,
                                                                                        sample_weight=weights)

    def _update_own(self, eval_metrics, predictions, labels, weights) -> None:
        pass

    # -- all together ----------------------------------------------------------------------
    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None, trainable_variables=None,
                              train_op_fn=None, update_ops=None, regularization_losses=None) -> EstimatorSpec:
        """The EstimatorSpec of ``logits``: in TRAIN mode the train op is ``optimizer``'s step
        on the loss over ``trainable_variables`` (with the global step and ``update_ops``), or
        ``train_op_fn(loss)``."""
        with ops.name_scope(self._name or "head"):
            predictions = self.predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(mode, predictions=predictions, export_outputs=self._export_outputs(predictions))
            loss = self.loss(labels, logits, features, mode, regularization_losses)
            if mode == ModeKeys.EVAL:
                metrics = self.update_metrics(self.metrics(regularization_losses), features, logits, labels, mode,
                                              regularization_losses)
                return EstimatorSpec(mode, predictions=predictions, loss=loss, eval_metric_ops=metrics)
            train_op = _train_op(loss, optimizer, train_op_fn, trainable_variables, update_ops)
        return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op)

    def spec(self, features, mode, logits, labels, train_op_fn, regularization_losses=None) -> EstimatorSpec:
        """What a canned estimator calls (estimator/canned.py)."""
        return self.create_estimator_spec(features, mode, logits, labels, train_op_fn=train_op_fn,
                                          regularization_losses=regularization_losses)

    def _export_outputs(self, predictions) -> dict:
        return self._impl._export_outputs(predictions)


def _train_op(loss, optimizer, train_op_fn, trainable_variables, update_ops):
    if optimizer is not None and train_op_fn is not None:
        raise ValueError(f"train_op_fn and optimizer cannot both be set. train_op_fn: {train_op_fn}. optimizer: "
                         f"{optimizer}.")
    if optimizer is None and train_op_fn is None:
        raise ValueError("train_op_fn and optimizer cannot both be None.")
    if train_op_fn is not None:
        train_op = train_op_fn(loss)
    else:
        variables = list(trainable_variables) if trainable_variables is not None else \
            state_ops.trainable_variables()
        step = get_global_step()
        if hasattr(optimizer, "_make"):  # (a Keras optimizer: its step, then the global step's)
            train_op = optimizer.minimize(loss, variables)
            if step is not None:
                with ops.control_dependencies([train_op]):
                    train_op = step.assign_add(1).op
        else:
            train_op = optimizer.minimize(loss, var_list=variables, global_step=step)
    if update_ops:
        train_op = control_flow_ops.group(train_op, *update_ops)
    return train_op


def _float_column(labels):
    return math_ops.cast(array_ops.reshape(labels, [-1, 1]), dtypes.float32)


def _thresholds(thresholds) -> tuple:
    thresholds = tuple(thresholds) if thresholds else ()
    for threshold in thresholds:
        if not 0.0 < threshold < 1.0:
            raise ValueError(f"thresholds not in (0, 1): {thresholds}.")
    return thresholds


def _vocabulary(label_vocabulary, n_classes):
    if label_vocabulary is None:
        return None
    if not isinstance(label_vocabulary, (list, tuple)):
        raise ValueError(f"label_vocabulary should be a list or a tuple. Given type: {type(label_vocabulary)}")
    if len(label_vocabulary) != n_classes:
        raise ValueError(f"label_vocabulary has {len(label_vocabulary)} entries for {n_classes} classes")
    return label_vocabulary


class BinaryClassHead(Head):
    """Two classes: one logit, sigmoid cross-entropy. Metrics ``accuracy``, ``precision``,
    ``recall``, ``auc``, ``auc_precision_recall``, ``prediction/mean``, ``label/mean``,
    ``accuracy_baseline``, ``average_loss``, and at each of ``thresholds``
    ``accuracy/positive_threshold_<t>`` (and precision and recall)."""

    def __init__(self, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction="sum_over_batch_size", loss_fn=None, name=None):
        impl = _Head("binary", n_classes=2, label_vocabulary=_vocabulary(label_vocabulary, 2),
                     weight_column=weight_column)
        super().__init__(impl, name, loss_reduction, loss_fn, weight_column)
        self._thresholds = _thresholds(thresholds)

    def _loss_labels(self, labels):
        return _float_column(labels)

    def _own_metrics(self, M) -> dict:
        out = {self._key("accuracy"): M.Accuracy(name="accuracy"),
               self._key("precision"): M.Precision(name="precision"),
               self._key("recall"): M.Recall(name="recall"),
               self._key("prediction/mean"): M.Mean(name="prediction/mean"),
               self._key("label/mean"): M.Mean(name="label/mean"),
               self._key("auc"): M.AUC(name="auc"),
               self._key("auc_precision_recall"): M.AUC(curve="PR", name="auc_precision_recall")}
        out[self._key("accuracy_baseline")] = _AccuracyBaseline(out[self._key("label/mean")])
        return {**out, **self._threshold_metrics(M)}

    def _update_own(self, eval_metrics, predictions, labels, weights) -> None:
        labels = _float_column(labels)
        class_ids, logistic = predictions["class_ids"], predictions["logistic"]
        w = None if weights is None else weights * array_ops.ones_like(logistic)
        for key in ("accuracy", "precision", "recall"):
            eval_metrics[self._key(key)].update_state(labels, class_ids, sample_weight=w)
        eval_metrics[self._key("prediction/mean")].update_state(logistic, sample_weight=w)
        eval_metrics[self._key("label/mean")].update_state(labels, sample_weight=w)
        eval_metrics[self._key("accuracy_baseline")].update_state()
        for key in ("auc", "auc_precision_recall"):
            eval_metrics[self._key(key)].update_state(labels, logistic, sample_weight=w)
        self._update_thresholds(eval_metrics, labels, logistic, w)

    def _export_outputs(self, predictions) -> dict:
        from . import export as export_lib  # noqa: PLC0415

        out = dict(self._impl._export_outputs(predictions))
        out["regression"] = export_lib.RegressionOutput(predictions["logistic"])  # (TF 2's binary head adds it)
        return out


@functools.lru_cache(maxsize=None)
def _accuracy_baseline_class():
    M = _metrics()

    class AccuracyBaseline(M.Metric):
        """The accuracy of always predicting the more common label: max(mean, 1 - mean) of the
        labels, read from the ``label/mean`` metric (it keeps no totals of its own)."""

        def __init__(self, label_mean, name="accuracy_baseline"):
            super().__init__(name=name)
            self._label_mean = label_mean

        def update_state(self):
            return control_flow_ops.no_op()

        def result(self):
            total, count = self._label_mean.total.value(), self._label_mean.count.value()
            return div_no_nan(math_ops.maximum(total, count - total), count)

    return AccuracyBaseline


def _AccuracyBaseline(label_mean):  # noqa: N802 (made as a class is)
    return _accuracy_baseline_class()(label_mean)


class MultiClassHead(Head):
    """``n_classes`` (> 2) classes: softmax cross-entropy. Metrics ``accuracy`` and
    ``average_loss``."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None, loss_reduction="sum_over_batch_size",
                 loss_fn=None, name=None):
        if n_classes is None or n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        impl = _Head("multi", n_classes=n_classes, label_vocabulary=_vocabulary(label_vocabulary, n_classes),
                     weight_column=weight_column)
        super().__init__(impl, name, loss_reduction, loss_fn, weight_column)

    def _loss_labels(self, labels):
        return array_ops.reshape(labels, [-1, 1])

    def _own_metrics(self, M) -> dict:
        return {self._key("accuracy"): M.Accuracy(name="accuracy")}

    def _update_own(self, eval_metrics, predictions, labels, weights) -> None:
        eval_metrics[self._key("accuracy")].update_state(array_ops.reshape(labels, [-1, 1]),
                                                         predictions["class_ids"], sample_weight=weights)


class MultiLabelHead(Head):
    """Any number of ``n_classes`` labels an example: one sigmoid a class (the contrib head's
    model). Metrics ``auc``, ``auc_precision_recall``, ``average_loss``, and at each of
    ``thresholds`` accuracy, precision and recall."""

    def __init__(self, n_classes, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction="sum_over_batch_size", loss_fn=None, classes_for_class_based_metrics=None, name=None):
        if classes_for_class_based_metrics is not None:
            raise NotImplementedError("MultiLabelHead(classes_for_class_based_metrics=) is not supported by distflow")
        if n_classes is None or n_classes < 2:
            raise ValueError(f"n_classes must be > 1 for multi-label classification. Given: {n_classes}")
        impl = _MultiLabelHead(n_classes, label_vocabulary=_vocabulary(label_vocabulary, n_classes),
                               weight_column=weight_column)
        super().__init__(impl, name, loss_reduction, loss_fn, weight_column)
        self._thresholds = _thresholds(thresholds)

    def _own_metrics(self, M) -> dict:
        return {self._key("auc"): M.AUC(name="auc"),
                self._key("auc_precision_recall"): M.AUC(curve="PR", name="auc_precision_recall"),
                **self._threshold_metrics(M)}

    def _update_own(self, eval_metrics, predictions, labels, weights) -> None:
        probabilities = predictions["probabilities"]
        w = None if weights is None else weights * array_ops.ones_like(probabilities)
        for key in ("auc", "auc_precision_recall"):
            eval_metrics[self._key(key)].update_state(labels, probabilities, sample_weight=w)
        self._update_thresholds(eval_metrics, labels, probabilities, w)


class RegressionHead(Head):
    """``label_dimension`` real labels: mean squared error, or ``loss_fn(labels, logits)``;
    the predictions ``inverse_link_fn(logits)`` when it is given. Metrics ``average_loss``,
    ``prediction/mean`` and ``label/mean``."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction="sum_over_batch_size", loss_fn=None,
                 inverse_link_fn=None, name=None):
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        impl = _Head("regression", label_dimension=label_dimension, weight_column=weight_column)
        super().__init__(impl, name, loss_reduction, loss_fn, weight_column)
        self._inverse_link_fn = inverse_link_fn

    def _all_predictions(self, logits) -> dict:
        if self._inverse_link_fn is None:
            return super()._all_predictions(logits)
        return {"predictions": self._inverse_link_fn(logits), "logits": logits}

    def _own_metrics(self, M) -> dict:
        return {self._key("prediction/mean"): M.Mean(name="prediction/mean"),
                self._key("label/mean"): M.Mean(name="label/mean")}

    def _update_own(self, eval_metrics, predictions, labels, weights) -> None:
        values = predictions["predictions"]
        w = None if weights is None else weights * array_ops.ones_like(values)
        eval_metrics[self._key("prediction/mean")].update_state(values, sample_weight=w)
        eval_metrics[self._key("label/mean")].update_state(labels, sample_weight=w)


class PoissonRegressionHead(RegressionHead):
    """Counts: the logits are log rates, the loss ``tf.nn.log_poisson_loss`` (Stirling's term
    unless ``compute_full_loss=False``), the predictions ``exp(logits)``."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction="sum_over_batch_size",
                 compute_full_loss=True, name=None):
        from .. import nn  # noqa: PLC0415

        def loss_fn(labels, logits):
            return nn.log_poisson_loss(targets=labels, log_input=logits, compute_full_loss=compute_full_loss)

        super().__init__(label_dimension, weight_column, loss_reduction, loss_fn, unary_ops.exp, name)


class LogisticRegressionHead(RegressionHead):
    """Labels in [0, 1]: sigmoid cross-entropy, predictions ``sigmoid(logits)``."""

    def __init__(self, weight_column=None, loss_reduction="sum_over_batch_size", name=None):
        from .. import nn  # noqa: PLC0415

        def loss_fn(labels, logits):
            return nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)

        super().__init__(1, weight_column, loss_reduction, loss_fn, unary_ops.sigmoid, name)


def split_by_head(heads, logits) -> list:
    """Each head's logits: from a dict by head name, or cut from one tensor's last dimension
    in the heads' order."""
    if isinstance(logits, dict):
        missing = [h.name for h in heads if h.name not in logits]
        if missing:
            raise ValueError(f"logits has no entries for the heads {missing}; given {sorted(logits)}")
        return [logits[h.name] for h in heads]
    return slicing_ops.split(logits, [h.logits_dimension for h in heads], axis=-1)


class MultiHead(Head):
    """Several named heads over one model: logits a dict by head name (or one tensor the heads
    share in order along its last dimension), labels a dict by head name. The loss is the
    heads' losses weighted by ``head_weights`` and summed; predictions are keyed
    ``(head name, key)``; metrics are each head's (keyed ``<key>/<head name>``) and each
    head's loss, ``loss/<head name>``."""

    def __init__(self, heads, head_weights=None):
        heads = list(heads)
        if not heads:
            raise ValueError("Must specify heads. Given: []")
        if head_weights is not None and len(head_weights) != len(heads):
            raise ValueError(f"heads and head_weights must have the same size. Given len(heads): {len(heads)}. "
                             f"Given len(head_weights): {len(head_weights)}.")
        for head in heads:
            if not getattr(head, "name", None):
                raise ValueError(f"All given heads must have name specified. Given: {head}")
            if isinstance(head, MultiHead):
                raise ValueError("MultiHead does not support nested MultiHead.")
        self._heads = heads
        self._head_weights = [1.0] * len(heads) if head_weights is None else [float(w) for w in head_weights]
        self._name = "_".join(h.name for h in heads)
        self._loss_reduction = heads[0].loss_reduction

    @property
    def logits_dimension(self) -> int:
        return sum(h.logits_dimension for h in self._heads)

    def _split(self, logits) -> list:
        return split_by_head(self._heads, logits)

    def _labels_of(self, labels) -> list:
        if not isinstance(labels, dict):
            raise ValueError(f"labels must be a dict by head name for a MultiHead, got {labels!r}")
        missing = [h.name for h in self._heads if h.name not in labels]
        if missing:
            raise ValueError(f"labels has no entries for the heads {missing}; given {sorted(labels)}")
        return [labels[h.name] for h in self._heads]

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        losses = [w * h.loss(y, part, features, mode) for h, w, y, part in
                  zip(self._heads, self._head_weights, self._labels_of(labels), self._split(logits))]
        total = math_ops.add_n(losses)
        if regularization_losses:
            total = total + math_ops.add_n(list(regularization_losses))
        return total

    def predictions(self, logits, keys=None) -> dict:
        return {(h.name, k): v for h, part in zip(self._heads, self._split(logits))
                for k, v in h.predictions(part, keys).items()}

    def metrics(self, regularization_losses=None) -> dict:
        M = _metrics()
        out = {}
        for head in self._heads:
            out.update(head.metrics())
            out[f"loss/{head.name}"] = M.Mean(name=f"loss/{head.name}")
        if regularization_losses is not None:
            out["regularization_loss"] = M.Mean(name="regularization_loss")
        return out

    def update_metrics(self, eval_metrics, features, logits, labels, mode=None, regularization_losses=None) -> dict:
        for head, part, y in zip(self._heads, self._split(logits), self._labels_of(labels)):
            head.update_metrics(eval_metrics, features, part, y, mode)
            eval_metrics[f"loss/{head.name}"].update_state(head.loss(y, part, features, mode))
        if regularization_losses is not None:
            eval_metrics["regularization_loss"].update_state(math_ops.add_n(list(regularization_losses)))
        return eval_metrics

    def _export_outputs(self, predictions) -> dict:
        from ..saved_model import signature_constants  # noqa: PLC0415

        default = signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
        out = {}
        for i, head in enumerate(self._heads):
            own = head._export_outputs({k: v for (name, k), v in predictions.items() if name == head.name})
            if i == 0:
                out[default] = own[default]
            out[head.name] = own[default]
            out.update({f"{head.name}/{key}": value for key, value in own.items() if key != default})
        return out
