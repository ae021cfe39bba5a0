"""Datasets that read files: lines of text, TFRecord records, fixed-length records."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework import errors
from ..framework import ops
from ..framework.tensor_shape import TensorShape
from ..ops.op_util import constant_value
from ..platform.tf_record import compression_name, open_for_reading, tf_record_iterator
from . import structure
from .dataset_ops import Dataset


def _names(values) -> list:
    names = np.asarray(values, dtype=object).reshape(-1)
    return [n.decode() if isinstance(n, bytes) else str(n) for n in names]


class _FileDataset(Dataset):
    """``compression_type``: "", "ZLIB" or "GZIP", or a string tensor of them, read when the
    iterator starts."""

    def __init__(self, filenames, compression_type):
        filenames = ops.convert_to_tensor(filenames, dtype=dtypes.string)
        if filenames.shape.ndims not in (None, 0, 1):
            raise ValueError(f"filenames must be a string scalar or vector, got shape {filenames.shape}")
        inputs = [filenames]
        if isinstance(compression_type, ops.Tensor) and constant_value(compression_type) is None:
            self._compression = None
            inputs.append(ops.convert_to_tensor(compression_type, dtype=dtypes.string))
        else:
            if isinstance(compression_type, ops.Tensor):
                compression_type = constant_value(compression_type).item()
            if isinstance(compression_type, bytes):
                compression_type = compression_type.decode()
            self._compression = compression_name(compression_type)
        super().__init__(structure.Spec.tensor(dtypes.string, TensorShape([])), inputs)

    def _records(self, path, compression):
        raise NotImplementedError

    def _iterate(self, values, state):
        compression = self._compression
        if compression is None:
            fed = np.asarray(values[1]).item()
            try:
                compression = compression_name(fed.decode() if isinstance(fed, bytes) else fed)
            except ValueError as e:
                raise errors.InvalidArgumentError(None, None, str(e)) from None
        for path in _names(values[0]):
            try:
                for record in self._records(path, compression):
                    yield (np.array(record, dtype=object),)
            except FileNotFoundError:
                raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None


class TextLineDataset(_FileDataset):
    """The lines of one or more text files, without their line endings, as string scalars."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        super().__init__(filenames, compression_type)

    def _records(self, path, compression):
        with open_for_reading(path, compression) as f:
            for line in f:
                yield line.rstrip(b"\r\n") if line.endswith(b"\n") else line


class TFRecordDataset(_FileDataset):
    """The records of one or more TFRecord files (checksums verified: DataLossError on damage)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        super().__init__(filenames, compression_type)

    def _records(self, path, compression):
        return tf_record_iterator(path, compression)


class FixedLengthRecordDataset(_FileDataset):
    """Records of ``record_bytes`` bytes, after ``header_bytes`` and before ``footer_bytes``; a
    file whose body is not a whole number of records is an InvalidArgumentError, as in TF."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None):
        self._record, self._header, self._footer = int(record_bytes), int(header_bytes or 0), int(footer_bytes or 0)
        if self._record < 1:
            raise ValueError(f"record_bytes must be positive, got {record_bytes}")
        super().__init__(filenames, compression_type)

    def _records(self, path, compression):
        with open_for_reading(path, compression) as f:
            data = f.read()
        body = data[self._header:len(data) - self._footer]
        if len(data) < self._header + self._footer or len(body) % self._record:
            raise errors.InvalidArgumentError(
                None, None, f"Excluding the header ({self._header} bytes) and footer ({self._footer} bytes), input "
                            f"file \"{path}\" has body length {max(len(body), 0)} bytes, which is not an exact "
                            f"multiple of the record length ({self._record} bytes).")
        for start in range(0, len(body), self._record):
            yield body[start:start + self._record]
