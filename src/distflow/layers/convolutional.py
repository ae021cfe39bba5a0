"""Convolution and pooling layers, channels_last or channels_first.

A channels_first layer transposes its input to channels_last, runs the channels_last op and
transposes the result back (as distflow's NCHW ops do); its bias is added, and its activation
applied, to the channels_first result, as in TF 1.x."""

from __future__ import annotations

from ..framework import ops
from ..ops import array_ops, conv3d_ops, conv_ops, init_ops, nn_ops
from ..ops.variable_scope import variable_scope
from .core import add_activity_regularization, layer_variable


def _pair(value, what):
    if isinstance(value, int):
        return value, value
    value = tuple(value)
    if len(value) != 2:
        raise ValueError(f"{what} must be an int or a pair of ints, got {value}")
    return value


def _channels_first(data_format) -> bool:
    """Whether ``data_format`` (TF's "channels_last" or "channels_first", any case) puts the
    channels before the spatial dimensions."""
    value = "channels_last" if data_format is None else str(data_format).lower()
    if value not in ("channels_last", "channels_first"):
        raise ValueError(f'The `data_format` argument must be one of "channels_first", "channels_last". '
                         f'Received: {data_format!r}')
    return value == "channels_first"


def _channels(inputs, first: bool, what: str) -> int:
    """The channels of ``inputs`` (axis 1 for channels_first, the last otherwise), which must be known."""
    channels = inputs.shape[1 if first else -1].value if inputs.shape.ndims else None
    if channels is None:
        raise ValueError(f"{what}: the channel dimension of the inputs should be defined, got {inputs.shape}")
    return channels


def _channels_last(fn, inputs, first: bool):
    """``fn`` (a channels_last op) applied to ``inputs`` as ``first`` lays them out."""
    if not first:
        return fn(inputs)
    rank = inputs.shape.ndims
    out = fn(array_ops.transpose(inputs, [0, *range(2, rank), 1], name="to_channels_last"))
    return array_ops.transpose(out, [0, rank - 1, *range(1, rank - 1)], name="to_channels_first")


def _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
            bias_constraint=None, activity_regularizer=None, first=False):
    """A convolution layer's tail, in its variable scope: ``<scope>/bias`` added (along axis 1
    when ``first``), then the activation, whose output the activity regularizer (if any) adds
    a loss for."""
    if use_bias:
        out = nn_ops.bias_add(out, layer_variable("bias", [filters], dtype, bias_initializer, bias_regularizer,
                                                  trainable, bias_constraint), data_format="NCHW" if first else None)
    out = activation(out) if activation is not None else out
    add_activity_regularization(out, activity_regularizer)
    return out


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
           name=None, reuse=None) -> ops.Tensor:
    """A 2-D convolution layer: variables ``<name>/kernel`` [kh, kw, in, filters] and ``<name>/bias``."""
    first = _channels_first(data_format)
    inputs = ops.convert_to_tensor(inputs)
    if inputs.shape.ndims != 4:
        raise ValueError(f"conv2d inputs must be of rank 4 ({data_format or 'channels_last'}), got {inputs.shape}")
    channels = _channels(inputs, first, "conv2d")
    kh, kw = _pair(kernel_size, "kernel_size")
    sh, sw = _pair(strides, "strides")
    dh, dw = _pair(dilation_rate, "dilation_rate")
    dtype = inputs.dtype.base_dtype
    with variable_scope(name, default_name="conv2d", reuse=reuse):
        kernel = layer_variable("kernel", [kh, kw, channels, filters], dtype, kernel_initializer, kernel_regularizer,
                                trainable, kernel_constraint)
        out = _channels_last(lambda x: conv_ops.conv2d(x, kernel, [1, sh, sw, 1], padding.upper(),
                                                       dilations=[1, dh, dw, 1]), inputs, first)
        return _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
                       bias_constraint, activity_regularizer, first)


