"""Batch renormalization (tf.layers.batch_normalization(renorm=True), TF 1.x's form with
renorm_mean/_weight and renorm_stddev/_weight) against the same steps in NumPy."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(91)
EPS, MOMENTUM, RENORM_MOMENTUM = 1e-3, 0.9, 0.8


def numpy_steps(batches, clipping, gamma=1.5, beta=0.25):
    """Each training step's output, then the moving and renorm statistics."""
    c = batches[0].shape[1]
    gamma, beta = np.full(c, gamma), np.full(c, beta)
    moving_mean, moving_var = np.zeros(c), np.ones(c)
    r_mean, r_mean_w, r_std, r_std_w = np.zeros(c), 0.0, np.zeros(c), 0.0
    outputs = []
    for x in batches:
        mean, var = x.mean(0), x.var(0)
        std = np.sqrt(var + EPS)
        mixed_mean = r_mean + (1 - r_mean_w) * mean
        mixed_std = r_std + (1 - r_std_w) * std
        r = np.clip(std / mixed_std, clipping.get("rmin", -np.inf), clipping.get("rmax", np.inf))
        d = np.clip((mean - mixed_mean) / mixed_std, -clipping.get("dmax", np.inf), clipping.get("dmax", np.inf))
        outputs.append((x - mean) / std * (r * gamma) + (d * gamma + beta))
        decay = 1 - RENORM_MOMENTUM
        r_mean, r_mean_w = r_mean - (r_mean - mean) * decay, r_mean_w - (r_mean_w - 1) * decay
        r_std, r_std_w = r_std - (r_std - std) * decay, r_std_w - (r_std_w - 1) * decay
        new_mean, new_var = r_mean / r_mean_w, (r_std / r_std_w) ** 2 - EPS
        moving_mean = moving_mean - (moving_mean - new_mean) * (1 - MOMENTUM)
        moving_var = moving_var - (moving_var - new_var) * (1 - MOMENTUM)
    return outputs, moving_mean, moving_var, (r_mean, r_mean_w, r_std, r_std_w)


@pytest.mark.parametrize("clipping", [{}, {"rmax": 1.5, "rmin": 0.8, "dmax": 0.3}])
@pytest.mark.parametrize("training_tensor", [False, True])
def test_batch_renorm_corrects_by_the_renorm_averages_and_updates_them(clipping, training_tensor):
    batches = [RNG.standard_normal((8, 3)) * s + o for s, o in ((1.0, 0.0), (2.0, 1.0), (0.5, -1.0))]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, 3])
        training = tf.placeholder(tf.bool, []) if training_tensor else True
        out = tf.layers.batch_normalization(x, momentum=MOMENTUM, epsilon=EPS, training=training, renorm=True,
                                            renorm_clipping=clipping, renorm_momentum=RENORM_MOMENTUM,
                                            gamma_initializer=tf.constant_initializer(1.5),
                                            beta_initializer=tf.constant_initializer(0.25))
        names = [v.op.name for v in tf.global_variables()]
        assert names == [f"batch_normalization/{n}" for n in (
            "gamma", "beta", "moving_mean", "moving_variance", "renorm_mean", "renorm_mean_weight", "renorm_stddev",
            "renorm_stddev_weight")]
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        feed = {training: True} if training_tensor else {}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = [sess.run([out, updates], {**feed, x: b})[0] for b in batches]
            stats = sess.run([f"batch_normalization/{n}:0" for n in (
                "moving_mean", "moving_variance", "renorm_mean", "renorm_mean_weight", "renorm_stddev",
                "renorm_stddev_weight")])
            if training_tensor:  # (not training: the moving statistics, and nothing moves)
                inference = sess.run([out, updates], {x: batches[0], training: False})[0]
                assert np.allclose(sess.run("batch_normalization/renorm_mean:0"), stats[2])
    want, moving_mean, moving_var, renorm = numpy_steps(batches, clipping)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    for g, w in zip(stats, [moving_mean, moving_var, *renorm]):
        np.testing.assert_allclose(g, w, rtol=1e-10)
    if training_tensor:
        np.testing.assert_allclose(inference, (batches[0] - moving_mean) / np.sqrt(moving_var + EPS) * 1.5 + 0.25,
                                   rtol=1e-10)


def test_renorm_clipping_with_an_unknown_key_is_a_value_error():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="renorm_clipping"):
        tf.layers.batch_normalization(tf.zeros([2, 3]), training=True, renorm=True, renorm_clipping={"rmid": 1.0})


