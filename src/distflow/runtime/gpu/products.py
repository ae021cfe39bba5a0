"""MatMul, the 2-D convolutions and the sums over leading axes on a GPU, as cuBLAS products.

A convolution is its input's windows (``im2col``: one strided copy) times the filter: one
GEMM forward, one for the filter's gradient. The input's gradient is, for stride 1, the
convolution of the padded output gradient with the flipped filter (one copy, one GEMM);
for larger strides one product per filter position, each added where that position's
inputs are. A bias's gradient (a sum over every axis but the last) is a product with a
row of ones: a reduction of many rows into few columns gives a GPU only as many blocks as
columns. The shared NumPy kernels are the oracle these are tested against. On a backend
without CUDA (the tests' fake device) the products are ``xp.matmul``.
"""

from __future__ import annotations

import functools
import logging
import math

from ...framework.registry import register_kernel
from ...ops.conv_ops import conv_output_size, spread_filter
from . import fused

DEVICE_TYPE = "GPU"
_log = logging.getLogger("distflow")


@functools.lru_cache(maxsize=None)
def _gemm_for(xp):
    if not hasattr(xp, "cuda"):
        return None
    from .cublas import Gemm  # noqa: PLC0415

    try:
        return Gemm(xp)
    except (OSError, AttributeError) as e:
        _log.warning("cuBLAS could not be called directly (%s): products go through CuPy, and steps "
                     "with products are not replayed", e)
        return None


def gemm(xp, a, b, transpose_a=False, transpose_b=False):
    """``op(a) @ op(b)`` for 2-D arrays: cuBLAS on the current stream, or ``xp.matmul``."""
    g = _gemm_for(xp)
    if g is not None and g.supports(a, b):
        return g(a, b, transpose_a, transpose_b)
    return xp.matmul(a.T if transpose_a else a, b.T if transpose_b else b)


@register_kernel("MatMul", DEVICE_TYPE, capturable=True)
def _matmul(xp, a, b, *, transpose_a=False, transpose_b=False):
    return gemm(xp, a, b, transpose_a, transpose_b)


def _conv(xp, x, f, sh, sw, ph, pw, oh, ow):
    """``x`` (padded by ph, pw before) convolved with ``f``: windows times filter, one GEMM."""
    kh, kw, c, o = f.shape
    cols = fused.im2col(xp, x, kh, kw, sh, sw, ph, pw, oh, ow)
    return gemm(xp, cols, xp.ascontiguousarray(f).reshape(kh * kw * c, o)).reshape(x.shape[0], oh, ow, o)


def _geometry(x_shape, kh, kw, strides, padding):
    oh, ph = conv_output_size(x_shape[1], kh, strides[1], padding)
    ow, pw = conv_output_size(x_shape[2], kw, strides[2], padding)
    return strides[1], strides[2], ph, pw, oh, ow


# A dilated convolution (``dilations`` above 1, with strides of 1) is the convolution with
# its filter spread by zero taps (conv_ops.spread_filter), and its filter's gradient that of
# the spread filter at the filter's own taps.
@register_kernel("Conv2D", DEVICE_TYPE, capturable=True)
def _conv2d(xp, x, f, *, strides, padding, dilations=(1, 1, 1, 1)):
    f = spread_filter(xp, f, dilations)
    return _conv(xp, x, f, *_geometry(x.shape, f.shape[0], f.shape[1], strides, padding))


@register_kernel("Conv2DBackpropFilter", DEVICE_TYPE, host_inputs=(1,), capturable=True)
def _conv2d_backprop_filter(xp, x, filter_sizes, dy, *, strides, padding, dilations=(1, 1, 1, 1)):
    dh, dw = dilations[1], dilations[2]
    kh, kw, c, o = (int(d) for d in filter_sizes)
    kh, kw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    cols = fused.im2col(xp, x, kh, kw, *_geometry(x.shape, kh, kw, strides, padding))
    df = gemm(xp, cols, xp.ascontiguousarray(dy).reshape(-1, o), transpose_a=True).reshape(kh, kw, c, o)
    return df if (dh, dw) == (1, 1) else xp.ascontiguousarray(df[::dh, ::dw])


