"""Binning values by edges: ``tf.searchsorted`` and the fixed-width histograms
(``histogram_fixed_width``, ``histogram_fixed_width_bins``)."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, ops
from ..framework.registry import not_differentiable, register_op
from . import array_ops, math_ops
from .op_util import make_tensor
from .segment_ops import bincount


@register_op("SearchSorted", shape=lambda op: op.inputs[1].shape, dtype=lambda op: op._attr("out_type"))
def _search_sorted_kernel(xp, sorted_sequence, values, *, side, out_type):
    seq = np.atleast_2d(sorted_sequence)
    vals = np.atleast_2d(values)
    out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
    return out.reshape(np.shape(values)).astype(out_type.as_numpy_dtype)


not_differentiable("SearchSorted")


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each value, its insertion index in the (row-wise) sorted sequence."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    a = ops.convert_to_tensor(sorted_sequence)
    v = ops.convert_to_tensor(values, dtype=a.dtype.base_dtype)
    return make_tensor("SearchSorted", [a, v], {"side": side, "out_type": dtypes.as_dtype(out_type)},
                       name or "SearchSorted")


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin index of each value in ``nbins`` equal bins over ``value_range`` (outliers in the end bins)."""
    with ops.name_scope(name, "histogram_fixed_width_bins", [values, value_range]):
        values = math_ops.cast(ops.convert_to_tensor(values), dtypes.float64)
        value_range = math_ops.cast(ops.convert_to_tensor(value_range), dtypes.float64)
        low, high = value_range[0], value_range[1]
        scaled = (values - low) / (high - low)
        index = math_ops.cast(math_ops.floor(scaled * nbins), dtypes.int64)
        index = math_ops.maximum(math_ops.minimum(index, nbins - 1), 0)
        return math_ops.cast(index, dtype)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """How many values fall in each of ``nbins`` equal bins over ``value_range``."""
    with ops.name_scope(name, "histogram_fixed_width", [values, value_range]):
        bins = array_ops.reshape(histogram_fixed_width_bins(values, value_range, nbins), [-1])
        return math_ops.cast(bincount(bins, minlength=nbins, maxlength=nbins), dtype)
