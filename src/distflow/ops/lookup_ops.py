"""Lookup tables: ``tf.lookup`` (TF 1.14's names) and ``tf.contrib.lookup`` (TF 1.x's).

A table is made by a ``HashTableV2`` op and filled by its initializer op
(``InitializeTableV2`` from two tensors, ``InitializeTableFromTextFileV2`` from a text
file), which goes into the ``TABLE_INITIALIZERS`` collection that ``tf.tables_initializer()``
runs. As TensorFlow's, a table without a ``shared_name`` belongs to its op's kernel: a
session of its own has its own, and a server keeps one per op name (for the sessions of its
clients, as their variables); with a ``shared_name`` it is a resource of its device, shared
by that name. ``LookupTableFindV2`` maps each key to its value, or to the default value;
``LookupTableSizeV2`` counts the entries. A lookup before the table is initialized is a
FailedPreconditionError, as TensorFlow's; initializing it again replaces its entries with
the same ones (TensorFlow 2.x leaves it as it is; TF 1.x refused), or with a new program's.

A lookup in a function that ``Dataset.map`` traces (TF 1.x's NMT input pipeline) uses a copy
of the table in the function's graph, made from the same initializer (constant keys and
values, or the file), which that graph's session runs before its first call.

``MutableHashTable`` (``MutableHashTableV2``, or ``...OfTensorsV2`` for vector values) and
``MutableDenseHashTable`` start empty and change as steps run ``LookupTableInsertV2`` and
``LookupTableRemoveV2``; a Saver saves their entries (``<name>-keys``, ``<name>-values``:
the SAVEABLE_OBJECTS collection) and restores them with ``LookupTableImportV2``. The dense
table's buckets are TensorFlow's implementation: here its export lists the entries only.

``StaticVocabularyTable`` (``IdTableWithHashBuckets``) sends keys missing from its table to
``num_oov_buckets`` buckets after the vocabulary, hashed as TensorFlow hashes them
(Fingerprint64 of the key, an integer key as its decimal string), so the ids match TF's.
"""

from __future__ import annotations

import collections
import threading
import weakref

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.ops import GraphKeys
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from . import hash_ops, math_ops, string_ops
from .control_flow_ops import no_op
from .data_flow_ops import handle_dtype, no_outputs
from .op_util import constant_value, make_op, make_tensor
from .sparse_ops import SparseTensor


def _not_initialized(name: str) -> str:
    return f"Table not initialized: '{name}' (run its initializer, or tf.tables_initializer())"


class TextFileIndex:
    """Where a key or a value comes from in a line of a text file."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class _Table:
    """A table's entries (a resource of its device)."""

    def __init__(self, name: str, key_dtype: dtypes.DType, value_dtype: dtypes.DType):
        self.name, self.key_dtype, self.value_dtype = name, key_dtype, value_dtype
        self.entries: dict | None = None  # (None until initialized)

    def initialize(self, keys: np.ndarray, values: np.ndarray) -> None:
        if keys.shape != values.shape:
            raise errors.InvalidArgumentError(None, None, f"Table '{self.name}': keys and values must have the same "
                                              f"shape, got {list(keys.shape)} and {list(values.shape)}")
        # (one assignment of a whole dict: a lookup meanwhile sees the old entries or the new)
        self.entries = dict(zip(keys.reshape(-1).tolist(), values.reshape(-1).tolist()))

    def find(self, keys: np.ndarray, default) -> np.ndarray:
        entries = self.entries
        if entries is None:
            raise errors.FailedPreconditionError(None, None, _not_initialized(self.name))
        default = np.asarray(default).item()
        out = np.array([entries.get(k, default) for k in keys.reshape(-1).tolist()],
                       dtype=self.value_dtype.as_numpy_dtype)
        return out.reshape(keys.shape)


