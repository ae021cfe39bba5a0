"""tf.contrib.all_reduce: all-reduce algorithms built into the graph, one op per device and
step, checked against NumPy's sum and for where each step runs."""

import numpy as np
import pytest

import distflow as tf

ar = tf.contrib.all_reduce
RNG = np.random.default_rng(0)


def run_all_reduce(build, devices, shape, feed_shape=False):
    """The outputs of ``build(inputs)`` for random inputs on ``devices``, their NumPy mean,
    and the graph's ops."""
    tf.reset_default_graph()
    values = [RNG.standard_normal(shape) for _ in devices]
    inputs = []
    for device, value in zip(devices, values):
        with tf.device(device):
            inputs.append(tf.placeholder_with_default(value, None if feed_shape else shape))
    n = len(devices)
    outputs = build(inputs, lambda x: x / n)
    assert [o.device for o in outputs] == [tf.DeviceSpec.from_string(d).to_string() for d in devices]
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 8, "CPU": 1})) as sess:
        got = sess.run(outputs)
    return got, sum(values) / n, tf.get_default_graph().get_operations()


GPUS = ["/gpu:%d" % i for i in range(8)]
TWO_TASKS = ["/job:localhost/replica:0/task:0/device:GPU:%d" % i for i in range(4)]


@pytest.mark.parametrize("build, devices, shape", [
    (lambda x, un: ar.build_ring_all_reduce(x, 1, 1, range(2), tf.add, un), GPUS[:2], [8]),
    (lambda x, un: ar.build_ring_all_reduce(x, 1, 1, range(8), tf.add, un), GPUS, [7, 13]),
    (lambda x, un: ar.build_ring_all_reduce(x, 2, 2, [0, 3, 2, 1], tf.add, un), GPUS, [5, 3]),
    (lambda x, un: ar.build_ring_all_reduce(x, 1, 3, range(3), tf.add, un), GPUS[:3], [2]),  # (fewer elements than pieces)
    (lambda x, un: ar.build_recursive_hd_all_reduce(x, tf.add, un), GPUS[:2], [4, 4]),
    (lambda x, un: ar.build_recursive_hd_all_reduce(x, tf.add, un), GPUS, [120]),
    (lambda x, un: ar.build_shuffle_all_reduce(x, ["/cpu:0", "/gpu:5", "/gpu:6"], tf.add_n, un), GPUS[:4], [7, 3]),
    (lambda x, un: ar.build_nccl_all_reduce(x, tf.add, un), GPUS[:4], [10]),
    (lambda x, un: ar.build_nccl_then_ring(x, 2, tf.add, un), GPUS[:4], [9]),
    (lambda x, un: ar.build_nccl_then_recursive_hd(x, tf.add, un), GPUS[:4], [3, 3]),
    (lambda x, un: ar.build_shuffle_then_shuffle(x, ["/gpu:6"], ["/gpu:7"], tf.add_n, un), GPUS[:4], [6]),
], ids=["ring2", "ring8", "ring-2-workers-2-subchunks", "ring-padded", "hd2", "hd8", "shuffle", "nccl",
        "nccl-then-ring", "nccl-then-hd", "shuffle-then-shuffle"])
def test_each_algorithm_gives_every_device_numpys_mean(build, devices, shape):
    got, want, _ = run_all_reduce(build, devices, shape)
    for g in got:
        assert g.shape == tuple(shape)
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)


def test_shapes_known_only_at_run_time_are_cut_and_restored_when_the_step_runs():
    got, want, _ = run_all_reduce(lambda x, un: ar.build_ring_all_reduce(x, 1, 1, range(4), tf.add, un), GPUS[:4],
                                  [3, 5], feed_shape=True)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-12)


