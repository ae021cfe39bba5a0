"""``tf.contrib.summary``: TF 1.8-1.15's summaries that write themselves (``summary_ops_v2``),
in graph mode.

A summary op here writes its Summary into the default writer's event file when it runs, at
a step (the global step unless given), if recording is on then; it returns whether it wrote.
Recording is off unless asked for: ``always_record_summaries()``, or
``record_summaries_every_n_global_steps(n)`` (when the global step is a multiple of ``n``);
``never_record_summaries()`` turns it off inside. With no default writer (``with
writer.as_default():``) a summary is ``False`` and writes nothing. The summary ops land in a
collection of their own: ``all_summary_ops()``. A writer's event file is opened by its
``init()`` op (``summary_writer_initializer_op()`` holds them, ``initialize(session=...)``
runs them) or by its first write, one per log directory and suffix in a process, as TF shares
its writer resources by their log directory; ``flush()`` and ``close()`` are ops too. Tags
and values are those of ``tf.summary``'s ops of the same kind. ``create_db_writer`` (SQLite)
is not supported.
"""

from __future__ import annotations

import contextlib
import os
import threading

import numpy as np

from .._namespace import missing
from ..framework import dtypes, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, math_ops
from ..ops.op_util import make_tensor
from ..protos import distflow_pb2 as pb
from ..summary import summary_ops
from ..summary.writer import FileWriter
from ..train import training_util

_SUMMARY_OPS = "_SUMMARY_V2"
_WRITER_INITS = "_SUMMARY_WRITER_INIT_OP"
_SHOULD_RECORD = "_SHOULD_RECORD_SUMMARIES"
_DEFAULT_WRITER = "_contrib_summary_default_writer"

_writers: dict = {}  # (logdir, filename suffix) -> FileWriter, as TF shares writer resources
_writers_lock = threading.Lock()


def _writer(key: str, max_queue: int, flush_millis: int) -> FileWriter:
    with _writers_lock:
        writer = _writers.get(key)
        if writer is None:
            logdir, _, suffix = key.partition("\0")
            writer = _writers[key] = FileWriter(logdir, max_queue=max_queue, flush_secs=flush_millis / 1000.0,
                                                filename_suffix=suffix or None)
        return writer


@register_op("_ContribSummaryWrite", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.bool, stateful=True)
def _write_kernel(xp, record, step, summary, *, writer, max_queue, flush_millis):
    if not bool(np.asarray(record)):
        return np.array(False)
    data = np.asarray(summary).item()
    _writer(writer, max_queue, flush_millis).add_summary(pb.Summary.FromString(data), int(np.asarray(step)))
    return np.array(True)


@register_op("_ContribSummaryWriterOp", shape=lambda op: [], stateful=True)
def _writer_op_kernel(xp, *graph_def, writer, max_queue, flush_millis, action, step=0):
    target = _writer(writer, max_queue, flush_millis)
    if action == "flush":
        target.flush()
    elif action == "close":
        with _writers_lock:
            _writers.pop(writer, None)
        target.close()
    elif action == "graph":
        target.add_graph(graph_def=pb.GraphDef.FromString(np.asarray(graph_def[0]).item()), global_step=step)


for _op_type in ("_ContribSummaryWrite", "_ContribSummaryWriterOp"):
    not_differentiable(_op_type)


class SummaryWriter:
    """A writer of one event file (``create_file_writer``)."""

    def __init__(self, logdir, max_queue=None, flush_millis=None, filename_suffix=None):
        self._key = f"{logdir}\0{filename_suffix or ''}"
        self._max_queue = 10 if max_queue is None else int(max_queue)
        self._flush_millis = 120000 if flush_millis is None else int(flush_millis)
        self._init_op = self._op("init")

    def _op(self, action, inputs=(), **attrs):
        return ops.get_default_graph().create_op(
            "_ContribSummaryWriterOp", list(inputs), {"writer": self._key, "max_queue": self._max_queue,
                                                      "flush_millis": self._flush_millis, "action": action, **attrs},
            name=f"summary_writer_{action}")

    def init(self):
        """The op that opens the event file."""
        return self._init_op

    def flush(self):
        return self._op("flush")

    def close(self):
        return self._op("close")

    @contextlib.contextmanager
    def as_default(self):
        """Makes this the writer that summary ops write to, inside the block."""
        graph = ops.get_default_graph()
        stack = graph.__dict__.setdefault(_DEFAULT_WRITER, [])
        stack.append(self)
        try:
            yield self
        finally:
            stack.pop()

    def set_as_default(self):
        ops.get_default_graph().__dict__.setdefault(_DEFAULT_WRITER, []).append(self)


def _default_writer():
    stack = ops.get_default_graph().__dict__.get(_DEFAULT_WRITER)
    return stack[-1] if stack else None


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None):
    """A SummaryWriter of an event file in ``logdir`` (created when it opens); its init op is in
    ``summary_writer_initializer_op()``."""
    if logdir is None:
        raise ValueError("logdir cannot be None")
    if not isinstance(logdir, str):
        logdir = str(logdir.decode() if isinstance(logdir, bytes) else logdir)
    writer = SummaryWriter(logdir, max_queue, flush_millis, filename_suffix)
    ops.add_to_collection(_WRITER_INITS, writer.init())
    return writer


