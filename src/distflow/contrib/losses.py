"""``tf.contrib.losses``: the losses of TF 1.0-1.2, before ``tf.losses``.

They take the predictions (or logits) first, and weigh as contrib did: ``weights`` of lower
rank than the losses apply to the losses summed over their trailing dimensions (a
``[batch]`` weight for ``[batch, d]`` losses), and the weighted sum is divided by the
number of losses whose weight is not zero. Each loss is added to the LOSSES collection.
``hinge_loss`` returns the unreduced losses, as contrib's did. ``metric_learning`` has the
losses over embeddings (semi-hard triplets, lifted structure, N-pairs, contrastive).
"""

from __future__ import annotations

from .._namespace import missing
from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..losses import get_losses, get_regularization_losses  # noqa: F401 - (the same collections)
from ..ops import array_ops, math_ops, nn_impl, nn_ops, reduction_ops, special_math_ops
from . import metric_learning  # noqa: F401
from .framework import add_arg_scope


@add_arg_scope
def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds ``loss`` to ``loss_collection`` (to none when it is None: ``arg_scope([add_loss],
    loss_collection=None)`` keeps the losses built inside out of every collection)."""
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def get_total_loss(add_regularization_losses=True, name="total_loss"):
    """The sum of the LOSSES collection (and of the regularization losses)."""
    losses = get_losses()
    if add_regularization_losses:
        losses = losses + get_regularization_losses()
    return math_ops.add_n(losses, name=name)


def _weighted_sum(losses, weights):
    """The sum of ``losses`` times ``weights``, the losses first summed over the dimensions
    past the weights' rank."""
    trailing = list(range(weights.shape.ndims, losses.shape.ndims))
    summed = reduction_ops.reduce_sum(losses, trailing) if trailing else losses
    return reduction_ops.reduce_sum(summed * weights)


def _num_present(losses, weights, per_batch=False):
    """How many losses have a weight that is not zero (a weight counts for every loss it
    covers); with ``per_batch``, a [batch] vector of how many in each example."""
    if weights.shape.ndims == 0:
        batch = math_ops.cast(array_ops.shape(losses)[0], dtypes.float32)
        each = math_ops.cast(array_ops.size(losses), dtypes.float32) / batch
        each = math_ops.where(math_ops.equal(weights, 0.0), 0.0, each)
        counts = array_ops.ones(array_ops.shape(losses)[:1]) * each
    else:
        nonzero = math_ops.cast(math_ops.not_equal(weights, 0.0), dtypes.float32)
        if weights.shape.ndims > 1:
            nonzero = reduction_ops.reduce_sum(nonzero, list(range(1, weights.shape.ndims)))
        covered = reduction_ops.reduce_prod(array_ops.shape(losses)[weights.shape.ndims:])
        counts = nonzero * math_ops.cast(covered, dtypes.float32)
    return counts if per_batch else reduction_ops.reduce_sum(counts)


def compute_weighted_loss(losses, weights=1.0, scope=None):
    """The weighted mean of ``losses`` over those with a weight that is not zero (0 if none),
    added to the LOSSES collection."""
    with ops.name_scope(scope, "weighted_loss", [losses, weights]):
        losses = ops.convert_to_tensor(losses)
        input_dtype = losses.dtype.base_dtype
        losses = math_ops.cast(losses, dtypes.float32)
        weights = math_ops.cast(ops.convert_to_tensor(weights), dtypes.float32)
        if losses.shape.ndims is None:
            raise ValueError(f"losses.get_shape().ndims cannot be None: {losses}")
        if weights.shape.ndims is None:
            raise ValueError(f"weights.get_shape().ndims cannot be None: {weights}")
        if weights.shape.ndims > 1 and weights.shape[-1].is_compatible_with(1):
            weights = array_ops.squeeze(weights, [-1])
        if weights.shape.ndims > losses.shape.ndims:
            raise ValueError(f"weights of shape {weights.shape} have more dimensions than the losses, "
                             f"{losses.shape}: they weigh an example or its measurements")
        total = _weighted_sum(losses, weights)
        present = _num_present(losses, weights)
        mean = special_math_ops.div_no_nan(total, present, name="value")  # (0 when no weight is set)
        mean = math_ops.cast(mean, input_dtype)
        add_loss(mean)
        return mean


def _pair(predictions, labels, what):
    if labels is None:
        raise ValueError(f"{what}: labels must not be None.")
    predictions = math_ops.cast(ops.convert_to_tensor(predictions), dtypes.float32)
    labels = math_ops.cast(ops.convert_to_tensor(labels), dtypes.float32)
    predictions.shape.assert_is_compatible_with(labels.shape)
    return predictions, labels


