"""Checkpoint files and the ops that write and read them (SaveV2, RestoreV2, MergeV2Checkpoints).

A checkpoint ``<prefix>`` is:

- ``<prefix>.data-<i>-of-<n>``: n shard files in the safetensors format (an 8-byte
  little-endian header length, a JSON header naming each tensor's dtype, shape and byte
  range, then the raw little-endian bytes). Any safetensors reader opens them. A string
  tensor is stored as bytes (U8: each element's length in 8 bytes, then the elements), its
  shape in the header's ``__metadata__`` (``string:<name>``); the index calls it STRING.
- ``<prefix>.index``: a small JSON file naming the shards, the CRC-32 of each shard's
  header and, for every tensor, its shard, dtype, shape and checksum; a checksum of its
  own content closes it. It is written last: a checkpoint exists once its index does.

Every tensor's bytes carry a CRC-32 (zlib's), in its shard's safetensors header
(``__metadata__``, as ``crc32:<name>``) and in the index; a restore checks it, and a
tensor whose bytes changed on disk is a DataLossError naming the file and the tensor,
never wrong values. So is any other damage once the index exists: a changed byte in the
index or in a shard's header, or a shard file that is missing.

A checkpoint saved while other steps update the variables (asynchronous training) is
still readable: each tensor is copied once, a piece at a time, and the checksum is of
the copied bytes, which are the bytes written. (Computing it on the live variable and
writing the variable afterwards let an update in between break the match.)

Every file is written to a temporary name in the same directory, flushed to disk and
renamed into place, so a process killed mid-save leaves the previous checkpoint whole
and at worst a stray ``*.tmp-*`` file. Nothing is pickled.

The ops run on the device of the task that should touch the files: a sharded Saver
puts one SaveV2 on each parameter-server task (each writes the variables it holds),
then MergeV2Checkpoints writes the index from the shards' headers.
"""

from __future__ import annotations

import json
import os
import struct
import uuid
import zlib

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from ..platform import tensor_bundle
from . import array_ops
from .op_util import make_op, make_tensor

INDEX_FORMAT = "distflow-checkpoint"
_CHECKSUM = "crc32:"  # the key prefix of a tensor's checksum in a shard's __metadata__
_STRING = "string:"  # ... and of a string tensor's shape (its bytes are stored as U8)
STRING = "STRING"  # a string tensor's dtype in the index
INDEX_VERSION = 2  # 2: the index's own checksum and each shard's header checksum
_COPY_BYTES = 1 << 24  # a tensor is copied to the file in pieces of this size

# safetensors dtype names
_ST_NAMES = {np.dtype(np.float32): "F32", np.dtype(np.float64): "F64", np.dtype(np.float16): "F16",
             np.dtype(np.int64): "I64", np.dtype(np.int32): "I32", np.dtype(np.int16): "I16",
             np.dtype(np.int8): "I8", np.dtype(np.uint8): "U8", np.dtype(np.uint16): "U16",
             np.dtype(np.uint32): "U32", np.dtype(np.uint64): "U64", np.dtype(np.bool_): "BOOL"}
_ST_DTYPES = {v: k for k, v in _ST_NAMES.items()}


def entry_dtype(entry: dict) -> np.dtype:
    """The NumPy dtype of a tensor an index lists (TensorFlow's indexes hold it already)."""
    return entry["dtype"] if isinstance(entry["dtype"], np.dtype) else numpy_dtype(entry["dtype"])


def numpy_dtype(safetensors_name: str) -> np.dtype:
    """The NumPy dtype of a safetensors dtype name ("F32" -> float32; an index's "STRING" -> object)."""
    if safetensors_name == STRING:
        return np.dtype(object)
    try:
        return _ST_DTYPES[safetensors_name]
    except KeyError:
        raise errors.DataLossError(None, None, f"unknown checkpoint dtype {safetensors_name!r}") from None