@register_kernel("Conv2DBackpropInput", DEVICE_TYPE, host_inputs=(0,), capturable=True)
def _conv2d_backprop_input(xp, input_sizes, f, dy, *, strides, padding, dilations=(1, 1, 1, 1)):
    f = spread_filter(xp, f, dilations)
    n, h, w, c = (int(d) for d in input_sizes)
    kh, kw, _, o = f.shape
    sh, sw, ph, pw, oh, ow = _geometry((n, h, w, c), kh, kw, strides, padding)
    if (sh, sw) == (1, 1) and ph <= kh - 1 and pw <= kw - 1:
        # dx[i] = sum_a dy[i + ph - a] f[a] = sum_b dy_padded[i + b] f[kh - 1 - b]: the convolution
        # of dy, padded by kh - 1 - ph rows above (and kw - 1 - pw columns left), with the filter
        # flipped and its channels swapped ([kh, kw, o, c])
        flipped = xp.ascontiguousarray(f[::-1, ::-1].transpose(0, 1, 3, 2))
        return _conv(xp, dy, flipped, 1, 1, kh - 1 - ph, kw - 1 - pw, h, w)
    dxpad = xp.zeros((n, max(h + ph, (oh - 1) * sh + kh), max(w + pw, (ow - 1) * sw + kw), c), dtype=dy.dtype)
    rows = xp.ascontiguousarray(dy).reshape(-1, o)
    for i in range(kh):
        for j in range(kw):
            dxpad[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw, :] += \
                gemm(xp, rows, f[i, j], transpose_b=True).reshape(n, oh, ow, c)
    return dxpad[:, ph:ph + h, pw:pw + w, :]


def sum_leading(xp, x, k: int):
    """``x`` summed over its first ``k`` axes: a row of ones times ``x`` as rows."""
    rows = math.prod(x.shape[:k])
    if x.dtype.kind != "f" or x.dtype.itemsize < 4 or rows == 0 or x.ndim == k:
        return xp.sum(x, axis=tuple(range(k)), dtype=x.dtype)
    ones = xp.ones((1, rows), dtype=x.dtype)
    return gemm(xp, ones, xp.ascontiguousarray(x).reshape(rows, -1)).reshape(x.shape[k:])


@register_kernel("BiasAddGrad", DEVICE_TYPE, capturable=True)
def _bias_add_grad(xp, grad):
    return sum_leading(xp, grad, grad.ndim - 1)


@register_kernel("SumToShape", DEVICE_TYPE, host_inputs=(1,), capturable=True)
def _sum_to_shape(xp, grad, shape):
    target = tuple(int(d) for d in shape)
    if grad.shape == target:
        return grad
    lead = grad.ndim - len(target)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(target) if d == 1 and grad.shape[lead + i] != 1)
    if axes == tuple(range(len(axes))):
        return sum_leading(xp, grad, len(axes)).reshape(target)
    return xp.sum(grad, axis=axes, dtype=grad.dtype).reshape(target)


@register_kernel("GatherV2Grad", DEVICE_TYPE, host_inputs=(0, 3))
def _gather_grad(xp, params_shape, indices, grad, axis):
    """GatherV2's dense gradient: ``grad`` added at the gathered positions (an atomic add)."""
    axis = int(axis)
    out = xp.zeros([int(d) for d in params_shape], dtype=grad.dtype)
    g = grad.reshape(grad.shape[:axis] + (-1,) + grad.shape[axis + indices.ndim:])
    xp.add.at(xp.moveaxis(out, axis, 0), indices.reshape(-1), xp.moveaxis(g, axis, 0))
    return out
