"""BatchNormalization and LayerNormalization as Keras has them."""

from __future__ import annotations

from ... import cast, concat, nn, reduce_mean, reshape, shape
from ...framework import dtypes, ops
from ...framework.tensor_shape import TensorShape
from ...layers.normalization import _renorm
from ...ops.nn_impl import fused_moving_variance
from .. import backend as K, constraints, initializers, regularizers
from ..engine.base_layer import Layer


class BatchNormalization(Layer):
    """Normalizes over the batch (and every axis but ``axis``) in training, keeping moving
    averages of the mean and variance, which it uses otherwise (the variance with Bessel's
    correction where TF 1.x's fused kernel would run: 4-D inputs, channels on axis 1 or 3).
    With ``renorm``, batch renormalization as ``tf.layers.batch_normalization`` has it
    (its variables ``renorm_mean``, ``renorm_mean_weight``, ``renorm_stddev``,
    ``renorm_stddev_weight``), and with ``virtual_batch_size`` its ghost batches (variables of
    shape ``[1, 1, ..., channels]``)."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 renorm=False, renorm_clipping=None, renorm_momentum=0.99, fused=None, virtual_batch_size=None,
                 adjustment=None, **kwargs):
        super().__init__(**kwargs)
        if adjustment is not None:
            raise NotImplementedError("BatchNormalization: adjustment is not supported")
        if virtual_batch_size is not None and virtual_batch_size <= 0:
            raise ValueError(f"virtual_batch_size must be a positive integer that divides the true batch size of "
                             f"the input Tensor, got {virtual_batch_size}")
        self.virtual_batch_size = virtual_batch_size
        self.renorm, self.renorm_clipping, self.renorm_momentum = renorm, dict(renorm_clipping or {}), renorm_momentum
        if set(self.renorm_clipping) - {"rmin", "rmax", "dmax"}:
            raise ValueError(f"renorm_clipping {self.renorm_clipping} contains keys not in ['rmin', 'rmax', 'dmax']")
        self.axis, self.fused = axis, fused
        self.momentum, self.epsilon = float(momentum), float(epsilon)
        self.center, self.scale = center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer, self.gamma_regularizer = regularizers.get(beta_regularizer), regularizers.get(
            gamma_regularizer)
        self.beta_constraint, self.gamma_constraint = constraints.get(beta_constraint), constraints.get(
            gamma_constraint)
        self.supports_masking = True

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        self._rank = shape.ndims
        self._axis = self.axis % self._rank
        size = shape[self._axis].value
        if size is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer received "
                             f"an input with shape {shape}.")
        if self.virtual_batch_size is not None:
            if self._axis == 0:
                raise ValueError("When using virtual_batch_size, the batch dimension must be 0 and thus axis cannot "
                                 "include 0")
            param = tuple(size if i == self._axis + 1 else 1 for i in range(self._rank + 1))
        else:
            param = (size,)
        self.gamma = self.add_weight("gamma", param, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer, constraint=self.gamma_constraint) \
            if self.scale else None
        self.beta = self.add_weight("beta", param, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer, constraint=self.beta_constraint) \
            if self.center else None
        self.moving_mean = self.add_weight("moving_mean", param, initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", param,
                                               initializer=self.moving_variance_initializer, trainable=False)
        if self.renorm:
            self._renorm_vars = [self.add_weight(n, shape, initializer="zeros", trainable=False) for n, shape in (
                ("renorm_mean", param), ("renorm_mean_weight", ()), ("renorm_stddev", param),
                ("renorm_stddev_weight", ()))]
        self.built = True

    def _broadcast(self, v):
        if v is None or self._axis == self._rank - 1 or self.virtual_batch_size is not None:
            return v
        shape = [1] * self._rank
        shape[self._axis] = -1
        return reshape(v, shape)

    def call(self, inputs, training=None):
        if self.virtual_batch_size is not None:  # (the ghost batches as a dimension of their own)
            original_shape, static_shape = shape(inputs), inputs.shape
            inputs = reshape(inputs, concat([[self.virtual_batch_size, -1], original_shape[1:]], 0))
            out = self._normalize(inputs, training, [i for i in range(self._rank + 1) if i not in (1, self._axis + 1)])
            out = reshape(out, original_shape)
            out.set_shape(static_shape)
            return out
        return self._normalize(inputs, training, [i for i in range(self._rank) if i != self._axis])

    def _normalize(self, inputs, training, axes):
        gamma, beta = self._broadcast(self.gamma), self._broadcast(self.beta)
        ghost = self.virtual_batch_size is not None

        def normalized(mean, variance, scale=gamma, offset=beta):
            return nn.batch_normalization(inputs, self._broadcast(mean), self._broadcast(variance), offset, scale,
                                          self.epsilon)

        if training is False or (training is None and K.learning_phase() == 0):
            return normalized(self.moving_mean, self.moving_variance)
        mean, variance = nn.moments(inputs, axes, keep_dims=ghost)
        batch_mean, batch_variance = mean, variance
        if ghost:  # (the moving averages follow the ghost batches' mean moments)
            mean, variance = (reduce_mean(t, [1], keepdims=True) for t in (mean, variance))
        if self.renorm:  # (never TF's fused kernel: the moving variance follows the biased one)
            phase = training if training is not None else K.learning_phase()
            flag = True if phase is True or (not isinstance(phase, ops.Tensor) and phase == 1) else \
                cast(ops.convert_to_tensor(phase), dtypes.bool)
            (r, d), (mean_target, moving) = _renorm(mean, variance, self._renorm_vars, self.renorm_clipping,
                                                    self.renorm_momentum, self.epsilon, flag)
            scale = r if self.gamma is None else r * self.gamma.value()
            offset = d if self.gamma is None else d * self.gamma.value()
            offset = offset if self.beta is None else offset + self.beta.value()
            scale, offset = self._broadcast(scale), self._broadcast(offset)
        else:
            mean_target, scale, offset = mean, gamma, beta
            moving = variance if ghost else fused_moving_variance(variance, inputs, axes, [self._axis], self.fused)
        if training is True or (training is None and K.learning_phase() == 1):
            new_mean, new_variance, out = mean_target, moving, normalized(batch_mean, batch_variance, scale, offset)
        else:
            new_mean = K.in_train_phase(mean_target, lambda: self.moving_mean.read_value(), training)
            new_variance = K.in_train_phase(moving, lambda: self.moving_variance.read_value(), training)
            out = K.in_train_phase(lambda: normalized(batch_mean, batch_variance, scale, offset),
                                   lambda: normalized(self.moving_mean, self.moving_variance), training)
        m = self.momentum
        self.add_update([self.moving_mean.assign_sub((self.moving_mean - new_mean) * (1.0 - m)),
                         self.moving_variance.assign_sub((self.moving_variance - new_variance) * (1.0 - m))])
        return out

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale,
                **({"renorm": True, "renorm_clipping": self.renorm_clipping, "renorm_momentum": self.renorm_momentum}
                   if self.renorm else {}),
                **({"virtual_batch_size": self.virtual_batch_size} if self.virtual_batch_size is not None else {}),
                **self._options_config(
                    "beta_initializer", "gamma_initializer", "moving_mean_initializer",
                    "moving_variance_initializer", "beta_regularizer", "gamma_regularizer", "beta_constraint",
                    "gamma_constraint")}


class LayerNormalization(Layer):
    """Normalizes each example over ``axis`` (the last by default), then scales and shifts."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", **kwargs):
        super().__init__(**kwargs)
        self.axis = axis if isinstance(axis, (list, tuple)) else [axis]
        self.epsilon, self.center, self.scale = float(epsilon), center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)

    _config_keys = ("axis", "epsilon", "center", "scale", "beta_initializer", "gamma_initializer")

    def build(self, input_shape):
        shape = TensorShape(input_shape)
        self._axes = [a % shape.ndims for a in self.axis]
        param = tuple(shape[a].value for a in self._axes)
        self.gamma = self.add_weight("gamma", param, initializer=self.gamma_initializer) if self.scale else None
        self.beta = self.add_weight("beta", param, initializer=self.beta_initializer) if self.center else None
        self.built = True

    def call(self, inputs):
        mean, variance = nn.moments(inputs, self._axes, keep_dims=True)
        return nn.batch_normalization(inputs, mean, variance, self.beta, self.gamma, self.epsilon)
