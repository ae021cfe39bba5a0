"""space_to_batch / batch_to_space against TensorFlow's documented examples and NumPy, and
dilated (atrous) convolutions against a direct NumPy loop."""

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate
from gradcheck import check_gradients


def test_space_to_batch_matches_the_documented_example_and_inverts():
    x = np.arange(1, 17).reshape(1, 4, 4, 1)
    got = evaluate(tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]))
    assert got.reshape(4, 4).tolist() == [[1, 3, 9, 11], [2, 4, 10, 12], [5, 7, 13, 15], [6, 8, 14, 16]]
    assert_oracle(evaluate(tf.batch_to_space_nd(got, [2, 2], [[0, 0], [0, 0]])), x)
    padded = evaluate(tf.space_to_batch(np.ones((2, 3, 3, 2)), [[1, 0], [0, 1]], block_size=2))
    assert padded.shape == (8, 2, 2, 2) and padded.sum() == 36
    assert_oracle(evaluate(tf.batch_to_space(padded, [[1, 0], [0, 1]], block_size=2)), np.ones((2, 3, 3, 2)))
    assert tf.space_to_batch_nd(tf.placeholder(tf.float32, [3, 6, 4, 5]), [3, 2], [[0, 0], [0, 0]]).shape.as_list() \
        == [18, 2, 2, 5]
    check_gradients(lambda t: tf.space_to_batch_nd(t, [2, 2], [[1, 1], [0, 2]]),
                    [np.random.default_rng(0).standard_normal((1, 4, 2, 2))])
    with pytest.raises(ValueError, match=r"padded dimension 1 \(3 \+ 0 \+ 0\) is not divisible by block_shape"):
        tf.space_to_batch_nd(np.zeros((1, 3, 4, 1)), [2, 2], [[0, 0], [0, 0]])
    unknown = tf.placeholder(tf.float32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="multiple of its block size"):
            sess.run(tf.space_to_batch_nd(unknown, [2, 2], [[0, 0], [0, 0]]), {unknown: np.zeros((1, 3, 4, 1))})


@pytest.mark.parametrize("to_batch", [True, False])
def test_block_shapes_paddings_and_crops_are_checked_when_built_and_when_run(to_batch):
    op = tf.space_to_batch_nd if to_batch else tf.batch_to_space_nd
    amounts = "paddings" if to_batch else "crops"
    x = np.zeros((4, 2, 2, 1), np.float32)
    cases = [([0, 2], [[0, 0], [0, 0]], "block_shape must be positive"),
             ([1, 1], [[0, -1], [0, 0]], f"{amounts} must be non-negative"),
             ([2, 2], [[0, 0]], rf"{amounts} must have shape \[2, 2\]")]
    for block, amount, message in cases:
        with pytest.raises(ValueError, match=message):
            op(x, block, amount)
    block_p, amount_p, x_p = tf.placeholder(tf.int32, [2]), tf.placeholder(tf.int32), tf.placeholder(tf.float32)
    out = op(x_p, block_p, amount_p)
    with tf.Session() as sess:
        for block, amount, message in cases:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(out, {x_p: x, block_p: block, amount_p: amount})
    if not to_batch:
        with pytest.raises(ValueError, match=r"the batch 3 is not divisible by the product of block_shape"):
            op(np.zeros((3, 1, 1, 1)), [2, 2], [[0, 0], [0, 0]])
        with pytest.raises(ValueError, match=r"crops \[0, 3\] of dimension 1 take more than its 2 elements"):
            op(np.zeros((4, 1, 1, 1)), [2, 2], [[0, 3], [0, 0]])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="take more than its 2"):
            sess.run(out, {x_p: np.zeros((4, 1, 1, 1)), block_p: [2, 2], amount_p: [[0, 3], [0, 0]]})


def test_the_4d_forms_take_only_4d_inputs_and_give_4d_outputs():
    with pytest.raises(ValueError, match=r"must be 4-D \[batch, height, width, depth\]"):
        tf.space_to_batch(np.zeros((2, 2, 1)), np.zeros((2, 2), np.int32), block_size=2)
    with pytest.raises(ValueError, match="must be 4-D"):
        tf.batch_to_space(np.zeros((4, 2, 1)), np.zeros((2, 2), np.int32), block_size=2)
    unknown = tf.space_to_batch(tf.placeholder(tf.float32), tf.placeholder(tf.int32), block_size=4)
    assert unknown.shape.ndims == 4
    partly = tf.space_to_batch_nd(tf.placeholder(tf.float32, [None, None, None, 2]), tf.placeholder(tf.int32, [2]),
                                  tf.placeholder(tf.int32))
    assert partly.shape.as_list() == [None, None, None, 2]


