"""``tf.contrib.tensor_forest``: extremely randomized forests grown online, as TF 1.3-1.15's
``tensor_forest.RandomForestGraphs`` builds them (the "V4" forest).

Every tree grows while it trains, one batch at a time, and each of its leaves learns on its own:

* Each example falls to one leaf of each tree (``x[feature] <= threshold`` goes left). The
  leaf's model counts it: the weight of each class (or, for a regression, the sum of each
  output) and the total weight. A leaf predicts its classes' frequencies (or the mean output);
  a forest the average over its trees.
* A leaf gathers up to ``num_splits_to_consider`` candidate splits: each of the first examples
  to reach it adds one, on a feature drawn at random, with that example's value of it as the
  threshold. Every example after that counts, for each candidate, the weight of each class
  that goes left (a candidate counts the example that made it and those after it).
* A leaf is finished when ``split_after_samples`` of weight reached it since it became a leaf,
  and (classifying) more than one class was among them. The tree then splits it on its best
  candidate: the least Gini impurity of the two sides, each side's class counts smoothed by
  one, weighted by its weight, ``w - sum((c_i + 1)^2) / w`` with ``w = sum(c_i + 1)`` (for a
  regression, the least sum of squared deviations). The two new leaves start from the
  candidate's counts of each side. A candidate that leaves a side empty is not taken; where
  every candidate does, the leaf draws new ones.
* A tree stops growing at ``max_nodes`` nodes (its leaves go on counting).

``bagging_fraction`` trains each tree on a random share of each batch, ``feature_bagging_fraction``
on a random subset of the features (chosen by ``fill()``). ``base_random_seed`` seeds tree
``i`` with ``base_random_seed + i`` (0: the system's entropy).

Where distflow differs: a tree lives in variables (``tree-<i>/...`` for its nodes,
``stats-<i>/...`` for its leaves' candidates, whose rows grow with the tree), saved in
checkpoints and started by ``global_variables_initializer``, where TF kept resources that
``resources.initialize_resources(resources.shared_resources())`` started (that call still
works: there is nothing more for it to start). Features are dense: a ``SparseTensor`` input is
refused. ``inference_graph``'s ``tree_paths`` are the leaf each example reaches in each tree
([batch, num_trees] int32), where TF gave its paths as JSON only with
``inference_tree_paths``. The early-finish (``split_finish_name``) and pruning
(``split_pruning_name``) options other than ``'basic'`` and ``'none'``, and models other than
``'all_dense'``, are refused.
"""

from __future__ import annotations

import math
import random

import numpy as np

from ....framework import dtypes, ops
from ....framework.registry import not_differentiable, register_op
from ....framework.tensor_shape import TensorShape
from ....ops import (array_ops, control_flow_ops, manip_ops, math_ops, random_ops, reduction_ops, segment_ops,
                     slicing_ops, state_ops, unary_ops)
from ....ops import variable_scope as vs
from ....ops.op_util import kernel_error, make_op, make_tensor
from ....ops.state_ops import locked
from ....platform import tf_logging as logging
from ....ops.sparse_ops import SparseTensor

# If a node's feature is this value, it is a leaf.
LEAF_NODE = -1

_SIZE, _CALLS = range(2)  # (the fields of a tree's state)