def shard_path(prefix: str, shard: int, num_shards: int) -> str:
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def index_path(prefix: str) -> str:
    return prefix + ".index"


def _text(value) -> str:
    value = value.item() if isinstance(value, np.ndarray) else value
    return value.decode() if isinstance(value, bytes) else str(value)


def atomic_write(path: str, write) -> None:
    """Calls ``write(file)`` on a temporary file, syncs it and renames it to ``path``."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    tmp = f"{path}.tmp-{uuid.uuid4().hex[:12]}"
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def write_safetensors(path: str, tensors: dict[str, np.ndarray]) -> None:
    """Writes ``tensors`` as one safetensors file (atomically).

    The tensors may be variables that other threads update meanwhile: each is copied a
    piece at a time, and the checksum in the header is of the copied bytes, the ones
    written. The header is written first with placeholder checksums of the same length
    and rewritten at the end.
    """
    header: dict = {}
    offset = 0
    arrays = []
    strings = {}  # (a string tensor is stored as bytes, U8: its shape goes in the metadata)
    for name in sorted(tensors):
        arr = np.asarray(tensors[name])
        if arr.dtype == np.dtype(object):
            strings[_STRING + name] = json.dumps(list(arr.shape))
            arr = _string_bytes(name, arr)
        st = _ST_NAMES.get(arr.dtype.newbyteorder("=") if arr.dtype.byteorder not in "=|" else arr.dtype)
        if st is None:
            raise errors.InvalidArgumentError(None, None, f"cannot save tensor '{name}' of dtype {arr.dtype}: "
                                              "checkpoints hold numeric, bool and string tensors")
        header[name] = {"dtype": st, "shape": list(arr.shape), "data_offsets": [offset, offset + arr.nbytes]}
        offset += arr.nbytes
        arrays.append((name, arr))
    checksums = {_CHECKSUM + name: "0" * 8 for name, _ in arrays}

    def encoded() -> bytes:
        raw = json.dumps(dict(header, __metadata__={**checksums, **strings}), separators=(",", ":")).encode()
        return raw + b" " * (-len(raw) % 8)  # the data starts 8-byte aligned

    def write(f):
        raw = encoded()
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for name, arr in arrays:
            checksums[_CHECKSUM + name] = f"{_copy_out(arr, f):08x}"
        final = encoded()
        assert len(final) == len(raw), "a checksum changed the header's length"
        f.seek(8)
        f.write(final)

    atomic_write(path, write)


def _string_bytes(name: str, arr: np.ndarray) -> np.ndarray:
    """A string tensor as bytes: each element's length (8 bytes, little-endian), then the elements."""
    items = []
    for value in arr.reshape(-1):
        if isinstance(value, str):
            value = value.encode()
        if not isinstance(value, bytes):
            raise errors.InvalidArgumentError(None, None, f"cannot save tensor '{name}': an element is "
                                              f"{type(value).__name__}, not bytes")
        items.append(value)
    lengths = np.array([len(v) for v in items], dtype="<u8").tobytes()
    return np.frombuffer(lengths + b"".join(items), dtype=np.uint8)


def _strings_from(name: str, blob: np.ndarray, shape: list, path: str) -> np.ndarray:
    count = int(np.prod(shape, dtype=np.int64))
    data = blob.tobytes()
    lengths = np.frombuffer(data, dtype="<u8", count=count) if len(data) >= 8 * count else None
    if lengths is None or 8 * count + int(lengths.sum()) != len(data):
        raise errors.DataLossError(None, None, f"checkpoint data file {path} is damaged: string tensor {name} "
                                   "does not fill its bytes")
    out = np.empty(count, dtype=object)
    at = 8 * count
    for i, length in enumerate(lengths.tolist()):
        out[i] = data[at:at + length]
        at += length
    return out.reshape(shape)


