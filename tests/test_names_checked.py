"""Names of TF 1.x that distflow has and no other test calls by name, each checked against
NumPy written from TensorFlow's documented formula (losses and metrics with their default
reductions: the mean over the elements)."""

import math

import numpy as np
import pytest

import distflow as tf

rng = np.random.default_rng(0)


def run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        return sess.run(fetches, feed)


def metric(fn, *args, **kwargs):
    """A tf.metrics function's value after one update with ``args``."""
    value, update = fn(*args, **kwargs)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        sess.run(update)
        return sess.run(value)


LABELS = rng.random((6, 4)).astype(np.float32)
PREDICTIONS = rng.random((6, 4)).astype(np.float32)


@pytest.mark.parametrize("name,want", [
    ("absolute_difference", lambda l, p: np.abs(p - l).mean()),
    ("huber_loss", lambda l, p: np.mean(0.5 * np.minimum(np.abs(p - l), 1.0) ** 2
                                        + (np.abs(p - l) - np.minimum(np.abs(p - l), 1.0)))),
    ("log_loss", lambda l, p: np.mean(-l * np.log(p + 1e-7) - (1 - l) * np.log(1 - p + 1e-7))),
    ("hinge_loss", lambda l, p: np.mean(np.maximum(0.0, 1 - (2 * (l > 0.5) - 1) * p))),
])
def test_losses(name, want):
    labels = (LABELS > 0.5).astype(np.float32) if name == "hinge_loss" else LABELS
    got = run(getattr(tf.losses, name)(labels, PREDICTIONS))
    np.testing.assert_allclose(got, want(labels, PREDICTIONS), rtol=1e-5)


def test_compute_weighted_loss_and_its_reductions():
    losses = rng.random((3, 4)).astype(np.float32)
    weights = np.array([[1.0], [0.0], [2.0]], np.float32)
    mean = tf.losses.compute_weighted_loss(losses, weights)
    total = tf.losses.compute_weighted_loss(losses, weights, reduction=tf.losses.Reduction.SUM)
    none = tf.losses.compute_weighted_loss(losses, weights, reduction=tf.losses.Reduction.NONE)
    got = run([mean, total, none])
    weighted = losses * weights
    np.testing.assert_allclose(got[0], weighted.sum() / np.count_nonzero(np.broadcast_to(weights, losses.shape)),
                               rtol=1e-5)
    np.testing.assert_allclose(got[1], weighted.sum(), rtol=1e-5)
    np.testing.assert_allclose(got[2], weighted, rtol=1e-6)


def test_counting_metrics():
    labels = rng.random(20) > 0.5
    predictions = rng.random(20) > 0.5
    counts = {"true_positives": labels & predictions, "false_positives": ~labels & predictions,
              "false_negatives": labels & ~predictions, "true_negatives": ~labels & ~predictions}
    for name, want in counts.items():
        assert metric(getattr(tf.metrics, name), labels, predictions) == want.sum(), name


def test_error_metrics():
    mse = np.mean((LABELS - PREDICTIONS) ** 2)
    np.testing.assert_allclose(metric(tf.metrics.mean_squared_error, LABELS, PREDICTIONS), mse, rtol=1e-5)
    np.testing.assert_allclose(metric(tf.metrics.root_mean_squared_error, LABELS, PREDICTIONS), math.sqrt(mse),
                               rtol=1e-5)
    normalizer = LABELS + 0.5
    np.testing.assert_allclose(metric(tf.metrics.mean_relative_error, LABELS, PREDICTIONS, normalizer),
                               np.mean(np.abs(LABELS - PREDICTIONS) / normalizer), rtol=1e-5)
    np.testing.assert_allclose(metric(tf.metrics.percentage_below, PREDICTIONS, 0.3), np.mean(PREDICTIONS < 0.3),
                               rtol=1e-6)
    cosine = 1 - np.mean(np.sum(LABELS * PREDICTIONS, axis=1))
    np.testing.assert_allclose(metric(tf.metrics.mean_cosine_distance, LABELS, PREDICTIONS, dim=1), cosine,
                               rtol=1e-5)
    np.testing.assert_allclose(metric(tf.metrics.mean_tensor, PREDICTIONS), PREDICTIONS, rtol=1e-6)


