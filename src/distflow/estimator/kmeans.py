"""K-means clustering: ``tf.contrib.factorization.KMeans`` (the graph) and ``KMeansClustering``
(``tf.estimator.experimental.KMeans``, its Estimator), as TF 1.x had them.

The graph keeps the centers in a variable named ``clusters`` (with ``initialized`` and, for
mini-batch k-means, ``cluster_counts``). ``initial_clusters`` picks the first centers from
the first batch of points (``"random"``: distinct points drawn at random; ``"kmeans_plus_plus"``:
k-means++; ``"kmc2"``: k-MC², a Markov chain that approximates k-means++), or gives them (an
array, or a function of the points and k). Then each training step assigns every point of
its batch to its nearest center and moves the centers:

* full batch (``use_mini_batch=False``): each center to the mean of the points assigned to
  it (a center with no point stays where it was; TF's moved to the origin);
* mini batch: each center towards the mean of its points with the weight of their number in
  all the points it has ever been given (Sculley's mini-batch k-means); the centers move every
  step (``mini_batch_steps_per_iteration``, which delays the update to a shared copy among
  several workers in TF, is accepted and changes nothing here).

Distances are squared Euclidean, or cosine (``1 - cos``, points and centers normalized). The
first training step sets the centers from its batch, then trains on the same batch (TF's
Estimator initialized from a hook, which took a batch of its own: with an input of one
batch, as in its documentation's example, the first ``train`` call did nothing else).
"""

from __future__ import annotations

import numpy as np

from .. import metrics as metrics_lib
from ..feature_column import feature_column as fc
from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from ..ops import (array_ops, check_ops, control_flow_ops, control_flow_v2, math_ops, nn_impl, random_ops,
                   reduction_ops, segment_ops, slicing_ops, state_ops)
from ..ops.op_util import make_tensor
from ..train import session_run_hook, training_util
from .estimator import Estimator, EstimatorSpec, ModeKeys

SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
COSINE_DISTANCE = "cosine"
RANDOM_INIT = "random"
KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
KMC2_INIT = "kmc2"
CLUSTERS_VAR_NAME = "clusters"


# -- the initializations' kernels (TF's op types) ---------------------------------------------

def _squared_distances(points: np.ndarray, centers: np.ndarray) -> np.ndarray:
    d = (points * points).sum(1)[:, None] - 2 * points @ centers.T + (centers * centers).sum(1)[None, :]
    return np.maximum(d, 0)


@register_op("KmeansPlusPlusInitialization", shape=lambda op: TensorShape([None, op.inputs[0].shape[1]]),
             dtype=lambda op: op.inputs[0].dtype.base_dtype)
def _kmeans_plus_plus_kernel(xp, points, num_to_sample, seed, num_retries_per_sample):
    """k-means++: the first center uniformly, each next one drawn with probability in
    proportion to its squared distance to the nearest center so far (of ``2 + log k`` draws,
    or ``num_retries_per_sample`` + 1, the one that lowers the total most)."""
    points = np.asarray(points, dtype=np.float64)
    k, n = int(num_to_sample), len(points)
    if n < k:
        raise errors.InvalidArgumentError(None, None, f"KmeansPlusPlusInitialization: {n} points cannot give "
                                                      f"{k} centers")
    rng = np.random.default_rng(int(seed) & ((1 << 63) - 1))
    tries = int(num_retries_per_sample) + 1 if int(num_retries_per_sample) >= 0 else 2 + int(np.log(max(k, 1)))
    chosen = [int(rng.integers(n))]
    nearest = _squared_distances(points, points[chosen])[:, 0]
    for _ in range(1, k):
        total = nearest.sum()
        if total <= 0:  # (every point is a center already: any will do)
            candidates = rng.integers(n, size=tries)
        else:
            candidates = rng.choice(n, size=tries, p=nearest / total)
        options = np.minimum(nearest[:, None], _squared_distances(points, points[candidates]))
        best = int(np.argmin(options.sum(0)))
        chosen.append(int(candidates[best]))
        nearest = options[:, best]
    return points[chosen].astype(np.asarray(points).dtype)


@register_op("KMC2ChainInitialization", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.int64)
def _kmc2_chain_kernel(xp, distances, seed):
    """One step of k-MC²: the index of the next center, the last state of a Markov chain over
    the candidates whose ``distances`` to their nearest center are given, each proposal
    accepted with probability min(1, its distance / the current one's)."""
    distances = np.asarray(distances, dtype=np.float64)
    if not len(distances):
        raise errors.InvalidArgumentError(None, None, "KMC2ChainInitialization: no candidates")
    rng = np.random.default_rng(int(seed) & ((1 << 63) - 1))
    current = 0
    for proposal in range(1, len(distances)):
        if distances[current] <= 0 or rng.random() * distances[current] < distances[proposal]:
            current = proposal
    return np.int64(current)


