"""Elementwise unary math ops (Neg, Abs, Sqrt, Exp, Log, Tanh, Sigmoid, ...) and their gradients.

Each kernel may write into its input when the runtime says the input is dead
(``inplace_input=0``). Re-exported by math_ops, which holds the dtype groups and the
binary ops these gradients are built from.
"""

from __future__ import annotations

from ..framework import dtypes
from ..framework import ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from .math_ops import (_COMPLEX, _FLOATS, _NUMBERS, _SIGNED, _binary, _check_dtype, _unary_shape, add, multiply, subtract,
                       writable_like)
from .op_util import make_tensor


# op type: (NumPy expression writing into `out` (None: a new array), allowed dtypes)
_UNARY = {
    "Neg": (lambda xp, x, out: xp.negative(x, out=out), _SIGNED + _COMPLEX),
    "Abs": (lambda xp, x, out: xp.abs(x, out=out), _SIGNED),
    "Sign": (lambda xp, x, out: xp.sign(x, out=out), _SIGNED),
    "Square": (lambda xp, x, out: xp.multiply(x, x, out=out), _NUMBERS),
    "Sqrt": (lambda xp, x, out: xp.sqrt(x, out=out), _FLOATS),
    "Rsqrt": (lambda xp, x, out: xp.reciprocal(xp.sqrt(x, out=out), out=out), _FLOATS),
    "Reciprocal": (lambda xp, x, out: xp.reciprocal(x, out=out), _FLOATS),
    "Exp": (lambda xp, x, out: xp.exp(x, out=out), _FLOATS),
    "Log": (lambda xp, x, out: xp.log(x, out=out), _FLOATS),
    "Log1p": (lambda xp, x, out: xp.log1p(x, out=out), _FLOATS),
    "Tanh": (lambda xp, x, out: xp.tanh(x, out=out), _FLOATS),
    "Sin": (lambda xp, x, out: xp.sin(x, out=out), _FLOATS),
    "Cos": (lambda xp, x, out: xp.cos(x, out=out), _FLOATS),
    # NOTE: 0.5 * (1 + tanh(x / 2)) never overflows, unlike 1 / (1 + exp(-x)).
    "Sigmoid": (lambda xp, x, out: xp.multiply(xp.add(xp.tanh(xp.multiply(x, 0.5, out=out), out=out), 1, out=out),
                                               0.5, out=out), _FLOATS),
    "Floor": (lambda xp, x, out: xp.floor(x, out=out), _FLOATS),
    "Ceil": (lambda xp, x, out: xp.ceil(x, out=out), _FLOATS),
    "Round": (lambda xp, x, out: xp.round(x, out=out), _NUMBERS),
    "LogicalNot": (lambda xp, x, out: xp.logical_not(x, out=out), (dtypes.bool,)),
}


def _unary_kernel(expression):
    def kernel(xp, x, *, inplace=False):
        return expression(xp, x, writable_like(x) if inplace else None)

    return kernel


for _op_type, (_fn, _) in _UNARY.items():
    register_op(_op_type, shape=_unary_shape, inplace_input=0)(_unary_kernel(_fn))
for _t in ("Sign", "Floor", "Ceil", "Round", "LogicalNot"):
    not_differentiable(_t)


@register_gradient("Neg")
def _neg_grad(op, grad):
    return (negative(grad),)


@register_gradient("Abs")
def _abs_grad(op, grad):
    return (multiply(grad, sign(op.inputs[0])),)


@register_gradient("Square")
def _square_grad(op, grad):
    x = op.inputs[0]
    return (multiply(grad, multiply(x, 2)),)


@register_gradient("Sqrt")
def _sqrt_grad(op, grad):
    return (_binary("RealDiv", multiply(grad, 0.5), op.outputs[0]),)


@register_gradient("Rsqrt")
def _rsqrt_grad(op, grad):
    y = op.outputs[0]
    return (multiply(grad, multiply(multiply(y, multiply(y, y)), -0.5)),)


@register_gradient("Reciprocal")
def _reciprocal_grad(op, grad):
    y = op.outputs[0]
    return (negative(multiply(grad, multiply(y, y))),)


@register_gradient("Exp")
def _exp_grad(op, grad):
    return (multiply(grad, op.outputs[0]),)


@register_gradient("Log")
def _log_grad(op, grad):
    return (_binary("RealDiv", grad, op.inputs[0]),)


@register_gradient("Sin")
def _sin_grad(op, grad):
    return (multiply(grad, cos(op.inputs[0])),)


@register_gradient("Cos")
def _cos_grad(op, grad):
    return (negative(multiply(grad, sin(op.inputs[0]))),)


@register_gradient("Log1p")
def _log1p_grad(op, grad):
    return (_binary("RealDiv", grad, add(op.inputs[0], 1)),)


# Tanh and Sigmoid get fused gradient kernels (one pass over the data each), which
# are differentiable themselves so that gradients of gradients work.
@register_op("TanhGrad", shape=_unary_shape)
def _tanh_grad_kernel(xp, y, dy):
    return dy * (1 - y * y)


@register_op("SigmoidGrad", shape=_unary_shape)
def _sigmoid_grad_kernel(xp, y, dy):
    return dy * y * (1 - y)


@register_gradient("Tanh")
def _tanh_grad(op, grad):
    return (make_tensor("TanhGrad", [op.outputs[0], grad], None, "TanhGrad"),)


@register_gradient("Sigmoid")
def _sigmoid_grad(op, grad):
    return (make_tensor("SigmoidGrad", [op.outputs[0], grad], None, "SigmoidGrad"),)


@register_gradient("TanhGrad")
def _tanh_grad_grad(op, grad):
    y, dy = op.inputs
    return (multiply(multiply(grad, dy), multiply(y, -2.0)),
            make_tensor("TanhGrad", [y, grad], None, "TanhGrad"))


@register_gradient("SigmoidGrad")
def _sigmoid_grad_grad(op, grad):
    y, dy = op.inputs
    return (multiply(multiply(grad, dy), subtract(1.0, multiply(y, 2.0))),
            make_tensor("SigmoidGrad", [y, grad], None, "SigmoidGrad"))


def _unary(op_type: str, x, name=None) -> ops.Tensor:
    x = ops.convert_to_tensor(x)
    _check_dtype(op_type, x, _UNARY[op_type][1])
    return make_tensor(op_type, [x], None, name or op_type)


def negative(x, name=None):
    return _unary("Neg", x, name)


def abs(x, name=None):  # noqa: A001
    """|x|; for a complex tensor, its (real) magnitude."""
    x = ops.convert_to_tensor(x)
    if x.dtype.base_dtype.is_complex:
        from .complex_ops import complex_abs  # noqa: PLC0415

        return complex_abs(x, name)
    return _unary("Abs", x, name)


def sign(x, name=None):
    return _unary("Sign", x, name)


def square(x, name=None):
    return _unary("Square", x, name)


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
