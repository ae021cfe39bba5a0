"""The GPU runtime's logic on any machine: a fake device backend over NumPy stands in for CUDA.

Its arrays are a NumPy subclass, so the GPU kernels (the shared ``xp`` kernels) run on them,
while the tests can tell device memory from host memory: which devices a session gets, what
runs where, and that every crossing between memories is copied (feeds up, fetches down,
host-memory inputs, _Send/_Recv between partitions). tests/test_gpu.py checks the same
kernels on a real GPU.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

import distflow as tf
from distflow.framework import errors
from distflow.framework.registry import (DeviceKernel, device_kernel_types, get_registration, has_kernel,
                                         kernel_for, register_kernel, register_op)
from distflow.runtime.gpu import backend as gpu_backend
from distflow.runtime.gpu import kernels as gpu_kernels

import gpu_cases


class DeviceArray(np.ndarray):
    """An array in the fake device's memory (``ordinal`` says which device)."""

    def __array_finalize__(self, obj):
        self.ordinal = getattr(obj, "ordinal", 0)


def _on_device(value):
    if type(value) is np.ndarray:
        return value.view(DeviceArray)
    if type(value) is tuple:
        return tuple(_on_device(v) for v in value)
    return value


class FakeNamespace:
    """The fake device's ``xp``: NumPy, whose functions' arrays are DeviceArrays, as CuPy's are
    cupy arrays. It is not NumPy (``xp is np`` is False), so kernels take their device paths.
    A kernel that hands a device array to NumPy itself (``np.lib.stride_tricks``, ``np.empty``)
    gets a plain ndarray back, where CuPy would refuse: the output check below finds it. What
    it cannot find: ``np.asarray`` of a device array whose result is only read on the host
    (CuPy refuses that too); only tests/test_gpu.py on a GPU does."""

    def __init__(self, module=np):
        self._module = module

    def __getattr__(self, name):
        attr = getattr(self._module, name)
        if isinstance(attr, types.ModuleType):
            return FakeNamespace(attr)
        if isinstance(attr, np.ufunc):  # (keeps the subclass itself, and has .at, .reduce)
            return attr
        if callable(attr) and not isinstance(attr, type):
            return lambda *args, **kwargs: _on_device(attr(*args, **kwargs))
        return attr


FAKE_XP = FakeNamespace()


class FakeBackend(gpu_backend.Backend):
    name = "fake"
    xp = FAKE_XP

    def __init__(self, count: int = 1):
        self.count = count
        self.uploads = self.downloads = self.captures = self.launches = 0

    def device_count(self) -> int:
        return self.count

    def is_device_array(self, value) -> bool:
        return isinstance(value, DeviceArray)

    def ordinal_of(self, value) -> int:
        return value.ordinal

    def upload(self, value, ordinal):
        self.uploads += 1
        out = np.array(value).view(DeviceArray)
        out.ordinal = ordinal
        return out

    def copy_between(self, value, ordinal):
        out = value.copy()
        out.ordinal = ordinal
        return out

    def download(self, value):
        self.downloads += 1
        return np.array(value)  # a base-class copy

    def capture(self, ordinal, execute, feeds):
        self.captures += 1
        return FakeGraph(self, ordinal, execute, feeds)


class FakeGraph:
    """A captured step of the fake device: launching it runs the step's calls again, on feed
    buffers of its own that each launch refills (as a CUDA graph's are)."""

    def __init__(self, backend, ordinal, execute, feeds):
        self.backend, self.execute = backend, execute
        self.buffers = [backend.upload(np.asarray(f), ordinal) for f in feeds]

    def launch(self, feeds):
        self.backend.launches += 1
        for buffer, value in zip(self.buffers, feeds):
            buffer[...] = value
        results = self.execute(self.buffers)
        return [self.backend.to_host(v.read() if hasattr(v, "read") else v) for v in results]


