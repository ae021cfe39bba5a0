"""tf.config: physical and logical devices, visibility, virtual devices, memory growth and
thread counts, as the sessions made afterwards see them (GPUs: on a fake backend)."""

import pytest

import distflow as tf
from distflow.runtime import process_options
from distflow.runtime.gpu import backend as gpu_backend
from test_gpu_backend import FakeBackend

config = tf.config.experimental


@pytest.fixture(autouse=True)
def fresh_process_options():
    saved = {name: getattr(process_options, name) for name in ("_visible_gpus", "_cpu_devices")}
    saved_dicts = {name: dict(getattr(process_options, name)) for name in ("_gpu_splits", "_memory_growth",
                                                                            "_threads")}
    yield
    for name, value in saved.items():
        setattr(process_options, name, value)
    for name, value in saved_dicts.items():
        getattr(process_options, name).clear()
        getattr(process_options, name).update(value)


def _session_devices(config_proto=None) -> list:
    with tf.Graph().as_default(), tf.Session(config=config_proto) as sess:
        return [d.name.rsplit("/", 1)[1] for d in sess.list_devices()]


def test_without_a_gpu_the_memory_growth_snippet_runs_and_the_cpu_splits():
    assert config.list_physical_devices() == [config.PhysicalDevice("/physical_device:CPU:0", "CPU")]
    gpus = config.list_physical_devices("GPU")
    assert gpus == []  # (simulated GPUs are not hardware)
    for gpu in gpus:  # the snippet TF 1.15 programs open with
        config.set_memory_growth(gpu, True)
    assert len(config.list_logical_devices("GPU")) == tf.ConfigProto.DEFAULT_SIMULATED_GPUS
    cpu = config.list_physical_devices("CPU")[0]
    config.set_virtual_device_configuration(cpu, [config.VirtualDeviceConfiguration()] * 3)
    config.set_visible_devices([cpu])  # (no GPU: not even a simulated one)
    assert [d.name for d in config.list_logical_devices()] == [
        f"/job:localhost/replica:0/task:0/device:CPU:{i}" for i in range(3)]
    assert tf.config.experimental_list_devices() == [d.name for d in config.list_logical_devices()]
    assert _session_devices() == ["device:CPU:0", "device:CPU:1", "device:CPU:2"]
    assert _session_devices(tf.ConfigProto(device_count={"CPU": 1, "GPU": 2})) == [
        "device:CPU:0", "device:GPU:0", "device:GPU:1"]  # (a config that says keeps its own)
    with tf.Graph().as_default():
        with tf.device("/cpu:2"):
            total = tf.reduce_sum(tf.range(5))
        with tf.Session() as sess:
            assert sess.run(total) == 10
    assert len(config.get_virtual_device_configuration(cpu)) == 3 and config.get_visible_devices("GPU") == []


def test_thread_counts_and_optimizer_options_are_kept():
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    assert tf.config.threading.get_inter_op_parallelism_threads() == 1
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess._config.inter_op_parallelism_threads == 1 and sess._config.intra_op_parallelism_threads == 1
    with tf.Graph().as_default(), tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=2)) as sess:
        assert sess._config.inter_op_parallelism_threads == 2
    tf.config.optimizer.set_jit(True)
    tf.config.optimizer.set_experimental_options({"layout_optimizer": False})
    assert tf.config.optimizer.get_jit() and tf.config.optimizer.get_experimental_options() == {
        "layout_optimizer": False}
    tf.config.optimizer.set_jit(False)
    with pytest.raises(ValueError, match="0 .the default. or more"):
        tf.config.threading.set_intra_op_parallelism_threads(-1)


def test_gpus_visible_split_and_growing():
    with gpu_backend.set_backend(FakeBackend(count=2)):
        gpus = config.list_physical_devices("GPU")
        assert [g.name for g in gpus] == ["/physical_device:GPU:0", "/physical_device:GPU:1"]
        config.set_memory_growth(gpus[1], True)
        assert config.get_memory_growth(gpus[1]) and not config.get_memory_growth(gpus[0])
        config.set_virtual_device_configuration(gpus[0], [config.VirtualDeviceConfiguration(memory_limit=512)] * 2)
        assert _session_devices() == ["device:CPU:0", "device:GPU:0", "device:GPU:1", "device:GPU:2"]
        with tf.Graph().as_default(), tf.Session() as sess:
            assert [d.ordinal for d in sess._device_mgr.devices if d.device_type == "GPU"] == [0, 0, 1]
        with pytest.raises(ValueError, match="virtual devices configured"):
            config.set_memory_growth(gpus[0], True)
        config.set_visible_devices([gpus[1]], "GPU")
        assert config.get_visible_devices("GPU") == [gpus[1]]
        with tf.Graph().as_default(), tf.Session() as sess:
            assert [d.ordinal for d in sess._device_mgr.devices if d.device_type == "GPU"] == [1]
        assert [d.device_type for d in config.list_logical_devices()] == ["CPU", "GPU"]


def test_what_is_wrong_is_said():
    cpu = config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="Unrecognized device"):
        config.set_memory_growth(config.PhysicalDevice("/physical_device:GPU:3", "GPU"), True)
    with pytest.raises(ValueError, match="non-GPU devices"):
        config.set_memory_growth(cpu, True)
    with pytest.raises(ValueError, match="at least one CPU"):
        config.set_visible_devices([])
    with pytest.raises(ValueError, match="non-empty list of VirtualDeviceConfiguration"):
        config.set_virtual_device_configuration(cpu, [])
    with pytest.raises(AttributeError, match="tf.config.experimental_connect_to_cluster"):
        tf.config.experimental_connect_to_cluster  # noqa: B018 - TF 2's eager cluster
