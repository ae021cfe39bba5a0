"""``tf.keras.wrappers.scikit_learn``: ``KerasClassifier`` and ``KerasRegressor``, a Keras
model as a scikit-learn estimator (``fit``, ``predict``, ``score``, ``get_params`` and
``set_params``), so that grid searches and cross-validation can build and train it.

scikit-learn itself is not needed to use them, only to pass them to its tools.
"""

from __future__ import annotations

import copy
import inspect
import types

import numpy as np

from ..engine.sequential import Sequential
from ..utils import to_categorical


class BaseWrapper:
    """``build_fn(**its parameters)`` makes and compiles the model (a function, an object with
    ``__call__``, or None: the subclass's own ``__call__``); the other parameters go to
    ``fit``, ``predict`` and ``evaluate``, each taking those it knows."""

    def __init__(self, build_fn=None, **sk_params):
        self.build_fn = build_fn
        self.sk_params = sk_params
        self.check_params(sk_params)

    def _builder(self):
        if self.build_fn is None:
            return self.__call__
        if not isinstance(self.build_fn, (types.FunctionType, types.MethodType)):
            return self.build_fn.__call__
        return self.build_fn

    def check_params(self, params) -> None:
        """Refuses a parameter that neither the model's methods nor ``build_fn`` take."""
        targets = [Sequential.fit, Sequential.predict, Sequential.predict_classes, Sequential.evaluate,
                   self._builder()]
        for name in params:
            if name == "nb_epoch":
                raise ValueError("nb_epoch is Keras 1's name for the number of epochs: pass epochs")
            if not any(_takes(fn, name) for fn in targets):
                raise ValueError(f"{name} is not a legal parameter")

    def get_params(self, **params) -> dict:
        """The parameters, ``build_fn`` included (scikit-learn clones an estimator with them)."""
        res = copy.deepcopy(self.sk_params)
        res.update({"build_fn": self.build_fn})
        return res

    def set_params(self, **params):
        self.check_params(params)
        self.sk_params.update(params)
        return self

    def fit(self, x, y, **kwargs):
        """Builds a new model and trains it; returns its History."""
        self.model = self._builder()(**self.filter_sk_params(self._builder()))
        loss_name = getattr(self.model.loss, "__name__", self.model.loss)
        if loss_name == "categorical_crossentropy" and np.ndim(y) != 2:
            y = to_categorical(y)
        fit_args = copy.deepcopy(self.filter_sk_params(Sequential.fit))
        fit_args.update(kwargs)
        return self.model.fit(x, y, **fit_args)

    def filter_sk_params(self, fn, override=None) -> dict:
        """The parameters ``fn`` takes, ``override`` over them."""
        res = {name: value for name, value in self.sk_params.items() if _takes(fn, name)}
        res.update(override or {})
        return res


class KerasClassifier(BaseWrapper):
    """A classifier: ``y`` holds class labels (any values, or one-hot rows); ``predict`` gives
    labels, ``predict_proba`` probabilities, ``score`` the accuracy (the model must be
    compiled with ``metrics=['accuracy']``)."""

    def fit(self, x, y, sample_weight=None, **kwargs):
        y = np.array(y)
        if y.ndim == 2 and y.shape[1] > 1:
            self.classes_ = np.arange(y.shape[1])
        elif (y.ndim == 2 and y.shape[1] == 1) or y.ndim == 1:
            self.classes_ = np.unique(y)
            y = np.searchsorted(self.classes_, y)
        else:
            raise ValueError(f"Invalid shape for y: {y.shape}")
        self.n_classes_ = len(self.classes_)
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        return super().fit(x, y, **kwargs)

    def predict(self, x, **kwargs):
        classes = self.model.predict_classes(x, **self.filter_sk_params(Sequential.predict_classes, kwargs))
        return self.classes_[classes]

    def predict_proba(self, x, **kwargs):
        """Each class's probability: two columns for a model of one sigmoid output."""
        probabilities = self.model.predict_proba(x, **self.filter_sk_params(Sequential.predict_proba, kwargs))
        if probabilities.shape[1] == 1:
            probabilities = np.hstack([1 - probabilities, probabilities])
        return probabilities

    def score(self, x, y, **kwargs):
        """The accuracy on ``x`` and ``y``."""
        y = np.searchsorted(self.classes_, y)
        loss_name = getattr(self.model.loss, "__name__", self.model.loss)
        if loss_name == "categorical_crossentropy" and np.ndim(y) != 2:
            y = to_categorical(y)
        outputs = self.model.evaluate(x, y, **self.filter_sk_params(Sequential.evaluate, kwargs))
        outputs = outputs if isinstance(outputs, list) else [outputs]
        for name, output in zip(self.model.metrics_names, outputs):
            if name in ("acc", "accuracy"):
                return output
        raise ValueError("The model is not configured to compute accuracy. You should pass `metrics=[\"accuracy\"]` "
                         "to the `model.compile()` method.")


class KerasRegressor(BaseWrapper):
    """A regressor: ``predict`` gives the model's outputs (squeezed), ``score`` the loss negated
    (scikit-learn maximizes scores)."""

    def predict(self, x, **kwargs):
        return np.squeeze(self.model.predict(x, **self.filter_sk_params(Sequential.predict, kwargs)))

    def score(self, x, y, **kwargs):
        loss = self.model.evaluate(x, y, **self.filter_sk_params(Sequential.evaluate, kwargs))
        return -loss[0] if isinstance(loss, list) else -loss


def _takes(fn, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
