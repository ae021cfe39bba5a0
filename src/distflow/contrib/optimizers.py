"""``tf.contrib.layers.optimize_loss``: the training op of TF 1.x's tf.learn-era model
functions, in one call (an optimizer by name, class or instance; a learning rate and its
decay; gradient noise, multipliers and clipping; summaries), and ``adaptive_clipping_fn``."""

from __future__ import annotations

from ..framework import ops
from ..framework.ops import GraphKeys
from ..ops import array_ops, clip_ops, control_flow_ops, init_ops, math_ops, random_ops, state_ops
from ..ops import variable_scope as vs
from ..ops.indexed_slices import IndexedSlices
from ..summary import summary_ops as _summary
from ..train import optimizers as _optimizers
from ..train.optimizer import Optimizer
from ..train.training_util import assert_global_step, get_global_step

OPTIMIZER_CLS_NAMES = {
    "Adagrad": _optimizers.AdagradOptimizer,
    "Adam": _optimizers.AdamOptimizer,
    "Ftrl": _optimizers.FtrlOptimizer,
    "Momentum": lambda learning_rate: _optimizers.MomentumOptimizer(learning_rate, momentum=0.9),
    "RMSProp": _optimizers.RMSPropOptimizer,
    "SGD": _optimizers.GradientDescentOptimizer,
}

OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm", "global_gradient_norm"]


def _values(grad):
    return grad.values if isinstance(grad, IndexedSlices) else grad


def _scaled(grad, factor):
    if grad is None:
        return None
    if isinstance(grad, IndexedSlices):
        return IndexedSlices(grad.values * factor, grad.indices, grad.dense_shape)
    return grad * factor


def _make_optimizer(optimizer, lr) -> Optimizer:
    if isinstance(optimizer, str):
        if lr is None:
            raise ValueError(f"Learning rate is None, but should be specified if optimizer is string ({optimizer}).")
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError(f"Optimizer name should be one of [{', '.join(OPTIMIZER_CLS_NAMES)}], you provided "
                             f"{optimizer}.")
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, Optimizer):
        if lr is None:
            raise ValueError(f"Learning rate is None, but should be specified if optimizer is class ({optimizer}).")
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, Optimizer):
        return optimizer
    if callable(optimizer):
        opt = optimizer(lr) if lr is not None else optimizer()
        if not isinstance(opt, Optimizer):
            raise ValueError(f"Unrecognized optimizer: function should return subclass of Optimizer. Got {opt}.")
        return opt
    raise ValueError("Unrecognized optimizer: should be string, subclass of Optimizer, instance of subclass of "
                     f"Optimizer or function with one argument. Got {optimizer}.")


def _in_dtype(value, dtype):
    """A gradient multiplier in the gradient's dtype (a tensor of another dtype is cast, as TF)."""
    if isinstance(value, ops.Tensor):
        return value if value.dtype.base_dtype == dtype else math_ops.cast(value, dtype)
    return ops.convert_to_tensor(value, dtype=dtype)


