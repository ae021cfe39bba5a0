"""``tf.data.Dataset``: input pipelines read by an iterator op inside the graph.

A Dataset is a description: a source (tensor slices, a range, a generator, text files)
followed by transformations (map, filter, batch, shuffle, repeat, ...). Nothing runs
until an iterator is made from it and initialized:

- the iterator op (``Iterator``) owns a per-session resource on its device;
- ``MakeIterator`` takes the tensors the dataset reads as its inputs, so a placeholder
  in ``from_tensor_slices`` is fed when the initializer runs, as in TF 1.x, and starts
  a fresh pass over the data;
- ``IteratorGetNext`` returns the next element, or fails with OutOfRangeError at the end.

Functions given to ``map`` and ``filter`` are traced once into a graph of their own and
run by a private session for each element (random ops in them draw anew each time).
The pipeline itself lives in this process (its ops hold a token naming it): an iterator
runs on a device of the process that built it, which is where TF 1.x programs put their
input pipelines (the worker's CPU).
"""

from __future__ import annotations

import itertools
import os
import queue
import threading

import numpy as np

from ..framework import dtypes
from ..framework import errors
from ..framework import ops
from ..framework import random_seed
from ..framework.tensor_shape import TensorShape
from ..framework.wire import tensor_from_proto, tensor_to_proto
from ..ops.op_util import constant_value
from ..platform.tf_record import TFRecordWriter, tf_record_iterator
from ..protos import distflow_pb2 as pb
from . import structure
from .iterator_ops import Iterator
from .options import Options
from .registry import RunState, register

AUTOTUNE = -1  # (tf.data.experimental.AUTOTUNE; a cycle length of it is the number of cores)


class Dataset:
    """A sequence of elements, each a structure (tensor, tuple or dict) of arrays."""

    def __init__(self, element_spec: structure.Spec, inputs: list[ops.Tensor] = ()):
        self._spec = element_spec
        self._inputs = list(inputs)  # the graph tensors this dataset reads, in _iterate's order
        self._keepalive: list = []  # graphs that hold this dataset's token keep it alive

    # --- what subclasses implement ----------------------------------------------------

    def _iterate(self, values: list, state: RunState):
        """A Python iterator of flat element tuples, given the values of ``self._inputs``."""
        raise NotImplementedError

    def _check(self, values: list) -> None:
        """Raises TF's error for an argument wrong whatever the elements (a batch size of 0),
        given the values of ``self._inputs``: run when the iterator starts, as TF builds its
        dataset then, and by each pass (a dataset a function returns starts no iterator)."""

    # --- structure ----------------------------------------------------------------------

    @property
    def output_types(self):
        return self._spec.types()

    @property
    def output_shapes(self):
        return self._spec.shapes()

    @property
    def output_classes(self):
        return self._spec.classes()

    @property
    def element_spec(self):
        return self._spec

    # --- sources ------------------------------------------------------------------------

    @staticmethod
    def from_tensor_slices(tensors) -> "Dataset":
        """One element per row of the tensors' first dimension (all must have the same length)."""
        return _TensorSlices(tensors)

    @staticmethod
    def from_sparse_tensor_slices(sparse_tensor) -> "Dataset":
        """One SparseTensor element per row of ``sparse_tensor`` (each of its rank less one)."""
        return _TensorSlices(sparse_tensor)

    @staticmethod
    def from_tensors(tensors) -> "Dataset":
        """A single element: the tensors as they are."""
        return _Tensors(tensors)

    @staticmethod
    def range(*args) -> "Dataset":
        """int64 elements as Python's range(start, stop, step)."""
        return _Range(*args)

    @staticmethod
    def zip(datasets) -> "Dataset":
        """Elements of the datasets side by side (a structure of them); ends with the shortest."""
        return _Zip(datasets)

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None) -> "Dataset":
        """Elements produced by calling ``generator()`` (a Python generator function) each pass."""
        return _FromGenerator(generator, output_types, output_shapes, args)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None) -> "Dataset":
        """The file names matching ``file_pattern`` (a glob, a list of them, or a string tensor
        of them), matched when the iterator starts, shuffled unless ``shuffle=False``."""
        return _ListFiles(file_pattern, shuffle is not False, seed)

    # --- transformations ----------------------------------------------------------------

    def map(self, map_func, num_parallel_calls=None) -> "Dataset":
        """Each element through ``map_func`` (a tuple element is passed as separate arguments)."""
        return _Map(self, map_func)

    def filter(self, predicate) -> "Dataset":
        """The elements for which ``predicate`` (a function returning a scalar bool tensor) is true."""
        return _Filter(self, predicate)

    def batch(self, batch_size, drop_remainder=False) -> "Dataset":
        """Consecutive elements stacked into batches; the last one shorter unless ``drop_remainder``."""
        return _Batch(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False) -> "Dataset":
        """Batches of consecutive elements, each component padded to ``padded_shapes`` (a
        dimension of None or -1: the longest in the batch) with ``padding_values`` (0 or b"")."""
        return _PaddedBatch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def unbatch(self) -> "Dataset":
        """The rows of each element, one element each."""
        return _Unbatch(self)

    def enumerate(self, start=0) -> "Dataset":
        """(index, element) pairs, counting from ``start``."""
        return Dataset.zip((_Counter(start, 1), self))

    def window(self, size, shift=None, stride=1, drop_remainder=False) -> "Dataset":
        """Windows of ``size`` elements (every ``stride``-th), one starting every ``shift``
        elements (``size`` by default); the last ones shorter unless ``drop_remainder``.
        Each window is a structure of datasets, one per component, as TensorFlow's: read
        them with ``flat_map`` or ``interleave`` (``lambda w: w.batch(size)``)."""
        return _Window(self, size, size if shift is None else shift, stride, drop_remainder)

    def flat_map(self, map_func) -> "Dataset":
        """The elements of the dataset ``map_func`` returns for each element, one after another."""
        return _Interleave(self, map_func, 1, 1, "Dataset.flat_map()")

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1, num_parallel_calls=None) -> "Dataset":
        """The datasets ``map_func`` returns for ``cycle_length`` elements at a time, taken
        ``block_length`` elements from each in turn (TensorFlow's order); a finished one's place
        goes to the next element's dataset."""
        return _Interleave(self, map_func, cycle_length, block_length, "Dataset.interleave()")

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None) -> "Dataset":
        """Elements drawn at random from a buffer of ``buffer_size`` (TensorFlow's algorithm)."""
        return _Shuffle(self, buffer_size, seed, True if reshuffle_each_iteration is None
                        else reshuffle_each_iteration)

    def repeat(self, count=None) -> "Dataset":
        """The dataset ``count`` times (forever when None or -1)."""
        return _Repeat(self, count)

    def take(self, count) -> "Dataset":
        return _Slice(self, count, skip=False)

    def skip(self, count) -> "Dataset":
        return _Slice(self, count, skip=True)

    def shard(self, num_shards, index) -> "Dataset":
        """Every ``num_shards``-th element, starting at ``index`` (one worker's share)."""
        return _Shard(self, num_shards, index)

    def prefetch(self, buffer_size) -> "Dataset":
        """The elements, produced up to ``buffer_size`` ahead in a thread of their own."""
        return _Prefetch(self, buffer_size)

    def cache(self, filename="") -> "Dataset":
        """The elements, kept after the first complete pass (in memory, or in ``filename``)."""
        return _Cache(self, filename)

    def with_options(self, options) -> "Dataset":
        """This dataset with ``options`` merged into its own (a new dataset; none of the options
        changes how distflow runs a pipeline: data/options.py)."""
        if not isinstance(options, Options):
            raise TypeError(f"with_options expects a tf.data.Options, got {options!r}")
        return _WithOptions(self, options)

    def options(self) -> "Options":
        """The options of this dataset: its inputs' merged, and any it was given."""
        merged = Options()
        for dataset in self._input_datasets():
            merged = merged.merge(dataset.options())
        return merged

    def _input_datasets(self) -> list:
        return []

    def apply(self, transformation_func) -> "Dataset":
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError("`transformation_func` must return a Dataset.")
        return result

    def concatenate(self, dataset) -> "Dataset":
        return _Concatenate(self, dataset)

    # --- iterators ----------------------------------------------------------------------

    def make_one_shot_iterator(self):
        return Iterator._one_shot(self)

    def make_initializable_iterator(self, shared_name=None):
        return Iterator._initializable(self, shared_name)

    def __iter__(self):
        raise RuntimeError("dataset.__iter__() is only supported when eager execution is enabled; in a "
                           "graph use dataset.make_one_shot_iterator() or make_initializable_iterator()")

    # --- helpers for the transformations ------------------------------------------------

    def _all_inputs(self) -> list[ops.Tensor]:
        return list(self._inputs)

    def _row_source(self, values, state):
        """For a pipeline that only reorders the rows of arrays (slices, shuffled, repeated):
        (the arrays, an iterator of index arrays into their rows, in the order the elements
        come). None where a stage does more, or takes elements one by one: a batch then
        gathers its rows with one take an array instead of stacking elements."""
        return None


