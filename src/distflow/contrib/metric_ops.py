"""The streaming metrics that ``tf.contrib.metrics`` had beyond ``tf.metrics``: confusion counts
and error rates at thresholds, ``count``, Cohen's kappa, precision at a recall and recall at a
precision, ROC and PR curve points, precision and recall at equal thresholds, covariance and
Pearson's correlation, ``streaming_concat`` and the exact AUCs built on it (``streaming_dynamic_auc``,
``auc_with_confidence_intervals``), and the top-k ones taking class ids.

Each returns ``(value, update_op)``; its running totals are local metric variables under the
metric's variable scope (``tf.local_variables_initializer()`` resets them), as TF 1.x's.
Contrib's own functions take the predictions first, except those added after tf.metrics
(``count``, ``cohen_kappa``, ``precision_at_recall``, ``recall_at_precision``,
``streaming_curve_points``, ``streaming_dynamic_auc``, ``auc_with_confidence_intervals``,
``sparse_recall_at_top_k``, ``precision_recall_at_equal_thresholds``), which take the labels first.
"""

from __future__ import annotations

import collections
import statistics

from .. import metrics as _metrics
from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..metrics import _average_precision_of_top_k, _squeezed
from ..metrics.local_variables import local_variable
from ..metrics.thresholds import _confusion_at_thresholds
from ..ops import (array_ops, check_ops, control_flow_ops, histogram_ops, init_ops, manip_ops, math_ops,
                   reduction_ops, slicing_ops, special_math_ops, state_ops, unary_ops)
from ..ops import variable_scope as vs
from ..ops.control_flow_v2 import cond
from ..ops.nn_impl import top_k
from ..ops.segment_ops import confusion_matrix
from .framework_utils import remove_squeezable_dimensions
from ..ops import scatter_ops, segment_ops
from ..ops.variable_scope import variable_scope

_EPSILON = 1e-7


def _collected(metrics_collections, value, updates_collections, update_op):
    ops.add_to_collections(list(metrics_collections or []), value)
    ops.add_to_collections(list(updates_collections or []), update_op)
    return value, update_op


def _thresholds(num_thresholds: int) -> list:
    """``num_thresholds`` thresholds over [0, 1]: just below 0, evenly inside, just above 1."""
    return [-_EPSILON] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)] + [1.0 + _EPSILON]


def _broadcast_weights(weights, values):
    return math_ops.cast(weights, dtypes.float32) * array_ops.ones_like(math_ops.cast(values, dtypes.float32))


# -- confusion counts and rates ----------------------------------------------------------------

def _count_at_thresholds(key):
    def metric(predictions, labels, thresholds, weights=None):
        values, updates = _confusion_at_thresholds(labels, predictions, thresholds, weights, (key,))
        return values[key], updates[key]

    name = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives", "fp": "false_positives"}[key]
    metric.__name__ = f"streaming_{name}_at_thresholds"
    metric.__doc__ = f"The {name.replace('_', ' ')} at each of ``thresholds`` (predictions first)."
    return metric


streaming_true_positives_at_thresholds = _count_at_thresholds("tp")
streaming_false_negatives_at_thresholds = _count_at_thresholds("fn")
streaming_true_negatives_at_thresholds = _count_at_thresholds("tn")
streaming_false_positives_at_thresholds = _count_at_thresholds("fp")


def _rate(numerator, other, name):
    """``numerator / (numerator + other)``, 0 where both are 0."""
    total = numerator + other
    return math_ops.where(math_ops.greater(total, 0), special_math_ops.div_no_nan(numerator, total),
                          array_ops.zeros_like(total), name=name)


def _streaming_rate(scope, rated, other, predictions, labels, weights, metrics_collections, updates_collections,
                    name):
    with variable_scope(name, scope, (predictions, labels, weights)):
        labels, predictions = _squeezed(math_ops.cast(labels, dtypes.bool), math_ops.cast(predictions, dtypes.bool))
        value_a, update_a = rated(labels, predictions, weights)
        value_b, update_b = other(labels, predictions, weights)
        return _collected(metrics_collections, _rate(value_a, value_b, "value"),
                          updates_collections, _rate(update_a, update_b, "update_op"))


