"""``tf.contrib.tensorboard.plugins``: ``projector``."""

from ...._namespace import missing
from . import projector  # noqa: F401

__getattr__ = missing("tf.contrib.tensorboard.plugins")
