"""Large host blocks kept for reuse.

Blocks of 32 MB and more malloc always maps fresh: its mmap threshold cannot go higher
(runtime/allocator.py keeps smaller ones in its heap). A step that makes one (a
convolution's patches: 40 MB for Deep MNIST's second layer) would pay its page faults
every time: 1.8 ms of a 5 ms copy. ``empty`` keeps such blocks and hands one out again
once nothing refers to it any more.
"""

from __future__ import annotations

import os
import sys
import threading

import numpy as np

LARGE_BYTES = 32 << 20
_KEEP_BYTES = 512 << 20  # the most kept in all
_kept: list = []  # flat uint8 blocks, least recently handed out first
_kept_lock = threading.Lock()


def empty(shape, dtype):
    """``np.empty(shape, dtype)``; for 32 MB and more, a block kept from an earlier call
    of the same size when no array still uses it."""
    dtype = np.dtype(dtype)
    nbytes = dtype.itemsize
    for d in shape:
        nbytes *= int(d)
    if nbytes < LARGE_BYTES or os.environ.get("DISTFLOW_SYSTEM_ALLOCATOR") == "1":
        return np.empty(shape, dtype)
    with _kept_lock:
        found = None
        for i in range(len(_kept)):
            block = _kept[i]
            # (references: the list's, ``block``'s and getrefcount's own; any view adds one)
            if block.nbytes == nbytes and sys.getrefcount(block) == 3:
                found = _kept.pop(i)
                break
        block = None
        if found is None:
            found = np.empty(nbytes, np.uint8)
            held = nbytes + sum(b.nbytes for b in _kept)
            i = 0
            while held > _KEEP_BYTES and i < len(_kept):  # the least recently used unused ones go first
                block = _kept[i]
                if sys.getrefcount(block) == 3:
                    del _kept[i]
                    held -= block.nbytes
                else:
                    i += 1
                block = None
        _kept.append(found)
        return found.view(dtype).reshape(shape)
