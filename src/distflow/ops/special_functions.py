"""Incomplete gamma and beta functions, the Hurwitz zeta function and polygamma.

Evaluated element by element in float64 with the classic series and continued fractions
(Numerical Recipes, ch. 6) and the Euler-Maclaurin formula for zeta, then cast to the
input's dtype. Gradients are those TensorFlow defines: with respect to ``x`` of igamma,
igammac and betainc, ``q`` of zeta and ``x`` of polygamma; ``a`` of igamma/igammac has none
here (TF 1.x computes one), so ``tf.gradients`` gives None for it.
"""

from __future__ import annotations

import math

import numpy as np

from ..framework import ops
from ..framework.registry import register_gradient, register_op
from .array_ops import unbroadcast
from .array_ops import ones_like
from .math_ops import abs as abs_
from .math_ops import equal, exp, log, sign, where
from .op_util import broadcast_shape, make_tensor, same_dtype_inputs
from .reduction_ops import reduce_sum

_EPS = 1e-15
_TINY = 1e-300
_ITERATIONS = 500


def _gamma_series(a: float, x: float) -> float:
    """P(a, x) by its power series (converges fast for x < a + 1)."""
    term = total = 1.0 / a
    ap = a
    for _ in range(_ITERATIONS):
        ap += 1.0
        term *= x / ap
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_fraction(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction (for x >= a + 1), modified Lentz's method."""
    b = x + 1.0 - a
    c, d = 1.0 / _TINY, 1.0 / b
    h = d
    for i in range(1, _ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def _igamma(a: float, x: float) -> float:
    if a <= 0 or x < 0 or math.isnan(a) or math.isnan(x):
        return math.nan
    if x == 0:
        return 0.0
    if math.isinf(x):
        return 1.0
    return _gamma_series(a, x) if x < a + 1.0 else 1.0 - _gamma_fraction(a, x)


def _igammac(a: float, x: float) -> float:
    if a <= 0 or x < 0 or math.isnan(a) or math.isnan(x):
        return math.nan
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    return 1.0 - _gamma_series(a, x) if x < a + 1.0 else _gamma_fraction(a, x)


def _beta_fraction(a: float, b: float, x: float) -> float:
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (_TINY if abs(d) < _TINY else d)
    h = d
    for m in range(1, _ITERATIONS):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (_TINY if abs(d) < _TINY else d)
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (_TINY if abs(d) < _TINY else d)
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    if a <= 0 or b <= 0 or not 0.0 <= x <= 1.0:
        return math.nan
    if x in (0.0, 1.0):
        return x
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


# B_2j / (2j)! for the Euler-Maclaurin tail of the Hurwitz zeta function
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510]
_TAIL = [b / math.factorial(2 * (j + 1)) for j, b in enumerate(_BERNOULLI)]


def _zeta(x: float, q: float) -> float:
    """sum_k (q + k)^-x, the Hurwitz zeta function (x > 1, q > 0)."""
    if x == 1.0:
        return math.inf
    if x < 1.0 or q <= 0.0 or math.isnan(x) or math.isnan(q):
        return math.nan
    n = 12
    total = sum((q + k) ** -x for k in range(n))
    w = q + n
    total += w ** (1.0 - x) / (x - 1.0) + 0.5 * w ** -x
    rising = x  # x (x + 1) ... (x + 2j - 2)
    power = w ** (-x - 1.0)
    for j, coefficient in enumerate(_TAIL):
        term = coefficient * rising * power
        total += term
        if abs(term) < abs(total) * _EPS:
            break
        rising *= (x + 2 * j + 1) * (x + 2 * j + 2)
        power /= w * w
    return total


def _polygamma(n: float, x: float) -> float:
    if n != math.floor(n) or n < 0:
        return math.nan
    if n == 0:
        return float(digamma_values(np.array([x]))[0])
    return (-1.0) ** (n + 1) * math.factorial(int(n)) * _zeta(n + 1.0, x)


def _elementwise(fn):
    vectorized = np.vectorize(fn, otypes=[np.float64])

    def kernel(xp, *args):
        out = vectorized(*[np.asarray(a, np.float64) for a in args])
        return np.asarray(out).astype(np.result_type(*args))
    return kernel


def _shape(op):
    shape = op.inputs[0].shape
    for t in op.inputs[1:]:
        shape = broadcast_shape(shape, t.shape)
    return shape


for _op_type, _fn in (("Igamma", _igamma), ("Igammac", _igammac), ("Betainc", _betainc), ("Zeta", _zeta),
                      ("Polygamma", _polygamma)):
    register_op(_op_type, shape=_shape)(_elementwise(_fn))


def _x_density(a, x):
    """d P(a, x) / dx = exp(-x) x^(a-1) / Gamma(a)."""
    return exp(-x + (a - 1.0) * log(x) - lgamma(a))


@register_gradient("Igamma")
def _igamma_grad(op, grad):
    a, x = op.inputs
    return None, unbroadcast(grad * _x_density(a, x), x)


@register_gradient("Igammac")
def _igammac_grad(op, grad):
    a, x = op.inputs
    return None, unbroadcast(-grad * _x_density(a, x), x)


@register_gradient("Betainc")
def _betainc_grad(op, grad):
    a, b, x = op.inputs
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    density = exp((a - 1.0) * log(x) + (b - 1.0) * log(1.0 - x) - log_beta)
    return None, None, unbroadcast(grad * density, x)


@register_gradient("Zeta")
def _zeta_grad(op, grad):
    x, q = op.inputs
    return None, unbroadcast(grad * -x * zeta(x + 1.0, q), q)


@register_gradient("Polygamma")
def _polygamma_grad(op, grad):
    n, x = op.inputs
    return None, unbroadcast(grad * polygamma(n + 1.0, x), x)


def _binary(op_type, x, y, name):
    x, y = same_dtype_inputs(op_type, [x, y])
    if not x.dtype.base_dtype.is_floating:
        raise TypeError(f"'{op_type}' needs floating inputs, got {x.dtype.name}")
    return make_tensor(op_type, [x, y], None, name or op_type)


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function P(a, x)."""
    return _binary("Igamma", a, x, name)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _binary("Igammac", a, x, name)


def zeta(x, q, name=None):
    """The Hurwitz zeta function sum_k (q + k)^-x."""
    return _binary("Zeta", x, q, name)


def polygamma(a, x, name=None):
    """The ``a``-th derivative of digamma at ``x`` (``a`` a non-negative integer value)."""
    return _binary("Polygamma", a, x, name)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b)."""
    a, b, x = same_dtype_inputs("Betainc", [a, b, x], names=("a", "b", "x"))
    if not a.dtype.base_dtype.is_floating:
        raise TypeError(f"'Betainc' needs floating inputs, got {a.dtype.name}")
    return make_tensor("Betainc", [a, b, x], None, name or "Betainc")


# ---------------------------------------------------------------------------
# Lgamma, digamma, lbeta


def _lgamma_one(v: float) -> float:
    """log|Gamma(v)|: +inf at the poles (0, -1, -2...), where Python's math.lgamma raises, as TF's."""
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):
        return math.inf


