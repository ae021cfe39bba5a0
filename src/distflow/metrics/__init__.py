"""``tf.metrics``: streaming metrics over many ``Session.run`` calls.

Each returns ``(value, update_op)``. Its accumulators are local variables (collections
LOCAL_VARIABLES and METRIC_VARIABLES), so ``tf.local_variables_initializer()`` resets
them; ``update_op`` adds one batch and returns the updated value, ``value`` reads it.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework import ops
from ..framework.ops import GraphKeys
from ..ops import array_ops, math_ops, state_ops
from ..ops import reduction_ops
from ..ops.variable_scope import variable_scope
from ..ops.weights_broadcast_ops import check_broadcastable, squeeze_or_expand_weights
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
    weights = squeeze_or_expand_weights(math_ops.cast(weights, dtype), values)
    with ops.control_dependencies(check_broadcastable(weights, values)):
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
    # (the mean squared error's variables under this metric's scope, as TF's)
    mse, update_mse = mean_squared_error(labels, predictions, weights, name=name or "root_mean_squared_error")
    value = math_ops.sqrt(mse)
    update_op = math_ops.sqrt(update_mse)
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
    """The mean of 1 - sum(labels * predictions, dim) (labels and predictions unit-normalized by the
    caller; ``dim`` kept, with size 1, so that weights shaped as the inputs apply)."""
    labels = math_ops.cast(labels, dtypes.float32)
    predictions = math_ops.cast(predictions, dtypes.float32)
    distance = 1.0 - reduction_ops.reduce_sum(labels * predictions, dim, keepdims=True)
    return mean(distance, weights, metrics_collections, updates_collections, name or "mean_cosine_distance")


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None, updates_collections=None,
             name=None):
    """The mean intersection-over-union of the classes present, from an accumulated confusion
    matrix; the update op gives that matrix (as TF 1.x's)."""
    from ..ops.segment_ops import confusion_matrix  # noqa: PLC0415

    with variable_scope(name, "mean_iou", [predictions, labels]):
        labels, predictions = _squeezed(labels, predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
        if weights is not None:
            ops.convert_to_tensor(weights).shape.assert_is_compatible_with(predictions.shape)
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
        _collect(metrics_collections, value)
        _collect(updates_collections, update)
        return value, update


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


def recall_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """``recall_at_top_k`` of the ``k`` highest predictions: of the labels seen so far (one or
    more per example), the fraction found among them."""
    from ..ops.nn_impl import top_k  # noqa: PLC0415

    with ops.name_scope(name, _at_k_name("recall", k, class_id), (predictions, labels, weights)) as scope:
        return recall_at_top_k(labels, top_k(predictions, k)[1], k, class_id, weights, metrics_collections,
                               updates_collections, name=scope)


def precision_at_k(labels, predictions, k, class_id=None, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    """``precision_at_top_k`` of the ``k`` highest predictions: of the class ids predicted so far,
    the fraction that are labels."""
    from ..ops.nn_impl import top_k  # noqa: PLC0415

    with ops.name_scope(name, _at_k_name("precision", k, class_id), (predictions, labels, weights)) as scope:
        return precision_at_top_k(labels, top_k(predictions, k)[1], k, class_id, weights, metrics_collections,
                                  updates_collections, name=scope)


sparse_precision_at_k = precision_at_k


def _at_k_name(name, k=None, class_id=None):
    name = name if k is None else f"{name}_at_{k}"
    return name if class_id is None else f"{name}_class{class_id}"


_NO_LABEL = -2 ** 63  # (where an example has fewer labels than the widest)


def _label_matrix(labels, predictions_idx):
    """Labels as an int64 [..., labels per example] matrix of ``predictions_idx``'s rank,
    ``_NO_LABEL`` where an example has fewer: a SparseTensor's (or SparseTensorValue's) values
    are all labels; in a dense matrix, negative ids pad."""
    from ..ops.sparse_ops import SparseTensor, SparseTensorValue, sparse_tensor_to_dense  # noqa: PLC0415

    if isinstance(labels, SparseTensorValue):
        labels = SparseTensor(labels.indices, labels.values, labels.dense_shape)
    rank = predictions_idx.shape.ndims
    if isinstance(labels, SparseTensor):
        dense = sparse_tensor_to_dense(SparseTensor(labels.indices, math_ops.cast(labels.values, dtypes.int64),
                                                    labels.dense_shape), default_value=_NO_LABEL)
        if rank is not None and dense.shape.ndims == rank - 1:  # (one label per example, of shape [batch])
            dense = array_ops.expand_dims(dense, -1)
        return dense
    labels = math_ops.cast(ops.convert_to_tensor(labels), dtypes.int64)
    if rank is not None and labels.shape.ndims == rank - 1:  # (one label per example)
        labels = array_ops.expand_dims(labels, -1)
    return math_ops.where(math_ops.greater_equal(labels, 0), labels, array_ops.fill(array_ops.shape(labels),
                                                                                    np.int64(_NO_LABEL)))


def _flat_examples(labels, predictions_idx, weights):
    """(labels [examples, n], predictions_idx [examples, k], weights [examples] or None): every
    leading dimension flattened into one of examples."""
    predictions_idx = math_ops.cast(ops.convert_to_tensor(predictions_idx), dtypes.int64)
    if predictions_idx.shape.ndims is not None and predictions_idx.shape.ndims < 2:
        raise ValueError(f"predictions_idx must have shape [D1, ... DN, k] with N >= 1, got "
                         f"{predictions_idx.shape}")
    labels = _label_matrix(labels, predictions_idx)
    lead = array_ops.shape(predictions_idx)[:-1]
    if weights is not None:  # (a weight per example, broadcast over the leading dimensions)
        weights = math_ops.cast(ops.convert_to_tensor(weights), dtypes.float64)
        if weights.shape.ndims is not None and weights.shape.ndims == predictions_idx.shape.ndims:
            weights = array_ops.squeeze(weights, [-1])
        weights = array_ops.reshape(weights * array_ops.ones(lead, dtypes.float64), [-1])
    def rows(t):
        return array_ops.reshape(t, array_ops.stack([-1, array_ops.shape(t)[-1]]))

    return rows(labels), rows(predictions_idx), weights


def _relevance(labels, predictions_idx, distinct=True):
    """(relevant: float [batch, k], 1 where a predicted id is a label; labels per example: float
    [batch], a repeated id counted once when ``distinct``)."""
    from ..ops.reduction_ops import reduce_any, reduce_sum  # noqa: PLC0415

    hits = reduce_any(math_ops.equal(array_ops.expand_dims(predictions_idx, 2), array_ops.expand_dims(labels, 1)),
                      axis=2)
    present = math_ops.not_equal(labels, _NO_LABEL)
    if not distinct:
        return math_ops.cast(hits, dtypes.float64), reduce_sum(math_ops.cast(present, dtypes.float64), axis=1)
    same = math_ops.equal(array_ops.expand_dims(labels, 2), array_ops.expand_dims(labels, 1))  # [batch, j, i]
    n = array_ops.shape(labels)[1]
    earlier = math_ops.less(array_ops.expand_dims(math_ops.range_(n), 0), array_ops.expand_dims(math_ops.range_(n), 1))
    repeated = reduce_any(math_ops.logical_and(same, earlier), axis=2)
    counted = math_ops.logical_and(present, math_ops.logical_not(repeated))
    count = reduce_sum(math_ops.cast(counted, dtypes.float64), axis=1)
    return math_ops.cast(hits, dtypes.float64), count


def _counts(labels, predictions_idx, weights, class_id, missed):
    """Per example: (true positives, false positives, or with ``missed`` false negatives), float64:
    of every predicted id, or with ``class_id`` of that class only."""
    from ..ops.reduction_ops import reduce_any, reduce_sum  # noqa: PLC0415

    if class_id is None:
        relevant, count = _relevance(labels, predictions_idx)
        tp = reduce_sum(relevant, axis=1)
        other = count - tp if missed else math_ops.cast(array_ops.shape(predictions_idx)[1], dtypes.float64) - tp
    else:
        predicted = math_ops.cast(reduce_any(math_ops.equal(predictions_idx, int(class_id)), axis=1), dtypes.float64)
        labelled = math_ops.cast(reduce_any(math_ops.equal(labels, int(class_id)), axis=1), dtypes.float64)
        tp = predicted * labelled
        other = labelled - tp if missed else predicted - tp
    if weights is not None:
        tp, other = tp * weights, other * weights
    return tp, other


def _streaming_ratio(kind, labels, predictions_idx, k, class_id, weights, metrics_collections, updates_collections,
                     name):
    """tp / (tp + fp) (``kind`` "precision") or tp / (tp + fn) ("recall") of the top-k ids so far,
    in float64; NaN while nothing was counted, as TF's."""
    from ..ops.reduction_ops import reduce_sum  # noqa: PLC0415

    predictions_idx = ops.convert_to_tensor(predictions_idx)
    if k is not None:
        predictions_idx = predictions_idx[..., :int(k)]
    k = predictions_idx.shape[-1].value if predictions_idx.shape.ndims else None
    other_name = "false_positive" if kind == "precision" else "false_negative"
    with ops.name_scope(name, _at_k_name(kind, k, class_id), (predictions_idx, labels, weights)) as scope:
        labels, predictions_idx, weights = _flat_examples(labels, predictions_idx, weights)
        tp, other = _counts(labels, predictions_idx, weights, class_id, kind == "recall")
        with variable_scope(None, default_name=scope.rstrip("/").split("/")[-1]):
            tp_var = _local_variable(_at_k_name("true_positive", k, class_id), [], dtypes.float64)
            other_var = _local_variable(_at_k_name(other_name, k, class_id), [], dtypes.float64)
        update_tp = state_ops.assign_add(tp_var, reduce_sum(tp))
        update_other = state_ops.assign_add(other_var, reduce_sum(other))
        value = math_ops.divide(tp_var.value(), tp_var.value() + other_var.value(), name="value")
        update_op = math_ops.divide(update_tp, update_tp + update_other, name="update")
        _collect(metrics_collections, value)
        _collect(updates_collections, update_op)
        return value, update_op


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """Of the ``predictions_idx`` (``[..., k]`` class ids, only the first ``k`` if given) seen so
    far, the fraction that are labels (``labels``: ``[..., n]`` ids padded with -1, one id per
    example, or a SparseTensor); with ``class_id``, of the predictions of that class, the fraction
    labelled with it. NaN before anything is predicted (0/0, as TF's)."""
    return _streaming_ratio("precision", labels, predictions_idx, k, class_id, weights, metrics_collections,
                            updates_collections, name)


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """Of the labels seen so far, the fraction among the predicted ``predictions_idx``; with
    ``class_id``, of the labels of that class, the fraction predicted. NaN before any label."""
    return _streaming_ratio("recall", labels, predictions_idx, k, class_id, weights, metrics_collections,
                            updates_collections, name)


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """The mean over examples of AP@k: the precision at each rank i <= k where a label is found,
    summed and divided by min(k, the example's number of labels)."""
    from ..ops.nn_impl import top_k  # noqa: PLC0415

    if k < 1:
        raise ValueError(f"Invalid k={k}: it must be >= 1")
    with ops.name_scope(name, f"average_precision_at_{k}"):
        return _average_precision_of_top_k(labels, top_k(predictions, k)[1], k, weights, metrics_collections,
                                          updates_collections, name or f"average_precision_at_{k}")


def _average_precision_of_top_k(labels, predictions_idx, k, weights, metrics_collections, updates_collections, name):
    """``average_precision_at_k`` of the top ``k`` class ids already chosen (``predictions_idx``,
    [batch, k], best first)."""
    from ..ops.manip_ops import cumsum  # noqa: PLC0415
    from ..ops.reduction_ops import reduce_sum  # noqa: PLC0415

    labels, predictions_idx, weights = _flat_examples(labels, predictions_idx, weights)
    relevant, count = _relevance(labels, predictions_idx, distinct=False)  # (TF's AP counts every label)
    precision_at_rank = cumsum(relevant, axis=1) / math_ops.cast(math_ops.range_(1, k + 1), dtypes.float64)
    per_example = _div_no_nan(reduce_sum(precision_at_rank * relevant, axis=1), math_ops.minimum(count, float(k)))
    return _mean(per_example, weights, metrics_collections, updates_collections, name, dtypes.float64)


sparse_average_precision_at_k = average_precision_at_k




__getattr__ = missing("tf.metrics")