@pytest.mark.parametrize("training", [True, None])
def test_keras_batch_normalization_renormalizes_as_the_layers_function(training):
    batches = [RNG.standard_normal((8, 3)) * s + o for s, o in ((1.0, 0.0), (2.0, 1.0), (0.5, -1.0))]
    clipping = {"rmax": 1.5, "rmin": 0.8, "dmax": 0.3}
    K = tf.keras.backend
    K.clear_session()
    x = tf.placeholder(tf.float64, [None, 3])
    layer = tf.keras.layers.BatchNormalization(momentum=MOMENTUM, epsilon=EPS, renorm=True, renorm_clipping=clipping,
                                               renorm_momentum=RENORM_MOMENTUM, gamma_initializer="ones",
                                               beta_initializer="zeros", dtype="float64")
    out = layer(x, training=training)
    assert [w.name.split("/")[-1] for w in layer.weights] == [
        "gamma:0", "beta:0", "moving_mean:0", "moving_variance:0", "renorm_mean:0", "renorm_mean_weight:0",
        "renorm_stddev:0", "renorm_stddev_weight:0"]
    assert layer.get_config()["renorm_clipping"] == clipping
    sess = K.get_session()
    sess.run(tf.global_variables_initializer())
    phase = {} if training is True else {K.learning_phase(): 1}
    got = [sess.run([out, layer.updates], {**phase, x: b})[0] for b in batches]
    moving = sess.run([layer.moving_mean, layer.moving_variance])
    K.clear_session()
    want, moving_mean, moving_var, _ = numpy_steps(batches, clipping, gamma=1.0, beta=0.0)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(moving, [moving_mean, moving_var], rtol=1e-10)


@pytest.mark.parametrize("training_tensor", [False, True])
def test_ghost_batch_normalization_normalizes_each_virtual_batch_by_its_own_moments(training_tensor):
    x = RNG.standard_normal((8, 3)) * 2 + 1
    with tf.Graph().as_default():
        inputs = tf.placeholder(tf.float64, [None, 3])
        training = tf.placeholder(tf.bool, []) if training_tensor else True
        out = tf.layers.batch_normalization(inputs, momentum=MOMENTUM, epsilon=EPS, training=training,
                                            virtual_batch_size=2)
        assert out.shape.as_list() == [None, 3]
        assert tf.get_default_graph().get_tensor_by_name("batch_normalization/gamma:0").shape.as_list() == [1, 1, 3]
        feed = {training: True} if training_tensor else {}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([out, tf.get_collection(tf.GraphKeys.UPDATE_OPS)], {**feed, inputs: x})[0]
            moving = sess.run(["batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"])
            if training_tensor:
                inference = sess.run(out, {inputs: x, training: False})
    ghosts = x.reshape(2, 4, 3)  # (ghost batch j: examples j and j + 4)
    mean, var = ghosts.mean(0, keepdims=True), ghosts.var(0, keepdims=True)
    np.testing.assert_allclose(got, ((ghosts - mean) / np.sqrt(var + EPS)).reshape(8, 3), rtol=1e-10)
    np.testing.assert_allclose(moving[0].ravel(), (1 - MOMENTUM) * mean.mean((0, 1)), rtol=1e-10)
    np.testing.assert_allclose(moving[1].ravel(), MOMENTUM + (1 - MOMENTUM) * var.mean((0, 1)), rtol=1e-10)
    if training_tensor:
        np.testing.assert_allclose(inference, (x - moving[0][0]) / np.sqrt(moving[1][0] + EPS), rtol=1e-10)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="virtual_batch_size must be a positive"):
        tf.layers.batch_normalization(tf.zeros([4, 3]), virtual_batch_size=0)


@pytest.mark.parametrize("training", [True, None])
def test_keras_batch_normalization_with_ghost_batches_as_the_layers_function(training):
    x = RNG.standard_normal((8, 3)) * 2 + 1
    K = tf.keras.backend
    K.clear_session()
    inputs = tf.placeholder(tf.float64, [None, 3])
    layer = tf.keras.layers.BatchNormalization(momentum=MOMENTUM, epsilon=EPS, virtual_batch_size=2, dtype="float64")
    out = layer(inputs, training=training)
    assert layer.gamma.shape.as_list() == [1, 1, 3] and layer.get_config()["virtual_batch_size"] == 2
    sess = K.get_session()
    sess.run(tf.global_variables_initializer())
    phase = {} if training is True else {K.learning_phase(): 1}
    got = sess.run([out, layer.updates], {**phase, inputs: x})[0]
    moving_mean = sess.run(layer.moving_mean)
    K.clear_session()
    ghosts = x.reshape(2, 4, 3)
    mean, var = ghosts.mean(0, keepdims=True), ghosts.var(0, keepdims=True)
    np.testing.assert_allclose(got, ((ghosts - mean) / np.sqrt(var + EPS)).reshape(8, 3), rtol=1e-10)
    np.testing.assert_allclose(moving_mean.ravel(), (1 - MOMENTUM) * mean.mean((0, 1)), rtol=1e-10)
