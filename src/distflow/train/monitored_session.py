"""MonitoredSession and MonitoredTrainingSession: training loops with hooks, checkpoints and recovery.

Differences from TensorFlow 1.x, on purpose:

- ``close()`` asks the coordinator to stop and closes the session *before* joining its
  threads: closing cancels any step still blocked (a queue runner waiting in a dequeue),
  so the threads end at once. TF 1.x joined first and could wait ``stop_grace_period_secs``
  (120 s) for a thread blocked on a parameter server.
- A session that dies with AbortedError or UnavailableError (a parameter server restarted
  or lost) is closed and created again, as in TF; every retry is logged with the error, and
  creation keeps retrying such errors until it succeeds or the server config's own
  deadlines give up.
"""

from __future__ import annotations

import functools

import logging
import time

from ..framework import errors
from ..framework import ops
from ..ops import control_flow_ops, state_ops
from ..runtime.config import RunMetadata, RunOptions
from . import queue_runner
from ..summary.summary_ops import merge_all
from .basic_session_run_hooks import CheckpointSaverHook, StepCounterHook, SummarySaverHook
from .coordinator import Coordinator
from .saver import Saver
from .session_manager import SessionManager
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues

_log = logging.getLogger("distflow")

USE_DEFAULT = object()


def frequencies(steps, secs, default: tuple) -> tuple:
    """``(steps, secs)`` of a "every so many steps or seconds" pair: ``default`` where neither
    was given, the other one off where one was (``USE_DEFAULT`` marks an argument not given)."""
    if steps is USE_DEFAULT and secs is USE_DEFAULT:
        return default
    return (None if steps is USE_DEFAULT else steps), (None if secs is USE_DEFAULT else secs)
_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)
_STOP_ACTION_SECS = 1.0  # how long close() lets a queue runner's cancel op run


