"""tf.contrib.sparsemax: the projection onto the simplex and its loss, against NumPy and
central differences."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(0)


def numpy_sparsemax(z):
    """The projection of each row onto the simplex, written the obvious way: try every
    support size k of the sorted row, keep the largest that satisfies the condition."""
    out = np.zeros_like(z)
    for r, row in enumerate(z):
        ordered = np.sort(row)[::-1]
        k = max(k for k in range(1, len(row) + 1) if 1 + k * ordered[k - 1] > ordered[:k].sum())
        tau = (ordered[:k].sum() - 1) / k
        out[r] = np.maximum(row - tau, 0)
    return out


def numpy_loss(z, q):
    s = numpy_sparsemax(z)
    tau = [(row[p > 0].sum() - 1) / (p > 0).sum() for row, p in zip(z, s)]
    return np.array([-qr @ zr + 0.5 * np.sum(zr[p > 0] ** 2 - t ** 2) + 0.5 * qr @ qr
                     for zr, qr, p, t in zip(z, q, s, tau)])


def test_sparsemax_is_numpys_projection_and_its_loss_numpys_formula():
    z = RNG.standard_normal((6, 7)) * 3
    z[0] = [5, 0, 0, 0, 0, 0, 0]  # one class takes it all
    z[1] = 1.0  # a tie: uniform
    q = np.eye(7)[RNG.integers(0, 7, 6)]
    logits = tf.constant(z)
    s = tf.contrib.sparsemax.sparsemax(logits)
    loss = tf.contrib.sparsemax.sparsemax_loss(logits, s, q)
    with tf.Session() as sess:
        got, got_loss = sess.run([s, loss])
    np.testing.assert_allclose(got, numpy_sparsemax(z), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-12)
    assert got[0].tolist() == [1, 0, 0, 0, 0, 0, 0] and np.allclose(got[1], 1 / 7)
    assert (got == 0).any(axis=1)[2:].all()  # exact zeros, where softmax has none
    np.testing.assert_allclose(got_loss, numpy_loss(z, q), rtol=1e-10, atol=1e-12)
    assert (got_loss >= -1e-12).all()


def test_the_gradients_are_the_jacobian_and_sparsemax_less_the_labels():
    z = RNG.standard_normal((3, 5))
    w = RNG.standard_normal((3, 5))
    q = np.eye(5)[[1, 3, 0]]
    logits = tf.placeholder(tf.float64, [3, 5])
    s = tf.contrib.sparsemax.sparsemax(logits)
    weighted = tf.reduce_sum(s * w)
    loss = tf.reduce_sum(tf.contrib.sparsemax.sparsemax_loss(logits, tf.stop_gradient(s), q))
    grad, loss_grad = tf.gradients([weighted], logits)[0], tf.gradients(loss, logits)[0]
    with tf.Session() as sess:
        g, lg, sv = sess.run([grad, loss_grad, s], {logits: z})
        eps, numeric = 1e-6, np.zeros_like(z)
        for i in np.ndindex(z.shape):
            d = np.zeros_like(z)
            d[i] = eps
            numeric[i] = (sess.run(weighted, {logits: z + d}) - sess.run(weighted, {logits: z - d})) / (2 * eps)
    np.testing.assert_allclose(g, numeric, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(lg, sv - q, rtol=1e-10, atol=1e-12)


def test_sparsemax_wants_a_matrix_of_floats():
    with pytest.raises(ValueError, match=r"must be 2-D \[batch, classes\], got shape \(3,\)"):
        tf.contrib.sparsemax.sparsemax(tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="float16, float32 or float64, got int32"):
        tf.contrib.sparsemax.sparsemax(tf.constant([[1, 2]]))
