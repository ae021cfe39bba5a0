"""``tf.metrics``: streaming metrics over many ``Session.run`` calls.

Each returns ``(value, update_op)``. Its accumulators are local variables (collections
LOCAL_VARIABLES and METRIC_VARIABLES), so ``tf.local_variables_initializer()`` resets
them; ``update_op`` adds one batch and returns the updated value, ``value`` reads it.
"""

from __future__ import annotations

from ..framework import dtypes
from ..framework import ops
from ..framework.ops import GraphKeys
from ..ops import array_ops, math_ops, state_ops
from ..ops import reduction_ops
from ..ops.variable_scope import variable_scope
from .._namespace import missing
from .local_variables import METRIC_VARIABLES, local_variable as _local_variable
from .thresholds import (auc, false_negatives_at_thresholds, false_positives_at_thresholds,  # noqa: F401
                         precision_at_thresholds, recall_at_thresholds, sensitivity_at_specificity,
                         specificity_at_sensitivity, true_negatives_at_thresholds, true_positives_at_thresholds)


def _div_no_nan(x, y, name=None):
    safe = math_ops.where(math_ops.greater(y, 0), y, array_ops.ones_like(y))
    return math_ops.where(math_ops.greater(y, 0), math_ops.divide(x, safe), array_ops.zeros_like(x), name=name)


def _weights_like(values, weights, dtype=dtypes.float32):
    values = math_ops.cast(values, dtype)
    if weights is None:
        return values, array_ops.ones_like(values)
    weights = math_ops.cast(weights, dtype)
    return values, weights * array_ops.ones_like(values)


def _collect(collections, value):
    for key in collections or []:
        ops.add_to_collection(key, value)


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of every value seen so far."""
    return _mean(values, weights, metrics_collections, updates_collections, name)


def _mean(values, weights, metrics_collections, updates_collections, name, dtype=dtypes.float32):
    with variable_scope(name, "mean", [values, weights]):
        values, weights = _weights_like(values, weights, dtype)
        total = _local_variable("total", [], dtype)
        count = _local_variable("count", [], dtype)
        update_total = state_ops.assign_add(total, reduction_ops.reduce_sum(values * weights))
        update_count = state_ops.assign_add(count, reduction_ops.reduce_sum(weights))
        value = _div_no_nan(total.value(), count.value(), name="value")
        with ops.control_dependencies([update_total, update_count]):
            update_op = _div_no_nan(array_ops.identity(total.read_value()), count.read_value(), name="update_op")
        _collect(metrics_collections, value)
        _collect(updates_collections, update_op)
        return value, update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The fraction of ``predictions`` equal to ``labels`` over every batch seen."""
    labels = ops.convert_to_tensor(labels)
    predictions = ops.convert_to_tensor(predictions)
    if labels.dtype.base_dtype != predictions.dtype.base_dtype:
        predictions = math_ops.cast(predictions, labels.dtype.base_dtype)
    with ops.name_scope(None, "accuracy_prep", [labels, predictions]):
        correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(correct, weights, metrics_collections, updates_collections, name or "accuracy")


def _counted(name, condition, weights, metrics_collections, updates_collections):
    with variable_scope(name, None, [condition]):
        values, weights = _weights_like(condition, weights)
        count = _local_variable("count", [])
        update_op = state_ops.assign_add(count, reduction_ops.reduce_sum(values * weights))
        value = array_ops.identity(count.value(), name="value")
        _collect(metrics_collections, value)
        _collect(updates_collections, update_op)
        return value, update_op


def _squeezed(labels, predictions):
    """``labels`` and ``predictions`` with a trailing dimension of 1 that only one of them has
    squeezed away (``[batch, 1]`` against ``[batch]``), as TF's metrics do."""
    labels, predictions = ops.convert_to_tensor(labels), ops.convert_to_tensor(predictions)
    lr, pr = labels.shape.ndims, predictions.shape.ndims
    if lr is not None and pr is not None:
        if pr == lr + 1 and predictions.shape[-1].is_compatible_with(1):
            predictions = array_ops.squeeze(predictions, [-1])
        elif lr == pr + 1 and labels.shape[-1].is_compatible_with(1):
            labels = array_ops.squeeze(labels, [-1])
    return labels, predictions


