"""Stateless random ops (``tf.random.stateless_*``, ``tf.contrib.stateless``): the numbers are
a function of the op's inputs alone, a shape and a seed of two integers, so the same seed
gives the same numbers in every run, session and process, and no op keeps a generator.

Each draw is NumPy's Philox counter-based generator keyed by the seed's two integers (the
algorithm TensorFlow uses too, though its numbers come from its own stream of Philox's
words: the same seed does not give TensorFlow's numbers).
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import constant_shape, make_tensor
from .random_ops import normalized_probabilities, scaled_sample, truncated_standard_normal, uniform_sample

_MASK = (1 << 64) - 1


def _generator(op_type: str, seed) -> np.random.Generator:
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(None, None, f"{op_type}: seed must have shape [2], not {list(seed.shape)}")
    return np.random.Generator(np.random.Philox(key=[int(s) & _MASK for s in seed]))


def _shape(op):
    return constant_shape(op.inputs[0])


def _dtype(op):
    return op._attr("dtype")


@register_op("StatelessRandomUniform", shape=_shape, dtype=_dtype)
def _uniform_kernel(xp, shape, seed, *, dtype):
    return _generator("StatelessRandomUniform", seed).random(shape.tolist(), dtype=np.float64).astype(
        dtype.as_numpy_dtype)


@register_op("StatelessRandomNormal", shape=_shape, dtype=_dtype)
def _normal_kernel(xp, shape, seed, *, dtype):
    return _generator("StatelessRandomNormal", seed).standard_normal(shape.tolist()).astype(dtype.as_numpy_dtype)


@register_op("StatelessTruncatedNormal", shape=_shape, dtype=_dtype)
def _truncated_normal_kernel(xp, shape, seed, *, dtype):
    gen = _generator("StatelessTruncatedNormal", seed)
    return truncated_standard_normal(gen, shape.tolist()).astype(dtype.as_numpy_dtype)


@register_op("StatelessRandomUniformInt", shape=_shape, dtype=lambda op: op.inputs[2].dtype.base_dtype)
def _uniform_int_kernel(xp, shape, seed, minval, maxval):
    if minval >= maxval:
        raise errors.InvalidArgumentError(None, None, f"StatelessRandomUniformInt: Need minval < maxval, got "
                                                      f"{minval} >= {maxval}")
    return _generator("StatelessRandomUniformInt", seed).integers(minval, maxval, size=shape.tolist(),
                                                                   dtype=minval.dtype)


@register_op("StatelessMultinomial", shape=lambda op: TensorShape([op.inputs[0].shape[0], None]),
             dtype=lambda op: op._attr("output_dtype"))
def _multinomial_kernel(xp, logits, num_samples, seed, *, output_dtype):
    gen = _generator("StatelessMultinomial", seed)
    p = normalized_probabilities(logits)
    return np.stack([gen.choice(p.shape[1], size=int(num_samples), p=row) for row in p]).reshape(
        len(p), int(num_samples)).astype(output_dtype.as_numpy_dtype)


for _t in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal", "StatelessRandomUniformInt",
           "StatelessMultinomial"):
    not_differentiable(_t)


def _seed(seed) -> ops.Tensor:
    seed = ops.convert_to_tensor(seed, name="seed")
    if not seed.dtype.base_dtype.is_integer:
        raise TypeError(f"a stateless random op's seed must be int32 or int64, got {seed.dtype.name}")
    if not seed.shape.is_compatible_with(TensorShape([2])):
        raise ValueError(f"a stateless random op's seed must have shape [2], got {seed.shape}")
    return seed


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
    """Normal samples that depend on ``seed`` (shape [2]) alone."""
    return scaled_sample("StatelessRandomNormal", "stateless_random_normal", shape, mean, stddev, dtype, name,
                         more=lambda: [_seed(seed)])


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
    """Normal samples within two standard deviations of the mean, from ``seed`` alone."""
    return scaled_sample("StatelessTruncatedNormal", "stateless_truncated_normal", shape, mean, stddev, dtype, name,
                         more=lambda: [_seed(seed)])


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None):
    """Uniform samples in [minval, maxval) from ``seed`` alone (int32 and int64 need ``maxval``)."""
    return uniform_sample("StatelessRandomUniform", "StatelessRandomUniformInt", "stateless_random_uniform", shape,
                          minval, maxval, dtype, name, more=lambda: [_seed(seed)],
                          int_dtypes=(dtypes.int32, dtypes.int64))


def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64, name=None):
    """``num_samples`` class indices per row of ``logits``, drawn from ``seed`` alone."""
    with ops.name_scope(name, "stateless_multinomial", [logits, seed]):
        return make_tensor("StatelessMultinomial", [ops.convert_to_tensor(logits, name="logits"),
                                                    ops.convert_to_tensor(num_samples, dtype=dtypes.int32),
                                                    _seed(seed)],
                           {"output_dtype": dtypes.as_dtype(output_dtype)}, "StatelessMultinomial")


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """TF 1.15's name for stateless_multinomial."""
    return stateless_multinomial(logits, num_samples, seed, output_dtype=dtype, name=name)