def _checked(kernel: DeviceKernel):
    """``kernel``'s function, checking that each output it leaves in device memory is there."""
    fn = kernel.kernel

    def run(*args, **kwargs):
        out = fn(*args, **kwargs)
        for i, value in enumerate(out if isinstance(out, tuple) else (out,)):
            if i not in kernel.host_outputs and type(value) is np.ndarray:
                raise AssertionError(f"the GPU kernel of {kernel.type} left output {i} in host memory: "
                                     "it computed on the host (NumPy), not with xp")
        return out

    return run


@pytest.fixture
def fake(monkeypatch):
    """A fake GPU for the test; every GPU kernel's outputs are checked to be device arrays."""
    for kernel in gpu_kernel_table().values():
        monkeypatch.setattr(kernel, "kernel", _checked(kernel))
    backend = FakeBackend()
    with gpu_backend.set_backend(backend):
        yield backend


def gpu_kernel_table() -> dict:
    return {t: kernel_for(t, gpu_kernels.DEVICE_TYPE) for t in device_kernel_types(gpu_kernels.DEVICE_TYPE)}


NO_FOLDING = gpu_cases.no_folding(tf)


def _host(value):
    return type(value) is np.ndarray or np.isscalar(value)


# -- devices --------------------------------------------------------------------

def test_a_session_gets_the_real_gpus_when_the_process_has_a_backend(fake):
    with tf.Session() as sess:
        gpus = [d for d in sess.list_devices() if d.device_type == "GPU"]
    assert [d.name.rsplit("/", 1)[1] for d in gpus] == ["device:GPU:0"]
    with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
        assert not [d for d in sess.list_devices() if d.device_type == "GPU"]


def test_virtual_devices_split_one_gpu_and_visible_device_list_is_checked():
    backend = FakeBackend(count=2)
    split = tf.GPUOptions(experimental=tf.GPUOptions.Experimental(
        virtual_devices=[tf.GPUOptions.Experimental.VirtualDevices(memory_limit_mb=[1024, 1024])]))
    assert gpu_backend.physical_gpus(backend, split, None) == [0, 0, 1]
    assert gpu_backend.physical_gpus(backend, tf.GPUOptions(visible_device_list="1"), None) == [1]
    assert gpu_backend.physical_gpus(backend, tf.GPUOptions(), 1) == [0]
    with pytest.raises(ValueError, match=r"names GPU\(s\) \[3\].*sees 2"):
        gpu_backend.physical_gpus(backend, tf.GPUOptions(visible_device_list="0,3"), None)
    with gpu_backend.set_backend(backend):
        with tf.Session(config=tf.ConfigProto(gpu_options=split)) as sess:
            names = [d.name for d in sess.list_devices() if d.device_type == "GPU"]
    assert len(names) == 3


def test_virtual_gpus_from_the_environment(monkeypatch):
    monkeypatch.setenv("DISTFLOW_VIRTUAL_GPUS", "2")
    assert gpu_backend.physical_gpus(FakeBackend(count=2), tf.GPUOptions(), None) == [0, 0, 1, 1]
    monkeypatch.setenv("DISTFLOW_VIRTUAL_GPUS", "none")
    with pytest.raises(ValueError, match="DISTFLOW_VIRTUAL_GPUS must be a positive number"):
        gpu_backend.physical_gpus(FakeBackend(), tf.GPUOptions(), None)


def test_unpinned_ops_go_to_the_gpu_where_they_have_a_kernel_as_in_tensorflow(fake):
    x = tf.constant([1.0, 2.0])
    y = tf.matmul(tf.reshape(x, [1, 2]), tf.reshape(x, [2, 1]))
    z = tf.py_func(lambda a: a + 1, [y], tf.float32)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(z), [[6.0]])
    assert y.op._assigned_device.endswith("GPU:0") and z.op._assigned_device.endswith("CPU:0")


