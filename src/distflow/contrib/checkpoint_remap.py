"""``tf.contrib.framework``'s initializers that load a matrix from a checkpoint across a change
of vocabulary: ``load_and_remap_matrix_initializer``, ``load_embedding_initializer``,
``load_linear_multiclass_bias_initializer`` and ``load_variable_slot_initializer``.

The rows (and columns) are matched by the entries of the old and new vocabulary files; a
new entry the old vocabulary lacks, and each out-of-vocabulary bucket, take the
``initializer``'s value at its place (TF's kernel hands the initializer's values to the
missing cells in order instead: the same distribution, other draws). A partitioned
variable's part loads its own rows. The checkpoint is read when the initializer runs.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..ops import array_ops, init_ops, io_ops, math_ops, slicing_ops
from ..platform import gfile


def _entries(path) -> list:
    with gfile.GFile(path, "r") as f:
        return [line.rstrip("\r\n") for line in f]


def _remapping(new_vocab_file, old_vocab_file, offset: int, count: int, old_vocab_size: int) -> np.ndarray:
    """For new entries ``offset .. offset + count``, each one's row in the old vocabulary (-1:
    not there); without vocabulary files, the same rows."""
    if new_vocab_file is None or old_vocab_file is None:
        return np.arange(offset, offset + count, dtype=np.int64)
    new = _entries(new_vocab_file)[offset:offset + count]
    if len(new) < count:
        raise ValueError(f"The new vocabulary {new_vocab_file} has {offset + len(new)} entries, fewer than "
                         f"{offset + count}")
    old = _entries(old_vocab_file)
    old = old[:old_vocab_size] if old_vocab_size >= 0 else old
    where = {}
    for i, entry in enumerate(old):
        where.setdefault(entry, i)
    return np.array([where.get(entry, -1) for entry in new], np.int64)


def _load_and_remap(ckpt_path, old_tensor_name, rows: np.ndarray, columns: np.ndarray, num_cols: int, initializer,
                    num_col_oov_buckets: int, oov_rows: int):
    """The loaded rows ``rows`` (-1: new) and columns ``columns`` of the checkpoint's matrix,
    the initializer's values where nothing is loaded, then ``oov_rows`` rows and
    ``num_col_oov_buckets`` columns of it."""
    shape = [len(rows), num_cols]
    fresh = initializer(shape, dtype=dtypes.float32)
    if len(rows):
        old = io_ops.restore_v2(array_ops.constant(ckpt_path), [old_tensor_name], [dtypes.float32])[0]
        loaded = slicing_ops.gather(old, np.maximum(rows, 0))
        found = rows[:, None] >= 0
        if columns is not None:
            loaded = slicing_ops.gather(loaded, np.maximum(columns, 0), axis=1)
            found = found & (columns[None, :] >= 0)
        value = math_ops.where(array_ops.constant(np.broadcast_to(found, shape)), loaded, fresh)
    else:
        value = fresh
    if oov_rows:
        value = slicing_ops.concat([value, initializer([oov_rows, num_cols], dtype=dtypes.float32)], 0)
    if num_col_oov_buckets:
        value = slicing_ops.concat([value, initializer([len(rows) + oov_rows, num_col_oov_buckets],
                                                       dtype=dtypes.float32)], 1)
    return value


def load_and_remap_matrix_initializer(ckpt_path, old_tensor_name, new_row_vocab_size, new_col_vocab_size,
                                      old_row_vocab_size=-1, old_row_vocab_file=None, new_row_vocab_file=None,
                                      old_col_vocab_file=None, new_col_vocab_file=None, num_row_oov_buckets=0,
                                      num_col_oov_buckets=0, initializer=None, max_rows_in_memory=-1):
    """An initializer of a [new_row_vocab_size + num_row_oov_buckets, new_col_vocab_size +
    num_col_oov_buckets] float32 matrix from the checkpoint's ``old_tensor_name``, its rows
    (columns) matched by the vocabulary files where given, else taken in order."""
    initializer = initializer or init_ops.zeros_initializer()

    def _initializer(shape, dtype=dtypes.float32, partition_info=None):
        if dtypes.as_dtype(dtype) != dtypes.float32:
            raise TypeError(f"Currently, only float32 is supported. Received dtype: {dtype}")
        shape = list(shape)
        if len(shape) != 2:
            raise ValueError(f"Expected 2-dim shape, but received: {shape}")
        if shape[0] <= 0:
            raise ValueError(f"Expected 1st dim of shape to be > 0, but received shape: {shape}")
        if shape[1] != new_col_vocab_size + num_col_oov_buckets:
            raise ValueError(f"Expected shape[1] ({shape[1]}) to be equal to new_col_vocab_size "
                             f"({new_col_vocab_size}) + num_col_oov_buckets ({num_col_oov_buckets})")
        offset = partition_info.single_offset(shape) if partition_info is not None else 0
        if offset + shape[0] > new_row_vocab_size + num_row_oov_buckets:
            raise ValueError(f"Trying to initialize {shape[0]} additional rows after {offset} rows, but only "
                             f"{new_row_vocab_size + num_row_oov_buckets} rows are expected.")
        oov_rows = min(shape[0], max(0, offset + shape[0] - new_row_vocab_size))
        rows = _remapping(new_row_vocab_file, old_row_vocab_file, offset, shape[0] - oov_rows, old_row_vocab_size)
        columns = None if new_col_vocab_file is None or old_col_vocab_file is None else \
            _remapping(new_col_vocab_file, old_col_vocab_file, 0, new_col_vocab_size, -1)
        return _load_and_remap(ckpt_path, old_tensor_name, rows, columns, new_col_vocab_size, initializer,
                               num_col_oov_buckets, oov_rows)

    return _initializer


def load_embedding_initializer(ckpt_path, embedding_tensor_name, new_vocab_size, embedding_dim, old_vocab_file,
                               new_vocab_file, old_vocab_size=-1, num_oov_buckets=0, initializer=None,
                               max_rows_in_memory=-1):
    """An embedding's initializer from the checkpoint's ``embedding_tensor_name``, its rows
    matched by the vocabulary files (new words and OOV buckets: ``initializer``'s values,
    a truncated normal of stddev 1/sqrt(embedding_dim) by default, as TF's)."""
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(stddev=1.0 / np.sqrt(embedding_dim))
    return load_and_remap_matrix_initializer(ckpt_path, embedding_tensor_name, new_vocab_size, embedding_dim,
                                             old_vocab_size, old_vocab_file, new_vocab_file,
                                             num_row_oov_buckets=num_oov_buckets, initializer=initializer,
                                             max_rows_in_memory=max_rows_in_memory)


def load_linear_multiclass_bias_initializer(ckpt_path, bias_tensor_name, new_class_vocab_size, old_class_vocab_file,
                                            new_class_vocab_file, num_class_oov_buckets=0, initializer=None,
                                            max_rows_in_memory=-1):
    """A multi-class linear model's bias ([classes, 1]) from the checkpoint, matched by the class
    vocabularies (new classes and OOV buckets: zeros by default)."""
    return load_and_remap_matrix_initializer(ckpt_path, bias_tensor_name, new_class_vocab_size, 1,
                                             old_row_vocab_file=old_class_vocab_file,
                                             new_row_vocab_file=new_class_vocab_file,
                                             num_row_oov_buckets=num_class_oov_buckets,
                                             initializer=initializer or init_ops.zeros_initializer(),
                                             max_rows_in_memory=max_rows_in_memory)


def load_variable_slot_initializer(ckpt_path, old_tensor_name, primary_partition_info, new_row_vocab_size,
                                   new_col_vocab_size, old_row_vocab_file=None, new_row_vocab_file=None,
                                   old_col_vocab_file=None, new_col_vocab_file=None, num_row_oov_buckets=0,
                                   num_col_oov_buckets=0, initializer=None, max_rows_in_memory=-1):
    """``load_and_remap_matrix_initializer`` for an optimizer's slot of a partitioned variable:
    the part's rows are those of its primary variable's part (``primary_partition_info``)."""
    load = load_and_remap_matrix_initializer(ckpt_path, old_tensor_name, new_row_vocab_size, new_col_vocab_size,
                                             old_row_vocab_file=old_row_vocab_file,
                                             new_row_vocab_file=new_row_vocab_file,
                                             old_col_vocab_file=old_col_vocab_file,
                                             new_col_vocab_file=new_col_vocab_file,
                                             num_row_oov_buckets=num_row_oov_buckets,
                                             num_col_oov_buckets=num_col_oov_buckets, initializer=initializer,
                                             max_rows_in_memory=max_rows_in_memory)

    def _initializer(shape, dtype=dtypes.float32, partition_info=None):
        return load(shape, dtype, partition_info=primary_partition_info)

    return _initializer
