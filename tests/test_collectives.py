"""Collective ops (all-reduce, all-gather, broadcast) against NumPy: among the devices of one
session, and among tasks that are real server processes on 127.0.0.1, each member running a
graph of its own; a member that dies fails every member's step, naming it."""

import threading

import numpy as np
import pytest

import distflow as tf
from distflow.ops import collective_ops as co
from distflow.runtime import collectives

from cluster_util import LocalCluster


def _values(n, shape=(3, 50), dtype=np.float32):
    return [np.random.RandomState(i).standard_normal(shape).astype(dtype) for i in range(n)]


def _local_session(n):
    return tf.Session(config=tf.ConfigProto(device_count={"CPU": n}))


@pytest.mark.parametrize("merge_op,final_op,oracle", [
    ("Add", "Id", lambda v: np.sum(v, axis=0)),
    ("Add", "Div", lambda v: np.mean(v, axis=0)),
    ("Max", "Id", lambda v: np.max(v, axis=0)),
    ("Min", "Id", lambda v: np.min(v, axis=0)),
    ("Mul", "Id", lambda v: np.prod(v, axis=0)),
])
def test_all_reduce_among_the_devices_of_a_session_matches_numpy(merge_op, final_op, oracle):
    n = 4
    values = _values(n)
    with tf.Graph().as_default():
        outs = []
        for i in range(n):
            with tf.device(f"/cpu:{i}"):
                outs.append(co.all_reduce(tf.constant(values[i]), n, group_key=1, instance_key=7,
                                          merge_op=merge_op, final_op=final_op))
        with _local_session(n) as sess:
            for _ in range(3):  # (each run meets the same run of the other members)
                got = sess.run(outs)
                for g in got:
                    np.testing.assert_allclose(g, oracle(np.stack(values)), rtol=1e-5, atol=1e-6)
                    np.testing.assert_array_equal(g, got[0])  # every member the same bits


def test_a_tensor_in_many_pieces_and_odd_sizes_reduces_exactly(monkeypatch):
    monkeypatch.setattr(collectives, "PIECE_BYTES", 64)  # 16 floats a piece: many pieces per chunk
    n = 3
    for shape in [(1001,), (2,), (0,), (), (7, 13)]:
        values = [np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * (i + 1) for i in range(n)]
        with tf.Graph().as_default():
            outs = []
            for i in range(n):
                with tf.device(f"/cpu:{i}"):
                    outs.append(co.all_reduce(tf.constant(values[i]), n, 1, 1))
            with _local_session(n) as sess:
                for g in sess.run(outs):
                    np.testing.assert_array_equal(g, sum(values))


def test_all_gather_and_broadcast_among_the_devices_of_a_session():
    n = 3
    values = _values(n, shape=(2, 5))
    with tf.Graph().as_default():
        gathered, received = [], []
        for i in range(n):
            with tf.device(f"/cpu:{i}"):
                x = tf.constant(values[i])
                gathered.append(co.all_gather(x, n, 1, 1))
                if i == 1:
                    received.append(co.broadcast_send(x, [2, 5], tf.float32, n, 1, 2))
                else:
                    received.append(co.broadcast_recv([2, 5], tf.float32, n, 1, 2))
        assert gathered[0].shape.as_list() == [6, 5]
        with _local_session(n) as sess:
            got = sess.run(gathered + received)
    for g in got[:n]:
        np.testing.assert_array_equal(g, np.concatenate(values))
    for g in got[n:]:
        np.testing.assert_array_equal(g, values[1])


def test_members_whose_tensors_differ_in_dtype_fail_naming_what_each_has():
    with tf.Graph().as_default():
        outs = []
        for i, dtype in enumerate([tf.float32, tf.float64]):
            with tf.device(f"/cpu:{i}"):
                outs.append(co.all_reduce(tf.constant([1.0, 2.0], dtype), 2, 1, 1))
        with _local_session(2) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"float(32|64)\[1\] as piece rs0.0, where this member .* has float(64|32)\[1\]"):
                sess.run(outs, options=tf.RunOptions(timeout_in_ms=20000))