def test_tf_test_says_a_gpu_is_available(fake):
    assert tf.test.is_gpu_available() and tf.test.gpu_device_name() == "/device:GPU:0"
    assert not tf.test.is_gpu_available(min_cuda_compute_capability=(3, 0))  # (the fake device has none)


def test_without_a_backend_gpus_stay_simulated():
    with gpu_backend.set_backend(None):
        with tf.Session() as sess:
            gpus = [d for d in sess.list_devices() if d.device_type == "GPU"]
    assert len(gpus) == tf.ConfigProto.DEFAULT_SIMULATED_GPUS


# -- kernels by device type -----------------------------------------------------

def test_the_kernel_registry_is_kept_by_device_type():
    assert kernel_for("MatMul", "CPU") is get_registration("MatMul")
    assert kernel_for("AddV2", "GPU").kernel.__wrapped__ is get_registration("AddV2").kernel  # (the shared one)
    assert kernel_for("MatMul", "GPU").kernel is not get_registration("MatMul").kernel  # (cuBLAS)
    assert has_kernel("MatMul", "GPU") and not has_kernel("PyFunc", "GPU")
    with pytest.raises(KeyError, match="already has a GPU kernel, registered at .*products.py"):
        register_kernel("MatMul", "GPU")(lambda xp, a, b: a)
    with pytest.raises(ValueError, match="CPU kernel of 'MatMul' is the one its op block registers"):
        register_kernel("MatMul", "CPU")


def test_every_gpu_kernel_has_a_case_in_the_gpu_tests():
    covered = set(gpu_cases.STATEFUL | gpu_cases.COLLECTIVES)
    with tf.Graph().as_default() as g:
        for name in gpu_cases.CASES:
            gpu_cases.build(tf, name, "/cpu:0")
        covered |= {op.type for op in g.get_operations()}
    missing = {t for t in device_kernel_types(gpu_kernels.DEVICE_TYPE) if not t.startswith("_Test")} - covered
    assert not missing, f"GPU kernels with no case in tests/gpu_cases.py: {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(gpu_cases.CASES))
def test_each_case_gives_the_cpu_values_on_the_fake_device(fake, numpy_kernels, name):
    with tf.Graph().as_default():
        want_fetches = gpu_cases.build(tf, name, "/cpu:0")
        with tf.Session(config=NO_FOLDING) as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(want_fetches)
    with tf.Graph().as_default():
        got_fetches = gpu_cases.build(tf, name, "/gpu:0")
        # (no soft placement: every op of the case has a GPU kernel; no folding: they all run)
        with tf.Session(config=NO_FOLDING) as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(got_fetches)
    for i, (g, w) in enumerate(zip(got, want)):
        assert _host(g), f"fetch {i} ({got_fetches[i].name}) left the device as {type(g).__name__}"
        # (float32 at the GPU tests' tolerance: the device's kernels sum in their own order, and
        # a convolution's gradient sums terms of up to 8 here, whose ulp is 1e-6)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=got_fetches[i].name)


def test_an_out_of_range_label_gives_its_row_nan_on_the_gpu_as_in_tensorflow(fake):
    with tf.device("/gpu:0"):
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([1, 7, 0]),
                                                              logits=tf.zeros([3, 4]))
        grad = tf.gradients(tf.reduce_sum(loss), loss.op.inputs[0])[0]
    with tf.Session(config=NO_FOLDING) as sess:
        got_loss, got_grad = sess.run([loss, grad])
    np.testing.assert_allclose(got_loss[[0, 2]], np.log(4.0), rtol=1e-6)
    assert np.isnan(got_loss[1]) and np.isnan(got_grad[1]).all() and not np.isnan(got_grad[[0, 2]]).any()


# -- memory crossings -------------------------------------------------------------

_SEEN: list = []

register_op("_TestMemorySeen", shape=lambda op: op.inputs[0].shape, stateful=True)(
    lambda xp, x: _SEEN.append(("CPU", type(x))) or x)