def test_nn_functions():
    x = rng.standard_normal((5, 3)).astype(np.float32)
    w, b = rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(2).astype(np.float32)
    got = run([tf.nn.softsign(x), tf.nn.relu_layer(x, w, b), tf.nn.zero_fraction(tf.nn.relu(x)),
               tf.nn.log_poisson_loss(np.abs(x), x)])
    np.testing.assert_allclose(got[0], x / (1 + np.abs(x)), rtol=1e-6)
    np.testing.assert_allclose(got[1], np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], np.mean(np.maximum(x, 0) == 0), rtol=1e-6)
    np.testing.assert_allclose(got[3], np.exp(x) - x * np.abs(x), rtol=1e-5)


def test_moments_from_sufficient_statistics_and_weights():
    x = rng.standard_normal((6, 4)).astype(np.float32)
    count, mean_ss, var_ss, shift = tf.nn.sufficient_statistics(x, axes=[0])
    mean, variance = tf.nn.normalize_moments(count, mean_ss, var_ss, shift)
    weights = rng.random((6, 1)).astype(np.float32)
    w_mean, w_variance = tf.nn.weighted_moments(x, axes=[0], frequency_weights=weights)
    got = run([count, mean, variance, w_mean, w_variance])
    assert got[0] == 6
    np.testing.assert_allclose(got[1], x.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], x.var(0), rtol=1e-4, atol=1e-6)
    wm = (weights * x).sum(0) / weights.sum()
    np.testing.assert_allclose(got[3], wm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[4], (weights * (x - wm) ** 2).sum(0) / weights.sum(), rtol=1e-4, atol=1e-6)


def test_array_and_math_functions():
    x = rng.standard_normal((2, 2, 3, 8)).astype(np.float32)
    depth = x.reshape(2, 2, 3, 2, 2, 2).transpose(0, 1, 3, 2, 4, 5).reshape(2, 4, 6, 2)
    square = rng.standard_normal((4, 4)).astype(np.float32)
    a, b = np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])
    values = np.array([-1.0, 0.0, 1.5, 2.0, 5.0], np.float32)
    got = run([tf.depth_to_space(x, 2), tf.diag_part(square), tf.floor_div(a, b), tf.floormod(a, b),
               tf.is_non_decreasing([1, 1, 2]), tf.is_strictly_increasing([1, 1, 2]), tf.lin_space(0.0, 1.0, 5),
               tf.histogram_fixed_width_bins(values, [0.0, 5.0], nbins=5), tf.arg_max(square, 1),
               tf.arg_min(square, 0)])
    np.testing.assert_array_equal(got[0], depth)
    np.testing.assert_array_equal(got[1], np.diag(square))
    np.testing.assert_array_equal(got[2], np.floor_divide(a, b))
    np.testing.assert_array_equal(got[3], np.mod(a, b))
    assert got[4] and not got[5]
    np.testing.assert_allclose(got[6], np.linspace(0, 1, 5), rtol=1e-6)
    np.testing.assert_array_equal(got[7], np.clip(np.floor(values / 5.0 * 5), 0, 4).astype(np.int32))
    np.testing.assert_array_equal(got[8], square.argmax(1))
    np.testing.assert_array_equal(got[9], square.argmin(0))


def test_clip_by_average_norm_and_a_triangular_solve():
    t = rng.standard_normal((3, 4)).astype(np.float32) * 10
    lower = np.tril(rng.standard_normal((3, 3))).astype(np.float64) + 3 * np.eye(3)
    rhs = rng.standard_normal((3, 2))
    got = run([tf.clip_by_average_norm(t, 0.5), tf.matrix_triangular_solve(lower, rhs, lower=True)])
    average_norm = np.sqrt((t * t).sum()) / t.size
    np.testing.assert_allclose(got[0], t * 0.5 / max(average_norm, 0.5), rtol=1e-5)
    np.testing.assert_allclose(lower @ got[1], rhs, rtol=1e-10)


