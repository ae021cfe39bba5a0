"""Running a call that blocks on another thread, to look at how it ends."""

import threading
import time

from distflow.runtime.executor import waiting_kernels


def run_in_thread(fn):
    """Starts ``fn()`` on a daemon thread; returns (thread, out): out gets "value" or "error"."""
    out = {}

    def target():
        try:
            out["value"] = fn()
        except Exception as e:  # noqa: BLE001 - looked at by the test
            out["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, out


def wait_until(condition, timeout: float = 30.0, what: str = "the condition") -> None:
    """Waits until ``condition()`` is true, looking every few milliseconds; AssertionError
    after ``timeout`` seconds. Tests wait for what they need this way, never for a time."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout} s")
        time.sleep(0.002)


def run_until_blocked(fn, timeout: float = 30.0):
    """``run_in_thread(fn)``, returning once ``fn`` has a kernel waiting in this process
    (a dequeue on an empty queue, say): one more than were waiting before."""
    before = waiting_kernels()
    t, out = run_in_thread(fn)
    wait_until(lambda: waiting_kernels() > before or not t.is_alive(), timeout, "a blocked kernel")
    return t, out
