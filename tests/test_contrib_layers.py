"""tf.contrib.layers, tf.contrib.framework and tf.contrib.slim: layer values against NumPy,
TF-Slim's variable names, argument scopes, initializers and regularizers."""

import numpy as np
import pytest

import distflow as tf

slim = tf.contrib.slim
layers = tf.contrib.layers
RNG = np.random.RandomState(4)


def _run(*fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(list(fetches), feed)


def _conv_same(x, w, stride):
    """NHWC convolution with SAME padding, written out."""
    n, h, wd, _ = x.shape
    kh, kw, _, f = w.shape
    oh, ow = -(-h // stride), -(-wd // stride)
    ph, pw = max((oh - 1) * stride + kh - h, 0), max((ow - 1) * stride + kw - wd, 0)
    xp = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    out = np.zeros((n, oh, ow, f))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j] = np.tensordot(patch, w, axes=3)
    return out


def test_slim_layers_have_tf_slims_names_and_numpys_values():
    x = RNG.randn(2, 6, 6, 3)
    inputs = tf.constant(x)
    with slim.arg_scope([slim.conv2d, slim.fully_connected], weights_regularizer=slim.l2_regularizer(0.01),
                        biases_initializer=tf.constant_initializer(0.1)):
        conv = slim.conv2d(inputs, 4, [3, 3], stride=2, scope="conv1")
        pooled = slim.max_pool2d(conv, [2, 2], scope="pool1")
        flat = slim.flatten(pooled)
        hidden = slim.fully_connected(flat, 5, outputs_collections=["ends"])
        logits = slim.fully_connected(hidden, 3, activation_fn=None, scope="logits")
        seq = slim.fully_connected(tf.constant(RNG.randn(2, 4, 3)), 2, scope="per_step")  # (rank 3: the last axis)
    assert [v.op.name for v in tf.global_variables()] == [
        "conv1/weights", "conv1/biases", "fully_connected/weights", "fully_connected/biases", "logits/weights",
        "logits/biases", "per_step/weights", "per_step/biases"]
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 4
    assert tf.get_collection("ends") == [hidden] and hidden.alias == "fully_connected"
    assert slim.get_model_variables() == tf.global_variables() and seq.shape.as_list() == [2, 4, 2]
    got = _run(conv, pooled, logits, seq, *tf.global_variables())
    conv_v, pooled_v, logits_v, seq_v, w1, b1, w2, b2, w3, b3, w4, b4 = got
    want_conv = np.maximum(_conv_same(x, w1, 2) + b1, 0)
    np.testing.assert_allclose(conv_v, want_conv, rtol=1e-10)
    want_pool = want_conv[:, :2, :2].reshape(2, 1, 2, 1, 2, 4).max(axis=(2, 4))  # (VALID 2x2, stride 2: 3 -> 1)
    np.testing.assert_allclose(pooled_v, want_pool.reshape(pooled_v.shape), rtol=1e-12)
    want_hidden = np.maximum(pooled_v.reshape(2, -1) @ w2 + b2, 0)
    np.testing.assert_allclose(logits_v, want_hidden @ w3 + b3, rtol=1e-10)
    assert np.all(b1 == 0.1)


def test_batch_norm_and_layer_norm_against_numpy():
    x = RNG.randn(8, 3, 3, 4)
    inputs = tf.constant(x)
    out = slim.batch_norm(inputs, decay=0.9, scale=True, is_training=True,
                          param_initializers={"gamma": tf.constant_initializer(2.0)})
    in_place = slim.batch_norm(inputs, decay=0.5, is_training=True, updates_collections=None, scope="in_place")
    frozen = slim.batch_norm(inputs, is_training=False, scope="frozen")
    normed = layers.layer_norm(tf.constant(x), begin_norm_axis=1)
    names = [v.op.name for v in tf.global_variables()]
    assert sorted(names[:4]) == ["BatchNorm/beta", "BatchNorm/gamma", "BatchNorm/moving_mean",
                                 "BatchNorm/moving_variance"]
    assert "LayerNorm/gamma" in names and "frozen/moving_mean" in names
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2  # (not the in-place one's)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    mean, var = x.mean(axis=(0, 1, 2)), x.var(axis=(0, 1, 2))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_frozen, got_normed, _ = sess.run([out, frozen, normed, updates])
        graph = tf.get_default_graph()
        moving = sess.run([graph.get_tensor_by_name(f"BatchNorm/moving_{n}:0") for n in ("mean", "variance")])
        sess.run(in_place)
        in_place_mean = sess.run(tf.get_default_graph().get_tensor_by_name("in_place/moving_mean:0"))
    np.testing.assert_allclose(got, 2.0 * (x - mean) / np.sqrt(var + 1e-3), rtol=1e-9)
    np.testing.assert_allclose(got_frozen, x / np.sqrt(1 + 1e-3), rtol=1e-9)
    np.testing.assert_allclose(moving[0], 0.1 * mean, rtol=1e-9)
    # (4-D inputs take TF 1.x's fused kernel, whose variance for the moving average is corrected)
    np.testing.assert_allclose(moving[1], 0.9 + 0.1 * x.var(axis=(0, 1, 2), ddof=1), rtol=1e-9)
    np.testing.assert_allclose(in_place_mean, 0.5 * mean, rtol=1e-9)
    flat = x.reshape(8, -1)
    want = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-12)
    np.testing.assert_allclose(got_normed.reshape(8, -1), want, rtol=1e-9)


