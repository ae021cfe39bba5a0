"""oneDNN through its C API (ctypes): finding the library, its engine, and primitives cached
by what they compute.

The library is optional (``pip install 'distflow[onednn]'`` installs the ``onednn-cpu-gomp``
wheel, oneDNN 3 built on GNU OpenMP). :func:`load` looks for it once, the first time a step
asks, never at import: ``libdnnl.so.3`` in the environment's ``lib`` folder, then where the
dynamic linker finds it. ``DISTFLOW_ONEDNN=0`` (or TensorFlow's ``TF_ENABLE_ONEDNN_OPTS=0``)
turns it off. The choice is logged once.

A :class:`Primitive` is one oneDNN primitive with the memory descriptors of its arguments.
It is called with NumPy arrays (C-contiguous, in the layouts it was made for); each call
wraps them in memory objects of its own and gets a scratchpad of its own, so one primitive
may run on several threads at once. Each thread executes on a stream of its own.

Threads: oneDNN runs its loops on an OpenMP team of the calling thread. Before each call
the team is sized as BLAS's threads are now (``ops/blas.intra_op_threads``), so the two
libraries share the cores by one rule (docs/runtime.md, "Threads"). GNU OpenMP's idle
threads spin (300,000 rounds) before they sleep, holding cores that the NumPy and BLAS
kernels between two convolutions want: on Deep MNIST's step (2-core AMD VM) the kernels
took 17.7 ms a step with threads that sleep at once, 18.6 ms after 10,000 rounds, 20.3 ms
after 30,000 and more with the default. But a thread that sleeps must be woken for the
next primitive, and where the other cores halt when idle (a VM's vCPUs, deep C-states)
that costs more than a short spin: on a 2-vCPU Xeon VM a thread that slept woke in
60-150 us, a tiny primitive on two threads took 86-170 us with the team asleep and 23 us
with it spinning, and Deep MNIST's step ran 1,780-1,830 samples/s with threads that sleep
at once against 1,900-1,950 after 10,000 rounds (some 0.1-0.2 ms there; 100,000 and the
default were slower again). So unless the user set ``OMP_WAIT_POLICY`` or
``GOMP_SPINCOUNT``, the library is loaded with ``GOMP_SPINCOUNT`` set by ``spin_count``:
10,000 where a thread that slept for a millisecond takes 40 us or more to wake (measured
once, some 10 ms, when the library loads), else 0. GNU OpenMP reads it when it loads, so
it holds only where nothing loaded it before.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import threading

import numpy as np

from ...ops import blas
from ...platform.cpus import wake_latency_us

_log = logging.getLogger("distflow")

P = ctypes.c_void_p
Dims = ctypes.c_int64 * 12

# Values of oneDNN 3's C enums and argument indices (dnnl_types.h); format tags are looked
# up by name at load time (their numbering changes between releases).
F32 = 3  # dnnl_f32
U8 = 6  # dnnl_u8
FORMAT_ANY = 1  # dnnl_format_tag_any
FORWARD_TRAINING, FORWARD_INFERENCE, BACKWARD_DATA, BACKWARD_WEIGHTS = 64, 96, 160, 192
CONVOLUTION_DIRECT = 0x1
ELTWISE_RELU, ELTWISE_SQRT, ELTWISE_POW = 0x20, 0x25, 0x30
LRN_ACROSS_CHANNELS = 0xAFF
POOLING_MAX, POOLING_AVG_INCLUDE_PADDING, POOLING_AVG_EXCLUDE_PADDING = 0x1FF, 0x2FF, 0x3FF
SCRATCHPAD_USER = 1
QUERY_IMPL_INFO_STR = 8  # dnnl_query_impl_info_str
QUERY_SRC, QUERY_DIFF_SRC, QUERY_WEIGHTS, QUERY_DIFF_WEIGHTS, QUERY_DST, QUERY_DIFF_DST, QUERY_WORKSPACE, \
    QUERY_SCRATCHPAD = range(129, 137)
ARG_SRC, ARG_DST, ARG_WEIGHTS, ARG_BIAS, ARG_WORKSPACE, ARG_SCRATCHPAD = 1, 17, 33, 41, 64, 80
ARG_DIFF_SRC, ARG_DIFF_DST, ARG_DIFF_WEIGHTS = 129, 145, 161
ARG_SRC_1 = 2  # (a binary primitive's second operand; its first is ARG_SRC)
ARG_ATTR_SCALES = 4096  # (| the argument it scales: a runtime scale's memory)
BINARY_ADD, BINARY_MUL, BINARY_MAX = 0x1FFF0, 0x1FFF1, 0x1FFF2


def ARG_POST_OP(index: int) -> int:  # noqa: N802 - oneDNN's macro DNNL_ARG_ATTR_MULTIPLE_POST_OP
    """The argument index of post-op ``index``'s operand (``| ARG_SRC_1``)."""
    return 32768 * (index + 1)


