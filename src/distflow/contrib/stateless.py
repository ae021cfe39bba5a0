"""``tf.contrib.stateless``: TF 1.x's stateless random ops, whose numbers depend on a seed
of two integers alone (``tf.random.stateless_*`` in TF 1.13+: ops/stateless_random_ops.py)."""

from ..framework import dtypes
from ..ops import stateless_random_ops as _ops
from ..ops.stateless_random_ops import stateless_multinomial  # noqa: F401


def stateless_random_uniform(shape, seed, dtype=dtypes.float32, name=None):
    """Uniform samples in [0, 1) from ``seed`` (shape [2]) alone."""
    return _ops.stateless_random_uniform(shape, seed, dtype=dtype, name=name)


def stateless_random_normal(shape, seed, dtype=dtypes.float32, name=None):
    """Standard normal samples from ``seed`` alone."""
    return _ops.stateless_random_normal(shape, seed, dtype=dtype, name=name)


def stateless_truncated_normal(shape, seed, dtype=dtypes.float32, name=None):
    """Standard normal samples within two of zero, from ``seed`` alone."""
    return _ops.stateless_truncated_normal(shape, seed, dtype=dtype, name=name)
