"""Devices: a name, an array namespace (NumPy on CPU) and a resource manager.

Partitions run on threads of the executor's pool rather than on one thread per
device: a partition blocked in a receive or a queue must not stop another
step's partition for the same device from running.
"""

from __future__ import annotations

import numpy as np

from ..framework.device_spec import DeviceSpec
from .config import ConfigProto
from .resource_mgr import ResourceMgr


class Device:
    """One compute device of a task. ``simulated`` GPUs run CPU (NumPy) kernels."""

    def __init__(self, job: str, replica: int, task: int, device_type: str, index: int,
                 simulated: bool = False):
        self.spec = DeviceSpec(job, replica, task, device_type, index)
        self.name = self.spec.to_string()
        self.device_type = device_type
        self.index = index
        self.simulated = simulated
        self.xp = np
        self.resource_mgr = ResourceMgr(self.name)
        self.peers: "DeviceSet | None" = None  # the devices of its task, once it has them

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
    """The devices of one task, made from ``ConfigProto.device_count``."""

    def __init__(self, config: ConfigProto | None = None, job: str = "localhost", task: int = 0):
        config = config or ConfigProto()
        counts = {k.upper(): v for k, v in config.device_count.items()}
        n_cpu = counts.get("CPU", 1)
        if n_cpu < 1:
            raise ValueError("device_count['CPU'] must be at least 1")
        n_gpu = counts.get("GPU", ConfigProto.DEFAULT_SIMULATED_GPUS)
        devices = [Device(job, 0, task, "CPU", i) for i in range(n_cpu)]
        devices += [Device(job, 0, task, "GPU", i, simulated=True) for i in range(n_gpu)]
        super().__init__(devices, job, task)
        for d in devices:
            d.peers = self
