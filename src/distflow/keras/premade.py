"""``tf.keras.experimental``'s premade models (TF 1.15): ``LinearModel``, a linear
combination of its inputs, and ``WideDeepModel``, the mean of a linear model's and a deep
model's outputs, each part trained by an optimizer of its own.

``LinearModel`` takes one tensor, a list of them or a dict of them (in the keys' order):
each input has a kernel of its own, [its features, units], and their products are summed
with one bias. ``WideDeepModel(linear_model, dnn_model)`` gives the two models the same
inputs, or, called on a list of two, the first to the linear model and the second to the
deep one; ``compile(optimizer=[linear_optimizer, dnn_optimizer])`` trains each model's weights
with its optimizer (one optimizer trains both).
"""

from __future__ import annotations

from .. import add_n, nn
from . import activations, initializers, optimizers as optimizers_lib, regularizers
from .engine.training import Model
from .layers.core import Dense


class LinearModel(Model):
    """A linear model of its inputs (the module's text)."""

    def __init__(self, units=1, activation=None, use_bias=True, kernel_initializer="zeros",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.dense_layers = None
        self.bias = None

    def _make_layers(self, inputs) -> None:
        names = sorted(inputs) if isinstance(inputs, dict) else None
        count = len(inputs) if isinstance(inputs, (dict, list, tuple)) else 1
        self.dense_layers = [Dense(self.units, use_bias=False, kernel_initializer=self.kernel_initializer,
                                   kernel_regularizer=self.kernel_regularizer,
                                   name=names[i] if names else f"dense_{i}" if count > 1 else "dense")
                             for i in range(count)]  # (tracked as the model's layers when set)
        if self.use_bias:
            self.bias = self.add_weight("bias", (self.units,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer)

    def call(self, inputs):
        if self.dense_layers is None:
            self._make_layers(inputs)
        given = [inputs[k] for k in sorted(inputs)] if isinstance(inputs, dict) else \
            list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(given) != len(self.dense_layers):
            raise ValueError(f"LinearModel {self.name} was built for {len(self.dense_layers)} inputs, got "
                             f"{len(given)}")
        parts = [layer(x) for layer, x in zip(self.dense_layers, given)]
        out = add_n(parts) if len(parts) > 1 else parts[0]
        if self.use_bias:
            out = nn.bias_add(out, self.bias)
        return self.activation(out) if self.activation is not None else out

    def get_config(self) -> dict:
        return {"units": self.units, "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias, "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": regularizers.serialize(self.bias_regularizer)}


class WideDeepModel(Model):
    """The mean of ``linear_model``'s and ``dnn_model``'s outputs, through ``activation``."""

    def __init__(self, linear_model, dnn_model, activation=None, **kwargs):
        super().__init__(**kwargs)
        self.linear_model, self.dnn_model = linear_model, dnn_model  # (tracked as its layers)
        self.activation = activations.get(activation)
        self._dnn_optimizer = None

    def call(self, inputs):
        if isinstance(inputs, (list, tuple)) and len(inputs) == 2:
            linear_inputs, dnn_inputs = inputs
        else:
            linear_inputs = dnn_inputs = inputs
        output = 0.5 * (self.linear_model(linear_inputs) + self.dnn_model(dnn_inputs))
        return self.activation(output) if self.activation is not None else output

    def compile(self, optimizer="rmsprop", *args, **kwargs):
        if isinstance(optimizer, (list, tuple)):
            if len(optimizer) != 2:
                raise ValueError(f"WideDeepModel takes one optimizer, or two: the linear model's and the deep "
                                 f"model's; got {len(optimizer)}")
            optimizer, dnn_optimizer = optimizer
            self._dnn_optimizer = optimizers_lib.get(dnn_optimizer)
        else:
            self._dnn_optimizer = None
        super().compile(optimizer, *args, **kwargs)

    def _minimize(self, loss, variables):
        if self._dnn_optimizer is None:
            return super()._minimize(loss, variables)
        from .. import group  # noqa: PLC0415

        deep = {id(v) for v in self.dnn_model.trainable_weights}
        linear = [v for v in variables if id(v) not in deep]
        steps = [self.optimizer.minimize(loss, linear)] if linear else []
        dnn = [v for v in variables if id(v) in deep]
        if dnn:
            steps.append(self._dnn_optimizer.minimize(loss, dnn))
        return group(*steps)

    def get_config(self) -> dict:
        raise NotImplementedError("WideDeepModel's sub-models are models: save its weights, not its config")