def test_required_space_to_batch_paddings():
    paddings, crops = evaluate(tf.required_space_to_batch_paddings([5, 6], [2, 4], [[1, 0], [0, 0]]))
    assert paddings.tolist() == [[1, 0], [0, 2]] and crops.tolist() == [[0, 0], [0, 2]]
    paddings, crops = tf.required_space_to_batch_paddings([5, 6], [2, 4], [[1, 0], [0, 0]])
    assert tf.get_static_value(paddings).tolist() == [[1, 0], [0, 2]]  # (constants give constants)
    assert tf.get_static_value(crops).tolist() == [[0, 0], [0, 2]]
    shape = tf.placeholder(tf.int32, [2])
    paddings, crops = tf.required_space_to_batch_paddings(shape, [2, 4], [[1, 0], [0, 0]])
    with tf.Session() as sess:
        got = sess.run([paddings, crops], {shape: [5, 6]})
    assert got[0].tolist() == [[1, 0], [0, 2]] and got[1].tolist() == [[0, 0], [0, 2]]


def dilated_conv(x, f, rate, padding):
    kh, kw, _, co = f.shape
    eh, ew = (kh - 1) * rate + 1, (kw - 1) * rate + 1
    if padding == "SAME":
        ph, pw = eh - 1, ew - 1
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    n, h, w, _ = x.shape
    out = np.zeros((n, h - eh + 1, w - ew + 1, co))
    for i in range(out.shape[1]):
        for j in range(out.shape[2]):
            patch = x[:, i:i + eh:rate, j:j + ew:rate, :]
            out[:, i, j] = np.einsum("nhwc,hwco->no", patch, f)
    return out


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_atrous_conv2d_and_dilated_conv2d(padding):
    rng = np.random.default_rng(1)
    x, f = rng.standard_normal((2, 7, 8, 2)), rng.standard_normal((3, 2, 2, 3))
    want = dilated_conv(x, f, 2, padding)
    assert_oracle(evaluate(tf.nn.atrous_conv2d(x, f, 2, padding)), want, rtol=1e-10)
    assert_oracle(evaluate(tf.nn.conv2d(x, f, [1, 1, 1, 1], padding, dilations=[1, 2, 2, 1])), want, rtol=1e-10)
    check_gradients(lambda a, b: tf.nn.atrous_conv2d(a, b, 2, padding), [x[:1, :5, :5], f])
    with pytest.raises(ValueError, match="strides of 1"):
        tf.nn.conv2d(x, f, [1, 2, 2, 1], padding, dilations=[1, 2, 2, 1])


_CONV = ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")
_DEPTHWISE = ("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("ops, shape, outputs, rates, padding", [
    (_CONV, (2, 7, 8, 3), 4, (2, 2), "SAME"), (_CONV, (2, 9, 9, 3), 4, (3, 2), "VALID"),
    (_CONV, (1, 9, 9, 2), 4, (4, 4), "VALID"), (_CONV, (1, 5, 6, 2), 4, (2, 3), "SAME"),
    (_DEPTHWISE, (2, 7, 8, 3), 1, (2, 2), "SAME"), (_DEPTHWISE, (2, 9, 9, 2), 2, (3, 2), "VALID")],
    ids=lambda v: v[0] if isinstance(v, tuple) and isinstance(v[0], str) else None)