_lgamma = np.frompyfunc(_lgamma_one, 1, 1)


def digamma_values(x):
    """digamma by recurrence to x >= 10 and the asymptotic series to the x**-14 term (the next
    is below 1e-16 there: float64 to its last bits)."""
    x = np.asarray(x, dtype=np.float64)
    result = np.zeros_like(x)
    while np.any(x < 10):
        small = x < 10
        result = np.where(small, result - 1 / x, result)
        x = np.where(small, x + 1, x)
    inv = 1 / x
    inv2 = inv * inv
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 * (
        1 / 132 - inv2 * (691 / 32760 - inv2 / 12))))))
    return result + np.log(x) - 0.5 * inv - series


@register_op("Lgamma", shape=lambda op: op.inputs[0].shape)
def _lgamma_kernel(xp, x):
    return np.asarray(_lgamma(x)).astype(x.dtype)


@register_op("Digamma", shape=lambda op: op.inputs[0].shape)
def _digamma_kernel(xp, x):
    return np.asarray(digamma_values(x)).astype(x.dtype)


@register_gradient("Lgamma")
def _lgamma_grad(op, g):
    return (g * digamma(op.inputs[0]),)


@register_gradient("Digamma")
def _digamma_grad(op, g):
    x = op.inputs[0]
    return (g * polygamma(ones_like(x), x),)


