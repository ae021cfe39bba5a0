"""``tf.contrib.data``: the dataset transformations of TF 1.x's contrib, now
``tf.data.experimental``'s (data/experimental.py)."""

from .._namespace import missing
from ..data.experimental import (AUTOTUNE, Counter, bucket_by_sequence_length, copy_to_device,  # noqa: F401
                                 dense_to_sparse_batch, enumerate_dataset, get_single_element, group_by_window,
                                 ignore_errors, map_and_batch, parallel_interleave, prefetch_to_device, scan,
                                 shuffle_and_repeat, unbatch, unique)
from ..data.iterator_ops import make_saveable_from_iterator  # noqa: F401


def sloppy_interleave(map_func, cycle_length, block_length=1):
    """``parallel_interleave(..., sloppy=True)`` (TF 1.4's name)."""
    return parallel_interleave(map_func, cycle_length, block_length, sloppy=True)


def batch_and_drop_remainder(batch_size):
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None):
    return lambda dataset: dataset.padded_batch(batch_size, padded_shapes, padding_values, drop_remainder=True)


__getattr__ = missing("tf.contrib.data")
