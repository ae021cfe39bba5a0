"""``tf.contrib.slim.learning``: TF-Slim's training loop, on a ``tf.train.Supervisor``.

``create_train_op(total_loss, optimizer, ...)`` is contrib.training's, with the gradients
multiplied by ``gradient_multipliers`` and clipped to ``clip_gradient_norm`` on the way.
``train(train_op, logdir, ...)`` initializes or restores from ``logdir`` (``init_fn`` then
runs, typically restoring a pre-trained model), runs ``train_step_fn`` until
``number_of_steps`` (or the input ends, or the supervisor is asked to stop), writes summaries
every ``save_summaries_secs`` and checkpoints every ``save_interval_secs``, saves a last
checkpoint and returns the last loss. Between-graph replicas pass ``master`` and
``is_chief``, and a ``sync_optimizer`` (SyncReplicasOptimizer) for synchronous updates.
"""

from __future__ import annotations

import logging
import os
import sys
import time

from ..framework import errors, ops
from ..ops import array_ops, control_flow_ops, math_ops, state_ops
from ..platform import gfile
from ..runtime.config import RunMetadata, RunOptions
from ..runtime.timeline import Timeline
from ..summary import summary_ops as summary
from ..train.saver import Saver
from ..train.supervisor import Supervisor
from ..train.sync_replicas_optimizer import SyncReplicasOptimizer
from ..train.training_util import get_or_create_global_step
from . import training_loops
from .training_loops import add_gradients_summaries, clip_gradient_norms, multiply_gradients  # noqa: F401

_log = logging.getLogger("distflow")
_USE_DEFAULT = 0
_USE_GLOBAL_STEP = training_loops._USE_GLOBAL_STEP


def create_train_op(total_loss, optimizer, global_step=_USE_GLOBAL_STEP, update_ops=None, variables_to_train=None,
                    clip_gradient_norm=0, summarize_gradients=False, gate_gradients=1, aggregation_method=None,
                    colocate_gradients_with_ops=False, gradient_multipliers=None, check_numerics=True):
    """``tf.contrib.training.create_train_op`` whose gradients are first multiplied by
    ``gradient_multipliers`` and then clipped to norm ``clip_gradient_norm`` (when above 0)."""
    def transform_grads_fn(grads):
        if gradient_multipliers:
            with ops.name_scope("multiply_grads"):
                grads = multiply_gradients(grads, gradient_multipliers)
        if clip_gradient_norm > 0:
            with ops.name_scope("clip_grads"):
                grads = clip_gradient_norms(grads, clip_gradient_norm)
        return grads

    return training_loops.create_train_op(
        total_loss, optimizer, global_step=global_step, update_ops=update_ops,
        variables_to_train=variables_to_train, transform_grads_fn=transform_grads_fn,
        summarize_gradients=summarize_gradients, gate_gradients=gate_gradients,
        aggregation_method=aggregation_method, colocate_gradients_with_ops=colocate_gradients_with_ops,
        check_numerics=check_numerics)


def _wait_for_step(sess, global_step, step) -> None:
    while int(sess.run(global_step)) < step:
        time.sleep(1.0)


def train_step(sess, train_op, global_step, train_step_kwargs):
    """Runs ``train_op`` once (traced, when ``should_trace`` says so: a Chrome trace
    ``tf_trace-<step>.json`` in ``logdir``); logs the loss when ``should_log`` says so. Returns
    (loss, whether ``should_stop`` says training is done)."""
    start = time.time()
    options = run_metadata = None
    if "should_trace" in train_step_kwargs:
        if "logdir" not in train_step_kwargs:
            raise ValueError("logdir must be present in train_step_kwargs when should_trace is present")
        if sess.run(train_step_kwargs["should_trace"]):
            options = RunOptions(trace_level=RunOptions.FULL_TRACE)
            run_metadata = RunMetadata()
    total_loss, step = sess.run([train_op, global_step], options=options, run_metadata=run_metadata)
    elapsed = time.time() - start
    if run_metadata is not None:  # (a Chrome trace of the step in the logdir, and its metadata for TensorBoard)
        trace = Timeline(run_metadata.step_stats).generate_chrome_trace_format()
        path = os.path.join(train_step_kwargs["logdir"], f"tf_trace-{step}.json")
        _log.info("Writing trace to %s", path)
        with gfile.GFile(path, "w") as f:
            f.write(trace)
        if "summary_writer" in train_step_kwargs:
            train_step_kwargs["summary_writer"].add_run_metadata(run_metadata, f"run_metadata-{step}")
    if "should_log" in train_step_kwargs and sess.run(train_step_kwargs["should_log"]):
        _log.info("global step %d: loss = %.4f (%.3f sec/step)", step, total_loss, elapsed)
    should_stop = bool(sess.run(train_step_kwargs["should_stop"])) if "should_stop" in train_step_kwargs else False
    return total_loss, should_stop


