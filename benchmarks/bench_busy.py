"""Training on a busy machine: how much other work slows distflow down, beside TensorFlow.

Two steps, each measured on a quiet machine and then with two CPU-bound processes at
normal priority running beside it (``python -c "while True: pass"``, started before and
killed after the busy rounds): the MLP step of bench_mlp.py (784-512-512-10, batch 256,
SGD) and the Deep MNIST step of bench_cnn.py (batch 64, Adam), one device each. The
figure is the slowdown, quiet samples/s over busy samples/s (1.0 = not slowed; lower is
better), for each library; rounds alternate between the libraries as in the other
benchmarks.

Usage:
  python benchmarks/bench_busy.py [--tf-python /path/to/venv/bin/python] [--steps N]
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import time

import numpy as np

import bench_cnn
import bench_mlp
from common import SETTLE_S, TensorFlowProcess, machine_line, use_distflow_source



@contextlib.contextmanager
def busy_machine(processes: int = 2):
    """``processes`` CPU-bound processes at normal priority while the block runs."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)]
    try:
        time.sleep(0.5)  # let the scheduler see them
        yield
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


def measure(name: str, body: str, steps: int, tf_python: str | None, rounds: int) -> dict:
    """Quiet and busy samples/s of one benchmark body's one-device step, for each library."""
    tf = use_distflow_source()
    scope: dict = {}
    exec(body, scope)  # noqa: S102 - our own benchmark bodies
    timed_round = scope["build"](tf, "one device")
    other = TensorFlowProcess(tf_python, body + "\nrounds = {}\n") if tf_python else None
    out = {"distflow": {"quiet": [], "busy": []}, "TensorFlow": {"quiet": [], "busy": []}}
    try:
        if other:
            other.call("rounds.__setitem__('one device', build(tf, 'one device'))")
        for phase in ("quiet", "busy"):
            with busy_machine() if phase == "busy" else contextlib.nullcontext():
                for _ in range(rounds):
                    time.sleep(SETTLE_S)
                    out["distflow"][phase].append(timed_round(steps))
                    if other:
                        time.sleep(SETTLE_S)
                        out["TensorFlow"][phase].append(other.call(f"rounds['one device']({steps})"))
    finally:
        if other:
            other.close()
    return {lib: {phase: float(np.median(r)) if r else float("nan") for phase, r in phases.items()}
            for lib, phases in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tf-python", help="a Python with tensorflow installed")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(machine_line())
    print(f"{'step':<12} {'library':<11} {'quiet':>9} {'busy':>9} {'slowdown':>9}")
    for name, body, steps in (("MLP", bench_mlp.MEASURE, args.steps * 3), ("Deep MNIST", bench_cnn.MEASURE, args.steps)):
        result = measure(name, body, steps, args.tf_python, args.rounds)
        for lib, r in result.items():
            if r["quiet"] == r["quiet"]:  # (not NaN: the library ran)
                print(f"{name:<12} {lib:<11} {r['quiet']:>9.0f} {r['busy']:>9.0f} {r['quiet'] / r['busy']:>9.2f}")


if __name__ == "__main__":
    main()
