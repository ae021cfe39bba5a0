"""The executor: compiles each partition once into a flat plan and runs a step.

A plan is a list of kernel calls over numbered slots (single assignment per step):
constants are pre-filled, Identity and NoOp cost nothing, a variable read is one
call. A step runs every partition at once -- one on the calling thread, the rest on
pool threads -- and the partitions meet in the step's :class:`Rendezvous`.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
import time
from collections import Counter
from typing import NamedTuple

import numpy as np

from ..framework import errors
from ..framework.function_body import FuncBody
from ..framework.registry import get_registration, kernel_for
from ..ops import blas
from ..ops.array_ops import missing_feed_error
from ..platform import placement
from . import rewrites
from .device import Device
from .functions import BodyRunner, has_functions
from .memories import Memories, fetch_to_host, recv_into, value_of
from .partition import MAY_ALIAS as _MAY_ALIAS, Node, later_dequeues, rendezvous_key
from .pool import POOL as _POOL
from .rendezvous import Rendezvous  # noqa: F401 (where steps' partitions meet; importers find it here too)

_log = logging.getLogger("distflow")

# DISTFLOW_DEBUG=1 prints how each newly compiled step runs (form, rewrites); 2 also
# prints every kernel call of every step with its time.
_DEBUG_VALUE = os.environ.get("DISTFLOW_DEBUG", "").strip()
DEBUG = int(_DEBUG_VALUE) if _DEBUG_VALUE.isdigit() else (1 if _DEBUG_VALUE else 0)

# Ops that do nothing at run time once their inputs are ordered.
_FREE_OPS = frozenset({"NoOp"})
_FORWARDING_OPS = frozenset({"Identity", "StopGradient"})

# step modes: how a step's kernel is called
_NO_ARGS, _ONE_ARG, _TWO_ARGS, _N_ARGS, _RENDEZVOUS = range(5)


class KernelContext:
    """What a ``ctx`` kernel sees: its op's name, device and per-session state.

    A blocking kernel (``register_op(..., blocking=True)``) also gets ``step``, the
    step's :class:`Rendezvous`, and waits through :meth:`wait_for`, so that a
    cancelled or timed-out step never leaves it blocked.
    """

    __slots__ = ("op_name", "device", "xp", "resource_mgr", "state", "step")

    def __init__(self, op_name: str, device: Device, state: dict, step: "Rendezvous | None" = None):
        self.op_name = op_name
        self.device = device
        self.xp = device.xp
        self.resource_mgr = device.resource_mgr
        self.state = state
        self.step = step

    def for_step(self, step: "Rendezvous | None") -> "KernelContext":
        return KernelContext(self.op_name, self.device, self.state, step)

    def wait_for(self, cond: threading.Condition, ready, what: str) -> None:
        """Waits on ``cond`` (held by the caller) until ``ready()`` is true.

        Raises CancelledError when the step is aborted (another partition failed, the
        session was closed) and DeadlineExceededError past the step's deadline; both
        name this op, its device and ``what`` it was waiting for.
        """
        step = self.step
        if ready():
            return
        wake = functools.partial(_notify_all, cond)
        token = step.on_abort(wake) if step is not None else None
        _WAITING.change(1)
        waiter = object()
        _WAITS[waiter] = (self.op_name, self.device.name, what, time.monotonic())
        try:
            while not ready():
                if step is not None and step.error is not None:
                    raise errors.CancelledError(
                        None, None, f"{self.op_name} on {self.device.name} was cancelled while waiting for "
                        f"{what} ({type(step.error).__name__}: {_first_line(step.error)})")
                deadline = None if step is None else step.deadline
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise errors.DeadlineExceededError(
                        None, None, f"{self.op_name} on {self.device.name} timed out waiting for {what}")
                cond.wait(remaining)
        finally:
            _WAITING.change(-1)
            _WAITS.pop(waiter, None)
            if token is not None:
                step.remove_on_abort(token)


class _Count:
    __slots__ = ("value", "_lock")

    def __init__(self):
        self.value = 0
        self._lock = threading.Lock()

    def change(self, by: int) -> None:
        with self._lock:
            self.value += by


_WAITING = _Count()
_WAITS: dict = {}  # one entry per kernel waiting now: (op name, device, what for, since)


def waiting_for() -> list[str]:
    """What each kernel of this process that waits now waits for, longest first: what a
    task reports in GetStatus, and what a master logs of a step that runs long."""
    now = time.monotonic()
    waits = sorted(list(_WAITS.values()), key=lambda w: w[3])
    return [f"{op} on {device} waits for {what} ({now - since:.0f} s so far)" for op, device, what, since in waits]


def waiting_kernels() -> int:
    """How many kernels of this process are waiting now (a dequeue on an empty queue, a
    take_grad short of gradients, ...): what a task reports in GetStatus, and what tests
    wait for instead of sleeping."""
    return _WAITING.value


def _notify_all(cond: threading.Condition) -> None:
    with cond:
        cond.notify_all()


def _first_line(error: BaseException) -> str:
    return str(error).split("\n", 1)[0]


def _send(key, rdv: Rendezvous, value=None) -> None:
    rdv.send(key, value)


def _recv(key, rdv: Rendezvous):
    return rdv.recv(key)


def _call_blocking(bound, rdv: Rendezvous, *args):
    ctx = bound.args[0]
    return bound.func(ctx.for_step(rdv), *bound.args[1:], *args, **bound.keywords)


def _read_ref(ref):
    return ref.read()


def _fetch_copy(value):
    value = value_of(value)
    return value.copy() if isinstance(value, np.ndarray) else value


def wrap_error(exc: BaseException, node_name: str, op_type: str, device: str) -> errors.OpError:
    """A kernel's exception as an OpError naming the node and its device."""
    where = f"\n\t [[node {node_name} ({op_type}) on {device}]]"
    if isinstance(exc, errors.OpError):
        if exc.device is not None:  # already wrapped (it came from another partition)
            return exc
        return type(exc)(exc.node_def, exc.op, f"{exc.message}{where}", device=device)
    if isinstance(exc, MemoryError):
        cls = errors.ResourceExhaustedError
    elif isinstance(exc, (ValueError, TypeError, IndexError, ZeroDivisionError, ArithmeticError)):
        cls = errors.InvalidArgumentError
    else:
        cls = errors.InternalError
    return cls(None, None, f"{op_type} op '{node_name}' failed: {type(exc).__name__}: {exc}{where}",
               device=device)