def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    with ops.name_scope(scope, "absolute_difference", [predictions, labels, weights]) as scope:
        predictions, labels = _pair(predictions, labels, "absolute_difference")
        return compute_weighted_loss(math_ops.abs(predictions - labels), weights, scope=scope)


def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    with ops.name_scope(scope, "mean_squared_error", [predictions, labels, weights]) as scope:
        predictions, labels = _pair(predictions, labels, "mean_squared_error")
        return compute_weighted_loss(math_ops.square(predictions - labels), weights, scope=scope)


def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    with ops.name_scope(scope, "log_loss", [predictions, labels, weights]) as scope:
        p, y = _pair(predictions, labels, "log_loss")
        losses = -y * math_ops.log(p + epsilon) - (1 - y) * math_ops.log(1 - p + epsilon)
        return compute_weighted_loss(losses, weights, scope=scope)


def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    """1 minus the dot product of (unit-normalized) ``predictions`` and ``labels`` along ``axis``."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    with ops.name_scope(scope, "cosine_distance_loss", [predictions, labels, weights]) as scope:
        predictions, labels = _pair(predictions, labels, "cosine_distance")
        losses = 1 - reduction_ops.reduce_sum(predictions * labels, [axis])
        return compute_weighted_loss(losses, weights, scope=scope)


def mean_pairwise_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """For each example, the mean over pairs of its elements of ((p_i - p_j) - (l_i - l_j))^2
    (TF's 2 (mean of d^2) - 2 (mean of d)^2, d = p - l, over the example's weighted elements),
    times its weight, summed over the batch (contrib's: a sum, where tf.losses' is a mean)."""
    with ops.name_scope(scope, "mean_pairwise_squared_error", [predictions, labels, weights]) as scope:
        if weights is None:
            raise ValueError("`weights` cannot be None")
        predictions, labels = _pair(predictions, labels, "mean_pairwise_squared_error")
        weights = math_ops.cast(ops.convert_to_tensor(weights), dtypes.float32)
        diffs = predictions - labels
        axes = list(range(1, diffs.shape.ndims))
        present = _num_present(diffs, weights, per_batch=True)

        def safe_div(a, b):
            return math_ops.where(b > 0, a / math_ops.maximum(b, 1e-38), array_ops.zeros_like(a))

        term1 = 2.0 * safe_div(reduction_ops.reduce_sum(math_ops.square(diffs), axes), present)
        term2 = 2.0 * safe_div(math_ops.square(reduction_ops.reduce_sum(diffs, axes)), math_ops.square(present))
        loss = _weighted_sum(term1 - term2, weights)
        loss = math_ops.where(reduction_ops.reduce_sum(present) > 0, loss, array_ops.zeros_like(loss), name="value")
        add_loss(loss)
        return loss


def hinge_loss(logits, labels=None, scope=None):
    """``max(0, 1 - (2 labels - 1) logits)`` for 0/1 ``labels``, element by element (not reduced)."""
    with ops.name_scope(scope, "hinge_loss", [logits, labels]):
        logits, labels = _pair(logits, labels, "hinge_loss")
        return nn_ops.relu(1.0 - (2.0 * labels - 1.0) * logits)


def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0, scope=None):
    with ops.name_scope(scope, "sigmoid_cross_entropy_loss", [logits, multi_class_labels, weights]) as scope:
        logits = ops.convert_to_tensor(logits)
        logits.shape.assert_is_compatible_with(ops.convert_to_tensor(multi_class_labels).shape)
        labels = math_ops.cast(multi_class_labels, logits.dtype.base_dtype)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_impl.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope=scope)


def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    with ops.name_scope(scope, "softmax_cross_entropy_loss", [logits, onehot_labels, weights]) as scope:
        logits = ops.convert_to_tensor(logits)
        labels = math_ops.cast(onehot_labels, logits.dtype.base_dtype)
        logits.shape.assert_is_compatible_with(labels.shape)
        if label_smoothing > 0:
            classes = math_ops.cast(array_ops.shape(labels)[1], logits.dtype.base_dtype)
            labels = labels * (1.0 - label_smoothing) + label_smoothing / classes
        losses = nn_ops.softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope=scope)


def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    with ops.name_scope(scope, "sparse_softmax_cross_entropy_loss", [logits, labels, weights]) as scope:
        labels = array_ops.reshape(labels, [array_ops.shape(labels)[0]])
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope=scope)


__getattr__ = missing("tf.contrib.losses")