# ---------------------------------------------------------------------------
# Sources


class _TensorSlices(Dataset):
    def __init__(self, tensors):
        flat, spec = structure.to_tensors(tensors)
        if not flat:
            raise ValueError("from_tensor_slices needs at least one tensor")
        length = None
        for leaf, t in zip(spec.components(), spec.grouped(flat)):
            if leaf.shape.ndims == 0:
                raise ValueError(f"from_tensor_slices needs tensors of rank >= 1, got the scalar {t.name}")
            n = leaf.shape[0].value if leaf.shape.ndims else None
            if n is not None and length is not None and n != length:
                raise ValueError(f"Dimensions {length} and {n} are not compatible: from_tensor_slices needs "
                                 "every component to have the same first dimension")
            length = n if n is not None else length
        self._whole = spec
        super().__init__(spec.sliced(), flat)

    def _iterate(self, values, state):
        components = [structure.sparse_rows(v) if leaf.sparse else v
                      for leaf, v in zip(self._whole.components(), self._whole.grouped(values))]
        n = len(components[0])
        for i, v in enumerate(components):
            if len(v) != n:
                raise errors.InvalidArgumentError(None, None, f"from_tensor_slices: component {i} has "
                                                              f"{len(v)} rows, component 0 has {n}")
        if not self._spec.has_sparse():  # (an element is then its components' rows as they are)
            yield from zip(*components)
            return
        for i in range(n):
            yield self._spec.ungrouped([v[i] for v in components])

    def _row_source(self, values, state):
        if self._spec.has_sparse():
            return None
        components = [np.asarray(v) for v in values]
        n = len(components[0])
        if any(len(v) != n for v in components):
            return None  # (the element-wise path says which component disagrees)
        return components, iter([np.arange(n)])


class _ListFiles(Dataset):
    """``list_files`` of patterns known when the iterator starts: the files matching them then,
    sorted, in a seeded order unless not shuffled (an error if none match)."""

    def __init__(self, patterns, shuffle, seed):
        if not isinstance(patterns, ops.Tensor):
            patterns = np.array([p.encode() if isinstance(p, str) else p for p in
                                 ([patterns] if isinstance(patterns, (str, bytes)) else list(patterns))], dtype=object)
        patterns = ops.convert_to_tensor(patterns, dtype=dtypes.string)
        graph_seed, op_seed = random_seed.get_seed(seed)
        self._seed = None if not shuffle else (graph_seed, op_seed)
        self._shuffle = shuffle
        super().__init__(structure.Spec.tensor(dtypes.string, TensorShape([])), [patterns])

    def _iterate(self, values, state):
        from ..platform import gfile  # noqa: PLC0415 - only programs listing files need it

        patterns = [p.decode() if isinstance(p, bytes) else str(p) for p in np.asarray(values[0], object).reshape(-1)]
        names = sorted({n for p in patterns for n in gfile.Glob(p)})
        if not names:
            raise errors.InvalidArgumentError(None, None, f"Expected {patterns} to match at least one file")
        if self._shuffle:
            seeds = state.stages.setdefault(("list_files", id(self)), _SeedStream(
                None if self._seed[0] is None else self._seed))
            order = np.random.default_rng(seeds.next()).permutation(len(names))
            names = [names[i] for i in order]
        for name in names:
            yield (np.array(name.encode(), dtype=object),)


class _Tensors(Dataset):
    def __init__(self, tensors):
        flat, spec = structure.to_tensors(tensors)
        super().__init__(spec, flat)

    def _iterate(self, values, state):
        yield tuple(values)


class _Range(Dataset):
    def __init__(self, *args):
        if not 1 <= len(args) <= 3:
            raise ValueError("Dataset.range takes 1 to 3 arguments: [start,] stop[, step]")
        bounds = [ops.convert_to_tensor(a, dtype=dtypes.int64) for a in args]
        super().__init__(structure.Spec.tensor(dtypes.int64, TensorShape([])), bounds)

    def _check(self, values) -> None:
        if len(values) == 3 and int(values[2]) == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")

    def _iterate(self, values, state):
        self._check(values)
        args = [int(v) for v in values]
        for i in range(*args):
            yield (np.int64(i),)


class _FromGenerator(Dataset):
    def __init__(self, generator, output_types, output_shapes, args):
        if not callable(generator):
            raise TypeError("`generator` must be callable.")
        spec = structure.Spec.from_types(output_types, output_shapes)
        self._generator = generator
        self._args = list(args or [])
        super().__init__(spec, [ops.convert_to_tensor(a) for a in self._args])

    def _iterate(self, values, state):
        flat_types = self._spec.flat_types()
        flat_shapes = self._spec.flat_shapes()
        # (as TF's py_func hands them over: a scalar as a NumPy scalar, a string as bytes)
        args = [v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in values]
        for item in self._generator(*args):
            flat = self._spec.flatten_value(item)
            out = []
            for i, (value, dtype, shape) in enumerate(zip(flat, flat_types, flat_shapes)):
                arr = np.asarray(value, dtype=object if dtype == dtypes.string else dtype.as_numpy_dtype)
                if not shape.is_compatible_with(TensorShape(arr.shape)):
                    raise errors.InvalidArgumentError(None, None, f"`generator` yielded an element of shape "
                                                                  f"{list(arr.shape)} where {shape} was expected "
                                                                  f"(component {i})")
                out.append(arr)
            yield tuple(out)


# ---------------------------------------------------------------------------
# Transformations of one dataset


class _Unary(Dataset):
    def __init__(self, input_dataset: Dataset, spec: structure.Spec, inputs=()):
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"Expected a Dataset, got {input_dataset!r}")
        self._input = input_dataset
        self._own = len(input_dataset._all_inputs())
        super().__init__(spec, input_dataset._all_inputs() + list(inputs))

    def _split(self, values):
        return values[:self._own], values[self._own:]

    def _input_datasets(self) -> list:
        return [self._input]

    def _check(self, values) -> None:
        own, extra = self._split(values)
        self._input._check(own)
        self._check_args(extra)

    def _check_args(self, extra) -> None:
        """Like ``_check``, for this stage's own inputs (those after its input dataset's)."""


def _captures(functions, values) -> list:
    """The values each traced function captured, in turn, from the tail of ``values``."""
    out, start = [], 0
    for fn in functions:
        n = len(fn.captured) if fn is not None else 0
        out.append(values[start:start + n])
        start += n
    return out


def _captured_inputs(functions) -> list:
    return [t for fn in functions if fn is not None for t in fn.captured]


