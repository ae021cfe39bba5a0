"""Datasets that read files: lines of text, TFRecord records, fixed-length records."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework import errors
from ..framework import ops
from ..framework.tensor_shape import TensorShape
from ..platform.tf_record import compression_name, open_for_reading, tf_record_iterator
from . import structure
from .dataset_ops import Dataset


def _names(values) -> list:
    names = np.asarray(values, dtype=object).reshape(-1)
    return [n.decode() if isinstance(n, bytes) else str(n) for n in names]


class _FileDataset(Dataset):
    def __init__(self, filenames):
        filenames = ops.convert_to_tensor(filenames, dtype=dtypes.string)
        if filenames.shape.ndims not in (None, 0, 1):
            raise ValueError(f"filenames must be a string scalar or vector, got shape {filenames.shape}")
        super().__init__(structure.Spec.tensor(dtypes.string, TensorShape([])), [filenames])

    def _records(self, path):
        raise NotImplementedError

    def _iterate(self, values, state):
        for path in _names(values[0]):
            try:
                for record in self._records(path):
                    yield (np.array(record, dtype=object),)
            except FileNotFoundError:
                raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None


class TextLineDataset(_FileDataset):
    """The lines of one or more text files, without their line endings, as string scalars."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        self._compression = compression_name(compression_type)
        super().__init__(filenames)

    def _records(self, path):
        with open_for_reading(path, self._compression) as f:
            for line in f:
                yield line.rstrip(b"\r\n") if line.endswith(b"\n") else line


class TFRecordDataset(_FileDataset):
    """The records of one or more TFRecord files (checksums verified: DataLossError on damage)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        self._compression = compression_name(compression_type)
        super().__init__(filenames)

    def _records(self, path):
        return tf_record_iterator(path, self._compression)


class FixedLengthRecordDataset(_FileDataset):
    """Records of ``record_bytes`` bytes, after ``header_bytes`` and before ``footer_bytes``."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None):
        self._compression = compression_name(compression_type)
        self._record, self._header, self._footer = int(record_bytes), int(header_bytes or 0), int(footer_bytes or 0)
        super().__init__(filenames)

    def _records(self, path):
        with open_for_reading(path, self._compression) as f:
            data = f.read()
        body = data[self._header:len(data) - self._footer]
        for start in range(0, len(body) - self._record + 1, self._record):
            yield body[start:start + self._record]
