"""Gradients that recompute their forward pass (tf.recompute_grad, tf.contrib.layers.recompute_grad)
and custom gradients of functions that read variables."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3))


def block(x):
    w1 = tf.get_variable("w1", [3, 5], tf.float64, initializer=tf.random_normal_initializer(seed=1))
    b1 = tf.get_variable("b1", [5], tf.float64, initializer=tf.constant_initializer(0.1))
    w2 = tf.get_variable("w2", [5, 2], tf.float64, initializer=tf.random_normal_initializer(seed=2))
    return tf.matmul(tf.tanh(tf.matmul(x, w1) + b1), w2)


def gradients_of(wrap, x_value=X):
    """The gradients of sum(block(x)**2) with respect to x and the variables, with ``block``
    wrapped by ``wrap``, and the graph's ops."""
    tf.reset_default_graph()
    x = tf.constant(x_value)
    with tf.variable_scope("block"):
        y = wrap(block)(x)
    loss = tf.reduce_sum(y * y)
    variables = tf.trainable_variables()
    grads = tf.gradients(loss, [x] + variables)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(grads), sess.run(loss), grads


@pytest.mark.parametrize("wrap", [tf.recompute_grad, tf.contrib.layers.recompute_grad],
                         ids=["tf", "contrib"])
def test_recomputed_gradients_equal_the_stored_ones_and_central_differences(wrap):
    plain, _, _ = gradients_of(lambda f: f)
    again, _, grads = gradients_of(wrap)
    assert [g.shape for g in again] == [(4, 3), (3, 5), (5,), (5, 2)]
    for a, b in zip(plain, again):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
    eps, numeric = 1e-6, np.zeros_like(X)
    for i in np.ndindex(X.shape):
        d = np.zeros_like(X)
        d[i] = eps
        numeric[i] = (gradients_of(wrap, X + d)[1] - gradients_of(wrap, X - d)[1]) / (2 * eps)
    np.testing.assert_allclose(again[0], numeric, rtol=1e-6, atol=1e-8)


def test_the_gradient_reads_no_activation_of_the_first_forward_pass():
    tf.reset_default_graph()
    x = tf.constant(X)
    with tf.variable_scope("block"):
        loss = tf.reduce_sum(tf.recompute_grad(block)(x) ** 2)
    graph = tf.get_default_graph()
    built = graph.version
    tf.gradients(loss, [x] + tf.trainable_variables())
    tanhs = [op for op in graph.get_operations() if op.type == "Tanh"]
    assert len(tanhs) == 2  # the forward pass, and its second run for the gradient
    first = [op for op in tanhs if op._id <= built]
    assert len(first) == 1
    readers = [op for op in graph.get_operations() if op._id > built and first[0].outputs[0] in op.inputs]
    assert readers == []


def test_training_with_recomputation_follows_the_same_path():
    losses = {}
    for name, wrap in (("plain", lambda f: f), ("recompute", tf.recompute_grad)):
        tf.reset_default_graph()
        x = tf.constant(X)
        with tf.variable_scope("block"):
            y = wrap(block)(x)
        loss = tf.reduce_sum(tf.square(y - 1.0))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses[name] = [sess.run([train, loss])[1] for _ in range(5)]
    np.testing.assert_allclose(losses["recompute"], losses["plain"], rtol=1e-12)
    assert losses["plain"][-1] < losses["plain"][0]


def test_contrib_recompute_reenters_the_arg_scope_and_says_when_it_recomputes():
    calls = []

    def layer(x, is_recomputing=False):
        calls.append(is_recomputing)
        return tf.contrib.layers.fully_connected(x, 4, scope="fc")

    tf.reset_default_graph()
    x = tf.constant(X)
    with tf.contrib.framework.arg_scope([tf.contrib.layers.fully_connected], activation_fn=tf.nn.sigmoid,
                                        weights_initializer=tf.constant_initializer(0.3)):
        y = tf.contrib.layers.recompute_grad(layer)(x)
    grad = tf.gradients(tf.reduce_sum(y), x)[0]
    assert calls == [False, True]
    assert len([op for op in tf.get_default_graph().get_operations() if op.type == "Sigmoid"]) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        s = 1 / (1 + np.exp(-(X @ np.full((3, 4), 0.3))))
        np.testing.assert_allclose(sess.run(grad), (s * (1 - s)) @ np.full((4, 3), 0.3), rtol=1e-10)


def test_a_variable_made_outside_the_function_gets_its_gradient_too():
    tf.reset_default_graph()
    v = tf.Variable(np.full((3, 2), 0.5))
    y = tf.contrib.layers.recompute_grad(lambda x: tf.sin(tf.matmul(x, v)))(tf.constant(X))
    grad = tf.gradients(tf.reduce_sum(y), v)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(grad), X.T @ np.cos(X @ np.full((3, 2), 0.5)), rtol=1e-12)


def test_a_function_that_makes_new_variables_when_called_again_is_refused_by_name():
    tf.reset_default_graph()

    def fresh(x):
        return x * tf.Variable(2.0, dtype=tf.float64, name="scale")

    y = tf.recompute_grad(fresh)(tf.constant(X))
    with pytest.raises(ValueError, match=r"new variables \(.*scale\).*tf.get_variable"):
        tf.gradients(tf.reduce_sum(y), tf.trainable_variables())


def test_a_custom_gradient_gives_the_variables_it_reads_their_gradients():
    tf.reset_default_graph()
    v = tf.Variable(2.0, dtype=tf.float64)
    seen = []

    @tf.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            seen.append(list(variables))
            return dy * v * 10, [dy * x * 100]

        return x * v, grad

    x = tf.constant(3.0, tf.float64)
    gx, gv = tf.gradients(scaled(x), [x, v])
    assert seen == [[v]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([gx, gv]) == [20.0, 300.0]


def test_a_custom_gradient_that_reads_variables_must_take_them():
    tf.reset_default_graph()
    v = tf.Variable(2.0, name="weight")

    @tf.custom_gradient
    def silent(x):
        return x * v, lambda dy: dy

    with pytest.raises(TypeError, match="keyword argument 'variables'.*'weight'"):
        silent(tf.constant(1.0))

    @tf.custom_gradient
    def short(x):
        return x * v, lambda dy, variables=None: (dy, [])

    y = short(tf.constant(1.0))
    with pytest.raises(ValueError, match="gradient for each variable.*got 0 for the 1"):
        tf.gradients(y, v)


def test_a_variable_read_both_before_and_inside_the_function_is_counted_once_per_read():
    # y = sin((x v) v): the gradient of v has a part through the input x v and a part
    # through f's own read; the recomputation must not count the first a second time.
    tf.reset_default_graph()
    v = tf.Variable(0.7, dtype=tf.float64)
    y = tf.recompute_grad(lambda h: tf.sin(h * v))(tf.constant(X) * v)
    grad = tf.gradients(tf.reduce_sum(y), v)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(grad), np.sum(np.cos(X * 0.49) * 2 * 0.7 * X), rtol=1e-12)
