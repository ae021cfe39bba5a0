"""``tf.keras.losses``: per-sample losses by their Keras names (``loss='mse'``)."""

from __future__ import annotations

from .. import abs as _abs, cast, log, maximum, reduce_mean, reduce_sum, square, nn
from .. import shape as _shape
from . import backend as K
from .object_registry import custom_object


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


def _smoothed(y_true, y_pred, label_smoothing, classes):
    """Labels pulled toward the uniform distribution over ``classes`` by ``label_smoothing``."""
    y_true = cast(y_true, y_pred.dtype)
    if not label_smoothing:
        return y_true
    return y_true * (1.0 - label_smoothing) + label_smoothing / classes


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    classes = cast(_shape(y_pred)[-1], y_pred.dtype) if label_smoothing else 1.0
    return K.categorical_crossentropy(_smoothed(y_true, y_pred, label_smoothing, classes), y_pred,
                                      from_logits=from_logits)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    return K.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true = _smoothed(y_true, y_pred, label_smoothing, 2.0)
    return reduce_mean(K.binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=-1)


def categorical_hinge(y_true, y_pred):
    y_true = cast(y_true, y_pred.dtype)
    positive = reduce_sum(y_true * y_pred, axis=-1)
    negative = K.max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(negative - positive + 1.0, 0.0)


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


class Reduction:
    """How a Loss object reduces its per-sample losses (``tf.keras.losses.Reduction``)."""
    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key!r}: expected one of {cls.all()}")


class Loss:
    """A loss object: ``Loss()(y_true, y_pred, sample_weight)`` weighs the per-sample losses
    of ``call`` and reduces them: their mean over every entry (AUTO, SUM_OVER_BATCH_SIZE),
    their sum (SUM), or none (NONE)."""

    def __init__(self, reduction=Reduction.AUTO, name=None):
        Reduction.validate(reduction)
        self.reduction, self.name = reduction, name

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        losses = self.call(y_true, y_pred)
        if sample_weight is not None:
            losses = losses * cast(sample_weight, losses.dtype)
        if self.reduction == Reduction.NONE:
            return losses
        if self.reduction == Reduction.SUM:
            return reduce_sum(losses)
        return reduce_mean(losses)

    def get_config(self):
        return {"reduction": self.reduction, "name": self.name}


def _loss_class(class_name: str, fn, *options):
    """A Loss class whose constructor takes ``options`` (name, default) first, as TF's do,
    then ``reduction`` and ``name``."""
    def __init__(self, *args, **kwargs):
        names = [option for option, _ in options] + ["reduction", "name"]
        if len(args) > len(names):
            raise TypeError(f"{class_name} takes at most {len(names)} arguments, got {len(args)}")
        values = dict(options)
        values.update(reduction=Reduction.AUTO, name=None)
        for key, value in list(zip(names, args)) + list(kwargs.items()):
            if key not in values:
                raise TypeError(f"{class_name} got an unexpected keyword argument {key!r}")
            values[key] = value
        Loss.__init__(self, values.pop("reduction"), values.pop("name") or fn.__name__)
        self._kwargs = values

    def call(self, y_true, y_pred):
        return fn(y_true, y_pred, **self._kwargs)

    def get_config(self):
        return {**Loss.get_config(self), **self._kwargs}

    return type(class_name, (Loss,), {"__init__": __init__, "call": call, "get_config": get_config,
                                      "_fn": staticmethod(fn)})


MeanSquaredError = _loss_class("MeanSquaredError", mean_squared_error)
MeanAbsoluteError = _loss_class("MeanAbsoluteError", mean_absolute_error)
MeanAbsolutePercentageError = _loss_class("MeanAbsolutePercentageError", mean_absolute_percentage_error)
MeanSquaredLogarithmicError = _loss_class("MeanSquaredLogarithmicError", mean_squared_logarithmic_error)
CategoricalCrossentropy = _loss_class("CategoricalCrossentropy", categorical_crossentropy, ("from_logits", False),
                                      ("label_smoothing", 0))
SparseCategoricalCrossentropy = _loss_class("SparseCategoricalCrossentropy", sparse_categorical_crossentropy,
                                            ("from_logits", False))
BinaryCrossentropy = _loss_class("BinaryCrossentropy", binary_crossentropy, ("from_logits", False),
                                 ("label_smoothing", 0))
Hinge = _loss_class("Hinge", hinge)
SquaredHinge = _loss_class("SquaredHinge", squared_hinge)
CategoricalHinge = _loss_class("CategoricalHinge", categorical_hinge)
Huber = _loss_class("Huber", huber_loss, ("delta", 1.0))
KLDivergence = _loss_class("KLDivergence", kullback_leibler_divergence)
Poisson = _loss_class("Poisson", poisson)
LogCosh = _loss_class("LogCosh", logcosh)
CosineSimilarity = _loss_class("CosineSimilarity", cosine_similarity, ("axis", -1))


def get(identifier):
    """The per-sample loss function for a name, a Loss object or a function."""
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            custom = custom_object(identifier)
            if custom is not None:
                return get(custom() if isinstance(custom, type) else custom)
            raise ValueError(f"Unknown loss function: {identifier} (one of {sorted(_BY_NAME)}, or pass it in "
                             "custom_objects)")
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
