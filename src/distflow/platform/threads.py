"""The name the operating system knows a thread by (``top -H``, ``/proc/<pid>/task/*/comm``),
which Python's thread names do not set: so that a task's long-lived threads can be told apart
from outside it (its RPC pool's threads from a connection's, say)."""

from __future__ import annotations

import ctypes
import sys

_PR_SET_NAME = 15


def name_os_thread(name: str) -> None:
    """Names the calling thread ``name`` (its first 15 bytes) for the operating system, on
    Linux; elsewhere, or where it cannot, it does nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_NAME, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0)
    except (OSError, AttributeError):
        pass