not_differentiable("KmeansPlusPlusInitialization")
not_differentiable("KMC2ChainInitialization")


# -- the graph ---------------------------------------------------------------------------------

class KMeans:
    """The graph of k-means over ``inputs`` (a tensor of points, [n, d], or a list of them);
    ``training_graph()`` builds it (see the module's text)."""

    def __init__(self, inputs, num_clusters, initial_clusters=RANDOM_INIT, distance_metric=SQUARED_EUCLIDEAN_DISTANCE,
                 use_mini_batch=False, mini_batch_steps_per_iteration=1, random_seed=0,
                 kmeans_plus_plus_num_retries=2, kmc2_chain_length=200):
        self._inputs = [ops.convert_to_tensor(x) for x in (inputs if isinstance(inputs, (list, tuple)) else [inputs])]
        if distance_metric not in (SQUARED_EUCLIDEAN_DISTANCE, COSINE_DISTANCE):
            raise ValueError(f"Unsupported distance metric {distance_metric!r}: use SQUARED_EUCLIDEAN_DISTANCE or "
                             "COSINE_DISTANCE")
        if isinstance(initial_clusters, str) and initial_clusters not in (RANDOM_INIT, KMEANS_PLUS_PLUS_INIT,
                                                                          KMC2_INIT):
            raise ValueError(f"Unsupported initialization {initial_clusters!r}: use RANDOM_INIT, "
                             "KMEANS_PLUS_PLUS_INIT, KMC2_INIT, an array of centers or a function")
        if isinstance(initial_clusters, (np.ndarray, ops.Tensor, list)):
            num_clusters = int(np.shape(initial_clusters)[0]) if not isinstance(initial_clusters, ops.Tensor) else \
                initial_clusters.shape[0]
        if not isinstance(num_clusters, int) or num_clusters < 1:
            raise ValueError(f"num_clusters must be a positive int, got {num_clusters!r}")
        self._k, self._initial = num_clusters, initial_clusters
        self._metric, self._mini_batch = distance_metric, use_mini_batch
        self._seed, self._retries, self._chain = random_seed, kmeans_plus_plus_num_retries, kmc2_chain_length
        self._steps_per_iteration = mini_batch_steps_per_iteration

    def _points(self, x):
        x = math_ops.cast(x, dtypes.float32) if not x.dtype.is_floating else x
        return nn_impl.l2_normalize(x, axis=1) if self._metric == COSINE_DISTANCE else x

    def _distances(self, x, centers):
        """[n, k]: each point's distance to each center."""
        if self._metric == COSINE_DISTANCE:
            return 1.0 - math_ops.matmul(x, centers, transpose_b=True)
        sq = reduction_ops.reduce_sum(x * x, axis=1, keepdims=True)
        sc = array_ops.expand_dims(reduction_ops.reduce_sum(centers * centers, axis=1), 0)
        return math_ops.maximum(sq - 2.0 * math_ops.matmul(x, centers, transpose_b=True) + sc, 0.0)

    def training_graph(self):
        """``(all_distances, cluster_indices, scores, initialized, init_op, training_op)``: the
        first three lists with one tensor per input (distances to every center, the nearest
        center's index, the distance to it), the variable saying whether the centers are set,
        the op that sets them from the first batch, and one step of training."""
        points = [self._points(x) for x in self._inputs]
        dtype = points[0].dtype.base_dtype
        dims = points[0].shape[1]
        if dims is None:
            raise ValueError("KMeans: the points' dimension must be known when the graph is built")
        clusters = state_ops.Variable(array_ops.zeros([self._k, dims], dtype), name=CLUSTERS_VAR_NAME,
                                      trainable=False)
        initialized = state_ops.Variable(False, name="initialized", trainable=False)
        counts = state_ops.Variable(array_ops.zeros([self._k], dtypes.int64), name="cluster_counts",
                                    trainable=False) if self._mini_batch else None
        init_op = control_flow_v2.cond(initialized.read_value(), control_flow_ops.no_op,
                                       lambda: self._initialize(points, clusters, initialized))
        with ops.control_dependencies([init_op]):  # (the first step starts from the centers its batch gives)
            centers = clusters.read_value()
        all_distances, indices, scores = [], [], []
        for x in points:
            d = self._distances(x, centers)
            all_distances.append(d)
            indices.append(reduction_ops.argmin(d, axis=1))
            scores.append(reduction_ops.reduce_min(d, axis=1))
        training_op = self._mini_batch_step(points, indices, clusters, centers, counts) if self._mini_batch else \
            self._full_batch_step(points, indices, clusters, centers)
        return all_distances, indices, scores, initialized, init_op, training_op

    def _initialize(self, points, clusters, initialized):
        x = slicing_ops.concat(points, 0) if len(points) > 1 else points[0]
        k = self._k
        if isinstance(self._initial, (np.ndarray, list, ops.Tensor)):
            centers = ops.convert_to_tensor(self._initial, dtype=x.dtype)
        elif callable(self._initial):
            centers = ops.convert_to_tensor(self._initial(x, k), dtype=x.dtype)
        elif self._initial == RANDOM_INIT:
            n = array_ops.shape(x)[0]
            check = check_ops.Assert(n >= k, ["KMeans: the first batch must hold at least", k,
                                                     "points to choose the first centers from; it has", n])
            with ops.control_dependencies([check]):
                chosen = random_ops.random_shuffle(math_ops.range_(n), seed=self._seed)[:k]
            centers = slicing_ops.gather(x, chosen)
        elif self._initial == KMEANS_PLUS_PLUS_INIT:
            centers = make_tensor("KmeansPlusPlusInitialization",
                                  [x, ops.convert_to_tensor(k, dtypes.int64),
                                   ops.convert_to_tensor(self._seed, dtypes.int64),
                                   ops.convert_to_tensor(self._retries, dtypes.int64)], None,
                                  "KmeansPlusPlusInitialization")
        else:
            centers = self._kmc2(x)
        if self._metric == COSINE_DISTANCE:
            centers = nn_impl.l2_normalize(centers, axis=1)
        set_centers = state_ops.assign(clusters, centers, validate_shape=True)
        with ops.control_dependencies([set_centers]):
            return control_flow_ops.group(state_ops.assign(initialized, True))

    def _kmc2(self, x):
        """k-MC²: the first center uniformly; each next one the end of a chain over
        ``kmc2_chain_length`` points drawn uniformly (a NumPy kernel per center)."""
        n = array_ops.shape(x)[0]
        first = slicing_ops.gather(x, random_ops.random_uniform([], 0, n, dtype=dtypes.int32, seed=self._seed))
        centers = [first]
        for i in range(1, self._k):
            so_far = array_ops.stack(centers)
            sample = random_ops.random_uniform([self._chain], 0, n, dtype=dtypes.int32, seed=self._seed + i)
            candidates = slicing_ops.gather(x, sample)
            nearest = reduction_ops.reduce_min(self._distances(candidates, so_far), axis=1)
            index = make_tensor("KMC2ChainInitialization", [nearest, ops.convert_to_tensor(self._seed + i,
                                                                                            dtypes.int64)],
                                None, "KMC2ChainInitialization")
            centers.append(slicing_ops.gather(candidates, index))
        return array_ops.stack(centers)

    def _sums(self, points, indices):
        """Per center: the sum of its points and their number, over every input."""
        sums, numbers = [], []
        for x, idx in zip(points, indices):
            sums.append(segment_ops.unsorted_segment_sum(x, idx, self._k))
            numbers.append(segment_ops.unsorted_segment_sum(array_ops.ones_like(idx, dtype=x.dtype), idx, self._k))
        return math_ops.add_n(sums), math_ops.add_n(numbers)

    def _moved(self, centers):
        return nn_impl.l2_normalize(centers, axis=1) if self._metric == COSINE_DISTANCE else centers

    def _full_batch_step(self, points, indices, clusters, centers):
        total, number = self._sums(points, indices)
        number = array_ops.expand_dims(number, 1)
        means = total / math_ops.maximum(number, 1.0)
        return state_ops.assign(clusters, self._moved(math_ops.where(
            array_ops.broadcast_to(number > 0, array_ops.shape(means)), means, centers))).op

    def _mini_batch_step(self, points, indices, clusters, centers, counts):
        total, number = self._sums(points, indices)
        new_counts = counts.value() + math_ops.cast(number, dtypes.int64)
        weight = math_ops.cast(math_ops.maximum(new_counts, 1), total.dtype)
        old = centers
        moved = old + (total - array_ops.expand_dims(number, 1) * old) / array_ops.expand_dims(weight, 1)
        with ops.control_dependencies([state_ops.assign(clusters, self._moved(moved))]):
            return state_ops.assign(counts, new_counts).op


