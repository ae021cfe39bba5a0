"""``tf.contrib.estimator``: wrappers that change what an Estimator reports without changing
its model (``add_metrics``, ``forward_features``), an optimizer that clips the gradients
(``clip_gradients_by_norm``), and the early-stopping hooks of ``tf.estimator.experimental``
under their contrib names."""

from __future__ import annotations

import inspect

from .._namespace import missing
from ..estimator.early_stopping import (make_early_stopping_hook, read_eval_metrics,  # noqa: F401
                                        stop_if_higher_hook, stop_if_lower_hook, stop_if_no_decrease_hook,
                                        stop_if_no_increase_hook)
from ..estimator.estimator import Estimator, ModeKeys
from .estimator_heads import (DNNEstimator, LinearEstimator, RNNEstimator, binary_classification_head,  # noqa: F401
                              multi_class_head, multi_label_head, regression_head)
from .estimator_rnn import RNNClassifier  # noqa: F401
from ..ops import clip_ops
from ..train.optimizer import Optimizer

_METRIC_FN_ARGS = ("labels", "predictions", "features", "config")


def _rewrapped(estimator, change):
    """A new Estimator on ``estimator``'s model directory and config whose model function is
    the old one's spec passed through ``change(spec, features, labels, mode)``."""
    def model_fn(features, labels, mode, config):
        return change(estimator._model(features, labels, mode), features, labels, mode)

    return Estimator(model_fn, model_dir=estimator.model_dir, config=estimator.config,
                     warm_start_from=estimator._warm_start_settings)


def add_metrics(estimator, metric_fn):
    """``estimator`` with ``metric_fn``'s metrics added to its evaluation. ``metric_fn`` takes
    any of ``labels``, ``predictions``, ``features`` and ``config`` (by name) and returns
    {name: (value, update_op)}; a name it shares with the estimator's own metrics replaces it."""
    names = list(inspect.signature(metric_fn).parameters)
    if "predictions" not in names:
        raise ValueError(f"metric_fn ({metric_fn}) must include predictions argument.")
    unknown = set(names) - set(_METRIC_FN_ARGS)
    if unknown:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: {sorted(unknown)}")

    def change(spec, features, labels, mode):
        if mode != ModeKeys.EVAL:
            return spec
        given = {"labels": labels, "predictions": spec.predictions, "features": features,
                 "config": estimator.config}
        added = metric_fn(**{n: given[n] for n in names})
        if not isinstance(added, dict):
            raise TypeError(f"metric_fn should return a dict of (value, update_op) pairs, got {type(added)}")
        return spec._replace(eval_metric_ops={**(spec.eval_metric_ops or {}), **added})

    return _rewrapped(estimator, change)


def forward_features(estimator, keys=None, sparse_default_values=None):
    """``estimator`` whose predictions also hold the features named ``keys`` (a name, a list,
    or None for every feature) as they came, so that predictions can be matched to examples
    (an id, say). Sparse features are not forwarded."""
    if sparse_default_values is not None:
        raise NotImplementedError("forward_features: sparse_default_values (forwarding sparse features) is not "
                                  "supported by distflow")
    wanted = [keys] if isinstance(keys, str) else keys

    def change(spec, features, labels, mode):
        if mode != ModeKeys.PREDICT:
            return spec
        if not isinstance(spec.predictions, dict):
            raise ValueError(f"Predictions should be a dict to be able to forward features, given: "
                             f"{type(spec.predictions)}")
        if not isinstance(features, dict):
            raise ValueError(f"Features should be a dict to be able to forward them, given: {type(features)}")
        names = list(features) if wanted is None else wanted
        for key in names:
            if key not in features:
                raise ValueError(f"keys should be exist in features. Key \"{key}\" is not in features dict. "
                                 f"features dict: {features}.")
            if key in spec.predictions:
                raise ValueError(f"Cannot forward feature key ({key}). Since it does exist in predictions. Existing "
                                 f"keys in predictions: {list(spec.predictions)}.")
        return spec._replace(predictions={**spec.predictions, **{k: features[k] for k in names}})

    return _rewrapped(estimator, change)


class _ClippedOptimizer(Optimizer):
    """``optimizer`` whose gradients are clipped to a global norm first."""

    def __init__(self, optimizer, clip_norm):
        super().__init__(optimizer._use_locking, "ClipByNorm" + optimizer.get_name())
        self._optimizer, self._clip_norm = optimizer, clip_norm

    def compute_gradients(self, *args, **kwargs):
        pairs = self._optimizer.compute_gradients(*args, **kwargs)
        clipped, _ = clip_ops.clip_by_global_norm([g for g, _ in pairs], self._clip_norm)
        return list(zip(clipped, [v for _, v in pairs]))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._optimizer.apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, var, name):
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def variables(self):
        return self._optimizer.variables()


def clip_gradients_by_norm(optimizer, clip_norm):
    """``optimizer`` with its gradients clipped to a global norm of ``clip_norm``."""
    if not isinstance(optimizer, Optimizer):
        raise ValueError(f"optimizer must be an instance of Optimizer, got {optimizer!r}")
    return _ClippedOptimizer(optimizer, clip_norm)


__getattr__ = missing("tf.contrib.estimator")
