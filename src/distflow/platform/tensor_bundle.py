"""Reading the checkpoints TensorFlow writes (its "tensor bundle", Saver's V2 format, and the
V1 format before it), so that a TF 1.x program restores the checkpoints it trained with
TensorFlow, and warm-starts and fine-tunes from them. distflow writes its own format
(ops/io_ops.py); it reads all three, and writes a bundle for TensorFlow on request
(``write_bundle``, the ``distflow convert-checkpoint`` command).

A bundle ``<prefix>`` is:

- ``<prefix>.index``: a LevelDB table (blocks of prefix-compressed keys, an index block, a
  footer ending in the table's magic number). Key "" holds a BundleHeaderProto (the number
  of shards, the byte order); every other key is a tensor's name, holding its
  BundleEntryProto: dtype, shape, shard, offset and size in that shard, and the masked
  CRC-32C of its bytes. A tensor saved in slices (a partitioned variable's parts) lists its
  slices' extents; each slice has an entry of its own, keyed by TF's OrderedCode of (0, the
  name, the extents).
- ``<prefix>.data-<i>-of-<n>``: the tensors' bytes, little-endian. A string tensor is its
  elements' lengths (varints), the masked CRC-32C of those lengths (4 bytes), then the
  bytes of the elements.

TF 1.x's first format (Saver's V1, ``read_v1_table``) is one such table at the prefix
itself, holding the tensors' values too, in slices (a partitioned variable's parts are
slices of one tensor), which are assembled.

The protocol buffers are read field by field here (their field numbers are TensorFlow's),
and every checksum is checked: a damaged file is a DataLossError naming it, never wrong
values. A tensor saved in slices (a partitioned variable's parts) is assembled whole. Not
read: a table compressed with Snappy, big-endian bundles and bfloat16 tensors; each is an
UnimplementedError saying which.
"""

from __future__ import annotations

import numpy as np

from ..framework import errors, varint
from .crc32c import crc32c, mask, unmask

MAGIC = (0xdb4775248b80fb57).to_bytes(8, "little")  # the last 8 bytes of a LevelDB table
_FOOTER = 48
_BLOCK_TRAILER = 5  # a compression byte and a masked CRC-32C

# TensorFlow's DataType enum -> NumPy (string: object arrays of bytes)
_DTYPES = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8, 7: object,
           8: np.complex64, 9: np.int64, 10: np.bool_, 17: np.uint16, 18: np.complex128, 19: np.float16,
           22: np.uint32, 23: np.uint64}
_NAMES = {14: "bfloat16", 20: "resource", 21: "variant"}


def is_bundle(index_bytes: bytes) -> bool:
    return index_bytes.endswith(MAGIC)


def _damaged(path: str, what: str) -> errors.DataLossError:
    return errors.DataLossError(None, None, f"TensorFlow checkpoint file {path} is damaged: {what}")


def _varint(data, pos: int, path: str) -> tuple[int, int]:
    try:
        return varint.decode(data, pos)
    except ValueError as e:
        raise _damaged(path, str(e)) from None


def _fields(data, path: str) -> list[tuple[int, object]]:
    """A protocol buffer message's (field number, value) pairs: ints for varint and fixed
    fields, bytes for length-delimited ones."""
    out, pos = [], 0
    while pos < len(data):
        key, pos = _varint(data, pos, path)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos, path)
        elif wire == 1:
            value, pos = int.from_bytes(data[pos:pos + 8], "little"), pos + 8
        elif wire == 2:
            size, pos = _varint(data, pos, path)
            value, pos = bytes(data[pos:pos + size]), pos + size
        elif wire == 5:
            value, pos = int.from_bytes(data[pos:pos + 4], "little"), pos + 4
        else:
            raise _damaged(path, f"a protocol buffer field has wire type {wire}")
        if pos > len(data):
            raise _damaged(path, "a protocol buffer field runs past its end")
        out.append((number, value))
    return out