class ForestHParams:
    """The forest's hyperparameters; ``fill()`` derives the ones left unset (TF's defaults)."""

    def __init__(self, num_trees=100, max_nodes=10000, bagging_fraction=1.0, num_splits_to_consider=0,
                 feature_bagging_fraction=1.0, max_fertile_nodes=0, split_after_samples=250, valid_leaf_threshold=1,
                 dominate_method="bootstrap", dominate_fraction=0.99, model_name="all_dense",
                 split_finish_name="basic", split_pruning_name="none", prune_every_samples=0,
                 early_finish_check_every_samples=0, collate_examples=False, checkpoint_stats=False,
                 use_running_stats_method=False, initialize_average_splits=False, inference_tree_paths=False,
                 param_file=None, split_name="less_or_equal", **kwargs):
        self.num_trees = num_trees
        self.max_nodes = max_nodes
        self.bagging_fraction = bagging_fraction
        self.feature_bagging_fraction = feature_bagging_fraction
        self.num_splits_to_consider = num_splits_to_consider
        self.max_fertile_nodes = max_fertile_nodes  # (unused, as in TF)
        self.split_after_samples = split_after_samples
        self.valid_leaf_threshold = valid_leaf_threshold
        self.dominate_method = dominate_method
        self.dominate_fraction = dominate_fraction
        self.model_name = model_name
        self.split_finish_name = split_finish_name
        self.split_pruning_name = split_pruning_name
        self.prune_every_samples = prune_every_samples
        self.early_finish_check_every_samples = early_finish_check_every_samples
        self.collate_examples = collate_examples
        self.checkpoint_stats = checkpoint_stats
        self.use_running_stats_method = use_running_stats_method
        self.initialize_average_splits = initialize_average_splits
        self.inference_tree_paths = inference_tree_paths
        self.param_file = param_file
        self.split_name = split_name
        for name, value in kwargs.items():
            setattr(self, name, value)

    def values(self):
        return self.__dict__

    def fill(self):
        """Sets what was left unset from the rest; ``num_classes`` and ``num_features`` must be set."""
        _ = self.num_classes, self.num_features  # (an AttributeError names the one missing)
        self.bagged_num_features = int(self.feature_bagging_fraction * self.num_features)
        self.bagged_features = None
        if self.feature_bagging_fraction < 1.0:
            self.bagged_features = [random.sample(range(self.num_features), self.bagged_num_features)
                                    for _ in range(self.num_trees)]
        self.regression = getattr(self, "regression", False)
        self.num_outputs = self.num_classes if self.regression else 1
        self.num_output_columns = self.num_classes + 1
        self.num_splits_to_consider = self.num_splits_to_consider or min(
            max(10, int(math.floor(math.sqrt(self.num_features)))), 1000)
        self.base_random_seed = getattr(self, "base_random_seed", 0)
        return self


def _check_params(params):
    if not hasattr(params, "num_output_columns"):
        raise ValueError("the forest's hyperparameters must be filled in: ForestHParams(...).fill()")
    for name, allowed in (("model_name", ("all_dense",)), ("split_finish_name", ("basic",)),
                          ("split_pruning_name", ("none",)), ("split_name", ("less_or_equal",))):
        value = getattr(params, name, allowed[0])
        if value not in allowed:
            raise ValueError(f"ForestHParams({name}={value!r}) is not supported by distflow's tensor_forest "
                             f"(it has {', '.join(repr(a) for a in allowed)})")
    if int(params.max_nodes) < 1 or int(params.num_splits_to_consider) < 1:
        raise ValueError(f"max_nodes and num_splits_to_consider must be positive, got {params.max_nodes} and "
                         f"{params.num_splits_to_consider}")


# -- kernels -------------------------------------------------------------------------------------

def _leaves(feature, threshold, left_child, data):
    """The leaf each row of ``data`` reaches."""
    node = np.zeros(len(data), np.int64)
    rows = np.arange(len(data))
    active = feature[node] >= 0
    while active.any():
        at = node[active]
        f = feature[at]
        right = data[rows[active], f] > threshold[at]
        node[active] = left_child[at] + right
        active = feature[node] >= 0
    return node


def _check_data(op_type, data, num_features):
    data = np.asarray(data, np.float32)
    if data.ndim != 2 or data.shape[1] != num_features:
        raise kernel_error(op_type, f"the input data must be [batch, {num_features}] (num_features), got shape "
                                    f"{list(data.shape)}")
    return data


def _smoothed_gini(counts):
    """Each row's Gini impurity times its weight, its class counts smoothed by one (the last
    axis: the classes)."""
    smoothed = counts + 1.0
    total = smoothed.sum(-1)
    return total - (smoothed * smoothed).sum(-1) / total


def _squared_deviation(sums, squares, weight):
    """The sum over outputs of the squared deviations from the mean, given sums, sums of
    squares (the last axis: the outputs) and the weight."""
    w = np.maximum(weight, 1e-12)[..., None]
    return (squares - sums * sums / w).sum(-1)


def _add_rows(target, rows, values):
    """``target[rows[i]] += values[i]`` for a target of rows (its leading axes flattened), each
    row's values summed first (a sort and one ``reduceat``: ``np.add.at`` is 10x slower)."""
    if not len(rows):
        return
    flat = target.reshape(-1, values.shape[1])
    order = np.argsort(rows, kind="stable")
    sorted_rows = rows[order]
    starts = np.flatnonzero(np.concatenate([[True], sorted_rows[1:] != sorted_rows[:-1]]))
    flat[sorted_rows[starts]] += np.add.reduceat(values[order], starts, axis=0)