def _copy_out(arr: np.ndarray, f) -> int:
    """Writes ``arr``'s bytes (little-endian, C order) to ``f`` through copies of at most
    _COPY_BYTES each; returns the CRC-32 of what was written."""
    little = arr.dtype.newbyteorder("<")
    flat = arr.reshape(-1) if arr.flags.c_contiguous else np.ascontiguousarray(arr).reshape(-1)
    step = max(1, _COPY_BYTES // max(1, arr.dtype.itemsize))
    crc = 0
    buf = np.empty(min(step, flat.size), little)
    for begin in range(0, flat.size, step):
        piece = buf[:min(step, flat.size - begin)]
        piece[...] = flat[begin:begin + len(piece)]  # (one copy: what is checked is what is written)
        raw = memoryview(piece).cast("B")
        crc = zlib.crc32(raw, crc)
        f.write(raw)
    return crc


def read_safetensors_header(path: str, checksum: str | None = None, missing=errors.NotFoundError) -> tuple[dict, int]:
    """The header of a safetensors file and where its data begins.

    ``checksum``: the CRC-32 its header bytes must have (from the checkpoint's index);
    ``missing``: the error class for a file that is not there.
    """
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) != 8:
                raise ValueError("file too short")
            (n,) = struct.unpack("<Q", head)
            if n > 100 << 20:
                raise ValueError(f"header of {n} bytes")
            raw = f.read(n)
            if checksum is not None and f"{zlib.crc32(raw):08x}" != checksum:
                raise ValueError("its header does not match its checksum in the index")
            header = json.loads(raw)
            if not isinstance(header, dict):
                raise ValueError("its header is not a JSON object")
    except (FileNotFoundError, NotADirectoryError):
        raise missing(None, None, f"checkpoint data file {path} not found") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise errors.DataLossError(None, None, f"checkpoint data file {path} is damaged: {e}") from None
    metadata = header.pop("__metadata__", None) or {}
    for key, value in metadata.items():  # each tensor's checksum (and a string tensor's shape) goes with its entry
        if key.startswith(_CHECKSUM) and isinstance(header.get(key[len(_CHECKSUM):]), dict):
            header[key[len(_CHECKSUM):]]["crc32"] = value
        elif key.startswith(_STRING) and isinstance(header.get(key[len(_STRING):]), dict):
            try:
                header[key[len(_STRING):]]["string_shape"] = [int(d) for d in json.loads(value)]
            except (ValueError, TypeError):
                raise errors.DataLossError(None, None, f"checkpoint data file {path} is damaged: the shape of "
                                           f"string tensor {key[len(_STRING):]}") from None
    return header, 8 + n


def _header_checksum(path: str) -> str:
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return f"{zlib.crc32(f.read(n)):08x}"


def read_tensor(f, path: str, name: str, header: dict, data_start: int) -> np.ndarray:
    """Tensor ``name`` of the open safetensors file ``f`` (at ``path``, for messages)."""
    entry = header.get(name)
    if entry is None:
        raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint file {path}")
    try:
        dtype = _ST_DTYPES.get(entry["dtype"])
        begin, end = (int(x) for x in entry["data_offsets"])
        shape = tuple(int(d) for d in entry["shape"])
    except (KeyError, TypeError, ValueError) as e:
        raise errors.DataLossError(None, None, f"checkpoint data file {path} is damaged: the entry of tensor "
                                   f"{name} is malformed ({type(e).__name__}: {e})") from None
    if dtype is None:
        raise errors.DataLossError(None, None, f"tensor {name} in {path} has unknown dtype {entry['dtype']}")
    if (end - begin) != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize:
        raise errors.DataLossError(None, None, f"tensor {name} in {path}: {end - begin} bytes for shape {shape}")
    value = np.empty(shape, dtype.newbyteorder("<"))
    f.seek(data_start + begin)
    raw = memoryview(value.reshape(-1)).cast("B")
    if f.readinto(raw) != end - begin:
        raise errors.DataLossError(None, None, f"checkpoint data file {path} is truncated (tensor {name})")
    want = entry.get("crc32")
    if want is not None and f"{zlib.crc32(raw):08x}" != want:
        raise errors.DataLossError(None, None, f"checkpoint data file {path} is damaged: the bytes of tensor "
                                   f"{name} do not match their checksum")
    if "string_shape" in entry:
        return _strings_from(name, value, entry["string_shape"], path)
    return value.astype(dtype, copy=False)


