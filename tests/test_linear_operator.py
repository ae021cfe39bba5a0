"""tf.linalg's LinearOperators against their dense matrices in NumPy (products, solves,
determinants, traces, with and without adjoints, real and complex); slogdet by LU, with its
gradient by central differences; tf.eye of sizes known only when the graph runs."""

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

RNG = np.random.default_rng(7)


def _operators(dtype):
    def draw(*shape):
        x = RNG.standard_normal(shape)
        return (x + 1j * RNG.standard_normal(shape) if dtype == np.complex128 else x).astype(dtype)

    full = draw(2, 3, 3) + 4 * np.eye(3)
    diag = draw(2, 3) + 3
    la = tf.linalg
    return [la.LinearOperatorFullMatrix(full), la.LinearOperatorDiag(diag),
            la.LinearOperatorIdentity(3, batch_shape=[2], dtype=tf.as_dtype(dtype)),
            la.LinearOperatorScaledIdentity(3, draw(2) + 2), la.LinearOperatorLowerTriangular(full),
            la.LinearOperatorComposition([la.LinearOperatorFullMatrix(full), la.LinearOperatorDiag(diag)]),
            la.LinearOperatorLowRankUpdate(la.LinearOperatorDiag(diag), draw(2, 3, 2), diag_update=draw(2, 2) + 2,
                                           v=draw(2, 3, 2))]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_each_operator_acts_as_its_dense_matrix(dtype):
    x = RNG.standard_normal((2, 3, 4)).astype(dtype)
    with tf.Graph().as_default(), tf.Session() as sess:
        for operator in _operators(dtype):
            dense = sess.run(operator.to_dense())
            dense_h = np.conj(np.swapaxes(dense, -1, -2))
            x_h = np.conj(np.swapaxes(x, -1, -2))
            got = sess.run([operator.matmul(x), operator.matmul(x, adjoint=True),
                            operator.matmul(x_h, adjoint_arg=True), operator.solve(x),
                            operator.solve(x, adjoint=True), operator.determinant(), operator.log_abs_determinant(),
                            operator.trace(), operator.diag_part(), operator.add_to_tensor(x[..., :3]),
                            operator.shape_tensor()])
            expected = [dense @ x, dense_h @ x, dense @ x, np.linalg.solve(dense, x), np.linalg.solve(dense_h, x),
                        np.linalg.det(dense), np.linalg.slogdet(dense)[1], np.trace(dense, axis1=-2, axis2=-1),
                        np.diagonal(dense, axis1=-2, axis2=-1), dense + x[..., :3], [2, 3, 3]]
            for name, a, b in zip(["matmul", "adjoint", "adjoint_arg", "solve", "solve adjoint", "det", "logdet",
                                   "trace", "diag_part", "add_to_tensor", "shape"], got, expected):
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9, err_msg=f"{operator.name}: {name}")
            assert operator.shape.as_list() == [2, 3, 3]


def test_hints_shapes_and_arguments_are_checked():
    la = tf.linalg
    assert la.LinearOperatorFullMatrix(np.eye(2), is_positive_definite=True).is_non_singular
    with pytest.raises(ValueError, match="non-singular operator is always square"):
        la.LinearOperatorFullMatrix(np.ones((2, 3)), is_non_singular=True, is_square=False)
    with pytest.raises(ValueError, match="must be a 0-D Tensor"):
        la.LinearOperatorIdentity([2])
    with pytest.raises(TypeError, match="must be integer"):
        la.LinearOperatorIdentity(2.0)
    with pytest.raises(ValueError, match="non-negative"):
        la.LinearOperatorIdentity(2, batch_shape=[-1])
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        la.LinearOperatorIdentity(2).matmul(np.ones((3, 3), np.float32))
    with tf.Graph().as_default(), tf.Session() as sess:
        rows = tf.placeholder(tf.int32)
        identity = la.LinearOperatorIdentity(rows, assert_proper_shapes=True)
        assert sess.run(identity.to_dense(), {rows: 2}).tolist() == [[1.0, 0.0], [0.0, 1.0]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
            sess.run(identity.to_dense(), {rows: -1})
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-positive real part"):
            sess.run(la.LinearOperatorDiag([1.0, 0.0]).assert_positive_definite())
        sess.run(la.LinearOperatorDiag([1.0, 2.0]).assert_positive_definite())
        n = tf.placeholder(tf.int32, [])
        assert sess.run(tf.eye(n, num_columns=3, batch_shape=[2]), {n: 2}).shape == (2, 2, 3)


def test_slogdet_does_not_overflow_and_its_gradient_is_the_inverse_transpose():
    big = np.eye(400) * 10.0  # (a determinant of 1e400: beyond float64)
    with tf.Graph().as_default(), tf.Session() as sess:
        sign, log_abs = sess.run(tf.linalg.slogdet(big))
        assert sign == 1.0 and np.isclose(log_abs, 400 * np.log(10.0))
    matrix = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    check_gradients(lambda m: tf.linalg.slogdet(m)[1], [matrix])
