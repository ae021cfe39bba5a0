"""3-D convolutions and pooling against direct NumPy loops; gradients against central differences."""

import itertools

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate
from gradcheck import check_gradients


def pad_same(x, window, strides, fill=0.0):
    pads = []
    for size, k, s in zip(x.shape[1:4], window, strides):
        out = -(-size // s)
        total = max((out - 1) * s + k - size, 0)
        pads.append((total // 2, total - total // 2))
    return np.pad(x, [(0, 0)] + pads + [(0, 0)], constant_values=fill)


def windows(x, window, strides, padding, fill=0.0):
    if padding == "SAME":
        x = pad_same(x, window, strides, fill)
    out = [(size - k) // s + 1 for size, k, s in zip(x.shape[1:4], window, strides)]
    for d, h, w in itertools.product(*map(range, out)):
        yield (d, h, w), x[:, d * strides[0]:d * strides[0] + window[0], h * strides[1]:h * strides[1] + window[1],
                           w * strides[2]:w * strides[2] + window[2]]
    return out


def conv3d_ref(x, f, strides, padding):
    results = dict(windows(x, f.shape[:3], strides, padding))
    shape = np.max(list(results), axis=0) + 1
    out = np.zeros((x.shape[0], *shape, f.shape[4]))
    for (d, h, w), patch in results.items():
        out[:, d, h, w] = np.einsum("nijkc,ijkco->no", patch, f)
    return out


def pool3d_ref(x, window, strides, padding, kind):
    fill = -np.inf if kind == "max" else np.nan
    results = dict(windows(x, window, strides, padding, fill))
    shape = np.max(list(results), axis=0) + 1
    out = np.zeros((x.shape[0], *shape, x.shape[4]))
    for (d, h, w), patch in results.items():
        out[:, d, h, w] = patch.max(axis=(1, 2, 3)) if kind == "max" else np.nanmean(patch, axis=(1, 2, 3))
    return out


@pytest.mark.parametrize("padding,strides", [("VALID", [1, 1, 1]), ("SAME", [1, 2, 2]), ("SAME", [2, 1, 3])])
def test_conv3d_matches_numpy_and_its_gradients(padding, strides):
    rng = np.random.default_rng(0)
    x, f = rng.standard_normal((2, 4, 5, 6, 2)), rng.standard_normal((2, 3, 2, 2, 3))
    s5 = [1, *strides, 1]
    assert_oracle(evaluate(tf.nn.conv3d(x, f, s5, padding)), conv3d_ref(x, f, strides, padding), rtol=1e-10)
    check_gradients(lambda a, b: tf.nn.conv3d(a, b, s5, padding), [x[:1, :3, :4, :4], f])


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_a_dilated_conv3d_reads_taps_rate_apart(padding):
    rng = np.random.default_rng(4)
    x, f = rng.standard_normal((1, 7, 6, 7, 2)), rng.standard_normal((2, 2, 3, 2, 3))
    rates = [2, 1, 3]
    # (the oracle: the filter with rate - 1 zeros between its taps, convolved directly)
    spread = np.zeros([(k - 1) * r + 1 for k, r in zip(f.shape[:3], rates)] + list(f.shape[3:]))
    spread[::rates[0], ::rates[1], ::rates[2]] = f
    got = evaluate(tf.nn.conv3d(x, f, [1] * 5, padding, dilations=[1, *rates, 1]))
    assert_oracle(got, conv3d_ref(x, spread, [1, 1, 1], padding), rtol=1e-10)
    check_gradients(lambda a, b: tf.nn.conv3d(a, b, [1] * 5, padding, dilations=[1, *rates, 1]), [x[:, :5, :4, :], f])
    with pytest.raises(ValueError, match="needs strides of 1"):
        tf.nn.conv3d(x, f, [1, 2, 1, 1, 1], padding, dilations=[1, *rates, 1])


def test_the_3d_ops_take_ncdhw_as_ndhwc_transposed():
    rng = np.random.default_rng(5)
    x, f = rng.standard_normal((2, 5, 4, 6, 3)), rng.standard_normal((2, 3, 2, 3, 4))
    to_first, to_last = [0, 4, 1, 2, 3], [0, 2, 3, 4, 1]

    def first(v):  # (an NDHWC-ordered attribute in NCDHW order)
        return [v[i] for i in to_first]

    strides = [1, 2, 1, 2, 1]
    y = evaluate(tf.nn.conv3d(x, f, strides, "SAME"))
    dy = rng.standard_normal(y.shape)
    pairs = [
        (y, tf.nn.conv3d(x.transpose(to_first), f, first(strides), "SAME", data_format="NCDHW")),
        (evaluate(tf.nn.conv3d(x, f, [1] * 5, "VALID", dilations=[1, 2, 1, 2, 1])),
         tf.nn.conv3d(x.transpose(to_first), f, [1] * 5, "VALID", data_format="NCDHW", dilations=[1, 1, 2, 1, 2])),
        (evaluate(tf.nn.max_pool3d(x, [1, 2, 2, 3, 1], strides, "SAME")),
         tf.nn.max_pool3d(x.transpose(to_first), first([1, 2, 2, 3, 1]), first(strides), "SAME",
                          data_format="NCDHW")),
        (evaluate(tf.nn.avg_pool3d(x, [1, 2, 2, 2, 1], strides, "VALID")),
         tf.nn.avg_pool3d(x.transpose(to_first), first([1, 2, 2, 2, 1]), first(strides), "VALID",
                          data_format="NCDHW")),
        (evaluate(tf.nn.conv3d_transpose(dy, f, list(x.shape), strides, "SAME")),
         tf.nn.conv3d_transpose(dy.transpose(to_first), f, first(list(x.shape)), first(strides), "SAME",
                                data_format="NCDHW")),
    ]
    for want, got in pairs:
        assert_oracle(evaluate(got).transpose(to_last), want, rtol=1e-12)
    fgrad = tf.nn.conv3d_backprop_filter_v2(x.transpose(to_first), list(f.shape), dy.transpose(to_first),
                                            first(strides), "SAME", data_format="NCDHW")
    assert_oracle(evaluate(fgrad), evaluate(tf.nn.conv3d_backprop_filter_v2(x, list(f.shape), dy, strides, "SAME")),
                  rtol=1e-12)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("padding,strides", [("VALID", [2, 2, 2]), ("SAME", [1, 2, 2])])
def test_pool3d_matches_numpy_and_its_gradients(kind, padding, strides):
    x = np.random.default_rng(1).permutation(2 * 4 * 5 * 4 * 2).reshape(2, 4, 5, 4, 2) / 7.0
    pool = tf.nn.max_pool3d if kind == "max" else tf.nn.avg_pool3d
    window = [2, 3, 2]
    got = evaluate(pool(x, [1, *window, 1], [1, *strides, 1], padding))
    assert_oracle(got, pool3d_ref(x, window, strides, padding, kind), rtol=1e-10)
    check_gradients(lambda t: pool(t, [1, *window, 1], [1, *strides, 1], padding), [x[:1]])


def test_conv3d_transpose_is_the_input_gradient_and_has_gradients():
    rng = np.random.default_rng(2)
    x, f = rng.standard_normal((1, 4, 4, 4, 2)), rng.standard_normal((2, 2, 2, 2, 3))
    y = rng.standard_normal((1, 2, 2, 2, 3))
    xt = tf.constant(x)
    grad = tf.gradients(tf.reduce_sum(tf.nn.conv3d(xt, f, [1, 2, 2, 2, 1], "SAME") * y), xt)[0]
    assert_oracle(evaluate(tf.nn.conv3d_transpose(y, f, [1, 4, 4, 4, 2], [1, 2, 2, 2, 1], "SAME")), evaluate(grad),
                  rtol=1e-10)
    check_gradients(lambda v, w: tf.nn.conv3d_transpose(v, w, [1, 4, 4, 4, 2], [1, 2, 2, 2, 1], "SAME"), [y, f])
    fgrad = evaluate(tf.nn.conv3d_backprop_filter_v2(x, [2, 2, 2, 2, 3], y, [1, 2, 2, 2, 1], "SAME"))
    want = sum(np.einsum("nijkc,no->ijkco", x[:, 2 * d:2 * d + 2, 2 * h:2 * h + 2, 2 * w:2 * w + 2], y[:, d, h, w])
               for d, h, w in itertools.product(range(2), repeat=3))
    assert_oracle(fgrad, want, rtol=1e-10)


def test_3d_layers_build_variables_and_train_shapes():
    volume = tf.placeholder(tf.float32, [None, 8, 8, 8, 1])
    net = tf.layers.conv3d(volume, 4, 3, padding="same", activation=tf.nn.relu, name="c1")
    net = tf.layers.max_pooling3d(net, 2, 2)
    net = tf.layers.Conv3DTranspose(2, 2, strides=2, name="up")(net)
    net = tf.layers.average_pooling3d(net, 2, 2, padding="same")
    assert net.shape.as_list() == [None, 4, 4, 4, 2]
    assert sorted(v.op.name for v in tf.trainable_variables()) == ["c1/bias", "c1/kernel", "up/bias", "up/kernel"]
    assert tf.get_default_graph().get_tensor_by_name("c1/kernel:0").shape.as_list() == [3, 3, 3, 1, 4]
    loss = tf.reduce_mean(tf.square(net))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {volume: np.random.default_rng(3).standard_normal((2, 8, 8, 8, 1))}
        before = sess.run(loss, feed)
        for _ in range(5):
            sess.run(train, feed)
        assert sess.run(loss, feed) < before


def test_separable_conv_layers():
    images = tf.constant(np.random.default_rng(4).standard_normal((2, 6, 6, 3)), tf.float32)
    out = tf.layers.separable_conv2d(images, 5, 3, depth_multiplier=2, name="sep")
    assert out.shape.as_list() == [2, 4, 4, 5]
    shapes = {v.op.name: v.shape.as_list() for v in tf.trainable_variables()}
    assert shapes == {"sep/depthwise_kernel": [3, 3, 3, 2], "sep/pointwise_kernel": [1, 1, 6, 5], "sep/bias": [5]}
    seq = tf.layers.SeparableConv1D(4, 3, padding="same", name="sep1d")(tf.zeros([2, 10, 3]))
    assert seq.shape.as_list() == [2, 10, 4]
    dilated = tf.layers.separable_conv2d(images, 5, 3, dilation_rate=2, padding="same", name="sep_dilated")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        dw, pw, got = sess.run(["sep/depthwise_kernel:0", "sep/pointwise_kernel:0", out])
        dw2, pw2, got_dilated = sess.run(["sep_dilated/depthwise_kernel:0", "sep_dilated/pointwise_kernel:0", dilated])
    want = evaluate(tf.nn.separable_conv2d(images, dw, pw, [1, 1, 1, 1], "VALID"))
    assert_oracle(got, want, rtol=1e-5)
    want = evaluate(tf.nn.separable_conv2d(images, dw2, pw2, [1, 1, 1, 1], "SAME", rate=[2, 2]))
    assert_oracle(got_dilated, want, rtol=1e-5, atol=1e-6)