def _bools(labels, predictions):
    labels, predictions = _squeezed(labels, predictions)
    labels = math_ops.cast(labels, dtypes.bool)
    predictions = math_ops.cast(predictions, dtypes.bool)
    return labels, predictions


def true_positives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    labels, predictions = _bools(labels, predictions)
    return _counted(name or "true_positives", math_ops.logical_and(labels, predictions), weights,
                    metrics_collections, updates_collections)


def false_positives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                    name=None):
    labels, predictions = _bools(labels, predictions)
    return _counted(name or "false_positives", math_ops.logical_and(math_ops.logical_not(labels), predictions),
                    weights, metrics_collections, updates_collections)


def false_negatives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                    name=None):
    labels, predictions = _bools(labels, predictions)
    return _counted(name or "false_negatives", math_ops.logical_and(labels, math_ops.logical_not(predictions)),
                    weights, metrics_collections, updates_collections)


def true_negatives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    labels, predictions = _bools(labels, predictions)
    return _counted(name or "true_negatives",
                    math_ops.logical_and(math_ops.logical_not(labels), math_ops.logical_not(predictions)),
                    weights, metrics_collections, updates_collections)


def _ratio(name, numerator_fn, other_fn, labels, predictions, weights, metrics_collections, updates_collections):
    with variable_scope(name, None, [labels, predictions]):
        hits, update_hits = numerator_fn(labels, predictions, weights, name="true_positives")
        misses, update_misses = other_fn(labels, predictions, weights, name=other_fn.__name__)
        value = _div_no_nan(hits, hits + misses, name="value")
        update_op = _div_no_nan(update_hits, update_hits + update_misses, name="update_op")
        _collect(metrics_collections, value)
        _collect(updates_collections, update_op)
        return value, update_op


