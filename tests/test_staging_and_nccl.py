"""tf.contrib.staging.StagingArea and tf.contrib.nccl: the pieces of TF 1.x's multi-GPU
programs that stage the next batch on a device and sum the towers' gradients."""

import threading

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

RNG = np.random.default_rng(3)
BOUNDED = tf.RunOptions(timeout_in_ms=60_000)  # (a wait that never ends fails the step)


# -- StagingArea ------------------------------------------------------------------

def test_each_step_gets_the_batch_an_earlier_step_put():
    """The GPU input pipeline's pattern: a warm-up run puts the first batch; each step then
    gets its batch and puts the next."""
    batches = [RNG.standard_normal((4, 3)).astype(np.float32) for _ in range(4)]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 3])
        with tf.device("/gpu:0"):
            area = tf.contrib.staging.StagingArea([tf.float32], shapes=[[4, 3]])
            put = area.put([x])
            (got,) = area.get()
            total = tf.reduce_sum(got, axis=1)
        assert got.shape.as_list() == [4, 3]
        with tf.Session() as sess:
            sess.run(put, {x: batches[0]})
            sums = []
            for nxt in batches[1:]:
                sums.append(sess.run([total, put], {x: nxt}, options=BOUNDED)[0])
            assert sess.run(area.size()) == 1
            sums.append(sess.run(total, options=BOUNDED))
            assert sess.run(area.size()) == 0
    for s, b in zip(sums, batches):
        np.testing.assert_allclose(s, b.sum(axis=1), rtol=1e-6)


def test_named_components_peek_and_clear():
    with tf.Graph().as_default():
        area = tf.contrib.staging.StagingArea([tf.int32, tf.string], names=["n", "s"])
        n = tf.placeholder(tf.int32, [])
        put = area.put({"n": n, "s": tf.as_string(n)})
        first, second = area.peek(0), area.peek(1)
        got = area.get()
        assert sorted(got) == ["n", "s"]
        with tf.Session() as sess:
            for i in range(3):
                sess.run(put, {n: i})
            assert sess.run(area.size()) == 3
            assert sess.run(first) == {"n": 0, "s": b"0"} and sess.run(second)["n"] == 1  # (left in place)
            assert sess.run(got, options=BOUNDED) == {"n": 0, "s": b"0"}
            sess.run(area.clear())
            assert sess.run(area.size()) == 0
        with pytest.raises(ValueError, match="must enqueue a dictionary"):
            area.put([n, tf.as_string(n)])
        with pytest.raises(ValueError, match="do not match names"):
            area.put({"n": n})


def test_a_put_into_a_full_area_waits_for_a_get():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        area = tf.contrib.staging.StagingArea([tf.float32], capacity=1)
        put, (got,) = area.put([x]), area.get()
        with tf.Session() as sess:
            sess.run(put, {x: [1.0, 2.0]})
            with pytest.raises(tf.errors.DeadlineExceededError, match="room in staging area"):
                sess.run(put, {x: [3.0, 4.0]}, options=tf.RunOptions(timeout_in_ms=200))
            # (a put waiting in another thread goes in once the get makes room)
            waiting = threading.Thread(target=sess.run, args=(put, {x: [5.0, 6.0]}), kwargs={"options": BOUNDED})
            waiting.start()
            np.testing.assert_array_equal(sess.run(got, options=BOUNDED), [1.0, 2.0])
            waiting.join(60)
            assert not waiting.is_alive()
            np.testing.assert_array_equal(sess.run(got, options=BOUNDED), [5.0, 6.0])
            with pytest.raises(tf.errors.DeadlineExceededError, match="an element of staging area"):
                sess.run(got, options=tf.RunOptions(timeout_in_ms=200))


def test_memory_limit_and_mismatched_components():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None])
        area = tf.contrib.staging.StagingArea([tf.float64], memory_limit=64)
        put = area.put(x)
        with tf.Session() as sess:
            sess.run(put, {x: np.zeros(8)})  # (64 bytes: the limit)
            with pytest.raises(tf.errors.ResourceExhaustedError, match="combined size of 72 bytes"):
                sess.run(put, {x: np.zeros(9)})
            with pytest.raises(tf.errors.DeadlineExceededError, match="room"):
                sess.run(put, {x: np.zeros(1)}, options=tf.RunOptions(timeout_in_ms=200))
        with pytest.raises(ValueError, match="Datatypes do not match"):
            area.put(tf.zeros([2], tf.float32))
        with pytest.raises(ValueError, match="holds 1 tensors an element, got 2"):
            area.put([x, x])