class _TreeGrower:
    """One batch's training of one tree (the module's text), on its variables. The variables
    are updated in place, as TF's update kernels do; a split writes its feature last, so a
    prediction running beside it sees the node as a leaf until the split is whole."""

    def __init__(self, refs, attrs):
        (self.feature, self.threshold, self.left_child, self.leaf, self.state, self.cand_feature,
         self.cand_threshold, self.cand_count, self.cand_left, self.cand_squares, self.total,
         self.total_squares) = refs
        self.regression, self.num_splits = attrs["regression"], attrs["num_splits"]
        self.split_after, self.max_nodes = attrs["split_after_samples"], attrs["max_nodes"]
        self.seed, self.num_features = attrs["seed"], attrs["num_features"]

    def step(self, data, labels, weights):
        state = np.array(self.state.read())
        feature, threshold = self.feature.read(), self.threshold.read()
        left_child, leaf_model = self.left_child.read(), self.leaf.read()
        leaf = _leaves(feature, threshold, left_child, data)
        targets = self._targets(labels, leaf_model.shape[1] - 1)  # [batch, outputs]
        weighted = np.concatenate([targets * weights[:, None], weights[:, None]], 1)  # [batch, outputs + 1]
        _add_rows(leaf_model, leaf, weighted)
        size = int(state[_SIZE])
        if size + 2 <= self.max_nodes:  # (a full tree's leaves count on, but no longer gather candidates)
            rng = np.random.default_rng(None if self.seed == 0 else [self.seed, int(state[_CALLS])])
            stats = self._grow_stats(size)
            finished = self._count(stats, leaf, data, targets, weighted, rng)
            for node in finished:
                if size + 2 > self.max_nodes:
                    break
                size = self._split(stats, node, size, feature, threshold, left_child, leaf_model)
            if size + 2 > self.max_nodes:
                stats = {k: v[:0].copy() for k, v in stats.items()}  # (full: no leaf will split again)
            self._store_stats(stats)
        state[_SIZE], state[_CALLS] = size, state[_CALLS] + 1
        self.state.value = state
        return np.int32(size)

    def _targets(self, labels, outputs):
        if self.regression:
            return np.asarray(labels, np.float64).reshape(len(labels), outputs)
        ids = np.asarray(labels).reshape(-1).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= outputs):
            raise kernel_error("_TensorForestTrain", f"labels must be class ids in [0, {outputs}), got "
                                                     f"{int(ids.min())}..{int(ids.max())}")
        return np.eye(outputs)[ids]

    def _grow_stats(self, size):
        """The candidates' statistics, a row for each node up to the tree's size (grown as the
        tree grows: rows double up to max_nodes)."""
        stats = {"feature": self.cand_feature.read(), "threshold": self.cand_threshold.read(),
                 "count": self.cand_count.read(), "left": self.cand_left.read(), "squares": self.cand_squares.read(),
                 "total": self.total.read(), "total_squares": self.total_squares.read()}
        rows = len(stats["count"])
        if rows < size + 2:
            new_rows = min(max(2 * rows, size + 2, 16), self.max_nodes)
            for key, value in stats.items():
                grown = np.full((new_rows,) + value.shape[1:], -1 if key == "feature" else 0, value.dtype)
                grown[:rows] = value
                stats[key] = grown
        return stats

    def _store_stats(self, stats):
        self.cand_feature.value, self.cand_threshold.value = stats["feature"], stats["threshold"]
        self.cand_count.value, self.cand_left.value = stats["count"], stats["left"]
        self.cand_squares.value, self.total.value = stats["squares"], stats["total"]
        self.total_squares.value = stats["total_squares"]

    def _count(self, stats, leaf, data, targets, weighted, rng):
        """Adds the batch to its leaves' candidates (making new ones first); returns the leaves
        that are finished, in order."""
        n, splits = len(leaf), self.num_splits
        order = np.argsort(leaf, kind="stable")
        sorted_leaf = leaf[order]
        first = np.searchsorted(sorted_leaf, sorted_leaf, side="left")
        rank = np.empty(n, np.int64)
        rank[order] = np.arange(n) - first  # (each example's place among the batch's examples at its leaf)
        had = stats["count"][leaf].astype(np.int64)
        maker = np.flatnonzero(rank < splits - had)  # (an example that adds a candidate: its index is had + rank)
        if len(maker):
            slots = had[maker] + rank[maker]
            chosen = rng.integers(0, self.num_features, size=len(maker))
            stats["feature"][leaf[maker], slots] = chosen
            stats["threshold"][leaf[maker], slots] = data[maker, chosen]
            np.add.at(stats["count"], leaf[maker], 1)
        # A candidate counts the examples from the one that made it on (made before the batch: all).
        slot = np.arange(splits)[None, :]
        began = np.where(slot < had[:, None], -1, slot - had[:, None])
        counts = (slot < stats["count"][leaf][:, None]) & (began <= rank[:, None])
        f = stats["feature"][leaf]
        goes_left = counts & (np.take_along_axis(data, np.maximum(f, 0), 1) <= stats["threshold"][leaf])
        example, chosen_slot = np.nonzero(goes_left)
        cells = leaf[example] * splits + chosen_slot
        _add_rows(stats["left"], cells, weighted[example])
        _add_rows(stats["total"], leaf, weighted)
        if self.regression:
            square = targets * targets * weighted[:, -1:]
            _add_rows(stats["squares"], cells, square[example])
            _add_rows(stats["total_squares"], leaf, square)
        touched = np.unique(leaf)
        total = stats["total"][touched]
        ready = total[:, -1] >= self.split_after
        if not self.regression:
            ready &= (total[:, :-1] > 0).sum(1) > 1
        return [int(node) for node in touched[ready]]

    def _split(self, stats, node, size, feature, threshold, left_child, leaf_model):
        """Splits a finished leaf on its best candidate; returns the tree's size after."""
        count = int(stats["count"][node])
        left = stats["left"][node, :count].astype(np.float64)
        right = stats["total"][node][None, :] - left
        usable = (left[:, -1] > 0) & (right[:, -1] > 0)
        if not usable.any():
            self._clear(stats, node)  # (draws new candidates)
            return size
        if self.regression:
            squares = stats["squares"][node, :count].astype(np.float64)
            right_squares = stats["total_squares"][node][None, :] - squares
            score = (_squared_deviation(left[:, :-1], squares, left[:, -1])
                     + _squared_deviation(right[:, :-1], right_squares, right[:, -1]))
        else:
            score = _smoothed_gini(left[:, :-1]) + _smoothed_gini(right[:, :-1])
        best = int(np.argmin(np.where(usable, score, np.inf)))
        leaf_model[size], leaf_model[size + 1] = left[best], right[best]
        threshold[node], left_child[node] = stats["threshold"][node, best], size
        feature[node] = stats["feature"][node, best]  # (last: the node is a leaf to a reader until here)
        self._clear(stats, node)
        return size + 2

    @staticmethod
    def _clear(stats, node):
        for key, value in stats.items():
            value[node] = -1 if key == "feature" else 0


