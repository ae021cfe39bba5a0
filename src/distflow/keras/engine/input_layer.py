"""``Input`` and ``InputLayer``: where a functional model's tensors begin (a placeholder)."""

from __future__ import annotations

from ... import placeholder
from ...framework import ops
from .. import backend as K
from .base_layer import Layer


class InputLayer(Layer):
    """A layer that holds a model input: a placeholder of ``batch_input_shape``, or a given tensor."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None, sparse=False, name=None,
                 batch_input_shape=None, **kwargs):
        super().__init__(name=name or f"input_{K.get_uid('input')}", dtype=dtype)  # (input_1, input_2: TF's names)
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (batch_size,) + tuple(input_shape)
        if input_tensor is None:
            if batch_input_shape is None:
                raise ValueError("An Input needs a shape (or batch_shape, or a tensor).")
            with ops.name_scope(None):
                input_tensor = placeholder(self.dtype, shape=batch_input_shape, name=self.name)
        self._batch_input_shape = tuple(input_tensor.shape.as_list()) if input_tensor.shape.ndims is not None \
            else None
        self.is_placeholder = input_tensor.op.type == "Placeholder"
        self.built = True
        self._record([], input_tensor, {})

    def get_config(self):
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype, "name": self.name,
                "sparse": False}


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None, batch_shape=None,  # noqa: N802
          **kwargs):
    """A symbolic model input: ``Input(shape=(784,))`` is a float32 placeholder of shape
    ``[None, 784]`` that Keras layers and ``Model(inputs, outputs)`` take."""
    if sparse:
        raise NotImplementedError("Input(sparse=True) is not supported")
    if shape is None and batch_shape is None and tensor is None:
        raise ValueError("Please provide to Input either a `shape` or a `tensor` argument. Note that `shape` does "
                         "not include the batch dimension.")
    layer = InputLayer(input_shape=tuple(shape) if shape is not None else None, batch_size=batch_size, name=name,
                       dtype=dtype, input_tensor=tensor, batch_input_shape=batch_shape)
    return layer.output