class _Map(_Unary):
    def __init__(self, input_dataset, map_func):
        from .function import TracedFunction  # noqa: PLC0415 - tracing needs the runtime

        self._fn = TracedFunction(map_func, input_dataset.element_spec, "Dataset.map()")
        super().__init__(input_dataset, self._fn.output_spec, self._fn.captured)

    def _iterate(self, values, state):
        own, captured = self._split(values)
        for element in self._input._iterate(own, state):
            out = self._mapped(element, state, captured)
            if out is not None:
                yield out

    def _mapped(self, element, state, captured):
        """The function of ``element``; None where it fails and ignore_errors downstream drops it."""
        try:
            return self._fn(element, state, captured)
        except errors.OpError:
            if state.stages.get("ignore_errors"):
                return None
            raise

    def _batches(self, values, state, size: int, drop: bool, batched_fn):
        """This map's elements in batches of ``size``, each computed by ``batched_fn`` (the
        function rewritten for a batch: data/vectorize.py) over ``size`` input elements
        stacked; a batch it cannot compute is mapped element by element instead."""
        own, captured = self._split(values)
        source = self._input._iterate(own, state)
        spec = self._input.element_spec
        carry = []  # (elements mapped one by one, not yet in a batch)
        failed = 0  # (batches in a row the rewrite could not compute: after two, the pass goes without it)
        while True:
            chunk = list(itertools.islice(source, size - len(carry)))
            if not chunk:
                break
            out = _batched_call(batched_fn, chunk, spec, state, captured) if failed < 2 else None
            failed = failed + 1 if out is None else 0
            if out is not None and not carry:
                if len(chunk) == size or not drop:
                    yield out
                continue
            if out is not None:
                carry.extend(zip(*out))
            else:
                carry.extend(out for out in (self._mapped(e, state, captured) for e in chunk) if out is not None)
            if len(carry) == size:
                yield _stack(carry, self.element_spec)
                carry = []
        if carry and not drop:
            yield _stack(carry, self.element_spec)


def _batched_call(batched_fn, elements: list, spec: structure.Spec, state, captured):
    """``batched_fn`` over ``elements`` stacked, or None where they do not stack or the call
    fails (the caller maps them one by one: the error, if any, comes again for its element)."""
    try:
        out = batched_fn(_stack(elements, spec), state, captured)
    except (errors.OpError, ValueError):
        return None
    if any(np.ndim(v) == 0 or len(v) != len(elements) for v in out):
        return None
    return out


class _Filter(_Unary):
    def __init__(self, input_dataset, predicate):
        from .function import TracedFunction  # noqa: PLC0415

        self._fn = TracedFunction(predicate, input_dataset.element_spec, "Dataset.filter()")
        out = self._fn.output_spec
        if out.flat_types() != [dtypes.bool] or not out.flat_shapes()[0].is_compatible_with(TensorShape([])):
            raise ValueError(f"`predicate` return type must be convertible to a scalar boolean tensor. Was "
                             f"{out.types()}.")
        super().__init__(input_dataset, input_dataset.element_spec, self._fn.captured)

    def _iterate(self, values, state):
        own, captured = self._split(values)
        for element in self._input._iterate(own, state):
            if bool(self._fn(element, state, captured)[0]):
                yield element


class _Batch(_Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder, element_spec=None, more_inputs=()):
        batch_size = ops.convert_to_tensor(batch_size, dtype=dtypes.int64)
        static = constant_value(batch_size)
        rows = int(static) if static is not None and drop_remainder is True else None
        self._drop_remainder = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool)
        spec = element_spec or input_dataset.element_spec
        super().__init__(input_dataset, spec.batched(rows), [batch_size, self._drop_remainder, *more_inputs])
        self._batched_fn = None  # (a map before this batch, rewritten to run once a batch)
        if type(self) is _Batch and type(input_dataset) is _Map:
            from .vectorize import batched  # noqa: PLC0415 - tracing needs the runtime

            self._batched_fn = batched(input_dataset._fn, input_dataset._input.element_spec)

    def _check_args(self, extra) -> None:
        if int(extra[0]) <= 0:
            raise errors.InvalidArgumentError(None, None, f"Batch size must be greater than zero, got {int(extra[0])}")

    def _iterate(self, values, state):
        own, (size, drop, *more) = self._split(values)
        self._check_args([size])
        size, drop = int(size), bool(drop)
        rows = self._input._row_source(own, state) if type(self) is _Batch else None
        if rows is not None:
            yield from _gathered_batches(*rows, size, drop)
            return
        if self._batched_fn is not None:
            yield from self._input._batches(own, state, size, drop, self._batched_fn)
            return
        batch = []
        for element in self._input._iterate(own, state):
            batch.append(element)
            if len(batch) == size:
                yield self._combine(batch, more)
                batch = []
        if batch and not drop:
            yield self._combine(batch, more)

    def _combine(self, batch, more):
        """One batch of elements; ``more`` holds the values of ``more_inputs`` in this run."""
        return _stack(batch, self._input.element_spec)


def _gathered_batches(components, indices, size: int, drop: bool):
    """Batches of ``size`` rows of ``components`` in the order of the ``indices`` arrays, each a
    copy (np.take): the arrays are the dataset's, and a step may write into what it is given."""
    pending, count = [], 0
    for chunk in indices:
        pending.append(chunk)
        count += len(chunk)
        while count >= size:
            joined = np.concatenate(pending) if len(pending) > 1 else pending[0]
            yield tuple(np.take(c, joined[:size], axis=0) for c in components)
            pending, count = [joined[size:]], count - size
    if count and not drop:
        joined = np.concatenate(pending)
        yield tuple(np.take(c, joined, axis=0) for c in components)


def _stack(batch, spec: structure.Spec):
    """Elements as one, a new first dimension the batch's (SparseTensors as TensorFlow batches them)."""
    if not spec.has_sparse():
        return tuple(_stacked(i, parts) for i, parts in enumerate(zip(*batch)))
    out = []
    for i, (leaf, parts) in enumerate(zip(spec.components(), zip(*[spec.grouped(e) for e in batch]))):
        out.append(structure.sparse_batch(parts, "batch") if leaf.sparse else _stacked(i, parts))
    return spec.batched(None).ungrouped(out)


def _stacked(i, parts):
    try:
        return np.stack(parts)
    except ValueError:  # (shapes that differ: say which, as TensorFlow does)
        first = np.shape(parts[0])
        j = next((j for j, p in enumerate(parts) if np.shape(p) != first), None)
        if j is None:
            raise
        raise errors.InvalidArgumentError(None, None, f"Cannot batch tensors with different shapes in component "
                                                      f"{i}. First element had shape {list(first)} and element {j} "
                                                      f"had shape {list(np.shape(parts[j]))}.") from None


class _Shuffle(_Unary):
    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        buffer_size = ops.convert_to_tensor(buffer_size, dtype=dtypes.int64)
        inputs = [buffer_size]
        if isinstance(seed, ops.Tensor):  # (a seed fed when the iterator starts, an input as in TF)
            static = constant_value(seed)
            if static is None:
                inputs.append(ops.convert_to_tensor(seed, dtype=dtypes.int64))
                seed = 0  # (a stand-in: the graph's seed is combined with the fed one)
            else:
                seed = int(static)
        graph_seed, op_seed = random_seed.get_seed(seed)
        self._seed = None if graph_seed is None else (graph_seed, op_seed)
        self._reshuffle = reshuffle_each_iteration
        super().__init__(input_dataset, input_dataset.element_spec, inputs)

    def _check_args(self, extra) -> None:
        if int(extra[0]) <= 0:
            raise errors.InvalidArgumentError(None, None, f"buffer_size must be greater than zero, got "
                                                          f"{int(extra[0])}")

    def _rng(self, fed, state):
        seed = (self._seed[0], int(fed[0])) if fed else self._seed
        # Each initialization draws its seeds from one generator; without reshuffling every
        # pass replays the first order.
        seeds = state.stages.setdefault(("shuffle", id(self)), _SeedStream(seed))
        return np.random.default_rng(seeds.next() if self._reshuffle else seeds.first)

    def _row_source(self, values, state):
        own, (buffer_size, *fed) = self._split(values)
        self._check_args([buffer_size])
        rows = self._input._row_source(own, state)
        if rows is None:
            return None
        return rows[0], _shuffled_indices(rows[1], int(buffer_size), self._rng(fed, state))

    def _iterate(self, values, state):
        own, (buffer_size, *fed) = self._split(values)
        self._check_args([buffer_size])
        buffer_size = int(buffer_size)
        rng = self._rng(fed, state)
        buffer = []
        for element in self._input._iterate(own, state):
            if len(buffer) < buffer_size:
                buffer.append(element)
                continue
            i = int(rng.integers(len(buffer)))
            yield buffer[i]
            buffer[i] = element
        while buffer:
            i = int(rng.integers(len(buffer)))
            buffer[i], buffer[-1] = buffer[-1], buffer[i]
            yield buffer.pop()


