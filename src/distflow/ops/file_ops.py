"""Files as tensors: ``tf.matching_files`` (the file names a glob pattern matches)."""

from __future__ import annotations

import glob as _glob

import numpy as np

from ..framework import dtypes, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import make_tensor


@register_op("MatchingFiles", shape=lambda op: TensorShape([None]), dtype=lambda op: dtypes.string)
def _matching_files_kernel(xp, pattern):
    patterns = [p.decode() if isinstance(p, bytes) else str(p) for p in np.asarray(pattern, dtype=object).reshape(-1)]
    return np.array([f.encode() for p in patterns for f in sorted(_glob.glob(p))], dtype=object)


not_differentiable("MatchingFiles")


def matching_files(pattern, name=None):
    """The files matching a glob pattern (or several), sorted."""
    return make_tensor("MatchingFiles", [ops.convert_to_tensor(pattern, dtype=dtypes.string)], None,
                       name or "MatchingFiles")