def test_learning_rate_decays():
    step = tf.placeholder(tf.int64, [])
    cosine = tf.train.cosine_decay(0.1, step, 100, alpha=0.2)
    natural = tf.train.natural_exp_decay(0.1, step, 10, 0.5)
    piecewise = tf.train.piecewise_constant_decay(step, [10, 20], [1.0, 0.5, 0.1])
    for s in (0, 15, 50, 150):
        got = run([cosine, natural, piecewise], {step: s})
        decayed = 0.5 * (1 + math.cos(math.pi * min(s, 100) / 100))
        np.testing.assert_allclose(got[0], 0.1 * ((1 - 0.2) * decayed + 0.2), rtol=1e-5)
        np.testing.assert_allclose(got[1], 0.1 * math.exp(-0.5 * s / 10), rtol=1e-5)
        assert got[2] == pytest.approx(1.0 if s <= 10 else 0.5 if s <= 20 else 0.1)


@pytest.mark.parametrize("make,passing,failing", [
    (lambda x: tf.assert_negative(x), [-1.0], [1.0]),
    (lambda x: tf.assert_non_negative(x), [0.0], [-1.0]),
    (lambda x: tf.assert_non_positive(x), [0.0], [1.0]),
    (lambda x: tf.assert_less(x, 2.0), [1.0], [3.0]),
    (lambda x: tf.assert_less_equal(x, 2.0), [2.0], [3.0]),
    (lambda x: tf.assert_greater(x, 0.0), [1.0], [0.0]),
    (lambda x: tf.assert_greater_equal(x, 0.0), [0.0], [-1.0]),
    (lambda x: tf.assert_none_equal(x, 1.0), [2.0], [1.0]),
    (lambda x: tf.assert_near(x, 1.0, atol=0.1), [1.05], [1.5]),
])
def test_assertions_fail_at_run_time(make, passing, failing):
    x = tf.placeholder(tf.float32, [1])
    check = make(x)
    with tf.Session() as sess:
        sess.run(check, {x: passing})
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(check, {x: failing})


def test_fourier_transforms_match_numpy():
    x = (rng.standard_normal((2, 4, 6)) + 1j * rng.standard_normal((2, 4, 6))).astype(np.complex64)
    got = run([tf.fft2d(x), tf.ifft(x), tf.fft3d(x), tf.ifft3d(x)])
    np.testing.assert_allclose(got[0], np.fft.fft2(x), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[1], np.fft.ifft(x), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[2], np.fft.fftn(x), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[3], np.fft.ifftn(x), rtol=1e-4, atol=1e-5)


def test_layer_classes_compute_what_their_functions_do():
    x1, x2, x3 = (rng.standard_normal(s).astype(np.float32) for s in ((2, 9, 3), (2, 8, 8, 3), (2, 6, 6, 6, 2)))
    pairs = []
    for i, (cls, fn, x, args) in enumerate([
            (tf.layers.Conv1D, tf.layers.conv1d, x1, (4, 3)), (tf.layers.Conv3D, tf.layers.conv3d, x3, (2, 3)),
            (tf.layers.Conv2DTranspose, tf.layers.conv2d_transpose, x2, (2, 3)),
            (tf.layers.SeparableConv2D, tf.layers.separable_conv2d, x2, (4, 3))]):
        layer = cls(*args, kernel_initializer=tf.ones_initializer(), name=f"class{i}")
        out_fn = fn(x, *args, kernel_initializer=tf.ones_initializer(), name=f"function{i}") \
            if cls is not tf.layers.SeparableConv2D else \
            fn(x, *args, depthwise_initializer=tf.ones_initializer(), pointwise_initializer=tf.ones_initializer(),
               name=f"function{i}")
        if cls is tf.layers.SeparableConv2D:
            layer = cls(*args, depthwise_initializer=tf.ones_initializer(),
                        pointwise_initializer=tf.ones_initializer(), name=f"class{i}")
        pairs.append((layer(x), out_fn))
    for i, (cls, fn, x) in enumerate([(tf.layers.AveragePooling1D, tf.layers.average_pooling1d, x1),
                                      (tf.layers.AveragePooling2D, tf.layers.average_pooling2d, x2),
                                      (tf.layers.AveragePooling3D, tf.layers.average_pooling3d, x3),
                                      (tf.layers.MaxPooling1D, tf.layers.max_pooling1d, x1),
                                      (tf.layers.MaxPooling3D, tf.layers.max_pooling3d, x3)]):
        pairs.append((cls(2, 2)(x), fn(x, 2, 2)))
    pairs.append((tf.layers.Dropout(0.5)(x1, training=False), tf.identity(x1)))
    got = run(pairs)
    for k, (a, b) in enumerate(got):
        assert a.shape == b.shape, k
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=str(k))
    np.testing.assert_allclose(got[-1][0], x1)
    # the pools against NumPy: 2-wide, stride 2 windows of the first axis
    np.testing.assert_allclose(got[4][0], x1[:, :8].reshape(2, 4, 2, 3).mean(2), rtol=1e-5)
    np.testing.assert_allclose(got[7][0], x1[:, :8].reshape(2, 4, 2, 3).max(2), rtol=1e-6)