def lgamma(x, name=None):
    """log(|Gamma(x)|)."""
    return make_tensor("Lgamma", [ops.convert_to_tensor(x)], None, name or "Lgamma")


def digamma(x, name=None):
    """The derivative of lgamma."""
    return make_tensor("Digamma", [ops.convert_to_tensor(x)], None, name or "Digamma")


def lbeta(x, name=None):
    """log|Beta(x)| along the last axis: sum(lgamma(x)) - lgamma(sum(x)) (0 for an empty last axis)."""
    with ops.name_scope(name, "lbeta", [x]):
        x = ops.convert_to_tensor(x)
        return reduce_sum(lgamma(x), -1) - lgamma(reduce_sum(x, -1))


# ---------------------------------------------------------------------------
# The inverse normal distribution function, erfinv, and the modified Bessel functions of
# orders 0 and 1 (exponentially scaled, as tf.math has them)


_erfc = np.frompyfunc(math.erfc, 1, 1)


def ndtri_values(p):
    """The x with Phi(x) = p, in float64: a rational first guess (Abramowitz & Stegun
    26.2.23, |error| < 4.5e-4) sharpened by three Halley steps on Phi(x) - p, solved in the
    lower tail (q = min(p, 1 - p)) so that no step loses digits to cancellation."""
    p = np.asarray(p, np.float64)
    q = np.minimum(p, 1.0 - p)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t = np.sqrt(-2.0 * np.log(np.where(q > 0, q, 1.0)))
        x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
        for _ in range(3):
            error = 0.5 * np.asarray(_erfc(-x / math.sqrt(2.0)), np.float64) - q
            u = error * math.sqrt(2.0 * math.pi) * np.exp(0.5 * x * x)
            x = x - u / (1.0 + 0.5 * x * u)
        x = np.where(p > 0.5, -x, x)
        x = np.where(q == 0, np.where(p > 0.5, np.inf, -np.inf), x)
        x = np.where(p == 0.5, 0.0, x)
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, x)


_erf = np.frompyfunc(math.erf, 1, 1)


def erfinv_values(y):
    """The x with erf(x) = y, in float64: ndtri((1 + |y|) / 2) / sqrt(2) as a first guess,
    then two Newton steps on erf(x) = |y| (on erfc(x) = 1 - |y| near 1, where erf has no
    digits left), which restore what forming 1 + y loses for small |y|."""
    y = np.asarray(y, np.float64)
    a = np.abs(y)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = ndtri_values(0.5 * (1.0 + a)) / math.sqrt(2.0)
        for _ in range(2):
            finite = np.isfinite(x) & (x > 0)
            xs = np.where(finite, x, 1.0)
            error = np.where(a <= 0.5, np.asarray(_erf(xs), np.float64) - a,
                             (1.0 - a) - np.asarray(_erfc(xs), np.float64))
            x = np.where(finite, xs - error * (0.5 * math.sqrt(math.pi)) * np.exp(xs * xs), x)
    return np.where(y < 0, -x, x)


