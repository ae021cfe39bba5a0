"""TFRecord files, the container of TensorBoard's event files (``tf.python_io``).

Each record is: its length (uint64, little-endian), the masked CRC-32C of those 8 bytes,
the data, and the masked CRC-32C of the data. A reader checks both checksums and raises
DataLossError on a mismatch, so a torn or damaged file is never read as data.
"""

from __future__ import annotations

import functools
import gzip
import io
import struct
import zlib

from ..framework import errors
from .crc32c import crc32c, masked_crc32c, masked_many  # noqa: F401 - (tf_record.crc32c: the name other modules use)


@functools.lru_cache(maxsize=4096)
def _masked_length_sum(length_bytes: bytes) -> int:
    """The masked CRC of a record's length field: records of one length share it, and a
    file's records have few lengths."""
    return masked_crc32c(length_bytes)


def encode_record(data: bytes) -> bytes:
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc32c(header)) + data + struct.pack("<I", masked_crc32c(data))


class TFRecordCompressionType:
    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {None: "", "": "", 0: "", 1: "ZLIB", 2: "GZIP", "ZLIB": "ZLIB", "GZIP": "GZIP", "NONE": ""}


def compression_name(options) -> str:
    """"", "ZLIB" or "GZIP" from TFRecordOptions, a TFRecordCompressionType or its name
    (as the readers, writers and datasets take them)."""
    value = options.compression_type if isinstance(options, TFRecordOptions) else options
    try:
        return _NAMES[value]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown compression type {value!r}: use '', 'ZLIB' or 'GZIP'") from None


class TFRecordOptions:
    """How a TFRecord file is compressed: the whole file is one GZIP or ZLIB stream, as TF writes it."""

    compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB", TFRecordCompressionType.GZIP: "GZIP",
                            TFRecordCompressionType.NONE: ""}

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None, output_buffer_size=None,
                 window_bits=None, compression_level=None, compression_method=None, mem_level=None,
                 compression_strategy=None):
        compression_name(compression_type)  # (checked)
        self.compression_type = compression_type
        self.compression_level = compression_level

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        return compression_name(options) if options is not None else ""


def open_for_reading(path, compression) -> "io.BufferedIOBase":
    """``path`` opened for reading, decompressed as ``compression`` ("", "ZLIB", "GZIP") says;
    a stream that is not what it says is a DataLossError naming the file."""
    kind = compression_name(compression)
    if kind == "GZIP":
        return gzip.open(path, "rb")
    if kind == "ZLIB":
        with open(path, "rb") as f:
            raw = f.read()
        try:
            return io.BytesIO(zlib.decompress(raw))
        except zlib.error as e:
            raise errors.DataLossError(None, None, f"{path} is not a ZLIB stream: {e}") from None
    return open(path, "rb")


class _ZlibFile:
    def __init__(self, path, level):
        self._file = open(path, "wb")
        self._compressor = zlib.compressobj(-1 if level is None else level)
        self.closed = False

    def write(self, data: bytes) -> None:
        self._file.write(self._compressor.compress(data))

    def flush(self) -> None:
        self._file.write(self._compressor.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self) -> None:
        if not self.closed:
            self._file.write(self._compressor.flush())
            self._file.close()
            self.closed = True


class TFRecordWriter:
    """Writes records to ``path`` (``tf.python_io.TFRecordWriter``), compressed as ``options`` says."""

    def __init__(self, path, options=None):
        kind = compression_name(options)
        level = getattr(options, "compression_level", None)
        if kind == "GZIP":
            self._file = gzip.open(path, "wb", compresslevel=9 if level in (None, -1) else level)
        elif kind == "ZLIB":
            self._file = _ZlibFile(path, level)
        else:
            self._file = open(path, "wb")

        self._pending: list[bytes] = []  # records written but not yet encoded (their checksums
        self._pending_bytes = 0  # are computed together: platform/crc32c.crc32c_many)

    def write(self, record: bytes) -> None:
        self._pending.append(record if isinstance(record, bytes) else bytes(record))
        self._pending_bytes += len(self._pending[-1]) + 16
        if self._pending_bytes >= _BATCH_BYTES:
            self._encode_pending()

    def _encode_pending(self) -> None:
        records, self._pending, self._pending_bytes = self._pending, [], 0
        if not records:
            return
        parts = []
        for record, data_sum in zip(records, masked_many(records)):
            header = struct.pack("<Q", len(record))
            parts += [header, struct.pack("<I", _masked_length_sum(header)), record, struct.pack("<I", data_sum)]
        self._file.write(b"".join(parts))

    def flush(self) -> None:
        self._encode_pending()
        self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            self._encode_pending()
            self._file.close()

    def __del__(self):
        # (a writer dropped without close() writes what it was given, as TF's does when destroyed:
        # the records it holds to checksum together would otherwise be lost)
        try:
            if hasattr(self, "_file"):
                self.close()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def tf_record_iterator(path, options=None):
    """Yields the records of ``path`` (decompressed as ``options`` says); DataLossError on a
    bad checksum, a truncated record or a stream that is not what ``options`` says."""
    try:
        with open_for_reading(path, options) as f:
            yield from _records(f, path)
    except (OSError, EOFError, zlib.error) as e:
        if isinstance(e, FileNotFoundError):
            raise
        raise errors.DataLossError(None, None, f"cannot read {path} as a {compression_name(options) or 'plain'} "
                                   f"TFRecord file: {e}") from None


_BATCH_BYTES = 4 << 20  # records read ahead, and checked together, at a time


def _records(f, path):
    """The records of the open file ``f``: each length checked as it is read (a damaged one
    must not make us read gigabytes), the data of up to 4 MB of records checked together
    (platform/crc32c.crc32c_many: some 350 MB/s for records of 1 KB, against 5-11 MB/s one
    by one); records before a damaged one are given first, then the DataLossError."""
    while True:
        batch, size, problem, ended = [], 0, None, False
        while size < _BATCH_BYTES:
            header = f.read(12)
            if not header:
                ended = True
                break
            if len(header) < 12:
                problem = f"truncated record header in {path}"
                break
            length_bytes, crc = header[:8], struct.unpack("<I", header[8:])[0]
            if _masked_length_sum(length_bytes) != crc:
                problem = f"corrupted record length in {path}"
                break
            (length,) = struct.unpack("<Q", length_bytes)
            data = f.read(length)
            footer = f.read(4)
            if len(data) < length or len(footer) < 4:
                problem = f"truncated record in {path}"
                break
            batch.append((data, struct.unpack("<I", footer)[0]))
            size += length + 16
        for (data, expected), found in zip(batch, masked_many([data for data, _ in batch])):
            if found != expected:
                raise errors.DataLossError(None, None, f"corrupted record data in {path}")
            yield data
        if problem is not None:
            raise errors.DataLossError(None, None, problem)
        if ended:
            return
