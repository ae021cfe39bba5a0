"""Gradient boosted trees: ``tf.estimator.BoostedTreesClassifier`` and ``BoostedTreesRegressor``
(TF 1.8-1.15), and ``boosted_trees_classifier_train_in_memory`` / ``_regressor_``.

The model is an ensemble of up to ``n_trees`` trees of depth ``max_depth`` over bucketized
features; its logits are the sum of the values of the leaves each example reaches. As in
TensorFlow, the trees grow layer by layer:

* Each training step computes the batch's logits, each example's gradient and hessian of the
  head's loss with respect to its logits (``tf.gradients``, twice), and which node of the
  layer being grown each example is in; it adds, for every feature, node and bucket, the sums
  of gradients and hessians to an accumulator.
* After ``n_batches_per_layer`` batches, every node of the layer splits where the averaged
  statistics gain most: a leaf's value is ``-(g - l1 sgn g) / (h + l2)`` (0 where ``|g| <= l1``),
  its gain ``(g - l1 sgn g)^2 / (h + l2)``; a split's gain is its two children's less their
  parent's, less ``tree_complexity``; a node whose hessian is under ``min_node_weight`` does
  not split. Each child's value is its parent's plus ``learning_rate`` times its own.
* A tree is finished at ``max_depth`` or when no node of a layer splits; the next one starts
  at zero. Training stops (a hook) when ``n_trees`` are finished.

``pruning_mode``: ``"none"`` splits every node that can; ``"pre"`` only where the gain is
positive; ``"post"`` grows the whole tree and then takes back, from the bottom up, each split
of negative gain whose children are both leaves. ``center_bias`` first sets the first tree's
root to the loss's minimizer (Newton steps over ``n_batches_per_layer`` batches each, until a
step changes it by less than 1%). Numeric columns are bucketized at quantiles of the first
``n_batches_per_layer`` batches (``quantile_sketch_epsilon``: 1/epsilon buckets; TF used a
sketch, distflow the exact weighted quantiles of what it saw). Bucketized columns split at
their buckets, and each category of an indicator column is a feature of two buckets.

Where distflow differs: the ensemble is kept in variables (``boosted_trees/tree_*``, saved in
checkpoints as every variable is), each tree's nodes in heap order; several classes train
(TF 1.x refused ``n_classes > 2``), with each class's own hessian (diagonal); the statistics of
a batch that started before the layer it would add to are dropped, whichever task sent them,
and whichever task brings the last batch of a layer grows it (under the ensemble's lock).
``experimental_feature_importances`` is gain based and ``experimental_predict_with_explanations``
gives directional feature contributions, as TF's. Every node a tree could have, and the
statistics of every node a layer could have, are kept: deep trees over many features are
refused with the memory they would take (over 1 GiB), where TF kept only the nodes in use.
"""

from __future__ import annotations

import collections

import numpy as np

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from ..feature_column import feature_column as fc
from ..losses import Reduction
from ..ops import array_ops, math_ops, slicing_ops, state_ops
from ..ops import variable_scope as vs
from ..ops.gradients_impl import gradients
from ..ops.op_util import kernel_error, make_op, make_tensor
from ..ops.state_ops import locked
from ..summary import summary_ops as summary_lib
from ..train import session_run_hook, training_util
from .canned import _Canned, _head, _Head
from .estimator import Estimator, ModeKeys

# The fields of the ensemble's state vector.
STAMP, NUM_TREES, NUM_FINALIZED, NUM_ATTEMPTED_LAYERS, DEPTH, PHASE, BATCHES = range(7)
QUANTILES, CENTERING, GROWING, DONE = range(4)
_STATE_SIZE = 7
_MIN_DELTA_FOR_CENTER_BIAS = 0.01  # (relative: centering stops when a step moves the bias less)
_PRUNING_MODES = ("none", "pre", "post")
_MAX_FLOATS = 1 << 28  # (1 GiB of float32: the ensemble's variables and a layer's statistics)

TreeHParams = collections.namedtuple("TreeHParams", [
    "n_trees", "max_depth", "learning_rate", "l1", "l2", "tree_complexity", "min_node_weight", "center_bias",
    "pruning_mode", "quantile_sketch_epsilon"])


# -- kernels -------------------------------------------------------------------------------------

def _traverse(feature, threshold, buckets, max_depth):
    """Each example's node in each tree, [examples, trees] (heap order: node i's children are
    2i+1, left, where the bucket is at most the threshold, and 2i+2)."""
    n_trees = feature.shape[0]
    node = np.zeros((len(buckets), n_trees), dtype=np.int64)
    trees = np.arange(n_trees)[None, :]
    rows = np.arange(len(buckets))[:, None]
    for _ in range(max_depth):
        f = feature[trees, node]
        split = f >= 0
        if not split.any():
            break
        right = buckets[rows, np.maximum(f, 0)] > threshold[trees, node]
        node = np.where(split, 2 * node + 1 + right, node)
    return node


def _predict_shape(op):
    return [TensorShape([op.inputs[3].shape[0], op.inputs[2].shape[2]]), TensorShape([op.inputs[3].shape[0]])]


@register_op("_BoostedTreesPredict", shape=_predict_shape,
             dtype=lambda op: [dtypes.float32, dtypes.int32], list_output=True)
