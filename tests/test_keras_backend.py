"""tf.keras.backend's tensor functions (``K.*``) against NumPy written the obvious way: the
convolutions and pools in both data formats, padding and resizing, normalization, the
recurrent loop (unrolled and as a while_loop, masked, backwards), CTC, updates and the
function's session arguments."""

import numpy as np
import pytest

import distflow as tf

K = tf.keras.backend

pytestmark = pytest.mark.usefixtures("fresh_keras")  # (conftest.py: a fresh Keras session and a seed)
RNG = np.random.RandomState(0)


def ev(t):
    return K.get_session().run(t)


def rand(*shape):
    return RNG.uniform(-1, 1, shape).astype(np.float32)


def np_conv(x, w, stride=1, dilation=1):
    """'valid' N-D convolution of channels-last ``x`` [batch, *spatial, in] with ``w`` [*k, in, out]."""
    n = x.ndim - 2
    k = w.shape[:n]
    span = [dilation * (kk - 1) + 1 for kk in k]
    out_sizes = [(x.shape[1 + i] - span[i]) // stride + 1 for i in range(n)]
    out = np.zeros((x.shape[0], *out_sizes, w.shape[-1]), np.float64)
    for pos in np.ndindex(*out_sizes):
        for tap in np.ndindex(*k):
            at = tuple(p * stride + t * dilation for p, t in zip(pos, tap))
            out[(slice(None), *pos)] += x[(slice(None), *at)] @ w[tap]
    return out


def np_pool(x, size, stride, kind):
    n = x.ndim - 2
    out_sizes = [(x.shape[1 + i] - size) // stride + 1 for i in range(n)]
    out = np.zeros((x.shape[0], *out_sizes, x.shape[-1]), x.dtype)
    for pos in np.ndindex(*out_sizes):
        window = x[(slice(None), *[slice(p * stride, p * stride + size) for p in pos])]
        axes = tuple(range(1, n + 1))
        out[(slice(None), *pos)] = window.max(axes) if kind == "max" else window.mean(axes)
    return out


def first(a):
    """Channels-last array -> channels-first."""
    return np.moveaxis(a, -1, 1)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_conv1d_2d_3d_match_numpy_in_either_format(data_format):
    fmt = (lambda a: first(a)) if data_format == "channels_first" else (lambda a: a)
    x1, w1 = rand(2, 9, 3), rand(3, 3, 4)
    x2, w2 = rand(2, 7, 8, 3), rand(3, 2, 3, 4)
    x3, w3 = rand(1, 5, 6, 5, 2), rand(2, 3, 2, 2, 3)
    got = ev([K.conv1d(tf.constant(fmt(x1)), w1, strides=2, data_format=data_format),
              K.conv1d(tf.constant(fmt(x1)), w1, dilation_rate=2, data_format=data_format),
              K.conv2d(tf.constant(fmt(x2)), w2, strides=(1, 1), data_format=data_format),
              K.conv2d(tf.constant(fmt(x2)), w2, dilation_rate=(2, 2), data_format=data_format),
              K.conv3d(tf.constant(fmt(x3)), w3, data_format=data_format)])
    want = [np_conv(x1, w1, stride=2), np_conv(x1, w1, dilation=2), np_conv(x2, w2), np_conv(x2, w2, dilation=2),
            np_conv(x3, w3)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, fmt(w), rtol=1e-4, atol=1e-5)


def test_a_causal_conv1d_sees_no_later_step():
    x, w = rand(2, 8, 3), rand(3, 3, 2)
    got = ev(K.conv1d(tf.constant(x), w, padding="causal", dilation_rate=2))
    padded = np.concatenate([np.zeros((2, 4, 3), np.float32), x], 1)  # dilation * (width - 1) zeros first
    np.testing.assert_allclose(got, np_conv(padded, w, dilation=2), rtol=1e-4, atol=1e-5)
    assert got.shape == (2, 8, 2)
    changed = x.copy()
    changed[:, 5:] += 1.0  # steps from 5 on change; outputs before 5 stay
    np.testing.assert_allclose(ev(K.conv1d(tf.constant(changed), w, padding="causal", dilation_rate=2))[:, :5],
                               got[:, :5], rtol=1e-5)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_separable_and_transposed_conv2d_match_their_definitions(data_format):
    fmt = (lambda a: first(a)) if data_format == "channels_first" else (lambda a: a)
    x, depthwise, pointwise = rand(2, 6, 6, 3), rand(3, 3, 3, 2), rand(1, 1, 6, 4)
    # separable: channel c by its own 2 filters (outputs c*2, c*2+1), then a 1x1 convolution
    per_channel = np.concatenate([np_conv(x[..., c:c + 1], depthwise[:, :, c:c + 1, :]) for c in range(3)], -1)
    want = np_conv(per_channel, pointwise)
    got = ev(K.separable_conv2d(tf.constant(fmt(x)), depthwise, pointwise, data_format=data_format))
    np.testing.assert_allclose(got, fmt(want), rtol=1e-4, atol=1e-5)
    # transposed: <conv2d(y), x> == <y, conv2d_transpose(x)> for the same kernel
    kernel, y = rand(3, 3, 3, 4), rand(2, 6, 6, 3)
    z = rand(2, 4, 4, 4)
    back = ev(K.conv2d_transpose(tf.constant(fmt(z)), kernel, (None, 6, 6, 3) if data_format == "channels_last"
                                 else (None, 3, 6, 6), data_format=data_format))
    np.testing.assert_allclose(np.sum(np_conv(y, kernel) * z), np.sum(y * np.asarray(back if data_format ==
                               "channels_last" else np.moveaxis(back, 1, -1), np.float64)), rtol=1e-4)


@pytest.mark.parametrize("pool_mode", ["max", "avg"])
def test_pool2d_and_pool3d_in_either_format(pool_mode):
    x2, x3 = rand(2, 6, 7, 3), rand(1, 4, 5, 6, 2)
    got = ev([K.pool2d(tf.constant(x2), (2, 2), strides=(2, 2), pool_mode=pool_mode),
              K.pool2d(tf.constant(first(x2)), (2, 2), strides=(2, 2), pool_mode=pool_mode,
                       data_format="channels_first"),
              K.pool3d(tf.constant(x3), (2, 2, 2), strides=(1, 1, 1), pool_mode=pool_mode),
              K.pool3d(tf.constant(first(x3)), (2, 2, 2), strides=(1, 1, 1), pool_mode=pool_mode,
                       data_format="channels_first")])
    np.testing.assert_allclose(got[0], np_pool(x2, 2, 2, pool_mode), rtol=1e-5)
    np.testing.assert_allclose(got[1], first(np_pool(x2, 2, 2, pool_mode)), rtol=1e-5)
    np.testing.assert_allclose(got[2], np_pool(x3, 2, 1, pool_mode), rtol=1e-5)
    np.testing.assert_allclose(got[3], first(np_pool(x3, 2, 1, pool_mode)), rtol=1e-5)
    with pytest.raises(ValueError, match="pool_mode"):
        K.pool2d(tf.constant(x2), (2, 2), pool_mode="sum")
    with pytest.raises(ValueError, match="data_format"):
        K.pool2d(tf.constant(x2), (2, 2), data_format="channels_middle")


def test_bias_add_per_channel_or_per_place_in_either_format():
    x3, x4, x5 = rand(2, 3, 4), rand(2, 3, 4, 5), rand(2, 3, 4, 5, 6)
    b, b5 = rand(3), rand(5)
    got = ev([K.bias_add(tf.constant(x4), b5),
              K.bias_add(tf.constant(x3), b, data_format="channels_first"),
              K.bias_add(tf.constant(x4), b, data_format="channels_first"),
              K.bias_add(tf.constant(x5), b, data_format="channels_first")])
    np.testing.assert_allclose(got[0], x4 + b5, rtol=1e-6)
    np.testing.assert_allclose(got[1], x3 + b[None, :, None], rtol=1e-6)
    np.testing.assert_allclose(got[2], x4 + b[None, :, None, None], rtol=1e-6)
    np.testing.assert_allclose(got[3], x5 + b[None, :, None, None, None], rtol=1e-6)
    # a bias of the input's own shape (without its batch): channels-last laid out
    place = rand(4, 5, 3)
    np.testing.assert_allclose(ev(K.bias_add(tf.constant(x4), place, data_format="channels_first")),
                               x4 + np.moveaxis(place, -1, 0)[None], rtol=1e-6)
    np.testing.assert_allclose(ev(K.bias_add(tf.constant(x4), rand(3, 4, 5) * 0 + 1)), x4 + 1, rtol=1e-6)
    with pytest.raises(ValueError, match="bias dimensions 2"):
        K.bias_add(tf.constant(x4), rand(4, 5))
    with pytest.raises(ValueError, match="data_format"):
        K.bias_add(tf.constant(x4), rand(5), data_format="unknown")
    with pytest.raises(ValueError, match="at least rank 2"):
        K.bias_add(K.variable([3.0, 4.0]), K.variable([3.0, 4.0]))


def test_padding_and_resizing():
    x3, x4, x5 = rand(2, 3, 4), rand(2, 3, 4, 2), rand(1, 2, 3, 2, 2)
    got = ev([K.temporal_padding(tf.constant(x3), (1, 2)),
              K.spatial_2d_padding(tf.constant(x4), ((1, 0), (2, 3))),
              K.spatial_2d_padding(tf.constant(first(x4)), ((1, 0), (2, 3)), data_format="channels_first"),
              K.spatial_3d_padding(tf.constant(x5), ((1, 1), (0, 2), (1, 0))),
              K.resize_images(tf.constant(x4), 2, 3, "channels_last"),
              K.resize_images(tf.constant(first(x4)), 2, 3, "channels_first"),
              K.resize_volumes(tf.constant(x5), 2, 1, 3, "channels_last")])
    np.testing.assert_array_equal(got[0], np.pad(x3, [(0, 0), (1, 2), (0, 0)]))
    np.testing.assert_array_equal(got[1], np.pad(x4, [(0, 0), (1, 0), (2, 3), (0, 0)]))
    np.testing.assert_array_equal(got[2], first(np.pad(x4, [(0, 0), (1, 0), (2, 3), (0, 0)])))
    np.testing.assert_array_equal(got[3], np.pad(x5, [(0, 0), (1, 1), (0, 2), (1, 0), (0, 0)]))
    np.testing.assert_array_equal(got[4], x4.repeat(2, 1).repeat(3, 2))
    np.testing.assert_array_equal(got[5], first(x4.repeat(2, 1).repeat(3, 2)))
    np.testing.assert_array_equal(got[6], x5.repeat(2, 1).repeat(3, 3))
    with pytest.raises(ValueError, match="2 pairs"):
        K.spatial_2d_padding(tf.constant(x4), ((1, 1),))


def test_repeat_and_repeat_elements_with_unknown_sizes():
    x = tf.placeholder(tf.float32, [None, None])
    a = rand(2, 3)
    sess = K.get_session()
    got = sess.run([K.repeat(x, 3), K.repeat_elements(x, 2, axis=1), K.repeat_elements(x, 3, axis=0)], {x: a})
    np.testing.assert_array_equal(got[0], np.repeat(a[:, None], 3, 1))
    np.testing.assert_array_equal(got[1], a.repeat(2, 1))
    np.testing.assert_array_equal(got[2], a.repeat(3, 0))
    # tf.repeat itself: a tensor of counts, one per element, for an axis of unknown size
    counts = tf.placeholder(tf.int32, [None])
    np.testing.assert_array_equal(sess.run(tf.repeat(x, counts, axis=0), {x: a, counts: [0, 2]}), a[[1, 1]])
    assert K.repeat_elements(tf.constant(a), 2, axis=1).shape.as_list() == [2, 6]


def test_normalization_functions():
    x, gamma, beta = rand(4, 3, 5), rand(5), rand(5)
    normed, mean, var = K.normalize_batch_in_training(tf.constant(x), gamma, beta, [0, 1], epsilon=1e-3)
    want_mean, want_var = x.mean((0, 1)), x.var((0, 1))
    got = ev([normed, mean, var])
    np.testing.assert_allclose(got[0], gamma * (x - want_mean) / np.sqrt(want_var + 1e-3) + beta, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], want_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], want_var, rtol=1e-5)
    # over axes 0 and 2 (channels in the middle), without gamma
    gamma3, beta3 = rand(3), rand(3)
    normed, mean, var = K.normalize_batch_in_training(tf.constant(x), gamma3, None, [0, 2])
    m, v = x.mean((0, 2)), x.var((0, 2))
    np.testing.assert_allclose(ev(normed), gamma3[:, None] * (x - m[:, None]) / np.sqrt(v[:, None] + 1e-3),
                               rtol=1e-4, atol=1e-5)
    # batch_normalization along axis 1 with per-channel statistics
    got = ev(K.batch_normalization(tf.constant(x), m, v, beta3, gamma3, axis=1, epsilon=1e-3))
    np.testing.assert_allclose(got, gamma3[:, None] * (x - m[:, None]) / np.sqrt(v[:, None] + 1e-3) + beta3[:, None],
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(TypeError, match="axis"):
        K.batch_normalization(tf.constant(x), m, v, beta3, gamma3, 1e-3)


def np_rnn(xs, w, u, h0, mask=None, backwards=False):
    """h_t = tanh(x_t w + h_{t-1} u) (a masked step keeps the old output and state)."""
    steps = list(range(xs.shape[1]))[::-1] if backwards else list(range(xs.shape[1]))
    h, out_prev, outs = h0, np.zeros_like(h0), []
    for t in steps:
        new = np.tanh(xs[:, t] @ w + h @ u)
        if mask is not None:
            keep = mask[:, t][:, None]
            new = np.where(keep, new, h)
            out = np.where(keep, new, out_prev)
        else:
            out = new
        h, out_prev = new, out
        outs.append(out)
    return outs[-1], np.stack(outs, 1), h


@pytest.mark.parametrize("unroll", [False, True])
@pytest.mark.parametrize("backwards", [False, True])
def test_rnn_runs_a_step_function_over_time_masked_and_backwards(unroll, backwards):
    xs, w, u, h0 = rand(3, 5, 4), rand(4, 6), rand(6, 6), rand(3, 6)
    mask = np.ones((3, 5), bool)
    mask[0, 3:] = False
    mask[2, :2] = False
    bias = tf.constant(np.zeros(6, np.float32))

    def step(x, states):
        h, b = states[0], states[1]  # (the constant comes after the states)
        new = tf.tanh(tf.matmul(x, w) + tf.matmul(h, u) + b)
        return new, [new]

    for m in (None, mask):
        last, outputs, states = K.rnn(step, tf.constant(xs), [tf.constant(h0)], go_backwards=backwards,
                                      mask=None if m is None else tf.constant(m), constants=[bias], unroll=unroll)
        got = ev([last, outputs, states[0]])
        want = np_rnn(xs, w, u, h0, m, backwards)
        for g, wv in zip(got, want):
            np.testing.assert_allclose(g, wv, rtol=1e-5, atol=1e-6)
        assert outputs.shape.as_list() == [3, 5, 6]


def test_rnn_of_unknown_length_and_its_errors():
    x = tf.placeholder(tf.float32, [None, None, 2])
    last, outputs, _ = K.rnn(lambda x_t, s: (x_t + s[0], [x_t + s[0]]), x, [tf.zeros([2, 2])])
    xs = rand(2, 4, 2)
    got = K.get_session().run([last, outputs], {x: xs})
    np.testing.assert_allclose(got[1], np.cumsum(xs, 1), rtol=1e-5)
    np.testing.assert_allclose(got[0], xs.sum(1), rtol=1e-5)
    with pytest.raises(ValueError, match="fixed number of time steps"):
        K.rnn(lambda x_t, s: (x_t, s), x, [tf.zeros([2, 2])], unroll=True)
    with pytest.raises(ValueError, match="at least 3-D"):
        K.rnn(lambda x_t, s: (x_t, s), tf.zeros([2, 3]), [tf.zeros([2, 2])])


def test_ctc_cost_and_greedy_decode():
    # two classes and the blank (2); a path probability the test can write out
    y_pred = np.array([[[0.6, 0.1, 0.3], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]]], np.float32)
    cost = ev(K.ctc_batch_cost(np.array([[0, 1]]), tf.constant(y_pred), np.array([[3]]), np.array([[2]])))
    p = y_pred[0]
    # the label "0 1" in 3 steps: 0 1 b, 0 b 1, b 0 1, 0 0 1, 0 1 1
    paths = [(0, 1, 2), (0, 2, 1), (2, 0, 1), (0, 0, 1), (0, 1, 1)]
    total = sum(np.prod([p[t, c] for t, c in enumerate(path)]) for path in paths)
    np.testing.assert_allclose(cost, [[-np.log(total)]], rtol=1e-3)
    (decoded,), log_prob = K.ctc_decode(tf.constant(np.concatenate([y_pred, y_pred[:, ::-1]])), np.array([3, 2]))
    got, lp = ev([decoded, log_prob])
    np.testing.assert_array_equal(got, [[0, 1], [1, -1]])  # the second: blank, then 1 (0.7)
    np.testing.assert_allclose(lp[0], [-np.log(0.6 * 0.7 * 0.8)], rtol=1e-3)
    sparse = ev(K.ctc_label_dense_to_sparse(np.array([[1, 2, 3], [4, 5, 6]]), np.array([2, 1])))
    np.testing.assert_array_equal(sparse.indices, [[0, 0], [0, 1], [1, 0]])
    np.testing.assert_array_equal(sparse.values, [1, 2, 4])
    np.testing.assert_array_equal(sparse.dense_shape, [2, 3])


