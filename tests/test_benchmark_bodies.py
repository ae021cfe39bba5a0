"""The training benchmarks' bodies (benchmarks/), run through distflow for a round of two
steps: what `python -m benchmarks` measures builds and trains."""

import os
import sys

import pytest

import distflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks"))

import bench_cifar  # noqa: E402
import bench_cnn  # noqa: E402


@pytest.mark.parametrize("bench", [bench_cnn, bench_cifar], ids=lambda b: b.__name__)
def test_a_benchmark_body_trains_a_round(bench):
    scope = {}
    exec(bench.MEASURE, scope)  # noqa: S102 - the benchmark's own body
    timed_round = scope["build"](tf, bench.MODES[0])
    assert timed_round(2) > 0


def test_the_ring_shaped_loopback_reference_moves_its_bytes():
    import bench_collective

    seconds = bench_collective.ring_loopback_seconds(3, 1 << 20, rounds=2)
    assert 0 < seconds < 60


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_the_cpu_rows_beside_pytorch_train_their_model_on_the_cpu(model):
    import bench_gpu

    assert bench_gpu.distflow_rate(model=model, batch=8, steps=2, rounds=1, device="cpu", warm=1) > 0
