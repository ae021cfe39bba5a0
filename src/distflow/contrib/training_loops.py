"""``tf.contrib.training``'s loops: ``create_train_op`` and ``train`` (a MonitoredTrainingSession
run until it should stop), and the evaluation of checkpoints: ``evaluate_once`` of one,
``evaluate_repeatedly`` of each new one as it appears (``checkpoints_iterator``), with
``StopAfterNEvalsHook`` ending a pass after n batches and ``SummaryAtEndHook`` writing the
summaries once at its end. Also the gradient helpers they take (clip, multiply, summarize).

An evaluation counts its batches in ``eval_step``, a local int64 variable of the EVAL_STEP
collection (``get_or_create_eval_step``), reset with the other local variables when a
checkpoint is restored.
"""

from __future__ import annotations

import logging
import math
import time

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..ops import array_ops, check_ops, clip_ops, control_flow_ops, init_ops, state_ops
from ..ops import variable_scope as vs
from ..ops.indexed_slices import IndexedSlices
from ..summary import summary_ops as summary
from ..summary.writer import FileWriterCache
from ..train.basic_session_run_hooks import FinalOpsHook
from ..train.monitored_session import ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession
from ..train.optimizer import Optimizer
from ..train.saver import latest_checkpoint
from ..train.session_run_hook import SessionRunArgs, SessionRunHook
from ..train.training_util import get_or_create_global_step
from ..train.training_util import global_step as global_step_value
from .optimizers import _scaled, _values

_log = logging.getLogger("distflow")
_USE_GLOBAL_STEP = 0


# -- gradients ---------------------------------------------------------------------------------

def _with_values(grad, values):
    return IndexedSlices(values, grad.indices, grad.dense_shape) if isinstance(grad, IndexedSlices) else values


def add_gradients_summaries(grads_and_vars) -> list:
    """A histogram of each variable's gradient (``<var>_gradient``) and a scalar of its norm
    (``<var>_gradient_norm``); a variable without a gradient is logged."""
    summaries = []
    for grad, var in grads_and_vars:
        if grad is None:
            _log.info("Var %s has no gradient", var.op.name)
            continue
        values = _values(grad)
        summaries.append(summary.histogram(var.op.name + "_gradient", values))
        summaries.append(summary.scalar(var.op.name + "_gradient_norm", clip_ops.global_norm([values])))
    return summaries


def clip_gradient_norms(gradients_to_variables, max_norm) -> list:
    """Each gradient clipped to norm ``max_norm`` on its own (``tf.clip_by_norm``)."""
    return [(None if grad is None else _with_values(grad, clip_ops.clip_by_norm(_values(grad), max_norm)),
             var) for grad, var in gradients_to_variables]


def clip_gradient_norms_fn(max_norm):
    """A ``transform_grads_fn`` clipping each gradient to norm ``max_norm``."""
    def clip_norms(gradients_to_variables):
        return clip_gradient_norms(gradients_to_variables, max_norm)

    return clip_norms


def multiply_gradients(grads_and_vars, gradient_multipliers) -> list:
    """The gradients of the variables in ``gradient_multipliers`` (keyed by variable or op name)
    multiplied by their coefficient.

    Raises:
      ValueError: ``grads_and_vars`` is not a list, the multipliers are not a non-empty dict, or
        a multiplied variable has no gradient.
    """
    if not isinstance(grads_and_vars, list):
        raise ValueError("`grads_and_vars` must be a list.")
    if not gradient_multipliers:
        raise ValueError("`gradient_multipliers` is empty.")
    if not isinstance(gradient_multipliers, dict):
        raise ValueError("`gradient_multipliers` must be a dict.")
    out = []
    for grad, var in grads_and_vars:
        key = var if var in gradient_multipliers else var.op.name if var.op.name in gradient_multipliers else None
        if key is not None:
            if grad is None:
                raise ValueError("Requested multiple of `None` gradient.")
            grad = _scaled(grad, ops.convert_to_tensor(gradient_multipliers[key], dtype=_values(grad).dtype))
        out.append((grad, var))
    return out


