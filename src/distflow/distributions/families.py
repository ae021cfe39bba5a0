"""The distribution families of ``tf.distributions`` and the KL divergences between two of
one family. Densities are TensorFlow's formulas; a sample draws from distflow's random ops
(``random_normal``, ``random_uniform``, ``random_gamma``, ``multinomial``)."""

from __future__ import annotations

import math

import numpy as np

from .. import (abs as abs_, argmax, betainc, cast, concat, convert_to_tensor, digamma, equal, exp, expand_dims,
                float32, igamma, int32, lbeta, less, lgamma, log, log1p, logical_and, multinomial, nn,
                ones_like, random_gamma, random_normal, random_uniform, reduce_prod, reduce_sum, reshape,
                shape, sign, sqrt, square, squared_difference, stack, transpose, where, zeros, zeros_like)
from .. import erf, greater, greater_equal, logical_or, matrix_diag, one_hot, reduce_all, rsqrt
from ..framework import dtypes
from .distribution import FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED, Distribution, RegisterKL, _sample_shape


def _floats(*values, dtype=None):
    """The parameters as tensors of one floating dtype (the first tensor's, else float32)."""
    if dtype is None:
        dtype = next((dtypes.as_dtype(v.dtype).base_dtype for v in values if hasattr(v, "dtype") and
                      dtypes.as_dtype(v.dtype).is_floating), float32)
    return [convert_to_tensor(v, dtype=dtype) for v in values]


def _nan_where(condition, value, allow_nan_stats: bool):
    if not allow_nan_stats:
        return value
    return where(condition, value, value * float("nan"))


class _LocScale(Distribution):
    """A family of a location and a scale (Normal, Laplace): samples are reparameterized."""

    def __init__(self, loc, scale, validate_args, allow_nan_stats, name):
        self._loc, self._scale = _floats(loc, scale)
        super().__init__(self._loc.dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats,
                         {"loc": loc, "scale": scale}, [self._loc, self._scale], name)

    loc = property(lambda self: self._loc)
    scale = property(lambda self: self._scale)

    def _params(self):
        return [self._loc, self._scale]


class Normal(_LocScale):
    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, name)

    def _sample(self, n, seed):
        noise = random_normal(_sample_shape(n, self.batch_shape_tensor()), dtype=self.dtype, seed=seed)
        return noise * self._scale + self._loc

    def _log_prob(self, x):
        return -0.5 * square((x - self._loc) / self._scale) - (0.5 * math.log(2 * math.pi) + log(self._scale))

    def _cdf(self, x):
        return 0.5 * (1.0 + erf((x - self._loc) / (self._scale * math.sqrt(2.0))))

    def _quantile(self, p):
        from ..ops.special_functions import ndtri  # noqa: PLC0415
        return self._loc + self._scale * ndtri(p)

    def _entropy(self):
        return 0.5 * math.log(2 * math.pi * math.e) + log(self._scale) + zeros_like(self._loc)

    def _mean(self):
        return self._loc * ones_like(self._scale)

    _mode = _mean

    def _variance(self):
        return square(self._scale) * ones_like(self._loc)


class Uniform(Distribution):
    def __init__(self, low=0.0, high=1.0, validate_args=False, allow_nan_stats=True, name="Uniform"):
        self._low, self._high = _floats(low, high)
        super().__init__(self._low.dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats,
                         {"low": low, "high": high}, [self._low, self._high], name)

    low = property(lambda self: self._low)
    high = property(lambda self: self._high)

    def range(self, name="range"):
        return self._high - self._low

    def _params(self):
        return [self._low, self._high]

    def _sample(self, n, seed):
        u = random_uniform(_sample_shape(n, self.batch_shape_tensor()), dtype=self.dtype, seed=seed)
        return self._low + self.range() * u

    def _log_prob(self, x):
        inside = logical_and(greater_equal(x, self._low), less(x, self._high))
        return where(inside, -log(self.range()) + zeros_like(x), zeros_like(x) + float("-inf"))

    def _cdf(self, x):
        from .. import clip_by_value  # noqa: PLC0415

        return clip_by_value((x - self._low) / self.range(), 0.0, 1.0)

    def _entropy(self):
        return log(self.range())

    def _mean(self):
        return (self._low + self._high) / 2.0

    def _variance(self):
        return square(self.range()) / 12.0


