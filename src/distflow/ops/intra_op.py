"""Intra-op parallelism for the kernels NumPy runs on one core.

A large memory-bound kernel (an optimizer's update, a convolution's patch copy, an
activation, a pooling gradient) is cut into contiguous pieces along its first dimension,
as many as the process's BLAS has threads now, and the pieces run at once: the calling
thread takes the first, a small pool the others, and NumPy releases the GIL in each.
``blas.get_threads()`` is the one budget for both kinds of parallelism: it already says
what ``intra_op_parallelism_threads`` asked for, how many tasks share the host, how many
partitions run at once (each then runs whole) and whether other processes keep the cores
busy. Work under MIN_BYTES runs whole: handing a piece to a thread costs some 30 us.

A kernel that computes on a device (a GPU), where each piece would only be another launch
on the same device, runs under :func:`whole`: its work is never cut.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import blas
from ..platform import placement

MIN_BYTES = 1 << 20  # (a piece of at least half of this, so a hand-off is worth its cost)

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _workers() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max_workers=max(1, min(63, (os.cpu_count() or 2) - 1)),
                                           thread_name_prefix="distflow-intra-op",
                                           initializer=placement.add_helper)
    return _pool


_local = threading.local()


class whole:  # noqa: N801 - used as a decorator-like context, as contextlib's are
    """``with whole():`` the work of this thread's kernels is not cut into pieces."""

    __slots__ = ()

    def __enter__(self):
        _local.whole = getattr(_local, "whole", 0) + 1

    def __exit__(self, *exc):
        _local.whole -= 1


def pieces(n: int, nbytes: int) -> int:
    """Into how many pieces work over ``n`` items and ``nbytes`` of memory is cut now."""
    if n < 2 or nbytes < MIN_BYTES or getattr(_local, "whole", 0):
        return 1
    return max(1, min(blas.get_threads() or 1, n, nbytes // (MIN_BYTES // 2)))


def run_split(n: int, nbytes: int, fn) -> None:
    """Calls ``fn(start, stop)`` over [0, n) in pieces of about equal size, at once
    (see the module docstring); the first error raised in a piece is raised here, once
    every piece is done."""
    k = pieces(n, nbytes)
    if k == 1:
        fn(0, n)
        return
    bounds = [n * i // k for i in range(k + 1)]
    futures = [_workers().submit(fn, bounds[i], bounds[i + 1]) for i in range(1, k)]
    try:
        fn(bounds[0], bounds[1])
    finally:
        for future in futures:
            future.exception()  # (waits: no piece outlives the kernel)
    for future in futures:
        future.result()


def elementwise(ufunc, out, *operands):
    """``ufunc(*operands, out=out)`` in pieces of the flattened arrays where that pays (see
    :func:`run_split`), and the result; None, with nothing computed, where it cannot be cut:
    an operand that is not a C-contiguous float NumPy array of the result's shape (a scalar
    or a one-element array may stand beside them), a result under MIN_BYTES, or a kernel
    whose work stays whole. ``out`` None: a new array of the first operand's dtype."""
    first = operands[0]
    if first.__class__ is not np.ndarray or first.dtype.kind != "f" or not first.flags.c_contiguous \
            or first.nbytes < MIN_BYTES or getattr(_local, "whole", 0):
        return None
    flat = []
    for a in operands:
        if a.__class__ is np.ndarray and a.shape == first.shape:
            if a.dtype != first.dtype or not a.flags.c_contiguous:
                return None
            flat.append(a.reshape(-1))
        elif getattr(a, "size", 1) == 1 and np.result_type(first, a) == first.dtype:
            flat.append(a.reshape(()) if a.__class__ is np.ndarray else a)
        else:
            return None
    if out is None:
        out = np.empty_like(first)
    elif out.shape != first.shape or out.dtype != first.dtype or not out.flags.c_contiguous:
        return None
    dst = out.reshape(-1)

    def piece(a, b):
        ufunc(*(x[a:b] if x.__class__ is np.ndarray and x.ndim else x for x in flat), out=dst[a:b])

    run_split(dst.size, first.nbytes * (len(flat) + 1), piece)
    return out
