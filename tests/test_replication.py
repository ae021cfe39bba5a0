"""In-graph replication: towers share variables, and their averaged gradient is the full-batch one."""

import numpy as np

import distflow as tf

RNG = np.random.default_rng(7)


def model(x, y):
    h = tf.layers.dense(x, 8, activation=tf.nn.tanh, name="hidden")
    logits = tf.layers.dense(h, 3, name="out")
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)), logits


def test_averaged_two_tower_gradient_equals_full_batch_gradient():
    xv = RNG.standard_normal((8, 5))
    yv = RNG.integers(0, 3, size=8)
    x = tf.placeholder(tf.float64, [8, 5])
    y = tf.placeholder(tf.int64, [8])
    tf.set_random_seed(1)
    with tf.variable_scope("model", dtype=tf.float64):
        full_loss, _ = model(x, y)
    variables = tf.trainable_variables()
    full_grads = tf.gradients(full_loss, variables)
    with tf.variable_scope("", dtype=tf.float64):
        towers = tf.train.replicate_model(model, [x, y], ["/gpu:0", "/gpu:1"])
    assert tf.trainable_variables() == variables  # the towers built no variables of their own
    averaged = towers.compute_gradients(tf.train.GradientDescentOptimizer(0.1))
    assert [v for _, v in averaged] == variables
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        want = sess.run(full_grads, {x: xv, y: yv})
        got = sess.run([g for g, _ in averaged], {x: xv, y: yv})
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def test_towers_are_placed_on_their_devices():
    x = tf.placeholder(tf.float32, [4, 5])
    y = tf.placeholder(tf.int64, [4])
    towers = tf.train.replicate_model(model, [x, y], ["/gpu:0", "/gpu:1"], param_device="/cpu:0")
    train_op = towers.train_op(tf.train.GradientDescentOptimizer(0.1))
    graph = tf.get_default_graph()
    for i in range(2):
        matmuls = [op for op in graph.get_operations() if op.name.startswith(f"tower_{i}/") and op.type == "MatMul"]
        assert matmuls and all(op.device == f"/device:GPU:{i}" for op in matmuls)
        grads = [op for op in graph.get_operations()
                 if op.name.startswith(f"tower_{i}_gradients/") and op.type == "MatMul"]
        assert grads and all(op.device == f"/device:GPU:{i}" for op in grads)
    assert all(v.device == "/device:CPU:0" for v in tf.global_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(tf.trainable_variables())
        sess.run(train_op, {x: RNG.standard_normal((4, 5)), y: [0, 1, 2, 0]})
        after = sess.run(tf.trainable_variables())
    assert all(not np.array_equal(a, b) for a, b in zip(before, after))
