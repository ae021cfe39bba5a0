"""More of tf.train: Adadelta, proximal, Ftrl optimizers and ExponentialMovingAverage against
NumPy written from TensorFlow's update formulas, and the remaining learning-rate schedules."""

import math
import os

import numpy as np
import pytest

import distflow as tf


def run_optimizer(optimizer, steps=3):
    w0 = np.array([1.0, -2.0, 0.5], np.float64)
    target = np.array([0.3, 0.1, -0.4])
    w = tf.Variable(w0)
    loss = tf.reduce_sum(tf.square(w - target))
    train = optimizer.minimize(loss)
    values = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train)
            values.append(sess.run(w))
    return w0, target, values


def test_adadelta_matches_numpy():
    lr, rho, eps = 0.5, 0.9, 1e-6
    w, target, got = run_optimizer(tf.train.AdadeltaOptimizer(lr, rho, eps))
    accum, accum_update = np.zeros(3), np.zeros(3)
    for step in range(3):
        g = 2 * (w - target)
        accum = rho * accum + (1 - rho) * g * g
        update = np.sqrt(accum_update + eps) / np.sqrt(accum + eps) * g
        accum_update = rho * accum_update + (1 - rho) * update * update
        w = w - lr * update
        np.testing.assert_allclose(got[step], w, rtol=1e-10)


def prox(v, lr, l1, l2):
    return np.sign(v) * np.maximum(np.abs(v) - lr * l1, 0) / (1 + lr * l2)


def test_proximal_optimizers_match_numpy():
    w, target, got = run_optimizer(tf.train.ProximalGradientDescentOptimizer(0.1, 0.05, 0.2))
    for step in range(3):
        w = prox(w - 0.1 * 2 * (w - target), 0.1, 0.05, 0.2)
        np.testing.assert_allclose(got[step], w, rtol=1e-10)
    tf.reset_default_graph()
    w, target, got = run_optimizer(tf.train.ProximalAdagradOptimizer(0.3, 0.1, 0.05, 0.2))
    accum = np.full(3, 0.1)
    for step in range(3):
        g = 2 * (w - target)
        accum += g * g
        lr_t = 0.3 / np.sqrt(accum)
        w = prox(w - lr_t * g, lr_t, 0.05, 0.2)
        np.testing.assert_allclose(got[step], w, rtol=1e-10)


def test_ftrl_matches_numpy():
    lr, l1, l2, power = 0.5, 0.01, 0.1, -0.5
    w, target, got = run_optimizer(tf.train.FtrlOptimizer(lr, power, 0.1, l1, l2))
    accum, linear = np.full(3, 0.1), np.zeros(3)
    for step in range(3):
        g = 2 * (w - target)
        new_accum = accum + g * g
        linear += g - (new_accum ** -power - accum ** -power) / lr * w
        quadratic = new_accum ** -power / lr + 2 * l2
        w = np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quadratic, 0.0)
        accum = new_accum
        np.testing.assert_allclose(got[step], w, rtol=1e-10)


def test_exponential_moving_average_and_restoring_the_averages(tmp_path):
    w = tf.Variable(1.0, name="w")
    step = tf.Variable(0, name="step", trainable=False)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
    assign = tf.assign(w, w + 1.0)
    with tf.control_dependencies([assign]):
        update = ema.apply([w])
    shadow = ema.average(w)
    assert shadow.op.name == "w/ExponentialMovingAverage" and ema.average_name(w) == shadow.op.name
    assert tf.get_collection(tf.GraphKeys.MOVING_AVERAGE_VARIABLES) == [w]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        average, value = 1.0, 1.0
        for _ in range(4):
            sess.run(update)
            value += 1.0
            decay = min(0.9, 1.0 / 10.0)  # num_updates stays 0
            average -= (1 - decay) * (average - value)
            assert sess.run(shadow) == pytest.approx(average)
        path = tf.train.Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    tf.reset_default_graph()
    w2 = tf.Variable(0.0, name="w")
    ema2 = tf.train.ExponentialMovingAverage(0.9)
    with tf.Session() as sess:
        tf.train.Saver(ema2.variables_to_restore()).restore(sess, path)
        assert sess.run(w2) == pytest.approx(average)


