"""Gradients of the math ops: the binary ops and matmul (math_ops.py), the elementwise
unary ops (unary_ops.py) and the reductions (reduction_ops.py).

Each is built from graph ops, so gradients of gradients work. They live here, above
the files of the ops they differentiate, because a gradient needs ops of several of
those files (a product's gradient: matmul, conj, the unbroadcasting sum).
"""

from __future__ import annotations

import numpy as np

from ..framework import ops
from ..framework.registry import register_gradient
from . import array_ops
from .array_ops import unbroadcast
from .complex_ops import conj
from .math_ops import (binary_op, add, cast, equal, greater, greater_equal, less_equal, matmul, maximum, multiply,
                       not_equal, pow, subtract, where)
from .op_util import known_axis, make_tensor
from .reduction_ops import reduce_sum
from .unary_ops import cos, log, negative, sign, sin


# -- math_ops ------------------------------------------------------------------


@register_gradient("AddV2")
def _add_grad(op, grad):
    x, y = op.inputs
    return unbroadcast(grad, x), unbroadcast(grad, y)


@register_gradient("Sub")
def _sub_grad(op, grad):
    x, y = op.inputs
    return unbroadcast(grad, x), unbroadcast(negative(grad), y)


@register_gradient("Mul")
def _mul_grad(op, grad):
    x, y = op.inputs
    if x.dtype.base_dtype.is_complex:  # TF's convention: the gradient of a complex product uses conjugates
        return unbroadcast(multiply(grad, conj(y)), x), unbroadcast(multiply(conj(x), grad), y)
    return unbroadcast(multiply(grad, y), x), unbroadcast(multiply(x, grad), y)


@register_gradient("RealDiv")
def _real_div_grad(op, grad):
    x, y = op.inputs
    z = op.outputs[0]
    if x.dtype.base_dtype.is_complex:
        y, z = conj(y), conj(z)
    return (unbroadcast(binary_op("RealDiv", grad, y), x),
            unbroadcast(multiply(grad, binary_op("RealDiv", negative(z), y)), y))


@register_gradient("FloorMod")
def _floor_mod_grad(op, grad):
    # x mod y = x - floor(x / y) y, with floor's derivative 0 (TF's gradient)
    x, y = op.inputs
    return unbroadcast(grad, x), unbroadcast(multiply(grad, negative(binary_op("FloorDiv", x, y))), y)


@register_gradient("Sign")
def _sign_grad(op, grad):
    return (array_ops.zeros_like(op.inputs[0]),)  # (zeros, not None: TF's)


@register_gradient("Pow")
def _pow_grad(op, grad):
    x, y = op.inputs
    z = op.outputs[0]
    if x.dtype.base_dtype.is_complex:  # (TF's convention for complex gradients: the conjugates)
        x, y, z = conj(x), conj(y), conj(z)
    dx = multiply(grad, multiply(y, pow(x, subtract(y, 1))))
    # NOTE: d(x^y)/dy = x^y log x, defined as 0 where x <= 0 (as TensorFlow does; for complex
    # x, where x == 0).
    positive = not_equal(x, 0) if x.dtype.base_dtype.is_complex else greater(x, 0)
    safe_x = where(positive, x, array_ops.ones_like(x))
    log_x = where(positive, log(safe_x), array_ops.zeros_like(x))  # (x's shape, which may be z's broadcast)
    dy = multiply(grad, multiply(z, log_x))
    return unbroadcast(dx, x), unbroadcast(dy, y)


def _select_grad_of(op, grad, x_wins):
    x, y = op.inputs
    zeros = array_ops.zeros_like(grad)
    return unbroadcast(where(x_wins, grad, zeros), x), unbroadcast(where(x_wins, zeros, grad), y)


@register_gradient("Maximum")
def _maximum_grad(op, grad):
    return _select_grad_of(op, grad, greater_equal(*op.inputs))


@register_gradient("Minimum")
def _minimum_grad(op, grad):
    return _select_grad_of(op, grad, less_equal(*op.inputs))


@register_gradient("SquaredDifference")
def _squared_difference_grad(op, grad):
    x, y = op.inputs
    d = multiply(multiply(grad, 2.0), subtract(x, y))
    return unbroadcast(d, x), unbroadcast(negative(d), y)


@register_gradient("Cast")
def _cast_grad(op, grad):
    src, dst = op._attr("SrcT"), op._attr("DstT")
    differentiable = (src.is_floating or src.is_complex) and (dst.is_floating or dst.is_complex)
    return (cast(grad, src) if differentiable else None,)


@register_gradient("MatMul")
@register_gradient("SparseMatMul")
def _matmul_grad(op, grad):
    a, b = (_conj(t) for t in op.inputs)  # (complex: the products take the conjugates, as TF's)
    ta, tb = op._attr("transpose_a"), op._attr("transpose_b")
    if not ta and not tb:
        return matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)
    if ta and not tb:
        return matmul(b, grad, transpose_b=True), matmul(a, grad)
    if not ta and tb:
        return matmul(grad, b), matmul(grad, a, transpose_a=True)
    return matmul(b, grad, transpose_a=True, transpose_b=True), matmul(grad, a, transpose_a=True, transpose_b=True)


@register_gradient("BatchMatMulV2")
def _batch_matmul_grad(op, grad):
    a, b = op.inputs
    ta, tb = op._attr("adj_x"), op._attr("adj_y")  # (adjoints: conjugate transposes of complex matrices)
    if not ta:
        da = matmul(grad, b, adjoint_b=not tb)
    else:
        da = matmul(b, grad, adjoint_a=tb, adjoint_b=True)
    if not tb:
        db = matmul(a, grad, adjoint_a=not ta)
    else:
        db = matmul(grad, a, adjoint_a=True, adjoint_b=ta)
    return unbroadcast(da, a), unbroadcast(db, b)