class Scaffold:
    """The pieces a monitored session needs to make a model ready: init, ready and local-init ops, a saver.

    Whatever is not given is taken from the graph's collections or built by
    ``finalize()`` (which also makes the graph read-only).
    """

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None, ready_for_local_init_op=None,
                 local_init_op=None, summary_op=None, saver=None, copy_from_scaffold=None, local_init_feed_dict=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            def pick(given, name):
                return given if given is not None else getattr(copy_from_scaffold, name)
            init_op = pick(init_op, "init_op")
            init_feed_dict = pick(init_feed_dict, "init_feed_dict")
            init_fn = pick(init_fn, "_user_init_fn")
            ready_op = pick(ready_op, "ready_op")
            ready_for_local_init_op = pick(ready_for_local_init_op, "ready_for_local_init_op")
            local_init_op = pick(local_init_op, "local_init_op")
            saver = pick(saver, "saver")
        self._init_op, self._init_feed_dict, self._user_init_fn = init_op, init_feed_dict, init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._ready_op, self._ready_for_local_init_op = ready_op, ready_for_local_init_op
        self._local_init_op, self._local_init_feed_dict = local_init_op, local_init_feed_dict
        self._summary_op, self._saver = summary_op, saver

    @staticmethod
    def _collected(key, build):
        found = ops.get_collection(key)
        if found:
            return found[0]
        op = build()
        if op is not None:
            ops.add_to_collection(key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """Initializes the local variables and the lookup tables, as TF's default does."""
        return control_flow_ops.group(state_ops.local_variables_initializer(), state_ops.tables_initializer(),
                                      name="local_init")

    def finalize(self) -> "Scaffold":
        """Builds what is missing and finalizes the graph."""
        graph = ops.get_default_graph()
        if self._init_op is None:
            self._init_op = self._collected(ops.GraphKeys.INIT_OP, lambda: control_flow_ops.group(
                state_ops.global_variables_initializer(), name="init"))
        if self._ready_op is None:
            self._ready_op = self._collected(ops.GraphKeys.READY_OP, state_ops.report_uninitialized_variables)
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = self._collected(
                ops.GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: state_ops.report_uninitialized_variables(state_ops.global_variables()))
        if self._local_init_op is None:
            self._local_init_op = self._collected(ops.GraphKeys.LOCAL_INIT_OP, self.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = self._collected(ops.GraphKeys.SUMMARY_OP, merge_all)
        if self._saver is None:
            savers = ops.get_collection(ops.GraphKeys.SAVERS)
            if len(savers) > 1:
                raise RuntimeError("More than one item in collection SAVERS; pass a Scaffold with saver=")
            if savers:
                self._saver = savers[0]
            else:
                self._saver = Saver(sharded=True, allow_empty=True)
                ops.add_to_collection(ops.GraphKeys.SAVERS, self._saver)
        if not graph.finalized:
            graph.finalize()
        return self

    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    init_fn = property(lambda self: self._init_fn)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    local_init_op = property(lambda self: self._local_init_op)
    local_init_feed_dict = property(lambda self: self._local_init_feed_dict)
    summary_op = property(lambda self: self._summary_op)
    saver = property(lambda self: self._saver)


class SessionCreator:
    def create_session(self):
        raise NotImplementedError


class ChiefSessionCreator(SessionCreator):
    """Creates the chief's session: restores the latest checkpoint in ``checkpoint_dir``, or initializes."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None, checkpoint_filename_with_path=None):
        self._scaffold = scaffold or Scaffold()
        self._master, self._config = master, config
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path

    def create_session(self):
        scaffold = self._scaffold.finalize()
        manager = SessionManager(local_init_op=scaffold.local_init_op, ready_op=scaffold.ready_op,
                                 ready_for_local_init_op=scaffold.ready_for_local_init_op,
                                 local_init_feed_dict=scaffold.local_init_feed_dict)
        return manager.prepare_session(self._master, saver=scaffold.saver, checkpoint_dir=self._checkpoint_dir,
                                       checkpoint_filename_with_path=self._checkpoint_filename_with_path,
                                       config=self._config, init_op=scaffold.init_op,
                                       init_feed_dict=scaffold.init_feed_dict, init_fn=scaffold.init_fn)


class WorkerSessionCreator(SessionCreator):
    """Creates a non-chief's session: waits until the chief has made the model ready."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._master, self._config = master, config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        scaffold = self._scaffold.finalize()
        manager = SessionManager(local_init_op=scaffold.local_init_op, ready_op=scaffold.ready_op,
                                 ready_for_local_init_op=scaffold.ready_for_local_init_op,
                                 local_init_feed_dict=scaffold.local_init_feed_dict,
                                 recovery_wait_secs=min(1.0, self._max_wait_secs))
        return manager.wait_for_session(self._master, config=self._config, max_wait_secs=self._max_wait_secs)


class _MonitoredSession:
    """A session with hooks, a coordinator for its threads and, if ``recoverable``, re-creation."""

    def __init__(self, session_creator, hooks, recoverable: bool, stop_grace_period_secs=120):
        self._creator = session_creator or ChiefSessionCreator()
        self._hooks = list(hooks or [])
        self._recoverable = recoverable
        self._stop_grace_period_secs = stop_grace_period_secs
        self._graph = ops.get_default_graph()
        # Finalized while this session runs; a graph the program had not finalized is
        # opened again on close, so that a second monitored session can use it (as TF).
        self._graph_was_finalized = self._graph.finalized
        for hook in self._hooks:
            hook.begin()
        self._sess = None
        self._coord = None
        self._threads = []
        self._should_stop = False
        self._closed = False
        self._create()

    # -- creation and recovery ---------------------------------------------------------
    def _create(self) -> None:
        while True:
            try:
                self._sess = self._creator.create_session()
                self._coord = Coordinator()
                self._threads = queue_runner.start_queue_runners(self._sess, coord=self._coord)
                for hook in self._hooks:
                    hook.after_create_session(self._sess, self._coord)
                return
            except _PREEMPTION_ERRORS as e:
                if not self._recoverable:
                    raise
                _log.info("Creating the session failed (%s: %s); trying again.", type(e).__name__,
                          e.message.splitlines()[0])
                self._close_session_quietly()
                time.sleep(0.5)

    def _close_session_quietly(self) -> None:
        """Drops a broken session (or one whose training failed) and its threads.

        Unlike a clean close, the session is closed before the stop is requested, so that
        queue runners' cancel ops cannot run: they would close shared queues (the sync token
        queue) that the recreated session and the other workers still need.
        """
        coord, sess, threads = self._coord, self._sess, self._threads
        self._coord, self._sess, self._threads = None, None, []
        if sess is not None:
            try:
                sess.close()
            except Exception as e:  # noqa: BLE001 - the session is broken already
                _log.debug("closing a broken session: %s", e)
        if coord is not None:
            coord.request_stop()
            try:
                coord.join(threads, stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True)
            except Exception as e:  # noqa: BLE001 - the errors of a broken session's threads
                _log.debug("threads of a broken session: %s", e)

    # -- properties ---------------------------------------------------------------------
    @property
    def graph(self):
        return self._graph

    def should_stop(self) -> bool:
        """True once training should end. A coordinator stopped with a preemption error
        (Aborted, Unavailable, from a queue runner, say) is not an end: the session is made
        again, as TF's recoverable session does; with another error it is, and close()
        raises that error."""
        if self._should_stop or self._closed:
            return True
        if self._coord is None or not self._coord.should_stop():
            return False
        if self._recoverable and isinstance(self._coord_error(), _PREEMPTION_ERRORS):
            self._recover(self._coord_error())
            self._create()
            return False
        return True

    def _coord_error(self):
        try:
            self._coord.raise_requested_exception()
        except Exception as e:  # noqa: BLE001 - looked at, not handled, here
            return e
        return None

    def _recover(self, error) -> None:
        _log.info("An error was raised (%s: %s). This may be a parameter server or worker that restarted or "
                  "was lost: the session will be closed and created again.", type(error).__name__,
                  str(getattr(error, "message", error)).splitlines()[0] if str(error) else "")
        self._close_session_quietly()

    def _tf_sess(self):
        return self._sess

    # -- running ------------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs one step with every hook's fetches added; recreates the session on preemption errors."""
        return self._recovering(lambda: self._hooked_run(fetches, feed_dict, options, run_metadata))

    def _recovering(self, step):
        """Calls ``step()``; a preemption error (Aborted, Unavailable) closes the session, creates
        it again and calls ``step()`` again when this session is recoverable."""
        if self._closed:
            raise RuntimeError("Run called even after should_stop requested.")
        while True:
            if self._sess is None:
                self._create()
            try:
                return step()
            except _PREEMPTION_ERRORS as e:
                if not self._recoverable:
                    raise
                self._recover(e)
            except Exception as e:
                # A step that failed otherwise (cancelled, stuck) may have failed because the
                # coordinator was stopped by a preemption error: then that is the error, as in TF.
                cause = self._coord_error() if self._coord is not None else None
                if not (self._recoverable and isinstance(cause, _PREEMPTION_ERRORS)):
                    raise
                self._recover(cause)

    def _hooked_run_with_args(self, fetches, feed_dict=None, options=None, run_metadata=None):
        return self._hooked_run(fetches, feed_dict, options, run_metadata)

    def _hooked_run(self, fetches, feed_dict, options, run_metadata):
        if self._coord is not None:
            self._coord.raise_requested_exception()
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), self._sess)
        actual_fetches = {"caller": fetches}
        feeds = dict(feed_dict or {})
        hook_args = []
        for i, hook in enumerate(self._hooks):
            args = hook.before_run(context)
            hook_args.append(args)
            if args is None:
                continue
            if args.fetches is not None:
                actual_fetches[i] = args.fetches
            for key, value in (args.feed_dict or {}).items():
                if key in feeds:
                    raise RuntimeError(f"Same tensor is fed by a SessionRunHook and user. Conflict(s): {key}")
                feeds[key] = value
            if args.options is not None:
                options = _merged_options(options, args.options)
                if run_metadata is None:  # (a hook that asks for a trace reads it in after_run, as in TF)
                    run_metadata = RunMetadata()
        outputs = self._sess.run(actual_fetches, feed_dict=feeds or None, options=options,
                                 run_metadata=run_metadata)
        for i, hook in enumerate(self._hooks):
            hook.after_run(context, SessionRunValues(outputs.get(i), options, run_metadata))
        self._should_stop = self._should_stop or context.stop_requested
        return outputs["caller"]

    def run_step_fn(self, step_fn):
        """Calls ``step_fn(step_context)``: ``step_context.session`` is the raw session,
        ``run_with_hooks`` runs with the hooks, ``request_stop()`` ends the step and the training.

        A preemption error (Aborted, Unavailable) in the step recreates the session and
        calls ``step_fn`` again, as TF's recoverable sessions do.
        """
        args = _positional_names(step_fn)
        if len(args) - (args[:1] == ["self"]) != 1:  # (TF also insists on the name step_context; not here)
            raise ValueError("`step_fn` may either have one `step_context` argument, or `self` and `step_context` "
                             f"arguments if it's an instance method. Got {tuple(args)} instead.")

        def step():
            try:
                return step_fn(_StepContext(self))
            except _StopRequested:
                self._should_stop = True
                return None

        return self._recovering(step)

    # -- ending ----------------------------------------------------------------------------------
    def close(self) -> None:
        self._close(None)

    def _close(self, exception_type) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if exception_type is None and self._sess is not None:
                for hook in self._hooks:
                    hook.end(self._sess)
        finally:
            try:
                if exception_type is None:
                    self._close_cleanly()
                else:
                    self._close_session_quietly()
            finally:
                if not self._graph_was_finalized:
                    self._graph._unsafe_unfinalize()

    def _close_cleanly(self) -> None:
        coord, sess, threads = self._coord, self._sess, self._threads
        self._coord, self._sess, self._threads = None, None, []
        if coord is not None:
            coord.request_stop()
            # Threads that act on a stop (a queue runner closing its queue, which releases
            # other workers blocked on it) run while the session is still open.
            for t in threads:
                if getattr(t, "runs_on_stop", False) and t.is_alive():
                    t.join(_STOP_ACTION_SECS)
        if sess is not None:
            sess.close()  # cancels steps still blocked, so the threads end now
        if coord is not None:
            coord.join(threads, stop_grace_period_secs=self._stop_grace_period_secs)

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        if self._closed and exception_type is None:
            raise RuntimeError("Session is already closed.")  # (closed inside the with block, as TF says)
        self._close(exception_type)
        return exception_type is None