def _pooling2d(fn, default, inputs, pool_size, strides, padding, data_format, name):
    first = _channels_first(data_format)
    ph, pw = _pair(pool_size, "pool_size")
    sh, sw = _pair(strides, "strides")
    with ops.name_scope(name, default, [inputs]):
        return _channels_last(lambda x: fn(x, [1, ph, pw, 1], [1, sh, sw, 1], padding.upper()),
                              ops.convert_to_tensor(inputs), first)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pooling2d(conv_ops.max_pool, "max_pooling2d", inputs, pool_size, strides, padding, data_format, name)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pooling2d(conv_ops.avg_pool, "average_pooling2d", inputs, pool_size, strides, padding, data_format,
                      name)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None,
                     bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                     name=None, reuse=None) -> ops.Tensor:
    """A transposed 2-D convolution layer: ``<name>/kernel`` [kh, kw, filters, in_channels], ``<name>/bias``."""
    return _conv_transpose(conv_ops.conv2d_transpose, "conv2d_transpose", inputs, filters,
                           _pair(kernel_size, "kernel_size"), _pair(strides, "strides"), padding, data_format,
                           activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                           bias_regularizer, trainable, name, reuse, kernel_constraint, bias_constraint,
                           activity_regularizer)


def _conv_transpose(transpose_fn, default_name, inputs, filters, kernel, strides, padding, data_format, activation,
                    use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, trainable,
                    name, reuse, kernel_constraint=None, bias_constraint=None,
                    activity_regularizer=None) -> ops.Tensor:
    """A transposed convolution layer over 2 or 3 spatial dimensions (``kernel``, ``strides`` tuples):
    ``<name>/kernel`` [*kernel, filters, in_channels]; output sizes ``size * stride`` for SAME,
    ``(size - 1) * stride + kernel`` for VALID."""
    first = _channels_first(data_format)
    inputs = ops.convert_to_tensor(inputs)
    padding = padding.upper()
    c = _channels(inputs, first, default_name)
    spatial = inputs.shape.as_list()[2:] if first else inputs.shape.as_list()[1:-1]
    if None in spatial:
        raise ValueError(f"{default_name} needs the input's spatial sizes known, got {inputs.shape}")
    out_sizes = [d * st if padding == "SAME" else (d - 1) * st + kk for d, st, kk in zip(spatial, strides, kernel)]
    dtype = inputs.dtype.base_dtype
    with variable_scope(name, default_name=default_name, reuse=reuse):
        weights = layer_variable("kernel", [*kernel, filters, c], dtype, kernel_initializer, kernel_regularizer,
                                 trainable, kernel_constraint)

        def transposed(x):
            out = transpose_fn(x, weights, array_ops.stack([array_ops.shape(x)[0], *out_sizes, filters]),
                               [1, *strides, 1], padding)
            out.set_shape([x.shape[0].value, *out_sizes, filters])
            return out

        out = _channels_last(transposed, inputs, first)
        return _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
                       bias_constraint, activity_regularizer, first)


# ---------------------------------------------------------------------------
# 1-D layers, as the 2-D ones on a height of one


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last", dilation_rate=1,
           activation=None, use_bias=True, kernel_initializer=None, bias_initializer=init_ops.zeros_initializer(),
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None) -> ops.Tensor:
    """A 1-D convolution layer over [batch, width, channels]: ``<name>/kernel`` [k, in, filters]."""
    first = _channels_first(data_format)
    inputs = ops.convert_to_tensor(inputs)
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    s = strides if isinstance(strides, int) else strides[0]
    channels = _channels(inputs, first, "conv1d")
    dtype = inputs.dtype.base_dtype
    with variable_scope(name, default_name="conv1d", reuse=reuse):
        kernel = layer_variable("kernel", [k, channels, filters], dtype, kernel_initializer, kernel_regularizer,
                                trainable, kernel_constraint)
        d = dilation_rate if isinstance(dilation_rate, int) else dilation_rate[0]

        def convolved(x):
            out = conv_ops.conv2d(array_ops.expand_dims(x, 1), array_ops.expand_dims(kernel, 0), [1, 1, s, 1],
                                  padding.upper(), dilations=[1, 1, d, 1])
            return array_ops.squeeze(out, [1])

        out = _channels_last(convolved, inputs, first)
        return _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
                       bias_constraint, activity_regularizer, first)


