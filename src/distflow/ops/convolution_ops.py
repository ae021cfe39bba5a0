"""``tf.nn``'s convolutions and pooling beyond conv2d's own op (conv_ops.py): 1-D and N-D
convolution and pooling (``conv1d``, ``convolution``, ``pool``, ``max_pool_v2``), dilated
pooling through ``with_space_to_batch``, depthwise and separable convolutions with the
depthwise gradients, transposed convolutions of any rank, and max pooling with argmax."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, conv_ops, slicing_ops, space_batch_ops
from .conv3d_ops import conv3d_transpose
from .op_util import FLOATS, make_tensor, only_default

# ---------------------------------------------------------------------------
# 1-D, generic and grouped convolutions


def _channels_first(data_format, what: str) -> bool:
    """Whether ``data_format`` puts channels before the spatial dimensions ("NCW", "NCHW", ...)."""
    if data_format is None:
        return False
    if not isinstance(data_format, str) or not data_format.startswith("N") or data_format[1] not in "CWHD":
        raise ValueError(f"{what}: unknown data_format {data_format!r}")
    return data_format[1] == "C"


def _spatial(values, rank: int, channels_first: bool, what: str, name: str) -> list[int]:
    """``values`` (an int, ``rank`` ints, or ``rank + 2`` ints in the data format's order) as ``rank`` ints."""
    if values is None:
        return [1] * rank
    if isinstance(values, (int, np.integer)):
        return [int(values)] * rank
    values = [int(v) for v in values]
    if len(values) == rank:
        return values
    if len(values) == rank + 2:
        return values[2:] if channels_first else values[1:-1]
    raise ValueError(f"{what}: {name} must be an int or {rank} (or {rank + 2}) ints, got {values}")


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None, data_format=None,
           name=None, input=None, dilations=None):  # noqa: A002
    """A 1-D convolution of [batch, width, in] ("NWC") or [batch, in, width] ("NCW") with
    [k, in, out] filters, as a 2-D one of height 1; ``dilations`` as in TF."""
    value = input if value is None else value
    first = _channels_first(data_format, "conv1d")
    (s,) = _spatial(stride, 1, first, "conv1d", "stride")
    (d,) = _spatial(dilations, 1, first, "conv1d", "dilations")
    with ops.name_scope(name, "conv1d", [value, filters]):
        x = array_ops.expand_dims(ops.convert_to_tensor(value), 2 if first else 1)
        f = array_ops.expand_dims(ops.convert_to_tensor(filters), 0)
        if first:
            out = conv_ops.conv2d(x, f, [1, 1, 1, s], padding, data_format="NCHW", dilations=[1, 1, 1, d])
        else:
            out = conv_ops.conv2d(x, f, [1, 1, s, 1], padding, dilations=[1, 1, d, 1])
        return array_ops.squeeze(out, [2 if first else 1])


