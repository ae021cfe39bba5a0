"""``tf.data.experimental`` (and ``tf.contrib.data``): the transformations TF 1.x input
pipelines applied with ``dataset.apply(...)``, in graph mode, and its sources and readers
(``make_csv_dataset``, ``make_batched_features_dataset``, ``SqlDataset``, ``RandomDataset``).

``shuffle_and_repeat``, ``map_and_batch`` and ``parallel_interleave`` are the fused forms of
``shuffle().repeat()``, ``map().batch()`` and ``interleave()`` and give their elements
(``parallel_interleave``'s in the deterministic order, ``sloppy`` or not); ``group_by_window``
and ``bucket_by_sequence_length`` batch elements by key, as TensorFlow orders them.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..ops import array_ops, math_ops, reduction_ops, slicing_ops
from . import dataset_ops as _ds
from .dataset_ops import (AUTOTUNE, _Choose, _Counter, _DenseToSparseBatch, _GroupByReducer,  # noqa: F401
                          _GroupByWindow, _IgnoreErrors, _Sample, _Scan, _Unique)
from .options import (AutoShardPolicy, DistributeOptions, ExternalStatePolicy,  # noqa: F401
                      MapVectorizationOptions, OptimizationOptions, StatsOptions, ThreadingOptions)
from .iterator_ops import (Optional, TFRecordWriter, get_next_as_optional,  # noqa: F401
                           make_saveable_from_iterator)

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


def Counter(start=0, step=1, dtype=dtypes.int64):  # noqa: N802 - TensorFlow's name
    """start, start + step, ... without end."""
    return _Counter(start, step, dtype)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    return lambda dataset: dataset.shuffle(buffer_size, seed, reshuffle_each_iteration=True).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


map_and_batch_with_legacy_function = map_and_batch  # (TF's functions are traced one way here)


def take_while(predicate):
    """The elements up to the first for which ``predicate`` (a scalar bool) is False."""
    return lambda dataset: _ds._TakeWhile(dataset, predicate)


def RandomDataset(seed=None):  # noqa: N802 - TensorFlow's name
    """int64 values drawn uniformly, without end."""
    return _ds._Random(seed)


def SqlDataset(driver_name, data_source_name, query, output_types):  # noqa: N802 - TensorFlow's name
    """The rows of ``query`` on the SQLite database ``data_source_name`` (``driver_name``
    'sqlite'), each a tuple of scalars of ``output_types``; opened read-only."""
    return _ds._Sql(driver_name, data_source_name, query, output_types)


def parse_example_dataset(features, num_parallel_calls=1):
    """Batches of serialized ``tf.train.Example``s (string vectors) parsed by ``features``
    (``tf.parse_example``'s), each batch one dict of tensors."""
    from ..ops.parsing_ops import parse_example  # noqa: PLC0415

    if features is None:
        raise ValueError("Missing: features was None.")
    return lambda dataset: dataset.map(lambda serialized: parse_example(serialized, features))


def make_batched_features_dataset(file_pattern, batch_size, features, reader=None, label_key=None, reader_args=None,
                                  num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None, parser_num_threads=None,
                                  sloppy_ordering=False, drop_final_batch=False):
    """Batches of ``features`` (``tf.parse_example``'s) parsed from the records of the files
    ``file_pattern`` matches (TFRecord unless ``reader`` says), for ``num_epochs`` passes (None:
    without end), shuffled unless ``shuffle=False``; with ``label_key`` each batch is
    ``(features, label)``. The files are read in turn, one record at a time."""
    from .readers import TFRecordDataset  # noqa: PLC0415

    reader = reader or TFRecordDataset
    if label_key is not None and label_key not in features:
        raise ValueError(f"The `label_key` provided ({label_key}) must be one of the `features` keys.")
    files = _ds.Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    dataset = files.flat_map(lambda name: reader(name, *(reader_args or [])))
    if shuffle:
        dataset = dataset.apply(shuffle_and_repeat(shuffle_buffer_size, num_epochs, shuffle_seed))
    elif num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch)
    dataset = dataset.apply(parse_example_dataset(features))
    if label_key is not None:
        dataset = dataset.map(lambda parsed: ({k: v for k, v in parsed.items() if k != label_key}, parsed[label_key]))
    return dataset.prefetch(prefetch_buffer_size or AUTOTUNE)


