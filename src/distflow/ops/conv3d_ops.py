"""3-D convolution and pooling on NDHWC tensors ([batch, depth, height, width, channels]);
NCDHW ones are transposed to NDHWC and back, as the 2-D ops do NCHW.

The kernels read every window through a strided view of the padded input
(``sliding_window_view``) and contract it with the filter; the input gradients add each
filter tap's contribution into the padded input, one tap at a time.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..framework import dtypes, errors, ops
from ..framework.registry import register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, slicing_ops
from .array_ops import shape_of
from .conv_ops import conv_output_size, pool_window, register_convolution_gradients
from .op_util import FLOATS, constant_shape, half_in_float32, make_tensor, only_default

_TO_LAST, _TO_FIRST = [0, 2, 3, 4, 1], [0, 4, 1, 2, 3]


def _channels_first(data_format) -> bool:
    if data_format not in (None, "NDHWC", "NCDHW"):
        raise ValueError(f"data_format must be 'NDHWC' or 'NCDHW', got {data_format!r}")
    return data_format == "NCDHW"


def _last_order(values):
    """An NCDHW-ordered attribute (strides, ksize, dilations, a shape) in NDHWC order."""
    values = list(values)
    if len(values) != 5:
        raise ValueError(f"expected 5 values for NCDHW, got {values}")
    return [values[i] for i in _TO_LAST]


def _ncdhw(fn, x, name, default):
    """``fn`` (an NDHWC op) applied to NCDHW ``x``: transposed in, and the result back."""
    with ops.name_scope(name, default, [x]):
        y = fn(array_ops.transpose(x, _TO_LAST, name="to_NDHWC"))
        return array_ops.transpose(y, _TO_FIRST, name="to_NCDHW")


def dilate_filter_3d(f: ops.Tensor, rates) -> ops.Tensor:
    """The [kd, kh, kw, in, out] filter with ``rate - 1`` zero taps between its taps along
    each spatial dimension: a convolution with it is the dilated convolution with ``f``."""
    kernel = [f.shape[i].value for i in range(3)]
    if None in kernel:
        raise ValueError("a dilated 3-D convolution needs the filter's spatial sizes known")
    with ops.name_scope(None, "dilate_filter", [f]):
        channels = [array_ops.shape(f)[3], array_ops.shape(f)[4]]
        spread = array_ops.reshape(f, array_ops.stack([kernel[0], 1, kernel[1], 1, kernel[2], 1, *channels]))
        spread = array_ops.pad(spread, [[0, 0], [0, rates[0] - 1], [0, 0], [0, rates[1] - 1], [0, 0],
                                        [0, rates[2] - 1], [0, 0], [0, 0]])
        spread = array_ops.reshape(spread, array_ops.stack([k * r for k, r in zip(kernel, rates)] + channels))
        sizes = [(k - 1) * r + 1 for k, r in zip(kernel, rates)]
        out = slicing_ops.slice(spread, [0] * 5, sizes + [-1, -1])
        out.set_shape(sizes + [f.shape[3].value, f.shape[4].value])
        return out



def _check_5(name, values):
    values = [int(v) for v in values]
    if len(values) != 5 or values[0] != 1 or values[4] != 1:
        raise ValueError(f"{name} must be [1, d, h, w, 1] for NDHWC, got {values}")
    return values


def _check_padding(padding) -> str:
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    return padding


def _geometry(spatial, window, strides, padding):
    """Output sizes and (before, after) paddings of the three spatial dimensions."""
    outs, pads = [], []
    for size, k, s in zip(spatial, window, strides):
        out, before = conv_output_size(size, k, s, padding)
        after = max((out - 1) * s + k - size - before, 0)
        outs.append(out)
        pads.append((before, after))
    return outs, pads


def _windows(x, window, strides, padding, fill=0.0):
    """The [n, od, oh, ow, c, kd, kh, kw] view of every window, and the paddings used."""
    outs, pads = _geometry(x.shape[1:4], window, strides, padding)
    padded = np.pad(x, [(0, 0)] + pads + [(0, 0)], constant_values=fill)
    view = sliding_window_view(padded, tuple(window), axis=(1, 2, 3))
    view = view[:, ::strides[0], ::strides[1], ::strides[2]][:, :outs[0], :outs[1], :outs[2]]
    return view, pads, padded.shape


def _spread(grad_taps, padded_shape, pads, window, strides, out_sizes):
    """Sums each tap's [n, od, oh, ow, c] contribution into the padded input; returns it unpadded."""
    acc = np.zeros(padded_shape, dtype=grad_taps(0, 0, 0).dtype)
    od, oh, ow = out_sizes
    sd, sh, sw = strides
    for i in range(window[0]):
        for j in range(window[1]):
            for k in range(window[2]):
                acc[:, i:i + od * sd:sd, j:j + oh * sh:sh, k:k + ow * sw:sw, :] += grad_taps(i, j, k)
    _, d, h, w, _ = padded_shape
    return acc[:, pads[0][0]:d - pads[0][1], pads[1][0]:h - pads[1][1], pads[2][0]:w - pads[2][1], :]


