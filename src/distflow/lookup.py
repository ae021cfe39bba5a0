"""``tf.lookup``: lookup tables under the names TF 1.14 gave them (ops/lookup_ops.py)."""

from ._namespace import missing
from .ops.lookup_ops import (KeyValueTensorInitializer, StaticHashTable, StaticVocabularyTable,  # noqa: F401
                             TextFileIndex, TextFileInitializer)

__getattr__ = missing("tf.lookup")