def cardinality(dataset):
    """The number of elements of ``dataset`` (an int64 scalar): INFINITE_CARDINALITY for a
    dataset without end, UNKNOWN_CARDINALITY where only running it would tell (a filter, a
    count known only when the step runs)."""
    return array_ops.constant(_count(dataset), dtype=dtypes.int64)


def _static(tensor):
    from ..ops.op_util import constant_value  # noqa: PLC0415

    value = constant_value(tensor)
    return None if value is None else value.item() if hasattr(value, "item") else value


def _count(ds) -> int:
    """What ``cardinality`` says of ``ds``, from its stages and their constant arguments."""
    unknown, infinite = UNKNOWN_CARDINALITY, INFINITE_CARDINALITY
    passing = (_ds._Map, _ds._Shuffle, _ds._Prefetch, _ds._Cache, _ds._WithOptions)  # (as many elements as in)
    if isinstance(ds, passing) and not isinstance(ds, _ds._Filter):
        return _count(ds._input)
    args = ds._inputs[getattr(ds, "_own", len(ds._inputs)):]
    if isinstance(ds, _ds._TensorSlices):
        first = ds._whole.components()[0].shape
        return first[0].value if first.ndims and first[0].value is not None else unknown
    if isinstance(ds, _ds._Tensors):
        return 1
    if isinstance(ds, (_ds._Random, _ds._Counter)):
        return infinite
    if isinstance(ds, _ds._Range):
        bounds = [_static(t) for t in ds._inputs]
        return unknown if None in bounds else len(range(*bounds))
    if isinstance(ds, _ds._Zip):
        counts = [_count(child) for child in ds._children]
        finite = [c for c in counts if c >= 0]
        return min(finite) if finite else unknown if unknown in counts else infinite
    if isinstance(ds, _ds._Concatenate):
        a, b = _count(ds._first), _count(ds._second)
        return infinite if infinite in (a, b) else unknown if unknown in (a, b) else a + b
    if not isinstance(ds, (_ds._Repeat, _ds._Slice, _ds._Batch)):
        return unknown
    n, arg = _count(ds._input), _static(args[0])
    if arg is None:
        return unknown
    if isinstance(ds, _ds._Repeat):
        return n if n in (unknown, 0) else infinite if arg < 0 or n == infinite else n * arg
    if isinstance(ds, _ds._Slice) and ds._skip:  # (skip(-1) skips everything)
        return 0 if arg < 0 else n if n in (unknown, infinite) else max(n - arg, 0)
    if isinstance(ds, _ds._Slice):  # (take(-1) takes everything)
        return n if arg < 0 else arg if n == infinite else n if n == unknown else min(n, arg)
    drop = _static(args[1])
    if n in (unknown, infinite) or drop is None:
        return n if n == infinite else unknown
    return n // arg if drop else -(-n // arg)


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    """``interleave`` (its order whether ``sloppy`` or not: one order is always allowed)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)


def dense_to_sparse_batch(batch_size, row_shape):
    """Batches of elements of one rank and different shapes (each at most ``row_shape``) as
    SparseTensors of dense shape [batch] + ``row_shape`` holding every value of each element."""
    return lambda dataset: _DenseToSparseBatch(dataset, batch_size, row_shape)


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


def choose_from_datasets(datasets, choice_dataset):
    """Each element from ``datasets[i]`` for the next ``i`` of ``choice_dataset`` (int64)."""
    return _Choose(datasets, choice_dataset)


class Reducer:
    """How ``group_by_reducer`` folds a key's elements: ``init_func(key)`` -> state,
    ``reduce_func(state, element)`` -> state, ``finalize_func(state)`` -> the result."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self.init_func, self.reduce_func, self.finalize_func = init_func, reduce_func, finalize_func


