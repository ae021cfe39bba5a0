"""``tf.contrib.lookup``: TF 1.x's lookup tables and the constructors its NLP tutorials used
(``index_table_from_file`` and the others; ops/lookup_ops.py)."""

from .._namespace import missing
from ..ops.lookup_ops import (FastHashSpec, HashTable, HasherSpec, IdTableWithHashBuckets,  # noqa: F401
                              KeyValueTensorInitializer, LookupInterface, MutableDenseHashTable,
                              MutableHashTable, StrongHashSpec, TableInitializerBase,
                              TextFileIdTableInitializer, TextFileIndex, TextFileInitializer,
                              TextFileStringTableInitializer, index_table_from_file, index_table_from_tensor,
                              index_to_string, index_to_string_table_from_file, index_to_string_table_from_tensor,
                              string_to_index)

__getattr__ = missing("tf.contrib.lookup")