def _pool1d(fn, value, ksize, strides, padding, data_format, name, default):
    first = _channels_first(data_format, default)
    (k,) = _spatial(ksize, 1, first, default, "ksize")
    (s,) = _spatial(strides, 1, first, default, "strides")
    with ops.name_scope(name, default, [value]):
        x = array_ops.expand_dims(ops.convert_to_tensor(value), 2 if first else 1)
        if first:
            out = fn(x, [1, 1, 1, k], [1, 1, 1, s], padding, data_format="NCHW")
        else:
            out = fn(x, [1, 1, k, 1], [1, 1, s, 1], padding)
        return array_ops.squeeze(out, [2 if first else 1])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    return _pool1d(conv_ops.max_pool, input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    return _pool1d(conv_ops.avg_pool, input, ksize, strides, padding, data_format, name, "AvgPool1D")


def _pool_nd(kind: str, input, ksize, strides, padding, data_format, name):  # noqa: A002
    """max or average pooling over the 1, 2 or 3 spatial dimensions of ``input``'s rank."""
    from . import conv3d_ops  # noqa: PLC0415

    x = ops.convert_to_tensor(input)
    rank = x.shape.ndims - 2 if x.shape.ndims is not None else None
    if rank == 1:
        return (max_pool1d if kind == "MAX" else avg_pool1d)(x, ksize, strides, padding, data_format or "NWC", name)
    if rank not in (2, 3):
        raise ValueError(f"pooling needs an input of rank 3, 4 or 5, got {x.shape}")
    first = _channels_first(data_format, "pool")
    window = _spatial(ksize, rank, first, "pool", "ksize")
    steps = _spatial(strides, rank, first, "pool", "strides")
    full = (lambda v: [1, 1, *v]) if first else (lambda v: [1, *v, 1])
    if rank == 2:
        fn = conv_ops.max_pool if kind == "MAX" else conv_ops.avg_pool
        return fn(x, full(window), full(steps), padding, data_format="NCHW" if first else "NHWC", name=name)
    fn = conv3d_ops.max_pool3d if kind == "MAX" else conv3d_ops.avg_pool3d
    return fn(x, full(window), full(steps), padding, data_format="NCDHW" if first else "NDHWC", name=name)


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Max pooling over the spatial dimensions of a rank 3, 4 or 5 ``input``."""
    return _pool_nd("MAX", input, ksize, strides, padding, data_format, name)


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """Average pooling over the spatial dimensions of a rank 3, 4 or 5 ``input``."""
    return _pool_nd("AVG", input, ksize, strides, padding, data_format, name)


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,  # noqa: A002
                        data_format=None):
    """``op(converted_input, num_spatial_dims, padding)`` on a dilated grid, as TF's: the
    input is rearranged with space_to_batch_nd by ``dilation_rate`` (padded for "SAME" by
    the dilated ``filter_shape``), ``op`` runs with "VALID", and batch_to_space_nd puts the
    result back. Channels last (NWC, NHWC, NDHWC)."""
    x = ops.convert_to_tensor(input)
    rate = [int(r) for r in (dilation_rate if not isinstance(dilation_rate, int) else [dilation_rate])]
    if _channels_first(data_format, "with_space_to_batch") or spatial_dims not in (None, list(range(1, len(rate) + 1))):
        raise errors.UnimplementedError(None, None, "with_space_to_batch supports channels-last inputs and their "
                                        "leading spatial dimensions only")
    if all(r == 1 for r in rate):
        return op(x, len(rate), padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        extra = [(int(k) - 1) * r for k, r in zip(filter_shape, rate)]
        base = [[e // 2, e - e // 2] for e in extra]
    elif padding == "VALID":
        base = [[0, 0]] * len(rate)
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    spatial_shape = array_ops.shape(x)[1:1 + len(rate)]
    paddings, crops = space_batch_ops.required_space_to_batch_paddings(spatial_shape, rate, base)
    converted = space_batch_ops.space_to_batch_nd(x, rate, paddings)
    if x.shape.ndims is not None:
        converted.set_shape([None] * x.shape.ndims)  # (its rank is the input's)
    result = space_batch_ops.batch_to_space_nd(op(converted, len(rate), "VALID"), rate, crops)
    if x.shape.ndims is not None:
        result.set_shape([None] * x.shape.ndims)
    return result


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None, name=None,  # noqa: A002
         data_format=None, dilations=None):
    """N-D pooling (1, 2 or 3 spatial dimensions), ``pooling_type`` "MAX" or "AVG"; a
    ``dilation_rate`` above 1 pools over a dilated window (strides must then be 1), as TF
    does it: with space_to_batch_nd, and zeros as the padding of "SAME"."""
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"Invalid pooling_type: {pooling_type}")
    window_shape = [int(w) for w in window_shape]
    rank = len(window_shape)
    rate = [int(r) for r in (dilation_rate or dilations or [1] * rank)]
    strides = [int(v) for v in (strides or [1] * rank)]
    if len(rate) != rank or len(strides) != rank:
        raise ValueError(f"pool: dilation_rate and strides need {rank} values each, got {rate} and {strides}")
    if any(r > 1 for r in rate) and any(v != 1 for v in strides):
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    with ops.name_scope(name, f"{pooling_type.lower()}_pool", [input]) as scope:
        if all(r == 1 for r in rate):  # (the pool named by the scope, as TF's)
            return _pool_nd(pooling_type, input, window_shape, strides, padding, data_format, scope)
        x = ops.convert_to_tensor(input)
        first = data_format is not None and data_format.startswith("NC")
        if first:  # (dilated: channels last for space_to_batch, and back)
            x = array_ops.transpose(x, [0] + list(range(2, rank + 2)) + [1])
        out = with_space_to_batch(x, rate, padding,
                                  lambda t, _, pad: _pool_nd(pooling_type, t, window_shape, strides, pad, None, None),
                                  filter_shape=window_shape)
        if x.shape.ndims is not None:  # (what space_to_batch's dynamic shapes lose)
            spatial = [None if d is None else d if padding == "SAME" else d - (w - 1) * r
                       for d, w, r in zip(x.shape.as_list()[1:-1], window_shape, rate)]
            out.set_shape([x.shape[0].value] + spatial + [x.shape[-1].value])
        if first:
            return array_ops.transpose(out, [0, rank + 1] + list(range(1, rank + 1)), name=scope)
        return array_ops.identity(out, name=scope)


def convolution(input, filter, padding, strides=None, dilation_rate=None, name=None, data_format=None,  # noqa: A002
                filters=None, dilations=None):
    """N-D convolution by the filter's rank (1, 2 or 3 spatial dimensions), with strides,
    ``dilation_rate`` and ``data_format`` as in TF."""
    from . import conv3d_ops  # noqa: PLC0415

    f = ops.convert_to_tensor(filter if filter is not None else filters)
    rank = f.shape.ndims - 2
    first = _channels_first(data_format, "convolution")
    steps = _spatial(strides, rank, first, "convolution", "strides")
    rate = _spatial(dilation_rate if dilation_rate is not None else dilations, rank, first, "convolution",
                    "dilation_rate")
    if any(r > 1 for r in rate) and any(v != 1 for v in steps):
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    full = (lambda v: [1, 1, *v]) if first else (lambda v: [1, *v, 1])
    with ops.name_scope(name, "convolution", [input, f]):
        if rank == 1:
            return conv1d(input, f, steps[0], padding, data_format="NCW" if first else "NWC", dilations=rate[0])
        if rank == 2:
            return conv_ops.conv2d(input, f, full(steps), padding, data_format="NCHW" if first else "NHWC",
                                   dilations=full(rate))
        if rank == 3:
            return conv3d_ops.conv3d(input, f, full(steps), padding, data_format="NCDHW" if first else "NDHWC",
                                     dilations=full(rate))
    raise ValueError(f"convolution supports filters of rank 3, 4 or 5, got {f.shape}")


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None,  # noqa: A002
                     dilations=None):
    """Each input channel convolved with its own ``channel_multiplier`` filters
    ([h, w, in, multiplier]): output channel ``c * multiplier + k`` is input channel ``c``
    with filter ``[:, :, c, k]``. ``rate`` (or ``dilations``) > 1 is the atrous form, which
    needs strides of 1 (as in TensorFlow)."""
    rate = rate if rate is not None else (list(dilations)[1:3] if dilations is not None and len(dilations) == 4
                                          else dilations)
    rate = [1, 1] if rate is None else [int(v) for v in rate]
    if len(rate) != 2 or min(rate) < 1:
        raise ValueError(f"rate must be two positive integers, got {rate}")
    if rate != [1, 1] and list(strides)[1:3] != [1, 1]:
        raise ValueError("strides > 1 not supported in conjunction with rate > 1")
    return depthwise_conv2d_native(input, filter, strides, padding, data_format=data_format,
                                   dilations=[1, rate[0], rate[1], 1], name=name or "depthwise")


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002
                            dilations=(1, 1, 1, 1), name=None):
    """TensorFlow's DepthwiseConv2dNative: ``depthwise_conv2d`` with NHWC (or NCHW) strides
    and dilations."""
    if conv_ops._is_nchw(data_format):
        return conv_ops._nchw(lambda t: depthwise_conv2d_native(
            t, filter, conv_ops._nhwc_order(strides, "strides"), padding,
            dilations=conv_ops._nhwc_order(dilations, "dilations")), input, name)
    x = ops.convert_to_tensor(input)
    f = ops.convert_to_tensor(filter, dtype=x.dtype.base_dtype)
    if x.dtype.base_dtype not in FLOATS:
        raise TypeError(f"depthwise_conv2d needs a floating input, got {x.dtype.name}")
    attrs = conv_ops._conv_attrs(strides, padding, dilations)
    return make_tensor("DepthwiseConv2dNative", [x, f], attrs, name or "DepthwiseConv2dNative")


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    """A depthwise convolution followed by a 1x1 convolution that mixes the channels."""
    with ops.name_scope(name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]):
        depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, rate=rate, data_format=data_format,
                                     dilations=dilations)
        return conv_ops.conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID",
                               data_format=data_format or "NHWC")


# ---------------------------------------------------------------------------
# Gradients of the depthwise convolution, transposed convolutions of any rank, argmax pooling


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                                           name=None, data_format="NHWC", dilations=None):
    """The gradient of ``depthwise_conv2d`` with respect to its input (of shape ``input_sizes``)."""
    f = ops.convert_to_tensor(filter)
    return _depthwise_gradient("DepthwiseConv2dNativeBackpropInput", [
        ops.convert_to_tensor(input_sizes, dtype=dtypes.int32), f,
        ops.convert_to_tensor(out_backprop, dtype=f.dtype.base_dtype)], strides, padding, data_format, dilations,
        name)


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                                            name=None, data_format="NHWC", dilations=None):
    """The gradient of ``depthwise_conv2d`` with respect to its filter (of shape ``filter_sizes``)."""
    x = ops.convert_to_tensor(input)
    return _depthwise_gradient("DepthwiseConv2dNativeBackpropFilter", [
        x, ops.convert_to_tensor(filter_sizes, dtype=dtypes.int32),
        ops.convert_to_tensor(out_backprop, dtype=x.dtype.base_dtype)], strides, padding, data_format, dilations,
        name)


def _depthwise_gradient(op_type: str, inputs: list, strides, padding, data_format, dilations, name) -> ops.Tensor:
    conv_ops._check_format(data_format, "depthwise_conv2d's gradients")
    attrs = conv_ops._conv_attrs(strides, padding, [1, 1, 1, 1] if dilations is None else dilations)
    return make_tensor(op_type, inputs, attrs, name or op_type)


depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose of conv1d: ``filters`` is [width, out_channels, in_channels]; with
    "NCW", ``input`` and ``output_shape`` are [batch, channels, width]."""
    first = _channels_first(data_format, "conv1d_transpose")
    (stride,) = _spatial(strides, 1, first, "conv1d_transpose", "strides")
    (rate,) = _spatial(dilations, 1, first, "conv1d_transpose", "dilations")
    with ops.name_scope(name, "conv1d_transpose", [input, filters, output_shape]):
        x = ops.convert_to_tensor(input)
        shape = ops.convert_to_tensor(output_shape, dtype=dtypes.int32)
        if first:  # (as NWC, between transposes)
            x, shape = array_ops.transpose(x, [0, 2, 1]), slicing_ops.gather(shape, [0, 2, 1])
        shape4 = slicing_ops.concat([shape[:1], [1], shape[1:]], 0)
        out = conv_ops.conv2d_transpose(array_ops.expand_dims(x, 1),
                                        array_ops.expand_dims(ops.convert_to_tensor(filters), 0), shape4,
                                        [1, 1, stride, 1], padding, dilations=[1, 1, rate, 1])
        out = array_ops.squeeze(out, [1])
        return array_ops.transpose(out, [0, 2, 1]) if first else out


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None):
    """conv1d_transpose, conv2d_transpose or conv3d_transpose, by the length of ``output_shape``
    (``data_format`` that rank's: "NWC" or "NCW", "NHWC" or "NCHW", "NDHWC" or "NCDHW")."""
    rank = ops.convert_to_tensor(output_shape).shape[0].value
    formats = {3: ("NWC", "NCW"), 4: ("NHWC", "NCHW"), 5: ("NDHWC", "NCDHW")}
    if rank not in formats:
        raise ValueError(f"conv_transpose: output_shape must have 3, 4 or 5 entries, got {rank}")
    if data_format not in (None, *formats[rank]):
        raise ValueError(f"conv_transpose: data_format must be one of {formats[rank]} for output_shape of "
                         f"{rank} entries, got {data_format!r}")
    data_format = data_format or formats[rank][0]
    if rank == 3:
        return conv1d_transpose(input, filters, output_shape, strides, padding, data_format, dilations, name=name)
    if rank == 4:
        return conv_ops.conv2d_transpose(input, filters, output_shape, strides, padding, data_format, name,
                                         dilations=dilations)
    return conv3d_transpose(input, filters, output_shape, strides, padding, data_format, name, dilations=dilations)