def _predict_kernel(xp, feature, threshold, value, buckets, state, *, max_depth):
    """The logits of each example (the sum over the trees of the value of the node it reaches),
    and its node in the tree being grown."""
    feature, threshold, value = np.asarray(feature), np.asarray(threshold), np.asarray(value)
    buckets = np.asarray(buckets, dtype=np.int64)
    if buckets.ndim != 2:
        raise kernel_error("_BoostedTreesPredict", f"the bucketized features must be [batch, features], got "
                                                   f"shape {list(buckets.shape)}")
    if len(buckets) == 0:
        return np.zeros((0, value.shape[2]), np.float32), np.zeros((0,), np.int32)
    node = _traverse(feature, threshold, buckets, max_depth)
    logits = value[np.arange(feature.shape[0])[None, :], node].sum(axis=1)
    current = min(int(np.asarray(state)[NUM_FINALIZED]), feature.shape[0] - 1)
    return logits.astype(np.float32), node[:, current].astype(np.int32)


def _explain_shape(op):
    steps = op.inputs[0].shape[0].value * op._attr("max_depth") if op.inputs[0].shape[0].value is not None else None
    rows = op.inputs[3].shape[0]
    return [TensorShape([rows, steps]), TensorShape([rows, None if steps is None else steps + 1])]


@register_op("_BoostedTreesExplain", shape=_explain_shape, dtype=lambda op: [dtypes.int32, dtypes.float32],
             list_output=True)
def _explain_kernel(xp, feature, threshold, value, buckets, *, max_depth):
    """Each example's path through the trees, one tree after the other: the feature of each
    split it passes ([examples, trees * max_depth], -1 past its path's end), and the logit
    after each step ([examples, trees * max_depth + 1]): the first tree's root (the bias), then
    the leaves of the trees before plus the value of the node reached (past the end, the last)."""
    feature, threshold, value = np.asarray(feature), np.asarray(threshold), np.asarray(value)
    buckets = np.asarray(buckets, dtype=np.int64)
    n, (n_trees, _) = len(buckets), feature.shape
    features = np.full((n, n_trees * max_depth), -1, np.int32)
    path = np.empty((n, n_trees * max_depth + 1), np.float32)
    rows = np.arange(n)
    before = np.zeros(n)  # (the sum of the leaves of the trees before)
    current = np.full(n, value[0, 0, 0], np.float64)
    path[:, 0] = current
    step = 0
    for t in range(n_trees):
        node = np.zeros(n, np.int64)
        for _ in range(max_depth):
            f = feature[t, node]
            split = f >= 0
            right = buckets[rows, np.maximum(f, 0)] > threshold[t, node]
            node = np.where(split, 2 * node + 1 + right, node)
            features[:, step] = np.where(split, f, -1)
            current = np.where(split, before + value[t, node, 0], current)
            path[:, step + 1] = current
            step += 1
        before = before + value[t, node, 0]
        current = before
    return features, path


@register_op("_BoostedTreesBucketize", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.int32)
def _bucketize_kernel(xp, values, boundaries):
    """Each value's bucket among its feature's boundaries (a row each, padded with +inf):
    the number of boundaries at or below it."""
    values, boundaries = np.asarray(values), np.asarray(boundaries)
    if values.ndim != 2 or values.shape[1] != boundaries.shape[0]:
        raise kernel_error("_BoostedTreesBucketize", f"{list(boundaries.shape)} boundaries do not fit values of "
                                                     f"shape {list(values.shape)}")
    out = np.empty(values.shape, np.int32)
    for j in range(values.shape[1]):
        out[:, j] = np.searchsorted(boundaries[j], values[:, j], side="right")
    return out


def _weights_and_gains(g, h, l1, l2):
    """A leaf's value and gain for gradient and hessian sums ``g``, ``h`` (any shape, the logits'
    dimension last: gains add over it)."""
    g_l1 = np.where(g > l1, g - l1, np.where(g < -l1, g + l1, 0.0)) if l1 > 0 else g
    denominator = h + l2
    ok = denominator > 1e-15
    weight = np.where(ok, -g_l1 / np.where(ok, denominator, 1.0), 0.0)
    return weight, (-g_l1 * weight).sum(-1)


def _quantile_boundaries(values, weights, num_quantiles):
    """For each column of ``values``, the distinct weighted quantiles at 1/num_quantiles, ...,
    (num_quantiles-1)/num_quantiles (each the first value with at least that share of the
    weight below it), padded with +inf to num_quantiles - 1."""
    out = np.full((values.shape[1], max(num_quantiles - 1, 1)), np.inf, np.float32)
    for j in range(values.shape[1]):
        order = np.argsort(values[:, j], kind="stable")
        v, w = values[order, j], weights[order]
        if not len(v) or w.sum() <= 0:
            continue
        below = (np.cumsum(w) - w) / w.sum()  # (the share of the weight below each value)
        levels = np.arange(1, num_quantiles) / num_quantiles * (1 - 1e-6)
        picks = np.unique(v[np.minimum(np.searchsorted(below, levels, side="left"), len(v) - 1)])
        picks = picks[picks > v[0]]  # (a boundary at the smallest value would leave its bucket empty)
        out[j, :len(picks)] = picks
    return out