# -- the Estimator -----------------------------------------------------------------------------

class _LossRelativeChangeHook(session_run_hook.SessionRunHook):
    """Stops training once the loss changes by less than ``tolerance`` of itself in a step."""

    def __init__(self, loss, tolerance):
        self._loss, self._tolerance, self._previous = loss, tolerance, None

    def before_run(self, run_context):
        return session_run_hook.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        loss = run_values.results
        if self._previous is not None and abs(loss - self._previous) <= self._tolerance * abs(self._previous):
            run_context.request_stop()
        self._previous = loss


def _points_of(features):
    if isinstance(features, dict):
        if len(features) != 1:
            raise ValueError(f"KMeansClustering: features must be one tensor of points (or a dict with one), got "
                             f"the keys {sorted(features)}: give feature_columns to combine several")
        features = next(iter(features.values()))
    return ops.convert_to_tensor(features)


class KMeansClustering(Estimator):
    """An Estimator for k-means clustering (see the module's text): ``train`` runs steps of
    it, ``cluster_centers()`` reads the centers, ``predict_cluster_index`` and ``transform``
    give each point's nearest center and its distances to all, ``score`` the sum of the
    distances of one batch of points to their nearest centers."""

    SQUARED_EUCLIDEAN_DISTANCE = SQUARED_EUCLIDEAN_DISTANCE
    COSINE_DISTANCE = COSINE_DISTANCE
    RANDOM_INIT = RANDOM_INIT
    KMEANS_PLUS_PLUS_INIT = KMEANS_PLUS_PLUS_INIT
    SCORE = "score"
    CLUSTER_CENTERS_VAR_NAME = CLUSTERS_VAR_NAME
    CLUSTER_INDEX = "cluster_index"
    ALL_DISTANCES = "all_distances"

    def __init__(self, num_clusters, model_dir=None, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, random_seed=0, use_mini_batch=True,
                 mini_batch_steps_per_iteration=1, kmeans_plus_plus_num_retries=2, relative_tolerance=None,
                 config=None, feature_columns=None):
        if initial_clusters == KMC2_INIT:
            raise ValueError("KMeansClustering does not take KMC2_INIT (TF's neither): use KMeans directly")
        settings = dict(num_clusters=num_clusters, initial_clusters=initial_clusters, distance_metric=distance_metric,
                        use_mini_batch=use_mini_batch, mini_batch_steps_per_iteration=mini_batch_steps_per_iteration,
                        random_seed=random_seed, kmeans_plus_plus_num_retries=kmeans_plus_plus_num_retries)

        def model_fn(features, mode):
            if feature_columns is not None:
                points = fc.input_layer(features, feature_columns)
            else:
                points = _points_of(features)
            distances, indices, scores, _, _, step = KMeans(points, **settings).training_graph()
            loss = reduction_ops.reduce_sum(scores[0])
            predictions = {self.ALL_DISTANCES: distances[0], self.CLUSTER_INDEX: indices[0]}
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(mode, predictions=predictions)
            hooks = []
            if relative_tolerance is not None:
                hooks.append(_LossRelativeChangeHook(loss, relative_tolerance))
            with ops.control_dependencies([step, state_ops.assign_add(training_util.get_global_step(), 1)]):
                train_op = array_ops.identity(loss)
            return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op,
                                 eval_metric_ops={self.SCORE: metrics_lib.mean(loss)}, training_hooks=hooks)

        super().__init__(model_fn, model_dir=model_dir, config=config)

    def _predict_one_key(self, input_fn, key):
        for result in self.predict(input_fn=input_fn, predict_keys=[key]):
            yield result[key]

    def predict_cluster_index(self, input_fn):
        """Yields the index of the nearest center of each point."""
        yield from self._predict_one_key(input_fn, self.CLUSTER_INDEX)

    def transform(self, input_fn):
        """Yields each point's distances to every center (squared, for the Euclidean metric)."""
        yield from self._predict_one_key(input_fn, self.ALL_DISTANCES)

    def score(self, input_fn):
        """The sum of the distances of the points of one batch to their nearest centers
        (sklearn's score is its negative)."""
        return self.evaluate(input_fn=input_fn, steps=1)[self.SCORE]

    def cluster_centers(self):
        """The centers, from the latest checkpoint."""
        return self.get_variable_value(CLUSTERS_VAR_NAME)