def _index_checksum(index: dict) -> str:
    """The CRC-32 of an index's content (everything but its own checksum), as written."""
    body = {k: v for k, v in index.items() if k != "checksum"}
    return f"{zlib.crc32(json.dumps(body, indent=1, sort_keys=True).encode()):08x}"


def write_index(prefix: str, num_shards: int) -> None:
    """Writes ``<prefix>.index`` from the headers of its shard files (the last step of a save)."""
    tensors = {}
    header_checksums = []
    for shard in range(num_shards):
        path = shard_path(prefix, shard, num_shards)
        header, _ = read_safetensors_header(path)
        header_checksums.append(_header_checksum(path))
        for name, entry in header.items():
            if name in tensors:
                raise errors.InvalidArgumentError(None, None, f"tensor {name} is in two shards of {prefix}")
            tensors[name] = {"shard": shard, "dtype": entry["dtype"], "shape": entry["shape"]}
            if "string_shape" in entry:
                tensors[name].update(dtype=STRING, shape=entry["string_shape"])
            if "crc32" in entry:
                tensors[name]["crc32"] = entry["crc32"]
    index = {"format": INDEX_FORMAT, "version": INDEX_VERSION, "num_shards": num_shards,
             "header_crc32": header_checksums, "tensors": tensors}
    index["checksum"] = _index_checksum(index)
    atomic_write(index_path(prefix), lambda f: f.write(json.dumps(index, indent=1, sort_keys=True).encode()))


# The formats of an index read from a checkpoint that TensorFlow wrote (platform/tensor_bundle.py):
# its tensor bundles (Saver's V2), and the single table file of its first format (V1)
TENSORFLOW_FORMAT = "tensorflow-tensor-bundle"
TENSORFLOW_V1_FORMAT = "tensorflow-v1-table"


def is_v1_checkpoint(prefix: str) -> bool:
    """Whether ``prefix`` is itself a file holding a TF 1.x checkpoint of the first format."""
    try:
        with open(prefix, "rb") as f:
            f.seek(-len(tensor_bundle.MAGIC), os.SEEK_END)
            return f.read() == tensor_bundle.MAGIC
    except OSError:
        return False


def read_index(prefix: str) -> dict:
    """The index of checkpoint ``prefix``, distflow's or TensorFlow's (then its "format" is
    TENSORFLOW_FORMAT and each tensor's "dtype" a NumPy dtype).

    Raises:
      NotFoundError: there is no index (and so no checkpoint) at ``prefix``.
      DataLossError: the index is there but damaged, naming the file.
      UnimplementedError: a TensorFlow checkpoint holds what distflow does not read (tensor_bundle).
    """
    path = index_path(prefix)
    if not os.path.exists(path) and is_v1_checkpoint(prefix):
        with open(prefix, "rb") as f:
            return {"format": TENSORFLOW_V1_FORMAT, "num_shards": 1,
                    "tensors": tensor_bundle.read_v1_table(prefix, f.read())}
    try:
        with open(path, "rb") as f:
            data = f.read()
        if tensor_bundle.is_bundle(data):
            num_shards, tensors = tensor_bundle.read_index(prefix, data, path)
            return {"format": TENSORFLOW_FORMAT, "num_shards": num_shards, "tensors": tensors}
        index = json.loads(data)
    except (FileNotFoundError, NotADirectoryError):
        raise errors.NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any "
                                   f"matching files for {prefix} (no {path})") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise errors.DataLossError(None, None, f"checkpoint index {path} is damaged: {e}") from None
    if not isinstance(index, dict) or index.get("format") != INDEX_FORMAT:
        raise errors.DataLossError(None, None, f"{path} is not a distflow checkpoint index (damaged?)")
    version = index.get("version")
    if version == 1 and "checksum" not in index:
        pass  # written before indexes had checksums
    elif version != INDEX_VERSION or index.get("checksum") != _index_checksum(index):
        raise errors.DataLossError(None, None, f"checkpoint index {path} is damaged: its content does not match "
                                   "its checksum")
    num_shards = index.get("num_shards")
    if not isinstance(index.get("tensors"), dict) or not isinstance(num_shards, int) or num_shards < 1 \
            or len(index.get("header_crc32", [None] * num_shards)) != num_shards:
        raise errors.DataLossError(None, None, f"checkpoint index {path} is damaged: malformed")
    return index


