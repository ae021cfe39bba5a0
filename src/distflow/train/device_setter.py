"""``tf.train.replica_device_setter``: variables on parameter-server tasks, the rest on the worker.

The semantics are TensorFlow 1.x's, including its strategies:
round-robin (the default), greedy load balancing (for example by variable byte size,
which keeps one ps task from holding every large variable) and random by name.
"""

from __future__ import annotations

import hashlib

from ..distributed.cluster_spec import ClusterSpec
from ..framework.device_spec import DeviceSpec

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResource",
                   "BoostedTreesQuantileStreamResource", "ResourceConditionalAccumulator",
                   "DecisionTreeResource", "TreeEnsembleVariable")


class _RoundRobinStrategy:
    """Tasks 0, 1, ..., n-1, 0, 1, ... in the order variables are created."""

    def __init__(self, num_tasks: int):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op) -> int:
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class GreedyLoadBalancingStrategy:
    """The task with the least load so far (ties to the lowest index), then adds load_fn(op)."""

    def __init__(self, num_tasks: int, load_fn):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = [0] * num_tasks

    def __call__(self, op) -> int:
        task = min(range(self._num_tasks), key=lambda i: self._ps_loads[i])
        self._ps_loads[task] += self._load_fn(op)
        return task


class RandomStrategy:
    """A task chosen by a hash of the op's name: stable across runs and processes."""

    def __init__(self, num_tasks: int, seed: int = 0):
        self._num_tasks = num_tasks
        self._seed = seed

    def __call__(self, op) -> int:
        key = f"{op.name}_{self._seed}".encode()
        return int(hashlib.md5(key).hexdigest(), 16) % self._num_tasks


def byte_size_load_fn(op) -> int:
    """The size in bytes of the single output of ``op`` (a variable's size).

    Raises:
      ValueError: ``op`` has more than one output, or its shape is unknown.
    """
    if len(op.outputs) != 1:
        raise ValueError(f"Expected one output for op '{op.name}', got {len(op.outputs)}")
    output = op.outputs[0]
    shape = output.get_shape()
    if not shape.is_fully_defined() and "shape" in op.attrs:
        shape = op._attr("shape")
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot compute the byte size of '{op.name}': its shape {shape} is not known")
    return output.dtype.base_dtype.size * int(shape.num_elements())


class _ReplicaDeviceChooser:
    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op) -> str:
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        if self._ps_tasks and self._ps_device and op.type in self._ps_ops:
            ps_device = DeviceSpec.from_string(self._ps_device)
            if ps_device.job and (not current.job or current.job == ps_device.job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current).to_string()
        worker_device = DeviceSpec.from_string(self._worker_device or "")
        return worker_device.make_merged_spec(current).to_string()


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker", merge_devices=True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for ``tf.device``: ps ops on ps tasks, every other op on ``worker_device``.

    Returns None (so that ``tf.device(None)`` clears outer scopes) when there are no ps tasks,
    or when ``cluster`` has no job named like ``ps_device``'s.

    Raises:
      TypeError: ``ps_strategy`` is not callable.
    """
    if cluster is not None:
        spec = cluster.as_dict() if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster).as_dict()
        ps_job = DeviceSpec.from_string(ps_device).job
        if ps_job not in spec or spec[ps_job] is None:
            return None
        ps_tasks = len(spec[ps_job])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    return _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                                 ps_strategy).device_function