def _block(data: bytes, offset: int, size: int, path: str) -> bytes:
    """A table block's contents, its checksum checked."""
    end = offset + size
    if offset < 0 or end + _BLOCK_TRAILER > len(data):
        raise _damaged(path, "a block lies outside the file")
    contents, kind = data[offset:end], data[end]
    stored = int.from_bytes(data[end + 1:end + 5], "little")
    if unmask(stored) != crc32c(data[offset:end + 1]):
        raise _damaged(path, f"the checksum of the block at byte {offset} does not match")
    if kind != 0:
        raise errors.UnimplementedError(None, None, f"TensorFlow checkpoint index {path} is compressed (type {kind}): "
                                        "distflow reads uncompressed tensor-bundle indexes only")
    return contents


def _entries(block: bytes, path: str):
    """A block's (key, value) pairs (keys share prefixes with the one before)."""
    if len(block) < 4:
        raise _damaged(path, "a block is too short")
    restarts = int.from_bytes(block[-4:], "little")
    end = len(block) - 4 * (restarts + 1)
    if end < 0:
        raise _damaged(path, "a block's restart points run past its start")
    pos, key = 0, b""
    while pos < end:
        shared, pos = _varint(block, pos, path)
        unshared, pos = _varint(block, pos, path)
        size, pos = _varint(block, pos, path)
        if shared > len(key) or pos + unshared + size > end:
            raise _damaged(path, "a block entry runs past its end")
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        yield key, block[pos:pos + size]
        pos += size


def _table(data: bytes, path: str):
    """The (key, value) pairs of a LevelDB table, in key order: the footer names the index
    block, whose entries name the data blocks."""
    if len(data) < _FOOTER or not is_bundle(data):
        raise _damaged(path, "it does not end as a LevelDB table does")
    footer, pos = data[-_FOOTER:], 0
    handles = []
    for _ in range(4):  # the metaindex block's handle, then the index block's
        value, pos = _varint(footer, pos, path)
        handles.append(value)
    for _, handle in _entries(_block(data, handles[2], handles[3], path), path):
        offset, p = _varint(handle, 0, path)
        size, _ = _varint(handle, p, path)
        yield from _entries(_block(data, offset, size, path), path)


def read_index(prefix: str, data: bytes, path: str) -> tuple[int, dict]:
    """(number of shards, name -> entry) of the bundle whose index ``data`` was read from ``path``.

    An entry is a dict: dtype (NumPy), shape (a list), shard, offset, size, crc32c; for a
    tensor saved in slices, "slices" (each slice's extents, as index slices) and "parts" (the
    slices' own entries, in the same order); otherwise "slices" is None."""
    num_shards, entries, parts = None, {}, {}
    for key, value in _table(data, path):
        fields = _fields(value, path)
        if key.startswith(b"\x00"):  # (a slice of a tensor saved in slices: keyed by its name and extents)
            parts.setdefault(_slice_key_name(key, path), []).append(_entry(fields, prefix, key, path))
            continue
        if key == b"":
            header = dict(fields)
            num_shards = header.get(1, 0)
            if header.get(2, 0) != 0:
                raise errors.UnimplementedError(None, None, f"TensorFlow checkpoint {prefix} is big-endian: "
                                                "distflow reads little-endian tensor bundles only")
            continue
        entries[key.decode("utf-8", "replace")] = _entry(fields, prefix, key, path)
    if not num_shards or num_shards < 1:
        raise _damaged(path, "it has no bundle header")
    for name, entry in entries.items():
        if entry["slices"] is not None:
            # (keys sort by the slices' extents, start then length per dimension, as these do)
            found = parts.get(name, [])
            if len(found) != len(entry["slices"]):
                raise _damaged(path, f"tensor {name} lists {len(entry['slices'])} slices, and it holds "
                                     f"{len(found)}")
            entry["slices"] = sorted(entry["slices"], key=lambda extents: [(e.start or 0, e.stop or 0)
                                                                         for e in extents])
            entry["parts"] = found
        for part in [entry, *entry.get("parts", [])]:
            if not 0 <= part["shard"] < num_shards:
                raise _damaged(path, f"tensor {name} names shard {part['shard']} of {num_shards}")
    return num_shards, entries


