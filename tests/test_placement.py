"""Placement, partitioning with _Send/_Recv, and concurrent partitions."""

import threading

import numpy as np
import pytest

import distflow as tf
from distflow.framework.registry import register_op
from distflow.runtime.partition import partition, prune

LOCAL = "/job:localhost/replica:0/task:0/device:"


def placed(sess, op):
    return sess._placer.place(op).name


def test_ops_get_full_device_names():
    with tf.device("/gpu:1"):
        a = tf.constant(1.0)
    b = tf.constant(2.0)
    with tf.device("/job:localhost/task:0/cpu:1"):
        c = a + b
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2, "GPU": 2})) as sess:
        assert sess.run(c) == 3.0
        assert placed(sess, a.op) == LOCAL + "GPU:1"
        assert placed(sess, b.op) == LOCAL + "CPU:0"
        assert placed(sess, c.op) == LOCAL + "CPU:1"


def test_absent_device_is_an_error_naming_op_and_device():
    with tf.device("/gpu:3"):
        a = tf.constant(1.0, name="far_away")
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 2})) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"'far_away' \(Const\).*'/device:GPU:3'.*allow_soft_placement=True"):
            sess.run(a)


def test_soft_placement():
    with tf.device("/gpu:3"):
        a = tf.constant(1.0)
    with tf.device("/job:worker/task:2"):
        b = tf.constant(2.0)
    with tf.device("/device:TPU:0"):
        c = a + b
    config = tf.ConfigProto(device_count={"GPU": 2}, allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        assert sess.run(c) == 3.0
        assert placed(sess, a.op) == LOCAL + "GPU:0"
        assert placed(sess, b.op) == LOCAL + "CPU:0"
        assert placed(sess, c.op) == LOCAL + "CPU:0"


def test_variable_ops_are_colocated_with_the_variable():
    with tf.device("/gpu:1"):
        v = tf.Variable([1.0, 2.0], name="v")
    with tf.device("/cpu:0"):
        update = tf.assign_add(v, [1.0, 1.0])  # takes v's reference: goes where v is
        doubled = v * 2.0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(update)
        assert sess.run(doubled).tolist() == [4.0, 6.0]
        for op in (v.op, v.initializer, v.value().op, update.op):
            assert placed(sess, op) == LOCAL + "GPU:1", op.name
        assert placed(sess, doubled.op) == LOCAL + "CPU:0"


def test_conflicting_colocation_needs_soft_placement():
    with tf.device("/gpu:1"):
        v = tf.Variable(1.0, name="v")
    with tf.colocate_with(v):
        with tf.device("/gpu:0"):
            a = tf.constant(1.0, name="pinned")
    a.op._set_device("/device:GPU:0")  # as if a device function overrode the colocation
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot colocate op 'pinned'"):
            sess.run(a)
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        assert sess.run(a) == 1.0
        assert placed(sess, a.op) == LOCAL + "GPU:1"


def _seed_graph():
    with tf.device("/cpu:0"):
        x = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) + 1, name="x")
        b = tf.Variable([[1.0], [1.0], [2.0]], name="b")
    parts = tf.split(x, 2)
    outs = []
    for i in range(2):
        with tf.device("/gpu:%d" % i):
            outs.append(tf.matmul(parts[i], b) + tf.reduce_sum(b))  # b is consumed twice per GPU
    with tf.device("/cpu:0"):
        out = tf.concat(outs, axis=0)
    return out


