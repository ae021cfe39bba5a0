"""``tf.strings``: string ops under their TF 1.13+ names."""

from ._namespace import missing
from .ops.string_ops import as_string, decode_base64, encode_base64, reduce_join, regex_replace  # noqa: F401
from .ops.string_ops import string_join as join  # noqa: F401
from .ops.string_ops import string_length as length  # noqa: F401
from .ops.string_ops import string_strip as strip  # noqa: F401
from .ops.string_ops import string_to_number as to_number  # noqa: F401
from .ops.string_ops import lower, substr, upper  # noqa: F401
from .ops.hash_ops import string_to_hash_bucket as to_hash_bucket  # noqa: F401
from .ops.hash_ops import string_to_hash_bucket_fast as to_hash_bucket_fast  # noqa: F401
from .ops.hash_ops import string_to_hash_bucket_strong as to_hash_bucket_strong  # noqa: F401

from .ops.string_ops import ngrams, regex_full_match, unsorted_segment_join  # noqa: F401
from .ops.string_ops import string_format as format  # noqa: F401,A004
from .ops.sparse_ops import strings_split as split  # noqa: F401

__getattr__ = missing("tf.strings")