def test_all_gather_of_single_elements_and_of_members_whose_shapes_differ():
    with tf.Graph().as_default():
        single, uneven = [], []
        for i in range(3):
            with tf.device(f"/cpu:{i}"):
                single.append(co.all_gather(tf.constant([float(i)]), 3, 1, 1))
                uneven.append(co.all_gather(tf.zeros([2 + i, 3]), 3, 1, 2))
        with _local_session(3) as sess:
            for got in sess.run(single):
                np.testing.assert_array_equal(got, [0.0, 1.0, 2.0])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"all-gather: member .* gave float32\[\d+\] as piece ag0.0, where this member"):
                sess.run(uneven, options=tf.RunOptions(timeout_in_ms=20000))


def test_a_group_of_one_returns_its_input():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(co.all_reduce(x, 1, 1, 1, final_op="Div")), [1.0, 2.0])


def test_bad_arguments_are_errors_naming_them():
    with tf.Graph().as_default():
        x = tf.constant([1.0])
        with pytest.raises(ValueError, match="merge_op"):
            co.all_reduce(x, 2, 1, 1, merge_op="Sub")
        with pytest.raises(ValueError, match="final_op"):
            co.all_reduce(x, 2, 1, 1, final_op="Sqrt")
        with pytest.raises(ValueError, match="group_size"):
            co.all_reduce(x, 0, 1, 1)
        with pytest.raises(TypeError, match="instance_key"):
            co.all_reduce(x, 2, 1, "one")
        with pytest.raises(ValueError, match="fully defined"):
            co.broadcast_recv([None], tf.float32, 2, 1, 1)


def test_members_that_disagree_on_the_group_size_are_an_error():
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            a = co.all_reduce(tf.constant([1.0]), 2, 5, 1)
        with tf.device("/cpu:1"):
            b = co.all_reduce(tf.constant([1.0]), 3, 5, 1)
        with _local_session(2) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="collective group 5"):
                sess.run([a, b], options=tf.RunOptions(timeout_in_ms=20000))


def test_a_member_that_never_comes_is_a_deadline_naming_the_op_and_group():
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            a = co.all_reduce(tf.constant([1.0]), 2, 3, 1, name="lonely")
        with _local_session(2) as sess:
            with pytest.raises(tf.errors.DeadlineExceededError, match="lonely.*collective group 3"):
                sess.run(a, options=tf.RunOptions(timeout_in_ms=300))


