"""TF-Slim's queue-based input: ``parallel_reader`` (several readers of a dataset's files
filling one common queue), ``prefetch_queue`` (tensors computed ahead by queue runners) and
``dataset_data_provider`` (a dataset's records read in parallel and decoded into its items),
as TF-Slim's training scripts read TFRecords before tf.data; and ``queues.QueueRunners``. Their threads are queue runners:
start them with ``tf.train.start_queue_runners`` (Supervisor, MonitoredSession and
``slim.learning.train`` do).
"""

from __future__ import annotations

import abc
import contextlib

from ..framework import dtypes as _dtypes
from ..framework import ops
from ..ops import math_ops
from ..ops.data_flow_ops import FIFOQueue, PaddingFIFOQueue
from ..ops.io_readers import ReaderBase
from ..ops.random_shuffle_queue import RandomShuffleQueue
from ..platform import gfile
from ..summary import summary_ops as summary
from ..train.input import string_input_producer
from ..train.coordinator import Coordinator
from ..train.queue_runner import QueueRunner, add_queue_runner


# -- parallel_reader -----------------------------------------------------------------------------

class ParallelReader(ReaderBase):
    """``num_readers`` readers of ``reader_class`` (made with ``reader_kwargs``) that take file
    names from the same queue and put their (key, value) records into ``common_queue``, which
    ``read`` takes from."""

    def __init__(self, reader_class, common_queue, num_readers=4, reader_kwargs=None):
        if len(common_queue.dtypes) != 2 or any(d.base_dtype != _dtypes.string for d in common_queue.dtypes):
            raise TypeError("common_queue.dtypes must be [tf.string, tf.string]")
        self._readers = [reader_class(**(reader_kwargs or {})) for _ in range(num_readers)]
        self._common_queue = common_queue

    @property
    def num_readers(self) -> int:
        return len(self._readers)

    @property
    def common_queue(self):
        return self._common_queue

    @property
    def reader_ref(self):
        raise NotImplementedError("A ParallelReader is several readers: it has no reader_ref of its own")

    def read(self, queue, name=None):
        """The next (key, value) of any of the readers (their queue runner is added here)."""
        self._configure_readers_by(queue)
        return self._common_queue.dequeue(name=name)

    def read_up_to(self, queue, num_records, name=None):
        self._configure_readers_by(queue)
        return self._common_queue.dequeue_up_to(num_records, name=name)

    def _configure_readers_by(self, queue):
        enqueues = [self._common_queue.enqueue(reader.read(queue)) for reader in self._readers]
        add_queue_runner(QueueRunner(self._common_queue, enqueues))

    def num_records_produced(self, name=None):
        return math_ops.add_n([r.num_records_produced() for r in self._readers], name=name)

    def num_work_units_completed(self, name=None):
        return math_ops.add_n([r.num_work_units_completed() for r in self._readers], name=name)

    def reset(self, name=None):
        raise NotImplementedError("A ParallelReader cannot be reset: reset its readers' queue instead")


def get_data_files(data_sources) -> list:
    """The files of ``data_sources``: a path, a glob pattern, or a list of them.

    Raises:
      ValueError: no file matches.
    """
    if isinstance(data_sources, (list, tuple)):
        files = [f for source in data_sources for f in get_data_files(source)]
    elif any(c in data_sources for c in "*?["):
        files = gfile.Glob(data_sources)
    else:
        files = [data_sources]
    if not files:
        raise ValueError(f"No data files found in {data_sources}")
    return files


def parallel_read(data_sources, reader_class, num_epochs=None, num_readers=4, reader_kwargs=None, shuffle=True,
                  dtypes=None, capacity=256, min_after_dequeue=128, seed=None, scope=None):
    """(key, value) of the next record of ``data_sources``, read by ``num_readers`` readers into
    a common queue (shuffled, holding at least ``min_after_dequeue``, unless ``shuffle`` is
    False); the files are gone through ``num_epochs`` times (forever when None)."""
    files = get_data_files(data_sources)
    with ops.name_scope(scope, "parallel_read"):
        filename_queue = string_input_producer(files, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                               name="filenames")
        types = dtypes or [_dtypes.string, _dtypes.string]
        if shuffle:
            common_queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue, dtypes=types,
                                              seed=seed, name="common_queue")
        else:
            common_queue = FIFOQueue(capacity=capacity, dtypes=types, name="common_queue")
        summary.scalar(f"fraction_of_{capacity}_full",
                       math_ops.cast(common_queue.size(), _dtypes.float32) * (1.0 / capacity))
        return ParallelReader(reader_class, common_queue, num_readers=num_readers,
                              reader_kwargs=reader_kwargs).read(filename_queue)


