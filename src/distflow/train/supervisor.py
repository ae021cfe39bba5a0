"""``tf.train.Supervisor``: TF 1.x's older way to run a training program, still in wide use.

A Supervisor finalizes the graph, then gives the chief a session whose model it
initialized or restored from ``logdir``, and the other workers a session once the chief
has done so. On the chief it runs the standard services: a thread that saves a
checkpoint every ``save_model_secs`` (and once at the start), and the queue runners of
the graph. ``managed_session()`` wraps all of it in a ``with`` block that stops the
services, reports errors and closes the session; an ``OutOfRangeError`` (an input ran
out) ends it cleanly.

On the chief with a ``logdir`` it also writes graph.pbtxt and an event file: the graph,
then the merged summaries every ``save_summaries_secs``.
"""

from __future__ import annotations

import contextlib
import logging
import os

from ..framework import errors
from ..framework import ops
from ..framework.ops import GraphKeys
from ..ops import control_flow_ops, state_ops
from . import saver as saver_mod
from . import training_util
from ..protos.distflow_pb2 import SessionLog
from ..summary.summary_ops import merge_all
from ..summary.writer import FileWriter
from .coordinator import Coordinator, LooperThread
from .meta_graph import export_meta_graph
from .saver import write_graph
from .session_manager import SessionManager

_log = logging.getLogger("distflow")


