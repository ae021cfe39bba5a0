"""``tf.bitwise``: bitwise operations on integer tensors."""

from __future__ import annotations

import numpy as np

from ._namespace import missing
from .framework import ops
from .framework.registry import not_differentiable, register_op
from .ops.op_util import binary_shape, make_tensor, same_dtype_inputs, unary_shape

_BINARY = {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor,
           "LeftShift": np.left_shift, "RightShift": np.right_shift}

for _op_type, _fn in _BINARY.items():
    register_op(_op_type, shape=binary_shape)((lambda f: lambda xp, x, y: f(x, y))(_fn))
    not_differentiable(_op_type)


@register_op("Invert", shape=unary_shape)
def _invert_kernel(xp, x):
    return np.invert(x)


not_differentiable("Invert")


def _binary(op_type, x, y, name):
    x, y = same_dtype_inputs(op_type, [x, y])
    if not x.dtype.base_dtype.is_integer:
        raise TypeError(f"'{op_type}' needs integer inputs, got {x.dtype.name}")
    return make_tensor(op_type, [x, y], None, name or op_type)


def bitwise_and(x, y, name=None):
    return _binary("BitwiseAnd", x, y, name)


def bitwise_or(x, y, name=None):
    return _binary("BitwiseOr", x, y, name)


def bitwise_xor(x, y, name=None):
    return _binary("BitwiseXor", x, y, name)


def left_shift(x, y, name=None):
    return _binary("LeftShift", x, y, name)


def right_shift(x, y, name=None):
    return _binary("RightShift", x, y, name)


def invert(x, name=None):
    x = ops.convert_to_tensor(x)
    return make_tensor("Invert", [x], None, name or "Invert")


__getattr__ = missing("tf.bitwise")
