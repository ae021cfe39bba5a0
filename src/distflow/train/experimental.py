"""``tf.train.experimental``: TF 1.14-1.15's loss scaling for mixed-precision training.

A loss scale multiplies the loss before the gradients are taken and divides the gradients
after, so that small gradients of float16 values do not underflow. ``DynamicLossScale``
starts high and halves itself (skipping the step) whenever a gradient is not finite, and
doubles after ``increment_period`` finite steps in a row; ``FixedLossScale`` keeps one
value. ``MixedPrecisionLossScaleOptimizer`` wraps an optimizer with one.

``enable_mixed_precision_graph_rewrite(opt)`` returns ``opt`` so wrapped (dynamic loss
scaling, by default), as TensorFlow's does. TensorFlow also let its graph optimizer run
chosen ops in float16 on GPUs of compute capability 7.0 and up; distflow has no such
rewrite, so the ops keep their dtypes (what TensorFlow does on other devices): the model
trains in the precision it was written in, with the loss scale applied all the same. A
model built in float16 (variables cast by a custom getter, as TF 1.x's mixed-precision
recipes did) gets both.
"""

from __future__ import annotations

from ..framework import distribute_context, dtypes, ops
from ..ops import array_ops, control_flow_ops, math_ops, reduction_ops, state_ops
from ..ops.special_math_ops import is_finite
from ..ops.control_flow_v2 import cond
from ..ops.indexed_slices import IndexedSlices
from .optimizer import Optimizer


class LossScale:
    """A loss scale: ``loss_scale()`` is the current scale (a float32 tensor), and
    ``update(grads)`` returns ``(update_op, should_apply_gradients)``."""

    def __call__(self):
        raise NotImplementedError

    def update(self, grads):
        raise NotImplementedError

    def get_config(self) -> dict:
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class FixedLossScale(LossScale):
    """A loss scale that never changes; every step's gradients are applied."""

    def __init__(self, loss_scale_value):
        if not isinstance(loss_scale_value, (int, float)) or isinstance(loss_scale_value, bool):
            raise ValueError(f"loss_scale_value must be a Python int or float, got {loss_scale_value!r}")
        if loss_scale_value < 1:
            raise ValueError(f"loss_scale_value must be at least 1, got {loss_scale_value}")
        self._loss_scale_value = float(loss_scale_value)

    def __call__(self):
        return ops.convert_to_tensor(self._loss_scale_value, dtype=dtypes.float32)

    def update(self, grads):
        return control_flow_ops.no_op(), True

    def get_config(self) -> dict:
        return {"loss_scale_value": self._loss_scale_value}

    def __repr__(self):
        return f"FixedLossScale({self._loss_scale_value})"


def all_finite(grads) -> ops.Tensor:
    """Whether every value of every gradient (None skipped) is finite: a scalar bool."""
    checks = [reduction_ops.reduce_all(is_finite(g.values if isinstance(g, IndexedSlices) else g))
              for g in grads if g is not None]
    if not checks:
        return ops.convert_to_tensor(True)
    return reduction_ops.reduce_all(array_ops.stack(checks))


class DynamicLossScale(LossScale):
    """The scale starts at ``initial_loss_scale``; a step with a gradient that is not finite
    is skipped and divides it by ``multiplier`` (not below 1); ``increment_period`` finite
    steps in a row multiply it by ``multiplier``. Its state is two variables of the graph it
    is made in, ``current_loss_scale`` (float32) and ``good_steps`` (int64), saved with the
    model."""

    def __init__(self, initial_loss_scale=2 ** 15, increment_period=2000, multiplier=2.0):
        self._initial_loss_scale = float(initial_loss_scale)
        self._increment_period = int(increment_period)
        self._multiplier = float(multiplier)
        with ops.control_dependencies(None):
            self._current_loss_scale = state_ops.Variable(self._initial_loss_scale, name="current_loss_scale",
                                                          dtype=dtypes.float32, trainable=False)
            self._num_good_steps = state_ops.Variable(0, name="good_steps", dtype=dtypes.int64, trainable=False)
        self._weights = {"current_loss_scale": self._current_loss_scale, "good_steps": self._num_good_steps}

    initial_loss_scale = property(lambda self: self._initial_loss_scale)
    increment_period = property(lambda self: self._increment_period)
    multiplier = property(lambda self: self._multiplier)

    def __call__(self):
        return self._current_loss_scale.read_value()

    def update(self, grads):
        """(the op that moves the scale, whether this step's gradients are all finite)."""
        finite_grads = all_finite(grads)
        scale, good = self._current_loss_scale, self._num_good_steps

        def finite():
            def grow():
                raised = scale.read_value() * self._multiplier
                kept = cond(is_finite(raised), lambda: state_ops.assign(scale, raised).op,
                            control_flow_ops.no_op)
                return control_flow_ops.group(kept, state_ops.assign(good, 0).op)

            return cond(good.read_value() + 1 >= self._increment_period, grow,
                        lambda: state_ops.assign_add(good, 1).op)

        def not_finite():
            lowered = math_ops.maximum(scale.read_value() / self._multiplier, 1.0)
            return control_flow_ops.group(state_ops.assign(good, 0).op, state_ops.assign(scale, lowered).op)

        return cond(finite_grads, finite, not_finite), finite_grads

    def get_config(self) -> dict:
        return {"initial_loss_scale": self._initial_loss_scale, "increment_period": self._increment_period,
                "multiplier": self._multiplier}

    def __repr__(self):
        return (f"DynamicLossScale(initial_loss_scale={self._initial_loss_scale}, "
                f"increment_period={self._increment_period}, multiplier={self._multiplier})")


