"""GPU kernels against their NumPy kernels, on a real CUDA device (skipped without one).

Every GPU kernel has a case in tests/gpu_cases.py (tests/test_gpu_backend.py proves it);
here each case runs on /gpu:0 and on /cpu:0, and the values and gradients must agree in
float32 to rtol 1e-5 (cuBLAS without TF32). ``python -m benchmarks --gpu`` runs this file.
"""

from __future__ import annotations

import numpy as np
import pytest

import distflow as tf
from distflow.runtime.gpu import find_backend

import gpu_cases

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(find_backend() is None, reason="no CUDA GPU (CuPy found none, or is not installed)")]


NO_FOLDING = gpu_cases.no_folding(tf)


def _run(name, device):
    with tf.Graph().as_default():
        fetches = gpu_cases.build(tf, name, device)
        with tf.Session(config=NO_FOLDING) as sess:  # no soft placement: every op of a case has a GPU kernel
            sess.run(tf.global_variables_initializer())
            return fetches, sess.run(fetches)


@pytest.mark.parametrize("name", sorted(gpu_cases.CASES))
def test_gpu_kernel_matches_numpy(name):
    fetches, got = _run(name, "/gpu:0")
    _, want = _run(name, "/cpu:0")
    for t, g, w in zip(fetches, got, want):
        assert type(g) is np.ndarray or np.isscalar(g), f"{t.name} came back as {type(g).__name__}"
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, f"{t.name}: got {g.shape} {g.dtype}, want {w.shape} {w.dtype}"
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=t.name)


def test_ops_are_placed_on_the_physical_gpu_and_variables_live_there(capsys):
    with tf.device("/gpu:0"):
        v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
        y = tf.matmul(v, v, transpose_b=True)
    with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(y), [[5, 14], [14, 50]])
        device = sess._device_mgr.lookup(v.op._assigned_device)
        assert device.ordinal == 0 and device.memory.startswith("cuda")
    assert "MatMul): /job:localhost/replica:0/task:0/device:GPU:0 (" in capsys.readouterr().err


def test_a_frozen_tf1_graph_with_loops_runs_on_the_gpu_as_tensorflow_ran_it():
    tf.reset_default_graph()
    graph = gpu_cases.tf1_loops_on_gpu(tf)
    assert graph.get_operation_by_name("rnn/while/lstm_cell/MatMul")._assigned_device.endswith("GPU:0")


def test_keras_multi_gpu_model_on_two_virtual_gpus_steps_as_the_template_on_the_cpu():
    graph = gpu_cases.keras_multi_gpu_step(tf)
    products = [op for op in graph.get_operations() if op.type in ("MatMul", "BatchMatMulV2") and "replica_1/" in op.name
                and op._assigned_device]
    assert len(products) == 5 and all(op._assigned_device.endswith("GPU:1") for op in products)


def test_a_mirrored_strategy_on_two_virtual_gpus_trains_as_the_cpu_on_the_whole_batch():
    graph = gpu_cases.mirrored_strategy_steps(tf, virtual=True)
    products = [op for op in graph.get_operations() if op.type == "MatMul" and op.name.startswith("replica_1/")
                and op._assigned_device]
    assert len(products) == 5 and all(op._assigned_device.endswith("GPU:1") for op in products)


def test_nccl_all_sum_on_two_virtual_gpus_gives_numpys_sum_and_gradient():
    graph = gpu_cases.nccl_all_sum(tf, virtual=True)
    assert {op._assigned_device[-5:] for op in graph.get_operations() if op.type == "NcclAllReduce"} == \
        {"GPU:0", "GPU:1"}


