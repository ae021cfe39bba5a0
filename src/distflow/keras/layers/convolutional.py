"""Keras's convolution and pooling layers (channels_last, as TF 1.x on CPU; channels_first
where the op takes NCHW), the locally connected layers, and padding, cropping and
up-sampling in 1, 2 and 3 dimensions."""

from __future__ import annotations

import numpy as np

from ... import (expand_dims, extract_image_patches, matmul, nn, pad, reduce_max, reduce_mean, repeat, reshape,
                 squeeze, stack, transpose)
from ... import shape as shape_of
from ...framework.tensor_shape import TensorShape
from ...ops.conv3d_ops import avg_pool3d, conv3d, conv3d_transpose, max_pool3d
from ...ops.convolution_ops import conv1d, depthwise_conv2d, separable_conv2d
from .. import activations, backend as K, initializers
from ..engine.base_layer import InputSpec, Layer


def _tuple(value, n: int, name: str) -> tuple:
    if isinstance(value, int):
        return (value,) * n
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"The `{name}` argument must be an integer or a tuple of {n} integers. Received: {value!r}")
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. Received: {value}")
    return value


def _padding(padding: str, causal: bool = False) -> str:
    padding = padding.upper()
    allowed = ("VALID", "SAME", "CAUSAL") if causal else ("VALID", "SAME")
    if padding not in allowed:
        raise ValueError(f"The `padding` argument must be one of {', '.join(repr(a.lower()) for a in allowed)}. "
                         f"Received: {padding.lower()}")
    return padding


class Conv(Layer):
    """An n-D convolution layer (n = 1, 2, 3): kernel ``[*kernel_size, in, filters]``, bias."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        n = self.rank
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, n, "kernel_size")
        self.strides = _tuple(strides, n, "strides")
        self.padding = _padding(padding, causal=n == 1)
        self.data_format = data_format or K.image_data_format()
        self.dilation_rate = _tuple(dilation_rate, n, "dilation_rate")
        if self.padding == "CAUSAL" and data_format == "channels_first":
            raise ValueError("Causal padding is only supported for `Conv1D` with channels_last")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self._set_weight_options(kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                                 kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                                 kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)
        self.input_spec = InputSpec(ndim=n + 2)

    @property
    def _channels_first(self) -> bool:
        return self.data_format == "channels_first"

    def _in_channels(self, input_shape) -> int:
        shape = TensorShape(input_shape)
        channels = shape[1 if self._channels_first else -1].value
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        return channels

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", self.kernel_size + (self._in_channels(input_shape), self.filters),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self._build_bias()

    def _build_bias(self):
        self.bias = self.add_weight("bias", (self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.built = True

    def _convolve(self, inputs):
        n = self.rank
        if n == 1:
            padding = self.padding
            if padding == "CAUSAL":  # (left-padded so that no output sees a later step)
                inputs = pad(inputs, [[0, 0], [self.dilation_rate[0] * (self.kernel_size[0] - 1), 0], [0, 0]])
                padding = "VALID"
            return conv1d(inputs, self.kernel, stride=self.strides[0], padding=padding,
                          data_format="NCW" if self._channels_first else "NWC", dilations=self.dilation_rate[0])
        if n == 2:
            fmt = "NCHW" if self._channels_first else "NHWC"
            strides = (1, 1) + self.strides if self._channels_first else (1,) + self.strides + (1,)
            dilations = (1, 1) + self.dilation_rate if self._channels_first else (1,) + self.dilation_rate + (1,)
            return nn.conv2d(inputs, self.kernel, strides, self.padding, data_format=fmt, dilations=dilations)
        return conv3d(inputs, self.kernel, (1,) + self.strides + (1,), self.padding,
                      dilations=(1,) + self.dilation_rate + (1,))

    def call(self, inputs):
        out = self._convolve(inputs)
        if self.use_bias:
            out = nn.bias_add(out, self.bias, data_format="NCHW" if self._channels_first and self.rank == 2 else None)
        return self.activation(out)

    def get_config(self):
        return {**super().get_config(), "filters": self.filters, "kernel_size": self.kernel_size,
                "strides": self.strides, "padding": self.padding.lower(), "data_format": self.data_format,
                "dilation_rate": self.dilation_rate, **self._options_config(
                    "activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
                    "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint")}


class Conv1D(Conv):
    rank = 1


class Conv2D(Conv):
    rank = 2


class Conv3D(Conv):
    rank = 3


class Conv2DTranspose(Conv2D):
    """The transpose of Conv2D: kernel ``[h, w, filters, in]``."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, **kwargs)
        if output_padding is not None:
            pads = (output_padding,) * self.rank if isinstance(output_padding, int) else tuple(output_padding)
            if len(pads) != self.rank:
                raise ValueError(f"The `output_padding` argument must be a tuple of {self.rank} integers. Received: "
                                 f"{output_padding}")
            for extra, stride in zip(pads, self.strides):
                if extra >= stride:
                    raise ValueError(f"Stride {self.strides} must be greater than output padding {pads}")
            output_padding = pads
        self.output_padding = output_padding

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", self.kernel_size + (self.filters, self._in_channels(input_shape)),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self._build_bias()

    def _convolve(self, inputs):
        if self._channels_first:  # (computed channels last, as the kernels take it, and moved back)
            last = list(range(2, self.rank + 2)) + [1]
            out = self._convolve_last(transpose(inputs, [0] + last))
            return transpose(out, [0, self.rank + 1] + list(range(1, self.rank + 1)))
        return self._convolve_last(inputs)

    def _convolve_last(self, inputs):
        dynamic = shape_of(inputs)
        size = []
        for i, (k, s) in enumerate(zip(self.kernel_size, self.strides)):
            d = inputs.shape[1 + i].value
            length = d if d is not None else dynamic[1 + i]
            if self.output_padding is not None:  # (Keras's length with an output padding: extra rows at the end)
                cut = k // 2 if self.padding == "SAME" else 0
                size.append((length - 1) * s + k - 2 * cut + self.output_padding[i])
            else:
                size.append(length * s + max(k - s, 0) if self.padding == "VALID" else length * s)
        out_shape = stack([dynamic[0]] + size + [self.filters])
        strides = (1,) + self.strides + (1,)
        if self.rank == 3:
            return conv3d_transpose(inputs, self.kernel, out_shape, strides, self.padding)
        return nn.conv2d_transpose(inputs, self.kernel, out_shape, strides, self.padding)


    _config_keys = ("output_padding",)