def _object_paths(prefix: str, index: dict, wanted: list) -> dict:
    """graph name -> checkpoint key, for the names of ``wanted`` that a TensorFlow object-based
    checkpoint keys by object path (platform/tensor_bundle.object_graph_keys)."""
    tensors = index["tensors"]
    missing = [name for name in wanted if name not in tensors]
    if not missing or tensor_bundle.OBJECT_GRAPH_KEY not in tensors or index["format"] == INDEX_FORMAT:
        return {}
    if "object_paths" not in index:
        graph = load_checkpoint(prefix, [tensor_bundle.OBJECT_GRAPH_KEY])[tensor_bundle.OBJECT_GRAPH_KEY]
        index["object_paths"] = tensor_bundle.object_graph_keys(graph.reshape(()).item(), index_path(prefix))
    return {name: index["object_paths"][name] for name in missing if name in index["object_paths"]}


def _index_entry(index: dict, prefix: str, name: str):
    entry = index["tensors"].get(name)
    if entry is None:
        raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint {prefix}")
    try:
        shard = int(entry["shard"])
    except (KeyError, TypeError, ValueError):
        shard = -1
    if not 0 <= shard < index["num_shards"]:
        raise errors.DataLossError(None, None, f"checkpoint index {index_path(prefix)} is damaged: tensor {name} "
                                   "has no valid shard")
    return shard


def open_shards(prefix: str, index: dict | None = None) -> list[tuple[str, dict, int]]:
    """(path, header, data start) of every shard of checkpoint ``prefix``, each header
    checked against the index: a shard that is missing or whose header changed is a
    DataLossError naming its file. Reads headers only, not tensors."""
    index = read_index(prefix) if index is None else index
    if index["format"] == TENSORFLOW_V1_FORMAT:
        return [(prefix, None, 0)]
    if index["format"] == TENSORFLOW_FORMAT:
        tensor_bundle.check_data_files(prefix, index["num_shards"], index["tensors"])
        return [(tensor_bundle.shard_path(prefix, i, index["num_shards"]), None, 0) for i in range(index["num_shards"])]
    checksums = index.get("header_crc32") or [None] * index["num_shards"]
    shards = []
    for shard, checksum in enumerate(checksums):
        path = shard_path(prefix, shard, index["num_shards"])
        try:
            header, start = read_safetensors_header(path, checksum, missing=errors.DataLossError)
        except errors.DataLossError as e:
            if "not found" in e.message:
                raise errors.DataLossError(None, None, f"checkpoint {prefix} is damaged: its data file {path} is "
                                           f"missing (its index {index_path(prefix)} names it)") from None
            raise
        shards.append((path, header, start))
    return shards


