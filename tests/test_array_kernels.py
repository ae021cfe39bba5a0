"""Array kernels against NumPy: shape, then dtype, then values."""

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
TYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


def typed(dtype):
    return (X % 2).astype(dtype) if dtype == np.bool_ else X.astype(dtype)


@pytest.mark.parametrize("dtype", TYPES)
def test_constant_keeps_numpy_dtypes(dtype):
    x = typed(dtype)
    assert_oracle(evaluate(tf.constant(x)), x)


def test_constant_python_defaults_and_shape():
    assert_oracle(evaluate(tf.constant(1.5)), np.float32(1.5))
    assert_oracle(evaluate(tf.constant([1, 2])), np.array([1, 2], np.int32))
    assert_oracle(evaluate(tf.constant(2**40)), np.int64(2**40))
    assert_oracle(evaluate(tf.constant([True, False])), np.array([True, False]))
    assert evaluate(tf.constant("hi")) == b"hi"
    assert_oracle(evaluate(tf.constant(7, shape=[2, 2])), np.full((2, 2), 7, np.int32))
    assert_oracle(evaluate(tf.constant([1, 2, 3, 4], dtype=tf.float64, shape=[2, 2])),
                  np.array([[1, 2], [3, 4]], np.float64))
    with pytest.raises(TypeError, match="Expected int32, got 1.5"):
        tf.constant(1.5, dtype=tf.int32)
    with pytest.raises(TypeError, match="Expected float32"):
        tf.constant("a", dtype=tf.float32)


@pytest.mark.parametrize("shape", [[6, 4], [-1], [4, -1, 2], [24]])
def test_reshape(shape):
    for dtype in TYPES:
        assert_oracle(evaluate(tf.reshape(typed(dtype), shape)), typed(dtype).reshape(shape))


def test_reshape_to_a_computed_shape():
    y = tf.placeholder(tf.float32, [None, 4])
    out = tf.reshape(tf.constant(X), tf.shape(y))
    assert out.shape.as_list() == [None, 4]
    assert_oracle(evaluate(out, {y: np.zeros((6, 4), np.float32)}), X.reshape(6, 4))


@pytest.mark.parametrize("perm", [None, [0, 2, 1], [2, 0, 1]])
def test_transpose(perm):
    for dtype in TYPES:
        assert_oracle(evaluate(tf.transpose(typed(dtype), perm)), np.transpose(typed(dtype), perm))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_split_even(axis):
    n = X.shape[axis]
    got = evaluate(tf.split(X, n, axis=axis))
    for g, w in zip(got, np.split(X, n, axis=axis)):
        assert_oracle(g, w)


def test_split_negative_axis_empty_and_uneven():
    for got, want in zip(evaluate(tf.split(X, 2, axis=-1)), np.split(X, 2, axis=-1)):
        assert_oracle(got, want)
    empty = np.zeros((3, 0), np.float32)
    assert [g.shape for g in evaluate(tf.split(tf.placeholder_with_default(empty, [None, None]), 2, axis=1))] \
        == [(3, 0), (3, 0)]
    with pytest.raises(tf.errors.InvalidArgumentError, match="evenly divisible by 3"):
        evaluate(tf.split(tf.placeholder_with_default(X, [None] * X.ndim), 3, axis=-1))


@pytest.mark.parametrize("sizes,axis", [([1, 3], 2), ([2, -1, 1], 2), ([1, 2], 1), ([2], 0)])
def test_split_sizes(sizes, axis):
    n = X.shape[axis]
    concrete = [s if s != -1 else n - (sum(sizes) + 1) for s in sizes]
    got = evaluate(tf.split(X, sizes, axis=axis))
    for g, w in zip(got, np.split(X, np.cumsum(concrete)[:-1], axis=axis)):
        assert_oracle(g, w)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_concat(axis):
    for dtype in TYPES:
        a, b = typed(dtype), typed(dtype)[::-1].copy()
        assert_oracle(evaluate(tf.concat([a, b], axis)), np.concatenate([a, b], axis))