def _slice_key_name(key: bytes, path: str) -> str:
    """The tensor name in the key of one of its slices: TensorFlow's OrderedCode of (0, name,
    the extents), the name with 0 and 255 escaped and ended by 0, 1."""
    out, pos = bytearray(), 1
    while pos + 1 < len(key):
        byte, following = key[pos], key[pos + 1]
        if byte == 0 and following == 1:
            return out.decode("utf-8", "replace")
        if byte in (0, 0xFF):
            out.append(byte)
            pos += 2
            continue
        out.append(byte)
        pos += 1
    raise _damaged(path, "the key of a tensor slice has no end to its name")


def _entry(fields, prefix: str, key: bytes, path: str) -> dict:
    name = key.decode("utf-8", "replace")
    entry = {"dtype": None, "shape": [], "shard": 0, "offset": 0, "size": 0, "crc32c": None, "slices": None}
    for number, value in fields:
        if number == 1:
            if value not in _DTYPES:
                raise errors.UnimplementedError(None, None, f"tensor {name} of TensorFlow checkpoint {prefix} is "
                                                f"{_NAMES.get(value, f'DataType {value}')}: distflow cannot read it")
            entry["dtype"] = np.dtype(_DTYPES[value])
        elif number == 2:
            entry["shape"] = [_dim_size(dim, path) for n, dim in _fields(value, path) if n == 2]
        elif number == 3:
            entry["shard"] = value
        elif number == 4:
            entry["offset"] = value
        elif number == 5:
            entry["size"] = value
        elif number == 6:
            entry["crc32c"] = value
        elif number == 7:  # (saved in slices: a partitioned variable)
            entry["slices"] = (entry["slices"] or []) + [value]
    if entry["dtype"] is None:
        raise _damaged(path, f"tensor {name} has no dtype")
    if entry["slices"] is not None:
        entry["slices"] = [_extents(value, entry["shape"], path) for value in entry["slices"]]
    return entry


def _dim_size(dim: bytes, path: str) -> int:
    return next((v - (1 << 64) if v >= 1 << 63 else v for n, v in _fields(dim, path) if n == 1), 0)


def shard_path(prefix: str, shard: int, num_shards: int) -> str:
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def read_sliced_tensor(prefix: str, num_shards: int, name: str, entry: dict) -> np.ndarray:
    """A tensor saved in slices, assembled whole from them (each from its data file)."""
    out = np.empty(entry["shape"], dtype=entry["dtype"])
    covered = np.zeros(entry["shape"], dtype=bool)
    for extents, part in zip(entry["slices"], entry["parts"]):
        path = shard_path(prefix, part["shard"], num_shards)
        with open(path, "rb") as f:
            value = read_tensor(f, path, name, part)
        if value.shape != out[tuple(extents)].shape:
            raise _damaged(path, f"a slice of tensor {name} is {list(value.shape)}, not its extents' shape")
        out[tuple(extents)] = value
        covered[tuple(extents)] = True
    if not covered.all():
        raise _damaged(prefix + ".index", f"the slices of tensor {name} do not cover it")
    return out


def read_tensor(f, path: str, name: str, entry: dict) -> np.ndarray:
    """Tensor ``name`` of the open data file ``f`` (at ``path``), its checksum checked."""
    f.seek(entry["offset"])
    data = f.read(entry["size"])
    if len(data) != entry["size"]:
        raise _damaged(path, f"tensor {name} runs past the end of the file")
    shape = entry["shape"]
    count = int(np.prod(shape, dtype=np.int64))
    if entry["dtype"] == np.dtype(object):
        return _strings(data, count, path, name, entry["crc32c"]).reshape(shape)
    if entry["crc32c"] is not None and unmask(entry["crc32c"]) != crc32c(data):
        raise _damaged(path, f"the bytes of tensor {name} do not match their checksum")
    if count * entry["dtype"].itemsize != len(data):
        raise _damaged(path, f"tensor {name} holds {len(data)} bytes, not those of {entry['dtype']}{shape}")
    return np.frombuffer(data, dtype=entry["dtype"].newbyteorder("<")).astype(entry["dtype"]).reshape(shape)


