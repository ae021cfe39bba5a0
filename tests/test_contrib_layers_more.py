"""More of tf.contrib.layers (TF-Slim's layers): separable convolutions, instance and group
normalization, bias_add, softmax, unit_norm and the 3-D pools, against NumPy and the nn ops."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(41)
slim = tf.contrib.slim


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def _names():
    return sorted(v.op.name for v in tf.global_variables())


@pytest.mark.parametrize("num_outputs", [5, None])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_separable_conv2d_is_a_depthwise_then_a_pointwise_convolution(num_outputs, data_format):
    x = RNG.standard_normal((2, 7, 6, 3))
    first = data_format == "NCHW"
    with tf.Graph().as_default():
        inputs = tf.constant(x.transpose(0, 3, 1, 2) if first else x)
        out = tf.contrib.layers.separable_conv2d(inputs, num_outputs, [3, 2], depth_multiplier=2, stride=2,
                                                 data_format=data_format,
                                                 biases_initializer=tf.constant_initializer(0.25))
        expected = ["SeparableConv2d/biases", "SeparableConv2d/depthwise_weights"] + (
            ["SeparableConv2d/pointwise_weights"] if num_outputs else [])
        assert _names() == expected
        assert tf.get_default_graph().get_tensor_by_name("SeparableConv2d/depthwise_weights:0").shape.as_list() == \
            [3, 2, 3, 2]
        got, weights = _run([out, {n: n + ":0" for n in expected}])
    dw = weights["SeparableConv2d/depthwise_weights"]
    with tf.Graph().as_default():
        if num_outputs:
            want = tf.nn.separable_conv2d(x, dw, weights["SeparableConv2d/pointwise_weights"], [1, 2, 2, 1], "SAME")
        else:
            want = tf.nn.depthwise_conv2d(x, dw, [1, 2, 2, 1], "SAME")
        want = _run(tf.nn.relu(want + 0.25))
    np.testing.assert_allclose(got.transpose(0, 2, 3, 1) if first else got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_instance_norm_normalizes_each_examples_channels_over_space(data_format):
    x = RNG.standard_normal((2, 4, 5, 3)) * 3 + 1
    first = data_format == "NCHW"
    with tf.Graph().as_default():
        out = tf.contrib.layers.instance_norm(tf.constant(x.transpose(0, 3, 1, 2) if first else x),
                                              data_format=data_format,
                                              param_initializers={"gamma": tf.constant_initializer([1.0, 2.0, 0.5]),
                                                                  "beta": tf.constant_initializer(0.1)})
        assert _names() == ["InstanceNorm/beta", "InstanceNorm/gamma"]
        got = _run(out)
    mean, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-6) * [1.0, 2.0, 0.5] + 0.1
    np.testing.assert_allclose(got.transpose(0, 2, 3, 1) if first else got, want, rtol=1e-10)


def test_group_norm_normalizes_groups_of_channels():
    x = RNG.standard_normal((2, 3, 4, 6)) * 2 - 1
    with tf.Graph().as_default():
        out = tf.contrib.layers.group_norm(tf.constant(x), groups=2,
                                           param_initializers={"gamma": tf.constant_initializer(np.arange(1, 7.0))})
        nchw = tf.contrib.layers.group_norm(tf.constant(x.transpose(0, 3, 1, 2)), groups=2, channels_axis=-3,
                                            reduction_axes=(-2, -1), scope="nchw")
        assert _names() == ["GroupNorm/beta", "GroupNorm/gamma", "nchw/beta", "nchw/gamma"]
        got, got_nchw = _run([out, nchw])
        with pytest.raises(ValueError, match="not commensurate"):
            tf.contrib.layers.group_norm(tf.constant(x), groups=4)
    g = x.reshape(2, 3, 4, 2, 3)
    normed = ((g - g.mean((1, 2, 4), keepdims=True)) / np.sqrt(g.var((1, 2, 4), keepdims=True) + 1e-6))
    normed = normed.reshape(x.shape)
    np.testing.assert_allclose(got, normed * np.arange(1, 7.0), rtol=1e-10)
    np.testing.assert_allclose(got_nchw.transpose(0, 2, 3, 1), normed, rtol=1e-10)


def test_bias_add_softmax_unit_norm_and_the_activation_aliases():
    x = RNG.standard_normal((2, 3, 4))
    with tf.Graph().as_default():
        biased = tf.contrib.layers.bias_add(tf.constant(x), initializer=tf.constant_initializer([1.0, 2.0, 3.0, 4.0]))
        channels_first = tf.contrib.layers.bias_add(tf.constant(x), data_format="NCHW", scope="first")
        probs = tf.contrib.layers.softmax(tf.constant(x))
        unit = tf.contrib.layers.unit_norm(tf.constant(x), 1)
        dense = tf.contrib.layers.linear(tf.constant(x[0]), 2, weights_initializer=tf.constant_initializer(-1.0),
                                         scope="lin")
        assert _names() == ["BiasAdd/biases", "first/biases", "lin/biases", "lin/weights"]
        assert tf.get_default_graph().get_tensor_by_name("first/biases:0").shape.as_list() == [3]
        got = _run([biased, channels_first, probs, unit, dense])
    np.testing.assert_allclose(got[0], x + [1.0, 2.0, 3.0, 4.0], rtol=1e-12)
    np.testing.assert_allclose(got[1], x, rtol=1e-12)  # (zero biases along axis 1)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(got[2], e / e.sum(-1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(got[3], x / np.sqrt(1e-7 + (x ** 2).sum(1, keepdims=True)), rtol=1e-12)
    np.testing.assert_allclose(got[4], -x[0].sum(1, keepdims=True) * np.ones(2), rtol=1e-12)  # (no activation)


@pytest.mark.parametrize("data_format", ["NDHWC", "NCDHW"])
def test_the_3d_pools(data_format):
    x = RNG.standard_normal((1, 4, 4, 6, 2))
    first = data_format == "NCDHW"
    with tf.Graph().as_default():
        inputs = tf.constant(x.transpose(0, 4, 1, 2, 3) if first else x)
        got = _run([slim.max_pool3d(inputs, 2, data_format=data_format),
                    slim.avg_pool3d(inputs, [2, 2, 3], stride=[1, 2, 3], data_format=data_format)])
        want = _run([tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"),
                     tf.nn.avg_pool3d(x, [1, 2, 2, 3, 1], [1, 1, 2, 3, 1], "VALID")])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.transpose(0, 2, 3, 4, 1) if first else g, w, rtol=1e-12)


def test_conv2d_transpose_takes_nchw_as_nhwc_transposed():
    x = RNG.standard_normal((2, 3, 4, 3))
    outs = []
    for data_format in ("NHWC", "NCHW"):
        with tf.Graph().as_default():
            inputs = tf.constant(x.transpose(0, 3, 1, 2) if data_format == "NCHW" else x)
            out = slim.conv2d_transpose(inputs, 2, [3, 2], stride=2, padding="VALID", data_format=data_format,
                                        weights_initializer=tf.constant_initializer(
                                            RNG.standard_normal((3, 2, 2, 3)) if not outs else weights),
                                        biases_initializer=tf.constant_initializer([0.5, -0.5]))
            got, weights = _run([out, "Conv2d_transpose/weights:0"])
            outs.append(got.transpose(0, 2, 3, 1) if data_format == "NCHW" else got)
    assert outs[0].shape == (2, 7, 8, 2)
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-12)


@pytest.mark.parametrize("data_format", ["NDHWC", "NCDHW"])
def test_conv3d_transpose_is_tf_nn_conv3d_transpose_with_its_variables(data_format):
    x = RNG.standard_normal((2, 3, 4, 2, 3))  # (NDHWC)
    weights = RNG.standard_normal((2, 3, 1, 4, 3))
    with tf.Graph().as_default(), tf.Session() as sess:
        inputs = tf.constant(x.transpose(0, 4, 1, 2, 3) if data_format == "NCDHW" else x)
        out = tf.contrib.layers.conv3d_transpose(inputs, 4, [2, 3, 1], stride=[2, 1, 2], padding="VALID",
                                                 data_format=data_format, activation_fn=None,
                                                 weights_initializer=tf.constant_initializer(weights),
                                                 biases_initializer=tf.constant_initializer([0.5, -0.5, 1.0, 0.0]))
        expected = tf.nn.conv3d_transpose(tf.constant(x), tf.constant(weights), [2, 6, 6, 4, 4], [1, 2, 1, 2, 1],
                                          "VALID") + [0.5, -0.5, 1.0, 0.0]
        sess.run(tf.global_variables_initializer())
        got, want = sess.run([out, expected])
        assert [v.op.name for v in tf.global_variables()] == ["Conv3d_transpose/weights", "Conv3d_transpose/biases"]
    np.testing.assert_allclose(got.transpose(0, 2, 3, 4, 1) if data_format == "NCDHW" else got, want, rtol=1e-10)
    assert got.shape == ((2, 4, 6, 6, 4) if data_format == "NCDHW" else (2, 6, 6, 4, 4))
