"""Convolution and pooling (NHWC), with their gradient kernels.

Convolutions are matrix products over image patches (im2col): the patches come
from a strided view of the padded input, so the only copy is the one the product
needs.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from ..platform import blocks
from . import array_ops, blas, intra_op, reduction_ops, slicing_ops
from .array_ops import shape_of
from .op_util import FLOATS, constant_shape, half_in_float32, make_tensor



def conv_output_size(size, k, stride, padding):
    """Output length and padding before, for one spatial dimension."""
    if size is None:
        return None, None
    if padding == "VALID":
        if k is not None and size < k:
            raise ValueError(f"Negative dimension size caused by subtracting {k} from {size}: a VALID window "
                             f"of {k} does not fit in {size}")
        return math.ceil((size - k + 1) / stride), 0
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + k - size, 0)
    return out, total // 2


def _check_4(name, values):
    values = list(values)
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise ValueError(f"{name} must be [1, h, w, 1] for NHWC, got {values}")
    return values


def padded_input(xp, x, kh, kw, sh, sw, padding, fill=0.0):
    """x padded for SAME (or cropped to the last full window for VALID), output size."""
    _, h, w, _ = x.shape
    oh, ph = conv_output_size(h, kh, sh, padding)
    ow, pw = conv_output_size(w, kw, sw, padding)
    need_h = (oh - 1) * sh + kh
    need_w = (ow - 1) * sw + kw
    after_h, after_w = max(0, need_h - h - ph), max(0, need_w - w - pw)
    if padding == "SAME" and (ph or pw or after_h or after_w):
        # One fill and one copy (np.pad's general path took 0.6 ms a call on Deep MNIST's
        # shapes); with nothing to pad (2x2 pooling of an even size) the input itself.
        if fill == -np.inf and x.dtype.kind in "iu":
            fill = np.iinfo(x.dtype).min
        out = xp.full((x.shape[0], h + ph + after_h, w + pw + after_w, x.shape[3]), fill, dtype=x.dtype)
        out[:, ph:ph + h, pw:pw + w, :] = x
        x = out
    return x, oh, ow, ph, pw


def window_view(xp, xpad, kh, kw, sh, sw, oh, ow, dh=1, dw=1):
    """A strided view [N, OH, OW, KH, KW, C] of the windows (no copy); a window's taps
    ``dh`` rows and ``dw`` columns apart."""
    n, _, _, c = xpad.shape
    s = xpad.strides
    shape, strides = (n, oh, ow, kh, kw, c), (s[0], s[1] * sh, s[2] * sw, s[1] * dh, s[2] * dw, s[3])
    if xp is not np:  # (a device's own view of its memory: CuPy's as_strided takes no writeable)
        return xp.lib.stride_tricks.as_strided(xpad, shape=shape, strides=strides)
    return np.lib.stride_tricks.as_strided(xpad, shape=shape, strides=strides, writeable=False)


def _conv_shape(op, depthwise: bool = False):
    """[N, OH, OW, out]: out is the filter's last dimension, or for a depthwise filter
    [h, w, in, multiplier] in * multiplier."""
    x, f = op.inputs
    strides = op._attr("strides")
    padding = op._attr("padding")
    xs = x.shape.with_rank(4) if x.shape.ndims is not None else TensorShape([None] * 4)
    fs = f.shape.with_rank(4) if f.shape.ndims is not None else TensorShape([None] * 4)
    if xs[3].value is not None and fs[2].value is not None and xs[3].value != fs[2].value:
        raise ValueError(f"Depth of input ({xs[3].value}) must equal the filter's in-depth ({fs[2].value})")
    rates = op._attr("dilations") if "dilations" in op._attrs else (1, 1, 1, 1)
    kh, kw = (None if k is None else (k - 1) * r + 1 for k, r in ((fs[0].value, rates[1]), (fs[1].value, rates[2])))
    oh = conv_output_size(xs[1].value, kh, strides[1], padding)[0] if kh is not None else None
    ow = conv_output_size(xs[2].value, kw, strides[2], padding)[0] if kw is not None else None
    out = fs[3].value
    if depthwise:
        out = fs[2].value * fs[3].value if fs[2].value is not None and fs[3].value is not None else None
    return TensorShape([xs[0].value, oh, ow, out])


def im2col(xp, x, kh, kw, strides, padding, dilations=(1, 1, 1, 1)):
    """The windows of ``x`` as one array [N, OH, OW, KH*KW*C]: a row per output position,
    in the order of a filter reshaped to [KH*KW*C, O] (one copy of the windows, made by
    pieces of the batch at once). With ``dilations``, a window's taps are that many
    positions apart."""
    dh, dw = dilations[1], dilations[2]
    xpad, oh, ow, _, _ = padded_input(xp, x, (kh - 1) * dh + 1, (kw - 1) * dw + 1, strides[1], strides[2], padding)
    windows = window_view(xp, xpad, kh, kw, strides[1], strides[2], oh, ow, dh, dw)
    n, c = x.shape[0], x.shape[3]
    cols = blocks.empty((n, oh, ow, kh * kw * c), x.dtype) if xp is np else xp.empty((n, oh, ow, kh * kw * c),
                                                                                         dtype=x.dtype)
    into = cols.reshape(windows.shape)
    intra_op.run_split(n, cols.nbytes, lambda a, b: xp.copyto(into[a:b], windows[a:b]))
    return cols


def conv_from_cols(cols, f):
    """Conv2D from the input's windows (``im2col``): one GEMM."""
    kh, kw, c, o = f.shape
    n, oh, ow, k = cols.shape
    return (cols.reshape(-1, k) @ f.reshape(k, o)).reshape(n, oh, ow, o)