def create_train_op(total_loss, optimizer, global_step=_USE_GLOBAL_STEP, update_ops=None, variables_to_train=None,
                    transform_grads_fn=None, summarize_gradients=False, gate_gradients=Optimizer.GATE_OP,
                    aggregation_method=None, colocate_gradients_with_ops=False, check_numerics=True):
    """A tensor that, when run, runs ``update_ops`` (UPDATE_OPS by default), computes the gradients
    of ``total_loss`` for ``variables_to_train`` (the trainable ones), transforms them, applies them
    with ``optimizer`` (incrementing ``global_step``, the graph's by default) and gives the loss
    (checked to be finite). It is added to the TRAIN_OP collection."""
    if global_step is _USE_GLOBAL_STEP:
        global_step = get_or_create_global_step()
    graph_updates = set(ops.get_collection(GraphKeys.UPDATE_OPS))
    update_ops = graph_updates if update_ops is None else set(update_ops)
    if not graph_updates.issubset(update_ops):
        _log.warning("update_ops in create_train_op does not contain all the update_ops in GraphKeys.UPDATE_OPS")
    if update_ops:
        with ops.control_dependencies(update_ops):
            barrier = control_flow_ops.no_op(name="update_barrier")
        total_loss = control_flow_ops.with_dependencies([barrier], total_loss)
    if variables_to_train is None:
        variables_to_train = state_ops.trainable_variables()
    if not variables_to_train:
        raise ValueError("create_train_op: there are no variables to train")
    grads = optimizer.compute_gradients(total_loss, variables_to_train, gate_gradients=gate_gradients,
                                        aggregation_method=aggregation_method,
                                        colocate_gradients_with_ops=colocate_gradients_with_ops)
    if transform_grads_fn:
        grads = transform_grads_fn(grads)
    if summarize_gradients:
        with ops.name_scope("summarize_grads"):
            add_gradients_summaries(grads)
    grad_updates = optimizer.apply_gradients(grads, global_step=global_step)
    with ops.name_scope("train_op"):
        if check_numerics:
            total_loss = check_ops.check_numerics(total_loss, "LossTensor is inf or nan")
        train_op = control_flow_ops.with_dependencies([grad_updates], total_loss)
    train_ops = ops.get_collection_ref(GraphKeys.TRAIN_OP)
    if train_op not in train_ops:
        train_ops.append(train_op)
    return train_op


def train(train_op, logdir, master="", is_chief=True, scaffold=None, hooks=None, chief_only_hooks=None,
          save_checkpoint_secs=600, save_summaries_steps=100, config=None, max_wait_secs=7200, run_metadata=None):
    """Runs ``train_op`` in a MonitoredTrainingSession (checkpoints and summaries in ``logdir``)
    until a hook asks to stop; returns the last loss.

    Raises:
      ValueError: the chief has no ``logdir`` but is asked to save summaries or checkpoints.
    """
    if logdir is None and is_chief:
        if save_summaries_steps:
            raise ValueError("logdir cannot be None when save_summaries_steps is not None")
        if save_checkpoint_secs:
            raise ValueError("logdir cannot be None when save_checkpoint_secs is not None")
    with MonitoredTrainingSession(master=master, is_chief=is_chief, checkpoint_dir=logdir, scaffold=scaffold,
                                  hooks=hooks, chief_only_hooks=chief_only_hooks,
                                  save_checkpoint_secs=save_checkpoint_secs,
                                  save_summaries_steps=save_summaries_steps, config=config,
                                  max_wait_secs=max_wait_secs) as session:
        loss = None
        while not session.should_stop():
            loss = session.run(train_op, run_metadata=run_metadata)
    return loss


# -- evaluation ----------------------------------------------------------------------------------

def get_or_create_eval_step():
    """The graph's ``eval_step``: a local int64 counter of evaluation batches (EVAL_STEP)."""
    graph = ops.get_default_graph()
    found = graph.get_collection(GraphKeys.EVAL_STEP)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise ValueError("Multiple tensors added to tf.GraphKeys.EVAL_STEP")
    with vs.variable_scope(vs.get_variable_scope(), reuse=False):  # (at the top, even inside a reused scope)
        return vs.get_variable("eval_step", shape=[], dtype=dtypes.int64, initializer=init_ops.zeros_initializer(),
                               trainable=False, collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.EVAL_STEP])


class StopAfterNEvalsHook(SessionRunHook):
    """Asks the evaluation to stop once ``num_evals`` batches have run (the eval step says how
    many), logging the progress."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals = num_evals
        self._evals_completed = None
        self._log_progress = log_progress
        self._log_every = 1 if num_evals is None or num_evals < 20 else math.floor(num_evals / 10.0)

    def _set_evals_completed_tensor(self, updated_eval_step):
        self._evals_completed = updated_eval_step

    def before_run(self, run_context):
        return SessionRunArgs({"evals_completed": self._evals_completed})

    def after_run(self, run_context, run_values):
        done = run_values.results["evals_completed"]
        if self._log_progress:
            if self._num_evals is None:
                _log.info("Evaluation [%d]", done)
            elif done % self._log_every == 0 or done == self._num_evals:
                _log.info("Evaluation [%d/%d]", done, self._num_evals)
        if self._num_evals is not None and done >= self._num_evals:
            run_context.request_stop()


class SummaryAtEndHook(SessionRunHook):
    """Runs ``summary_op`` (the merged summaries by default) once when the evaluation ends and
    writes it to ``summary_writer`` or ``log_dir`` at the global step."""

    def __init__(self, log_dir=None, summary_writer=None, summary_op=None, feed_dict=None):
        if log_dir is None and summary_writer is None:
            raise ValueError("One of log_dir or summary_writer should be used.")
        self._summary_op, self._replace_summary_op = summary_op, summary_op is None
        self._feed_dict, self._summary_writer, self._log_dir = feed_dict, summary_writer, log_dir

    def begin(self):
        if self._replace_summary_op:
            self._summary_op = summary.merge_all()
        self._global_step = get_or_create_global_step()

    def after_create_session(self, session, coord):
        if self._summary_writer is None and self._log_dir:
            self._summary_writer = FileWriterCache.get(self._log_dir)

    def end(self, session):
        if self._summary_op is not None:
            step = global_step_value(session, self._global_step)
            summary_str = session.run(self._summary_op, self._feed_dict)
            if self._summary_writer:
                self._summary_writer.add_summary(summary_str, step)
        if self._summary_writer:
            self._summary_writer.flush()


def _counted_eval_ops(eval_ops, hooks):
    """``eval_ops`` with the eval step's increment, and the hooks told the step after it."""
    eval_step = get_or_create_eval_step()
    update_eval_step = state_ops.assign_add(eval_step, 1)
    if isinstance(eval_ops, dict):
        eval_ops = dict(eval_ops, update_eval_step=update_eval_step)
    elif isinstance(eval_ops, (tuple, list)):
        eval_ops = list(eval_ops) + [update_eval_step]
    else:
        eval_ops = [eval_ops, update_eval_step]
    with ops.control_dependencies(list(eval_ops.values()) if isinstance(eval_ops, dict) else eval_ops):
        done = array_ops.identity(eval_step.read_value())
    for hook in hooks:
        if isinstance(hook, StopAfterNEvalsHook):
            hook._set_evals_completed_tensor(done)
    return eval_ops


