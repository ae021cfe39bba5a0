"""``tf.estimator.experimental``'s training hooks: ``InMemoryEvaluatorHook`` (evaluate the
model being trained, every so many steps, without a checkpoint) and
``make_stop_at_checkpoint_step_hook`` (a worker stops once the chief has saved the last
step).
"""

from __future__ import annotations

import logging
import time

from ..framework import ops
from ..train import saver as saver_lib
from ..train.basic_session_run_hooks import SecondOrStepTimer
from ..train.session_run_hook import SessionRunArgs, SessionRunHook
from ..train.training_util import get_global_step
from .estimator import Estimator

_log = logging.getLogger("distflow.estimator")


class InMemoryEvaluatorHook(SessionRunHook):
    """Evaluates ``estimator`` on ``input_fn`` (``steps`` batches, or until the input ends)
    after the first training step, every ``every_n_iter`` steps after it and when training
    ends, with the values the variables have in the training session at that moment (no
    checkpoint is written or read). The results are written as ``evaluate`` writes them, to
    ``model_dir/eval`` (``eval_<name>``), where the early-stopping hooks read them.

    Each evaluation builds the evaluation graph anew (TF built it once, in ``begin``). Unlike
    TF, the hook also runs in a cluster's chief, whose session reads the variables from the
    ps tasks."""

    def __init__(self, estimator, input_fn, steps=None, hooks=None, name=None, every_n_iter=100):
        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(estimator, Estimator):
            raise TypeError(f"`estimator` must be a `tf.estimator.Estimator`, given {estimator!r}")
        for hook in hooks or []:
            if not isinstance(hook, SessionRunHook):
                raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook!r}")
        self._estimator, self._input_fn, self._steps = estimator, input_fn, steps
        self._hooks, self._name = list(hooks or []), name
        self._timer = SecondOrStepTimer(every_steps=every_n_iter)
        self._iter_count = 0
        self._variables: list = []

    def begin(self) -> None:
        self._timer.reset()
        self._iter_count = 0
        self._variables = list(ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES))

    def after_run(self, run_context, run_values) -> None:
        self._iter_count += 1
        if self._timer.should_trigger_for_step(self._iter_count):
            self._timer.update_last_triggered_step(self._iter_count)
            self._evaluate(run_context.session)

    def end(self, session) -> None:
        self._evaluate(session)

    def _evaluate(self, session) -> dict:
        values = dict(zip((v.op.name for v in self._variables), session.run(self._variables)))
        return self._estimator._evaluate(self._input_fn, self._steps, self._hooks, name=self._name,
                                        variable_values=values)


class _StopAtCheckpointStepHook(SessionRunHook):
    """Stops a worker once the newest checkpoint in ``model_dir`` is of step ``last_step`` or
    later (looked at when the worker's own global step reaches it, then every
    ``wait_after_file_check_secs``)."""

    def __init__(self, model_dir, last_step, wait_after_file_check_secs=30):
        self._model_dir, self._last_step = model_dir, int(last_step)
        self._wait = float(wait_after_file_check_secs)
        self._global_step = None

    def begin(self) -> None:
        self._global_step = get_global_step()
        if self._global_step is None:
            raise RuntimeError("Global step should be created to use StopAtCheckpointStepHook.")

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values) -> None:
        if run_values.results + 1 < self._last_step:
            return
        if run_context.session.run(self._global_step) < self._last_step:  # (the fetch may predate the step)
            return
        path = saver_lib.latest_checkpoint(self._model_dir)
        step = int(saver_lib.load_variable(path, "global_step")) if path else 0
        if step >= self._last_step:
            run_context.request_stop()
        else:
            _log.info("Waiting for the chief's checkpoint of step %d (the newest is of step %d)", self._last_step,
                      step)
            time.sleep(self._wait)


def make_stop_at_checkpoint_step_hook(estimator, last_step, wait_after_file_check_secs=30):
    """For a worker, a hook that stops training once the chief's checkpoint reaches
    ``last_step`` (so that the last step's checkpoint exists before the workers leave); for
    the chief, a hook that does nothing."""
    if estimator.config.is_chief:
        return SessionRunHook()
    return _StopAtCheckpointStepHook(estimator.model_dir, last_step, wait_after_file_check_secs)
