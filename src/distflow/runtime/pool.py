"""The executor's threads: partitions of a step, and work a kernel starts in the background."""

from __future__ import annotations

import queue
import threading


class _ThreadPool:
    """Threads for partitions: an idle thread is reused, otherwise a new one starts.

    Partitions may block (in a receive, later in a queue), so the pool never makes a
    partition wait for another step's partition to finish.
    """

    def __init__(self, name: str):
        self._name = name
        self._idle: list[queue.SimpleQueue] = []
        self._lock = threading.Lock()
        self._count = 0

    def submit(self, fn) -> None:
        with self._lock:
            q = self._idle.pop() if self._idle else None
            if q is None:
                self._count += 1
                q = queue.SimpleQueue()
                threading.Thread(target=self._loop, args=(q,), daemon=True,
                                 name=f"{self._name}-{self._count}").start()
        q.put(fn)

    def _loop(self, q: queue.SimpleQueue) -> None:
        while True:
            fn = q.get()
            fn()
            with self._lock:
                self._idle.append(q)


POOL = _ThreadPool("distflow-executor")


def submit_background(fn) -> None:
    """Runs ``fn()`` on one of the executor's threads (work a kernel starts and a later
    kernel of the step waits for, such as a collective overlapped with computation)."""
    POOL.submit(fn)
