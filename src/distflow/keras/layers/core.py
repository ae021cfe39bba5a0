"""Keras's core layers: Dense, Activation, Dropout, Flatten, Reshape, Permute, RepeatVector,
Lambda and Embedding."""

from __future__ import annotations

import sys

import numpy as np

from ... import cast, gather, matmul, nn, reshape, stack, tensordot, tile, transpose, expand_dims, not_equal
from ... import shape as shape_of
from ...framework import dtypes
from ...framework.tensor_shape import TensorShape
from .. import activations, backend as K, initializers
from ..engine.base_layer import InputSpec, Layer
from ..object_registry import custom_object


class Dense(Layer):
    """``activation(inputs @ kernel + bias)``, on the last axis of inputs of any rank."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        if self.units <= 0:
            raise ValueError(f"Dense: units must be positive, got {units}")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self._set_weight_options(kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                                 kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                                 kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        last = TensorShape(input_shape)[-1].value
        if last is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
        self.kernel = self.add_weight("kernel", (last, self.units), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", (self.units,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.built = True

    def call(self, inputs):
        rank = inputs.shape.ndims
        out = matmul(inputs, self.kernel) if rank == 2 else tensordot(inputs, self.kernel, [[rank - 1], [0]])
        if self.use_bias:
            out = nn.bias_add(out, self.bias)
        return self.activation(out)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)[:-1].concatenate([self.units])

    def get_config(self):
        return {**super().get_config(), "units": self.units, **self._options_config(
            "activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
            "bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint")}


class Activation(Layer):
    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


class Dropout(Layer):
    """Drops a fraction ``rate`` of its inputs in training (scaling the rest up); the identity
    otherwise."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = min(1.0, max(0.0, float(rate)))
        self.noise_shape, self.seed = noise_shape, seed
        self.supports_masking = True

    def call(self, inputs, training=None):
        if self.rate == 0.0:
            return inputs
        return K.in_train_phase(lambda: nn.dropout(inputs, rate=self.rate, noise_shape=self.noise_shape,
                                                   seed=self.seed), lambda: inputs, training)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed}


class Flatten(Layer):
    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or K.image_data_format()

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}

    def call(self, inputs):
        if self.data_format == "channels_first" and inputs.shape.ndims and inputs.shape.ndims > 2:
            inputs = transpose(inputs, [0] + list(range(2, inputs.shape.ndims)) + [1])
        rest = inputs.shape[1:]
        if rest.is_fully_defined():
            return reshape(inputs, [-1, int(np.prod(rest.as_list()))])
        return reshape(inputs, stack([shape_of(inputs)[0], -1]))


class Reshape(Layer):
    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def call(self, inputs):
        target = self._resolved(inputs.shape)
        return reshape(inputs, stack([shape_of(inputs)[0]] + target)) \
            if inputs.shape[0].value is None else reshape(inputs, [inputs.shape[0].value] + target)

    def _resolved(self, shape) -> list:
        """The target shape with a -1 worked out from the input's known sizes, as Keras does, so
        that the output's static shape has it."""
        target = list(self.target_shape)
        if target.count(-1) > 1:
            raise ValueError("Can only specify one unknown dimension.")
        dims = shape.as_list()[1:] if shape.ndims is not None else [None]
        if -1 not in target or None in dims:
            return target
        total, known = int(np.prod(dims)), int(np.prod([d for d in target if d != -1]))
        if known == 0 or total % known:
            raise ValueError(f"total size of new array must be unchanged: input shape {shape}, target shape "
                             f"{self.target_shape}")
        return [total // known if d == -1 else d for d in target]

    def get_config(self):
        return {**super().get_config(), "target_shape": self.target_shape}


class Permute(Layer):
    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation `dims` for Permute Layer: {dims}. The set of indices in `dims` "
                             "must be consecutive and start from 1.")

    def call(self, inputs):
        return transpose(inputs, (0,) + self.dims)

    def get_config(self):
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = int(n)
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return tile(expand_dims(inputs, 1), [1, self.n, 1])

    def get_config(self):
        return {**super().get_config(), "n": self.n}


