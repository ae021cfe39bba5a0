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



def string_to_index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None, default_value=-1,
                                    hasher_spec=FastHashSpec, name=None):
    """TF 1.0's name of ``index_table_from_file``."""
    return index_table_from_file(vocabulary_file, num_oov_buckets, vocab_size, default_value, hasher_spec,
                                 name=name)


def string_to_index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1, hasher_spec=FastHashSpec,
                                      name=None):
    """TF 1.0's name of ``index_table_from_tensor``."""
    return index_table_from_tensor(mapping, num_oov_buckets, default_value, hasher_spec, name=name)


__getattr__ = missing("tf.contrib.lookup")