@pytest.mark.parametrize("zero_debias", [False, True])
def test_the_moving_average_of_a_tensor_starts_at_zero_and_zero_debias_removes_that_pull(zero_debias):
    loss = tf.placeholder(tf.float64, [2], name="loss")
    # (0.75: the decay is a float32 tensor, as TF's, and 0.75 is exact in one)
    ema = tf.train.ExponentialMovingAverage(0.75, zero_debias=zero_debias, name="avg")
    update = ema.apply([loss])
    shadow = ema.average(loss)
    assert shadow.op.name == "loss/avg"
    made = sorted(v.op.name for v in tf.global_variables())
    assert made == (["loss/avg", "loss/avg/biased", "loss/avg/local_step"] if zero_debias else ["loss/avg"])
    biased = np.zeros(2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for t, value in enumerate([[1.0, -2.0], [3.0, 0.5], [2.0, 2.0]], start=1):
            sess.run(update, {loss: value})
            biased = 0.75 * biased + 0.25 * np.array(value)
            want = biased / (1 - 0.75 ** t) if zero_debias else biased
            np.testing.assert_allclose(sess.run(shadow), want, rtol=1e-12)


def test_more_learning_rate_schedules():
    step = tf.placeholder(tf.int64, [])
    lin = tf.train.linear_cosine_decay(0.1, step, 100)
    restarts = tf.train.cosine_decay_restarts(0.1, step, 10)
    with tf.Session() as sess:
        for s in [0, 25, 100, 150]:
            t = min(s, 100)
            want = 0.1 * (((100 - t) / 100) * 0.5 * (1 + math.cos(math.pi * t / 100)) + 0.001)
            assert sess.run(lin, {step: s}) == pytest.approx(want, rel=1e-5)
        # Periods of 10, 20, 40 steps: a restart to the full rate at steps 10 and 30.
        assert sess.run(restarts, {step: 0}) == pytest.approx(0.1)
        assert sess.run(restarts, {step: 10}) == pytest.approx(0.1, rel=1e-5)
        assert sess.run(restarts, {step: 20}) == pytest.approx(0.05, rel=1e-4)
        assert sess.run(restarts, {step: 30}) == pytest.approx(0.1, rel=1e-5)


def test_batch_join_and_maybe_batch_take_elements_from_every_source():
    a = tf.train.limit_epochs(tf.constant([1, 2, 3]), num_epochs=1)
    b = tf.train.limit_epochs(tf.constant([10, 20]), num_epochs=1)
    joined = tf.train.batch_join([[a], [b]], batch_size=5, enqueue_many=True, allow_smaller_final_batch=True)
    kept = tf.train.maybe_batch([tf.constant([1, 2, 3, 4])], tf.constant([True, False, True, False]), 2,
                                enqueue_many=True)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert sorted(sess.run(joined).tolist()) == [1, 2, 3, 10, 20]  # (one tensor, as TF returns it)
        assert sess.run(kept).tolist() == [1, 3]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10, ignore_live_threads=True)


def test_feed_fn_and_global_step_waiter_hooks():
    step = tf.train.get_or_create_global_step()
    x = tf.placeholder(tf.float32, [])
    total = tf.Variable(0.0)
    bump = tf.group(tf.assign_add(total, x), tf.assign_add(step, 1))
    hooks = [tf.train.FeedFnHook(lambda: {x: 2.0}), tf.train.GlobalStepWaiterHook(0)]
    with tf.train.MonitoredSession(hooks=hooks) as sess:
        for _ in range(3):
            sess.run(bump)
        assert sess.run(total) == 6.0


