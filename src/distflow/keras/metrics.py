"""``tf.keras.metrics``: per-sample metric functions by their Keras names, which ``fit``
averages over the samples of an epoch, and the metric objects of metric_objects.py
(``AUC()``, ``Precision()``, ...), which keep their own totals."""

from __future__ import annotations

from .. import argmax, cast, equal, greater, reshape, reduce_mean
from .. import shape as shape_of
from .. import nn
from ..framework import dtypes
from . import backend as K
from . import losses as losses_lib
from .object_registry import custom_object, deserialize_keras_object, deserialize_with
from .metric_objects import (AUC, BinaryCrossentropy, CategoricalCrossentropy, CategoricalHinge,  # noqa: F401
                             CosineSimilarity, FalseNegatives, FalsePositives, Hinge, KLDivergence, LogCoshError, Mean,
                             MeanAbsoluteError, MeanAbsolutePercentageError, MeanIoU, MeanMetricWrapper,
                             MeanRelativeError, MeanSquaredError, MeanSquaredLogarithmicError, MeanTensor, Metric,
                             Poisson, Precision, Recall, RootMeanSquaredError, SensitivityAtSpecificity,
                             SparseCategoricalCrossentropy, SpecificityAtSensitivity, SquaredHinge, Sum,
                             TrueNegatives, TruePositives, wrapper_class)
from . import metric_objects


def accuracy(y_true, y_pred):
    """1 where the prediction equals the label, else 0."""
    if y_true.dtype != y_pred.dtype:
        y_pred = cast(y_pred, y_true.dtype)
    return cast(equal(y_true, y_pred), K.floatx())


def binary_accuracy(y_true, y_pred, threshold=0.5):
    pred = cast(greater(y_pred, threshold), y_pred.dtype)
    return reduce_mean(cast(equal(cast(y_true, y_pred.dtype), pred), "float32"), axis=-1)


def categorical_accuracy(y_true, y_pred):
    return cast(equal(argmax(y_true, -1), argmax(y_pred, -1)), "float32")


def sparse_categorical_accuracy(y_true, y_pred):
    """Labels of shape [n] or [n, 1] (or the predictions' leading shape) against the arg max."""
    labels = cast(reshape(y_true, shape_of(y_pred)[:-1]), dtypes.int64)
    return cast(equal(labels, argmax(y_pred, -1)), "float32")


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    return cast(nn.in_top_k(y_pred, argmax(y_true, -1), k), "float32")


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    return cast(nn.in_top_k(y_pred, cast(reshape(y_true, [-1]), dtypes.int32), k), "float32")


Accuracy = wrapper_class("Accuracy", accuracy, "accuracy")
BinaryAccuracy = wrapper_class("BinaryAccuracy", binary_accuracy, "binary_accuracy", ("threshold", 0.5))
CategoricalAccuracy = wrapper_class("CategoricalAccuracy", categorical_accuracy, "categorical_accuracy")
SparseCategoricalAccuracy = wrapper_class("SparseCategoricalAccuracy", sparse_categorical_accuracy,
                                          "sparse_categorical_accuracy")
TopKCategoricalAccuracy = wrapper_class("TopKCategoricalAccuracy", top_k_categorical_accuracy,
                                        "top_k_categorical_accuracy", ("k", 5))
SparseTopKCategoricalAccuracy = wrapper_class("SparseTopKCategoricalAccuracy", sparse_top_k_categorical_accuracy,
                                              "sparse_top_k_categorical_accuracy", ("k", 5))

mean_squared_error = mse = MSE = losses_lib.mean_squared_error
mean_absolute_error = mae = MAE = losses_lib.mean_absolute_error
mean_absolute_percentage_error = mape = MAPE = losses_lib.mean_absolute_percentage_error
mean_squared_logarithmic_error = msle = MSLE = losses_lib.mean_squared_logarithmic_error
binary_crossentropy = losses_lib.binary_crossentropy
categorical_crossentropy = losses_lib.categorical_crossentropy
sparse_categorical_crossentropy = losses_lib.sparse_categorical_crossentropy
hinge, squared_hinge = losses_lib.hinge, losses_lib.squared_hinge
kullback_leibler_divergence = kld = KLD = losses_lib.kullback_leibler_divergence
poisson, cosine_proximity = losses_lib.poisson, losses_lib.cosine_similarity
cosine = cosine_proximity  # (TF 1.x: the loss's sign, -1 for the same direction)

