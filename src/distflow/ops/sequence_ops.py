"""Operations on sequences: ``tf.reverse_sequence`` (each row's first ``seq_lengths`` entries
reversed) and ``tf.edit_distance`` (the Levenshtein distance between sparse sequences)."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import constant_value, make_tensor
from .sparse_ops import as_sparse_tensor


@register_op("ReverseSequence", shape=lambda op: op.inputs[0].shape)
def _reverse_sequence_kernel(xp, x, lengths, *, seq_dim, batch_dim):
    out = np.array(x, copy=True)
    for b, n in enumerate(np.asarray(lengths).reshape(-1)):
        n = int(n)
        if n > x.shape[seq_dim]:
            raise errors.InvalidArgumentError(None, None, f"seq_lengths[{b}] = {n} is larger than the sequence "
                                                          f"dimension {x.shape[seq_dim]}")
        index = [slice(None)] * x.ndim
        index[batch_dim] = b
        index[seq_dim] = slice(0, n)
        src = tuple(index)
        out[src] = np.flip(x[src], axis=seq_dim - (1 if batch_dim < seq_dim else 0))
    return out


@register_gradient("ReverseSequence")
def _reverse_sequence_grad(op, grad):
    return (reverse_sequence(grad, op.inputs[1], op._attr("seq_dim"), op._attr("batch_dim")), None)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None,  # noqa: A002
                     batch_dim=None):
    """Reverses the first ``seq_lengths[b]`` entries along ``seq_axis`` of each batch entry b."""
    seq_axis = seq_dim if seq_axis is None else seq_axis
    batch_axis = (batch_dim if batch_dim is not None else 0) if batch_axis is None else batch_axis
    x = ops.convert_to_tensor(input)
    return make_tensor("ReverseSequence", [x, ops.convert_to_tensor(seq_lengths)],
                       {"seq_dim": int(seq_axis), "batch_dim": int(batch_axis)}, name or "ReverseSequence")


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


def _edit_distance_shape(op):
    """The outer dimensions of the larger of the two dense shapes, where both are known (TF's)."""
    h_shape, t_shape = constant_value(op.inputs[2]), constant_value(op.inputs[5])
    if h_shape is not None and t_shape is not None and len(h_shape) == len(t_shape):
        return TensorShape(np.maximum(h_shape[:-1], t_shape[:-1]).astype(int).tolist())
    rank = op.inputs[2].shape[0].value if op.inputs[2].shape.ndims == 1 else None
    return TensorShape(None) if rank is None else TensorShape([None] * (rank - 1))


@register_op("EditDistance", shape=_edit_distance_shape, dtype=lambda op: dtypes.float32)
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