def test_checkpoint_helpers(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        first = saver.save(sess, str(tmp_path / "m"), global_step=1)
        sess.run(tf.assign(v, [5.0, 6.0]))
        second = saver.save(sess, str(tmp_path / "m"), global_step=2)
    assert len(tf.train.get_checkpoint_mtimes([first, second, str(tmp_path / "nope")])) == 2
    assert next(tf.train.checkpoints_iterator(str(tmp_path), timeout=1)) == second
    assert tf.train.load_checkpoint(str(tmp_path)).get_tensor("v").tolist() == [5.0, 6.0]
    state = tf.train.generate_checkpoint_state_proto(str(tmp_path), second, [first])
    assert list(state.all_model_checkpoint_paths) == [first, second]
    tf.train.remove_checkpoint(first)
    assert not tf.train.checkpoint_exists(first) and not os.path.exists(first + ".meta")
    tf.reset_default_graph()
    w = tf.Variable([0.0, 0.0], name="w")
    tf.train.init_from_checkpoint(str(tmp_path), {"v": "w"})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(w).tolist() == [5.0, 6.0]


def test_embedding_gradients_are_indexed_slices_applied_to_their_rows_only():
    table = tf.Variable(np.arange(12.0).reshape(4, 3), name="table")
    ids = tf.constant([1, 3, 1])
    loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids) * 2.0)
    grad = tf.gradients(loss, table)[0]
    assert isinstance(grad, tf.IndexedSlices)
    twice = tf.gradients(loss + tf.reduce_sum(tf.gather(table, [0])), table)[0]
    assert isinstance(twice, tf.IndexedSlices)  # two sparse paths stay sparse
    mixed = tf.gradients(loss + tf.reduce_sum(table), table)[0]
    assert isinstance(mixed, tf.Tensor)  # a dense path makes the sum dense
    with tf.Session() as sess:
        sess.run(table.initializer)
        value = sess.run(grad)
        assert value.indices.tolist() == [1, 3, 1] and value.values.tolist() == [[2.0] * 3] * 3
        assert value.dense_shape.tolist() == [4, 3]
        assert sess.run(tf.convert_to_tensor(grad)).tolist() == [[0] * 3, [4.0] * 3, [0] * 3, [2.0] * 3]


@pytest.mark.parametrize("make", [lambda: tf.train.GradientDescentOptimizer(0.1),
                                  lambda: tf.train.MomentumOptimizer(0.1, 0.9),
                                  lambda: tf.train.AdagradOptimizer(0.1),
                                  lambda: tf.train.RMSPropOptimizer(0.1, momentum=0.5),
                                  lambda: tf.train.AdadeltaOptimizer(1.0),
                                  lambda: tf.train.ProximalGradientDescentOptimizer(0.1, 0.01, 0.02),
                                  lambda: tf.train.ProximalAdagradOptimizer(0.1, 0.1, 0.01, 0.02),
                                  lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01,
                                                                 l2_regularization_strength=0.02,
                                                                 l2_shrinkage_regularization_strength=0.1)],
                         ids=["sgd", "momentum", "adagrad", "rmsprop", "adadelta", "proximal_sgd",
                              "proximal_adagrad", "ftrl"])
