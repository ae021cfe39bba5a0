"""Learning-rate schedules: ``tf.keras.optimizers.schedules`` (``ExponentialDecay``,
``PiecewiseConstantDecay``, ``PolynomialDecay``, ``InverseTimeDecay``) and
``tf.keras.experimental``'s cosine ones (``CosineDecay``, ``CosineDecayRestarts``,
``LinearCosineDecay``, ``NoisyLinearCosineDecay``), as TF 1.14-1.15 had them.

A schedule called with a step gives the learning rate at that step; given to a Keras
optimizer as its ``learning_rate`` it is called with the optimizer's ``iterations`` at
each training step. Each is tf.train's decay function of the same name (learning_rate_decay.py).
"""

from __future__ import annotations

import numpy as np

from ..framework import ops
from ..train import learning_rate_decay as decay
from .object_registry import deserialize_keras_object


class LearningRateSchedule:
    """The base of schedules: ``__call__(step)`` gives the rate; ``get_config``/``from_config``."""

    _fn = None  # (tf.train's function of it)
    _args: tuple = ()  # (its arguments, in the function's order after the rate and the step)

    def __init__(self, initial_learning_rate, *args, name=None, **kwargs):
        names = self._args
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes at most {len(names) + 1} positional arguments")
        values = dict(self._defaults)
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"{type(self).__name__} got an unexpected keyword argument {key!r}")
            values[key] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"{type(self).__name__} is missing {missing}")
        self.initial_learning_rate, self.name = initial_learning_rate, name
        self._values = values
        for key, value in values.items():
            setattr(self, key, value)

    _defaults: dict = {}

    def __call__(self, step):
        return type(self)._fn(self.initial_learning_rate, step, *[self._values[n] for n in self._args],
                              name=self.name)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate, **self._values, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """initial * decay_rate ** (step / decay_steps) (whole periods with ``staircase``)."""
    _fn, _args, _defaults = staticmethod(decay.exponential_decay), ("decay_steps", "decay_rate", "staircase"), \
        {"staircase": False}


class InverseTimeDecay(LearningRateSchedule):
    """initial / (1 + decay_rate * step / decay_steps)."""
    _fn, _args, _defaults = staticmethod(decay.inverse_time_decay), ("decay_steps", "decay_rate", "staircase"), \
        {"staircase": False}


class PolynomialDecay(LearningRateSchedule):
    """From initial to ``end_learning_rate`` over ``decay_steps`` along a polynomial of ``power``."""
    _fn = staticmethod(decay.polynomial_decay)
    _args = ("decay_steps", "end_learning_rate", "power", "cycle")
    _defaults = {"end_learning_rate": 0.0001, "power": 1.0, "cycle": False}


class CosineDecay(LearningRateSchedule):
    """Half a cosine from initial down to ``alpha`` of it over ``decay_steps``."""
    _fn, _args, _defaults = staticmethod(decay.cosine_decay), ("decay_steps", "alpha"), {"alpha": 0.0}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay restarted after each period (SGDR): periods ``t_mul`` longer, peaks ``m_mul``
    lower each time."""
    _fn = staticmethod(decay.cosine_decay_restarts)
    _args = ("first_decay_steps", "t_mul", "m_mul", "alpha")
    _defaults = {"t_mul": 2.0, "m_mul": 1.0, "alpha": 0.0}


class LinearCosineDecay(LearningRateSchedule):
    """A linear decay times a cosine of ``num_periods`` periods."""
    _fn = staticmethod(decay.linear_cosine_decay)
    _args = ("decay_steps", "num_periods", "alpha", "beta")
    _defaults = {"num_periods": 0.5, "alpha": 0.0, "beta": 0.001}


class NoisyLinearCosineDecay(LearningRateSchedule):
    """The linear cosine decay with decaying Gaussian noise in its linear part."""
    _fn = staticmethod(decay.noisy_linear_cosine_decay)
    _args = ("decay_steps", "initial_variance", "variance_decay", "num_periods", "alpha", "beta")
    _defaults = {"initial_variance": 1.0, "variance_decay": 0.55, "num_periods": 0.5, "alpha": 0.0, "beta": 0.001}


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[i]`` while the step is in the i-th interval that ``boundaries`` mark."""

    def __init__(self, boundaries, values, name=None):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of values")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def __call__(self, step):
        step = ops.convert_to_tensor(step)  # (the boundaries in the step's dtype, as Keras casts them)
        boundaries = [np.asarray(b, dtype=step.dtype.base_dtype.as_numpy_dtype) for b in self.boundaries]
        return decay.piecewise_constant(step, boundaries, self.values, name=self.name)

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


_CLASSES = {cls.__name__: cls for cls in (ExponentialDecay, InverseTimeDecay, PolynomialDecay, PiecewiseConstantDecay,
                                          CosineDecay, CosineDecayRestarts, LinearCosineDecay, NoisyLinearCosineDecay)}


def serialize(learning_rate_schedule) -> dict:
    return {"class_name": type(learning_rate_schedule).__name__, "config": learning_rate_schedule.get_config()}


def deserialize(config, custom_objects=None):
    return deserialize_keras_object(config, _CLASSES, custom_objects, "learning rate schedule")