_TRAIN_REFS = 12


@register_op("_TensorForestTrain", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.int32, stateful=True,
             ref_inputs=tuple(range(_TRAIN_REFS)))
def _train_kernel(xp, *inputs, **attrs):
    """One batch's training of one tree; returns its size after (under the tree's lock)."""
    refs, (data, labels, weights) = inputs[:_TRAIN_REFS], inputs[_TRAIN_REFS:]
    data = _check_data("_TensorForestTrain", data, attrs["num_features"])
    labels = np.asarray(labels)
    if len(labels) != len(data):
        raise kernel_error("_TensorForestTrain", f"{len(data)} rows of input data but {len(labels)} labels")
    weights = np.asarray(weights, np.float64).reshape(-1)
    weights = np.ones(len(data)) if weights.size == 0 else np.broadcast_to(weights, (len(data),)).astype(np.float64)
    grower = _TreeGrower(refs, attrs)
    with locked(refs[4], True):
        return grower.step(data, labels, weights)


def _predict_shape(op):
    return [TensorShape([op.inputs[4].shape[0], op.inputs[3].shape[1] - 1]), TensorShape([op.inputs[4].shape[0]])]


@register_op("_TensorForestPredict", shape=_predict_shape, dtype=lambda op: [dtypes.float32, dtypes.int32],
             list_output=True)