class PartitionPlan:
    """A list of nodes compiled to a flat list of kernel calls over numbered slots.

    Normally the nodes are one device's partition. For sequential execution they are
    a whole step in its global order, each node run with its own device's kernels.
    """

    __slots__ = ("name", "steps", "infos", "init_slots", "feed_slots", "fetch_slots", "blocking", "waits", "rewrites",
                 "library_kernels", "replay_blockers", "memories", "_forwarding")

    def __init__(self, name: str, nodes: list[Node], devices: list[Device], feed_index: dict,
                 fetch_index: dict, kernel_states: dict, enabled_rewrites: tuple[bool, bool] = (True, True),
                 ref_feeds: bool = False):
        self.name = name
        self.steps: list[tuple] = []
        self.infos: list[tuple[str, str, str]] = []
        self.init_slots: list = []
        self.feed_slots: list[tuple[int, int]] = []
        self.fetch_slots: list[tuple[int, int, bool]] = []
        self.blocking = False  # a kernel is called with the step's rendezvous (it may wait, or runs functions)
        self.waits = False  # a kernel may wait for another partition or step (a queue, a collective)
        self.library_kernels: Counter = Counter()  # op type -> nodes a compiled library's CPU kernel runs
        # per call: why it could not be captured in a CUDA graph (None: it can); the memories it computes in
        self.replay_blockers: list[str | None] = []
        self.memories: set[str] = set()
        # which rewrite passes fired, and how many rewrites each made
        nodes, devices, self.rewrites = rewrites.optimize(nodes, devices, feed_index, fetch_index,
                                                          *enabled_rewrites)
        # per step: (slot of the input the kernel may overwrite, or None; are its outputs fresh arrays?)
        self._forwarding: list[tuple[int | None, bool]] = []
        slot_of: dict[tuple[str, int], int] = {}
        fed_slot: dict[tuple[str, int], int] = {}

        def new_slot(value=None) -> int:
            self.init_slots.append(value)
            return len(self.init_slots) - 1

        def input_slot(key) -> int:
            if key in feed_index:
                if key not in fed_slot:
                    fed_slot[key] = new_slot()
                    self.feed_slots.append((feed_index[key], fed_slot[key]))
                return fed_slot[key]
            return slot_of[key]

        # Where each slot's value lives ("host" unless set), and the copies made of it for
        # another memory. A plan whose devices all compute in host memory needs none.
        mem = Memories(self, new_slot, _ONE_ARG) if any(d.backend is not None for d in devices) else None

        room = later_dequeues(nodes)
        for node, device in zip(nodes, devices):
            if node.type == "_Send":
                rkey = rendezvous_key(node)
                ins = tuple(input_slot(k) for k in node.inputs)
                self._add(functools.partial(_send, rkey), ins, None, _RENDEZVOUS, node, device, blocker="a _Send")
                continue
            if node.type == "_Recv":
                out = new_slot()
                recv = functools.partial(_recv, rendezvous_key(node))
                if mem is not None:  # the receiver makes the tensor its own: copied into its memory
                    recv = functools.partial(recv_into, device.accept, recv)
                    mem.put(out, device.memory)
                self._add(recv, (), out, _RENDEZVOUS, node, device, blocker="a _Recv")
                if not node.attrs["tensor_name"].startswith("^"):
                    slot_of[(node.name, 0)] = out
                continue
            if node.num_outputs and all((node.name, i) in feed_index for i in range(node.num_outputs)):
                continue  # every output is fed: the node itself need not run
            if node.type == "Placeholder" and (node.name, 0) not in feed_index:
                raise missing_feed_error(node.name, node.attrs["dtype"], node.attrs["shape"], node.op, device.name)
            if node.type == "Const":
                slot_of[(node.name, 0)] = new_slot(node.attrs["value"])
                continue
            if node.type in _FREE_OPS:
                continue
            reg = get_registration(node.type)
            kernel = kernel_for(node.type, device.kernel_type) if reg.kernel is not None else None
            # (a control-flow op hands variable references on to its functions' ops)
            passes_refs = range(len(node.inputs)) if has_functions(node.attrs) else reg.ref_inputs
            ins = []
            for i, key in enumerate(node.inputs):
                slot = input_slot(key)
                if node.input_is_ref[i] and i not in passes_refs and (ref_feeds or key not in feed_index):
                    read = new_slot()
                    # (a function's feed may be a reference or, sent from another task, a value)
                    self._add(value_of if ref_feeds else _read_ref, (slot,), read, _ONE_ARG, node, device)
                    if mem is not None:
                        mem.put(read, mem.of(slot))
                    slot = read
                if mem is not None and not (node.input_is_ref[i] and i in passes_refs):
                    on_host = kernel is not None and i in kernel.host_inputs
                    slot = mem.move(slot, "host" if on_host else device.memory, device, node)
                ins.append(slot)
            if node.type in _FORWARDING_OPS and ins:
                slot_of[(node.name, 0)] = ins[0]
                continue
            if kernel is None:
                raise errors.UnimplementedError(None, node.op, f"No kernel for op '{node.name}' "
                                                f"of type {node.type} on {device.name}")
            fn, blocking, waits = self._bind(kernel, reg, node, device, kernel_states)
            if node.name in room:  # (an enqueue may overfill its queue by the dequeues after it)
                fn = functools.partial(fn, later_dequeues=room[node.name])
            self.blocking = self.blocking or blocking
            self.waits = self.waits or waits
            if kernel is not reg and device.kernel_type == "CPU":
                self.library_kernels[node.type] += 1
            outs = [new_slot() for _ in range(node.num_outputs)]
            for i, s in enumerate(outs):
                slot_of[(node.name, i)] = s
                if mem is not None:
                    mem.put(s, "host" if i in kernel.host_outputs else device.memory)
            out = None if not outs else outs[0] if len(outs) == 1 and not reg.list_output else tuple(outs)
            mode = {0: _NO_ARGS, 1: _ONE_ARG, 2: _TWO_ARGS}.get(len(ins), _N_ARGS)
            if blocking:  # called with the step's rendezvous, which it waits through
                fn, mode = functools.partial(_call_blocking, fn), _RENDEZVOUS
            fresh = node.type not in _MAY_ALIAS and not any(node.input_is_ref)
            # (only host kernels write into their inputs' buffers)
            donor = ins[reg.inplace_input] if reg.inplace_input is not None and kernel is reg else None
            blocker = (None if getattr(kernel, "capturable", False) and not blocking or device.memory == "host"
                       else f"'{node.name}' ({node.type}) has no capturable kernel on {device.name}")
            self._add(fn, tuple(ins), out, mode, node, device, donor, fresh, blocker)

        by_name = {n.name: n for n in nodes}
        for key, positions in fetch_index.items():
            if key in slot_of:
                node = by_name[key[0]]
                # (a function's results go to its control-flow op, which is registered may_alias:
                # only a variable's own memory needs copying there)
                copy = any(node.input_is_ref) or (node.type in _MAY_ALIAS and not ref_feeds)
                fetch = _fetch_copy if copy else None
                # a fetch leaves in host memory; a function's results stay where they are
                if mem is not None and not ref_feeds and (copy or mem.of(slot_of[key]) != "host"):
                    fetch = functools.partial(fetch_to_host, devices[0].backend.to_host)
                for p in positions:
                    self.fetch_slots.append((p, slot_of[key], fetch))
        self._add_releases()

    def _add_releases(self) -> None:
        """After each call, drop the values no later call reads (as TF frees a tensor
        when its last consumer has run): peak memory stays at what is live, and
        NumPy's next temporary reuses a block that is still in cache."""
        keep = {s for _, s, _ in self.fetch_slots}
        last_use: dict[int, int] = {}
        for i, (_, ins, out, mode) in enumerate(self.steps):
            for s in ((ins,) if mode == _ONE_ARG else ins):
                last_use[s] = i
            for s in (() if out is None else (out,) if out.__class__ is int else out):
                last_use.setdefault(s, i)  # an output nobody reads dies at once
        release: list[list[int]] = [[] for _ in self.steps]
        for s, i in last_use.items():
            if s not in keep:
                release[i].append(s)
        # Buffer forwarding: a kernel that can write into an input gets to when that
        # input is a fresh array made by an earlier kernel of this plan (not a feed,
        # constant, received tensor, variable or view) and this is its last reader.
        fresh = set()
        for (_, _, out, _), (_, is_fresh) in zip(self.steps, self._forwarding):
            if is_fresh and out is not None:
                fresh.update((out,) if out.__class__ is int else out)
        for (_, ins, _, mode), (_, op_type, _) in zip(self.steps, self.infos):
            if mode == _RENDEZVOUS or op_type in _MAY_ALIAS:
                # another partition holds the same array, or a view of it may outlive this read
                fresh.difference_update((ins,) if mode == _ONE_ARG else ins)
        steps = []
        for i, ((fn, ins, out, mode), rel, (donor, _)) in enumerate(zip(self.steps, release, self._forwarding)):
            reads = (ins,) if mode == _ONE_ARG else ins
            if donor is not None and donor in fresh and donor not in keep and last_use.get(donor) == i \
                    and reads.count(donor) == 1:
                fn = functools.partial(fn, inplace=True)
            steps.append((fn, ins, out, mode, tuple(rel) or None))
        self.steps = steps
        del self._forwarding

    def _add(self, fn, ins, out, mode, node: Node, device: Device, donor=None, fresh=False,
             blocker: str | None = None) -> None:
        if mode in (_ONE_ARG, _TWO_ARGS):
            ins = ins[0] if mode == _ONE_ARG else ins
        self.steps.append((fn, ins, out, mode))
        self.infos.append((node.name, node.type, device.name))
        self._forwarding.append((donor, fresh))
        if blocker is None and device.memory == "host":
            blocker = f"'{node.name}' ({node.type}) runs on {device.name}"
        self.replay_blockers.append(blocker)
        self.memories.add(device.memory)

    @staticmethod
    def _bind(kernel, reg, node: Node, device: Device, kernel_states: dict):
        """The node's kernel (``kernel``, for its device's type) with its attrs bound; whether
        it is called as a blocking one; and whether it may wait for another partition or step
        (a control-flow op is called as a blocking one, for the step's cancellation and
        deadline, but waits only where an op in its functions does)."""
        attrs = kernel.kernel_attrs(node.attrs)
        blocking = waits = reg.blocking
        if has_functions(attrs):  # a control-flow op: its functions, compiled
            attrs = {key: BodyRunner(value, node.name, node.op.graph, device, kernel_states, PartitionPlan)
                     if isinstance(value, FuncBody) else value for key, value in attrs.items()}
            bodies = [v.plan for v in attrs.values() if isinstance(v, BodyRunner)]
            blocking = blocking or any(plan.blocking for plan in bodies)
            waits = any(plan.waits for plan in bodies)
        if kernel.context_arg == "xp":
            return functools.partial(kernel.kernel, device.xp, **attrs), blocking, waits
        if kernel.context_arg == "ctx":
            state = kernel_states.setdefault((device.name, node.name), {})
            return functools.partial(kernel.kernel, KernelContext(node.name, device, state), **attrs), blocking, waits
        return (functools.partial(kernel.kernel, **attrs) if attrs else kernel.kernel), blocking, waits

    def run(self, feeds, rdv: Rendezvous | None, results: list, trace: list | None = None) -> None:
        """Runs the plan once; with ``trace`` (a list), appends a ``KernelTime`` per kernel call."""
        if trace is None:
            self._execute(self.steps, feeds, rdv, results)
            return
        timed = [(_timed(fn, info, trace), ins, out, mode, release)
                 for (fn, ins, out, mode, release), info in zip(self.steps, self.infos)]
        self._execute(timed, feeds, rdv, results)

    def _execute(self, steps: list, feeds, rdv: Rendezvous | None, results: list, raw: bool = False) -> None:
        """Runs ``steps`` (this plan's, or timed ones); with ``raw``, the fetched values are left
        as the slots hold them (where a replay copies them out itself)."""
        slots = self.init_slots.copy()
        for fi, s in self.feed_slots:
            slots[s] = feeds[fi]
        i = 0
        try:
            for fn, ins, out, mode, release in steps:
                if mode == _ONE_ARG:
                    r = fn(slots[ins])
                elif mode == _TWO_ARGS:
                    r = fn(slots[ins[0]], slots[ins[1]])
                elif mode == _N_ARGS:
                    r = fn(*[slots[j] for j in ins])
                elif mode == _NO_ARGS:
                    r = fn()
                else:
                    r = fn(rdv, *[slots[j] for j in ins])
                if out.__class__ is int:
                    slots[out] = r
                elif out is not None:
                    for o, v in zip(out, r):
                        slots[o] = v
                if release is not None:
                    for o in release:
                        slots[o] = None
                i += 1
            for fi, s, fetch in self.fetch_slots:
                results[fi] = slots[s] if fetch is None or raw else fetch(slots[s])
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes an OpError
            name, op_type, device = self.infos[min(i, len(self.infos) - 1)] if self.infos else ("?", "?", self.name)
            raise wrap_error(e, name, op_type, device) from e