def _shuffled_indices(chunks, buffer_size: int, rng):
    """The shuffle buffer's algorithm on arrays of row indices: the buffer fills with the first
    ``buffer_size``; then each next index takes the place of one drawn at random, which comes
    out; at the end what is left comes out in a random order."""
    buffer = []
    for chunk in chunks:
        incoming = chunk.tolist()
        take = min(buffer_size - len(buffer), len(incoming))
        buffer.extend(incoming[:take])
        if len(incoming) > take:
            out = []
            for slot, index in zip(rng.integers(buffer_size, size=len(incoming) - take).tolist(), incoming[take:]):
                out.append(buffer[slot])
                buffer[slot] = index
            yield np.array(out, np.int64)
    yield rng.permutation(np.array(buffer, np.int64))


class _SeedStream:
    def __init__(self, seed):
        self._rng = np.random.default_rng(None if seed is None else list(seed))
        self.first = int(self._rng.integers(2**63))
        self._count = 0

    def next(self) -> int:
        self._count += 1
        return self.first if self._count == 1 else int(self._rng.integers(2**63))


class _Repeat(_Unary):
    def __init__(self, input_dataset, count):
        count = ops.convert_to_tensor(-1 if count is None else count, dtype=dtypes.int64)
        super().__init__(input_dataset, input_dataset.element_spec, [count])

    def _row_source(self, values, state):
        own, (count,) = self._split(values)
        first = self._input._row_source(own, state)
        if first is None:
            return None
        count = int(count)

        def passes():
            rows, done = first, 0
            while count < 0 or done < count:
                produced = False
                for chunk in rows[1]:
                    produced = produced or len(chunk) > 0
                    yield chunk
                done += 1
                if not produced:  # (an empty dataset repeated: nothing, not a loop forever)
                    return
                if count < 0 or done < count:
                    rows = self._input._row_source(own, state)
        return first[0], passes()

    def _iterate(self, values, state):
        own, (count,) = self._split(values)
        count = int(count)
        passes = itertools.count() if count < 0 else range(count)
        for _ in passes:
            produced = False
            for element in self._input._iterate(own, state):
                produced = True
                yield element
            if not produced:  # repeating an empty dataset forever would never return
                return


class _Slice(_Unary):
    """``take(count)`` (the first count elements; all when negative) or ``skip(count)`` (all after them)."""

    def __init__(self, input_dataset, count, skip: bool):
        self._skip = skip
        super().__init__(input_dataset, input_dataset.element_spec,
                         [ops.convert_to_tensor(count, dtype=dtypes.int64)])

    def _row_source(self, values, state):
        own, (count,) = self._split(values)
        rows = self._input._row_source(own, state)
        if rows is None:
            return None
        count = int(count)
        if count < 0:
            return rows if not self._skip else (rows[0], iter(()))
        return rows[0], _rows_after(rows[1], count) if self._skip else _rows_up_to(rows[1], count)

    def _iterate(self, values, state):
        own, (count,) = self._split(values)
        count = int(count)
        it = self._input._iterate(own, state)
        if self._skip:
            if count >= 0:
                yield from itertools.islice(it, count, None)
        else:
            yield from (it if count < 0 else itertools.islice(it, count))


def _rows_up_to(chunks, count: int):
    """The first ``count`` indices of the chunks."""
    for chunk in chunks:
        if count <= 0:
            return
        yield chunk[:count]
        count -= len(chunk)


def _rows_after(chunks, count: int):
    """The indices of the chunks after the first ``count``."""
    for chunk in chunks:
        if count >= len(chunk):
            count -= len(chunk)
            continue
        yield chunk[count:]
        count = 0


class _Shard(_Unary):
    def __init__(self, input_dataset, num_shards, index):
        if isinstance(num_shards, int) and isinstance(index, int) and not 0 <= index < num_shards:
            raise errors.InvalidArgumentError(None, None, f"Dataset.shard: index {index} is not in [0, {num_shards})")
        super().__init__(input_dataset, input_dataset.element_spec,
                         [ops.convert_to_tensor(num_shards, dtype=dtypes.int64),
                          ops.convert_to_tensor(index, dtype=dtypes.int64)])

    def _check_args(self, extra) -> None:
        num_shards, index = int(extra[0]), int(extra[1])
        if num_shards < 1 or not 0 <= index < num_shards:
            raise errors.InvalidArgumentError(None, None, f"Dataset.shard: index {index} is not in [0, {num_shards})")

    def _iterate(self, values, state):
        own, (num_shards, index) = self._split(values)
        self._check_args([num_shards, index])
        num_shards, index = int(num_shards), int(index)
        yield from itertools.islice(self._input._iterate(own, state), index, None, num_shards)


# ---------------------------------------------------------------------------
# Several datasets


class _Zip(Dataset):
    def __init__(self, datasets):
        flat, self._pack = structure.flatten_datasets(datasets)
        self._children = flat
        self._counts = [len(d._all_inputs()) for d in flat]
        inputs = [t for d in flat for t in d._all_inputs()]
        super().__init__(structure.Spec.zipped(self._pack, [d.element_spec for d in flat]), inputs)

    def _input_datasets(self) -> list:
        return list(self._children)

    def _check(self, values) -> None:
        start = 0
        for child, n in zip(self._children, self._counts):
            child._check(values[start:start + n])
            start += n

    def _iterate(self, values, state):
        iterators = []
        start = 0
        for child, n in zip(self._children, self._counts):
            iterators.append(child._iterate(values[start:start + n], state))
            start += n
        for parts in zip(*iterators):
            yield tuple(x for part in parts for x in part)


class _Concatenate(Dataset):
    def __init__(self, first, second):
        if first.element_spec.types() != second.element_spec.types():
            raise TypeError(f"Two datasets to concatenate have different types {first.output_types} and "
                            f"{second.output_types}")
        self._first, self._second = first, second
        self._n = len(first._all_inputs())
        super().__init__(first.element_spec.most_specific_compatible(second.element_spec),
                         first._all_inputs() + second._all_inputs())

    def _input_datasets(self) -> list:
        return [self._first, self._second]

    def _check(self, values) -> None:
        self._first._check(values[:self._n])
        self._second._check(values[self._n:])

    def _iterate(self, values, state):
        yield from self._first._iterate(values[:self._n], state)
        yield from self._second._iterate(values[self._n:], state)


class _Counter(Dataset):
    """start, start + step, ... without end (``tf.data.experimental.Counter``)."""

    def __init__(self, start=0, step=1, dtype=dtypes.int64):
        self._dtype = dtypes.as_dtype(dtype)
        super().__init__(structure.Spec.tensor(self._dtype, TensorShape([])),
                         [ops.convert_to_tensor(start, dtype=self._dtype), ops.convert_to_tensor(step, dtype=self._dtype)])

    def _iterate(self, values, state):
        start, step = values
        for i in itertools.count():
            yield (np.asarray(start + i * step, self._dtype.as_numpy_dtype),)


def _padded_shape(shape, tensors: list):
    """A component's padded shape as a TensorShape (None: the longest in the batch), and where a
    shape given as a tensor known only when the iterator runs is among ``tensors`` (or None)."""
    if isinstance(shape, ops.Tensor) or (isinstance(shape, np.ndarray) and shape.ndim == 1):
        shape = ops.convert_to_tensor(shape, dtype=dtypes.int64)
        if shape.shape.ndims != 1 or shape.shape[0].value is None:
            raise ValueError(f"padded_batch: a padded shape given as a tensor must be a vector of known length, got "
                             f"{shape}")
        static = constant_value(shape)
        if static is None:
            tensors.append(shape)
            return TensorShape([None] * shape.shape[0].value), len(tensors) - 1
        shape = [int(d) for d in static]
    dims = shape if isinstance(shape, (list, tuple)) else TensorShape(shape).as_list()
    return TensorShape([None if d is None or (isinstance(d, int) and d < 0) else d for d in dims]), None


