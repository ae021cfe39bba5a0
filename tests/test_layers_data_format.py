"""tf.layers with data_format="channels_first" (NCHW, as TF 1.x programs wrote them for
GPUs): each layer equals its channels_last form on the transposed input, with the same
variables, in its outputs and its gradients."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(7)


def _init(shape, dtype=None, partition_info=None):
    """A fixed, non-trivial initializer: the same numbers for both layouts' variables."""
    return tf.constant(np.random.default_rng(abs(hash(tuple(shape))) % 2**32).normal(size=shape), dtype=tf.float64)


LAYERS = {  # name: (spatial rank, the layer's call with data_format)
    "conv1d": (1, lambda x, f: tf.layers.conv1d(x, 4, 3, strides=2, padding="same", data_format=f,
                                                 kernel_initializer=_init, bias_initializer=_init)),
    "conv2d": (2, lambda x, f: tf.layers.conv2d(x, 4, (3, 2), strides=(2, 1), padding="valid", data_format=f,
                                                 dilation_rate=1, kernel_initializer=_init, bias_initializer=_init,
                                                 activation=tf.nn.relu)),
    "conv2d_dilated": (2, lambda x, f: tf.layers.conv2d(x, 3, 3, padding="same", dilation_rate=2, data_format=f,
                                                         kernel_initializer=_init, bias_initializer=_init)),
    "conv3d": (3, lambda x, f: tf.layers.conv3d(x, 2, 2, padding="same", data_format=f, kernel_initializer=_init,
                                                 bias_initializer=_init)),
    "conv3d_dilated": (3, lambda x, f: tf.layers.conv3d(x, 2, (2, 2, 1), padding="same", dilation_rate=(2, 1, 2),
                                                         data_format=f, kernel_initializer=_init,
                                                         bias_initializer=_init)),
    "conv2d_transpose": (2, lambda x, f: tf.layers.conv2d_transpose(x, 3, 3, strides=2, padding="same",
                                                                     data_format=f, kernel_initializer=_init,
                                                                     bias_initializer=_init)),
    "conv3d_transpose": (3, lambda x, f: tf.layers.conv3d_transpose(x, 2, 2, strides=(1, 2, 1), padding="valid",
                                                                     data_format=f, kernel_initializer=_init,
                                                                     bias_initializer=_init)),
    "separable_conv1d": (1, lambda x, f: tf.layers.separable_conv1d(x, 4, 3, depth_multiplier=2, data_format=f,
                                                                     depthwise_initializer=_init,
                                                                     pointwise_initializer=_init,
                                                                     bias_initializer=_init)),
    "separable_conv2d": (2, lambda x, f: tf.layers.separable_conv2d(x, 4, 3, padding="same", data_format=f,
                                                                     depthwise_initializer=_init,
                                                                     pointwise_initializer=_init,
                                                                     bias_initializer=_init)),
    "max_pooling1d": (1, lambda x, f: tf.layers.max_pooling1d(x, 2, 2, data_format=f)),
    "average_pooling1d": (1, lambda x, f: tf.layers.average_pooling1d(x, 3, 1, padding="same", data_format=f)),
    "max_pooling2d": (2, lambda x, f: tf.layers.max_pooling2d(x, 2, 2, data_format=f)),
    "average_pooling2d": (2, lambda x, f: tf.layers.average_pooling2d(x, 3, 2, padding="same", data_format=f)),
    "max_pooling3d": (3, lambda x, f: tf.layers.max_pooling3d(x, 2, 1, data_format=f)),
    "average_pooling3d": (3, lambda x, f: tf.layers.average_pooling3d(x, 2, 2, data_format=f)),
    "Conv2D object": (2, lambda x, f: tf.layers.Conv2D(5, 3, data_format=f, kernel_initializer=_init,
                                                        bias_initializer=_init)(x)),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_a_channels_first_layer_is_its_channels_last_form_on_the_transposed_input(name):
    rank, layer = LAYERS[name]
    last_order = [0, *range(2, rank + 2), 1]   # NC... -> N...C
    first_order = [0, rank + 1, *range(1, rank + 1)]
    x_first = RNG.normal(size=[2, 3, *[6, 5, 4][:rank]])
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(x_first)
        with tf.variable_scope("last"):
            out_last = layer(tf.transpose(x, last_order), "channels_last")
        with tf.variable_scope("first"):
            out_first = layer(x, "channels_first")
        assert out_first.shape.as_list() == [out_last.shape.as_list()[i] for i in first_order]
        weights = {v.op.name.split("/", 1)[1]: v for v in tf.global_variables() if v.op.name.startswith("first/")}
        assert sorted(weights) == sorted(v.op.name.split("/", 1)[1] for v in tf.global_variables()
                                         if v.op.name.startswith("last/"))
        # (the same loss of both layouts, so the same gradients for the same variables)
        probe = tf.constant(RNG.normal(size=out_last.shape.as_list()))
        loss_last = tf.reduce_sum(out_last * probe)
        loss_first = tf.reduce_sum(out_first * tf.transpose(probe, first_order))
        last_vars = [v for v in tf.global_variables() if v.op.name.startswith("last/")]
        first_vars = [v for v in tf.global_variables() if v.op.name.startswith("first/")]
        grads = tf.gradients(loss_last, last_vars + [x]) + tf.gradients(loss_first, first_vars + [x])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_last, got_first, got_grads = sess.run([out_last, out_first, grads])
    np.testing.assert_allclose(got_first, got_last.transpose(first_order), rtol=1e-12, atol=1e-12)
    half = len(got_grads) // 2
    for a, b in zip(got_grads[:half], got_grads[half:]):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-10)


