"""Iterators over datasets: the ops that own, start and read a pass over a Dataset."""

from __future__ import annotations

import threading

import numpy as np

from ..framework import dtypes
from ..framework import errors
from ..framework import ops
from ..framework.registry import get_registration, not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from ..ops.op_util import constant_value, make_op
from . import structure
from .registry import RunState, lookup, register


class _IteratorResource:
    """One iterator's position: the running pass over its dataset, and its run state."""

    def __init__(self, name: str, output_types, one_shot: str = ""):
        self.name = name
        self.output_types = list(output_types)
        self.one_shot = one_shot  # the token of a one-shot iterator's dataset and values
        self.lock = threading.Lock()
        self.elements = None
        self.state = None
        self.source = None  # (the dataset and values of the pass, which a restore runs again)
        self.position = 0  # (the elements the pass has given)

    def start(self, dataset, values: list) -> None:
        types = dataset.element_spec.flat_types()
        if types != self.output_types:
            raise errors.InvalidArgumentError(None, None, f"Iterator '{self.name}' has types "
                                                          f"{[t.name for t in self.output_types]}, the dataset "
                                                          f"{[t.name for t in types]}")
        self.release()
        with self.lock:
            self._begin(dataset, values)

    def _begin(self, dataset, values) -> None:
        self.state = RunState()
        self.elements = dataset._iterate(values, self.state)
        self.source = (dataset, values)
        self.position = 0

    def release(self) -> None:
        """Ends the running pass: its prefetching threads stop, its cache files are let go of."""
        with self.lock:
            elements, self.elements = self.elements, None
            if elements is not None:
                elements.close()
            if self.state is not None:
                self.state.close()
                self.state = None

    def _one_shot_source(self):
        one_shot = lookup(self.one_shot)
        if one_shot.error is not None:  # (each read fails as the dataset's making did, as in TF)
            raise type(one_shot.error)(one_shot.error.node_def, one_shot.error.op, one_shot.error.message)
        return one_shot.dataset, one_shot.values

    def get_next(self):
        with self.lock:
            if self.elements is None:
                if not self.one_shot:
                    raise errors.FailedPreconditionError(
                        None, None, "GetNext() failed because the iterator has not been initialized. Ensure "
                                    "that you have run the initializer operation for this iterator before "
                                    "getting the next element.")
                self._begin(*self._one_shot_source())
            try:
                element = next(self.elements)
            except StopIteration:
                raise errors.OutOfRangeError(None, None, "End of sequence") from None
            self.position += 1
            return element

    def restore(self, position: int, fallback=None) -> None:
        """The pass begun again and moved on by ``position`` elements: where a saved iterator was
        (the same elements next where the pipeline is deterministic: seeded shuffles included).
        The pass is of the dataset the iterator was last started on, else ``fallback``'s."""
        source = self.source or fallback
        if source is None and not self.one_shot:
            raise errors.FailedPreconditionError(None, None, f"Restoring iterator '{self.name}': run its "
                                                             "initializer first (distflow restores a pass of the "
                                                             "dataset it was initialized with, whose inputs are "
                                                             "fed or computed)")
        self.start(*(source or self._one_shot_source()))
        with self.lock:
            for _ in range(position):
                try:
                    next(self.elements)
                except StopIteration:
                    break
                self.position += 1

class _OneShot:
    """A dataset with its inputs' values fixed when the one-shot iterator was made."""

    def __init__(self, dataset, values, error=None):
        self.dataset = dataset
        self.values = values
        self.error = error  # (an OpError computing the values: the iterator's reads fail with it)


def _handle_dtype(op):
    return dtypes.string._as_ref


@register_op("IteratorV2", shape=lambda op: TensorShape([2]), dtype=_handle_dtype, stateful=True)
def _iterator_kernel(ctx, *, shared_name, container, output_types, output_shapes, one_shot):
    name = shared_name or ctx.op_name
    resource = ctx.resource_mgr.lookup_or_create(container, name,
                                                 lambda: _IteratorResource(name, output_types, one_shot))
    if not isinstance(resource, _IteratorResource):
        raise errors.InvalidArgumentError(None, None, f"Resource '{name}' on {ctx.device.name} is a "
                                                      f"{type(resource).__name__}, not an iterator")
    return resource