def test_partition_adds_one_send_recv_pair_per_edge_and_device():
    out = _seed_graph()
    with tf.Session() as sess:
        order = prune([out.op], set())
        device_of = {op: sess._placer.place(op).name for op in order}
        parts = partition(order, device_of, set())
    cpu, gpu0, gpu1 = LOCAL + "CPU:0", LOCAL + "GPU:0", LOCAL + "GPU:1"
    assert set(parts) == {cpu, gpu0, gpu1}
    kinds = {dev: [(n.type, n.attrs.get("tensor_name")) for n in nodes if n.type in ("_Send", "_Recv")]
             for dev, nodes in parts.items()}
    # b/read feeds a MatMul and a Sum on each GPU: one send to each GPU, one recv on each
    assert sorted(kinds[cpu]) == sorted([("_Send", "b/read:0")] * 2 + [("_Send", "split:0"), ("_Send", "split:1")]
                                        + [("_Recv", "add:0"), ("_Recv", "add_1:0")])
    assert sorted(kinds[gpu0]) == [("_Recv", "b/read:0"), ("_Recv", "split:0"), ("_Send", "add:0")]
    assert sorted(kinds[gpu1]) == [("_Recv", "b/read:0"), ("_Recv", "split:1"), ("_Send", "add_1:0")]
    for dev, nodes in parts.items():  # every recv precedes its consumers
        names = [n.name for n in nodes]
        for i, n in enumerate(nodes):
            for src, _ in n.inputs:
                if src.startswith("_recv"):
                    assert names.index(src) < i


def test_control_edges_from_one_device_are_one_token_sent_after_the_last_source():
    counters, updates = [], []
    for i, device in enumerate(["/gpu:0", "/gpu:0", "/gpu:0", "/gpu:1"]):
        with tf.device(device):
            v = tf.Variable(0.0, name=f"v{i}")
            counters.append(v)
            updates.append(tf.assign_add(v, float(i + 1)))
    with tf.device("/cpu:0"):
        train = tf.group(*updates, name="train")
    config = tf.ConfigProto(device_count={"GPU": 2}, inter_op_parallelism_threads=2)
    with tf.Session(config=config) as sess:
        order = prune([train], set())
        parts = partition(order, {op: placed(sess, op) for op in order}, set())
        gpu0 = parts[LOCAL + "GPU:0"]
        sends = [n for n in gpu0 if n.type == "_Send"]
        token = "^train/_controls_from_job_localhost_replica_0_task_0_device_GPU_0"
        assert [n.attrs["tensor_name"] for n in sends] == [token]
        last_update = max(i for i, n in enumerate(gpu0) if n.type == "AssignAdd")
        assert gpu0.index(sends[0]) > last_update  # sent once every update there has run
        recvs = sorted(n.attrs["tensor_name"] for n in parts[LOCAL + "CPU:0"] if n.type == "_Recv")
        assert recvs == ["^AssignAdd_3", token]  # (one source on GPU:1: its own token)
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        assert sess.run(counters) == [3.0, 6.0, 9.0, 12.0]


@pytest.mark.parametrize("inter_op,mode", [(0, None), (1, "sequential"), (2, "concurrent")])
def test_sequential_and_concurrent_forms_agree(inter_op, mode):
    out = _seed_graph()
    want = (np.arange(12, dtype=np.float32).reshape(4, 3) + 1) @ np.array([[1], [1], [2]], np.float32) + 4
    with tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=inter_op)) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(30):  # the auto mode times both forms over its first 24 runs
            np.testing.assert_allclose(sess.run(out), want)
        step = list(sess._steps.values())[-1].plan
        assert step.mode in ("sequential", "concurrent")
        assert step.mode == (mode or step.mode)


# A blocking test op: each partition's copy waits until both have arrived. Run one
# partition after the other and the first copy times out: only concurrent
# partitions get through.
_BARRIERS: dict = {}


@register_op("TestRendezvousBarrier", shape=lambda op: op.inputs[0].shape, blocking=True)
def _barrier_kernel(ctx, x, *, key):
    _BARRIERS[key].wait(timeout=20)
    return x


def test_partitions_on_two_devices_run_at_the_same_time():
    _BARRIERS["two"] = threading.Barrier(2)
    from distflow.ops.op_util import make_tensor

    outs = []
    for i in range(2):
        with tf.device("/gpu:%d" % i):
            outs.append(make_tensor("TestRendezvousBarrier", [tf.constant([float(i)])], {"key": "two"}))
    with tf.device("/cpu:0"):
        total = tf.add_n(outs)
    with tf.Session() as sess:
        for _ in range(3):
            assert sess.run(total).tolist() == [1.0]
        assert not _BARRIERS["two"].broken


