"""``tf.data``: input pipelines (``Dataset``) and the iterators that feed a graph from them."""

from .._namespace import missing
from .dataset_ops import Dataset  # noqa: F401
from .readers import FixedLengthRecordDataset, TFRecordDataset, TextLineDataset  # noqa: F401

from .dataset_ops import Options, ThreadingOptions  # noqa: F401,E402

AUTOTUNE = -1  # accepted wherever TF takes it (num_parallel_calls, buffer sizes): elements come one at a time
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
from .iterator_ops import (Iterator, get_output_classes, get_output_shapes, get_output_types,  # noqa: F401
                           make_initializable_iterator, make_one_shot_iterator)

__getattr__ = missing("tf.data")
