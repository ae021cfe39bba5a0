"""Gradients where a function has kinks, zeros or repeated indices, and the gradients of
ops that had none: each by float64 central differences, and where TensorFlow picks a value
at a point without a derivative, that value (its figures written in, from TensorFlow 2.21)."""

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

R = np.random.RandomState(7)
M = R.randn(3, 3)
KINKS = np.array([-2.0, -1.0, -0.5, 0.0, 0.0, 0.5, 1.0, 2.0], np.float32)


def _grad(build, x):
    x = tf.constant(x)
    with tf.Session() as sess:
        return sess.run(tf.gradients(tf.reduce_sum(build(x)), x)[0])


CASES = {
    "einsum diagonal": (lambda x: tf.einsum("ii->i", x), [M]),
    "einsum trace": (lambda x: tf.einsum("ii->", x), [M]),
    "einsum sum of all": (lambda x: tf.einsum("ij->", x), [M]),
    "einsum summed axis": (lambda x: tf.einsum("bij->bj", x), [R.randn(2, 3, 4)]),
    "einsum repeated of three": (lambda x: tf.einsum("iij->ij", x), [R.randn(3, 3, 2)]),
    "einsum batch to scalars": (lambda x, y: tf.einsum("bij,bjk->b", x, y), [R.randn(2, 3, 4), R.randn(2, 4, 3)]),
    "segment_prod with zeros": (lambda x: tf.math.segment_prod(x, [0, 0, 1, 1]),
                                [np.array([[1.0, 0.0, 3.0], [0.0, 0.0, 2.0], [2.0, 4.0, 0.5], [1.5, -2.0, 0.7]])]),
    "unsorted_segment_prod": (lambda x: tf.math.unsorted_segment_prod(x, [0, 1, 1, -1, 2], 4),
                              [np.array([1.5, 0.0, 3.0, 2.0, -0.5])]),
    "digamma": (lambda x: tf.math.digamma(x), [np.abs(M) + 0.5]),
    "floormod": (lambda x, y: tf.math.floormod(x, y), [M * 3, np.abs(M) + 0.5]),
    "sign": (lambda x: tf.sign(x) * x, [M]),
    "selu": (lambda x: tf.nn.selu(x), [M]),
    "tensor_scatter_nd_update": (lambda x, u: tf.tensor_scatter_nd_update(x, [[1], [3]], u), [R.randn(5, 3), R.randn(2, 3)]),
    "tensor_scatter_nd_add": (lambda x, u: tf.tensor_scatter_nd_add(x, [[1], [1]], u), [R.randn(5, 3), R.randn(2, 3)]),
    "tensor_scatter_nd_sub": (lambda x, u: tf.tensor_scatter_nd_sub(x, [[0, 2], [4, 1]], u), [R.randn(5, 3), R.randn(2)]),
    "softmax cross-entropy": (lambda x, y: tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x),
                              [R.randn(4, 5), R.dirichlet(np.ones(5), 4)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_order(name):
    build, inputs = CASES[name]
    check_gradients(build, inputs, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("build,inputs", [
    (lambda x, y: tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x), [R.randn(4, 5), R.dirichlet(np.ones(5), 4)]),
    (lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 2, 4, 1], logits=x), [R.randn(4, 5)]),
    (lambda x: tf.math.digamma(x), [np.abs(M) + 0.5]),
    (lambda x: tf.einsum("ij,jj->i", x, x), [M]),
    (lambda x: tf.sqrt(x), [np.abs(M) + 0.5]),
    (lambda x: tf.math.rsqrt(x), [np.abs(M) + 0.5]),
    (lambda x: tf.math.reciprocal(x), [np.abs(M) + 0.5]),
], ids=["softmax xent", "sparse softmax xent", "digamma", "einsum diagonal", "sqrt", "rsqrt", "reciprocal"])
def test_second_order(build, inputs):
    """Hessian-vector products: the cross-entropies' gradients carry the softmax's Jacobian."""
    check_gradients(build, inputs, order=2, rtol=1e-4, atol=1e-6)