_BY_NAME = {
    "binary_accuracy": binary_accuracy, "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "top_k_categorical_accuracy": top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy,
    **{name: losses_lib.get(name) for name in ("mse", "mae", "mape", "msle", "mean_squared_error",
                                               "mean_absolute_error", "mean_absolute_percentage_error",
                                               "mean_squared_logarithmic_error", "binary_crossentropy",
                                               "categorical_crossentropy", "sparse_categorical_crossentropy",
                                               "hinge", "squared_hinge", "kld", "kullback_leibler_divergence",
                                               "poisson", "cosine_proximity", "logcosh")},
}


# (a short name's metric is logged under its full name, as TF 1.x's Keras logs it)
_FULL_NAMES = {"mse": "mean_squared_error", "mae": "mean_absolute_error", "mape": "mean_absolute_percentage_error",
               "msle": "mean_squared_logarithmic_error", "kld": "kullback_leibler_divergence"}


def resolve(identifier, loss_fn, output_shape) -> tuple[str, object]:
    """``(name in the logs, per-sample function)`` for a metric given to ``compile``. 'accuracy'
    and 'acc' (and 'crossentropy' and 'ce') become the binary, categorical or sparse form that
    the loss and the output's shape call for, as Keras chooses, logged as 'acc' ('ce')."""
    if isinstance(identifier, str):
        if identifier in ("accuracy", "acc", "crossentropy", "ce"):
            last = output_shape[-1] if output_shape else None
            if loss_fn is losses_lib.binary_crossentropy or last == 1:
                kind = "binary"
            elif loss_fn is losses_lib.sparse_categorical_crossentropy:
                kind = "sparse_categorical"
            else:
                kind = "categorical"
            if identifier in ("accuracy", "acc"):  # (logged as "acc" and "val_acc", as TF 1.x's Keras logs it)
                return "acc", globals()[f"{kind}_accuracy"]
            return "ce", getattr(losses_lib, f"{kind}_crossentropy")
        if identifier not in _BY_NAME:
            custom = custom_object(identifier)
            if custom is not None:
                return identifier, custom
            raise ValueError(f"Unknown metric function: {identifier} (one of {sorted(_BY_NAME)}, or pass it in "
                             "custom_objects)")
        return _FULL_NAMES.get(identifier, identifier), _BY_NAME[identifier]
    if isinstance(identifier, dict):  # (an object's config, as a saved model's training config has it)
        identifier = get(identifier)
    if isinstance(identifier, Metric):  # (an object: its name, and the object, which keeps its own totals)
        return identifier.name, identifier
    if callable(identifier):
        return getattr(identifier, "name", None) or getattr(identifier, "__name__", type(identifier).__name__), \
            identifier
    raise ValueError(f"Could not interpret metric function identifier: {identifier!r}")


def serialize(metric):
    """A metric function's name, or a metric object's class and config (``deserialize``
    makes it again)."""
    if isinstance(metric, Metric):
        return {"class_name": type(metric).__name__, "config": metric.get_config()}
    return getattr(metric, "__name__", None) or getattr(metric, "name")


def deserialize(config, custom_objects=None):
    """The metric function a name stands for, or the metric object a config describes."""
    return deserialize_with(get, config, custom_objects, "metric")


_CLASSES = {**{name: getattr(metric_objects, name) for name in metric_objects.CLASSES},
            **{cls.__name__: cls for cls in (Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
                                             TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy)}}


def get(identifier):
    if isinstance(identifier, dict):
        return deserialize_keras_object(identifier, _CLASSES, None, "metric")
    if isinstance(identifier, str):
        return _BY_NAME[identifier]
    return identifier
