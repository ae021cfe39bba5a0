"""``tf.contrib.tensor_forest.client``: the forest's Estimators (``random_forest``)."""

from . import random_forest  # noqa: F401
