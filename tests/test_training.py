"""variable_scope / get_variable, layers, losses, optimizers against NumPy, global step."""

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate

RNG = np.random.default_rng(5)


# -- variable_scope and get_variable ----------------------------------------------------------


def test_get_variable_names_and_reuse():
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [2, 3])
        with tf.variable_scope("inner"):
            b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    assert w.name == "layer/w:0" and b.name == "layer/inner/b:0"
    with pytest.raises(ValueError, match="layer/w already exists, disallowed"):
        with tf.variable_scope("layer"):
            tf.get_variable("w", [2, 3])
    with tf.variable_scope("layer", reuse=True):
        assert tf.get_variable("w", [2, 3]) is w
        with tf.variable_scope("inner"):  # reuse is inherited
            assert tf.get_variable("b") is b
        with pytest.raises(ValueError, match="does not exist"):
            tf.get_variable("nope", [1])
        with pytest.raises(ValueError, match="specified shape"):
            tf.get_variable("w", [3, 3])
    with tf.variable_scope("layer", reuse=tf.AUTO_REUSE):
        assert tf.get_variable("w", [2, 3]) is w
        fresh = tf.get_variable("fresh", [1])
    assert fresh.name == "layer/fresh:0"


def test_variable_names_ignore_name_scopes_and_reuse_variables():
    with tf.name_scope("ns"):
        with tf.variable_scope("vs") as scope:
            v = tf.get_variable("v", [1])
            op = tf.constant(1.0, name="c")
            scope.reuse_variables()
            assert tf.get_variable("v", [1]) is v
    assert v.name == "vs/v:0" and op.op.name == "ns/vs/c"
    with tf.variable_scope(scope, reuse=True):
        assert tf.get_variable("v") is v


def test_default_initializers_and_scope_initializer():
    with tf.variable_scope("s", initializer=tf.constant_initializer(3.0)):
        a = tf.get_variable("a", [2])
    b = tf.get_variable("b", [2], dtype=tf.int32)
    c = tf.get_variable("c", [50, 60])
    a_, b_, c_ = evaluate([a, b, c])
    assert a_.tolist() == [3.0, 3.0] and b_.tolist() == [0, 0]
    assert np.abs(c_).max() <= np.sqrt(6 / 110) and c_.std() > 0.05  # glorot_uniform


def test_regularizer_lands_in_collection():
    with tf.variable_scope("r", regularizer=lambda v: 0.5 * tf.nn.l2_loss(v)):
        tf.get_variable("w", [2], initializer=tf.ones_initializer())
    (loss,) = tf.losses.get_regularization_losses()
    assert evaluate(loss) == 0.5


# -- layers ------------------------------------------------------------------------------