def _loss_scale(identifier) -> LossScale:
    if isinstance(identifier, LossScale):
        return identifier
    if isinstance(identifier, (int, float)) and not isinstance(identifier, bool):
        return FixedLossScale(identifier)
    if identifier == "dynamic":
        return DynamicLossScale()
    if identifier is None:
        raise ValueError("loss_scale cannot be None")
    raise ValueError(f"Could not interpret loss scale identifier: {identifier!r}")


class MixedPrecisionLossScaleOptimizer(Optimizer):
    """``opt`` with loss scaling: ``compute_gradients`` scales the loss up and the gradients
    back down; ``apply_gradients`` applies them (and increments ``global_step``) only when
    they are all finite, and moves the loss scale."""

    def __init__(self, opt, loss_scale):
        if not isinstance(opt, Optimizer):
            raise ValueError(f'"opt" must be an instance of Optimizer, but got: {type(opt)}')
        super().__init__(opt._use_locking, opt.get_name())
        self._optimizer = opt
        self._loss_scale = _loss_scale(loss_scale)

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None) -> list:
        loss = ops.convert_to_tensor(loss)
        scaled = loss * math_ops.cast(self._loss_scale(), loss.dtype.base_dtype)
        pairs = self._optimizer.compute_gradients(scaled, var_list=var_list, gate_gradients=gate_gradients,
                                                  aggregation_method=aggregation_method,
                                                  colocate_gradients_with_ops=colocate_gradients_with_ops,
                                                  grad_loss=grad_loss)
        reciprocal = 1.0 / self._loss_scale()
        return [(None if g is None else _scaled(g, reciprocal), v) for g, v in pairs]

    def apply_gradients(self, grads_and_vars, global_step=None, name=None) -> ops.Operation:
        if distribute_context.replica_context() is not None and isinstance(self._loss_scale, DynamicLossScale):
            raise NotImplementedError("MixedPrecisionLossScaleOptimizer with a dynamic loss scale in a "
                                      "tf.distribute replica is not supported by distflow: use a FixedLossScale "
                                      "there, or average the towers' gradients by hand")
        grads_and_vars = list(grads_and_vars)
        name = name or self.get_name()
        update_op, should_apply = self._loss_scale.update([g for g, _ in grads_and_vars])
        if should_apply is True:
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)
        applied = cond(should_apply, lambda: self._optimizer.apply_gradients(grads_and_vars, global_step,
                                                                             name + "-wrapped"),
                       control_flow_ops.no_op)
        return control_flow_ops.group(applied, update_op, name=name)

    def get_slot(self, var, name):
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def variables(self) -> list:
        return self._optimizer.variables() + list(getattr(self._loss_scale, "_weights", {}).values())


def _scaled(grad, factor):
    if isinstance(grad, IndexedSlices):
        return IndexedSlices(grad.values * math_ops.cast(factor, grad.values.dtype.base_dtype), grad.indices,
                             grad.dense_shape)
    return grad * math_ops.cast(factor, grad.dtype.base_dtype)


def enable_mixed_precision_graph_rewrite(opt, loss_scale="dynamic"):
    """``opt`` wrapped in a MixedPrecisionLossScaleOptimizer (the module docstring says what
    of TensorFlow's float16 rewrite distflow does not do)."""
    if isinstance(opt, MixedPrecisionLossScaleOptimizer):
        raise ValueError('"opt" must not already be an instance of a MixedPrecisionLossScaleOptimizer. '
                         "`enable_mixed_precision_graph_rewrite` will automatically wrap the optimizer with a "
                         "MixedPrecisionLossScaleOptimizer.")
    return MixedPrecisionLossScaleOptimizer(opt, loss_scale)


def disable_mixed_precision_graph_rewrite():
    """TensorFlow's switch back from the float16 rewrite; distflow does no such rewrite, so there
    is nothing to switch (optimizers already wrapped keep their loss scaling, as in TF)."""
