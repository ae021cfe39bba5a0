"""tf.contrib.nn: nth_element (against NumPy's sort, and its gradient by central differences),
alpha_dropout's kept moments, scaled_softplus, the sampled softmax losses for one true class
and with rank resampling, and the cross-entropies with flipped arguments; tf.sparse.cross."""

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

nn = tf.contrib.nn


def test_nth_element_is_the_nth_of_the_sorted_last_axis():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 7)).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        n = tf.placeholder(tf.int32, [])
        low, high = nn.nth_element(x, n), nn.nth_element(x, n, reverse=True)
        assert low.shape.as_list() == [3, 4]
        for k in range(7):
            got_low, got_high = sess.run([low, high], {n: k})
            np.testing.assert_array_equal(got_low, np.sort(x, -1)[..., k])
            np.testing.assert_array_equal(got_high, np.sort(x, -1)[..., 6 - k])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"at least n\+1 columns"):
            sess.run(low, {n: 7})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Need n >= 0, got -1"):
            sess.run(low, {n: -1})
    with pytest.raises(ValueError, match="at least rank 1 but is rank 0"):
        nn.nth_element(5.0, 0)
    with pytest.raises(ValueError, match="last dimension > n = 2"):
        nn.nth_element([[0.1, 0.2]], 2)
    with pytest.raises(ValueError, match="scalar but has rank 1"):
        nn.nth_element([5.0, 6.0], [1])


def test_nth_elements_gradient_goes_to_the_chosen_entry_shared_among_ties():
    x = np.random.default_rng(1).standard_normal((4, 6))
    check_gradients(lambda t: nn.nth_element(t, 2), [x])
    check_gradients(lambda t: nn.nth_element(t, 1, reverse=True), [x])
    with tf.Graph().as_default(), tf.Session() as sess:
        t = tf.constant([[2.0, 2.0, 5.0], [1.0, 3.0, 2.0]])
        grad, = tf.gradients(nn.nth_element(t, 0), t, grad_ys=[[4.0, -1.0]])
        np.testing.assert_allclose(sess.run(grad), [[2.0, 2.0, 0.0], [-1.0, 0.0, 0.0]])


def test_alpha_dropout_keeps_zero_mean_and_unit_variance():
    x = np.random.default_rng(2).standard_normal(200_000).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        out = sess.run(nn.alpha_dropout(x, 0.8, seed=3))
        assert abs(out.mean()) < 0.01 and abs(out.std() - 1.0) < 0.01
        alpha, keep = -1.7580993408473766, 0.8
        a = (keep + keep * (1 - keep) * alpha ** 2) ** -0.5
        dropped = np.isclose(out, a * alpha * keep, rtol=1e-5)  # (a dropped unit: a * alpha + b)
        assert 0.19 < dropped.mean() < 0.21
        assert nn.alpha_dropout(x, 1.0) is not None
    with pytest.raises(ValueError, match=r"range \(0, 1\]"):
        nn.alpha_dropout(x, 1.5)


def test_scaled_softplus_and_its_gradients():
    x = np.linspace(-3, 3, 13)
    expected = 0.5 * np.log1p(np.exp(x / 0.5))
    with tf.Graph().as_default(), tf.Session() as sess:
        np.testing.assert_allclose(sess.run(nn.scaled_softplus(x, 0.5)), expected, rtol=1e-12)
        np.testing.assert_allclose(sess.run(nn.scaled_softplus(x, 0.5, clip=1.0)), np.minimum(expected, 1.0),
                                   rtol=1e-12)
    alpha = np.array([0.3, 0.7])
    check_gradients(lambda t, a: nn.scaled_softplus(t, a, clip=1.5), [x.reshape(-1, 1) + 0.01, alpha])


def _sampling_problem(num_classes=12, dim=5, batch=4, num_sampled=6):
    rng = np.random.default_rng(4)
    weights = rng.standard_normal((num_classes, dim))
    biases = rng.standard_normal(num_classes)
    inputs = rng.standard_normal((batch, dim))
    labels = rng.integers(0, num_classes, (batch, 1))
    sampled = rng.choice(num_classes, num_sampled, replace=False)
    expected = (np.full((batch, 1), 0.4), np.full(num_sampled, 0.3))
    return weights, biases, inputs, labels, sampled, expected


