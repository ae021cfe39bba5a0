"""tf.contrib.layers.optimize_loss and adaptive_clipping_fn against the updates written out
in NumPy."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(21)
X, Y = RNG.standard_normal((6, 3)), RNG.standard_normal((6, 1))
W0 = RNG.standard_normal((3, 1))
F32 = {rate: float(np.float32(rate)) for rate in (0.1, 0.5, 0.01)}  # (a float rate is a float32 variable, as TF's)


def _grad(w):
    """d/dw of mean((X w - Y)^2)."""
    return 2 * X.T @ (X @ w - Y) / len(X)


def _model():
    w = tf.get_variable("w", initializer=tf.constant(W0))
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(X), w) - tf.constant(Y)))
    return w, loss


def _steps(build, steps=2, after=()):
    """[w, global_step, returned value] after each step of the train op ``build(loss, step)``,
    and the graph; with ``after``, also the values of those tensors (by name) at the end."""
    with tf.Graph().as_default():
        w, loss = _model()
        step = tf.train.get_or_create_global_step()
        train = build(loss, step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = []
            for _ in range(steps):
                value = sess.run(train)
                out.append((sess.run(w), sess.run(step), value))
            if after:
                return out, tf.get_default_graph(), sess.run(list(after))
            return out, tf.get_default_graph()


def test_sgd_by_name_with_a_float_rate_and_its_summaries():
    got, graph = _steps(lambda loss, step: tf.contrib.layers.optimize_loss(loss, step, 0.1, "SGD"))
    w = W0
    for i, (got_w, got_step, value) in enumerate(got):
        # (the value returned is the loss the step's gradients were taken of)
        assert value == pytest.approx(float(np.mean((X @ w - Y) ** 2)), rel=1e-12)
        w = w - F32[0.1] * _grad(w)
        np.testing.assert_allclose(got_w, w, rtol=1e-12)
        assert got_step == i + 1
    assert graph.get_tensor_by_name("OptimizeLoss/learning_rate:0") is not None
    # (TF summarizes the learning rate only where a decay function makes it)
    tags = sorted(t.op.name for t in graph.get_collection(tf.GraphKeys.SUMMARIES))
    assert tags == ["OptimizeLoss/global_norm/gradient_norm", "OptimizeLoss/loss"]


def test_clipping_multipliers_decay_and_update_ops():
    def build(loss, step):
        counter = tf.get_variable("counter", initializer=tf.constant(0.0), trainable=False)
        tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.assign_add(counter, 1.0))
        return tf.contrib.layers.optimize_loss(
            loss, step, 0.5, tf.train.GradientDescentOptimizer, clip_gradients=0.1,
            gradient_multipliers={"w:0": 3.0}, increment_global_step=False,
            learning_rate_decay_fn=lambda lr, s: tf.train.exponential_decay(lr, s, 1, 0.5),
            summaries=["gradients", "gradient_norm"])

    got, graph, (counter,) = _steps(build, after=["counter:0"])
    w = W0
    for got_w, got_step, _ in got:
        g = 3.0 * _grad(w)
        g = g * min(1.0, 0.1 / np.linalg.norm(g))  # (the multiplied gradient clipped to a global norm of 0.1)
        w = w - F32[0.5] * g  # (the global step stays 0: the decay keeps the rate at 0.5)
        np.testing.assert_allclose(got_w, w, rtol=1e-12)
        assert got_step == 0
    assert counter == 2.0  # (the update ops ran with each step)
    names = sorted(t.op.name for t in graph.get_collection(tf.GraphKeys.SUMMARIES))
    assert "OptimizeLoss/gradients/w_0" in names and "OptimizeLoss/gradient_norm/w_0" in names


def test_an_optimizer_instance_or_function_and_bad_arguments():
    for rate, optimizer in ((None, tf.train.MomentumOptimizer(0.1, 0.9)),
                            (0.1, lambda lr: tf.train.MomentumOptimizer(lr, 0.9))):
        got, _ = _steps(lambda loss, step: tf.contrib.layers.optimize_loss(loss, step, rate, optimizer), steps=1)
        np.testing.assert_allclose(got[0][0], W0 - (F32[0.1] if rate else 0.1) * _grad(W0), rtol=1e-12)
    with tf.Graph().as_default():
        _, loss = _model()
        step = tf.train.get_or_create_global_step()
        with pytest.raises(ValueError, match="Optimizer name should be one of"):
            tf.contrib.layers.optimize_loss(loss, step, 0.1, "Nadam")
        with pytest.raises(ValueError, match="Learning rate is None"):
            tf.contrib.layers.optimize_loss(loss, step, None, "Adam")
        with pytest.raises(ValueError, match="Summaries should be one of"):
            tf.contrib.layers.optimize_loss(loss, step, 0.1, "Adam", summaries=["weights"])


def test_adaptive_clipping_rescales_a_norm_far_above_its_history():
    with tf.Graph().as_default():
        scale = tf.placeholder(tf.float64, [])
        w, loss = _model()
        step = tf.train.get_or_create_global_step()
        clip = tf.contrib.layers.adaptive_clipping_fn(std_factor=0.5, decay=0.5, global_step=step)
        train = tf.contrib.layers.optimize_loss(loss * scale, step, 0.01, "SGD", clip_gradients=clip)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            mean = sq_mean = 0.0
            w_np = W0
            for i, s in enumerate([1.0, 1.0, 1.0, 1000.0]):
                sess.run(train, {scale: s})
                g = s * _grad(w_np)
                norm = np.linalg.norm(g)
                rate = min(0.5, i / (i + 1.0))
                log_norm = np.log(norm + 1e-8)
                mean += (log_norm - mean) * (1 - rate)
                sq_mean += (log_norm ** 2 - sq_mean) * (1 - rate)
                max_norm = np.exp(mean + 0.5 * np.sqrt(max(1e-8, sq_mean - mean ** 2)))
                factor = 1.0 if norm < max_norm else np.exp(mean) / norm
                w_np = w_np - F32[0.01] * g * factor
                np.testing.assert_allclose(sess.run(w), w_np, rtol=1e-9)
            assert factor < 0.1  # (the last step's gradient was cut down)