def filter_grad_from_cols(cols, filter_sizes, dy):
    """Conv2DBackpropFilter from the input's windows (``im2col``): one GEMM."""
    kh, kw, c, o = (int(d) for d in filter_sizes)
    return _transposed_product(cols.reshape(-1, kh * kw * c), dy.reshape(-1, o)).reshape(kh, kw, c, o)


_NARROW = 32  # columns
_BLOCK_ROWS = 512


def _transposed_product(a, b):
    """``a.T @ b`` for two tall matrices.

    A first layer's windows are narrow (25 columns for a 5x5 filter on one channel) and
    tall (one row per output position of the batch), and OpenBLAS multiplies such a pair
    slowly; in blocks of rows, as a stack of small products summed, it is 2.6x faster:
    [50176, 25]^T x [50176, 32] took 1.67 ms, 0.64 ms so (wider windows gain nothing).
    """
    rows, m = a.shape
    blocks = rows // _BLOCK_ROWS
    if m > _NARROW or blocks < 8:
        return a.T @ b
    main = blocks * _BLOCK_ROWS
    out = np.matmul(a[:main].reshape(blocks, _BLOCK_ROWS, m).transpose(0, 2, 1),
                    b[:main].reshape(blocks, _BLOCK_ROWS, b.shape[1])).sum(axis=0)
    if main < rows:
        out += a[main:].T @ b[main:]
    return out


@register_op("Conv2D", shape=_conv_shape)
@half_in_float32
def _conv2d_kernel(xp, x, f, *, strides, padding, dilations=(1, 1, 1, 1)):
    return conv_from_cols(im2col(xp, x, f.shape[0], f.shape[1], strides, padding, dilations), f)


@register_op("Conv2DBackpropFilter", shape=lambda op: constant_shape(op.inputs[1]),
             dtype=lambda op: op.inputs[0].dtype.base_dtype)
@half_in_float32
def _conv2d_backprop_filter_kernel(xp, x, filter_sizes, dy, *, strides, padding, dilations=(1, 1, 1, 1)):
    kh, kw = int(filter_sizes[0]), int(filter_sizes[1])
    return filter_grad_from_cols(im2col(xp, x, kh, kw, strides, padding, dilations), filter_sizes, dy)


def spread_filter(xp, f, dilations):
    """``f`` [kh, kw, in, out] with ``rate - 1`` zero rows (columns) between its taps: a
    convolution with it is the dilated convolution with ``f``."""
    dh, dw = dilations[1], dilations[2]
    if (dh, dw) == (1, 1):
        return f
    kh, kw = f.shape[:2]
    out = xp.zeros(((kh - 1) * dh + 1, (kw - 1) * dw + 1, *f.shape[2:]), dtype=f.dtype)
    out[::dh, ::dw] = f
    return out


@register_op("Conv2DBackpropInput", shape=lambda op: constant_shape(op.inputs[0]),
             dtype=lambda op: op.inputs[1].dtype.base_dtype)
@half_in_float32
def _conv2d_backprop_input_kernel(xp, input_sizes, f, dy, *, strides, padding, dilations=(1, 1, 1, 1)):
    n, h, w, c = input_sizes.tolist()
    kh, kw, _, o = f.shape
    dh, dw = dilations[1], dilations[2]
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1  # (the window a dilated filter spans)
    sh, sw = strides[1], strides[2]
    oh, ph = conv_output_size(h, ekh, sh, padding)
    ow, pw = conv_output_size(w, ekw, sw, padding)
    if (sh, sw) == (1, 1) and xp is np:
        dx = _accumulated_input_grad(dy, f, h, w, ph, pw, dh, dw)
        if dx is not None:
            return dx
    hp = max(h + ph, (oh - 1) * sh + ekh)
    wp = max(w + pw, (ow - 1) * sw + ekw)
    dxpad = xp.zeros((n, hp, wp, c), dtype=dy.dtype)
    rows = dy.reshape(-1, o)
    if oh * ow < kh * kw:
        # (fewer windows than filter positions, a filter nearly as large as its input: a text
        # CNN's 3x128 windows over 56x128 embeddings, one input channel. One product for all
        # positions, each window's columns added where it lies: 22 ms to 4 for that layer,
        # where 384 products of one column each were mostly call overhead)
        cols = (rows @ f.reshape(kh * kw * c, o).T).reshape(n, oh, ow, kh, kw, c)
        for y in range(oh):
            for x in range(ow):
                dxpad[:, y * sh:y * sh + ekh:dh, x * sw:x * sw + ekw:dw, :] += cols[:, y, x]
        return dxpad[:, ph:ph + h, pw:pw + w, :]
    # One product per filter position, each added where that position's inputs are: its
    # result is contiguous along the channels, where slicing one product of all positions
    # gave every add a stride of kh*kw*c (1.6x slower for 5x5x32x64 on 14x14).
    for i in range(kh):
        for j in range(kw):
            top, left = i * dh, j * dw
            dxpad[:, top:top + (oh - 1) * sh + 1:sh, left:left + (ow - 1) * sw + 1:sw, :] += \
                (rows @ f[i, j].T).reshape(n, oh, ow, c)
    return dxpad[:, ph:ph + h, pw:pw + w, :]