def group_by_reducer(key_func, reducer):
    """One element per key (an int64 of ``key_func``): the key's elements folded by
    ``reducer``, given when the input ends, smallest key first."""
    return lambda dataset: _GroupByReducer(dataset, key_func, reducer)


def sample_from_datasets(datasets, weights=None, seed=None):
    """Elements drawn from ``datasets`` at random by ``weights`` (uniform by default); a
    dataset that ends drops out, and this ends when every one has."""
    return _Sample(datasets, weights, seed)


def acceptance_probabilities(initial, target):
    """Per class, the probability of keeping an example so that classes of shares ``initial``
    come out in shares ``target``: target / initial, scaled so that the largest is 1 (0 for a
    class that never comes)."""
    ratio = target / initial
    ratio = math_ops.where(math_ops.equal(initial, 0), array_ops.zeros_like(ratio), ratio)
    return ratio / reduction_ops.reduce_max(ratio)


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """(class, element) pairs, each element kept with the probability that brings its class's
    share towards ``target_dist`` (``class_func``: an element's int class). The classes'
    shares in the input are ``initial_dist``, or estimated as the elements come (counts that
    start at 10 per class, as TensorFlow's; updated at each element, where TF updates them
    every 32). Each element is read once: TF reads the input twice, for the classes and for
    the elements, which pairs them right only if both passes give the same order."""
    from ..framework import ops  # noqa: PLC0415
    from ..ops import random_ops  # noqa: PLC0415

    def with_class(*args):
        return class_func(*args), (args[0] if len(args) == 1 else args)

    def drawn(probability):
        return random_ops.random_uniform([], seed=seed) < probability

    def transform(dataset):
        target = math_ops.cast(ops.convert_to_tensor(target_dist, name="target_dist"), dtypes.float32)
        pairs = dataset.map(with_class)
        if initial_dist is not None:
            initial = math_ops.cast(ops.convert_to_tensor(initial_dist, name="initial_dist"), dtypes.float32)
            accept = acceptance_probabilities(initial, target)
            return pairs.filter(lambda c, _: drawn(slicing_ops.gather(accept, c)))

        def estimate(seen, pair):
            c, element = pair
            seen = seen + array_ops.one_hot(c, array_ops.shape(target)[0], dtype=dtypes.int64)
            share = math_ops.cast(seen, dtypes.float32) / math_ops.cast(reduction_ops.reduce_sum(seen), dtypes.float32)
            return seen, (c, slicing_ops.gather(acceptance_probabilities(share, target), c), element)

        start = array_ops.fill(array_ops.shape(target), np.int64(10))
        return pairs.apply(scan(start, estimate)).filter(lambda c, p, _: drawn(p)).map(lambda c, _, e: (c, e))

    return transform


def ignore_errors():
    """Drops the elements whose computation raises an error (a bad record, a failed check)."""
    return lambda dataset: _IgnoreErrors(dataset)


def unique():
    """Each element once, the first time it comes (int32, int64 or string elements)."""
    return lambda dataset: _Unique(dataset)


def get_single_element(dataset):
    """The only element of ``dataset`` as tensors (an InvalidArgumentError when it has none or
    more than one)."""
    from ..ops import check_ops  # noqa: PLC0415
    from ..framework.ops import control_dependencies  # noqa: PLC0415

    # (a batch of up to two: two elements tell that there is more than one)
    pair = dataset.batch(2).make_one_shot_iterator().get_next()
    count = array_ops.shape(next(_leaves(pair)))[0]
    check = check_ops.assert_equal(count, 1, message="Dataset had more than one element (or none).")
    with control_dependencies([check]):
        return _map_structure(pair, lambda t: array_ops.identity(t[0]))


