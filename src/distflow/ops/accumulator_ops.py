"""Gradient accumulators (``tf.ConditionalAccumulator``): sums of gradients shared by workers.

Built as queues are (data_flow_ops.py): a resource of the device that runs its creating op,
keyed by (container, shared name), its handle a reference that every op taking it follows
to that device. ``take_grad(n)`` is ``blocking``: it waits inside its step until ``n``
gradients came, and gives up with CancelledError or DeadlineExceededError as a dequeue does.
SyncReplicasOptimizer aggregates the workers' gradients with one per variable.
"""

from __future__ import annotations

import logging
import threading

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape, as_shape
from . import math_ops
from .data_flow_ops import as_element_dtype, handle_dtype, no_outputs
from .op_util import make_op, make_tensor

_log = logging.getLogger("distflow")


class _Accumulator:
    """Sums gradients of one shape; take_grad(n) waits for n and returns their mean (or sum)."""

    def __init__(self, name: str, dtype: dtypes.DType, shape: TensorShape, reduction_type: str):
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.reduction_type = reduction_type
        self.cond = threading.Condition()
        self.sum: np.ndarray | None = None
        self.count = 0
        self.global_step = 0

    def apply(self, local_step: int, grad: np.ndarray) -> None:
        grad = np.asarray(grad)
        if grad.dtype != self.dtype.as_numpy_dtype:
            raise errors.InvalidArgumentError(None, None, f"Accumulator '{self.name}' takes {self.dtype.name} "
                                              f"gradients, got {dtypes.as_dtype(grad.dtype).name}")
        if not self.shape.is_compatible_with(TensorShape(grad.shape)):
            raise errors.InvalidArgumentError(None, None, f"Accumulator '{self.name}' takes gradients of shape "
                                              f"{self.shape}, got {list(grad.shape)}")
        with self.cond:
            if local_step < self.global_step:  # computed from parameters older than the last update
                _log.debug("accumulator %s dropped a stale gradient (local step %d < global step %d)",
                           self.name, local_step, self.global_step)
                return
            if self.sum is None:
                self.sum = np.array(grad, copy=True)
            elif self.sum.shape != grad.shape:
                raise errors.InvalidArgumentError(None, None, f"Accumulator '{self.name}': gradient of shape "
                                                  f"{list(grad.shape)} after ones of shape {list(self.sum.shape)}")
            else:
                self.sum += grad
            self.count += 1
            self.cond.notify_all()

    def take(self, ctx, num_required: int) -> np.ndarray:
        if num_required < 1:
            raise errors.InvalidArgumentError(None, None, f"Accumulator '{self.name}': num_required must be >= 1, "
                                              f"got {num_required}")
        with self.cond:
            ctx.wait_for(self.cond, lambda: self.count >= num_required,
                         f"{num_required} gradient(s) in accumulator '{self.name}' (has {self.count})")
            out = self.sum / self.dtype.as_numpy_dtype(self.count) if self.reduction_type == "MEAN" else self.sum
            self.global_step += 1
            self.sum, self.count = None, 0
            return np.asarray(out, self.dtype.as_numpy_dtype)

    def set_global_step(self, step: int) -> None:
        with self.cond:
            if step < self.global_step:
                _log.warning("accumulator %s: new global step %d is below its current one (%d)", self.name,
                             step, self.global_step)
            self.global_step = step