def test_the_dilated_convolution_kernels_are_those_of_the_filter_spread_by_zeros(dtype, ops, shape, outputs, rates,
                                                                                 padding):
    """A convolution (and its gradients) with ``dilations`` computes its windows' taps
    ``rate`` apart; written the obvious way, it is the convolution with the filter spread
    by zero taps. (Conv2D's grids that are mostly padding take the input gradient's
    per-tap path.) ``outputs``: the filter's last dimension (a depthwise multiplier)."""
    from distflow.framework.registry import get_registration
    from distflow.ops.conv_ops import spread_filter

    forward, input_grad, filter_grad = ops
    rng = np.random.default_rng(5)
    x, f = rng.standard_normal(shape).astype(dtype), rng.standard_normal((3, 2, shape[3], outputs)).astype(dtype)
    dilations = [1, *rates, 1]
    spread = spread_filter(np, f, dilations)
    attrs = {"strides": [1, 1, 1, 1], "padding": padding}

    def kernel(op_type, *args, **more):
        return get_registration(op_type).kernel(np, *args, **attrs, **more)

    y = kernel(forward, x, f, dilations=dilations)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    assert_oracle(y, kernel(forward, x, spread), rtol=tol, atol=tol)
    dy = rng.standard_normal(y.shape).astype(dtype)
    sizes = np.array(shape, np.int32)
    assert_oracle(kernel(input_grad, sizes, f, dy, dilations=dilations), kernel(input_grad, sizes, spread, dy),
                  rtol=tol, atol=tol)
    df = kernel(filter_grad, x, np.array(f.shape, np.int32), dy, dilations=dilations)
    whole = kernel(filter_grad, x, np.array(spread.shape, np.int32), dy)
    assert_oracle(df, whole[::rates[0], ::rates[1]], rtol=tol, atol=tol)


def test_a_dilated_depthwise_convolution_is_one_op_and_its_gradients_are_exact():
    rng = np.random.default_rng(7)
    x, f = rng.standard_normal((1, 6, 7, 2)), rng.standard_normal((2, 3, 2, 2))
    y = tf.nn.depthwise_conv2d(tf.constant(x), tf.constant(f), [1, 1, 1, 1], "SAME", rate=[2, 2])
    assert y.op.type == "DepthwiseConv2dNative" and y.op.get_attr("dilations") == [1, 2, 2, 1]
    assert y.op.inputs[1].op.type == "Const"  # (the filter itself, not spread by zeros)
    dy = tf.constant(rng.standard_normal((1, 6, 7, 4)))
    grads = tf.gradients(y, [y.op.inputs[0], y.op.inputs[1]], dy)
    public = [tf.nn.depthwise_conv2d_native_backprop_input([1, 6, 7, 2], f, dy, [1, 1, 1, 1], "SAME",
                                                           dilations=[1, 2, 2, 1]),
              tf.nn.depthwise_conv2d_native_backprop_filter(x, [2, 3, 2, 2], dy, [1, 1, 1, 1], "SAME",
                                                            dilations=[1, 2, 2, 1])]
    got, want = evaluate([public, grads])
    for g, w in zip(got, want):
        assert_oracle(g, w, rtol=1e-12)
    check_gradients(lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 1, 1, 1], "SAME", rate=[2, 2]), [x, f])


def test_atrous_conv2d_transpose_is_the_gradient_of_atrous_conv2d():
    rng = np.random.default_rng(2)
    x, f = rng.standard_normal((1, 6, 6, 2)), rng.standard_normal((2, 2, 2, 3))
    y = rng.standard_normal((1, 6, 6, 3))
    xt = tf.constant(x)
    grad = tf.gradients(tf.reduce_sum(tf.nn.atrous_conv2d(xt, f, 2, "SAME") * y), xt)[0]
    transposed = tf.nn.atrous_conv2d_transpose(y, f, [1, 6, 6, 2], 2, "SAME")
    assert_oracle(evaluate(transposed), evaluate(grad), rtol=1e-10)


def test_conv_layers_apply_their_dilation_rate():
    x = np.random.default_rng(3).standard_normal((1, 9, 9, 2))
    out = tf.layers.conv2d(tf.constant(x), 2, 3, dilation_rate=2, use_bias=False, name="dilated")
    seq = np.random.default_rng(4).standard_normal((2, 10, 3))
    out1d = tf.layers.conv1d(tf.constant(seq), 2, 3, dilation_rate=3, use_bias=False, name="dilated1d")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, kernel, got1d, kernel1d = sess.run([out, "dilated/kernel:0", out1d, "dilated1d/kernel:0"])
    assert got.shape == (1, 5, 5, 2)
    assert_oracle(got, dilated_conv(x, kernel, 2, "VALID"), rtol=1e-10)
    assert_oracle(got1d[:, None], dilated_conv(seq[:, None], kernel1d[None], 3, "VALID"), rtol=1e-10)
