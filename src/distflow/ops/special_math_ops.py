"""More elementwise math: inverse trigonometric and hyperbolic functions, erf, the
finiteness predicates, atan2, div_no_nan and truncating division, with their gradients."""

from __future__ import annotations

import math

import numpy as np

from ..framework import dtypes, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from . import math_ops
from .array_ops import unbroadcast
from .op_util import (COMPLEX, FLOATS, NUMBERS, binary_shape, check_dtype, make_tensor, on_sparse_values,
                      same_dtype_inputs, unary_shape)

_erf = np.frompyfunc(math.erf, 1, 1)
_erfc = np.frompyfunc(math.erfc, 1, 1)

# op type: (NumPy expression, allowed dtypes, gradient as a function of (x, y, grad) -> tensor)
_UNARY = {
    "Acos": (np.arccos, lambda x, y, g: -g * math_ops.rsqrt(1 - x * x)),
    "Asin": (np.arcsin, lambda x, y, g: g * math_ops.rsqrt(1 - x * x)),
    "Atan": (np.arctan, lambda x, y, g: g / (1 + x * x)),
    "Acosh": (np.arccosh, lambda x, y, g: g / sinh(y)),  # (by y, not x: the right branch for complex x)
    "Asinh": (np.arcsinh, lambda x, y, g: g / cosh(y)),
    "Atanh": (np.arctanh, lambda x, y, g: g / (1 - x * x)),
    "Sinh": (np.sinh, lambda x, y, g: g * cosh(x)),
    "Cosh": (np.cosh, lambda x, y, g: g * sinh(x)),
    "Tan": (np.tan, lambda x, y, g: g * (1 + y * y)),
    "Expm1": (np.expm1, lambda x, y, g: g * math_ops.exp(x)),
    "Erf": (lambda x: np.asarray(_erf(x), dtype=x.dtype),  # (a 0-d input gives a Python float)
            lambda x, y, g: g * (2 / math.sqrt(math.pi)) * math_ops.exp(-x * x)),
    "Erfc": (lambda x: np.asarray(_erfc(x), dtype=x.dtype),
             lambda x, y, g: -g * (2 / math.sqrt(math.pi)) * math_ops.exp(-x * x)),
}


def _unary_kernel(fn):
    def kernel(xp, x):
        return np.asarray(fn(x), dtype=x.dtype)

    return kernel


def _unary_grad(grad_fn):
    def grad(op, g):
        x, y = op.inputs[0], op.outputs[0]
        if x.dtype.is_complex:  # (TF's convention: g times the conjugate of f'(x), which is f'(conj x) here)
            # (the Conj op by its name: complex_ops, which defines it, imports this module)
            x, y = make_tensor("Conj", [x], None, "Conj"), make_tensor("Conj", [y], None, "Conj")
        return (grad_fn(x, y, g),)

    return grad


for _op_type, (_fn, _grad) in _UNARY.items():
    register_op(_op_type, shape=unary_shape)(_unary_kernel(_fn))
    register_gradient(_op_type)(_unary_grad(_grad))


_REAL_ONLY = {"Erf", "Erfc"}  # (the others take complex numbers too, as in TF)


def _unary(op_type, x, name):
    x = ops.convert_to_tensor(x)
    check_dtype(op_type, x, FLOATS if op_type in _REAL_ONLY else FLOATS + COMPLEX)
    return make_tensor(op_type, [x], None, name or op_type)


def acos(x, name=None):
    return _unary("Acos", x, name)


def asin(x, name=None):
    return _unary("Asin", x, name)


def atan(x, name=None):
    return _unary("Atan", x, name)


def acosh(x, name=None):
    return _unary("Acosh", x, name)


def asinh(x, name=None):
    return _unary("Asinh", x, name)


def atanh(x, name=None):
    return _unary("Atanh", x, name)


def sinh(x, name=None):
    return _unary("Sinh", x, name)


def cosh(x, name=None):
    return _unary("Cosh", x, name)


