"""Whole-step replay: a GPU step captured once as a CUDA graph, then launched as one.

A static graph knows its whole step before it runs. When every call of a step's plan only
launches work on one GPU (each kernel registered ``capturable``: no wait for the device,
no copy of a device value to the host), the step's kernel launches can be recorded once
and replayed with a single launch, instead of a Python call and a CUDA launch per op.

- The first run of a step with given feed shapes runs it as usual (CuPy compiles and
  caches its kernels; the memory pool learns the sizes). The second is captured, on a
  stream of the step's own, and launched; later runs with the same feed shapes launch it.
- Every array the capture makes comes from a memory pool of the capture's own, which
  nothing else allocates from: the addresses recorded in the graph stay the graph's for
  as long as it lives. Feeds are copied into buffers of that pool before each launch;
  fetches are copied out after it. Values a step computes on the host (shapes, sizes) are
  the same on every run with the same feed shapes; their copies to the device are recorded
  from pinned buffers the capture keeps.
- Whether a plan can be captured is decided before capturing it, from its calls (a failed
  capture can leave the CUDA context unusable). ``DISTFLOW_DEBUG=1`` logs the decision
  and the reason, once per step. ``ConfigProto(graph_options=GraphOptions(replay_gpu_steps=
  False))`` or ``DISTFLOW_GPU_REPLAY=0`` turns replay off.
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading

import numpy as np

from ..memories import goes_to_device, value_of

_log = logging.getLogger("distflow")


def replay_reason(plan, config=None) -> str | None:
    """Why ``plan`` (a sequential PartitionPlan) cannot be replayed, or None if it can."""
    if os.environ.get("DISTFLOW_GPU_REPLAY", "1") == "0":
        return "DISTFLOW_GPU_REPLAY=0"
    graph_options = getattr(config, "graph_options", None)
    if graph_options is not None and not getattr(graph_options, "replay_gpu_steps", True):
        return "replay_gpu_steps=False"
    if not plan.steps:
        return "an empty step"
    for reason in plan.replay_blockers:
        if reason is not None:
            return reason
    memories = {m for m in plan.memories if m != "host"}
    if len(memories) != 1:
        return "no GPU work" if not memories else f"work on {len(memories)} GPUs"
    return None


def for_step(plan, device_mgr, config, label: str) -> "StepReplay | None":
    """The replay of a newly compiled step's sequential plan, or None where it cannot have one
    (the reason is logged with DISTFLOW_DEBUG=1)."""
    reason = replay_reason(plan, config)
    if reason is not None:
        _log.debug("%s: not replayed as a CUDA graph: %s", label, reason)
        return None
    memory = next(m for m in plan.memories if m != "host")
    device = next(d for d in device_mgr.devices if d.memory == memory)
    _log.debug("%s: replayed as a CUDA graph from its second run", label)
    return StepReplay(plan, device.backend, device.ordinal, label)


class StepReplay:
    """Captures and replays one compiled step (its sequential plan) on one GPU."""

    def __init__(self, plan, backend, ordinal: int, label: str):
        self.plan, self.backend, self.ordinal, self.label = plan, backend, ordinal, label
        self._seen: set = set()  # feed signatures run once
        self._graphs: dict = {}  # feed signature -> _Captured, or None where capture failed
        self._lock = threading.Lock()

    @staticmethod
    def _key(feeds: list) -> tuple:
        return tuple((getattr(f, "shape", ()), getattr(f, "dtype", type(f))) for f in feeds)

    def run(self, feeds: list, num_fetches: int) -> list | None:
        """The step's fetches from a replay, or None where the caller runs the step itself (and
        then calls ``ran``): until a run with these feed shapes has succeeded, or where the
        capture failed."""
        key = self._key(feeds)
        with self._lock:
            captured = self._graphs.get(key, False)
            if captured is False:
                if key not in self._seen:
                    return None
                captured = self._graphs[key] = self._capture(feeds, num_fetches)
            if captured is None:
                return None
            return captured.launch(feeds)

    def ran(self, feeds: list) -> None:
        """A run with these feeds' shapes succeeded op by op: the next one is captured."""
        with self._lock:
            self._seen.add(self._key(feeds))

    def _capture(self, feeds: list, num_fetches: int):
        def execute(device_feeds: list) -> list:
            results = [None] * num_fetches
            self.plan._execute(self.plan.steps, device_feeds, None, results, raw=True)
            return results

        try:
            captured = self.backend.capture(self.ordinal, execute, feeds)
        except NotCaptured as e:
            _log.warning("%s: not replayed: its capture failed (%s); it runs op by op", self.label, e)
            return None
        _log.debug("%s: captured as a CUDA graph of %d calls; later runs replay it", self.label,
                   len(self.plan.steps))
        return captured