def test_the_replicated_tf1_program_trains_on_two_virtual_gpus():
    """examples/tf1/replicated_nccl_staging.py on GPU 0 split in two: its towers, their
    StagingAreas and the nccl all-reduce on the device."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "src"), DISTFLOW_VIRTUAL_GPUS="2")
    done = subprocess.run([sys.executable, os.path.join(root, "examples", "tf1", "replicated_nccl_staging.py")],
                          capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "replicas in sync: True" in done.stdout
    assert float(done.stdout.rsplit("test accuracy:", 1)[1]) >= 0.95


def test_random_ops_give_the_same_numbers_on_either_device():
    def draw(device):
        tf.reset_default_graph()
        with tf.device(device):
            x = [tf.random_uniform([3, 4], seed=1), tf.random_normal([5], seed=2), tf.truncated_normal([5], seed=3)]
        with tf.Session() as sess:
            return sess.run(x)
    for g, c in zip(draw("/gpu:0"), draw("/cpu:0")):
        np.testing.assert_array_equal(g, c)


@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adam", "adagrad", "rmsprop"])
def test_training_on_the_gpu_follows_the_cpu(optimizer):
    make = {"sgd": lambda: tf.train.GradientDescentOptimizer(0.1), "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
            "adam": lambda: tf.train.AdamOptimizer(0.01), "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
            "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01)}[optimizer]

    def train(device):
        xv, yv = gpu_cases.batch(64, 20, 4)
        x, y, loss, step = gpu_cases.classifier_training(tf, device, make, 20, 32, 4, seed=1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return [sess.run([loss, step], {x: xv, y: yv})[0] for _ in range(30)]

    gpu, cpu = train("/gpu:0"), train("/cpu:0")
    np.testing.assert_allclose(gpu, cpu, rtol=1e-4)
    assert gpu[-1] < gpu[0]


def test_in_graph_towers_on_two_virtual_gpus_match_one_tower_at_double_batch():
    split = tf.GPUOptions(experimental=tf.GPUOptions.Experimental(
        virtual_devices=[tf.GPUOptions.Experimental.VirtualDevices(memory_limit_mb=[1024, 1024])]))
    xv, yv = gpu_cases.batch(64, 20, 4)

    def train(towers):
        tf.reset_default_graph()
        tf.set_random_seed(1)
        x, y = tf.placeholder(tf.float32, [64, 20]), tf.placeholder(tf.int64, [64])
        opt = tf.train.GradientDescentOptimizer(0.1)
        grads, losses = [], []
        for i, (xs, ys) in enumerate(zip(tf.split(x, towers), tf.split(y, towers))):
            with tf.device(f"/gpu:{i}"), tf.variable_scope("model", reuse=i > 0):
                loss = gpu_cases.classifier_loss(tf, xs, ys, 32, 4)
                losses.append(loss)
                grads.append(opt.compute_gradients(loss))
        with tf.device("/cpu:0"):
            averaged = [(tf.add_n([g for g, _ in gv]) / towers, gv[0][1]) for gv in zip(*grads)]
            step = opt.apply_gradients(averaged)
            total = tf.add_n(losses) / towers
        with tf.Session(config=tf.ConfigProto(gpu_options=split)) as sess:
            sess.run(tf.global_variables_initializer())
            return [sess.run([total, step], {x: xv, y: yv})[0] for _ in range(20)]

    np.testing.assert_allclose(train(2), train(1), rtol=1e-5)


# (last: a capture that went wrong could leave the CUDA context unusable for what follows)
@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_a_replayed_step_trains_as_the_op_by_op_one(model):
    rng = np.random.default_rng(0)
    xv, yv = rng.random((16, 784)).astype(np.float32), rng.integers(0, 10, 16)

    def train(replay):
        tf.reset_default_graph()
        tf.set_random_seed(0)
        x, y = tf.placeholder(tf.float32, [16, 784]), tf.placeholder(tf.int64, [16])
        with tf.device("/gpu:0"):
            h = x
            if model == "cnn":
                f = tf.get_variable("f", [5, 5, 1, 8], initializer=tf.truncated_normal_initializer(stddev=0.1))
                h = tf.nn.relu(tf.nn.conv2d(tf.reshape(x, [-1, 28, 28, 1]), f, [1, 1, 1, 1], "SAME"))
                h = tf.reshape(tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), [16, 14 * 14 * 8])
            loss = gpu_cases.classifier_loss(tf, h, y, 64, 10)
            step = tf.train.AdamOptimizer(1e-3).minimize(loss)
        config = tf.ConfigProto(graph_options=tf.GraphOptions(replay_gpu_steps=replay))
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, step], {x: xv, y: yv})[0] for _ in range(8)]
            replays = [s.plan.replay for s in sess._steps.values() if s.plan.replay is not None]
            captured = sum(1 for r in replays for g in r._graphs.values() if g is not None)
        return losses, captured

    replayed, captured = train(True)
    plain, none = train(False)
    assert captured == 1 and none == 0
    np.testing.assert_allclose(replayed, plain, rtol=1e-5)
    assert replayed[-1] < replayed[0]