def test_a_ring_reduces_each_piece_on_every_device_in_turn():
    _, _, graph_ops = run_all_reduce(lambda x, un: ar.build_ring_all_reduce(x, 1, 1, range(4), tf.add, un),
                                     GPUS[:4], [8])
    adds = [op for op in graph_ops if op.type in ("Add", "AddV2")]
    # 4 pieces, each reduced by 3 adds along the ring, one on each device but the first
    assert len(adds) == 12
    assert sorted({op.device for op in adds}) == [f"/device:GPU:{i}" for i in range(4)]
    divisions = [op for op in graph_ops if op.type in ("RealDiv", "Div", "TrueDiv")]
    assert len(divisions) == 4  # un_op once per reduced piece, not once per device and piece


def test_the_two_level_forms_reduce_within_each_task_first():
    devices = [f"/job:worker/replica:0/task:{t}/device:CPU:{c}" for t in range(2) for c in range(2)]
    orders = ar.ring_orders(2, 2, [0, 1, 2, 3])
    assert orders == [[0, 1, 2, 3, 4, 5, 6, 7], [2, 3, 0, 1, 6, 7, 4, 5]]
    tf.reset_default_graph()
    inputs = []
    for d in devices:
        with tf.device(d):
            inputs.append(tf.constant([1.0, 2.0]))
    outs = ar.build_nccl_then_recursive_hd(inputs, tf.add)
    assert [o.device for o in outs] == [tf.DeviceSpec.from_string(d).to_string() for d in devices]
    nccl_ops = [op for op in tf.get_default_graph().get_operations() if op.type == "NcclAllReduce"]
    assert sorted(op.device for op in nccl_ops) == sorted(tf.DeviceSpec.from_string(d).to_string() for d in devices)


def test_wrong_inputs_are_refused_with_what_was_expected():
    with tf.device("/gpu:0"):
        a = tf.zeros([3])
    with tf.device("/gpu:1"):
        b, c, d = tf.zeros([4]), tf.zeros([3]), tf.zeros([3], tf.float64)
    with pytest.raises(ValueError, match="length 2 or longer, got 1"):
        ar.build_ring_all_reduce([a], 1, 1, [0], tf.add)
    with pytest.raises(ValueError, match="one shape"):
        ar.build_recursive_hd_all_reduce([a, b], tf.add)
    with pytest.raises(ValueError, match="one dtype"):
        ar.build_recursive_hd_all_reduce([a, d], tf.add)
    with pytest.raises(ValueError, match="power-of-two number of input tensors, got 3"):
        ar.build_recursive_hd_all_reduce([a, c, c], tf.add)
    with pytest.raises(ValueError, match="1 workers x 3 GPUs does not match the 2 input tensors"):
        ar.build_ring_all_reduce([a, c], 1, 1, [0, 1, 2], tf.add)
    with pytest.raises(ValueError, match="num_subchunks 3 must be between 1 and num_gpus 2"):
        ar.build_ring_all_reduce([a, c], 1, 3, [0, 1], tf.add)
    with pytest.raises(ValueError, match="only supports addition"):
        ar.build_nccl_all_reduce([a, c], tf.multiply)


def test_the_graphs_reduce_across_the_tasks_of_a_cluster():
    from cluster_util import LocalCluster

    cluster = LocalCluster({"worker": 2})
    try:
        tf.reset_default_graph()
        values = [RNG.standard_normal((7, 3)) for _ in range(2)]
        devices = [f"/job:worker/task:{t}/device:CPU:0" for t in range(2)]
        inputs = []
        for device, value in zip(devices, values):
            with tf.device(device):
                inputs.append(tf.constant(value))
        builds = {"ring": lambda x: ar.build_ring_all_reduce(x, 2, 1, [0], tf.add),
                  "hd": lambda x: ar.build_recursive_hd_all_reduce(x, tf.add),
                  "nccl then ring": lambda x: ar.build_nccl_then_ring(x, 1, tf.add),
                  "shuffle": lambda x: ar.build_shuffle_all_reduce(x, devices, tf.add_n)}
        outputs = {name: build(inputs) for name, build in builds.items()}
        with tf.Session(cluster.target("worker", 0)) as sess:
            got = sess.run(outputs)
        for name, results in got.items():
            for r in results:
                np.testing.assert_allclose(r, values[0] + values[1], rtol=1e-12, err_msg=name)
    finally:
        cluster.close()
