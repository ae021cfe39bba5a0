"""Metrics over a set of decision thresholds: confusion counts at each threshold, precision and
recall there, the area under the ROC or PR curve, sensitivity at a specificity and back."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework import ops
from ..ops import array_ops, check_ops, math_ops, state_ops, unary_ops
from ..ops import manip_ops, slicing_ops
from ..ops import reduction_ops
from ..ops.special_math_ops import div_no_nan
from ..ops.variable_scope import variable_scope
from .local_variables import local_variable


def _local(name, shape):
    return local_variable(name, shape)


def _collect(collections, value):
    for key in collections or []:
        ops.add_to_collection(key, value)


def _confusion_at_thresholds(labels, predictions, thresholds, weights, includes):
    """Accumulators and update ops of tp/fn/tn/fp at each threshold (prediction > threshold is positive)."""
    predictions = math_ops.cast(predictions, dtypes.float32)
    with ops.control_dependencies([  # (probabilities, as TF checks: an InvalidArgumentError when run)
            check_ops.assert_greater_equal(predictions, 0.0, message="predictions must be in [0, 1]"),
            check_ops.assert_less_equal(predictions, 1.0, message="predictions must be in [0, 1]")]):
        predictions = array_ops.identity(predictions)
    if weights is not None:  # (broadcast to the predictions' shape first, as TF's: a weight per example)
        weights = math_ops.cast(weights, dtypes.float32) * array_ops.ones_like(predictions)
    labels = math_ops.cast(array_ops.reshape(labels, [-1, 1]), dtypes.bool)
    predictions = array_ops.reshape(predictions, [-1, 1])
    thresh = array_ops.constant(np.asarray(thresholds, np.float32).reshape(1, -1))
    above = math_ops.greater(predictions, thresh)
    w = array_ops.ones_like(math_ops.cast(above, dtypes.float32)) if weights is None else \
        array_ops.reshape(weights, [-1, 1]) * array_ops.ones_like(math_ops.cast(above, dtypes.float32))
    positive = labels
    negative = math_ops.logical_not(labels)
    cases = {"tp": math_ops.logical_and(above, positive), "fn": math_ops.logical_and(math_ops.logical_not(above),
                                                                                      positive),
             "tn": math_ops.logical_and(math_ops.logical_not(above), negative),
             "fp": math_ops.logical_and(above, negative)}
    values, updates = {}, {}
    n = len(thresholds)
    for key in includes:
        var = _local({"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives",
                      "fp": "false_positives"}[key], [n])
        hits = reduction_ops.reduce_sum(math_ops.cast(cases[key], dtypes.float32) * w, 0)
        updates[key] = state_ops.assign_add(var, hits)
        values[key] = var.value()
    return values, updates


def _count_at_thresholds(key, labels, predictions, thresholds, weights, metrics_collections, updates_collections,
                         name, default):
    with variable_scope(name, default, [predictions, labels]):
        values, updates = _confusion_at_thresholds(labels, predictions, thresholds, weights, (key,))
        _collect(metrics_collections, values[key])
        _collect(updates_collections, updates[key])
        return values[key], updates[key]


def true_positives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                 updates_collections=None, name=None):
    return _count_at_thresholds("tp", labels, predictions, thresholds, weights, metrics_collections,
                                updates_collections, name, "true_positives")


def false_positives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    return _count_at_thresholds("fp", labels, predictions, thresholds, weights, metrics_collections,
                                updates_collections, name, "false_positives")


def true_negatives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                 updates_collections=None, name=None):
    return _count_at_thresholds("tn", labels, predictions, thresholds, weights, metrics_collections,
                                updates_collections, name, "true_negatives")


def false_negatives_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                                  updates_collections=None, name=None):
    return _count_at_thresholds("fn", labels, predictions, thresholds, weights, metrics_collections,
                                updates_collections, name, "false_negatives")


def _ratio_at_thresholds(numerator, other, labels, predictions, thresholds, weights, metrics_collections,
                         updates_collections, name, default):
    with variable_scope(name, default, [predictions, labels]):
        values, updates = _confusion_at_thresholds(labels, predictions, thresholds, weights, (numerator, other))
        epsilon = 1e-7
        value = values[numerator] / (epsilon + values[numerator] + values[other])
        update = updates[numerator] / (epsilon + updates[numerator] + updates[other])
        _collect(metrics_collections, value)
        _collect(updates_collections, update)
        return value, update


def precision_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    return _ratio_at_thresholds("tp", "fp", labels, predictions, thresholds, weights, metrics_collections,
                                updates_collections, name, "precision_at_thresholds")


def recall_at_thresholds(labels, predictions, thresholds, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    return _ratio_at_thresholds("tp", "fn", labels, predictions, thresholds, weights, metrics_collections,
                                updates_collections, name, "recall_at_thresholds")


def _thresholds(num_thresholds):
    epsilon = 1e-7
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - epsilon] + inner + [1.0 + epsilon]


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None, updates_collections=None,
        curve="ROC", name=None, summation_method="trapezoidal", thresholds=None):
    """The area under the ROC (or PR) curve over ``num_thresholds`` thresholds in [0, 1] (TF's Riemann sum)."""
    if curve not in ("ROC", "PR"):
        raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
    if summation_method not in ("trapezoidal", "careful_interpolation", "minoring", "majoring"):
        raise ValueError(f"Invalid summation_method: {summation_method}")
    thresholds = _thresholds(num_thresholds) if thresholds is None else [0.0 - 1e-7] + list(thresholds) + [1.0 + 1e-7]
    with variable_scope(name, "auc", [labels, predictions]):
        values, updates = _confusion_at_thresholds(labels, predictions, thresholds, weights, ("tp", "fn", "tn", "fp"))

        def area(v):
            epsilon = 1e-6  # (TF's, added to both sides of the rates: an empty bucket counts as 1)
            n = len(thresholds)
            if curve == "PR" and summation_method == "careful_interpolation":
                return interpolated_pr_area(v["tp"], v["fp"], v["fn"], n)
            rec = (v["tp"] + epsilon) / (v["tp"] + v["fn"] + epsilon)
            if curve == "ROC":
                x = v["fp"] / (v["fp"] + v["tn"] + epsilon)
                y = rec
            else:
                x = rec
                y = (v["tp"] + epsilon) / (v["tp"] + v["fp"] + epsilon)
            if summation_method == "minoring":
                heights = math_ops.minimum(y[:n - 1], y[1:])
            elif summation_method == "majoring":
                heights = math_ops.maximum(y[:n - 1], y[1:])
            else:
                heights = (y[:n - 1] + y[1:]) / 2.0
            return reduction_ops.reduce_sum((x[:n - 1] - x[1:]) * heights)

        value = array_ops.identity(area(values), name="value")
        update = array_ops.identity(area(updates), name="update_op")
        _collect(metrics_collections, value)
        _collect(updates_collections, update)
        return value, update


def interpolated_pr_area(tp, fp, fn, n):
    """The area under the precision-recall curve with precision interpolated as TF's
    ``careful_interpolation`` does (Davis and Goadrich): between two thresholds the true
    positives TP and the predicted positives P = TP + FP move linearly, so precision is
    (TP_a + s (P - P_a)) / P with slope s = dTP / dP, and the bucket's area is
    s (dTP + c log(P_a / P_b)) / (TP_b + FN_b), c = TP_b - s P_b; a bucket with an empty
    end keeps the slope alone (log ratio taken as 0). Counts of shape [thresholds, labels]
    give each label's area."""
    dtp = tp[:n - 1] - tp[1:]
    p = tp + fp
    slope = div_no_nan(dtp, math_ops.maximum(p[:n - 1] - p[1:], 0.0))
    intercept = tp[1:] - slope * p[1:]
    ratio = math_ops.where(math_ops.logical_and(p[:n - 1] > 0, p[1:] > 0),
                           div_no_nan(p[:n - 1], math_ops.maximum(p[1:], 0.0)), array_ops.ones_like(p[1:]))
    return reduction_ops.reduce_sum(div_no_nan(slope * (dtp + intercept * unary_ops.log(ratio)),
                                               math_ops.maximum(tp[1:] + fn[1:], 0.0)), 0)


def _at_rate(target_key, search_key, target, labels, predictions, weights, num_thresholds, metrics_collections,
             updates_collections, name, default):
    if not 0 <= target <= 1:
        raise ValueError(f"the target rate must be in [0, 1], got {target}")
    thresholds = _thresholds(num_thresholds)
    with variable_scope(name, default, [labels, predictions]):
        values, updates = _confusion_at_thresholds(labels, predictions, thresholds, weights, ("tp", "fn", "tn", "fp"))

        def compute(v):
            epsilon = 1e-7
            specificity = v["tn"] / (v["tn"] + v["fp"] + epsilon)
            sensitivity = v["tp"] / (v["tp"] + v["fn"] + epsilon)
            rates = {"specificity": specificity, "sensitivity": sensitivity}
            distance = math_ops.abs(rates[target_key] - target)
            if target_key == "specificity":  # (the first threshold of those closest, as TF)
                index = reduction_ops.argmin(distance, 0)
            else:  # (the last of those closest: TF's specificity_at_sensitivity breaks ties so)
                closest = math_ops.cast(math_ops.equal(distance, reduction_ops.reduce_min(distance)), dtypes.int64)
                index = reduction_ops.argmax(manip_ops.cumsum(closest), 0)
            return slicing_ops.gather(rates[search_key], index)

        value = compute(values)
        update = compute(updates)
        _collect(metrics_collections, value)
        _collect(updates_collections, update)
        return value, update


def sensitivity_at_specificity(labels, predictions, specificity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The sensitivity at the threshold whose specificity is closest to ``specificity``."""
    return _at_rate("specificity", "sensitivity", specificity, labels, predictions, weights, num_thresholds,
                    metrics_collections, updates_collections, name, "sensitivity_at_specificity")


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None, num_thresholds=200,
                               metrics_collections=None, updates_collections=None, name=None):
    """The specificity at the threshold whose sensitivity is closest to ``sensitivity``."""
    return _at_rate("sensitivity", "specificity", sensitivity, labels, predictions, weights, num_thresholds,
                    metrics_collections, updates_collections, name, "specificity_at_sensitivity")