def _conv3d_shape(op):
    x = op.inputs[0].shape.with_rank(5) if op.inputs[0].shape.ndims is not None else TensorShape([None] * 5)
    f = op.inputs[1].shape
    strides, padding = op._attr("strides"), op._attr("padding")
    k = [f[i].value if f.ndims else None for i in range(3)]
    outs = [conv_output_size(x[1 + i].value, k[i], strides[1 + i], padding)[0] if k[i] is not None else None
            for i in range(3)]
    return TensorShape([x[0].value, *outs, f[4].value if f.ndims else None])


@register_op("Conv3D", shape=_conv3d_shape)
@half_in_float32
def _conv3d_kernel(xp, x, f, *, strides, padding):
    if x.shape[4] != f.shape[3]:
        raise errors.InvalidArgumentError(None, None, f"Conv3D: input depth {x.shape[4]} does not match the "
                                                      f"filter's in_channels {f.shape[3]}")
    view, _, _ = _windows(x, f.shape[:3], strides[1:4], padding)
    return np.tensordot(view, f, axes=([4, 5, 6, 7], [3, 0, 1, 2])).astype(x.dtype)


@register_op("Conv3DBackpropInputV2", shape=lambda op: constant_shape(op.inputs[0]),
             dtype=lambda op: op.inputs[1].dtype.base_dtype)
@half_in_float32
def _conv3d_backprop_input_kernel(xp, input_sizes, f, grad, *, strides, padding):
    sizes = [int(v) for v in input_sizes]
    outs, pads = _geometry(sizes[1:4], f.shape[:3], strides[1:4], padding)
    if list(grad.shape[1:4]) != outs:
        raise errors.InvalidArgumentError(None, None, f"Conv3DBackpropInput: out_backprop has spatial shape "
                                                      f"{list(grad.shape[1:4])}, expected {outs}")
    padded = (sizes[0], *(s + a + b for s, (a, b) in zip(sizes[1:4], pads)), sizes[4])
    return _spread(lambda i, j, k: grad @ f[i, j, k].T, padded, pads, f.shape[:3], strides[1:4], outs)


@register_op("Conv3DBackpropFilterV2", shape=lambda op: constant_shape(op.inputs[1]))
@half_in_float32
def _conv3d_backprop_filter_kernel(xp, x, filter_sizes, grad, *, strides, padding):
    window = [int(v) for v in filter_sizes[:3]]
    view, _, _ = _windows(x, window, strides[1:4], padding)
    out = np.tensordot(view, grad, axes=([0, 1, 2, 3], [0, 1, 2, 3]))  # [c, kd, kh, kw, o]
    return out.transpose(1, 2, 3, 0, 4).astype(x.dtype)


register_convolution_gradients("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2")


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC", dilations=(1, 1, 1, 1, 1),  # noqa: A002
           name=None, filters=None):
    """3-D convolution of NDHWC (or NCDHW) ``input`` with a [kd, kh, kw, in, out] ``filter``;
    with ``dilations``, the dilated convolution (its filter spread with zeros, strides of 1)."""
    f = filter if filter is not None else filters
    if _channels_first(data_format):
        return _ncdhw(lambda t: conv3d(t, f, _last_order(strides), padding, dilations=_last_order(dilations)),
                      input, name, "Conv3D")
    x = ops.convert_to_tensor(input)
    f = ops.convert_to_tensor(f, dtype=x.dtype.base_dtype)
    if x.dtype.base_dtype not in FLOATS:
        raise TypeError(f"conv3d needs a floating input, got {x.dtype.name}")
    strides, rates = _check_5("strides", strides), _check_5("dilations", dilations)
    if rates != [1] * 5:
        if strides != [1] * 5:
            raise ValueError(f"conv3d with dilations {rates} needs strides of 1, got {strides}")
        f = dilate_filter_3d(f, rates[1:4])
    return make_tensor("Conv3D", [x, f], {"strides": strides, "padding": _check_padding(padding)}, name or "Conv3D")


