"""tf.contrib.losses (TF 1.0-1.2's losses: predictions first, contrib's weighting) against NumPy."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(61)
P, Y = RNG.random((4, 3)), RNG.random((4, 3))


def _eval(t):
    with tf.Session() as sess:
        return sess.run(t)


def test_a_batch_weight_covers_the_losses_of_its_row_and_zero_weights_do_not_count():
    weights = np.array([1.0, 0.0, 2.0, 1.0])
    with tf.Graph().as_default():
        got = _eval(tf.contrib.losses.mean_squared_error(P, Y, weights=weights))
        assert len(tf.get_collection(tf.GraphKeys.LOSSES)) == 1
    want = np.sum(((P - Y) ** 2).sum(1) * weights) / (3 * 3)  # (three rows of three losses have weight)
    assert got == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("name,fn", [
    ("absolute_difference", lambda p, y: np.abs(p - y)),
    ("mean_squared_error", lambda p, y: (p - y) ** 2),
    ("log_loss", lambda p, y: -y * np.log(p + 1e-7) - (1 - y) * np.log(1 - p + 1e-7)),
])
def test_the_elementwise_losses_with_a_scalar_weight(name, fn):
    with tf.Graph().as_default():
        got = _eval(getattr(tf.contrib.losses, name)(P, Y, weights=2.0))
        zero = _eval(getattr(tf.contrib.losses, name)(P, Y, weights=0.0))
    assert got == pytest.approx(2.0 * fn(P, Y).mean(), rel=1e-5)
    assert zero == 0.0


def test_the_cross_entropies_take_the_logits_first():
    logits, classes = RNG.standard_normal((5, 4)), RNG.integers(0, 4, 5)
    onehot = np.eye(4)[classes]
    log_softmax = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    with tf.Graph().as_default():
        dense = _eval(tf.contrib.losses.softmax_cross_entropy(logits, onehot))
        smoothed = _eval(tf.contrib.losses.softmax_cross_entropy(logits, onehot, label_smoothing=0.2))
        sparse = _eval(tf.contrib.losses.sparse_softmax_cross_entropy(logits, classes[:, None]))
        sig = _eval(tf.contrib.losses.sigmoid_cross_entropy(logits, onehot, label_smoothing=0.1))
        total = _eval(tf.contrib.losses.get_total_loss(add_regularization_losses=False))
    assert dense == pytest.approx(-log_softmax[np.arange(5), classes].mean(), rel=1e-6)
    assert sparse == pytest.approx(dense, rel=1e-6)
    assert smoothed == pytest.approx(-((onehot * 0.8 + 0.05) * log_softmax).sum(1).mean(), rel=1e-6)
    z = onehot * 0.9 + 0.05
    assert sig == pytest.approx(np.mean(np.maximum(logits, 0) - logits * z + np.log1p(np.exp(-np.abs(logits)))),
                                rel=1e-6)
    assert total == pytest.approx(dense + smoothed + sparse + sig, rel=1e-6)


def test_cosine_distance_and_the_unreduced_hinge_loss():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    a, b = a / np.linalg.norm(a, axis=1, keepdims=True), b / np.linalg.norm(b, axis=1, keepdims=True)
    logits, labels = RNG.standard_normal((3, 2)), RNG.integers(0, 2, (3, 2)).astype(np.float64)
    with tf.Graph().as_default():
        cosine = _eval(tf.contrib.losses.cosine_distance(a, b, axis=1))
        hinge = _eval(tf.contrib.losses.hinge_loss(logits, labels))
        assert len(tf.contrib.losses.get_losses()) == 1  # (the hinge loss is not collected)
    assert cosine == pytest.approx(np.mean(1 - (a * b).sum(1)), rel=1e-6)
    np.testing.assert_allclose(hinge, np.maximum(0, 1 - (2 * labels - 1) * logits), rtol=1e-6)


def test_mean_pairwise_squared_error_sums_each_examples_pair_mean():
    p, y, w = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)), np.array([1.0, 0.0, 2.0])
    with tf.Graph().as_default():
        got = _eval(tf.contrib.losses.mean_pairwise_squared_error(p, y, weights=w))
        scalar = _eval(tf.contrib.losses.mean_pairwise_squared_error(p, y))
    d = p - y
    pair_means = [np.mean((d[b][:, None] - d[b][None, :]) ** 2) for b in range(3)]  # (over all n^2 pairs)
    assert got == pytest.approx(np.sum(np.array(pair_means) * w), rel=1e-5)
    assert scalar == pytest.approx(np.sum(pair_means), rel=1e-5)


def test_a_loss_is_named_value_and_add_loss_takes_its_collection_from_an_arg_scope():
    logits = tf.constant([[10.0, 0.0, 0.0], [0.0, 10.0, 0.0], [0.0, 0.0, 10.0]])
    weights = tf.placeholder(tf.float32, [None])  # (a length known only when run)
    loss = tf.contrib.losses.sparse_softmax_cross_entropy(logits, tf.constant([2, 0, 1]), weights)
    assert loss.op.name == "sparse_softmax_cross_entropy_loss/value"
    with tf.Session() as sess:
        assert sess.run(loss, {weights: [2.3, 2.4, 2.5]}) == pytest.approx(2.4 * 10.0, rel=1e-3)
    assert tf.contrib.losses.get_losses() == [loss]
    with tf.contrib.framework.arg_scope([tf.contrib.losses.add_loss], loss_collection=None):
        tf.contrib.losses.absolute_difference(tf.ones([2]), tf.zeros([2]))
    assert tf.contrib.losses.get_losses() == [loss]
    with pytest.raises(ValueError, match="more dimensions than the losses"):
        tf.contrib.losses.sparse_softmax_cross_entropy(logits, tf.constant([[0], [1], [2]]), tf.ones([3, 3]))
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 4 elements to shape"):
        tf.contrib.losses.sparse_softmax_cross_entropy(tf.zeros([4, 4]), tf.constant([[0, 1], [2, 3]]))
