"""The tf.math, tf.linalg, tf.random and tf.initializers names of TF 1.13-1.15 against NumPy;
the gradients of the no-nan products by float64 central differences."""

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

RNG = np.random.RandomState(9)


def _run(*fetches):
    with tf.Session() as sess:
        return sess.run(list(fetches))


def test_no_nan_products_and_quotients():
    x = np.array([0.0, 2.0, -1.5, 0.0])
    y = np.array([0.0, 3.0, 0.5, np.inf])
    got = _run(tf.math.xlogy(x, y), tf.math.xdivy(x, y), tf.math.xlog1py(x, y), tf.math.multiply_no_nan(y, x),
               tf.math.reciprocal_no_nan(x), tf.math.divide_no_nan(y, x))
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_allclose(got[0], np.where(x == 0, 0, x * np.log(y)))
        np.testing.assert_allclose(got[1], np.where(x == 0, 0, x / y))
        np.testing.assert_allclose(got[2], np.where(x == 0, 0, x * np.log1p(y)))
        np.testing.assert_allclose(got[3], np.where(x == 0, 0, y * x))
        np.testing.assert_allclose(got[4], np.where(x == 0, 0, 1 / np.where(x == 0, 1, x)))
        np.testing.assert_allclose(got[5], np.where(x == 0, 0, y / np.where(x == 0, 1, x)))
    check_gradients(lambda a, b: tf.math.xlogy(a, b) + tf.math.xdivy(a, b) + tf.math.xlog1py(a, b),
                    [RNG.rand(3, 2) + 0.5, RNG.rand(3, 2) + 0.5])


def test_reductions_cumulative_logsumexp_and_polyval():
    x = RNG.randn(3, 4)
    got = _run(tf.math.reduce_std(x, 1), tf.math.reduce_variance(x, 0, keepdims=True),
               tf.math.reduce_euclidean_norm(x), tf.math.cumulative_logsumexp(x, axis=1),
               tf.math.cumulative_logsumexp(x, axis=1, exclusive=True, reverse=True),
               tf.math.polyval([2.0, -1.0, 3.0], tf.constant(x)))
    np.testing.assert_allclose(got[0], x.std(1))
    np.testing.assert_allclose(got[1], x.var(0, keepdims=True))
    np.testing.assert_allclose(got[2], np.sqrt((x ** 2).sum()))
    np.testing.assert_allclose(got[3], np.log(np.cumsum(np.exp(x), 1)))
    with np.errstate(divide="ignore"):  # (nothing after the last: log 0)
        reverse_exclusive = np.log(np.concatenate([np.cumsum(np.exp(x[:, ::-1]), 1)[:, :-1][:, ::-1],
                                                   np.zeros((3, 1))], 1))
    np.testing.assert_allclose(got[4], reverse_exclusive)
    np.testing.assert_allclose(got[5], 2 * x ** 2 - x + 3)


def test_linear_algebra_additions():
    a = RNG.randn(4, 3)
    spd = a.T @ a + np.eye(3)
    v = RNG.randn(3)
    got = _run(tf.linalg.pinv(a), tf.linalg.matrix_rank(np.outer(v, v)), tf.linalg.logdet(spd), *tf.linalg.slogdet(-spd),
               tf.linalg.matvec(a, v), tf.linalg.adjoint(a), *tf.linalg.normalize(v))
    np.testing.assert_allclose(got[0], np.linalg.pinv(a), atol=1e-10)
    assert got[1] == 1
    np.testing.assert_allclose(got[2], np.linalg.slogdet(spd)[1])
    sign, logabs = np.linalg.slogdet(-spd)
    assert got[3] == sign and got[4] == pytest.approx(logabs)
    np.testing.assert_allclose(got[5], a @ v)
    np.testing.assert_array_equal(got[6], a.T)
    np.testing.assert_allclose(got[7], v / np.linalg.norm(v))
    assert got[8] == pytest.approx(np.linalg.norm(v))


def test_random_categorical_and_the_initializer_presets():
    draws = _run(tf.random.categorical(np.log([[0.1, 0.9], [0.8, 0.2]]), 4000, seed=1))[0]
    assert draws.shape == (2, 4000) and draws.dtype == np.int64
    assert abs(draws[0].mean() - 0.9) < 0.03 and abs(draws[1].mean() - 0.2) < 0.03
    fan_in = 200
    he = tf.get_variable("he", [fan_in, 300], initializer=tf.initializers.he_uniform(seed=2))
    lecun = tf.get_variable("lecun", [fan_in, 300], initializer=tf.initializers.lecun_normal(seed=3))
    eye = tf.get_variable("eye", [3, 4], initializer=tf.initializers.identity(2.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        he_v, lecun_v, eye_v = sess.run([he, lecun, eye])
    limit = np.sqrt(6.0 / fan_in)
    assert he_v.max() <= limit and he_v.min() >= -limit and abs(he_v.std() - limit / np.sqrt(3)) < 0.02 * limit
    assert abs(lecun_v.std() - np.sqrt(1.0 / fan_in)) < 0.03 * np.sqrt(1.0 / fan_in)
    np.testing.assert_array_equal(eye_v, 2.0 * np.eye(3, 4))
