"""The OpenBLAS that NumPy bundles: its thread count, and GEMM with accumulation.

TensorFlow sizes one intra-op thread pool per process; distflow's intra-op parallelism
is BLAS's, so ``ConfigProto(intra_op_parallelism_threads=N)`` sets the thread count of
the OpenBLAS that NumPy bundles (process-wide, as TF's pool is). Where that library is
not found (another BLAS, another NumPy build), the option has no effect and says so
once in the log.

While partitions run at once (``shared_by``), the process's BLAS threads are divided
among them: two towers on two cores each get one thread instead of both asking for two
and oversubscribing the cores (TensorFlow's ops likewise share one intra-op pool).

On a machine that other processes keep busy, a BLAS thread that loses its core stalls
the product it shares with the others, and idle ones spin: with two CPU-bound processes
beside it on 2 cores, the MLP step ran 3.8x slower with two threads and 2.4x with one.
``watch_load`` starts a thread that looks at the machine four times a second and caps
BLAS's threads at the cores the other processes leave free (at least one), lifting the
cap when they are gone. It does nothing where the user chose the count (an exported
``OPENBLAS_NUM_THREADS`` or the like, or ``intra_op_parallelism_threads``).

:func:`gemm` is BLAS's ``C = alpha * A @ B + beta * C``, which NumPy does not offer: with
it a fused kernel adds a product into an existing array (a weight update) in the same
pass that computes it, with no temporary. :func:`axpy` (``y += alpha * x``) is the same
for a gradient that is already an array: one pass over memory where NumPy makes two and
a temporary. Where the library is not found they return False and the caller does the
same with NumPy.
"""

from __future__ import annotations

import contextlib
import ctypes
import glob
import logging
import os
import threading
import time

import numpy as np

from ..platform.cpus import others_runnable, usable_cores

_log = logging.getLogger("distflow")
_lock = threading.Lock()
_library = None  # a _Library once looked up; False when unavailable
_base = None  # the process's BLAS threads when no partitions share them
_sharing = 0  # partitions now running at once, over all steps
_load_cap: int | None = None  # at most this many threads while other processes are busy
_watching = False
_chosen = False  # the thread count was chosen by the user: the load watch leaves it alone
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class _Library:
    """The entry points distflow uses, from NumPy's bundled OpenBLAS."""

    def __init__(self, lib: ctypes.CDLL, prefix: str, suffix: str):
        self.set_threads = getattr(lib, f"{prefix}openblas_set_num_threads{suffix}")
        self.get_threads = getattr(lib, f"{prefix}openblas_get_num_threads{suffix}")
        self.set_threads.argtypes, self.get_threads.restype = [ctypes.c_int], ctypes.c_int
        index = ctypes.c_int64 if suffix == "64_" else ctypes.c_int  # an ILP64 build takes 64-bit sizes
        self.gemm = {}
        for dtype, letter, scalar in ((np.float32, "s", ctypes.c_float), (np.float64, "d", ctypes.c_double)):
            fn = getattr(lib, f"{prefix}cblas_{letter}gemm{suffix}", None)
            if fn is not None:
                fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, index, index, index, scalar,
                               ctypes.c_void_p, index, ctypes.c_void_p, index, scalar, ctypes.c_void_p, index]
                fn.restype = None
                self.gemm[np.dtype(dtype)] = fn
        # (to make idle threads sleep: OpenBLAS reads its spin time from the environment)
        self.read_env = getattr(lib, "openblas_read_env", None)
        self.shutdown_threads = getattr(lib, "blas_thread_shutdown_", None)
        self.axpy = {}
        for dtype, letter, scalar in ((np.float32, "s", ctypes.c_float), (np.float64, "d", ctypes.c_double)):
            fn = getattr(lib, f"{prefix}cblas_{letter}axpy{suffix}", None)
            if fn is not None:
                fn.argtypes = [index, scalar, ctypes.c_void_p, index, ctypes.c_void_p, index]
                fn.restype = None
                self.axpy[np.dtype(dtype)] = fn


def _lookup() -> "_Library | None":
    global _library
    if _library is None:
        _library = False
        libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
        for path in sorted(glob.glob(os.path.join(libs, "*openblas*"))):
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            for prefix, suffix in (("scipy_", "64_"), ("scipy_", ""), ("", "64_"), ("", "")):
                if getattr(lib, f"{prefix}openblas_set_num_threads{suffix}", None) is not None \
                        and getattr(lib, f"{prefix}openblas_get_num_threads{suffix}", None) is not None:
                    _library = _Library(lib, prefix, suffix)
                    return _library
    return _library or None


