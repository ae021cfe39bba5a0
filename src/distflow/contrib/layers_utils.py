"""``tf.contrib.slim.utils`` (contrib.layers' utils): the end-points helpers of TF-Slim's nets
and the small shape and condition helpers its layers use.

A collected output keeps the names it was collected under in ``tensor.aliases`` (a list, as
TF 1.1+; ``tensor.alias`` is the last one, as TF 1.0); ``convert_collection_to_dict`` gives
a net's end points as ``{alias: tensor}`` in the order they were collected.
"""

from __future__ import annotations

import collections

from .._namespace import missing
from ..framework import ops
from ..framework.tensor_shape import TensorShape
from ..ops.state_ops import Variable
from ..ops import nn_ops
from ..ops.control_flow_v2 import cond
from ..ops.op_util import constant_value as _static_value
from .framework import model_variable

NamedOutputs = collections.namedtuple("NamedOutputs", ["name", "outputs"])


def append_tensor_alias(tensor, alias: str):
    """Adds ``alias`` (without a trailing '/') to ``tensor.aliases``; returns ``tensor``."""
    alias = alias[:-1] if alias.endswith("/") else alias
    if getattr(tensor, "aliases", None) is None:
        tensor.aliases = []
    tensor.aliases.append(alias)
    tensor.alias = alias
    return tensor


def collect_named_outputs(collections, alias, outputs):
    """``outputs`` with ``alias`` appended to its aliases, added to ``collections`` (when any)."""
    if collections:
        append_tensor_alias(outputs, alias)
        ops.add_to_collections(collections, outputs)
    return outputs


def get_tensor_aliases(tensor) -> list[str]:
    """The aliases of ``tensor``; without any, its op's name (for an op's first output) or its name."""
    aliases = getattr(tensor, "aliases", None)
    if aliases is not None:
        return aliases
    return [tensor.op.name] if tensor.name.endswith(":0") else [tensor.name]


def gather_tensors_aliases(tensors) -> list[str]:
    return [alias for tensor in tensors for alias in get_tensor_aliases(tensor)]


def convert_collection_to_dict(collection, clear_collection=False) -> collections.OrderedDict:
    """``{alias: tensor}`` for the tensors in ``collection`` (each under every alias it has)."""
    graph = ops.get_default_graph()
    out = collections.OrderedDict((alias, tensor) for tensor in graph.get_collection(collection)
                                  for alias in get_tensor_aliases(tensor))
    if clear_collection:
        graph.clear_collection(collection)
    return out


def constant_value(value_or_tensor_or_var, dtype=None):
    """The value when it is known while building (a Python value or a constant tensor), else None.

    Raises:
      ValueError: the value is None, or a tensor or variable is not of ``dtype``.
    """
    if value_or_tensor_or_var is None:
        raise ValueError("value_or_tensor_or_var cannot be None")
    value = value_or_tensor_or_var
    if isinstance(value, (ops.Tensor, Variable)):
        if dtype and value.dtype != dtype:
            raise ValueError(f"It has the wrong type {value.dtype} instead of {dtype}")
        return None if isinstance(value, Variable) else _static_value(value)
    return value


def static_cond(pred, fn1, fn2):
    """``fn1()`` when ``pred`` (a Python value) is true, else ``fn2()``."""
    if not callable(fn1):
        raise TypeError("fn1 must be callable.")
    if not callable(fn2):
        raise TypeError("fn2 must be callable.")
    return fn1() if pred else fn2()


def smart_cond(pred, fn1, fn2, name=None):
    """``static_cond`` when ``pred`` is known while building, else ``tf.cond``."""
    value = constant_value(pred)
    if value is not None:
        return static_cond(value, fn1, fn2)
    return cond(pred, fn1, fn2, name=name)


def get_variable_collections(variables_collections, name):
    if isinstance(variables_collections, dict):
        return variables_collections.get(name)
    return variables_collections


def finish_layer(outputs, num_outputs, activation_fn, normalizer_fn, normalizer_params, biases_initializer,
                 biases_regularizer, variables_collections, trainable, dtype, data_format=None):
    """A layer's last steps: the normalizer if given, else biases (a model variable ``biases``
    of ``num_outputs``, unless ``biases_initializer`` is None); then the activation."""
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    elif biases_initializer is not None:
        biases = model_variable("biases", [num_outputs], dtype, biases_initializer, biases_regularizer, trainable,
                                get_variable_collections(variables_collections, "biases"))
        outputs = nn_ops.bias_add(outputs, biases, data_format=data_format)
    return activation_fn(outputs) if activation_fn is not None else outputs


def _dimension(shape, dim: int, min_rank: int):
    shape = TensorShape(shape)
    if shape.ndims is None:
        raise ValueError("dims of shape must be known but is None")
    if shape.ndims < min_rank:
        raise ValueError(f"rank of shape must be at least {min_rank} not: {shape.ndims}")
    value = shape.dims[dim].value
    if value is None:
        raise ValueError(f"dimension {dim} of shape must be known but is None: {shape}")
    return value


def channel_dimension(shape, data_format, min_rank=1):
    """The size of the channels ('channels_first': dimension 1, else the last)."""
    return _dimension(shape, 1 if data_format == "channels_first" else -1, min_rank)


def last_dimension(shape, min_rank=1):
    """The size of the last dimension of ``shape``, which must be known and of rank ``min_rank`` or more."""
    return _dimension(shape, -1, min_rank)


def two_element_tuple(int_or_tuple):
    """(height, width) from one int, a pair, or a TensorShape of two dimensions."""
    if isinstance(int_or_tuple, (list, tuple)):
        if len(int_or_tuple) != 2:
            raise ValueError(f"Must be a list with 2 elements: {int_or_tuple}")
        return int(int_or_tuple[0]), int(int_or_tuple[1])
    if isinstance(int_or_tuple, int):
        return int_or_tuple, int_or_tuple
    if isinstance(int_or_tuple, TensorShape) and len(int_or_tuple) == 2:
        return int_or_tuple[0], int_or_tuple[1]
    raise ValueError("Must be an int, a list with 2 elements or a TensorShape of length 2")


def n_positive_integers(n: int, value) -> tuple:
    """``value`` as ``n`` positive ints: one int repeated, or a sequence (or TensorShape) of ``n``.

    Raises:
      ValueError: ``n`` is not a positive int, or ``value`` is not ``n`` positive ints.
    """
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, not {n!r}")
    try:
        values = (int(value),) * n
    except (TypeError, ValueError):
        if isinstance(value, TensorShape):
            value = value.as_list()
        try:
            values = tuple(int(v) for v in value)
        except (TypeError, ValueError):
            raise ValueError(f"Expected sequence of {n} positive integers, but received {value!r}") from None
        if len(values) != n:
            raise ValueError(f"Expected sequence of {n} positive integers, but received {value!r}") from None
    if any(v <= 0 for v in values):
        raise ValueError(f"Expected sequence of {n} positive integers, but received {value!r}")
    return values


__getattr__ = missing("tf.contrib.slim.utils")