def test_updates_and_variables():
    v = K.variable(np.array([1.0, 2.0]))
    sess = K.get_session()
    sess.run(K.update_add(v, [1.0, 1.0]))
    sess.run(K.update_sub(v, [0.5, 0.0]))
    np.testing.assert_allclose(K.get_value(v), [1.5, 3.0])
    sess.run(K.update(v, [0.0, 0.0]))
    sess.run(K.moving_average_update(v, tf.constant([10.0, 20.0]), 0.9))  # 0.9 * 0 + 0.1 * value, not debiased
    np.testing.assert_allclose(K.get_value(v), [1.0, 2.0], rtol=1e-6)
    np.testing.assert_array_equal(K.eval(K.eye(3)), np.eye(3))
    assert K.cast_to_floatx([1, 2]).dtype == np.float32
    normal = K.random_normal_variable((200, 50), 1.0, 2.0, seed=3)
    uniform = K.random_uniform_variable((200, 50), -1.0, 3.0, seed=3)
    n, u = K.batch_get_value([normal, uniform])
    assert abs(n.mean() - 1.0) < 0.1 and abs(n.std() - 2.0) < 0.1
    assert u.min() >= -1.0 and u.max() < 3.0 and abs(u.mean() - 1.0) < 0.1
    b = K.eval(K.random_binomial((1000,), p=0.3, seed=1))
    assert set(np.unique(b)) <= {0.0, 1.0} and 0.25 < b.mean() < 0.35
    t = K.eval(K.truncated_normal((2000,), 0.0, 1.0, seed=2))
    assert np.abs(t).max() <= 2.0