def _run_members(cluster, n, build, runs=1, timeout_ms=60000):
    """Runs ``build(i)`` (a graph's fetches) on task i of job worker, for each i in its own
    session and thread; returns each member's results, or the error it raised."""
    results: dict = {}

    def member(i):
        g = tf.Graph()
        with g.as_default(), tf.device(f"/job:worker/task:{i}"):
            fetches = build(i)
        try:
            with tf.Session(cluster.target("worker", i), graph=g) as sess:
                results[i] = [sess.run(fetches, options=tf.RunOptions(timeout_in_ms=timeout_ms)) for _ in range(runs)]
        except Exception as e:  # noqa: BLE001 - handed to the test
            results[i] = e

    threads = [threading.Thread(target=member, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a member's step did not end"
    return results


def test_collectives_among_tasks_each_running_its_own_graph_match_numpy():
    n = 4
    # float32, each chunk a little over a piece: two pieces a chunk, in turn in a segment's two slots
    size = n * collectives.PIECE_BYTES // 4 + 20_000
    values = _values(n, shape=(size,))
    cluster = LocalCluster({"worker": n})
    try:
        def build(i):
            x = tf.constant(values[i])
            sent = (co.broadcast_send(x, [size], tf.float32, n, 1, 3) if i == 2
                    else co.broadcast_recv([size], tf.float32, n, 1, 3))
            return [co.all_reduce(x, n, 1, 1, final_op="Div"), co.all_gather(x[:5], n, 1, 2), sent]

        results = _run_members(cluster, n, build, runs=2)
    finally:
        cluster.close()
    for i in range(n):
        assert not isinstance(results[i], Exception), results[i]
        for reduced, gathered, sent in results[i]:
            np.testing.assert_allclose(reduced, np.mean(values, axis=0), rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(reduced, results[0][0][0])
            np.testing.assert_array_equal(gathered, np.concatenate([v[:5] for v in values]))
            np.testing.assert_array_equal(sent, values[2])


def test_a_member_that_died_fails_every_members_step_naming_it():
    n = 3
    cluster = LocalCluster({"worker": n})
    try:
        def build(i):
            return co.all_reduce(tf.constant([float(i)]), n, 1, 1)

        first = _run_members(cluster, n, build)
        assert all(np.array_equal(first[i][0], [3.0]) for i in range(n)), first
        cluster.kill("worker", 2)  # the group is formed; its next run finds worker 2 gone
        survivors = _run_members(cluster, n - 1, build, timeout_ms=60000)
    finally:
        cluster.close()
    for i in range(n - 1):
        error = survivors[i]
        assert isinstance(error, (tf.errors.UnavailableError, tf.errors.AbortedError)), error
        assert "collective group 1" in error.message and "task:2" in error.message, error.message


def test_a_broadcast_whose_source_is_done_before_its_receivers_begin_still_arrives():
    # the source only gives: once the group has formed, its step may end before the
    # receivers' steps even start
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            sent = co.broadcast_send(tf.constant([1.0, 2.0]), [2], tf.float32, 3, 1, 1)
        received = []
        for i in (1, 2):
            with tf.device(f"/cpu:{i}"):
                received.append(co.broadcast_recv([2], tf.float32, 3, 1, 1))
        with _local_session(3) as sess:
            sess.run([sent] + received)  # (the group forms: its members must all come once)
            sess.run(sent)
            got = sess.run(received, options=tf.RunOptions(timeout_in_ms=20000))
    for g in got:
        np.testing.assert_array_equal(g, [1.0, 2.0])


def test_a_members_collective_returns_only_once_its_last_pieces_have_left_for_its_neighbour():
    # A worker process may exit the moment its last collective returns. The pieces its
    # neighbour still has to take leave through this task's data port (the neighbour pulls
    # them), so the member must not return before they have: here task 0's port holds back
    # the all-gather half's pieces until task 0's run returns or a while has passed. Task 0
    # must return after they were let go, never before.
    from distflow.tools.launcher import free_ports

    spec = {"worker": [f"127.0.0.1:{port}" for port in free_ports(2)]}
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in range(2)]
    transport = servers[0]._worker.transport
    serve = transport._handler
    held, released, order = threading.Event(), threading.Event(), []

    def held_back(step_id, key, timeout):
        if key[2].startswith("ag"):
            held.set()
            released.wait(60)
        return serve(step_id, key, timeout)

    transport._handler = held_back
    results: dict = {}

    def member(i):
        g = tf.Graph()
        with g.as_default(), tf.device(f"/job:worker/task:{i}"):
            reduced = co.all_reduce(tf.constant([float(i + 1)] * 10), 2, 7, 1)
        try:
            with tf.Session(servers[i].target, graph=g) as sess:
                results[i] = sess.run(reduced, options=tf.RunOptions(timeout_in_ms=60000))
        except Exception as e:  # noqa: BLE001 - handed to the test
            results[i] = e
        order.append(f"returned {i}")
        if i == 0:
            released.set()

    threads = [threading.Thread(target=member, args=(i,), daemon=True) for i in range(2)]
    try:
        for t in threads:
            t.start()
        assert held.wait(60), "task 0's port was never asked for the all-gather's pieces"
        threads[0].join(1)  # (the member returning now would be the fault: it would take milliseconds)
        order.append("released")
        released.set()
        for t in threads:
            t.join(60)
        assert not any(t.is_alive() for t in threads), "a member's step did not end"
    finally:
        released.set()
        for server in servers:
            server.stop()
    for i in range(2):
        np.testing.assert_array_equal(results[i], [3.0] * 10)
    assert order.index("released") < order.index("returned 0"), order