@register_op("MaxPoolArgmax", shape=lambda op: _argmax_shape(op),
             dtype=lambda op: op._attr("Targmax"))
def _max_pool_argmax_kernel(xp, x, *, ksize, strides, padding, Targmax, include_batch_in_index):  # noqa: N803
    from numpy.lib.stride_tricks import sliding_window_view  # noqa: PLC0415

    n, h, w, c = x.shape
    (oh, top), (ow, left) = (conv_ops.conv_output_size(h, ksize[1], strides[1], padding),
                             conv_ops.conv_output_size(w, ksize[2], strides[2], padding))
    bottom = max((oh - 1) * strides[1] + ksize[1] - h - top, 0)
    right = max((ow - 1) * strides[2] + ksize[2] - w - left, 0)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    padded = np.pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)], constant_values=low)
    view = sliding_window_view(padded, (ksize[1], ksize[2]), axis=(1, 2))[:, ::strides[1], ::strides[2]][:, :oh, :ow]
    best = view.reshape(n, oh, ow, c, -1).argmax(-1)
    row = np.arange(oh)[None, :, None, None] * strides[1] - top + best // ksize[2]
    col = np.arange(ow)[None, None, :, None] * strides[2] - left + best % ksize[2]
    flat = (row * w + col) * c + np.arange(c)[None, None, None, :]
    if include_batch_in_index:
        flat = flat + np.arange(n)[:, None, None, None] * h * w * c
    return flat.astype(Targmax.as_numpy_dtype)


