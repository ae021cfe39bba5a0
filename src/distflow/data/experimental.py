"""``tf.data.experimental`` (and ``tf.contrib.data``): the transformations TF 1.x input
pipelines applied with ``dataset.apply(...)``, in graph mode.

``shuffle_and_repeat``, ``map_and_batch`` and ``parallel_interleave`` are the fused forms of
``shuffle().repeat()``, ``map().batch()`` and ``interleave()`` and give their elements
(``parallel_interleave``'s in the deterministic order, ``sloppy`` or not); ``group_by_window``
and ``bucket_by_sequence_length`` batch elements by key, as TensorFlow orders them.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..ops import array_ops, math_ops, reduction_ops, slicing_ops
from .dataset_ops import AUTOTUNE, _Counter, _GroupByWindow, _Scan  # noqa: F401 - (AUTOTUNE: tf.data.experimental's)

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


def Counter(start=0, step=1, dtype=dtypes.int64):  # noqa: N802 - TensorFlow's name
    """start, start + step, ... without end."""
    return _Counter(start, step, dtype)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    return lambda dataset: dataset.shuffle(buffer_size, seed, reshuffle_each_iteration=True).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    """``interleave`` (its order whether ``sloppy`` or not: one order is always allowed)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)


def unbatch():
    return lambda dataset: dataset.unbatch()


def enumerate_dataset(start=0):
    return lambda dataset: dataset.enumerate(start)


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """Elements gathered into windows by ``key_func`` (an int64 per element); each full window
    (``window_size``, or ``window_size_func(key)``), and at the end each partial one, becomes the
    elements of ``reduce_func(key, window_dataset)``."""
    return lambda dataset: _GroupByWindow(dataset, key_func, reduce_func, window_size, window_size_func)


def scan(initial_state, scan_func):
    """A stateful map: ``scan_func(state, element)`` returns (new state, output element),
    starting from ``initial_state``."""
    return lambda dataset: _Scan(dataset, initial_state, scan_func)


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """Batches of elements of similar length: bucket i holds lengths in
    [boundary i-1, boundary i), batched ``bucket_batch_sizes[i]`` at a time and padded to the
    longest in the batch."""
    boundaries = [int(b) for b in bucket_boundaries]
    if len(bucket_batch_sizes) != len(boundaries) + 1:
        raise ValueError(f"len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1, got "
                         f"{len(bucket_batch_sizes)} and {len(boundaries)}")
    if pad_to_bucket_boundary:
        from ..framework import errors  # noqa: PLC0415

        raise errors.UnimplementedError(None, None, "bucket_by_sequence_length(pad_to_bucket_boundary=True) is not "
                                        "supported: batches are padded to their longest element")
    sizes = np.asarray(bucket_batch_sizes, np.int64)

    def bucket_id(*args):
        length = math_ops.cast(element_length_func(*args), dtypes.int64)
        return reduction_ops.reduce_sum(math_ops.cast(
            math_ops.less_equal(array_ops.constant(np.asarray(boundaries, np.int64)), length), dtypes.int64))

    def window_size(bucket):
        return slicing_ops.gather(array_ops.constant(sizes), bucket)

    def batches(bucket, window):
        size = window_size(bucket)
        if no_padding:
            return window.batch(size, drop_remainder)
        return window.padded_batch(size, padded_shapes, padding_values, drop_remainder)

    def apply(dataset):
        key = (lambda *args: bucket_id(*args)) if dataset.element_spec.is_tuple() else bucket_id
        return group_by_window(key, batches, window_size_func=window_size)(dataset)

    return apply


def prefetch_to_device(device, buffer_size=None):
    """Accepted: the elements are read where the iterator runs."""
    return lambda dataset: dataset


def copy_to_device(target_device, source_device="/cpu:0"):
    return lambda dataset: dataset
