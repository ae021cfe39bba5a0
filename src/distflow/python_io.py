"""``tf.python_io``: TFRecord files."""

from ._namespace import missing
from .platform.tf_record import (TFRecordCompressionType, TFRecordOptions, TFRecordWriter,  # noqa: F401
                                 tf_record_iterator)

__getattr__ = missing("tf.python_io")
