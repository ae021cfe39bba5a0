"""K-means: tf.contrib.factorization.KMeans (the graph) against NumPy's Lloyd and mini-batch
steps, and KMeansClustering (the Estimator) as TF's documentation runs it."""

import numpy as np
import pytest

import distflow as tf
from distflow.contrib import factorization

RNG = np.random.default_rng(0)
TRUE = np.array([[0, 0], [10, 10], [0, 10]], np.float32)
POINTS = np.concatenate([c + RNG.standard_normal((40, 2)) for c in TRUE]).astype(np.float32)


def nearest(points, centers):
    d = ((points[:, None, :] - centers[None, :, :]) ** 2).sum(-1)
    return d.argmin(1), d


def test_a_full_batch_step_is_lloyds_and_a_center_without_points_stays():
    start = np.array([[1, 1], [9, 9], [0, 9], [100, 100]], np.float32)  # the last gets no point
    d, idx, scores, initialized, init_op, step = factorization.KMeans(
        tf.constant(POINTS), 4, initial_clusters=start, use_mini_batch=False).training_graph()
    clusters = [v for v in tf.global_variables() if v.op.name == "clusters"][0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_d, got_idx, got_scores = sess.run([d[0], idx[0], scores[0]])  # (the first read initializes)
        sess.run(step)
        centers = sess.run(clusters)
    want_idx, want_d = nearest(POINTS, start)
    np.testing.assert_allclose(got_d, want_d, rtol=1e-4, atol=1e-3)
    assert (got_idx == want_idx).all() and np.allclose(got_scores, want_d.min(1), rtol=1e-4, atol=1e-3)
    want = np.array([POINTS[want_idx == c].mean(0) for c in range(3)] + [start[3]])
    np.testing.assert_allclose(centers, want, rtol=1e-5, atol=1e-5)


def test_mini_batch_steps_move_each_center_by_its_share_of_all_points_it_was_given():
    start = TRUE + 1.0
    batch = tf.placeholder(tf.float32, [None, 2])
    _, _, _, _, _, step = factorization.KMeans(batch, 3, initial_clusters=start, use_mini_batch=True).training_graph()
    clusters = [v for v in tf.global_variables() if v.op.name == "clusters"][0]
    centers, counts = start.astype(np.float64), np.zeros(3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for part in np.split(RNG.permutation(POINTS), 4):
            sess.run(step, {batch: part})
            idx, _ = nearest(part, centers)
            for c in range(3):  # Sculley's update, point by point in the batch's total
                n = (idx == c).sum()
                counts[c] += n
                if n:
                    centers[c] += (part[idx == c].sum(0) - n * centers[c]) / counts[c]
            np.testing.assert_allclose(sess.run(clusters), centers, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("init", [factorization.RANDOM_INIT, factorization.KMEANS_PLUS_PLUS_INIT,
                                  factorization.KMC2_INIT])
def test_each_initialization_picks_k_of_the_points(init):
    _, _, _, initialized, init_op, _ = factorization.KMeans(tf.constant(POINTS), 3, initial_clusters=init,
                                                            random_seed=3).training_graph()
    clusters = [v for v in tf.global_variables() if v.op.name == "clusters"][0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(init_op)
        centers = sess.run(clusters)
        assert sess.run(initialized)
    assert all((POINTS == c).all(1).any() for c in centers)
    if init != factorization.RANDOM_INIT:  # (seeded: k-means++ and k-MC2 spread them over the three groups)
        assert sorted(nearest(centers, TRUE)[0].tolist()) == [0, 1, 2]


def test_a_first_batch_smaller_than_k_says_so():
    _, _, _, _, init_op, _ = factorization.KMeans(tf.constant(POINTS[:2]), 3).training_graph()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="at least.*3.*points"):
            sess.run(init_op)


def test_the_estimator_clusters_as_tensorflows_documentation_runs_it(tmp_path):
    def input_fn():
        return tf.train.limit_epochs(tf.convert_to_tensor(POINTS, dtype=tf.float32), num_epochs=1)

    assert tf.estimator.experimental.KMeans is tf.contrib.factorization.KMeansClustering
    kmeans = tf.contrib.factorization.KMeansClustering(num_clusters=3, use_mini_batch=False, model_dir=str(tmp_path),
                                                       initial_clusters="kmeans_plus_plus", random_seed=1)
    previous = None
    for _ in range(5):
        kmeans.train(input_fn)
        centers = kmeans.cluster_centers()
        if previous is not None:
            delta = np.abs(centers - previous).max()
        previous = centers
    assert delta < 1e-6  # converged
    order = nearest(TRUE, centers)[0]
    np.testing.assert_allclose(centers[order], [POINTS[i * 40:(i + 1) * 40].mean(0) for i in range(3)], atol=1e-4)
    indices = np.array(list(kmeans.predict_cluster_index(input_fn)))
    assert (indices == np.repeat(order, 40)).all()
    distances = np.array(list(kmeans.transform(input_fn)))
    np.testing.assert_allclose(distances, nearest(POINTS, centers)[1], rtol=1e-4, atol=1e-3)
    assert kmeans.score(input_fn) == pytest.approx(nearest(POINTS, centers)[1].min(1).sum(), rel=1e-4)
    assert tf.train.load_variable(str(tmp_path), kmeans.CLUSTER_CENTERS_VAR_NAME).shape == (3, 2)


def test_cosine_distance_clusters_directions():
    angles = np.concatenate([RNG.normal(0.2, 0.05, 30), RNG.normal(2.0, 0.05, 30)])
    radii = RNG.uniform(1, 50, 60)
    points = np.stack([np.cos(angles), np.sin(angles)], 1) * radii[:, None]
    d, idx, _, _, _, step = factorization.KMeans(tf.constant(points), 2, distance_metric=factorization.COSINE_DISTANCE,
                                                 initial_clusters=np.array([[1.0, 0.0], [0.0, 1.0]])).training_graph()
    clusters = [v for v in tf.global_variables() if v.op.name == "clusters"][0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(step)
        centers, got = sess.run([clusters, idx[0]])
    np.testing.assert_allclose(np.linalg.norm(centers, axis=1), 1.0, rtol=1e-12)
    assert (got == np.repeat([0, 1], 30)).all()
    unit = points / np.linalg.norm(points, axis=1, keepdims=True)
    np.testing.assert_allclose(centers[0], unit[:30].mean(0) / np.linalg.norm(unit[:30].mean(0)), rtol=1e-9)