class Conv3DTranspose(Conv2DTranspose):
    """The transpose of Conv3D: kernel ``[d, h, w, filters, in]`` (channels last)."""

    rank = 3

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", output_padding=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding, output_padding=output_padding,
                         **kwargs)


class _Separable:
    """A depthwise kernel ``[*kernel_size, in, depth_multiplier]`` and a pointwise one
    ``[1, ..., in * depth_multiplier, filters]``: a separable convolution layer's weights."""

    def __init__(self, filters, kernel_size, depth_multiplier=1, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", depthwise_regularizer=None, pointwise_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, **kwargs):
        super().__init__(filters, kernel_size, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self._set_weight_options(
            depthwise_initializer=depthwise_initializer, pointwise_initializer=pointwise_initializer,
            depthwise_regularizer=depthwise_regularizer, pointwise_regularizer=pointwise_regularizer,
            depthwise_constraint=depthwise_constraint, pointwise_constraint=pointwise_constraint)

    def get_config(self):
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier, **self._options_config(
            "depthwise_initializer", "pointwise_initializer", "depthwise_regularizer", "pointwise_regularizer",
            "depthwise_constraint", "pointwise_constraint")}

    def build(self, input_shape):
        channels = self._in_channels(input_shape)
        self.depthwise_kernel = self.add_weight("depthwise_kernel", self.kernel_size + (channels, self.depth_multiplier),
                                                initializer=self.depthwise_initializer,
                                                regularizer=self.depthwise_regularizer,
                                                constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight("pointwise_kernel",
                                                (1,) * self.rank + (channels * self.depth_multiplier, self.filters),
                                                initializer=self.pointwise_initializer,
                                                regularizer=self.pointwise_regularizer,
                                                constraint=self.pointwise_constraint)
        self._build_bias()


class SeparableConv2D(_Separable, Conv2D):
    def _convolve(self, inputs):
        return separable_conv2d(inputs, self.depthwise_kernel, self.pointwise_kernel, (1,) + self.strides + (1,),
                                self.padding, rate=self.dilation_rate)


class SeparableConv1D(_Separable, Conv1D):
    """A depthwise convolution over time (a ``[k, in, depth_multiplier]`` kernel), then a
    pointwise one (``[1, in * depth_multiplier, filters]``), as Keras's: the 2-D separable
    convolution of the sequence as one row."""

    def _convolve(self, inputs):
        x = transpose(inputs, [0, 2, 1]) if self._channels_first else inputs
        out = separable_conv2d(expand_dims(x, 1), expand_dims(self.depthwise_kernel, 0),
                               expand_dims(self.pointwise_kernel, 0), (1, 1, self.strides[0], 1), self.padding,
                               rate=(1, self.dilation_rate[0]))
        out = squeeze(out, [1])
        return transpose(out, [0, 2, 1]) if self._channels_first else out

    def call(self, inputs):
        out = self._convolve(inputs)
        if self.use_bias:
            out = out + (reshape(self.bias, [1, -1, 1]) if self._channels_first else self.bias)
        return self.activation(out)


class DepthwiseConv2D(Conv2D):
    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 depthwise_initializer="glorot_uniform", depthwise_regularizer=None, depthwise_constraint=None,
                 **kwargs):
        super().__init__(1, kernel_size, strides=strides, padding=padding, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self._set_weight_options(depthwise_initializer=depthwise_initializer,
                                 depthwise_regularizer=depthwise_regularizer, depthwise_constraint=depthwise_constraint)

    def build(self, input_shape):
        channels = self._in_channels(input_shape)
        self.filters = channels * self.depth_multiplier
        self.depthwise_kernel = self.add_weight("depthwise_kernel", self.kernel_size + (channels, self.depth_multiplier),
                                                initializer=self.depthwise_initializer,
                                                regularizer=self.depthwise_regularizer,
                                                constraint=self.depthwise_constraint)
        self._build_bias()

    def get_config(self):
        """Keras's: a convolution's config without its filters and kernel options, with the
        depth multiplier and the depthwise kernel's options."""
        config = super().get_config()
        for key in ("filters", "kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(key, None)
        return {**config, "depth_multiplier": self.depth_multiplier,
                **self._options_config("depthwise_initializer", "depthwise_regularizer", "depthwise_constraint")}

    def _convolve(self, inputs):
        return depthwise_conv2d(inputs, self.depthwise_kernel, (1,) + self.strides + (1,), self.padding,
                                rate=self.dilation_rate)


class _Pooling(Layer):
    rank = 2
    kind = "max"

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        n = self.rank
        self.pool_size = _tuple(pool_size, n, "pool_size")
        self.strides = _tuple(strides if strides is not None else self.pool_size, n, "strides")
        self.padding = _padding(padding)
        self.data_format = data_format or K.image_data_format()
        self.input_spec = InputSpec(ndim=n + 2)

    def call(self, inputs):
        n = self.rank
        if n == 3:
            pool = max_pool3d if self.kind == "max" else avg_pool3d
            return pool(inputs, (1,) + self.pool_size + (1,), (1,) + self.strides + (1,), self.padding)
        if n == 1:
            inputs = inputs[:, :, None, :] if self.data_format != "channels_first" else inputs[:, :, :, None]
        size, strides = self.pool_size + (1,) * (2 - n), self.strides + (1,) * (2 - n)
        first = self.data_format == "channels_first"
        ksize = (1, 1) + size if first else (1,) + size + (1,)
        strides = (1, 1) + strides if first else (1,) + strides + (1,)
        pool = nn.max_pool if self.kind == "max" else nn.avg_pool
        out = pool(inputs, ksize, strides, self.padding, data_format="NCHW" if first else "NHWC")
        if n == 1:
            out = out[:, :, 0, :] if not first else out[:, :, :, 0]
        return out

    def get_config(self):
        return {**super().get_config(), "pool_size": self.pool_size, "strides": self.strides,
                "padding": self.padding.lower(), "data_format": self.data_format}


class MaxPooling1D(_Pooling):
    rank, kind = 1, "max"


class MaxPooling2D(_Pooling):
    rank, kind = 2, "max"


class MaxPooling3D(_Pooling):
    rank, kind = 3, "max"


class AveragePooling1D(_Pooling):
    rank, kind = 1, "avg"


class AveragePooling2D(_Pooling):
    rank, kind = 2, "avg"


class AveragePooling3D(_Pooling):
    rank, kind = 3, "avg"


class _GlobalPooling(Layer):
    rank = 2
    kind = "avg"

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or K.image_data_format()

    def call(self, inputs):
        axes = list(range(2, 2 + self.rank)) if self.data_format == "channels_first" else list(range(1, 1 + self.rank))
        return (reduce_max if self.kind == "max" else reduce_mean)(inputs, axes)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


class GlobalAveragePooling1D(_GlobalPooling):
    rank, kind = 1, "avg"


class GlobalAveragePooling2D(_GlobalPooling):
    rank, kind = 2, "avg"


class GlobalAveragePooling3D(_GlobalPooling):
    rank, kind = 3, "avg"


class GlobalMaxPooling1D(_GlobalPooling):
    rank, kind = 1, "max"


class GlobalMaxPooling2D(_GlobalPooling):
    rank, kind = 2, "max"


class GlobalMaxPooling3D(_GlobalPooling):
    rank, kind = 3, "max"


def _pairs(value, name: str) -> tuple:
    """Keras's 2-D padding or cropping: an int, two ints (each both sides), or two pairs."""
    return _sides(value, 2, name)


def _sides(value, n: int, name: str) -> tuple:
    if isinstance(value, int):
        return ((value, value),) * n
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise ValueError(f"`{name}` should be an int, {n} ints or {n} pairs of ints. Found: {value!r}")
    if all(isinstance(v, int) for v in value):
        return tuple((v, v) for v in value)
    return tuple(_tuple(v, 2, name) for v in value)


class ZeroPadding2D(Layer):
    """Zeros around the spatial dimensions (before and after each)."""

    _spec = staticmethod(_pairs)  # (how the padding is given: a pair per spatial dimension)

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = self._spec(padding, "padding")
        self.data_format = data_format or K.image_data_format()

    def get_config(self):
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}

    def call(self, inputs):
        spatial = [list(p) for p in self.padding]
        pads = [[0, 0], [0, 0]] + spatial if self.data_format == "channels_first" else [[0, 0]] + spatial + [[0, 0]]
        return pad(inputs, pads)


class Cropping2D(Layer):
    """The spatial dimensions cut at both ends."""

    _spec = staticmethod(_pairs)

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = self._spec(cropping, "cropping")
        self.data_format = data_format or K.image_data_format()

    def get_config(self):
        return {**super().get_config(), "cropping": self.cropping, "data_format": self.data_format}

    def call(self, inputs):
        spatial = tuple(slice(a, -b if b else None) for a, b in self.cropping)
        if self.data_format == "channels_first":
            return inputs[(slice(None), slice(None)) + spatial]
        return inputs[(slice(None),) + spatial + (slice(None),)]


class ZeroPadding1D(Layer):
    _config_keys = ("padding",)

    def __init__(self, padding=1, **kwargs):
        super().__init__(**kwargs)
        self.padding = _tuple(padding, 2, "padding")

    def call(self, inputs):
        return pad(inputs, [[0, 0], list(self.padding), [0, 0]])


class Cropping1D(Layer):
    _config_keys = ("cropping",)

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = _tuple(cropping, 2, "cropping")

    def call(self, inputs):
        start, end = self.cropping
        return inputs[:, start:-end if end else None, :]


class UpSampling1D(Layer):
    _config_keys = ("size",)

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)

    def call(self, inputs):
        return repeat(inputs, self.size, axis=1)


class UpSampling2D(Layer):
    """Repeats rows and columns ``size`` times (nearest; bilinear through tf.image)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = _tuple(size, 2, "size")
        self.data_format = data_format or K.image_data_format()
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError("interpolation should be one of 'nearest' or 'bilinear'.")
        self.interpolation = interpolation

    def get_config(self):
        return {**super().get_config(), "size": self.size, "data_format": self.data_format,
                "interpolation": self.interpolation}

    def call(self, inputs):
        axes = (2, 3) if self.data_format == "channels_first" else (1, 2)
        if self.interpolation == "bilinear":
            from ... import image  # noqa: PLC0415
            h, w = inputs.shape[axes[0]].value, inputs.shape[axes[1]].value
            # (half-pixel centres, as Keras's backend resizes since TF 1.14)
            return image.resize_bilinear(inputs, [h * self.size[0], w * self.size[1]], half_pixel_centers=True)
        out = repeat(inputs, self.size[0], axis=axes[0])
        return repeat(out, self.size[1], axis=axes[1])


def _triples(value, name: str) -> tuple:
    """Keras's 3-D padding or cropping: an int, three ints (each both sides), or three pairs."""
    return _sides(value, 3, name)


class ZeroPadding3D(ZeroPadding2D):
    """Zeros around the three spatial dimensions of 5-D inputs."""

    _spec = staticmethod(_triples)

    def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class Cropping3D(Cropping2D):
    """The three spatial dimensions of 5-D inputs cut at both ends."""

    _spec = staticmethod(_triples)

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class UpSampling3D(Layer):
    """Repeats each of the three spatial dimensions ``size`` times (nearest)."""

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = _tuple(size, 3, "size")
        self.data_format = data_format or K.image_data_format()

    def get_config(self):
        return {**super().get_config(), "size": self.size, "data_format": self.data_format}

    def call(self, inputs):
        first = 2 if self.data_format == "channels_first" else 1
        out = inputs
        for axis, times in enumerate(self.size, start=first):
            out = repeat(out, times, axis=axis)
        return out


class LocallyConnected2D(Conv):
    """A convolution whose weights are not shared: each output position has a kernel of its
    own (Keras's ``implementation=1`` layout: kernel ``[positions, kh * kw * in, filters]``,
    bias ``[rows, cols, filters]``). VALID windows, as Keras's."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, implementation=1,
                 **kwargs):
        if _padding(padding) != "VALID":
            raise ValueError(f"Invalid border mode for {type(self).__name__} (only \"valid\" is supported): {padding}")
        if implementation != 1:
            raise NotImplementedError(f"{type(self).__name__}: implementation={implementation} (only 1)")
        super().__init__(filters, kernel_size, strides=strides, padding=padding, data_format=data_format, **kwargs)
        self.implementation = 1

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        first = self.data_format == "channels_first"
        spatial, channels = (shape[2:], shape[1]) if first else (shape[1:-1], shape[-1])
        if channels is None or None in spatial:
            raise ValueError(f"{type(self).__name__} needs its inputs' spatial sizes and channels known, got "
                             f"{input_shape}")
        self._out = tuple((d - k) // s + 1 for d, k, s in zip(spatial, self.kernel_size, self.strides))
        positions, taps = int(np.prod(self._out)), int(np.prod(self.kernel_size)) * channels
        self.kernel = self.add_weight("kernel", (positions, taps, self.filters), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", self._out + (self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.built = True

    def _patches(self, x):
        """[batch, *out, taps * in]: each position's window, in the kernel's order."""
        return extract_image_patches(x, (1,) + self.kernel_size + (1,), (1,) + self.strides + (1,), (1, 1, 1, 1),
                                     "VALID")

    def call(self, inputs):
        first = self.data_format == "channels_first"
        x = transpose(inputs, [0] + list(range(2, self.rank + 2)) + [1]) if first else inputs
        patches = self._patches(x)
        positions = int(np.prod(self._out))
        rows = transpose(reshape(patches, stack([shape_of(x)[0], positions, self.kernel.shape[1].value])), [1, 0, 2])
        out = transpose(matmul(rows, self.kernel), [1, 0, 2])  # ([positions, batch, filters] -> batch first)
        out = reshape(out, stack([shape_of(x)[0], *self._out, self.filters]))
        if self.use_bias:
            out = out + self.bias
        if first:
            out = transpose(out, [0, self.rank + 1] + list(range(1, self.rank + 1)))
        return self.activation(out)

    def get_config(self):
        config = {**super().get_config(), "implementation": 1}
        config.pop("dilation_rate")
        return config


class LocallyConnected1D(LocallyConnected2D):
    """The 1-D form: kernel ``[steps, k * in, filters]``, bias ``[steps, filters]``."""

    rank = 1

    def _patches(self, x):
        rows = extract_image_patches(expand_dims(x, 1), (1, 1) + self.kernel_size + (1,), (1, 1) + self.strides + (1,),
                                     (1, 1, 1, 1), "VALID")
        return squeeze(rows, [1])


Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D
Convolution2DTranspose, Deconvolution2D = Conv2DTranspose, Conv2DTranspose
Convolution3DTranspose, Deconvolution3D = Conv3DTranspose, Conv3DTranspose
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D = GlobalAveragePooling1D, GlobalAveragePooling2D, GlobalAveragePooling3D
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D
