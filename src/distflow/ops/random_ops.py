"""Random ops, reproducible under graph-level and op-level seeds.

Each random op owns a generator per session, seeded from its (seed, seed2) attrs:
every run draws new numbers, and a new session replays the same sequence, as in
TensorFlow. With no seed at all the generator takes fresh entropy.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, ops
from ..framework.random_seed import get_seed
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .array_ops import shape_tensor, zeros_like
from .math_ops import add, cast, multiply, subtract
from .op_util import FLOATS, constant_shape, make_tensor



def seeded_generator(ctx, seed: int, seed2: int) -> np.random.Generator:
    gen = ctx.state.get("generator")
    if gen is None:
        entropy = None if seed == 0 and seed2 == 0 else [seed, seed2]
        gen = ctx.state["generator"] = np.random.Generator(np.random.PCG64(entropy))
    return gen


def _draw(sample, shape, dtype):
    np_dtype = dtype.as_numpy_dtype
    if np_dtype in (np.float32, np.float64):
        return sample(shape.tolist(), dtype=np_dtype)
    return sample(shape.tolist(), dtype=np.float32).astype(np_dtype)


def _random_shape(op):
    return constant_shape(op.inputs[0])


def _random_dtype(op):
    return op._attr("dtype")


@register_op("RandomStandardNormal", shape=_random_shape, dtype=_random_dtype, stateful=True)
def _random_normal_kernel(ctx, shape, *, dtype, seed, seed2):
    return _draw(seeded_generator(ctx, seed, seed2).standard_normal, shape, dtype)


def truncated_standard_normal(gen: np.random.Generator, shape) -> np.ndarray:
    """Standard normal samples, each more than 2 from 0 drawn again (as TF's)."""
    out = gen.standard_normal(shape)
    bad = np.abs(out) > 2.0
    while bad.any():
        out[bad] = gen.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2.0
    return out


@register_op("TruncatedNormal", shape=_random_shape, dtype=_random_dtype, stateful=True)
def _truncated_normal_kernel(ctx, shape, *, dtype, seed, seed2):
    return truncated_standard_normal(seeded_generator(ctx, seed, seed2), shape.tolist()).astype(dtype.as_numpy_dtype)


@register_op("RandomUniform", shape=_random_shape, dtype=_random_dtype, stateful=True)
def _random_uniform_kernel(ctx, shape, *, dtype, seed, seed2):
    return _draw(seeded_generator(ctx, seed, seed2).random, shape, dtype)


@register_op("RandomUniformInt", shape=_random_shape, dtype=lambda op: op.inputs[1].dtype.base_dtype,
             stateful=True)
def _random_uniform_int_kernel(ctx, shape, minval, maxval, *, seed, seed2):
    if minval >= maxval:
        raise ValueError(f"Need minval < maxval, got {minval} >= {maxval}")
    return seeded_generator(ctx, seed, seed2).integers(minval, maxval, size=shape.tolist(), dtype=minval.dtype)


for _t in ("RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomUniformInt"):
    not_differentiable(_t)


def seed_attrs(seed) -> dict:
    seed, seed2 = get_seed(seed)
    return {"seed": seed or 0, "seed2": seed2 or 0}


def float_dtype(dtype, fn: str) -> dtypes.DType:
    dtype = dtypes.as_dtype(dtype).base_dtype  # (a ref variable's dtype, float32_ref, names float32)
    if dtype not in FLOATS:
        raise TypeError(f"{fn} needs a floating dtype, got {dtype.name}")
    return dtype


def scaled_sample(op_type, fn, shape, mean, stddev, dtype, name, more=lambda: [], attrs=dict) -> ops.Tensor:
    """``mean + stddev * sample``: ``op_type``'s standard sample of ``shape`` (its inputs the shape
    and ``more()``, made in the op's name scope; its attrs the dtype and ``attrs()``, asked for
    as the op is made: an op seed derived from the graph depends on when)."""
    dtype = float_dtype(dtype, fn)
    with ops.name_scope(name, fn, [shape]) as scope:
        shape_t = shape_tensor(shape)
        sample = make_tensor(op_type, [shape_t, *more()], {"dtype": dtype, **attrs()}, op_type)
        stddev_t = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        mean_t = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        return add(multiply(sample, stddev_t), mean_t, name=scope)


def uniform_sample(float_op, int_op, fn, shape, minval, maxval, dtype, name, more=lambda: [], attrs=dict,
                   int_dtypes=None) -> ops.Tensor:
    """Samples in [minval, maxval): ``int_op``'s for an integer dtype (of ``int_dtypes``, if
    given), else ``float_op``'s in [0, 1) scaled; the ops' inputs the shape and ``more()``."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    with ops.name_scope(name, fn, [shape]) as scope:
        shape_t, extra = shape_tensor(shape), more()
        if dtype.is_integer and (int_dtypes is None or dtype in int_dtypes):
            if maxval is None:
                raise ValueError(f"Must specify maxval for integer dtype {dtype.name}")
            lo = ops.convert_to_tensor(minval, dtype=dtype, name="min")
            hi = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
            return make_tensor(int_op, [shape_t, *extra, lo, hi], attrs(), scope)
        dtype = float_dtype(dtype, fn)
        lo = ops.convert_to_tensor(minval, dtype=dtype, name="min")
        hi = ops.convert_to_tensor(1 if maxval is None else maxval, dtype=dtype, name="max")
        sample = make_tensor(float_op, [shape_t, *extra], {"dtype": dtype, **attrs()}, float_op)
        return add(multiply(sample, subtract(hi, lo)), lo, name=scope)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None) -> ops.Tensor:
    """Samples from a normal distribution."""
    return scaled_sample("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype, name,
                         attrs=lambda: seed_attrs(seed))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None) -> ops.Tensor:
    """Samples from a normal distribution, redrawing those more than 2 stddevs out."""
    return scaled_sample("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype, name,
                         attrs=lambda: seed_attrs(seed))


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None) -> ops.Tensor:
    """Samples uniformly from [minval, maxval) (maxval defaults to 1 for floats)."""
    return uniform_sample("RandomUniform", "RandomUniformInt", "random_uniform", shape, minval, maxval, dtype, name,
                          attrs=lambda: seed_attrs(seed))


@register_op("RandomShuffle", shape=lambda op: op.inputs[0].shape, stateful=True)
def _random_shuffle_kernel(ctx, value, *, seed, seed2):
    if value.ndim == 0:
        return value
    return value[seeded_generator(ctx, seed, seed2).permutation(value.shape[0])]


not_differentiable("RandomShuffle")


def random_shuffle(value, seed=None, name=None) -> ops.Tensor:
    """``value`` with its rows (dimension 0) in a random order."""
    value = ops.convert_to_tensor(value)
    return make_tensor("RandomShuffle", [value], seed_attrs(seed), name or "RandomShuffle")


def _shape_then_param(op):
    return constant_shape(op.inputs[0]).concatenate(op.inputs[1].shape)


@register_op("RandomGamma", shape=_shape_then_param, dtype=lambda op: op.inputs[1].dtype.base_dtype, stateful=True)
def _random_gamma_kernel(ctx, shape, alpha, *, seed, seed2):
    size = tuple(int(d) for d in shape) + alpha.shape
    return seeded_generator(ctx, seed, seed2).standard_gamma(np.broadcast_to(alpha, size)).astype(alpha.dtype)


@register_op("RandomPoissonV2", shape=_shape_then_param, dtype=_random_dtype, stateful=True)
def _random_poisson_kernel(ctx, shape, rate, *, dtype, seed, seed2):
    size = tuple(int(d) for d in shape) + rate.shape
    return seeded_generator(ctx, seed, seed2).poisson(np.broadcast_to(rate, size)).astype(dtype.as_numpy_dtype)


for _t in ("RandomGamma", "RandomPoissonV2"):
    not_differentiable(_t)


def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None) -> ops.Tensor:
    """Samples of Gamma(alpha, rate=beta), of shape ``shape + broadcast(alpha, beta).shape``."""
    dtype = float_dtype(dtype, "random_gamma")
    with ops.name_scope(name, "random_gamma", [shape, alpha, beta]):
        alpha = ops.convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta = ops.convert_to_tensor(1.0 if beta is None else beta, dtype=dtype, name="beta")
        alpha = alpha + zeros_like(beta)
        sample = make_tensor("RandomGamma", [shape_tensor(shape), alpha], seed_attrs(seed), "RandomGamma")
        return sample / beta


def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None) -> ops.Tensor:
    """Samples of Poisson(lam), of shape ``shape + lam.shape``."""
    lam = ops.convert_to_tensor(lam)
    if not lam.dtype.base_dtype.is_floating:
        lam = cast(lam, dtypes.float32)
    return make_tensor("RandomPoissonV2", [shape_tensor(shape), lam], {"dtype": dtypes.as_dtype(dtype),
                                                                         **seed_attrs(seed)},
                       name or "random_poisson")


def random_crop(value, size, seed=None, name=None):
    """A random slice of ``value`` of shape ``size`` (the same offset drawn for every dimension at once)."""
    from . import array_ops, slicing_ops  # noqa: PLC0415 - (they build on this module's neighbours)

    with ops.name_scope(name, "random_crop", [value, size]):
        value = ops.convert_to_tensor(value)
        size = ops.convert_to_tensor(size, dtype=dtypes.int32)
        limit = array_ops.shape(value) - size + 1
        offset = random_uniform(array_ops.shape(limit), dtype=dtypes.int32, maxval=dtypes.int32.max,
                                           seed=seed) % limit
        return slicing_ops.slice(value, offset, size)


def normalized_probabilities(logits) -> np.ndarray:
    """The softmax of each row of ``logits``, in float64 (what a draw of classes needs)."""
    logits = np.asarray(logits, dtype=np.float64)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


@register_op("Multinomial", shape=lambda op: TensorShape([op.inputs[0].shape[0], None]),
             dtype=lambda op: op._attr("output_dtype"), stateful=True)
def _multinomial_kernel(ctx, logits, num_samples, *, seed, seed2, output_dtype):
    gen = seeded_generator(ctx, seed, seed2)
    p = normalized_probabilities(logits)
    n = int(num_samples)
    return np.stack([gen.choice(p.shape[1], size=n, p=row) for row in p]).astype(output_dtype.as_numpy_dtype)


not_differentiable("Multinomial")


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """``num_samples`` class indices per row, drawn from the softmax of ``logits`` [batch, classes]."""
    logits = ops.convert_to_tensor(logits)
    attrs = {**seed_attrs(seed), "output_dtype": dtypes.as_dtype(output_dtype or dtypes.int64)}
    return make_tensor("Multinomial", [logits, ops.convert_to_tensor(num_samples, dtype=dtypes.int32)], attrs,
                       name or "Multinomial")