class NotCaptured(Exception):
    """A step's capture failed (it ended cleanly); the step runs op by op."""


class CudaGraphStep:
    """One captured step: its graph, its stream, its memory, its feed buffers and fetches.

    ``execute(feeds) -> fetches`` runs the step's calls once, leaving its fetches as they are
    (device arrays); it is called while the stream is captured.
    """

    def __init__(self, backend, ordinal: int, execute, feeds: list):
        cp = backend.xp
        self.cp = cp
        with cp.cuda.Device(ordinal):
            cp.cuda.Device().synchronize()  # (what the step reads is written)
            self.pool = cp.cuda.MemoryPool()
            # (one stream per device for every replay: replays run in the order they are launched;
            # the legacy default stream of the steps run op by op waits for it, and it for them)
            self.stream = backend.replay_stream(ordinal)
            self.keep: list = []  # pinned buffers the graph copies from
            with cp.cuda.using_allocator(self.pool.malloc), self.stream:
                self.feeds = [backend.upload(np.asarray(f), ordinal) if goes_to_device(f) else f for f in feeds]
                self.stream.synchronize()
                mode = getattr(cp.cuda.runtime, "streamCaptureModeRelaxed", None)
                self.stream.begin_capture(*(() if mode is None else (mode,)))
                backend.capturing(self.keep)
                try:
                    results = execute(self.feeds)
                except BaseException as e:  # noqa: BLE001 - end the capture, then say why
                    backend.capturing(None)
                    try:
                        self.stream.end_capture()
                    except Exception:  # noqa: BLE001 - the capture was already invalid
                        pass
                    raise NotCaptured(f"{type(e).__name__}: {e}") from e
                backend.capturing(None)
                self.graph = self.stream.end_capture()
            self.results = results
            self.ordinal = ordinal

    def launch(self, feeds: list) -> list:
        cp, stream = self.cp, self.stream
        with cp.cuda.Device(self.ordinal):
            for buffer, value in zip(self.feeds, feeds):
                if buffer is not value and goes_to_device(value):
                    buffer.set(np.ascontiguousarray(value), stream=stream)
            # (a step that fetches nothing from the device returns once its work is queued, as a
            # step run op by op does: later steps and copies to the host wait for it in stream order)
            self.graph.launch(stream=stream)
            return [_fetched(cp, v, stream) for v in self.results]


def _fetched(cp, value, stream):
    value = value_of(value)
    if isinstance(value, cp.ndarray):
        return value.get(stream=stream)
    return value.copy() if isinstance(value, np.ndarray) else value


def staged_upload(cp, value: np.ndarray, keep: list):
    """``value`` copied to the device from a pinned buffer that ``keep`` holds: a copy that a
    stream capture records (and its replays repeat, from the same buffer)."""
    value = np.ascontiguousarray(value)
    out = cp.empty(value.shape, dtype=value.dtype)
    if value.nbytes:
        memory = cp.cuda.alloc_pinned_memory(value.nbytes)
        staged = np.frombuffer(memory, value.dtype, value.size).reshape(value.shape)
        staged[...] = value
        out.data.copy_from_host_async(ctypes.c_void_p(staged.ctypes.data), value.nbytes,
                                      stream=cp.cuda.get_current_stream())
        keep.append((memory, staged))
    return out
