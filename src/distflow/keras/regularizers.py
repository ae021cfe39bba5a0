"""``tf.keras.regularizers``: L1, L2 and both, as penalties a layer adds to its losses."""

from __future__ import annotations

from .. import abs as _abs, reduce_sum, square
from .object_registry import deserialize_with, lookup


class Regularizer:
    def __call__(self, x):
        return 0.0

    def get_config(self) -> dict:
        return {}


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x^2)``."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        total = 0.0
        if self.l1:
            total += self.l1 * reduce_sum(_abs(x))
        if self.l2:
            total += self.l2 * reduce_sum(square(x))
        return total

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


def l1(l=0.01):  # noqa: E741 - Keras's parameter name
    return L1L2(l1=l)


def l2(l=0.01):  # noqa: E741
    return L1L2(l2=l)


def l1_l2(l1=0.01, l2=0.01):  # noqa: F811
    return L1L2(l1=l1, l2=l2)


def serialize(regularizer):
    if regularizer is None:
        return None
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


def deserialize(config, custom_objects=None):
    """The regularizer ``serialize`` described (``custom_objects``: classes by name)."""
    return deserialize_with(lambda c: lookup({"L1L2": L1L2}, c["class_name"], "regularizer")(**c.get("config", {})),
                            config, custom_objects, "regularizer")


def get(identifier):
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        table = {"l1": l1, "l2": l2, "l1_l2": l1_l2}
        if identifier not in table:
            raise ValueError(f"Unknown regularizer: {identifier}")
        return table[identifier]()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret regularizer identifier: {identifier!r}")
