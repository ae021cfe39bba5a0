"""TF 1.x's readers: ``reader.read(filename_queue)`` returns the next (key, value) record,
taking the next file name from the queue when the current file is done (the input
pipeline of the CIFAR-10 tutorial: ``FixedLengthRecordReader`` plus ``decode_raw``)."""

from __future__ import annotations


import threading

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from ..platform.tf_record import compression_name, open_for_reading, tf_record_iterator
from .op_util import make_op, make_tensor


class _Reader:
    """One reader's position: the current file and its remaining records."""

    def __init__(self, kind, record_bytes, header_bytes, footer_bytes, skip_header_lines, compression="",
                 hop_bytes=0):
        self.kind = kind
        self.compression = compression  # ("", "ZLIB" or "GZIP": the whole file is one stream)
        self.record_bytes, self.header_bytes, self.footer_bytes = record_bytes, header_bytes, footer_bytes
        self.hop_bytes = hop_bytes or record_bytes  # (where each record starts after the last's start)
        self.skip_header_lines = skip_header_lines
        self.lock = threading.Lock()
        self.records = None
        self.current = None
        self.produced = 0
        self.completed = 0

    def _open(self, name: str):
        if self.kind == "identity":
            yield name.encode(), name.encode()
            return
        if self.kind == "tfrecord":  # (keyed by the record's byte offset in the uncompressed stream, as TF)
            offset = 0
            for record in tf_record_iterator(name, self.compression):
                yield f"{name}:{offset}".encode(), record
                offset += len(record) + 16  # length, its CRC, the data, its CRC
            return
        with open_for_reading(name, self.compression) as f:
            data = f.read()
        if self.kind == "whole_file":
            yield name.encode(), data
        elif self.kind == "text_line":
            for i, line in enumerate(data.splitlines()):
                if i >= self.skip_header_lines:
                    yield f"{name}:{i + 1}".encode(), line
        else:  # fixed_length
            body = data[self.header_bytes:len(data) - self.footer_bytes]
            for i, start in enumerate(range(0, len(body) - self.record_bytes + 1, self.hop_bytes)):
                yield f"{name}:{i}".encode(), body[start:start + self.record_bytes]

    def read(self, ctx, queue):
        return self.read_up_to(ctx, queue, 1)[0]

    def read_up_to(self, ctx, queue, limit: int) -> list:
        """Up to ``limit`` records, going on to the queue's next files as each one ends (at
        least one: a closed, empty queue is an OutOfRangeError, as TF's)."""
        got = []
        with self.lock:
            while len(got) < limit:
                if self.records is not None:
                    try:
                        item = next(self.records, None)
                    except FileNotFoundError:
                        self.records = None
                        raise errors.NotFoundError(None, None, f"{self.current}; No such file or directory") from None
                    if item is not None:
                        self.produced += 1
                        got.append(item)
                        continue
                    self.records = None
                    self.completed += 1
                try:
                    (name,) = queue.dequeue(ctx, 1)[0]
                except errors.OutOfRangeError:
                    if got:  # (the records read before the queue ran out are the last ones)
                        return got
                    raise
                name = name.item() if hasattr(name, "item") else name
                self.current = name.decode() if isinstance(name, bytes) else str(name)
                self.records = self._open(self.current)
        return got

    def reset(self):
        with self.lock:
            self.records, self.current, self.produced, self.completed = None, None, 0, 0


def _handle_dtype(op):
    return dtypes.string._as_ref


@register_op("ReaderV2", shape=lambda op: TensorShape([2]), dtype=_handle_dtype, stateful=True)
def _reader_kernel(ctx, *, kind, record_bytes, header_bytes, footer_bytes, skip_header_lines, container, shared_name,
                   compression="", hop_bytes=0):
    name = shared_name or ctx.op_name
    return ctx.resource_mgr.lookup_or_create(container, name, lambda: _Reader(kind, record_bytes, header_bytes,
                                                                               footer_bytes, skip_header_lines,
                                                                               compression, hop_bytes))


@register_op("ReaderReadV2", shape=lambda op: [TensorShape([]), TensorShape([])],
             dtype=lambda op: [dtypes.string, dtypes.string], stateful=True, blocking=True, list_output=True,
             ref_inputs=(0, 1))