register_kernel("_TestMemorySeen", "GPU")(lambda xp, x: _SEEN.append(("GPU", type(x))) or x)


def _seen(x, device):
    from distflow.ops.op_util import make_tensor  # noqa: PLC0415

    with tf.device(device):
        return make_tensor("_TestMemorySeen", [x], {}, "seen")


@pytest.mark.parametrize("inter_op", [1, 2], ids=["sequential", "concurrent"])
def test_each_kernel_reads_its_inputs_in_its_own_memory(fake, inter_op):
    _SEEN.clear()
    x = tf.placeholder(tf.float32, [2, 3])
    with tf.device("/gpu:0"):
        w = tf.Variable(np.ones((3, 4), np.float32))
        h = tf.matmul(x, w)
    on_cpu = _seen(h, "/cpu:0")  # device -> host
    on_gpu = _seen(on_cpu * 2, "/gpu:0")  # host -> device
    fed = _seen(x, "/gpu:0")  # a feed goes up
    config = tf.ConfigProto(inter_op_parallelism_threads=inter_op)
    with tf.Session(config=config) as sess:
        sess.run(w.initializer)
        out = sess.run([on_gpu, fed, h], {x: np.ones((2, 3), np.float32)})
        storage = sess._device_mgr.lookup("/job:localhost/replica:0/task:0/device:GPU:0").resource_mgr
    assert sorted(_SEEN, key=str) == sorted([("CPU", np.ndarray), ("GPU", DeviceArray), ("GPU", DeviceArray)],
                                            key=str)
    assert all(type(v) is np.ndarray for v in out), [type(v) for v in out]
    np.testing.assert_array_equal(out[0], np.full((2, 4), 6.0, np.float32))
    variables = [v for v in storage._resources.values()] if hasattr(storage, "_resources") else []
    assert all(isinstance(v.read(), DeviceArray) for v in variables if hasattr(v, "read"))


def test_an_op_without_a_gpu_kernel_needs_soft_placement_and_then_runs_on_the_cpu(fake):
    with tf.device("/gpu:0"):
        x = tf.constant([1.0, 2.0])
        y = tf.py_func(lambda a: a * 3, [x * 2], tf.float32, name="host_only")
    with pytest.raises(errors.InvalidArgumentError, match="no GPU kernel is registered for op type PyFunc.*"
                                                          "allow_soft_placement"):
        with tf.Session() as sess:
            sess.run(y)
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        np.testing.assert_array_equal(sess.run(y), [6.0, 12.0])
    assert y.op._assigned_device.endswith("CPU:0")


def test_a_model_trained_on_the_device_matches_the_cpu_and_saves_from_device_memory(fake, tmp_path):
    def train(device):
        xv, yv = gpu_cases.batch(32, 8, 3)
        x, y, loss, step = gpu_cases.classifier_training(tf, device, lambda: tf.train.AdamOptimizer(0.01), 8, 16, 3,
                                                         seed=3)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, step], {x: xv, y: yv})[0] for _ in range(20)]
            path = saver.save(sess, str(tmp_path / device.strip("/").replace(":", "")))
            weights = sess.run(tf.trainable_variables())
        with tf.Session() as sess:
            saver.restore(sess, path)
            restored = sess.run(tf.trainable_variables())
        return losses, weights, restored

    cpu_losses, cpu_weights, _ = train("/cpu:0")
    gpu_losses, gpu_weights, restored = train("/gpu:0")
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-5)
    assert gpu_losses[-1] < gpu_losses[0]
    for g, c, r in zip(gpu_weights, cpu_weights, restored):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6)  # (the CPU plan fuses its updates)
        np.testing.assert_array_equal(r, g)


