"""``tf.keras.activations``: the activation functions by name."""

from __future__ import annotations

from .. import nn
from . import backend as K


def softmax(x, axis=-1):
    return K.softmax(x, axis=axis)


def relu(x, alpha=0.0, max_value=None, threshold=0):
    return K.relu(x, alpha=alpha, max_value=max_value, threshold=threshold)


def elu(x, alpha=1.0):
    out = nn.elu(x)
    return out if alpha == 1.0 else K.maximum(x, 0.0) + alpha * K.minimum(out, 0.0)


def selu(x):
    return nn.selu(x)


def softplus(x):
    return nn.softplus(x)


def softsign(x):
    return nn.softsign(x)


def tanh(x):
    return nn.tanh(x)


def sigmoid(x):
    return nn.sigmoid(x)


def exponential(x):
    return K.exp(x)


def hard_sigmoid(x):
    return K.hard_sigmoid(x)


def linear(x):
    return x


_BY_NAME = {f.__name__: f for f in (softmax, relu, elu, selu, softplus, softsign, tanh, sigmoid, exponential,
                                    hard_sigmoid, linear)}


def get(identifier):
    """The activation named ``identifier`` (None: linear), or the callable itself."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown activation function: {identifier} (one of {sorted(_BY_NAME)})")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}")


def serialize(activation) -> str:
    return getattr(activation, "__name__", str(activation))


deserialize = get