def test_sparse_values_and_placeholders():
    scipy_sparse = pytest.importorskip("scipy.sparse")
    dense = np.array([[0, 1.5, 0], [2.0, 0, 0]])
    v = K.variable(scipy_sparse.csr_matrix(dense))
    assert K.is_sparse(v) and not K.is_keras_tensor(v)
    np.testing.assert_array_equal(K.eval(K.to_dense(v)), dense)
    p = K.placeholder((None, 3), sparse=True)
    assert K.is_sparse(p) and K.is_placeholder(K.placeholder((1,)))
    assert not K.is_placeholder(K.variable(1.0)) and not K.is_keras_tensor(K.variable(1.0))
    with pytest.raises(ValueError, match="symbolic tensor"):
        K.is_keras_tensor(0)


def test_elementwise_and_reductions():
    a, b = rand(3, 4), rand(3, 4)
    got = ev([K.argmin(tf.constant(a)), K.prod(tf.constant(a), axis=1, keepdims=True), K.sin(tf.constant(a)),
              K.cos(tf.constant(a)), K.greater_equal(tf.constant(a), b), K.less_equal(tf.constant(a), b),
              K.reverse(tf.constant(a), 1), K.reverse(tf.constant(a), [0, 1]),
              K.map_fn(lambda r: r * 2.0, tf.constant(a)), K.foldl(lambda acc, r: acc + r, tf.constant(a)),
              K.foldr(lambda acc, r: acc * 0.5 + r, tf.constant(a)),
              K.in_top_k(tf.constant(a), tf.constant([0, 1, 2]), 2)])
    np.testing.assert_array_equal(got[0], a.argmin(-1))
    np.testing.assert_allclose(got[1], a.prod(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(got[2], np.sin(a), rtol=1e-5)
    np.testing.assert_allclose(got[3], np.cos(a), rtol=1e-5)
    np.testing.assert_array_equal(got[4], a >= b)
    np.testing.assert_array_equal(got[5], a <= b)
    np.testing.assert_array_equal(got[6], a[:, ::-1])
    np.testing.assert_array_equal(got[7], a[::-1, ::-1])
    np.testing.assert_allclose(got[8], a * 2, rtol=1e-6)
    np.testing.assert_allclose(got[9], a.sum(0), rtol=1e-5)
    acc = a[2]
    for row in (a[1], a[0]):
        acc = acc * 0.5 + row
    np.testing.assert_allclose(got[10], acc, rtol=1e-5)
    np.testing.assert_array_equal(got[11], [(a[i] > a[i, i]).sum() < 2 for i in range(3)])
    ys = K.stop_gradient([tf.constant(a), tf.constant(b)])
    assert [y.op.type for y in ys] == ["StopGradient"] * 2
    assert tf.gradients(tf.reduce_sum(K.stop_gradient(tf.constant(a)) * 2.0), []) == []
    with pytest.raises(ValueError, match="1D"):
        K.softmax(tf.constant([1.0, 2.0]))


def test_function_runs_updates_after_outputs_and_takes_session_arguments():
    x, y = K.variable(0.0), K.variable(0.0)
    a, b = K.placeholder(shape=()), K.placeholder(shape=())
    extra = {b: 3.0}
    f = K.function([a], [a + x], updates=[(x, a + 10.0)], feed_dict=extra, fetches=[K.update(y, b * 10.0)])
    assert f([1.0]) == [1.0]  # (the output read x before its update)
    assert K.batch_get_value([x, y]) == [11.0, 30.0]
    extra[b] = 4.0  # the dict is read at each call
    assert f([2.0]) == [13.0]
    assert K.get_value(y) == 40.0
    with pytest.raises(ValueError, match="Invalid argument 'colour'"):
        K.function([a], [a], colour="red")
    with pytest.raises(ValueError, match="1 inputs were declared, 2 values given"):
        f([1.0, 2.0])


def test_manual_variable_initialization_leaves_variables_to_the_program():
    K.manual_variable_initialization(True)
    try:
        v = K.variable(5.0)
        with pytest.raises(tf.errors.FailedPreconditionError):
            K.get_session().run(v)
        K.get_session().run(v.initializer)
        assert K.get_value(v) == 5.0
    finally:
        K.manual_variable_initialization(False)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_local_conv1d_and_2d_match_their_definition(data_format):
    rng = np.random.RandomState(4)
    first = data_format == "channels_first"
    x = rng.randn(2, 7, 3).astype(np.float32)  # (channels last; moved first below where asked)
    kernel = rng.randn(3, 3 * 3, 4).astype(np.float32)  # (3 output steps: windows of 3 every 2)
    given = x.transpose(0, 2, 1) if first else x
    got = K.eval(K.local_conv1d(K.constant(given), K.constant(kernel), (3,), (2,), data_format))

    def patch(window):  # (a window flattened as TF flattens it: channel-major for channels_first)
        return (window.transpose(0, 2, 1) if first else window).reshape(len(window), -1)

    steps = np.stack([patch(x[:, i * 2:i * 2 + 3, :]) @ kernel[i] for i in range(3)], 1)
    np.testing.assert_allclose(got, steps.transpose(0, 2, 1) if first else steps, rtol=1e-5, atol=1e-5)

    x2 = rng.randn(2, 5, 4, 3).astype(np.float32)
    kernel2 = rng.randn(2 * 3, 2 * 2 * 3, 5).astype(np.float32)  # (output 2 x 3: 2x2 windows, strides 2 and 1)
    given = x2.transpose(0, 3, 1, 2) if first else x2
    got = K.eval(K.local_conv2d(K.constant(given), K.constant(kernel2), (2, 2), (2, 1), (2, 3), data_format))
    expected = np.zeros((2, 2, 3, 5), np.float32)
    for i in range(2):
        for j in range(3):
            window = x2[:, i * 2:i * 2 + 2, j:j + 2, :]
            flat = (window.transpose(0, 3, 1, 2) if first else window).reshape(2, -1)
            expected[:, i, j] = flat @ kernel2[i * 3 + j]
    np.testing.assert_allclose(got, expected.transpose(0, 3, 1, 2) if first else expected, rtol=1e-5, atol=1e-5)


def test_cumprod_and_the_learning_phase_scope():
    np.testing.assert_allclose(K.eval(K.cumprod(K.constant([[1.0, 2.0], [3.0, 4.0]]), axis=1)), [[1, 2], [3, 12]])
    before = K.learning_phase()
    with K.learning_phase_scope(1):
        assert K.learning_phase() == 1
        dropped = tf.keras.layers.Dropout(0.5)(K.ones((1000,)))
    assert K.learning_phase() is before
    kept = K.eval(dropped)
    assert 0.3 < np.mean(kept == 0) < 0.7  # (built in the training phase: it drops)
    with pytest.raises(ValueError, match="0 or 1"):
        K.learning_phase_scope(2)