def _sampled_softmax_numpy(weights, biases, inputs, labels, sampled, true_expected, sampled_expected):
    true_logits = np.sum(inputs * weights[labels[:, 0]], 1) + biases[labels[:, 0]] - np.log(true_expected[:, 0])
    sampled_logits = inputs @ weights[sampled].T + biases[sampled] - np.log(sampled_expected)
    sampled_logits = np.where(labels == sampled[None, :], sampled_logits - 1e9, sampled_logits)
    logits = np.concatenate([true_logits[:, None], sampled_logits], 1)
    top = logits.max(1, keepdims=True)
    return np.log(np.exp(logits - top).sum(1)) + top[:, 0] - logits[:, 0]


def test_sampled_sparse_softmax_loss_is_the_cross_entropy_over_the_true_and_sampled_classes():
    weights, biases, inputs, labels, sampled, expected = _sampling_problem()
    with tf.Graph().as_default(), tf.Session() as sess:
        loss = nn.sampled_sparse_softmax_loss(weights, biases, labels, inputs, len(sampled), len(weights),
                                              sampled_values=(sampled, *expected))
        np.testing.assert_allclose(sess.run(loss), _sampled_softmax_numpy(weights, biases, inputs, labels, sampled,
                                                                          *expected), rtol=1e-10)


def test_rank_sampled_softmax_loss_keeps_the_candidates_scoring_highest_over_the_batch():
    weights, biases, inputs, labels, sampled, expected = _sampling_problem()
    temperature = 0.7
    scores = np.log(np.exp(weights[sampled] @ (inputs / temperature).T).sum(1)) + biases[sampled] / temperature
    kept = np.argsort(-scores)[:3]
    oracle = _sampled_softmax_numpy(weights, biases, inputs, labels, sampled[kept], expected[0], expected[1][kept])
    with tf.Graph().as_default(), tf.Session() as sess:
        loss = nn.rank_sampled_softmax_loss(weights, biases, labels, inputs, len(sampled), 3, len(weights), 1,
                                            (sampled, *expected), temperature, True, "div")
        np.testing.assert_allclose(sess.run(loss), oracle, rtol=1e-10)
    with pytest.raises(ValueError, match="must be less than num_sampled"):
        nn.rank_sampled_softmax_loss(weights, biases, labels, inputs, 3, 3, 12, 1, None, 1.0, True, "div")


def test_the_flipped_cross_entropies_take_logits_first():
    logits = np.array([[1.0, 2.0, 0.5]])
    with tf.Graph().as_default(), tf.Session() as sess:
        flipped = nn.deprecated_flipped_sparse_softmax_cross_entropy_with_logits(logits, [1])
        plain = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1], logits=logits)
        sigmoid = nn.deprecated_flipped_sigmoid_cross_entropy_with_logits(logits, np.ones_like(logits))
        np.testing.assert_allclose(sess.run(flipped), sess.run(plain))
        np.testing.assert_allclose(sess.run(sigmoid), np.log1p(np.exp(-logits)))


def test_sparse_cross_joins_every_combination_as_strings():
    with tf.Graph().as_default(), tf.Session() as sess:
        first = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], [b"a", b"b", b"c"], [2, 2])
        crossed = sess.run(tf.sparse.cross([first, tf.constant([[7], [8]], tf.int64)]))
        assert crossed.values.tolist() == [b"a_X_7", b"b_X_8", b"c_X_8"]
        assert crossed.indices.tolist() == [[0, 0], [1, 0], [1, 1]] and crossed.dense_shape.tolist() == [2, 2]
        # 0 buckets: the hash modulo 2**63 - 1, as TF's kernel (TF's own test's value)
        hashed = tf.sparse.cross_hashed([tf.SparseTensor([[0, 0]], [b"batch1-FC%d-F1" % i], [1, 1])
                                         for i in (1, 2, 3)])
        assert sess.run(hashed).values.tolist() == [1971693436396284976]