def test_dense_layer_names_values_and_reuse():
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.layers.dense(x, 3, activation=tf.nn.relu, name="fc1")
    z = tf.layers.dense(x, 3, name="fc1", reuse=True)
    auto = tf.layers.dense(y, 2)
    auto2 = tf.layers.dense(y, 2)
    names = [v.name for v in tf.trainable_variables()]
    assert names == ["fc1/kernel:0", "fc1/bias:0", "dense/kernel:0", "dense/bias:0",
                     "dense_1/kernel:0", "dense_1/bias:0"]
    xv = RNG.standard_normal((5, 4)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        k, b = sess.run(["fc1/kernel:0", "fc1/bias:0"])
        y_, z_ = sess.run([y, z], {x: xv})
    assert_oracle(y_, np.maximum(xv @ k + b, 0), rtol=1e-5)
    assert_oracle(z_, xv @ k + b, rtol=1e-5)
    assert auto.shape.as_list() == [None, 2] and auto2.op.name.startswith("dense_1/")


def test_conv_pool_flatten_dropout_layers():
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    h = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu, name="conv")
    p = tf.layers.max_pooling2d(h, 2, 2)
    f = tf.layers.flatten(p)
    training = tf.placeholder_with_default(False, [])
    d = tf.layers.dropout(f, rate=0.5, training=training)
    assert [v.name for v in tf.trainable_variables()] == ["conv/kernel:0", "conv/bias:0"]
    assert tf.trainable_variables()[0].shape.as_list() == [3, 3, 1, 4]
    assert f.shape.as_list() == [None, 64]
    xv = RNG.standard_normal((2, 8, 8, 1)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        f_, d_eval = sess.run([f, d], {x: xv})
        d_train = sess.run(d, {x: xv, training: True})
    assert_oracle(d_eval, f_)
    assert set(np.unique(d_train[f_ != 0] / f_[f_ != 0]).round(5)) <= {0.0, 2.0}


# -- losses ----------------------------------------------------------------------------------


def test_losses():
    logits = RNG.standard_normal((4, 3))
    labels = np.array([0, 2, 1, 2])
    onehot = np.eye(3)[labels]
    log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    xent = -log_p[np.arange(4), labels]
    assert_oracle(evaluate(tf.losses.sparse_softmax_cross_entropy(labels, logits)), np.float64(xent.mean()))
    assert_oracle(evaluate(tf.losses.softmax_cross_entropy(onehot, logits)), np.float64(xent.mean()))
    weights = np.array([1.0, 0.0, 2.0, 1.0])
    assert np.isclose(evaluate(tf.losses.sparse_softmax_cross_entropy(labels, logits, weights=weights)),
                      (xent * weights).sum() / 3)
    preds = RNG.standard_normal((4, 2))
    truth = RNG.standard_normal((4, 2))
    assert np.isclose(evaluate(tf.losses.mean_squared_error(truth, preds)), ((preds - truth) ** 2).mean())
    assert len(tf.losses.get_losses()) == 4
    assert np.isclose(evaluate(tf.losses.get_total_loss()), sum(evaluate(tf.losses.get_losses())))


# -- optimizers: the first three updates against NumPy ------------------------------------------


def numpy_updates(name, w, grads):
    """Hand-written reference: the optimizer's rule applied to each gradient in turn."""
    w = w.copy()
    out = []
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    acc = np.full_like(w, 0.1)
    ms = np.ones_like(w)
    for t, g in enumerate(grads, start=1):
        if name == "sgd":
            w -= 0.1 * g
        elif name == "momentum":
            m = 0.9 * m + g
            w -= 0.1 * m
        elif name == "nesterov":
            m = 0.9 * m + g
            w -= 0.1 * (g + 0.9 * m)
        elif name == "adam":
            lr_t = 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
            m = m + (g - m) * 0.1
            v = v + (g * g - v) * 0.001
            w -= lr_t * m / (np.sqrt(v) + 1e-8)
        elif name == "adagrad":
            acc += g * g
            w -= 0.1 * g / np.sqrt(acc)
        elif name == "rmsprop":
            ms = ms + (g * g - ms) * 0.1
            m = 0.5 * m + 0.01 * g / np.sqrt(ms + 1e-10)
            w -= m
        out.append(w.copy())
    return out


OPTIMIZERS = {
    "sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
    "nesterov": lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "adam": lambda: tf.train.AdamOptimizer(0.01),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dtype, shape", [(np.float32, (3, 2)), (np.float64, (3, 2)), (np.float32, ())])
def test_first_three_updates_match_numpy(name, dtype, shape):
    w0 = np.asarray(RNG.standard_normal(shape)).astype(dtype)
    grads = [np.asarray(RNG.standard_normal(shape)).astype(dtype) for _ in range(3)]
    w = tf.Variable(w0)
    g = tf.placeholder(tf.as_dtype(dtype), shape)
    step = tf.train.get_or_create_global_step()
    train = OPTIMIZERS[name]().apply_gradients([(g, w)], global_step=step)
    want = numpy_updates(name, w0.astype(np.float64), [x.astype(np.float64) for x in grads])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i, grad in enumerate(grads):
            sess.run(train, {g: grad})
            np.testing.assert_allclose(sess.run(w), want[i], rtol=1e-5 if dtype == np.float32 else 1e-12,
                                       atol=1e-6 if dtype == np.float32 else 1e-12)
        assert sess.run(step) == 3


def test_minimize_slots_and_names():
    with tf.device("/gpu:1"):
        w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * w)
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(loss)
    assert opt.get_slot_names() == ["m", "v"]
    m = opt.get_slot(w, "m")
    assert m.name == "w/Adam:0" and opt.get_slot(w, "v").name == "w/Adam_1:0"
    assert not m.trainable and m in tf.global_variables()
    assert m.op.get_attr("_class") == [b"loc:@w"]
    assert train.name == "Adam" and train.type == "NoOp"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess._placer.place(m.op).name.endswith("GPU:1")
    assert {v.op.name for v in opt.variables()} >= {"beta1_power", "beta2_power", "w/Adam", "w/Adam_1"}


def test_compute_gradients_gives_none_for_unused_variables():
    a = tf.Variable(1.0)
    b = tf.Variable(2.0)
    opt = tf.train.GradientDescentOptimizer(0.5)
    pairs = opt.compute_gradients(a * 3.0)
    assert pairs[1][0] is None and pairs[1][1] is b
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.minimize(tf.constant(1.0) * 2.0, var_list=[a])


def test_global_step():
    assert tf.train.get_global_step() is None
    step = tf.train.get_or_create_global_step()
    assert step.name == "global_step:0" and step.dtype.base_dtype == tf.int64
    assert tf.train.get_or_create_global_step() is step
    with pytest.raises(ValueError, match="already exists"):
        tf.train.create_global_step()
    with tf.Session() as sess:
        sess.run(step.initializer)
        assert tf.train.global_step(sess, step) == 0


def test_sgd_trains_a_linear_model():
    x = RNG.standard_normal((64, 3))
    true_w = np.array([[1.0], [-2.0], [0.5]])
    y = x @ true_w + 0.3
    w = tf.Variable(tf.zeros([3, 1], tf.float64))
    b = tf.Variable(tf.zeros([1], tf.float64))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    train = tf.train.MomentumOptimizer(0.1, 0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(200):
            sess.run(train)
        np.testing.assert_allclose(sess.run(w), true_w, atol=1e-3)
        assert sess.run(loss) < 1e-6


def _two_layer_step(var_list_order, towers, inter_op=1):
    """One SGD step of x @ w1 @ w2 (squared error); ``towers`` > 1 splits the batch over CPU devices."""
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((8, 4)), rng.standard_normal((8, 2))
    w1_init, w2_init = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    tf.reset_default_graph()
    w1, w2 = tf.Variable(w1_init), tf.Variable(w2_init)
    opt = tf.train.GradientDescentOptimizer(0.1)
    grads = []
    for i, (xs, ys) in enumerate(zip(np.split(x, towers), np.split(y, towers))):
        with tf.device(f"/cpu:{i}"):
            loss = tf.reduce_sum(tf.square(tf.matmul(tf.matmul(tf.constant(xs), w1), w2) - ys))
            grads.append(opt.compute_gradients(loss, var_list=[w1, w2][::var_list_order],
                                               colocate_gradients_with_ops=True))
    with tf.device("/cpu:0"):
        train = opt.apply_gradients([(tf.add_n([g[k][0] for g in grads]), grads[0][k][1]) for k in range(2)])
    config = tf.ConfigProto(device_count={"CPU": towers}, inter_op_parallelism_threads=inter_op)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        got = sess.run([w1, w2])
    e = 2 * (x @ w1_init @ w2_init - y)
    return got, [w1_init - 0.1 * x.T @ (e @ w2_init.T), w2_init - 0.1 * (x @ w1_init).T @ e]


@pytest.mark.parametrize("var_list_order", [1, -1])
@pytest.mark.parametrize("towers, inter_op", [(1, 1), (2, 1), (2, 2)])
def test_a_step_reads_every_variable_before_updating_it(var_list_order, towers, inter_op):
    """Gradients see the variables as the step found them, whatever the order of the
    updates (TF 1.x left it to chance), on one device and across concurrent towers."""
    got, want = _two_layer_step(var_list_order, towers, inter_op)
    for g, w in zip(got, want):
        assert_oracle(g, w, rtol=1e-12, atol=1e-12)


def test_an_update_and_a_read_it_does_not_order_run_read_first_and_control_dependencies_hold():
    v = tf.Variable(1.0)
    bump = tf.assign_add(v, 10.0)
    before = v * 1.0  # no dependency on bump: reads the value the step found
    with tf.control_dependencies([bump]):
        after = tf.identity(v) * 1.0
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run([before, bump, after]) == [1.0, 11.0, 11.0]


def test_concurrent_towers_update_only_after_the_other_tower_has_read_the_variables():
    """The update on CPU:0 waits for CPU:1's reads of the variable (which get its memory,
    not a copy). Large enough that, without that wait, most steps went wrong."""
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((256, 128)), rng.standard_normal((256, 128))
    w1_init, w2_init = rng.standard_normal((128, 256)) * 0.05, rng.standard_normal((256, 128)) * 0.05
    w1, w2 = tf.Variable(w1_init), tf.Variable(w2_init)
    opt = tf.train.GradientDescentOptimizer(0.01)
    grads = []
    for i, (xs, ys) in enumerate(zip(np.split(x, 2), np.split(y, 2))):
        with tf.device(f"/cpu:{i}"):
            loss = tf.reduce_sum(tf.square(tf.matmul(tf.matmul(tf.constant(xs), w1), w2) - ys))
            grads.append(opt.compute_gradients(loss, var_list=[w2, w1], colocate_gradients_with_ops=True))
    with tf.device("/cpu:0"):
        train = opt.apply_gradients([(tf.add_n([g[k][0] for g in grads]), grads[0][k][1]) for k in range(2)])
    e = 2 * (x @ w1_init @ w2_init - y)
    want = [w1_init - 0.01 * x.T @ (e @ w2_init.T), w2_init - 0.01 * (x @ w1_init).T @ e]
    config = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=2)
    with tf.Session(config=config) as sess:
        for _ in range(10):
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            for got, w in zip(sess.run([w1, w2]), want):
                assert_oracle(got, w, rtol=1e-9, atol=1e-9)


