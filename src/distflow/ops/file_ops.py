"""Files as tensors: ``tf.read_file`` and ``tf.write_file`` (a file's bytes as a scalar string),
and ``tf.matching_files`` (the file names a glob pattern matches)."""

from __future__ import annotations

import glob as _glob
import os

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from ..platform.gfile import os_errors
from .op_util import make_op, make_tensor


@register_op("MatchingFiles", shape=lambda op: TensorShape([None]), dtype=lambda op: dtypes.string)
def _matching_files_kernel(xp, pattern):
    patterns = [p.decode() if isinstance(p, bytes) else str(p) for p in np.asarray(pattern, dtype=object).reshape(-1)]
    return np.array([f.encode() for p in patterns for f in sorted(_glob.glob(p))], dtype=object)


not_differentiable("MatchingFiles")


def matching_files(pattern, name=None):
    """The files matching a glob pattern (or several), sorted."""
    return make_tensor("MatchingFiles", [ops.convert_to_tensor(pattern, dtype=dtypes.string)], None,
                       name or "MatchingFiles")


def _path(filename) -> str:
    path = filename.item() if hasattr(filename, "item") else filename
    return path.decode() if isinstance(path, bytes) else path


@register_op("ReadFile", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.string, stateful=True)
def _read_file_kernel(xp, filename):
    path = _path(filename)
    try:
        with open(path, "rb") as f:
            return np.array(f.read(), dtype=object)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None


@register_op("WriteFile", shape=lambda op: [], stateful=True)
def _write_file_kernel(xp, filename, contents):
    """Writes the file, making the directories it lies in, as TF's WriteFile does."""
    path = _path(filename)
    data = contents.item() if hasattr(contents, "item") else contents
    directory = os.path.dirname(path) or "."
    with os_errors(path):
        try:
            os.makedirs(directory, exist_ok=True)
        except FileExistsError:  # (a file where a directory should be)
            raise errors.FailedPreconditionError(None, None, f"{directory}; Not a directory") from None
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else str(data).encode())


not_differentiable("ReadFile")
not_differentiable("WriteFile")


def read_file(filename, name=None):
    """The bytes of a file, as a scalar string tensor (NotFoundError if it is missing)."""
    return make_tensor("ReadFile", [ops.convert_to_tensor(filename, dtype=dtypes.string)], None, name or "ReadFile")


def write_file(filename, contents, name=None):
    return make_op("WriteFile", [ops.convert_to_tensor(filename, dtype=dtypes.string),
                                 ops.convert_to_tensor(contents, dtype=dtypes.string)], None, name or "WriteFile")