def _pooling1d(fn, default, inputs, pool_size, strides, padding, data_format, name):
    first = _channels_first(data_format)
    inputs = ops.convert_to_tensor(inputs)
    p = pool_size if isinstance(pool_size, int) else pool_size[0]
    s = strides if isinstance(strides, int) else strides[0]
    with ops.name_scope(name, default, [inputs]):
        return _channels_last(lambda x: array_ops.squeeze(fn(array_ops.expand_dims(x, 1), [1, 1, p, 1],
                                                             [1, 1, s, 1], padding.upper()), [1]), inputs, first)


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pooling1d(conv_ops.max_pool, "max_pooling1d", inputs, pool_size, strides, padding, data_format, name)


def average_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pooling1d(conv_ops.avg_pool, "average_pooling1d", inputs, pool_size, strides, padding, data_format,
                      name)


# ---------------------------------------------------------------------------
# 3-D layers


def _triple(value, what):
    if isinstance(value, int):
        return value, value, value
    value = tuple(value)
    if len(value) != 3:
        raise ValueError(f"{what} must be an int or a triple of ints, got {value}")
    return value


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
           name=None, reuse=None) -> ops.Tensor:
    """A 3-D convolution layer over [batch, depth, height, width, channels]: ``<name>/kernel``
    [kd, kh, kw, in, filters] and ``<name>/bias``."""
    first = _channels_first(data_format)
    rates = _triple(dilation_rate, "dilation_rate")
    inputs = ops.convert_to_tensor(inputs)
    if inputs.shape.ndims != 5:
        raise ValueError(f"conv3d inputs must be of rank 5 ({data_format or 'channels_last'}), got {inputs.shape}")
    channels = _channels(inputs, first, "conv3d")
    k = _triple(kernel_size, "kernel_size")
    s = _triple(strides, "strides")
    dtype = inputs.dtype.base_dtype
    with variable_scope(name, default_name="conv3d", reuse=reuse):
        kernel = layer_variable("kernel", [*k, channels, filters], dtype, kernel_initializer,
                                kernel_regularizer, trainable, kernel_constraint)
        out = _channels_last(lambda x: conv3d_ops.conv3d(x, kernel, [1, *s, 1], padding.upper(),
                                                         dilations=[1, *rates, 1]), inputs, first)
        return _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
                       bias_constraint, activity_regularizer, first)


def conv3d_transpose(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None,
                     bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
                     activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                     name=None, reuse=None) -> ops.Tensor:
    """A transposed 3-D convolution layer: ``<name>/kernel`` [kd, kh, kw, filters, in_channels]."""
    return _conv_transpose(conv3d_ops.conv3d_transpose, "conv3d_transpose", inputs, filters,
                           _triple(kernel_size, "kernel_size"), _triple(strides, "strides"), padding, data_format,
                           activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
                           bias_regularizer, trainable, name, reuse, kernel_constraint, bias_constraint,
                           activity_regularizer)


def _pooling3d(fn, default, inputs, pool_size, strides, padding, data_format, name):
    first = _channels_first(data_format)
    window, steps = _triple(pool_size, "pool_size"), _triple(strides, "strides")
    with ops.name_scope(name, default, [inputs]):
        return _channels_last(lambda x: fn(x, [1, *window, 1], [1, *steps, 1], padding.upper()),
                              ops.convert_to_tensor(inputs), first)


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pooling3d(conv3d_ops.max_pool3d, "max_pooling3d", inputs, pool_size, strides, padding, data_format, name)


def average_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    return _pooling3d(conv3d_ops.avg_pool3d, "average_pooling3d", inputs, pool_size, strides, padding, data_format,
                      name)


# ---------------------------------------------------------------------------
# Separable convolutions


