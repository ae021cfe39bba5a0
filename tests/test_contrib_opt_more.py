"""tf.contrib.opt's Nadam, AdaMax, AddSign, PowerSign (and their sign decays) against NumPy,
and its wrappers: variable clipping, dropping stale gradients, skipping zero gradients."""

import math

import numpy as np
import pytest

import distflow as tf

opt = tf.contrib.opt
RNG = np.random.default_rng(5)


def _run_steps(make_opt, grads, var0, global_step=False, sparse_rows=None):
    """The variable after one update per gradient (float64), and the step's other fetches."""
    with tf.Graph().as_default():
        var = tf.Variable(var0)
        g = tf.placeholder(tf.float64, var0.shape if sparse_rows is None else (len(sparse_rows),) + var0.shape[1:])
        grad = g if sparse_rows is None else tf.IndexedSlices(g, tf.constant(sparse_rows), tf.constant(var0.shape))
        step = tf.train.get_or_create_global_step() if global_step else None
        train = make_opt().apply_gradients([(grad, var)], global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for value in grads:
                sess.run(train, {g: value})
            return sess.run(var)


def test_nadam_and_adamax_update_as_their_equations():
    var0, grads = RNG.standard_normal((3, 2)), RNG.standard_normal((3, 3, 2))
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
    w, m, v = var0.copy(), np.zeros_like(var0), np.zeros_like(var0)
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w = w - lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t) * (b1 * m + (1 - b1) * g) / (np.sqrt(v) + eps)
    np.testing.assert_allclose(_run_steps(lambda: opt.NadamOptimizer(lr), grads, var0), w, rtol=1e-9)
    w, m, u = var0.copy(), np.zeros_like(var0), np.zeros_like(var0)
    for t, g in enumerate(grads, 1):
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g))
        w = w - lr / (1 - b1 ** t) * m / (u + eps)
    np.testing.assert_allclose(_run_steps(lambda: opt.AdaMaxOptimizer(lr), grads, var0), w, rtol=1e-9)
    # a sparse gradient: its rows' u and values move; m decays everywhere (TensorFlow's)
    rows, sparse = [0, 2], RNG.standard_normal((3, 2, 2))
    w, m, u = var0.copy(), np.zeros_like(var0), np.zeros_like(var0)
    for t, g in enumerate(sparse, 1):
        m = b1 * m
        m[rows] += (1 - b1) * g
        u[rows] = np.maximum(b2 * u[rows], np.abs(g))
        w[rows] -= lr / (1 - b1 ** t) * m[rows] / (u[rows] + eps)
    np.testing.assert_allclose(_run_steps(lambda: opt.AdaMaxOptimizer(lr), sparse, var0, sparse_rows=rows), w,
                               rtol=1e-9)


@pytest.mark.parametrize("kind", ["add", "power"])
def test_sign_optimizers_with_a_linear_sign_decay_update_as_their_equations(kind):
    var0, grads = RNG.standard_normal((4,)), RNG.standard_normal((3, 4))
    lr, beta, decay_steps = 0.1, 0.9, 4
    decay = opt.sign_decay.get_linear_decay_fn(decay_steps)
    if kind == "add":
        make = lambda: opt.AddSignOptimizer(lr, alpha=1.0, beta=beta, sign_decay_fn=decay)  # noqa: E731
        multiplier = lambda agree, d: 1.0 + d * agree  # noqa: E731
    else:
        make = lambda: opt.PowerSignOptimizer(lr, base=2.0, beta=beta, sign_decay_fn=decay)  # noqa: E731
        multiplier = lambda agree, d: 2.0 ** (d * agree)  # noqa: E731
    w, m = var0.copy(), np.zeros_like(var0)
    for t, g in enumerate(grads):
        m = beta * m + (1 - beta) * g
        w = w - lr * multiplier(np.sign(g) * np.sign(m), (decay_steps - min(t, decay_steps)) / decay_steps) * g
    np.testing.assert_allclose(_run_steps(make, grads, var0, global_step=True), w, rtol=1e-6)


