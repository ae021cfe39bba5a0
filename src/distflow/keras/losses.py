"""``tf.keras.losses``: per-sample losses by their Keras names (``loss='mse'``)."""

from __future__ import annotations

from .. import abs as _abs, cast, log, maximum, reduce_mean, reduce_sum, square, nn
from . import backend as K


def mean_squared_error(y_true, y_pred):
    return reduce_mean(square(y_pred - cast(y_true, y_pred.dtype)), axis=-1)


def mean_absolute_error(y_true, y_pred):
    return reduce_mean(_abs(y_pred - cast(y_true, y_pred.dtype)), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true = cast(y_true, y_pred.dtype)
    diff = _abs((y_true - y_pred) / K.maximum(_abs(y_true), K.epsilon()))
    return 100.0 * reduce_mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true = cast(y_true, y_pred.dtype)
    first = log(K.maximum(y_pred, K.epsilon()) + 1.0)
    second = log(K.maximum(y_true, K.epsilon()) + 1.0)
    return reduce_mean(square(first - second), axis=-1)


def squared_hinge(y_true, y_pred):
    return reduce_mean(square(maximum(1.0 - cast(y_true, y_pred.dtype) * y_pred, 0.0)), axis=-1)


def hinge(y_true, y_pred):
    return reduce_mean(maximum(1.0 - cast(y_true, y_pred.dtype) * y_pred, 0.0), axis=-1)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    return K.categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    return K.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    return reduce_mean(K.binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=-1)


def kullback_leibler_divergence(y_true, y_pred):
    y_true = K.clip(cast(y_true, y_pred.dtype), K.epsilon(), 1)
    y_pred = K.clip(y_pred, K.epsilon(), 1)
    return reduce_sum(y_true * log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    return reduce_mean(y_pred - cast(y_true, y_pred.dtype) * log(y_pred + K.epsilon()), axis=-1)


def cosine_similarity(y_true, y_pred, axis=-1):
    return -reduce_sum(nn.l2_normalize(cast(y_true, y_pred.dtype), axis) * nn.l2_normalize(y_pred, axis), axis=axis)


def logcosh(y_true, y_pred):
    x = y_pred - cast(y_true, y_pred.dtype)
    return reduce_mean(x + nn.softplus(-2.0 * x) - log(2.0), axis=-1)


def huber_loss(y_true, y_pred, delta=1.0):
    error = y_pred - cast(y_true, y_pred.dtype)
    small = K.minimum(_abs(error), delta)
    return reduce_mean(0.5 * square(small) + delta * (_abs(error) - small), axis=-1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence
cosine = cosine_proximity = cosine_similarity

_BY_NAME = {name: fn for name, fn in list(globals().items()) if callable(fn) and not name.startswith("_")
            and fn.__module__ == __name__}


class Loss:
    """A loss object: ``Loss()(y_true, y_pred)`` is the batch's mean loss; ``call`` is per sample."""

    def __init__(self, reduction="auto", name=None):
        self.reduction, self.name = reduction, name

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        losses = self.call(y_true, y_pred)
        if sample_weight is not None:
            losses = losses * sample_weight
        return reduce_mean(losses)


def _loss_class(class_name: str, fn):
    def __init__(self, reduction="auto", name=None, **kwargs):
        Loss.__init__(self, reduction, name or fn.__name__)
        self._kwargs = kwargs

    def call(self, y_true, y_pred):
        return fn(y_true, y_pred, **self._kwargs)

    return type(class_name, (Loss,), {"__init__": __init__, "call": call, "_fn": staticmethod(fn)})


MeanSquaredError = _loss_class("MeanSquaredError", mean_squared_error)
MeanAbsoluteError = _loss_class("MeanAbsoluteError", mean_absolute_error)
CategoricalCrossentropy = _loss_class("CategoricalCrossentropy", categorical_crossentropy)
SparseCategoricalCrossentropy = _loss_class("SparseCategoricalCrossentropy", sparse_categorical_crossentropy)
BinaryCrossentropy = _loss_class("BinaryCrossentropy", binary_crossentropy)
Hinge = _loss_class("Hinge", hinge)
Huber = _loss_class("Huber", huber_loss)
KLDivergence = _loss_class("KLDivergence", kullback_leibler_divergence)
Poisson = _loss_class("Poisson", poisson)
LogCosh = _loss_class("LogCosh", logcosh)


def get(identifier):
    """The per-sample loss function for a name, a Loss object or a function."""
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown loss function: {identifier} (one of {sorted(_BY_NAME)})")
        return _BY_NAME[identifier]
    if isinstance(identifier, Loss):
        return identifier.call
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier!r}")


def name_of(identifier) -> str:
    fn = get(identifier)
    return getattr(fn, "__name__", type(identifier).__name__)


serialize = name_of
deserialize = get