def _accumulated_input_grad(dy, f, h, w, ph, pw, dh=1, dw=1):
    """Conv2DBackpropInput for stride 1 as kh*kw products that BLAS adds into place
    (``beta=1``), with no pass of NumPy adds; None where it does not pay or BLAS is not there.

    The padded input gradient is laid out as rows of ``wd`` positions, images of ``sd``
    rows, one after the other. ``dy`` is placed on that grid (zeros around it), so filter
    position (i, j) adds its product to the whole grid shifted by i rows and j columns (i *
    dh and j * dw for a dilated filter): one contiguous block of rows, one GEMM. ``wd`` and ``sd`` are as small as keeps every
    shifted write that runs past a row's (an image's) end on the padding at the start of
    the next row (image), which is cut off at the end. For 5x5x32x64 on 14x14 this took
    8.3 ms against 12.1 ms for products and separate adds (the grid has 1.3x the rows).
    """
    n, oh, ow, o = dy.shape
    kh, kw, c, _ = f.shape
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1  # (taps dh rows and dw columns apart)
    sd = max(ph + h, oh + ekh - 1 - ph, oh)
    wd = max(pw + w, ow + ekw - 1 - pw, ow)
    if sd * wd > 1.6 * oh * ow or not blas.gemm_available(dy.dtype):
        return None  # (mostly padding: the products would be mostly zeros)
    rows = n * sd * wd
    grid = np.zeros((n, sd, wd, o), dtype=dy.dtype)
    grid[:, :oh, :ow, :] = dy
    grid = grid.reshape(rows, o)
    f = np.ascontiguousarray(f, dtype=dy.dtype)
    out = np.zeros(((n * sd + ekh) * wd, c), dtype=dy.dtype)  # (ekh more rows: the last image's overrun)
    for i in range(kh):
        for j in range(kw):
            start = i * dh * wd + j * dw
            if not blas.gemm(grid, f[i, j].T, out[start:start + rows], 1.0, 1.0):
                return None  # (only the first can refuse: every call has the same layouts)
    return out[:rows].reshape(n, sd, wd, c)[:, ph:ph + h, pw:pw + w, :]


def register_convolution_gradients(forward: str, input_grad: str, filter_grad: str) -> None:
    """The gradients of a convolution op and of its two gradient ops, each linear in both
    of its tensors: ``input_grad(x_shape, f, dy)`` and ``filter_grad(x, f_shape, dy)``
    are the forward op's adjoints, and each of the three is the others' gradient."""
    def attrs_of(op):
        attrs = {"strides": op._attr("strides"), "padding": op._attr("padding")}
        if "dilations" in op._attrs:
            attrs["dilations"] = op._attr("dilations")
        return attrs

    @register_gradient(forward)
    def _forward_grad(op, grad):
        x, f = op.inputs
        return (make_tensor(input_grad, [shape_of(x), f, grad], attrs_of(op), input_grad),
                make_tensor(filter_grad, [x, shape_of(f), grad], attrs_of(op), filter_grad))

    @register_gradient(input_grad)
    def _input_grad_grad(op, grad):
        _, f, dy = op.inputs
        return (None, make_tensor(filter_grad, [grad, shape_of(f), dy], attrs_of(op), filter_grad),
                make_tensor(forward, [grad, f], attrs_of(op), forward))

    @register_gradient(filter_grad)
    def _filter_grad_grad(op, grad):
        x, _, dy = op.inputs
        return (make_tensor(input_grad, [shape_of(x), grad, dy], attrs_of(op), input_grad), None,
                make_tensor(forward, [x, grad], attrs_of(op), forward))


register_convolution_gradients("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")


def _check_format(data_format, what: str = "this op"):
    if data_format not in (None, "NHWC"):
        raise errors.UnimplementedError(None, None, f"{what}: only data_format='NHWC' is supported, got "
                                                    f"{data_format!r}")


def _is_nchw(data_format) -> bool:
    """Whether an op that takes NCHW (by transposing to NHWC and back) was asked for it."""
    if data_format not in (None, "NHWC", "NCHW"):
        raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    return data_format == "NCHW"


def _nhwc_order(values, name: str):
    """An NCHW-ordered [1, 1, h, w] attribute (strides, ksize, dilations) in NHWC order."""
    values = list(values)
    if len(values) != 4:
        raise ValueError(f"{name} must have 4 entries for NCHW, got {values}")
    return [values[0], values[2], values[3], values[1]]


def _nchw(fn, x, name):
    """``fn`` (an NHWC op) applied to NCHW ``x``: transposed in, and the result back.
    TensorFlow's CPU kernels refuse NCHW; here it costs two transposes. A ``name`` given
    names the result (as it names TF's NCHW op)."""
    with ops.name_scope(name, "nchw", [x]) as scope:
        y = fn(array_ops.transpose(x, [0, 2, 3, 1], name="to_NHWC"))
        return array_ops.transpose(y, [0, 3, 1, 2], name=scope if name else "to_NCHW")


def _spatial_4(values, name: str, channels_first: bool):
    """``strides``/``dilations`` as TensorFlow 1.14+ takes them: an int or a list of 1, 2 or 4
    ints, as the four entries of ``data_format``."""
    if isinstance(values, (int, np.integer)):
        values = [int(values)]
    values = list(values)
    if len(values) == 1:
        values = values * 2
    if len(values) == 2:
        return [1, 1] + values if channels_first else [1] + values + [1]
    return values