def _logits_and_probs(logits, probs, multidimensional: bool):
    if (logits is None) == (probs is None):
        raise ValueError("Must pass probs or logits, but not both.")
    if logits is not None:
        logits = convert_to_tensor(logits)
        if not logits.dtype.is_floating:
            logits = cast(logits, float32)
        probs = nn.softmax(logits) if multidimensional else nn.sigmoid(logits)
    else:
        probs = convert_to_tensor(probs)
        if not probs.dtype.is_floating:
            probs = cast(probs, float32)
        logits = log(probs) if multidimensional else log(probs) - log1p(-probs)
    return logits, probs


class Bernoulli(Distribution):
    def __init__(self, logits=None, probs=None, dtype=int32, validate_args=False, allow_nan_stats=True,
                 name="Bernoulli"):
        self._logits, self._probs = _logits_and_probs(logits, probs, False)
        super().__init__(dtypes.as_dtype(dtype), NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         {"logits": logits, "probs": probs, "dtype": dtype}, [self._logits], name)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def _params(self):
        return [self._logits]

    def _value_dtype(self):
        return None

    def _sample(self, n, seed):
        u = random_uniform(_sample_shape(n, self.batch_shape_tensor()), dtype=self._probs.dtype, seed=seed)
        return cast(less(u, self._probs), self.dtype)

    def _log_prob(self, x):
        x = cast(x, self._logits.dtype)
        logits = self._logits + zeros_like(x)
        return -nn.sigmoid_cross_entropy_with_logits(labels=x + zeros_like(logits), logits=logits)

    def _entropy(self):
        return -self._logits * (nn.sigmoid(self._logits) - 1.0) + nn.softplus(-self._logits)

    def _mean(self):
        return self._probs

    def _variance(self):
        return self._probs * (1.0 - self._probs)

    def _mode(self):
        return cast(greater(self._probs, 0.5), self.dtype)


class Categorical(Distribution):
    """Over the classes 0..K-1 of ``logits`` (or ``probs``) [..., K]; the batch is the rest."""

    def __init__(self, logits=None, probs=None, dtype=int32, validate_args=False, allow_nan_stats=True,
                 name="Categorical"):
        self._logits, self._probs = _logits_and_probs(logits, probs, True)
        super().__init__(dtypes.as_dtype(dtype), NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         {"logits": logits, "probs": probs, "dtype": dtype}, [self._logits], name)

    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    @property
    def event_size(self):
        return shape(self._logits)[-1]

    def _params(self):
        return [self._logits]

    @property
    def batch_shape(self):
        return self._logits.shape[:-1]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        return shape(self._logits)[:-1]

    def _value_dtype(self):
        return None

    def _sample(self, n, seed):
        flat = reshape(self._logits, stack([-1, self.event_size]))
        draws = multinomial(flat, reduce_prod(n), seed=seed)  # [batch, draws]
        return cast(reshape(transpose(draws), _sample_shape(n, self.batch_shape_tensor())), self.dtype)

    def _log_prob(self, k):
        k = cast(k, int32)
        k = k + zeros(self.batch_shape_tensor(), int32)  # (broadcast: samples against the batch)
        logits = self._logits + expand_dims(zeros_like(cast(k, self._logits.dtype)), -1)
        flat = reshape(logits, stack([-1, self.event_size]))
        out = -nn.sparse_softmax_cross_entropy_with_logits(labels=reshape(k, [-1]), logits=flat)
        return reshape(out, shape(k))

    def _entropy(self):
        return -reduce_sum(nn.softmax(self._logits) * nn.log_softmax(self._logits), -1)

    def _mode(self):
        return cast(argmax(self._logits, -1), self.dtype)

    def _mean(self):
        self._not_defined("mean")

    def _variance(self):
        self._not_defined("variance")