class _Grower:
    """The step of training the ensemble takes, given a batch (see the module's text)."""

    def __init__(self, refs, attrs):
        (self.feature, self.threshold, self.value, self.gain, self.state, self.stats, self.quantile_values,
         self.boundaries) = refs
        self.n_trees, self.max_depth = attrs["n_trees"], attrs["max_depth"]
        self.learning_rate, self.l1, self.l2 = attrs["learning_rate"], attrs["l1"], attrs["l2"]
        self.tree_complexity, self.min_node_weight = attrs["tree_complexity"], attrs["min_node_weight"]
        self.pruning_mode, self.n_batches = attrs["pruning_mode"], attrs["n_batches_per_layer"]
        self.num_quantiles, self.center_bias = attrs["num_quantiles"], attrs["center_bias"]

    def step(self, state, batch_stamp, buckets, numeric, weights, node, grads, hessians):
        phase = state[PHASE]
        if phase == DONE or batch_stamp != state[STAMP]:
            return state  # (finished, or a batch computed before the ensemble last changed)
        state[BATCHES] += 1
        if phase == QUANTILES:
            old = np.asarray(self.quantile_values.read()).reshape(-1, numeric.shape[1] + 1)
            self.quantile_values.value = np.concatenate([old, np.concatenate([numeric, weights[:, None]], 1)])
            if state[BATCHES] >= self.n_batches:
                seen = np.asarray(self.quantile_values.read())
                self.boundaries.value = _quantile_boundaries(seen[:, :-1], seen[:, -1], self.num_quantiles)
                self.quantile_values.value = np.zeros((0, numeric.shape[1] + 1), np.float32)
                self._next_round(state, CENTERING if self.center_bias else GROWING)
            return state
        stats = np.array(self.stats.read())
        stats += self._summary(state, buckets, node, grads, hessians, stats.shape)
        self.stats.value = stats
        if state[BATCHES] < self.n_batches:
            return state
        stats /= state[BATCHES]  # (the accumulator's average over the batches, as TF's)
        if phase == CENTERING:
            self._center(state, stats)
        else:
            self._grow_layer(state, stats)
        return state

    def _summary(self, state, buckets, node, grads, hessians, shape):
        """The batch's gradient and hessian sums per feature, node of the layer and bucket:
        [features, nodes, buckets, 2, logits]."""
        n_features, n_nodes, n_buckets, _, dim = shape
        first = (1 << int(state[DEPTH])) - 1
        local = node.astype(np.int64) - first
        keep = (local >= 0) & (local < min(n_nodes, first + 1))
        local, b = local[keep], np.minimum(buckets[keep].astype(np.int64), n_buckets - 1)
        g, h = grads[keep], hessians[keep]
        index = ((np.arange(n_features)[None, :] * n_nodes + local[:, None]) * n_buckets + b).ravel()
        out = np.zeros((n_features * n_nodes * n_buckets, 2, dim))
        for k in range(dim):
            out[:, 0, k] = np.bincount(index, np.repeat(g[:, k], n_features), minlength=len(out))
            out[:, 1, k] = np.bincount(index, np.repeat(h[:, k], n_features), minlength=len(out))
        return out.reshape(shape)

    def _next_round(self, state, phase):
        state[STAMP] += 1
        state[BATCHES] = 0
        state[PHASE] = phase
        self.stats.value = np.zeros(np.shape(self.stats.read()), np.float32)

    def _center(self, state, stats):
        """A Newton step of the first tree's root (its value is the bias)."""
        g, h = stats[0, 0, :, 0].sum(0), stats[0, 0, :, 1].sum(0)
        delta, _ = _weights_and_gains(g, h, self.l1, self.l2)
        value = np.array(self.value.read())
        bias = value[0, 0]
        going_on = state[NUM_TREES] == 0 or bool(np.any(np.abs(delta) > _MIN_DELTA_FOR_CENTER_BIAS * np.abs(bias)))
        value[0, 0] = bias + delta
        self.value.value = value
        state[NUM_TREES] = max(state[NUM_TREES], 1)
        self._next_round(state, CENTERING if going_on else GROWING)

    def _grow_layer(self, state, stats):
        feature, threshold = np.array(self.feature.read()), np.array(self.threshold.read())
        value, gain = np.array(self.value.read()), np.array(self.gain.read())
        tree, depth = int(state[NUM_FINALIZED]), int(state[DEPTH])
        first = (1 << depth) - 1
        split_any = False
        for local in range(min(stats.shape[1], first + 1)):
            node = first + local
            if not self._is_leaf(feature[tree], node):
                continue
            best = self._best_split(stats[:, local])
            if best is None:
                continue
            f, t, split_gain, left, right = best
            if self.pruning_mode == "pre" and split_gain <= 0:
                continue
            feature[tree, node], threshold[tree, node], gain[tree, node] = f, t, split_gain
            value[tree, 2 * node + 1] = value[tree, node] + self.learning_rate * left
            value[tree, 2 * node + 2] = value[tree, node] + self.learning_rate * right
            split_any = True
        state[NUM_ATTEMPTED_LAYERS] += 1
        state[NUM_TREES] = max(state[NUM_TREES], tree + 1)
        state[DEPTH] = depth + 1
        if not split_any or depth + 1 >= self.max_depth:
            if self.pruning_mode == "post":
                self._post_prune(feature[tree], gain[tree], 0)
            state[NUM_FINALIZED] += 1
            state[DEPTH] = 0
        self.feature.value, self.threshold.value, self.value.value, self.gain.value = feature, threshold, value, gain
        self._next_round(state, DONE if state[NUM_FINALIZED] >= self.n_trees else GROWING)

    @staticmethod
    def _is_leaf(tree_feature, node):
        """A node of the tree that is a leaf (the root, or a child of a split)."""
        return tree_feature[node] < 0 and (node == 0 or tree_feature[(node - 1) // 2] >= 0)

    def _best_split(self, node_stats):
        """The best split of a node given its statistics [features, buckets, 2, logits]:
        (feature, threshold, gain, left value, right value), or None."""
        g_total, h_total = node_stats[0, :, 0].sum(0), node_stats[0, :, 1].sum(0)
        if h_total.sum() < self.min_node_weight or not np.any(h_total > 0):
            return None
        _, parent_gain = _weights_and_gains(g_total, h_total, self.l1, self.l2)
        cum = np.cumsum(node_stats, axis=1)[:, :-1]  # (left: the buckets up to the threshold)
        g_left, h_left = cum[:, :, 0], cum[:, :, 1]
        g_right, h_right = node_stats[:, :, 0].sum(1)[:, None] - g_left, node_stats[:, :, 1].sum(1)[:, None] - h_left
        w_left, gain_left = _weights_and_gains(g_left, h_left, self.l1, self.l2)
        w_right, gain_right = _weights_and_gains(g_right, h_right, self.l1, self.l2)
        total = gain_left + gain_right
        total = np.where((h_left.sum(-1) > 0) & (h_right.sum(-1) > 0), total, -np.inf)  # (no empty side)
        if not np.isfinite(total).any():
            return None
        f, t = np.unravel_index(int(np.argmax(total)), total.shape)  # (ties: the lowest feature, bucket)
        return (int(f), int(t), float(total[f, t] - parent_gain - self.tree_complexity), w_left[f, t], w_right[f, t])

    def _post_prune(self, tree_feature, tree_gain, node):
        """Takes back, bottom up, the splits of negative gain whose children are both leaves."""
        if node >= len(tree_feature) or tree_feature[node] < 0:
            return
        left, right = 2 * node + 1, 2 * node + 2
        self._post_prune(tree_feature, tree_gain, left)
        self._post_prune(tree_feature, tree_gain, right)
        if tree_gain[node] < 0 and tree_feature[left] < 0 and tree_feature[right] < 0:
            tree_feature[node] = -1
            tree_gain[node] = 0.0


_TRAIN_REFS = 8


@register_op("_BoostedTreesTrainStep", shape=lambda op: TensorShape([_STATE_SIZE]), dtype=lambda op: dtypes.int64,
             stateful=True, ref_inputs=tuple(range(_TRAIN_REFS)))
def _train_step_kernel(xp, feature, threshold, value, gain, state, stats, quantile_values, boundaries,
                       batch_stamp, buckets, numeric, weights, node, grads, hessians, **attrs):
    """One batch's part in growing the ensemble (the module's text), under the ensemble's lock;
    returns the state after it."""
    grower = _Grower((feature, threshold, value, gain, state, stats, quantile_values, boundaries), attrs)
    grads, hessians = np.asarray(grads, np.float64), np.asarray(hessians, np.float64)
    buckets, node = np.asarray(buckets), np.asarray(node)
    if not (len(buckets) == len(node) == len(grads) == len(hessians)):
        raise kernel_error("_BoostedTreesTrainStep", f"the batch's parts disagree on its size: {len(buckets)} "
                                                     f"bucketized rows, {len(node)} nodes, {len(grads)} gradients")
    numeric = np.asarray(numeric, np.float32).reshape(len(node), -1)
    weights = np.broadcast_to(np.asarray(weights, np.float32).reshape(-1), (len(node),))
    with locked(state, True):
        current = np.array(state.read())
        new = grower.step(current, int(batch_stamp), buckets, numeric, weights, node, grads, hessians)
        state.value = new
        return new.copy()


for _op_type in ("_BoostedTreesPredict", "_BoostedTreesExplain", "_BoostedTreesBucketize", "_BoostedTreesTrainStep"):
    not_differentiable(_op_type)


# -- the graph -------------------------------------------------------------------------------

_SUPPORTED_COLUMNS = "bucketized_column, indicator_column, numeric_column"


class _Features:
    """The columns' features as the trees see them: a bucket id per feature (a bucketized
    column's bucket; 0 or 1 for each category of an indicator column; a numeric value's bucket
    among the quantile boundaries), in the order of the columns' names."""

    def __init__(self, feature_columns, num_quantiles):
        columns = list(feature_columns or [])
        if not columns:
            raise ValueError("feature_columns must be a non-empty list of feature columns")
        for column in columns:
            if not isinstance(column, (fc._BucketizedColumn, fc._IndicatorColumn, fc._NumericColumn)):
                raise ValueError(f"For now, only {_SUPPORTED_COLUMNS} are supported but got: {column}")
            if isinstance(column, fc._NumericColumn) and len(column.shape) > 1:
                raise ValueError(f"For now, only support Numeric column with shape less than 2, but column "
                                 f"`{column.name}` got: {column.shape}")
        self.columns = sorted(columns, key=lambda c: c.name)
        self.names, self.num_numeric = [], 0
        buckets = [2]
        for column in self.columns:
            if isinstance(column, fc._BucketizedColumn):
                self.names += [column.name] * column.source_column.shape[0]
                buckets.append(len(column.boundaries) + 1)
            elif isinstance(column, fc._IndicatorColumn):
                self.names += [column.categorical_column.name] * column.categorical_column._num_buckets
            else:
                self.names += [column.name] * column.shape[0]
                self.num_numeric += column.shape[0]
                buckets.append(num_quantiles)
        self.num_buckets = max(buckets)

    def transform(self, features, boundaries):
        """(bucket ids [batch, features] int32, numeric values [batch, numeric features])."""
        builder = fc._LazyBuilder(features)
        parts, numeric = [], []
        for column in self.columns:
            if isinstance(column, fc._BucketizedColumn):
                ids = builder.get(column)
                parts.append(array_ops.reshape(math_ops.cast(ids, dtypes.int32), [-1, column.source_column.shape[0]]))
            elif isinstance(column, fc._IndicatorColumn):
                parts.append(math_ops.cast(builder.get(column) > 0, dtypes.int32))
            else:
                values = array_ops.reshape(math_ops.cast(builder.get(column), dtypes.float32), [-1, column.shape[0]])
                numeric.append(values)
                parts.append(None)
        numeric = slicing_ops.concat(numeric, 1) if numeric else None
        if numeric is not None:
            numeric_buckets = make_tensor("_BoostedTreesBucketize", [numeric, boundaries])
            at = 0
            for i, column in enumerate(self.columns):
                if parts[i] is None:
                    parts[i] = numeric_buckets[:, at:at + column.shape[0]]
                    at += column.shape[0]
        return slicing_ops.concat(parts, 1), numeric


class _Ensemble:
    """The ensemble's variables (see the module's text), in the scope ``boosted_trees``."""

    def __init__(self, hparams: TreeHParams, features: _Features, logits_dimension: int):
        n_trees, depth = hparams.n_trees, hparams.max_depth
        nodes = (1 << (depth + 1)) - 1
        layer = 1 << (depth - 1)
        floats = (n_trees * nodes * (logits_dimension + 3)
                  + len(features.names) * layer * features.num_buckets * 2 * logits_dimension)
        if floats > _MAX_FLOATS:
            raise ValueError(f"BoostedTrees: {n_trees} trees of depth {depth} over {len(features.names)} features of "
                             f"up to {features.num_buckets} buckets need {floats * 4 / 2**30:.1f} GiB here (every "
                             f"node of a tree and of a layer's statistics is kept); use a smaller max_depth or fewer "
                             f"features or buckets")
        collections_ = [GraphKeys.GLOBAL_VARIABLES]

        def variable(name, initial, dtype, validate_shape=True, **kw):
            return vs.get_variable(name, initializer=initial, dtype=dtype, trainable=False,
                                   collections=collections_, validate_shape=validate_shape, **kw)

        with vs.variable_scope("boosted_trees"):
            self.feature = variable("tree_feature", np.full((n_trees, nodes), -1, np.int32), dtypes.int32)
            with ops.colocate_with(self.feature):  # (one kernel updates them all together)
                self.threshold = variable("tree_threshold", np.zeros((n_trees, nodes), np.int32), dtypes.int32)
                self.value = variable("tree_value", np.zeros((n_trees, nodes, logits_dimension), np.float32),
                                      dtypes.float32)
                self.gain = variable("tree_gain", np.zeros((n_trees, nodes), np.float32), dtypes.float32)
                phase = QUANTILES if features.num_numeric else CENTERING if hparams.center_bias else GROWING
                initial_state = np.zeros(_STATE_SIZE, np.int64)
                initial_state[PHASE] = phase
                self.state = variable("ensemble_state", initial_state, dtypes.int64)
                stats_shape = (len(features.names), layer, features.num_buckets, 2, logits_dimension)
                self.stats = variable("stats_accumulator", np.zeros(stats_shape, np.float32), dtypes.float32)
                self.quantile_values = variable("quantile_values", np.zeros((0, features.num_numeric + 1), np.float32),
                                                dtypes.float32, validate_shape=False)
                self.boundaries = variable(
                    "bucket_boundaries", np.full((features.num_numeric, max(int(1 / hparams.quantile_sketch_epsilon)
                                                                           - 1, 1)), np.inf, np.float32),
                    dtypes.float32)

    @property
    def refs(self):
        return [state_ops.variable_ref(v) for v in (self.feature, self.threshold, self.value, self.gain, self.state,
                                                     self.stats, self.quantile_values, self.boundaries)]


def _hessians(grads, logits, dimension):
    """The diagonal of each example's hessian of the loss (an example's loss depends on its own
    logits only, so the gradient of the gradient's column is that column's second derivative)."""
    if dimension == 1:
        return gradients(grads, logits)[0]
    columns = [gradients(grads[:, k], logits)[0][:, k] for k in range(dimension)]
    return array_ops.stack(columns, axis=1)


def _weights(head: _Head, features):
    if head.weight_column is None:
        return array_ops.constant(1.0)
    key = head.weight_column if isinstance(head.weight_column, str) else head.weight_column.key
    return array_ops.reshape(math_ops.cast(features[key], dtypes.float32), [-1])


_DFC_FEATURES, _DFC_PATH = "_dfc_features", "_dfc_path"


def _bt_model_fn(features, labels, mode, head: _Head, feature_columns, hparams: TreeHParams, n_batches_per_layer,
                 explain=False):
    num_quantiles = int(1 / hparams.quantile_sketch_epsilon)
    columns = _Features(feature_columns, num_quantiles)
    with ops.name_scope("boosted_trees"):
        ensemble = _Ensemble(hparams, columns, head.logits_dimension)
        buckets, numeric = columns.transform(features, ops.convert_to_tensor(ensemble.boundaries))
        state = array_ops.identity(ensemble.state)
        trees = [ops.convert_to_tensor(v) for v in (ensemble.feature, ensemble.threshold, ensemble.value)]
        logits, node = make_op("_BoostedTreesPredict", [*trees, buckets, state],
                               {"max_depth": hparams.max_depth}).outputs
        if explain:
            path = make_op("_BoostedTreesExplain", [*trees, buckets], {"max_depth": hparams.max_depth}).outputs
            spec = head.spec(features, ModeKeys.PREDICT, logits, None, None)
            return spec._replace(predictions={**spec.predictions, _DFC_FEATURES: path[0], _DFC_PATH: path[1]})
        if mode != ModeKeys.TRAIN:
            return head.spec(features, mode, logits, labels, None)
        for name, index in (("num_trees", NUM_TREES), ("num_finalized_trees", NUM_FINALIZED),
                            ("num_attempted_layers", NUM_ATTEMPTED_LAYERS)):
            summary_lib.scalar(f"ensemble/{name}", state[index])

    def train_op_fn(loss):
        with ops.name_scope("boosted_trees/train"):
            grads = gradients(loss, logits)[0]
            hessians = _hessians(grads, logits, head.logits_dimension)
            numeric_values = numeric if numeric is not None else array_ops.zeros([array_ops.shape(logits)[0], 0])
            attrs = {"n_trees": hparams.n_trees, "max_depth": hparams.max_depth,
                     "learning_rate": float(hparams.learning_rate), "l1": float(hparams.l1),
                     "l2": float(hparams.l2), "tree_complexity": float(hparams.tree_complexity),
                     "min_node_weight": float(hparams.min_node_weight), "pruning_mode": hparams.pruning_mode,
                     "n_batches_per_layer": int(n_batches_per_layer), "num_quantiles": num_quantiles,
                     "center_bias": bool(hparams.center_bias)}
            with ops.colocate_with(ensemble.feature):
                step = make_tensor("_BoostedTreesTrainStep",
                                   [*ensemble.refs, state[STAMP], buckets, numeric_values, _weights(head, features),
                                    node, grads, hessians], attrs)
            with ops.control_dependencies([step]):
                return state_ops.assign_add(training_util.get_global_step(), 1).op

    spec = head.spec(features, mode, logits, labels, train_op_fn)
    stop = _StopAtAttemptsHook(state, hparams.n_trees, hparams.max_depth)
    return spec._replace(training_hooks=list(spec.training_hooks or []) + [stop])


class _StopAtAttemptsHook(session_run_hook.SessionRunHook):
    """Asks training to stop once ``n_trees`` trees are finished (or, as TF, after twice as many
    layers attempted as ``n_trees`` full trees have)."""

    def __init__(self, state, n_trees, max_depth):
        self._state, self._n_trees, self._max_depth = state, n_trees, max_depth

    def before_run(self, run_context):
        return session_run_hook.SessionRunArgs(self._state)

    def after_run(self, run_context, run_values):
        state = run_values.results
        # (the state was read before the step grew the ensemble: read it again near the end)
        if state[NUM_FINALIZED] >= self._n_trees - 1 or state[PHASE] == DONE:
            state = run_context.session.run(self._state)
        if state[NUM_FINALIZED] >= self._n_trees or state[NUM_ATTEMPTED_LAYERS] > 2 * self._n_trees * self._max_depth:
            run_context.request_stop()


def _check_hparams(n_batches_per_layer, n_trees, max_depth, learning_rate, l1_regularization, l2_regularization,
                   tree_complexity, min_node_weight, center_bias, pruning_mode, quantile_sketch_epsilon,
                   train_in_memory=False):
    if n_batches_per_layer is None or int(n_batches_per_layer) < 1:
        raise ValueError(f"n_batches_per_layer must be a positive integer, got {n_batches_per_layer}")
    if train_in_memory and int(n_batches_per_layer) != 1:  # (then the data set is one batch: training is the same)
        raise ValueError("When train_in_memory is enabled, input_fn should return the entire dataset as a single "
                         f"batch, and n_batches_per_layer should be set as 1 (got {n_batches_per_layer}).")
    if int(n_trees) < 1 or int(max_depth) < 1:
        raise ValueError(f"n_trees and max_depth must be positive, got {n_trees} and {max_depth}")
    if learning_rate <= 0:
        raise ValueError(f"learning_rate must be positive, got {learning_rate}")
    for name, v in (("l1_regularization", l1_regularization), ("l2_regularization", l2_regularization),
                    ("tree_complexity", tree_complexity), ("min_node_weight", min_node_weight)):
        if v < 0:
            raise ValueError(f"{name} must be non-negative, got {v}")
    if pruning_mode not in _PRUNING_MODES:
        raise ValueError(f"pruning_mode must be one of {_PRUNING_MODES}, got {pruning_mode!r}")
    if pruning_mode == "none" and tree_complexity > 0:
        raise ValueError("Tree complexity have no effect unless pruning mode is chosen.")
    if pruning_mode != "none" and tree_complexity <= 0:
        raise ValueError("For pruning, tree_complexity must be positive.")
    if not 0 < quantile_sketch_epsilon < 1:
        raise ValueError(f"quantile_sketch_epsilon must be in (0, 1), got {quantile_sketch_epsilon}")
    return TreeHParams(int(n_trees), int(max_depth), float(learning_rate), float(l1_regularization),
                       float(l2_regularization), float(tree_complexity), float(min_node_weight), bool(center_bias),
                       pruning_mode, float(quantile_sketch_epsilon))


class _BoostedTrees(_Canned):
    def __init__(self, head, feature_columns, n_batches_per_layer, model_dir, config, n_trees, max_depth,
                 learning_rate, l1_regularization, l2_regularization, tree_complexity, min_node_weight, center_bias,
                 pruning_mode, quantile_sketch_epsilon, train_in_memory=False):
        hparams = _check_hparams(n_batches_per_layer, n_trees, max_depth, learning_rate, l1_regularization,
                                 l2_regularization, tree_complexity, min_node_weight, center_bias, pruning_mode,
                                 quantile_sketch_epsilon, train_in_memory)
        self._feature_names = _Features(feature_columns, int(1 / hparams.quantile_sketch_epsilon)).names
        self._hparams, self._head, self._feature_columns = hparams, head, list(feature_columns)

        def model_fn(features, labels, mode):
            return _bt_model_fn(features, labels, mode, head, feature_columns, hparams, n_batches_per_layer)

        super().__init__(model_fn, model_dir, config, None)

    def experimental_feature_importances(self, normalize=False):
        """Each feature column's importance: the gains of the splits on its features, summed over
        the trees; an OrderedDict of the column names from the most important (TF 1.14-1.15).
        ``normalize`` divides by their sum (a ValueError when no tree has a split yet)."""
        feature = self.get_variable_value("boosted_trees/tree_feature")
        gain = self.get_variable_value("boosted_trees/tree_gain")
        per_feature = np.zeros(len(self._feature_names))
        np.add.at(per_feature, feature[feature >= 0], gain[feature >= 0])
        if normalize:
            if per_feature.sum() <= 0:
                raise ValueError("Cannot normalize the feature importances: the trees have no split yet (or their "
                                 "gains add up to nothing)")
            per_feature = per_feature / per_feature.sum()
        return self._by_column(per_feature, key=lambda item: -item[1])

    def _by_column(self, per_feature, key):
        """Per-feature values summed over each feature column's features, as an OrderedDict
        sorted by ``key`` of (name, value)."""
        totals = collections.OrderedDict((name, 0.0) for name in self._feature_names)
        for name, v in zip(self._feature_names, per_feature):
            totals[name] += float(v)
        return collections.OrderedDict(sorted(totals.items(), key=key))

    def experimental_predict_with_explanations(self, input_fn, predict_keys=None, hooks=None,
                                               checkpoint_path=None):
        """``predict`` with each example's directional feature contributions: ``bias`` (the first
        tree's root: the prior probability of class 1, or the prior prediction) and ``dfc``, an
        OrderedDict of each feature column's contribution, largest magnitude first: the changes
        of the probability (or prediction) along the example's path through the trees, each
        credited to the feature of the split it passed. ``bias`` plus the contributions is the
        example's prediction. Needs ``center_bias``, and one logit (binary classification or a
        one-dimensional regression)."""
        if not self._hparams.center_bias:
            raise ValueError("center_bias must be enabled during estimator instantiation when using "
                             "experimental_predict_with_explanations.")
        if self._head.logits_dimension != 1:
            raise ValueError("experimental_predict_with_explanations supports binary classification and "
                             "one-dimensional regression only")

        def explain_fn(features, labels, mode):
            return _bt_model_fn(features, labels, mode, self._head, self._feature_columns, self._hparams, 1,
                                explain=True)

        explainer = Estimator(explain_fn, model_dir=self.model_dir, config=self.config)
        keys = None if predict_keys is None else sorted(set(predict_keys) | {_DFC_FEATURES, _DFC_PATH})
        classification = self._head.kind != "regression"
        for prediction in explainer.predict(input_fn, predict_keys=keys, hooks=hooks, checkpoint_path=checkpoint_path):
            features, path = prediction.pop(_DFC_FEATURES), prediction.pop(_DFC_PATH).astype(np.float64)
            if classification:
                path = 1.0 / (1.0 + np.exp(-path))
            per_feature = np.zeros(len(self._feature_names))
            passed = features >= 0
            np.add.at(per_feature, features[passed], np.diff(path)[passed])
            prediction["bias"] = float(path[0])
            prediction["dfc"] = self._by_column(per_feature, key=lambda item: -abs(item[1]))
            yield prediction


class BoostedTreesClassifier(_BoostedTrees):
    """A classifier of boosted trees (the module's text)."""

    def __init__(self, feature_columns, n_batches_per_layer, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, n_trees=100, max_depth=6, learning_rate=0.1, l1_regularization=0.0,
                 l2_regularization=0.0, tree_complexity=0.0, min_node_weight=0.0, config=None, center_bias=False,
                 pruning_mode="none", quantile_sketch_epsilon=0.01, train_in_memory=False):
        head = _head(n_classes, label_vocabulary, weight_column, Reduction.SUM_OVER_BATCH_SIZE)
        super().__init__(head, feature_columns, n_batches_per_layer, model_dir, config, n_trees, max_depth,
                         learning_rate, l1_regularization, l2_regularization, tree_complexity, min_node_weight,
                         center_bias, pruning_mode, quantile_sketch_epsilon, train_in_memory)


class BoostedTreesRegressor(_BoostedTrees):
    """A regressor of boosted trees (the module's text)."""

    def __init__(self, feature_columns, n_batches_per_layer, model_dir=None, label_dimension=1, weight_column=None,
                 n_trees=100, max_depth=6, learning_rate=0.1, l1_regularization=0.0, l2_regularization=0.0,
                 tree_complexity=0.0, min_node_weight=0.0, config=None, center_bias=False, pruning_mode="none",
                 quantile_sketch_epsilon=0.01, train_in_memory=False):
        head = _Head("regression", label_dimension=label_dimension, weight_column=weight_column,
                     loss_reduction=Reduction.SUM_OVER_BATCH_SIZE)
        super().__init__(head, feature_columns, n_batches_per_layer, model_dir, config, n_trees, max_depth,
                         learning_rate, l1_regularization, l2_regularization, tree_complexity, min_node_weight,
                         center_bias, pruning_mode, quantile_sketch_epsilon, train_in_memory)


class BoostedTreesEstimator(_BoostedTrees):
    """Boosted trees with the given head (``tf.contrib.estimator.BoostedTreesEstimator``: a head of
    tf.contrib.estimator's; ``weight_column`` is the head's)."""

    def __init__(self, feature_columns, n_batches_per_layer, head, model_dir=None, weight_column=None, n_trees=100,
                 max_depth=6, learning_rate=0.1, l1_regularization=0.0, l2_regularization=0.0, config=None,
                 tree_complexity=0.0, min_node_weight=0.0, center_bias=False, pruning_mode="none",
                 quantile_sketch_epsilon=0.01):
        if not isinstance(head, _Head):
            raise TypeError(f"head must be one of tf.contrib.estimator's heads, got {head!r}")
        super().__init__(head, feature_columns, n_batches_per_layer, model_dir, config, n_trees, max_depth,
                         learning_rate, l1_regularization, l2_regularization, tree_complexity, min_node_weight,
                         center_bias, pruning_mode, quantile_sketch_epsilon)


def boosted_trees_classifier_train_in_memory(train_input_fn, feature_columns, model_dir=None, n_classes=2,
                                             weight_column=None, label_vocabulary=None, n_trees=100, max_depth=6,
                                             learning_rate=0.1, l1_regularization=0.0, l2_regularization=0.0,
                                             tree_complexity=0.0, min_node_weight=0.0, config=None, train_hooks=None,
                                             center_bias=False, pruning_mode="none", quantile_sketch_epsilon=0.01):
    """A BoostedTreesClassifier trained on ``train_input_fn``'s one batch, the whole data set,
    until its trees are grown; returns it."""
    estimator = BoostedTreesClassifier(feature_columns, 1, model_dir, n_classes, weight_column, label_vocabulary,
                                       n_trees, max_depth, learning_rate, l1_regularization, l2_regularization,
                                       tree_complexity, min_node_weight, config, center_bias, pruning_mode,
                                       quantile_sketch_epsilon, train_in_memory=True)
    return estimator.train(train_input_fn, hooks=train_hooks)


def boosted_trees_regressor_train_in_memory(train_input_fn, feature_columns, model_dir=None, label_dimension=1,
                                            weight_column=None, n_trees=100, max_depth=6, learning_rate=0.1,
                                            l1_regularization=0.0, l2_regularization=0.0, tree_complexity=0.0,
                                            min_node_weight=0.0, config=None, train_hooks=None, center_bias=False,
                                            pruning_mode="none", quantile_sketch_epsilon=0.01):
    """A BoostedTreesRegressor trained on ``train_input_fn``'s one batch, the whole data set,
    until its trees are grown; returns it."""
    estimator = BoostedTreesRegressor(feature_columns, 1, model_dir, label_dimension, weight_column, n_trees,
                                      max_depth, learning_rate, l1_regularization, l2_regularization, tree_complexity,
                                      min_node_weight, config, center_bias, pruning_mode, quantile_sketch_epsilon,
                                      train_in_memory=True)
    return estimator.train(train_input_fn, hooks=train_hooks)
