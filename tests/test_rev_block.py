"""Reversible residual blocks (tf.contrib.layers.rev_block, RevBlock): the inverse, and a
gradient that computes the activations back instead of keeping them."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 6))
SIDE_F = RNG.standard_normal((5, 3))
SIDE_G = RNG.standard_normal((3,))


def dense(x, units=3, activation=None):
    w = tf.get_variable("w", [x.shape[-1], units], tf.float64, initializer=tf.random_normal_initializer(seed=3))
    b = tf.get_variable("b", [units], tf.float64, initializer=tf.random_normal_initializer(seed=4))
    h = tf.matmul(x, w) + b
    return activation(h) if activation else h


def f_tanh(x):
    return dense(x, activation=tf.tanh)


def f_side(x, side):
    return dense(x, activation=tf.sin) * side[0]


def g_side(x, side):
    return dense(x) + side[0]


def block_and_grads(x_value=X, f=f_tanh, g=f_tanh, sides=False, layers=3):
    """The outputs and gradients of a block and of the same block run plainly, with
    respect to x, the side inputs and the block's variables."""
    tf.reset_default_graph()
    x = tf.constant(x_value)
    fs, gs = ([tf.constant(SIDE_F)], [tf.constant(SIDE_G)]) if sides else ([], [])
    x1, x2 = tf.split(x, 2, axis=1)
    with tf.variable_scope("rev") as scope:
        y_rev = tf.concat(tf.contrib.layers.rev_block(x1, x2, f, g, num_layers=layers, f_side_input=fs or None,
                                                      g_side_input=gs or None), 1)
        variables = scope.trainable_variables()
    count = len(tf.global_variables())
    with tf.variable_scope(scope, reuse=True):
        y = tf.concat(tf.contrib.layers.rev_block(x1, x2, f, g, num_layers=layers, f_side_input=fs or None,
                                                  g_side_input=gs or None, is_training=False), 1)
    assert len(tf.global_variables()) == count  # the plain block used the same variables
    wrt = [x] + fs + gs + variables
    loss_rev, loss = tf.reduce_sum(tf.sin(y_rev)), tf.reduce_sum(tf.sin(y))
    grads_rev = tf.gradients(loss_rev, wrt)
    grads = tf.gradients(loss, wrt)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([y_rev, y, grads_rev, grads, loss_rev])
    return dict(zip(("y_rev", "y", "grads_rev", "grads", "loss_rev"), values), variables=[v.op.name for v in variables])


@pytest.mark.parametrize("case", ["one f", "a list of fs", "side inputs"])
def test_the_recomputing_gradient_equals_the_plain_one(case):
    kwargs = {"one f": {}, "a list of fs": {"f": [f_tanh, lambda x: dense(x, activation=tf.nn.relu), f_tanh]},
              "side inputs": {"f": f_side, "g": g_side, "sides": True}}[case]
    r = block_and_grads(**kwargs)
    assert r["variables"] == [f"rev/revblock/revlayer_{i}/{part}/{name}" for i in range(3) for part in "fg"
                              for name in "wb"]
    np.testing.assert_allclose(r["y_rev"], r["y"], rtol=1e-12)
    assert len(r["grads_rev"]) == len(r["grads"]) == 1 + 2 * bool(kwargs.get("sides")) + 12
    for a, b in zip(r["grads_rev"], r["grads"]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_the_gradient_of_the_input_matches_central_differences():
    r = block_and_grads(f=f_side, g=g_side, sides=True, layers=2)
    eps, numeric = 1e-6, np.zeros_like(X)
    for i in np.ndindex(X.shape):
        d = np.zeros_like(X)
        d[i] = eps
        up = block_and_grads(X + d, f=f_side, g=g_side, sides=True, layers=2)["loss_rev"]
        down = block_and_grads(X - d, f=f_side, g=g_side, sides=True, layers=2)["loss_rev"]
        numeric[i] = (up - down) / (2 * eps)
    np.testing.assert_allclose(r["grads_rev"][0], numeric, rtol=1e-6, atol=1e-8)


def test_the_gradient_reads_only_the_blocks_outputs():
    tf.reset_default_graph()
    x1, x2 = tf.split(tf.constant(X), 2, axis=1)
    y1, y2 = tf.contrib.layers.rev_block(x1, x2, f_tanh, f_tanh, num_layers=4)
    graph = tf.get_default_graph()
    built = graph.version
    forward_tanhs = [op for op in graph.get_operations() if op.type == "Tanh"]
    assert len(forward_tanhs) == 8
    tf.gradients(tf.reduce_sum(y1 * y2), tf.trainable_variables() + [x1])
    kept = {t for op in forward_tanhs for t in op.outputs}
    assert not [op for op in graph.get_operations() if op._id > built and kept & set(op.inputs)]


def test_backward_is_the_inverse_of_forward_either_way_round():
    tf.reset_default_graph()
    a1, a2 = tf.split(tf.constant(X), 2, axis=1)
    block = tf.contrib.layers.RevBlock(f_tanh, f_tanh, num_layers=3)
    x1, x2 = block.backward(a1, a2)  # made the variables
    count = len(tf.global_variables())
    y1, y2 = block.forward(x1, x2)
    z1, z2 = block.backward(*block([a1, a2]))
    assert len(tf.global_variables()) == count == len(block.variables) == 12
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for got in sess.run([[y1, y2], [z1, z2]]):
            np.testing.assert_allclose(np.concatenate(got, 1), X, rtol=1e-10, atol=1e-12)


def test_a_list_of_functions_needs_one_per_layer():
    with pytest.raises(ValueError, match="list of 2 functions; it needs one per layer \\(num_layers=3\\)"):
        tf.contrib.layers.RevBlock([f_tanh, f_tanh], f_tanh, num_layers=3)
