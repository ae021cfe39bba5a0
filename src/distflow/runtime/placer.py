"""The placer: gives every op a full device name of this task.

Rules, in order:
1. An op in a colocation group (``_class = ["loc:@v"]``) goes where ``v`` goes; if it
   also asks for an incompatible device, that is an error without soft placement.
2. An op that takes a variable reference goes where the variable is, whatever device
   it asks for (as in TF: ``tf.assign_add(global_step, 1)`` built in a worker's
   device scope updates the variable on its parameter server). So does an op that takes
   a resource handle (a resource variable's read or update, a TensorArray's or a
   table's op): it goes where the handle was made, whose device holds the resource.
   A loop or a conditional that takes one is placed by its own device (its body's ops
   follow the rule).
3. Otherwise its requested device is completed: no index means 0; no type means GPU:0
   where the task has a real GPU and the op a GPU kernel (as TF prefers a GPU), else CPU.
A device that does not exist is an InvalidArgumentError naming the op, unless
``allow_soft_placement`` is set: then the op moves to device 0 of the same type,
or to CPU:0. So is a real GPU for an op that has no GPU kernel: with soft placement
the op runs on the CPU of its task instead, and that is logged once per op type.
"""

from __future__ import annotations

import logging
import sys

from ..framework import dtypes, errors
from ..framework.device_spec import DeviceSpec
from ..framework.function_body import FuncBody
from ..framework.ops import Operation
from ..framework.registry import has_kernel
from .device import Device, DeviceMgr

_log = logging.getLogger("distflow")
_SOFT_LOGGED: set[str] = set()  # op types whose move to a CPU has been logged


def _compatible(a: DeviceSpec, b: DeviceSpec) -> bool:
    return all(x is None or y is None or x == y for x, y in (
        (a.job, b.job), (a.replica, b.replica), (a.task, b.task),
        (a.device_type, b.device_type), (a.device_index, b.device_index)))


class Placer:
    def __init__(self, device_mgr: DeviceMgr, allow_soft_placement: bool = False,
                 log_device_placement: bool = False, log_stream=None):
        self._mgr = device_mgr
        self._soft = allow_soft_placement
        self._log = log_device_placement
        self._log_stream = log_stream
        self._placed: dict[Operation, Device] = {}
        self._real_gpus = any(d.kernel_type == "GPU" for d in device_mgr.devices)

    def place(self, op: Operation) -> Device:
        """The device of ``op`` (decided once per session, then remembered)."""
        device = self._placed.get(op)
        if device is None:
            device = self._place(op, ())
        return device

    def _place(self, op: Operation, visiting: tuple) -> Device:
        device = self._placed.get(op)
        if device is not None:
            return device
        if op in visiting:
            raise errors.InvalidArgumentError(
                None, op, f"Colocation cycle at op '{op.name}': " + " -> ".join(o.name for o in visiting))
        anchor, explicit = self._colocation_anchor(op)
        if anchor is not None:
            device = self._place(anchor, visiting + (op,))
            if explicit and op.device and not self._soft \
                    and not _compatible(DeviceSpec.from_string(op.device), device.spec):
                raise errors.InvalidArgumentError(
                    None, op, f"Cannot colocate op '{op.name}' ({op.type}) with '{anchor.name}': "
                    f"it asks for device '{op.device}' but '{anchor.name}' is on '{device.name}'. "
                    "Remove the conflicting device or pass allow_soft_placement=True.")
        else:
            device = self._resolve(op)
        device = self._with_kernel(op, device)
        self._placed[op] = device
        op._assigned_device = device.name
        if self._log:
            note = (" (simulated GPU, CPU kernels)" if device.simulated else
                    f" ({device.backend.describe(device.ordinal)})" if device.ordinal is not None else "")
            print(f"{op.name}: ({op.type}): {device.name}{note}", file=self._log_stream or sys.stderr)
        return device

    def _with_kernel(self, op: Operation, device: Device) -> Device:
        """``device``, or its task's CPU under soft placement where the op has no kernel for
        ``device``'s type (only real GPUs lack kernels: simulated ones run the CPU's)."""
        if device.kernel_type == "CPU" or not op._reg.kernel or has_kernel(op.type, device.kernel_type):
            return device
        if not self._soft:
            raise errors.InvalidArgumentError(
                None, op, f"Cannot assign a device for operation '{op.name}': no {device.kernel_type} "
                f"kernel is registered for op type {op.type}, and it was placed on '{device.name}'. "
                "Pin the op to a CPU or pass allow_soft_placement=True.", device=device.name)
        cpu = self._mgr.find("CPU", 0, device.spec.job, device.spec.task) or self._mgr.find("CPU", 0)
        if op.type not in _SOFT_LOGGED:
            _SOFT_LOGGED.add(op.type)
            _log.info("op type %s has no %s kernel: '%s' and ops like it run on %s", op.type,
                      device.kernel_type, op.name, cpu.name)
        return cpu

    @staticmethod
    def _colocation_anchor(op: Operation) -> tuple[Operation | None, bool]:
        """The op that ``op`` must share a device with, and whether the user asked for it."""
        for group in op._attr("_class") if "_class" in op._attrs else ():
            name = group[len("loc:@"):]
            if name != op.name:
                try:
                    return op.graph.get_operation_by_name(name), True
                except KeyError:
                    raise errors.InvalidArgumentError(
                        None, op, f"Op '{op.name}' is colocated with '{name}', which is not in "
                        "the graph") from None
        for i in op._reg.ref_inputs:
            if i < len(op.inputs) and op.inputs[i].dtype.is_ref_dtype:
                return op.inputs[i].op, False
        if not any(isinstance(value, FuncBody) for value in op._attrs.values()):  # (a loop or cond runs its body)
            for t in op.inputs:
                if t.dtype.base_dtype == dtypes.resource:
                    return t.op, False
        return None, False

    def _resolve(self, op: Operation) -> Device:
        spec = DeviceSpec.from_string(op.device)
        mgr = self._mgr
        job = spec.job or mgr.job
        task = spec.task if spec.task is not None else (mgr.task if job == mgr.job else 0)
        device_type = spec.device_type
        if device_type is None:  # a real GPU of that task where the op can run there, as TF prefers
            gpu = mgr.find("GPU", 0, job, task) if self._real_gpus else None
            device_type = "GPU" if gpu is not None and gpu.kernel_type == "GPU" and has_kernel(op.type, "GPU") \
                else "CPU"
        device = None
        if spec.replica in (None, 0):
            device = mgr.find(device_type, spec.device_index or 0, job, task)
        if device is not None:
            return device
        if self._soft:
            return (mgr.find(device_type, 0, job, task) or mgr.find("CPU", 0, job, task)
                    or mgr.find(device_type, 0) or mgr.find("CPU", 0))
        available = ", ".join(d.name for d in mgr.devices)
        raise errors.InvalidArgumentError(
            None, op, f"Cannot assign a device for operation '{op.name}' ({op.type}): it was "
            f"explicitly assigned to '{op.device}', but available devices are [{available}]. "
            "Pin the op to an existing device or pass allow_soft_placement=True.",
            device=op.device)