class Gamma(Distribution):
    """Shape ``concentration`` and inverse scale ``rate``."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True, name="Gamma"):
        self._concentration, self._rate = _floats(concentration, rate)
        super().__init__(self._concentration.dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         {"concentration": concentration, "rate": rate}, [self._concentration, self._rate], name)

    concentration = property(lambda self: self._concentration)
    rate = property(lambda self: self._rate)

    def _params(self):
        return [self._concentration, self._rate]

    def _sample(self, n, seed):
        zero = zeros_like(self._param_sum())
        return random_gamma(n, self._concentration + zero, self._rate + zero, dtype=self.dtype, seed=seed)

    def _log_prob(self, x):
        a, b = self._concentration, self._rate
        return (a - 1.0) * log(x) - b * x + a * log(b) - lgamma(a)

    def _cdf(self, x):
        return igamma(self._concentration + zeros_like(x), self._rate * x)

    def _entropy(self):
        a, b = self._concentration, self._rate
        return a - log(b) + lgamma(a) + (1.0 - a) * digamma(a)

    def _mean(self):
        return self._concentration / self._rate

    def _variance(self):
        return self._concentration / square(self._rate)

    def _mode(self):
        return _nan_where(greater(self._concentration, 1.0), (self._concentration - 1.0) / self._rate,
                          self.allow_nan_stats)


class Exponential(Gamma):
    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        (rate,) = _floats(rate)
        super().__init__(ones_like(rate), rate, validate_args, allow_nan_stats, name)
        self._parameters = {"rate": rate}


class Laplace(_LocScale):
    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        super().__init__(loc, scale, validate_args, allow_nan_stats, name)

    def _sample(self, n, seed):
        tiny = np.finfo(self.dtype.as_numpy_dtype).tiny
        u = random_uniform(_sample_shape(n, self.batch_shape_tensor()), minval=-1.0 + tiny, maxval=1.0,
                           dtype=self.dtype, seed=seed)
        return self._loc - self._scale * sign(u) * log1p(-abs_(u))

    def _log_prob(self, x):
        return -math.log(2.0) - log(self._scale) - abs_(x - self._loc) / self._scale

    def _cdf(self, x):
        z = (x - self._loc) / self._scale
        return 0.5 + 0.5 * sign(z) * (1.0 - exp(-abs_(z)))

    def _entropy(self):
        return math.log(2.0) + 1.0 + log(self._scale) + zeros_like(self._loc)

    def _mean(self):
        return self._loc + zeros_like(self._scale)

    _mode = _mean

    def _variance(self):
        return 2.0 * square(self._scale) + zeros_like(self._loc)


class Beta(Distribution):
    def __init__(self, concentration1=None, concentration0=None, validate_args=False, allow_nan_stats=True,
                 name="Beta"):
        self._c1, self._c0 = _floats(concentration1, concentration0)
        super().__init__(self._c1.dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         {"concentration1": concentration1, "concentration0": concentration0}, [self._c1, self._c0],
                         name)

    concentration1 = property(lambda self: self._c1)
    concentration0 = property(lambda self: self._c0)

    @property
    def total_concentration(self):
        return self._c1 + self._c0

    def _params(self):
        return [self._c1, self._c0]

    def _lbeta(self):
        zero = zeros_like(self._param_sum())
        return lbeta(stack([self._c1 + zero, self._c0 + zero], -1))

    def _sample(self, n, seed):
        zero = zeros_like(self._param_sum())
        g1 = random_gamma(n, self._c1 + zero, dtype=self.dtype, seed=seed)
        g0 = random_gamma(n, self._c0 + zero, dtype=self.dtype, seed=None if seed is None else seed + 1)
        return g1 / (g1 + g0)

    def _log_prob(self, x):
        return (self._c1 - 1.0) * log(x) + (self._c0 - 1.0) * log1p(-x) - self._lbeta()

    def _cdf(self, x):
        zero = zeros_like(x) + zeros_like(self._param_sum())
        return betainc(self._c1 + zero, self._c0 + zero, x + zero)

    def _entropy(self):
        a, b = self._c1, self._c0
        return self._lbeta() - (a - 1.0) * digamma(a) - (b - 1.0) * digamma(b) + (a + b - 2.0) * digamma(a + b)

    def _mean(self):
        return self._c1 / self.total_concentration

    def _variance(self):
        total = self.total_concentration
        return self._c1 * self._c0 / (square(total) * (total + 1.0))

    def _mode(self):
        mode = (self._c1 - 1.0) / (self.total_concentration - 2.0)
        return _nan_where(logical_and(greater(self._c1, 1.0), greater(self._c0, 1.0)), mode, self.allow_nan_stats)


class Dirichlet(Distribution):
    """Over the simplex of ``concentration``'s last axis (the event, of size K)."""

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True, name="Dirichlet"):
        (self._concentration,) = _floats(concentration)
        super().__init__(self._concentration.dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         {"concentration": concentration}, [self._concentration], name)

    concentration = property(lambda self: self._concentration)

    @property
    def total_concentration(self):
        return reduce_sum(self._concentration, -1)

    def _params(self):
        return [self._concentration]

    def _event_ndims(self) -> int:
        return 1

    def _sample(self, n, seed):
        g = random_gamma(n, self._concentration, dtype=self.dtype, seed=seed)
        return g / reduce_sum(g, -1, keepdims=True)

    def _log_prob(self, x):
        return reduce_sum((self._concentration - 1.0) * log(x), -1) - lbeta(self._concentration)

    def _entropy(self):
        k = cast(shape(self._concentration)[-1], self.dtype)
        total = self.total_concentration
        return (lbeta(self._concentration) + (total - k) * digamma(total)
                - reduce_sum((self._concentration - 1.0) * digamma(self._concentration), -1))

    def _mean(self):
        return self._concentration / expand_dims(self.total_concentration, -1)

    def _variance(self):
        total = expand_dims(self.total_concentration, -1)
        return self._concentration * (total - self._concentration) / (square(total) * (total + 1.0))

    def _covariance(self):
        mean = self._mean()
        scale = expand_dims(expand_dims(self.total_concentration + 1.0, -1), -1)
        return (matrix_diag(mean) - expand_dims(mean, -1) * expand_dims(mean, -2)) / scale

    def _mode(self):
        k = cast(shape(self._concentration)[-1], self.dtype)
        mode = (self._concentration - 1.0) / expand_dims(self.total_concentration - k, -1)
        # (as TF's: the whole mode is NaN unless every concentration is above 1)
        ok = reduce_all(greater(self._concentration, 1.0), -1, keepdims=True)
        return _nan_where(logical_and(ok, ones_like(mode) > 0), mode, self.allow_nan_stats)


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True, name="StudentT"):
        self._df, self._loc, self._scale = _floats(df, loc, scale)
        super().__init__(self._df.dtype, FULLY_REPARAMETERIZED, validate_args, allow_nan_stats,
                         {"df": df, "loc": loc, "scale": scale}, [self._df, self._loc, self._scale], name)

    df = property(lambda self: self._df)
    loc = property(lambda self: self._loc)
    scale = property(lambda self: self._scale)

    def _params(self):
        return [self._df, self._loc, self._scale]

    def _sample(self, n, seed):
        batch = _sample_shape(n, self.batch_shape_tensor())
        normal = random_normal(batch, dtype=self.dtype, seed=seed)
        half = 0.5 * self._df + zeros_like(self._param_sum())
        gamma = random_gamma(n, half, half, dtype=self.dtype, seed=seed)
        return self._loc + self._scale * normal * rsqrt(gamma)

    def _log_prob(self, x):
        y = (x - self._loc) / self._scale
        half = 0.5 * self._df
        return (lgamma(half + 0.5) - lgamma(half) - 0.5 * log(self._df) - 0.5 * math.log(math.pi)
                - log(abs_(self._scale)) - (half + 0.5) * log1p(square(y) / self._df))

    def _cdf(self, x):
        y = (x - self._loc) / self._scale
        below = 0.5 * betainc(0.5 * self._df + zeros_like(y), 0.5 + zeros_like(y), self._df / (square(y) + self._df))
        return where(less(y, 0.0), below, 1.0 - below)

    def _entropy(self):
        half = 0.5 * self._df + zeros_like(self._param_sum())
        beta = lgamma(half) + lgamma(0.5 + zeros_like(half)) - lgamma(half + 0.5)
        return ((half + 0.5) * (digamma(half + 0.5) - digamma(half)) + 0.5 * log(self._df) + beta
                + log(abs_(self._scale)))

    def _mean(self):
        mean = self._loc + zeros_like(self._param_sum())
        return _nan_where(greater(self._df + zeros_like(mean), 1.0), mean, self.allow_nan_stats)

    def _mode(self):
        return self._loc  # (of loc's own shape, as TF's)

    def _variance(self):
        df = self._df + zeros_like(self._param_sum())
        finite = square(self._scale) * df / (df - 2.0)
        # (infinite for 1 < df <= 2, undefined at and below 1)
        wide = where(greater(df, 2.0), finite, zeros_like(finite) + float("inf"))
        return _nan_where(greater(df, 1.0), wide, self.allow_nan_stats)