def test_sign_decays_follow_their_formulas():
    def cosine(step, steps, periods=0.5, zero_after=None):
        fraction = 2.0 * periods * min(step, steps) / steps
        if zero_after is not None and fraction >= 2 * zero_after:
            return 0.0
        return 0.5 * (1 + math.cos(math.pi * fraction))

    def restart(step, steps, periods=1, zero_after=None):
        step = min(step, steps)
        if zero_after is not None and periods * step / steps >= zero_after:
            return 0.0
        return 0.5 * (1 + math.cos(math.pi * (periods * step % steps) / steps))

    steps = list(range(0, 1100, 100))
    fns = [(opt.sign_decay.get_linear_decay_fn(1000), lambda s: (1000 - min(s, 1000)) / 1000),
           (opt.sign_decay.get_cosine_decay_fn(1000), lambda s: cosine(s, 1000)),
           (opt.sign_decay.get_cosine_decay_fn(1000, num_periods=5, zero_after=2),
            lambda s: cosine(s, 1000, 5, 2)),
           (opt.sign_decay.get_restart_decay_fn(1000, num_periods=5), lambda s: restart(s, 1000, 5)),
           (opt.sign_decay.get_restart_decay_fn(1000, num_periods=5, zero_after=3),
            lambda s: restart(s, 1000, 5, 3))]
    with tf.Session() as sess:
        for fn, want in fns:
            got = sess.run([fn(tf.constant(s)) for s in steps])
            np.testing.assert_allclose(got, [want(s) for s in steps], atol=1e-6)


def test_variable_clipping_clips_each_row_after_the_update():
    with tf.Graph().as_default():
        emb = tf.Variable([[3.0, 4.0], [0.3, 0.4]])
        other = tf.Variable([30.0, 40.0])
        loss = tf.reduce_sum(emb) + tf.reduce_sum(other)
        train = opt.VariableClippingOptimizer(tf.train.GradientDescentOptimizer(1.0), {emb: [1]}, 2.0).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            got, untouched = sess.run([emb, other])
    expected = np.array([[2.0, 3.0], [-0.7, -0.6]])
    norms = np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(got, expected * np.minimum(1.0, 2.0 / norms), rtol=1e-6)
    np.testing.assert_allclose(untouched, [29.0, 39.0])


def test_stale_gradients_are_dropped_and_counted():
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        w = tf.Variable(1.0)
        dropper = opt.DropStaleGradientOptimizer(tf.train.GradientDescentOptimizer(0.5), staleness=2)
        counter = dropper.apply_gradients(dropper.compute_gradients(w * w), global_step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(step, 10))
            assert sess.run(counter) == 0.0 and sess.run([w, step]) == [0.0, 11]  # (fresh: applied)
            # gradients computed 5 steps ago (another worker moved the step since): dropped
            assert sess.run(counter, {dropper._local_step: 6}) == 1.0 and sess.run([w, step]) == [0.0, 11]
            assert sess.run(counter, {dropper._local_step: 9}) == 1.0  # (2 steps stale: still taken)
            assert sess.run(step) == 12


