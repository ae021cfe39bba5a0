"""``tf.keras.utils.HDF5Matrix``: a dataset of an HDF5 file (h5py's) that reads as an array."""

from __future__ import annotations

import collections

import numpy as np

from .. import saving


class HDF5Matrix:
    """Rows ``start:end`` of the dataset ``dataset`` in the HDF5 file ``datapath``, read as
    they are indexed (an int, a slice, a list or an array of row numbers, relative to
    ``start``), each read through ``normalizer`` when one is given. The files stay open,
    one handle a path for every matrix over it, as in Keras.

    ``fit``, ``evaluate`` and ``predict`` take it where they take an array; they read the
    rows in one go (``np.asarray`` reads ``self[:]``), where TF 1.x's Keras read each batch
    from the file."""

    refs: dict = collections.defaultdict(int)

    def __init__(self, datapath, dataset, start=0, end=None, normalizer=None):
        h5py = saving.h5py()
        if datapath not in self.refs:
            self.refs[datapath] = h5py.File(datapath, "r")
        self.data = self.refs[datapath][dataset]
        self.start = int(start)
        self.end = self.data.shape[0] if end is None else int(end)
        self.normalizer = normalizer

    def __len__(self) -> int:
        return self.end - self.start

    def __getitem__(self, key):
        if isinstance(key, slice):
            begin = 0 if key.start is None else key.start
            stop = self.shape[0] if key.stop is None else key.stop
            if stop + self.start > self.end:
                raise IndexError(f"rows {begin}:{stop} of an HDF5Matrix of {len(self)} rows")
            index = slice(begin + self.start, stop + self.start)
        elif isinstance(key, (int, np.integer)):
            if key + self.start >= self.end:
                raise IndexError(f"row {key} of an HDF5Matrix of {len(self)} rows")
            index = int(key) + self.start
        else:
            rows = np.asarray(key)
            if rows.size and int(rows.max()) + self.start >= self.end:
                raise IndexError(f"row {int(rows.max())} of an HDF5Matrix of {len(self)} rows")
            index = (rows + self.start).tolist()
        value = self.data[index]
        return self.normalizer(value) if self.normalizer is not None else value

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(self[:])
        return value if dtype is None else value.astype(dtype)

    @property
    def shape(self) -> tuple:
        return (self.end - self.start,) + tuple(self.data.shape[1:])

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))