def _argmax_shape(op):
    x = op.inputs[0].shape
    if x.ndims is None:
        return TensorShape([None] * 4)
    ksize, strides, padding = op._attr("ksize"), op._attr("strides"), op._attr("padding")
    return TensorShape([x[0].value, conv_ops.conv_output_size(x[1].value, ksize[1], strides[1], padding)[0],
                        conv_ops.conv_output_size(x[2].value, ksize[2], strides[2], padding)[0], x[3].value])


not_differentiable("MaxPoolArgmax")


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", Targmax=None, name=None,  # noqa: A002, N803
                         output_dtype=None, include_batch_in_index=False):
    """(max_pool, the flattened index ((y * width + x) * channels + c) of each maximum)."""
    only_default("max_pool_with_argmax", "data_format", data_format, "NHWC")
    targmax = dtypes.as_dtype(Targmax or output_dtype or dtypes.int64)
    with ops.name_scope(name, "MaxPoolWithArgmax", [input]):
        x = ops.convert_to_tensor(input)
        pooled = conv_ops.max_pool(x, ksize, strides, padding)
        argmax = make_tensor("MaxPoolArgmax", [x], {"ksize": list(ksize), "strides": list(strides),
                                                    "padding": padding.upper(), "Targmax": targmax,
                                                    "include_batch_in_index": bool(include_batch_in_index)},
                             "argmax")
        return pooled, argmax


