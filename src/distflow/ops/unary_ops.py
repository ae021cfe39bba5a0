"""Elementwise unary math ops (Neg, Abs, Sqrt, Exp, Log, Tanh, Sigmoid, ...).

Each kernel may write into its input when the runtime says the input is dead
(``inplace_input=0``). math_ops builds on this module (and imports its names, so
``math_ops.exp`` works as in TF); the gradients are in math_grad.py.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, ops
from ..framework.registry import not_differentiable, register_op
from . import intra_op
from .op_util import (COMPLEX, FLOATS, NUMBERS, SIGNED, check_dtype, make_tensor, on_sparse_values, unary_shape,
                      writable_like)


# op type: (NumPy expression writing into `out` (None: a new array), allowed dtypes)
_UNARY = {
    "Neg": (lambda xp, x, out: xp.negative(x, out=out), SIGNED + COMPLEX),
    "Abs": (lambda xp, x, out: xp.abs(x, out=out), SIGNED),
    "Sign": (lambda xp, x, out: xp.sign(x, out=out), SIGNED + COMPLEX),  # (x / |x| for complex x, 0 at 0)
    "Square": (lambda xp, x, out: xp.multiply(x, x, out=out), NUMBERS + COMPLEX),
    "Sqrt": (lambda xp, x, out: xp.sqrt(x, out=out), FLOATS + COMPLEX),
    "Rsqrt": (lambda xp, x, out: xp.reciprocal(xp.sqrt(x, out=out), out=out), FLOATS + COMPLEX),
    "Reciprocal": (lambda xp, x, out: xp.reciprocal(x, out=out), FLOATS + COMPLEX),
    "Exp": (lambda xp, x, out: xp.exp(x, out=out), FLOATS + COMPLEX),
    "Log": (lambda xp, x, out: xp.log(x, out=out), FLOATS + COMPLEX),
    "Log1p": (lambda xp, x, out: xp.log1p(x, out=out), FLOATS + COMPLEX),
    "Tanh": (lambda xp, x, out: xp.tanh(x, out=out), FLOATS + COMPLEX),
    "Sin": (lambda xp, x, out: xp.sin(x, out=out), FLOATS + COMPLEX),
    "Cos": (lambda xp, x, out: xp.cos(x, out=out), FLOATS + COMPLEX),
    # NOTE: 0.5 * (1 + tanh(x / 2)) never overflows, unlike 1 / (1 + exp(-x)).
    "Sigmoid": (lambda xp, x, out: xp.multiply(xp.add(xp.tanh(xp.multiply(x, 0.5, out=out), out=out), 1, out=out),
                                               0.5, out=out), FLOATS + COMPLEX),
    "Floor": (lambda xp, x, out: xp.floor(x, out=out), FLOATS),
    "Ceil": (lambda xp, x, out: xp.ceil(x, out=out), FLOATS),
    "Round": (lambda xp, x, out: xp.round(x, out=out), NUMBERS),
    "LogicalNot": (lambda xp, x, out: xp.logical_not(x, out=out), (dtypes.bool,)),
}


def _unary_kernel(expression):
    def kernel(xp, x, *, inplace=False):
        out = writable_like(x) if inplace else None
        if xp is np and x.dtype.kind == "f" and x.nbytes >= intra_op.MIN_BYTES and x.flags.c_contiguous:
            # In pieces on the cores BLAS may use, each writing its part of one output (on two
            # cores, for 32x32x32x64 float32: sigmoid 1.05 against 2.4 ms, exp 0.65 against 0.82).
            out = np.empty_like(x) if out is None else out
            flat_x, flat_out = x.reshape(-1), out.reshape(-1)
            intra_op.run_split(flat_x.size, x.nbytes, lambda a, b: expression(xp, flat_x[a:b], flat_out[a:b]))
            return out
        return expression(xp, x, out)

    return kernel


for _op_type, (_fn, _) in _UNARY.items():
    register_op(_op_type, shape=unary_shape, inplace_input=0)(_unary_kernel(_fn))
for _t in ("Floor", "Ceil", "Round", "LogicalNot"):
    not_differentiable(_t)


# Tanh and Sigmoid get fused gradient kernels (one pass over the data each), which
# are differentiable themselves so that gradients of gradients work.
# (for complex numbers, TF's convention: the conjugate of the derivative)
@register_op("TanhGrad", shape=unary_shape)
def _tanh_grad_kernel(xp, y, dy):
    return dy * xp.conj(1 - y * y) if y.dtype.kind == "c" else dy * (1 - y * y)


@register_op("SigmoidGrad", shape=unary_shape)
def _sigmoid_grad_kernel(xp, y, dy):
    return dy * xp.conj(y * (1 - y)) if y.dtype.kind == "c" else dy * y * (1 - y)


def _unary(op_type: str, x, name=None) -> ops.Tensor:
    x = ops.convert_to_tensor(x)
    check_dtype(op_type, x, _UNARY[op_type][1])
    return make_tensor(op_type, [x], None, name or op_type)


@on_sparse_values
def negative(x, name=None):
    return _unary("Neg", x, name)


@on_sparse_values
def abs(x, name=None):  # noqa: A001
    """|x|; for a complex tensor, its (real) magnitude."""
    x = ops.convert_to_tensor(x)
    if x.dtype.base_dtype.is_complex:
        return complex_abs(x, name)
    return _unary("Abs", x, name)


# The magnitude of a complex tensor, as a real one (its gradient is in complex_ops.py).
@register_op("ComplexAbs", shape=unary_shape, dtype=lambda op: op.inputs[0].dtype.base_dtype.real_dtype)
def _complex_abs_kernel(xp, x):
    return xp.abs(x).astype(x.real.dtype)


def complex_abs(x, name=None):
    x = ops.convert_to_tensor(x)
    if not x.dtype.base_dtype.is_complex:
        raise TypeError(f"'ComplexAbs' needs a complex64 or complex128 input, got {x.dtype.name}")
    return make_tensor("ComplexAbs", [x], None, name or "ComplexAbs")


@on_sparse_values
def sign(x, name=None):
    return _unary("Sign", x, name)


@on_sparse_values
def square(x, name=None):
    return _unary("Square", x, name)


@on_sparse_values
def sqrt(x, name=None):
    return _unary("Sqrt", x, name)


def rsqrt(x, name=None):
    return _unary("Rsqrt", x, name)


def reciprocal(x, name=None):
    return _unary("Reciprocal", x, name)


def exp(x, name=None):
    return _unary("Exp", x, name)


def log(x, name=None):
    return _unary("Log", x, name)


def log1p(x, name=None):
    return _unary("Log1p", x, name)


def sin(x, name=None):
    return _unary("Sin", x, name)


def cos(x, name=None):
    return _unary("Cos", x, name)


@on_sparse_values
def tanh(x, name=None):
    return _unary("Tanh", x, name)


def sigmoid(x, name=None):
    return _unary("Sigmoid", x, name)


def floor(x, name=None):
    return _unary("Floor", x, name)


def ceil(x, name=None):
    return _unary("Ceil", x, name)


def round(x, name=None):  # noqa: A001
    return _unary("Round", x, name)


def logical_not(x, name=None):
    return _unary("LogicalNot", x, name)


ops.Tensor._override_operator("__neg__", negative)
ops.Tensor._override_operator("__abs__", abs)
ops.Tensor._override_operator("__invert__", logical_not)
