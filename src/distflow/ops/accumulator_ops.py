"""Gradient accumulators (``tf.ConditionalAccumulator``, and ``SparseConditionalAccumulator``
for IndexedSlices): sums of gradients shared by workers.

Built as queues are (data_flow_ops.py): a resource of the device that runs its creating op,
keyed by (container, shared name), its handle a reference that every op taking it follows
to that device. ``take_grad(n)`` is ``blocking``: it waits inside its step until ``n``
gradients came, and gives up with CancelledError or DeadlineExceededError as a dequeue does.
SyncReplicasOptimizer aggregates the workers' gradients with one per variable (a sparse one
for a variable whose gradient is IndexedSlices: an embedding's rows).
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
from .indexed_slices import IndexedSlices
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

    def _check(self, values: np.ndarray, shape) -> None:
        if values.dtype != self.dtype.as_numpy_dtype:
            raise errors.InvalidArgumentError(None, None, f"Accumulator '{self.name}' takes {self.dtype.name} "
                                              f"gradients, got {dtypes.as_dtype(values.dtype).name}")
        if not self.shape.is_compatible_with(TensorShape(shape)):
            raise errors.InvalidArgumentError(None, None, f"Accumulator '{self.name}' takes gradients of shape "
                                              f"{self.shape}, got {list(shape)}")

    def _accepts(self, local_step: int) -> bool:
        """(under ``cond``) False for a gradient computed from parameters older than the last update."""
        if local_step < self.global_step:
            _log.debug("accumulator %s dropped a stale gradient (local step %d < global step %d)",
                       self.name, local_step, self.global_step)
            return False
        return True

    def apply(self, local_step: int, grad: np.ndarray) -> None:
        grad = np.asarray(grad)
        self._check(grad, grad.shape)
        with self.cond:
            if not self._accepts(local_step):
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

    def take(self, ctx, num_required: int):
        """Waits for ``num_required`` gradients; their reduction, and the global step moves on."""
        if num_required < 1:
            raise errors.InvalidArgumentError(None, None, f"Accumulator '{self.name}': num_required must be >= 1, "
                                              f"got {num_required}")
        with self.cond:
            ctx.wait_for(self.cond, lambda: self.count >= num_required,
                         f"{num_required} gradient(s) in accumulator '{self.name}' (has {self.count})")
            out = self._reduced()
            self.global_step += 1
            self._reset()
            return out

    def _reduced(self):
        out = self.sum / self.dtype.as_numpy_dtype(self.count) if self.reduction_type == "MEAN" else self.sum
        return np.asarray(out, self.dtype.as_numpy_dtype)

    def _reset(self) -> None:
        self.sum, self.count = None, 0

    def set_global_step(self, step: int) -> None:
        with self.cond:
            if step < self.global_step:
                _log.warning("accumulator %s: new global step %d is below its current one (%d)", self.name,
                             step, self.global_step)
            self.global_step = step


class _SparseAccumulator(_Accumulator):
    """Sums IndexedSlices by row; with MEAN each row is divided by the number of gradients
    that had it (TensorFlow's SparseConditionalAccumulator), and a take returns the rows in
    ascending order with the gradients' dense shape. A row that one gradient has twice counts
    once, with the sum of its values."""

    def __init__(self, name, dtype, shape, reduction_type):
        super().__init__(name, dtype, shape, reduction_type)
        self.rows: dict[int, list] = {}  # row -> [sum of its values, how many gradients had it]
        self.dense_shape: np.ndarray | None = None

    def apply_sparse(self, local_step: int, indices, values, dense_shape) -> None:
        indices, values = np.asarray(indices, np.int64).reshape(-1), np.asarray(values)
        if values.shape[:1] != indices.shape:
            raise errors.InvalidArgumentError(None, None, f"Accumulator '{self.name}': {len(indices)} indices for "
                                              f"values of shape {list(values.shape)}")
        shape = list(np.asarray(dense_shape).reshape(-1)) if dense_shape is not None else \
            [None] + list(values.shape[1:])
        self._check(values, shape)
        if list(values.shape[1:]) != list(shape[1:]):
            raise errors.InvalidArgumentError(None, None, f"Accumulator '{self.name}': slices of shape "
                                              f"{list(values.shape[1:])} for a gradient of shape {shape}")
        with self.cond:
            if not self._accepts(local_step):
                return
            if dense_shape is not None:
                if self.dense_shape is not None and list(self.dense_shape) != shape:
                    raise errors.InvalidArgumentError(None, None, f"Accumulator '{self.name}': gradient of shape "
                                                      f"{shape} after ones of shape {list(self.dense_shape)}")
                self.dense_shape = np.asarray(shape, np.int64)
            # (a row a gradient has twice is its sum, counted once: TF's kept the second as a row
            # of its own in the result, so that the row's mean was off)
            rows, where = np.unique(indices, return_inverse=True)
            summed = np.zeros((len(rows),) + values.shape[1:], values.dtype)
            np.add.at(summed, where.reshape(-1), values)
            for row, value in zip(rows.tolist(), summed):
                entry = self.rows.get(row)
                if entry is None:
                    self.rows[row] = [np.array(value, copy=True), 1]
                else:
                    entry[0] += value
                    entry[1] += 1
            self.count += 1
            self.cond.notify_all()

    def _reduced(self):
        order = sorted(self.rows)
        numpy_dtype = self.dtype.as_numpy_dtype
        values = [self.rows[r][0] / numpy_dtype(self.rows[r][1]) if self.reduction_type == "MEAN" else self.rows[r][0]
                  for r in order]
        width = list(self.dense_shape[1:]) if self.dense_shape is not None else \
            [d if d is not None else 0 for d in self.shape.as_list()[1:]] if self.shape.ndims else []
        values = np.stack(values).astype(numpy_dtype) if values else np.zeros([0] + width, numpy_dtype)
        shape = self.dense_shape if self.dense_shape is not None else np.asarray(
            [-1 if d is None else d for d in (self.shape.as_list() if self.shape.ndims is not None else [])], np.int64)
        return np.asarray(order, np.int64), values, np.asarray(shape, np.int64)

    def _reset(self) -> None:
        self.rows, self.count = {}, 0


def _accumulator_of(kind, ctx, dtype, shape, container, shared_name, reduction_type):
    name = shared_name or ctx.op_name
    acc = ctx.resource_mgr.lookup_or_create(container, name, lambda: kind(name, dtype, shape, reduction_type))
    if type(acc) is not kind or acc.dtype != dtype:
        raise errors.InvalidArgumentError(None, None, f"Shared accumulator '{name}' on {ctx.device.name} is not a "
                                          f"{'sparse ' if kind is _SparseAccumulator else ''}accumulator of "
                                          f"{dtype.name} gradients")
    return acc


@register_op("ConditionalAccumulator", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
def _accumulator_kernel(ctx, *, dtype, shape, container, shared_name, reduction_type):
    return _accumulator_of(_Accumulator, ctx, dtype, shape, container, shared_name, reduction_type)


@register_op("SparseConditionalAccumulator", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
def _sparse_accumulator_kernel(ctx, *, dtype, shape, container, shared_name, reduction_type):
    return _accumulator_of(_SparseAccumulator, ctx, dtype, shape, container, shared_name, reduction_type)


@register_op("SparseAccumulatorApplyGradient", shape=no_outputs, stateful=True, ref_inputs=(0,))
def _sparse_apply_gradient_kernel(xp, acc, local_step, indices, values, shape, *, dtype, has_known_shape):
    acc.apply_sparse(int(local_step), indices, values, shape if has_known_shape else None)


def _sparse_take_shapes(op):
    shape = op.inputs[0].op._attr("shape")
    rows = TensorShape([None]).concatenate(shape[1:]) if shape.ndims else TensorShape(None)
    return [TensorShape([None]), rows, TensorShape([shape.ndims])]


@register_op("SparseAccumulatorTakeGradient", shape=_sparse_take_shapes,
             dtype=lambda op: [dtypes.int64, op._attr("dtype"), dtypes.int64], stateful=True, blocking=True,
             list_output=True, ref_inputs=(0,))
def _sparse_take_gradient_kernel(ctx, acc, num_required, *, dtype):
    return acc.take(ctx, int(num_required))


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
           "AccumulatorNumAccumulated", "AccumulatorSetGlobalStep", "SparseConditionalAccumulator",
           "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient"):
    not_differentiable(_t)


def _as_int64_step(step, name) -> ops.Tensor:
    """A step count as int64 (an int32 global step is cast, as TF does)."""
    step = ops.convert_to_tensor(step, name=name)
    if not step.dtype.base_dtype.is_integer:
        raise TypeError(f"'{name}' must be an integer step, got {step.dtype.name}")
    return step if step.dtype.base_dtype == dtypes.int64 else math_ops.cast(step, dtypes.int64)


class ConditionalAccumulatorBase:
    """What both accumulators share: the handle, the count so far and the global step."""

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtype
        self._shape = shape
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name

    @property
    def accumulator_ref(self) -> ops.Tensor:
        return self._accumulator_ref

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    def num_accumulated(self, name=None) -> ops.Tensor:
        with ops.colocate_with(self._accumulator_ref):
            return make_tensor("AccumulatorNumAccumulated", [self._accumulator_ref], None,
                               name or "num_accumulated")

    def set_global_step(self, new_global_step, name=None) -> ops.Operation:
        with ops.colocate_with(self._accumulator_ref):
            step = _as_int64_step(new_global_step, "new_global_step")
            return make_op("AccumulatorSetGlobalStep", [self._accumulator_ref, step], None,
                           name or "AccumulatorSetGlobalStep")


def _make(op_type, dtype, shape, shared_name, name, reduction_type):
    if reduction_type not in ("MEAN", "SUM"):
        raise ValueError(f"reduction_type must be 'MEAN' or 'SUM', got {reduction_type!r}")
    dtype, shape = as_element_dtype(dtype), as_shape(shape)
    return dtype, shape, make_tensor(op_type, [], {"dtype": dtype, "shape": shape, "container": "",
                                                   "shared_name": shared_name or "",
                                                   "reduction_type": reduction_type}, name)


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """``tf.ConditionalAccumulator(dtype, shape=None, shared_name=None, name=..., reduction_type='MEAN')``.

    Collects gradients for one variable: ``apply_grad(grad, local_step)`` adds one unless
    ``local_step`` is older than the accumulator's global step (a stale gradient, dropped);
    ``take_grad(n)`` waits for n gradients, returns their average and advances the global
    step by one.
    """

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator",
                 reduction_type="MEAN"):
        super().__init__(*_make("ConditionalAccumulator", dtype, shape, shared_name, name, reduction_type))

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


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """``tf.SparseConditionalAccumulator(dtype, shape=None, shared_name=None, name=...,
    reduction_type='MEAN')``: a ConditionalAccumulator of IndexedSlices. Each row is summed
    over the gradients that had it, and with MEAN divided by how many did; a take returns
    the rows in ascending order."""

    def __init__(self, dtype, shape=None, shared_name=None, name="sparse_conditional_accumulator",
                 reduction_type="MEAN"):
        super().__init__(*_make("SparseConditionalAccumulator", dtype, shape, shared_name, name, reduction_type))

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None) -> ops.Operation:
        values = ops.convert_to_tensor(grad_values, dtype=self._dtype, name="grad_values")
        indices = math_ops.cast(ops.convert_to_tensor(grad_indices, name="grad_indices"), dtypes.int64)
        known = grad_shape is not None
        shape = math_ops.cast(ops.convert_to_tensor(grad_shape if known else [], name="grad_shape"), dtypes.int64)
        with ops.colocate_with(self._accumulator_ref):
            local_step = _as_int64_step(local_step, "local_step")
            return make_op("SparseAccumulatorApplyGradient", [self._accumulator_ref, local_step, indices, values, shape],
                           {"dtype": self._dtype, "has_known_shape": known}, name or "SparseAccumulatorApplyGradient")

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None) -> ops.Operation:
        return self.apply_grad(grad.indices, grad.values, grad.dense_shape, local_step, name)

    def take_grad(self, num_required, name=None):
        """(indices, values, dense shape) of the reduced gradient."""
        with ops.colocate_with(self._accumulator_ref):
            n = ops.convert_to_tensor(num_required, dtype=dtypes.int32, name="num_required")
            op = make_op("SparseAccumulatorTakeGradient", [self._accumulator_ref, n], {"dtype": self._dtype},
                         name or "SparseAccumulatorTakeGradient")
            return tuple(op.outputs)

    def take_indexed_slices_grad(self, num_required, name=None):
        indices, values, shape = self.take_grad(num_required, name)
        return IndexedSlices(values, indices, shape)
