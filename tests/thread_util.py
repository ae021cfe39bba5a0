"""Running a call that blocks on another thread, to look at how it ends."""

import threading


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