def test_keras_multi_gpu_model_steps_as_the_template_on_the_cpu_with_each_replica_in_its_gpus_memory(fake):
    graph = gpu_cases.keras_multi_gpu_step(tf)
    for replica in (0, 1):
        products = [op for op in graph.get_operations() if op.type in ("MatMul", "BatchMatMulV2") and (
            op.name.startswith(f"replica_{replica}/") or f"gradients/replica_{replica}/" in op.name)
            and op._assigned_device]  # (placed: the step ran it; the input's own gradient is not needed)
        # two layers' forward products, two weight gradients and the hidden layer's gradient
        assert len(products) == 5, [op.name for op in products]
        assert all(op._assigned_device.endswith(f"GPU:{replica}") for op in products)
    assert fake.uploads and fake.downloads  # (the replicas' shares went up, their outputs came down)


@pytest.mark.parametrize("virtual", [True, False], ids=["virtual GPUs of one", "two GPUs"])
def test_a_mirrored_strategy_trains_on_two_gpus_as_the_cpu_on_the_whole_batch(fake, virtual):
    fake.count = 1 if virtual else 2
    graph = gpu_cases.mirrored_strategy_steps(tf, virtual)
    ran = [op for op in graph.get_operations() if op._assigned_device]
    for replica, prefix in ((0, ""), (1, "replica_1/")):
        products = [op for op in ran if op.type == "MatMul" and op.name.startswith(prefix)
                    and (replica == 1 or not op.name.startswith("replica_1/"))]
        assert len(products) == 5 and all(op._assigned_device.endswith(f"GPU:{replica}") for op in products)
    # (each replica's gradients and loss reduced by a member on its own GPU)
    reduces = [op for op in ran if op.type in gpu_cases.COLLECTIVES]
    assert {op._assigned_device[-5:] for op in reduces} == {"GPU:0", "GPU:1"} and len(reduces) == 6


@pytest.mark.parametrize("virtual", [True, False], ids=["virtual GPUs of one", "two GPUs"])
def test_nccl_all_sum_reduces_among_two_gpus_with_a_member_on_each(fake, virtual):
    fake.count = 1 if virtual else 2
    graph = gpu_cases.nccl_all_sum(tf, virtual)
    members = sorted(op._assigned_device[-5:] for op in graph.get_operations() if op.type == "NcclAllReduce"
                     and op._assigned_device)
    assert members == ["GPU:0", "GPU:0", "GPU:1", "GPU:1"]  # (the sums, and their gradient's)


def test_the_replicated_tf1_program_runs_its_towers_on_two_virtual_gpus(fake, monkeypatch, capsys):
    """examples/tf1/replicated_nccl_staging.py as a user runs it, on GPU 0 split in two."""
    import os
    import runpy
    import sys

    monkeypatch.setenv("DISTFLOW_VIRTUAL_GPUS", "2")
    monkeypatch.setattr(sys, "argv", ["replicated_nccl_staging.py", "--steps", "20"])
    with tf.Graph().as_default() as graph:
        runpy.run_path(os.path.join(os.path.dirname(__file__), "..", "examples", "tf1", "replicated_nccl_staging.py"),
                       run_name="__main__")
    assert "replicas in sync: True" in capsys.readouterr().out
    convolutions = {op.name.split("/")[0]: op._assigned_device[-5:] for op in graph.get_operations()
                    if op.type == "Conv2D" and op._assigned_device and op.name.startswith("tower_")}
    assert convolutions == {"tower_0": "GPU:0", "tower_1": "GPU:1", "tower_0_1": "GPU:0"}  # (and the evaluation)
    reduced = {op._assigned_device[-5:] for op in graph.get_operations() if op.type == "NcclAllReduce"}
    assert reduced == {"GPU:0", "GPU:1"}