def _bessel_i_scaled(x, order: int):
    """exp(-|x|) I_order(x) for order 0 or 1: the power series up to |x| = 20 (positive
    terms, no cancellation), the asymptotic series beyond (its terms still fall at 30)."""
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    small = np.minimum(ax, 20.0)
    term = np.exp(-small) * (0.5 * small) ** order / math.factorial(order)
    total = term.copy()
    quarter = 0.25 * small * small
    for k in range(1, 80):
        term = term * quarter / (k * (k + order))
        total = total + term
    large = np.maximum(ax, 20.0)
    mu = 4.0 * order * order
    term = np.ones_like(large)
    series = term.copy()
    for k in range(1, 30):
        term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * large)
        series = series + term
    asymptotic = series / np.sqrt(2.0 * math.pi * large)
    out = np.where(ax <= 20.0, total, asymptotic)
    return np.sign(x) * out if order == 1 else out


@register_op("Ndtri", shape=lambda op: op.inputs[0].shape)
def _ndtri_kernel(xp, x):
    return ndtri_values(x).astype(x.dtype)


@register_op("Erfinv", shape=lambda op: op.inputs[0].shape)
def _erfinv_kernel(xp, x):
    return erfinv_values(x).astype(x.dtype)


@register_op("BesselI0e", shape=lambda op: op.inputs[0].shape)
def _bessel_i0e_kernel(xp, x):
    return _bessel_i_scaled(x, 0).astype(x.dtype)


@register_op("BesselI1e", shape=lambda op: op.inputs[0].shape)
def _bessel_i1e_kernel(xp, x):
    return _bessel_i_scaled(x, 1).astype(x.dtype)


@register_gradient("Ndtri")
def _ndtri_grad(op, grad):
    y = op.outputs[0]
    return (grad * math.sqrt(2.0 * math.pi) * exp(0.5 * y * y),)


@register_gradient("Erfinv")
def _erfinv_grad(op, grad):
    y = op.outputs[0]
    return (grad * (0.5 * math.sqrt(math.pi)) * exp(y * y),)


@register_gradient("BesselI0e")
def _bessel_i0e_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    return (grad * (bessel_i1e(x) - sign(x) * y),)


@register_gradient("BesselI1e")
def _bessel_i1e_grad(op, grad):
    # d/dx i1e = i0e - i1e (sign(x) + 1/x), whose limit at 0 is 1/2
    x, y = op.inputs[0], op.outputs[0]
    safe = where(equal(x, 0.0), ones_like(x), x)
    slope = where(equal(x, 0.0), 0.5 * ones_like(x), bessel_i0e(x) - y * (sign(x) + 1.0 / safe))
    return (grad * slope,)


def _float_unary(op_type, x, name):
    x = ops.convert_to_tensor(x)
    if not x.dtype.base_dtype.is_floating:
        raise TypeError(f"'{op_type}' needs a floating-point input, got {x.dtype.name}")
    return make_tensor(op_type, [x], None, name or op_type)


def ndtri(x, name=None):
    """The inverse of the standard normal distribution function (the quantile of probability x)."""
    return _float_unary("Ndtri", x, name)


def erfinv(x, name=None):
    """The inverse of erf on (-1, 1)."""
    return _float_unary("Erfinv", x, name)


def bessel_i0e(x, name=None):
    """exp(-|x|) I0(x), the modified Bessel function of order 0 scaled to stay finite."""
    return _float_unary("BesselI0e", x, name)


def bessel_i1e(x, name=None):
    """exp(-|x|) I1(x), the modified Bessel function of order 1 scaled to stay finite."""
    return _float_unary("BesselI1e", x, name)


def bessel_i0(x, name=None):
    """I0(x), the modified Bessel function of order 0."""
    with ops.name_scope(name, "bessel_i0", [x]):
        x = ops.convert_to_tensor(x)
        return exp(abs_(x)) * bessel_i0e(x)


def bessel_i1(x, name=None):
    """I1(x), the modified Bessel function of order 1."""
    with ops.name_scope(name, "bessel_i1", [x]):
        x = ops.convert_to_tensor(x)
        return exp(abs_(x)) * bessel_i1e(x)