class Multinomial(Distribution):
    """Counts of ``total_count`` draws over the classes of ``logits`` (or ``probs``) [..., K]."""

    def __init__(self, total_count, logits=None, probs=None, validate_args=False, allow_nan_stats=True,
                 name="Multinomial"):
        self._logits, self._probs = _logits_and_probs(logits, probs, True)
        (self._total_count,) = _floats(total_count, dtype=self._logits.dtype)
        super().__init__(self._logits.dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         {"total_count": total_count, "logits": logits, "probs": probs},
                         [self._total_count, self._logits], name)

    total_count = property(lambda self: self._total_count)
    logits = property(lambda self: self._logits)
    probs = property(lambda self: self._probs)

    def _params(self):
        return [self._logits]

    def _event_ndims(self) -> int:
        return 1

    def _log_prob(self, counts):
        counts = cast(counts, self.dtype)
        return (lgamma(self._total_count + 1.0) - reduce_sum(lgamma(counts + 1.0), -1)
                + reduce_sum(counts * nn.log_softmax(self._logits), -1))

    def _sample(self, n, seed):
        from ..framework.ops import convert_to_tensor as to_tensor  # noqa: PLC0415
        from ..ops.op_util import constant_value  # noqa: PLC0415
        draws_count = constant_value(to_tensor(self._total_count))
        if draws_count is None or np.ndim(draws_count) != 0:
            raise NotImplementedError("Multinomial.sample needs a total_count known when the graph is built, and "
                                      "one for the whole batch")
        k = self._logits.shape[-1].value
        flat = reshape(self._logits, [-1, k])
        samples = reduce_prod(n)
        draws = multinomial(flat, samples * int(draws_count), seed=seed)  # [batch, samples * total]
        counts = reduce_sum(one_hot(reshape(draws, stack([-1, samples, int(draws_count)])), k, dtype=self.dtype), -2)
        return reshape(transpose(counts, [1, 0, 2]), concat([n, shape(self._logits)], 0))

    def _mean(self):
        return expand_dims(self._total_count, -1) * nn.softmax(self._logits)

    def _variance(self):
        p = nn.softmax(self._logits)
        return expand_dims(self._total_count, -1) * p * (1.0 - p)

    def _covariance(self):
        p = nn.softmax(self._logits)
        n = expand_dims(expand_dims(self._total_count, -1), -1)
        return n * (matrix_diag(p) - expand_dims(p, -1) * expand_dims(p, -2))