@register_op("HashTableV2", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
def _hash_table_kernel(ctx, *, key_dtype, value_dtype, container="", shared_name="", use_node_name_sharing=False):
    name = shared_name or ctx.op_name
    key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
    if shared_name:
        table = ctx.resource_mgr.lookup_or_create(container, name, lambda: _Table(name, key_dtype, value_dtype))
    else:  # (the kernel's own: ctx.state lives as long as the session's, or the server's, kernels)
        table = ctx.state.get("table") or ctx.state.setdefault("table", _Table(name, key_dtype, value_dtype))
    if not isinstance(table, _Table) or (table.key_dtype, table.value_dtype) != (key_dtype, value_dtype):
        raise errors.InvalidArgumentError(None, None, f"Resource '{name}' on {ctx.device.name} is not a table of "
                                          f"{key_dtype.name} keys and {value_dtype.name} values")
    return table


@register_op("InitializeTableV2", shape=no_outputs, stateful=True, ref_inputs=(0,))
def _initialize_table_kernel(xp, table, keys, values):
    table.initialize(np.asarray(keys, dtype=table.key_dtype.as_numpy_dtype),
                     np.asarray(values, dtype=table.value_dtype.as_numpy_dtype))


@register_op("InitializeTableFromTextFileV2", shape=no_outputs, stateful=True, ref_inputs=(0,))
def _initialize_table_from_file_kernel(xp, table, filename, *, key_index, value_index, vocab_size=-1, delimiter="\t"):
    from ..platform import gfile  # noqa: PLC0415

    path = filename.item() if isinstance(filename, np.ndarray) else filename
    path = path.decode() if isinstance(path, bytes) else str(path)
    try:
        with gfile.GFile(path, "rb") as f:
            lines = [line.rstrip(b"\r\n") for line in f]
    except (OSError, errors.OpError) as e:
        raise errors.NotFoundError(None, None, f"Table '{table.name}': cannot read {path}: {e}") from None
    if vocab_size is not None and vocab_size >= 0:
        if len(lines) < vocab_size:
            raise errors.InvalidArgumentError(None, None, f"Invalid vocab_size in {path}: expected {vocab_size} "
                                              f"lines, the file has {len(lines)}")
        lines = lines[:vocab_size]
    sep = delimiter.encode() if isinstance(delimiter, str) else delimiter
    keys = [_column(line, i, key_index, sep, table.key_dtype, path) for i, line in enumerate(lines)]
    values = [_column(line, i, value_index, sep, table.value_dtype, path) for i, line in enumerate(lines)]
    table.initialize(np.array(keys, dtype=table.key_dtype.as_numpy_dtype),
                     np.array(values, dtype=table.value_dtype.as_numpy_dtype))


def _column(line: bytes, number: int, index: int, sep: bytes, dtype: dtypes.DType, path: str):
    """A key or a value of one line of a table's text file."""
    if index == TextFileIndex.LINE_NUMBER:
        return number
    field = line if index == TextFileIndex.WHOLE_LINE else None
    if field is None:
        fields = line.split(sep)
        if index >= len(fields):
            raise errors.InvalidArgumentError(None, None, f"Invalid number of columns in {path} line {number} "
                                              f"({line!r}): expected more than {index}, got {len(fields)}")
        field = fields[index]
    if dtype == dtypes.string:
        return field
    try:
        return int(field) if dtype.is_integer else float(field)
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"Field {field!r} in {path} line {number} is not a "
                                          f"{dtype.name}") from None


class _MutableTable(_Table):
    """A table that steps change (``MutableHashTable``): empty, not uninitialized, at first;
    each value of ``value_shape``; with an ``empty_key`` (``MutableDenseHashTable``) that key
    may be neither inserted nor looked up, as TF's dense table refuses it."""

    def __init__(self, name: str, key_dtype, value_dtype, value_shape: tuple, empty_key=None):
        super().__init__(name, key_dtype, value_dtype)
        self.entries = {}
        self.value_shape = tuple(value_shape)
        # (a dense table's keys have its empty key's shape: a vector key is held as a tuple)
        self.key_shape = np.shape(empty_key) if empty_key is not None else ()
        self.empty_key = None
        if empty_key is not None:
            self.empty_key = self._key_list(np.asarray(empty_key)[None])[0]
        self.lock = threading.Lock()

    def _key_list(self, keys: np.ndarray) -> list:
        keys = np.asarray(keys, dtype=self.key_dtype.as_numpy_dtype)
        if self.empty_key is not None and (keys.ndim != len(self.key_shape) + 1
                                           or keys.shape[1:] != self.key_shape):
            raise errors.InvalidArgumentError(None, None, f"Table '{self.name}': Expected key shape [?] + "
                                              f"{list(self.key_shape)} (a batch of keys), got {list(keys.shape)}")
        if not self.key_shape:
            return keys.reshape(-1).tolist()
        return [tuple(row) for row in keys.reshape((-1,) + self.key_shape).tolist()]

    def _batch_shape(self, keys: np.ndarray) -> tuple:
        return np.shape(keys)[:np.ndim(keys) - len(self.key_shape)]

    def _checked_keys(self, keys: np.ndarray) -> list:
        flat = self._key_list(keys)
        if self.empty_key is not None and self.empty_key in flat:
            raise errors.InvalidArgumentError(None, None, f"Table '{self.name}': using the empty_key "
                                              f"({self.empty_key!r}) as a table key is not allowed")
        return flat

    def _rows(self, keys: np.ndarray, values: np.ndarray, what: str):
        """(keys, their values: one of value_shape each) of an insert or an import."""
        flat = self._checked_keys(keys)
        values = np.asarray(values, dtype=self.value_dtype.as_numpy_dtype)
        want = self._batch_shape(keys) + self.value_shape
        if values.shape != want:
            raise errors.InvalidArgumentError(None, None, f"Table '{self.name}' ({what}): Expected shape {list(want)} "
                                              f"for the values of keys of shape {list(np.shape(keys))}, got "
                                              f"{list(values.shape)}")
        rows = values.reshape((len(flat),) + self.value_shape)
        return flat, [r.copy() for r in rows] if self.value_shape else rows.tolist()

    def insert(self, keys, values) -> None:
        flat, rows = self._rows(keys, values, "insert")
        with self.lock:
            entries = dict(self.entries)  # (a new dict: a lookup meanwhile sees the old entries or the new)
            entries.update(zip(flat, rows))
            self.entries = entries

    def import_(self, keys, values) -> None:
        """Every entry replaced by these (a restore from a checkpoint). A dense table's
        empty buckets, which TensorFlow's export lists with the empty key, are left out."""
        if self.empty_key is not None:
            keep = np.array([k != self.empty_key for k in self._key_list(keys)], dtype=bool)
            keys, values = np.asarray(keys)[keep], np.asarray(values)[keep]
        flat, rows = self._rows(keys, values, "import")
        self.entries = dict(zip(flat, rows))

    def export(self):
        entries = self.entries
        keys = np.array(list(entries), dtype=self.key_dtype.as_numpy_dtype).reshape((len(entries),) + self.key_shape)
        values = np.array(list(entries.values()), dtype=self.value_dtype.as_numpy_dtype)
        return keys, values.reshape((len(entries),) + self.value_shape)

    def remove(self, keys) -> None:
        flat = self._checked_keys(keys)
        with self.lock:
            entries = dict(self.entries)
            for k in flat:
                entries.pop(k, None)
            self.entries = entries

    def find(self, keys: np.ndarray, default) -> np.ndarray:
        flat = self._checked_keys(keys)
        default = np.broadcast_to(np.asarray(default, dtype=self.value_dtype.as_numpy_dtype), self.value_shape)
        entries = self.entries
        out = np.empty((len(flat),) + self.value_shape, dtype=self.value_dtype.as_numpy_dtype)
        for i, k in enumerate(flat):
            out[i] = entries.get(k, default)
        return out.reshape(self._batch_shape(keys) + self.value_shape)


