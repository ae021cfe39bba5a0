"""``tensorflow.python.client.device_lib``: the devices of this process, as TF 1.x listed them."""

from __future__ import annotations


class DeviceAttributes:
    """One device: ``name`` (``/device:CPU:0``), ``device_type``, ``memory_limit`` (bytes, 0 where
    distflow does not know it), ``physical_device_desc``; printed as TensorFlow prints its
    DeviceAttributes message."""

    def __init__(self, name, device_type, memory_limit=0, physical_device_desc=""):
        self.name, self.device_type = name, device_type
        self.memory_limit, self.physical_device_desc = memory_limit, physical_device_desc
        self.incarnation = 0

    def __repr__(self):
        text = f'name: "{self.name}"\ndevice_type: "{self.device_type}"\nmemory_limit: {self.memory_limit}\n' \
               f"locality {{\n}}\nincarnation: {self.incarnation}\n"
        return text + (f'physical_device_desc: "{self.physical_device_desc}"\n' if self.physical_device_desc else "")


def list_local_devices(session_config=None) -> list:
    """The CPU, and the GPUs where there are real ones: distflow's simulated GPUs, which run CPU
    kernels, are not listed, so that a program that builds a tower per GPU it finds builds
    none on a machine without one, as under TensorFlow."""
    from ..runtime.session import Session  # noqa: PLC0415
    from ..test import is_gpu_available  # noqa: PLC0415

    real_gpus = is_gpu_available()
    with Session(config=session_config) as sess:
        devices = sess.list_devices()
    out = []
    for d in devices:
        if d.device_type == "GPU" and not real_gpus:
            continue
        short = d.name[d.name.index("/device:"):] if "/device:" in d.name else d.name
        out.append(DeviceAttributes(short, d.device_type, d.memory_limit_bytes))
    return out