SPIN_VARIABLES = ("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT")
# OpenBLAS's idle threads spin 2**this cycles (some 0.4 ms at 2.6 GHz) before they sleep:
# longer than the NumPy passes between an RNN cell's products, short beside OpenBLAS's own.
_IDLE_SPIN = 20
_quieted = False


def quiet_idle_threads() -> bool:
    """Makes BLAS's idle threads sleep sooner (after 2**20 cycles) than OpenBLAS's 2**28,
    once per process (when the first Session or server starts); True if it did.

    OpenBLAS's threads spin about 2**28 cycles (a tenth of a second) after each product
    before they sleep, holding every core they run on. The single-threaded NumPy passes
    between products (an optimizer's update, patches, pooling, activations) then cannot
    use those cores: cut into pieces on the other cores (intra_op.py), Deep MNIST's step
    ran 2% faster with the spinning threads and 14-17% faster with threads that sleep
    after 2**4, 2**16 or 2**20 cycles; other processes on a busy machine lose those cores
    too. Sleeping too soon costs a wake-up (some 60 us) per product: on a 2-core AVX-512
    machine, a [32, 400] x [400, 800] product with 40 us of NumPy work between calls took
    164 us after 2**16 cycles and 104 us after 2**18 or more; the LSTM benchmark ran
    1026-1074 samples/s after 2**20 against 853-912 after 2**16, and the MLP step 73-75k
    against 65-66k (Deep MNIST 1234-1365 against 1348-1384).
    An exported ``OPENBLAS_THREAD_TIMEOUT`` (or ``GOTO_THREAD_TIMEOUT``) is left as it is,
    as is ``DISTFLOW_BLAS_SPIN=1``.
    """
    global _quieted
    with _lock:
        if _quieted:
            return False
        _quieted = True
        found = _lookup()
        if found is None or found.read_env is None or found.shutdown_threads is None \
                or any(name in os.environ for name in SPIN_VARIABLES) or os.environ.get("DISTFLOW_BLAS_SPIN") == "1":
            return False
        os.environ["OPENBLAS_THREAD_TIMEOUT"] = str(_IDLE_SPIN)  # (read by OpenBLAS, and by BLAS in child processes)
        found.read_env()
        found.shutdown_threads()  # they start again, with the new spin, at the next product
        return True


def get_threads() -> int | None:
    """BLAS's thread count, or None if distflow cannot see it."""
    with _lock:
        found = _lookup()
    return found.get_threads() if found else None


def intra_op_threads() -> int:
    """The threads an op's kernel may use now: BLAS's count as the rules above set it (a
    compiled library's kernel sizes its own team by it), or the usable cores where BLAS's
    count cannot be seen."""
    found = _library if _library is not None else _lookup()
    return found.get_threads() if found else usable_cores()


def set_threads(n: int, chosen: bool = False) -> bool:
    """Sets BLAS's thread count for the whole process; False if it cannot. ``chosen``: the
    user asked for exactly this count (the load watch then leaves it alone)."""
    global _base, _chosen
    with _lock:
        found = _lookup()
        if not found:
            _log.warning("intra_op_parallelism_threads=%d has no effect: NumPy's BLAS is not a bundled "
                         "OpenBLAS that distflow can configure", n)
            return False
        _base = int(n)
        _chosen = _chosen or chosen
        found.set_threads(_share_of(_base))
        return True


