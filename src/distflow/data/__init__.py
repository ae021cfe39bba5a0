"""``tf.data``: input pipelines (``Dataset``) and the iterators that feed a graph from them."""

from .._namespace import missing
from .dataset_ops import Dataset  # noqa: F401
from .readers import FixedLengthRecordDataset, TFRecordDataset, TextLineDataset  # noqa: F401

from .options import Options, ThreadingOptions  # noqa: F401,E402

from .dataset_ops import AUTOTUNE  # noqa: E402 - (accepted wherever TF takes it; elements come one at a time)
from . import experimental  # noqa: E402,F401
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
from .iterator_ops import (Iterator, get_output_classes, get_output_shapes, get_output_types,  # noqa: F401
                           make_initializable_iterator, make_one_shot_iterator)

__getattr__ = missing("tf.data")
