"""``tf.contrib.layers``' initializers: variance scaling (He's by default) and Xavier's."""

from __future__ import annotations

import math

from ..framework import dtypes
from ..ops import init_ops, random_ops


class _VarianceScaling(init_ops.Initializer):
    def __init__(self, factor, mode, uniform, seed, dtype):
        if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
            raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        self.factor, self.mode, self.uniform, self.seed, self.dtype = float(factor), mode, uniform, seed, dtype

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype)
        if not dtype.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        shape = [int(d) for d in shape]
        fan_in = float(shape[-2] if len(shape) > 1 else shape[-1]) if shape else 1.0
        fan_out = float(shape[-1]) if shape else 1.0
        for dim in shape[:-2]:
            fan_in *= dim
            fan_out *= dim
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[self.mode]
        if self.uniform:
            limit = math.sqrt(3.0 * self.factor / n)
            return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)
        return random_ops.truncated_normal(shape, 0.0, math.sqrt(1.3 * self.factor / n), dtype, seed=self.seed)


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=dtypes.float32):
    """contrib's variance scaling (He's by default): a truncated normal of stddev
    sqrt(1.3 * factor / n), or a uniform within sqrt(3 * factor / n), n the fan by ``mode``."""
    return _VarianceScaling(factor, mode, uniform, seed, dtype)


def xavier_initializer(uniform=True, seed=None, dtype=dtypes.float32):
    """Glorot and Bengio's initialization (variance scaling by the fans' mean, factor 1)."""
    return variance_scaling_initializer(1.0, "FAN_AVG", uniform, seed, dtype)


xavier_initializer_conv2d = xavier_initializer