class DirichletMultinomial(Distribution):
    """Counts of ``total_count`` draws over K classes whose probabilities are themselves drawn
    from ``Dirichlet(concentration)`` ([..., K]), once per sample: overdispersed counts."""

    def __init__(self, total_count, concentration, validate_args=False, allow_nan_stats=True,
                 name="DirichletMultinomial"):
        self._total_count, self._concentration = _floats(total_count, concentration)
        super().__init__(self._concentration.dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         {"total_count": total_count, "concentration": concentration},
                         [self._total_count, self._concentration], name)

    total_count = property(lambda self: self._total_count)
    concentration = property(lambda self: self._concentration)

    @property
    def total_concentration(self):
        return reduce_sum(self._concentration, -1)

    def _params(self):
        return [self._concentration, expand_dims(self._total_count, -1)]

    def _event_ndims(self) -> int:
        return 1

    def _log_prob(self, counts):
        counts = cast(counts, self.dtype)
        return (lbeta(self._concentration + counts) - lbeta(self._concentration) + lgamma(self._total_count + 1.0)
                - reduce_sum(lgamma(counts + 1.0), -1))

    def _sample(self, n, seed):
        # each sample's class probabilities from the Dirichlet, then its counts from them
        probs = Dirichlet(self._concentration * ones_like(expand_dims(self._total_count, -1))).sample(n, seed=seed)
        return Multinomial(self._total_count, logits=log(probs))._sample(convert_to_tensor([], dtype=int32),
                                                                         None if seed is None else seed + 1)

    def _mean(self):
        return expand_dims(self._total_count, -1) * self._concentration / expand_dims(self.total_concentration, -1)

    def _dispersion(self):
        total = self.total_concentration
        return (self._total_count + total) / (1.0 + total)

    def _variance(self):
        p = self._concentration / expand_dims(self.total_concentration, -1)
        return expand_dims(self._total_count * self._dispersion(), -1) * p * (1.0 - p)

    def _covariance(self):
        p = self._concentration / expand_dims(self.total_concentration, -1)
        scale = expand_dims(expand_dims(self._total_count * self._dispersion(), -1), -1)
        return scale * (matrix_diag(p) - expand_dims(p, -1) * expand_dims(p, -2))