class Supervisor:
    """Creates, initializes or restores, and watches the session of a training program."""

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT, is_chief=True,
                 init_op=USE_DEFAULT, init_feed_dict=None, local_init_op=USE_DEFAULT, logdir=None,
                 summary_op=USE_DEFAULT, saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120, checkpoint_basename="model.ckpt",
                 session_manager=None, summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        self._graph = graph or ops.get_default_graph()
        with self._graph.as_default():
            self._init_ready_op(ready_op, ready_for_local_init_op)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_global_step(global_step)
        self._is_chief = is_chief
        if summary_op is Supervisor.USE_DEFAULT:
            with self._graph.as_default():
                summary_op = self._from_collection(GraphKeys.SUMMARY_OP) or merge_all()
        self._summary_op = summary_op
        if summary_writer is Supervisor.USE_DEFAULT:
            summary_writer = FileWriter(logdir) if is_chief and logdir else None
        self._summary_writer = summary_writer
        self._coord = Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._logdir = logdir
        self._save_summaries_secs = save_summaries_secs
        self._save_model_secs = save_model_secs
        self._save_path = os.path.join(logdir, checkpoint_basename) if logdir else None
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op, ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op, graph=self._graph,
            recovery_wait_secs=recovery_wait_secs, local_init_run_options=local_init_run_options)
        self._started_threads: list = []
        self._graph_added_to_summary = False
        self._verify_setup()
        if self._is_chief and logdir:
            os.makedirs(logdir, exist_ok=True)
        self._graph.finalize()

    def _verify_setup(self) -> None:
        """A worker other than the chief must have its variables placed (on the ps tasks,
        say): one of its own would be a model apart from the one the others train."""
        if not self._is_chief:
            for op in self._graph.get_operations():
                if op.type in ("Variable", "VariableV2", "VarHandleOp") and not op.device:
                    raise ValueError(f"When using replicas, all Variables must have their device set: {op.name} "
                                     "has none (use tf.train.replica_device_setter or tf.device)")

    # --- the default ops, each from its collection when a program put one there ---------

    def _from_collection(self, key):
        items = self._graph.get_collection(key)
        if len(items) > 1:
            raise RuntimeError(f"More than one item in the collection {key!r}; pass it to the Supervisor")
        return items[0] if items else None

    def _init_ready_op(self, ready_op, ready_for_local_init_op):
        if ready_op is Supervisor.USE_DEFAULT:
            ready_op = self._from_collection(GraphKeys.READY_OP)
            if ready_op is None:
                ready_op = state_ops.report_uninitialized_variables()
                self._graph.add_to_collection(GraphKeys.READY_OP, ready_op)
        if ready_for_local_init_op is Supervisor.USE_DEFAULT:
            ready_for_local_init_op = self._from_collection(GraphKeys.READY_FOR_LOCAL_INIT_OP)
            if ready_for_local_init_op is None:
                ready_for_local_init_op = state_ops.report_uninitialized_variables(state_ops.global_variables())
                self._graph.add_to_collection(GraphKeys.READY_FOR_LOCAL_INIT_OP, ready_for_local_init_op)
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op

    def _init_init_op(self, init_op, init_feed_dict):
        if init_op is Supervisor.USE_DEFAULT:
            init_op = self._from_collection(GraphKeys.INIT_OP)
            if init_op is None:
                init_op = state_ops.global_variables_initializer()
                self._graph.add_to_collection(GraphKeys.INIT_OP, init_op)
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op):
        if local_init_op is Supervisor.USE_DEFAULT:
            local_init_op = self._from_collection(GraphKeys.LOCAL_INIT_OP)
            if local_init_op is None:
                local_init_op = control_flow_ops.group(state_ops.local_variables_initializer(),
                                                       state_ops.tables_initializer(), name="local_init")
                self._graph.add_to_collection(GraphKeys.LOCAL_INIT_OP, local_init_op)
        self._local_init_op = local_init_op

    def _init_saver(self, saver):
        if saver is Supervisor.USE_DEFAULT:
            saver = self._from_collection(GraphKeys.SAVERS)
            if saver is None and state_ops.global_variables():
                saver = saver_mod.Saver()
                self._graph.add_to_collection(GraphKeys.SAVERS, saver)
        self._saver = saver

    def _init_global_step(self, global_step):
        if global_step is Supervisor.USE_DEFAULT:
            global_step = training_util.get_global_step(self._graph)
        self._global_step = global_step

    # --- properties -----------------------------------------------------------------

    is_chief = property(lambda self: self._is_chief)
    coord = property(lambda self: self._coord)
    session_manager = property(lambda self: self._session_manager)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    local_init_op = property(lambda self: self._local_init_op)
    summary_op = property(lambda self: self._summary_op)
    summary_writer = property(lambda self: self._summary_writer)
    saver = property(lambda self: self._saver)
    global_step = property(lambda self: self._global_step)
    save_path = property(lambda self: self._save_path)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)

    # --- sessions -------------------------------------------------------------------

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False,
                                    max_wait_secs=7200, start_standard_services=True):
        """The chief's session (model restored from ``logdir`` or initialized), or, on another
        worker, a session once the chief has made the model ready."""
        if self._coord.joined:  # a Supervisor used again after stop(): start afresh
            self._coord.clear_stop()
        if self._summary_writer is not None:  # (stop() closed it: a new event file)
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self._init_op, saver=self._saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config,
                init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config, max_wait_secs=max_wait_secs)
        if start_standard_services:
            self.start_queue_runners(sess)
        return sess

    def start_standard_services(self, sess) -> list:
        """Starts the chief's checkpoint thread (when there is a ``logdir`` and a saver)."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because only chief "
                               "supervisors can write events.")
        threads = []
        if self._summary_writer is not None:
            step = _current_step(sess, self._global_step)
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), step)
            if self._summary_op is not None and self._save_summaries_secs:
                threads.append(self.loop(self._save_summaries_secs, self._write_summaries, args=(sess,)))
        if self._logdir and self._saver is not None and self._save_model_secs:
            threads.append(self.loop(self._save_model_secs, self._save_checkpoint, args=(sess,)))
        return threads

    def _write_graph(self) -> None:
        """The chief's graph.pbtxt in ``logdir``, and the graph and meta graph in its event
        file (once a file)."""
        if self._logdir:
            write_graph(self._graph.as_graph_def(add_shapes=True), self._logdir, "graph.pbtxt")
        if self._summary_writer is not None and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            saver_def = self._saver.saver_def if self._saver is not None else None
            self._summary_writer.add_meta_graph(export_meta_graph(graph=self._graph, saver_def=saver_def))
            self._graph_added_to_summary = True

    def _write_summaries(self, sess) -> None:
        fetches = {"summary": self._summary_op}
        if self._global_step is not None:
            fetches["step"] = self._global_step
        values = sess.run(fetches)
        self._summary_writer.add_summary(values["summary"], values.get("step"))

    def _save_checkpoint(self, sess) -> None:
        _log.info("Saving checkpoint to path %s", self._save_path)
        self._saver.save(sess, self._save_path, global_step=self._global_step)

    def start_queue_runners(self, sess, queue_runners=None) -> list:
        """Starts the graph's queue runners (or ``queue_runners``) under this Supervisor's coordinator."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        self._started_threads.extend(threads)
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None) -> LooperThread:
        """Starts a thread that calls ``target(*args, **kwargs)`` every ``timer_interval_secs``."""
        thread = LooperThread(self._coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        thread.start()
        self._started_threads.append(thread)
        return thread

    # --- stopping -------------------------------------------------------------------

    def should_stop(self) -> bool:
        return self._coord.should_stop()

    def request_stop(self, ex=None) -> None:
        self._coord.request_stop(ex=ex)

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self) -> None:
        self._coord.wait_for_stop()

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False) -> None:
        """Stops the services and joins them; re-raises an error reported with ``request_stop``."""
        self._coord.request_stop()
        try:
            self._coord.join(list(threads or []) + self._started_threads,
                             stop_grace_period_secs=self._stop_grace_secs, ignore_live_threads=ignore_live_threads)
        finally:
            self._started_threads = []
            if close_summary_writer and self._summary_writer is not None:
                try:
                    self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                except RuntimeError:  # (closed already: a stop() before this one)
                    pass
                self._summary_writer.close()
                self._graph_added_to_summary = False

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True, close_summary_writer=True):
        """``with sv.managed_session(target) as sess:`` a prepared session, stopped and closed at the end.

        An exception in the block stops the services and is raised again after them,
        except an OutOfRangeError, which ends training cleanly as in TF 1.x.
        """
        sess = self.prepare_or_wait_for_session(master=master, config=config,
                                                start_standard_services=start_standard_services)
        try:
            yield sess
        except Exception as e:  # noqa: BLE001 - reported through the coordinator, re-raised by stop()
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                try:
                    sess.close()
                except errors.OpError:
                    pass

    # --- summaries (not written yet) ----------------------------------------------------

    def summary_computed(self, sess, summary, global_step=None) -> None:
        """Writes a summary the program computed itself (at ``global_step``, or the current one)."""
        if self._summary_writer is None:
            raise RuntimeError("Writing a summary requires a summary writer (give the Supervisor a logdir).")
        if global_step is None and self._global_step is not None:
            global_step = _current_step(sess, self._global_step)
        self._summary_writer.add_summary(summary, global_step)


Supervisor.Loop = Supervisor.loop
Supervisor.PrepareSession = Supervisor.prepare_or_wait_for_session
Supervisor.StartQueueRunners = Supervisor.start_queue_runners
Supervisor.StartStandardServices = Supervisor.start_standard_services
Supervisor.Stop = Supervisor.stop
Supervisor.RequestStop = Supervisor.request_stop
Supervisor.ShouldStop = Supervisor.should_stop
Supervisor.StopOnException = Supervisor.stop_on_exception
Supervisor.WaitForStop = Supervisor.wait_for_stop


def _current_step(sess, global_step):
    return None if global_step is None else int(sess.run(global_step))