def _reader_read_kernel(ctx, reader, queue):
    key, value = reader.read(ctx, queue)
    return np.array(key, dtype=object), np.array(value, dtype=object)


@register_op("ReaderReadUpToV2", shape=lambda op: [TensorShape([None]), TensorShape([None])],
             dtype=lambda op: [dtypes.string, dtypes.string], stateful=True, blocking=True, list_output=True,
             ref_inputs=(0, 1))
def _reader_read_up_to_kernel(ctx, reader, queue, num_records):
    limit = int(num_records)
    if limit <= 0:
        raise errors.InvalidArgumentError(None, None, f"num_records ({limit}) must be > 0")
    got = reader.read_up_to(ctx, queue, limit)
    keys, values = np.empty(len(got), object), np.empty(len(got), object)
    for i, (key, value) in enumerate(got):
        keys[i], values[i] = key, value
    return keys, values


@register_op("ReaderNumRecordsProducedV2", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.int64,
             stateful=True, ref_inputs=(0,))
def _reader_num_records_kernel(xp, reader):
    return np.array(reader.produced, np.int64)


@register_op("ReaderNumWorkUnitsCompletedV2", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.int64,
             stateful=True, ref_inputs=(0,))
def _reader_work_units_kernel(xp, reader):
    return np.array(reader.completed, np.int64)


@register_op("ReaderResetV2", shape=lambda op: [], stateful=True, ref_inputs=(0,))
def _reader_reset_kernel(xp, reader):
    reader.reset()


for _t in ("ReaderV2", "ReaderReadV2", "ReaderReadUpToV2", "ReaderNumRecordsProducedV2",
           "ReaderNumWorkUnitsCompletedV2", "ReaderResetV2"):
    not_differentiable(_t)


class ReaderBase:
    """A reader: ``read(queue)`` gives (key, value) string scalars, one record per run."""

    _kind = ""

    def __init__(self, record_bytes=0, header_bytes=0, footer_bytes=0, skip_header_lines=0, name=None,
                 shared_name=None, compression="", hop_bytes=0):
        attrs = {"kind": self._kind, "record_bytes": int(record_bytes), "header_bytes": int(header_bytes or 0),
                 "footer_bytes": int(footer_bytes or 0), "skip_header_lines": int(skip_header_lines or 0),
                 "container": "", "shared_name": shared_name or "", "compression": compression_name(compression)}
        if hop_bytes:
            attrs["hop_bytes"] = int(hop_bytes)
        self._reader_ref = make_tensor("ReaderV2", [], attrs, name or type(self).__name__)

    @property
    def reader_ref(self):
        return self._reader_ref

    @property
    def supports_serialize(self) -> bool:
        return False

    def read(self, queue, name=None):
        """The next (key, value): from the current file, or the next file name ``queue`` holds."""
        queue_ref = queue.queue_ref if hasattr(queue, "queue_ref") else queue
        with ops.colocate_with(self._reader_ref):
            key, value = make_op("ReaderReadV2", [self._reader_ref, queue_ref], None, name or "ReaderReadV2").outputs
        return key, value

    def read_up_to(self, queue, num_records, name=None):
        """Up to ``num_records`` (key, value) pairs as two vectors, across the files the queue
        gives while it reads (fewer only where the queue is closed and ends)."""
        queue_ref = queue.queue_ref if hasattr(queue, "queue_ref") else queue
        with ops.colocate_with(self._reader_ref):
            count = ops.convert_to_tensor(num_records, dtype=dtypes.int64)
            keys, values = make_op("ReaderReadUpToV2", [self._reader_ref, queue_ref, count], None,
                                   name or "ReaderReadUpToV2").outputs
        return keys, values

    def num_records_produced(self, name=None):
        return make_tensor("ReaderNumRecordsProducedV2", [self._reader_ref], None, name or "ReaderNumRecordsProduced")

    def num_work_units_completed(self, name=None):
        return make_tensor("ReaderNumWorkUnitsCompletedV2", [self._reader_ref], None,
                           name or "ReaderNumWorkUnitsCompleted")

    def reset(self, name=None):
        return make_op("ReaderResetV2", [self._reader_ref], None, name or "ReaderReset")