def single_pass_read(data_sources, reader_class, reader_kwargs=None, scope=None):
    """(key, value) of the records of ``data_sources``, each once, in order."""
    files = get_data_files(data_sources)
    with ops.name_scope(scope, "single_pass_read"):
        filename_queue = string_input_producer(files, num_epochs=1, shuffle=False, capacity=1, name="filenames")
        return reader_class(**(reader_kwargs or {})).read(filename_queue)


# -- prefetch_queue ------------------------------------------------------------------------------

def prefetch_queue(tensors, capacity=8, num_threads=1, dynamic_pad=False, shared_name=None, name=None):
    """A queue that ``num_threads`` queue runners keep filled with ``tensors`` (a list, or a dict
    whose keys name the dequeued ones); with ``dynamic_pad``, a PaddingFIFOQueue."""
    if isinstance(tensors, dict):
        names = sorted(tensors)
        tensor_list = [tensors[n] for n in names]
    else:
        names, tensor_list = None, list(tensors)
    with ops.name_scope(name, "prefetch_queue", tensor_list):
        kind = PaddingFIFOQueue if dynamic_pad else FIFOQueue
        queue = kind(capacity=capacity, dtypes=[t.dtype for t in tensor_list], shapes=[t.shape for t in tensor_list],
                     names=names, shared_name=shared_name)
        enqueue = queue.enqueue(tensors)
        add_queue_runner(QueueRunner(queue, [enqueue] * num_threads))
        summary.scalar(f"fraction_of_{capacity}_full", math_ops.cast(queue.size(), _dtypes.float32) * (1.0 / capacity))
        return queue


# -- data providers ------------------------------------------------------------------------------

class DataProvider(abc.ABC):
    """Gives the tensors of a dataset's items by name."""

    def __init__(self, items_to_tensors, num_samples):
        self._items_to_tensors, self._num_samples = items_to_tensors, num_samples

    def get(self, items):
        """The tensors of ``items`` (a list or tuple of item names)."""
        if not isinstance(items, (list, tuple)):
            raise ValueError("items must be a list or tuple")
        for item in items:
            if item not in self._items_to_tensors:
                raise ValueError(f"Item [{item}] is invalid. Valid entries include: {list(self._items_to_tensors)}")
        return [self._items_to_tensors[item] for item in items]

    def list_items(self):
        return self._items_to_tensors.keys()

    def num_samples(self):
        return self._num_samples


class DatasetDataProvider(DataProvider):
    """The items of ``dataset`` (a ``slim.dataset.Dataset``), each record read by
    ``parallel_read`` and decoded by the dataset's decoder; the record's key is the item
    ``record_key``."""

    def __init__(self, dataset, num_readers=1, reader_kwargs=None, shuffle=True, num_epochs=None,
                 common_queue_capacity=256, common_queue_min=128, record_key="record_key", seed=None, scope=None):
        key, data = parallel_read(dataset.data_sources, reader_class=dataset.reader, num_epochs=num_epochs,
                                  num_readers=num_readers, reader_kwargs=reader_kwargs, shuffle=shuffle,
                                  capacity=common_queue_capacity, min_after_dequeue=common_queue_min, seed=seed,
                                  scope=scope)
        items = list(dataset.decoder.list_items())
        items_to_tensors = dict(zip(items, dataset.decoder.decode(data, items)))
        if record_key in items_to_tensors:
            raise ValueError(f"The item name used for `record_key` cannot also be used for a dataset item: "
                             f"{record_key}")
        items_to_tensors[record_key] = key
        super().__init__(items_to_tensors=items_to_tensors, num_samples=dataset.num_samples)


# -- queues --------------------------------------------------------------------------------------

@contextlib.contextmanager
def QueueRunners(session):  # noqa: N802 - TF-Slim's name
    """Within the block, the queue runners of ``session``'s graph run; at its end they are asked
    to stop and joined (``slim.queues.QueueRunners``)."""
    with session.graph.as_default():
        coord = Coordinator()
        threads = [t for runner in ops.get_collection(ops.GraphKeys.QUEUE_RUNNERS)
                   for t in runner.create_threads(session, coord=coord, daemon=True, start=True)]
        try:
            yield
        finally:
            coord.request_stop()
            try:
                coord.join(threads, stop_grace_period_secs=120)
            except RuntimeError:
                session.close()
