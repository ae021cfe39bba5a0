"""Incomplete gamma/beta, Hurwitz zeta and polygamma against closed forms and direct sums."""

import math

import numpy as np

import distflow as tf
from conftest import assert_oracle, evaluate
from gradcheck import check_gradients

X = np.array([0.1, 0.7, 2.0, 5.5, 12.0])


def test_incomplete_gamma_against_closed_forms():
    assert_oracle(evaluate(tf.igamma(np.ones(5), X)), 1 - np.exp(-X), rtol=1e-12)
    assert_oracle(evaluate(tf.igamma(np.full(5, 0.5), X)), np.vectorize(math.erf)(np.sqrt(X)), rtol=1e-12)
    upper = np.exp(-X) * (1 + X + X ** 2 / 2)  # Q(3, x)
    assert_oracle(evaluate(tf.igammac(np.full(5, 3.0), X)), upper, rtol=1e-11)
    assert_oracle(evaluate(tf.igamma(np.float64(3.0), X) + tf.igammac(np.float64(3.0), X)), np.ones(5), rtol=1e-12)
    assert np.isnan(evaluate(tf.igamma(-1.0, 2.0)))
    check_gradients(lambda x: tf.igamma(2.5, x), [X])
    check_gradients(lambda x: tf.igammac(0.8, x), [X])


def test_incomplete_beta_against_polynomials():
    x = np.array([0.05, 0.3, 0.5, 0.8, 0.99])
    assert_oracle(evaluate(tf.betainc(np.full(5, 2.5), np.ones(5), x)), x ** 2.5, rtol=1e-12)
    assert_oracle(evaluate(tf.betainc(np.float64(1.0), np.float64(4.0), x)), 1 - (1 - x) ** 4, rtol=1e-12)
    want = sum(math.comb(4, j) * x ** j * (1 - x) ** (4 - j) for j in range(2, 5))  # I_x(2, 3)
    assert_oracle(evaluate(tf.betainc(np.float64(2.0), np.float64(3.0), x)), want, rtol=1e-12)
    check_gradients(lambda t: tf.betainc(2.0, 3.5, t), [x[1:4]])


def test_zeta_and_polygamma():
    assert evaluate(tf.zeta(2.0, 1.0)) == np.float32(math.pi ** 2 / 6)
    assert_oracle(evaluate(tf.zeta(np.array([4.0]), np.array([1.0]))), np.array([math.pi ** 4 / 90]), rtol=1e-13)
    q = np.array([0.3, 1.0, 2.5, 10.0])
    k = np.arange(200000.0)
    direct = np.array([np.sum((v + k) ** -3.5) + (v + 200000) ** -2.5 / 2.5 for v in q])
    assert_oracle(evaluate(tf.zeta(np.full(4, 3.5), q)), direct, rtol=1e-12)
    assert np.isinf(evaluate(tf.zeta(1.0, 2.0)))
    assert_oracle(evaluate(tf.polygamma(np.array([1.0, 1.0]), np.array([1.0, 0.5]))),
                  np.array([math.pi ** 2 / 6, math.pi ** 2 / 2]), rtol=1e-12)
    assert_oracle(evaluate(tf.polygamma(np.array([0.0]), np.array([1.0]))), np.array([-0.5772156649015329]),
                  rtol=1e-10)
    check_gradients(lambda t: tf.zeta(3.0, t), [q])
    check_gradients(lambda t: tf.polygamma(1.0, t), [q + 0.5])
