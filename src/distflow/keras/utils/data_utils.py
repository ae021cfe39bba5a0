"""``tf.keras.utils``' enqueuers: batches of a ``Sequence`` (``OrderedEnqueuer``) or a
generator (``GeneratorEnqueuer``) made ahead of the loop that uses them, in worker threads,
into a bounded queue; ``get()`` yields them. ``OrderedEnqueuer`` yields a Sequence's batches
in their order (each epoch, shuffled if asked, then ``on_epoch_end``) however many workers
make them.

Workers are threads whatever ``use_multiprocessing`` says: the batches are NumPy work, which
releases the interpreter's lock, and no process has to pickle them.
"""

from __future__ import annotations

import queue
import random
import threading
from concurrent.futures import ThreadPoolExecutor

_DONE = object()


class SequenceEnqueuer:
    """The base of the enqueuers: ``start(workers, max_queue_size)``, ``get()``, ``stop()``,
    ``is_running()``."""

    def __init__(self, sequence, use_multiprocessing=False):
        self.sequence = sequence
        self.use_multiprocessing = use_multiprocessing
        self.workers = 0
        self.queue = None
        self._stop_event = None
        self._thread = None

    def is_running(self) -> bool:
        return self._stop_event is not None and not self._stop_event.is_set()

    def start(self, workers=1, max_queue_size=10) -> None:
        """Starts making batches with ``workers`` threads, at most ``max_queue_size`` ahead."""
        self.workers = max(1, int(workers))
        self.queue = queue.Queue(max(1, int(max_queue_size)))
        self._stop_event = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name=type(self).__name__)
        self._thread.start()

    def stop(self, timeout=None) -> None:
        """Stops the workers (the batches not yet taken are dropped)."""
        if self._stop_event is None:
            return
        self._stop_event.set()
        while True:  # (a worker blocked on a full queue gets room to see the stop)
            try:
                self.queue.get_nowait()
            except queue.Empty:
                break
        self._thread.join(timeout)
        self._thread = None

    def _put(self, item) -> bool:
        """Puts ``item`` once there is room; False if stopped first."""
        while not self._stop_event.is_set():
            try:
                self.queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _run(self) -> None:
        raise NotImplementedError

    def get(self):
        """Yields the batches as they are made; an exception a worker met is raised here."""
        while self.is_running() or not self.queue.empty():
            try:
                item = self.queue.get(timeout=0.1)
            except queue.Empty:
                continue
            if item is _DONE:
                return
            if isinstance(item, _Failure):
                self.stop()
                raise item.error
            yield item


class _Failure:
    def __init__(self, error):
        self.error = error


class OrderedEnqueuer(SequenceEnqueuer):
    """A ``keras.utils.Sequence``'s batches in order, epoch after epoch (shuffled each epoch
    with ``shuffle``), made by the workers ahead of their turn."""

    def __init__(self, sequence, use_multiprocessing=False, shuffle=False):
        super().__init__(sequence, use_multiprocessing)
        self.shuffle = shuffle

    def _run(self) -> None:
        with ThreadPoolExecutor(self.workers) as pool:
            while not self._stop_event.is_set():
                order = list(range(len(self.sequence)))
                if self.shuffle:
                    random.shuffle(order)
                # (at most workers + queue size batches ahead: the futures keep the order)
                ahead: list = []
                for index in order:
                    ahead.append(pool.submit(self.sequence.__getitem__, index))
                    if len(ahead) > self.workers and not self._deliver(ahead.pop(0)):
                        return
                while ahead:
                    if not self._deliver(ahead.pop(0)):
                        return
                self.sequence.on_epoch_end()

    def _deliver(self, future) -> bool:
        try:
            batch = future.result()
        except Exception as e:  # noqa: BLE001 (the caller of get() gets it)
            self._put(_Failure(e))
            return False
        return self._put(batch)


class GeneratorEnqueuer(SequenceEnqueuer):
    """A generator's batches, drawn by the workers in turn (a generator gives one batch at a
    time, so the workers take turns drawing from it)."""

    def __init__(self, generator, use_multiprocessing=False, random_seed=None):
        super().__init__(generator, use_multiprocessing)
        self.random_seed = random_seed
        self._lock = threading.Lock()

    def _run(self) -> None:
        def draw():
            while not self._stop_event.is_set():
                try:
                    with self._lock:
                        batch = next(self.sequence)
                except StopIteration:
                    return
                except Exception as e:  # noqa: BLE001 (the caller of get() gets it)
                    self._put(_Failure(e))
                    return
                if not self._put(batch):
                    return

        threads = [threading.Thread(target=draw, daemon=True) for _ in range(self.workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self._put(_DONE)


def get_source_inputs(tensor, layer=None, node_index=None) -> list:
    """The input tensors (those of ``Input`` layers) that ``tensor`` is computed from, through
    the Keras layer calls that made it."""
    from ..engine.base_layer import history  # noqa: PLC0415

    made_by = history(tensor)
    if made_by is None:
        return [tensor]
    layer, index = (layer, node_index) if layer is not None else made_by[:2]
    node = layer._inbound_nodes[index or 0]
    if type(layer).__name__ == "InputLayer" or not node.inputs:
        return [tensor]
    out = []
    for given in node.inputs:
        for source in get_source_inputs(given):
            if all(source is not x for x in out):
                out.append(source)
    return out