def _evaluate_checkpoint(checkpoint_path, master, scaffold, eval_ops, feed_dict, hooks, config):
    session_creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_filename_with_path=checkpoint_path,
                                          master=master, config=config)
    _log.info("Starting evaluation at %s", time.strftime("%Y-%m-%d-%H:%M:%S", time.gmtime()))
    with MonitoredSession(session_creator=session_creator, hooks=hooks) as session:
        if eval_ops is not None:
            while not session.should_stop():
                session.run(eval_ops, feed_dict)
    _log.info("Finished evaluation at %s", time.strftime("%Y-%m-%d-%H:%M:%S", time.gmtime()))


def evaluate_once(checkpoint_path, master="", scaffold=None, eval_ops=None, feed_dict=None, final_ops=None,
                  final_ops_feed_dict=None, hooks=None, config=None):
    """Restores ``checkpoint_path``, runs ``eval_ops`` until a hook stops it (a
    StopAfterNEvalsHook, or the input running out), then ``final_ops``, whose values it returns."""
    hooks = list(hooks or [])
    if eval_ops is not None:
        eval_ops = _counted_eval_ops(eval_ops, hooks)
    final_ops_hook = FinalOpsHook(final_ops, final_ops_feed_dict)
    hooks.append(final_ops_hook)
    _evaluate_checkpoint(checkpoint_path, master, scaffold, eval_ops, feed_dict, hooks, config)
    return final_ops_hook.final_ops_values


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1, timeout=None):
    """The newest checkpoint of ``checkpoint_dir`` once it is not ``last_checkpoint``; None if
    ``timeout`` seconds pass first."""
    _log.info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop_time = None if timeout is None else time.time() + timeout
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            _log.info("Found new checkpoint at %s", path)
            return path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint of ``checkpoint_dir``, at least ``min_interval_secs`` apart;
    ends when none comes within ``timeout`` (unless ``timeout_fn()`` says to go on waiting)."""
    path = None
    while True:
        new_path = wait_for_new_checkpoint(checkpoint_dir, path, timeout=timeout)
        if new_path is None:
            if not timeout_fn:
                _log.info("Timed-out waiting for a checkpoint.")
                return
            if timeout_fn():
                return
            continue
        start = time.time()
        path = new_path
        yield path
        wait = start + min_interval_secs - time.time()
        if wait > 0:
            time.sleep(wait)


def evaluate_repeatedly(checkpoint_dir, master="", scaffold=None, eval_ops=None, feed_dict=None, final_ops=None,
                        final_ops_feed_dict=None, eval_interval_secs=60, hooks=None, config=None,
                        max_number_of_evaluations=None, timeout=None, timeout_fn=None):
    """``evaluate_once`` of each new checkpoint of ``checkpoint_dir`` (see
    ``checkpoints_iterator``), at most ``max_number_of_evaluations`` times; returns the last
    ``final_ops`` values."""
    hooks = list(hooks or [])
    if eval_ops is not None:
        eval_ops = _counted_eval_ops(eval_ops, hooks)
    final_ops_hook = FinalOpsHook(final_ops, final_ops_feed_dict)
    hooks.append(final_ops_hook)
    evaluations = 0
    for checkpoint_path in checkpoints_iterator(checkpoint_dir, min_interval_secs=eval_interval_secs,
                                                timeout=timeout, timeout_fn=timeout_fn):
        _evaluate_checkpoint(checkpoint_path, master, scaffold, eval_ops, feed_dict, hooks, config)
        evaluations += 1
        if max_number_of_evaluations is not None and evaluations >= max_number_of_evaluations:
            break
    return final_ops_hook.final_ops_values