def _check_padding(padding) -> str:
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    return padding


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None) -> ops.Tensor:
    """2-D convolution of NHWC (or NCHW) ``input`` with an [h, w, in, out] ``filter``."""
    f = filter if filter is not None else filters
    channels_first = _is_nchw(data_format)
    strides, dilations = (_spatial_4(v, what, channels_first) for v, what in ((strides, "strides"),
                                                                             (dilations, "dilations")))
    if channels_first:
        if not isinstance(padding, str):
            padding = _nhwc_order(padding, "padding")
        return _nchw(lambda t: conv2d(t, f, _nhwc_order(strides, "strides"), padding,
                                      dilations=_nhwc_order(dilations, "dilations")), input, name)
    x = ops.convert_to_tensor(input)
    f = ops.convert_to_tensor(f, dtype=x.dtype.base_dtype)
    if x.dtype.base_dtype not in FLOATS:
        raise TypeError(f"conv2d needs a floating input, got {x.dtype.name}")
    if not isinstance(padding, str):
        # (explicit padding, [[0, 0], [top, bottom], [left, right], [0, 0]]: the input padded
        # with zeros, then a VALID convolution)
        pads = np.asarray(padding).tolist()
        if np.shape(pads) != (4, 2) or pads[0] != [0, 0] or pads[3] != [0, 0] or min(min(p) for p in pads) < 0:
            raise ValueError(f"explicit padding must be [[0, 0], [top, bottom], [left, right], [0, 0]] of "
                             f"non-negative sizes, got {padding}")
        x, padding = array_ops.pad(x, pads), "VALID"
    attrs = _conv_attrs(strides, padding, dilations)
    return make_tensor("Conv2D", [x, f], attrs, name or "Conv2D")


def _conv_attrs(strides, padding, dilations) -> dict:
    """A 2-D convolution's (or its gradients') attrs; ``dilations`` only where a rate is
    above 1 (a graph without them is TensorFlow's with its default)."""
    attrs = {"strides": _check_4("strides", strides), "padding": _check_padding(padding)}
    dilations = _check_4("dilations", dilations)
    if dilations != [1, 1, 1, 1]:
        if dilations[0] != 1 or dilations[3] != 1 or min(dilations) < 1:
            raise ValueError(f"dilations must be 1 in the batch and depth dimensions and at least 1, got "
                             f"{dilations}")
        if attrs["strides"] != [1, 1, 1, 1]:
            raise ValueError("a convolution with dilations > 1 needs strides of 1 (as TensorFlow's CPU kernels)")
        attrs["dilations"] = dilations
    return attrs


def dilate_filter(f: ops.Tensor, rate_h: int, rate_w: int) -> ops.Tensor:
    """The [h, w, in, out] filter with ``rate - 1`` zero rows (columns) between its taps: a
    convolution with it is the dilated ("atrous") convolution with ``f``, gradients included."""
    kh, kw = f.shape[0].value, f.shape[1].value
    if kh is None or kw is None:
        raise ValueError("a dilated convolution needs the filter's height and width known")
    with ops.name_scope(None, "dilate_filter", [f]):
        spread = array_ops.pad(array_ops.reshape(f, array_ops.stack([kh, 1, kw, 1, array_ops.shape(f)[2],
                                                                     array_ops.shape(f)[3]])),
                               [[0, 0], [0, rate_h - 1], [0, 0], [0, rate_w - 1], [0, 0], [0, 0]])
        spread = array_ops.reshape(spread, array_ops.stack([kh * rate_h, kw * rate_w, array_ops.shape(f)[2],
                                                            array_ops.shape(f)[3]]))
        out = slicing_ops.slice(spread, [0, 0, 0, 0], [(kh - 1) * rate_h + 1, (kw - 1) * rate_w + 1, -1, -1])
        out.set_shape([(kh - 1) * rate_h + 1, (kw - 1) * rate_w + 1, f.shape[2].value, f.shape[3].value])
        return out


# ---------------------------------------------------------------------------
# Pooling


def _pool_shape(op):
    x = op.inputs[0]
    ksize, strides, padding = op._attr("ksize"), op._attr("strides"), op._attr("padding")
    xs = x.shape.with_rank(4) if x.shape.ndims is not None else TensorShape([None] * 4)
    oh = conv_output_size(xs[1].value, ksize[1], strides[1], padding)[0]
    ow = conv_output_size(xs[2].value, ksize[2], strides[2], padding)[0]
    return TensorShape([xs[0].value, oh, ow, xs[3].value])


@register_op("MaxPool", shape=_pool_shape)
def _max_pool_kernel(xp, x, *, ksize, strides, padding):
    kh, kw, sh, sw = ksize[1], ksize[2], strides[1], strides[2]
    xpad, oh, ow, _, _ = padded_input(xp, x, kh, kw, sh, sw, padding, fill=-np.inf)
    return _pool_by_positions(xp, x, xpad, kh, kw, sh, sw, oh, ow, xp.maximum)


def _pool_by_positions(xp, x, xpad, kh, kw, sh, sw, oh, ow, combine):
    """The windows of ``xpad`` combined (``xp.maximum``, ``xp.add``) one window position
    at a time: kh * kw passes over output-sized strided slices, by pieces of the batch at
    once. Reducing a strided view of all the windows at once (``.max(axis=(3, 4))``) took
    13.6 ms for 3x3/1 max pooling of 64x28x28x32, against 3.3 ms so (2.9 against 0.85 ms
    for 2x2/2 average pooling)."""
    out = xp.empty((x.shape[0], oh, ow, x.shape[3]), dtype=x.dtype)
    hi, wi = (oh - 1) * sh + 1, (ow - 1) * sw + 1

    def pool(a, b):  # (images a to b of the batch)
        o = out[a:b]
        for i in range(kh):
            for j in range(kw):
                window = xpad[a:b, i:i + hi:sh, j:j + wi:sw, :]
                if i == j == 0:
                    xp.copyto(o, window)
                else:
                    combine(o, window, out=o)

    intra_op.run_split(x.shape[0], x.nbytes, pool)
    return out


def _tiles(xpad, oh, ow, kh, kw):
    """[N, OH, KH, OW, KW, C]: the windows of a pooling whose stride is its window, as a view."""
    return xpad[:, :oh * kh, :ow * kw, :].reshape(xpad.shape[0], oh, kh, ow, kw, xpad.shape[3])