def test_sparse_updates_touch_only_the_gathered_rows(make):
    """As TF's SparseApply kernels: the rows no id named keep their values and their slots'
    (a dense update with zero gradient would still decay Adadelta's averages, shrink the
    proximal optimizers' rows and zero Ftrl's)."""
    table = tf.Variable(np.ones((5, 2)), name="table")
    optimizer = make()
    step = optimizer.minimize(tf.reduce_sum(tf.square(tf.nn.embedding_lookup(table, [0, 2, 2]))))
    slots = [optimizer.get_slot(table, name) for name in optimizer.get_slot_names()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        slots_before = sess.run(slots)
        for _ in range(3):
            sess.run(step)
        after, slots_after = sess.run([table, slots])
    assert after[[1, 3, 4]].tolist() == [[1.0, 1.0]] * 3  # rows no id named: never touched
    for before_slot, after_slot in zip(slots_before, slots_after):
        np.testing.assert_array_equal(after_slot[[1, 3, 4]], before_slot[[1, 3, 4]])
    # (id 2 appeared twice: its row got the summed gradient, and moved otherwise than row 0)
    assert np.all(after[[0, 2]] < 1.0) and np.all(after[2] != after[0])


def test_top_k_metrics_with_several_labels_per_example():
    scores = np.array([[0.1, 0.5, 0.2, 0.9], [0.8, 0.1, 0.3, 0.05], [0.3, 0.2, 0.25, 0.1]])
    labels = np.array([[3, 2], [2, -1], [1, -1]], np.int64)
    top2 = np.argsort(-scores, axis=1)[:, :2]  # [[3, 1], [0, 2], [0, 2]]
    hits = np.array([[l in labels[i] for l in top2[i]] for i in range(3)])
    precision, update_p = tf.metrics.sparse_precision_at_k(labels, scores, 2)
    p_idx, update_pi = tf.metrics.precision_at_top_k(labels, top2)
    recall, update_r = tf.metrics.recall_at_top_k(labels, top2)
    ap, update_ap = tf.metrics.average_precision_at_k(labels, scores, 2)
    sparse_labels = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], np.array([3, 2, 2, 1], np.int64), [3, 2])
    sparse_recall, update_sr = tf.metrics.recall_at_top_k(sparse_labels, top2)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([update_p, update_pi, update_r, update_ap, update_sr])
        got = sess.run([precision, p_idx, recall, ap, sparse_recall])
    label_count = np.array([2, 1, 1])
    want_ap = np.mean([sum(hits[i, :j + 1].sum() / (j + 1) * hits[i, j] for j in range(2)) / min(2, label_count[i])
                       for i in range(3)])
    np.testing.assert_allclose(got, [hits.mean(), hits.mean(), hits.sum() / 4, want_ap, hits.sum() / 4],
                               rtol=1e-6)


def test_the_top_k_metrics_of_one_class():
    """precision/recall at k with ``class_id``: of the examples predicting (for precision) or
    labelled with (for recall) the class, the weighted share that also has the other. (Run as
    TF 2.21's tf.compat.v1.metrics, the same cases gave the same six values.)"""
    rng = np.random.default_rng(81)
    logits = rng.standard_normal((12, 5)).astype(np.float32)
    labels = rng.integers(0, 5, (12, 2)).astype(np.int64)
    labels[3, 1] = -1
    w = rng.random(12).astype(np.float32)
    top = np.argsort(-logits, 1)
    metrics = [tf.metrics.precision_at_k(labels, logits, 2, class_id=c, weights=w) for c in (0, 3)]
    metrics += [tf.metrics.recall_at_k(labels, logits, 3, class_id=c) for c in (1, 4)]
    metrics += [tf.metrics.precision_at_top_k(labels, top[:, :2], class_id=2),
                tf.metrics.recall_at_top_k(labels, top[:, :2], class_id=2, weights=w)]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([update for _, update in metrics])
        got = sess.run([value for value, _ in metrics])

    def share(of, among, weights):
        return np.sum(of * among * weights) / np.sum(among * weights) if np.sum(among * weights) else 0.0

    def hits(c, k):
        return (top[:, :k] == c).any(1).astype(float), (labels == c).any(1).astype(float)

    ones = np.ones(12)
    want = [share(*hits(c, 2)[::-1], w) for c in (0, 3)] + [share(*hits(c, 3), ones) for c in (1, 4)]
    want += [share(*hits(2, 2)[::-1], ones), share(*hits(2, 2), w)]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got, [0.006785, 0.060792, 0.833333, 0.5, 0.0, 0.0], atol=1e-6)