def test_a_channels_first_conv2d_adds_its_bias_along_the_channels():
    with tf.Graph().as_default():
        x = tf.zeros([1, 2, 3, 3])
        out = tf.layers.conv2d(x, 4, 1, data_format="channels_first",
                               bias_initializer=tf.constant_initializer([1.0, 2.0, 3.0, 4.0]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(out)
    assert got.shape == (1, 4, 3, 3)
    np.testing.assert_array_equal(got[0, :, 1, 2], [1.0, 2.0, 3.0, 4.0])


def test_an_unknown_data_format_is_a_value_error_naming_the_choices():
    with tf.Graph().as_default():
        x = tf.zeros([1, 4, 4, 2])
        with pytest.raises(ValueError, match="channels_first.*channels_last.*NCHW"):
            tf.layers.conv2d(x, 2, 1, data_format="NCHW")
        with pytest.raises(ValueError, match="channels defined|channel dimension"):
            tf.layers.conv2d(tf.placeholder(tf.float32, [1, None, 4, 4]), 2, 1, data_format="channels_first")
        # (TF's layers take the names in any case)
        assert tf.layers.max_pooling2d(x, 2, 2, data_format="Channels_Last").shape.as_list() == [1, 2, 2, 2]


@pytest.mark.parametrize("dilation", [1, 2])
def test_the_convolution_gradient_functions_take_nchw_as_nhwc_transposed(dilation):
    x = RNG.normal(size=[2, 7, 6, 3])         # NHWC
    f = RNG.normal(size=[3, 2, 3, 4])
    strides = [1, 1, 1, 1] if dilation > 1 else [1, 2, 1, 1]
    dilations = [1, dilation, dilation, 1]
    dy = RNG.normal(size=[2, 7 if dilation > 1 else 4, 6, 4])
    to_first, to_last = [0, 3, 1, 2], [0, 2, 3, 1]

    def nchw(v):
        return [v[0], v[3], v[1], v[2]]

    with tf.Graph().as_default():
        pairs = [
            (tf.nn.conv2d_backprop_input(list(x.shape), f, dy, strides, "SAME", dilations=dilations),
             tf.transpose(tf.nn.conv2d_backprop_input(nchw(list(x.shape)), f, dy.transpose(to_first), nchw(strides),
                                                      "SAME", data_format="NCHW", dilations=nchw(dilations)),
                          to_last)),
            (tf.nn.conv2d_backprop_filter(x, list(f.shape), dy, strides, "SAME", dilations=dilations),
             tf.nn.conv2d_backprop_filter(x.transpose(to_first), list(f.shape), dy.transpose(to_first),
                                          nchw(strides), "SAME", data_format="NCHW", dilations=nchw(dilations))),
            (tf.nn.conv2d_transpose(dy, f, list(x.shape), strides, "SAME", dilations=dilations),
             tf.transpose(tf.nn.conv2d_transpose(dy.transpose(to_first), f, nchw(list(x.shape)), nchw(strides),
                                                 "SAME", data_format="NCHW", dilations=nchw(dilations)), to_last)),
        ]
        with tf.Session() as sess:
            got = sess.run(pairs)
    for nhwc, from_nchw in got:
        np.testing.assert_allclose(from_nchw, nhwc, rtol=1e-12, atol=1e-12)


def test_space_and_depth_moves_take_nchw_as_nhwc_transposed():
    x = RNG.normal(size=[2, 4, 6, 8])  # NHWC
    with tf.Graph().as_default():
        pairs = [(tf.space_to_depth(x, 2), tf.space_to_depth(x.transpose(0, 3, 1, 2), 2, data_format="NCHW")),
                 (tf.depth_to_space(x, 2), tf.depth_to_space(x.transpose(0, 3, 1, 2), 2, data_format="NCHW"))]
        with tf.Session() as sess:
            got = sess.run(pairs)
        with pytest.raises(ValueError, match="NCHW_VECT_C"):
            tf.depth_to_space(x, 2, data_format="NCHW_VECT_C")
    for nhwc, nchw in got:
        np.testing.assert_array_equal(nchw, nhwc.transpose(0, 3, 1, 2))


@pytest.mark.parametrize("data_format", ["NWC", "NCW"])
def test_conv1d_transpose_is_the_input_gradient_of_conv1d_in_either_layout(data_format):
    x = RNG.normal(size=[2, 9, 3])          # NWC
    f = RNG.normal(size=[3, 3, 4])          # [width, in, out] of the forward convolution
    first = data_format == "NCW"
    with tf.Graph().as_default():
        for stride, rate in ((2, 1), (1, 2)):
            xt = tf.constant(x)
            y = tf.nn.conv1d(xt, f, stride, "SAME", dilations=rate)
            dy = RNG.normal(size=y.shape.as_list())
            want = tf.gradients(tf.reduce_sum(y * dy), xt)[0]
            got = tf.nn.conv1d_transpose(dy.transpose(0, 2, 1) if first else dy, f,
                                         [2, 3, 9] if first else [2, 9, 3], stride, "SAME", data_format=data_format,
                                         dilations=rate)
            via = tf.nn.conv_transpose(dy.transpose(0, 2, 1) if first else dy, f, [2, 3, 9] if first else [2, 9, 3],
                                       stride, "SAME", data_format=data_format, dilations=rate)
            with tf.Session() as sess:
                w, g, v = sess.run([want, got, via])
            if first:
                g, v = g.transpose(0, 2, 1), v.transpose(0, 2, 1)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(v, w, rtol=1e-12, atol=1e-12)
