"""``tf.contrib.tensor_forest.client.random_forest``: Estimators of random forests grown online
(``TensorForestEstimator`` with contrib.learn's ``fit``/``evaluate``/``predict``, and
``CoreTensorForestEstimator``, a ``tf.estimator.Estimator``).

Training runs the forest's ``training_graph`` on each batch and counts the global step. A
classifier's predictions are the forest's class probabilities (``probabilities``), its
choice (``class_ids``, ``classes``) and their logarithms as ``logits``; its loss and metrics are
the multi-class head's (cross-entropy of those probabilities, ``accuracy``), for any number of
classes. A regressor predicts the trees' mean (``predictions``) and their ``variance``.
``TensorForestLossHook`` stops training once the trees stop growing: when the forest's
training loss (its negative average size) has not fallen by ``early_stopping_loss_threshold``
of itself for ``early_stopping_rounds`` steps. ``report_feature_importances`` logs the
features' shares of the splits when training ends. Features are a tensor, a dict of dense
tensors (in the order of their keys), or ``feature_columns`` (through ``input_layer``).
"""

from __future__ import annotations

import numpy as np

from ....estimator.canned import _Head
from ....estimator.estimator import Estimator, ModeKeys
from ....feature_column import feature_column as fc
from ....framework import ops
from ....losses import Reduction
from ....ops import math_ops, state_ops, unary_ops
from ....platform import tf_logging as logging
from ....train import session_run_hook, training_util
from ...learn_estimators import _Classifier, _batch
from ..python import tensor_forest

KEYS_NAME = "keys"
LOSS_NAME = "rf_training_loss"
TREE_PATHS_PREDICTION_KEY = "tree_paths"
VARIANCE_PREDICTION_KEY = "prediction_variance"
ALL_SERVING_KEY = "tensorforest_all"
EPSILON = 0.000001


class TensorForestLossHook(session_run_hook.SessionRunHook):
    """Asks training to stop when the loss has not fallen by ``early_stopping_loss_threshold``
    of itself for ``early_stopping_rounds`` steps."""

    def __init__(self, early_stopping_rounds, early_stopping_loss_threshold=None, loss_op=None):
        self.early_stopping_rounds = early_stopping_rounds
        self.early_stopping_loss_threshold = early_stopping_loss_threshold or 0.0
        self.loss_op = loss_op
        self.min_loss, self.min_loss_step, self.steps, self.last_step = None, 0, 0, -1

    def before_run(self, run_context):
        loss = self.loss_op if self.loss_op is not None else ops.get_default_graph().get_tensor_by_name(
            LOSS_NAME + ":0")
        return session_run_hook.SessionRunArgs({"global_step": training_util.get_global_step(),
                                                "current_loss": loss})

    def after_run(self, run_context, run_values):
        loss, step = run_values.results["current_loss"], run_values.results["global_step"]
        self.steps += 1
        if self.last_step == -1 or self.last_step > step:  # (a new training, or a restore)
            self.last_step, self.min_loss, self.min_loss_step = step, None, 0
            return
        self.last_step = step
        if self.min_loss is None or loss < self.min_loss - abs(self.min_loss) * self.early_stopping_loss_threshold:
            self.min_loss, self.min_loss_step = loss, self.steps
        elif self.steps - self.min_loss_step >= self.early_stopping_rounds:
            logging.info("Stopping training: the forest's loss has not fallen for %d steps", self.steps
                         - self.min_loss_step)
            run_context.request_stop()


class TensorForestRunOpAtEndHook(session_run_hook.SessionRunHook):
    """Runs the ops of ``op_dict`` when the session ends and logs their values."""

    def __init__(self, op_dict):
        self._ops = op_dict

    def end(self, session):
        for name, op in sorted(self._ops.items()):
            logging.info("%s: %s", name, session.run(op))


def _forest_input(features, feature_columns, keys_name, weights_name):
    if feature_columns:
        return fc.input_layer(features, list(feature_columns))
    if isinstance(features, dict):
        return {k: v for k, v in features.items() if k not in (keys_name, weights_name)}
    return features