def _predict_kernel(xp, feature, threshold, left_child, leaf_model, data, *, num_features, regression):
    """Each row's prediction by one tree (its leaf's class frequencies, or mean output; an
    empty leaf predicts each class alike, or zero), and its leaf."""
    data = _check_data("_TensorForestPredict", data, num_features)
    leaf = _leaves(np.asarray(feature), np.asarray(threshold), np.asarray(left_child), data)
    model = np.asarray(leaf_model, np.float64)[leaf]
    weight = model[:, -1:]
    outputs = model.shape[1] - 1
    empty = 0.0 if regression else 1.0 / outputs
    prediction = np.where(weight > 0, model[:, :-1] / np.where(weight > 0, weight, 1.0), empty)
    return prediction.astype(np.float32), leaf.astype(np.int32)


for _op_type in ("_TensorForestTrain", "_TensorForestPredict"):
    not_differentiable(_op_type)


# -- the graph -------------------------------------------------------------------------------------

class TreeVariables:
    """One tree's variables: ``tree-<i>/...`` (its nodes and leaf models) and ``stats-<i>/...``
    (its leaves' candidates)."""

    def __init__(self, params, tree_num, training=True, tree_config="", tree_stat=""):
        if tree_config or tree_stat:
            raise ValueError("tree_configs and tree_stats (serialized TF tree protos) are not supported by "
                             "distflow's tensor_forest: restore a forest from a checkpoint")
        nodes, columns = int(params.max_nodes), int(params.num_output_columns)
        splits, outputs = int(params.num_splits_to_consider), columns - 1

        def variable(name, initial, dtype, validate_shape=True):
            return vs.get_variable(name, initializer=initial, dtype=dtype, trainable=False,
                                   validate_shape=validate_shape)

        with vs.variable_scope(self.get_tree_name("tree", tree_num)):
            self.feature = variable("feature", np.full(nodes, LEAF_NODE, np.int32), dtypes.int32)
            with ops.colocate_with(self.feature):
                self.threshold = variable("threshold", np.zeros(nodes, np.float32), dtypes.float32)
                self.left_child = variable("left_child", np.full(nodes, -1, np.int32), dtypes.int32)
                self.leaf_model = variable("leaf_model", np.zeros((nodes, columns), np.float32), dtypes.float32)
                self.state = variable("state", np.array([1, 0], np.int64), dtypes.int64)
        self.stats = None
        if training:
            squares = outputs if params.regression else 0
            with vs.variable_scope(self.get_tree_name("stats", tree_num)), ops.colocate_with(self.feature):
                self.stats = [
                    variable("candidate_feature", np.zeros((0, splits), np.int32), dtypes.int32, False),
                    variable("candidate_threshold", np.zeros((0, splits), np.float32), dtypes.float32, False),
                    variable("candidate_count", np.zeros((0,), np.int32), dtypes.int32, False),
                    variable("candidate_left", np.zeros((0, splits, columns), np.float32), dtypes.float32, False),
                    variable("candidate_left_squares", np.zeros((0, splits, squares), np.float32), dtypes.float32,
                             False),
                    variable("total", np.zeros((0, columns), np.float32), dtypes.float32, False),
                    variable("total_squares", np.zeros((0, squares), np.float32), dtypes.float32, False)]
        self.tree = self.feature  # (TF's handle of the tree)

    def get_tree_name(self, name, num):
        return f"{name}-{num}"

    @property
    def model(self):
        return [self.feature, self.threshold, self.left_child, self.leaf_model]


class ForestVariables:
    """The trees' variables, ``forest_variables[i]`` the i-th's; ``device_assigner`` places
    each tree (a device string or function, as ``tf.device`` takes)."""

    def __init__(self, params, device_assigner=None, training=True, tree_variables_class=TreeVariables,
                 tree_configs=None, tree_stats=None):
        self.variables = []
        for i in range(params.num_trees):
            kwargs = {}
            if tree_configs is not None:
                kwargs["tree_config"] = tree_configs[i]
            if tree_stats is not None:
                kwargs["tree_stat"] = tree_stats[i]
            with ops.device(device_assigner):
                self.variables.append(tree_variables_class(params, i, training, **kwargs))

    def __setitem__(self, t, val):
        self.variables[t] = val

    def __getitem__(self, t):
        return self.variables[t]


