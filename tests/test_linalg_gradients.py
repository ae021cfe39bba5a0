"""Gradients of the matrix decompositions and triangular solves, by float64 central
differences (first and second order), and the shapes their ops declare."""

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

R = np.random.RandomState(0)
SQUARE = R.randn(2, 3, 3) + 3 * np.eye(3)
TALL = R.randn(2, 4, 3)
WIDE = R.randn(2, 3, 5)


def _gram(a):
    return a @ tf.linalg.matrix_transpose(a)


def _flat(*tensors):
    """One [batch, -1] tensor of several (sign-fixed where a factor's sign is free)."""
    return tf.concat([tf.reshape(t, [2, -1]) for t in tensors], -1)


def _sign_free(m):
    """Columns times their first entry: unchanged when a column flips sign (as singular
    and eigenvectors may)."""
    return m * m[..., :1, :]


CASES = {
    "cholesky": (lambda a: tf.linalg.cholesky(_gram(a)), [SQUARE]),
    "triangular_solve lower": (lambda a, b: tf.linalg.triangular_solve(a, b), [SQUARE, TALL[:, :3]]),
    "triangular_solve upper adjoint": (lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True),
                                       [SQUARE, TALL[:, :3]]),
    "cholesky_solve": (lambda a, b: tf.linalg.cholesky_solve(tf.linalg.cholesky(_gram(a)), b), [SQUARE, TALL[:, :3]]),
    "logdet": (lambda a: tf.linalg.logdet(_gram(a)), [SQUARE]),
    "qr square": (lambda a: _flat(*tf.linalg.qr(a)), [SQUARE]),
    "qr tall": (lambda a: _flat(*tf.linalg.qr(a)), [TALL]),
    "svd values tall": (lambda a: tf.linalg.svd(a, compute_uv=False), [TALL]),
    "svd values wide": (lambda a: tf.linalg.svd(a, compute_uv=False), [WIDE]),
    "svd tall": (lambda a: (lambda s, u, v: _flat(s, _sign_free(u), _sign_free(v)))(*tf.linalg.svd(a)), [TALL]),
    "svd wide": (lambda a: (lambda s, u, v: _flat(s, _sign_free(u), _sign_free(v)))(*tf.linalg.svd(a)), [WIDE]),
    "eigvalsh": (lambda a: tf.linalg.eigvalsh(a), [SQUARE]),
    "eigh": (lambda a: (lambda e, v: _flat(e, _sign_free(v)))(*tf.linalg.eigh(a)), [SQUARE]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_order(name):
    build, inputs = CASES[name]
    check_gradients(build, inputs, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", ["cholesky", "triangular_solve lower", "qr tall", "svd values tall", "svd tall", "eigvalsh", "eigh"])
def test_second_order(name):
    build, inputs = CASES[name]
    check_gradients(build, inputs, order=2, rtol=1e-4, atol=1e-6)


def test_eigh_reads_the_lower_triangle():
    """The kernel reads the lower triangle only: the gradient of the upper one is zero."""
    a = tf.constant(SQUARE[0])
    g = tf.gradients(tf.reduce_sum(tf.linalg.eigvalsh(a) ** 2), a)[0]
    with tf.Session() as sess:
        value = sess.run(g)
    assert np.all(np.triu(value, 1) == 0)
    w, v = np.linalg.eigh(SQUARE[0])
    full = v @ np.diag(2 * w) @ v.T  # (the gradient with respect to a symmetric matrix)
    np.testing.assert_allclose(value, np.tril(full + full.T) - np.diag(np.diag(full)), rtol=1e-10)


def test_decomposition_shapes_are_static():
    s, u, v = tf.linalg.svd(tf.zeros([2, 4, 3]))
    assert (s.shape.as_list(), u.shape.as_list(), v.shape.as_list()) == ([2, 3], [2, 4, 3], [2, 3, 3])
    s, u, v = tf.linalg.svd(tf.zeros([5, 2]), full_matrices=True)
    assert (s.shape.as_list(), u.shape.as_list(), v.shape.as_list()) == ([2], [5, 5], [2, 2])
    e, v = tf.linalg.eigh(tf.zeros([3, 4, 4]))
    assert (e.shape.as_list(), v.shape.as_list()) == ([3, 4], [3, 4, 4])
    assert tf.linalg.eigvalsh(tf.zeros([4, 4])).shape.as_list() == [4]
    assert tf.linalg.svd(tf.zeros([4, 2]), compute_uv=False).shape.as_list() == [2]


def test_values_without_vectors_match_numpy():
    with tf.Session() as sess:
        s, e = sess.run([tf.linalg.svd(TALL, compute_uv=False), tf.linalg.eigvalsh(_gram(SQUARE))])
    np.testing.assert_allclose(s, np.linalg.svd(TALL, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(e, np.linalg.eigvalsh(SQUARE @ np.swapaxes(SQUARE, 1, 2)), rtol=1e-12)


def test_wide_qr_gradient_is_refused_by_name():
    x = tf.constant(WIDE)
    with pytest.raises(NotImplementedError, match="Qr .*at least as many rows"):
        tf.gradients(tf.reduce_sum(tf.linalg.qr(x)[1]), x)


def test_matmul_of_unknown_rank_multiplies_batches():
    """A product of tensors whose rank the graph does not know is a batched product."""
    a = tf.placeholder(tf.float64)
    b = tf.placeholder(tf.float64)
    with tf.Session() as sess:
        got = sess.run(tf.matmul(a, b, transpose_b=True), {a: TALL, b: TALL})
        flat = sess.run(tf.matmul(a, b, transpose_a=True), {a: TALL[0], b: TALL[0]})
    np.testing.assert_allclose(got, TALL @ np.swapaxes(TALL, 1, 2), rtol=1e-12)
    np.testing.assert_allclose(flat, TALL[0].T @ TALL[0], rtol=1e-12)
