"""Finding CUDA devices and moving tensors to and from their memory, through CuPy.

A :class:`Backend` is all the runtime asks of an array library with device memory: its
array namespace (``xp``, handed to kernels as NumPy is on CPU), how many devices it sees,
and how a tensor gets into a device's memory and back out. The runtime never imports
CuPy itself; tests give it a backend of their own (a fake device over NumPy) to check
placement and copies on machines without a GPU.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading

import numpy as np

from ..memories import goes_to_device

_log = logging.getLogger("distflow")


class Backend:
    """The interface: a subclass says how its arrays are told apart and moved."""

    name = "cuda"
    xp = None  # the array namespace of the device's kernels

    def device_count(self) -> int:
        raise NotImplementedError

    def describe(self, ordinal: int) -> str:
        """A line naming the physical device (model, memory), for logs."""
        return f"{self.name}:{ordinal}"

    def compute_capability(self, ordinal: int) -> tuple[int, int]:
        return (0, 0)

    def is_device_array(self, value) -> bool:
        raise NotImplementedError

    def ordinal_of(self, value) -> int:
        """The device that holds ``value`` (a device array)."""
        raise NotImplementedError

    def upload(self, value: np.ndarray, ordinal: int):
        raise NotImplementedError

    def copy_between(self, value, ordinal: int):
        """``value`` (on another device) copied to device ``ordinal``."""
        raise NotImplementedError

    def download(self, value) -> np.ndarray:
        raise NotImplementedError

    def use(self, ordinal: int):
        """A context in which kernels run on device ``ordinal``."""
        return contextlib.nullcontext()

    def configure(self, gpu_options) -> None:
        """Applies a session's GPUOptions that concern memory."""

    def capturing(self, keep: list | None) -> None:
        """This thread's uploads go into a CUDA graph being captured (``keep`` holds what they
        copy from), or, with None, no longer do."""

    def capture(self, ordinal: int, execute, feeds: list):
        """A step captured for replay on device ``ordinal``: an object whose ``launch(feeds)``
        runs it and returns its fetches in host memory. ``execute(device_feeds)`` runs the
        step's calls once. Raises replay.NotCaptured where it cannot be done."""
        from .replay import NotCaptured  # noqa: PLC0415

        raise NotCaptured(f"{self.name} devices cannot capture steps")

    # -- built on the above -----------------------------------------------------
    def to_device(self, value, ordinal: int):
        """``value`` in device ``ordinal``'s memory. Host arrays are copied there; strings and
        objects, which no device kernel reads, stay on the host; anything else (a variable's
        storage, a TensorList) is handed on as it is."""
        if self.is_device_array(value):
            return value if self.ordinal_of(value) == ordinal else self.copy_between(value, ordinal)
        if goes_to_device(value):
            return self.upload(np.asarray(value), ordinal)
        return value

    def to_host(self, value):
        """``value`` in host memory (a NumPy array); host values as they are."""
        return self.download(value) if self.is_device_array(value) else value


class CupyBackend(Backend):
    """NVIDIA GPUs through CuPy (its memory pool, cuBLAS and its elementwise kernels)."""

    def __init__(self, cupy):
        self.xp = cupy
        self._cupy = cupy
        self._ndarray = cupy.ndarray
        self._count = cupy.cuda.runtime.getDeviceCount()
        self._configured = False
        self._capture = threading.local()
        self._streams: dict = {}

    def device_count(self) -> int:
        return self._count

    def describe(self, ordinal: int) -> str:
        props = self._cupy.cuda.runtime.getDeviceProperties(ordinal)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        return (f"{name}, {props['totalGlobalMem'] / 2**30:.0f} GiB, compute capability "
                f"{props['major']}.{props['minor']}")

    def compute_capability(self, ordinal: int) -> tuple[int, int]:
        props = self._cupy.cuda.runtime.getDeviceProperties(ordinal)
        return props["major"], props["minor"]

    def is_device_array(self, value) -> bool:
        return value.__class__ is self._ndarray

    def ordinal_of(self, value) -> int:
        return value.device.id

    def upload(self, value: np.ndarray, ordinal: int):
        keep = getattr(self._capture, "keep", None)
        if keep is not None:  # (a capture records the copy from a pinned buffer it keeps)
            from .replay import staged_upload  # noqa: PLC0415

            return staged_upload(self._cupy, value, keep)
        if self._count == 1:
            return self._cupy.asarray(value)
        with self._cupy.cuda.Device(ordinal):
            return self._cupy.asarray(value)

    def capturing(self, keep: list | None) -> None:
        self._capture.keep = keep

    def replay_stream(self, ordinal: int):
        """The stream every captured step of device ``ordinal`` is captured and launched on."""
        with _lock:
            stream = self._streams.get(ordinal)
            if stream is None:
                with self._cupy.cuda.Device(ordinal):
                    stream = self._streams[ordinal] = self._cupy.cuda.Stream(non_blocking=False)
        return stream

    def capture(self, ordinal: int, execute, feeds: list):
        from .replay import CudaGraphStep  # noqa: PLC0415

        return CudaGraphStep(self, ordinal, execute, feeds)

    def copy_between(self, value, ordinal: int):
        with self._cupy.cuda.Device(ordinal):
            out = self._cupy.empty_like(value)
            out.data.copy_from_device(value.data, value.nbytes)  # a peer copy where the devices allow
            return out

    def download(self, value) -> np.ndarray:
        return value.get()

    def use(self, ordinal: int):
        return self._cupy.cuda.Device(ordinal) if self._count > 1 else contextlib.nullcontext()

    def configure(self, gpu_options) -> None:
        fraction = getattr(gpu_options, "per_process_gpu_memory_fraction", 0.0) or 0.0
        if fraction > 0 and not self._configured:
            # process-wide, as TF's is: the first session that asks sets it
            self._configured = True
            for ordinal in range(self._count):
                with self._cupy.cuda.Device(ordinal):
                    self._cupy.get_default_memory_pool().set_limit(fraction=min(fraction, 1.0))


