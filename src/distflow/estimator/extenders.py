"""``tf.estimator.add_metrics``: an Estimator whose evaluation reports more metrics, its
model unchanged (TF 1.14-1.15; ``tf.contrib.estimator.add_metrics`` before)."""

from __future__ import annotations

import inspect

from .estimator import Estimator, ModeKeys

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