def _padding_leaves(spec: structure.Spec, padded_shapes, padding_values):
    """Per component: the padded shape (TensorShape), the padding value, and where a shape given
    as a tensor is among the second list; a padding value is an array, or the index into the
    second list of the padding values and shapes that are tensors known only when the iterator
    runs (a vocabulary table's end-of-sentence id, say)."""
    leaves = spec.leaves()
    tensors: list = []
    if padded_shapes is None:
        shapes = [leaf.shape if leaf.shape.ndims is not None else None for leaf in leaves]
        if any(s is None for s in shapes):
            raise ValueError("padded_batch needs padded_shapes for components of unknown rank")
        shapes = [(TensorShape([None] * s.ndims), None) for s in shapes]
    else:
        shapes = [_padded_shape(shape, tensors)
                  for shape in structure.flatten_like(spec, padded_shapes, "padded_shapes")]
    values = [None] * len(leaves) if padding_values is None else \
        structure.flatten_like(spec, padding_values, "padding_values")
    out = []
    for i, (leaf, (shape, dims), value) in enumerate(zip(leaves, shapes, values)):
        if leaf.shape.ndims is not None and shape.ndims != leaf.shape.ndims:
            raise ValueError(f"padded_shapes {shape} must have the rank of its component {leaf.shape}")
        if value is None:
            value = b"" if leaf.dtype == dtypes.string else 0
        elif isinstance(value, ops.Tensor):
            if value.dtype.base_dtype != leaf.dtype:
                raise TypeError(f"padded_batch: the padding value of component {i} is {value.dtype.name}, but the "
                                f"component is {leaf.dtype.name}")
            if not value.shape.is_compatible_with([]):
                raise ValueError(f"padded_batch: a padding value must be a scalar, got shape {value.shape} for "
                                 f"component {i}")
            static = constant_value(value)
            if static is None:
                out.append((shape, len(tensors), dims))
                tensors.append(value)
                continue
            value = static
        out.append((shape, np.asarray(value, dtype=object if leaf.dtype == dtypes.string
                                      else leaf.dtype.as_numpy_dtype), dims))
    return out, tensors


class _PaddedBatch(_Batch):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        spec = input_dataset.element_spec
        if spec.has_sparse():
            raise TypeError("Batching of padded sparse tensors is not currently supported (padded_batch); use batch")
        self._pads, tensors = _padding_leaves(spec, padded_shapes, padding_values)
        padded = structure.Spec(structure._pack(spec._tree, [structure._Leaf(leaf.dtype, shape) for leaf, (shape, *_)
                                                             in zip(spec.leaves(), self._pads)]))
        super().__init__(input_dataset, batch_size, drop_remainder, padded, more_inputs=tensors)

    def _combine(self, batch, more):
        out = []
        for i, (parts, (shape, value, dims)) in enumerate(zip(zip(*batch), self._pads)):
            parts = [np.asarray(p) for p in parts]
            if isinstance(value, int):
                value = more[value]
            wanted = [d.value for d in shape] if dims is None else [None if d < 0 else int(d) for d in more[dims]]
            if len(wanted) != parts[0].ndim:
                raise errors.InvalidArgumentError(None, None, f"padded_batch: the padded shape {wanted} of component "
                                                              f"{i} does not have its rank {parts[0].ndim}")
            longest = [max(p.shape[d] for p in parts) for d in range(parts[0].ndim)]
            target = [longest[d] if wanted[d] is None else wanted[d] for d in range(len(longest))]
            for p in parts:
                if any(n > t for n, t in zip(p.shape, target)):
                    raise errors.DataLossError(None, None, f"Attempted to pad to a smaller size than the input "
                                                           f"element (padded_batch: component {i} has shape "
                                                           f"{list(p.shape)}, its padded shape is {target})")
            stacked = np.full([len(parts)] + target, value, dtype=parts[0].dtype)
            for row, p in enumerate(parts):
                stacked[(row,) + tuple(slice(0, n) for n in p.shape)] = p
            out.append(stacked)
        return tuple(out)


class _DenseToSparseBatch(_Batch):
    """``dense_to_sparse_batch``: elements of one rank but different shapes, each at most
    ``row_shape``, as the rows of one SparseTensor [batch] + row_shape holding all their values."""

    def __init__(self, input_dataset, batch_size, row_shape):
        spec = input_dataset.element_spec
        components = spec.components()
        if len(components) != 1 or components[0].sparse:
            raise TypeError(f"dense_to_sparse_batch needs elements that are one dense tensor, got "
                            f"{input_dataset.output_types}")
        self._row_shape = [int(d) for d in TensorShape(row_shape).as_list()]
        if components[0].shape.ndims not in (None, len(self._row_shape)):
            raise ValueError(f"dense_to_sparse_batch: the elements' rank ({components[0].shape}) is not row_shape's "
                             f"{self._row_shape}")
        leaf = structure._SparseLeaf(components[0].dtype, TensorShape(self._row_shape))  # (batched by _Batch)
        super().__init__(input_dataset, batch_size, False, structure.Spec(leaf))

    def _combine(self, batch, more):
        rows = []
        for (value,) in batch:
            value = np.asarray(value)
            if value.ndim != len(self._row_shape) or any(n > m for n, m in zip(value.shape, self._row_shape)):
                raise errors.InvalidArgumentError(None, None, f"dense_to_sparse_batch: an element of shape "
                                                              f"{list(value.shape)} does not fit row_shape "
                                                              f"{self._row_shape}")
            where = np.argwhere(np.ones(value.shape, bool)).astype(np.int64)
            rows.append(structure.SparseTensorValue(where, value.reshape(-1), np.array(self._row_shape, np.int64)))
        return self._spec.ungrouped([structure.sparse_batch(rows, "dense_to_sparse_batch")])


class _Unbatch(_Unary):
    def __init__(self, input_dataset):
        super().__init__(input_dataset, input_dataset.element_spec.sliced())

    def _iterate(self, values, state):
        whole = self._input.element_spec
        for element in self._input._iterate(values, state):
            if whole.has_sparse():
                element = [structure.sparse_rows(v) if leaf.sparse else v
                           for leaf, v in zip(whole.components(), whole.grouped(element))]
            rows = {len(v) for v in element}
            if len(rows) != 1:
                raise errors.InvalidArgumentError(None, None, f"unbatch: the components have different numbers "
                                                              f"of rows: {sorted(rows)}")
            for i in range(rows.pop()):
                row = [v[i] for v in element]
                yield self._spec.ungrouped(row) if whole.has_sparse() else tuple(row)


class _Interleave(_Unary):
    """flat_map (a cycle of one) and interleave: TensorFlow's InterleaveDataset order."""

    def __init__(self, input_dataset, map_func, cycle_length, block_length, what):
        from .function import TracedFunction  # noqa: PLC0415

        self._fn = TracedFunction(map_func, input_dataset.element_spec, what, returns_dataset=True)
        self._cycle = ops.convert_to_tensor(cycle_length, dtype=dtypes.int64)
        self._block = ops.convert_to_tensor(block_length, dtype=dtypes.int64)
        super().__init__(input_dataset, self._fn.output_spec, [self._cycle, self._block] + self._fn.captured)

    def _iterate(self, values, state):
        own, (cycle, block, *captured) = self._split(values)
        datasets = (self._fn.iterate(element, state, captured) for element in self._input._iterate(own, state))
        yield from _interleaved(datasets, int(cycle), int(block))


def _interleaved(sources, cycle: int, block: int):
    """The elements of the iterators ``sources`` gives, ``cycle`` open at a time and
    ``block`` elements from each in turn (TensorFlow's InterleaveDataset order); a finished
    one's place goes to the next source."""
    if cycle == AUTOTUNE:
        import os  # noqa: PLC0415

        cycle = os.cpu_count() or 1
    if cycle <= 0 or block <= 0:
        raise errors.InvalidArgumentError(None, None, f"interleave: cycle_length ({cycle}) and block_length "
                                                      f"({block}) must be positive")
    slots = [None] * cycle
    index = taken = open_ = 0
    ended = False
    while not ended or open_:
        if slots[index] is not None:
            try:
                item = next(slots[index])
            except StopIteration:
                slots[index], taken, index = None, 0, (index + 1) % cycle
                open_ -= 1
                continue
            taken += 1
            if taken == block:
                taken, index = 0, (index + 1) % cycle
            yield item
        elif not ended:
            source = next(sources, None)
            if source is None:
                ended = True
            else:
                slots[index] = iter(source)
                open_ += 1
        else:
            taken, index = 0, (index + 1) % cycle


class _WindowSource(Dataset):
    """The elements of one window of ``group_by_window``, set by the dataset that owns it
    before its reduce function's dataset is iterated."""

    def __init__(self, spec: structure.Spec):
        super().__init__(spec)

    def _iterate(self, values, state):
        yield from state.stages[("window", id(self))]