def test_cross_device_control_dependency():
    with tf.device("/cpu:0"):
        v = tf.Variable(0.0)
    with tf.device("/gpu:0"):
        marker = tf.constant(1.0)
    with tf.device("/gpu:0"):
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            after = tf.identity(marker)
    with tf.Session() as sess:
        sess.run(v.initializer)
        for i in range(1, 4):
            sess.run(after)
            assert sess.run(v) == i


def test_failure_in_one_partition_cancels_the_step_and_reports_the_real_error():
    with tf.device("/cpu:0"):
        x = tf.placeholder(tf.int32, [None])
    with tf.device("/gpu:0"):
        bad = tf.reshape(x, [2, 2], name="bad_reshape")
    with tf.device("/cpu:0"):
        out = tf.reduce_sum(bad) + tf.reduce_sum(x)
    with tf.Session() as sess:
        for _ in range(10):
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad_reshape"):
                sess.run(out, {x: [1, 2, 3]})
        assert sess.run(out, {x: [1, 2, 3, 4]}) == 20


def test_buffer_forwarding_never_changes_results():
    """Kernels that write into a dead input must not touch arrays someone else holds."""
    x = tf.placeholder(tf.float64, [3])
    with tf.device("/cpu:0"):
        a = x * 2.0          # fresh: may be forwarded into
        b = tf.nn.relu(a)    # a's last reader: writes into a
        c = tf.exp(a)        # ... unless a has another reader: here it does
    with tf.device("/gpu:0"):
        d = tf.negative(b)   # b crosses devices: the sender's copy must stay intact
    with tf.device("/cpu:0"):
        e = b + 1.0
        f = tf.add_n([e, d, c])
    feed = np.array([-1.0, 0.5, 2.0])
    want_a = feed * 2
    want_b = np.maximum(want_a, 0)
    want = (want_b + 1) + (-want_b) + np.exp(want_a)
    for inter_op in (1, 2):
        with tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=inter_op)) as sess:
            for _ in range(3):
                got_f, got_a, got_b = sess.run([f, a, b], {x: feed})
                np.testing.assert_allclose(got_f, want)
                np.testing.assert_allclose(got_a, want_a)
                np.testing.assert_allclose(got_b, want_b)
                np.testing.assert_allclose(sess.run(f, {x: feed}), want)
        assert feed.tolist() == [-1.0, 0.5, 2.0]  # a fed array is never written


def test_forwarding_happens_for_dead_temporaries():
    x = tf.placeholder(tf.float32, [4])
    y = tf.nn.relu(x * 2.0) + 1.0
    with tf.Session() as sess:
        sess.run(y, {x: np.ones(4, np.float32)})
        steps = list(sess._steps.values())[-1].plan.sequential.steps
    forwarded = [s for s in steps if getattr(s[0], "keywords", {}).get("inplace")]
    assert len(forwarded) == 2  # Relu into the product, the sum into Relu's output


def test_forwarding_never_writes_into_an_array_a_view_still_reads():
    x = tf.placeholder(tf.float64, [2, 2])
    a = x * 2.0                     # fresh
    view = tf.reshape(a, [4])       # a view of a's memory
    b = tf.nn.relu(a - 100.0) + 0.0  # reads a (through the Sub) but never writes it
    c = tf.negative(a)              # a's last reader: must not write into a, the view reads it later
    d = tf.reduce_sum(view * 1.0) + tf.reduce_sum(c) * 0.0 + tf.reduce_sum(b)
    feed = np.array([[1.0, 2.0], [3.0, 4.0]])
    with tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=1)) as sess:
        assert sess.run(d, {x: feed}) == 20.0
        assert sess.run([view, c], {x: feed})[0].tolist() == [2.0, 4.0, 6.0, 8.0]
