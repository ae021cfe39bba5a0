"""The float operations of an op, by TensorFlow's profiler's formulas (0 for an op of a type it
has none for, or whose shapes are not fully defined)."""

from __future__ import annotations

import math


def _count(shape):
    return shape.num_elements() if shape.is_fully_defined() else None


def _input(op, i):
    return _count(op.inputs[i].shape) if len(op.inputs) > i else None


def _output(op):
    return _count(op.outputs[0].shape) if op.outputs else None


def _attr(op, name, default=None):
    try:
        return op.get_attr(name)
    except (ValueError, KeyError, AttributeError):
        return default


def _per_input(n):
    return lambda op: None if _input(op, 0) is None else _input(op, 0) * n


def _per_output(n):
    return lambda op: None if _output(op) is None else _output(op) * n


def _reduction(reduce_flops, finalize_flops):
    def flops(op):
        n_in, n_out = _input(op, 0), _output(op)
        if n_in is None or n_out is None:
            return None
        return n_in * reduce_flops + n_out * (finalize_flops - reduce_flops)
    return flops


def _nhwc(op) -> bool:
    fmt = _attr(op, "data_format", "NHWC")
    return (fmt.decode() if isinstance(fmt, bytes) else fmt) == "NHWC"


def _mat_mul(op):
    a, out = op.inputs[0].shape, _output(op)
    if not a.is_fully_defined() or out is None:
        return None
    k = a[-2].value if _attr(op, "transpose_a", False) or _attr(op, "adj_x", False) else a[-1].value
    return k * out * 2


def _conv(op):
    filt, out = op.inputs[1].shape, _output(op)
    if not filt.is_fully_defined() or out is None:
        return None
    return out * filt[0].value * filt[1].value * filt[2].value * 2


def _depthwise(op):
    filt, out = op.inputs[1].shape, _output(op)
    if not filt.is_fully_defined() or out is None:
        return None
    return out * filt[0].value * filt[1].value * 2


def _kernel_area(op):
    return math.prod(int(k) for k in _attr(op, "ksize", [1]))


def _pool(op):
    out = _output(op)
    return None if out is None or not _nhwc(op) else _kernel_area(op) * out


def _avg_pool_grad(op):
    grad = _input(op, 1)
    return None if grad is None or not _nhwc(op) else _kernel_area(op) * grad * 2


def _max_pool_grad(op):
    pooled = _input(op, 1)
    return None if pooled is None or not _nhwc(op) else _kernel_area(op) * pooled + pooled


def _strides(op):
    strides = list(_attr(op, "strides", [1, 1, 1, 1]))
    return strides[1] * strides[2]


def _conv_input_grad(op):
    out, kernel = op.outputs[0].shape, op.inputs[1].shape
    if not out.is_fully_defined() or not kernel.is_fully_defined() or not _nhwc(op):
        return None
    return 2 * out.num_elements() * kernel.num_elements() / (out[-1].value * _strides(op))


def _conv_filter_grad(op):
    image, kernel = op.inputs[0].shape, op.outputs[0].shape
    if not image.is_fully_defined() or not kernel.is_fully_defined() or not _nhwc(op):
        return None
    return 2 * image.num_elements() * kernel.num_elements() / (image[-1].value * _strides(op))


def _add_n(op):
    n = _input(op, 0)
    return None if n is None else n * (len(op.inputs) - 1)


def _l2_loss(op):
    n = _input(op, 0)
    return None if n is None else n * 3 - 1


_FORMULAS = {
    "MatMul": _mat_mul, "BatchMatMul": _mat_mul, "BatchMatMulV2": _mat_mul,
    "Conv2D": _conv, "DepthwiseConv2dNative": _depthwise,
    "Conv2DBackpropInput": _conv_input_grad, "Conv2DBackpropFilter": _conv_filter_grad,
    "AvgPool": _pool, "MaxPool": _pool, "AvgPoolGrad": _avg_pool_grad, "MaxPoolGrad": _max_pool_grad,
    "BiasAdd": _per_input(1), "BiasAddGrad": _reduction(1, 0),
    "Reciprocal": _per_input(1), "Square": _per_input(1), "Rsqrt": _per_input(2), "Log": _per_input(1),
    "Neg": _per_input(1), "AssignSub": _per_input(1), "AssignAdd": _per_input(1), "Softmax": _per_input(5),
    "L2Loss": _l2_loss, "AddN": _add_n,
    "Add": _per_output(1), "AddV2": _per_output(1), "Sub": _per_output(1), "Mul": _per_output(1),
    "RealDiv": _per_output(1), "Maximum": _per_output(1), "Minimum": _per_output(1), "Pow": _per_output(1),
    "RsqrtGrad": _per_output(4), "GreaterEqual": _per_output(1), "Greater": _per_output(1),
    "LessEqual": _per_output(1), "Less": _per_output(1), "Equal": _per_output(1), "NotEqual": _per_output(1),
    "SquaredDifference": _per_output(2),
    "Mean": _reduction(1, 1), "Sum": _reduction(1, 0), "ArgMax": _reduction(1, 0), "ArgMin": _reduction(1, 0),
}


def float_ops(op) -> int:
    formula = _FORMULAS.get(op.type)
    if formula is None:
        return 0
    value = formula(op)
    return int(value) if value is not None else 0