class _GroupByWindow(_Unary):
    """TensorFlow's GroupByWindowDataset: elements gathered by key; a window that reaches
    its size is reduced (its reduce function's dataset read to the end) before more input is
    read; at the end the partial windows are reduced, smallest key first."""

    def __init__(self, input_dataset, key_func, reduce_func, window_size, window_size_func):
        from .function import TracedFunction  # noqa: PLC0415

        if (window_size is None) == (window_size_func is None):
            raise ValueError("Must pass either window_size or window_size_func.")
        spec = input_dataset.element_spec
        key = structure.Spec.tensor(dtypes.int64, TensorShape([]))
        self._key = TracedFunction(key_func, spec, "group_by_window key_func")
        if self._key.output_spec.flat_types() != [dtypes.int64]:
            raise ValueError(f"`key_func` must return a single tf.int64 tensor, got {self._key.output_spec.types()}")
        self._source = _WindowSource(spec)
        self._reduce = TracedFunction(lambda k: reduce_func(k, self._source), key, "group_by_window reduce_func",
                                      returns_dataset=True)
        if window_size_func is None:
            size = ops.convert_to_tensor(window_size, dtype=dtypes.int64)
            self._size = None
            inputs = [size]
        else:
            self._size = TracedFunction(window_size_func, key, "group_by_window window_size_func")
            inputs = []
        self._functions = [self._key, self._reduce, self._size]
        self._fixed = len(inputs)
        super().__init__(input_dataset, self._reduce.output_spec, inputs + _captured_inputs(self._functions))

    def _iterate(self, values, state):
        own, rest = self._split(values)
        key_captured, reduce_captured, size_captured = _captures(self._functions, rest[self._fixed:])
        sizes: dict = {}
        windows: dict = {}

        def size_of(key):
            if key not in sizes:
                size = int(rest[0]) if self._size is None else \
                    int(self._size((np.int64(key),), state, size_captured)[0])
                if size <= 0:
                    raise errors.InvalidArgumentError(None, None, f"group_by_window: window size must be greater "
                                                                  f"than zero, got {size}")
                sizes[key] = size
            return sizes[key]

        def reduced(key):
            state.stages[("window", id(self._source))] = windows.pop(key)
            yield from self._reduce.iterate((np.int64(key),), state, reduce_captured)

        for element in self._input._iterate(own, state):
            key = int(self._key(element, state, key_captured)[0])
            windows.setdefault(key, []).append(element)
            if len(windows[key]) == size_of(key):
                yield from reduced(key)
        for key in sorted(windows):
            yield from reduced(key)


class _WindowComponent(Dataset):
    """One component of the window being read: its elements are set by the dataset reading
    the windows before the dataset its function returned is iterated."""

    def __init__(self, spec: structure.Spec, index: int):
        super().__init__(spec)
        self._index = index

    def _iterate(self, values, state):
        for element in state.stages[("window", id(self))]:
            yield (element[self._index],)


class _Window(_Unary):
    """``Dataset.window``: its elements are windows of the input's elements, which only
    ``flat_map`` and ``interleave`` read (each window as a structure of datasets)."""

    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        if input_dataset.element_spec.has_sparse():
            raise TypeError("Dataset.window: elements with SparseTensor components are not supported in distflow")
        self._args = [ops.convert_to_tensor(v, dtype=dtypes.int64) for v in (size, shift, stride)]
        self._drop = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool)
        super().__init__(input_dataset, input_dataset.element_spec, self._args + [self._drop])

    def _windows(self, values, state):
        own, (size, shift, stride, drop) = self._split(values)
        size, shift, stride, drop = int(size), int(shift), int(stride), bool(drop)
        if min(size, shift, stride) <= 0:
            raise errors.InvalidArgumentError(None, None, f"window: size ({size}), shift ({shift}) and stride "
                                                          f"({stride}) must be positive")
        span = (size - 1) * stride + 1  # (the elements one window reaches over)
        buffer, first = [], 0  # (the buffered elements, and the index of buffer[0] in the input)
        start = 0  # (where the next window starts)
        for index, element in enumerate(self._input._iterate(own, state)):
            if index < start:  # (between windows, when they shift by more than they span)
                continue
            if not buffer:
                first = index
            buffer.append(element)
            while start + span - 1 <= index:
                yield buffer[start - first:start - first + span:stride]
                start += shift
                done = min(start - first, len(buffer))
                del buffer[:done]
                first += done
        if not drop:
            end = first + len(buffer)
            while start < end:
                yield buffer[start - first::stride][:size]
                start += shift

    def _iterate(self, values, state):
        raise errors.InvalidArgumentError(None, None, "the elements of Dataset.window() are datasets: read them "
                                                      "with flat_map or interleave (lambda w: w.batch(size))")

    def _read_by(self, map_func, cycle_length, block_length, what):
        return _WindowInterleave(self, map_func, cycle_length, block_length, what)

    def flat_map(self, map_func) -> "Dataset":
        return self._read_by(map_func, 1, 1, "Dataset.flat_map()")

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1, num_parallel_calls=None) -> "Dataset":
        return self._read_by(map_func, cycle_length, block_length, "Dataset.interleave()")


class _WindowInterleave(_Interleave):
    """flat_map or interleave over windows: ``map_func`` is called once, with a structure of
    datasets standing for any window's components, and the dataset it returns is read for
    each window in turn."""

    def __init__(self, windows: _Window, map_func, cycle_length, block_length, what):
        spec = windows.element_spec
        self._components = [_WindowComponent(structure.Spec(leaf), i) for i, leaf in enumerate(spec.leaves())]
        args = spec.pack(self._components)
        result = map_func(*args) if spec.is_tuple() else map_func(args)
        if not isinstance(result, Dataset):
            raise TypeError(f"{what}: the function must return a Dataset, got {result!r}")
        self._result = result
        self._cycle = ops.convert_to_tensor(cycle_length, dtype=dtypes.int64)
        self._block = ops.convert_to_tensor(block_length, dtype=dtypes.int64)
        _Unary.__init__(self, windows, result.element_spec, [self._cycle, self._block] + result._all_inputs())

    def _iterate(self, values, state):
        own, (cycle, block, *result_values) = self._split(values)
        windows = self._input._windows(own, state)

        def reader(window):
            def read():
                for component in self._components:
                    state.stages[("window", id(component))] = window
                yield from self._result._iterate(result_values, state)
            return _Resumable(read(), self._components, window, state)

        yield from _interleaved((reader(w) for w in windows), int(cycle), int(block))


class _Resumable:
    """A window's reader that sets its window again before each element, since readers of
    several windows take turns (interleave)."""

    def __init__(self, generator, components, window, state):
        self._generator, self._components, self._window, self._state = generator, components, window, state

    def __iter__(self):
        return self

    def __next__(self):
        for component in self._components:
            self._state.stages[("window", id(component))] = self._window
        return next(self._generator)


class _Scan(_Unary):
    """``tf.data.experimental.scan``: ``scan_func(state, element)`` gives (new state, output
    element), the state carried from element to element."""

    def __init__(self, input_dataset, initial_state, scan_func):
        from .function import TracedFunction  # noqa: PLC0415

        self._initial, state_spec = structure.to_tensors(initial_state)
        spec = structure.Spec.zipped((0, 0), [state_spec, input_dataset.element_spec])
        self._fn = TracedFunction(scan_func, spec, "tf.data.experimental.scan()")
        out = self._fn.output_spec
        if not out.is_tuple() or len(out._tree) != 2:
            raise TypeError(f"scan_func must return a pair (new_state, output_element), got {out.types()}")
        new_state = structure.Spec(out._tree[0])
        if new_state.flat_types() != state_spec.flat_types():
            raise TypeError(f"scan_func's new state {new_state.types()} must have the initial state's types "
                            f"{state_spec.types()}")
        self._state_leaves = len(state_spec.leaves())
        super().__init__(input_dataset, structure.Spec(out._tree[1]), self._initial + self._fn.captured)

    def _iterate(self, values, state):
        own, rest = self._split(values)
        carried, captured = tuple(rest[:self._state_leaves]), rest[self._state_leaves:]
        for element in self._input._iterate(own, state):
            result = self._fn(carried + tuple(element), state, captured)
            carried = result[:self._state_leaves]
            yield result[self._state_leaves:]