def test_arg_scopes_nest_and_a_calls_own_argument_wins():
    @slim.add_arg_scope
    def f(a, b=1, c=2):
        return a, b, c

    with slim.arg_scope([f], b=10, c=20):
        assert f(0) == (0, 10, 20)
        with slim.arg_scope([f], c=30) as inner:
            assert f(0) == (0, 10, 30) and f(0, c=5) == (0, 10, 5)
        assert f(0) == (0, 10, 20)
    with slim.arg_scope(inner):
        assert f(0) == (0, 10, 30)
    assert f(0) == (0, 1, 2) and slim.arg_scoped_arguments(f) == ("b", "c")  # those with defaults, as TF
    with pytest.raises(ValueError, match="is not decorated with @add_arg_scope"):
        with slim.arg_scope([lambda x: x], b=1):
            pass
    with pytest.raises(ValueError, match="kwargs must be empty"):
        with slim.arg_scope(inner, b=1):
            pass


def test_repeat_stack_dropout_one_hot_and_embeddings():
    x = tf.constant(RNG.randn(2, 5))
    stacked = slim.stack(x, slim.fully_connected, [4, 3], scope="fc")
    repeated = slim.repeat(x, 2, slim.fully_connected, 5)
    assert [v.op.name for v in tf.trainable_variables()] == [
        "fc/fc_1/weights", "fc/fc_1/biases", "fc/fc_2/weights", "fc/fc_2/biases",
        "Repeat/fully_connected_1/weights", "Repeat/fully_connected_1/biases",
        "Repeat/fully_connected_2/weights", "Repeat/fully_connected_2/biases"]
    kept = slim.dropout(x, 0.5, is_training=False)
    phase = tf.placeholder(tf.bool, [])
    maybe = slim.dropout(x, 0.5, is_training=phase)
    hot = slim.one_hot_encoding(tf.constant([0, 2]), 3)
    ids = layers.embed_sequence(tf.constant([[1, 2], [0, 0]]), vocab_size=4, embed_dim=3)
    got = _run(x, kept, maybe, hot, ids, stacked, repeated, feed={phase: False})
    np.testing.assert_array_equal(got[1], got[0])
    np.testing.assert_array_equal(got[2], got[0])
    np.testing.assert_array_equal(got[3], [[1, 0, 0], [0, 0, 1]])
    assert got[4].shape == (2, 2, 3) and got[5].shape == (2, 3) and got[6].shape == (2, 5)
    assert tf.global_variables()[-1].op.name == "EmbedSequence/embeddings"


def test_initializers_and_regularizers():
    w = slim.model_variable("w", [400, 600], initializer=slim.xavier_initializer(seed=1))
    he = slim.model_variable("he", [3, 3, 64, 500], initializer=slim.variance_scaling_initializer(seed=2))
    values = RNG.randn(3, 4)
    t = tf.constant(values)
    l1, l2 = slim.l1_regularizer(0.5)(t), slim.l2_regularizer(0.25)(t)
    both = slim.l1_l2_regularizer(0.5, 0.25)(t)
    total = layers.apply_regularization(slim.l2_regularizer(1.0), [t, t])
    got_w, got_he, got_l1, got_l2, got_both, got_total = _run(w, he, l1, l2, both, total)
    limit = np.sqrt(6.0 / (400 + 600))
    assert got_w.max() <= limit and got_w.min() >= -limit and abs(got_w.std() - limit / np.sqrt(3)) < 0.02 * limit
    stddev = np.sqrt(1.3 * 2.0 / (3 * 3 * 64))  # (a truncated normal at two stddevs: its std is 0.88 of that)
    assert np.abs(got_he).max() <= 2 * stddev + 1e-12 and abs(got_he.std() / stddev - 0.8796) < 0.01
    assert got_l1 == pytest.approx(0.5 * np.abs(values).sum()) and got_l2 == pytest.approx(0.125 * (values ** 2).sum())
    assert got_both == pytest.approx(got_l1 + got_l2) and got_total == pytest.approx((values ** 2).sum())  # (two halves)
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)[-1] is total
    assert slim.l2_regularizer(0.0)(t) is None
    with pytest.raises(ValueError, match="scale cannot be an integer"):
        slim.l1_regularizer(1)
    with pytest.raises(ValueError, match="less than 0"):
        slim.l2_regularizer(-0.1)


def test_variables_to_restore_from_a_checkpoint(tmp_path):
    with tf.Graph().as_default():
        a = slim.fully_connected(tf.constant(RNG.randn(1, 3)), 2, scope="keep")
        slim.fully_connected(a, 2, scope="head")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saved = sess.run(slim.get_variables("keep"))
            tf.train.Saver().save(sess, str(tmp_path / "model"))
    with tf.Graph().as_default():
        a = slim.fully_connected(tf.constant(RNG.randn(1, 3)), 2, scope="keep")
        slim.fully_connected(a, 5, scope="head")  # (a new head: not in the checkpoint's shape)
        restore = slim.get_variables_to_restore(exclude=["head"])
        assert [v.op.name for v in restore] == ["keep/weights", "keep/biases"]
        init_fn = slim.assign_from_checkpoint_fn(str(tmp_path / "model"), restore)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            init_fn(sess)
            got = sess.run(slim.get_variables("keep"))
    for g, s in zip(got, saved):
        np.testing.assert_array_equal(g, s)
