"""FIFOQueue and ConditionalAccumulator in one process: semantics, blocking, cancellation, errors."""


import numpy as np
import pytest

import distflow as tf
from thread_util import run_until_blocked


def test_fifo_order_and_components():
    q = tf.FIFOQueue(10, [tf.int32, tf.float32], shapes=[[], [2]])
    x, y = tf.placeholder(tf.int32, []), tf.placeholder(tf.float32, [2])
    enq, deq, size = q.enqueue([x, y]), q.dequeue(), q.size()
    with tf.Session() as sess:
        for i in range(3):
            sess.run(enq, {x: i, y: [i, -i]})
        assert sess.run(size) == 3
        got = [sess.run(deq) for _ in range(3)]
    assert [int(a) for a, _ in got] == [0, 1, 2]
    np.testing.assert_array_equal(got[2][1], [2.0, -2.0])
    assert deq[0].shape.as_list() == [] and deq[1].shape.as_list() == [2]


def test_enqueue_many_and_dequeue_many_up_to():
    q = tf.FIFOQueue(-1, tf.int64, shapes=[[3]])
    enq = q.enqueue_many([np.arange(12, dtype=np.int64).reshape(4, 3)])
    many, up_to = q.dequeue_many(3), q.dequeue_up_to(5)
    assert many.shape.as_list() == [3, 3]
    with tf.Session() as sess:
        sess.run(enq)
        np.testing.assert_array_equal(sess.run(many), np.arange(9).reshape(3, 3))
        sess.run(q.close())
        np.testing.assert_array_equal(sess.run(up_to), [[9, 10, 11]])  # what is left once closed
        with pytest.raises(tf.errors.OutOfRangeError, match="closed and has insufficient elements"):
            sess.run(up_to)


def test_a_priority_queue_hands_out_the_lowest_priority_first():
    q = tf.PriorityQueue(4, [tf.string, tf.float32], shapes=[[], [2]])
    priority, word = tf.placeholder(tf.int64, []), tf.placeholder(tf.string, [])
    enq = q.enqueue((priority, word, tf.fill([2], tf.cast(priority, tf.float32))))
    many = q.enqueue_many((np.array([5, 2], np.int64), np.array([b"e", b"b2"], object), np.zeros((2, 2), np.float32)))
    deq, deq_many, size = q.dequeue(), q.dequeue_many(2), q.size()
    assert [t.dtype for t in deq] == [tf.int64, tf.string, tf.float32] and deq[2].shape.as_list() == [2]
    with tf.Session() as sess:
        for p, w in ((3, b"c"), (1, b"a"), (2, b"b")):
            sess.run(enq, {priority: p, word: w})
        first = sess.run(deq)
        sess.run(many)
        assert sess.run(size) == 4
        pairs = sess.run(deq_many)
        rest = [sess.run(deq)[:2] for _ in range(2)]
        sess.run(q.close())
        with pytest.raises(tf.errors.OutOfRangeError, match="PriorityQueue .* closed"):
            sess.run(deq)
    assert first[0] == 1 and first[1] == b"a" and first[2].tolist() == [1.0, 1.0]
    # equal priorities leave in the order they came
    assert pairs[0].tolist() == [2, 2] and pairs[1].tolist() == [b"b", b"b2"]
    assert [(int(p), w) for p, w in rest] == [(3, b"c"), (5, b"e")]
    with pytest.raises(ValueError, match="1 types but 2 shapes"):
        tf.PriorityQueue(4, [tf.int32], shapes=[[], [2]])


def test_dequeue_blocks_until_an_enqueue_from_another_thread():
    q = tf.FIFOQueue(2, tf.float32, shapes=[[]])
    v = tf.placeholder(tf.float32, [])
    enq, deq = q.enqueue(v), q.dequeue()
    with tf.Session() as sess:
        t, out = run_until_blocked(lambda: sess.run(deq))
        assert t.is_alive()  # still waiting
        sess.run(enq, {v: 7.0})
        t.join(10)
        assert out["value"] == 7.0


def test_full_queue_blocks_enqueue_and_close_can_cancel_it():
    q = tf.FIFOQueue(1, tf.float32, shapes=[[]])
    enq = q.enqueue(1.0)
    with tf.Session() as sess:
        sess.run(enq)
        t, out = run_until_blocked(lambda: sess.run(enq))
        assert t.is_alive()
        sess.run(q.close(cancel_pending_enqueues=True))
        t.join(10)
        assert isinstance(out["error"], tf.errors.CancelledError)
        with pytest.raises(tf.errors.CancelledError, match="is closed"):
            sess.run(enq)
        assert sess.run(q.dequeue()) == 1.0  # what was in it stays