class FixedLengthRecordReader(ReaderBase):
    """Records of ``record_bytes`` bytes between ``header_bytes`` and ``footer_bytes``, one
    starting every ``hop_bytes`` (overlapping where that is fewer than ``record_bytes``, as
    audio frames; the default: one after another)."""

    _kind = "fixed_length"

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None, name=None,
                 encoding=None):
        if int(record_bytes) <= 0 or int(hop_bytes or 0) < 0:
            raise ValueError(f"FixedLengthRecordReader: record_bytes must be positive and hop_bytes not negative, "
                             f"got {record_bytes} and {hop_bytes}")
        super().__init__(record_bytes, header_bytes, footer_bytes, name=name, compression=encoding or "",
                         hop_bytes=hop_bytes or 0)


class TextLineReader(ReaderBase):
    """The lines of text files (without their line endings), after ``skip_header_lines``."""

    _kind = "text_line"

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(skip_header_lines=skip_header_lines or 0, name=name)


class TFRecordReader(ReaderBase):
    _kind = "tfrecord"

    def __init__(self, name=None, options=None):
        super().__init__(name=name, compression=options)


class WholeFileReader(ReaderBase):
    """Each file's whole contents as one record, keyed by its name."""

    _kind = "whole_file"

    def __init__(self, name=None):
        super().__init__(name=name)


class IdentityReader(ReaderBase):
    """Each queued work item as its own key and value."""

    _kind = "identity"

    def __init__(self, name=None):
        super().__init__(name=name)


# ---------------------------------------------------------------------------
# Decoding record bytes


@register_op("DecodeRaw", shape=lambda op: op.inputs[0].shape.concatenate([None]),
             dtype=lambda op: op._attr("out_type"))
def _decode_raw_kernel(xp, data, *, out_type, little_endian):
    np_dtype = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    records = np.asarray(data, dtype=object).reshape(-1)
    lengths = [len(record) for record in records]
    for length in lengths:
        if length % np_dtype.itemsize:
            raise errors.InvalidArgumentError(None, None, f"Input to DecodeRaw has length {length} that is not "
                                                          f"a multiple of {np_dtype.itemsize}, the size of "
                                                          f"{out_type.name}")
    for i, length in enumerate(lengths[1:], 1):
        if length != lengths[0]:
            raise errors.InvalidArgumentError(None, None, f"DecodeRaw requires input strings to all be the same "
                                                          f"size, but element {i} has size {length} != "
                                                          f"{lengths[0]}")
    width = lengths[0] // np_dtype.itemsize if lengths else 0
    # (the records' bytes joined, then read as one array: one copy, not one array a record)
    out = np.frombuffer(b"".join(records), dtype=np_dtype).reshape(len(records), width)
    return out.astype(out_type.as_numpy_dtype).reshape(np.shape(data) + (width,))


not_differentiable("DecodeRaw")


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """The bytes of each string reinterpreted as a vector of ``out_type``."""
    data = ops.convert_to_tensor(input_bytes if input_bytes is not None else bytes, dtype=dtypes.string)
    return make_tensor("DecodeRaw", [data], {"out_type": dtypes.as_dtype(out_type), "little_endian": bool(little_endian)},
                       name or "DecodeRaw")


@register_op("DecodeCSV", list_output=True, shape=lambda op: [op.inputs[0].shape] * len(op._attr("OUT_TYPE")),
             dtype=lambda op: list(op._attr("OUT_TYPE")))