@register_op("MakeIterator", shape=lambda op: [], stateful=True, ref_inputs=(0,))
def _make_iterator_kernel(xp, iterator, *values, dataset):
    dataset = lookup(dataset)
    dataset._check(list(values))  # (an argument wrong whatever the elements fails the initializer, as in TF)
    iterator.start(dataset, list(values))


@register_op("IteratorGetNext", shape=lambda op: list(op._attr("output_shapes")),
             dtype=lambda op: list(op._attr("output_types")), stateful=True, list_output=True, ref_inputs=(0,),
             may_alias=True)  # an element may be a row of the data the dataset holds
def _get_next_kernel(xp, iterator, *, output_types, output_shapes):
    element = iterator.get_next()
    for i, (value, shape) in enumerate(zip(element, output_shapes)):
        if not shape.is_compatible_with(TensorShape(getattr(value, "shape", ()))):
            raise errors.InvalidArgumentError(None, None, f"Iterator element {i} has shape "
                                                          f"{list(value.shape)}, expected {shape}")
    return element


@register_op("IteratorToStringHandle", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.string,
             stateful=True, ref_inputs=(0,))
def _to_string_handle_kernel(ctx, iterator):
    return np.array(f"{ctx.device.name};{iterator.name}".encode(), dtype=object)


@register_op("IteratorFromStringHandleV2", shape=lambda op: TensorShape([2]), dtype=_handle_dtype, stateful=True)
def _from_string_handle_kernel(ctx, handle, *, output_types, output_shapes, container):
    text = handle.item() if hasattr(handle, "item") else handle
    text = text.decode() if isinstance(text, bytes) else str(text)
    device, _, name = text.partition(";")
    resource = ctx.resource_mgr.lookup(container, name)
    if not isinstance(resource, _IteratorResource) or device != ctx.device.name:
        raise errors.InvalidArgumentError(None, None, f"'{text}' is not an iterator handle of {ctx.device.name}")
    if resource.output_types != list(output_types):
        raise errors.InvalidArgumentError(None, None, f"Iterator '{name}' has types "
                                                      f"{[t.name for t in resource.output_types]}, expected "
                                                      f"{[t.name for t in output_types]}")
    return resource


@register_op("SerializeIterator", shape=lambda op: TensorShape([1]), dtype=lambda op: dtypes.int64, stateful=True,
             ref_inputs=(0,))
def _serialize_iterator_kernel(xp, iterator):
    """An iterator's state as a checkpoint holds it: the elements its pass has given."""
    with iterator.lock:
        return np.array([iterator.position], np.int64)


@register_op("DeserializeIterator", shape=lambda op: [], stateful=True, ref_inputs=(0,))
def _deserialize_iterator_kernel(xp, iterator, state, *, dataset=""):
    state = np.asarray(state).reshape(-1)
    if state.size != 1 or state[0] < 0:
        raise errors.InvalidArgumentError(None, None, f"Iterator '{iterator.name}': a saved state is one position, "
                                                      f"got {state.tolist()}")
    fallback = lookup(dataset) if dataset else None  # (an initializer's dataset of constant inputs)
    iterator.restore(int(state[0]), None if fallback is None else (fallback.dataset, fallback.values))


for _op_type in ("IteratorV2", "MakeIterator", "IteratorGetNext", "IteratorToStringHandle",
                 "IteratorFromStringHandleV2", "SerializeIterator", "DeserializeIterator"):
    not_differentiable(_op_type)


def _stateless_value(tensor):
    """The value of ``tensor`` where it is the same in every step: a constant, or computed
    only from constants by ops without state (``v[:6]``, ``tf.range(5) * 2``), which a
    one-shot iterator captures as TensorFlow's does (evaluated once, here); else None."""
    value = constant_value(tensor)
    if value is not None:
        return value
    seen, pending = set(), [tensor.op]
    while pending:
        op = pending.pop()
        if op in seen:
            continue
        seen.add(op)
        try:
            reg = get_registration(op.type)
        except KeyError:
            return None
        if op.type in ("Placeholder", "PlaceholderWithDefault") or reg.stateful or reg.blocking or reg.ref_inputs:
            return None
        pending.extend(t.op for t in op.inputs)
        pending.extend(op.control_inputs)
    from ..runtime.session import Session  # noqa: PLC0415 - a session only where a value must be computed

    with Session(graph=tensor.graph) as sess:
        return sess.run(tensor)