# (query, index) of each argument's memory descriptor (a bias is the weights' second)
_QUERY_OF_ARG = {ARG_SRC: (QUERY_SRC, 0), ARG_SRC_1: (QUERY_SRC, 1), ARG_DST: (QUERY_DST, 0),
                 ARG_WEIGHTS: (QUERY_WEIGHTS, 0), ARG_BIAS: (QUERY_WEIGHTS, 1), ARG_WORKSPACE: (QUERY_WORKSPACE, 0),
                 ARG_DIFF_SRC: (QUERY_DIFF_SRC, 0), ARG_DIFF_DST: (QUERY_DIFF_DST, 0),
                 ARG_DIFF_WEIGHTS: (QUERY_DIFF_WEIGHTS, 0)}
_TAGS = ("a", "ab", "abcd", "acdb", "cdba", "decab", "abcde")  # the plain layouts distflow hands over


class _Arg(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_int), ("memory", P)]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_int), ("minor", ctypes.c_int), ("patch", ctypes.c_int), ("hash", ctypes.c_char_p),
                ("cpu_runtime", ctypes.c_uint), ("gpu_runtime", ctypes.c_uint)]


class OneDNNError(RuntimeError):
    """A oneDNN call failed; the message names the call and oneDNN's status."""


class Library:
    """The loaded library: its engine, format tags and the OpenMP runtime it runs on."""

    def __init__(self, lib: ctypes.CDLL, path: str):
        self.lib, self.path = lib, path
        lib.dnnl_version.restype = ctypes.POINTER(_Version)
        v = lib.dnnl_version().contents
        self.version = (v.major, v.minor, v.patch)
        if v.major != 3:
            raise OSError(f"oneDNN {v.major}.{v.minor} at {path}: distflow speaks oneDNN 3's C API")
        lib.dnnl_status2str.restype = ctypes.c_char_p
        lib.dnnl_fmt_tag2str.restype = ctypes.c_char_p
        lib.dnnl_primitive_desc_query_md.restype = P
        lib.dnnl_memory_desc_get_size.restype = ctypes.c_size_t
        lib.dnnl_memory_desc_get_size.argtypes = [P]
        lib.dnnl_memory_desc_equal.argtypes = [P, P]
        lib.dnnl_primitive_desc_query_md.argtypes = [P, ctypes.c_int, ctypes.c_int]
        lib.dnnl_memory_create.argtypes = [ctypes.POINTER(P), P, P, P]
        lib.dnnl_memory_destroy.argtypes = [P]
        lib.dnnl_primitive_execute.argtypes = [P, P, ctypes.c_int, P]
        lib.dnnl_stream_wait.argtypes = [P]
        names = {}
        for value in range(1024):
            name = lib.dnnl_fmt_tag2str(value)
            if name and name.decode() in _TAGS:
                names[name.decode()] = value
        missing = set(_TAGS) - set(names)
        if missing:
            raise OSError(f"oneDNN at {path} has no format tag {sorted(missing)}")
        self.tags = names
        self.engine = P()
        self.check(lib.dnnl_engine_create(ctypes.byref(self.engine), 1, ctypes.c_size_t(0)), "dnnl_engine_create")
        self._streams = threading.local()
        self._set_omp_threads = None
        for name in ("libgomp.so.1", "libiomp5.so"):  # the OpenMP runtime libdnnl was linked with
            try:
                omp = ctypes.CDLL(name)
            except OSError:
                continue
            self._set_omp_threads = omp.omp_set_num_threads
            self._set_omp_threads.argtypes = [ctypes.c_int]
            break

    def check(self, status: int, call: str) -> None:
        if status != 0:
            what = self.lib.dnnl_status2str(status)
            raise OneDNNError(f"oneDNN {call} failed: {what.decode() if what else status}")

    def stream(self, threads: int) -> P:
        """This thread's stream, its OpenMP team sized ``threads``."""
        local = self._streams
        stream = getattr(local, "stream", None)
        if stream is None:
            stream = P()
            self.check(self.lib.dnnl_stream_create(ctypes.byref(stream), self.engine, ctypes.c_uint(1)),
                       "dnnl_stream_create")
            local.stream, local.threads = stream, 0
        if threads != local.threads and self._set_omp_threads is not None:
            self._set_omp_threads(threads)  # (an OpenMP setting of the calling thread only)
            local.threads = threads
        return stream

    def primitive_desc(self, create, what: str, *args, post_ops=(), scales=()) -> P:
        """A primitive descriptor: ``create(&pd, engine, *args, attr)``, the oneDNN call
        named ``what``, with attributes that hand the scratchpad to the caller, apply
        ``post_ops`` in turn as the result is written (each ``("eltwise", algorithm, alpha,
        beta)`` or ``("binary", algorithm, operand_md)``) and take a runtime scale (one value)
        for each argument in ``scales``."""
        pd = P()
        attr = self._attr(post_ops, scales)
        try:
            self.check(create(ctypes.byref(pd), self.engine, *args, attr), what)
        finally:
            self.lib.dnnl_primitive_attr_destroy(attr)
        return pd

    def _attr(self, post_ops, scales) -> P:
        dnnl = self.lib
        attr = P()
        self.check(dnnl.dnnl_primitive_attr_create(ctypes.byref(attr)), "dnnl_primitive_attr_create")
        self.check(dnnl.dnnl_primitive_attr_set_scratchpad_mode(attr, SCRATCHPAD_USER),
                   "dnnl_primitive_attr_set_scratchpad_mode")
        for arg in scales:
            self.check(dnnl.dnnl_primitive_attr_set_scales_mask(attr, arg, 0), "dnnl_primitive_attr_set_scales_mask")
        if post_ops:
            chain = P()
            self.check(dnnl.dnnl_post_ops_create(ctypes.byref(chain)), "dnnl_post_ops_create")
            try:
                for kind, algorithm, *rest in post_ops:
                    if kind == "eltwise":
                        self.check(dnnl.dnnl_post_ops_append_eltwise(chain, algorithm, ctypes.c_float(rest[0]),
                                                                      ctypes.c_float(rest[1])),
                                   "dnnl_post_ops_append_eltwise")
                    else:
                        self.check(dnnl.dnnl_post_ops_append_binary(chain, algorithm, rest[0]),
                                   "dnnl_post_ops_append_binary")
                self.check(dnnl.dnnl_primitive_attr_set_post_ops(attr, chain), "dnnl_primitive_attr_set_post_ops")
            finally:
                dnnl.dnnl_post_ops_destroy(chain)
        return attr

    def memory_desc(self, dims, tag: str | int, dtype: int = F32) -> P:
        md = P()
        tag_value = tag if isinstance(tag, int) else self.tags[tag]
        self.check(self.lib.dnnl_memory_desc_create_with_tag(ctypes.byref(md), len(dims), Dims(*dims), dtype,
                                                             tag_value), "dnnl_memory_desc_create_with_tag")
        return md