class KernelTime(NamedTuple):
    """One kernel call of a traced step: what ran, where, and when (``time.perf_counter_ns``)."""

    node_name: str
    op_type: str
    device: str
    start_ns: int
    end_ns: int
    thread_id: int


def _timed(fn, info: tuple[str, str, str], trace: list):
    """``fn``, recording each call's start and end in ``trace``."""
    def call(*args):
        start = time.perf_counter_ns()
        try:
            return fn(*args)
        finally:
            trace.append(KernelTime(*info, start, time.perf_counter_ns(), threading.get_ident()))
    return call


class _StepState:
    __slots__ = ("lock", "pending", "done", "error")

    def __init__(self, pending: int):
        self.lock = threading.Lock()
        self.pending = pending
        self.done = threading.Event()
        self.error: BaseException | None = None

    def record(self, error: BaseException) -> None:
        with self.lock:
            if self.error is None or (isinstance(self.error, errors.CancelledError)
                                      and not isinstance(error, errors.CancelledError)):
                self.error = error

    def finish(self) -> None:
        with self.lock:
            self.pending -= 1
            if self.pending == 0:
                self.done.set()


def _run_partition(plan: PartitionPlan, feeds, rdv: Rendezvous, results: list, state: _StepState, trace=None,
                   threads: int = 1, share=None):
    try:
        with np.errstate(all="ignore"), placement.step_core(threads):
            plan.run(feeds, rdv, results, trace)
    except BaseException as e:  # noqa: BLE001 - reported by the step
        state.record(e)
        rdv.abort(e)
    finally:
        if share is not None:
            share.one_done()
        state.finish()


