"""``tf.distribute.CrossDeviceOps`` and its kinds: how the values of a process's replicas
are combined (``MirroredStrategy(cross_device_ops=...)``).

In TensorFlow the kind picks the algorithm of a MirroredStrategy's gradient all-reduces:
NCCL's all-reduce (``NcclAllReduce``), copies through the GPUs in two hops
(``HierarchicalCopyAllReduce``), or a sum on one device sent back to every replica
(``ReductionToOneDevice``). distflow's strategies all-reduce gradients with its collective
all-reduce among the devices whichever kind is given (runtime/collectives.py: a reduction
in memory among the devices of one process), so a program that names a kind runs as
written and trains the same. Called directly, in the cross-replica context (after
``experimental_run_v2`` returns), each kind reduces for real: ``reduce`` sums the replicas'
values (``ReduceOp.MEAN`` divides by their count) on one device, ``reduce_to_device`` for
``ReductionToOneDevice`` and the first destination otherwise, and returns the result
mirrored on every destination device; ``broadcast`` copies a value to them.
"""

from __future__ import annotations

from ..framework import ops
from ..ops import math_ops
from . import values as values_lib
from .reduce_util import ReduceOp, reduce_op_name


def _devices_of(destinations) -> list[str]:
    """The devices a result goes to: a device string, a list of them, or the devices of a
    distributed value or variable (each component's)."""
    if destinations is None:
        return []
    if isinstance(destinations, str):
        return [destinations]
    if isinstance(destinations, (list, tuple)) and all(isinstance(d, str) for d in destinations):
        return list(destinations)
    return [getattr(v, "device", "") or "" for v in values_lib.local_results(destinations)]


class CrossDeviceOps:
    """The base of the kinds: reduce, batch-reduce and broadcast values of the replicas."""

    def _reduce_device(self, destinations: list[str]) -> str:
        return destinations[0] if destinations else ""

    def reduce(self, reduce_op, per_replica_value, destinations):
        """``per_replica_value``'s parts summed (or averaged, for ``ReduceOp.MEAN``), mirrored
        on ``destinations``."""
        op = reduce_op_name(reduce_op)
        parts = [ops.convert_to_tensor(p) for p in values_lib.local_results(per_replica_value)]
        devices = _devices_of(destinations)
        with ops.device(self._reduce_device(devices)):
            total = self._accumulate(parts) if len(parts) > 1 else parts[0]
            if op == ReduceOp.MEAN:
                total = total / math_ops.cast(len(parts), total.dtype)
        return self.broadcast(total, devices)

    def _accumulate(self, parts: list):
        return math_ops.add_n(parts)

    def batch_reduce(self, reduce_op, value_destination_pairs) -> list:
        """:meth:`reduce` of each ``(per_replica_value, destinations)`` pair."""
        return [self.reduce(reduce_op, value, destinations) for value, destinations in value_destination_pairs]

    def broadcast(self, tensor, destinations):
        """``tensor`` on each of ``destinations`` (itself where there is one or none)."""
        devices = _devices_of(destinations)
        if len(devices) <= 1:
            return tensor if not devices else values_lib.identity_on(tensor, devices[0])
        return values_lib.Mirrored([values_lib.identity_on(tensor, d) for d in devices])


class ReductionToOneDevice(CrossDeviceOps):
    """Sums on one device (``reduce_to_device``, else the first destination) with
    ``accumulation_fn`` (``tf.math.add_n`` by default), and sends the sum back."""

    def __init__(self, reduce_to_device=None, accumulation_fn=None):
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn or math_ops.add_n

    def _reduce_device(self, destinations: list[str]) -> str:
        return self.reduce_to_device or super()._reduce_device(destinations)

    def _accumulate(self, parts: list):
        return self.accumulation_fn(parts)


class AllReduceCrossDeviceOps(CrossDeviceOps):
    """An all-reduce algorithm (``all_reduce_alg``: "nccl" or "hierarchical_copy") over
    ``num_packs`` packs of gradients, as TensorFlow names it."""

    def __init__(self, all_reduce_alg="nccl", num_packs=1):
        if all_reduce_alg not in ("nccl", "hierarchical_copy"):
            raise ValueError(f"all_reduce_alg must be 'nccl' or 'hierarchical_copy', got {all_reduce_alg!r}")
        if num_packs < 0:
            raise ValueError(f"num_packs must be >= 0, got {num_packs}")
        self.all_reduce_alg, self.num_packs = all_reduce_alg, num_packs


class NcclAllReduce(AllReduceCrossDeviceOps):
    """NCCL's all-reduce in TensorFlow (see the module docstring for distflow's)."""

    def __init__(self, num_packs=1):
        super().__init__("nccl", num_packs)


class HierarchicalCopyAllReduce(AllReduceCrossDeviceOps):
    """TensorFlow's all-reduce by copies through the GPUs in two hops (see the module
    docstring for distflow's)."""

    def __init__(self, num_packs=1):
        super().__init__("hierarchical_copy", num_packs)
