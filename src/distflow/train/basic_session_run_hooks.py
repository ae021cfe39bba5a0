"""The standard hooks: stop at a step, save checkpoints, log tensors and speed, catch NaN, final ops."""

from __future__ import annotations

import logging
import os
import time

import numpy as np

from ..framework import errors, ops
from ..protos.distflow_pb2 import SessionLog, Summary
from ..summary.summary_ops import merge_all
from ..summary.writer import FileWriterCache
from . import training_util
from .session_run_hook import SessionRunArgs, SessionRunHook

_log = logging.getLogger("distflow")


class SecondOrStepTimer:
    """Triggers every ``every_secs`` seconds or every ``every_steps`` steps (exactly one of them)."""

    def __init__(self, every_secs=None, every_steps=None):
        if (every_secs is None) == (every_steps is None):
            raise ValueError("exactly one of every_secs and every_steps should be provided")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self) -> None:
        self._last_time = None
        self._last_step = None

    def should_trigger_for_step(self, step: int) -> bool:
        if self._last_step is None:
            return True
        if self._last_step == step:
            return False
        if self._every_secs is not None:
            return time.time() >= self._last_time + self._every_secs
        return step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step: int):
        """Returns (seconds, steps) since the last trigger (None the first time)."""
        now = time.time()
        elapsed = None if self._last_time is None else (now - self._last_time, step - self._last_step)
        self._last_time, self._last_step = now, step
        return elapsed if elapsed is not None else (None, None)

    def last_triggered_step(self):
        return self._last_step


def _global_step_tensor():
    step = training_util.get_global_step()
    if step is None:
        raise RuntimeError("Global step should be created to use this hook (tf.train.get_or_create_global_step())")
    return step


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches ``last_step`` (or ``num_steps`` more than at the start)."""

    def __init__(self, num_steps=None, last_step=None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and num_steps < 0:
            raise ValueError("num_steps must be non-negative.")
        if last_step is not None and last_step < 0:
            raise ValueError("last_step must be non-negative.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self):
        self._global_step_tensor = _global_step_tensor()

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = int(session.run(self._global_step_tensor)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        step = int(run_values.results) + 1
        if step >= self._last_step:
            # the fetched value may predate this step's update: read it again before stopping
            if int(run_context.session.run(self._global_step_tensor)) >= self._last_step:
                run_context.request_stop()


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint every ``save_secs`` seconds or ``save_steps`` steps, when training starts and at its end."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None, checkpoint_basename="model.ckpt",
                 scaffold=None, listeners=None):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._saver, self._scaffold = saver, scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = list(listeners or [])

    def begin(self):
        os.makedirs(self._checkpoint_dir, exist_ok=True)
        self._global_step_tensor = _global_step_tensor()
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        # As TF 1.x: the graph goes to the checkpoint directory's event file (TensorBoard's graph view).
        FileWriterCache.get(self._checkpoint_dir).add_graph(ops.get_default_graph())
        # A first checkpoint as soon as the session exists: recovery never starts from nothing.
        step = int(session.run(self._global_step_tensor))
        self._save(session, step)
        self._timer.update_last_triggered_step(step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale = int(run_values.results)
        if self._timer.should_trigger_for_step(stale + 1):
            step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(step):
                self._timer.update_last_triggered_step(step)
                if self._save(run_context.session, step):
                    run_context.request_stop()

    def end(self, session):
        step = int(session.run(self._global_step_tensor))
        if step != self._timer.last_triggered_step():
            self._save(session, step)
        for listener in self._listeners:
            listener.end(session, step)

    def _get_saver(self):
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = ops.get_collection(ops.GraphKeys.SAVERS)
        if len(savers) != 1:
            raise RuntimeError(f"CheckpointSaverHook needs exactly one saver in the SAVERS collection, found "
                               f"{len(savers)}; pass saver= or scaffold=")
        return savers[0]

    def _save(self, session, step) -> bool:
        _log.info("Saving checkpoints for %d into %s.", step, self._save_path)
        for listener in self._listeners:
            listener.before_save(session, step)
        self._get_saver().save(session, self._save_path, global_step=step)
        stop = False
        for listener in self._listeners:
            stop = bool(listener.after_save(session, step)) or stop
        return stop


class CheckpointSaverListener:
    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class StepCounterHook(SessionRunHook):
    """Logs global steps per second every ``every_n_steps`` steps (or ``every_n_secs``), and writes it
    as the ``global_step/sec`` summary when given ``output_dir`` or a ``summary_writer``."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._output_dir = output_dir
        self._summary_writer = summary_writer
        self.steps_per_sec = None

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _global_step_tensor()
        self._summary_tag = self._global_step_tensor.op.name + "/sec"  # (TF's tag: the step's own name)
        self._last_global_step = None
        self._not_increased = 0

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        step = int(run_values.results)
        if step == self._last_global_step and self._not_increased < 5:  # (the first 5 times, as TF)
            self._not_increased += 1
            _log.warning("It seems that global step (tf.train.get_global_step) has not been increased. Current "
                         "value (could be stable): %s vs previous value: %s. You could increase the global step "
                         "by passing tf.train.get_global_step() to Optimizer.apply_gradients or "
                         "Optimizer.minimize.", step, self._last_global_step)
        self._last_global_step = step
        if self._timer.should_trigger_for_step(step):
            secs, steps = self._timer.update_last_triggered_step(step)
            if secs:
                self.steps_per_sec = steps / secs
                _log.info("%s: %g", self._summary_tag, self.steps_per_sec)
                if self._summary_writer is not None:
                    summary = Summary(value=[Summary.Value(tag=self._summary_tag, simple_value=self.steps_per_sec)])
                    self._summary_writer.add_summary(summary, step)


