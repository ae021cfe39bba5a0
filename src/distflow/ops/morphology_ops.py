"""Grayscale morphology: ``tf.nn.dilation2d`` (the max over a window of input + filter,
per channel) and ``tf.nn.erosion2d`` (its dual), with their gradients.

The gradient goes to the window position that gave each output's maximum, the first in
row-major order on ties, as TensorFlow's kernels choose it."""

from __future__ import annotations

import numpy as np

from ..framework import errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import manip_ops
from .conv_ops import conv_output_size, padded_input
from .op_util import FLOATS, check_dtype, make_tensor


def _geometry(x_shape, f_shape, strides, rates, padding):
    """(effective window height and width, output height and width, padding before)."""
    kh, kw = (f_shape[0] - 1) * rates[1] + 1, (f_shape[1] - 1) * rates[2] + 1
    oh, ph = conv_output_size(x_shape[1], kh, strides[1], padding)
    ow, pw = conv_output_size(x_shape[2], kw, strides[2], padding)
    return kh, kw, oh, ow, ph, pw


def _best_taps(xp, x, f, strides, rates, padding):
    """(the maximum of input + filter over each window, the index of the tap that gave it,
    the padded input, its padding before)."""
    if x.shape[3] != f.shape[2]:
        raise errors.InvalidArgumentError(None, None, f"Dilation2D: the input has {x.shape[3]} channels, the "
                                                      f"filter {f.shape[2]}")
    kh, kw, oh, ow, ph, pw = _geometry(x.shape, f.shape, strides, rates, padding)
    xpad = padded_input(xp, x, kh, kw, strides[1], strides[2], padding, fill=-np.inf)[0]
    best = np.full((x.shape[0], oh, ow, x.shape[3]), -np.inf, dtype=x.dtype)
    tap = np.zeros(best.shape, np.int64)
    for i in range(f.shape[0]):
        for j in range(f.shape[1]):
            y0, x0 = i * rates[1], j * rates[2]
            window = xpad[:, y0:y0 + (oh - 1) * strides[1] + 1:strides[1], x0:x0 + (ow - 1) * strides[2] + 1:strides[2]]
            candidate = window + f[i, j]
            better = candidate > best  # (strictly: the first maximum keeps its place)
            best = np.where(better, candidate, best)
            tap = np.where(better, i * f.shape[1] + j, tap)
    return best, tap, xpad, (ph, pw)


def _dilation_shape(op):
    x, f = op.inputs
    strides, rates, padding = op._attr("strides"), op._attr("rates"), op._attr("padding")
    if x.shape.ndims is None or f.shape.ndims is None or None in f.shape.as_list()[:2]:
        return TensorShape([None] * 4)
    xs, fs = x.shape.as_list(), f.shape.as_list()
    kh, kw = (fs[0] - 1) * rates[1] + 1, (fs[1] - 1) * rates[2] + 1
    oh = conv_output_size(xs[1], kh, strides[1], padding)[0]
    ow = conv_output_size(xs[2], kw, strides[2], padding)[0]
    return TensorShape([xs[0], oh, ow, xs[3]])


@register_op("Dilation2D", shape=_dilation_shape)
def _dilation_kernel(xp, x, f, *, strides, rates, padding):
    return _best_taps(xp, x, f, strides, rates, padding)[0]


@register_op("Dilation2DBackpropInput", shape=lambda op: op.inputs[0].shape)
def _dilation_input_grad_kernel(xp, x, f, grad, *, strides, rates, padding):
    _, tap, xpad, (ph, pw) = _best_taps(xp, x, f, strides, rates, padding)
    n, oh, ow, c = grad.shape
    i, j = tap // f.shape[1], tap % f.shape[1]
    rows = (np.arange(oh) * strides[1])[None, :, None, None] + i * rates[1]
    cols = (np.arange(ow) * strides[2])[None, None, :, None] + j * rates[2]
    batch = np.broadcast_to(np.arange(n)[:, None, None, None], grad.shape)
    channel = np.broadcast_to(np.arange(c)[None, None, None, :], grad.shape)
    out = np.zeros(xpad.shape, dtype=grad.dtype)
    np.add.at(out, (batch, rows, cols, channel), grad)
    return out[:, ph:ph + x.shape[1], pw:pw + x.shape[2]]


@register_op("Dilation2DBackpropFilter", shape=lambda op: op.inputs[1].shape)
def _dilation_filter_grad_kernel(xp, x, f, grad, *, strides, rates, padding):
    _, tap, _, _ = _best_taps(xp, x, f, strides, rates, padding)
    out = np.zeros((f.shape[0] * f.shape[1], f.shape[2]), dtype=grad.dtype)
    channel = np.broadcast_to(np.arange(grad.shape[3]), grad.shape)
    np.add.at(out, (tap.reshape(-1), channel.reshape(-1)), grad.reshape(-1))
    return out.reshape(f.shape)


not_differentiable("Dilation2DBackpropInput")
not_differentiable("Dilation2DBackpropFilter")


@register_gradient("Dilation2D")
def _dilation_grad(op, grad):
    x, f = op.inputs
    attrs = {k: op._attr(k) for k in ("strides", "rates", "padding")}
    return (make_tensor("Dilation2DBackpropInput", [x, f, grad], attrs, "Dilation2DBackpropInput"),
            make_tensor("Dilation2DBackpropFilter", [x, f, grad], attrs, "Dilation2DBackpropFilter"))


def _four(values, name):
    values = [int(v) for v in values]
    if len(values) != 4 or values[0] != 1 or values[3] != 1 or min(values) < 1:
        raise ValueError(f"{name} must be [1, height, width, 1] of positive integers, got {values}")
    return values


def dilation2d(input, filter=None, strides=None, rates=None, padding=None, name=None, filters=None,  # noqa: A002
               data_format="NHWC", dilations=None):
    """The grayscale dilation of 4-D ``input`` by a [height, width, depth] ``filter``: each
    output is the maximum over its window of input + filter, channel by channel."""
    if data_format != "NHWC":
        raise ValueError(f"dilation2d supports NHWC only, got {data_format!r}")
    x = ops.convert_to_tensor(input)
    check_dtype("Dilation2D", x, FLOATS, "input")
    f = ops.convert_to_tensor(filter if filter is not None else filters, dtype=x.dtype.base_dtype)
    if f.shape.ndims not in (None, 3):
        raise ValueError(f"dilation2d's filter must be [height, width, depth], got shape {f.shape}")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    attrs = {"strides": _four(strides, "strides"), "rates": _four(rates if rates is not None else dilations, "rates"),
             "padding": padding}
    return make_tensor("Dilation2D", [x, f], attrs, name or "Dilation2D")


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """The grayscale erosion of ``value`` by ``kernel``: each output is the minimum over its
    window of value - kernel (the kernel mirrored), the dual of ``dilation2d``."""
    with ops.name_scope(name, "erosion2d", [value, kernel]):
        kernel = ops.convert_to_tensor(kernel)
        value = ops.convert_to_tensor(value)
        return -dilation2d(-value, manip_ops.reverse(kernel, [0, 1]), strides, rates, padding)