def test_crop_and_resize_gradients():
    img = R.randn(2, 5, 6, 3)
    boxes = np.array([[0.113, 0.217, 0.781, 0.917], [-0.213, 0.131, 0.671, 1.107], [0.313, 0.771, 0.053, 0.409]])

    def crops(image, b, method="bilinear", size=(4, 3)):
        return tf.cast(tf.image.crop_and_resize(image, tf.cast(b, tf.float32), [0, 1, 1], size, method=method),
                       tf.float64)

    # the crops are linear in the image: central differences are exact but for float32's rounding
    for method in ("bilinear", "nearest"):
        check_gradients(lambda i: crops(i, boxes, method), [img], eps=1e-3, rtol=1e-3, atol=1e-4)
    for size in ((4, 3), (1, 1)):  # (box corners off the pixel grid, where the gradient has kinks)
        check_gradients(lambda b: crops(img.astype(np.float32), b, size=size), [boxes], eps=1e-4, rtol=1e-2, atol=1e-3)


def test_where_guards_sqrt_rsqrt_reciprocal_like_tensorflow():
    """No gradient reaches the branch where is not taken: 0, not NaN (TF's SqrtGrad)."""
    for fn in (tf.sqrt, tf.math.rsqrt, tf.math.reciprocal):
        g = _grad(lambda x: tf.where(x > 0.25, fn(x), tf.zeros_like(x)), KINKS)
        assert np.all(g[KINKS <= 0.25] == 0), fn
        assert np.all(np.isfinite(g))
    np.testing.assert_allclose(_grad(lambda x: tf.where(x > 0, tf.sqrt(x), tf.zeros_like(x)), KINKS)[5:],
                               [0.70710677, 0.5, 0.35355338], rtol=1e-6)


def test_values_at_kinks_are_tensorflows():
    np.testing.assert_allclose(_grad(tf.nn.selu, KINKS), [0.2379328, 0.64676857, 1.0663412] + [1.050701] * 5,
                               rtol=1e-6)
    assert _grad(tf.sign, KINKS).tolist() == [0.0] * 8  # (zeros, not None)
    np.testing.assert_array_equal(_grad(lambda x: tf.math.floormod(x, 1.5), KINKS), np.ones(8))
    x = np.abs(KINKS[5:]).astype(np.float64) + 0.5
    trigamma = (1 / (x[:, None] + np.arange(100000)) ** 2).sum(axis=1) + 1 / (x + 100000)  # (the tail by its integral)
    np.testing.assert_allclose(_grad(lambda v: tf.math.digamma(tf.abs(v) + 0.5), KINKS[5:]), trigamma, rtol=1e-6)


def test_tensor_scatter_checks_the_updates_shape():
    with pytest.raises(ValueError, match=r"The outer 1 dimensions of indices.shape=\(2, 1\) must match"):
        tf.tensor_scatter_nd_update(tf.zeros([5, 3]), [[1], [1]], tf.zeros([4, 3]))
    updates = tf.placeholder(tf.float32)
    out = tf.tensor_scatter_nd_add(tf.zeros([5, 3]), [[1], [1]], updates)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="TensorScatterAdd: updates must have shape"):
            sess.run(out, {updates: np.zeros([4, 3])})


def test_none_is_not_a_value():
    """As TensorFlow: ValueError, so that ``None * x`` after a missing gradient says so."""
    with pytest.raises(ValueError, match="None values not supported"):
        tf.constant(None)
    with pytest.raises(ValueError, match="None values not supported"):
        tf.constant(1.0) * None