def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None, gradient_multipliers=None,
                  clip_gradients=None, learning_rate_decay_fn=None, update_ops=None, variables=None, name=None,
                  summaries=None, colocate_gradients_with_ops=False, increment_global_step=True):
    """The loss, computed after one training step: its gradients (with noise of standard
    deviation ``gradient_noise_scale``, times ``gradient_multipliers`` by variable or name,
    clipped to a global norm of ``clip_gradients`` or by a function of the (gradient,
    variable) pairs) applied by ``optimizer`` ("SGD", "Adam", "Adagrad", "Momentum",
    "RMSProp", "Ftrl"; an Optimizer class or instance; or a function of the learning rate).
    A float ``learning_rate`` becomes the variable ``OptimizeLoss/learning_rate``. The
    UPDATE_OPS collection (or ``update_ops``) runs before the loss. Summaries: "loss",
    "learning_rate" and "global_gradient_norm" unless ``summaries`` names others."""
    loss = ops.convert_to_tensor(loss)
    if loss.shape.ndims not in (None, 0):
        raise ValueError(f"Expected scalar shape for {loss.name}, saw shape: {loss.shape}.")
    if global_step is None:
        global_step = get_global_step()
    else:
        assert_global_step(global_step)
    with vs.variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = set(ops.get_collection(GraphKeys.UPDATE_OPS))
        if update_ops:
            loss = control_flow_ops.with_dependencies(list(update_ops), loss)
        lr = None
        if learning_rate is not None:
            if isinstance(learning_rate, ops.Tensor) and learning_rate.shape.ndims == 0:
                lr = learning_rate
            elif isinstance(learning_rate, float):
                if learning_rate < 0.0:
                    raise ValueError(f"Invalid learning_rate {learning_rate}.")
                lr = vs.get_variable("learning_rate", [], trainable=False,
                                     initializer=init_ops.constant_initializer(learning_rate))
            else:
                raise ValueError(f"Learning rate should be 0d Tensor or float. Got {learning_rate} of type "
                                 f"{type(learning_rate)}")
        if summaries is None:
            summaries = ["loss", "learning_rate", "global_gradient_norm"]
        for s in summaries:
            if s not in OPTIMIZER_SUMMARIES:
                raise ValueError(f"Summaries should be one of [{', '.join(OPTIMIZER_SUMMARIES)}], you provided {s}.")
        if learning_rate is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
            if "learning_rate" in summaries:
                _summary.scalar("learning_rate", lr)
        opt = _make_optimizer(optimizer, lr)
        if variables is None:
            variables = state_ops.trainable_variables()
        pairs = opt.compute_gradients(loss, variables, colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gradient_noise_scale is not None:
            pairs = [(g if g is None else g + random_ops.truncated_normal(
                array_ops.shape(_values(g)) if isinstance(g, IndexedSlices) else g.shape) * gradient_noise_scale,
                v) for g, v in pairs]
        if gradient_multipliers is not None:  # (in the gradient's dtype: TF's float32 constant failed float64)
            pairs = [(_scaled(g, _in_dtype(gradient_multipliers[v if v in gradient_multipliers else v.name],
                                           _values(g).dtype.base_dtype))
                      if g is not None and (v in gradient_multipliers or v.name in gradient_multipliers) else g, v)
                     for g, v in pairs]
            if not pairs:
                raise ValueError("Empty list of (gradient, var) pairs encountered. This is most likely to be caused "
                                 "by an improper value of gradient_multipliers.")
        norms = "global_gradient_norm" in summaries or "gradient_norm" in summaries
        if norms:
            _summary.scalar("global_norm/gradient_norm", clip_ops.global_norm([g for g, _ in pairs]))
        if isinstance(clip_gradients, float):
            clipped, _ = clip_ops.clip_by_global_norm([g for g, _ in pairs], clip_gradients)
            pairs = list(zip(clipped, [v for _, v in pairs]))
        elif callable(clip_gradients):
            pairs = clip_gradients(pairs)
        elif clip_gradients is not None:
            raise ValueError(f"Unknown type {type(clip_gradients)} for clip_gradients")
        if "loss" in summaries:
            _summary.scalar("loss", loss)
        for g, v in pairs:
            if g is None:
                continue
            var_name = v.name.replace(":", "_")
            if "gradients" in summaries:
                _summary.histogram(f"gradients/{var_name}", _values(g))
            if "gradient_norm" in summaries:
                _summary.scalar(f"gradient_norm/{var_name}", clip_ops.global_norm([_values(g)]))
        if clip_gradients is not None and norms:
            _summary.scalar("global_norm/clipped_gradient_norm", clip_ops.global_norm([g for g, _ in pairs]))
        updates = opt.apply_gradients(pairs, global_step=global_step if increment_global_step else None,
                                      name="train")
        return control_flow_ops.with_dependencies([updates], loss)


def adaptive_clipping_fn(std_factor=2.0, decay=0.95, static_max_norm=None, global_step=None, report_summary=False,
                         epsilon=1e-8, name=None):
    """A ``clip_gradients`` function for optimize_loss: it keeps moving averages (variables
    ``<name>/mean`` and ``sq_mean``) of the log of the gradients' global norm, and where the
    norm passes ``exp(mean + std_factor * std)`` rescales the gradients to a norm of
    ``exp(mean)`` (and never above ``static_max_norm``, if given); with ``global_step`` the
    averages' decay is at most ``n / (n + 1)`` at step n."""

    def clip(grads_and_vars):
        grads, variables = zip(*grads_and_vars)
        norm = clip_ops.global_norm(grads)
        with vs.variable_scope(name, "AdaptiveMaxNorm", [norm]):
            log_norm = math_ops.log(norm + epsilon)
            rate = decay
            if global_step is not None:
                n = math_ops.cast(global_step, norm.dtype.base_dtype)
                rate = math_ops.minimum(decay, n / (n + 1.0))

            def averaged(var_name, value):
                average = vs.get_variable(var_name, shape=value.shape, dtype=value.dtype,
                                          initializer=init_ops.zeros_initializer(), trainable=False)
                return state_ops.assign_sub(average, (average.value() - value) * (1.0 - rate))

            mean = averaged("mean", log_norm)
            sq_mean = averaged("sq_mean", math_ops.square(log_norm))
            std = math_ops.sqrt(math_ops.maximum(epsilon, sq_mean - math_ops.square(mean)))
            max_norm = math_ops.exp(mean + std_factor * std)
        if report_summary:
            _summary.scalar("global_norm/adaptive_max_gradient_norm", max_norm)
        factor = math_ops.where(norm < max_norm, array_ops.ones_like(norm), math_ops.exp(mean) / norm)
        if static_max_norm is not None:
            factor = math_ops.minimum(static_max_norm / norm, factor)
        return [(_scaled(g, factor), v) for g, v in zip(grads, variables)]

    return clip