# -- KL divergences -------------------------------------------------------------------------

@RegisterKL(Normal, Normal)
def _kl_normal(a, b, name=None):
    ratio = square(a.scale) / square(b.scale)
    return squared_difference(a.loc, b.loc) / (2.0 * square(b.scale)) + 0.5 * (ratio - 1.0 - log(ratio))


@RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli(a, b, name=None):
    delta0 = nn.softplus(-b.logits) - nn.softplus(-a.logits)
    delta1 = nn.softplus(b.logits) - nn.softplus(a.logits)
    return nn.sigmoid(a.logits) * delta0 + nn.sigmoid(-a.logits) * delta1


@RegisterKL(Categorical, Categorical)
def _kl_categorical(a, b, name=None):
    return reduce_sum(nn.softmax(a.logits) * (nn.log_softmax(a.logits) - nn.log_softmax(b.logits)), -1)


@RegisterKL(Gamma, Gamma)
def _kl_gamma(a, b, name=None):
    return ((a.concentration - b.concentration) * digamma(a.concentration) + lgamma(b.concentration)
            - lgamma(a.concentration) + b.concentration * (log(a.rate) - log(b.rate))
            + a.concentration * (b.rate / a.rate - 1.0))


@RegisterKL(Beta, Beta)
def _kl_beta(a, b, name=None):
    return (b._lbeta() - a._lbeta() + (a.concentration1 - b.concentration1) * digamma(a.concentration1)
            + (a.concentration0 - b.concentration0) * digamma(a.concentration0)
            + (b.total_concentration - a.total_concentration) * digamma(a.total_concentration))


@RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet(a, b, name=None):
    total_a = a.total_concentration
    return (lgamma(total_a) - reduce_sum(lgamma(a.concentration), -1) - lgamma(b.total_concentration)
            + reduce_sum(lgamma(b.concentration), -1)
            + reduce_sum((a.concentration - b.concentration)
                         * (digamma(a.concentration) - expand_dims(digamma(total_a), -1)), -1))