def streaming_false_positive_rate(predictions, labels, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """fp / (fp + tn) over the batches so far (0 while there is no negative label)."""
    return _streaming_rate("false_positive_rate", _metrics.false_positives, _metrics.true_negatives, predictions,
                           labels, weights, metrics_collections, updates_collections, name)


def streaming_false_negative_rate(predictions, labels, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """fn / (fn + tp) over the batches so far (0 while there is no positive label)."""
    return _streaming_rate("false_negative_rate", _metrics.false_negatives, _metrics.true_positives, predictions,
                           labels, weights, metrics_collections, updates_collections, name)


def _rate_at_thresholds(scope, rated, other, predictions, labels, thresholds, weights, metrics_collections,
                        updates_collections, name):
    with variable_scope(name, scope, (predictions, labels, weights)):
        values, updates = _confusion_at_thresholds(labels, predictions, thresholds, weights, (rated, other))
        return _collected(metrics_collections, _rate(values[rated], values[other], "value"),
                          updates_collections, _rate(updates[rated], updates[other], "update_op"))


def streaming_false_positive_rate_at_thresholds(predictions, labels, thresholds, weights=None,
                                                metrics_collections=None, updates_collections=None, name=None):
    """fp / (fp + tn) at each of ``thresholds`` (a prediction above a threshold is positive)."""
    return _rate_at_thresholds("false_positive_rate_at_thresholds", "fp", "tn", predictions, labels, thresholds,
                               weights, metrics_collections, updates_collections, name)


def streaming_false_negative_rate_at_thresholds(predictions, labels, thresholds, weights=None,
                                                metrics_collections=None, updates_collections=None, name=None):
    """fn / (fn + tp) at each of ``thresholds``."""
    return _rate_at_thresholds("false_negative_rate_at_thresholds", "fn", "tp", predictions, labels, thresholds,
                               weights, metrics_collections, updates_collections, name)


# -- counts, agreement, precision and recall at a target ---------------------------------------

def count(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """How many values (or how much weight, broadcast to them) the batches so far had."""
    with variable_scope(name, "count", (values, weights)):
        total = local_variable("count", [])
        values = ops.convert_to_tensor(values)
        if weights is None:
            batch = math_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            batch = reduction_ops.reduce_sum(_broadcast_weights(weights, values))
        update = state_ops.assign_add(total, batch)
        return _collected(metrics_collections, total.value(), updates_collections, update)


def cohen_kappa(labels, predictions_idx, num_classes, weights=None, metrics_collections=None,
                updates_collections=None, name=None):
    """Cohen's kappa of the class ids so far: (p_o - p_e) / (1 - p_e), p_o the agreement and p_e
    the agreement expected by chance from how often each class was labelled and predicted."""
    if num_classes < 2:
        raise ValueError(f"`num_classes` must be >= 2. Found: {num_classes}")
    with variable_scope(name, "cohen_kappa", (labels, predictions_idx, weights)):
        labels, predictions_idx = ops.convert_to_tensor(labels), ops.convert_to_tensor(predictions_idx)
        labels.shape.with_rank_at_most(2)
        if labels.shape.ndims == 2:
            labels = array_ops.squeeze(labels, axis=[-1])
        labels, predictions_idx = _squeezed(labels, predictions_idx)
        predictions_idx.shape.assert_is_compatible_with(labels.shape)
        stat_dtype = dtypes.int64 if weights is None or ops.convert_to_tensor(weights).dtype.is_integer \
            else dtypes.float32
        observed = local_variable("po", [num_classes], stat_dtype)
        by_label = local_variable("pe_row", [num_classes], stat_dtype)
        by_prediction = local_variable("pe_col", [num_classes], stat_dtype)
        table = confusion_matrix(labels, predictions_idx, num_classes=num_classes, weights=weights,
                                 dtype=stat_dtype, name="counts_in_table")
        updates = (state_ops.assign_add(observed, manip_ops.diag_part(table)),
                   state_ops.assign_add(by_label, reduction_ops.reduce_sum(table, axis=0)),
                   state_ops.assign_add(by_prediction, reduction_ops.reduce_sum(table, axis=1)))

        def kappa(po, pe_row, pe_col, name):
            po_sum = math_ops.cast(reduction_ops.reduce_sum(po), dtypes.float64)
            total = math_ops.cast(reduction_ops.reduce_sum(pe_row), dtypes.float64)
            pe_sum = reduction_ops.reduce_sum(special_math_ops.div_no_nan(
                math_ops.cast(pe_row * pe_col, dtypes.float64), total))
            return special_math_ops.div_no_nan(po_sum - pe_sum, total - pe_sum, name=name)

        return _collected(metrics_collections, kappa(observed.value(), by_label.value(), by_prediction.value(),
                                                     "value"),
                          updates_collections, kappa(*updates, "update_op"))


def _at_a_target(scope, compute, labels, predictions, weights, num_thresholds, metrics_collections,
                 updates_collections, name):
    """``compute(counts, name)`` of the confusion counts at ``num_thresholds`` thresholds, for the
    value and the update."""
    with variable_scope(name, scope, (predictions, labels, weights)):
        values, updates = _confusion_at_thresholds(labels, predictions, _thresholds(num_thresholds), weights,
                                                   ("tp", "fn", "tn", "fp"))
        return _collected(metrics_collections, compute(values, "value"), updates_collections,
                          compute(updates, "update_op"))


def precision_at_recall(labels, predictions, target_recall, weights=None, num_thresholds=200,
                        metrics_collections=None, updates_collections=None, name=None):
    """The precision at the highest of ``num_thresholds`` thresholds whose recall is at least
    ``target_recall``."""
    if not 0 <= target_recall <= 1:
        raise ValueError("`target_recall` must be in the range [0, 1].")

    def precision(counts, name):
        tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
        admissible = math_ops.cast(math_ops.greater_equal(tp / (tp + fn + _EPSILON), target_recall), dtypes.int64)
        index = reduction_ops.reduce_sum(admissible) - 1
        return math_ops.divide(slicing_ops.gather(tp, index) + _EPSILON,
                               slicing_ops.gather(tp, index) + slicing_ops.gather(fp, index) + _EPSILON, name=name)

    return _at_a_target("precision_at_recall", precision, labels, predictions, weights, num_thresholds,
                        metrics_collections, updates_collections, name)


def recall_at_precision(labels, predictions, precision, weights=None, num_thresholds=200,
                        metrics_collections=None, updates_collections=None, name=None, strict_mode=False):
    """The recall at the threshold whose precision is closest to ``precision``; with
    ``strict_mode``, at the one closest above it (0 when no threshold reaches it)."""
    if not 0 <= precision <= 1:
        raise ValueError("`precision` must be in the range [0, 1].")

    def recall(counts, name):
        tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
        precisions = tp / (tp + fp + _EPSILON)

        def at(index):
            return math_ops.divide(slicing_ops.gather(tp, index),
                                   slicing_ops.gather(tp, index) + slicing_ops.gather(fn, index) + _EPSILON,
                                   name=name)

        if not strict_mode:
            return at(reduction_ops.argmin(unary_ops.abs(precisions - precision), 0, output_type=dtypes.int32))
        index = reduction_ops.argmax(1.0 / (precisions - precision + _EPSILON), 0, output_type=dtypes.int32)
        return cond(slicing_ops.gather(precisions, index) >= precision, lambda: at(index),
                    lambda: array_ops.zeros([], dtypes.float32))

    return _at_a_target("recall_at_precision", recall, labels, predictions, weights, num_thresholds,
                        metrics_collections, updates_collections, name)


def streaming_curve_points(labels=None, predictions=None, weights=None, num_thresholds=200,
                           metrics_collections=None, updates_collections=None, curve="ROC", name=None):
    """``[num_thresholds, 2]`` points of the ROC curve (false positive rate, recall) or of the PR
    curve (recall, precision), one per threshold from just below 0 to just above 1."""
    with variable_scope(name, "curve_points", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
        values, updates = _confusion_at_thresholds(labels, predictions, _thresholds(num_thresholds), weights,
                                                   ("tp", "fn", "tn", "fp"))
        epsilon = 1.0e-6
        tp, fn, tn, fp = (values[k] for k in ("tp", "fn", "tn", "fp"))
        recall = (tp + epsilon) / (tp + fn + epsilon)
        if curve == "ROC":
            xs, ys = fp / (fp + tn + epsilon), recall
        else:
            xs, ys = recall, (tp + epsilon) / (tp + fp + epsilon)
        points = array_ops.stack([xs, ys], axis=1)
        return _collected(metrics_collections, points, updates_collections,
                          control_flow_ops.group(*updates.values()))


# -- covariance and correlation ------------------------------------------------------------------

def streaming_covariance(predictions, labels, weights=None, metrics_collections=None, updates_collections=None,
                         name=None):
    """The unbiased (weighted) covariance of predictions and labels so far, kept by the pairwise
    update of counts, means and co-moment (Chan et al.), so batches combine exactly; NaN until
    more than one value (or weight 1) has been seen."""
    with variable_scope(name, "covariance", (predictions, labels, weights)):
        labels, predictions = _squeezed(labels, predictions)
        predictions = math_ops.cast(predictions, dtypes.float32)
        labels = math_ops.cast(labels, dtypes.float32)
        predictions.shape.assert_is_compatible_with(labels.shape)
        count_ = local_variable("count", [])
        mean_prediction = local_variable("mean_prediction", [])
        mean_label = local_variable("mean_label", [])
        comoment = local_variable("comoment", [])
        if weights is None:
            batch_count = math_ops.cast(array_ops.size(labels), dtypes.float32)
            weighted_predictions, weighted_labels = predictions, labels
        else:
            weights = _broadcast_weights(weights, labels)
            batch_count = reduction_ops.reduce_sum(weights)
            weighted_predictions, weighted_labels = predictions * weights, labels * weights
        update_count = state_ops.assign_add(count_, batch_count)
        prev_count = update_count - batch_count
        div = special_math_ops.div_no_nan
        batch_mean_prediction = div(reduction_ops.reduce_sum(weighted_predictions), batch_count)
        delta_prediction = div((batch_mean_prediction - mean_prediction.value()) * batch_count, update_count)
        update_mean_prediction = state_ops.assign_add(mean_prediction, delta_prediction)
        prev_mean_prediction = update_mean_prediction - delta_prediction
        batch_mean_label = div(reduction_ops.reduce_sum(weighted_labels), batch_count)
        delta_label = div((batch_mean_label - mean_label.value()) * batch_count, update_count)
        update_mean_label = state_ops.assign_add(mean_label, delta_label)
        prev_mean_label = update_mean_label - delta_label
        coresiduals = (predictions - batch_mean_prediction) * (labels - batch_mean_label)
        batch_comoment = reduction_ops.reduce_sum(coresiduals if weights is None else coresiduals * weights)
        delta_comoment = batch_comoment + (prev_mean_prediction - batch_mean_prediction) * (
            prev_mean_label - batch_mean_label) * div(prev_count * batch_count, update_count)
        update_comoment = state_ops.assign_add(comoment, delta_comoment)

        def covariance(name):
            n = count_.value()
            return math_ops.where(math_ops.less_equal(n, 1.0), array_ops.fill([], float("nan")),
                                  math_ops.truediv(comoment.value(), n - 1), name=name)

        value = covariance("covariance")
        with ops.control_dependencies([update_comoment]):
            update_op = covariance("update_op")
        return _collected(metrics_collections, value, updates_collections, update_op)


def streaming_pearson_correlation(predictions, labels, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    """Pearson's correlation of predictions and labels so far: their covariance over the product
    of their standard deviations (each a ``streaming_covariance``)."""
    with variable_scope(name, "pearson_r", (predictions, labels, weights)):
        labels, predictions = _squeezed(labels, predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
        if weights is not None:
            weights = _broadcast_weights(weights, labels)
        cov, update_cov = streaming_covariance(predictions, labels, weights=weights, name="covariance")
        var_p, update_var_p = streaming_covariance(predictions, predictions, weights=weights,
                                                   name="variance_predictions")
        var_l, update_var_l = streaming_covariance(labels, labels, weights=weights, name="variance_labels")
        value = math_ops.truediv(cov, math_ops.sqrt(var_p) * math_ops.sqrt(var_l), name="pearson_r")
        update_op = math_ops.truediv(update_cov, math_ops.sqrt(update_var_p) * math_ops.sqrt(update_var_l),
                                     name="update_op")
        return _collected(metrics_collections, value, updates_collections, update_op)


# -- concatenation and the exact AUC -------------------------------------------------------------

def streaming_concat(values, axis=0, max_size=None, metrics_collections=None, updates_collections=None,
                     name=None):
    """Every batch of ``values`` so far, concatenated along ``axis`` (at most ``max_size`` along
    it: later values are dropped). The other dimensions must be known."""
    value, make_update = _concatenation(values, axis, max_size, name)
    return _collected(metrics_collections, value, updates_collections, make_update())


def _concatenation(values, axis, max_size, name):
    """``streaming_concat``'s value, and a function that builds its update where it is called
    (inside a cond's branch, say)."""
    with variable_scope(name, "streaming_concat", (values,)) as scope:
        values = ops.convert_to_tensor(values)
        if values.shape.ndims is None:
            raise ValueError("`values` must have known statically known rank")
        ndim = values.shape.ndims
        axis = axis + ndim if axis < 0 else axis
        if not 0 <= axis < ndim:
            raise ValueError(f"axis = {axis!r} not in [0, {ndim!r})")
        fixed = [d for n, d in enumerate(values.shape.as_list()) if n != axis]
        if any(d is None for d in fixed):
            raise ValueError("all dimensions of `values` other than the dimension to concatenate along must have "
                             "statically known size")
        array = state_ops.Variable(lambda: array_ops.zeros([0] + fixed, dtype=values.dtype), name="array",
                                   trainable=False, validate_shape=False,
                                   collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])
        size = local_variable("size", [], dtypes.int32)
        stored = array.value()
        stored.set_shape([None] + fixed)
        back = [0 if n == axis else n + 1 if n < axis else n for n in range(ndim)]
        value = array_ops.transpose(stored, back, name="concat")

    def make_update():
        with ops.name_scope(scope.original_name_scope):
            batch = array_ops.transpose(values, [axis] + [n for n in range(ndim) if n != axis])
            if max_size is not None:
                batch = batch[:math_ops.maximum(max_size - size.value(), 0)]
            grown = state_ops.assign(array, slicing_ops.concat([array.value(), batch], 0), validate_shape=False)
            with ops.control_dependencies([grown]):
                return state_ops.assign(size, array_ops.shape(grown)[0])

    return value, make_update


def _binary_labels(labels):
    """``labels`` as an int64 vector, checked when run to be 0 or 1 (the update checks them;
    reading an AUC needs no feed, unlike TF's)."""
    labels = array_ops.reshape(math_ops.cast(labels, dtypes.int64), [-1])
    return control_flow_ops.with_dependencies([
        check_ops.assert_greater_equal(labels, array_ops.zeros_like(labels),
                                       message="labels must be 0 or 1, at least one is <0"),
        check_ops.assert_less_equal(labels, array_ops.ones_like(labels),
                                    message="labels must be 0 or 1, at least one is >1")], labels)


def _dynamic_auc(labels, predictions, curve, weights):
    """The exact area under the ROC or PR curve of all the (label, prediction, weight) so far:
    the trapezoids between the points at each distinct prediction, best first."""
    size = array_ops.size(predictions)
    weights = array_ops.ones_like(labels, dtype=dtypes.float64) if weights is None else weights
    total_weight = reduction_ops.reduce_sum(weights)
    positive = math_ops.greater(labels, 0)
    total_positive = reduction_ops.reduce_sum(math_ops.where(positive, weights, array_ops.zeros_like(weights)))

    def area():
        ordered, indices = top_k(predictions, k=size)
        ordered_labels = slicing_ops.gather(labels, indices)
        ordered_weights = slicing_ops.gather(weights, indices)
        _, _, counts = segment_ops.unique_with_counts(ordered)
        splits = math_ops.cast(array_ops.pad(manip_ops.cumsum(counts), [[1, 0]]), dtypes.int32)

        def at_splits(selected):
            return slicing_ops.gather(array_ops.pad(manip_ops.cumsum(selected), [[1, 0]]), splits)

        zeros = array_ops.zeros_like(ordered_weights)
        tp = at_splits(math_ops.where(math_ops.greater(ordered_labels, 0), ordered_weights, zeros))
        if curve == "ROC":
            fp = at_splits(math_ops.where(math_ops.less(ordered_labels, 1), ordered_weights, zeros))
            xs, ys = fp / (total_weight - total_positive), tp / total_positive
        else:
            xs = tp / total_positive
            ys = math_ops.where(math_ops.greater(splits, 0), tp / at_splits(ordered_weights),
                                array_ops.ones_like(tp))
        heights = (ys[1:] + ys[:-1]) / 2.0
        widths = unary_ops.abs(xs[1:] - xs[:-1])
        return reduction_ops.reduce_sum(heights * widths)

    return cond(math_ops.logical_or(math_ops.equal(total_positive, 0), math_ops.equal(total_positive, total_weight)),
                lambda: array_ops.zeros([], dtypes.float64), area)


def streaming_dynamic_auc(labels, predictions, curve="ROC", metrics_collections=(), updates_collections=(),
                          name=None, weights=None):
    """The exact ROC or PR AUC of every (label, prediction) so far (kept with
    ``streaming_concat``; 0 while all the labels are one class). Labels must be 0 or 1."""
    if curve not in ("PR", "ROC"):
        raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
    with variable_scope(name, "dynamic_auc"):
        labels, predictions = ops.convert_to_tensor(labels), ops.convert_to_tensor(predictions)
        labels.shape.assert_is_compatible_with(predictions.shape)
        predictions = array_ops.reshape(math_ops.cast(predictions, dtypes.float64), [-1])
        labels = _binary_labels(labels)
        all_predictions, update_predictions = streaming_concat(predictions, name="concat_preds")
        all_labels, update_labels = streaming_concat(labels, name="concat_labels")
        updates = [update_labels, update_predictions]
        all_weights = None
        if weights is not None:
            weights = array_ops.reshape(math_ops.cast(weights, dtypes.float64), [-1])
            all_weights, update_weights = streaming_concat(weights, name="concat_weights")
            updates.append(update_weights)
        update_op = control_flow_ops.group(*updates)
        auc = _dynamic_auc(all_labels, all_predictions, curve, all_weights)
        return _collected(metrics_collections, auc, updates_collections, update_op)


# -- top k by class ids ------------------------------------------------------------------------

def streaming_sparse_precision_at_top_k(top_k_predictions, labels, class_id=None, weights=None,
                                        metrics_collections=None, updates_collections=None, name=None):
    """``tf.metrics.precision_at_top_k`` with the top-k class ids first."""
    return _metrics.precision_at_top_k(labels, top_k_predictions, class_id=class_id, weights=weights,
                                       metrics_collections=metrics_collections,
                                       updates_collections=updates_collections, name=name)


def sparse_recall_at_top_k(labels, top_k_predictions, class_id=None, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """``tf.metrics.recall_at_top_k``."""
    return _metrics.recall_at_top_k(labels, top_k_predictions, class_id=class_id, weights=weights,
                                    metrics_collections=metrics_collections,
                                    updates_collections=updates_collections, name=name)


def streaming_sparse_average_precision_at_top_k(top_k_predictions, labels, weights=None,
                                                metrics_collections=None, updates_collections=None, name=None):
    """``tf.metrics.average_precision_at_k`` of the top-k class ids already chosen."""
    top_k_predictions = ops.convert_to_tensor(top_k_predictions)
    k = top_k_predictions.shape[-1].value
    if k is None:
        raise ValueError(f"The last dimension of top_k_predictions must be known, got {top_k_predictions.shape}")
    with ops.name_scope(name, f"average_precision_at_top_k_{k}"):
        return _average_precision_of_top_k(labels, math_ops.cast(top_k_predictions, dtypes.int64), k, weights,
                                           metrics_collections, updates_collections,
                                           name or f"average_precision_at_top_k_{k}")


PrecisionRecallData = collections.namedtuple("PrecisionRecallData",
                                             ["tp", "fp", "tn", "fn", "precision", "recall", "thresholds"])


def precision_recall_at_equal_thresholds(labels, predictions, weights=None, num_thresholds=None, use_locking=None,
                                         name=None):
    """tp, fp, tn, fn, precision and recall at ``num_thresholds`` (201) thresholds spread evenly
    over [0, 1], from a histogram of the predictions: a prediction p counts as positive at the
    thresholds up to ``floor(p * (num_thresholds - 1))``. ``labels`` must be bool. Returns
    (PrecisionRecallData, update_op); the data are in the predictions' dtype."""
    num_thresholds = 201 if num_thresholds is None else num_thresholds
    labels, predictions = ops.convert_to_tensor(labels), ops.convert_to_tensor(predictions)
    check_ops.assert_type(labels, dtypes.bool)
    with variable_scope(name, "precision_recall_at_equal_thresholds", (labels, predictions, weights)):
        labels, predictions = _squeezed(labels, predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
        checked = control_flow_ops.with_dependencies([
            check_ops.assert_greater_equal(predictions, math_ops.cast(0.0, predictions.dtype),
                                           message="predictions must be in [0, 1]"),
            check_ops.assert_less_equal(predictions, math_ops.cast(1.0, predictions.dtype),
                                        message="predictions must be in [0, 1]")], predictions)
        positive = math_ops.cast(labels, dtypes.float64)
        weights = math_ops.cast(1.0 if weights is None else weights, dtypes.float64)
        true_labels = array_ops.reshape(positive * weights, [-1])
        false_labels = array_ops.reshape((1.0 - positive) * weights, [-1])
        buckets = math_ops.cast(math_ops.floor(array_ops.reshape(checked, [-1]) * (num_thresholds - 1)),
                                dtypes.int32)
        with ops.name_scope("variables"):
            tp_buckets = local_variable("tp_buckets", [num_thresholds], dtypes.float64)
            fp_buckets = local_variable("fp_buckets", [num_thresholds], dtypes.float64)
        with ops.name_scope("update_op"):
            update_op = control_flow_ops.group(scatter_ops.scatter_add(tp_buckets, buckets, true_labels),
                                               scatter_ops.scatter_add(fp_buckets, buckets, false_labels))
        tp = manip_ops.cumsum(tp_buckets.value(), reverse=True, name="tp")
        fp = manip_ops.cumsum(fp_buckets.value(), reverse=True, name="fp")
        tn, fn = fp[0] - fp, tp[0] - tp
        epsilon = ops.convert_to_tensor(1e-7, dtype=dtypes.float64)
        precision = tp / math_ops.maximum(epsilon, tp + fp)
        recall = tp / math_ops.maximum(epsilon, tp + fn)
        out = predictions.dtype.base_dtype
        data = PrecisionRecallData(*(math_ops.cast(t, out) for t in (tp, fp, tn, fn, precision, recall)),
                                   thresholds=math_ops.cast(manip_ops.lin_space(0.0, 1.0, num_thresholds), out))
        return data, update_op


AucData = collections.namedtuple("AucData", ["auc", "lower", "upper"])


def _placement_auc(labels, predictions, weights, alpha, logit_transformation):
    """The weighted ROC AUC of all the (label, prediction, weight) so far by placement values
    (DeLong et al.): each example's share of the other class it outranks, ties counting half;
    and the bounds of its ``alpha`` confidence interval from their variance (on the logit of
    the AUC when ``logit_transformation``)."""
    eps = _EPSILON
    weights = math_ops.cast(weights, dtypes.float64)
    positive = math_ops.cast(labels, dtypes.float64)
    negative = 1.0 - positive
    total_0, total_1 = reduction_ops.reduce_sum(negative * weights), reduction_ops.reduce_sum(positive * weights)
    order = top_k(-predictions, k=array_ops.size(predictions))[1]  # (ascending)
    ordered = slicing_ops.gather(predictions, order)
    ordered_pos, ordered_neg = slicing_ops.gather(positive, order), slicing_ops.gather(negative, order)
    ordered_weights = slicing_ops.gather(weights, order)
    _, segments = segment_ops.unique(ordered)  # (one segment per distinct prediction, in order)
    neg_per_value = segment_ops.segment_sum(ordered_weights * ordered_neg, segments)
    pos_per_value = segment_ops.segment_sum(ordered_weights * ordered_pos, segments)

    def placements(per_value):  # (the other class's weight below each value, and half of it at it)
        below = manip_ops.cumsum(per_value, exclusive=True)
        return slicing_ops.gather((below + per_value / 2.0) / (reduction_ops.reduce_sum(per_value) + eps), segments)

    place = placements(neg_per_value) * ordered_pos + placements(pos_per_value) * ordered_neg
    weights_0, weights_1 = ordered_weights * ordered_neg, ordered_weights * ordered_pos
    auc_0 = reduction_ops.reduce_sum(weights_0 * (1.0 - place * ordered_neg)) / (total_0 + eps)
    auc_1 = reduction_ops.reduce_sum(weights_1 * place * ordered_pos) / (total_1 + eps)
    auc = math_ops.where(math_ops.less(total_0, total_1), auc_1, auc_0)
    var_0 = reduction_ops.reduce_sum(weights_0 * math_ops.square(1.0 - place * ordered_neg - auc_0)) / (
        total_0 - 1.0 + eps)
    var_1 = reduction_ops.reduce_sum(weights_1 * math_ops.squared_difference(place * ordered_pos, auc_1)) / (
        total_1 - 1.0 + eps)
    std_err = math_ops.sqrt(var_0 / (total_0 + eps) + var_1 / (total_1 + eps))
    z = statistics.NormalDist().inv_cdf((1.0 - alpha) / 2.0)  # (negative)
    if logit_transformation:
        estimate = math_ops.log(auc / (1.0 - auc + eps))
        err = std_err / (auc * (1.0 - auc + eps))
        lower, upper = (1.0 / (1.0 + math_ops.exp(-(estimate + sign * z * err)) + eps) for sign in (1.0, -1.0))
    else:
        lower, upper = auc + z * std_err, auc - z * std_err
    degenerate = math_ops.logical_or(math_ops.equal(auc, 1.0), math_ops.equal(auc, 0.0))
    return AucData(auc, math_ops.where(degenerate, auc, lower), math_ops.where(degenerate, auc, upper))


def auc_with_confidence_intervals(labels, predictions, weights=None, alpha=0.95, logit_transformation=True,
                                  metrics_collections=(), updates_collections=(), name=None):
    """The exact weighted ROC AUC of every (label, prediction) so far, with the ``alpha``
    confidence interval of its estimate: (AucData(auc, lower, upper), update_op), in float64.
    A batch whose weights sum below 1 is not kept; while the labels kept are all one class,
    the data are zeros. Labels must be 0 or 1."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1; currently {alpha:.02f}")
    with variable_scope(name, "auc_with_confidence_intervals", (labels, predictions, weights)):
        labels, predictions = _squeezed(ops.convert_to_tensor(labels), ops.convert_to_tensor(predictions))
        weights = array_ops.ones_like(predictions, dtype=dtypes.float64) if weights is None else \
            math_ops.cast(weights, dtypes.float64) * array_ops.ones_like(predictions, dtype=dtypes.float64)
        batch_weight = reduction_ops.reduce_sum(weights)
        predictions = array_ops.reshape(math_ops.cast(predictions, dtypes.float64), [-1])
        labels = _binary_labels(labels)
        kept = [_concatenation(t, 0, None, n) for t, n in ((predictions, "concat_preds"), (labels, "concat_labels"),
                                                           (array_ops.reshape(weights, [-1]), "concat_weights"))]
        (all_predictions, _), (all_labels, _), (all_weights, _) = kept
        # (a batch whose weights sum below 1 is not kept: its updates are built in the cond's branch)
        update_op = cond(math_ops.greater_equal(batch_weight, 1.0),
                         lambda: control_flow_ops.group(*[make_update() for _, make_update in kept]),
                         control_flow_ops.no_op)
        both_classes = math_ops.logical_and(
            math_ops.equal(reduction_ops.reduce_min(slicing_ops.concat([all_labels, [1]], 0)), 0),
            math_ops.equal(reduction_ops.reduce_max(slicing_ops.concat([all_labels, [0]], 0)), 1))
        zero = array_ops.zeros([], dtypes.float64)
        data = AucData(*cond(both_classes,
                             lambda: list(_placement_auc(all_labels, all_predictions, all_weights, alpha,
                                                         logit_transformation)),
                             lambda: [zero, zero, zero]))
        return _collected(metrics_collections, data, updates_collections, update_op)


def auc_using_histogram(boolean_labels, scores, score_range, nbins=100, collections=None, check_shape=True,
                        name=None):
    """The area under the ROC curve from histograms of the scores of the true and of the false
    examples, ``nbins`` bins over ``score_range``, summed over the updates: (auc, update_op).
    Cheaper than ``tf.metrics.auc`` and exact up to the bins' width. The two histograms are
    variables in ``collections`` (local variables by default, as TF's)."""
    with variable_scope(name, "auc_using_histogram", [boolean_labels, scores, score_range]):
        scores, boolean_labels = remove_squeezable_dimensions(scores, boolean_labels)
        if boolean_labels.dtype.base_dtype != dtypes.bool:
            raise ValueError(f"auc_using_histogram: boolean_labels must be bool, got {boolean_labels.dtype.name}")
        if check_shape and not scores.shape.is_compatible_with(boolean_labels.shape):
            raise ValueError(f"auc_using_histogram: scores {scores.shape} and boolean_labels "
                             f"{boolean_labels.shape} must have the same shape")
        value_range = ops.convert_to_tensor(score_range, dtype=scores.dtype.base_dtype, name="score_range")
        totals = []
        for key, mask in (("true", boolean_labels), ("false", math_ops.logical_not(boolean_labels))):
            hist = histogram_ops.histogram_fixed_width(manip_ops.boolean_mask(scores, mask), value_range, nbins,
                                                       dtype=dtypes.int64, name=f"hist_{key}")
            total = vs.get_variable(f"hist_{key}_acc", shape=[nbins], dtype=dtypes.int64,
                                    initializer=init_ops.zeros_initializer(),
                                    collections=collections or [GraphKeys.LOCAL_VARIABLES],
                                    trainable=False)
            totals.append((total, hist))
        update_op = control_flow_ops.group(*[state_ops.assign_add(total, hist) for total, hist in totals],
                                           name="update_op")
        # The curve, from the highest bin down: x the false examples' share so far, y the true ones'.
        true_share, false_share = [manip_ops.reverse(math_ops.cast(total, dtypes.float64)
                                                     / math_ops.cast(reduction_ops.reduce_sum(total), dtypes.float64),
                                                     [0]) for total, _ in totals]
        y = manip_ops.cumsum(true_share)
        previous_y = slicing_ops.concat([[0.0], y[:-1]], 0)
        auc = reduction_ops.reduce_sum(false_share * (y + previous_y) / 2.0, name="auc")
        return auc, update_op
