"""Early stopping for Estimators (``tf.estimator.experimental``): a hook, given to ``train``
or a TrainSpec, that reads the evaluations written under ``model_dir/eval`` and stops
training once they say to (a metric past a threshold, or no better for some steps).

The hook checks every ``run_every_secs`` (or ``run_every_steps``); once it stops training,
``train_and_evaluate`` evaluates the last checkpoint and ends.
"""

from __future__ import annotations

import collections
import glob
import logging
import operator
import os

from ..summary.writer import summary_iterator
from ..train.basic_session_run_hooks import SecondOrStepTimer
from ..train.session_run_hook import SessionRunArgs, SessionRunHook
from ..train.training_util import get_global_step

_log = logging.getLogger("distflow")


def read_eval_metrics(eval_dir) -> collections.OrderedDict:
    """step -> {metric: value} of the evaluations written to ``eval_dir``, by step."""
    results: dict = {}
    for path in sorted(glob.glob(os.path.join(os.fspath(eval_dir), "*.tfevents.*"))):
        for event in summary_iterator(path):
            if event.HasField("summary"):
                metrics = results.setdefault(event.step, {})
                for value in event.summary.value:
                    if value.HasField("simple_value"):
                        metrics[value.tag] = value.simple_value
    return collections.OrderedDict(sorted(results.items()))


class _StopOnPredicateHook(SessionRunHook):
    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        if not callable(should_stop_fn):
            raise TypeError(f"`should_stop_fn` must be callable, got {should_stop_fn!r}")
        if run_every_secs is not None and run_every_steps is not None:
            run_every_secs = None  # (TF: the steps win when both are given)
        self._should_stop_fn = should_stop_fn
        self._timer = SecondOrStepTimer(every_secs=run_every_secs, every_steps=run_every_steps)
        self.stopped_early = False

    def begin(self):
        self._global_step = get_global_step()
        if self._global_step is None:
            raise RuntimeError("Global step should be created to use early stopping")

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        step = int(run_values.results)
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._should_stop_fn():
                _log.info("Requesting early stopping at global step %d", step)
                self.stopped_early = True
                run_context.request_stop()


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60, run_every_steps=None):
    """A hook that stops training when ``should_stop_fn()`` returns True."""
    return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)


def _eval_dir(estimator, eval_dir):
    return eval_dir if eval_dir is not None else os.path.join(estimator.model_dir, "eval")


def _threshold_hook(estimator, metric_name, threshold, eval_dir, min_steps, run_every_secs, run_every_steps, past):
    def should_stop():
        for step, metrics in read_eval_metrics(_eval_dir(estimator, eval_dir)).items():
            if step >= min_steps and metric_name in metrics and past(metrics[metric_name], threshold):
                _log.info("At step %d, metric %r is %s: past %s", step, metric_name, metrics[metric_name], threshold)
                return True
        return False

    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def _no_improvement_hook(estimator, metric_name, max_steps, eval_dir, min_steps, run_every_secs, run_every_steps,
                         better):
    def should_stop():
        best, best_step = None, None
        for step, metrics in read_eval_metrics(_eval_dir(estimator, eval_dir)).items():
            if step < min_steps or metric_name not in metrics:
                continue
            value = metrics[metric_name]
            if best is None or better(value, best):
                best, best_step = value, step
            if step - best_step >= max_steps:
                _log.info("No improvement of %r in %d steps (since step %d)", metric_name, step - best_step,
                          best_step)
                return True
        return False

    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0, run_every_secs=60,
                        run_every_steps=None):
    return _threshold_hook(estimator, metric_name, threshold, eval_dir, min_steps, run_every_secs, run_every_steps,
                           operator.gt)


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0, run_every_secs=60,
                       run_every_steps=None):
    return _threshold_hook(estimator, metric_name, threshold, eval_dir, min_steps, run_every_secs, run_every_steps,
                           operator.lt)


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase, eval_dir=None, min_steps=0,
                             run_every_secs=60, run_every_steps=None):
    return _no_improvement_hook(estimator, metric_name, max_steps_without_increase, eval_dir, min_steps,
                                run_every_secs, run_every_steps, operator.gt)


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease, eval_dir=None, min_steps=0,
                             run_every_secs=60, run_every_steps=None):
    return _no_improvement_hook(estimator, metric_name, max_steps_without_decrease, eval_dir, min_steps,
                                run_every_secs, run_every_steps, operator.lt)