_lock = threading.Lock()
_found: list = []  # [backend or None] once looked for
_override: list = []  # a backend set by set_backend (tests)


def find_backend() -> Backend | None:
    """The process's GPU backend, or None: looked for once (importing CuPy, asking CUDA how
    many devices it sees), and logged once either way."""
    if _override:
        return _override[-1]
    with _lock:
        if not _found:
            _found.append(_look())
        return _found[0]


def _look() -> Backend | None:
    if os.environ.get("DISTFLOW_GPU", "").lower() in ("simulated", "0", "off", "none"):
        _log.info("DISTFLOW_GPU=%s: GPUs are simulated (CPU kernels)", os.environ["DISTFLOW_GPU"])
        return None
    try:
        import cupy  # noqa: PLC0415 - an optional extra, imported when devices are made
    except ImportError:
        _log.info("CuPy is not installed: GPUs are simulated (CPU kernels)")
        return None
    try:
        backend = CupyBackend(cupy)
    except Exception as e:  # noqa: BLE001 - no driver, no device: CUDA raises its own errors
        _log.info("CuPy found no CUDA device (%s): GPUs are simulated (CPU kernels)", e)
        return None
    if backend.device_count() == 0:
        _log.info("CuPy found no CUDA device: GPUs are simulated (CPU kernels)")
        return None
    from . import kernels  # noqa: F401, PLC0415 - registers the GPU kernels

    _log.info("distflow: %d CUDA GPU(s) through CuPy %s: %s", backend.device_count(), cupy.__version__,
              "; ".join(backend.describe(i) for i in range(backend.device_count())))
    return backend


@contextlib.contextmanager
def set_backend(backend: Backend | None):
    """Within the block, sessions and servers made use ``backend`` (None: simulated GPUs)."""
    _override.append(backend)
    try:
        yield backend
    finally:
        _override.pop()


def _env_split() -> int:
    value = os.environ.get("DISTFLOW_VIRTUAL_GPUS", "") or "1"
    try:
        split = int(value)
    except ValueError:
        split = 0
    if split < 1:
        raise ValueError(f"DISTFLOW_VIRTUAL_GPUS must be a positive number of logical GPUs per GPU, got {value!r}")
    return split


def physical_gpus(backend: Backend, gpu_options, requested: int | None) -> list[int]:
    """The ordinals of the logical GPUs a task gets, in order: one per physical device that
    ``gpu_options.visible_device_list`` names (all by default; ``CUDA_VISIBLE_DEVICES`` has
    already renumbered them), or as many as its virtual devices split each into (without
    them, as many as ``DISTFLOW_VIRTUAL_GPUS`` says: a multi-GPU program on one card with no
    change to it); at most ``requested`` of them (``device_count['GPU']``).

    Raises:
      ValueError: the visible device list names a device that does not exist.
    """
    count = backend.device_count()
    visible = getattr(gpu_options, "visible_device_list", "") or ""
    if visible:
        try:
            ordinals = [int(v) for v in visible.split(",")]
        except ValueError:
            raise ValueError(f"gpu_options.visible_device_list must be comma-separated device ids, "
                             f"got {visible!r}") from None
        bad = [o for o in ordinals if not 0 <= o < count]
        if bad:
            raise ValueError(f"gpu_options.visible_device_list names GPU(s) {bad}, but this process "
                             f"sees {count} (ids 0 to {count - 1})")
    else:
        ordinals = list(range(count))
    virtual = getattr(getattr(gpu_options, "experimental", None), "virtual_devices", None) or []
    default_split = _env_split()
    logical = []
    for i, ordinal in enumerate(ordinals):
        split = len(virtual[i].memory_limit_mb) if i < len(virtual) and virtual[i].memory_limit_mb else default_split
        logical += [ordinal] * split
    return logical if requested is None else logical[:requested]
