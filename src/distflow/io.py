"""``tf.io``: file access (``tf.io.gfile``), reading and writing files and records, parsing
and serializing examples and tensors, and the queues, under their TF 1.14+ names.

Each name is the top-level one (``tf.io.read_file is tf.read_file``); this module is
imported after the package has defined them."""

from . import (FIFOQueue, FixedLenFeature, FixedLenSequenceFeature, PaddingFIFOQueue,  # noqa: F401
               QueueBase, RandomShuffleQueue, SparseFeature, VarLenFeature, decode_base64, decode_compressed,
               decode_csv, decode_json_example, decode_raw, deserialize_many_sparse, deserialize_sparse, encode_base64,
               matching_files,
               parse_example, parse_single_example, parse_single_sequence_example, parse_tensor, read_file,
               serialize_many_sparse, serialize_sparse, serialize_tensor, write_file)
from .platform import gfile  # noqa: F401
from .python_io import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator  # noqa: F401
from .train import match_filenames_once  # noqa: F401
from ._namespace import missing

from .ops.image_ops import (decode_and_crop_jpeg, decode_bmp, decode_image, decode_jpeg, decode_png,  # noqa: F401
                            encode_jpeg, encode_png, extract_jpeg_shape, is_jpeg)
from .ops.parsing_ops import parse_sequence_example  # noqa: F401
from .ops.priority_queue import PriorityQueue  # noqa: F401
from .train.saver import write_graph  # noqa: F401

__getattr__ = missing("tf.io")