class _Choose(Dataset):
    """``choose_from_datasets``: each element from the dataset the next index of
    ``choice_dataset`` names; ends when the choices end (or a chosen dataset is done)."""

    def __init__(self, datasets, choice_dataset):
        datasets = list(datasets)
        if not datasets:
            raise ValueError("choose_from_datasets needs at least one dataset")
        if choice_dataset.element_spec.flat_types() != [dtypes.int64]:
            raise TypeError(f"choice_dataset must be a dataset of scalar int64, got {choice_dataset.output_types}")
        spec = datasets[0].element_spec
        for d in datasets[1:]:
            if d.element_spec.types() != spec.types():
                raise TypeError(f"All datasets must have the same type, got {spec.types()} and {d.output_types}")
            spec = spec.most_specific_compatible(d.element_spec)
        self._datasets, self._choice = datasets, choice_dataset
        self._counts = [len(d._all_inputs()) for d in datasets]
        inputs = [t for d in datasets for t in d._all_inputs()] + choice_dataset._all_inputs()
        super().__init__(spec, inputs)

    def _iterate(self, values, state):
        iterators, start = [], 0
        for d, n in zip(self._datasets, self._counts):
            iterators.append(d._iterate(values[start:start + n], state))
            start += n
        for (choice,) in self._choice._iterate(values[start:], state):
            k = int(choice)
            if not 0 <= k < len(iterators):
                raise errors.InvalidArgumentError(None, None, f"choose_from_datasets: choice {k} is not in "
                                                              f"[0, {len(iterators)})")
            element = next(iterators[k], None)
            if element is None:
                return
            yield element


class _IgnoreErrors(_Unary):
    """``ignore_errors``: an element whose computation fails is skipped."""

    def __init__(self, input_dataset):
        super().__init__(input_dataset, input_dataset.element_spec)

    def _iterate(self, values, state):
        # (the maps upstream skip an element whose function fails while this is read)
        state.stages["ignore_errors"] = state.stages.get("ignore_errors", 0) + 1
        try:
            elements = self._input._iterate(values, state)
            while True:
                try:
                    element = next(elements)
                except StopIteration:
                    return
                except errors.OpError:  # (a failure outside a map ends its stage: the rest is lost)
                    return
                yield element
        finally:
            state.stages["ignore_errors"] -= 1


class _Unique(_Unary):
    """``unique``: each element the first time it comes."""

    def __init__(self, input_dataset):
        types = input_dataset.element_spec.flat_types()
        if len(types) != 1 or not (types[0].is_integer or types[0] == dtypes.string):
            raise TypeError(f"unique needs a dataset of int32, int64 or string elements, got "
                            f"{input_dataset.output_types}")
        super().__init__(input_dataset, input_dataset.element_spec)

    def _iterate(self, values, state):
        seen = set()
        for element in self._input._iterate(values, state):
            value = element[0]
            key = value if isinstance(value, bytes) else np.asarray(value).item()
            if key not in seen:
                seen.add(key)
                yield element


class _GroupByReducer(_Unary):
    """``group_by_reducer``: each key's elements folded by the reducer, one result per key at
    the end of the input, smallest key first (TF's GroupByReducerDataset)."""

    def __init__(self, input_dataset, key_func, reducer):
        from .function import TracedFunction  # noqa: PLC0415

        spec = input_dataset.element_spec
        key = structure.Spec.tensor(dtypes.int64, TensorShape([]))
        self._key = TracedFunction(key_func, spec, "group_by_reducer key_func")
        if self._key.output_spec.flat_types() != [dtypes.int64]:
            raise ValueError(f"`key_func` must return a single tf.int64 tensor, got {self._key.output_spec.types()}")
        self._init = TracedFunction(reducer.init_func, key, "Reducer.init_func")
        state = self._init.output_spec
        self._reduce = TracedFunction(reducer.reduce_func, structure.Spec.zipped((0, 0), [state, spec]),
                                      "Reducer.reduce_func")
        if self._reduce.output_spec.flat_types() != state.flat_types():
            raise TypeError(f"reduce_func must return a state of init_func's types {state.types()}, got "
                            f"{self._reduce.output_spec.types()}")
        self._finalize = TracedFunction(reducer.finalize_func, state, "Reducer.finalize_func")
        self._functions = [self._key, self._init, self._reduce, self._finalize]
        super().__init__(input_dataset, self._finalize.output_spec, _captured_inputs(self._functions))

    def _iterate(self, values, state):
        own, rest = self._split(values)
        key_captured, init_captured, reduce_captured, final_captured = _captures(self._functions, rest)
        states: dict = {}
        for element in self._input._iterate(own, state):
            key = int(self._key(element, state, key_captured)[0])
            if key not in states:
                states[key] = self._init((np.int64(key),), state, init_captured)
            states[key] = self._reduce(tuple(states[key]) + tuple(element), state, reduce_captured)
        for key in sorted(states):
            yield self._finalize(tuple(states[key]), state, final_captured)


class _Sample(Dataset):
    """``sample_from_datasets``: each element from a dataset drawn by ``weights``; a dataset
    that ends drops out of the draw, and the whole ends when all have."""

    def __init__(self, datasets, weights, seed):
        datasets = list(datasets)
        if not datasets:
            raise ValueError("sample_from_datasets needs at least one dataset")
        spec = datasets[0].element_spec
        for d in datasets[1:]:
            if d.element_spec.types() != spec.types():
                raise TypeError(f"All datasets must have the same type, got {spec.types()} and {d.output_types}")
            spec = spec.most_specific_compatible(d.element_spec)
        weights = [1.0 / len(datasets)] * len(datasets) if weights is None else [float(w) for w in weights]
        if len(weights) != len(datasets) or min(weights) < 0 or sum(weights) <= 0:
            raise ValueError(f"weights must be {len(datasets)} non-negative numbers, not all zero; got {weights}")
        self._datasets, self._weights, self._seed = datasets, np.asarray(weights), seed
        self._counts = [len(d._all_inputs()) for d in datasets]
        super().__init__(spec, [t for d in datasets for t in d._all_inputs()])

    def _iterate(self, values, state):
        iterators, start = [], 0
        for d, n in zip(self._datasets, self._counts):
            iterators.append(d._iterate(values[start:start + n], state))
            start += n
        rng = np.random.default_rng(self._seed)
        live = self._weights.copy()
        while live.sum() > 0:
            k = int(rng.choice(len(live), p=live / live.sum()))
            element = next(iterators[k], None)
            if element is None:
                live[k] = 0.0
                continue
            yield element


# ---------------------------------------------------------------------------
# Buffering: prefetch and cache
#
# ``prefetch(n)`` runs the stages before it in a thread of their own, up to ``n`` elements ahead
# (AUTOTUNE: 2), so that an input pipeline works while a training step runs (NumPy's kernels let
# go of the interpreter while they compute). Elements and errors come in their order; starting
# the iterator again stops the thread.
#
# ``cache()`` keeps the elements of the first complete pass in memory for the later passes of
# the same iterator initialization (``cache().repeat()``'s epochs after the first). ``cache(f)``
# writes them to the file ``f + ".distflow-cache"`` (TFRecord records of TensorProtos, written
# under a temporary name and renamed when the pass completes), which later passes and later
# runs of the program read instead of computing them; while one iterator writes it, a second is
# refused (AlreadyExistsError), as in TensorFlow. Only a complete pass is kept.

_AUTOTUNE_ELEMENTS = 2  # (what AUTOTUNE prefetches)
_runs = itertools.count()  # (a key for each prefetching pass: one dataset may run in several at once)


class _Producer:
    """A thread that reads ``elements`` into a queue of ``size``; closed, it stops."""

    _END = object()

    def __init__(self, elements, size: int):
        self._queue: queue.Queue = queue.Queue(maxsize=size)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(elements,), daemon=True, name="distflow-prefetch")
        self._thread.start()

    def _run(self, elements) -> None:
        try:
            for element in elements:
                if not self._put((element, None)):
                    return
        except Exception as e:  # noqa: BLE001 - handed to the consumer, in its place in the order
            self._put((None, e))
            return
        self._put((self._END, None))

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def get(self):
        while True:
            try:
                element, error = self._queue.get(timeout=0.1)
                break
            except queue.Empty:
                if not self._thread.is_alive() and self._queue.empty():
                    raise errors.InternalError(None, None, "prefetch: the producing thread ended early") from None
        if error is not None:
            raise error
        return element

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


