"""tf.linalg.expm against its Taylor series and, for symmetric matrices, eigenvalues; its
gradient by float64 central differences; the LU factorization and its solvers against the
definitions and NumPy's solve and inverse."""

import math

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

RNG = np.random.default_rng(6)


def _run(*fetches):
    with tf.Session() as sess:
        return sess.run(list(fetches))


def _taylor(a, terms=60):
    out, term = np.eye(a.shape[0], dtype=a.dtype), np.eye(a.shape[0], dtype=a.dtype)
    for k in range(1, terms):
        term = term @ a / k
        out = out + term
    return out


def test_matrix_exponential_small_large_batched_and_complex():
    small = RNG.standard_normal((4, 4)) * 0.5
    symmetric = RNG.standard_normal((5, 5)) * 3
    symmetric = symmetric + symmetric.T  # (a norm well past the approximant's: scaled and squared)
    batch = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    complex_ = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    got = _run(tf.linalg.expm(small), tf.linalg.expm(symmetric), tf.linalg.expm(batch), tf.linalg.expm(complex_),
               tf.linalg.expm(tf.zeros([0, 0], tf.float64)))
    np.testing.assert_allclose(got[0], _taylor(small), rtol=1e-13)
    values, vectors = np.linalg.eigh(symmetric)
    np.testing.assert_allclose(got[1], vectors @ np.diag(np.exp(values)) @ vectors.T, rtol=1e-10)
    assert got[2].dtype == np.float32
    np.testing.assert_allclose(got[2], np.stack([_taylor(m.astype(np.float64)) for m in batch]), rtol=1e-5)
    np.testing.assert_allclose(got[3], _taylor(complex_), rtol=1e-12)
    assert got[4].shape == (0, 0)
    assert math.isclose(np.linalg.det(got[0]), math.exp(np.trace(small)), rel_tol=1e-12)


def test_the_matrix_exponential_gradient_against_central_differences():
    check_gradients(tf.linalg.expm, [RNG.standard_normal((3, 3))])
    check_gradients(tf.linalg.expm, [RNG.standard_normal((2, 3, 3)) * 3])


@pytest.mark.parametrize("shape,dtype", [((4, 4), np.float64), ((2, 3, 3), np.float32), ((3, 3), np.complex128)])
def test_lu_factors_with_partial_pivoting_and_solves_with_them(shape, dtype):
    a = RNG.standard_normal(shape).astype(dtype)
    if dtype == np.complex128:
        a = a + 1j * RNG.standard_normal(shape)
    rhs = RNG.standard_normal(shape[:-1] + (2,)).astype(a.dtype)
    lower_upper, perm = tf.linalg.lu(a)
    got_lu, got_perm, back, solved, inverse = _run(lower_upper, perm, tf.linalg.lu_reconstruct(lower_upper, perm),
                                                   tf.linalg.lu_solve(lower_upper, perm, rhs),
                                                   tf.linalg.lu_matrix_inverse(lower_upper, perm))
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    for m, lu_, p in zip(a.reshape((-1,) + shape[-2:]), got_lu.reshape((-1,) + shape[-2:]),
                         got_perm.reshape(-1, shape[-1])):
        lower = np.tril(lu_, -1) + np.eye(shape[-1])
        assert (np.abs(np.tril(lu_, -1)) <= 1 + 1e-12).all()  # (partial pivoting: multipliers at most 1)
        np.testing.assert_allclose(lower @ np.triu(lu_), m[p], rtol=tolerance, atol=tolerance)
    assert got_perm.dtype == np.int32
    np.testing.assert_allclose(back, a, rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(solved, np.linalg.solve(a, rhs), rtol=100 * tolerance, atol=100 * tolerance)
    np.testing.assert_allclose(inverse, np.linalg.inv(a), rtol=100 * tolerance, atol=100 * tolerance)