def _strings(data: bytes, count: int, path: str, name: str, checksum: int | None) -> np.ndarray:
    """A string tensor's elements. Its checksums are over the lengths as 4-byte integers (not
    as the varints written), then the 4 bytes of the lengths' own masked checksum, then the
    elements' bytes."""
    lengths, pos = [], 0
    for _ in range(count):
        length, pos = _varint(data, pos, path)
        lengths.append(length)
    crc = crc32c(b"".join((n & 0xFFFFFFFF).to_bytes(4, "little") for n in lengths))
    stored = data[pos:pos + 4]
    if len(stored) != 4 or unmask(int.from_bytes(stored, "little")) != crc:
        raise _damaged(path, f"the lengths of string tensor {name} do not match their checksum")
    crc = crc32c(stored, crc)
    pos += 4
    out = np.empty(count, dtype=object)
    for i, length in enumerate(lengths):
        out[i] = data[pos:pos + length]
        crc = crc32c(out[i], crc)
        pos += length
    if pos != len(data):
        raise _damaged(path, f"string tensor {name} does not fill its bytes")
    if checksum is not None and unmask(checksum) != crc:
        raise _damaged(path, f"the bytes of string tensor {name} do not match their checksum")
    return out


def check_data_files(prefix: str, num_shards: int, entries: dict) -> None:
    """Each data file is there and long enough for the tensors the index puts in it."""
    import os  # noqa: PLC0415

    ends = [0] * num_shards
    for entry in entries.values():
        for part in [entry, *entry.get("parts", [])]:
            ends[part["shard"]] = max(ends[part["shard"]], part["offset"] + part["size"])
    for shard, end in enumerate(ends):
        path = shard_path(prefix, shard, num_shards)
        try:
            size = os.path.getsize(path)
        except OSError:
            raise errors.DataLossError(None, None, f"TensorFlow checkpoint {prefix} is damaged: its data file "
                                       f"{path} is missing") from None
        if size < end:
            raise _damaged(path, f"it holds {size} bytes where its index puts tensors up to byte {end}")




# ---------------------------------------------------------------------------
# TF 1.x's first checkpoint format (Saver's V1, before 2017): one LevelDB table file at the
# prefix itself. Key "" holds a SavedTensorSlices whose meta lists each tensor's name, shape,
# dtype and slices; every other key holds a SavedTensorSlices whose data is one SavedSlice:
# a tensor's name, the slice it covers and its values as a TensorProto. (The pretrained
# models of TF-Slim's model zoo are checkpoints of this kind.)


def read_v1_table(path: str, data: bytes) -> dict:
    """name -> entry (dtype, shape, shard 0, and the SavedSlice messages holding its values)."""
    entries, pieces = {}, []
    for key, value in _table(data, path):
        for number, message in _fields(value, path):
            if key == b"" and number == 1:  # the meta: one SavedSliceMeta per tensor
                for n, meta in _fields(message, path):
                    if n == 1:
                        name, entry = _v1_meta(meta, path)
                        entries[name] = entry
            elif number == 2:  # a SavedSlice
                pieces.append(message)
    for piece in pieces:
        fields = dict(_fields(piece, path))
        name = fields.get(1, b"").decode("utf-8", "replace")
        if name not in entries:
            raise _damaged(path, f"it holds values of tensor {name}, which its meta does not list")
        entries[name]["slices"].append(piece)
    return entries


def _v1_meta(meta: bytes, path: str) -> tuple[str, dict]:
    name, shape, dtype = "", [], None
    for number, value in _fields(meta, path):
        if number == 1:
            name = value.decode("utf-8", "replace")
        elif number == 2:
            shape = [_dim_size(dim, path) for n, dim in _fields(value, path) if n == 2]
        elif number == 3:
            if value not in _DTYPES:
                raise errors.UnimplementedError(None, None, f"tensor of TensorFlow checkpoint {path} is "
                                                f"{_NAMES.get(value, f'DataType {value}')}: distflow cannot read it")
            dtype = np.dtype(_DTYPES[value])
    if dtype is None:
        raise _damaged(path, f"tensor {name} has no dtype")
    return name, {"dtype": dtype, "shape": shape, "shard": 0, "slices": []}