# ---------------------------------------------------------------------------
# Image patches (the windows a convolution reads)


def _patch_geometry(shape, ksizes, strides, rates, padding):
    _, h, w, _ = shape
    eh, ew = (ksizes[1] - 1) * rates[1] + 1, (ksizes[2] - 1) * rates[2] + 1
    (oh, top), (ow, left) = conv_ops.conv_output_size(h, eh, strides[1], padding), conv_ops.conv_output_size(w, ew, strides[2], padding)
    return eh, ew, oh, ow, top, left


def _patch_index(shape, ksizes, strides, rates, padding):
    """For each output [oh, ow, kh, kw]: the input row and column it reads (-1 where padding)."""
    _, h, w, _ = shape
    eh, ew, oh, ow, top, left = _patch_geometry(shape, ksizes, strides, rates, padding)
    rows = (np.arange(oh)[:, None] * strides[1] - top + np.arange(ksizes[1])[None, :] * rates[1])
    cols = (np.arange(ow)[:, None] * strides[2] - left + np.arange(ksizes[2])[None, :] * rates[2])
    valid = (rows[:, None, :, None] >= 0) & (rows[:, None, :, None] < h) & \
        (cols[None, :, None, :] >= 0) & (cols[None, :, None, :] < w)
    return rows, cols, valid, oh, ow


