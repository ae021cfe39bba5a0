"""Collective ops: all-reduce, all-gather and broadcast among a group of devices, as
TensorFlow's ``collective_ops`` module has them (``CollectiveReduce``, ``CollectiveGather``,
``CollectiveBcastSend``, ``CollectiveBcastRecv``).

Every member of a group runs the same op with the same ``group_key``, ``group_size`` and
``instance_key``; the members may be devices of one session or of several tasks, each
running its own graph (the runtime's collectives find them and move the data in a ring).
The ops have no gradients, as in TensorFlow; tf.distribute all-reduces gradients with them.
``NcclAllReduce`` (TF 1.x's ``tf.contrib.nccl``) is an all-reduce among a process's devices
that has one (a sum's).
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import register_gradient, register_op
from ..framework.tensor_shape import TensorShape, as_shape
from .op_util import make_tensor


MERGE_OPS = ("Add", "Mul", "Min", "Max")
FINAL_OPS = ("Id", "Div")


def _runtime(ctx):
    """The collectives runtime of the kernel's task (runtime/collectives.py)."""
    return ctx.device.peers.collectives


def _check_keys(op_name: str, group_size, group_key, instance_key) -> None:
    for name, value in (("group_size", group_size), ("group_key", group_key), ("instance_key", instance_key)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{op_name}: {name} must be an int, got {value!r}")
    if group_size < 1:
        raise ValueError(f"{op_name}: Parameter group_size to all_reduce must be at least 1, got {group_size}")


# (may_alias: the reduced tensor is also what this member gave its neighbour, which may read
# it after the kernel returns, so no later kernel may write into it in place)
@register_op("CollectiveReduce", shape=lambda op: op.inputs[0].shape, stateful=True, blocking=True,
             may_alias=True)
def _collective_reduce_kernel(ctx, t, *, group_size, group_key, instance_key, merge_op, final_op,
                              _task_local_group=False, **attrs):
    return _runtime(ctx).all_reduce(ctx, group_key, group_size, int(instance_key), t, merge_op, final_op,
                                    bool(_task_local_group))


# A CollectiveReduce split in two, so that the step computes while the ring runs: the start
# kernel begins the all-reduce on a background thread and outputs a handle; the done kernel
# waits for the result. Graph builders order them so that every member starts all of its
# instances before it waits for any (tf.distribute's gradient buckets do).
@register_op("_CollectiveReduceStart", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.variant,
             stateful=True, blocking=True)
def _collective_reduce_start_kernel(ctx, t, *, group_size, group_key, instance_key, merge_op, final_op,
                                    _task_local_group=False, **attrs):
    return _runtime(ctx).start_all_reduce(ctx, group_key, group_size, int(instance_key), t, merge_op, final_op,
                                          bool(_task_local_group))


@register_op("_CollectiveReduceDone", shape=lambda op: as_shape(op._attr("shape")),
             dtype=lambda op: op._attr("T"), stateful=True, blocking=True, may_alias=True)
def _collective_reduce_done_kernel(ctx, pending, *, T, shape, **attrs):
    return pending.result(ctx)


@register_op("CollectiveGather", shape=lambda op: _gather_shape(op), stateful=True, blocking=True)
def _collective_gather_kernel(ctx, t, *, group_size, group_key, instance_key, **attrs):
    if np.ndim(t) == 0:
        raise errors.InvalidArgumentError(None, None, f"{ctx.op_name}: all_gather needs a tensor of rank 1 or more, "
                                          "got a scalar")
    return _runtime(ctx).all_gather(ctx, group_key, group_size, int(instance_key), t)


def _gather_shape(op) -> TensorShape:
    shape = op.inputs[0].shape
    if shape.ndims is None or shape.ndims == 0:
        return shape
    first = shape.as_list()[0]
    return TensorShape([None if first is None else first * op._attr("group_size")] + shape.as_list()[1:])


@register_op("CollectiveBcastSend", shape=lambda op: op.inputs[0].shape, stateful=True, blocking=True)
def _bcast_send_kernel(ctx, t, *, group_size, group_key, instance_key, shape, **attrs):
    value = np.asarray(t)
    want = as_shape(shape)
    if want.is_fully_defined() and list(value.shape) != want.as_list():
        raise errors.InvalidArgumentError(None, None, f"{ctx.op_name}: broadcast_send of shape {list(value.shape)} "
                                          f"declared shape {want.as_list()}")
    return _runtime(ctx).broadcast(ctx, group_key, group_size, int(instance_key), value, value.shape, value.dtype)


@register_op("CollectiveBcastRecv", shape=lambda op: as_shape(op._attr("shape")),
             dtype=lambda op: op._attr("T"), stateful=True, blocking=True)
def _bcast_recv_kernel(ctx, *, group_size, group_key, instance_key, shape, T, **attrs):
    shape = tuple(as_shape(shape).as_list())
    if any(d is None for d in shape):
        raise errors.InvalidArgumentError(None, None, f"{ctx.op_name}: broadcast_recv needs a fully defined shape")
    return _runtime(ctx).broadcast(ctx, group_key, group_size, int(instance_key), None, shape, T.as_numpy_dtype)


def all_reduce(t, group_size, group_key, instance_key, merge_op="Add", final_op="Id", subdiv_offsets=(0,),
               communication_hint="auto", name=None, _task_local_group=False):
    """Reduces ``t`` across the group's members (``merge_op``: Add, Mul, Min or Max; then
    ``final_op``: Id, or Div to divide by the group size). ``_task_local_group`` (distflow's):
    every member is a device of one task, which forms the group without its leader."""
    t = ops.convert_to_tensor(t)
    attrs = _reduce_attrs("all_reduce", t, group_size, group_key, instance_key, merge_op, final_op, _task_local_group)
    attrs.update(subdiv_offsets=[int(x) for x in subdiv_offsets], communication_hint=communication_hint)
    return make_tensor("CollectiveReduce", [t], attrs, name or "CollectiveReduce")


def all_reduce_start(t, group_size, group_key, instance_key, merge_op="Add", final_op="Id", name=None,
                     _task_local_group=False):
    """:func:`all_reduce` begun without waiting for it (distflow's): a handle for
    :func:`all_reduce_done`, which waits. The step goes on computing meanwhile. Every member
    must start each instance it waits for before it waits for any (order the done ops after
    the last start), or members may wait on each other forever."""
    t = ops.convert_to_tensor(t)
    attrs = _reduce_attrs("all_reduce", t, group_size, group_key, instance_key, merge_op, final_op, _task_local_group)
    return make_tensor("_CollectiveReduceStart", [t], attrs, name or "CollectiveReduceStart")


def all_reduce_done(handle, like, name=None):
    """The result of the all-reduce that ``handle`` (from :func:`all_reduce_start`) began;
    ``like`` is the tensor it reduces (for the dtype and shape)."""
    return make_tensor("_CollectiveReduceDone", [handle], {"T": like.dtype.base_dtype, "shape": like.shape},
                       name or "CollectiveReduceDone")


def _reduce_attrs(what: str, t, group_size, group_key, instance_key, merge_op, final_op, task_local) -> dict:
    _check_keys(what, group_size, group_key, instance_key)
    if merge_op not in MERGE_OPS:
        raise ValueError(f"{what}: merge_op must be one of {sorted(MERGE_OPS)}, got {merge_op!r}")
    if final_op not in FINAL_OPS:
        raise ValueError(f"{what}: final_op must be one of {list(FINAL_OPS)}, got {final_op!r}")
    return {"T": t.dtype.base_dtype, "group_size": int(group_size), "group_key": int(group_key),
            "instance_key": int(instance_key), "merge_op": merge_op, "final_op": final_op,
            **({"_task_local_group": True} if task_local else {})}


def all_gather(t, group_size, group_key, instance_key, communication_hint="auto", name=None):
    """The members' ``t`` concatenated along axis 0, in rank order (by task, then device)."""
    _check_keys("all_gather", group_size, group_key, instance_key)
    t = ops.convert_to_tensor(t)
    return make_tensor("CollectiveGather", [t], {
        "T": t.dtype.base_dtype, "group_size": int(group_size), "group_key": int(group_key),
        "instance_key": int(instance_key), "shape": t.shape, "communication_hint": communication_hint},
        name or "CollectiveGather")


def broadcast_send(t, shape, dtype, group_size, group_key, instance_key, communication_hint="auto", name=None):
    """Sends ``t`` to the group's other members, which run ``broadcast_recv``; returns ``t``."""
    _check_keys("broadcast_send", group_size, group_key, instance_key)
    if group_size < 2:
        raise ValueError("broadcast_send: Parameter group_size to broadcast_send must be at least 2")
    t = ops.convert_to_tensor(t)
    if t.dtype.base_dtype != dtypes.as_dtype(dtype):
        raise ValueError(f"broadcast_send: the tensor is {t.dtype.base_dtype.name}, dtype says "
                         f"{dtypes.as_dtype(dtype).name}")
    if not t.shape.is_compatible_with(as_shape(shape)):
        raise ValueError(f"broadcast_send: the tensor has shape {t.shape}, shape says {as_shape(shape)}")
    return make_tensor("CollectiveBcastSend", [t], {
        "T": t.dtype.base_dtype, "group_size": int(group_size), "group_key": int(group_key),
        "instance_key": int(instance_key), "shape": as_shape(shape), "communication_hint": communication_hint},
        name or "CollectiveBcastSend")


def broadcast_recv(shape, dtype, group_size, group_key, instance_key, communication_hint="auto", name=None):
    """The tensor that the group's ``broadcast_send`` member sends."""
    _check_keys("broadcast_recv", group_size, group_key, instance_key)
    if group_size < 2:
        raise ValueError("broadcast_recv: Parameter group_size to broadcast_recv must be at least 2")
    shape = as_shape(shape)
    if not shape.is_fully_defined():
        raise ValueError(f"broadcast_recv: shape must be fully defined, got {shape}")
    return make_tensor("CollectiveBcastRecv", [], {
        "T": dtypes.as_dtype(dtype).base_dtype, "group_size": int(group_size), "group_key": int(group_key),
        "instance_key": int(instance_key), "shape": shape, "communication_hint": communication_hint},
        name or "CollectiveBcastRecv")


# ---------------------------------------------------------------------------
# NCCL's all-reduce as TF 1.x's tf.contrib.nccl made it: one op a device, the members found by
# their shared name; here a task-local group of the runtime's collectives (contrib/nccl.py)

NCCL_REDUCTIONS = {"sum": "Add", "prod": "Mul", "min": "Min", "max": "Max"}


def nccl_group_key(shared_name) -> int:
    """The collective group key of the NcclAllReduce ops named ``shared_name``: a hash, kept
    above the keys that strategies and programs count from 1."""
    name = shared_name.decode() if isinstance(shared_name, bytes) else str(shared_name)
    digest = hashlib.blake2b(name.encode(), digest_size=6).digest()
    return (1 << 52) | int.from_bytes(digest, "little")


@register_op("NcclAllReduce", shape=lambda op: op.inputs[0].shape, stateful=True, blocking=True, may_alias=True)
def _nccl_all_reduce_kernel(ctx, t, *, reduction, num_devices, shared_name, **attrs):
    if reduction not in NCCL_REDUCTIONS:
        raise errors.InvalidArgumentError(None, None, f"{ctx.op_name}: reduction must be one of "
                                          f"{sorted(NCCL_REDUCTIONS)}, got {reduction!r}")
    return _runtime(ctx).all_reduce(ctx, nccl_group_key(shared_name), num_devices, 1, t,
                                    NCCL_REDUCTIONS[reduction], "Id", True)


def nccl_all_reduce(t, reduction: str, num_devices: int, shared_name: str, name=None) -> ops.Tensor:
    """One member's NcclAllReduce: ``t`` reduced with the ``num_devices`` members of
    ``shared_name`` (each on a device of its own)."""
    t = ops.convert_to_tensor(t)
    return make_tensor("NcclAllReduce", [t], {"T": t.dtype.base_dtype, "reduction": reduction,
                                              "num_devices": int(num_devices), "shared_name": shared_name},
                       name or "NcclAllReduce")


@register_gradient("NcclAllReduce")
def _nccl_all_reduce_grad(op, grad):
    """A sum's gradient is the sum of the members' gradients, on each member (TF's)."""
    if op._attr("reduction") != "sum":
        raise LookupError("No gradient defined for NcclAllReduce except for reduction=\"sum\".")
    with ops.device(op.device):
        return nccl_all_reduce(grad, "sum", op._attr("num_devices"), op._attr("shared_name") + "_grad")
