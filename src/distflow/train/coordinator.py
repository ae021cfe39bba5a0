"""``tf.train.Coordinator``: stopping a set of threads together, and reporting their errors."""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time

from ..framework import errors

_log = logging.getLogger("distflow")


class Coordinator:
    """Threads call ``should_stop()`` in their loops; any of them may ``request_stop(error)``.

    ``join()`` waits for the stop, gives the registered threads ``stop_grace_period_secs``
    to finish, and re-raises the first error that was reported. Errors of the
    ``clean_stop_exception_types`` (OutOfRangeError by default: an input ran out)
    stop the threads without being re-raised.
    """

    def __init__(self, clean_stop_exception_types=None):
        self._clean_stop_exception_types = tuple(
            (errors.OutOfRangeError,) if clean_stop_exception_types is None else clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info = None
        self._registered_threads: set = set()
        self._joined = False

    def request_stop(self, ex=None) -> None:
        """Asks every thread to stop; ``ex`` (an exception or exc_info) is reported by join()."""
        with self._lock:
            if ex is not None and self._joined:
                # Nobody will join again to report it: raise it here, as TF's Coordinator does.
                exc_info = ex if isinstance(ex, tuple) else (type(ex), ex, ex.__traceback__)
                if not issubclass(exc_info[0], self._clean_stop_exception_types):
                    raise exc_info[1].with_traceback(exc_info[2])
            if ex is not None and not self._joined and self._exc_info is None:
                exc_info = ex if isinstance(ex, tuple) else (type(ex), ex, ex.__traceback__)
                if not issubclass(exc_info[0], self._clean_stop_exception_types):
                    _log.info("Error reported to Coordinator: %s", exc_info[1])
                    self._exc_info = exc_info
            self._stop_event.set()

    def clear_stop(self) -> None:
        with self._lock:
            self._joined = False
            self._exc_info = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """Reports any exception raised in the block and stops (the block's error is swallowed)."""
        try:
            yield
        except BaseException:  # noqa: BLE001 - reported to the coordinator
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None) -> bool:
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False) -> None:
        """Waits for a stop request, then for the threads; re-raises a reported error.

        Raises RuntimeError naming the threads still alive after the grace period
        (unless ``ignore_live_threads``).
        """
        with self._lock:
            threads = set(threads or ()) | self._registered_threads
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        alive = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            exc_info = self._exc_info
        if exc_info is not None:
            raise exc_info[1].with_traceback(exc_info[2])
        if alive:
            if ignore_live_threads:
                _log.info("Coordinator stopped with threads still running: %s", " ".join(alive))
            else:
                raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(alive)}")

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        with self._lock:
            exc_info = self._exc_info
        if exc_info is not None:
            raise exc_info[1].with_traceback(exc_info[2])


class LooperThread(threading.Thread):
    """Calls ``target(*args)`` every ``timer_interval_secs`` until the coordinator stops."""

    def __init__(self, coord: Coordinator, timer_interval_secs, target=None, args=None, kwargs=None):
        super().__init__(daemon=True)
        self._coord = coord
        self._interval = timer_interval_secs
        self._target_fn = target
        self._args = args or ()
        self._kwargs = kwargs or {}
        coord.register_thread(self)

    @staticmethod
    def loop(coord: Coordinator, timer_interval_secs, target, args=None, kwargs=None) -> "LooperThread":
        """Starts a LooperThread that calls ``target(*args, **kwargs)`` every
        ``timer_interval_secs`` until ``coord`` stops; returns it (TF 1.x's)."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self) -> None:
        with self._coord.stop_on_exception():
            while not self._coord.should_stop():
                self._target_fn(*self._args, **self._kwargs)
                if self._interval and self._coord.wait_for_stop(self._interval):
                    break
