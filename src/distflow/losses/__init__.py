"""``tf.losses``: weighted losses that also land in the LOSSES collection."""

from __future__ import annotations

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from .._namespace import missing as _missing
from ..ops import array_ops, math_ops, nn_impl, nn_ops
from ..ops import reduction_ops
from ..ops.special_math_ops import div_no_nan
from ..ops.weights_broadcast_ops import adjust_last_dimension, check_broadcastable


class Reduction:
    """How a loss's weighted values become one (TF 1.x's keys)."""

    NONE = "none"
    SUM = "weighted_sum"
    MEAN = "weighted_mean"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS  # (TF 1.x's older name for it)

    @classmethod
    def all(cls) -> tuple:
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key) -> None:
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weights per-example ``losses`` and reduces them as ``reduction`` says."""
    ops.get_default_graph()._last_loss_reduction = reduction  # (how tf.distribute combines the gradients)
    with ops.name_scope(scope, "weighted_loss", [losses, weights]):
        losses = ops.convert_to_tensor(losses)
        if not losses.dtype.base_dtype.is_floating:
            losses = math_ops.cast(losses, dtypes.float32)
        dtype = losses.dtype.base_dtype
        weights = math_ops.cast(ops.convert_to_tensor(weights), dtype)
        with ops.control_dependencies(check_broadcastable(weights, losses)):
            weighted = math_ops.multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            total = reduction_ops.reduce_sum(weighted)
            # (a mean named "value", 0 where nothing counts: TF's _safe_mean)
            if reduction == Reduction.SUM:
                loss = total
            elif reduction == Reduction.MEAN:
                loss = div_no_nan(total, reduction_ops.reduce_sum(array_ops.ones_like(losses) * weights), name="value")
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = div_no_nan(total, math_ops.cast(array_ops.size(losses), dtype), name="value")
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                nonzero = reduction_ops.reduce_sum(math_ops.cast(
                    math_ops.not_equal(array_ops.ones_like(losses) * weights, 0), dtype))
                loss = div_no_nan(total, nonzero, name="value")
            else:
                raise ValueError(f"Invalid reduction {reduction!r}")
        if loss_collection:
            ops.add_to_collection(loss_collection, loss)
        return loss


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with ops.name_scope(scope, "softmax_cross_entropy_loss", [logits, onehot_labels]) as scope_name:
        logits = ops.convert_to_tensor(logits)
        labels = math_ops.cast(onehot_labels, logits.dtype.base_dtype)
        if label_smoothing:
            n = math_ops.cast(array_ops.shape(labels)[-1], logits.dtype.base_dtype)
            labels = labels * (1 - label_smoothing) + label_smoothing / n
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=array_ops.stop_gradient(labels), logits=logits)
        return compute_weighted_loss(losses, weights, scope_name, loss_collection, reduction)


def _without_last_one(x, other, extra: int):
    """``x`` without its last dimension (of size 1) where its rank is ``other``'s plus
    ``extra``; where a rank is known only when the step runs, decided then."""
    rank, other_rank = x.shape.ndims, other.shape.ndims
    if rank is not None and other_rank is not None:
        if rank - other_rank == extra and x.shape[-1].value in (None, 1):
            return array_ops.squeeze(x, [-1])
        return x
    if rank is None or x.shape[-1].value in (None, 1):
        return adjust_last_dimension(x, array_ops.rank(x) - array_ops.rank(other), squeeze_at=extra)
    return x


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with ops.name_scope(scope, "sparse_softmax_cross_entropy_loss", [logits, labels]) as scope_name:
        logits, labels = ops.convert_to_tensor(logits), ops.convert_to_tensor(labels)
        # (labels of shape [batch, 1] and a column of weights, as TF's loss takes them)
        labels = _without_last_one(labels, logits, 0)
        weights = ops.convert_to_tensor(weights)
        if weights.shape.ndims != 0:
            weights = _without_last_one(weights, labels, 1)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        return compute_weighted_loss(losses, weights, scope_name, loss_collection, reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with ops.name_scope(scope, "mean_squared_error", [predictions, labels]) as scope_name:
        predictions, labels = _pair(predictions, labels)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope_name, loss_collection, reduction)


def _pair(predictions, labels):
    """Predictions and labels of one float dtype: integer ones become float32, as TF's losses
    cast them (float64 stays float64, where TF 1.x cast it to float32 too)."""
    predictions = ops.convert_to_tensor(predictions)
    if not predictions.dtype.base_dtype.is_floating:
        predictions = math_ops.cast(predictions, dtypes.float32)
    labels = math_ops.cast(labels, predictions.dtype.base_dtype)
    if not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError(f"Shapes {predictions.shape} and {labels.shape} are incompatible")
    return predictions, labels


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Element-wise logistic loss of ``logits`` against 0/1 ``multi_class_labels``, weighted and reduced."""
    with ops.name_scope(scope, "sigmoid_cross_entropy_loss", [logits, multi_class_labels]) as scope_name:
        logits, labels = _pair(logits, multi_class_labels)
        if label_smoothing:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_impl.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        return compute_weighted_loss(losses, weights, scope_name, loss_collection, reduction)


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    with ops.name_scope(scope, "absolute_difference", [predictions, labels]) as scope_name:
        predictions, labels = _pair(predictions, labels)
        return compute_weighted_loss(math_ops.abs(predictions - labels), weights, scope_name, loss_collection,
                                     reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """-labels * log(p + eps) - (1 - labels) * log(1 - p + eps)."""
    with ops.name_scope(scope, "log_loss", [predictions, labels]) as scope_name:
        predictions, labels = _pair(predictions, labels)
        losses = -labels * math_ops.log(predictions + epsilon) - (1 - labels) * math_ops.log(1 - predictions + epsilon)
        return compute_weighted_loss(losses, weights, scope_name, loss_collection, reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """max(0, 1 - (2 * labels - 1) * logits) for 0/1 labels."""
    with ops.name_scope(scope, "hinge_loss", [logits, labels]) as scope_name:
        logits, labels = _pair(logits, labels)
        losses = nn_ops.relu(1 - (2 * labels - 1) * logits)
        return compute_weighted_loss(losses, weights, scope_name, loss_collection, reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """0.5 * e^2 where |e| <= delta, else delta * (|e| - 0.5 * delta)."""
    with ops.name_scope(scope, "huber_loss", [predictions, labels]) as scope_name:
        predictions, labels = _pair(predictions, labels)
        error = math_ops.abs(predictions - labels)
        quadratic = math_ops.minimum(error, delta)
        losses = 0.5 * quadratic * quadratic + delta * (error - quadratic)
        return compute_weighted_loss(losses, weights, scope_name, loss_collection, reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """1 - sum(labels * predictions, axis), for unit-normalized labels and predictions."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    with ops.name_scope(scope, "cosine_distance_loss", [predictions, labels]) as scope_name:
        predictions, labels = _pair(predictions, labels)
        losses = 1 - reduction_ops.reduce_sum(predictions * labels, axis, keepdims=True)
        return compute_weighted_loss(losses, weights, scope_name, loss_collection, reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES):
    """As TF 1.x's: per example, the mean over ordered pairs (i, j) of its n elements with a
    nonzero weight of ((p_i - p_j) - (l_i - l_j))^2, which is 2 * sum(d^2) / (n - 1) -
    2 * (sum d)^2 / (n (n - 1)) for d = p - l; times the weights, summed over the batch
    (not averaged; 0 where no element has weight)."""
    with ops.name_scope(scope, "mean_pairwise_squared_error", [predictions, labels, weights]) as scope_name:
        predictions, labels = _pair(predictions, labels)
        dtype = predictions.dtype.base_dtype
        weights = math_ops.cast(ops.convert_to_tensor(weights), dtype)
        diffs = predictions - labels
        axes = list(range(1, diffs.shape.ndims)) if diffs.shape.ndims and diffs.shape.ndims > 1 else None
        present = math_ops.cast(math_ops.not_equal(weights, 0), dtype) * array_ops.ones_like(diffs)
        n = reduction_ops.reduce_sum(present, axes, keepdims=True)
        sum_sq = reduction_ops.reduce_sum(math_ops.square(diffs), axes, keepdims=True)
        sum_d = reduction_ops.reduce_sum(diffs, axes, keepdims=True)
        per_example = 2.0 * div_no_nan(sum_sq, n - 1) - 2.0 * div_no_nan(math_ops.square(sum_d), n * (n - 1))
        loss = reduction_ops.reduce_sum(per_example * weights)
        loss = math_ops.where(reduction_ops.reduce_sum(n) > 0, loss, array_ops.zeros_like(loss), name="value")
        add_loss(loss, loss_collection)
        return loss


def add_loss(loss, loss_collection=GraphKeys.LOSSES) -> None:
    """Adds ``loss`` to the losses collection (get_total_loss sums them)."""
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES) -> list:
    return ops.get_collection(loss_collection, scope)


def get_regularization_losses(scope=None) -> list:
    return ops.get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    losses = get_regularization_losses(scope)
    if not losses:
        return array_ops.constant(0.0, name=name)
    return math_ops.add_n(losses, name=name)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found in the LOSSES collection")
    return math_ops.add_n(losses, name=name)



__getattr__ = _missing("tf.losses")
