"""``tf.io``: file access (``tf.io.gfile``)."""

from .platform import gfile  # noqa: F401
from ._namespace import missing

__getattr__ = missing("tf.io")
