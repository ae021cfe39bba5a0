"""Host memory for tensors: keep what a step frees, so the next step reuses it.

A training step allocates the same tensors every time (activations, gradients, a few
hundred KB to a few MB each). glibc's malloc serves blocks of that size with fresh
``mmap`` pages and hands them back to the kernel when they are freed, so every step
pays a page fault per 4 KB page it touches again: about 2,200 faults and 30-50% of
the step for the benchmark MLP on a 2-core VM. TensorFlow avoids this with its own
allocator, which keeps freed buffers for reuse; distflow gets the same effect by
asking malloc to serve such blocks from its heap and not to return freed memory to
the kernel until more than ``_TRIM_BYTES`` of it lies free at the heap's top.

This is process-wide and done once, when the first Session or server starts. Set
``DISTFLOW_SYSTEM_ALLOCATOR=1`` to leave malloc as it is (and platform/blocks.py, which
keeps blocks of 32 MB and more that malloc would map fresh, to keep none). Other C libraries than
glibc are left alone.
"""

from __future__ import annotations

import ctypes
import logging
import os
import platform
import threading

_log = logging.getLogger("distflow")
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt parameters, <malloc.h>
_MMAP_BYTES = 32 << 20  # blocks below this come from the heap (glibc's own upper bound)
_TRIM_BYTES = 256 << 20  # free memory kept at the heap's top before any is returned

_lock = threading.Lock()
_done = False


def retain_freed_memory() -> bool:
    """Tunes malloc once per process (see the module docstring); True if it did."""
    global _done
    with _lock:
        if _done:
            return False
        _done = True
        if os.environ.get("DISTFLOW_SYSTEM_ALLOCATOR") == "1" or platform.libc_ver()[0] != "glibc":
            return False
        try:
            mallopt = ctypes.CDLL(None).mallopt
        except (OSError, AttributeError):
            return False
        mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        ok = mallopt(_M_MMAP_THRESHOLD, _MMAP_BYTES) == 1 and mallopt(_M_TRIM_THRESHOLD, _TRIM_BYTES) == 1
        if not ok:
            _log.warning("could not tune malloc for tensor reuse; steps may be slower")
        return ok