@pytest.mark.parametrize("pool,shape,expect", [
    (lambda x: tf.nn.max_pool(x, 2, 2, "VALID"), [1, 4, 4, 2], [1, 2, 2, 2]),
    (lambda x: tf.nn.avg_pool(x, [3], [1], "SAME"), [1, 4, 4, 2], [1, 4, 4, 2]),
    (lambda x: tf.nn.max_pool(x, [2, 1], [1, 2], "VALID"), [1, 4, 4, 2], [1, 3, 2, 2]),
    (lambda x: tf.nn.max_pool(x, 2, 2, "VALID", data_format="NCHW"), [1, 2, 4, 4], [1, 2, 2, 2]),
    (lambda x: tf.nn.max_pool3d(x, 2, 1, "VALID"), [1, 3, 4, 4, 2], [1, 2, 3, 3, 2]),
    (lambda x: tf.nn.avg_pool3d(x, [2, 1, 2], 2, "SAME"), [1, 3, 4, 4, 2], [1, 2, 2, 2, 2]),
])
def test_pools_take_an_int_or_the_spatial_sizes(pool, shape, expect):
    x = R.rand(*shape).astype(np.float32)
    with tf.Session() as sess:
        assert list(sess.run(pool(tf.constant(x))).shape) == expect



@pytest.mark.parametrize("ksize,strides,padding", [(2, 2, "VALID"), (3, 1, "SAME"), (2, 1, "VALID"), (3, 2, "SAME")])
def test_max_pooling_has_second_and_third_derivatives(ksize, strides, padding):
    x = R.permutation(2 * 5 * 6 * 2).reshape(2, 5, 6, 2).astype(np.float64) / 7  # (no ties: a smooth routing)

    def pooled(v):
        return tf.nn.max_pool(v, ksize, strides, padding)

    # the second derivative: MaxPoolGrad's gradient (MaxPoolGradGrad for its incoming gradient)
    check_gradients(lambda v: pooled(v) ** 2, [x], order=2, rtol=1e-5, atol=1e-7)

    def grad_grad(w):  # MaxPoolGradGrad(x, y, w), as the gradient of MaxPoolGrad reaches it
        xs = tf.constant(x)
        y = pooled(xs)
        g = tf.zeros_like(y)
        (dx,) = tf.gradients(y, xs, grad_ys=g)
        (out,) = tf.gradients(dx, g, grad_ys=w)
        assert out.op.type == "MaxPoolGradGrad"
        return out ** 2

    check_gradients(grad_grad, [R.randn(*x.shape)], rtol=1e-5, atol=1e-7)  # (its gradient: MaxPoolGrad)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_is_differentiated_exactly_at_zeros(axis, exclusive, reverse):
    # (TF 1.x divides by x there: NaN; TF 2 gives 0. Both are wrong where the others are not zero.)
    x = np.array([[2.0, 0.0, 3.0, 0.0, 1.5], [1.0, -2.0, 0.0, 4.0, 0.5], [0.0, 0.0, 1.0, 2.0, 3.0]])
    check_gradients(lambda t: tf.cumprod(t, axis, exclusive=exclusive, reverse=reverse), [x], rtol=1e-6, atol=1e-9)
    # second derivatives where x has no zero, as before
    check_gradients(lambda t: tf.cumprod(t, axis, exclusive=exclusive, reverse=reverse), [np.abs(x) + 0.5],
                    order=2, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("axis", [None, 0, 1, [0, 2]])
def test_reduce_prod_has_a_second_derivative_exact_at_zeros(axis):
    x = R.randn(3, 4, 2)
    check_gradients(lambda t: tf.reduce_prod(t, axis), [x], order=2, rtol=1e-5, atol=1e-8)
    x[0, 1, 0] = x[2, 2, 1] = x[1, 3, 0] = 0.0
    check_gradients(lambda t: tf.reduce_prod(t, axis, keepdims=True), [x], order=2, rtol=1e-5, atol=1e-8)


def test_where_v2_broadcasts_all_three_and_sums_gradients_back():
    cond = np.array([[True], [False], [True]])
    check_gradients(lambda x, y: tf.where_v2(cond, x, y) ** 2, [R.randn(1, 4), R.randn(3, 1)])
    got = tf.Session().run(tf.where_v2(cond, tf.constant([[1.0, 2.0]]), tf.constant(0.0)))
    np.testing.assert_array_equal(got, np.where(cond, [[1.0, 2.0]], 0.0))
    assert tf.where_v2(cond, 1.0, 0.0).op.type == "SelectV2"  # (TF's op)