def _share_of(base: int) -> int:
    share = max(1, base // max(1, _sharing))
    return share if _load_cap is None or _chosen else min(share, _load_cap)


def watch_load(interval: float = 0.25, environ=None) -> bool:
    """Starts, once per process, the thread that caps BLAS's threads while other processes
    keep the cores busy (module docstring); False where it does not start."""
    global _watching, _base
    environ = os.environ if environ is None else environ
    with _lock:
        if _watching or _chosen or any(name in environ for name in BLAS_THREAD_VARIABLES) or not _lookup():
            return False
        if others_runnable() is None or usable_cores() < 2:
            return False  # no way to tell (not Linux), or nothing to cap
        if _base is None:
            _base = _lookup().get_threads()
        _watching = True
    threading.Thread(target=_watch, args=(interval,), daemon=True, name="distflow-blas-load").start()
    return True


def _watch(interval: float) -> None:
    global _load_cap, _base
    cores = usable_cores()
    pending, seen = None, 0
    while not _chosen:
        time.sleep(interval)
        others = others_runnable()
        if others is None:
            return
        cap = max(1, cores - others) if others else None
        pending, seen = cap, (seen + 1 if cap == pending else 1)
        # Lowered when two looks agree (not a passing blip), lifted at the first look that
        # finds the cores free (a step of this process should not wait on a cap that is stale).
        if cap != _load_cap and (seen == 2 or cap is None or (_load_cap is not None and cap > _load_cap)):
            with _lock:
                found = _lookup()
                if _base is None:
                    _base = found.get_threads()
                before = _share_of(_base)
                _load_cap = cap
                if _share_of(_base) != before:
                    found.set_threads(_share_of(_base))
            _log.debug("BLAS threads %d -> %d (%d runnable threads of other processes on %d cores)",
                       before, _share_of(_base), others, cores)


def _reshare(delta: int) -> None:
    global _base, _sharing
    with _lock:
        found = _lookup()
        if not found:
            return
        if _base is None:
            _base = found.get_threads()
        before = _share_of(_base)
        _sharing += delta
        after = _share_of(_base)
        if after != before:
            found.set_threads(after)


class shared_by:  # noqa: N801 - a context manager, named as the function it was
    """``with shared_by(n) as share:`` divides BLAS's threads among ``n`` more partitions
    while the block runs; ``share.one_done()`` says that one of them finished, so that the
    ones still running share the threads it leaves (a tower's partition ends after its
    gradients are sent; the optimizer's update that follows on the variables' device gets
    every thread)."""

    def __init__(self, partitions: int):
        self._left = partitions if partitions >= 2 else 0
        self._lock = threading.Lock()

    def __enter__(self):
        if self._left:
            _reshare(self._left)
        return self

    def one_done(self) -> None:
        with self._lock:
            if not self._left:
                return
            self._left -= 1
        _reshare(-1)

    def __exit__(self, *exc):
        with self._lock:
            left, self._left = self._left, 0
        if left:
            _reshare(-left)


_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112  # <cblas.h>


def _operand(x: np.ndarray) -> tuple[int, int] | None:
    """(transpose flag, leading dimension) for a 2-D operand, or None if BLAS cannot read it as it is."""
    rows, cols = x.strides
    size = x.itemsize
    if cols == size and rows >= max(1, x.shape[1]) * size and rows % size == 0:
        return _NO_TRANS, rows // size
    if rows == size and cols >= max(1, x.shape[0]) * size and cols % size == 0:  # a transposed view
        return _TRANS, cols // size
    return None


def gemm_available(dtype) -> bool:
    """Whether ``gemm`` can multiply arrays of ``dtype``."""
    found = _library if _library is not None else _lookup()
    return bool(found) and np.dtype(dtype) in found.gemm


def gemm(a: np.ndarray, b: np.ndarray, c: np.ndarray, alpha: float, beta: float) -> bool:
    """``c[...] = alpha * a @ b + beta * c`` in place, in one BLAS call; False if not done.

    ``a`` and ``b`` may be transposed views; ``c`` must be a writable C-contiguous array
    of the same float dtype. Nothing is written when this returns False.
    """
    found = _library if _library is not None else _lookup()
    if not found:
        return False
    fn = found.gemm.get(c.dtype)
    if fn is None or a.dtype != c.dtype or b.dtype != c.dtype or a.ndim != 2 or b.ndim != 2 or c.ndim != 2 \
            or not c.flags.c_contiguous or not c.flags.writeable:
        return False
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2 or c.shape != (m, n):
        raise ValueError(f"cannot add a product of shapes {list(a.shape)} x {list(b.shape)} into {list(c.shape)}")
    if m == 0 or n == 0:
        return True
    if k == 0:
        c *= beta
        return True
    op_a, op_b = _operand(a), _operand(b)
    if op_a is None or op_b is None:
        return False
    fn(_ROW_MAJOR, op_a[0], op_b[0], m, n, k, alpha, a.ctypes.data, op_a[1], b.ctypes.data, op_b[1],
       beta, c.ctypes.data, max(1, n))
    return True


def axpy(x: np.ndarray, y: np.ndarray, alpha: float) -> bool:
    """``y += alpha * x`` in place, in one BLAS call; False if not done (nothing written).

    ``x`` and ``y`` must be C-contiguous arrays of one shape and float dtype, ``y`` writable.
    """
    found = _library if _library is not None else _lookup()
    if not found:
        return False
    if x.__class__ is not np.ndarray or y.__class__ is not np.ndarray:  # a NumPy scalar has no buffer
        return False
    fn = found.axpy.get(y.dtype)
    if fn is None or x.dtype != y.dtype or x.shape != y.shape or not x.flags.c_contiguous \
            or not y.flags.c_contiguous or not y.flags.writeable:
        return False
    if y.size:
        fn(y.size, alpha, x.ctypes.data, 1, y.ctypes.data, 1)
    return True