class Primitive:
    """A oneDNN primitive and the memory descriptors of its arguments (owned by its
    primitive descriptor, which it keeps). Call it with ``{argument: array}``.

    ``args`` are the arguments its primitive descriptor describes; ``operands`` maps the
    others (a post-op's operand, a runtime scale) to memory descriptors the caller made
    and keeps alive as long as the primitive (in ``keep``)."""

    __slots__ = ("lib", "pd", "handle", "mds", "scratch_bytes", "impl", "keep")

    def __init__(self, lib: Library, pd: P, args, keep=(), operands=None):
        self.lib, self.pd, self.keep = lib, pd, keep
        self.handle = P()
        lib.check(lib.lib.dnnl_primitive_create(ctypes.byref(self.handle), pd), "dnnl_primitive_create")
        self.mds = {arg: P(lib.lib.dnnl_primitive_desc_query_md(pd, *_QUERY_OF_ARG[arg])) for arg in args}
        self.mds.update(operands or {})
        scratch = P(lib.lib.dnnl_primitive_desc_query_md(pd, QUERY_SCRATCHPAD, 0))
        self.scratch_bytes = lib.lib.dnnl_memory_desc_get_size(scratch) if scratch.value else 0
        if self.scratch_bytes:
            self.mds[ARG_SCRATCHPAD] = scratch
        info = ctypes.c_char_p()
        lib.lib.dnnl_primitive_desc_query(pd, QUERY_IMPL_INFO_STR, 0, ctypes.byref(info))
        self.impl = info.value.decode() if info.value else "?"
        _log.debug("oneDNN primitive: %s", self.impl)

    def bytes_of(self, arg: int) -> int:
        return self.lib.lib.dnnl_memory_desc_get_size(self.mds[arg])

    def layout_is(self, arg: int, md: P) -> bool:
        return bool(self.lib.lib.dnnl_memory_desc_equal(self.mds[arg], md))

    def __call__(self, arrays: dict, threads: int) -> None:
        lib = self.lib
        dnnl = lib.lib
        if self.scratch_bytes:
            arrays = dict(arrays)
            arrays[ARG_SCRATCHPAD] = np.empty(self.scratch_bytes, np.uint8)
        args = (_Arg * len(arrays))()
        made = []
        try:
            for i, (arg, array) in enumerate(arrays.items()):
                memory = P()
                lib.check(dnnl.dnnl_memory_create(ctypes.byref(memory), self.mds[arg], lib.engine,
                                                  P(array.ctypes.data)), "dnnl_memory_create")
                made.append(memory)
                args[i] = _Arg(arg, memory)
            stream = lib.stream(threads)
            lib.check(dnnl.dnnl_primitive_execute(self.handle, stream, len(arrays), args), "dnnl_primitive_execute")
            lib.check(dnnl.dnnl_stream_wait(stream), "dnnl_stream_wait")
        finally:
            for memory in made:
                dnnl.dnnl_memory_destroy(memory)