def _decode_csv_kernel(xp, records, *defaults, OUT_TYPE, field_delim, na_value, use_quote_delim=False,  # noqa: N803
                       select_cols=()):
    rows = [r.decode() if isinstance(r, bytes) else str(r) for r in np.asarray(records, dtype=object).reshape(-1)]
    columns = [[] for _ in OUT_TYPE]
    for k, row in enumerate(rows):
        where = f"record {k} ({row!r})"
        fields = _csv_fields(row, field_delim, where) if use_quote_delim else row.split(field_delim)
        if select_cols:
            if len(fields) <= select_cols[-1]:
                raise errors.InvalidArgumentError(None, None, f"Expect at least {select_cols[-1] + 1} fields but "
                                                              f"have {len(fields)} in {where}")
            fields = [fields[c] for c in select_cols]
        elif len(fields) != len(OUT_TYPE):
            raise errors.InvalidArgumentError(None, None, f"Expect {len(OUT_TYPE)} fields but have {len(fields)} in "
                                                          f"{where}")
        for i, (field, dtype) in enumerate(zip(fields, OUT_TYPE)):
            if field == "" or field == na_value:
                if np.size(defaults[i]) == 0:
                    raise errors.InvalidArgumentError(None, None, f"Field {i} is required but missing in {where}")
                value = np.asarray(defaults[i]).reshape(-1)[0]
            elif dtype == dtypes.string:
                value = field.encode()
            else:
                value = _csv_number(field, dtype, f"Field {i} in {where}")
            columns[i].append(value)
    shape = np.shape(records)
    return tuple(np.array(c, dtype=object if d == dtypes.string else d.as_numpy_dtype).reshape(shape)
                 for c, d in zip(columns, OUT_TYPE))


def _csv_fields(row: str, delim: str, where: str) -> list:
    """A record's fields by TF's rules: a field that starts with a quote ends with a quote
    followed by the delimiter or the end (a doubled quote inside is a quote); an unquoted field
    has no quote, CR or LF."""
    fields, i, n = [], 0, len(row)
    while True:
        if i < n and row[i] == '"':
            value, i = [], i + 1
            while True:
                if i >= n:
                    raise errors.InvalidArgumentError(None, None, f"Quoted field has to end with quote followed by "
                                                                  f"delim or end, in {where}")
                if row[i] == '"':
                    if i + 1 < n and row[i + 1] == '"':
                        value.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                value.append(row[i])
                i += 1
            if i < n and row[i] != delim:
                raise errors.InvalidArgumentError(None, None, f"Quoted field has to end with quote followed by "
                                                              f"delim or end, in {where}")
            fields.append("".join(value))
        else:
            end = row.find(delim, i)
            end = n if end < 0 else end
            field = row[i:end]
            if any(c in field for c in '"\r\n'):
                raise errors.InvalidArgumentError(None, None, f"Unquoted fields cannot have quotes/CRLFs inside, "
                                                              f"in {where}: {field!r}")
            fields.append(field)
            i = end
        if i >= n:
            return fields
        i += 1  # (past the delimiter: a field follows, empty at the end of the record)
        if i == n:
            fields.append("")
            return fields


def _csv_number(field: str, dtype, what: str):
    """``field`` as a number of ``dtype``, or an InvalidArgumentError naming the field."""
    try:
        value = float(field) if dtype.is_floating else int(field)
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"{what} is not a valid {dtype.name}: {field!r}") from None
    if not dtype.is_floating:
        info = np.iinfo(dtype.as_numpy_dtype)
        if not info.min <= value <= info.max:
            raise errors.InvalidArgumentError(None, None, f"{what} is not a valid {dtype.name}: {field!r} is out "
                                                          f"of its range")
    return value


not_differentiable("DecodeCSV")


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """Columns of comma-separated records; ``record_defaults`` gives each column's type and default
    (an empty default makes the column required)."""
    records = ops.convert_to_tensor(records, dtype=dtypes.string)
    defaults = [ops.convert_to_tensor(d) for d in record_defaults]
    types = [d.dtype.base_dtype for d in defaults]
    select_cols = [int(c) for c in (select_cols or [])]
    if select_cols and (sorted(set(select_cols)) != select_cols or select_cols[0] < 0):
        raise ValueError(f"decode_csv: select_cols must be increasing and not negative, got {select_cols}")
    if select_cols and len(select_cols) != len(defaults):
        raise ValueError(f"decode_csv: {len(select_cols)} select_cols but {len(defaults)} record_defaults")
    if len(field_delim) != 1:
        raise ValueError(f"decode_csv: field_delim must be one character, got {field_delim!r}")
    attrs = {"OUT_TYPE": types, "field_delim": field_delim, "na_value": na_value,
             "use_quote_delim": bool(use_quote_delim), "select_cols": select_cols}
    return list(make_op("DecodeCSV", [records] + defaults, attrs, name or "DecodeCSV").outputs)
