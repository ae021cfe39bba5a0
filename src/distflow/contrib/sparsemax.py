"""``tf.contrib.sparsemax``: sparsemax (Martins and Astudillo, 2016), a softmax whose
output can hold exact zeros, and its loss.

``sparsemax(z)`` is the Euclidean projection of each row of logits ``z`` onto the
probability simplex: ``max(z - tau, 0)``, with the threshold ``tau`` chosen so that the row
sums to 1. With the row sorted in decreasing order, the support is the k largest entries
for the largest k with ``1 + k z_(k) > z_(1) + ... + z_(k)``, and
``tau = (z_(1) + ... + z_(k) - 1) / k``. Both are compositions of differentiable ops, so the
gradient is the sparsemax Jacobian, ``diag(s) - s s^T / |S|`` on the support S.
"""

from __future__ import annotations

from ..framework import dtypes, ops
from ..ops import array_ops, math_ops, nn_impl, reduction_ops
from ..ops.manip_ops import cumsum
from ..ops.math_ops import range_
from ..ops.nd_ops import gather_nd


def _shifted(logits):
    """Each row less its mean (the projection does not change; the numbers stay small)."""
    return logits - reduction_ops.reduce_mean(logits, axis=1, keepdims=True)


def _check(logits, what):
    logits = ops.convert_to_tensor(logits, name="logits")
    if logits.dtype.base_dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
        raise TypeError(f"{what}: logits must be float16, float32 or float64, got {logits.dtype.name}")
    if logits.shape.ndims is not None and logits.shape.ndims != 2:
        raise ValueError(f"{what}: logits must be 2-D [batch, classes], got shape {logits.shape}")
    return logits


def sparsemax(logits, name=None):
    """The sparsemax of each row of ``logits`` ([batch, classes]): probabilities, many of
    them exactly 0."""
    with ops.name_scope(name, "sparsemax", [logits]):
        z = _shifted(_check(logits, "sparsemax"))
        classes = array_ops.shape(z)[1]
        z_sorted, _ = nn_impl.top_k(z, k=classes)
        z_cumsum = cumsum(z_sorted, axis=1)
        k = math_ops.cast(range_(1, classes + 1), z.dtype)
        in_support = math_ops.cast(1 + k * z_sorted > z_cumsum, dtypes.int32)
        k_z = reduction_ops.reduce_sum(in_support, axis=1)
        rows = range_(0, array_ops.shape(z)[0])
        tau_sum = gather_nd(z_cumsum, array_ops.stack([rows, k_z - 1], axis=1))
        tau = (tau_sum - 1) / math_ops.cast(k_z, z.dtype)
        return math_ops.maximum(math_ops.cast(0, z.dtype), z - array_ops.expand_dims(tau, 1))


def sparsemax_loss(logits, sparsemax, labels, name=None):  # noqa: A002 - TF's argument name
    """The sparsemax loss of each row: ``-q.z + 1/2 sum over the support of (z_j^2 - tau^2)
    + 1/2 |q|^2`` for labels ``q`` (a distribution over the classes), given the logits ``z``
    and their ``sparsemax``. Its gradient with respect to the logits is ``sparsemax - q``."""
    with ops.name_scope(name, "sparsemax_loss", [logits, sparsemax, labels]):
        z = _shifted(_check(logits, "sparsemax_loss"))
        s = ops.convert_to_tensor(sparsemax, dtype=z.dtype, name="sparsemax")
        q = ops.convert_to_tensor(labels, dtype=z.dtype, name="labels")
        support = math_ops.cast(s > 0, z.dtype)
        on_support = support * s * (z - 0.5 * s)  # (z_j^2 - tau^2) / 2 where s_j = z_j - tau > 0
        return reduction_ops.reduce_sum(on_support + q * (0.5 * q - z), axis=1)