def _merged_options(options, extra):
    """The caller's RunOptions with a hook's: the longer trace, and the shorter timeout, as TF merges them."""
    if options is None:
        return extra
    merged = RunOptions(timeout_in_ms=min([t for t in (options.timeout_in_ms, extra.timeout_in_ms) if t] or [0]),
                        trace_level=max(options.trace_level, extra.trace_level))
    if getattr(options, "output_partition_graphs", False) or getattr(extra, "output_partition_graphs", False):
        merged.output_partition_graphs = True
    return merged


def _positional_names(fn) -> list[str]:
    """The names of ``fn``'s positional parameters (``self`` included for a bound method, as TF counts)."""
    import inspect  # noqa: PLC0415

    target = fn.func if isinstance(fn, functools.partial) else fn
    names = [p.name for p in inspect.signature(target).parameters.values()
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if inspect.ismethod(target):
        names = ["self"] + names
    if isinstance(fn, functools.partial):
        names = names[len(fn.args):]
    return names


class _StopRequested(Exception):
    """Raised by ``step_context.request_stop()`` to leave ``step_fn``; run_step_fn catches it."""


class _StepContext:
    """What ``run_step_fn`` hands to ``step_fn``."""

    def __init__(self, monitored: _MonitoredSession):
        self._monitored = monitored

    @property
    def session(self):
        return self._monitored._sess

    def run_with_hooks(self, *args, **kwargs):
        return self._monitored._hooked_run_with_args(*args, **kwargs)

    def request_stop(self):
        raise _StopRequested()


class MonitoredSession(_MonitoredSession):
    """``tf.train.MonitoredSession``: hooks, queue runners and recovery from preemption errors."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, recoverable=True, stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """``tf.train.SingularMonitoredSession``: a chief's monitored session without recovery."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
                                      checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, recoverable=False, stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        return self._sess


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,  # noqa: N802
                             chief_only_hooks=None, save_checkpoint_secs=USE_DEFAULT,
                             save_summaries_steps=USE_DEFAULT, save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100, max_wait_secs=7200,
                             save_checkpoint_steps=USE_DEFAULT, summary_dir=None):
    """A MonitoredSession set up for (distributed) training, as ``tf.train.MonitoredTrainingSession``.

    The chief restores the latest checkpoint of ``checkpoint_dir`` or initializes the model,
    and saves checkpoints every ``save_checkpoint_secs`` (600 by default) or
    ``save_checkpoint_steps``; other workers wait (up to ``max_wait_secs``) for the chief.
    With ``summary_dir`` (or ``checkpoint_dir``) the chief writes the merged summaries every
    ``save_summaries_steps`` (100 by default) or ``save_summaries_secs``, and global_step/sec,
    to that directory's event file, as TF 1.x did.
    """
    save_checkpoint_steps, save_checkpoint_secs = frequencies(save_checkpoint_steps, save_checkpoint_secs,
                                                              (None, 600))
    save_summaries_steps, save_summaries_secs = frequencies(save_summaries_steps, save_summaries_secs, (100, None))
    scaffold = scaffold or Scaffold()
    hooks = list(hooks or [])
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs)
        return MonitoredSession(creator, hooks=hooks, stop_grace_period_secs=stop_grace_period_secs)
    creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir)
    all_hooks = list(chief_only_hooks or []) + hooks
    summary_dir = summary_dir or checkpoint_dir
    # As TF 1.x: steps are counted (which needs a global step) only for a summary directory.
    if summary_dir and log_step_count_steps and log_step_count_steps > 0:
        all_hooks.append(StepCounterHook(every_n_steps=log_step_count_steps, output_dir=summary_dir))
    if summary_dir and ((save_summaries_steps and save_summaries_steps > 0) or
                        (save_summaries_secs and save_summaries_secs > 0)):
        all_hooks.append(SummarySaverHook(scaffold=scaffold, save_steps=save_summaries_steps,
                                          save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir and (save_checkpoint_secs or save_checkpoint_steps):
        all_hooks.append(CheckpointSaverHook(checkpoint_dir, save_secs=save_checkpoint_secs,
                                             save_steps=save_checkpoint_steps, scaffold=scaffold))
    return MonitoredSession(creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)