@register_op("ExtractImagePatches", shape=lambda op: TensorShape(None))
def _extract_patches_kernel(xp, images, *, ksizes, strides, rates, padding):
    rows, cols, valid, oh, ow = _patch_index(images.shape, ksizes, strides, rates, padding)
    n, h, w, c = images.shape
    r = np.clip(rows, 0, h - 1)[:, None, :, None]
    q = np.clip(cols, 0, w - 1)[None, :, None, :]
    patches = images[:, r, q, :] * valid[None, ..., None]  # [n, oh, ow, kh, kw, c]
    return patches.reshape(n, oh, ow, -1).astype(images.dtype)


@register_op("ExtractImagePatchesGrad", shape=lambda op: op.inputs[0].shape)
def _extract_patches_grad_kernel(xp, images, grad, *, ksizes, strides, rates, padding):
    rows, cols, valid, oh, ow = _patch_index(images.shape, ksizes, strides, rates, padding)
    n, h, w, c = images.shape
    g = grad.reshape(n, oh, ow, ksizes[1], ksizes[2], c) * valid[None, ..., None]
    out = np.zeros_like(images)
    r = np.broadcast_to(np.clip(rows, 0, h - 1)[:, None, :, None], valid.shape)
    q = np.broadcast_to(np.clip(cols, 0, w - 1)[None, :, None, :], valid.shape)
    np.add.at(out, (slice(None), r, q), g)
    return out


@register_gradient("ExtractImagePatches")
def _extract_patches_grad(op, grad):
    attrs = {a: op._attr(a) for a in ("ksizes", "strides", "rates", "padding")}
    return (make_tensor("ExtractImagePatchesGrad", [op.inputs[0], grad], attrs),)


def _volume_index(shape, ksizes, strides, padding):
    """Per spatial dimension of a 5-D input: for each output position and tap, the index read
    (clipped into range), and where that index lies in the padding instead."""
    taps, inside = [], []
    for axis in (1, 2, 3):
        out, before = conv_ops.conv_output_size(shape[axis], ksizes[axis], strides[axis], padding)
        at = np.arange(out)[:, None] * strides[axis] - before + np.arange(ksizes[axis])[None, :]
        taps.append(np.clip(at, 0, shape[axis] - 1))
        inside.append((at >= 0) & (at < shape[axis]))
    d, h, w = taps
    index = (d[:, None, None, :, None, None], h[None, :, None, None, :, None], w[None, None, :, None, None, :])
    valid = inside[0][:, None, None, :, None, None] & inside[1][None, :, None, None, :, None] & \
        inside[2][None, None, :, None, None, :]
    return index, valid  # (each [od, oh, ow, kd, kh, kw] once broadcast)


