"""distflow launch: a local cluster of real processes, TF_CONFIG, prefixed output, clean ends."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def launch(*args, timeout=240):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    return subprocess.run([sys.executable, "-m", "distflow.tools.cli", "launch", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=ROOT)


def test_between_graph_digits_training_reaches_accuracy_and_ps_exits():
    # (a worker that finishes first evaluates the model as it then is, however far the other has
    # got: on a loaded 2-core machine 0.92 at 300 steps, 0.94 at 400. The last to finish
    # evaluates the model both trained; the first one's only has to have learnt.)
    out = launch("--ps", "1", "--workers", "2", "--", sys.executable, "examples/seed_between_graph.py",
                 "--steps", "400")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    accuracies = [float(line.rsplit(":", 1)[1]) for line in out.stdout.splitlines() if "test accuracy" in line]
    assert len(accuracies) == 2 and max(accuracies) >= 0.95 and min(accuracies) >= 0.85, out.stdout[-2000:]
    assert "[worker:1] worker 1 test accuracy" in out.stdout
    assert "[launch] all tasks finished" in out.stdout


def test_digits_replica_sync_training_under_the_launcher(tmp_path):
    report = tmp_path / "report.json"
    out = launch("--ps", "1", "--workers", "2", "--", sys.executable, "examples/digits_replica.py", "--sync_replicas",
                 "--train_steps", "300", "--checkpoint_dir", str(tmp_path / "ckpt"), "--report", str(report))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    import json

    result = json.loads(report.read_text())
    assert result["global_step"] == 300  # updates, each averaging both workers' gradients
    assert result["test_accuracy"] >= 0.95
    assert result["close_secs"] < 10  # bounded, not a speed claim: the session closes without waiting out a grace
    assert (tmp_path / "ckpt" / "checkpoint").exists()
    assert "[launch] all tasks finished" in out.stdout
    assert "resumed from" not in out.stdout
    # the same checkpoint directory again: the run says that it resumed, and from where
    again = launch("--ps", "1", "--workers", "2", "--", sys.executable, "examples/digits_replica.py",
                   "--sync_replicas", "--train_steps", "300", "--checkpoint_dir", str(tmp_path / "ckpt"))
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "resumed from" in again.stdout and "global step 300 of 300" in again.stdout, again.stdout[-2000:]


def test_the_chiefs_failure_stops_the_other_tasks(tmp_path):
    script = tmp_path / "task.py"
    script.write_text(
        "import json, os, sys, time\n"
        "task = json.loads(os.environ['TF_CONFIG'])['task']\n"
        "if task['type'] == 'ps':\n"
        "    import distflow as tf\n"
        "    r = tf.train.TFConfigClusterResolver()\n"
        "    tf.train.Server(r.cluster_spec(), job_name='ps', task_index=0).join()\n"
        "if task['index'] == 0:\n"
        "    sys.exit(4)\n"
        "time.sleep(600)  # waits for a chief that is gone\n")
    out = launch("--ps", "1", "--workers", "2", "--", sys.executable, str(script), timeout=120)
    assert out.returncode == 4
    assert "the chief worker:0 failed (exit code 4); stopping the other tasks" in out.stdout


def test_failing_worker_exit_code_is_reported(tmp_path):
    script = tmp_path / "task.py"
    script.write_text(
        "import json, os, sys\n"
        "task = json.loads(os.environ['TF_CONFIG'])['task']\n"
        "print('hello from', task['type'], task['index'])\n"
        "if task['type'] == 'ps':\n"
        "    import distflow as tf\n"
        "    r = tf.train.TFConfigClusterResolver()\n"
        "    tf.train.Server(r.cluster_spec(), job_name='ps', task_index=0).join()\n"
        "sys.exit(3 if task == {'type': 'worker', 'index': 1} else 0)\n")
    out = launch("--ps", "1", "--workers", "2", "--chief", "--", sys.executable, str(script), timeout=120)
    assert out.returncode == 3
    assert "[worker:1] hello from worker 1" in out.stdout and "[chief:0] hello from chief 0" in out.stdout
    assert "[launch] worker:1 failed with exit code 3" in out.stdout


def test_blas_threads_are_shared_among_co_located_tasks():
    from distflow.tools.launcher import blas_thread_env

    from distflow.platform.cpus import usable_cores

    cores = usable_cores()
    env = blas_thread_env(3, environ={"MKL_NUM_THREADS": "4"})
    assert env == {"OPENBLAS_NUM_THREADS": str(max(1, cores // 3)), "OMP_NUM_THREADS": str(max(1, cores // 3))}
    assert blas_thread_env(1, environ={})["OPENBLAS_NUM_THREADS"] == str(cores)


def cli(*args, timeout=30):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    return subprocess.run([sys.executable, "-m", "distflow.tools.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)


def cli_here(*args) -> tuple[int, str, str]:
    """The command line's exit status, standard output and error, run in this process (for
    arguments it refuses before it starts anything)."""
    import contextlib
    import io

    from distflow.tools.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


def test_help_shows_the_command_syntax_and_bad_arguments_are_one_line_errors():
    code, shown, _ = cli_here("launch", "--help")
    assert code == 0
    assert "-- COMMAND" in shown and "example: distflow launch --ps 1 --workers 2 -- python" in shown
    for args, message in ((["--ps", "-1", "--", "true"], "--ps: must be at least 0, got -1"),
                          (["--workers", "0", "--", "true"], "--workers: must be at least 1, got 0"),
                          (["--workers", "two", "--", "true"], "expected a whole number, got 'two'"),
                          ([], "launch needs a command after --"),
                          (["--workers", "1", "train.py"], "train.py (the command a task runs goes after --)")):
        code, _, err = cli_here("launch", *args)
        assert code == 2 and message in err, err
    for args, message in ((["--cluster", "{oops", "--job", "ps"], "--cluster is not JSON"),
                          (["--cluster", '{"ps": ["127.0.0.1:1"]}', "--job", "ps", "--task", "5"],
                           "No task with index 5 in job 'ps'"),
                          (["--cluster", '{"ps": ["127.0.0.1:99999"]}', "--job", "ps"], "a port from 1 to 65535")):
        code, _, err = cli_here("server", *args)
        assert code == 2 and message in err, err
    # the process as a user runs it: a one-line error, no traceback
    out = cli("launch", "--workers", "two", "--", "true")
    assert out.returncode == 2 and "expected a whole number" in out.stderr and "Traceback" not in out.stderr
    out = cli("launch", "--ps", "0", "--workers", "1", "--", "no-such-program-here")
    assert out.returncode == 2 and "cannot run 'no-such-program-here'" in out.stdout and "Traceback" not in out.stderr


TASK_THAT_WAITS = (
    "import json, os, subprocess, sys, time\n"
    "task = json.loads(os.environ['TF_CONFIG'])['task']\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
    "print('pids', os.getpid(), child.pid, flush=True)\n"
    "time.sleep(600)\n")


def test_sigterm_stops_every_task_and_what_they_started(tmp_path):
    import re
    import signal
    import time

    script = tmp_path / "task.py"
    script.write_text(TASK_THAT_WAITS)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    launcher = subprocess.Popen([sys.executable, "-m", "distflow.tools.cli", "launch", "--ps", "1", "--workers", "1",
                                 "--logdir", str(tmp_path / "logs"), "--", sys.executable, str(script)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    pids, lines = [], []
    try:
        while len(pids) < 4:  # both tasks and their children have started
            line = launcher.stdout.readline()
            assert line, "the launcher ended early: " + "".join(lines) + launcher.stderr.read()
            lines.append(line)
            found = re.search(r"pids (\d+) (\d+)", line)
            if found:
                pids += [int(found.group(1)), int(found.group(2))]
        launcher.send_signal(signal.SIGTERM)
        rest, err = launcher.communicate(timeout=30)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait(10)
    assert launcher.returncode == 143, rest + err
    assert "[launch] SIGTERM: stopping every task" in rest and "Traceback" not in err
    deadline = time.monotonic() + 10
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [p for p in pids if _alive(p)]
        time.sleep(0.05)
    assert not alive, f"still running: {alive}"
    logs = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert logs == ["ps-0.log", "worker-0.log"] and "pids" in (tmp_path / "logs" / "worker-0.log").read_text()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of this process (none here) would count as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def test_every_failed_task_is_listed_and_the_blas_split_is_logged(tmp_path):
    script = tmp_path / "task.py"
    script.write_text(
        "import json, os, sys\n"
        "task = json.loads(os.environ['TF_CONFIG'])['task']\n"
        "sys.exit({'worker': 5, 'chief': 0}.get(task['type'], 0))\n")
    env_without_blas = {k: v for k, v in os.environ.items()
                        if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    env_without_blas["PYTHONPATH"] = os.path.join(ROOT, "src")
    out = subprocess.run([sys.executable, "-m", "distflow.tools.cli", "launch", "--ps", "0", "--workers", "2",
                          "--chief", "--", sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                         env=env_without_blas, cwd=ROOT)
    assert out.returncode == 5
    assert "[launch] worker:0 failed with exit code 5" in out.stdout
    assert "[launch] worker:1 failed with exit code 5" in out.stdout
    assert "[launch] 3 tasks share" in out.stdout and "OPENBLAS_NUM_THREADS=" in out.stdout


def test_shipped_examples_run_with_a_chief_task(tmp_path):
    out = launch("--ps", "1", "--workers", "1", "--chief", "--", sys.executable, "examples/seed_between_graph.py",
                 "--steps", "200", timeout=180)
    # (a failure shows each task's own last lines: one task's waiting can fill the whole tail)
    assert out.returncode == 0, "\n".join(
        "\n".join([line for line in (out.stdout + out.stderr).splitlines() if line.startswith(f"[{task}]")][-15:])
        for task in ("chief:0", "ps:0", "worker:0")) + "\n" + out.stderr[-2000:]
    assert "[chief:0] chief 0 test accuracy" in out.stdout and "[worker:0] worker 0 test accuracy" in out.stdout
    report = tmp_path / "report.json"
    out = launch("--ps", "1", "--workers", "1", "--chief", "--", sys.executable, "examples/digits_replica.py",
                 "--sync_replicas", "--train_steps", "100", "--checkpoint_dir", str(tmp_path / "ckpt"), "--report",
                 str(report), timeout=180)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    import json

    result = json.loads(report.read_text())
    assert result["global_step"] == 100 and result["task"] == 0  # written by the chief, trainer 0
    assert "[chief:0] chief 0: sync training" in out.stdout and "[worker:0] worker 0: sync training" in out.stdout
    assert "[launch] all tasks finished" in out.stdout


def test_a_launched_cluster_shares_a_token_that_outsiders_lack(tmp_path):
    script = tmp_path / "task.py"
    script.write_text('''
import json, os, subprocess, sys
import distflow as tf
cfg = json.loads(os.environ["TF_CONFIG"])
if cfg["task"]["type"] == "ps":
    tf.train.Server(tf.train.ClusterSpec(cfg["cluster"]), job_name="ps", task_index=0).join()
    sys.exit(0)
probe = """
import sys
from distflow.distributed.rpc import Channels
from distflow.protos import distflow_pb2 as pb
try:
    Channels().call(sys.argv[1], "distflow.Worker", "GetStatus", pb.GetStatusRequest(), timeout=30, wait_for_ready=True)
    print("served")
