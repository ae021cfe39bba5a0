"""``tf.contrib.metrics``: the streaming metrics of TF 1.0-1.3 programs.

Each ``streaming_<name>(predictions, labels, ...)`` is ``tf.metrics.<name>(labels,
predictions, ...)``: contrib took the predictions first; the other arguments, the local
variables and the (value, update_op) pair are the same. Also ``aggregate_metrics`` and
``aggregate_metric_map``, which split such pairs, the one-shot ``accuracy``, ``f1_score``, and
contrib's own metrics (metric_ops.py)."""

from __future__ import annotations

from .. import metrics as _metrics
from .._namespace import missing
from ..framework import dtypes, ops
from ..metrics.thresholds import _confusion_at_thresholds
from .metric_ops import (auc_using_histogram, auc_with_confidence_intervals, cohen_kappa, count,  # noqa: F401
                         precision_at_recall,
                         precision_recall_at_equal_thresholds, recall_at_precision, sparse_recall_at_top_k,
                         streaming_concat, streaming_covariance, streaming_curve_points,
                         streaming_dynamic_auc, streaming_false_negative_rate,
                         streaming_false_negative_rate_at_thresholds,
                         streaming_false_negatives_at_thresholds, streaming_false_positive_rate,
                         streaming_false_positive_rate_at_thresholds,
                         streaming_false_positives_at_thresholds, streaming_pearson_correlation,
                         streaming_sparse_average_precision_at_top_k, streaming_sparse_precision_at_top_k,
                         streaming_true_negatives_at_thresholds, streaming_true_positives_at_thresholds)
from ..ops import array_ops, math_ops, nn_impl, reduction_ops
from ..ops import variable_scope as vs
from ..ops.segment_ops import confusion_matrix  # noqa: F401
from ..ops.set_ops import set_difference, set_intersection, set_size, set_union  # noqa: F401


def _labels_second(metric):
    """``metric(labels, predictions, ...)`` taken as ``(predictions, labels, ...)``."""

    def streaming(predictions, labels, *args, **kwargs):
        return metric(labels, predictions, *args, **kwargs)

    streaming.__name__ = f"streaming_{metric.__name__}"
    streaming.__doc__ = f"``tf.metrics.{metric.__name__}`` with the predictions first."
    return streaming


streaming_accuracy = _labels_second(_metrics.accuracy)
streaming_auc = _labels_second(_metrics.auc)
streaming_precision = _labels_second(_metrics.precision)
streaming_recall = _labels_second(_metrics.recall)
streaming_true_positives = _labels_second(_metrics.true_positives)
streaming_true_negatives = _labels_second(_metrics.true_negatives)
streaming_false_positives = _labels_second(_metrics.false_positives)
streaming_false_negatives = _labels_second(_metrics.false_negatives)
streaming_mean_absolute_error = _labels_second(_metrics.mean_absolute_error)
streaming_mean_squared_error = _labels_second(_metrics.mean_squared_error)
streaming_root_mean_squared_error = _labels_second(_metrics.root_mean_squared_error)
streaming_mean_relative_error = _labels_second(_metrics.mean_relative_error)
streaming_mean_cosine_distance = _labels_second(_metrics.mean_cosine_distance)
streaming_mean_iou = _labels_second(_metrics.mean_iou)
streaming_precision_at_thresholds = _labels_second(_metrics.precision_at_thresholds)
streaming_recall_at_thresholds = _labels_second(_metrics.recall_at_thresholds)
streaming_sparse_precision_at_k = _labels_second(_metrics.precision_at_k)
streaming_sparse_recall_at_k = _labels_second(_metrics.recall_at_k)
streaming_sparse_average_precision_at_k = _labels_second(_metrics.average_precision_at_k)
streaming_sensitivity_at_specificity = _labels_second(_metrics.sensitivity_at_specificity)
streaming_specificity_at_sensitivity = _labels_second(_metrics.specificity_at_sensitivity)
streaming_mean = _metrics.mean
streaming_mean_tensor = _metrics.mean_tensor
streaming_percentage_less = _metrics.percentage_below


def streaming_recall_at_k(predictions, labels, k, weights=None, metrics_collections=None, updates_collections=None,
                          name=None):
    """The share of examples whose label (dense class ids) is among the ``k`` highest
    predictions: the streaming mean of ``in_top_k`` (as contrib computed it)."""
    hits = math_ops.cast(nn_impl.in_top_k(predictions, labels, k), dtypes.float32)
    return _metrics.mean(hits, weights, metrics_collections, updates_collections, name or f"recall_at_{k}")


def accuracy(predictions, labels, weights=None, name=None):
    """The (weighted) share of ``predictions`` equal to ``labels`` in this batch alone (no
    variables: not streaming)."""
    with ops.name_scope(name, "accuracy", [predictions, labels, weights]):
        predictions, labels = ops.convert_to_tensor(predictions), ops.convert_to_tensor(labels)
        if predictions.dtype.base_dtype != labels.dtype.base_dtype:
            raise ValueError(f"Dtypes of predictions and labels should match. Given: predictions "
                             f"({predictions.dtype.name}) and labels ({labels.dtype.name})")
        correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is None:
            return reduction_ops.reduce_mean(correct)
        weights = math_ops.cast(weights, dtypes.float32) * array_ops.ones_like(correct)
        return reduction_ops.reduce_sum(correct * weights) / reduction_ops.reduce_sum(weights)


def f1_score(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
             updates_collections=None, name=None):
    """The best F1 score, 2 p r / (p + r), over ``num_thresholds`` thresholds spread evenly over
    [0, 1] (the first just below 0, the last just above 1), as a streaming metric: its
    ``f1/true_positives``, ``false_positives`` and ``false_negatives`` per threshold are local
    variables. Labels first, as TF 1.x's."""
    epsilon = 1e-7
    thresholds = ([-epsilon] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
                  + [1.0 + epsilon])
    with vs.variable_scope(name, "f1", (labels, predictions, weights)):
        values, updates = _confusion_at_thresholds(labels, predictions, thresholds, weights, ("tp", "fp", "fn"))

        def best_f1(counts, suffix):
            tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
            precision = math_ops.divide(tp, epsilon + tp + fp, name=f"precision_{suffix}")
            recall = math_ops.divide(tp, epsilon + tp + fn, name=f"recall_{suffix}")
            return reduction_ops.reduce_max(2.0 * precision * recall / (precision + recall + epsilon))

        value, update = best_f1(values, "value"), best_f1(updates, "update")
        ops.add_to_collections(metrics_collections or [], value)
        ops.add_to_collections(updates_collections or [], update)
        return value, update


def aggregate_metrics(*value_update_tuples):
    """(the metrics' values, their update ops), from (value, update_op) pairs."""
    if not value_update_tuples:
        raise ValueError("Expected at least one value_tensor/update_op pair")
    values, updates = zip(*value_update_tuples)
    return list(values), list(updates)


def aggregate_metric_map(names_to_tuples):
    """({name: value}, {name: update_op}) from {name: (value, update_op)}."""
    names = list(names_to_tuples)
    values, updates = aggregate_metrics(*[names_to_tuples[n] for n in names])
    return dict(zip(names, values)), dict(zip(names, updates))


__getattr__ = missing("tf.contrib.metrics")