def create_summary_file_writer(*args, **kwargs):
    """TF 1.8's name of ``create_file_writer``."""
    return create_file_writer(*args, **kwargs)


def create_db_writer(*args, **kwargs):
    raise NotImplementedError("tf.contrib.summary.create_db_writer (summaries in SQLite) is not supported by "
                              "distflow: use create_file_writer")


@contextlib.contextmanager
def _recording(condition):
    collection = ops.get_collection_ref(_SHOULD_RECORD)
    old = list(collection)
    collection[:] = [condition]
    try:
        yield
    finally:
        collection[:] = old


def always_record_summaries():
    """Records every summary op built inside."""
    return _recording(array_ops.constant(True))


def never_record_summaries():
    """Records none of the summary ops built inside."""
    return _recording(array_ops.constant(False))


def record_summaries_every_n_global_steps(n, global_step=None):
    """Records the summary ops built inside at the steps that are a multiple of ``n``."""
    step = global_step if global_step is not None else training_util.get_or_create_global_step()
    with ops.device("/cpu:0"):
        condition = math_ops.equal(math_ops.mod(step, n), 0)
    return _recording(condition)


def should_record_summaries():
    """Whether the summary ops built here record (a bool tensor, or False)."""
    collection = ops.get_collection(_SHOULD_RECORD)
    return collection[-1] if collection else False


def _write(serialized, step):
    writer = _default_writer()
    record = should_record_summaries()
    if writer is None or record is False:
        return array_ops.constant(False)
    if step is None:
        step = training_util.get_or_create_global_step()
    step = math_ops.cast(step, dtypes.int64)
    out = make_tensor("_ContribSummaryWrite", [ops.convert_to_tensor(record, dtypes.bool), step, serialized],
                      {"writer": writer._key, "max_queue": writer._max_queue, "flush_millis": writer._flush_millis})
    ops.add_to_collection(_SUMMARY_OPS, out)
    return out


def scalar(name, tensor, family=None, step=None):
    """Writes a scalar summary (``tf.summary.scalar``'s tag and value)."""
    return _write(summary_ops.scalar(name, math_ops.cast(tensor, dtypes.float32), collections=[], family=family),
                  step)


def histogram(name, tensor, family=None, step=None):
    """Writes a histogram summary of ``tensor``'s values."""
    return _write(summary_ops.histogram(name, tensor, collections=[], family=family), step)


def image(name, tensor, bad_color=None, max_images=3, family=None, step=None):
    """Writes image summaries of a [batch, height, width, 1, 3 or 4] tensor."""
    return _write(summary_ops.image(name, tensor, max_outputs=max_images, collections=[], family=family), step)


def audio(name, tensor, sample_rate, max_outputs, family=None, step=None):
    """Writes audio summaries of a [batch, frames(, channels)] tensor."""
    return _write(summary_ops.audio(name, tensor, sample_rate, max_outputs=max_outputs, collections=[],
                                    family=family), step)


def generic(name, tensor, metadata=None, family=None, step=None):
    """Writes ``tensor`` as a tensor summary (with ``metadata``, a SummaryMetadata or its bytes)."""
    if isinstance(metadata, bytes):
        metadata = pb.SummaryMetadata.FromString(metadata)
    return _write(summary_ops.tensor_summary(name, tensor, summary_metadata=metadata, collections=[],
                                             family=family), step)


def graph(param, step=None, name=None):
    """An op that writes a graph (a Graph, a GraphDef, or its bytes) to the default writer."""
    writer = _default_writer()
    if writer is None:
        return array_ops.constant(False)
    if isinstance(param, ops.Graph):
        param = param.as_graph_def()
    data = param.SerializeToString() if hasattr(param, "SerializeToString") else param
    step = 0 if step is None else int(step)
    return writer._op("graph", [ops.convert_to_tensor(data, dtypes.string)], step=step)


_graph_summary = graph  # (``initialize``'s argument of the same name hides it there)


def all_summary_ops():
    """The summary ops of the default graph (``None`` if there are none, as TF)."""
    found = ops.get_collection(_SUMMARY_OPS)
    return found or None


def summary_writer_initializer_op():
    """The init ops of the writers of the default graph."""
    return ops.get_collection(_WRITER_INITS)


def initialize(graph=None, session=None):
    """Runs the writers' init ops in ``session`` (the default one), and writes ``graph`` with
    the default writer, which there must be (as TF)."""
    if _default_writer() is None:
        raise RuntimeError("No default tf.contrib.summary.SummaryWriter found")
    session = session or ops.get_default_session()
    if session is None:
        raise ValueError("Argument `session` must be passed if no default session exists")
    session.run(summary_writer_initializer_op())
    if graph is not None:
        session.run(_graph_summary(graph))


def flush(writer=None, name=None):
    """An op that flushes ``writer`` (the default one)."""
    writer = writer or _default_writer()
    if writer is None:
        return array_ops.constant(False)
    return writer.flush()


def eval_dir(model_dir, name=None):
    """The directory of an evaluation's summaries: ``model_dir/eval[_name]``."""
    return os.path.join(model_dir, "eval" if not name else "eval_" + name)


__getattr__ = missing("tf.contrib.summary")
