"""tf.nn ops: NumPy oracles for the forward pass, central differences for the backward."""

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate
from gradcheck import check_gradients

RNG = np.random.default_rng(2)


def r(*shape):
    return RNG.uniform(-2, 2, size=shape)


def softmax_np(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


ACTIVATIONS = {
    "relu": (tf.nn.relu, lambda x: np.maximum(x, 0)),
    "relu6": (tf.nn.relu6, lambda x: np.minimum(np.maximum(x * 4, 0), 6), 4.0),
    "elu": (tf.nn.elu, lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    "leaky_relu": (lambda x: tf.nn.leaky_relu(x, alpha=0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    "softmax": (tf.nn.softmax, softmax_np),
    "log_softmax": (tf.nn.log_softmax, lambda x: np.log(softmax_np(x))),
    "softmax_axis0": (lambda x: tf.nn.softmax(x, axis=0), lambda x: softmax_np(x, 0)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activation_forward(name, dtype):
    fn, oracle, *scale = ACTIVATIONS[name]
    x = r(3, 5).astype(dtype)
    scaled = x * scale[0] if scale else x
    want = oracle(x).astype(dtype)
    assert_oracle(evaluate(fn(tf.constant(scaled))), want, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_gradients(name):
    fn = ACTIVATIONS[name][0]
    x = r(3, 5)
    x[np.abs(x) < 0.05] = 0.3  # keep central differences away from the kinks
    if name == "relu6":
        x = x * 4
        x[np.abs(x - 6) < 0.05] = 5.0
    check_gradients(fn, [x])


@pytest.mark.parametrize("name", ["relu", "elu", "leaky_relu", "relu6"])
def test_activation_second_order(name):
    fn = ACTIVATIONS[name][0]
    x = r(2, 3)
    x[np.abs(x) < 0.05] = 0.3
    check_gradients(lambda t: fn(t) * t, [x], order=2, rtol=1e-4)


def test_softmax_cross_entropy():
    logits = r(4, 5)
    labels = softmax_np(r(4, 5))
    want = -(labels * np.log(softmax_np(logits))).sum(-1)
    got = evaluate(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
    assert_oracle(got, want)
    got_v1 = evaluate(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    assert_oracle(got_v1, want)
    check_gradients(lambda lg, lb: tf.nn.softmax_cross_entropy_with_logits_v2(labels=lb, logits=lg),
                    [logits, labels])


def test_softmax_cross_entropy_v1_stops_label_gradient():
    logits = tf.constant(r(2, 3))
    labels = tf.constant(softmax_np(r(2, 3)))
    loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert tf.gradients(loss, labels)[0] is None


def test_sparse_softmax_cross_entropy():
    logits = r(6, 4)
    labels = np.array([0, 3, 1, 1, 2, 0])
    want = -np.log(softmax_np(logits))[np.arange(6), labels]
    assert_oracle(evaluate(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)), want)
    check_gradients(lambda lg, lb: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=lb, logits=lg),
                    [logits, labels.astype(np.int64)], wrt=[0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="label value of 4 which is outside the valid range"):
        evaluate(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[4, 0, 0, 0, 0, 0], logits=logits))


def test_sparse_softmax_cross_entropy_of_large_logits_in_pieces():
    """Large logits (a language model's [batch, time, vocabulary]) are done in pieces of rows."""
    logits, labels = r(8, 35, 1000), np.random.default_rng(1).integers(0, 1000, (8, 35))
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    p = softmax_np(logits.reshape(-1, 1000))
    assert_oracle(evaluate(loss), -np.log(p[np.arange(280), labels.reshape(-1)]).reshape(8, 35), rtol=1e-9)
    logits_t = tf.constant(logits)
    (grad,) = tf.gradients(tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                                          logits=logits_t)), [logits_t])
    p[np.arange(280), labels.reshape(-1)] -= 1
    assert_oracle(evaluate(grad), p.reshape(8, 35, 1000), rtol=1e-9, atol=1e-12)


def test_bias_add_and_l2_loss():
    x, b = r(2, 3, 4), r(4)
    assert_oracle(evaluate(tf.nn.bias_add(x, b)), x + b)
    assert_oracle(evaluate(tf.nn.l2_loss(x)), np.float64((x ** 2).sum() / 2))
    check_gradients(tf.nn.bias_add, [x, b])
    check_gradients(tf.nn.l2_loss, [x])
    check_gradients(lambda t, c: tf.nn.bias_add(t, c) * t, [r(3, 2), r(2)], order=2, rtol=1e-4)
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.nn.bias_add(tf.zeros([2, 3]), tf.zeros([4]))


def test_dropout():
    tf.set_random_seed(3)
    x = np.ones((200, 50), np.float32)
    out = evaluate(tf.nn.dropout(x, keep_prob=0.8))
    kept = out != 0
    assert np.allclose(out[kept], 1 / 0.8)
    assert abs(kept.mean() - 0.8) < 0.02
    rate_out = evaluate(tf.nn.dropout(x, rate=0.5))
    assert set(np.unique(rate_out)) <= {0.0, 2.0}
    keep = tf.placeholder(tf.float32, [])
    assert_oracle(evaluate(tf.nn.dropout(x, keep_prob=keep), {keep: 1.0}), x)
    assert_oracle(evaluate(tf.nn.dropout(x, keep_prob=1.0)), x)
    with pytest.raises(ValueError, match="exactly one"):
        tf.nn.dropout(x)


def test_dropout_is_seeded_and_differentiable():
    def draw():
        tf.reset_default_graph()
        return evaluate(tf.nn.dropout(tf.ones([10, 10]), rate=0.5, seed=4))
    np.testing.assert_array_equal(draw(), draw())
    tf.reset_default_graph()
    x = tf.placeholder(tf.float64, [5])
    y = tf.nn.dropout(x, rate=0.5, seed=1)
    with tf.Session() as sess:
        out, g = sess.run([y, tf.gradients(tf.reduce_sum(y), x)[0]], {x: np.ones(5)})
    np.testing.assert_allclose(g, out)  # d(sum)/dx = mask / keep = y / x


def test_moments_and_batch_normalization():
    x = r(8, 3)
    mean, var = evaluate(tf.nn.moments(tf.constant(x), axes=[0]))
    assert_oracle(mean, x.mean(0))
    assert_oracle(var, x.var(0))
    scale, offset = r(3), r(3)
    bn = tf.nn.batch_normalization(x, x.mean(0), x.var(0), offset, scale, 1e-3)
    assert_oracle(evaluate(bn), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3) * scale + offset)

    def normalize(t, s, o):
        m, v = tf.nn.moments(t, axes=[0], keep_dims=True)
        return tf.nn.batch_normalization(t, m, v, o, s, 1e-3)
    check_gradients(normalize, [x, scale, offset], rtol=1e-4)


def conv_np(x, f, stride, padding):
    n, h, w, c = x.shape
    kh, kw, _, o = f.shape
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-w // stride)
        ph = max((oh - 1) * stride + kh - h, 0)
        pw = max((ow - 1) * stride + kw - w, 0)
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    else:
        oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    out = np.zeros((n, oh, ow, o))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, f, axes=([1, 2, 3], [0, 1, 2]))
    return out


def pool_np(x, k, stride, padding, reduce):
    n, h, w, c = x.shape
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-w // stride)
        ph = max((oh - 1) * stride + k - h, 0)
        pw = max((ow - 1) * stride + k - w, 0)
        top, left = ph // 2, pw // 2
    else:
        oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
        top = left = 0
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * stride - top, j * stride - left
            patch = x[:, max(r0, 0):r0 + k, max(c0, 0):c0 + k, :]
            out[:, i, j, :] = reduce(patch, axis=(1, 2))
    return out


CONV_CASES = [((2, 5, 5, 3), (3, 3, 3, 4), 1, "SAME"), ((1, 6, 7, 2), (2, 3, 2, 3), 2, "VALID"),
              ((2, 7, 6, 1), (3, 2, 1, 2), 2, "SAME"), ((1, 4, 4, 2), (1, 1, 2, 2), 1, "VALID"),
              ((1, 8, 8, 2), (5, 5, 2, 1), 3, "SAME")]


@pytest.mark.parametrize("xs,fs,stride,padding", CONV_CASES, ids=str)
def test_conv2d(xs, fs, stride, padding):
    x, f = r(*xs), r(*fs)
    out = tf.nn.conv2d(x, f, strides=[1, stride, stride, 1], padding=padding)
    want = conv_np(x, f, stride, padding)
    assert out.shape.as_list() == list(want.shape)
    assert_oracle(evaluate(out), want, rtol=1e-10)
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, [1, stride, stride, 1], padding), [x, f], directions=2)


def conv_input_grad_np(dy, f, input_shape, stride, padding):
    """The input gradient written as the adjoint of ``conv_np``: each output position adds
    its gradient times the filter back onto the window it read."""
    n, h, w, c = input_shape
    kh, kw, _, _ = f.shape
    _, oh, ow, _ = dy.shape
    top = left = 0
    if padding == "SAME":
        top = max((oh - 1) * stride + kh - h, 0) // 2
        left = max((ow - 1) * stride + kw - w, 0) // 2
    dx = np.zeros((n, h + 2 * kh + stride * oh, w + 2 * kw + stride * ow, c))  # (room on every side)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * stride + kh, j * stride + kw
            dx[:, r0:r0 + kh, c0:c0 + kw, :] += np.einsum("no,hwco->nhwc", dy[:, i, j, :], f)
    return dx[:, kh + top:kh + top + h, kw + left:kw + left + w, :]


@pytest.mark.parametrize("xs,fs,stride,padding", [
    ((3, 14, 14, 4), (5, 5, 4, 6), 1, "SAME"), ((2, 6, 9, 3), (3, 2, 3, 2), 1, "SAME"),
    ((2, 7, 5, 2), (4, 4, 2, 3), 1, "SAME"), ((2, 8, 7, 3), (3, 3, 3, 2), 1, "VALID"),
    ((2, 20, 18, 3), (3, 3, 3, 2), 1, "VALID"),
    ((1, 3, 3, 2), (3, 3, 2, 2), 1, "VALID"), ((2, 3, 4, 2), (5, 5, 2, 2), 1, "SAME"),
    ((2, 9, 9, 2), (3, 3, 2, 3), 2, "SAME"),
    ((2, 9, 16, 1), (3, 16, 1, 4), 1, "VALID"), ((2, 7, 8, 2), (5, 6, 2, 3), 2, "SAME")], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_input_gradient_matches_numpy(xs, fs, stride, padding, dtype):
    """Through the three kernels: products added in place by BLAS (stride 1, little padding),
    one product per window added where it lies (fewer windows than filter positions: a text
    CNN's filter as wide as its input), and products then adds (the others)."""
    f = r(*fs).astype(dtype)
    oh = -(-xs[1] // stride) if padding == "SAME" else (xs[1] - fs[0]) // stride + 1
    ow = -(-xs[2] // stride) if padding == "SAME" else (xs[2] - fs[1]) // stride + 1
    dy = r(xs[0], oh, ow, fs[3]).astype(dtype)
    got = evaluate(tf.nn.conv2d_backprop_input(list(xs), f, dy, [1, stride, stride, 1], padding))
    assert got.dtype == dtype
    tol = 1e-4 if dtype == np.float32 else 1e-10
    assert_oracle(got, conv_input_grad_np(dy.astype(np.float64), f.astype(np.float64), xs, stride, padding).astype(dtype),
                  rtol=tol, atol=tol)


def conv_filter_grad_np(x, dy, filter_shape, stride, padding):
    """The filter gradient by its definition: each filter tap's input values, as the
    forward convolution read them, times the output gradient, summed over positions."""
    n, h, w, c = x.shape
    kh, kw, _, o = filter_shape
    _, oh, ow, _ = dy.shape
    top = left = 0
    if padding == "SAME":
        top = max((oh - 1) * stride + kh - h, 0) // 2
        left = max((ow - 1) * stride + kw - w, 0) // 2
    xpad = np.zeros((n, h + 2 * kh + stride * oh, w + 2 * kw + stride * ow, c))
    xpad[:, kh:kh + h, kw:kw + w, :] = x
    dw = np.zeros(filter_shape)
    for a in range(kh):
        for b in range(kw):
            r0, c0 = kh - top + a, kw - left + b
            taps = xpad[:, r0:r0 + stride * oh:stride, c0:c0 + stride * ow:stride, :]
            dw[a, b] = np.einsum("nijc,nijo->co", taps, dy)
    return dw


@pytest.mark.parametrize("xs,fs,stride,padding", [
    ((8, 28, 28, 1), (5, 5, 1, 8), 1, "SAME"),  # a first layer: 25-wide windows, 6272 of them
    ((6, 31, 30, 3), (3, 3, 3, 4), 1, "VALID"), ((6, 40, 40, 2), (3, 3, 2, 5), 2, "SAME"),
    ((2, 14, 14, 8), (5, 5, 8, 3), 1, "SAME")], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_filter_gradient_matches_numpy(xs, fs, stride, padding, dtype):
    """Narrow windows of many positions (multiplied in blocks of rows) and wide ones."""
    x = r(*xs).astype(dtype)
    oh = -(-xs[1] // stride) if padding == "SAME" else (xs[1] - fs[0]) // stride + 1
    ow = -(-xs[2] // stride) if padding == "SAME" else (xs[2] - fs[1]) // stride + 1
    dy = r(xs[0], oh, ow, fs[3]).astype(dtype)
    got = evaluate(tf.nn.conv2d_backprop_filter(x, list(fs), dy, [1, stride, stride, 1], padding))
    assert got.dtype == dtype
    tol = 1e-4 if dtype == np.float32 else 1e-10
    want = conv_filter_grad_np(x.astype(np.float64), dy.astype(np.float64), fs, stride, padding)
    assert_oracle(got, want.astype(dtype), rtol=tol, atol=tol * np.abs(want).max())


def test_conv2d_float32_and_second_order():
    x, f = r(1, 5, 5, 2).astype(np.float32), r(3, 3, 2, 2).astype(np.float32)
    assert_oracle(evaluate(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")), conv_np(x, f, 1, "SAME").astype(np.float32),
                  rtol=1e-4, atol=1e-5)
    check_gradients(lambda a, b: tf.nn.conv2d(a, b, [1, 2, 2, 1], "SAME") * 1.0, [r(1, 5, 5, 2), r(3, 3, 2, 2)],
                    order=2, rtol=1e-4, directions=2)


POOL_CASES = [((2, 5, 5, 3), 2, 2, "VALID"), ((1, 5, 6, 2), 3, 2, "SAME"), ((1, 4, 4, 1), 2, 1, "SAME"),
              ((1, 7, 7, 2), 3, 3, "VALID")]


@pytest.mark.parametrize("k,stride,padding", [(2, 2, "VALID"), (3, 1, "SAME"), (3, 2, "SAME"), (2, 3, "VALID")])
def test_pooling_of_a_batch_in_pieces(k, stride, padding):
    """Large enough (over 1 MB) to be pooled by pieces of the batch at once."""
    x = r(16, 24, 23, 16)
    args = ([1, k, k, 1], [1, stride, stride, 1], padding)
    assert_oracle(evaluate(tf.nn.max_pool(x, *args)), pool_np(x, k, stride, padding, np.max))
    assert_oracle(evaluate(tf.nn.avg_pool(x, *args)), pool_np(x, k, stride, padding, np.mean), rtol=1e-12)


@pytest.mark.parametrize("xs,k,stride,padding", POOL_CASES, ids=str)
def test_pooling(xs, k, stride, padding):
    x = r(*xs)
    args = ([1, k, k, 1], [1, stride, stride, 1], padding)
    assert_oracle(evaluate(tf.nn.max_pool(x, *args)), pool_np(x, k, stride, padding, np.max))
    assert_oracle(evaluate(tf.nn.avg_pool(x, *args)), pool_np(x, k, stride, padding, np.mean))
    check_gradients(lambda t: tf.nn.max_pool(t, *args), [x], directions=2)
    check_gradients(lambda t: tf.nn.avg_pool(t, *args), [x], directions=2)


def test_conv_shape_errors():
    with pytest.raises(ValueError, match="Depth of input"):
        tf.nn.conv2d(tf.zeros([1, 4, 4, 3]), tf.zeros([2, 2, 2, 1]), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="strides"):
        tf.nn.conv2d(tf.zeros([1, 4, 4, 3]), tf.zeros([2, 2, 3, 1]), [1, 2, 2], "SAME")
    with pytest.raises(ValueError, match="padding"):
        tf.nn.max_pool(tf.zeros([1, 4, 4, 3]), [1, 2, 2, 1], [1, 2, 2, 1], "FULL")


@pytest.mark.parametrize("shape, k, s, padding", [((2, 8, 6, 3), 2, 2, "SAME"), ((2, 7, 9, 2), 2, 2, "SAME"),
                                                  ((2, 7, 9, 2), 2, 2, "VALID"), ((1, 9, 9, 2), 3, 3, "SAME"),
                                                  ((2, 7, 7, 2), 3, 2, "SAME"), ((2, 6, 7, 2), 3, 1, "SAME"),
                                                  ((1, 8, 8, 2), 3, 1, "VALID")])
def test_max_pool_and_its_gradient_with_ties_match_loops(shape, k, s, padding):
    """Windows that tile the input take their own path; ties go to the first maximum in the
    window (row by row), as TensorFlow routes them."""
    x = np.random.default_rng(5).integers(0, 3, shape).astype(np.float32)  # many ties
    xt = tf.constant(x)
    y = tf.nn.max_pool(xt, [1, k, k, 1], [1, s, s, 1], padding)
    g = np.random.default_rng(6).standard_normal(y.shape.as_list()).astype(np.float32)
    (dx,) = tf.gradients(y, [xt], grad_ys=tf.constant(g))
    with tf.Session() as sess:
        got_y, got_dx = sess.run([y, dx])
    n, h, w, c = shape
    oh, ow = got_y.shape[1:3]
    pad_h = max((oh - 1) * s + k - h, 0) // 2 if padding == "SAME" else 0
    pad_w = max((ow - 1) * s + k - w, 0) // 2 if padding == "SAME" else 0
    want_y, want_dx = np.full(got_y.shape, -np.inf, np.float32), np.zeros(shape, np.float32)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    best = None
                    for di in range(k):
                        for dj in range(k):
                            r, q = i * s + di - pad_h, j * s + dj - pad_w
                            if 0 <= r < h and 0 <= q < w and (best is None or x[b, r, q, ch] > x[b, best[0], best[1], ch]):
                                best = (r, q)
                    want_y[b, i, j, ch] = x[b, best[0], best[1], ch]
                    want_dx[b, best[0], best[1], ch] += g[b, i, j, ch]
    assert_oracle(got_y, want_y)
    assert_oracle(got_dx, want_dx, rtol=1e-6, atol=1e-6)


def test_nchw_convolution_pooling_and_bias_match_nhwc():
    """TensorFlow's CPU kernels refuse NCHW; distflow transposes in and out."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 9, 8))
    f = rng.standard_normal((3, 2, 3, 4))
    b = rng.standard_normal(4)

    def nchw(t):
        y = tf.nn.conv2d(t, f, [1, 1, 2, 1], "SAME", data_format="NCHW")
        y = tf.nn.bias_add(y, b, data_format="NCHW")
        return tf.nn.avg_pool(tf.nn.max_pool(y, [1, 1, 2, 2], [1, 1, 1, 1], "SAME", data_format="NCHW"),
                              [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW")

    def nhwc(t):
        y = tf.nn.bias_add(tf.nn.conv2d(tf.transpose(t, [0, 2, 3, 1]), f, [1, 2, 1, 1], "SAME"), b)
        y = tf.nn.avg_pool(tf.nn.max_pool(y, [1, 2, 2, 1], [1, 1, 1, 1], "SAME"), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        return tf.transpose(y, [0, 3, 1, 2])

    assert_oracle(evaluate(nchw(tf.constant(x))), evaluate(nhwc(tf.constant(x))), rtol=1e-10)
    check_gradients(nchw, [x], directions=2)
    with pytest.raises(ValueError, match="data_format must be 'NHWC' or 'NCHW'"):
        tf.nn.conv2d(tf.constant(x), f, [1, 1, 1, 1], "SAME", data_format="HWNC")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bias_add", [False, True])
def test_bias_gradient_of_a_large_batch_matches_numpy(dtype, bias_add):
    """A bias's gradient sums the leading axes (as a product with ones for large arrays)."""
    x = r(64, 12, 12, 32).astype(dtype)
    w = r(64, 12, 12, 32).astype(dtype)
    b = tf.constant(r(32).astype(dtype))
    y = tf.nn.bias_add(x, b) if bias_add else x + b
    (grad,) = tf.gradients(tf.reduce_sum(y * w), [b])
    tol = 1e-4 if dtype == np.float32 else 1e-10
    assert_oracle(evaluate(grad), w.astype(np.float64).sum(axis=(0, 1, 2)).astype(dtype), rtol=tol, atol=tol)
    small = tf.constant(r(3, 4).astype(dtype))  # (summed by NumPy)
    (grad,) = tf.gradients(tf.reduce_sum(small + b[:4]), [b])
    assert_oracle(evaluate(grad), np.concatenate([np.full(4, 3.0), np.zeros(28)]).astype(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_elu_leaky_relu_and_softplus_and_their_gradients_are_numpys_formulas(dtype):
    # Large arrays with half their elements negative (the kernels compute both sides without
    # a branch), and the edges: zeros of both signs, infinities, NaN, softplus far out.
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(40000) * 4).astype(dtype)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 120.0, -120.0, 1e-30]
    g = rng.standard_normal(40000).astype(dtype)
    x64, g64 = x.astype(np.float64), g.astype(np.float64)
    tol = 1e-6 if dtype == np.float32 else 1e-13
    elu = np.where(x64 > 0, x64, np.expm1(np.minimum(x64, 0)))
    assert_oracle(evaluate(tf.nn.elu(x)), elu.astype(dtype), rtol=tol, atol=tol)
    with np.errstate(invalid="ignore"):
        softplus = np.where(x64 > 30, x64, np.log1p(np.exp(np.minimum(x64, 30))))
    assert_oracle(evaluate(tf.nn.softplus(x)), softplus.astype(dtype), rtol=3 * tol, atol=0)
    scalar = tf.constant(x[8])  # (a 0-d array: NumPy's ufuncs make such results scalars)
    (scalar_grad,) = tf.gradients([tf.nn.elu(scalar), tf.nn.leaky_relu(scalar, 0.2), tf.nn.softplus(scalar)], [scalar])
    got = evaluate([tf.nn.elu(scalar), tf.nn.leaky_relu(scalar, 0.2), tf.nn.softplus(scalar), scalar_grad])
    s = x64[8]
    want = [elu[8], s if s > 0 else 0.2 * s, softplus[8], (1 if s > 0 else np.exp(s)) + (1 if s > 0 else 0.2)
            + 1 / (1 + np.exp(-s))]
    assert_oracle(np.array(got, dtype=np.float64), np.array(want), rtol=3 * tol)
    for alpha in (0.2, 1.0, 3.0):
        leaky = np.where(x64 > 0, x64, x64 * alpha)
        assert_oracle(evaluate(tf.nn.leaky_relu(x, alpha)), leaky.astype(dtype), rtol=tol, atol=0)
        xt = tf.constant(x)
        (got,) = tf.gradients(tf.nn.leaky_relu(xt, alpha), [xt], grad_ys=tf.constant(g))
        assert_oracle(evaluate(got), np.where(x64 > 0, g64, g64 * alpha).astype(dtype), rtol=tol, atol=0)
    xt = tf.constant(x)
    y = tf.nn.elu(xt)
    y_value, got = evaluate([y, tf.gradients(y, [xt], grad_ys=tf.constant(g))[0]])
    with np.errstate(invalid="ignore"):
        want = np.where(y_value > 0, g64, g64 * (y_value.astype(np.float64) + 1))
    assert_oracle(got, want.astype(dtype), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_log_softmax_and_elu_of_large_arrays_in_pieces(dtype):
    x = np.random.default_rng(4).standard_normal((64, 30, 100)).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    x64 = x.astype(np.float64)
    assert_oracle(evaluate(tf.nn.softmax(x)), softmax_np(x64).astype(dtype), rtol=tol, atol=tol)
    assert_oracle(evaluate(tf.nn.log_softmax(x)), np.log(softmax_np(x64)).astype(dtype), rtol=tol, atol=tol)
    assert_oracle(evaluate(tf.nn.elu(x)), np.where(x64 > 0, x64, np.expm1(x64)).astype(dtype), rtol=tol, atol=tol)
