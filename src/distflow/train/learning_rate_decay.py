"""Learning-rate schedules of ``tf.train``: each is a scalar tensor of the global step."""

from __future__ import annotations

import math

from ..framework import dtypes, ops
from ..ops import array_ops, math_ops


def _step_and_rate(learning_rate, global_step, fn):
    if global_step is None:
        raise ValueError(f"global_step is required for {fn}.")
    learning_rate = ops.convert_to_tensor(learning_rate, name="learning_rate")
    dtype = learning_rate.dtype.base_dtype
    return learning_rate, math_ops.cast(global_step, dtype), dtype


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """``learning_rate * decay_rate ** (global_step / decay_steps)`` (the exponent floored if ``staircase``)."""
    with ops.name_scope(name, "ExponentialDecay", [learning_rate, global_step, decay_steps, decay_rate]) as scope:
        lr, step, dtype = _step_and_rate(learning_rate, global_step, "exponential decay")
        p = step / math_ops.cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(lr, math_ops.pow(math_ops.cast(decay_rate, dtype), p), name=scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``."""
    with ops.name_scope(name, "NaturalExpDecay", [learning_rate, global_step, decay_rate]) as scope:
        lr, step, dtype = _step_and_rate(learning_rate, global_step, "natural exp decay")
        p = step / math_ops.cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(lr, math_ops.exp(-math_ops.cast(decay_rate, dtype) * p), name=scope)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``."""
    with ops.name_scope(name, "InverseTimeDecay", [learning_rate, global_step, decay_rate]) as scope:
        lr, step, dtype = _step_and_rate(learning_rate, global_step, "inverse time decay")
        p = step / math_ops.cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
        return math_ops.divide(lr, 1 + math_ops.cast(decay_rate, dtype) * p, name=scope)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0,
                     cycle=False, name=None):
    """From ``learning_rate`` to ``end_learning_rate`` over ``decay_steps`` along ``(1 - t) ** power``.

    With ``cycle`` the horizon grows to the next multiple of ``decay_steps``; without it
    the rate stays at ``end_learning_rate`` after ``decay_steps``.
    """
    with ops.name_scope(name, "PolynomialDecay", [learning_rate, global_step, decay_steps]) as scope:
        lr, step, dtype = _step_and_rate(learning_rate, global_step, "polynomial decay")
        steps = math_ops.cast(decay_steps, dtype)
        end = math_ops.cast(end_learning_rate, dtype)
        if cycle:
            multiplier = math_ops.where(math_ops.equal(step, 0), array_ops.ones_like(step),
                                        math_ops.ceil(step / steps))
            steps = steps * multiplier
        else:
            step = math_ops.minimum(step, steps)
        fraction = math_ops.pow(1 - step / steps, math_ops.cast(power, dtype))
        return math_ops.add((lr - end) * fraction, end, name=scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """``learning_rate * ((1 - alpha) * (1 + cos(pi * min(step, decay_steps) / decay_steps)) / 2 + alpha)``."""
    with ops.name_scope(name, "CosineDecay", [learning_rate, global_step]) as scope:
        lr, step, dtype = _step_and_rate(learning_rate, global_step, "cosine decay")
        steps = math_ops.cast(decay_steps, dtype)
        fraction = math_ops.minimum(step, steps) / steps
        cosine = 0.5 * (1 + math_ops.cos(math.pi * fraction))
        return math_ops.multiply(lr, (1 - alpha) * cosine + alpha, name=scope)


def piecewise_constant(x, boundaries, values, name=None):
    """``values[0]`` while ``x <= boundaries[0]``, ``values[1]`` up to ``boundaries[1]``, ... ``values[-1]`` after.

    Raises:
      ValueError: ``values`` is not one longer than ``boundaries``, or the values mix dtypes.
    """
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with ops.name_scope(name, "PiecewiseConstant", [x]) as scope:
        x = ops.convert_to_tensor(x)
        values = [ops.convert_to_tensor(v) for v in values]
        dtype = values[0].dtype.base_dtype
        for v in values[1:]:
            if v.dtype.base_dtype != dtype:
                raise ValueError(f"Values must have elements all with the same dtype ({dtype.name} vs "
                                 f"{v.dtype.base_dtype.name}).")
        boundaries = [_boundary(b, x) for b in boundaries]
        result = values[-1]
        # From the last interval back to the first, each boundary overrides what follows it.
        for boundary, value in reversed(list(zip(boundaries, values[:-1]))):
            result = math_ops.where(math_ops.less_equal(x, boundary), value, result)
        return array_ops.identity(result, name=scope)


piecewise_constant_decay = piecewise_constant


def _boundary(b, x):
    """A boundary of ``piecewise_constant`` as a tensor of ``x``'s dtype: int32 ones (Python
    ints) are widened for an int64 step; other mismatches (a float boundary, an int step)
    are a ValueError, as in TF, rather than a comparison made after silent rounding."""
    b = ops.convert_to_tensor(b)
    want = x.dtype.base_dtype
    if b.dtype.base_dtype == want:
        return b
    if b.dtype.base_dtype == dtypes.int32 and want == dtypes.int64:
        return math_ops.cast(b, want)
    raise ValueError(f"Boundaries ({b.dtype.base_dtype.name}) must have the same dtype as x ({want.name}).")


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001, name=None):
    """lr * ((alpha + linear) * cosine + beta) with linear = (decay_steps - step) / decay_steps."""
    with ops.name_scope(name, "LinearCosineDecay", [learning_rate, global_step]) as scope:
        lr, step, dtype = _step_and_rate(learning_rate, global_step, "linear cosine decay")
        steps = math_ops.cast(decay_steps, dtype)
        step = math_ops.minimum(step, steps)
        linear = (steps - step) / steps
        cosine = 0.5 * (1 + math_ops.cos(math.pi * 2 * num_periods * step / steps))
        return math_ops.multiply(lr, (alpha + linear) * cosine + beta, name=scope)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0,
                          name=None):
    """Cosine decay with warm restarts (SGDR): periods grow by ``t_mul``, peaks shrink by ``m_mul``."""
    with ops.name_scope(name, "SGDRDecay", [learning_rate, global_step]) as scope:
        lr, step, dtype = _step_and_rate(learning_rate, global_step, "cosine decay restarts")
        fraction = step / math_ops.cast(first_decay_steps, dtype)
        if t_mul == 1.0:
            i = math_ops.floor(fraction)
            within = fraction - i
        else:
            i = math_ops.floor(math_ops.log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))
            total = (1.0 - math_ops.pow(math_ops.cast(t_mul, dtype), i)) / (1.0 - t_mul)
            within = (fraction - total) / math_ops.pow(math_ops.cast(t_mul, dtype), i)
        peak = math_ops.pow(math_ops.cast(m_mul, dtype), i)
        cosine = 0.5 * peak * (1.0 + math_ops.cos(math.pi * within))
        return math_ops.multiply(lr, (1 - alpha) * cosine + alpha, name=scope)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0, variance_decay=0.55,
                              num_periods=0.5, alpha=0.0, beta=0.001, name=None):
    """linear_cosine_decay with Gaussian noise of variance ``initial_variance / (1 + step) ** variance_decay``."""
    from ..ops import random_ops  # noqa: PLC0415

    with ops.name_scope(name, "NoisyLinearCosineDecay", [learning_rate, global_step]) as scope:
        lr, step, dtype = _step_and_rate(learning_rate, global_step, "noisy linear cosine decay")
        steps = math_ops.cast(decay_steps, dtype)
        step = math_ops.minimum(step, steps)
        linear = (steps - step) / steps
        std = math_ops.sqrt(initial_variance / math_ops.pow(1 + step, variance_decay))
        noisy = linear + random_ops.random_normal([], dtype=dtype) * std
        cosine = 0.5 * (1 + math_ops.cos(math.pi * 2 * num_periods * step / steps))
        return math_ops.multiply(lr, (alpha + noisy) * cosine + beta, name=scope)