@register_gradient("AddN")
def _add_n_grad(op, grad):
    return (grad,) * len(op.inputs)


@register_gradient("Select")
@register_gradient("SelectV2")
def _select_grad(op, grad):
    cond, x, y = op.inputs
    zeros = array_ops.zeros_like(grad)
    return (None, unbroadcast(make_tensor(op.type, [cond, grad, zeros]), x),
            unbroadcast(make_tensor(op.type, [cond, zeros, grad]), y))

# -- unary_ops -----------------------------------------------------------------


@register_gradient("Neg")
def _neg_grad(op, grad):
    return (negative(grad),)


@register_gradient("Abs")
def _abs_grad(op, grad):
    return (multiply(grad, sign(op.inputs[0])),)


@register_gradient("Square")
def _square_grad(op, grad):
    x = op.inputs[0]
    if x.dtype.is_complex:  # (TF's convention for complex gradients: grad * conj(dy/dx))
        x = conj(x)
    return (multiply(grad, multiply(x, 2)),)


def _conj(t):
    """``t``'s complex conjugate, or ``t`` itself when it is real: complex gradients take the
    conjugate of the derivative (TensorFlow's convention)."""
    return conj(t) if t.dtype.base_dtype.is_complex else t


def _zero_where_unused(grad, dx):
    """``dx``, but zero where no gradient came (``grad`` is 0): TensorFlow's SqrtGrad,
    RsqrtGrad and ReciprocalGrad do this, so that ``tf.where(x > 0, tf.sqrt(x), 0)`` has a
    gradient of 0, not NaN, where x <= 0."""
    return where(equal(grad, 0), grad, dx)


@register_gradient("Sqrt")
def _sqrt_grad(op, grad):
    return (_zero_where_unused(grad, binary_op("RealDiv", multiply(grad, 0.5), _conj(op.outputs[0]))),)


@register_gradient("Rsqrt")
def _rsqrt_grad(op, grad):
    y = _conj(op.outputs[0])
    return (_zero_where_unused(grad, multiply(grad, multiply(multiply(y, multiply(y, y)), -0.5))),)


@register_gradient("Reciprocal")
def _reciprocal_grad(op, grad):
    y = _conj(op.outputs[0])
    return (_zero_where_unused(grad, negative(multiply(grad, multiply(y, y)))),)


@register_gradient("Exp")
def _exp_grad(op, grad):
    return (multiply(grad, _conj(op.outputs[0])),)


@register_gradient("Log")
def _log_grad(op, grad):
    return (binary_op("RealDiv", grad, _conj(op.inputs[0])),)


@register_gradient("Sin")
def _sin_grad(op, grad):
    return (multiply(grad, _conj(cos(op.inputs[0]))),)


@register_gradient("Cos")
def _cos_grad(op, grad):
    return (negative(multiply(grad, _conj(sin(op.inputs[0])))),)


@register_gradient("Log1p")
def _log1p_grad(op, grad):
    return (binary_op("RealDiv", grad, _conj(add(op.inputs[0], 1))),)


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

# -- reduction_ops -------------------------------------------------------------


def _kept_shape(op) -> ops.Tensor:
    """The reduction's output shape with keepdims, statically when possible."""
    x, axis_t = op.inputs
    axes = known_axis(axis_t)
    if x.shape.is_fully_defined() and axes is not None:
        dims = x.shape.as_list()
        for a in ([axes] if isinstance(axes, int) else axes):
            dims[a % len(dims)] = 1
        return array_ops.constant(np.array(dims, np.int32))
    return make_tensor("ReducedShape", [array_ops.shape(x), axis_t], None, "ReducedShape")


def _broadcast_back(op, grad) -> ops.Tensor:
    """A reduction's gradient spread back over the input's shape."""
    kept = array_ops.reshape(grad, _kept_shape(op))
    return array_ops.broadcast_to(kept, array_ops.shape_of(op.inputs[0]))


@register_gradient("Sum")
def _sum_grad(op, grad):
    return _broadcast_back(op, grad), None


@register_gradient("Mean")
def _mean_grad(op, grad):
    x, y = op.inputs[0], op.outputs[0]
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        count = max(1, x.shape.num_elements() // max(1, y.shape.num_elements()))
        scale = array_ops.constant(1.0 / count, dtype=grad.dtype)
    else:
        count = binary_op("FloorDiv", array_ops.size(x), maximum(array_ops.size(y), 1))
        scale = binary_op("RealDiv", array_ops.constant(1.0, dtype=grad.dtype), cast(count, grad.dtype))
    return multiply(_broadcast_back(op, grad), scale), None


def _extremum_grad(op, grad):
    x = op.inputs[0]
    y = array_ops.reshape(op.outputs[0], _kept_shape(op))
    chosen = cast(equal(x, y), grad.dtype)
    count = array_ops.reshape(reduce_sum(chosen, op.inputs[1]), _kept_shape(op))
    return multiply(binary_op("RealDiv", chosen, count), array_ops.reshape(grad, _kept_shape(op))), None


register_gradient("Max")(_extremum_grad)


register_gradient("Min")(_extremum_grad)


@register_gradient("Prod")
def _prod_grad(op, grad):
    x, axis_t = op.inputs
    g = array_ops.reshape(grad, _kept_shape(op))
    if x.dtype.base_dtype.is_complex:  # (TF's convention: the conjugate of the others' product)
        x = conj(x)
    return make_tensor("ProdGrad", [x, g, axis_t], None, "ProdGrad"), None