class _Prefetch(_Unary):
    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset, input_dataset.element_spec,
                         [ops.convert_to_tensor(buffer_size, dtype=dtypes.int64)])

    def _check_args(self, extra) -> None:
        size = int(extra[0])
        if size < 0 and size != AUTOTUNE:
            raise errors.InvalidArgumentError(None, None, f"buffer_size must be >= 0 or set buffer_size to be "
                                                          f"{AUTOTUNE} for auto-tuning, got {size}")

    def _iterate(self, values, state):
        own, (size,) = self._split(values)
        self._check_args([size])
        size = int(size)
        if size == 0:
            yield from self._input._iterate(own, state)
            return
        producer = _Producer(self._input._iterate(own, state), _AUTOTUNE_ELEMENTS if size == AUTOTUNE else size)
        key = ("prefetch", next(_runs))
        state.stages[key] = producer  # (closed when the iterator starts again or goes)
        try:
            while True:
                element = producer.get()
                if element is _Producer._END:
                    return
                yield element
        finally:
            producer.close()
            state.stages.pop(key, None)


class _WithOptions(_Unary):
    """``with_options``: the input's elements, and its options merged with those given."""

    def __init__(self, input_dataset, options):
        super().__init__(input_dataset, input_dataset.element_spec)
        self._options = input_dataset.options().merge(options)

    def options(self) -> Options:
        return self._options

    def _iterate(self, values, state):
        return self._input._iterate(values, state)

    def _row_source(self, values, state):
        return self._input._row_source(values, state)


class _Cache(_Unary):
    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset, input_dataset.element_spec,
                         [ops.convert_to_tensor(filename, dtype=dtypes.string)])

    def _row_source(self, values, state):
        own, (filename,) = self._split(values)
        if np.asarray(filename).item():  # (a cache file: its elements, element by element)
            return None
        key = ("cache rows", id(self))
        kept = state.stages.get(key)
        if kept is not None and len(kept[0]) == len(own) and all(a is b for a, b in zip(kept[0], own)):
            return kept[1], iter(kept[2])
        rows = self._input._row_source(own, state)
        if rows is None:
            return None

        def first_pass():  # (its order kept, when it completes, for the later passes)
            seen = []
            for chunk in rows[1]:
                seen.append(chunk)
                yield chunk
            state.stages[key] = (list(own), rows[0], seen)
        return rows[0], first_pass()

    def _iterate(self, values, state):
        own, (filename,) = self._split(values)
        name = np.asarray(filename).item()
        name = name.decode() if isinstance(name, bytes) else str(name)
        if name:
            yield from self._from_file(name, own, state)
            return
        key = ("cache", id(self))
        kept = state.stages.get(key)
        # (the same inputs: another pass of this pipeline, not a function's dataset given other values)
        if kept is not None and len(kept[0]) == len(own) and all(a is b for a, b in zip(kept[0], own)):
            yield from kept[1]
            return
        elements = []
        for element in self._input._iterate(own, state):
            elements.append(element)
            yield element
        state.stages[key] = (list(own), elements)

    def _from_file(self, name, own, state):
        path = name + ".distflow-cache"
        if os.path.exists(path):
            yield from self._read(path)
            return
        lock = name + ".lockfile"
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            raise errors.AlreadyExistsError(None, None, f"There appears to be a concurrent caching iterator running "
                                                        f"- cache lockfile already exists ('{lock}'). If you are sure "
                                                        f"no other running TF computations are using this cache "
                                                        f"prefix, delete the lockfile and re-initialize the "
                                                        f"iterator.") from None
        os.close(fd)
        partial = f"{path}.tmp{os.getpid()}"
        try:
            writer = TFRecordWriter(partial)
            try:
                for element in self._input._iterate(own, state):
                    record = pb.AttrValue.ListValue(tensor=[tensor_to_proto(np.asarray(v)) for v in element])
                    writer.write(record.SerializeToString())
                    yield element
            finally:
                writer.close()
            os.replace(partial, path)  # (only a complete pass becomes the cache)
        finally:
            if os.path.exists(partial):
                os.remove(partial)
            os.remove(lock)

    def _read(self, path):
        spec = self._spec.leaves()
        for record in tf_record_iterator(path):
            try:
                tensors = pb.AttrValue.ListValue.FromString(record).tensor
            except Exception:  # noqa: BLE001 - a damaged file is the user's to know of
                raise errors.DataLossError(None, None, f"{path}: a record is not a cached element") from None
            if len(tensors) != len(spec):
                raise errors.DataLossError(None, None, f"{path} holds elements of {len(tensors)} components, the "
                                                       f"dataset's have {len(spec)}: a cache of another dataset?")
            element = tuple(tensor_from_proto(t) for t in tensors)
            for value, leaf in zip(element, spec):
                if value.dtype != leaf.dtype.as_numpy_dtype and leaf.dtype != dtypes.string or \
                        not leaf.shape.is_compatible_with(value.shape):
                    raise errors.DataLossError(None, None, f"{path} holds elements of {value.dtype} {value.shape} "
                                                           f"where the dataset's are {leaf.dtype.name} {leaf.shape}")
            yield element


class _TakeWhile(_Filter):
    """``take_while``: the elements up to the first for which the predicate is False."""

    def _iterate(self, values, state):
        own, captured = self._split(values)
        for element in self._input._iterate(own, state):
            if not bool(self._fn(element, state, captured)[0]):
                return
            yield element


class _Random(Dataset):
    """``RandomDataset``: int64 values drawn uniformly without end (the same seeds give the
    same values, not TensorFlow's)."""

    def __init__(self, seed=None):
        graph_seed, op_seed = random_seed.get_seed(seed)
        self._seed = None if graph_seed is None else (graph_seed, op_seed)
        super().__init__(structure.Spec.tensor(dtypes.int64, TensorShape([])))

    def _iterate(self, values, state):
        rng = np.random.default_rng(self._seed)
        while True:
            for value in rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=256, dtype=np.int64,
                                      endpoint=True):
                yield (value,)


class _Sql(Dataset):
    """``SqlDataset``: the rows a query gives from an SQLite database, one element each (a
    tuple of scalars of ``output_types``)."""

    def __init__(self, driver_name, data_source_name, query, output_types):
        types = tuple(output_types) if isinstance(output_types, (list, tuple)) else (output_types,)
        self._types = [dtypes.as_dtype(t) for t in types]
        spec = structure.Spec.from_types(tuple(self._types), tuple(TensorShape([]) for _ in self._types))
        inputs = [ops.convert_to_tensor(v, dtype=dtypes.string) for v in (driver_name, data_source_name, query)]
        super().__init__(spec, inputs)

    def _iterate(self, values, state):
        import sqlite3  # noqa: PLC0415 (the standard library's: loaded only for this source)

        driver, source, query = (_text(v) for v in values)
        if driver != "sqlite":
            raise errors.InvalidArgumentError(None, None, f"The database type, {driver}, is not supported by "
                                                          "SqlDataset. The set of supported databases is: {'sqlite'}.")
        try:
            connection = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        except sqlite3.Error as e:
            raise errors.InvalidArgumentError(None, None, f"SqlDataset: cannot open {source}: {e}") from None
        try:
            cursor = connection.execute(query)
            width = len(cursor.description or ())
            if width != len(self._types):
                raise errors.InvalidArgumentError(None, None, f"SqlDataset: the query gives {width} columns and "
                                                              f"output_types has {len(self._types)}")
            for row in cursor:
                yield tuple(_sql_value(v, t) for v, t in zip(row, self._types))
        except sqlite3.Error as e:
            raise errors.InvalidArgumentError(None, None, f"SqlDataset: the query failed: {e}") from None
        finally:
            connection.close()


def _text(value) -> str:
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.decode() if isinstance(value, bytes) else str(value)


def _sql_value(value, dtype):
    if dtype == dtypes.string:
        return np.asarray(value if isinstance(value, bytes) else str(value).encode(), dtype=object)
    if value is None:
        raise errors.InvalidArgumentError(None, None, f"SqlDataset: a NULL where {dtype.name} was asked")
    return np.asarray(value, dtype=dtype.as_numpy_dtype)