_lock = threading.Lock()
_loaded: "Library | None | bool" = None  # None: not looked for yet; False: not there
_cache: dict = {}


def _disabled() -> str | None:
    for name in ("DISTFLOW_ONEDNN", "TF_ENABLE_ONEDNN_OPTS"):
        if os.environ.get(name, "").strip().lower() in ("0", "false", "off", "no"):
            return f"{name}={os.environ[name]}"
    return None


def _candidates() -> list[str]:
    paths = [os.path.join(prefix, "lib", "libdnnl.so.3") for prefix in dict.fromkeys((sys.prefix, sys.base_prefix))]
    import ctypes.util  # noqa: PLC0415 - only where oneDNN is looked for

    found = ctypes.util.find_library("dnnl")
    if found:
        paths.append(found)
    return paths


def load() -> "Library | None":
    """The library, looked for once per process; None where it is not installed, does not
    load, or is turned off."""
    global _loaded
    if _loaded is not None:
        return _loaded or None
    with _lock:
        if _loaded is not None:
            return _loaded or None
        off = _disabled()
        if off:
            _log.info("oneDNN turned off (%s): NumPy kernels serve CPU convolutions, pooling and Adam", off)
            _loaded = False
            return None
        failures = []
        for path in _candidates():
            if not os.path.exists(path) and os.sep in path:
                continue
            if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
                os.environ["GOMP_SPINCOUNT"] = spin_count()  # (module docstring; only where a library is loaded)
            try:
                _loaded = Library(ctypes.CDLL(path), path)
            except (OSError, AttributeError, OneDNNError) as e:
                failures.append(f"{path}: {e}")
                continue
            _log.info("oneDNN %s (%s) serves CPU convolutions, pooling and Adam", ".".join(map(str, _loaded.version)),
                      path)
            return _loaded
        _log.info("oneDNN not found%s: NumPy kernels serve CPU convolutions, pooling and Adam "
                  "(pip install 'distflow[onednn]' for compiled ones)", f" ({'; '.join(failures)})" if failures else "")
        _loaded = False
        return None


# A wake-up slower than this is worth spinning for (see spin_count).
SLOW_WAKE_US = 40.0
SPIN_WHERE_WAKES_ARE_SLOW = 10_000


def spin_count(wake_us: "float | None" = None) -> str:
    """The ``GOMP_SPINCOUNT`` the library is loaded with (module docstring): 0, or
    SPIN_WHERE_WAKES_ARE_SLOW where waking a thread that slept takes SLOW_WAKE_US or more
    (``wake_us``, measured now when not given)."""
    if wake_us is None:
        wake_us = wake_latency_us()
    count = SPIN_WHERE_WAKES_ARE_SLOW if wake_us >= SLOW_WAKE_US else 0
    _log.debug("a thread that slept wakes in %.0f us: GNU OpenMP's threads spin %d rounds before they sleep",
                wake_us, count)
    return str(count)


def available() -> bool:
    """Whether oneDNN serves CPU kernels in this process (looks for it once)."""
    return load() is not None


def cached(key, make):
    """The primitives for ``key`` and for the team size that BLAS's threads give now, made by
    ``make(library)`` the first time they are asked for.

    oneDNN plans a primitive's parallel loops for the OpenMP team of the thread that creates
    it (``omp_get_max_threads`` then), and keeps that plan: a convolution made while the
    threads were capped at one (another process busy for a moment) ran on one thread for the
    rest of the process, Deep MNIST's convolutions twice as slow. So the calling thread's
    team is sized first, and each team size has primitives of its own."""
    threads = blas.intra_op_threads()
    full_key = key + (threads,)
    lib = load()  # (before the lock, which load takes too)
    lib.stream(threads)  # (sizes this thread's team: primitives made for the key, now or later, plan for it)
    found = _cache.get(full_key)
    if found is None:
        with _lock:
            found = _cache.get(full_key)
            if found is None:
                found = _cache[full_key] = make(lib)
    return found
