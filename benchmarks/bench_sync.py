"""Synchronous training with a backup worker: how much a stalled worker slows the global step.

Runs examples/digits_replica.py under `distflow launch` (1 ps, 3 workers, SyncReplicasOptimizer)
four times, each a separate local cluster:
  2 of 3, healthy:   updates average 2 gradients; the third worker is a backup;
  2 of 3, stalled:   the same with worker 2 sleeping 10x its step time before each step;
  3 of 3, healthy / stalled: every update waits for all three workers.
The stall is 10x the per-step time the healthy 2-of-3 run measured. Figures: global steps per
second between the chief's first and last step (start-up excluded), and the time from the
chief's last step until the launcher returned, i.e. every process (ps included) has exited.
Target: the stalled 2-of-3 run keeps at least 90% of the healthy run's global steps/s.

Usage:
  python benchmarks/bench_sync.py [--train-steps 400]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from common import SRC, machine_line

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "digits_replica.py")


def run(aggregate: int, train_steps: int, stall: float, workdir: str) -> dict:
    report = os.path.join(workdir, f"report-{aggregate}-{stall:.4f}.json")
    checkpoints = tempfile.mkdtemp(dir=workdir)
    command = [sys.executable, "-m", "distflow.tools.cli", "launch", "--ps", "1", "--workers", "3", "--",
               sys.executable, EXAMPLE, "--sync_replicas", "--replicas_to_aggregate", str(aggregate),
               "--train_steps", str(train_steps), "--checkpoint_dir", checkpoints, "--save_checkpoint_steps",
               "1000000", "--report", report]
    if stall:
        command += ["--step_sleep", f"{stall:.6f}", "--slow_task", "2"]
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    exited = time.time()
    if out.returncode != 0:
        raise RuntimeError(f"launch failed ({out.returncode}):\n{out.stdout[-4000:]}")
    result = json.loads(open(report).read())
    result["exit_secs"] = exited - result["last_step_unix"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train-steps", type=int, default=400)
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as workdir:
        healthy = run(2, args.train_steps, 0.0, workdir)
        stall = 10 * healthy["secs_per_local_step"]
        rows = [("2 of 3, healthy", healthy), ("2 of 3, stalled", run(2, args.train_steps, stall, workdir)),
                ("3 of 3, healthy", run(3, args.train_steps, 0.0, workdir)),
                ("3 of 3, stalled", run(3, args.train_steps, stall, workdir))]
    print(f"stall: worker 2 sleeps {stall * 1000:.1f} ms before each step (10x the healthy step time)")
    print(f"{'run':<18} {'global steps/s':>15} {'vs healthy':>11} {'accuracy':>9} {'last step -> all exited':>24}")
    base = {2: rows[0][1]["global_steps_per_sec"], 3: rows[2][1]["global_steps_per_sec"]}
    for name, r in rows:
        ratio = r["global_steps_per_sec"] / base[int(name[0])]
        print(f"{name:<18} {r['global_steps_per_sec']:>15.1f} {ratio:>11.2f} {r['test_accuracy']:>9.4f} "
              f"{r['exit_secs']:>22.2f} s")


if __name__ == "__main__":
    main()