def load_checkpoint(prefix: str, names=None) -> dict[str, np.ndarray]:
    """The tensors of checkpoint ``prefix`` (all, or those in ``names``) by name. A name that
    an object-based checkpoint of TensorFlow's keys by object path is found by its graph name."""
    index = read_index(prefix)
    wanted = list(index["tensors"]) if names is None else list(names)
    paths = _object_paths(prefix, index, wanted)
    if paths:
        found = load_checkpoint(prefix, [paths.get(name, name) for name in wanted])
        return {name: found[paths.get(name, name)] for name in wanted}
    if index["format"] == TENSORFLOW_V1_FORMAT:
        for name in wanted:
            _index_entry(index, prefix, name)
        return {name: tensor_bundle.read_v1_tensor(prefix, name, index["tensors"][name]) for name in wanted}
    by_shard: dict[int, list[str]] = {}
    for name in wanted:
        by_shard.setdefault(_index_entry(index, prefix, name), []).append(name)
    shards = open_shards(prefix, index)
    out = {}
    for shard, names_in_shard in by_shard.items():  # each shard file opened once
        path, header, data_start = shards[shard]
        with open(path, "rb") as f:
            if index["format"] == TENSORFLOW_FORMAT:
                for name in names_in_shard:
                    entry = index["tensors"][name]
                    out[name] = tensor_bundle.read_tensor(f, path, name, entry) if entry["slices"] is None else \
                        tensor_bundle.read_sliced_tensor(prefix, index["num_shards"], name, entry)
                continue
            for name in names_in_shard:
                if name not in header:
                    raise errors.DataLossError(None, None, f"checkpoint data file {path} is damaged: its index "
                                               f"names tensor {name}, its header does not")
                value = read_tensor(f, path, name, header, data_start)
                if value.dtype != numpy_dtype(index["tensors"][name].get("dtype", "")) \
                        or list(value.shape) != list(index["tensors"][name].get("shape", ())):
                    raise errors.DataLossError(None, None, f"checkpoint {prefix} is damaged: tensor {name} is "
                                               f"{value.dtype}{list(value.shape)} in {path} but its index says "
                                               "otherwise")
                out[name] = value
    return {name: out[name] for name in wanted}


# ---------------------------------------------------------------------------
# Ops


@register_op("SaveV2", shape=lambda op: [], stateful=True)
def _save_v2_kernel(xp, prefix, tensor_names, shape_and_slices, *tensors, dtypes, shard=0, num_shards=1):
    """Writes shard ``shard`` of ``num_shards``; a checkpoint of one shard gets its index too.
    (A SaveV2 of TensorFlow's graphs has neither attribute: it writes a whole checkpoint at
    ``prefix``, a piece that its MergeV2Checkpoints gathers when the Saver is sharded.)"""
    names = [_text(n) for n in np.asarray(tensor_names).reshape(-1)]
    if len(names) != len(tensors):
        raise errors.InvalidArgumentError(None, None, f"SaveV2: {len(names)} names for {len(tensors)} tensors")
    prefix = _text(prefix)
    write_safetensors(shard_path(prefix, shard, num_shards), dict(zip(names, tensors)))
    if num_shards == 1:
        write_index(prefix, 1)


@register_op("MergeV2Checkpoints", shape=lambda op: [], stateful=True)
def _merge_kernel(xp, *prefixes, num_shards=None, delete_old_dirs=True, allow_missing_files=False):
    """distflow's form: the shards of one prefix are written; write its index. TensorFlow's
    form (checkpoint_prefixes, destination_prefix): each source is a whole checkpoint of one
    shard; its data file becomes shard i of the destination, then the destination's index is
    written and the sources go (their folders too, with ``delete_old_dirs``, once empty)."""
    if num_shards is not None:
        write_index(_text(prefixes[0]), num_shards)
        return
    sources, destination = [_text(p) for p in np.asarray(prefixes[0]).reshape(-1)], _text(prefixes[1])
    kept = [s for s in sources if os.path.exists(index_path(s)) or not allow_missing_files]
    for i, source in enumerate(kept):
        index = read_index(source)
        if index["format"] != INDEX_FORMAT or index["num_shards"] != 1:
            raise errors.InvalidArgumentError(None, None, f"MergeV2Checkpoints: {source} is not a checkpoint of "
                                              "one shard that this process wrote")
        os.replace(shard_path(source, 0, 1), shard_path(destination, i, len(kept)))
    write_index(destination, len(kept))
    for source in kept:
        os.unlink(index_path(source))
        folder = os.path.dirname(source)
        if delete_old_dirs and folder and folder != os.path.dirname(destination):
            try:
                os.rmdir(folder)
            except OSError:
                pass  # (not empty: something else is there)


