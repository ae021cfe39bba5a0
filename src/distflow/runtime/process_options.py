"""What ``tf.config`` sets for the whole process: which devices are visible, how they are
split into logical devices, and the thread counts.

A session (or a server) takes these where its own ConfigProto leaves the field at its
default: a ``tf.Session()`` with no config gets all of them (as TF 1.15's gets its
context's), and a config that names a thread count or a visible device list keeps its own.
Unlike TensorFlow, where devices cannot be changed once the runtime has started, a change
here applies to every session made after it.
"""

from __future__ import annotations

import copy
import threading

from .config import ConfigProto

_lock = threading.Lock()
_visible_gpus: list[int] | None = None  # physical GPU ordinals, in order; None: all
_cpu_devices: int | None = None  # logical CPUs (virtual devices of the CPU); None: the config's
_gpu_splits: dict[int, list] = {}  # physical GPU ordinal -> memory limits (MB) of its logical GPUs
_memory_growth: dict[int, bool] = {}
_threads = {"inter": 0, "intra": 0}


def visible_gpus() -> list[int] | None:
    return None if _visible_gpus is None else list(_visible_gpus)


def set_visible_gpus(ordinals) -> None:
    global _visible_gpus
    with _lock:
        _visible_gpus = None if ordinals is None else [int(o) for o in ordinals]


def cpu_devices() -> int | None:
    return _cpu_devices


def set_cpu_devices(count: int | None) -> None:
    global _cpu_devices
    with _lock:
        _cpu_devices = count


def gpu_split(ordinal: int) -> list | None:
    split = _gpu_splits.get(ordinal)
    return None if split is None else list(split)


def set_gpu_split(ordinal: int, memory_limits) -> None:
    with _lock:
        if memory_limits is None:
            _gpu_splits.pop(ordinal, None)
        else:
            _gpu_splits[ordinal] = list(memory_limits)


def memory_growth(ordinal: int) -> bool | None:
    return _memory_growth.get(ordinal)


def set_memory_growth(ordinal: int, enable: bool) -> None:
    with _lock:
        _memory_growth[ordinal] = bool(enable)


def threads(kind: str) -> int:
    return _threads[kind]


def set_threads(kind: str, count: int) -> None:
    if count < 0:
        raise ValueError(f"the number of {kind}-op threads must be 0 (the default) or more, got {count}")
    with _lock:
        _threads[kind] = int(count)


def effective(config: ConfigProto | None) -> ConfigProto:
    """``config`` (a default one for None) with what ``tf.config`` set filled in where it
    leaves the default: thread counts, the CPU count, the visible GPUs and their split."""
    out = copy.deepcopy(config) if config is not None else ConfigProto()
    if not out.inter_op_parallelism_threads:
        out.inter_op_parallelism_threads = _threads["inter"]
    if not out.intra_op_parallelism_threads:
        out.intra_op_parallelism_threads = _threads["intra"]
    counts = {k.upper(): v for k, v in out.device_count.items()}
    if _cpu_devices is not None and "CPU" not in counts:
        out.device_count = {**out.device_count, "CPU": _cpu_devices}
    options = out.gpu_options
    if _visible_gpus is not None and not options.visible_device_list:
        if not _visible_gpus:
            if "GPU" not in counts:
                out.device_count = {**out.device_count, "GPU": 0}
        else:
            options.visible_device_list = ",".join(str(o) for o in _visible_gpus)
    if _gpu_splits and not options.experimental.virtual_devices:
        order = [int(v) for v in options.visible_device_list.split(",")] if options.visible_device_list else \
            sorted(set(_gpu_splits) | set(range(max(_gpu_splits) + 1)))
        options.experimental.virtual_devices = [
            options.experimental.VirtualDevices(memory_limit_mb=_gpu_splits.get(o) or []) for o in order]
    return out