class Lambda(Layer):
    """Wraps a function of tensors as a layer (``arguments`` are passed to it as keywords).

    Its config names its function (and an ``output_shape`` function) by module and name;
    loading finds it among the custom objects or in its module, if that is imported. A
    lambda's code is not written: Keras marshals its bytecode, and loading that would run
    whatever code a file holds; such a config (Keras's too) is refused on loading."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = dict(arguments or {})
        self._output_shape = output_shape

    def call(self, inputs, mask=None, training=None):
        return self.function(inputs, **self.arguments)

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return TensorShape(self._output_shape(TensorShape(input_shape).as_list()))
        return TensorShape([TensorShape(input_shape)[0].value] + list(self._output_shape))

    def get_config(self):
        function, function_type, module = _function_spec(self.function)
        if callable(self._output_shape):
            output_shape, output_shape_type, output_shape_module = _function_spec(self._output_shape)
        else:
            output_shape, output_shape_type, output_shape_module = self._output_shape, "raw", None
        return {**super().get_config(), "function": function, "function_type": function_type, "module": module,
                "output_shape": output_shape, "output_shape_type": output_shape_type,
                "output_shape_module": output_shape_module, "arguments": self.arguments}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        function = _find_function(config.pop("function"), config.pop("function_type", "function"),
                                  config.pop("module", None), custom_objects, config.get("name"))
        shape_type, shape_module = config.pop("output_shape_type", "raw"), config.pop("output_shape_module", None)
        if shape_type != "raw":
            config["output_shape"] = _find_function(config["output_shape"], shape_type, shape_module, custom_objects,
                                                    config.get("name"))
        elif config.get("output_shape") is not None:
            config["output_shape"] = tuple(config["output_shape"])
        config["arguments"] = {k: np.asarray(v["value"]) if isinstance(v, dict) and v.get("type") == "ndarray" else v
                               for k, v in (config.get("arguments") or {}).items()}
        return cls(function, **config)


def _function_spec(function) -> tuple:
    """(name, "function", module) of a named function; a lambda's: (None, "lambda", module)."""
    name = getattr(function, "__name__", None)
    if name is None or name == "<lambda>":
        return None, "lambda", getattr(function, "__module__", None)
    return name, "function", getattr(function, "__module__", None)


def _find_function(name, kind, module, custom_objects, layer):
    if kind != "function" or not isinstance(name, str):
        raise ValueError(f"Lambda layer {layer!r}: its function is a {kind} (Keras writes a lambda's code as "
                         "marshalled bytecode, which distflow neither writes nor runs); define it as a named function "
                         "and pass it in custom_objects")
    found = custom_object(name, custom_objects)
    if found is None and module in sys.modules:
        found = getattr(sys.modules[module], name, None)
    if found is None:
        raise ValueError(f"Lambda layer {layer!r}: its function {name!r} (of module {module!r}) was not found: "
                         "pass it in custom_objects")
    return found


class Embedding(Layer):
    """Row ``i`` of ``embeddings`` for each integer ``i`` of the inputs."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 activity_regularizer=None, embeddings_constraint=None, mask_zero=False, input_length=None,
                 **kwargs):
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,) if np.ndim(input_length) == 0 else tuple(input_length)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        if embeddings_initializer == "uniform":
            embeddings_initializer = initializers.RandomUniform(-0.05, 0.05)
        self._set_weight_options(embeddings_initializer=embeddings_initializer,
                                 embeddings_regularizer=embeddings_regularizer,
                                 embeddings_constraint=embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.input_length = input_length

    def build(self, input_shape):
        self.embeddings = self.add_weight("embeddings", (self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True

    def call(self, inputs):
        if inputs.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            inputs = cast(inputs, dtypes.int32)
        return gather(self.embeddings, inputs)

    def compute_mask(self, inputs, mask=None):
        return not_equal(inputs, 0) if self.mask_zero else None

    def get_config(self):
        return {**super().get_config(), "input_dim": self.input_dim, "output_dim": self.output_dim,
                **self._options_config("embeddings_initializer", "embeddings_regularizer", "activity_regularizer",
                                       "embeddings_constraint"),
                "mask_zero": self.mask_zero, "input_length": self.input_length}