def tan(x, name=None):
    return _unary("Tan", x, name)


def expm1(x, name=None):
    return _unary("Expm1", x, name)


@on_sparse_values
def erf(x, name=None):
    return _unary("Erf", x, name)


def erfc(x, name=None):
    return _unary("Erfc", x, name)


# ---------------------------------------------------------------------------
# Predicates and rounding


@register_op("IsFinite", shape=unary_shape, dtype=lambda op: dtypes.bool)
def _is_finite_kernel(xp, x):
    return np.isfinite(x)


@register_op("IsInf", shape=unary_shape, dtype=lambda op: dtypes.bool)
def _is_inf_kernel(xp, x):
    return np.isinf(x)


@register_op("IsNan", shape=unary_shape, dtype=lambda op: dtypes.bool)
def _is_nan_kernel(xp, x):
    return np.isnan(x)


@register_op("Rint", shape=unary_shape)
def _rint_kernel(xp, x):
    return np.rint(x)


for _t in ("IsFinite", "IsInf", "IsNan", "Rint"):
    not_differentiable(_t)


def is_finite(x, name=None):
    return _unary("IsFinite", x, name)


def is_inf(x, name=None):
    return _unary("IsInf", x, name)


def is_nan(x, name=None):
    return _unary("IsNan", x, name)


def rint(x, name=None):
    """Rounds half to even, as NumPy's rint."""
    return _unary("Rint", x, name)


# ---------------------------------------------------------------------------
# Atan2, DivNoNan, TruncateDiv, TruncateMod


@register_op("Atan2", shape=binary_shape)
def _atan2_kernel(xp, y, x):
    return np.arctan2(y, x)


@register_gradient("Atan2")
def _atan2_grad(op, g):
    y, x = op.inputs
    inv = g / (x * x + y * y)
    return unbroadcast(x * inv, y), unbroadcast(-y * inv, x)


@register_op("DivNoNan", shape=binary_shape)
def _div_no_nan_kernel(xp, x, y):
    safe = xp.where(y == 0, 1, y)
    return xp.where(y == 0, 0, x / safe).astype(np.result_type(x.dtype, y.dtype), copy=False)


@register_gradient("DivNoNan")
def _div_no_nan_grad(op, g):
    x, y = op.inputs
    return (unbroadcast(div_no_nan(g, y), x),
            unbroadcast(div_no_nan(-g * x, y * y), y))


@register_op("TruncateDiv", shape=binary_shape)
def _truncate_div_kernel(xp, x, y):
    if x.dtype.kind in "iu":
        if np.any(y == 0):
            raise ZeroDivisionError("Integer division by zero")
        return (np.trunc(x / y)).astype(x.dtype)
    return np.trunc(x / y)


@register_op("TruncateMod", shape=binary_shape)
def _truncate_mod_kernel(xp, x, y):
    if x.dtype.kind in "iu" and np.any(y == 0):
        raise ZeroDivisionError("Integer division by zero")
    return np.fmod(x, y)


for _t in ("TruncateDiv", "TruncateMod"):
    not_differentiable(_t)


def _binary(op_type, x, y, name, allowed=NUMBERS):
    x, y = same_dtype_inputs(op_type, [x, y])
    check_dtype(op_type, x, allowed)
    return make_tensor(op_type, [x, y], None, name or op_type)


def atan2(y, x, name=None):
    """The angle of the point (x, y), in (-pi, pi]."""
    return _binary("Atan2", y, x, name, FLOATS)


def div_no_nan(x, y, name=None):
    """x / y, and 0 where y is 0."""
    return _binary("DivNoNan", x, y, name, FLOATS)


def truncatediv(x, y, name=None):
    """x / y rounded towards zero (C's integer division)."""
    return _binary("TruncateDiv", x, y, name)


def truncatemod(x, y, name=None):
    """The remainder of truncatediv: it has the sign of x (C's %)."""
    return _binary("TruncateMod", x, y, name)