@register_op("ConditionalAccumulator", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
def _accumulator_kernel(ctx, *, dtype, shape, container, shared_name, reduction_type):
    name = shared_name or ctx.op_name
    acc = ctx.resource_mgr.lookup_or_create(container, name, lambda: _Accumulator(name, dtype, shape,
                                                                                  reduction_type))
    if not isinstance(acc, _Accumulator) or acc.dtype != dtype:
        raise errors.InvalidArgumentError(None, None, f"Shared accumulator '{name}' on {ctx.device.name} does not "
                                          f"hold {dtype.name} gradients")
    return acc


@register_op("AccumulatorApplyGradient", shape=no_outputs, stateful=True, ref_inputs=(0,))
def _apply_gradient_kernel(xp, acc, local_step, gradient, *, dtype):
    acc.apply(int(local_step), gradient)


@register_op("AccumulatorTakeGradient", shape=lambda op: op.inputs[0].op._attr("shape"),
             dtype=lambda op: op._attr("dtype"), stateful=True, blocking=True, ref_inputs=(0,))
def _take_gradient_kernel(ctx, acc, num_required, *, dtype):
    return acc.take(ctx, int(num_required))


@register_op("AccumulatorNumAccumulated", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.int32,
             stateful=True, ref_inputs=(0,))
def _num_accumulated_kernel(xp, acc):
    with acc.cond:
        return np.array(acc.count, np.int32)


@register_op("AccumulatorSetGlobalStep", shape=no_outputs, stateful=True, ref_inputs=(0,))
def _set_global_step_kernel(xp, acc, new_global_step):
    acc.set_global_step(int(new_global_step))


for _t in ("ConditionalAccumulator", "AccumulatorApplyGradient", "AccumulatorTakeGradient",
           "AccumulatorNumAccumulated", "AccumulatorSetGlobalStep"):
    not_differentiable(_t)


def _as_int64_step(step, name) -> ops.Tensor:
    """A step count as int64 (an int32 global step is cast, as TF does)."""
    step = ops.convert_to_tensor(step, name=name)
    if not step.dtype.base_dtype.is_integer:
        raise TypeError(f"'{name}' must be an integer step, got {step.dtype.name}")
    return step if step.dtype.base_dtype == dtypes.int64 else math_ops.cast(step, dtypes.int64)


class ConditionalAccumulator:
    """``tf.ConditionalAccumulator(dtype, shape=None, shared_name=None, name=..., reduction_type='MEAN')``.

    Collects gradients for one variable: ``apply_grad(grad, local_step)`` adds one unless
    ``local_step`` is older than the accumulator's global step (a stale gradient, dropped);
    ``take_grad(n)`` waits for n gradients, returns their average and advances the global
    step by one.
    """

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator",
                 reduction_type="MEAN"):
        if reduction_type not in ("MEAN", "SUM"):
            raise ValueError(f"reduction_type must be 'MEAN' or 'SUM', got {reduction_type!r}")
        self._dtype = as_element_dtype(dtype)
        self._shape = as_shape(shape)
        self._accumulator_ref = make_tensor("ConditionalAccumulator", [], {
            "dtype": self._dtype, "shape": self._shape, "container": "", "shared_name": shared_name or "",
            "reduction_type": reduction_type}, name)
        self._name = self._accumulator_ref.op.name

    @property
    def accumulator_ref(self) -> ops.Tensor:
        return self._accumulator_ref

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    def apply_grad(self, grad, local_step=0, name=None) -> ops.Operation:
        grad = ops.convert_to_tensor(grad, dtype=self._dtype, name="grad")
        if not grad.shape.is_compatible_with(self._shape):
            raise ValueError(f"Accumulator '{self._name}' takes shape {self._shape}, got a gradient of {grad.shape}")
        with ops.colocate_with(self._accumulator_ref):
            local_step = _as_int64_step(local_step, "local_step")
            return make_op("AccumulatorApplyGradient", [self._accumulator_ref, local_step, grad],
                           {"dtype": self._dtype}, name or "AccumulatorApplyGradient")

    def take_grad(self, num_required, name=None) -> ops.Tensor:
        with ops.colocate_with(self._accumulator_ref):
            n = ops.convert_to_tensor(num_required, dtype=dtypes.int32, name="num_required")
            return make_tensor("AccumulatorTakeGradient", [self._accumulator_ref, n], {"dtype": self._dtype},
                               name or "AccumulatorTakeGradient")

    def num_accumulated(self, name=None) -> ops.Tensor:
        with ops.colocate_with(self._accumulator_ref):
            return make_tensor("AccumulatorNumAccumulated", [self._accumulator_ref], None,
                               name or "num_accumulated")

    def set_global_step(self, new_global_step, name=None) -> ops.Operation:
        with ops.colocate_with(self._accumulator_ref):
            step = _as_int64_step(new_global_step, "new_global_step")
            return make_op("AccumulatorSetGlobalStep", [self._accumulator_ref, step], None,
                           name or "AccumulatorSetGlobalStep")