@pytest.mark.parametrize("axis", [0, 1, -1, 3])
def test_stack_unstack(axis):
    xs = [X, X + 1, X * 2]
    assert_oracle(evaluate(tf.stack(xs, axis=axis)), np.stack(xs, axis=axis))
    if axis != 3:
        got = evaluate(tf.unstack(X, axis=axis))
        for g, w in zip(got, np.moveaxis(X, axis, 0)):
            assert_oracle(g, w)


@pytest.mark.parametrize("axis", [0, 1, 3, -1])
def test_expand_dims(axis):
    assert_oracle(evaluate(tf.expand_dims(X, axis)), np.expand_dims(X, axis))


def test_squeeze():
    x = np.zeros((1, 3, 1, 2), np.int32)
    assert_oracle(evaluate(tf.squeeze(x)), np.squeeze(x))
    assert_oracle(evaluate(tf.squeeze(x, [2])), np.squeeze(x, 2))
    assert_oracle(evaluate(tf.squeeze(x, axis=[0, -2])), np.squeeze(x, (0, 2)))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_gather(axis):
    idx = np.array([[0, 1], [1, 0]], np.int32)
    assert_oracle(evaluate(tf.gather(X, idx, axis=axis)), np.take(X, idx, axis=axis))
    assert_oracle(evaluate(tf.gather(X, np.int64(1), axis=axis)), np.take(X, 1, axis=axis))


def test_gather_out_of_range_is_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices contains 5, which is not in \[0, 2\)"):
        evaluate(tf.gather(X, [0, 5]))


def test_slice():
    assert_oracle(evaluate(tf.slice(X, [0, 1, 1], [2, 2, -1])), X[0:2, 1:3, 1:])
    assert_oracle(evaluate(tf.slice(X, [1, 0, 0], [1, -1, 2])), X[1:2, :, 0:2])


INDEXES = [
    (1,), (-1,), (slice(None),), (slice(1, None),), (slice(None, None, -1),), (0, slice(None, None, 2)),
    (Ellipsis, 1), (None, 0), (slice(None), None, 1), (Ellipsis, slice(3, 0, -2)), (1, -1, -1),
    (slice(-2, None), Ellipsis, None), (0, Ellipsis),
]


@pytest.mark.parametrize("index", INDEXES, ids=str)
def test_getitem_matches_numpy(index):
    t = tf.constant(X)
    out = t[index]
    want = X[index]
    assert out.shape.as_list() == list(want.shape)
    assert_oracle(evaluate(out), want)


def test_getitem_with_unknown_dimensions_and_tensor_index():
    p = tf.placeholder(tf.float32, [None, 3, 4])
    out = p[:, 1, ::-1]
    assert out.shape.as_list() == [None, 4]
    i = tf.placeholder(tf.int32, [])
    assert_oracle(evaluate(p[i], {p: X, i: 1}), X[1])
    assert_oracle(evaluate(out, {p: X}), X[:, 1, ::-1])


def test_strided_slice_with_masks():
    got = tf.strided_slice(X, [0, 0, 3], [2, 3, 0], [1, 2, -1], end_mask=0b010)
    assert_oracle(evaluate(got), X[0:2, 0::2, 3:0:-1])


