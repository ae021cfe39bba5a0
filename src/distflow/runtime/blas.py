"""NumPy's BLAS thread count, for ``ConfigProto(intra_op_parallelism_threads=N)``.

TensorFlow sizes one intra-op thread pool per process; distflow's intra-op parallelism
is BLAS's, so the option sets the thread count of the OpenBLAS that NumPy bundles
(process-wide, as TF's pool is). Where that library is not found (another BLAS, another
NumPy build), the option has no effect and says so once in the log.

While partitions run at once (``shared_by``), the process's BLAS threads are divided
among them: two towers on two cores each get one thread instead of both asking for two
and oversubscribing the cores (TensorFlow's ops likewise share one intra-op pool).
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import logging
import os
import threading

import numpy as np

_log = logging.getLogger("distflow")
_lock = threading.Lock()
_functions = None  # (set, get) once looked up; False when unavailable
_base = None  # the process's BLAS threads when no partitions share them
_sharing = 0  # partitions now running at once, over all steps


def _lookup():
    global _functions
    if _functions is None:
        _functions = False
        libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
        for path in sorted(glob.glob(os.path.join(libs, "*openblas*"))):
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            for prefix, suffix in (("scipy_openblas_", "64_"), ("scipy_openblas_", ""), ("openblas_", "64_"),
                                   ("openblas_", "")):
                set_fn = getattr(lib, f"{prefix}set_num_threads{suffix}", None)
                get_fn = getattr(lib, f"{prefix}get_num_threads{suffix}", None)
                if set_fn is not None and get_fn is not None:
                    set_fn.argtypes, get_fn.restype = [ctypes.c_int], ctypes.c_int
                    _functions = (set_fn, get_fn)
                    return _functions
    return _functions


def get_threads() -> int | None:
    """BLAS's thread count, or None if distflow cannot see it."""
    with _lock:
        found = _lookup()
    return found[1]() if found else None


def set_threads(n: int) -> bool:
    """Sets BLAS's thread count for the whole process; False if it cannot."""
    global _base
    with _lock:
        found = _lookup()
        if not found:
            _log.warning("intra_op_parallelism_threads=%d has no effect: NumPy's BLAS is not a bundled "
                         "OpenBLAS that distflow can configure", n)
            return False
        _base = int(n)
        found[0](_share_of(_base))
        return True


def _share_of(base: int) -> int:
    return max(1, base // max(1, _sharing))


def _reshare(delta: int) -> None:
    global _base, _sharing
    with _lock:
        found = _lookup()
        if not found:
            return
        if _base is None:
            _base = found[1]()
        before = _share_of(_base)
        _sharing += delta
        after = _share_of(_base)
        if after != before:
            found[0](after)


@contextlib.contextmanager
def shared_by(partitions: int):
    """Divides BLAS's threads among ``partitions`` more partitions while the block runs."""
    if partitions < 2:
        yield
        return
    _reshare(partitions)
    try:
        yield
    finally:
        _reshare(-partitions)