@register_op("ExtractVolumePatches", shape=lambda op: TensorShape(None))
def _extract_volume_patches_kernel(xp, volumes, *, ksizes, strides, padding):
    index, valid = _volume_index(volumes.shape, ksizes, strides, padding)
    patches = volumes[(slice(None), *index)] * valid[None, ..., None]  # [n, od, oh, ow, kd, kh, kw, c]
    n, od, oh, ow = patches.shape[:4]
    return patches.reshape(n, od, oh, ow, -1).astype(volumes.dtype)


@register_op("ExtractVolumePatchesGrad", shape=lambda op: op.inputs[0].shape)
def _extract_volume_patches_grad_kernel(xp, volumes, grad, *, ksizes, strides, padding):
    index, valid = _volume_index(volumes.shape, ksizes, strides, padding)
    n, c = volumes.shape[0], volumes.shape[4]
    g = grad.reshape((n,) + valid.shape + (c,)) * valid[None, ..., None]
    out = np.zeros_like(volumes)
    np.add.at(out, (slice(None), *(np.broadcast_to(i, valid.shape) for i in index)), g)
    return out


@register_gradient("ExtractVolumePatches")
def _extract_volume_patches_grad(op, grad):
    attrs = {a: op._attr(a) for a in ("ksizes", "strides", "padding")}
    return (make_tensor("ExtractVolumePatchesGrad", [op.inputs[0], grad], attrs),)


def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002
    """The 3-D patches of a 5-D ``input`` [batch, depth, height, width, channels]: each output
    position's window, ``ksizes[1:4]`` taps and the channels, flattened in that order."""
    volumes = ops.convert_to_tensor(input)
    if volumes.shape.ndims not in (None, 5):
        raise ValueError(f"extract_volume_patches needs a 5-D input, got shape {volumes.shape}")
    ksizes, strides = [int(k) for k in ksizes], [int(k) for k in strides]
    for what, values in (("ksizes", ksizes), ("strides", strides)):
        if len(values) != 5 or values[0] != 1 or values[4] != 1 or min(values) < 1:
            raise ValueError(f"extract_volume_patches: {what} must be [1, d, h, w, 1] of positive sizes, got {values}")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"extract_volume_patches: padding must be 'SAME' or 'VALID', got {padding!r}")
    out = make_tensor("ExtractVolumePatches", [volumes], {"ksizes": ksizes, "strides": strides, "padding": padding},
                      name or "ExtractVolumePatches")
    shape = volumes.shape.as_list() if volumes.shape.ndims else None
    if shape is not None and all(d is not None for d in shape[1:4]):
        spatial = [conv_ops.conv_output_size(shape[a], ksizes[a], strides[a], padding)[0] for a in (1, 2, 3)]
        depth = None if shape[4] is None else ksizes[1] * ksizes[2] * ksizes[3] * shape[4]
        out.set_shape([shape[0], *spatial, depth])
    return out


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None):
    """Each [ksize_rows, ksize_cols] patch (taps ``rates`` apart) flattened into the depth of
    one output pixel: [batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]."""
    images = ops.convert_to_tensor(images)
    ksizes = [int(v) for v in (ksizes if ksizes is not None else sizes)]
    attrs = {"ksizes": ksizes, "strides": [int(v) for v in strides], "rates": [int(v) for v in rates],
             "padding": padding.upper()}
    for key in ("ksizes", "strides", "rates"):
        if len(attrs[key]) != 4 or attrs[key][0] != 1 or attrs[key][3] != 1:
            raise ValueError(f"extract_image_patches: {key} must be [1, rows, cols, 1], got {attrs[key]}")
    out = make_tensor("ExtractImagePatches", [images], attrs, name or "ExtractImagePatches")
    if images.shape.ndims == 4 and None not in images.shape.as_list()[1:]:
        _, _, oh, ow, _, _ = _patch_geometry(images.shape.as_list(), ksizes, attrs["strides"], attrs["rates"],
                                             attrs["padding"])
        out.set_shape([images.shape[0].value, oh, ow, ksizes[1] * ksizes[2] * images.shape[3].value])
    return out