except Exception as e:
    print(type(e).__name__, e.code().name if hasattr(e, "code") else "")
"""
ps = cfg["cluster"]["ps"][0]
run = lambda env: subprocess.run([sys.executable, "-c", probe, ps], env=env, capture_output=True, text=True).stdout
print("insider:", run(dict(os.environ)).strip())
print("outsider:", run({k: v for k, v in os.environ.items() if k != "DISTFLOW_TOKEN"}).strip())
''')
    out = launch("--ps", "1", "--workers", "1", "--", sys.executable, str(script), timeout=120)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "[worker:0] insider: served" in out.stdout
    assert "[worker:0] outsider: _InactiveRpcError UNAUTHENTICATED" in out.stdout
    assert "DISTFLOW_TOKEN=" not in out.stdout


def test_gpus_per_worker_gives_each_trainer_its_own_devices_and_the_ps_none():
    from distflow.tools.launcher import gpu_env, make_cluster

    cluster = make_cluster(1, 2, True)
    assert gpu_env(cluster, 2, {}) == {("ps", 0): "", ("chief", 0): "0,1", ("worker", 0): "2,3",
                                       ("worker", 1): "4,5"}
    assert gpu_env(cluster, 1, {"CUDA_VISIBLE_DEVICES": "3,5,7"}) == {
        ("ps", 0): "", ("chief", 0): "3", ("worker", 0): "5", ("worker", 1): "7"}
    assert gpu_env(cluster, 0, {}) == {}
    with pytest.raises(ValueError, match=r"needs 6 GPUs, but CUDA_VISIBLE_DEVICES='0,1' names 2"):
        gpu_env(cluster, 2, {"CUDA_VISIBLE_DEVICES": "0,1"})


def test_each_task_sees_the_gpus_the_launcher_gave_it():
    out = launch("--ps", "1", "--workers", "2", "--gpus-per-worker", "1", "--", sys.executable, "-c",
                 "import os, json; t = json.loads(os.environ['TF_CONFIG'])['task']; "
                 "print(t['type'], t['index'], 'sees', repr(os.environ['CUDA_VISIBLE_DEVICES']), flush=True); "
                 "import time; time.sleep(0.2)")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "worker 0 sees '0'" in out.stdout and "worker 1 sees '1'" in out.stdout and "ps 0 sees ''" in out.stdout


@pytest.mark.parametrize("layout", [["--ps", "1"], ["--ps", "0", "collective"]], ids=["ps", "collective"])
def test_train_and_evaluate_under_the_launcher_matches_one_process(tmp_path, layout):
    # chief + 2 workers (+ a ps, or all-reducing with no ps) + an evaluator, against the same
    # program in one process: the same final metrics within noise, and eval events that read back
    import json

    import numpy as np

    import distflow as tf

    ps, extra = layout[:2], layout[2:]
    task = os.path.join(ROOT, "tests", "estimator_task.py")
    out = launch(*ps, "--chief", "--workers", "2", "--evaluator", "--", sys.executable, task,
                 str(tmp_path / "cluster"), "200", *extra)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    lines = [line for line in out.stdout.splitlines() if line.startswith("[evaluator:0] RESULT ")]
    assert lines, out.stdout[-3000:]
    cluster = json.loads(lines[0].split("RESULT ", 1)[1])
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    env.pop("TF_CONFIG", None)
    alone = subprocess.run([sys.executable, task, str(tmp_path / "alone"), "200"], capture_output=True, text=True,
                           timeout=240, env=env)
    assert alone.returncode == 0, alone.stdout[-3000:] + alone.stderr[-3000:]
    single = json.loads(alone.stdout.rsplit("RESULT ", 1)[1])
    assert cluster["global_step"] >= 200 and single["global_step"] == 200
    for name in ("loss", "mae"):  # (both converge to the exact linear fit)
        assert cluster[name] < 0.05 and single[name] < 0.05, (cluster, single)
    steps = {}
    eval_dir = tmp_path / "cluster" / "eval"
    for path in sorted(eval_dir.iterdir()):
        for event in tf.train.summary_iterator(str(path)):
            for value in event.summary.value:
                steps.setdefault(value.tag, []).append((event.step, value.simple_value))
    assert max(step for step, _ in steps["loss"]) >= 200 and "mae" in steps
    assert np.isclose(sorted(steps["loss"])[-1][1], cluster["loss"])


def test_the_ports_come_from_distflow_port_range_where_it_is_set(monkeypatch):
    from distflow.tools import launcher

    monkeypatch.setenv(launcher.PORT_RANGE_ENV, "21000-21009")
    assert launcher.port_range() == range(21000, 21010)
    ports = launcher.free_ports(4)
    assert len(set(ports)) == 4 and all(21000 <= p <= 21009 for p in ports)
    cluster = launcher.make_cluster(1, 2, chief=False)
    assert all(21000 <= int(a.rsplit(":", 1)[1]) <= 21009 for addrs in cluster.values() for a in addrs)
    with pytest.raises(RuntimeError, match="fewer than 11 free ports"):
        launcher.free_ports(11)
    for bad in ("21000", "a-b", "900-1000", "3000-2000"):
        monkeypatch.setenv(launcher.PORT_RANGE_ENV, bad)
        with pytest.raises(ValueError, match="DISTFLOW_PORT_RANGE"):
            launcher.port_range()
    monkeypatch.delenv(launcher.PORT_RANGE_ENV)
    below = launcher.port_range()
    assert below is None or below.stop <= launcher._ephemeral_low()
