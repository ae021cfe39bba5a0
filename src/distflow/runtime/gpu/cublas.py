"""Matrix products through cuBLAS's C API, on a handle of distflow's own.

CuPy's ``matmul`` refuses to run while a stream is being captured into a CUDA graph
("calling cuBLAS API during stream capture is currently unsupported"), although cuBLAS
itself captures fine. So the GPU kernels multiply through this module: ``cublasSgemm_v2`` /
``cublasDgemm_v2`` from the libcublas that CuPy loaded, called through ctypes on a handle
that follows the current CuPy stream. The same calls run whether or not a step is being
captured, so what a replay does is what an eager step did.

Row-major arrays are column-major arrays transposed: C = op(A) op(B) in row-major is
C^T = op(B)^T op(A)^T in column-major, one GEMM with A and B swapped and no copy.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

_OP_N, _OP_T = 0, 1


class Gemm:
    """``gemm(a, b, transpose_a, transpose_b)``: a 2-D float32 or float64 product on the
    current device and stream."""

    def __init__(self, cupy):
        self._cupy = cupy
        self._lib = _load(cupy)
        self._local = threading.local()  # a handle per thread and device: a cuBLAS handle is not
        # for two threads at once (two partitions' products at once failed with status 14)
        f32, f64 = ctypes.c_float, ctypes.c_double
        self._fns = {np.dtype(np.float32): (self._lib.cublasSgemm_v2, f32),
                     np.dtype(np.float64): (self._lib.cublasDgemm_v2, f64)}
        self._one = {dt: t(1.0) for dt, (_, t) in self._fns.items()}
        self._zero = {dt: t(0.0) for dt, (_, t) in self._fns.items()}

    def supports(self, a, b) -> bool:
        return a.ndim == 2 and b.ndim == 2 and a.dtype == b.dtype and a.dtype in self._fns

    def _handle(self) -> ctypes.c_void_p:
        handles = getattr(self._local, "handles", None)
        if handles is None:
            handles = self._local.handles = {}
        device = self._cupy.cuda.runtime.getDevice()
        handle = handles.get(device)
        if handle is None:
            handle = ctypes.c_void_p()
            _check(self._lib.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate_v2")
            handles[device] = handle
        return handle

    def __call__(self, a, b, transpose_a: bool = False, transpose_b: bool = False):
        cp = self._cupy
        a, b = cp.ascontiguousarray(a), cp.ascontiguousarray(b)
        m, k = (a.shape[1], a.shape[0]) if transpose_a else a.shape
        k2, n = (b.shape[1], b.shape[0]) if transpose_b else b.shape
        if k != k2:
            raise ValueError(f"MatMul: inner dimensions differ: {k} and {k2} (shapes {a.shape}, {b.shape}, "
                             f"transpose_a={transpose_a}, transpose_b={transpose_b})")
        c = cp.empty((m, n), dtype=a.dtype)
        if m == 0 or n == 0:
            return c
        if k == 0:
            c.fill(0)
            return c
        fn, _ = self._fns[a.dtype]
        handle = self._handle()
        _check(self._lib.cublasSetStream_v2(handle, ctypes.c_void_p(cp.cuda.get_current_stream().ptr)),
               "cublasSetStream_v2")
        _check(fn(handle, _OP_T if transpose_b else _OP_N, _OP_T if transpose_a else _OP_N, n, m, k,
                  ctypes.byref(self._one[a.dtype]), ctypes.c_void_p(b.data.ptr), b.shape[1],
                  ctypes.c_void_p(a.data.ptr), a.shape[1], ctypes.byref(self._zero[a.dtype]),
                  ctypes.c_void_p(c.data.ptr), n), "gemm")
        return c


def _check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"cuBLAS {what} failed with status {status}")


def _load(cupy) -> ctypes.CDLL:
    """The libcublas that CuPy uses (it is loaded once CuPy's cuBLAS module is)."""
    try:
        cupy.cuda.device.get_cublas_handle()  # (CuPy's own handle: libcublas is then loaded)
    except Exception:  # noqa: BLE001 - then it is looked for by name below
        pass

    try:
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f if "libcublas.so" in line and "libcublasLt" not in line})
    except OSError:
        paths = []
    for path in paths + ["libcublas.so.13", "libcublas.so.12", "libcublas.so"]:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if hasattr(lib, "cublasSgemm_v2"):
            for name in ("cublasSgemm_v2", "cublasDgemm_v2"):
                getattr(lib, name).restype = ctypes.c_int
            return lib
    raise OSError("libcublas is not loaded in this process (CuPy's cuBLAS module did not load it)")
