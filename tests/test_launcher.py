"""distflow launch: a local cluster of real processes, TF_CONFIG, prefixed output, clean ends."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def launch(*args, timeout=240):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    return subprocess.run([sys.executable, "-m", "distflow.tools.cli", "launch", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=ROOT)


def test_between_graph_digits_training_reaches_accuracy_and_ps_exits():
    out = launch("--ps", "1", "--workers", "2", "--", sys.executable, "examples/seed_between_graph.py",
                 "--steps", "300")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    accuracies = [float(line.rsplit(":", 1)[1]) for line in out.stdout.splitlines() if "test accuracy" in line]
    assert len(accuracies) == 2 and min(accuracies) >= 0.95, out.stdout[-2000:]
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

    cores = os.cpu_count() or 1
    env = blas_thread_env(3, environ={"MKL_NUM_THREADS": "4"})
    assert env == {"OPENBLAS_NUM_THREADS": str(max(1, cores // 3)), "OMP_NUM_THREADS": str(max(1, cores // 3))}
    assert blas_thread_env(1, environ={})["OPENBLAS_NUM_THREADS"] == str(cores)