def _dense_features(input_data, num_features):
    """The input as one float32 matrix: a tensor, or a dict of them (in the order of their keys,
    each flattened to [batch, -1])."""
    if isinstance(input_data, SparseTensor) or (
            isinstance(input_data, dict) and any(isinstance(v, SparseTensor) for v in input_data.values())):
        raise ValueError("distflow's tensor_forest takes dense features only; densify sparse ones first "
                         "(tf.sparse.to_dense)")
    if isinstance(input_data, dict):
        parts = [math_ops.cast(array_ops.reshape(input_data[k], [array_ops.shape(input_data[k])[0], -1]),
                               dtypes.float32) for k in sorted(input_data)]
        data = slicing_ops.concat(parts, 1) if len(parts) > 1 else parts[0]
    else:
        data = math_ops.cast(ops.convert_to_tensor(input_data), dtypes.float32)
    if data.shape.ndims is not None and data.shape.ndims != 2:
        raise ValueError(f"the forest's input data must be [batch, features], got shape {data.shape}")
    if data.shape.ndims == 2 and data.shape[1].value is not None and data.shape[1].value != num_features:
        raise ValueError(f"the forest's input data has {data.shape[1].value} features, its hyperparameters say "
                         f"num_features={num_features}")
    return data


class RandomForestGraphs:
    """Builds the graphs that train and evaluate a random forest (the module's text)."""

    def __init__(self, params, tree_configs=None, tree_stats=None, device_assigner=None, variables=None,
                 tree_variables_class=TreeVariables, tree_graphs=None, training=True):
        _check_params(params)
        self.params = params
        self.device_assigner = device_assigner
        logging.info("Constructing forest with params = ")
        logging.info(self.params.__dict__)
        self.variables = variables or ForestVariables(
            params, device_assigner=device_assigner, training=training, tree_variables_class=tree_variables_class,
            tree_configs=tree_configs, tree_stats=tree_stats)
        tree_graph_class = tree_graphs or RandomTreeGraphs
        self.trees = [tree_graph_class(self.variables[i], params, i) for i in range(params.num_trees)]

    def _bag_features(self, tree_num, input_data):
        return slicing_ops.gather(input_data, self.params.bagged_features[tree_num], axis=1)

    def get_all_resource_handles(self):
        return [self.variables[i].tree for i in range(len(self.trees))]

    def training_graph(self, input_data, input_labels, num_trainers=1, trainer_id=0, **tree_kwargs):
        """The op that trains the forest's trees (this trainer's share of them) on a batch."""
        data = _dense_features(input_data, self.params.num_features)
        labels = input_labels
        if isinstance(labels, dict):
            labels = slicing_ops.concat([array_ops.reshape(labels[k], [-1, 1]) for k in sorted(labels)], 1)
        labels = ops.convert_to_tensor(labels)
        trees_per_trainer = self.params.num_trees / num_trainers
        tree_start, tree_end = int(trainer_id * trees_per_trainer), int((trainer_id + 1) * trees_per_trainer)
        tree_graphs = []
        for i in range(tree_start, tree_end):
            with ops.colocate_with(self.variables[i].tree):
                seed = self.params.base_random_seed
                if seed != 0:
                    seed += i
                tree_data, tree_labels, weights = data, labels, tree_kwargs.get("input_weights")
                if self.params.bagging_fraction < 1.0:
                    r = random_ops.random_uniform(array_ops.shape(data)[:1], seed=seed or None)
                    keep = array_ops.squeeze(math_ops.where(r < self.params.bagging_fraction), axis=[1])
                    tree_data, tree_labels = slicing_ops.gather(data, keep), slicing_ops.gather(labels, keep)
                    if weights is not None:
                        weights = slicing_ops.gather(weights, keep)
                if self.params.bagged_features:
                    tree_data = self._bag_features(i, tree_data)
                tree_graphs.append(self.trees[i].training_graph(tree_data, tree_labels, seed, input_weights=weights))
        return control_flow_ops.group(*tree_graphs, name="train")

    def inference_graph(self, input_data, **inference_args):
        """(probabilities or predictions [batch, outputs], tree_paths [batch, trees], variance)."""
        data = _dense_features(input_data, self.params.num_features)
        probabilities, paths = [], []
        for i in range(self.params.num_trees):
            with ops.colocate_with(self.variables[i].tree):
                tree_data = self._bag_features(i, data) if self.params.bagged_features else data
                probs, path = self.trees[i].inference_graph(tree_data, None, **inference_args)
                probabilities.append(probs)
                paths.append(path)
        all_predict = array_ops.stack(probabilities, axis=1)  # [batch, trees, outputs]
        average = math_ops.divide(reduction_ops.reduce_sum(all_predict, 1), float(self.params.num_trees),
                                  name="probabilities")
        expected_squares = math_ops.divide(reduction_ops.reduce_sum(all_predict * all_predict, 1),
                                           float(self.params.num_trees))
        variance = math_ops.maximum(0.0, expected_squares - average * average)
        return average, array_ops.stack(paths, axis=1), variance

    def average_size(self):
        """The average number of nodes of the trees."""
        sizes = [self.trees[i].size() for i in range(self.params.num_trees)]
        return reduction_ops.reduce_mean(math_ops.cast(array_ops.stack(sizes), dtypes.float32))

    def training_loss(self, features, labels, name="training_loss"):
        """TF's: the negative average size (training goes on while the trees grow)."""
        return unary_ops.negative(self.average_size(), name=name)

    def validation_loss(self, features, labels):
        return unary_ops.negative(self.average_size())

    def feature_importances(self):
        """Each feature's share of the splits over the forest."""
        counts = [self.trees[i].feature_usage_counts() for i in range(self.params.num_trees)]
        total = reduction_ops.reduce_sum(array_ops.stack(counts, 0), 0)
        return total / math_ops.maximum(reduction_ops.reduce_sum(total), 1.0)


