"""TFRecord files, the container of TensorBoard's event files (``tf.python_io``).

Each record is: its length (uint64, little-endian), the masked CRC-32C of those 8 bytes,
the data, and the masked CRC-32C of the data. A reader checks both checksums and raises
DataLossError on a mismatch, so a torn or damaged file is never read as data.
"""

from __future__ import annotations

import struct

from ..framework import errors

_CASTAGNOLI = 0x82F63B78
_TABLE = []
for _i in range(256):
    _crc = _i
    for _ in range(8):
        _crc = (_crc >> 1) ^ _CASTAGNOLI if _crc & 1 else _crc >> 1
    _TABLE.append(_crc)


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), the checksum TFRecord uses."""
    crc = 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def encode_record(data: bytes) -> bytes:
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc32c(header)) + data + struct.pack("<I", masked_crc32c(data))


class TFRecordCompressionType:
    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    def __init__(self, compression_type=None):
        if compression_type not in (None, "", TFRecordCompressionType.NONE):
            raise NotImplementedError("compressed TFRecord files are not supported by distflow")
        self.compression_type = compression_type


class TFRecordWriter:
    """Writes records to ``path`` (``tf.python_io.TFRecordWriter``)."""

    def __init__(self, path, options=None):
        if options is not None and not isinstance(options, TFRecordOptions):
            TFRecordOptions(options)
        self._file = open(path, "wb")

    def write(self, record: bytes) -> None:
        self._file.write(encode_record(record if isinstance(record, bytes) else bytes(record)))

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def tf_record_iterator(path, options=None):
    """Yields the records of ``path``; DataLossError on a bad checksum or a truncated record."""
    with open(path, "rb") as f:
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                raise errors.DataLossError(None, None, f"truncated record header in {path}")
            length_bytes, crc = header[:8], struct.unpack("<I", header[8:])[0]
            if masked_crc32c(length_bytes) != crc:
                raise errors.DataLossError(None, None, f"corrupted record length in {path}")
            (length,) = struct.unpack("<Q", length_bytes)
            data = f.read(length)
            footer = f.read(4)
            if len(data) < length or len(footer) < 4:
                raise errors.DataLossError(None, None, f"truncated record in {path}")
            if masked_crc32c(data) != struct.unpack("<I", footer)[0]:
                raise errors.DataLossError(None, None, f"corrupted record data in {path}")
            yield data
