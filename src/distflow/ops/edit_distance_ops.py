"""``tf.edit_distance``: the Levenshtein distance between sparse sequences (TF's EditDistance op)."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import make_tensor
from .sparse_ops import as_sparse_tensor


def _levenshtein(a, b) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _sequences(indices, values):
    """{leading index tuple: [values in the order of the last coordinate]}."""
    groups: dict = {}
    order = np.lexsort(indices.T[::-1]) if len(indices) else []
    for i in order:
        groups.setdefault(tuple(int(v) for v in indices[i, :-1]), []).append(values[i])
    return groups


@register_op("EditDistance", shape=lambda op: TensorShape(None), dtype=lambda op: dtypes.float32)
def _edit_distance_kernel(xp, h_ind, h_val, h_shape, t_ind, t_val, t_shape, *, normalize):
    out_shape = np.maximum(h_shape[:-1], t_shape[:-1]).astype(int)
    hyp, truth = _sequences(h_ind, h_val), _sequences(t_ind, t_val)
    out = np.zeros(out_shape, np.float32)
    for index in np.ndindex(*out_shape):
        a, b = hyp.get(index, []), truth.get(index, [])
        distance = float(_levenshtein(a, b))
        if normalize:
            distance = distance / len(b) if b else (np.inf if a else 0.0)
        out[index] = distance
    return out


not_differentiable("EditDistance")


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences of two SparseTensors (grouped by all but
    their last coordinate), divided by the truth's length when ``normalize``."""
    h, t = as_sparse_tensor(hypothesis), as_sparse_tensor(truth)
    if h.dtype.base_dtype != t.dtype.base_dtype:
        raise TypeError(f"edit_distance: hypothesis is {h.dtype.name} but truth is {t.dtype.name}")
    return make_tensor("EditDistance", [h.indices, h.values, h.dense_shape, t.indices, t.values, t.dense_shape],
                       {"normalize": bool(normalize)}, name)
