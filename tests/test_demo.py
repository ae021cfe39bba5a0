"""``distflow demo``, the README's first command: a local cluster trains, and shows it."""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytest.importorskip("sklearn", reason="the demo's digits come with scikit-learn (the examples extra)")
event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator",
                                        reason="reading the events back needs tensorboard (the test extra)")


def demo(*args, timeout=120):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    return subprocess.run([sys.executable, "-m", "distflow.tools.cli", "demo", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=ROOT)


@pytest.mark.parametrize("mode, steps", [("async", 1500), ("sync", 400)])
def test_the_demo_trains_reports_and_leaves_events_tensorboard_reads(tmp_path, mode, steps):
    # (asynchronous: enough steps that the second worker, which waits for the chief to
    # initialize the variables, joins before the end)
    out = demo("--steps", str(steps), "--logdir", str(tmp_path), *(["--sync"] if mode == "sync" else []))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "Traceback" not in out.stdout + out.stderr
    lines = out.stdout.splitlines()
    accuracy = [float(line.split()[-1]) for line in lines if line.strip().startswith("test accuracy")]
    assert accuracy and accuracy[0] >= 0.9, out.stdout[-2000:]
    assert any(line.startswith("worker 1: step ") for line in lines)  # a progress line per worker
    assert any(line.strip().startswith("global steps") and int(line.split()[-1]) >= steps for line in lines)
    assert f"tensorboard --logdir {tmp_path}" in out.stdout
    events = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"scalars": 0})
    events.Reload()
    assert {"loss", "accuracy"} <= set(events.Tags()["scalars"]) and events.Tags()["graph"]
    devices = {node.device for node in events.Graph().node}
    assert any("/job:ps/" in d for d in devices) and any("/job:worker/" in d for d in devices)
    assert sorted(os.listdir(tmp_path / "tasks")) == ["ps-0.log", "worker-0.log", "worker-1.log"]
    if shutil.which("dot"):
        assert f"The graph, by task and device: {tmp_path / 'graph.svg'}" in out.stdout
        assert "/job:ps/task:0" in (tmp_path / "graph.svg").read_text()


def test_bad_demo_arguments_are_one_line_errors():
    out = demo("--workers", "0")
    assert out.returncode == 2 and "--workers: must be at least 1, got 0" in out.stderr
    assert "Traceback" not in out.stderr
