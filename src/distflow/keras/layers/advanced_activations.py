"""LeakyReLU, PReLU, ELU, ReLU, ThresholdedReLU and Softmax as layers."""

from __future__ import annotations

from ... import cast, greater, nn
from ...framework.tensor_shape import TensorShape
from .. import activations, backend as K, constraints, initializers, regularizers
from ..engine.base_layer import Layer


class LeakyReLU(Layer):
    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs):
        return nn.leaky_relu(inputs, alpha=self.alpha)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class PReLU(Layer):
    """``max(x, 0) + alpha * min(x, 0)`` with a learned ``alpha`` per unit (shared on ``shared_axes``)."""

    _config_keys = ("alpha_initializer", "alpha_regularizer", "alpha_constraint", "shared_axes")

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        self.shared_axes = [] if shared_axes is None else list(shared_axes) if isinstance(
            shared_axes, (list, tuple)) else [shared_axes]

    def build(self, input_shape):
        shape = list(TensorShape(input_shape).as_list()[1:])
        for axis in self.shared_axes:
            shape[axis - 1] = 1
        self.alpha = self.add_weight("alpha", shape, initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer, constraint=self.alpha_constraint)
        self.built = True

    def call(self, inputs):
        return nn.relu(inputs) - self.alpha * nn.relu(-inputs)


class ELU(Layer):
    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs):
        return activations.elu(inputs, self.alpha)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class ReLU(Layer):
    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        for what, value in (("max_value", max_value), ("negative_slope", negative_slope), ("threshold", threshold)):
            if value is not None and value < 0:
                raise ValueError(f"{what} of a ReLU layer cannot be a negative value. Received: {value}")
        self.max_value, self.negative_slope, self.threshold = max_value, float(negative_slope), float(threshold)

    def call(self, inputs):
        return K.relu(inputs, alpha=self.negative_slope, max_value=self.max_value, threshold=self.threshold)

    def get_config(self):
        return {**super().get_config(), "max_value": self.max_value, "negative_slope": self.negative_slope,
                "threshold": self.threshold}


class ThresholdedReLU(Layer):
    _config_keys = ("theta",)

    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        self.theta = float(theta)

    def call(self, inputs):
        return inputs * cast(greater(inputs, self.theta), inputs.dtype)


class Softmax(Layer):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return nn.softmax(inputs, axis=self.axis)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}
