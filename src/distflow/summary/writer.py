"""``tf.summary.FileWriter``: TensorBoard event files.

Each event (a summary, a graph, a session log) is one record of
``<logdir>/events.out.tfevents.<time>.<host>`` in the TFRecord format; the first is the
file version. Events are written as they come and flushed within ``flush_secs`` (and on
``flush``/``close``), so TensorBoard sees a running job's progress.
"""

from __future__ import annotations

import os
import socket
import threading
import time

from ..framework import errors, ops
from ..platform.tf_record import encode_record
from ..protos import distflow_pb2 as pb


class FileWriter:
    """Writes Summary protocol buffers (and the graph) to an event file in ``logdir``."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None, filename_suffix=None,
                 session=None):
        if session is not None:
            raise errors.UnimplementedError(None, None, "FileWriter(session=...) (a writer run by a session's "
                                            "ops) is not supported: it writes from Python, as TF's default")
        self._logdir = str(logdir)
        self._flush_secs = flush_secs
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()
        self._file = None
        self._last_flush = time.monotonic()
        self._closed = True
        self._run_metadata_tags: set = set()
        self.reopen()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def get_logdir(self) -> str:
        return self._logdir

    def reopen(self) -> None:
        """Opens a new event file (after close()); does nothing while open."""
        with self._lock:
            if not self._closed:
                return
            os.makedirs(self._logdir, exist_ok=True)
            name = f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}{self._suffix}"
            path = os.path.join(self._logdir, name)
            counter = 1
            while os.path.exists(path):  # two writers in one second: TF adds the pid; one more number here
                path = os.path.join(self._logdir, f"{name}.{counter}")
                counter += 1
            self._path = path
            self._file = open(path, "ab")
            self._closed = False
        self.add_event(pb.Event(wall_time=time.time(), file_version="brain.Event:2"))

    # --- events ---------------------------------------------------------------------

    def add_event(self, event) -> None:
        data = encode_record(event.SerializeToString())
        with self._lock:
            if self._closed:
                raise RuntimeError("The FileWriter is closed (reopen() it first)")
            self._file.write(data)
            if time.monotonic() - self._last_flush >= min(self._flush_secs, 1.0):
                self._file.flush()
                self._last_flush = time.monotonic()

    def add_summary(self, summary, global_step=None) -> None:
        """Adds a Summary (a proto, or the bytes a summary op evaluates to)."""
        if isinstance(summary, (bytes, bytearray)):
            summary = pb.Summary.FromString(bytes(summary))
        elif hasattr(summary, "item") and not isinstance(summary, pb.Summary):
            summary = pb.Summary.FromString(summary.item())
        event = pb.Event(wall_time=time.time(), summary=summary)
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_session_log(self, session_log, global_step=None) -> None:
        event = pb.Event(wall_time=time.time(), session_log=session_log)
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_run_metadata(self, run_metadata, tag, global_step=None) -> None:
        """Adds a traced step's RunMetadata (TensorBoard shows its compute time per node) under
        ``tag``, which must be new to this file."""
        if tag in self._run_metadata_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._run_metadata_tags.add(tag)
        data = run_metadata if isinstance(run_metadata, bytes) else run_metadata.SerializeToString()
        event = pb.Event(wall_time=time.time(),
                         tagged_run_metadata=pb.TaggedRunMetadata(tag=tag, run_metadata=data))
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_graph(self, graph=None, global_step=None, graph_def=None) -> None:
        """Adds the graph (for TensorBoard's graph view). Each node carries its device: the
        one a session of this process placed it on, where one did, else the one it asked for."""
        if graph_def is None:
            graph = graph if graph is not None else ops.get_default_graph()
            graph_def = graph.as_graph_def(add_shapes=True)
            for node in graph_def.node:
                assigned = graph.get_operation_by_name(node.name)._assigned_device
                if assigned:
                    node.device = assigned
        event = pb.Event(wall_time=time.time(), graph_def=graph_def.SerializeToString())
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_meta_graph(self, meta_graph_def, global_step=None) -> None:
        event = pb.Event(wall_time=time.time(), meta_graph_def=meta_graph_def.SerializeToString())
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def flush(self) -> None:
        with self._lock:
            if not self._closed:
                self._file.flush()
                os.fsync(self._file.fileno())
                self._last_flush = time.monotonic()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class FileWriterCache:
    """One FileWriter per log directory, shared by whoever asks for it; made with the default
    graph of the first asker, which it writes (as TF's)."""

    _cache: dict = {}
    _lock = threading.Lock()

    @staticmethod
    def get(logdir) -> FileWriter:
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(logdir)
            if writer is None:
                writer = FileWriterCache._cache[logdir] = FileWriter(logdir, graph=ops.get_default_graph())
            return writer

    @staticmethod
    def clear() -> None:
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache.clear()


def summary_iterator(path):
    """The Event protos of an event file, in order."""
    from ..platform.tf_record import tf_record_iterator  # noqa: PLC0415

    for record in tf_record_iterator(path):
        yield pb.Event.FromString(record)
