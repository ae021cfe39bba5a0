"""``tf.contrib.nccl``: all-reduce among the devices of one process, as TF 1.x's in-graph
replication used it (a tower per GPU, each tower's gradients summed into every tower).

``all_sum(tensors)`` returns, for each tensor, the sum of all of them on that tensor's own
device. TensorFlow ran NCCL's kernels, on GPUs only; distflow reduces with its collectives
(ops/collective_ops.py's ``NcclAllReduce``: the members meet in the process's memory), on
any devices, GPUs or CPUs, each input on a device of its own. Each output is read once every
member has run, so that fetching one of them runs them all (TF 1.x hung if some were not
evaluated). ``reduce_sum`` sums on the current device, ``broadcast`` returns its input
(a consumer on another device copies it there).
"""

from __future__ import annotations

import itertools
import uuid

from ..framework import ops
from ..framework.device_spec import DeviceSpec
from ..ops import array_ops, collective_ops, math_ops

from .._namespace import missing

_names = itertools.count()
_PROCESS = uuid.uuid4().hex[:8]  # (the graphs of several clients of one server keep apart)


def _device(tensor, what: str) -> str:
    if not tensor.device:
        raise ValueError(f"Device assignment for tensor={tensor} required for nccl collective ops ({what}): "
                         "build each input under tf.device(...)")
    return DeviceSpec.from_string(tensor.device).to_string()


def _all_reduce(reduction: str, tensors, what: str) -> list:
    tensors = [ops.convert_to_tensor(t) for t in tensors]
    if not tensors:
        raise ValueError("Must pass >0 tensors to all reduce operations")
    devices = [_device(t, what) for t in tensors]
    if len(set(devices)) != len(devices):
        raise ValueError(f"{what}: each tensor must be on a device of its own, got devices {devices}")
    shared_name = f"c{next(_names)}_{_PROCESS}"
    reduced = []
    for t in tensors:
        with ops.device(t.device):
            reduced.append(collective_ops.nccl_all_reduce(t, reduction, len(tensors), shared_name))
    outputs = []
    with ops.control_dependencies([r.op for r in reduced]):
        for r in reduced:
            with ops.device(r.device):
                outputs.append(array_ops.identity(r))
    return outputs


def all_sum(tensors) -> list:
    """The sum of ``tensors`` (one a device), on each tensor's device."""
    return _all_reduce("sum", tensors, "all_sum")


def all_prod(tensors) -> list:
    """The product of ``tensors`` (one a device), on each tensor's device."""
    return _all_reduce("prod", tensors, "all_prod")


def all_min(tensors) -> list:
    """The elementwise minimum of ``tensors`` (one a device), on each tensor's device."""
    return _all_reduce("min", tensors, "all_min")


def all_max(tensors) -> list:
    """The elementwise maximum of ``tensors`` (one a device), on each tensor's device."""
    return _all_reduce("max", tensors, "all_max")


def reduce_sum(tensors) -> ops.Tensor:
    """The sum of ``tensors`` on the current device, which must be one of theirs."""
    tensors = [ops.convert_to_tensor(t) for t in tensors]
    if not tensors:
        raise ValueError("Must pass >0 tensors to reduce operations")
    devices = {_device(t, "reduce_sum") for t in tensors}
    result = math_ops.add_n(tensors) if len(tensors) > 1 else array_ops.identity(tensors[0])
    if not result.device or DeviceSpec.from_string(result.device).to_string() not in devices:
        raise ValueError(f"One input tensor must be assigned to current device: the sum is on "
                         f"{result.device or 'no device'}, the inputs on {sorted(devices)}")
    return result


def broadcast(tensor) -> ops.Tensor:
    """``tensor``, for ops on other devices to read."""
    _device(tensor, "broadcast")
    with ops.device(tensor.device):
        return array_ops.identity(tensor)


__getattr__ = missing("tf.contrib.nccl")
