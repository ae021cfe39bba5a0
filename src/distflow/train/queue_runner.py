"""``tf.train.QueueRunner``: threads that run enqueue ops until the queue closes or the coordinator stops."""

from __future__ import annotations

import logging
import threading

from ..framework import errors
from ..framework import ops
from ..framework.ops import GraphKeys

_log = logging.getLogger("distflow")


class QueueRunner:
    """Runs each of ``enqueue_ops`` in its own thread, again and again.

    When every thread has seen the queue closed (OutOfRangeError), ``close_op`` runs;
    when the coordinator asks to stop, ``cancel_op`` runs, which unblocks pending
    enqueues. An error stops the coordinator and is reported by its join(). Errors
    that arrive after a stop was requested (the session closing under a blocked
    op) end the thread quietly.
    """

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None):
        if queue is None or not enqueue_ops:
            raise ValueError("QueueRunner needs a queue and at least one enqueue op")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        self._closed_types = tuple(queue_closed_exception_types or (errors.OutOfRangeError,))
        self._lock = threading.Lock()
        self._runs: dict = {}  # session -> threads still running
        self._exceptions: list = []

    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self) -> list:
        return list(self._enqueue_ops)

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self) -> tuple:
        return self._closed_types

    @property
    def exceptions_raised(self) -> list:
        return list(self._exceptions)

    @property
    def name(self) -> str:
        return self._queue.name

    def to_proto(self, export_scope=None):
        """This runner as TensorFlow's QueueRunnerDef (names relative to ``export_scope``), or
        None if its queue is outside that scope."""
        from ..protos import distflow_pb2 as pb  # noqa: PLC0415 - protobuf only for programs that ask

        if export_scope and not self._queue.name.startswith(export_scope + "/"):
            return None

        def relative(name: str) -> str:
            return name[len(export_scope) + 1:] if export_scope and name.startswith(export_scope + "/") else name

        return pb.QueueRunnerDef(
            queue_name=relative(self._queue.name), enqueue_op_name=[relative(op.name) for op in self._enqueue_ops],
            close_op_name=relative(self._close_op.name), cancel_op_name=relative(self._cancel_op.name),
            queue_closed_exception_types=[errors.error_code_from_exception_type(t) for t in self._closed_types])

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None) -> "QueueRunner":
        """The runner a QueueRunnerDef describes, over the ops of the default graph (under
        ``import_scope``): what ``import_meta_graph`` restores."""
        graph = ops.get_default_graph()

        def element(name: str):
            return graph.as_graph_element(f"{import_scope}/{name}" if import_scope else name)

        closed = [errors.exception_type_from_error_code(c) for c in queue_runner_def.queue_closed_exception_types]
        return QueueRunner(element(queue_runner_def.queue_name),
                           [element(n) for n in queue_runner_def.enqueue_op_name],
                           element(queue_runner_def.close_op_name), element(queue_runner_def.cancel_op_name),
                           closed or None)

    def _run(self, sess, enqueue_op, coord) -> None:
        decremented = False
        try:
            while not (coord is not None and coord.should_stop()):
                try:
                    sess.run(enqueue_op)
                except self._closed_types:
                    with self._lock:
                        self._runs[sess] -= 1
                        decremented = True
                        last = self._runs[sess] == 0
                    if last:
                        try:
                            sess.run(self._close_op)
                        except Exception as e:  # noqa: BLE001 - the session is going away
                            _log.debug("queue runner %s: close failed: %s", self.name, e)
                    return
        except Exception as e:  # noqa: BLE001 - reported to the coordinator
            if coord is not None and coord.should_stop():
                return  # the session closed under a blocked op: a clean end
            if isinstance(e, RuntimeError) and "closed Session" in str(e):
                return
            if coord is not None:
                coord.request_stop(e)
            else:
                _log.error("Exception in QueueRunner %s: %s", self.name, e)
                with self._lock:
                    self._exceptions.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs[sess] -= 1

    def _close_on_stop(self, sess, coord) -> None:
        coord.wait_for_stop()
        try:
            sess.run(self._cancel_op)
        except Exception as e:  # noqa: BLE001 - the session may already be closed
            _log.debug("queue runner %s: cancel failed: %s", self.name, e)

    def create_threads(self, sess, coord=None, daemon=False, start=False) -> list[threading.Thread]:
        with self._lock:
            if self._runs.get(sess, 0) > 0:
                return []  # already running for this session
            self._runs[sess] = len(self._enqueue_ops)
            self._exceptions = []
        # (TF's thread names: they show in thread dumps and profilers)
        threads = [threading.Thread(target=self._run, args=(sess, op, coord), daemon=daemon,
                                    name=f"QueueRunnerThread-{self.name}-{op.name}") for op in self._enqueue_ops]
        if coord is not None:
            cancel = threading.Thread(target=self._close_on_stop, args=(sess, coord), daemon=daemon,
                                      name=f"QueueRunnerThread-{self.name}-close_on_stop")
            cancel.runs_on_stop = True  # a monitored session lets it finish before closing the session
            threads.append(cancel)
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if start:
                t.start()
        return threads


def add_queue_runner(qr: QueueRunner, collection=GraphKeys.QUEUE_RUNNERS) -> None:
    ops.add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=GraphKeys.QUEUE_RUNNERS) -> list[threading.Thread]:
    """Starts the threads of every queue runner in ``collection`` of the session's graph."""
    if sess is None:
        sess = ops.get_default_session()
        if sess is None:
            raise ValueError("Cannot start queue runners: no default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
        return []  # (it started its queue runners itself, as in TF)
    from ..runtime.session import BaseSession  # noqa: PLC0415

    if not isinstance(sess, BaseSession):
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {type(sess)}")
    threads = []
    for qr in sess.graph.get_collection(collection):
        threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
