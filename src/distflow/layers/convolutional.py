"""Convolution and pooling layers (channels_last)."""

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


def _check_format(data_format):
    if data_format not in ("channels_last", None):
        raise NotImplementedError(f"data_format {data_format!r} is not supported; use channels_last")


def _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
            bias_constraint=None, activity_regularizer=None):
    """A convolution layer's tail, in its variable scope: ``<scope>/bias`` added, then the
    activation, whose output the activity regularizer (if any) adds a loss for."""
    if use_bias:
        out = nn_ops.bias_add(out, layer_variable("bias", [filters], dtype, bias_initializer, bias_regularizer,
                                                  trainable, bias_constraint))
    out = activation(out) if activation is not None else out
    add_activity_regularization(out, activity_regularizer)
    return out


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
           activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
           name=None, reuse=None) -> ops.Tensor:
    """A 2-D convolution layer: variables ``<name>/kernel`` [kh, kw, in, filters] and ``<name>/bias``."""
    _check_format(data_format)
    inputs = ops.convert_to_tensor(inputs)
    if inputs.shape.ndims != 4 or inputs.shape[-1].value is None:
        raise ValueError(f"conv2d inputs must be [batch, height, width, channels] with known channels, "
                         f"got {inputs.shape}")
    kh, kw = _pair(kernel_size, "kernel_size")
    sh, sw = _pair(strides, "strides")
    with variable_scope(name, default_name="conv2d", reuse=reuse):
        kernel = layer_variable("kernel", [kh, kw, inputs.shape[-1].value, filters], inputs.dtype.base_dtype,
                                kernel_initializer, kernel_regularizer, trainable, kernel_constraint)
        dh, dw = _pair(dilation_rate, "dilation_rate")
        out = conv_ops.conv2d(inputs, kernel, [1, sh, sw, 1], padding.upper(), dilations=[1, dh, dw, 1])
        return _finish(out, filters, inputs.dtype.base_dtype, use_bias, bias_initializer, bias_regularizer, trainable,
                       activation, bias_constraint, activity_regularizer)


def _pooling2d(fn, default, inputs, pool_size, strides, padding, data_format, name):
    _check_format(data_format)
    ph, pw = _pair(pool_size, "pool_size")
    sh, sw = _pair(strides, "strides")
    with ops.name_scope(name, default, [inputs]):
        return fn(inputs, [1, ph, pw, 1], [1, sh, sw, 1], padding.upper())


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
    _check_format(data_format)
    inputs = ops.convert_to_tensor(inputs)
    padding = padding.upper()
    _, *spatial, c = inputs.shape.as_list()
    if c is None:
        raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
    if None in spatial:
        raise ValueError(f"{default_name} needs the input's spatial sizes known, got {inputs.shape}")
    out_sizes = [d * st if padding == "SAME" else (d - 1) * st + kk for d, st, kk in zip(spatial, strides, kernel)]
    dtype = inputs.dtype.base_dtype
    with variable_scope(name, default_name=default_name, reuse=reuse):
        weights = layer_variable("kernel", [*kernel, filters, c], dtype, kernel_initializer, kernel_regularizer,
                                 trainable, kernel_constraint)
        output_shape = array_ops.stack([array_ops.shape(inputs)[0], *out_sizes, filters])
        out = transpose_fn(inputs, weights, output_shape, [1, *strides, 1], padding)
        out.set_shape([inputs.shape[0].value, *out_sizes, filters])
        return _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
                       bias_constraint, activity_regularizer)