class RandomTreeGraphs:
    """Builds the graphs that train and evaluate one tree."""

    def __init__(self, variables, params, tree_num):
        self.variables, self.params, self.tree_num = variables, params, tree_num

    def training_graph(self, input_data, input_labels, random_seed, data_spec=None, sparse_features=None,
                       input_weights=None):
        if sparse_features is not None:
            raise ValueError("distflow's tensor_forest takes dense features only")
        if self.variables.stats is None:
            raise ValueError("this forest was built with training=False: it has no statistics to train")
        v = self.variables
        num_features = int(input_data.shape[1].value if input_data.shape[1].value is not None
                           else self.params.num_features)
        weights = array_ops.zeros([0]) if input_weights is None else math_ops.cast(input_weights, dtypes.float32)
        refs = [state_ops.variable_ref(x) for x in (v.feature, v.threshold, v.left_child, v.leaf_model, v.state,
                                                    *v.stats)]
        attrs = {"regression": bool(self.params.regression), "num_splits": int(self.params.num_splits_to_consider),
                 "split_after_samples": float(self.params.split_after_samples),
                 "max_nodes": int(self.params.max_nodes), "seed": int(random_seed), "num_features": num_features}
        return make_tensor("_TensorForestTrain", [*refs, input_data, input_labels, weights], attrs).op

    def inference_graph(self, input_data, data_spec=None, sparse_features=None):
        """(each row's prediction by this tree, its leaf)."""
        if sparse_features is not None:
            raise ValueError("distflow's tensor_forest takes dense features only")
        num_features = int(input_data.shape[1].value if input_data.shape[1].value is not None
                           else self.params.num_features)
        out = make_op("_TensorForestPredict", [ops.convert_to_tensor(x) for x in self.variables.model] + [input_data],
                      {"num_features": num_features, "regression": bool(self.params.regression)})
        return out.outputs[0], out.outputs[1]

    def size(self):
        """The tree's number of nodes."""
        return math_ops.cast(ops.convert_to_tensor(self.variables.state)[_SIZE], dtypes.int32)

    def feature_usage_counts(self):
        """How many of the tree's splits use each feature."""
        feature = ops.convert_to_tensor(self.variables.feature)
        used = manip_ops.boolean_mask(feature, feature >= 0)
        return math_ops.cast(segment_ops.bincount(used, minlength=self.params.num_features,
                                               maxlength=self.params.num_features), dtypes.float32)


def get_epoch_variable():
    """TF's helper: the epoch of ``limit_epochs`` if the graph has one, else [0]."""
    from ....ops import variables as variables_lib
    for v in variables_lib.local_variables():
        if "limit_epochs/epoch" in v.op.name:
            return array_ops.reshape(v, [1])
    return [0]