def _as_graph_element(obj):
    """A hook's tensor given by name or object, as TF's hooks resolve it: a name without an
    output index is the op's output 0 (an op of several outputs is then ambiguous)."""
    if not isinstance(obj, str):
        return obj
    graph = ops.get_default_graph()
    if ":" in obj:
        element = graph.as_graph_element(obj)
    else:
        element = graph.as_graph_element(obj + ":0")
        if len(element.op.outputs) > 1:
            raise ValueError(f"Name {obj} is ambiguous, as this `Operation` has multiple outputs "
                             f"(at least 2).")
    return element


class LoggingTensorHook(SessionRunHook):
    """Logs the values of ``tensors`` (a list or dict) every N steps or seconds, or at the end."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            tensors = {t if isinstance(t, str) else t.name: t for t in tensors}
        self._tensors = tensors
        self._tag_order = list(tensors)
        self._formatter = formatter
        self._log_at_end = at_end
        self._timer = None if only_log_at_end else SecondOrStepTimer(every_secs=every_n_secs,
                                                                      every_steps=every_n_iter)
        self._iter = 0

    def begin(self):
        self._current = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}
        self._iter = 0
        if self._timer is not None:  # (a hook given to train() again counts its steps anew)
            self._timer.reset()

    def before_run(self, run_context):
        self._should_trigger = self._timer is not None and self._timer.should_trigger_for_step(self._iter)
        return SessionRunArgs(self._current) if self._should_trigger else None

    def _log_values(self, values):
        if self._formatter:
            _log.info(self._formatter(values))
        else:
            with np.printoptions(suppress=True):  # (as TF prints them: 0.0001, not 1e-04)
                _log.info(", ".join(f"{tag} = {values[tag]!s}" for tag in self._tag_order))

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._timer.update_last_triggered_step(self._iter)
            self._log_values(run_values.results)
        self._iter += 1

    def end(self, session):
        if self._log_at_end:
            self._log_values(session.run(self._current))


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Fails (or, with fail_on_nan_loss=False, stops) training when the loss is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            if self._fail_on_nan_loss:
                _log.error("Model diverged with loss = NaN.")
                raise NanLossDuringTrainingError
            _log.warning("Model diverged with loss = NaN. Requesting stop.")
            run_context.request_stop()


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` when training ends; their values are in ``final_ops_values``."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        if self._final_ops is not None:
            try:
                self._final_ops_values = session.run(self._final_ops, feed_dict=self._final_ops_feed_dict)
            except (errors.OutOfRangeError, StopIteration):
                _log.warning("An OutOfRangeError or StopIteration was raised by the ops of a FinalOpsHook. They "
                             "should not depend on an input source (a metric's value op should only read "
                             "variables): running them read another batch from an input that is exhausted.")
                raise


class SummarySaverHook(SessionRunHook):
    """Runs ``summary_op`` (the graph's merged summaries by default) every ``save_steps`` steps or
    ``save_secs`` seconds and writes it to ``output_dir``'s event file, with the global step."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None, scaffold=None,
                 summary_op=None):
        if (scaffold is None) == (summary_op is None) and not (scaffold is None and summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._scaffold = scaffold
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def _summary(self):
        if self._summary_op is not None:
            return self._summary_op
        if self._scaffold is not None and self._scaffold.summary_op is not None:
            return self._scaffold.summary_op
        return merge_all()

    def begin(self):
        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _global_step_tensor()
        self._op = self._summary()

    def before_run(self, run_context):
        self._request = self._op is not None and (self._next_step is None or
                                                  self._timer.should_trigger_for_step(self._next_step))
        fetches = {"global_step": self._global_step_tensor}
        if self._request:
            fetches["summary"] = self._op
        return SessionRunArgs(fetches)

    def after_run(self, run_context, run_values):
        if self._summary_writer is None:
            return
        step = int(run_values.results["global_step"])
        if self._next_step is None:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), step)
        if self._request:
            self._timer.update_last_triggered_step(step)
            if "summary" in run_values.results:
                summaries = run_values.results["summary"]
                for summary in summaries if isinstance(summaries, (list, tuple)) else [summaries]:
                    self._summary_writer.add_summary(summary, step)  # (each of a list, as TF)
        self._next_step = step + 1

    def end(self, session=None):
        if self._summary_writer is not None:
            self._summary_writer.flush()


class ProfilerHook(SessionRunHook):
    """Every ``save_steps`` steps or ``save_secs`` seconds, traces one step and writes its
    Chrome trace to ``output_dir/timeline-<global step>.json`` (TF 1.x's ProfilerHook;
    open it in chrome://tracing or Perfetto). Each kernel call, by device and thread."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False):
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = FileWriterCache.get(output_dir) if output_dir else None
        self._show_dataflow, self._show_memory = show_dataflow, show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _global_step_tensor()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use ProfilerHook.")

    def before_run(self, run_context):
        from ..runtime.config import RunOptions  # noqa: PLC0415

        self._request = self._next_step is None or self._timer.should_trigger_for_step(self._next_step)
        options = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context, run_values):
        stale = int(run_values.results["global_step"])
        if self._next_step is None:  # (the timer starts now: the next trace comes N steps or seconds on)
            self._timer.update_last_triggered_step(stale)
        step = stale + 1
        if self._request and run_values.run_metadata is not None:
            from ..runtime.timeline import Timeline  # noqa: PLC0415

            step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(step)
            trace = Timeline(run_values.run_metadata.step_stats).generate_chrome_trace_format(
                show_dataflow=self._show_dataflow, show_memory=self._show_memory)
            with open(self._output_file.format(step), "w", encoding="utf-8") as f:
                f.write(trace)
        self._next_step = step + 1