@pytest.mark.parametrize("pushed_first", [False, True])
def test_a_full_queue_is_a_delay_line_when_one_step_pops_and_pushes(pushed_first):
    # WaveNet's fast generation: a queue as long as a layer's dilation, filled with zeros,
    # and each step pops the oldest element and pushes the newest (TF runs the two at once).
    delay = 3
    q = tf.FIFOQueue(delay, tf.float32, shapes=[[2]])
    init = q.enqueue_many(tf.zeros([delay, 2]))
    x = tf.placeholder(tf.float32, [2])
    if pushed_first:  # (the push made before the pop, and named first among the fetches)
        push = q.enqueue([x])
        pop = q.dequeue()
        fetches = [push, pop]
    else:
        pop = q.dequeue()
        push = q.enqueue([x])
        fetches = [pop, push]
    out = tf.identity(pop) * 10.0
    with tf.Session() as sess:
        sess.run(init)
        bounded = tf.RunOptions(timeout_in_ms=30000)  # (a regression fails, not hangs)
        got = [sess.run([out] + fetches, {x: [i, -i]}, options=bounded)[0] for i in range(1, 7)]
        assert sess.run(q.size()) == delay  # (never more than its capacity between steps)
        with pytest.raises(tf.errors.DeadlineExceededError):  # (a push alone still waits for room)
            sess.run(push, {x: [0, 0]}, options=tf.RunOptions(timeout_in_ms=100))
    want = [[0, 0]] * delay + [[10 * i, -10 * i] for i in range(1, 7 - delay)]
    np.testing.assert_array_equal(np.array(got), np.array(want, dtype=np.float32))
    # An empty queue pushed to and popped from in one step still gives the pushed element.
    q2 = tf.FIFOQueue(1, tf.float32, shapes=[[]])
    push2, pop2 = q2.enqueue(5.0), q2.dequeue()
    with tf.Session() as sess:
        assert sess.run([push2, pop2], options=tf.RunOptions(timeout_in_ms=30000))[1] == 5.0


def test_run_options_timeout_ends_a_blocked_dequeue():
    q = tf.FIFOQueue(1, tf.float32)
    deq = q.dequeue()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DeadlineExceededError, match="timed out waiting for 1 element"):
            sess.run(deq, options=tf.RunOptions(timeout_in_ms=100))


def test_closing_the_session_cancels_a_blocked_step():
    q = tf.FIFOQueue(1, tf.float32)
    deq = q.dequeue()
    sess = tf.Session()
    t, out = run_until_blocked(lambda: sess.run(deq))
    sess.close()
    t.join(10)
    assert not t.is_alive()
    assert isinstance(out["error"], tf.errors.CancelledError)


def test_shared_name_is_one_queue_and_its_types_must_match():
    first = tf.FIFOQueue(5, tf.int32, shared_name="shared")
    other = tf.FIFOQueue(5, tf.int32, shared_name="shared", name="again")
    wrong = tf.FIFOQueue(5, tf.float32, shared_name="shared", name="wrong")
    with tf.Session() as sess:
        sess.run(first.enqueue(3))
        assert sess.run(other.dequeue()) == 3
        with pytest.raises(tf.errors.InvalidArgumentError, match="component types"):
            sess.run(wrong.size())


def test_enqueue_checks_dtype_and_shape():
    q = tf.FIFOQueue(3, tf.float32, shapes=[[2]])
    with pytest.raises(ValueError, match="shape"):
        q.enqueue(tf.zeros([3]))
    p = tf.placeholder(tf.float32, None)
    enq = q.enqueue(p)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="component 0 should have shape"):
            sess.run(enq, {p: np.zeros(3, np.float32)})


def test_accumulator_averages_drops_stale_and_advances_its_step():
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    g, step = tf.placeholder(tf.float32, [2]), tf.placeholder(tf.int64, [])
    apply, take, count = acc.apply_grad(g, local_step=step), acc.take_grad(2), acc.num_accumulated()
    with tf.Session() as sess:
        sess.run(apply, {g: [1, 2], step: 0})
        sess.run(apply, {g: [3, 6], step: 0})
        np.testing.assert_array_equal(sess.run(take), [2, 4])  # the mean; global step now 1
        sess.run(apply, {g: [100, 100], step: 0})  # computed before the update: dropped
        assert sess.run(count) == 0
        t, out = run_until_blocked(lambda: sess.run(take))
        assert t.is_alive()
        sess.run(apply, {g: [1, 1], step: 1})
        sess.run(apply, {g: [3, 3], step: 4})  # newer is fine
        t.join(10)
        np.testing.assert_array_equal(out["value"], [2, 2])
        sess.run(acc.set_global_step(10))
        sess.run(apply, {g: [1, 1], step: 9})
        assert sess.run(count) == 0