@register_op("MaxPoolGrad", shape=lambda op: op.inputs[0].shape)
def _max_pool_grad_kernel(xp, x, y, grad, *, ksize, strides, padding):
    """Routes each window's gradient to the first position holding its maximum (as TF)."""
    kh, kw, sh, sw = ksize[1], ksize[2], strides[1], strides[2]
    xpad, oh, ow, ph, pw = padded_input(xp, x, kh, kw, sh, sw, padding, fill=-np.inf)
    if (kh, kw) == (sh, sw):
        return _tiled_max_pool_grad(xp, x, xpad, y, grad, oh, ow, ph, pw, kh, kw)
    # Overlapping windows: a pass per window position over output-sized strided slices, as
    # in the tiled kernel, each adding where its windows route (an input may be the maximum
    # of several windows). The argmax over a transposed copy of all the windows took 87 ms
    # for 3x3/1 pooling of 64x28x28x32, against 20.6 ms so (21 against 4.9 ms for 3x3/2).
    dxpad = xp.zeros(xpad.shape, dtype=grad.dtype)
    hi, wi = (oh - 1) * sh + 1, (ow - 1) * sw + 1

    def route(a, b):  # (for images a to b of the batch)
        taken = xp.zeros(y[a:b].shape, dtype=bool)
        hit = xp.empty(y[a:b].shape, dtype=bool)
        share = xp.empty(y[a:b].shape, dtype=grad.dtype)
        for i in range(kh):
            for j in range(kw):
                xp.equal(xpad[a:b, i:i + hi:sh, j:j + wi:sw, :], y[a:b], out=hit)
                xp.greater(hit, taken, out=hit)  # (the first position holding the maximum takes it)
                taken |= hit
                xp.multiply(hit, grad[a:b], out=share)
                dxpad[a:b, i:i + hi:sh, j:j + wi:sw, :] += share

    intra_op.run_split(x.shape[0], x.nbytes, route)
    return dxpad[:, ph:ph + x.shape[1], pw:pw + x.shape[2], :]


def _tiled_max_pool_grad(xp, x, xpad, y, grad, oh, ow, ph, pw, kh, kw):
    """MaxPoolGrad where the windows tile the input (stride = window, as 2x2/2 pooling does).

    Each input belongs to one window at most, so the windows are a view of the input,
    not a gather: a pass per window position (kh * kw of them, on output-sized arrays)
    finds where the maximum is, keeps the first of tied ones, and routes the gradient
    there. The general kernel's argmax needs a transposed copy of all the windows and a
    pass over the whole input per position (16.4 vs 3.5 ms for 64x28x28x32, 2x2/2).
    """
    dxpad = xp.empty(xpad.shape, dtype=grad.dtype) if xpad.shape == tiled_shape(xpad, oh, ow, kh, kw) \
        else xp.zeros(xpad.shape, dtype=grad.dtype)
    tiles, dtiles = _tiles(xpad, oh, ow, kh, kw), _tiles(dxpad, oh, ow, kh, kw)
    last = (kh - 1, kw - 1)

    def route(a, b):  # (for images a to b of the batch)
        taken = None
        hit = xp.empty(y[a:b].shape, dtype=bool)
        for i in range(kh):
            for j in range(kw):
                xp.equal(tiles[a:b, :, i, :, j], y[a:b], out=hit)
                if taken is None:  # the first position takes every window whose maximum it holds
                    taken = hit.copy()
                else:  # the others only where no earlier position did (hit and not taken)
                    xp.greater(hit, taken, out=hit)
                    if (i, j) != last:
                        taken |= hit
                xp.multiply(hit, grad[a:b], out=dtiles[a:b, :, i, :, j])

    intra_op.run_split(x.shape[0], x.nbytes, route)
    return dxpad[:, ph:ph + x.shape[1], pw:pw + x.shape[2], :]


def tiled_shape(xpad, oh, ow, kh, kw) -> tuple:
    """The shape the windows of a tiling pooling cover (all of ``xpad`` when it divides evenly)."""
    return (xpad.shape[0], oh * kh, ow * kw, xpad.shape[3])


def _pool_attrs(op):
    return {k: op._attr(k) for k in ("ksize", "strides", "padding")}


@register_gradient("MaxPool")
def _max_pool_grad(op, grad):
    return (make_tensor("MaxPoolGrad", [op.inputs[0], op.outputs[0], grad], _pool_attrs(op), "MaxPoolGrad"),)


@register_op("MaxPoolGradGrad", shape=lambda op: op.inputs[1].shape)
def _max_pool_grad_grad_kernel(xp, x, y, grad, *, ksize, strides, padding):
    """For each window, ``grad`` (shaped as the input) where MaxPoolGrad routed that window:
    the first position holding its maximum. MaxPoolGrad's adjoint."""
    kh, kw, sh, sw = ksize[1], ksize[2], strides[1], strides[2]
    xpad, oh, ow, ph, pw = padded_input(xp, x, kh, kw, sh, sw, padding, fill=-np.inf)
    gpad = xp.zeros(xpad.shape, dtype=grad.dtype)
    gpad[:, ph:ph + x.shape[1], pw:pw + x.shape[2], :] = grad
    hi, wi = (oh - 1) * sh + 1, (ow - 1) * sw + 1
    out = xp.zeros(y.shape, dtype=grad.dtype)
    taken = xp.zeros(y.shape, dtype=bool)
    for i in range(kh):
        for j in range(kw):
            hit = (xpad[:, i:i + hi:sh, j:j + wi:sw, :] == y) & ~taken
            taken |= hit
            out += xp.where(hit, gpad[:, i:i + hi:sh, j:j + wi:sw, :], 0)
    return out


