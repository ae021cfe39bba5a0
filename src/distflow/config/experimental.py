"""``tf.config.experimental``: the physical devices and the logical devices made of them."""

from __future__ import annotations

import collections

from ..runtime import process_options
from ..runtime.config import ConfigProto
from ..runtime.device import DeviceMgr

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


class VirtualDeviceConfiguration(collections.namedtuple("VirtualDeviceConfiguration", ["memory_limit"])):
    """One logical device of a physical one (for a GPU, its memory limit in MB, which
    distflow records but does not enforce)."""

    def __new__(cls, memory_limit=None):
        return super().__new__(cls, memory_limit)


def _gpu_count() -> int:
    from ..runtime.gpu import find_backend  # noqa: PLC0415 - imports CuPy, where it is installed

    backend = find_backend()
    return 0 if backend is None else backend.device_count()


def list_physical_devices(device_type=None) -> list:
    """The CPU and the real GPUs, or those of ``device_type``."""
    devices = [PhysicalDevice("/physical_device:CPU:0", "CPU")] + [
        PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(_gpu_count())]
    return [d for d in devices if device_type is None or d.device_type == device_type.upper()]


def list_logical_devices(device_type=None) -> list:
    """The devices a session made now has (simulated GPUs included), or those of ``device_type``."""
    devices = [LogicalDevice(d.name, d.device_type) for d in DeviceMgr(ConfigProto()).devices]
    return [d for d in devices if device_type is None or d.device_type == device_type.upper()]


def experimental_list_devices() -> list:
    """The names of the logical devices (TF 1.14's ``tf.config.experimental_list_devices``)."""
    return [d.name for d in list_logical_devices()]


def _physical(device, what: str) -> PhysicalDevice:
    if not isinstance(device, PhysicalDevice) or device not in list_physical_devices():
        raise ValueError(f"Unrecognized device: {device!r} ({what} takes one of list_physical_devices())")
    return device


def _ordinal(device: PhysicalDevice) -> int:
    return int(device.name.rsplit(":", 1)[1])


def get_visible_devices(device_type=None) -> list:
    """The physical devices sessions use (all, until ``set_visible_devices``)."""
    visible = process_options.visible_gpus()
    return [d for d in list_physical_devices(device_type)
            if d.device_type != "GPU" or visible is None or _ordinal(d) in visible]


def set_visible_devices(devices, device_type=None) -> None:
    """Makes only ``devices`` (of ``device_type``, or of every type) visible to the sessions
    made from now on: GPUs not named are not used (with none, a session has no GPU, not even
    a simulated one). The CPU stays visible."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        _physical(d, "set_visible_devices")
    if device_type is not None and any(d.device_type != device_type.upper() for d in devices):
        raise ValueError(f"set_visible_devices: every device must be of type {device_type}, got {devices}")
    if (device_type is None or device_type.upper() == "CPU") and not any(d.device_type == "CPU" for d in devices):
        raise ValueError("Visible devices must include at least one CPU device")
    if device_type is None or device_type.upper() == "GPU":
        process_options.set_visible_gpus([_ordinal(d) for d in devices if d.device_type == "GPU"])


def get_memory_growth(device) -> bool:
    device = _physical(device, "get_memory_growth")
    if device.device_type != "GPU":
        raise ValueError(f"Cannot get memory growth on non-GPU devices: {device.name}")
    return bool(process_options.memory_growth(_ordinal(device)))


def set_memory_growth(device, enable) -> None:
    """Accepted for a GPU: distflow's GPU memory pool always grows as steps need it (see
    GPUOptions), which is what memory growth asks for."""
    device = _physical(device, "set_memory_growth")
    if device.device_type != "GPU":
        raise ValueError(f"Cannot set memory growth on non-GPU devices: {device.name}")
    if process_options.gpu_split(_ordinal(device)):
        raise ValueError(f"Cannot set memory growth on device when virtual devices configured: {device.name}")
    process_options.set_memory_growth(_ordinal(device), enable)


def get_virtual_device_configuration(device):
    device = _physical(device, "get_virtual_device_configuration")
    if device.device_type == "CPU":
        count = process_options.cpu_devices()
        return None if count is None else [VirtualDeviceConfiguration()] * count
    split = process_options.gpu_split(_ordinal(device))
    return None if split is None else [VirtualDeviceConfiguration(m) for m in split]


def set_virtual_device_configuration(device, logical_devices) -> None:
    """Splits ``device`` into logical devices, one per VirtualDeviceConfiguration: the CPU
    into that many CPU devices, a GPU into that many logical GPUs sharing the card."""
    device = _physical(device, "set_virtual_device_configuration")
    configs = None if logical_devices is None else list(logical_devices)
    if configs is not None and (not configs or not all(isinstance(c, VirtualDeviceConfiguration) for c in configs)):
        raise ValueError(f"set_virtual_device_configuration needs a non-empty list of VirtualDeviceConfiguration, "
                         f"got {logical_devices!r}")
    if device.device_type == "CPU":
        process_options.set_cpu_devices(None if configs is None else len(configs))
        return
    ordinal = _ordinal(device)
    if configs is not None and process_options.memory_growth(ordinal):
        raise ValueError(f"Cannot set virtual devices on a device with memory growth enabled: {device.name}")
    process_options.set_gpu_split(ordinal, None if configs is None else [c.memory_limit or 0 for c in configs])


def get_synchronous_execution() -> bool:
    """True: a step's ops run before ``Session.run`` returns (there is no eager async mode)."""
    return True


def set_synchronous_execution(enable) -> None:
    """Accepted: steps are always synchronous."""