def read_v1_tensor(path: str, name: str, entry: dict) -> np.ndarray:
    """Tensor ``name`` assembled from its slices (one, for a variable saved whole)."""
    shape, dtype = entry["shape"], entry["dtype"]
    out = np.empty(shape, dtype=dtype)
    covered = np.zeros(shape, dtype=bool)
    for piece in entry["slices"]:
        fields = _fields(piece, path)
        extents = next((_extents(v, shape, path) for n, v in fields if n == 2), [slice(None)] * len(shape))
        proto = next((v for n, v in fields if n == 3), None)
        if proto is None:
            raise _damaged(path, f"a slice of tensor {name} has no values")
        region = out[tuple(extents)]
        values = _tensor_proto_values(proto, dtype, path, name)
        if values.size == 1 and region.size != 1:
            values = np.full(region.shape, values.reshape(()), dtype=dtype)
        if values.size != region.size:
            raise _damaged(path, f"a slice of tensor {name} holds {values.size} values for {region.size} places")
        out[tuple(extents)] = values.reshape(region.shape)
        covered[tuple(extents)] = True
    if not covered.all():
        raise _damaged(path, f"the slices of tensor {name} do not cover it")
    return out


def _extents(proto: bytes, shape: list, path: str) -> list:
    extents = [slice(None)] * len(shape)
    dims = [v for n, v in _fields(proto, path) if n == 1]
    for i, extent in enumerate(dims[:len(shape)]):
        fields = dict(_fields(extent, path))
        if 2 in fields:  # (no length: the whole dimension)
            start = fields.get(1, 0)
            extents[i] = slice(start, start + fields[2])
    return extents


# TensorProto's repeated value fields: field number -> NumPy type of the wire values
_VALUE_FIELDS = {5: np.float32, 6: np.float64, 9: np.float32, 12: np.float64}
_VARINT_FIELDS = (7, 10, 11, 13, 16, 17)  # int_val, int64_val, bool_val, half_val (bits), uint32, uint64


def _tensor_proto_values(proto: bytes, dtype: np.dtype, path: str, name: str) -> np.ndarray:
    strings, numbers, content = [], [], None
    for number, value in _fields(proto, path):
        if number == 4:
            content = value
        elif number == 8:
            strings.append(value)
        elif number in _VALUE_FIELDS:  # packed (bytes) or one value (a fixed-width int)
            kind = np.dtype(_VALUE_FIELDS[number])
            raw = value if isinstance(value, bytes) else value.to_bytes(kind.itemsize, "little")
            numbers.extend(np.frombuffer(raw, dtype=kind.newbyteorder("<")).tolist())
        elif number in _VARINT_FIELDS:
            ints = _packed_varints(value, path) if isinstance(value, bytes) else [value]
            if number == 13:  # half_val: float16 bits
                numbers.extend(np.array(ints, np.uint16).view(np.float16).tolist())
            else:
                numbers.extend(v - (1 << 64) if v >= 1 << 63 else v for v in ints)
    if dtype == np.dtype(object):
        out = np.empty(len(strings), dtype=object)
        out[:] = strings
        return out
    if content is not None:
        return np.frombuffer(content, dtype=dtype.newbyteorder("<")).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        pairs = np.array(numbers, dtype=np.float64).reshape(-1, 2)
        return (pairs[:, 0] + 1j * pairs[:, 1]).astype(dtype)
    return np.array(numbers).astype(dtype)


def _packed_varints(data: bytes, path: str) -> list:
    out, pos = [], 0
    while pos < len(data):
        value, pos = _varint(data, pos, path)
        out.append(value)
    return out


# ---------------------------------------------------------------------------
# Writing a bundle that TensorFlow reads (``distflow convert-checkpoint``)

_ENUMS = {np.dtype(v): k for k, v in _DTYPES.items() if v is not object}


def _field(number: int, value) -> bytes:
    """One protocol buffer field: an int as a varint, bytes length-delimited."""
    if isinstance(value, bytes):
        return varint.encode(number << 3 | 2) + varint.encode(len(value)) + value
    return varint.encode(number << 3) + varint.encode(value)


def _masked(crc: int) -> bytes:
    return mask(crc).to_bytes(4, "little")