def test_a_frozen_tf1_graph_with_loops_runs_on_the_device_its_tensorarrays_on_the_cpu(fake):
    graph = gpu_cases.tf1_loops_on_gpu(tf)
    assert graph.get_operation_by_name("rnn/while")._assigned_device.endswith("GPU:0")
    assert graph.get_operation_by_name("rnn/while/lstm_cell/MatMul")._assigned_device.endswith("GPU:0")
    assert graph.get_operation_by_name("rnn/TensorArray")._assigned_device.endswith("CPU:0")
    assert fake.uploads and fake.downloads


# -- whole-step replay --------------------------------------------------------------

def _train(batches, config=None):
    x, y, loss, train = gpu_cases.classifier_training(tf, "/gpu:0", lambda: tf.train.AdamOptimizer(0.05), 6, 5, 3,
                                                      seed=0)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        return [sess.run([loss, train], {x: xv, y: yv})[0] for xv, yv in batches]


def test_a_gpu_step_is_captured_on_its_second_run_and_replayed_after(fake):
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((n, 6)).astype(np.float32), rng.integers(0, 3, n)) for n in [8] * 6 + [5] * 3]
    replayed = _train(batches)
    assert fake.captures == 2  # one per feed shape, at its second run
    assert fake.launches == 5 + 2  # every run after a capture, that run included
    plain = _train(batches, tf.ConfigProto(graph_options=tf.GraphOptions(replay_gpu_steps=False)))
    assert fake.captures == 2
    np.testing.assert_allclose(replayed, plain, rtol=1e-6)
    assert replayed[5] < replayed[0]


def test_a_step_with_host_work_is_not_replayed_and_says_why(fake, caplog):
    with tf.device("/gpu:0"):
        x = tf.constant([1.0, 2.0]) * 2
    y = tf.py_func(lambda a: a + 1, [x], tf.float32)  # (on the CPU)
    with caplog.at_level("DEBUG", logger="distflow"):
        with tf.Session() as sess:
            for _ in range(3):
                np.testing.assert_array_equal(sess.run(y), [3.0, 5.0])
    assert fake.captures == 0
    assert "not replayed as a CUDA graph: 'PyFunc' (PyFunc) runs on /job:localhost/replica:0/task:0/device:CPU:0" \
        in caplog.text, caplog.text


def test_a_master_places_ops_on_a_tasks_real_gpu_as_on_its_own(fake):
    # (an in-process server: its worker has the fake GPU, and reports it as real to the master)
    _SEEN.clear()
    server = tf.train.Server.create_local_server()
    try:
        x = tf.placeholder(tf.float32, [2, 3])
        w = tf.Variable(np.ones((3, 2), np.float32))
        on_gpu = _seen(tf.matmul(x, w), "")  # (no device: the task's GPU, where the op has a kernel)
        host = tf.py_func(lambda a: a * 2, [on_gpu], tf.float32)  # (no GPU kernel: the task's CPU)
        pinned = _seen(host, "/cpu:0")
        with tf.Session(server.target) as sess:
            sess.run(w.initializer)
            out = sess.run(pinned, {x: np.ones((2, 3), np.float32)})
            devices = {d.name: d for d in sess.list_devices()}
        np.testing.assert_array_equal(out, np.full((2, 2), 6.0, np.float32))
        assert sorted(_SEEN, key=str) == sorted([("GPU", DeviceArray), ("CPU", np.ndarray)], key=str)
        assert any(name.endswith("GPU:0") for name in devices)
    finally:
        server.stop()


def test_a_step_that_failed_is_captured_once_it_has_succeeded(fake):
    with tf.device("/gpu:0"):
        v = tf.Variable(np.ones(3, np.float32))
        y = v * 2.0
    with tf.Session() as sess:
        for _ in range(2):
            with pytest.raises(tf.errors.FailedPreconditionError):
                sess.run(y)
        sess.run(v.initializer)
        outs = [sess.run(y) for _ in range(3)]  # (op by op, then captured and launched, then launched)
    assert fake.captures == 1 and fake.launches == 2
    for out in outs:
        np.testing.assert_array_equal(out, [2.0, 2.0, 2.0])