def conv3d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, data_format="NDHWC",  # noqa: A002
                           dilations=(1, 1, 1, 1, 1), name=None):
    """The gradient of conv3d with respect to its filter, of shape ``filter_sizes``; with
    NCDHW, the input, ``out_backprop`` and ``strides`` are in that order."""
    only_default("conv3d_backprop_filter", "dilations", dilations, (1, 1, 1, 1, 1))
    if _channels_first(data_format):
        with ops.name_scope(name, "Conv3DBackpropFilterV2", [input, out_backprop]) as scope:
            x, dy = (array_ops.transpose(t, _TO_LAST, name="to_NDHWC") for t in (input, out_backprop))
            return conv3d_backprop_filter(x, filter_sizes, dy, _last_order(strides), padding, name=scope)
    x = ops.convert_to_tensor(input)
    return make_tensor("Conv3DBackpropFilterV2", [
        x, ops.convert_to_tensor(filter_sizes, dtype=dtypes.int32),
        ops.convert_to_tensor(out_backprop, dtype=x.dtype.base_dtype)],
        {"strides": _check_5("strides", strides), "padding": _check_padding(padding)}, name or "Conv3DBackpropFilterV2")


def conv3d_backprop_input(input_sizes, filter, out_backprop, strides, padding, name=None):  # noqa: A002
    f = ops.convert_to_tensor(filter)
    return make_tensor("Conv3DBackpropInputV2", [
        ops.convert_to_tensor(input_sizes, dtype=dtypes.int32), f,
        ops.convert_to_tensor(out_backprop, dtype=f.dtype.base_dtype)],
        {"strides": _check_5("strides", strides), "padding": _check_padding(padding)}, name or "Conv3DBackpropInputV2")


