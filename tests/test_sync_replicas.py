"""SyncReplicasOptimizer across real processes: 1 ps server plus worker processes on 127.0.0.1."""

import json
import os
import selectors
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from cluster_util import ROOT, LocalCluster

sys.path.insert(0, os.path.dirname(__file__))
from sync_worker import problem  # noqa: E402

WORKER = os.path.join(os.path.dirname(__file__), "sync_worker.py")


class Workers:
    """Worker processes of one cluster (the ps is a LocalCluster server); every read is bounded."""

    def __init__(self, n_workers: int, *args: str):
        self.ps = LocalCluster({"ps": 1, "worker": n_workers}, start_jobs=("ps",))
        self.spec = self.ps.spec
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
        self.procs = [subprocess.Popen([sys.executable, WORKER, "--cluster", json.dumps(self.spec), "--task", str(i),
                                        *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, env=env) for i in range(n_workers)]

    def read(self, i: int, timeout: float = 60.0) -> str:
        proc = self.procs[i]
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            while time.monotonic() < deadline:
                if sel.select(timeout=max(0.0, deadline - time.monotonic())):
                    line = proc.stdout.readline()
                    if not line:
                        raise AssertionError(f"worker {i} ended: {proc.stderr.read()[-3000:]}")
                    return line.strip()
        raise AssertionError(f"worker {i} said nothing for {timeout} s")

    def send(self, i: int, line: str) -> None:
        self.procs[i].stdin.write(line + "\n")
        self.procs[i].stdin.flush()

    def lockstep(self, rounds: int) -> None:
        """Once every worker is ready, ``rounds`` rounds of one step on each worker (--lockstep)."""
        n = len(self.procs)
        for i in range(n):
            assert self.read(i) == "ready"
        for r in range(rounds):
            for i in range(n):
                self.send(i, "step")
            for i in range(n):
                assert json.loads(self.read(i)) == {"step": r + 1}

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGCONT)
                proc.kill()
            proc.wait(10)
        self.ps.close()


def reference(n_workers: int, rounds: int, lr: float = 0.05) -> np.ndarray:
    """One process computing the same updates: w -= lr * mean over workers of A_i^T (A_i w - b_i)."""
    w = np.zeros((4, 1))
    for _ in range(rounds):
        grads = [a.T @ (a @ w - b) for a, b in (problem(i) for i in range(n_workers))]
        w = w - lr * np.mean(grads, axis=0)
    return w.ravel()


def test_every_update_is_the_average_of_one_gradient_per_worker():
    n, rounds = 3, 4
    cluster = Workers(n, "--aggregate", str(n), "--total", str(n), "--lockstep")
    try:
        cluster.lockstep(rounds)
        for i in range(n):
            cluster.send(i, "quit")
        results = [json.loads(cluster.read(i)) for i in range(n)]
        for i in range(n):
            assert cluster.read(i) == "closed"
    finally:
        cluster.close()
    expected = reference(n, rounds)
    for result in results:
        # n workers made n * rounds steps; global_step counts the updates
        assert result["global_step"] == rounds
        np.testing.assert_allclose(result["w"], expected, rtol=1e-12, atol=1e-12)


def test_an_embeddings_rows_are_averaged_over_the_workers_that_read_them():
    """Sparse gradients (IndexedSlices) go through a SparseConditionalAccumulator, as in TF:
    each row of the update is the mean of the gradients of the workers that had that row."""
    from sync_worker import sparse_problem

    n, rounds, lr = 3, 3, 0.05
    cluster = Workers(n, "--aggregate", str(n), "--total", str(n), "--lockstep", "--sparse")
    try:
        cluster.lockstep(rounds)
        for i in range(n):
            cluster.send(i, "quit")
        results = [json.loads(cluster.read(i)) for i in range(n)]
    finally:
        cluster.close()
    emb = np.zeros((6, 1))
    for _ in range(rounds):
        grads = [[] for _ in range(6)]
        for i in range(n):
            rows, targets = sparse_problem(i)
            for r, t in zip(rows, targets):
                grads[r].append(emb[r] - t)
        emb = emb - lr * np.array([np.mean(g, axis=0) if g else np.zeros(1) for g in grads])
    for result in results:
        assert result["global_step"] == rounds
        np.testing.assert_allclose(result["w"], emb.ravel(), rtol=1e-12, atol=1e-12)


