"""``tf.keras.constraints``: projections applied to a weight after each update."""

from __future__ import annotations

import numpy as np

from .. import cast, clip_by_value, gather, greater_equal, reduce_sum, reshape, sqrt, square
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


class RadialConstraint(Constraint):
    """A convolution's kernel ``(rows, cols, in, out)`` made the same on each square ring
    around its centre, for every input and output channel: each ring takes one value of the
    kernel's diagonal, TF 1.15's Keras's choice. For ``k`` rows and ``s = k // 2``: an odd
    kernel's centre takes ``w[s-1, s-1]`` and its ring ``d`` ``w[s+d-1, s+d-1]``; an even
    kernel's middle 2x2 takes ``w[s-1, s-1]`` and its ring ``d`` ``w[s+d, s+d]``. (Keras's
    docstring draws the even case the other way round; this is what its code computes.)
    One gather of the kernel's rows, so the gradient flows to the diagonal values used."""

    def __call__(self, w):
        shape = w.shape
        if shape.ndims != 4:
            raise ValueError(f"The weight tensor must be of rank 4, but is of shape: {shape}")
        rows, cols, channels, kernels = shape.as_list()
        if rows is None or rows != cols or rows < 2:
            raise ValueError(f"RadialConstraint needs a square kernel of at least 2 rows, got {rows}x{cols}")
        s = rows // 2
        distance = np.arange(rows) - s if rows % 2 else np.where(np.arange(rows) < s, s - 1 - np.arange(rows),
                                                                   np.arange(rows) - s)
        ring = np.maximum(np.abs(distance)[:, None], np.abs(distance)[None, :])
        source = np.where(ring == 0, s - 1, s + ring - (1 if rows % 2 else 0))
        flat = reshape(w, [rows * cols, channels * kernels])
        picked = gather(flat, (source * cols + source).reshape(-1).astype(np.int32))
        return reshape(picked, [rows, cols, channels, kernels])


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm
radial_constraint = RadialConstraint


_BY_CLASS = {"MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm,
             "RadialConstraint": RadialConstraint}


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
        table = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm,
                 "radial_constraint": RadialConstraint}
        if identifier not in table:
            raise ValueError(f"Unknown constraint: {identifier}")
        return table[identifier]()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret constraint identifier: {identifier!r}")
