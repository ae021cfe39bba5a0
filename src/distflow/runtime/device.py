"""Devices: a name, an array namespace (NumPy on CPU), a memory and a resource manager.

A device's ``memory`` names where its kernels' tensors live: "host" for CPUs and
simulated GPUs, "cuda:N" for a real GPU (logical GPUs split from one card share its
memory). The executor copies a tensor when it crosses from one memory to another.

Partitions run on threads of the executor's pool rather than on one thread per
device: a partition blocked in a receive or a queue must not stop another
step's partition for the same device from running.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from ..framework import errors
from ..framework.device_spec import DeviceSpec
from . import gpu, onednn, process_options
from .collectives import Collectives
from .config import ConfigProto
from .resource_mgr import ResourceMgr


class Device:
    """One compute device of a task. ``simulated`` GPUs run CPU (NumPy) kernels.

    ``backend`` is the task's GPU backend (runtime/gpu), or None in a task without real
    GPUs; ``ordinal`` is the physical GPU of a real one.
    """

    def __init__(self, job: str, replica: int, task: int, device_type: str, index: int,
                 simulated: bool = False, backend=None, ordinal: int | None = None):
        self.spec = DeviceSpec(job, replica, task, device_type, index)
        self.name = self.spec.to_string()
        self.device_type = device_type
        self.index = index
        self.simulated = simulated
        self.backend = backend
        self.ordinal = ordinal
        on_device = backend is not None and ordinal is not None
        self.memory = f"{backend.name}:{ordinal}" if on_device else "host"
        # the kernels it runs are registered for this type ("CPU" for simulated GPUs)
        self.kernel_type = device_type if on_device else "CPU"
        self.xp = backend.xp if on_device else np
        self.resource_mgr = ResourceMgr(self.name)
        self.peers: "DeviceSet | None" = None  # the devices of its task, once it has them

    @property
    def physical_device_desc(self) -> str:
        """What a real GPU is ("device: 0, name: ..."), as TF's DeviceAttributes say; "" otherwise."""
        return f"device: {self.ordinal}, name: {self.backend.describe(self.ordinal)}" if self.kernel_type != "CPU" else ""

    def accept(self, value):
        """``value`` (from any device of the process) in this device's memory."""
        if self.backend is None:
            return value
        if self.ordinal is None:
            return self.backend.to_host(value)
        return self.backend.to_device(value, self.ordinal)

    def __repr__(self):
        return f"<Device {self.name}{' (simulated)' if self.simulated else ''}>"


class DeviceSet:
    """Devices the placer chooses from, with one task as the default for unpinned ops."""

    def __init__(self, devices: list, job: str, task: int):
        self.devices = devices
        self.job, self.task = job, task
        self._by_name = {d.name: d for d in devices}
        self._by_key = {(d.spec.job, d.spec.task, d.device_type, d.index): d for d in devices}

    def lookup(self, name: str):
        return self._by_name[name]

    def find(self, device_type: str, index: int, job: str | None = None, task: int | None = None):
        """The device of that type and index on ``job``/``task`` (default: this task), or None."""
        key = (self.job if job is None else job, self.task if task is None else task, device_type, index)
        return self._by_key.get(key)


class DeviceMgr(DeviceSet):
    """The devices of one task, made from ``ConfigProto.device_count`` and ``gpu_options``:
    the real GPUs where the process has a GPU backend, else simulated ones."""

    def __init__(self, config: ConfigProto | None = None, job: str = "localhost", task: int = 0):
        config = process_options.effective(config)
        counts = {k.upper(): v for k, v in config.device_count.items()}
        n_cpu = counts.get("CPU", 1)
        if n_cpu < 1:
            raise ValueError("device_count['CPU'] must be at least 1")
        onednn.register()
        backend = gpu.find_backend() if counts.get("GPU") != 0 else None
        if backend is not None:
            backend.configure(config.gpu_options)
            ordinals = gpu.physical_gpus(backend, config.gpu_options, counts.get("GPU"))
            gpus = [Device(job, 0, task, "GPU", i, backend=backend, ordinal=o) for i, o in enumerate(ordinals)]
        else:
            n_gpu = counts.get("GPU", ConfigProto.DEFAULT_SIMULATED_GPUS)
            gpus = [Device(job, 0, task, "GPU", i, simulated=True) for i in range(n_gpu)]
        devices = [Device(job, 0, task, "CPU", i, backend=backend) for i in range(n_cpu)] + gpus
        super().__init__(devices, job, task)
        self.backend = backend
        self.collectives = Collectives()  # (a server's worker gives its own, which reaches other tasks)
        self.session_tensors = SessionTensors(f"/job:{job}/replica:0/task:{task}")
        for d in devices:
            d.peers = self

    def to_host(self, value):
        """``value`` in host memory, from whichever device of this task holds it."""
        return value if self.backend is None else self.backend.to_host(value)


class SessionTensors:
    """The tensors that steps keep for later steps (``tf.get_session_handle``), by handle:
    a local session's, or those of every session of a server's task."""

    def __init__(self, task: str):
        self.task = task
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._values: dict[str, object] = {}

    def add(self, op_name: str, device: Device, value) -> str:
        """Keeps ``value`` and returns its new handle, ``"<op name>;<id>;<device>"``."""
        handle = f"{op_name};{next(self._ids)};{device.name}"
        with self._lock:
            self._values[handle] = value
        return handle

    def get(self, handle: str, op_name: str):
        value = self._values.get(handle)
        if value is None:
            raise errors.InvalidArgumentError(None, None, self._missing(handle, op_name))
        return value

    def delete(self, handle: str, op_name: str = "") -> None:
        with self._lock:
            value = self._values.pop(handle, None)
        if value is None and op_name:
            raise errors.InvalidArgumentError(None, None, self._missing(handle, op_name))

    def _missing(self, handle: str, op_name: str) -> str:
        held_by = handle.rsplit(";", 1)[-1]
        where = "" if held_by.startswith(self.task) else (
            f" (it is held by {held_by}, not by {self.task}: read it on its own device)")
        return (f"{op_name}: the tensor with handle '{handle}' is not in the session store{where}; it was "
                "deleted, or made by another session")

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
