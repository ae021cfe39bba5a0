"""tf.train.experimental's loss scaling (TF 1.14-1.15 mixed precision): the scaled optimizer
trains as the plain one, skips steps whose gradients are not finite, moves a dynamic
scale as TensorFlow's does, and keeps float16 gradients from underflowing."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(11)
X, Y = RNG.standard_normal((8, 3)), RNG.standard_normal((8, 1))


def _train(make_optimizer, steps=3, feeds=None):
    """Weights, global step and momentum slot after ``steps`` steps of a least-squares fit."""
    with tf.Graph().as_default():
        x, y = tf.placeholder(tf.float64, [None, 3]), tf.placeholder(tf.float64, [None, 1])
        w = tf.Variable(np.ones((3, 1)), name="w")
        step = tf.train.get_or_create_global_step()
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        opt = make_optimizer()
        train = opt.minimize(loss, global_step=step)
        history = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i in range(steps):
                xs = X if feeds is None else feeds[i]
                sess.run(train, {x: xs, y: Y})
                scale = opt._loss_scale() if hasattr(opt, "_loss_scale") else tf.constant(1.0)
                history.append(sess.run([w, step, scale, opt.get_slot(w, "momentum")]))
        return history


def _momentum():
    return tf.train.MomentumOptimizer(0.1, 0.9)


@pytest.mark.parametrize("loss_scale", [128, "dynamic"])
def test_a_scaled_optimizer_trains_as_the_plain_one(loss_scale):
    plain = _train(_momentum)
    scaled = _train(lambda: tf.train.experimental.MixedPrecisionLossScaleOptimizer(_momentum(), loss_scale))
    for (w, step, _, slot), (w2, step2, _, slot2) in zip(plain, scaled):
        np.testing.assert_allclose(w2, w, rtol=1e-12)
        np.testing.assert_allclose(slot2, slot, rtol=1e-12)
        assert step2 == step


def test_a_step_with_a_gradient_that_is_not_finite_is_skipped_and_halves_the_scale():
    bad = X.copy()
    bad[2, 1] = np.inf
    history = _train(lambda: tf.train.experimental.MixedPrecisionLossScaleOptimizer(
        _momentum(), tf.train.experimental.DynamicLossScale(initial_loss_scale=8.0, increment_period=2,
                                                            multiplier=2.0)), steps=6, feeds=[X, bad, X, X, bad, X])
    plain = _train(_momentum, steps=3)
    # (steps 1 and 4 skipped: nothing moves, not even the global step)
    assert [h[1] for h in history] == [1, 1, 2, 3, 3, 4]
    assert [float(h[2]) for h in history] == [8.0, 4.0, 4.0, 8.0, 4.0, 4.0]
    np.testing.assert_array_equal(history[1][0], history[0][0])
    np.testing.assert_array_equal(history[1][3], history[0][3])
    for got, want in zip([history[0], history[2], history[3]], plain):
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12)


def test_the_dynamic_scale_stays_at_least_one_and_finite():
    def scaled(**kwargs):  # (a dynamic scale's variables are made in the graph it is made in)
        return lambda: tf.train.experimental.MixedPrecisionLossScaleOptimizer(
            _momentum(), tf.train.experimental.DynamicLossScale(**kwargs))

    bad = X.copy()
    bad[0, 0] = np.nan
    history = _train(scaled(initial_loss_scale=2.0, increment_period=1, multiplier=4.0), steps=2, feeds=[bad, bad])
    assert [float(h[2]) for h in history] == [1.0, 1.0]
    history = _train(scaled(initial_loss_scale=3e38, increment_period=1, multiplier=2.0), steps=1)
    assert float(history[0][2]) == np.float32(3e38)  # (6e38 overflows float32: kept, the step applied)
    assert history[0][1] == 1


def test_loss_scaling_keeps_float16_gradients_from_underflowing():
    """TF 1.x's mixed-precision recipe: float32 variables read as float16 by a custom getter.
    A gradient of 2**-27 is below float16's smallest value (2**-24); scaled by 2**15 it is not."""
    def float16_getter(getter, name, *args, dtype=None, **kwargs):
        return tf.cast(getter(name, *args, dtype=tf.float32, **kwargs), tf.float16)

    def gradient(loss_scale):
        with tf.Graph().as_default():
            with tf.variable_scope("model", custom_getter=float16_getter):
                w = tf.get_variable("w", [4], dtype=tf.float16, initializer=tf.ones_initializer())
            loss = tf.reduce_sum(w * tf.constant(np.full(4, 2.0 ** -10), tf.float16)) * tf.constant(2.0 ** -17,
                                                                                                   tf.float16)
            opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(tf.train.GradientDescentOptimizer(1.0),
                                                                         loss_scale)
            ((grad, var),) = opt.compute_gradients(loss)
            assert var.dtype.base_dtype == tf.float32 and grad.dtype.base_dtype == tf.float32
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                return sess.run(grad)

    np.testing.assert_array_equal(gradient(1), 0.0)
    np.testing.assert_array_equal(gradient(2 ** 15), np.full(4, 2.0 ** -27))


def test_enable_mixed_precision_graph_rewrite_wraps_the_optimizer_once():
    with tf.Graph().as_default():
        opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(tf.train.AdamOptimizer())
        assert isinstance(opt, tf.train.experimental.MixedPrecisionLossScaleOptimizer)
        assert isinstance(opt._loss_scale, tf.train.experimental.DynamicLossScale)
        assert sorted(v.op.name for v in tf.global_variables()) == ["current_loss_scale", "good_steps"]
        with pytest.raises(ValueError, match="must not already be an instance"):
            tf.train.experimental.enable_mixed_precision_graph_rewrite(opt)
        tf.train.experimental.disable_mixed_precision_graph_rewrite()
        fixed = tf.train.experimental.enable_mixed_precision_graph_rewrite(tf.train.AdamOptimizer(), 64)
        assert fixed._loss_scale.get_config() == {"loss_scale_value": 64.0}
        with pytest.raises(ValueError, match="Could not interpret loss scale"):
            tf.train.experimental.MixedPrecisionLossScaleOptimizer(tf.train.AdamOptimizer(), "static")


def test_in_a_mirrored_replica_a_fixed_scale_trains_and_a_dynamic_one_is_refused():
    def run(loss_scale):
        with tf.Graph().as_default():
            strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/gpu:0"])
            with strategy.scope():
                w = tf.get_variable("w", [3, 1], tf.float64, initializer=tf.ones_initializer())

                def step(x, y):
                    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
                    opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(
                        tf.train.GradientDescentOptimizer(0.1), loss_scale)
                    return opt.minimize(loss)

                train = strategy.experimental_run_v2(step, args=(tf.constant(X), tf.constant(Y)))
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(strategy.group(train) if hasattr(strategy, "group") else train,
                         options=tf.RunOptions(timeout_in_ms=60_000))
                return sess.run(w)

    want = np.ones((3, 1)) - 0.1 * (2 / len(X)) * X.T @ (X @ np.ones((3, 1)) - Y)
    np.testing.assert_allclose(run(256), want, rtol=1e-12)
    with pytest.raises(NotImplementedError, match="dynamic loss scale in a tf.distribute replica"):
        run("dynamic")