def _fixed(dataset):
    """``dataset`` with the values of its inputs fixed now (a _OneShot; its error the one computing
    them raised), and the first input that is computed or fed each step (then None values)."""
    values, error = [], None
    for t in dataset._all_inputs():
        try:
            value = _stateless_value(t)
        except errors.OpError as e:  # (computing it fails: so will reading the iterator)
            value, error = np.zeros(0), e
        if value is None:
            return None, t
        values.append(value)
    return _OneShot(dataset, values, error), None


class Iterator:
    """``tf.data.Iterator``: reads the elements of a dataset, one ``get_next()`` per step."""

    def __init__(self, handle: ops.Tensor, initializer, spec: structure.Spec):
        self._handle = handle
        self._initializer = initializer
        self._spec = spec
        self._string_handle = None
        self._dataset = None

    @staticmethod
    def _create(spec, shared_name=None, one_shot_token="", name="Iterator"):
        attrs = {"shared_name": shared_name or "", "container": "", "output_types": spec.flat_types(),
                 "output_shapes": spec.flat_shapes(), "one_shot": one_shot_token}
        return make_op("IteratorV2", [], attrs, name).outputs[0]

    @staticmethod
    def _one_shot(dataset) -> "Iterator":
        holder, fed = _fixed(dataset)
        if fed is not None:
            raise ValueError("Failed to create a one-shot iterator for a dataset. `make_one_shot_iterator()` "
                             f"needs every value the dataset reads to be a constant, but '{fed.name}' is "
                             "computed or fed; use `make_initializable_iterator()` instead.")
        token = register(holder)
        _keep(ops.get_default_graph(), holder)
        handle = Iterator._create(dataset.element_spec, one_shot_token=token, name="OneShotIterator")
        return Iterator(handle, None, dataset.element_spec)

    @staticmethod
    def _initializable(dataset, shared_name=None) -> "Iterator":
        handle = Iterator._create(dataset.element_spec, shared_name)
        iterator = Iterator(handle, None, dataset.element_spec)
        iterator._initializer = iterator.make_initializer(dataset)
        iterator._dataset = dataset  # (what a restore before the initializer has run starts)
        return iterator

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None) -> "Iterator":
        """An iterator of that structure, started on a dataset by ``make_initializer(dataset)``."""
        spec = structure.Spec.from_types(output_types, output_shapes, output_classes)
        return Iterator(Iterator._create(spec, shared_name), None, spec)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None, output_classes=None) -> "Iterator":
        """An iterator chosen at run time by feeding another iterator's ``string_handle()``."""
        spec = structure.Spec.from_types(output_types, output_shapes, output_classes)
        handle = ops.convert_to_tensor(string_handle, dtype=dtypes.string)
        op = make_op("IteratorFromStringHandleV2", [handle],
                     {"output_types": spec.flat_types(), "output_shapes": spec.flat_shapes(), "container": ""},
                     "IteratorFromStringHandle")
        return Iterator(op.outputs[0], None, spec)

    def make_initializer(self, dataset, name=None) -> ops.Operation:
        """An op that starts a new pass of this iterator over ``dataset``."""
        if not hasattr(dataset, "element_spec") or not hasattr(dataset, "_all_inputs"):  # (a tf.data.Dataset)
            raise TypeError(f"make_initializer expects a Dataset, got {dataset!r}")
        if dataset.element_spec.flat_types() != self._spec.flat_types():
            raise TypeError(f"Expected output types {self._spec.types()} but got dataset with output types "
                            f"{dataset.output_types}.")
        if not dataset.element_spec.is_compatible_with(self._spec):
            raise TypeError(f"Expected output shapes compatible with {self._spec.shapes()} but got dataset "
                            f"with output shapes {dataset.output_shapes}.")
        token = register(dataset)
        _keep(self._handle.graph, dataset)
        with ops.colocate_with(self._handle.op):
            return make_op("MakeIterator", [self._handle] + dataset._all_inputs(), {"dataset": token},
                           name or "MakeIterator")

    @property
    def initializer(self) -> ops.Operation:
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def get_next(self, name=None):
        """The next element, as a structure of tensors; OutOfRangeError when the data end."""
        with ops.colocate_with(self._handle.op):
            op = make_op("IteratorGetNext", [self._handle],
                         {"output_types": self._spec.flat_types(), "output_shapes": self._spec.flat_shapes()},
                         name or "IteratorGetNext")
        return self._spec.pack(list(op.outputs))

    def string_handle(self, name=None) -> ops.Tensor:
        """A string naming this iterator, to feed to an iterator made by ``from_string_handle``
        (made once; a new op each time a name is given)."""
        if self._string_handle is None or name is not None:
            with ops.colocate_with(self._handle.op):
                handle = make_op("IteratorToStringHandle", [self._handle], None,
                                 name or "IteratorToStringHandle").outputs[0]
            if name is not None:
                return handle
            self._string_handle = handle
        return self._string_handle

    output_types = property(lambda self: self._spec.types())
    output_shapes = property(lambda self: self._spec.shapes())
    output_classes = property(lambda self: self._spec.classes())
    element_spec = property(lambda self: self._spec)