def _tensor_bytes(value: np.ndarray) -> tuple[bytes, int]:
    """A tensor's bytes in a bundle's data file, and their checksum as TensorFlow sums them."""
    if value.dtype == np.dtype(object):
        items = [v if isinstance(v, bytes) else str(v).encode() for v in value.reshape(-1)]
        crc = crc32c(b"".join(len(v).to_bytes(4, "little") for v in items))
        checksum = _masked(crc)
        crc = crc32c(checksum, crc)
        for item in items:
            crc = crc32c(item, crc)
        return b"".join(varint.encode(len(v)) for v in items) + checksum + b"".join(items), crc
    raw = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<")).tobytes()
    return raw, crc32c(raw)


def _block_with_trailer(entries: list) -> bytes:
    """A table block of (key, value) pairs, keys whole (a restart point at each), and its trailer."""
    body, restarts = bytearray(), []
    for key, value in entries:
        restarts.append(len(body))
        body += varint.encode(0) + varint.encode(len(key)) + varint.encode(len(value)) + key + value
    for offset in restarts or [0]:
        body += offset.to_bytes(4, "little")
    body += len(restarts or [0]).to_bytes(4, "little")
    return bytes(body) + b"\x00" + _masked(crc32c(bytes(body) + b"\x00"))


def write_bundle(prefix: str, tensors: dict) -> None:
    """Writes ``tensors`` (name -> NumPy array) as a TensorFlow checkpoint at ``prefix``: one
    data file and the index, each to a temporary name first and renamed into place (the
    index last). bfloat16 and other dtypes TensorFlow's bundles do not hold are a TypeError."""
    import os  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    data, entries = bytearray(), []
    for name in sorted(tensors):
        value = np.asarray(tensors[name])
        kind = 7 if value.dtype == np.dtype(object) else _ENUMS.get(value.dtype)
        if kind is None:
            raise TypeError(f"tensor {name}: TensorFlow's checkpoints do not hold {value.dtype}")
        raw, crc = _tensor_bytes(value)
        shape = b"".join(_field(2, _field(1, int(d))) for d in value.shape)
        entry = (_field(1, kind) + _field(2, shape) + _field(4, len(data)) + _field(5, len(raw))
                 + varint.encode(6 << 3 | 5) + _masked(crc))
        entries.append((name.encode(), entry))
        data += raw
    header = _field(1, 1) + _field(3, _field(1, 1))  # one shard, little-endian; producer version 1
    table = _block_with_trailer([(b"", header)] + entries)
    meta_index = _block_with_trailer([])
    last = entries[-1][0] if entries else b""
    index = _block_with_trailer([(last + b"\x00", varint.encode(0) + varint.encode(len(table) - _BLOCK_TRAILER))])
    meta_offset = len(table)
    index_offset = meta_offset + len(meta_index)
    handles = (varint.encode(meta_offset) + varint.encode(len(meta_index) - _BLOCK_TRAILER)
               + varint.encode(index_offset) + varint.encode(len(index) - _BLOCK_TRAILER))
    footer = handles + b"\x00" * (40 - len(handles)) + MAGIC
    for path, content in ((shard_path(prefix, 0, 1), bytes(data)),
                          (prefix + ".index", table + meta_index + index + footer)):
        folder = os.path.dirname(path) or "."
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".tmp-")
        try:
            with os.fdopen(handle, "wb") as f:
                f.write(content)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise


# ---------------------------------------------------------------------------
# TF's object-based checkpoints (tf.train.Checkpoint, Keras's save_weights in TF's format) key
# each variable by its path in the program's objects ("layer_with_weights-0/kernel/
# .ATTRIBUTES/VARIABLE_VALUE"); their "_CHECKPOINTABLE_OBJECT_GRAPH" tensor, a
# TrackableObjectGraph, names each variable's graph name too (its "full_name"). A restore by
# graph name finds the variable through it, as TF 1.x's Saver does.

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def object_graph_keys(graph: bytes, path: str) -> dict:
    """graph name -> checkpoint key, from a serialized TrackableObjectGraph."""
    keys = {}
    for number, node in _fields(graph, path):
        if number != 1:
            continue
        for field, attribute in _fields(node, path):
            if field != 2:
                continue
            parts = dict(_fields(attribute, path))
            if parts.get(1) == b"VARIABLE_VALUE" and parts.get(2) and parts.get(3):
                keys[parts[2].decode("utf-8", "replace")] = parts[3].decode("utf-8", "replace")
    return keys