@register_gradient("MaxPoolGrad")
def _max_pool_grad_grad(op, grad):
    # (the routing is constant where the maxima are unique: nothing flows to x or y)
    x, y, _ = op.inputs
    return (make_tensor("ZerosLike", [x]), make_tensor("ZerosLike", [y]),
            make_tensor("MaxPoolGradGrad", [x, y, grad], _pool_attrs(op), "MaxPoolGradGrad"))


@register_gradient("MaxPoolGradGrad")
def _max_pool_grad_grad_grad(op, grad):
    x, y, _ = op.inputs
    return (make_tensor("ZerosLike", [x]), make_tensor("ZerosLike", [y]),
            make_tensor("MaxPoolGrad", [x, y, grad], _pool_attrs(op), "MaxPoolGrad"))


def _avg_counts(xp, h, w, kh, kw, sh, sw, padding, dtype):
    """How many real (unpadded) inputs each output window covers."""
    ones = xp.ones((1, h, w, 1), dtype=dtype)
    opad, oh, ow, _, _ = padded_input(xp, ones, kh, kw, sh, sw, padding)
    return window_view(xp, opad, kh, kw, sh, sw, oh, ow).sum(axis=(3, 4))


@register_op("AvgPool", shape=_pool_shape)
def _avg_pool_kernel(xp, x, *, ksize, strides, padding):
    kh, kw, sh, sw = ksize[1], ksize[2], strides[1], strides[2]
    xpad, oh, ow, _, _ = padded_input(xp, x, kh, kw, sh, sw, padding)
    total = _pool_by_positions(xp, x, xpad, kh, kw, sh, sw, oh, ow, xp.add)
    total /= _avg_counts(xp, x.shape[1], x.shape[2], kh, kw, sh, sw, padding, x.dtype)
    return total


@register_op("AvgPoolGrad", shape=lambda op: constant_shape(op.inputs[0]),
             dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _avg_pool_grad_kernel(xp, input_shape, grad, *, ksize, strides, padding):
    n, h, w, c = input_shape.tolist()
    kh, kw, sh, sw = ksize[1], ksize[2], strides[1], strides[2]
    oh, ph = conv_output_size(h, kh, sh, padding)
    ow, pw = conv_output_size(w, kw, sw, padding)
    share = grad / _avg_counts(xp, h, w, kh, kw, sh, sw, padding, grad.dtype)
    dxpad = xp.zeros((n, max(h + ph, (oh - 1) * sh + kh), max(w + pw, (ow - 1) * sw + kw), c), dtype=grad.dtype)
    for i in range(kh):
        for j in range(kw):
            dxpad[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw, :] += share
    return dxpad[:, ph:ph + h, pw:pw + w, :]


@register_gradient("AvgPool")
def _avg_pool_grad(op, grad):
    return (make_tensor("AvgPoolGrad", [shape_of(op.inputs[0]), grad], _pool_attrs(op), "AvgPoolGrad"),)


@register_gradient("AvgPoolGrad")
def _avg_pool_grad_grad(op, grad):
    return None, make_tensor("AvgPool", [grad], _pool_attrs(op), "AvgPool")


def _pool(op_type, value, ksize, strides, padding, data_format, name):
    if _is_nchw(data_format):
        return _nchw(lambda t: _pool(op_type, t, _nhwc_order(ksize, "ksize"), _nhwc_order(strides, "strides"),
                                     padding, "NHWC", None), value, name)
    x = ops.convert_to_tensor(value)
    if x.dtype.base_dtype not in FLOATS:
        raise TypeError(f"{op_type} needs a floating input, got {x.dtype.name}")
    attrs = {"ksize": _check_4("ksize", ksize), "strides": _check_4("strides", strides),
             "padding": _check_padding(padding)}
    return make_tensor(op_type, [x], attrs, name or op_type)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None) -> ops.Tensor:  # noqa: A002
    """Max pooling; the window and strides may be an int or 1, 2 or 4 ints (TF 1.15's). A
    window over channels alone (``ksize=[1, 1, 1, k]``, NHWC, strides the same) takes the
    maximum of each k consecutive channels (TF's depthwise max pooling)."""
    value = value if value is not None else input
    ksize, strides = pool_window("ksize", ksize, 2, data_format), pool_window("strides", strides, 2, data_format)
    if not _is_nchw(data_format) and len(ksize) == 4 and ksize[3] != 1:
        return _depthwise_max_pool(value, ksize, strides, padding, name)
    return _pool("MaxPool", value, ksize, strides, padding, data_format, name)