def conv3d_transpose(value, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NDHWC", name=None, input=None, filters=None, dilations=None):
    """The transpose of conv3d: ``filter`` is [kd, kh, kw, out_channels, in_channels]; with
    NCDHW, ``value``, ``output_shape`` and ``strides`` are in that order."""
    only_default("conv3d_transpose", "dilations", dilations, None, 1, (1, 1, 1, 1, 1))
    value = value if value is not None else input
    f = filter if filter is not None else filters
    with ops.name_scope(name, "conv3d_transpose", [value, f, output_shape]) as scope:
        if _channels_first(data_format):
            sizes = slicing_ops.gather(ops.convert_to_tensor(output_shape, dtype=dtypes.int32), _TO_LAST)
            return _ncdhw(lambda t: conv3d_backprop_input(sizes, f, t, _last_order(strides), padding), value, None,
                          "nchw")
        return conv3d_backprop_input(output_shape, f, value, strides, padding, name=scope)


# ---------------------------------------------------------------------------
# Pooling


def _pool_shape(op):
    x = op.inputs[0].shape.with_rank(5) if op.inputs[0].shape.ndims is not None else TensorShape([None] * 5)
    ksize, strides, padding = op._attr("ksize"), op._attr("strides"), op._attr("padding")
    outs = [conv_output_size(x[1 + i].value, ksize[1 + i], strides[1 + i], padding)[0] for i in range(3)]
    return TensorShape([x[0].value, *outs, x[4].value])


def _pool_counts(x_shape, window, strides, padding):
    """How many real (unpadded) inputs each output window covers, [1, od, oh, ow, 1]."""
    ones = np.ones((1, *x_shape[1:4], 1))
    view, _, _ = _windows(ones, window, strides, padding)
    return view.sum(axis=(5, 6, 7))


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


@register_op("MaxPool3D", shape=_pool_shape)
def _max_pool3d_kernel(xp, x, *, ksize, strides, padding):
    view, _, _ = _windows(x, ksize[1:4], strides[1:4], padding, fill=_lowest(x.dtype))
    return view.max(axis=(5, 6, 7)).astype(x.dtype)


@register_op("AvgPool3D", shape=_pool_shape)
def _avg_pool3d_kernel(xp, x, *, ksize, strides, padding):
    view, _, _ = _windows(x, ksize[1:4], strides[1:4], padding)
    return (view.sum(axis=(5, 6, 7)) / _pool_counts(x.shape, ksize[1:4], strides[1:4], padding)).astype(x.dtype)


@register_op("MaxPool3DGrad", shape=lambda op: op.inputs[0].shape)
def _max_pool3d_grad_kernel(xp, x, grad, *, ksize, strides, padding):
    window = ksize[1:4]
    view, pads, padded_shape = _windows(x, window, strides[1:4], padding, fill=_lowest(x.dtype))
    n, od, oh, ow, c = view.shape[:5]
    winner = view.reshape(n, od, oh, ow, c, -1).argmax(axis=-1)  # the first maximum, as TF
    return _spread(lambda i, j, k: np.where(winner == np.ravel_multi_index((i, j, k), window), grad, 0).astype(x.dtype),
                   padded_shape, pads, window, strides[1:4], [od, oh, ow])


@register_op("AvgPool3DGrad", shape=lambda op: constant_shape(op.inputs[0]), dtype=lambda op: op.inputs[1].dtype)
def _avg_pool3d_grad_kernel(xp, input_sizes, grad, *, ksize, strides, padding):
    sizes = [int(v) for v in input_sizes]
    window = ksize[1:4]
    outs, pads = _geometry(sizes[1:4], window, strides[1:4], padding)
    share = grad / _pool_counts(sizes, window, strides[1:4], padding)
    padded = (sizes[0], *(s + a + b for s, (a, b) in zip(sizes[1:4], pads)), sizes[4])
    return _spread(lambda i, j, k: share, padded, pads, window, strides[1:4], outs).astype(grad.dtype)


@register_op("MaxPool3DGradGrad", shape=_pool_shape)  # (pooled as x, its first input)
def _max_pool3d_grad_grad_kernel(xp, x, h, *, ksize, strides, padding):
    """The gradient of MaxPool3DGrad(x, g) for g, given ``h`` (shaped as x): each window's
    value of ``h`` where ``x`` has the window's (first) maximum."""
    window = ksize[1:4]
    view, _, _ = _windows(x, window, strides[1:4], padding, fill=_lowest(x.dtype))
    n, od, oh, ow, c = view.shape[:5]
    winner = view.reshape(n, od, oh, ow, c, -1).argmax(axis=-1)
    h_view, _, _ = _windows(h, window, strides[1:4], padding)
    picked = np.take_along_axis(h_view.reshape(n, od, oh, ow, c, -1), winner[..., None], axis=-1)
    return picked[..., 0].astype(h.dtype)


@register_gradient("MaxPool3DGrad")
def _max_pool3d_grad_grad(op, grad):
    # (the routing is constant where the maxima are unique: nothing flows to x)
    x, _ = op.inputs
    attrs = {a: op._attr(a) for a in ("ksize", "strides", "padding")}
    return make_tensor("ZerosLike", [x]), make_tensor("MaxPool3DGradGrad", [x, grad], attrs, "MaxPool3DGradGrad")


@register_gradient("MaxPool3DGradGrad")
def _max_pool3d_grad_grad_grad(op, grad):
    x, _ = op.inputs
    attrs = {a: op._attr(a) for a in ("ksize", "strides", "padding")}
    return make_tensor("ZerosLike", [x]), make_tensor("MaxPool3DGrad", [x, grad], attrs, "MaxPool3DGrad")


@register_gradient("AvgPool3DGrad")
def _avg_pool3d_grad_grad(op, grad):
    attrs = {a: op._attr(a) for a in ("ksize", "strides", "padding")}
    return None, make_tensor("AvgPool3D", [grad], attrs, "AvgPool3D")


@register_gradient("MaxPool3D")
def _max_pool3d_grad(op, grad):
    attrs = {a: op._attr(a) for a in ("ksize", "strides", "padding")}
    return (make_tensor("MaxPool3DGrad", [op.inputs[0], grad], attrs),)


@register_gradient("AvgPool3D")
def _avg_pool3d_grad(op, grad):
    attrs = {a: op._attr(a) for a in ("ksize", "strides", "padding")}
    return (make_tensor("AvgPool3DGrad", [shape_of(op.inputs[0]), grad], attrs),)


def _pool3d(op_type, input, ksize, strides, padding, data_format, name):  # noqa: A002
    ksize, strides = (pool_window(n, v, 3, data_format or "NDHWC") for n, v in (("ksize", ksize),
                                                                              ("strides", strides)))
    if _channels_first(data_format):
        return _ncdhw(lambda t: _pool3d(op_type, t, _last_order(ksize), _last_order(strides), padding, "NDHWC",
                                        None), input, name, op_type)
    x = ops.convert_to_tensor(input)
    return make_tensor(op_type, [x], {"ksize": _check_5("ksize", ksize), "strides": _check_5("strides", strides),
                                      "padding": _check_padding(padding)}, name or op_type)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    return _pool3d("MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """The mean of each window's real inputs (padding is not counted, as in TF)."""
    return _pool3d("AvgPool3D", input, ksize, strides, padding, data_format, name)
