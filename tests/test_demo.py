"""``distflow demo``, the README's first command: a local cluster trains, and shows it."""

import os
import re
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
    assert any(line.startswith("worker 1: global step ") for line in lines)  # a progress line per worker
    assert any(line.strip().startswith("global steps") and int(line.split()[2]) >= steps for line in lines)
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


def _screen(raw: str) -> list[str]:
    """The lines a terminal shows after ``raw``: text, newlines, and the two escapes the
    demo redraws with (ESC[nF: up n lines to their start; ESC[J: erase to the end)."""
    import re

    lines, row = [""], 0
    for token in re.split(r"(\x1b\[\d*F|\x1b\[J|\r?\n)", raw):
        if not token:
            continue
        if token.startswith("\x1b[") and token.endswith("F"):
            row = max(0, row - int(token[2:-1] or 1))
        elif token == "\x1b[J":
            del lines[row + 1:]
            lines[row] = ""
        elif token in ("\n", "\r\n"):
            row += 1
            if row == len(lines):
                lines.append("")
        else:
            lines[row] += token
    return lines


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_in_a_terminal_the_bars_end_at_the_last_step_and_the_launcher_speaks_below_them(tmp_path):
    import re
    import select

    steps = 300
    master, slave = os.openpty()
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"), TERM="xterm")
    proc = subprocess.Popen([sys.executable, "-m", "distflow.tools.cli", "demo", "--steps", str(steps), "--workers",
                             "3", "--logdir", str(tmp_path)], stdin=slave, stdout=slave, stderr=slave, env=env,
                            cwd=ROOT)
    os.close(slave)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 120)
            if not ready:
                raise AssertionError("the demo wrote nothing for 120 s")
            try:
                data = os.read(master, 65536)
            except OSError:  # (EIO: the demo ended and closed the terminal)
                break
            if not data:
                break
            chunks.append(data)
        assert proc.wait(60) == 0
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    screen = _screen(b"".join(chunks).decode(errors="replace"))
    bars = [i for i, line in enumerate(screen) if line.startswith("worker ") and "global step" in line]
    assert len(bars) == 3, "\n".join(screen)
    assert all(re.search(rf"global step +{steps}/{steps} ", screen[i]) for i in bars), "\n".join(screen)
    finished = next(i for i, line in enumerate(screen) if "[launch] all tasks finished" in line)
    assert finished > max(bars), "\n".join(screen)  # (below the bars, as it comes after them)
    assert any(line.strip().startswith("test accuracy") for line in screen[finished:])


def test_a_second_run_in_the_same_logdir_says_that_it_resumed(tmp_path):
    first = demo("--steps", "200", "--logdir", str(tmp_path))
    assert first.returncode == 0 and "resumed" not in first.stdout, first.stdout[-2000:]
    again = demo("--steps", "300", "--logdir", str(tmp_path))
    assert again.returncode == 0, again.stdout[-3000:]
    # (asynchronous workers may have stepped a little past 200 before they saw the end)
    resumed = re.search(r"\(resumed from the checkpoint at global step (\d+)", again.stdout)
    assert resumed and 200 <= int(resumed.group(1)) < 300, again.stdout[-2000:]


def test_ctrl_c_stops_the_demo_and_says_so(tmp_path):
    import signal

    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    proc = subprocess.Popen([sys.executable, "-m", "distflow.tools.cli", "demo", "--steps", "1000000", "--logdir",
                             str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            cwd=ROOT)
    try:
        for line in proc.stdout:  # (until training is under way)
            if line.startswith("worker 0: global step"):
                break
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=60)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, rest[-2000:]
    assert "the demo was stopped (Ctrl-C)" in rest and "failed" not in rest.splitlines()[-1], rest[-2000:]