def _depthwise_max_pool(value, ksize, strides, padding, name) -> ops.Tensor:
    """The maximum over each ``ksize[3]`` consecutive channels (a reshape and a max: its gradient
    is the max's), with TF's checks."""
    x = ops.convert_to_tensor(value)
    depth = x.shape[-1].value if x.shape.ndims == 4 else None
    k = int(ksize[3])
    if ksize[1] != 1 or ksize[2] != 1 or ksize[0] != 1:
        raise ValueError(f"MaxPool: only pooling across depth or across width/height is supported: exactly one of "
                         f"pooling across depth or pooling across width/height, got ksize {list(ksize)}")
    if list(strides) != [1, 1, 1, k]:
        raise ValueError(f"MaxPool: depthwise max pooling requires the depth window to equal the depth stride "
                         f"(and the other strides to be 1), got ksize {list(ksize)} and strides {list(strides)}")
    if depth is None or depth % k:
        raise ValueError(f"MaxPool: depthwise max pooling requires the depth window to evenly divide the input "
                         f"depth, got a window of {k} over {depth if depth is not None else 'an unknown'} channels")
    _check_padding(padding)
    with ops.name_scope(name, "MaxPool", [x]):
        dims = array_ops.shape(x)
        grouped = array_ops.reshape(x, slicing_ops.concat([dims[:3], [depth // k, k]], 0))
        out = reduction_ops.reduce_max(grouped, axis=4)
        out.set_shape(x.shape[:3].concatenate([depth // k]))
        return out


def pool_window(name: str, value, spatial: int, data_format: str) -> list:
    """A pooling window or stride given as TF 1.15's pools take it (an int, or 1, ``spatial``
    or ``spatial`` + 2 ints) as the ``spatial`` + 2 values of ``data_format``."""
    values = [value] if isinstance(value, int) else list(value)
    if len(values) == spatial + 2:
        return values
    if len(values) not in (1, spatial):
        raise ValueError(f"{name} should be of length 1, {spatial} or {spatial + 2}, got {value!r}")
    window = values * spatial if len(values) == 1 else values
    return [1, 1] + window if data_format.startswith("NC") else [1] + window + [1]


max_pool2d = max_pool


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None) -> ops.Tensor:  # noqa: A002
    """Average pooling; the window and strides may be an int or 1, 2 or 4 ints (TF 1.15's)."""
    return _pool("AvgPool", value if value is not None else input, pool_window("ksize", ksize, 2, data_format),
                 pool_window("strides", strides, 2, data_format), padding, data_format, name)


avg_pool2d = avg_pool


# ---------------------------------------------------------------------------
# Transposed convolution and the gradients as public functions


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None, padding=None,  # noqa: A002
                          use_cudnn_on_gpu=True, data_format="NHWC", dilations=(1, 1, 1, 1), name=None,
                          filters=None) -> ops.Tensor:
    """The gradient of conv2d with respect to its input, of shape ``input_sizes``; with
    ``dilations``, of the dilated convolution (its filter dilated, as conv2d does it). With
    NCHW, ``input_sizes``, ``strides`` and ``dilations`` are in that order, and the gradient
    is taken in NHWC between two transposes."""
    if _is_nchw(data_format):
        strides, dilations = (_nhwc_order(_spatial_4(v, what, True), what)
                              for v, what in ((strides, "strides"), (dilations, "dilations")))
        with ops.name_scope(name, "Conv2DBackpropInput", [out_backprop]) as scope:
            sizes = slicing_ops.gather(ops.convert_to_tensor(input_sizes, dtype=dtypes.int32), [0, 2, 3, 1])
            return _nchw(lambda dy: conv2d_backprop_input(sizes, filter if filter is not None else filters, dy,
                                                          strides, padding, dilations=dilations),
                         out_backprop, scope)
    f = ops.convert_to_tensor(filter if filter is not None else filters)
    dy = ops.convert_to_tensor(out_backprop, dtype=f.dtype.base_dtype)
    sizes = ops.convert_to_tensor(input_sizes, dtype=dtypes.int32)
    return make_tensor("Conv2DBackpropInput", [sizes, f, dy], _conv_attrs(strides, padding, dilations),
                       name or "Conv2DBackpropInput")


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                           data_format="NHWC", dilations=(1, 1, 1, 1), name=None) -> ops.Tensor:
    """The gradient of conv2d with respect to its filter, of shape ``filter_sizes``; with
    ``dilations``, of the dilated convolution (the gradient of the dilated filter, taken
    at the filter's own taps). With NCHW, the input, ``out_backprop``, ``strides`` and
    ``dilations`` are in that order (the filter's shape is the same)."""
    if _is_nchw(data_format):
        strides, dilations = (_nhwc_order(_spatial_4(v, what, True), what)
                              for v, what in ((strides, "strides"), (dilations, "dilations")))
        with ops.name_scope(name, "Conv2DBackpropFilter", [input, out_backprop]) as scope:
            x, dy = (array_ops.transpose(t, [0, 2, 3, 1], name="to_NHWC") for t in (input, out_backprop))
            return conv2d_backprop_filter(x, filter_sizes, dy, strides, padding, dilations=dilations, name=scope)
    x = ops.convert_to_tensor(input)
    dy = ops.convert_to_tensor(out_backprop, dtype=x.dtype.base_dtype)
    sizes = ops.convert_to_tensor(filter_sizes, dtype=dtypes.int32)
    return make_tensor("Conv2DBackpropFilter", [x, sizes, dy], _conv_attrs(strides, padding, dilations),
                       name or "Conv2DBackpropFilter")


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NHWC", name=None, input=None, filters=None, dilations=None) -> ops.Tensor:
    """The transpose of conv2d (a "deconvolution"): ``filter`` is [h, w, out_channels, in_channels]."""
    value = value if value is not None else input
    f = filter if filter is not None else filters
    with ops.name_scope(name, "conv2d_transpose", [value, f, output_shape]) as scope:
        if dilations not in (None, 1, [1, 1, 1, 1], (1, 1, 1, 1)):
            rates = _spatial_4(dilations, "dilations", _is_nchw(data_format))
            rate_h, rate_w = rates[2:] if _is_nchw(data_format) else rates[1:3]
            f = dilate_filter(ops.convert_to_tensor(f), rate_h, rate_w)
        return conv2d_backprop_input(output_shape, f, value, strides, padding, data_format=data_format,
                                     name=scope)


# ---------------------------------------------------------------------------
# Depthwise convolution: each input channel with its own [h, w] filters
#
# One pass per filter position over output-sized strided slices (as pooling), by pieces of
# the batch at once: a depthwise product has no inner dimension for a GEMM to use (each
# output reads one channel), and TensorFlow's DepthwiseConv2dNative is such a loop too.


_BLOCK_BYTES = 1 << 19  # images at a time whose output stays in cache across the kh*kw passes


def _by_blocks(n: int, image_bytes: int, fn) -> None:
    """``fn(start, stop)`` over [0, n) images: in pieces on the cores BLAS may use, and in
    each piece by blocks of images whose working set stays in cache (one image of 32x32x64
    float32: 9.5 against 15.9 ms for a 3x3 depthwise pass over 32 of them whole)."""
    block = max(1, _BLOCK_BYTES // max(1, image_bytes))

    def piece(a, b):
        for start in range(a, b, block):
            fn(start, min(start + block, b))

    intra_op.run_split(n, n * image_bytes, piece)


@register_op("DepthwiseConv2dNative", shape=lambda op: _conv_shape(op, depthwise=True))
@half_in_float32
def _depthwise_kernel(xp, x, f, *, strides, padding, dilations=(1, 1, 1, 1)):
    kh, kw, c, m = f.shape
    sh, sw = strides[1], strides[2]
    dh, dw = dilations[1], dilations[2]  # (the taps that many rows and columns apart)
    xpad, oh, ow, _, _ = padded_input(xp, x, (kh - 1) * dh + 1, (kw - 1) * dw + 1, sh, sw, padding)
    hi, wi = (oh - 1) * sh + 1, (ow - 1) * sw + 1
    # (a multiplier of 1 keeps the channels the last axis: NumPy's inner loop runs along it)
    out = xp.zeros((x.shape[0], oh, ow, c) if m == 1 else (x.shape[0], oh, ow, c, m), dtype=x.dtype)
    taps = f[..., 0] if m == 1 else f

    def convolve(a, b):  # (images a to b)
        o = out[a:b]
        part = xp.empty(o.shape, dtype=x.dtype)
        for i in range(kh):
            for j in range(kw):
                window = xpad[a:b, i * dh:i * dh + hi:sh, j * dw:j * dw + wi:sw, :]
                xp.multiply(window if m == 1 else window[..., None], taps[i, j], out=part)
                o += part

    _by_blocks(x.shape[0], out[0].nbytes, convolve)
    return out.reshape(x.shape[0], oh, ow, c * m)


@register_op("DepthwiseConv2dNativeBackpropInput", shape=lambda op: constant_shape(op.inputs[0]),
             dtype=lambda op: op.inputs[1].dtype.base_dtype)
@half_in_float32
def _depthwise_backprop_input_kernel(xp, input_sizes, f, dy, *, strides, padding, dilations=(1, 1, 1, 1)):
    n, h, w, c = input_sizes.tolist()
    kh, kw, _, m = f.shape
    sh, sw = strides[1], strides[2]
    dh, dw = dilations[1], dilations[2]
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    oh, ph = conv_output_size(h, ekh, sh, padding)
    ow, pw = conv_output_size(w, ekw, sw, padding)
    hi, wi = (oh - 1) * sh + 1, (ow - 1) * sw + 1
    dxpad = xp.zeros((n, max(h + ph, hi + ekh - 1), max(w + pw, wi + ekw - 1), c), dtype=dy.dtype)
    dy = dy.reshape((n, oh, ow, c) if m == 1 else (n, oh, ow, c, m))
    taps = f[..., 0] if m == 1 else f

    def route(a, b):  # (images a to b)
        part = xp.empty(dy[a:b].shape, dtype=dy.dtype)
        for i in range(kh):
            for j in range(kw):
                xp.multiply(dy[a:b], taps[i, j], out=part)
                dxpad[a:b, i * dh:i * dh + hi:sh, j * dw:j * dw + wi:sw, :] += part if m == 1 else part.sum(axis=-1)

    _by_blocks(n, dxpad[0].nbytes, route)
    return dxpad[:, ph:ph + h, pw:pw + w, :]


@register_op("DepthwiseConv2dNativeBackpropFilter", shape=lambda op: constant_shape(op.inputs[1]),
             dtype=lambda op: op.inputs[0].dtype.base_dtype)
@half_in_float32
def _depthwise_backprop_filter_kernel(xp, x, filter_sizes, dy, *, strides, padding, dilations=(1, 1, 1, 1)):
    kh, kw, c, m = (int(d) for d in filter_sizes)
    sh, sw = strides[1], strides[2]
    dh, dw = dilations[1], dilations[2]
    xpad, oh, ow, _, _ = padded_input(xp, x, (kh - 1) * dh + 1, (kw - 1) * dw + 1, sh, sw, padding)
    hi, wi = (oh - 1) * sh + 1, (ow - 1) * sw + 1
    n = x.shape[0]
    dy = dy.reshape(n, oh, ow, c, m)
    partials = []  # (one [kh, kw, c, m] sum per block of images, added at the end)

    def gather(a, b):  # (images a to b)
        df = xp.empty((kh, kw, c, m), dtype=dy.dtype)
        part = xp.empty((b - a, oh, ow, c), dtype=dy.dtype)
        for i in range(kh):
            for j in range(kw):
                window = xpad[a:b, i * dh:i * dh + hi:sh, j * dw:j * dw + wi:sw, :]
                for k in range(m):  # (window * dy summed over images and positions, per channel)
                    xp.multiply(window, dy[a:b, ..., k], out=part)
                    df[i, j, :, k] = part.reshape(-1, c).sum(axis=0)
        partials.append(df)

    _by_blocks(n, dy[0].nbytes, gather)
    return functools.reduce(xp.add, partials, xp.zeros((kh, kw, c, m), dtype=dy.dtype))


register_convolution_gradients("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                               "DepthwiseConv2dNativeBackpropFilter")