def train(train_op, logdir, train_step_fn=train_step, train_step_kwargs=_USE_DEFAULT, log_every_n_steps=1,
          graph=None, master="", is_chief=True, global_step=None, number_of_steps=None, init_op=_USE_DEFAULT,
          init_feed_dict=None, local_init_op=_USE_DEFAULT, init_fn=None, ready_op=_USE_DEFAULT,
          summary_op=_USE_DEFAULT, save_summaries_secs=600, summary_writer=_USE_DEFAULT, startup_delay_steps=0,
          saver=None, save_interval_secs=600, sync_optimizer=None, session_config=None, session_wrapper=None,
          trace_every_n_steps=None, ignore_live_threads=False):
    """Trains until ``number_of_steps`` (see the module docstring); returns the last loss.

    Raises:
      ValueError: ``train_op`` is None; ``logdir`` is None with a summary op, saver or tracing;
        ``number_of_steps`` is not positive; ``sync_optimizer`` is not a SyncReplicasOptimizer or
        comes with ``startup_delay_steps``.
    """
    if train_op is None:
        raise ValueError("train_op cannot be None.")
    if logdir is None:
        if summary_op != _USE_DEFAULT:
            raise ValueError("Cannot provide summary_op because logdir=None")
        if saver is not None:
            raise ValueError("Cannot provide saver because logdir=None")
        if trace_every_n_steps is not None:
            raise ValueError("Cannot provide trace_every_n_steps because logdir=None")
    if isinstance(sync_optimizer, SyncReplicasOptimizer):
        sync_optimizer = [sync_optimizer]
    if sync_optimizer is not None:
        if startup_delay_steps > 0:
            raise ValueError("startup_delay_steps must be zero when sync_optimizer is supplied.")
        if not all(isinstance(opt, SyncReplicasOptimizer) for opt in sync_optimizer):
            raise ValueError("`sync_optimizer` must be a tf.train.SyncReplicasOptimizer.")
    if number_of_steps is not None and number_of_steps <= 0:
        raise ValueError("`number_of_steps` must be either None or a positive number.")
    graph = graph or ops.get_default_graph()
    with graph.as_default():
        global_step = global_step if global_step is not None else get_or_create_global_step()
        saver = saver or Saver()
        with ops.name_scope("init_ops"):
            if init_op == _USE_DEFAULT:
                init_op = state_ops.global_variables_initializer()
            if ready_op == _USE_DEFAULT:
                ready_op = state_ops.report_uninitialized_variables()
            if local_init_op == _USE_DEFAULT:
                local_init_op = control_flow_ops.group(state_ops.local_variables_initializer(),
                                                       state_ops.tables_initializer())
            ready_for_local_init_op = None
            if sync_optimizer is not None:
                with ops.control_dependencies([local_init_op] if local_init_op is not None else []):
                    local_init_op = control_flow_ops.group(
                        *[opt.chief_init_op if is_chief else opt.local_step_init_op for opt in sync_optimizer])
                ready_for_local_init_op = array_ops.concat([opt.ready_for_local_init_op for opt in sync_optimizer],
                                                           axis=0)
        if summary_op == _USE_DEFAULT:
            summary_op = summary.merge_all()
        if summary_writer == _USE_DEFAULT:
            summary_writer = Supervisor.USE_DEFAULT
        if is_chief and sync_optimizer is not None:
            init_tokens_op = [opt.get_init_tokens_op() for opt in sync_optimizer]
            chief_queue_runners = [opt.get_chief_queue_runner() for opt in sync_optimizer]
        if train_step_kwargs == _USE_DEFAULT:
            with ops.name_scope("train_step"):
                train_step_kwargs = {"should_stop": math_ops.greater_equal(global_step, number_of_steps)
                                     if number_of_steps else ops.convert_to_tensor(False)}
                if log_every_n_steps > 0:
                    train_step_kwargs["should_log"] = math_ops.equal(math_ops.mod(global_step, log_every_n_steps),
                                                                     0)
                if is_chief and trace_every_n_steps is not None:
                    train_step_kwargs["should_trace"] = math_ops.equal(
                        math_ops.mod(global_step, trace_every_n_steps), 0)
                    train_step_kwargs["logdir"] = logdir
    supervisor_kwargs = dict(graph=graph, is_chief=is_chief, logdir=logdir, init_op=init_op,
                             init_feed_dict=init_feed_dict, local_init_op=local_init_op, ready_op=ready_op,
                             summary_op=summary_op, summary_writer=summary_writer, global_step=global_step,
                             saver=saver, save_summaries_secs=save_summaries_secs,
                             save_model_secs=save_interval_secs, init_fn=init_fn)
    if ready_for_local_init_op is not None:
        supervisor_kwargs["ready_for_local_init_op"] = ready_for_local_init_op
    sv = Supervisor(**supervisor_kwargs)
    if summary_writer is not None:
        train_step_kwargs["summary_writer"] = sv.summary_writer
    total_loss = None
    while True:
        try:
            with sv.managed_session(master, start_standard_services=False, config=session_config) as sess:
                _log.info("Starting Session.")
                if session_wrapper is not None:
                    sess = session_wrapper(sess)
                if is_chief:
                    if logdir:
                        sv.start_standard_services(sess)
                elif startup_delay_steps > 0:
                    _wait_for_step(sess, global_step, min(startup_delay_steps, number_of_steps or sys.maxsize))
                threads = sv.start_queue_runners(sess)
                if is_chief and sync_optimizer is not None:
                    sv.start_queue_runners(sess, chief_queue_runners)
                    sess.run(init_tokens_op)
                try:
                    while not sv.should_stop():
                        total_loss, should_stop = train_step_fn(sess, train_op, global_step, train_step_kwargs)
                        if should_stop:
                            _log.info("Stopping Training.")
                            sv.request_stop()
                            break
                except errors.OutOfRangeError as e:
                    _log.info("Caught OutOfRangeError. Stopping Training. %s", e)
                if logdir and sv.is_chief:
                    _log.info("Finished training! Saving model to disk.")
                    sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
                    sv.stop(threads, close_summary_writer=True, ignore_live_threads=ignore_live_threads)
            return total_loss
        except errors.AbortedError:  # (a parameter server restarted: start the session again)
            _log.info("Retrying training!")