def _leaves(value):
    if isinstance(value, dict):
        for k in sorted(value):
            yield from _leaves(value[k])
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _map_structure(value, fn):
    if isinstance(value, dict):
        return {k: _map_structure(v, fn) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_map_structure(v, fn) for v in value)
    return fn(value)


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


class CsvDataset:
    """``tf.data.experimental.CsvDataset``: the records of CSV files, one element a record, as
    a tuple of one scalar per column (typed and defaulted by ``record_defaults``); a file's
    first line is skipped with ``header``. (A constructor returning a Dataset.)"""

    def __new__(cls, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                field_delim=",", use_quote_delim=True, na_value="", select_cols=None):
        from ..ops.io_readers import decode_csv  # noqa: PLC0415
        from .dataset_ops import Dataset  # noqa: PLC0415
        from .readers import TextLineDataset  # noqa: PLC0415

        files = Dataset.from_tensor_slices(filenames) if not isinstance(filenames, str) else \
            Dataset.from_tensors(filenames)
        lines = files.flat_map(lambda name: TextLineDataset(name, compression_type).skip(1 if header else 0))
        return lines.map(lambda line: tuple(decode_csv(line, record_defaults, field_delim, use_quote_delim,
                                                       na_value=na_value, select_cols=select_cols)))


def _inferred_default(values, na_value):
    """TF's type inference for make_csv_dataset's columns: the narrowest of int32, int64,
    float32, float64 and string that every non-missing value parses as."""
    kinds = ["int32", "int64", "float32", "float64", "string"]
    level = 0
    for value in values:
        if value == na_value or value == "":
            continue
        while level < 4:
            try:
                if level < 2:
                    number = int(value)
                    if level == 0 and not -2 ** 31 <= number < 2 ** 31:
                        raise ValueError
                    if level == 1 and not -2 ** 63 <= number < 2 ** 63:
                        raise ValueError
                else:
                    number = float(value)
                    if level == 2 and abs(number) > np.finfo(np.float32).max:
                        raise ValueError
                break
            except ValueError:
                level += 1
    return {"int32": np.int32(0), "int64": np.int64(0), "float32": np.float32(0), "float64": np.float64(0),
            "string": ""}[kinds[level]]


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False):
    """Batches of (features, label) from CSV files: a dict of each column's values (names from
    the header or ``column_names``, types from ``column_defaults`` or inferred from the first
    ``num_rows_for_inference`` rows as TF infers them), the ``label_name`` column apart."""
    import csv  # noqa: PLC0415
    import glob  # noqa: PLC0415

    files = sorted(glob.glob(file_pattern)) if isinstance(file_pattern, str) else list(file_pattern)
    if not files:
        raise ValueError(f"make_csv_dataset: no files match {file_pattern!r}")
    with open(files[0], newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter=field_delim))[:num_rows_for_inference + (1 if header else 0)]
    if column_names is None:
        if not header:
            raise ValueError("Cannot infer column names without a header line")
        column_names = rows[0]
    column_names = list(column_names)
    body = rows[1:] if header else rows
    if select_columns is not None:
        indices = sorted(column_names.index(c) if isinstance(c, str) else int(c) for c in select_columns)
    else:
        indices = list(range(len(column_names)))
    names = [column_names[i] for i in indices]
    if column_defaults is None:
        column_defaults = [_inferred_default([row[i] for row in body if i < len(row)], na_value) for i in indices]
    if label_name is not None and label_name not in names:
        raise ValueError(f"label_name {label_name!r} is not among the columns {names}")
    dataset = CsvDataset(files, column_defaults, compression_type, header=header, field_delim=field_delim,
                         use_quote_delim=use_quote_delim, na_value=na_value,
                         select_cols=indices if select_columns is not None else None)
    if ignore_errors:
        dataset = dataset.apply(globals()["ignore_errors"]())
    dataset = dataset.repeat(num_epochs)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, seed=shuffle_seed)

    def to_features(*values):
        features = dict(zip(names, values))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    return dataset.map(to_features).batch(batch_size)