def get_model_fn(params, graph_builder_class, device_assigner, feature_columns=None, weights_name=None,
                 model_head=None, keys_name=None, early_stopping_rounds=100, early_stopping_loss_threshold=0.001,
                 num_trainers=1, trainer_id=0, report_feature_importances=False, local_eval=False, head_scope=None,
                 include_all_in_serving=False):
    """The model_fn of a forest Estimator (the module's text)."""
    del local_eval, head_scope, include_all_in_serving
    regression = bool(params.regression)
    head = model_head or (_Head("regression", label_dimension=params.num_classes, weight_column=weights_name,
                                loss_reduction=Reduction.SUM_OVER_BATCH_SIZE) if regression else
                          _Head("multi", n_classes=params.num_classes, weight_column=weights_name,
                                loss_reduction=Reduction.SUM_OVER_BATCH_SIZE))

    def model_fn(features, labels, mode):
        data = _forest_input(features, feature_columns, keys_name, weights_name)
        builder = graph_builder_class(params, device_assigner=device_assigner, training=mode == ModeKeys.TRAIN)
        probabilities, paths, variance = builder.inference_graph(data)
        logits = probabilities if regression else unary_ops.log(math_ops.maximum(probabilities, EPSILON))
        training_loss = builder.training_loss(data, labels, name=LOSS_NAME) if mode == ModeKeys.TRAIN else None

        def train_op_fn(unused_loss):
            weights = None
            if weights_name is not None and isinstance(features, dict):
                weights = features[weights_name]
            grow = builder.training_graph(data, labels, num_trainers=num_trainers, trainer_id=trainer_id,
                                          input_weights=weights)
            with ops.control_dependencies([grow]):
                return state_ops.assign_add(training_util.get_global_step(), 1).op

        spec = head.spec(features, mode, logits, labels, train_op_fn)
        predictions = dict(spec.predictions or {})
        predictions[TREE_PATHS_PREDICTION_KEY] = paths
        if regression:
            predictions[VARIANCE_PREDICTION_KEY] = variance
        if keys_name is not None and isinstance(features, dict) and keys_name in features:
            predictions[KEYS_NAME] = features[keys_name]
        hooks = list(spec.training_hooks or [])
        if mode == ModeKeys.TRAIN:
            hooks.append(TensorForestLossHook(early_stopping_rounds, early_stopping_loss_threshold, training_loss))
            if report_feature_importances:
                hooks.append(TensorForestRunOpAtEndHook({"feature_importances": builder.feature_importances()}))
        return spec._replace(predictions=predictions, training_hooks=hooks)

    return model_fn


class CoreTensorForestEstimator(Estimator):
    """A random forest as a ``tf.estimator.Estimator`` (train, evaluate, predict)."""

    def __init__(self, params, device_assigner=None, model_dir=None, feature_columns=None,
                 graph_builder_class=tensor_forest.RandomForestGraphs, config=None, weight_column=None,
                 keys_column=None, early_stopping_rounds=100, early_stopping_loss_threshold=0.001, num_trainers=1,
                 trainer_id=0, report_feature_importances=False, local_eval=False, version=None, head=None,
                 include_all_in_serving=False):
        self._forest_params = params if hasattr(params, "num_output_columns") else params.fill()
        model_fn = get_model_fn(self._forest_params, graph_builder_class, device_assigner, feature_columns=feature_columns,
                                weights_name=weight_column, model_head=head, keys_name=keys_column,
                                early_stopping_rounds=early_stopping_rounds,
                                early_stopping_loss_threshold=early_stopping_loss_threshold,
                                num_trainers=num_trainers, trainer_id=trainer_id,
                                report_feature_importances=report_feature_importances, local_eval=local_eval,
                                include_all_in_serving=include_all_in_serving)
        super().__init__(model_fn, model_dir=model_dir, config=config)


class TensorForestEstimator(_Classifier, CoreTensorForestEstimator):
    """A random forest with contrib.learn's methods: ``fit``, ``evaluate``, and ``predict``,
    which gives dicts of every prediction (``probabilities``, ``class_ids``, ...; a regressor's
    ``predictions``); ``predict_proba`` and ``predict_classes`` the probabilities and classes."""

    def __init__(self, params, device_assigner=None, model_dir=None, feature_engineering_fn=None,
                 graph_builder_class=tensor_forest.RandomForestGraphs, config=None, weight_column=None,
                 keys_column=None, feature_columns=None, early_stopping_rounds=100,
                 early_stopping_loss_threshold=0.001, num_trainers=1, trainer_id=0, report_feature_importances=False,
                 local_eval=False, version=None, head=None, include_all_in_serving=False):
        if feature_engineering_fn is not None:
            raise ValueError("feature_engineering_fn is not supported by distflow's TensorForestEstimator: "
                             "transform the features in the input_fn")
        super().__init__(params, device_assigner, model_dir, feature_columns, graph_builder_class, config,
                         weight_column, keys_column, early_stopping_rounds, early_stopping_loss_threshold,
                         num_trainers, trainer_id, report_feature_importances, local_eval, version, head,
                         include_all_in_serving)

    def predict(self, x=None, input_fn=None, axis=None, batch_size=None, outputs=None, as_iterable=True):
        if not as_iterable:
            keys = list(outputs) if outputs is not None else None
            return _batch(self, x, input_fn, batch_size, keys)
        return _Classifier.predict(self, x, input_fn, batch_size, list(outputs) if outputs else
                                   self._all_keys(), True)

    def predict_classes(self, x=None, input_fn=None, batch_size=None, as_iterable=True):
        if self._forest_params.regression:
            raise ValueError("a regression forest has no classes: use predict")
        out = _Classifier.predict(self, x, input_fn, batch_size, ["class_ids"], as_iterable)
        if as_iterable:
            return (int(np.squeeze(p["class_ids"])) for p in out)
        return np.asarray(out["class_ids"]).reshape(-1)

    def _all_keys(self):
        if self._forest_params.regression:
            return ["predictions", VARIANCE_PREDICTION_KEY]
        return ["probabilities", "class_ids", "classes", "logits"]