def test_accumulator_sum_and_errors():
    acc = tf.ConditionalAccumulator(tf.float64, shape=[2], reduction_type="SUM")
    g = tf.placeholder(tf.float64, None)
    apply = acc.apply_grad(g, local_step=0)
    with tf.Session() as sess:
        sess.run(apply, {g: [1.0, 2.0]})
        sess.run(apply, {g: [1.0, 2.0]})
        np.testing.assert_array_equal(sess.run(acc.take_grad(2)), [2.0, 4.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="gradients of shape"):
            sess.run(apply, {g: [1.0, 2.0, 3.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="num_required must be >= 1"):
            sess.run(acc.take_grad(0))
    with pytest.raises(ValueError, match="reduction_type"):
        tf.ConditionalAccumulator(tf.float32, reduction_type="MAX")


def test_from_list_picks_the_queue_when_the_step_runs():
    q1, q2 = tf.FIFOQueue(10, tf.float32, shapes=[[2]]), tf.FIFOQueue(10, tf.float32, shapes=[[2]])
    index = tf.placeholder(tf.int32, [])
    q = tf.QueueBase.from_list(index, [q1, q2])
    assert q.shapes[0].as_list() == [2]
    enqueue = q.enqueue([[1.0, 2.0]])
    with tf.Session() as sess:
        sess.run(enqueue, {index: 1})
        sess.run(enqueue, {index: 1})
        sess.run(enqueue, {index: 0})
        assert sess.run([q1.size(), q2.size()]) == [1, 2]
        np.testing.assert_array_equal(sess.run(q.dequeue(), {index: 1}), [1.0, 2.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"RefSelect index 2 is out of range \[0, 2\)"):
            sess.run(enqueue, {index: 2})
    with pytest.raises(TypeError, match="has dtypes"):
        tf.QueueBase.from_list(0, [q1, tf.FIFOQueue(10, tf.int32)])


def _sparse_takes(reduction, steps=(0, 0, 0), global_step=0, duplicate=False):
    """Three IndexedSlices gradients into a SparseConditionalAccumulator, then one take."""
    with tf.Graph().as_default():
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 2], reduction_type=reduction)
        third = ([[16.0, 16.0], [32.0, 32.0]], [2, 2]) if duplicate else ([[16.0, 16.0]], [2])
        applies = [acc.apply_grad([0, 2], np.array([[1.0, 1.0], [2.0, 2.0]], np.float32), [4, 2],
                                  local_step=steps[0]),
                   acc.apply_grad([2, 3], np.array([[4.0, 4.0], [8.0, 8.0]], np.float32), local_step=steps[1]),
                   acc.apply_indexed_slices_grad(tf.IndexedSlices(tf.constant(third[0]),
                                                                  tf.constant(third[1], tf.int64)),
                                                 local_step=steps[2])]
        taken = acc.take_indexed_slices_grad(2)
        with tf.Session() as sess:
            sess.run(acc.set_global_step(global_step))
            for op in applies:
                sess.run(op)
            count = sess.run(acc.num_accumulated())
            indices, values, shape = sess.run([taken.indices, taken.values, taken.dense_shape])
            assert sess.run(acc.num_accumulated()) == 0
            with pytest.raises(tf.errors.DeadlineExceededError, match="2 gradient"):
                sess.run(taken.values, options=tf.RunOptions(timeout_in_ms=100))
    return count, indices.tolist(), values[:, 0].tolist(), shape.tolist()


def test_a_sparse_accumulator_averages_each_row_over_the_gradients_that_had_it():
    # (TensorFlow 2.21's tf.compat.v1.SparseConditionalAccumulator gave these same figures)
    assert _sparse_takes("MEAN") == (3, [0, 2, 3], [1.0, pytest.approx(22 / 3), 8.0], [4, 2])
    assert _sparse_takes("SUM") == (3, [0, 2, 3], [1.0, 22.0, 8.0], [4, 2])
    assert _sparse_takes("MEAN", steps=(0, 1, 1), global_step=1) == (2, [2, 3], [10.0, 8.0], [4, 2])  # (stale: out)
    # a row twice in one gradient is that gradient's sum, counted once (TF returned it twice)
    assert _sparse_takes("MEAN", duplicate=True)[2] == [1.0, 18.0, 8.0]