@register_op("RestoreV2", shape=lambda op: [TensorShape(None)] * len(op._attr("dtypes")),
             dtype=lambda op: list(op._attr("dtypes")), stateful=True, list_output=True)
def _restore_v2_kernel(xp, prefix, tensor_names, shape_and_slices, *, dtypes):
    names = [_text(n) for n in np.asarray(tensor_names).reshape(-1)]
    values = load_checkpoint(_text(prefix), names)
    out = []
    for name, dtype in zip(names, dtypes):
        value = values[name]
        if value.dtype != dtype.as_numpy_dtype:
            raise errors.InvalidArgumentError(None, None, f"tensor {name} in checkpoint {_text(prefix)} is "
                                              f"{value.dtype}, the variable is {dtype.name}")
        out.append(value)
    return tuple(out)


@register_op("ShardedFilename", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.string)
def _sharded_filename_kernel(xp, basename, shard, num_shards):
    """TF's name of one shard's temporary file, ``<basename>-<shard>-of-<num_shards>`` (its
    Saver graphs compute the names so)."""
    return np.array(f"{_text(basename)}-{int(shard):05d}-of-{int(num_shards):05d}".encode(), dtype=object)


@register_op("ShardedFilespec", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.string)
def _sharded_filespec_kernel(xp, basename, num_shards):
    return np.array(f"{_text(basename)}-?????-of-{int(num_shards):05d}".encode(), dtype=object)


for _t in ("SaveV2", "MergeV2Checkpoints", "RestoreV2", "ShardedFilename", "ShardedFilespec"):
    not_differentiable(_t)


def _names_and_slices(tensor_names: list[str]) -> list:
    """The string constants SaveV2 and RestoreV2 take: tensor names, and (whole-tensor) slice specs."""
    names = array_ops.constant(np.array([n.encode() for n in tensor_names], dtype=object), dtypes.string,
                               name="tensor_names")
    slices = array_ops.constant(np.array([b""] * len(tensor_names), dtype=object), dtypes.string,
                                name="shape_and_slices")
    return [names, slices]


def save_v2(prefix, tensor_names: list[str], tensors: list, name=None):
    """A whole checkpoint of ``tensors`` at ``prefix`` (TensorFlow's SaveV2; a sharded Saver
    writes each shard so, under a temporary name, and merges them)."""
    return make_op("SaveV2", [prefix, *_names_and_slices(tensor_names), *tensors],
                   {"dtypes": [t.dtype.base_dtype for t in tensors]}, name or "SaveV2")


def restore_v2(prefix, tensor_names: list[str], dtypes_: list, name=None) -> list:
    op = make_op("RestoreV2", [prefix, *_names_and_slices(tensor_names)], {"dtypes": list(dtypes_)},
                 name or "RestoreV2")
    return list(op.outputs)


def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, name=None):
    """TensorFlow's MergeV2Checkpoints: the one-shard checkpoints at ``checkpoint_prefixes``
    become the shards of ``destination_prefix``."""
    return make_op("MergeV2Checkpoints", [checkpoint_prefixes, destination_prefix], {"delete_old_dirs": True},
                   name or "MergeV2Checkpoints")


def sharded_filename(basename, shard: int, num_shards, name=None) -> ops.Tensor:
    return make_tensor("ShardedFilename", [basename, array_ops.constant(shard, dtypes.int32, name="shard"),
                                           num_shards], None, name or "ShardedFilename")
