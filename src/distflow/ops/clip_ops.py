"""Gradient clipping: ``clip_by_norm``, ``global_norm``, ``clip_by_global_norm``,
``clip_by_average_norm`` (``clip_by_value`` is in math_ops)."""

from __future__ import annotations

from ..framework import ops
from . import array_ops, math_ops, nn_ops, reduction_ops
from .indexed_slices import IndexedSlices


def clip_by_norm(t, clip_norm, axes=None, name=None) -> ops.Tensor:
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: unchanged when its norm is small enough."""
    with ops.name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        t = ops.convert_to_tensor(t)
        clip_norm = ops.convert_to_tensor(clip_norm, dtype=t.dtype.base_dtype)
        l2sum = reduction_ops.reduce_sum(t * t, axes, keepdims=True)
        positive = math_ops.greater(l2sum, 0)
        # Where the norm is 0 the square root's gradient is infinite: take it of 1 there.
        safe = math_ops.where(positive, l2sum, array_ops.ones_like(l2sum))
        norm = math_ops.where(positive, math_ops.sqrt(safe), l2sum)
        clipped = t * clip_norm / math_ops.maximum(norm, clip_norm)
        return array_ops.identity(clipped, name=scope or None)


def _values(t) -> ops.Tensor:
    return t.values if isinstance(t, IndexedSlices) else ops.convert_to_tensor(t)


def global_norm(t_list, name=None) -> ops.Tensor:
    """sqrt(sum of the squares of every entry of every tensor in ``t_list``); None entries are skipped.

    An IndexedSlices counts by its values, as in TF 1.x (rows repeated in its indices count
    once each, not summed first), so that a sparse gradient is never made dense here."""
    if isinstance(t_list, ops.Tensor) or not hasattr(t_list, "__iter__"):
        raise TypeError("t_list should be a sequence")
    t_list = list(t_list)
    with ops.name_scope(name, "global_norm", [t for t in t_list if t is not None]) as scope:
        # (as TF 1.x computes it: each tensor's L2Loss, half its sum of squares, in one pass
        # and no temporary; Square then Sum made a squared copy of every gradient)
        halves = [nn_ops.l2_loss(_values(t)) for t in t_list if t is not None]
        if not halves:
            return array_ops.constant(0.0, name=scope or None)
        half = math_ops.add_n(halves) if len(halves) > 1 else halves[0]
        return math_ops.sqrt(half * array_ops.constant(2.0, dtype=half.dtype), name=scope or None)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor by ``clip_norm / max(global_norm, clip_norm)``.

    Returns:
      ``(list_clipped, global_norm)``; None entries stay None. An infinite global norm
      makes every entry NaN, as in TensorFlow (a sign that training diverged).
    """
    if isinstance(t_list, ops.Tensor) or not hasattr(t_list, "__iter__"):
        raise TypeError("t_list should be a sequence")
    t_list = list(t_list)
    with ops.name_scope(name, "clip_by_global_norm", [t for t in t_list if t is not None]):
        norm = global_norm(t_list, "global_norm") if use_norm is None else ops.convert_to_tensor(use_norm)
        dtype = norm.dtype.base_dtype
        clip_norm = ops.convert_to_tensor(clip_norm, dtype=dtype)
        scale = clip_norm * math_ops.minimum(1.0 / norm, 1.0 / clip_norm)
        clipped = []
        for i, t in enumerate(t_list):
            if t is None:
                clipped.append(None)
                continue
            values = _values(t)
            scaled = array_ops.identity(values * math_ops.cast(scale, values.dtype.base_dtype),
                                        name=f"clip_by_global_norm/_{i}")
            # (a sparse gradient stays sparse, as in TF 1.x: the optimizer updates only its rows)
            clipped.append(IndexedSlices(scaled, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else scaled)
        return clipped, norm


def clip_by_average_norm(t, clip_norm, name=None) -> ops.Tensor:
    """``clip_by_norm`` on the L2 norm divided by the number of elements."""
    with ops.name_scope(name, "clip_by_average_norm", [t, clip_norm]):
        t = ops.convert_to_tensor(t)
        n = math_ops.cast(array_ops.size(t), t.dtype.base_dtype)
        l2norm_inv = math_ops.rsqrt(reduction_ops.reduce_sum(t * t))
        return t * clip_norm * math_ops.minimum(l2norm_inv * n, 1.0 / ops.convert_to_tensor(clip_norm,
                                                                                          dtype=t.dtype.base_dtype))