@pytest.mark.parametrize("multiples", [[1, 1, 1], [2, 1, 3], [1, 2, 1]])
def test_tile(multiples):
    assert_oracle(evaluate(tf.tile(X, multiples)), np.tile(X, multiples))


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
def test_pad(mode):
    pads = [[1, 0], [0, 2], [1, 1]]
    assert_oracle(evaluate(tf.pad(X, pads, mode=mode)), np.pad(X, pads, mode={
        "CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}[mode]))


def test_pad_constant_values():
    pads = [[1, 1], [2, 0], [0, 0]]
    assert_oracle(evaluate(tf.pad(X, pads, constant_values=-3.0)), np.pad(X, pads, constant_values=-3))


def test_fill_zeros_ones():
    assert_oracle(evaluate(tf.fill([2, 3], 9)), np.full((2, 3), 9, np.int32))
    assert_oracle(evaluate(tf.fill(tf.shape(X), 0.5)), np.full(X.shape, 0.5, np.float32))
    for dtype in TYPES:
        tfd = tf.as_dtype(dtype)
        assert_oracle(evaluate(tf.zeros([2, 2], tfd)), np.zeros((2, 2), dtype))
        assert_oracle(evaluate(tf.ones([3], tfd)), np.ones(3, dtype))
        assert_oracle(evaluate(tf.zeros_like(typed(dtype))), np.zeros_like(typed(dtype)))
        assert_oracle(evaluate(tf.ones_like(typed(dtype))), np.ones_like(typed(dtype)))
    assert_oracle(evaluate(tf.zeros_like(X, dtype=tf.int64)), np.zeros(X.shape, np.int64))
    fed = tf.placeholder(tf.int64, [None, 2])  # (a shape known only when the step runs: a Fill)
    with tf.Session() as sess:
        ones, zeros = sess.run([tf.ones_like(fed, dtype=tf.bool), tf.zeros_like(fed, dtype=tf.bool)], {fed: [[1, 2]]})
    assert_oracle(ones, np.ones((1, 2), bool))
    assert_oracle(zeros, np.zeros((1, 2), bool))
    big = tf.zeros([100, 100])
    assert_oracle(evaluate(big), np.zeros((100, 100), np.float32))


def test_one_hot():
    idx = np.array([0, 2, -1, 5, 1])
    want = (idx[:, None] == np.arange(3)).astype(np.float32)
    assert_oracle(evaluate(tf.one_hot(idx, 3)), want)
    assert_oracle(evaluate(tf.one_hot(idx, 3, on_value=5, off_value=-1, dtype=tf.int32)),
                  np.where(want > 0, 5, -1).astype(np.int32))
    idx2 = np.array([[0, 1], [2, 0]])
    want2 = (idx2[..., None] == np.arange(3)).astype(np.float32)
    assert_oracle(evaluate(tf.one_hot(idx2, 3, axis=0)), np.moveaxis(want2, -1, 0))
    # without a dtype the two values must agree on one, as in TensorFlow (a Python 0 is an int32)
    with pytest.raises(TypeError, match="dtype tf.float32 of on_value does not match dtype tf.int32 of off_value"):
        tf.one_hot(idx, 3, on_value=1.0, off_value=0)
    assert tf.one_hot(idx, 3, on_value=1.0, off_value=0.0, dtype=tf.float64).dtype == tf.float64


def test_shape_size_rank():
    p = tf.placeholder(tf.float32, [None, 4])
    feed = {p: np.zeros((5, 4), np.float32)}
    assert_oracle(evaluate(tf.shape(p), feed), np.array([5, 4], np.int32))
    assert_oracle(evaluate(tf.shape(p, out_type=tf.int64), feed), np.array([5, 4], np.int64))
    assert_oracle(evaluate(tf.size(p), feed), np.int32(20))
    assert_oracle(evaluate(tf.rank(p), feed), np.int32(2))


def test_shape_size_rank_of_a_known_shape_are_constants_as_in_tf1():
    # TF 1.x's tf.shape, tf.size and tf.rank gave constants where the static shape told
    # them (trusting set_shape), so a graph computes no shape it already knows
    p = tf.placeholder(tf.float32, [3, 4])
    assert [tf.shape(p).op.type, tf.size(p).op.type, tf.rank(p).op.type] == ["Const"] * 3
    assert tf.shape(p, name="s").op.name == "s" and tf.shape(p, out_type=tf.int64).dtype == tf.int64
    assert tf.rank(tf.placeholder(tf.float32, [None, 4])).op.type == "Const"
    hinted = tf.identity(tf.placeholder(tf.float32))
    hinted.set_shape([2])
    assert evaluate(tf.shape(hinted), {hinted.op.inputs[0]: np.ones(2, np.float32)}).tolist() == [2]
    assert evaluate(tf.size(hinted), {hinted.op.inputs[0]: np.ones(2, np.float32)}) == 2


def test_identity_and_placeholder_with_default():
    d = tf.placeholder_with_default(tf.constant([1.0, 2.0]), [None])
    assert_oracle(evaluate(d), np.array([1, 2], np.float32))
    assert_oracle(evaluate(tf.identity(d), {d: [5.0]}), np.array([5], np.float32))


def test_stop_gradient_passes_values():
    assert_oracle(evaluate(tf.stop_gradient(X)), X)
