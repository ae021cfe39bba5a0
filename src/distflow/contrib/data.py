"""``tf.contrib.data``: the dataset transformations of TF 1.x's contrib, now
``tf.data.experimental``'s (data/experimental.py), and TF 1.3's ``Dataset`` API as programs
of TF 1.3-1.4 wrote it before it moved to ``tf.data``: ``tf.contrib.data.Dataset``,
``TFRecordDataset``, ``TextLineDataset`` and ``FixedLengthRecordDataset``, whose ``map``
takes ``num_threads`` and ``output_buffer_size``, with the transformations that were methods
then (``group_by_window``, ``dense_to_sparse_batch``, ``ignore_errors``, ``unbatch``), and
``read_batch_features``."""

import functools
import random

from .._namespace import missing
from ..data import dataset_ops as _core, readers as _readers
from ..framework import dtypes
from ..data.experimental import (AUTOTUNE, Counter, bucket_by_sequence_length, copy_to_device,  # noqa: F401
                                 dense_to_sparse_batch, enumerate_dataset, get_single_element, group_by_window,
                                 ignore_errors, map_and_batch, parallel_interleave, prefetch_to_device,
                                 rejection_resample, scan, shuffle_and_repeat, unbatch, unique)
from ..data.iterator_ops import Iterator, make_saveable_from_iterator  # noqa: F401
from ..ops.parsing_ops import parse_example, parse_single_example  # noqa: F401
from ..platform import gfile


class Dataset(_core.Dataset):
    """TF 1.3's ``tf.contrib.data.Dataset``: a ``tf.data.Dataset`` (``Dataset(dataset)`` wraps
    one) whose transformations give contrib Datasets again."""

    def __init__(self, dataset):
        super().__init__(dataset.element_spec, dataset._all_inputs())
        self._dataset = dataset

    def _iterate(self, values, state):
        return self._dataset._iterate(values, state)

    def _check(self, values) -> None:
        self._dataset._check(values)

    def map(self, map_func, num_threads=None, output_buffer_size=None, num_parallel_calls=None):
        """``map``; ``output_buffer_size`` elements are produced ahead (a ``prefetch``)."""
        mapped = Dataset(_core.Dataset.map(self, map_func, num_parallel_calls or num_threads))
        return mapped if output_buffer_size is None else mapped.prefetch(output_buffer_size)

    def group_by_window(self, key_func, reduce_func, window_size):
        return self.apply(group_by_window(key_func, reduce_func, window_size))

    def dense_to_sparse_batch(self, batch_size, row_shape):
        return self.apply(dense_to_sparse_batch(batch_size, row_shape))

    def ignore_errors(self):
        return self.apply(ignore_errors())

    def apply(self, transformation_func):
        result = _core.Dataset.apply(self, transformation_func)
        return result if isinstance(result, Dataset) else Dataset(result)


def _wrapped(method):
    @functools.wraps(method)
    def transformation(self, *args, **kwargs):
        return Dataset(method(self, *args, **kwargs))
    return transformation


def _wrapped_source(source):
    @functools.wraps(source)
    def make(*args, **kwargs):
        return Dataset(source(*args, **kwargs))
    return staticmethod(make)


for _name in ("filter", "batch", "padded_batch", "unbatch", "enumerate", "window", "flat_map", "interleave", "shuffle",
              "repeat", "take", "skip", "shard", "prefetch", "cache", "concatenate"):
    setattr(Dataset, _name, _wrapped(getattr(_core.Dataset, _name)))
for _name in ("from_tensor_slices", "from_sparse_tensor_slices", "from_tensors", "range", "zip", "from_generator",
              "list_files"):
    setattr(Dataset, _name, _wrapped_source(getattr(_core.Dataset, _name)))


class TFRecordDataset(Dataset):
    """``tf.data.TFRecordDataset`` as a contrib Dataset."""

    def __init__(self, filenames, compression_type=None, buffer_size=None):
        super().__init__(_readers.TFRecordDataset(filenames, compression_type, buffer_size))


class TextLineDataset(Dataset):
    """``tf.data.TextLineDataset`` as a contrib Dataset."""

    def __init__(self, filenames, compression_type=None, buffer_size=None):
        super().__init__(_readers.TextLineDataset(filenames, compression_type, buffer_size))


class FixedLengthRecordDataset(Dataset):
    """``tf.data.FixedLengthRecordDataset`` as a contrib Dataset."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None):
        super().__init__(_readers.FixedLengthRecordDataset(filenames, record_bytes, header_bytes, footer_bytes,
                                                           buffer_size))


def read_batch_features(file_pattern, batch_size, features, reader, reader_args=None, randomize_input=True,
                        num_epochs=None, capacity=10000):
    """Batches of parsed ``tf.train.Example``s from the files matching ``file_pattern`` (read
    by ``reader``, a dataset class such as ``TFRecordDataset``), shuffled through a buffer of
    ``capacity`` unless ``randomize_input`` is False, ``num_epochs`` times (None: forever):
    the dict of ``features``' tensors of a one-shot iterator's next batch."""
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else list(file_pattern)
    filenames = sorted({name for pattern in patterns for name in gfile.Glob(pattern)})
    if not filenames:
        raise ValueError(f"No files match {file_pattern!r}.")
    if randomize_input:
        random.shuffle(filenames)
    dataset = reader(filenames, *(reader_args or ()))
    if dataset.output_types == (dtypes.string, dtypes.string):  # (a reader of (key, value))
        dataset = dataset.map(lambda _, value: value)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    if randomize_input:
        dataset = dataset.shuffle(capacity)
    dataset = dataset.batch(batch_size).map(lambda records: parse_example(records, features)).prefetch(1)
    return dataset.make_one_shot_iterator().get_next()


def sloppy_interleave(map_func, cycle_length, block_length=1):
    """``parallel_interleave(..., sloppy=True)`` (TF 1.4's name)."""
    return parallel_interleave(map_func, cycle_length, block_length, sloppy=True)


def batch_and_drop_remainder(batch_size):
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None):
    return lambda dataset: dataset.padded_batch(batch_size, padded_shapes, padding_values, drop_remainder=True)


__getattr__ = missing("tf.contrib.data")