class StepPlan:
    """One (fetches, feeds) signature, compiled two ways; ``run`` executes one step.

    *Concurrent*: every device's partition runs at the same time (one on the calling
    thread, the others on pool threads), handing tensors over through a Rendezvous.
    *Sequential*: the whole step runs on the calling thread in its global order.
    A thread hand-off costs about 50-100 us on a small VM, far more than a small
    kernel, so with ``inter_op_parallelism_threads=0`` (the default) a step measures
    both forms over its first runs and keeps the faster. A step that holds a
    blocking kernel (one that waits for another partition or step) always runs
    concurrently; otherwise ``inter_op_parallelism_threads=1`` means sequential and
    2 or more means concurrent.

    Which form runs, why, and which rewrites fired in it is logged once per step (DEBUG on
    the "distflow" logger; on stderr with ``DISTFLOW_DEBUG=1``) and kept in ``choice``.
    """

    CONCURRENT, SEQUENTIAL, AUTO = "concurrent", "sequential", "auto"
    # The two forms are measured in turn, in blocks of _BLOCK runs, _ROUNDS blocks each; the
    # first run of a block is not timed (it finds the other form's threads and caches). Runs
    # alternating one by one measured ties (2.75 against 2.73 ms for the in-graph MLP; 19.7
    # against 19.5 for in-graph Deep MNIST) where each form run on its own differs by 8%
    # (sequential faster for the MLP, concurrent for Deep MNIST), and the choice went either way.
    _BLOCK = 4
    _ROUNDS = 3
    _TRIALS = (_BLOCK - 1) * _ROUNDS  # timed runs of each form before choosing

    __slots__ = ("partitions", "sequential", "num_fetches", "mode", "live", "label", "choice", "replay",
                 "_timings", "_measured", "_long", "_blocking", "_waits")

    def __init__(self, partitions: list[PartitionPlan], sequential: PartitionPlan | None,
                 num_fetches: int, mode: str = AUTO, live: "LiveSteps | None" = None, label: str = "step"):
        # The partition holding the most fetches runs on the calling thread.
        partitions.sort(key=lambda p: -len(p.fetch_slots))
        self.partitions = partitions
        self.sequential = sequential
        self.num_fetches = num_fetches
        self.label = label
        self.choice = ""  # which form runs and why, once it is known
        reason = {self.SEQUENTIAL: "inter_op_parallelism_threads=1",
                  self.CONCURRENT: "inter_op_parallelism_threads>=2"}.get(mode, "")
        if len(partitions) <= 1 or sequential is None:
            mode = self.CONCURRENT if sequential is None else self.SEQUENTIAL
            reason = "one partition" if sequential is not None else "no sequential plan"
        self._blocking = any(p.blocking for p in partitions)
        self._waits = any(p.waits for p in partitions)
        if self._blocking:
            mode, reason = self.CONCURRENT, "a kernel may block"
        self.mode = mode
        self.live = live  # where a step that may block registers, so that it can be cancelled
        self.replay = None  # a GPU step's CUDA graph replay (runtime/gpu/replay.py), where it has one
        self._timings: dict[str, list[float]] = {self.CONCURRENT: [], self.SEQUENTIAL: []}
        self._measured = 0  # runs so far while choosing
        self._long = False  # its last run took long enough for holding a core to pay (_cores)
        if mode != self.AUTO:
            self._chose(mode, reason)

    def _chose(self, mode: str, reason: str) -> None:
        plans = [self.sequential] if mode == self.SEQUENTIAL else self.partitions
        fired, library = Counter(), Counter()  # (over the plans: rewrites made, library kernels by op type)
        for plan in plans:
            fired.update(plan.rewrites)
            library.update(plan.library_kernels)
        rewrites = ", ".join(f"{name} x{made}" for name, made in fired.items()) or "none"
        self.choice = f"{mode} form ({reason}); rewrites: {rewrites}"
        if library:  # (the CPU kernels that a compiled library serves, not NumPy)
            self.choice += "; oneDNN kernels: " + ", ".join(f"{t} x{n}" for t, n in sorted(library.items()))
        log_compiled(self.label, self.choice)

    def run(self, feeds: list, timeout_s: float | None = None, trace: list | None = None) -> list:
        """One step: the fetched values. With ``trace`` (a list), each kernel call's
        ``KernelTime`` is added to it (such a step does not count toward choosing a form)."""
        mode = self.mode
        if trace is not None or DEBUG >= 2:
            return self._run_traced(feeds, timeout_s, trace)
        if self.replay is not None and timeout_s is None:
            with np.errstate(all="ignore"):
                out = self.replay.run(feeds, self.num_fetches)
            if out is not None:
                return out
            out = self._run_sequential(feeds)  # (a replayable step is on one device: no partitions to overlap)
            self.replay.ran(feeds)  # (only a step that succeeded is captured next time)
            return out
        if mode == self.AUTO:
            return self._run_measured(feeds, timeout_s)
        if mode == self.SEQUENTIAL and timeout_s is None:
            return self._run_sequential(feeds)
        return self._run_concurrent(feeds, timeout_s)

    def _run_traced(self, feeds, timeout_s, trace):
        kernels = [] if trace is None else trace
        if self.mode == self.SEQUENTIAL and timeout_s is None:
            out = self._run_sequential(feeds, kernels)
        else:
            out = self._run_concurrent(feeds, timeout_s, kernels)
        if DEBUG >= 2:
            print_trace(self.label, kernels)
        return out

    def _run_measured(self, feeds, timeout_s):
        timings = self._timings
        run, self._measured = self._measured, self._measured + 1
        mode = self.SEQUENTIAL if run // self._BLOCK % 2 == 0 else self.CONCURRENT
        start = time.perf_counter()
        out = self._run_sequential(feeds) if mode == self.SEQUENTIAL else self._run_concurrent(feeds, timeout_s)
        if run % self._BLOCK:
            timings[mode].append(time.perf_counter() - start)
        if self.mode == self.AUTO and all(len(t) >= self._TRIALS for t in timings.values()):
            def median(m):
                timed = sorted(timings[m])
                return timed[len(timed) // 2]
            self.mode = min(timings, key=median)
            self._chose(self.mode, f"measured: median {median(self.SEQUENTIAL) * 1e3:.3f} ms sequential, "
                                   f"{median(self.CONCURRENT) * 1e3:.3f} ms concurrent over {self._TRIALS} runs "
                                   f"each, in blocks of {self._BLOCK}")
        return out

    def _cores(self) -> int:
        """The threads this step's kernels may use, where holding a core while it runs pays
        (platform/placement.py); 1 for steps shorter than ``placement.MIN_STEP_S``, which
        would pay its few microseconds and gain nothing, and for steps with a kernel that may
        wait, whose time says how long they waited, not how much they computed (a loop whose
        body only computes holds its core: an LSTM's step)."""
        return blas.intra_op_threads() if self._long and not self._waits else 1

    def _run_sequential(self, feeds: list, trace: list | None = None) -> list:
        results = [None] * self.num_fetches
        start = time.perf_counter()
        with np.errstate(all="ignore"), placement.step_core(self._cores()):
            self.sequential.run(feeds, None, results, trace)
        self._long = time.perf_counter() - start >= placement.MIN_STEP_S
        return results

    def _run_concurrent(self, feeds: list, timeout_s: float | None, trace: list | None = None) -> list:
        results = [None] * self.num_fetches
        parts = self.partitions
        if not parts:
            return results
        rdv = Rendezvous(None if timeout_s is None else time.monotonic() + timeout_s)
        live = self.live
        if live is not None:
            live.add(rdv)
        start = time.perf_counter()
        try:
            threads = self._cores()  # (the step's, before its partitions share them)
            with blas.shared_by(len(parts)) as share:
                error = run_partitions(parts, feeds, rdv, results, timeout_s, trace, threads, share)
        finally:
            self._long = time.perf_counter() - start >= placement.MIN_STEP_S
            if live is not None:
                live.discard(rdv)
        if error is not None:
            raise error
        return results


def log_compiled(label: str, what: str) -> None:
    """Says once, for a newly compiled step, how it will run."""
    _log.debug("%s: %s", label, what)
    if DEBUG >= 1:
        print(f"distflow: {label}: {what}", file=sys.stderr, flush=True)


def print_trace(label: str, kernels: list[KernelTime]) -> None:
    """A traced step on stderr, one line per kernel call (``DISTFLOW_DEBUG=2``)."""
    if not kernels:
        return
    origin = kernels[0].start_ns
    lines = [f"distflow: {label}: {len(kernels)} kernels, "
             f"{(max(k.end_ns for k in kernels) - origin) / 1e3:.0f} us"]
    for k in kernels:
        lines.append(f"  {(k.start_ns - origin) / 1e3:9.1f} us {(k.end_ns - k.start_ns) / 1e3:9.1f} us  "
                     f"{k.op_type:<28} {k.node_name}  [{k.device}]")
    print("\n".join(lines), file=sys.stderr, flush=True)


class LiveSteps:
    """The steps a session is running now, so that closing it can cancel them."""

    def __init__(self):
        self._lock = threading.Lock()
        self._steps: set = set()

    def add(self, rdv: Rendezvous) -> None:
        with self._lock:
            self._steps.add(rdv)

    def discard(self, rdv: Rendezvous) -> None:
        with self._lock:
            self._steps.discard(rdv)

    def abort_all(self, error: BaseException) -> None:
        with self._lock:
            steps = list(self._steps)
        for rdv in steps:
            rdv.abort(error)


def run_partitions(plans: list[PartitionPlan], feeds: list, rdv: Rendezvous, results: list,
                   timeout_s: float | None, trace: list | None = None, threads: int = 1,
                   share: "blas.shared_by | None" = None) -> BaseException | None:
    """Runs ``plans`` at once (the first on this thread) and waits for all of them.

    Returns the step's most telling error (a failure before a cancellation), or None.
    With ``trace`` (a list), every kernel call's ``KernelTime`` is added to it. With
    ``threads`` > 1 (the cores the step may use) each partition's thread holds a core
    while it runs (platform/placement.py). ``share`` (a ``blas.shared_by``) is told as
    each partition finishes.
    """
    state = _StepState(len(plans))
    traces = [None] * len(plans) if trace is None else [[] for _ in plans]  # one list per thread
    for plan, part_trace in zip(plans[1:], traces[1:]):
        _POOL.submit(functools.partial(_run_partition, plan, feeds, rdv, results, state, part_trace, threads, share))
    if plans:
        _run_partition(plans[0], feeds, rdv, results, state, traces[0], threads, share)
        if not state.done.wait(timeout_s):
            rdv.abort(errors.DeadlineExceededError(None, None, "step timed out"))
            state.done.wait()
    if trace is not None:
        trace.extend(sorted((t for part in traces for t in part), key=lambda t: t.start_ns))
    return state.error