def _keep(graph, obj) -> None:
    """The graph holds what its ops name by token, so it lives as long as the graph."""
    refs = getattr(graph, "_dataset_refs", None)
    if refs is None:
        refs = graph._dataset_refs = []
    refs.append(obj)


class _IteratorSaveable:
    """An iterator as a Saver saves it (``make_saveable_from_iterator``): its position in the
    pass, restored by running the pass again to there."""

    def __init__(self, iterator: Iterator):
        self._iterator = iterator
        self.dtype = dtypes.int64
        self.device = iterator._handle.device
        self._fallback = ""
        if iterator._dataset is not None:  # (its inputs constant: a restore may start it before the initializer)
            holder, fed = _fixed(iterator._dataset)
            if fed is None and holder.error is None:
                self._fallback = register(holder)
                _keep(iterator._handle.graph, holder)

    def saveable_parts(self) -> dict:
        return {self._iterator._handle.op.name: self}

    def value(self):
        with ops.colocate_with(self._iterator._handle.op):
            return make_op("SerializeIterator", [self._iterator._handle], None, "SerializeIterator").outputs[0]

    def restore_ops(self, value) -> list:
        with ops.colocate_with(self._iterator._handle.op):
            return [make_op("DeserializeIterator", [self._iterator._handle, value], {"dataset": self._fallback},
                            "DeserializeIterator")]


def make_saveable_from_iterator(iterator: Iterator):
    """``tf.data.experimental.make_saveable_from_iterator``: an object a Saver saves (add it to
    ``tf.GraphKeys.SAVEABLE_OBJECTS``, or give it in ``var_list``) so that a checkpoint holds
    where the input pipeline is, and a restore goes on from there. distflow saves the pass's
    position and restores by running the pass again up to it (after the iterator's
    initializer): the same elements follow where the pipeline is deterministic (a shuffle
    without a seed draws a new order)."""
    return _IteratorSaveable(iterator)


def make_one_shot_iterator(dataset) -> Iterator:
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None) -> Iterator:
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


# ---------------------------------------------------------------------------
# Optional values: an element, or none at the end of the data


def _absent(dtype, shape: TensorShape):
    """A stand-in for a component an Optional without a value carries (never read: its
    ``get_value`` fails first): zeros, unknown dimensions 0."""
    dims = [d if d is not None else 0 for d in shape.as_list()] if shape.ndims is not None else [0]
    if dtype == dtypes.string:
        return np.full(dims, b"", dtype=object)
    return np.zeros(dims, dtype=dtype.as_numpy_dtype)


@register_op("IteratorGetNextAsOptional", shape=lambda op: [TensorShape([])] + list(op._attr("output_shapes")),
             dtype=lambda op: [dtypes.bool] + list(op._attr("output_types")), stateful=True, list_output=True,
             ref_inputs=(0,), may_alias=True)
def _get_next_as_optional_kernel(xp, iterator, *, output_types, output_shapes):
    """(whether there was an element, its components): at the end of the data, False and
    stand-ins, not an OutOfRangeError."""
    try:
        element = _get_next_kernel(xp, iterator, output_types=output_types, output_shapes=output_shapes)
    except errors.OutOfRangeError:
        return [np.array(False)] + [_absent(t, s) for t, s in zip(output_types, output_shapes)]
    return [np.array(True)] + list(element)


not_differentiable("IteratorGetNextAsOptional")


