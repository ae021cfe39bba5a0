"""``tf.contrib.data``: the dataset transformations of TF 1.x's contrib, now
``tf.data.experimental``'s (data/experimental.py)."""

from .._namespace import missing
from ..data.experimental import (AUTOTUNE, Counter, bucket_by_sequence_length, copy_to_device,  # noqa: F401
                                 enumerate_dataset, group_by_window, map_and_batch, parallel_interleave,
                                 prefetch_to_device, shuffle_and_repeat, unbatch)


def batch_and_drop_remainder(batch_size):
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None):
    return lambda dataset: dataset.padded_batch(batch_size, padded_shapes, padding_values, drop_remainder=True)


__getattr__ = missing("tf.contrib.data")