# ---------------------------------------------------------------------------
# 1-D layers, as the 2-D ones on a height of one


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last", dilation_rate=1,
           activation=None, use_bias=True, kernel_initializer=None, bias_initializer=init_ops.zeros_initializer(),
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None) -> ops.Tensor:
    """A 1-D convolution layer over [batch, width, channels]: ``<name>/kernel`` [k, in, filters]."""
    _check_format(data_format)
    inputs = ops.convert_to_tensor(inputs)
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    s = strides if isinstance(strides, int) else strides[0]
    channels = inputs.shape[-1].value
    dtype = inputs.dtype.base_dtype
    with variable_scope(name, default_name="conv1d", reuse=reuse):
        kernel = layer_variable("kernel", [k, channels, filters], dtype, kernel_initializer, kernel_regularizer,
                                trainable, kernel_constraint)
        d = dilation_rate if isinstance(dilation_rate, int) else dilation_rate[0]
        out = conv_ops.conv2d(array_ops.expand_dims(inputs, 1), array_ops.expand_dims(kernel, 0), [1, 1, s, 1],
                              padding.upper(), dilations=[1, 1, d, 1])
        out = array_ops.squeeze(out, [1])
        return _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
                       bias_constraint, activity_regularizer)


def _pooling1d(fn, default, inputs, pool_size, strides, padding, data_format, name):
    _check_format(data_format)
    inputs = ops.convert_to_tensor(inputs)
    p = pool_size if isinstance(pool_size, int) else pool_size[0]
    s = strides if isinstance(strides, int) else strides[0]
    with ops.name_scope(name, default, [inputs]):
        out = fn(array_ops.expand_dims(inputs, 1), [1, 1, p, 1], [1, 1, s, 1], padding.upper())
        return array_ops.squeeze(out, [1])


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
    _check_format(data_format)
    if _triple(dilation_rate, "dilation_rate") != (1, 1, 1):
        raise NotImplementedError("conv3d dilation_rate other than 1 is not supported by distflow")
    inputs = ops.convert_to_tensor(inputs)
    if inputs.shape.ndims != 5 or inputs.shape[-1].value is None:
        raise ValueError(f"conv3d inputs must be [batch, depth, height, width, channels] with known channels, "
                         f"got {inputs.shape}")
    k = _triple(kernel_size, "kernel_size")
    s = _triple(strides, "strides")
    dtype = inputs.dtype.base_dtype
    with variable_scope(name, default_name="conv3d", reuse=reuse):
        kernel = layer_variable("kernel", [*k, inputs.shape[-1].value, filters], dtype, kernel_initializer,
                                kernel_regularizer, trainable, kernel_constraint)
        out = conv3d_ops.conv3d(inputs, kernel, [1, *s, 1], padding.upper())
        return _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
                       bias_constraint, activity_regularizer)


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
    _check_format(data_format)
    with ops.name_scope(name, default, [inputs]):
        return fn(inputs, [1, *_triple(pool_size, "pool_size"), 1], [1, *_triple(strides, "strides"), 1],
                  padding.upper())


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

    _check_format(data_format)
    inputs = ops.convert_to_tensor(inputs)
    channels = inputs.shape[-1].value
    if channels is None:
        raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
    dtype = inputs.dtype.base_dtype
    one_d = len(kernel) == 1
    with variable_scope(name, default_name=default_name, reuse=reuse):
        depthwise = layer_variable("depthwise_kernel", [*kernel, channels, depth_multiplier], dtype,
                                   depthwise_initializer, depthwise_regularizer, trainable, depthwise_constraint)
        pointwise = layer_variable("pointwise_kernel", [1] * len(kernel) + [channels * depth_multiplier, filters],
                                   dtype, pointwise_initializer, pointwise_regularizer, trainable,
                                   pointwise_constraint)
        if one_d:  # as a height of one
            inputs, depthwise, pointwise = (array_ops.expand_dims(t, i) for t, i in
                                            ((inputs, 1), (depthwise, 0), (pointwise, 0)))
            strides, dilation = (1, *strides), (1, *dilation)
        out = convolution_ops.separable_conv2d(inputs, depthwise, pointwise, [1, *strides, 1], padding.upper(),
                                           rate=list(dilation))
        if one_d:
            out = array_ops.squeeze(out, [1])
        return _finish(out, filters, dtype, use_bias, bias_initializer, bias_regularizer, trainable, activation,
                       bias_constraint, activity_regularizer)


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