def _mutable_table(ctx, key_dtype, value_dtype, value_shape, shared_name, use_node_name_sharing, container,
                   empty_key=None):
    name = shared_name or ctx.op_name
    key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
    shape = tuple(value_shape.as_list() if hasattr(value_shape, "as_list") else value_shape or ())

    def make():
        return _MutableTable(name, key_dtype, value_dtype, shape, empty_key)

    if shared_name or use_node_name_sharing:  # (a resource of the device: it outlives a session's kernels)
        table = ctx.resource_mgr.lookup_or_create(container, name, make)
    else:
        table = ctx.state.get("table") or ctx.state.setdefault("table", make())
    if not isinstance(table, _MutableTable) or (table.key_dtype, table.value_dtype, table.value_shape) != (
            key_dtype, value_dtype, shape) or (empty_key is not None and table.key_shape != np.shape(empty_key)):
        raise errors.InvalidArgumentError(None, None, f"Resource '{name}' on {ctx.device.name} is not a mutable "
                                          f"table of {key_dtype.name} keys and {value_dtype.name} values of shape "
                                          f"{list(shape)}")
    return table


@register_op("MutableHashTableV2", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
def _mutable_hash_table_kernel(ctx, *, key_dtype, value_dtype, container="", shared_name="",
                               use_node_name_sharing=False):
    return _mutable_table(ctx, key_dtype, value_dtype, (), shared_name, use_node_name_sharing, container)


@register_op("MutableHashTableOfTensorsV2", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
def _mutable_hash_table_of_tensors_kernel(ctx, *, key_dtype, value_dtype, value_shape, container="", shared_name="",
                                          use_node_name_sharing=False):
    return _mutable_table(ctx, key_dtype, value_dtype, value_shape, shared_name, use_node_name_sharing, container)


@register_op("MutableDenseHashTableV2", shape=lambda op: TensorShape([2]), dtype=handle_dtype, stateful=True)
def _mutable_dense_hash_table_kernel(ctx, empty_key, *, value_dtype, value_shape=(), container="", shared_name="",
                                     use_node_name_sharing=False, initial_num_buckets=131072, max_load_factor=0.8):
    empty_key = np.asarray(empty_key)
    key_dtype = dtypes.string if empty_key.dtype.kind in "OSU" else dtypes.as_dtype(empty_key.dtype)
    return _mutable_table(ctx, key_dtype, value_dtype, value_shape, shared_name, use_node_name_sharing, container,
                          empty_key=empty_key)


@register_op("LookupTableInsertV2", shape=no_outputs, stateful=True, ref_inputs=(0,))
def _insert_kernel(xp, table, keys, values):
    _mutable(table, "insert into").insert(np.asarray(keys), np.asarray(values))


@register_op("LookupTableRemoveV2", shape=no_outputs, stateful=True, ref_inputs=(0,))
def _remove_kernel(xp, table, keys):
    _mutable(table, "remove from").remove(np.asarray(keys))


@register_op("LookupTableImportV2", shape=no_outputs, stateful=True, ref_inputs=(0,))
def _import_kernel(xp, table, keys, values):
    _mutable(table, "import into").import_(np.asarray(keys), np.asarray(values))


def _mutable(table, what: str) -> _MutableTable:
    if not isinstance(table, _MutableTable):
        raise errors.InvalidArgumentError(None, None, f"Cannot {what} table '{table.name}': it is not a mutable table "
                                          "(a HashTable is filled once, by its initializer)")
    return table


not_differentiable("LookupTableInsertV2")
not_differentiable("LookupTableRemoveV2")
not_differentiable("LookupTableImportV2")


@register_op("LookupTableFindV2", shape=lambda op: _find_shape(op),
             dtype=lambda op: op.inputs[2].dtype.base_dtype, ref_inputs=(0,))
def _lookup_kernel(xp, table, keys, default_value):
    return table.find(np.asarray(keys), default_value)


@register_op("LookupTableSizeV2", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.int64, ref_inputs=(0,))
def _size_kernel(xp, table):
    if table.entries is None:
        raise errors.FailedPreconditionError(None, None, _not_initialized(table.name))
    return np.int64(len(table.entries))


def _key_shape(table_op) -> TensorShape:
    """The shape of one key of a table: a dense table's empty key's, else a scalar's."""
    return table_op.inputs[0].shape if table_op.type == "MutableDenseHashTableV2" else TensorShape([])


def _export_shapes(op):
    table = op.inputs[0].op
    value_shape = table._attr("value_shape") if "value_shape" in table._attrs else []
    return [TensorShape([None]).concatenate(_key_shape(table)),
            TensorShape([None]).concatenate(TensorShape(value_shape))]


def _find_shape(op):
    keys, key_shape = op.inputs[1].shape, _key_shape(op.inputs[0].op)
    if keys.ndims is None or key_shape.ndims is None:
        return TensorShape(None)
    return keys[:keys.ndims - key_shape.ndims].concatenate(op.inputs[2].shape)


@register_op("LookupTableExportV2", list_output=True, shape=_export_shapes,
             dtype=lambda op: [op._attr("Tkeys"), op._attr("Tvalues")], ref_inputs=(0,))
def _export_kernel(xp, table, *, Tkeys, Tvalues):  # noqa: N803 - TF's attr names
    if table.entries is None:
        raise errors.FailedPreconditionError(None, None, _not_initialized(table.name))
    if isinstance(table, _MutableTable):
        return table.export()
    keys, values = list(table.entries), list(table.entries.values())
    return (np.array(keys, dtype=Tkeys.as_numpy_dtype).reshape(-1),
            np.array(values, dtype=Tvalues.as_numpy_dtype).reshape(-1))


not_differentiable("LookupTableExportV2")


# -- initializers --------------------------------------------------------------------------


class _KeysToValues:
    """The key and value dtypes that tables and their initializers both have."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype, self._value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype


class TableInitializerBase(_KeysToValues):
    """What fills a table: ``initialize(table) -> op``."""


class KeyValueTensorInitializer(TableInitializerBase):
    """The entries from two tensors of keys and values, of one shape."""

    def in_graph(self, graph) -> "KeyValueTensorInitializer":
        """The same initializer in ``graph`` (a dataset function's), where its keys and values
        are constants."""
        keys, values = constant_value(self._keys), constant_value(self._values)
        if keys is None or values is None:
            raise ValueError("a table used in a dataset function needs keys and values known when the graph is "
                             "built (constants, a list, or a file)")
        with graph.as_default():
            return KeyValueTensorInitializer(keys, values, self.key_dtype, self.value_dtype, self._name)

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        with ops.name_scope(name, "key_value_init", []):
            self._keys = ops.convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = ops.convert_to_tensor(values, dtype=value_dtype, name="values")
        if not self._keys.shape.is_compatible_with(self._values.shape):
            raise ValueError(f"keys and values must have one shape, got {self._keys.shape} and {self._values.shape}")
        self._name = name or "key_value_init"
        super().__init__(self._keys.dtype.base_dtype, self._values.dtype.base_dtype)

    def initialize(self, table):
        _check_types(table, self._keys.dtype.base_dtype, self._values.dtype.base_dtype)
        with ops.name_scope(self._name, values=[table.resource_handle]), ops.colocate_with(table.resource_handle):
            init = make_op("InitializeTableV2", [table.resource_handle, self._keys, self._values], {}, "table_init")
        ops.add_to_collection(GraphKeys.TABLE_INITIALIZERS, init)
        return init


class TextFileInitializer(TableInitializerBase):
    """The entries from a text file, a line each: the key and the value a column of it
    (split by ``delimiter``), the whole line (``TextFileIndex.WHOLE_LINE``) or its number
    (``TextFileIndex.LINE_NUMBER``, from 0). ``vocab_size``: only the first lines."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None):
        key_dtype, value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        for what, index, dtype in (("key", key_index, key_dtype), ("value", value_index, value_dtype)):
            if index < TextFileIndex.WHOLE_LINE:
                raise ValueError(f"Invalid {what} index {index}.")
            if index == TextFileIndex.LINE_NUMBER and dtype != dtypes.int64:
                raise ValueError(f"Signature mismatch. {what.capitalize()}s must be dtype {dtypes.int64}, got "
                                 f"{dtype}.")
            if index == TextFileIndex.WHOLE_LINE and not (dtype.is_integer or dtype == dtypes.string):
                raise ValueError(f"Signature mismatch. {what.capitalize()}s must be integer or string, got {dtype}.")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"Invalid vocab_size {vocab_size}.")
        if isinstance(filename, (str, bytes)) and not filename:
            raise ValueError("Filename required for text file initializer.")
        if isinstance(filename, ops.Tensor) and (filename.dtype.base_dtype != dtypes.string
                                                 or filename.shape.ndims not in (None, 0)):
            raise ValueError(f"The filename of a text file initializer must be a string scalar, got {filename}")
        self._filename = filename
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._name = name or "text_file_init"
        super().__init__(key_dtype, value_dtype)

    def in_graph(self, graph) -> "TextFileInitializer":
        return self  # (its file name is a Python value, made a tensor where the table is)

    def initialize(self, table):
        _check_types(table, self.key_dtype, self.value_dtype)
        with ops.name_scope(self._name, values=[table.resource_handle]), ops.colocate_with(table.resource_handle):
            filename = ops.convert_to_tensor(self._filename, dtypes.string, name="asset_filepath")
            init = make_op("InitializeTableFromTextFileV2", [table.resource_handle, filename],
                           {"key_index": int(self._key_index), "value_index": int(self._value_index),
                            "vocab_size": -1 if self._vocab_size is None else int(self._vocab_size),
                            "delimiter": self._delimiter}, "table_init")
        ops.add_to_collection(GraphKeys.TABLE_INITIALIZERS, init)
        if filename.op.type == "Const":  # (a file of the model: a SavedModel copies it, as TF's assets)
            ops.add_to_collection(GraphKeys.ASSET_FILEPATHS, filename)
        return init


class TextFileStringTableInitializer(TextFileInitializer):
    """Line numbers (int64) to string values (a column, the whole line by default): an id to
    string table, as TF's."""

    def __init__(self, filename, key_column_index=TextFileIndex.LINE_NUMBER,
                 value_column_index=TextFileIndex.WHOLE_LINE, vocab_size=None, delimiter="\t",
                 name="text_file_string_table_init"):
        super().__init__(filename, dtypes.int64, key_column_index, dtypes.string, value_column_index, vocab_size,
                         delimiter, name)


class TextFileIdTableInitializer(TextFileInitializer):
    """Keys (a column, the whole line by default; strings, or ``key_dtype``) to their line
    numbers (int64): a string to id table, as TF's."""

    def __init__(self, filename, key_column_index=TextFileIndex.WHOLE_LINE,
                 value_column_index=TextFileIndex.LINE_NUMBER, vocab_size=None, delimiter="\t",
                 name="text_file_id_table_init", key_dtype=dtypes.string):
        super().__init__(filename, key_dtype, key_column_index, dtypes.int64, value_column_index, vocab_size,
                         delimiter, name)


def _check_types(table, key_dtype, value_dtype):
    if (key_dtype, value_dtype) != (table.key_dtype, table.value_dtype):
        raise TypeError(f"Signature mismatch. Keys must be dtype {table.key_dtype}, got {key_dtype}. "
                        f"Values must be dtype {table.value_dtype}, got {value_dtype}.")


# -- tables --------------------------------------------------------------------------------


class LookupInterface(_KeysToValues):
    """What every table has: its dtypes, name, ``size()`` and ``lookup(keys)``."""

    def __init__(self, key_dtype, value_dtype, name):
        super().__init__(key_dtype, value_dtype)
        self._name = name

    @property
    def name(self):
        return self._name

    def _keys(self, keys):
        """``keys`` as a tensor of the table's key dtype (or a SparseTensor's values), with the
        SparseTensor to rebuild, if it was one."""
        sparse = keys if isinstance(keys, SparseTensor) else None
        values = sparse.values if sparse is not None else ops.convert_to_tensor(keys)
        if values.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: "
                            f"{values.dtype.base_dtype}")
        return values, sparse

    @staticmethod
    def _like(sparse, values):
        return SparseTensor(sparse.indices, values, sparse.dense_shape) if sparse is not None else values


class _ResourceTable(LookupInterface):
    """A table held by a resource op (``self._resource``): its handle, default value, size,
    export and lookup ops."""

    @property
    def resource_handle(self):
        return self._resource

    @property
    def default_value(self):
        return self._default_value

    def _size(self, name, scope: str):
        with ops.name_scope(name, f"{self._name}_{scope}", [self._resource]), ops.colocate_with(self._resource):
            return make_tensor("LookupTableSizeV2", [self._resource], {}, "LookupTableSizeV2")

    def _export(self, name, scope: str):
        with ops.name_scope(name, f"{self._name}_{scope}", [self._resource]), ops.colocate_with(self._resource):
            op = make_op("LookupTableExportV2", [self._resource], {"Tkeys": self._key_dtype,
                                                                 "Tvalues": self._value_dtype}, "LookupTableExportV2")
            return op.outputs[0], op.outputs[1]

    def _find(self, keys, name, scope: str):
        values, sparse = self._keys(keys)
        with ops.name_scope(name, f"{self._name}_{scope}", [self._resource, values]), \
                ops.colocate_with(self._resource):
            found = make_tensor("LookupTableFindV2", [self._resource, values, self._default_value], {},
                                "LookupTableFindV2")
        return self._like(sparse, found)


class StaticHashTable(_ResourceTable):
    """``tf.lookup.StaticHashTable(initializer, default_value)`` (``tf.contrib.lookup.HashTable``):
    keys to values, fixed once its initializer has run; a missing key gives ``default_value``."""

    def __init__(self, initializer, default_value, name=None, shared_name=None):
        self._resource = make_tensor("HashTableV2", [], {
            "key_dtype": initializer.key_dtype, "value_dtype": initializer.value_dtype, "container": "",
            "shared_name": shared_name or "", "use_node_name_sharing": False}, name or "hash_table")
        super().__init__(initializer.key_dtype, initializer.value_dtype, self._resource.op.name)
        self._default_value = ops.convert_to_tensor(default_value, dtype=self._value_dtype)
        if self._default_value.shape.ndims not in (None, 0):
            raise ValueError(f"default_value must be a scalar, got shape {self._default_value.shape}")
        self._init = initializer.initialize(self)
        self._initializer = initializer
        # (graph -> this table in it, for a dataset function's graph; not kept alive by it)
        self._copies: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @property
    def initializer(self):
        return self._init

    init = initializer

    def size(self, name=None):
        table = self._in(ops.get_default_graph())
        if table is not self:
            return table.size(name)
        return self._size(name, "Size")

    def export(self, name=None):
        """(keys, values): the table's entries, in the order they were inserted."""
        return self._export(name, "Export")

    def _in(self, graph) -> "StaticHashTable":
        """This table, or where a lookup is built in another graph (a function that
        ``Dataset.map`` traces), a copy of it there: its entries are fixed by its initializer,
        which that graph's session runs before the function's first call."""
        if graph is self._resource.graph:
            return self
        copy = self._copies.get(graph)
        if copy is None:
            default = constant_value(self._default_value)
            with graph.as_default():
                copy = self._copies[graph] = StaticHashTable(self._initializer.in_graph(graph), default,
                                                             name=self._name)
        return copy

    def lookup(self, keys, name=None):
        """Each key's value (``keys`` a tensor or a SparseTensor of the key dtype)."""
        table = self._in(ops.get_default_graph())
        if table is not self:
            return table.lookup(keys, name)
        return self._find(keys, name, "Lookup")


HashTable = StaticHashTable


class MutableHashTable(_ResourceTable):
    """``tf.contrib.lookup.MutableHashTable``: a table that ``insert`` and ``remove`` change
    as steps run; a missing key gives ``default_value``, whose shape is each value's (a
    vector's table holds vectors). With ``checkpoint`` (the default) a Saver saves and
    restores its entries as ``<name>-keys`` and ``<name>-values``, as TF's."""

    _OP = "MutableHashTableV2"

    def __init__(self, key_dtype, value_dtype, default_value, shared_name=None, name="MutableHashTable",
                 checkpoint=True):
        super().__init__(key_dtype, value_dtype, name)
        self._default_value = ops.convert_to_tensor(default_value, dtype=self._value_dtype)
        self._value_shape = self._default_value.shape
        if not self._value_shape.is_fully_defined() or self._value_shape.ndims > 1:
            raise ValueError(f"{type(self).__name__}: default_value must be a scalar or a vector of known length "
                             f"(the shape of each value), got shape {self._value_shape}")
        self._resource = self._make(shared_name, checkpoint, name)
        self._name = self._resource.op.name
        if checkpoint:
            ops.add_to_collection(GraphKeys.SAVEABLE_OBJECTS, _TableCheckpoint(self))

    def _make(self, shared_name, checkpoint, name):
        attrs = {"key_dtype": self._key_dtype, "value_dtype": self._value_dtype, "container": "",
                 "shared_name": shared_name or "", "use_node_name_sharing": bool(checkpoint and not shared_name)}
        op_type = self._OP
        if self._value_shape.ndims:
            op_type, attrs["value_shape"] = "MutableHashTableOfTensorsV2", self._value_shape
        return make_tensor(op_type, [], attrs, name)

    def size(self, name=None):
        return self._size(name, "Size")

    def lookup(self, keys, name=None):
        """Each key's value, or ``default_value`` (``keys`` a tensor or a SparseTensor)."""
        return self._find(keys, name, "lookup_table_find")

    def _change(self, op_type: str, scope: str, name, keys, values=None) -> ops.Operation:
        """The op ``op_type`` on the table with ``keys`` (and ``values``), checked for dtypes."""
        inputs = [self._resource, self._keys(keys)[0]]
        if values is not None:
            values = ops.convert_to_tensor(values)
            if values.dtype.base_dtype != self._value_dtype:
                raise TypeError(f"Dtype of argument `values` must be {self._value_dtype}, received: "
                                f"{values.dtype.base_dtype}")
            inputs.append(values)
        with ops.name_scope(name, f"{self._name}_{scope}", inputs), ops.colocate_with(self._resource):
            return make_op(op_type, inputs, {}, op_type)

    def insert(self, keys, values, name=None) -> ops.Operation:
        """The op that sets each key's value (a later insert of a key replaces its value)."""
        return self._change("LookupTableInsertV2", "lookup_table_insert", name, keys, values)

    def remove(self, keys, name=None) -> ops.Operation:
        """The op that removes the keys (those the table does not hold are ignored)."""
        return self._change("LookupTableRemoveV2", "lookup_table_remove", name, keys)

    def export(self, name=None):
        """(keys, values): the table's entries, in no particular order."""
        return self._export(name, "lookup_table_export_values")

    def import_(self, keys, values, name=None) -> ops.Operation:
        """The op that replaces every entry by these."""
        return self._change("LookupTableImportV2", "lookup_table_import", name, keys, values)


class MutableDenseHashTable(MutableHashTable):
    """``tf.contrib.lookup.MutableDenseHashTable``: a MutableHashTable whose ``empty_key``
    (a key value never used, which TF's open addressing marks free buckets with) may be
    neither inserted nor looked up; ``initial_num_buckets`` only sizes TF's buckets."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, initial_num_buckets=None, shared_name=None,
                 name="MutableDenseHashTable", checkpoint=True):
        self._empty_key = ops.convert_to_tensor(empty_key, dtype=dtypes.as_dtype(key_dtype), name="empty_key")
        if initial_num_buckets is not None and (initial_num_buckets < 4 or initial_num_buckets & (initial_num_buckets
                                                                                                  - 1)):
            raise ValueError(f"MutableDenseHashTable: Number of buckets must be at least 4 and a power of 2, got "
                             f"{initial_num_buckets}")
        self._num_buckets = initial_num_buckets
        super().__init__(key_dtype, value_dtype, default_value, shared_name, name, checkpoint)

    def _make(self, shared_name, checkpoint, name):
        attrs = {"value_dtype": self._value_dtype, "value_shape": self._value_shape, "container": "",
                 "shared_name": shared_name or "", "use_node_name_sharing": bool(checkpoint and not shared_name)}
        if self._num_buckets is not None:
            attrs["initial_num_buckets"] = int(self._num_buckets)
        return make_tensor("MutableDenseHashTableV2", [self._empty_key], attrs, name)


class _TableCheckpoint:
    """What a Saver saves of a mutable table: its keys and its values, restored together."""

    def __init__(self, table: MutableHashTable):
        self.table = table
        self._exported = None
        self._restored: dict = {}

    def saveable_parts(self) -> dict:
        return {f"{self.table.name}-keys": _TablePart(self, 0), f"{self.table.name}-values": _TablePart(self, 1)}

    def exported(self):
        if self._exported is None:
            self._exported = self.table.export()
        return self._exported

    def restored(self, which: int, value) -> list:
        """The import op once both parts' restored values are there (as a Saver builds them)."""
        self._restored[which] = value
        if len(self._restored) < 2:
            return []
        keys, values = self._restored[0], self._restored[1]
        self._restored = {}
        return [self.table.import_(keys, values)]


class _TablePart:
    """One of a mutable table's two checkpoint entries (a Saver's saveable)."""

    def __init__(self, checkpoint: _TableCheckpoint, which: int):
        self._checkpoint, self._which = checkpoint, which
        table = checkpoint.table
        self.dtype = table.key_dtype if which == 0 else table.value_dtype
        self.device = table.resource_handle.device

    def value(self):
        return self._checkpoint.exported()[self._which]

    def restore_ops(self, value) -> list:
        return self._checkpoint.restored(self._which, value)


HasherSpec = collections.namedtuple("HasherSpec", ["hasher", "key"])
FastHashSpec = HasherSpec("fasthash", None)  # Fingerprint64 (TensorFlow's string_to_hash_bucket_fast)


class StrongHashSpec(HasherSpec):
    """Keyed SipHash-2-4 of the key (``string_to_hash_bucket_strong``); ``key``: two uint64s."""

    def __new__(cls, key):
        if len(key) != 2:
            raise ValueError(f"key must have size 2, got {len(key)}.")
        return super().__new__(cls, "stronghash", tuple(int(k) for k in key))


class StaticVocabularyTable(LookupInterface):
    """``tf.lookup.StaticVocabularyTable(initializer, num_oov_buckets)``: a key's id from its
    table (initialized by ``initializer``), and a key outside it one of ``num_oov_buckets``
    ids after the vocabulary, by its hash. ``tf.contrib.lookup.IdTableWithHashBuckets`` is
    the same over a given table (or none: hashing alone)."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None, _table=None,
                 _hasher_spec=FastHashSpec):
        if num_oov_buckets < 0 or (num_oov_buckets == 0 and _table is None):
            raise ValueError(f"oov_buckets must be > 0; use StaticHashTable for no oov buckets, got "
                             f"{num_oov_buckets}")
        with ops.name_scope(name, "hash_table") as scope:
            if _table is None and initializer is not None:
                if initializer.value_dtype != dtypes.int64:
                    raise TypeError(f"Invalid value dtype, expected {dtypes.int64} but got "
                                    f"{initializer.value_dtype}.")
                _table = StaticHashTable(initializer, -1, name="table")
        key_dtype = _table.key_dtype if _table is not None else dtypes.as_dtype(lookup_key_dtype or dtypes.string)
        if not (key_dtype.is_integer or key_dtype == dtypes.string):
            raise TypeError(f"Invalid key_dtype, expected integer or string, got {key_dtype}.")
        super().__init__(key_dtype if lookup_key_dtype is None else lookup_key_dtype, dtypes.int64,
                         scope.rstrip("/") or "hash_table")
        self._table, self._num_oov_buckets, self._hasher_spec = _table, int(num_oov_buckets), _hasher_spec
        if lookup_key_dtype is not None and dtypes.as_dtype(lookup_key_dtype) != key_dtype and not (
                dtypes.as_dtype(lookup_key_dtype).is_integer and key_dtype.is_integer):
            raise TypeError(f"Invalid key dtype {lookup_key_dtype} for a table of {key_dtype} keys")

    @property
    def resource_handle(self):
        return self._table.resource_handle if self._table is not None else None

    @property
    def initializer(self):
        return self._table.initializer if self._table is not None else no_op(name="table_init")

    init = initializer

    def size(self, name=None):
        with ops.name_scope(name, f"{self._name}_Size"):
            if self._table is None:
                return ops.convert_to_tensor(np.int64(self._num_oov_buckets))
            return self._table.size() + self._num_oov_buckets

    def lookup(self, keys, name=None):
        values, sparse = self._keys(keys)
        with ops.name_scope(name, f"{self._name}_Lookup", [values]):
            as_text = values if values.dtype == dtypes.string else string_ops.as_string(values)
            if self._num_oov_buckets:
                if self._hasher_spec.hasher == "stronghash":
                    buckets = hash_ops.string_to_hash_bucket_strong(as_text, self._num_oov_buckets,
                                                                    list(self._hasher_spec.key), name="hash_bucket")
                else:
                    buckets = hash_ops.string_to_hash_bucket_fast(as_text, self._num_oov_buckets, name="hash_bucket")
            if self._table is None:
                return self._like(sparse, buckets)
            table_keys = values if values.dtype.base_dtype == self._table.key_dtype else \
                math_ops.cast(values, self._table.key_dtype)
            ids = self._table.lookup(table_keys)
            if self._num_oov_buckets:
                ids = math_ops.where(ids < 0, buckets + self._table.size(), ids, name="lookup")
        return self._like(sparse, ids)


def IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec=FastHashSpec, name=None, key_dtype=None):  # noqa: N802
    """``tf.contrib.lookup.IdTableWithHashBuckets``: ``table``'s ids, and keys outside it hashed
    into ``num_oov_buckets`` ids after them."""
    return StaticVocabularyTable(None, num_oov_buckets, key_dtype, name, _table=table, _hasher_spec=hasher_spec)


# -- TF 1.x's table constructors -----------------------------------------------------------


def _integer_or_string(dtype, what: str):
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype == dtypes.string):
        raise TypeError(f"Only integer and string {what} are supported, got {dtype}.")
    return dtype


def index_table_from_tensor(vocabulary_list=None, num_oov_buckets=0, default_value=-1, hasher_spec=FastHashSpec,
                            dtype=dtypes.string, name=None, mapping=None):
    """Each key's index in the 1-D ``vocabulary_list``; outside it ``default_value``, or one
    of ``num_oov_buckets`` ids after the vocabulary."""
    vocabulary_list = mapping if vocabulary_list is None else vocabulary_list
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got {num_oov_buckets}.")
    if default_value != -1 and num_oov_buckets:
        raise ValueError("Can't specify both default_value and num_oov_buckets.")
    dtype = _integer_or_string(dtype, "input")
    with ops.name_scope(name, "string_to_index") as scope:
        keys = ops.convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            raise ValueError(f"Expected {'integer' if dtype.is_integer else 'non-integer'}, got {keys.dtype}.")
        table_keys = keys if keys.dtype == dtype or not dtype.is_integer else math_ops.cast(keys, dtypes.int64)
        ids = math_ops.range_(0, _length(table_keys), dtype=dtypes.int64) if keys.shape[0].value is None \
            else ops.convert_to_tensor(np.arange(keys.shape[0].value, dtype=np.int64))
        init = KeyValueTensorInitializer(table_keys, ids, name="table_init")
        return _ids_table(init, default_value, num_oov_buckets, hasher_spec, scope, dtype)


def _ids_table(init, default_value, num_oov_buckets, hasher_spec, scope: str, key_dtype):
    """A table of ids made by ``init``, with ``num_oov_buckets`` after them where asked for."""
    table = StaticHashTable(init, default_value, name="hash_table")
    if num_oov_buckets:
        return IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec, name=scope.rstrip("/"), key_dtype=key_dtype)
    return table


def _length(t):
    from .array_ops import shape  # noqa: PLC0415

    return shape(t, out_type=dtypes.int64)[0]


def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None, default_value=-1,
                          hasher_spec=FastHashSpec, key_dtype=dtypes.string, name=None,
                          key_column_index=TextFileIndex.WHOLE_LINE, value_column_index=TextFileIndex.LINE_NUMBER,
                          delimiter="\t"):
    """Each key's line number in ``vocabulary_file`` (a key a line, or a column of it)."""
    if vocabulary_file is None or (isinstance(vocabulary_file, (str, bytes)) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got {num_oov_buckets}.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"vocab_size must be greater than 0, got {vocab_size}.")
    key_dtype = _integer_or_string(key_dtype, "keys")
    with ops.name_scope(name, "string_to_index") as scope:
        init = TextFileInitializer(vocabulary_file, dtypes.string if key_dtype == dtypes.string else dtypes.int64,
                                   key_column_index, dtypes.int64, value_column_index, vocab_size, delimiter,
                                   name="table_init")
        return _ids_table(init, default_value, num_oov_buckets, hasher_spec, scope, key_dtype)


def index_to_string_table_from_tensor(vocabulary_list=None, default_value="UNK", name=None, mapping=None):
    """Each id's entry in the 1-D string tensor ``vocabulary_list``; ``default_value`` outside it."""
    vocabulary_list = mapping if vocabulary_list is None else vocabulary_list
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    with ops.name_scope(name, "index_to_string"):
        values = ops.convert_to_tensor(vocabulary_list, dtypes.string)
        n = values.shape[0].value
        ids = ops.convert_to_tensor(np.arange(n, dtype=np.int64)) if n is not None else \
            math_ops.range_(0, _length(values), dtype=dtypes.int64)
        return StaticHashTable(KeyValueTensorInitializer(ids, values, name="table_init"), default_value,
                               name="hash_table")


def index_to_string_table_from_file(vocabulary_file, vocab_size=None, default_value="UNK", name=None,
                                    key_column_index=TextFileIndex.LINE_NUMBER,
                                    value_column_index=TextFileIndex.WHOLE_LINE, delimiter="\t"):
    """Each id's line (or a column of it) of ``vocabulary_file``; ``default_value`` outside it."""
    if vocabulary_file is None or (isinstance(vocabulary_file, (str, bytes)) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"vocab_size must be greater than 0, got {vocab_size}.")
    with ops.name_scope(name, "index_to_string"):
        init = TextFileInitializer(vocabulary_file, dtypes.int64, key_column_index, dtypes.string,
                                   value_column_index, vocab_size, delimiter, name="table_init")
        return StaticHashTable(init, default_value, name="hash_table")


def string_to_index(tensor, mapping, default_value=-1, name=None):
    """``tf.contrib.lookup.string_to_index``: each string's index in ``mapping``."""
    with ops.name_scope(name, "string_to_index"):
        return index_table_from_tensor(mapping, default_value=default_value).lookup(tensor)


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """``tf.contrib.lookup.index_to_string``: each id's string in ``mapping``."""
    with ops.name_scope(name, "index_to_string"):
        return index_to_string_table_from_tensor(mapping, default_value=default_value).lookup(tensor)