def precision(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """true positives / (true positives + false positives), over every batch seen (0 when none)."""
    return _ratio(name or "precision", true_positives, false_positives, labels, predictions, weights,
                  metrics_collections, updates_collections)


def recall(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """true positives / (true positives + false negatives), over every batch seen (0 when none)."""
    return _ratio(name or "recall", true_positives, false_negatives, labels, predictions, weights,
                  metrics_collections, updates_collections)


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                       name=None):
    labels = math_ops.cast(labels, dtypes.float32)
    predictions = math_ops.cast(predictions, dtypes.float32)
    return mean(math_ops.square(labels - predictions), weights, metrics_collections, updates_collections,
                name or "mean_squared_error")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                        name=None):
    labels = math_ops.cast(labels, dtypes.float32)
    predictions = math_ops.cast(predictions, dtypes.float32)
    return mean(math_ops.abs(labels - predictions), weights, metrics_collections, updates_collections,
                name or "mean_absolute_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    with variable_scope(name, "root_mean_squared_error", [labels, predictions]):
        mse, update_mse = mean_squared_error(labels, predictions, weights)
        value = math_ops.sqrt(mse, name="value")
        update_op = math_ops.sqrt(update_mse, name="update_op")
        _collect(metrics_collections, value)
        _collect(updates_collections, update_op)
        return value, update_op



def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The element-wise (weighted) mean of ``values`` over every batch (values keep their shape)."""
    with variable_scope(name, "mean", [values, weights]):
        values = math_ops.cast(values, dtypes.float32)
        if not values.shape.is_fully_defined():
            raise ValueError(f"mean_tensor needs a fully defined shape, got {values.shape}")
        shape = values.shape.as_list()
        weights = array_ops.ones_like(values) if weights is None else math_ops.cast(weights, dtypes.float32) * \
            array_ops.ones_like(values)
        total = _local_variable("total_tensor", shape)
        count = _local_variable("count_tensor", shape)
        update_total = state_ops.assign_add(total, values * weights)
        update_count = state_ops.assign_add(count, weights)
        value = _div_no_nan(total.value(), count.value(), name="value")
        with ops.control_dependencies([update_total, update_count]):
            update_op = _div_no_nan(total.read_value(), count.read_value(), name="update_op")
        _collect(metrics_collections, value)
        _collect(updates_collections, update_op)
        return value, update_op


def mean_relative_error(labels, predictions, normalizer, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The mean of |labels - predictions| / normalizer (0 where the normalizer is 0)."""
    labels = math_ops.cast(labels, dtypes.float32)
    predictions = math_ops.cast(predictions, dtypes.float32)
    normalizer = math_ops.cast(normalizer, dtypes.float32)
    relative = _div_no_nan(math_ops.abs(labels - predictions), normalizer * array_ops.ones_like(labels))
    return mean(relative, weights, metrics_collections, updates_collections, name or "mean_relative_error")


def percentage_below(values, threshold, weights=None, metrics_collections=None, updates_collections=None,
                     name=None):
    """The fraction of values below ``threshold``."""
    below = math_ops.cast(math_ops.less(math_ops.cast(values, dtypes.float32), threshold), dtypes.float32)
    return mean(below, weights, metrics_collections, updates_collections, name or "percentage_below_threshold")


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """The mean of 1 - sum(labels * predictions, dim) (labels and predictions unit-normalized by the caller)."""
    labels = math_ops.cast(labels, dtypes.float32)
    predictions = math_ops.cast(predictions, dtypes.float32)
    distance = 1.0 - reduction_ops.reduce_sum(labels * predictions, dim)
    return mean(distance, weights, metrics_collections, updates_collections, name or "mean_cosine_distance")


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None, updates_collections=None,
             name=None):
    """The mean intersection-over-union of the classes present, from an accumulated confusion matrix."""
    from ..ops.segment_ops import confusion_matrix  # noqa: PLC0415

    with variable_scope(name, "mean_iou", [predictions, labels]):
        total = _local_variable("total_confusion_matrix", [num_classes, num_classes])
        batch = math_ops.cast(confusion_matrix(array_ops.reshape(labels, [-1]), array_ops.reshape(predictions, [-1]),
                                               num_classes, weights=None if weights is None else
                                               array_ops.reshape(weights, [-1]), dtype=dtypes.float32),
                              dtypes.float32)
        update = state_ops.assign_add(total, batch)

        def iou(cm):
            rows = reduction_ops.reduce_sum(cm, 0)
            cols = reduction_ops.reduce_sum(cm, 1)
            diag = array_ops.reshape(cm, [-1])[::num_classes + 1]
            denominator = rows + cols - diag
            present = reduction_ops.reduce_sum(math_ops.cast(math_ops.greater(denominator, 0), dtypes.float32))
            ratio = _div_no_nan(diag, denominator)
            return _div_no_nan(reduction_ops.reduce_sum(ratio), present)

        value = iou(total.value())
        update_op = iou(update)
        _collect(metrics_collections, value)
        _collect(updates_collections, update_op)
        return value, update_op


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The accuracy of each class (correct / seen, per label) over every batch."""
    with variable_scope(name, "mean_accuracy", [predictions, labels]):
        labels = math_ops.cast(array_ops.reshape(labels, [-1]), dtypes.int64)
        predictions = math_ops.cast(array_ops.reshape(predictions, [-1]), dtypes.int64)
        total = _local_variable("total", [num_classes])
        count = _local_variable("count", [num_classes])
        one_hot = array_ops.one_hot(labels, num_classes, dtype=dtypes.float32)
        w = array_ops.ones_like(math_ops.cast(labels, dtypes.float32)) if weights is None else \
            math_ops.cast(array_ops.reshape(weights, [-1]), dtypes.float32)
        correct = math_ops.cast(math_ops.equal(labels, predictions), dtypes.float32) * w
        update_total = state_ops.assign_add(total, reduction_ops.reduce_sum(one_hot * array_ops.expand_dims(w, 1), 0))
        update_count = state_ops.assign_add(count, reduction_ops.reduce_sum(one_hot * array_ops.expand_dims(correct, 1),
                                                                       0))
        value = reduction_ops.reduce_mean(_div_no_nan(count.value(), total.value()), name="mean_accuracy")
        update_op = _div_no_nan(update_count, update_total)  # (the per-class values, as TF's update op)
        _collect(metrics_collections, value)
        _collect(updates_collections, update_op)
        return value, update_op


def _top_k_hits(labels, predictions, k):
    from ..ops.nn_impl import in_top_k  # noqa: PLC0415

    labels = array_ops.reshape(math_ops.cast(labels, dtypes.int32), [-1])
    return math_ops.cast(in_top_k(math_ops.cast(predictions, dtypes.float32), labels, k), dtypes.float64)


def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """With one label per example: the fraction whose label is among the ``k`` highest predictions
    (float64, as TensorFlow's top-k metrics count); with ``class_id``, of the examples labelled
    that class, the fraction that have it among their ``k`` highest predictions."""
    if class_id is not None:
        from ..ops.nn_impl import top_k  # noqa: PLC0415

        return recall_at_top_k(labels, top_k(predictions, k)[1], k, class_id, weights, metrics_collections,
                               updates_collections, name or f"recall_at_{k}")
    return _mean(_top_k_hits(labels, predictions, k), weights, metrics_collections, updates_collections,
                 name or f"recall_at_{k}", dtypes.float64)


def precision_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    """With one label per example: hits among the top ``k`` divided by ``k`` predictions each;
    with ``class_id``, of the examples that have that class among their ``k`` highest
    predictions, the fraction labelled with it."""
    if class_id is not None:
        return sparse_precision_at_k(labels, predictions, k, class_id, weights, metrics_collections,
                                     updates_collections, name)
    return _mean(_top_k_hits(labels, predictions, k) / float(k), weights, metrics_collections, updates_collections,
                 name or f"precision_at_{k}", dtypes.float64)


def _label_matrix(labels):
    """Labels as an int64 [batch, labels per example] matrix, -1 where a row has fewer."""
    from ..ops.sparse_ops import SparseTensor, SparseTensorValue, sparse_tensor_to_dense  # noqa: PLC0415

    if isinstance(labels, (SparseTensor, SparseTensorValue)):
        return sparse_tensor_to_dense(labels, default_value=-1)
    labels = math_ops.cast(ops.convert_to_tensor(labels), dtypes.int64)
    return array_ops.reshape(labels, [-1, 1]) if labels.shape.ndims == 1 else labels


def _relevance(labels, predictions_idx):
    """(relevant: float [batch, k], 1 where a predicted id is a label; labels per example: float [batch])."""
    from ..ops.reduction_ops import reduce_any, reduce_sum  # noqa: PLC0415

    labels = _label_matrix(labels)
    predictions_idx = math_ops.cast(ops.convert_to_tensor(predictions_idx), dtypes.int64)
    hits = reduce_any(math_ops.equal(array_ops.expand_dims(predictions_idx, 2), array_ops.expand_dims(labels, 1)),
                      axis=2)
    count = reduce_sum(math_ops.cast(math_ops.greater_equal(labels, 0), dtypes.float64), axis=1)
    return math_ops.cast(hits, dtypes.float64), count


def _class_hits(labels, predictions_idx, class_id):
    """(whether each example predicts ``class_id``, whether it is labelled with it), float64 [batch]."""
    from ..ops.reduction_ops import reduce_any  # noqa: PLC0415

    class_id = int(class_id)
    predictions_idx = math_ops.cast(ops.convert_to_tensor(predictions_idx), dtypes.int64)
    predicted = reduce_any(math_ops.equal(predictions_idx, class_id), axis=-1)
    labelled = reduce_any(math_ops.equal(_label_matrix(labels), class_id), axis=-1)
    return math_ops.cast(predicted, dtypes.float64), math_ops.cast(labelled, dtypes.float64)


def _class_weights(mask, weights):
    return mask if weights is None else mask * array_ops.reshape(math_ops.cast(weights, dtypes.float64), [-1])


def _example_weights(weights, relevant):
    if weights is None:
        return None
    return array_ops.reshape(math_ops.cast(weights, dtypes.float64), [-1, 1]) * array_ops.ones_like(relevant)


def _first_k(predictions_idx, k):
    """The first ``k`` predicted ids of each example (all of them when ``k`` is None), as TF's *_at_top_k."""
    predictions_idx = ops.convert_to_tensor(predictions_idx)
    return predictions_idx if k is None else predictions_idx[..., :int(k)]


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """Of the ``predictions_idx`` ([batch, k] class ids) seen so far, the fraction that are labels
    (``labels``: one id per example, a [batch, n] matrix padded with -1, or a SparseTensor);
    with ``class_id``, of the examples that predict that class, the fraction labelled with it
    (true positives over true and false positives of the class; 0 before any prediction of it)."""
    predictions_idx = _first_k(predictions_idx, k)
    if class_id is not None:
        predicted, labelled = _class_hits(labels, predictions_idx, class_id)
        return _mean(labelled, _class_weights(predicted, weights), metrics_collections, updates_collections,
                     name or "precision_at_top_k", dtypes.float64)
    relevant, _ = _relevance(labels, predictions_idx)
    return _mean(relevant, _example_weights(weights, relevant), metrics_collections, updates_collections,
                 name or "precision_at_top_k", dtypes.float64)


def sparse_precision_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                          updates_collections=None, name=None):
    """``precision_at_top_k`` of the ``k`` highest-scoring classes of ``predictions``."""
    from ..ops.nn_impl import top_k  # noqa: PLC0415

    return precision_at_top_k(labels, top_k(predictions, k)[1], k, class_id, weights, metrics_collections,
                              updates_collections, name or f"precision_at_{k}")


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """Of the labels seen so far, the fraction among the predicted ``predictions_idx``; with
    ``class_id``, of the examples labelled with that class, the fraction that predict it."""
    from ..ops.reduction_ops import reduce_sum  # noqa: PLC0415

    predictions_idx = _first_k(predictions_idx, k)
    if class_id is not None:
        predicted, labelled = _class_hits(labels, predictions_idx, class_id)
        return _mean(predicted, _class_weights(labelled, weights), metrics_collections, updates_collections,
                     name or "recall_at_top_k", dtypes.float64)
    relevant, count = _relevance(labels, predictions_idx)
    per_example = _div_no_nan(reduce_sum(relevant, axis=1), count)
    # the mean of each example's recall weighted by its label count: found labels / all labels
    weight = count if weights is None else count * math_ops.cast(weights, dtypes.float64)
    return _mean(per_example, weight, metrics_collections, updates_collections, name or "recall_at_top_k",
                 dtypes.float64)


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """The mean over examples of AP@k: the precision at each rank i <= k where a label is found,
    summed and divided by min(k, the example's number of labels)."""
    from ..ops.manip_ops import cumsum  # noqa: PLC0415
    from ..ops.nn_impl import top_k  # noqa: PLC0415
    from ..ops.reduction_ops import reduce_sum  # noqa: PLC0415

    if k < 1:
        raise ValueError(f"Invalid k={k}: it must be >= 1")
    with ops.name_scope(name, f"average_precision_at_{k}"):
        relevant, count = _relevance(labels, top_k(predictions, k)[1])
        precision_at_rank = cumsum(relevant, axis=1) / math_ops.cast(math_ops.range_(1, k + 1), dtypes.float64)
        per_example = _div_no_nan(reduce_sum(precision_at_rank * relevant, axis=1), math_ops.minimum(count, float(k)))
        return _mean(per_example, weights, metrics_collections, updates_collections,
                     name or f"average_precision_at_{k}", dtypes.float64)


sparse_average_precision_at_k = average_precision_at_k




__getattr__ = missing("tf.metrics")