def test_metrics_at_thresholds_and_at_k():
    labels = rng.random(30) > 0.5
    predictions = rng.random(30).astype(np.float32)
    thresholds = [0.25, 0.5, 0.75]
    above = predictions[None, :] > np.array(thresholds)[:, None]
    want = {"true_positives_at_thresholds": (above & labels).sum(1),
            "false_positives_at_thresholds": (above & ~labels).sum(1),
            "false_negatives_at_thresholds": (~above & labels).sum(1),
            "true_negatives_at_thresholds": (~above & ~labels).sum(1)}
    for name, counts in want.items():
        np.testing.assert_array_equal(metric(getattr(tf.metrics, name), labels, predictions, thresholds), counts,
                                      err_msg=name)
    tp, fn = want["true_positives_at_thresholds"], want["false_negatives_at_thresholds"]
    np.testing.assert_allclose(metric(tf.metrics.recall_at_thresholds, labels, predictions, thresholds),
                               tp / (tp + fn + 1e-7), rtol=1e-5)
    logits = rng.standard_normal((8, 5)).astype(np.float32)
    classes = rng.integers(0, 5, 8).astype(np.int64)
    top = np.argsort(-logits, axis=1)[:, :2]
    hits = (top == classes[:, None]).sum()
    np.testing.assert_allclose(metric(tf.metrics.precision_at_k, classes, logits, 2), hits / (2 * 8), rtol=1e-6)


def test_dataset_structure_helpers_and_an_initializable_iterator():
    dataset = tf.data.Dataset.from_tensor_slices((np.arange(6, dtype=np.float32).reshape(3, 2),
                                                  np.arange(3, dtype=np.int64)))
    shapes, types = tf.data.get_output_shapes(dataset), tf.data.get_output_types(dataset)
    assert [s.as_list() for s in shapes] == [[2], []] and list(types) == [tf.float32, tf.int64]
    iterator = tf.data.make_initializable_iterator(dataset)
    first = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        x, y = sess.run(first)
        np.testing.assert_array_equal(x, [0.0, 1.0])
        assert y == 0


def test_static_rnn_computes_what_dynamic_rnn_does():
    x = rng.standard_normal((3, 4, 2)).astype(np.float32)
    with tf.variable_scope("rnn", initializer=tf.constant_initializer(0.1)):
        cell = tf.nn.rnn_cell.BasicLSTMCell(5)
        static, _ = tf.nn.static_rnn(cell, tf.unstack(tf.constant(x), axis=1), dtype=tf.float32)
    with tf.variable_scope("rnn2", initializer=tf.constant_initializer(0.1)):
        dynamic, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
    got_static, got_dynamic = run([tf.stack(static, axis=1), dynamic])
    np.testing.assert_allclose(got_static, got_dynamic, rtol=1e-5, atol=1e-6)


def test_space_to_batch_and_depth_to_space_round_trips():
    x = rng.standard_normal((1, 4, 4, 3)).astype(np.float32)
    batched = tf.nn.space_to_batch(x, [[0, 0], [0, 0]], block_size=2)
    back = tf.batch_to_space(batched, [[0, 0], [0, 0]], block_size=2)
    depth = tf.space_to_depth(x, 2)
    got = run([batched, back, tf.depth_to_space(depth, 2)])
    assert got[0].shape == (4, 2, 2, 3)
    np.testing.assert_array_equal(got[0][1], x[0, 0::2, 1::2])  # (the block offset (0, 1) of each 2x2 block)
    np.testing.assert_array_equal(got[1], x)
    np.testing.assert_array_equal(got[2], x)
