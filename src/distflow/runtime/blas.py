"""NumPy's BLAS thread count, for ``ConfigProto(intra_op_parallelism_threads=N)``.

TensorFlow sizes one intra-op thread pool per process; distflow's intra-op parallelism
is BLAS's, so the option sets the thread count of the OpenBLAS that NumPy bundles
(process-wide, as TF's pool is). Where that library is not found (another BLAS, another
NumPy build), the option has no effect and says so once in the log.
"""

from __future__ import annotations

import ctypes
import glob
import logging
import os
import threading

import numpy as np

_log = logging.getLogger("distflow")
_lock = threading.Lock()
_functions = None  # (set, get) once looked up; False when unavailable


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
    with _lock:
        found = _lookup()
        if not found:
            _log.warning("intra_op_parallelism_threads=%d has no effect: NumPy's BLAS is not a bundled "
                         "OpenBLAS that distflow can configure", n)
            return False
        found[0](int(n))
        return True
