"""``tf.contrib.tensor_forest.python``: the forest's graph builder (``tensor_forest``)."""

from . import tensor_forest  # noqa: F401