def test_the_multitask_wrapper_leaves_a_variable_with_a_zero_gradient_and_its_slots_alone():
    with tf.Graph().as_default():
        shared, head_a = tf.Variable([1.0, 2.0]), tf.Variable([3.0])
        wrapped = opt.MultitaskOptimizerWrapper(tf.train.MomentumOptimizer(0.1, 0.9))
        g = tf.placeholder(tf.float32, [1])
        train = wrapped.apply_gradients([(tf.constant([1.0, 1.0]), shared), (g, head_a)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, {g: [1.0]})
            sess.run(train, {g: [0.0]})  # (task b's step: head a's gradient is zero)
            head, momentum = sess.run([head_a, wrapped.get_slot(head_a, "momentum")])
            assert head.tolist() == pytest.approx([2.9]) and momentum.tolist() == [1.0]
            np.testing.assert_allclose(sess.run(shared), [1.0 - 0.1 - 0.19, 2.0 - 0.1 - 0.19], rtol=1e-6)


def test_gradients_clip_by_their_global_norm():
    a, b = tf.Variable([3.0]), tf.Variable([4.0])
    pairs, norm = opt.clip_gradients_by_global_norm([(tf.constant([3.0]), a), (tf.constant([4.0]), b)], 1.0)
    with tf.Session() as sess:
        assert sess.run(norm) == 5.0
        np.testing.assert_allclose(sess.run([g for g, _ in pairs]), [[0.6], [0.8]], rtol=1e-6)
    assert [v for _, v in pairs] == [a, b]


def test_variable_clipping_with_a_sparse_gradient_clips_only_its_rows_unless_the_norm_runs_across_rows():
    with tf.Graph().as_default():
        rows_clipped = tf.Variable([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], dtype=tf.float64)
        cols_clipped = tf.Variable([[0.0, 1.0], [0.0, 3.0], [0.0, 5.0]], dtype=tf.float64)
        grad = tf.IndexedSlices(tf.constant([[0.1, 0.1], [0.1, 0.1]], tf.float64), [0, 2], [3, 2])
        clip = opt.VariableClippingOptimizer(tf.train.GradientDescentOptimizer(3.0),
                                             {rows_clipped: [1], cols_clipped: [0]}, 2.0)
        train = clip.apply_gradients([(grad, rows_clipped), (grad, cols_clipped)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            by_rows, by_cols = sess.run([rows_clipped, cols_clipped])
    stepped = np.array([[-0.3, 0.7], [2.0, 3.0], [3.7, 4.7]])
    want = stepped.copy()
    want[[0, 2]] *= np.minimum(1.0, 2.0 / np.linalg.norm(stepped[[0, 2]], axis=1, keepdims=True))
    np.testing.assert_allclose(by_rows, want, rtol=1e-9)  # (row 1, not in the gradient, keeps its norm)
    stepped = np.array([[-0.3, 0.7], [0.0, 3.0], [-0.3, 4.7]])
    np.testing.assert_allclose(by_cols, stepped * np.minimum(1.0, 2.0 / np.linalg.norm(stepped, axis=0)), rtol=1e-9)


def test_a_moving_average_optimizers_swapping_saver_puts_the_averages_in_the_variables(tmp_path):
    with tf.Graph().as_default():
        w = tf.Variable(10.0, name="w")
        averaged = opt.MovingAverageOptimizer(tf.train.GradientDescentOptimizer(1.0), average_decay=0.5)
        train = averaged.minimize(w)  # (d/dw w = 1: w falls by 1 a step)
        saver = averaged.swapping_saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            assert sess.run(w) == 7.0
            path = saver.save(sess, str(tmp_path / "ckpt"))
    average = 10.0
    for value in (9.0, 8.0, 7.0):  # (each average taken after its update)
        average = 0.5 * average + 0.5 * value
    with tf.Graph().as_default():
        w = tf.Variable(0.0, name="w")
        with tf.Session() as sess:
            tf.train.Saver([w]).restore(sess, path)
            assert sess.run(w) == pytest.approx(average)
    with pytest.raises(RuntimeError, match="Must call apply_gradients or minimize"):
        opt.MovingAverageOptimizer(tf.train.GradientDescentOptimizer(1.0)).swapping_saver()


def test_elastic_averaging_pulls_each_worker_and_the_center_together_every_period():
    lr, rho, rate, period = 0.1, 0.5, 0.25, 2
    with tf.Graph().as_default():
        getter = opt.ElasticAverageCustomGetter("/cpu:0")
        with tf.variable_scope("", custom_getter=getter):
            w = tf.get_variable("w", initializer=1.0)
        step = tf.train.get_or_create_global_step()
        easgd = opt.ElasticAverageOptimizer(tf.train.GradientDescentOptimizer(lr), num_worker=1,
                                            ea_custom_getter=getter, communication_period=period,
                                            moving_rate=rate, rho=rho)
        train = easgd.minimize(0.5 * (w - 3.0) ** 2, global_step=step)
        center = tf.get_default_graph().get_tensor_by_name("global_center_variable/w:0")
        assert w in tf.local_variables() and w in tf.trainable_variables() and w not in tf.global_variables()
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            sess.run(easgd.get_init_op(0))
            for _ in range(4):
                sess.run(train)
            got = sess.run([w, center, step])
    value, local_center, global_center, exchanges = 1.0, 1.0, 1.0, 0
    for t in range(1, 5):
        value -= lr * ((value - 3.0) + rho * (value - local_center))
        if t % period == 0:
            local_center = global_center
            difference = rate * (value - local_center)
            value, global_center, exchanges = value - difference, global_center + difference, exchanges + 1
    np.testing.assert_allclose(got[:2], [value, global_center], rtol=1e-6)
    assert got[2] == exchanges == 2


def test_lars_scales_each_variables_rate_by_its_trust_ratio():
    w0 = np.array([[1.0, -2.0, 0.5], [0.3, 0.0, 1.5]], np.float32)
    c = np.array([[0.2, 0.1, -0.4], [1.0, 0.5, 0.0]], np.float32)
    w = tf.Variable(w0, name="w")
    bias = tf.Variable(np.array([1.0, 2.0], np.float32), name="bias")
    zeros = tf.Variable(np.zeros(2, np.float32), name="zeros")
    loss = tf.reduce_sum(w * c) + tf.reduce_sum(bias * c[0, :2]) + tf.reduce_sum(zeros * c[1, :2])
    lr, momentum, decay, eeta, eps = 0.5, 0.9, 0.01, 0.002, 1e-6
    step = tf.contrib.opt.LARSOptimizer(lr, momentum, decay, eeta, eps, skip_list=["bias"]).minimize(loss)
    want_w, want_b, want_z = w0.astype(np.float64), np.array([1.0, 2.0]), np.zeros(2)
    mw, mb, mz = np.zeros_like(want_w), np.zeros(2), np.zeros(2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        def lars(value, accum, grad):
            wn, gn = np.linalg.norm(value), np.linalg.norm(grad)
            ratio = eeta * wn / (gn + decay * wn + eps) if wn > 0 and gn > 0 else 1.0  # (a zero norm: 1)
            accum = momentum * accum + lr * ratio * (grad + decay * value)
            return value - accum, accum

        for _ in range(3):
            sess.run(step)
            want_w, mw = lars(want_w, mw, c)
            want_z, mz = lars(want_z, mz, c[1, :2])
            mb = momentum * mb + lr * c[0, :2]  # (skipped: plain momentum)
            want_b = want_b - mb
        got_w, got_b, got_z = sess.run([w, bias, zeros])
    np.testing.assert_allclose(got_w, want_w, rtol=1e-5)
    np.testing.assert_allclose(got_b, want_b, rtol=1e-6)
    np.testing.assert_allclose(got_z, want_z, rtol=1e-6)
    with pytest.raises(ValueError, match="Invalid eeta"):
        tf.contrib.opt.LARSOptimizer(0.1, eeta=-1.0)


def test_scipy_optimizer_interface_minimizes_as_scipy_does():
    optimize = pytest.importorskip("scipy.optimize")
    x = tf.Variable([-1.2, 1.0], dtype=tf.float64, name="x")
    scale = tf.placeholder(tf.float64, [])
    rosen = scale * tf.square(x[1] - tf.square(x[0])) + tf.square(1.0 - x[0])
    seen, steps = [], []
    opt = tf.contrib.opt.ScipyOptimizerInterface(rosen, options={"maxiter": 200})
    bounded = tf.contrib.opt.ScipyOptimizerInterface(rosen, var_to_bounds={x: ([-2.0, -2.0], [0.5, 2.0])})
    constrained = tf.contrib.opt.ScipyOptimizerInterface(
        tf.reduce_sum(tf.square(x)), equalities=[x[0] + x[1] - 1.0], inequalities=[x[0] - 0.7], method="SLSQP")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        opt.minimize(sess, feed_dict={scale: 100.0}, fetches=[rosen], loss_callback=seen.append,
                     step_callback=steps.append)
        got = sess.run(x)
        want = optimize.minimize(optimize.rosen, [-1.2, 1.0], jac=optimize.rosen_der, method="L-BFGS-B",
                                 options={"maxiter": 200}).x
        np.testing.assert_allclose(got, want, atol=1e-5)
        np.testing.assert_allclose(got, [1.0, 1.0], atol=1e-4)
        assert seen and len(steps) > 5 and steps[-1].shape == (2,)
        x.load([-1.2, 1.0], sess)
        bounded.minimize(sess, feed_dict={scale: 100.0})
        np.testing.assert_allclose(sess.run(x), [0.5, 0.25], atol=1e-5)  # (the best point with x0 <= 0.5)
        constrained.minimize(sess)
        np.testing.assert_allclose(sess.run(x), [0.7, 0.3], atol=1e-6)
        with pytest.raises(ValueError, match="var_to_bounds"):
            tf.contrib.opt.ScipyOptimizerInterface(rosen, bounds=[(0, 1)] * 2).minimize(sess, {scale: 1.0})