def test_the_chief_keeps_moving_averages_of_the_variables_after_each_update():
    """variable_averages (as TF's Inception trainer used it): after each synchronous update the
    chief's queue runner moves the shadow of w toward the new w."""
    n, rounds, decay = 2, 3, 0.5
    cluster = Workers(n, "--aggregate", str(n), "--total", str(n), "--lockstep", "--average", str(decay))
    try:
        cluster.lockstep(rounds)
        shadow = np.zeros(4)
        for r in range(1, rounds + 1):
            shadow -= (1 - decay) * (shadow - reference(n, r))
        # (a worker's last step returns once the update's tokens are out; the averages follow
        # them in the chief's queue runner, so read until they have moved, within a bound)
        deadline, got = time.monotonic() + 30, None
        while time.monotonic() < deadline:
            cluster.send(0, "shadow")
            got = json.loads(cluster.read(0))
            if np.allclose(got, shadow, rtol=1e-12, atol=1e-12):
                break
            time.sleep(0.05)
        np.testing.assert_allclose(got, shadow, rtol=1e-12, atol=1e-12)
        for i in range(n):
            cluster.send(i, "quit")
        for i in range(n):
            assert "w" in json.loads(cluster.read(i))
    finally:
        cluster.close()


@pytest.mark.parametrize("how", [signal.SIGSTOP, signal.SIGKILL], ids=["stalled", "killed"])
def test_a_stalled_or_lost_worker_does_not_stop_progress_with_a_backup(how):
    """3 workers aggregating 2: worker 2 is frozen (SIGSTOP) or killed, and global_step still reaches its end."""
    last_step = 15
    cluster = Workers(3, "--aggregate", "2", "--total", "3", "--last-step", str(last_step))
    try:
        for i in range(3):
            assert cluster.read(i) == "ready"
        os.kill(cluster.procs[2].pid, how)
        done = [json.loads(cluster.read(i, timeout=90)) for i in (0, 1)]
        assert all(d["worker_steps"] >= 1 for d in done)
        # between them the two live workers made at least 2 gradients per update after the stall
        assert done[0]["worker_steps"] + done[1]["worker_steps"] >= last_step
        for i in (0, 1):
            assert cluster.read(i, timeout=30) == "closed"
    finally:
        cluster.close()


@pytest.mark.parametrize("n", [2])
def test_workers_finish_and_close_promptly(n):
    """Free-running sync training to a last step; every monitored session closes within seconds."""
    cluster = Workers(n, "--aggregate", str(n), "--total", str(n), "--last-step", "10")
    try:
        for i in range(n):
            assert cluster.read(i) == "ready"
        for i in range(n):
            json.loads(cluster.read(i, timeout=90))
        start = time.monotonic()
        for i in range(n):
            assert cluster.read(i, timeout=30) == "closed"
        assert all(p.wait(30) == 0 for p in cluster.procs)
        closing = time.monotonic() - start
        assert closing < 30  # a bound on the wait, not a speed claim: TF 1.x could block 120 s here
    finally:
        cluster.close()


def test_workers_whose_chief_is_down_log_what_they_wait_for():
    cluster = Workers(2, "--aggregate", "2", "--total", "2", "--lockstep", "--long-step-s", "0.5")
    try:
        for i in range(2):
            assert cluster.read(i) == "ready"
        for i in range(2):
            cluster.send(i, "step")
        for i in range(2):
            assert json.loads(cluster.read(i)) == {"step": 1}
        cluster.procs[0].kill()  # the chief
        cluster.send(1, "step")  # its gradient goes in; the token it then waits for never comes
        said = ""
        deadline = time.monotonic() + 60
        with selectors.DefaultSelector() as sel:
            sel.register(cluster.procs[1].stderr, selectors.EVENT_READ)
            while "sync_token_q" not in said and time.monotonic() < deadline:
                if sel.select(timeout=max(0.0, deadline - time.monotonic())):
                    said += os.read(cluster.procs[1].stderr.fileno(), 65536).decode(errors="replace")
        assert "has run for" in said and "/job:ps/replica:0/task:0:" in said, said
        assert "waits for 1 element(s) of queue 'sync_token_q'" in said, said
    finally:
        cluster.close()
