"""``tf.keras.constraints``: projections applied to a weight after each update."""

from __future__ import annotations

from .. import cast, clip_by_value, greater_equal, reduce_sum, sqrt, square
from . import backend as K
from .object_registry import deserialize_with, lookup


class Constraint:
    def __call__(self, w):
        return w

    def get_config(self) -> dict:
        return {}


class MaxNorm(Constraint):
    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}

    def __call__(self, w):
        norms = sqrt(reduce_sum(square(w), axis=self.axis, keepdims=True))
        desired = clip_by_value(norms, 0, self.max_value)
        return w * (desired / (K.epsilon() + norms))


class NonNeg(Constraint):
    def __call__(self, w):
        return w * cast(greater_equal(w, 0.0), w.dtype)


class UnitNorm(Constraint):
    def __init__(self, axis=0):
        self.axis = axis

    def get_config(self) -> dict:
        return {"axis": self.axis}

    def __call__(self, w):
        return w / (K.epsilon() + sqrt(reduce_sum(square(w), axis=self.axis, keepdims=True)))


class MinMaxNorm(Constraint):
    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def get_config(self) -> dict:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}

    def __call__(self, w):
        norms = sqrt(reduce_sum(square(w), axis=self.axis, keepdims=True))
        desired = self.rate * clip_by_value(norms, self.min_value, self.max_value) + (1 - self.rate) * norms
        return w * (desired / (K.epsilon() + norms))


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm


_BY_CLASS = {"MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm}


def serialize(constraint):
    if constraint is None:
        return None
    return {"class_name": type(constraint).__name__, "config": constraint.get_config()}


def deserialize(config, custom_objects=None):
    """The constraint ``serialize`` described (``custom_objects``: classes by name)."""
    return deserialize_with(lambda c: lookup(_BY_CLASS, c["class_name"], "constraint")(**c.get("config", {})),
                            config, custom_objects, "constraint")


def get(identifier):
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        table = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm}
        if identifier not in table:
            raise ValueError(f"Unknown constraint: {identifier}")
        return table[identifier]()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret constraint identifier: {identifier!r}")
