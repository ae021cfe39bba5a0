"""A step's rendezvous: where its partitions, and the members of a collective, hand tensors over."""

from __future__ import annotations

import threading
import time

from ..framework import errors


def _first_line(error: BaseException) -> str:
    return str(error).split("\n", 1)[0]


class _Waiter:
    __slots__ = ("lock", "value")

    def __init__(self):
        self.lock = threading.Lock()
        self.lock.acquire()
        self.value = None


class Rendezvous:
    """Where one step's partitions hand tensors to each other.

    A receiver that arrives first parks on a lock of its own, which the sender
    releases: each hand-off wakes exactly the one thread that waits for it.
    """

    __slots__ = ("_items", "_waiters", "_lock", "_error", "_deadline", "_on_abort")

    def __init__(self, deadline: float | None = None):
        self._items: dict = {}
        self._waiters: dict = {}
        self._lock = threading.Lock()
        self._error: BaseException | None = None
        self._deadline = deadline
        self._on_abort: dict[int, object] = {}

    @property
    def deadline(self) -> float | None:
        """``time.monotonic()`` past which the step fails, or None."""
        return self._deadline

    @property
    def error(self) -> BaseException | None:
        """Why the step was aborted, or None while it is not."""
        return self._error

    def on_abort(self, callback) -> int | None:
        """Calls ``callback()`` when the step is aborted (at once if it already was); a token."""
        with self._lock:
            if self._error is None:
                token = id(callback)
                self._on_abort[token] = callback
                return token
        callback()
        return None

    def remove_on_abort(self, token: int | None) -> None:
        with self._lock:
            self._on_abort.pop(token, None)

    def holds_nothing(self) -> bool:
        """No tensor sent here waits to be received."""
        with self._lock:
            return not self._items

    def send(self, key, value=None) -> None:
        with self._lock:
            waiter = self._waiters.pop(key, None)
            if waiter is None:
                self._items[key] = value
                return
        waiter.value = value
        waiter.lock.release()

    def recv(self, key, timeout: float | None = None):
        with self._lock:
            if key in self._items:
                return self._items.pop(key)
            if self._error is not None:
                raise self._cancelled()
            waiter = self._waiters[key] = _Waiter()
        deadline = self._deadline
        if timeout is not None:
            deadline = time.monotonic() + timeout if deadline is None else min(deadline, time.monotonic() + timeout)
        if deadline is None:
            waiter.lock.acquire()
        elif not waiter.lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            error = errors.DeadlineExceededError(
                None, None, f"Timed out waiting for tensor '{key[2]}' from {key[0]}")
            self.abort(error)
            raise error
        if waiter.value is _ABORTED:
            raise self._cancelled()
        return waiter.value

    def _cancelled(self) -> errors.CancelledError:
        return errors.CancelledError(None, None, "Step was cancelled: another partition failed "
                                     f"({type(self._error).__name__}: {_first_line(self._error)})")

    def abort(self, error: BaseException) -> None:
        """Fails every pending and later receive of this step."""
        with self._lock:
            if self._error is None:
                self._error = error
            waiters = list(self._waiters.values())
            self._waiters.clear()
            callbacks = list(self._on_abort.values())
            self._on_abort.clear()
        for waiter in waiters:
            waiter.value = _ABORTED
            waiter.lock.release()
        for callback in callbacks:
            callback()


_ABORTED = object()