class Optional:
    """``tf.data.experimental.Optional``: a value of a structure, or none. ``has_value()`` is a
    bool tensor; ``get_value()`` the value's tensors, which fail the step (an
    InvalidArgumentError) where there is none."""

    def __init__(self, has_value, components, spec):
        self._has_value, self._components, self._spec = has_value, list(components), spec

    @staticmethod
    def from_value(value) -> "Optional":
        flat, spec = structure.to_tensors(value)
        from ..ops import array_ops  # noqa: PLC0415

        return Optional(array_ops.constant(True), flat, spec)

    @staticmethod
    def none_from_structure(value_structure) -> "Optional":
        """An Optional without a value, of the structure ``value_structure`` (an element spec)."""
        from ..ops import array_ops  # noqa: PLC0415

        flat = [array_ops.constant(_absent(t, s)) for t, s in zip(value_structure.flat_types(),
                                                                    value_structure.flat_shapes())]
        return Optional(array_ops.constant(False), flat, value_structure)

    def has_value(self, name=None):
        from ..ops import array_ops  # noqa: PLC0415

        return array_ops.identity(self._has_value, name=name or "has_value")

    def get_value(self, name=None):
        from ..ops import array_ops  # noqa: PLC0415
        from ..ops.check_ops import Assert  # noqa: PLC0415

        check = Assert(self._has_value, ["The optional does not have a value"], name="optional_has_value")
        with ops.control_dependencies([check]):
            return self._spec.pack([array_ops.identity(c) for c in self._components])

    @property
    def value_structure(self):
        return self._spec

    element_spec = value_structure


def get_next_as_optional(iterator) -> Optional:
    """The iterator's next element as an Optional: without a value at the end of the data,
    where ``get_next`` would raise OutOfRangeError."""
    spec = iterator.element_spec
    with ops.colocate_with(iterator._handle.op):
        op = make_op("IteratorGetNextAsOptional", [iterator._handle],
                     {"output_types": spec.flat_types(), "output_shapes": spec.flat_shapes()},
                     "IteratorGetNextAsOptional")
    return Optional(op.outputs[0], op.outputs[1:], spec)


# ---------------------------------------------------------------------------
# Writing a dataset's elements to a file


@register_op("DatasetToTFRecord", shape=lambda op: [], stateful=True)
def _to_tfrecord_kernel(xp, filename, compression_type, *values, dataset):
    """Every element of the dataset (a scalar string) as a record of ``filename``, written to a
    file beside it and renamed over it once whole: a pass that fails leaves no partial file."""
    import os  # noqa: PLC0415

    from ..platform.tf_record import TFRecordWriter  # noqa: PLC0415

    dataset = lookup(dataset)
    dataset._check(list(values))
    path, kind = (_text(v) for v in (filename, compression_type))
    partial = f"{path}.tmp-{os.getpid()}-{threading.get_ident()}"
    state = RunState()
    elements = dataset._iterate(list(values), state)
    try:
        with TFRecordWriter(partial, kind) as writer:
            for (record,) in elements:
                record = record.item() if isinstance(record, np.ndarray) else record
                writer.write(record if isinstance(record, bytes) else str(record).encode())
        os.replace(partial, path)
    except OSError as e:
        raise errors.UnknownError(None, None, f"TFRecordWriter: cannot write {path}: {e}") from None
    finally:
        elements.close()
        state.close()
        if os.path.exists(partial):
            os.remove(partial)


not_differentiable("DatasetToTFRecord")


def _text(value) -> str:
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.decode() if isinstance(value, bytes) else str(value)


class TFRecordWriter:
    """``tf.data.experimental.TFRecordWriter(filename, compression_type)``: ``write(dataset)``
    is the op that writes the dataset's elements, scalar strings, as the records of
    ``filename`` ('', 'ZLIB' or 'GZIP' compressed)."""

    def __init__(self, filename, compression_type=None):
        from ..ops import array_ops  # noqa: PLC0415

        self._filename = ops.convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        self._compression_type = array_ops.constant(compression_type or "", dtype=dtypes.string)

    def write(self, dataset) -> ops.Operation:
        spec = dataset.element_spec
        if spec.flat_types() != [dtypes.string] or not spec.flat_shapes()[0].is_compatible_with(TensorShape([])):
            raise TypeError(f"`dataset` must produce scalar `DT_STRING` tensors whereas it produces shape "
                            f"{dataset.output_shapes} and types {dataset.output_types}")
        token = register(dataset)
        _keep(self._filename.graph, dataset)
        return make_op("DatasetToTFRecord", [self._filename, self._compression_type] + dataset._all_inputs(),
                       {"dataset": token}, "DatasetToTFRecord")
