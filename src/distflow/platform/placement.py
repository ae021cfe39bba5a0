"""Where a step's threads run: the thread that runs a step keeps a core of its own, and
the threads that help its kernels keep off that core.

A kernel cut into pieces (``ops/intra_op.py``), a BLAS product and a oneDNN convolution
each hand work to helper threads: distflow's intra-op pool, OpenBLAS's workers and the
OpenMP team. Between kernels those helpers sleep. On a virtual machine whose vCPUs were
idle for a while (an input pipeline that stalled, an evaluation, a pause between rounds)
Linux wakes a helper onto the core of the thread that woke it, so that the thread running
the step and its helper share one core while the other idles, and it stays so for tens of
milliseconds: on a 2-core VM, Deep MNIST's first two steps after 0.3 s idle took 30-44 ms
instead of 18-19 ms (the optimizer's update 10 ms instead of 4, the convolutions' backprop
twice their time), and a NumPy update cut in two ran at one core's speed for all of the
25 ms measured. TensorFlow's thread pools spin between tasks and are not caught so.

So while a step runs (:func:`step_core`), the thread running it is held on the core it is
on (a core no other step of this process holds), and the helper threads may run on every
other core the process may use; the step thread's affinity is given back when the step
ends, and the helpers stay where they are until a step held on another core moves them. The helpers are distflow's own (:func:`add_helper`) and the native threads that a
compute library started for itself: threads that Python's ``threading`` does not know and
that kept the name they inherited from the process (gRPC's and CUDA's threads name
themselves). With this the first steps after an idle pause ran at full speed (18.9-19.6 ms).

Nothing is held where the step's kernels run on one thread anyway (``intra_op_threads()``
is 1: one core, a busy machine, partitions sharing the cores, several tasks on one host),
where the process may use one core only, or off Linux. ``DISTFLOW_PIN_THREADS=0`` turns
it off.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading

ENV = "DISTFLOW_PIN_THREADS"
MIN_STEP_S = 1e-3  # steps shorter than this are not held: holding costs some 3 us a step
_RESCAN_EVERY = 64  # steps between looks for library threads that started since (and at steps 1, 2, 4, ...)

_lock = threading.Lock()
_helpers: set[int] = set()  # native ids of distflow's own helper threads
_held: dict[int, int] = {}  # native id of a thread running a step -> the core it holds
_masks: dict[int, set] = {}  # ... -> the cores it may use otherwise (given back when the step ends)
_steered: frozenset | None = None  # the cores the helpers were last kept off
_library_threads: set[int] = set()
_steps = 0
_getcpu = None


def _cpu_getter():
    """libc's ``sched_getcpu``, or None (not Linux, or the process may use one core)."""
    global _getcpu
    if _getcpu is None:
        _getcpu = False
        try:
            if len(os.sched_getaffinity(0)) > 1:
                fn = ctypes.CDLL(None).sched_getcpu
                fn.restype = ctypes.c_int
                _getcpu = fn
        except (AttributeError, OSError):
            pass
    return _getcpu


def enabled() -> bool:
    return os.environ.get(ENV, "1") != "0" and bool(_cpu_getter())


def add_helper() -> None:
    """Registers the calling thread as a helper (a pool's initializer calls it)."""
    global _steered
    with _lock:
        _helpers.add(threading.get_native_id())
        _steered = None  # (the next held step steers it too)


def library_threads(task_dir: str = "/proc/self/task") -> set[int]:
    """Native ids of the threads that a compute library started: not Python's, and named
    as the process is (the name a new native thread inherits)."""
    try:
        with open(os.path.join(os.path.dirname(task_dir), "comm"), encoding="utf-8") as f:
            inherited = f.read().strip()
        tids = [int(t) for t in os.listdir(task_dir)]
    except (OSError, ValueError):
        return set()
    known = {t.native_id for t in threading.enumerate()}
    found = set()
    for tid in tids:
        if tid in known:
            continue
        try:
            with open(os.path.join(task_dir, str(tid), "comm"), encoding="utf-8") as f:
                if f.read().strip() == inherited:
                    found.add(tid)
        except OSError:
            pass  # it ended
    return found


def _keep_helpers_off(held: frozenset, allowed: set, rescan: bool) -> None:
    global _steered, _library_threads
    if rescan:
        found = library_threads()
        if found != _library_threads:
            _library_threads, _steered = found, None
    if held == _steered:
        return
    _steered = held
    free = allowed - held or allowed
    for tid in _helpers | _library_threads:
        try:
            os.sched_setaffinity(tid, free)
        except OSError:
            pass  # it ended, or it is not ours to move


_NOTHING_HELD = contextlib.nullcontext()


def step_core(threads: int):
    """While the block runs, the calling thread stays on one core and the helper threads
    keep off it (module docstring), if ``threads`` (the kernels' intra-op threads) > 1;
    otherwise a context that does nothing, at the cost of none (a dataset function's
    per-element step enters it)."""
    if threads < 2 or not enabled():
        return _NOTHING_HELD
    return _held_core()


@contextlib.contextmanager
def _held_core():
    global _steps
    me = threading.get_native_id()
    with _lock:
        if me in _held:  # (a step run inside a step: the outer one holds the core)
            held_here = False
        else:
            allowed = os.sched_getaffinity(0)
            cpu = _getcpu()
            taken = set(_held.values())
            if cpu in taken or cpu not in allowed:
                cpu = min(allowed - taken, default=None)
            held_here = cpu is not None and len(allowed) > 1
            if held_here:
                _held[me], _masks[me] = cpu, allowed
                _steps += 1
                rescan = _steps & (_steps - 1) == 0 or _steps % _RESCAN_EVERY == 0
                _keep_helpers_off(frozenset(_held.values()), allowed, rescan)
                os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        if held_here:
            with _lock:
                del _held[me], _masks[me]
                os.sched_setaffinity(0, allowed)
                if _held:  # (partitions still running, which may now use the threads this one leaves)
                    _keep_helpers_off(frozenset(_held.values()), allowed, rescan=False)


def held_core() -> int | None:
    """The core the calling thread holds while it runs a step, or None."""
    return _held.get(threading.get_native_id())


@contextlib.contextmanager
def released():
    """Gives the calling thread its cores back while the block runs, if it holds one: user
    code that a step calls (a py_func) may start processes, and a process keeps the
    affinity of the thread that started it."""
    me = threading.get_native_id()
    cpu, mask = _held.get(me), _masks.get(me)
    if cpu is None:
        yield
        return
    os.sched_setaffinity(0, mask)
    try:
        yield
    finally:
        os.sched_setaffinity(0, {cpu})