def _separable(inputs, filters, kernel, strides, padding, data_format, dilation, depth_multiplier, activation,
               use_bias, depthwise_initializer, pointwise_initializer, bias_initializer, depthwise_regularizer,
               pointwise_regularizer, bias_regularizer, trainable, name, reuse, default_name,
               depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
               activity_regularizer=None):
    """A separable convolution layer over 1 or 2 spatial dimensions (``kernel`` and ``strides`` tuples)."""
    from ..ops import convolution_ops  # noqa: PLC0415

    first = _channels_first(data_format)
    inputs = ops.convert_to_tensor(inputs)
    channels = _channels(inputs, first, default_name)
    dtype = inputs.dtype.base_dtype
    one_d = len(kernel) == 1
    with variable_scope(name, default_name=default_name, reuse=reuse):
        depthwise = layer_variable("depthwise_kernel", [*kernel, channels, depth_multiplier], dtype,
                                   depthwise_initializer, depthwise_regularizer, trainable, depthwise_constraint)
        pointwise = layer_variable("pointwise_kernel", [1] * len(kernel) + [channels * depth_multiplier, filters],
                                   dtype, pointwise_initializer, pointwise_regularizer, trainable,
                                   pointwise_constraint)

        def separable(x):
            steps, rates, dw, pw = strides, dilation, depthwise, pointwise
            if one_d:  # as a height of one
                x, dw, pw = (array_ops.expand_dims(t, i) for t, i in ((x, 1), (dw, 0), (pw, 0)))
                steps, rates = (1, *steps), (1, *rates)
            out = convolution_ops.separable_conv2d(x, dw, pw, [1, *steps, 1], padding.upper(), rate=list(rates))
            return array_ops.squeeze(out, [1]) if one_d else out

        out = _channels_last(separable, inputs, first)
        return _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
                       bias_constraint, activity_regularizer, first)


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                     depthwise_initializer=None, pointwise_initializer=None,
                     bias_initializer=init_ops.zeros_initializer(), depthwise_regularizer=None,
                     pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, trainable=True,
                     name=None, reuse=None) -> ops.Tensor:
    """A depthwise convolution (``depth_multiplier`` filters per channel) then a 1x1 convolution:
    ``<name>/depthwise_kernel`` [kh, kw, in, depth_multiplier], ``<name>/pointwise_kernel``
    [1, 1, in * depth_multiplier, filters], ``<name>/bias``."""
    return _separable(inputs, filters, _pair(kernel_size, "kernel_size"), _pair(strides, "strides"), padding,
                      data_format, _pair(dilation_rate, "dilation_rate"), depth_multiplier, activation, use_bias,
                      depthwise_initializer, pointwise_initializer, bias_initializer, depthwise_regularizer,
                      pointwise_regularizer, bias_regularizer, trainable, name, reuse, "separable_conv2d",
                      depthwise_constraint, pointwise_constraint, bias_constraint, activity_regularizer)


def separable_conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                     dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True,
                     depthwise_initializer=None, pointwise_initializer=None,
                     bias_initializer=init_ops.zeros_initializer(), depthwise_regularizer=None,
                     pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, trainable=True,
                     name=None, reuse=None) -> ops.Tensor:
    """``separable_conv2d`` over [batch, width, channels]: ``<name>/depthwise_kernel``
    [k, in, depth_multiplier], ``<name>/pointwise_kernel`` [1, in * depth_multiplier, filters]."""
    def single(v):
        return (v,) if isinstance(v, int) else tuple(v)

    return _separable(inputs, filters, single(kernel_size), single(strides), padding, data_format,
                      single(dilation_rate), depth_multiplier, activation, use_bias, depthwise_initializer,
                      pointwise_initializer, bias_initializer, depthwise_regularizer, pointwise_regularizer,
                      bias_regularizer, trainable, name, reuse, "separable_conv1d", depthwise_constraint,
                      pointwise_constraint, bias_constraint, activity_regularizer)
