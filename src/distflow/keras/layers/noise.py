"""Regularizing layers active in training only: Gaussian noise, Gaussian and alpha dropout,
spatial dropout; and Masking and ActivityRegularization."""

from __future__ import annotations

import math

from ... import cast, nn, not_equal, random_normal, random_uniform, reduce_any, greater_equal
from ... import shape as shape_of
from ... import stack
from .. import backend as K, regularizers
from ..engine.base_layer import Layer


class GaussianNoise(Layer):
    """Adds zero-mean noise of deviation ``stddev`` in training."""

    _config_keys = ("stddev",)

    def __init__(self, stddev, **kwargs):
        super().__init__(**kwargs)
        self.stddev = float(stddev)
        self.supports_masking = True

    def call(self, inputs, training=None):
        return K.in_train_phase(lambda: inputs + random_normal(shape_of(inputs), stddev=self.stddev,
                                                               dtype=inputs.dtype), lambda: inputs, training)


class GaussianDropout(Layer):
    """Multiplies by noise of mean 1 and deviation sqrt(rate / (1 - rate)) in training."""

    _config_keys = ("rate",)

    def __init__(self, rate, **kwargs):
        super().__init__(**kwargs)
        self.rate = float(rate)
        self.supports_masking = True

    def call(self, inputs, training=None):
        if not 0 < self.rate < 1:
            return inputs
        deviation = math.sqrt(self.rate / (1.0 - self.rate))
        return K.in_train_phase(lambda: inputs * random_normal(shape_of(inputs), 1.0, deviation, dtype=inputs.dtype),
                                lambda: inputs, training)


class AlphaDropout(Layer):
    """Dropout that keeps a SELU network's mean and variance: dropped units take SELU's
    negative saturation, and the result is scaled and shifted back."""

    _config_keys = ("rate", "noise_shape", "seed")

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed
        self.supports_masking = True

    def call(self, inputs, training=None):
        if not 0 < self.rate < 1:
            return inputs
        alpha_p = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
        keep = 1.0 - self.rate
        a = ((keep * (1 + self.rate * alpha_p ** 2)) ** -0.5)
        b = -a * alpha_p * self.rate

        def dropped():
            shape = self.noise_shape if self.noise_shape is not None else shape_of(inputs)
            kept = cast(greater_equal(random_uniform(shape, seed=self.seed), self.rate), inputs.dtype)
            return a * (inputs * kept + alpha_p * (1 - kept)) + b

        return K.in_train_phase(dropped, lambda: inputs, training)


class _SpatialDropout(Layer):
    """Drops whole feature maps (channels) in training."""

    rank = 1
    _config_keys = ("rate", "data_format")

    def __init__(self, rate, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = float(rate)
        self.data_format = data_format or K.image_data_format()

    def call(self, inputs, training=None):
        if self.rate == 0:
            return inputs
        dynamic = shape_of(inputs)
        ones = [1] * self.rank
        if self.data_format == "channels_first" and self.rank > 1:
            noise = stack([dynamic[0], dynamic[1]] + ones)
        else:
            noise = stack([dynamic[0]] + ones + [dynamic[-1]])
        return K.in_train_phase(lambda: nn.dropout(inputs, rate=self.rate, noise_shape=noise), lambda: inputs,
                                training)


class SpatialDropout1D(_SpatialDropout):
    rank = 1


class SpatialDropout2D(_SpatialDropout):
    rank = 2


class SpatialDropout3D(_SpatialDropout):
    rank = 3


class Masking(Layer):
    """Masks the time steps whose features all equal ``mask_value`` (and zeroes them), for the
    recurrent layers after it."""

    _config_keys = ("mask_value",)

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True

    def compute_mask(self, inputs, mask=None):
        return reduce_any(not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        keep = reduce_any(not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * cast(keep, inputs.dtype)


class ActivityRegularization(Layer):
    """The identity, adding ``l1 * sum|x| + l2 * sum x^2`` of its input to the losses."""

    _config_keys = ("l1", "l2")

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2
        self.supports_masking = True