def test_two_areas_with_one_shared_name_are_one():
    with tf.Graph().as_default():
        a = tf.contrib.staging.StagingArea([tf.int64], shared_name="batches")
        b = tf.contrib.staging.StagingArea([tf.int64], shared_name="batches")
        with tf.Session() as sess:
            sess.run(a.put(tf.constant(7, tf.int64)))
            assert sess.run(b.get(), options=BOUNDED) == [7]


# -- nccl -------------------------------------------------------------------------

def _per_device(values, devices):
    tensors = []
    for v, d in zip(values, devices):
        with tf.device(d):
            tensors.append(tf.identity(tf.constant(v)))
    return tensors


@pytest.mark.parametrize("fn,reduce", [("all_sum", np.sum), ("all_prod", np.prod), ("all_min", np.min),
                                       ("all_max", np.max)])
def test_all_reduce_gives_every_device_the_reduction(fn, reduce):
    values = [RNG.standard_normal((2, 3)) for _ in range(3)]
    devices = ["/gpu:0", "/gpu:1", "/cpu:0"]
    with tf.Graph().as_default():
        outs = getattr(tf.contrib.nccl, fn)(_per_device(values, devices))
        assert [o.device[-5:] for o in outs] == ["GPU:0", "GPU:1", "CPU:0"]
        with tf.Session() as sess:
            got = sess.run(outs, options=BOUNDED)
            # (one output alone runs every member: it waits for them)
            alone = sess.run(outs[1], options=BOUNDED)
    for g in got + [alone]:
        np.testing.assert_allclose(g, reduce(values, axis=0), rtol=1e-12)


def test_all_sum_has_tensorflows_gradient():
    def build(a, b):
        with tf.device("/gpu:0"):
            a = tf.identity(a)
        with tf.device("/gpu:1"):
            b = tf.identity(b)
        s0, s1 = tf.contrib.nccl.all_sum([a, b])
        return tf.stack([s0 * s0, tf.sin(s1)])  # (each member's output read differently)

    check_gradients(build, [RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2))])


def test_reduce_sum_and_broadcast():
    values = [RNG.standard_normal(4) for _ in range(2)]
    with tf.Graph().as_default():
        a, b = _per_device(values, ["/gpu:0", "/gpu:1"])
        with tf.device("/gpu:1"):
            total = tf.contrib.nccl.reduce_sum([a, b])
        with pytest.raises(ValueError, match="One input tensor must be assigned to current device"):
            with tf.device("/gpu:2"):
                tf.contrib.nccl.reduce_sum([a, b])
        shared = tf.contrib.nccl.broadcast(a)
        with tf.device("/gpu:3"):
            copy = shared * 1.0
        with tf.Session() as sess:
            got_total, got_copy = sess.run([total, copy])
    np.testing.assert_allclose(got_total, values[0] + values[1], rtol=1e-12)
    np.testing.assert_array_equal(got_copy, values[0])


def test_the_inputs_need_devices_of_their_own():
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        with pytest.raises(ValueError, match="Device assignment .* required"):
            tf.contrib.nccl.all_sum([x, x])
        with tf.device("/gpu:0"):
            y, z = tf.identity(x), tf.identity(x)
        with pytest.raises(ValueError, match="device of its own"):
            tf.contrib.nccl.all_sum([y, z])


def test_members_meet_when_one_device_reads_another_members_result():
    """Each device runs its ops one after another: GPU 0 reads member 1's gradient sum, and
    must not wait for it before its own member has joined (the step's order puts an
    all-reduce's members side by side, after all their inputs)."""
    rng = np.random.default_rng(8)
    xs, w = [rng.standard_normal((4, 3)) for _ in range(2)], rng.standard_normal((3, 2))
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            weight = tf.constant(w)
            towers = [tf.matmul(tf.constant(xs[0]), weight)]
        with tf.device("/gpu:1"):
            towers.append(tf.matmul(tf.constant(xs[1]), weight))
        with tf.device("/gpu:0"):  # (the loss, and the weight's gradient from both towers)
            summed = tf.contrib.nccl.all_sum(towers)
            loss = tf.reduce_sum(summed[0] * summed[0]) + tf.reduce_sum(summed[1])
            grad = tf.gradients(loss, weight)[0]
        with tf.Session() as sess:
            got = sess.run(grad, options=BOUNDED)
    total = (xs[0] + xs[1]) @ w
    np.testing.assert_allclose(got, (xs[0] + xs[1]).T @ (2 * total + 1), rtol=1e-12)
