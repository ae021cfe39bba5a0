"""Fully connected layers and friends, built from get_variable so that reuse works."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework import ops
from ..ops import array_ops, init_ops, math_ops, nn_ops
from ..ops import slicing_ops
from ..ops.variable_scope import get_variable, variable_scope


def layer_variable(name, shape, dtype, initializer, regularizer, trainable, constraint=None):
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                        trainable=trainable, constraint=constraint)


def add_activity_regularization(out, activity_regularizer) -> None:
    """Adds ``activity_regularizer(out)`` to REGULARIZATION_LOSSES (a layer's activity regularizer)."""
    if activity_regularizer is not None:
        loss = activity_regularizer(out)
        if loss is not None:
            ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
          name=None, reuse=None) -> ops.Tensor:
    """``activation(inputs @ kernel + bias)`` with variables ``<name>/kernel`` and ``<name>/bias``."""
    inputs = ops.convert_to_tensor(inputs)
    if inputs.shape.ndims is None or inputs.shape[-1].value is None:
        raise ValueError(f"The last dimension of the inputs to `Dense` should be defined. Found {inputs.shape}.")
    dtype = inputs.dtype.base_dtype
    with variable_scope(name, default_name="dense", reuse=reuse):
        kernel = layer_variable("kernel", [inputs.shape[-1].value, units], dtype, kernel_initializer,
                                kernel_regularizer, trainable, kernel_constraint)
        if inputs.shape.ndims == 2:
            out = math_ops.matmul(inputs, kernel)
        else:
            flat = array_ops.reshape(inputs, [-1, inputs.shape[-1].value])
            out = array_ops.reshape(math_ops.matmul(flat, kernel),
                                    slicing_ops.concat([array_ops.shape(inputs)[:-1], [units]], 0))
            out.set_shape(inputs.shape[:-1].concatenate([units]))  # (the leading dims, as TF knows them)
        if use_bias:
            bias = layer_variable("bias", [units], dtype, bias_initializer, bias_regularizer, trainable,
                                  bias_constraint)
            out = nn_ops.bias_add(out, bias)
        if activation is not None:
            out = activation(out)
        add_activity_regularization(out, activity_regularizer)
        return out


def flatten(inputs, name=None, data_format="channels_last") -> ops.Tensor:
    """Reshapes [batch, d1, d2, ...] to [batch, d1 * d2 * ...]; with ``channels_first``, the
    channels are moved last first, so that the order of the features is the same (as TF)."""
    inputs = ops.convert_to_tensor(inputs)
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"flatten: data_format must be 'channels_last' or 'channels_first', got {data_format!r}")
    with ops.name_scope(name, "flatten", [inputs]):
        if data_format == "channels_first" and inputs.shape.ndims is not None and inputs.shape.ndims > 2:
            rank = inputs.shape.ndims
            inputs = array_ops.transpose(inputs, [0, *range(2, rank), 1])
        dims = inputs.shape.as_list()[1:] if inputs.shape.ndims is not None else [None]
        if all(d is not None for d in dims):
            return array_ops.reshape(inputs, [-1, int(np.prod(dims))])
        return array_ops.reshape(inputs, array_ops.stack([array_ops.shape(inputs)[0], -1]))


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None) -> ops.Tensor:
    """Dropout while ``training`` (a bool or a boolean tensor); identity otherwise."""
    inputs = ops.convert_to_tensor(inputs)
    with ops.name_scope(name, "dropout", [inputs]):
        if isinstance(training, bool):
            if not training:
                return array_ops.identity(inputs)
            return nn_ops.dropout(inputs, rate=rate, noise_shape=noise_shape, seed=seed)
        training = ops.convert_to_tensor(training, dtype=dtypes.bool)
        dropped = nn_ops.dropout(inputs, rate=rate, noise_shape=noise_shape, seed=seed)
        return math_ops.where(array_ops.fill(array_ops.shape(inputs), training), dropped, inputs)
