"""Session.run latency of the seed program's matmul, distflow beside TensorFlow.

Two graphs, each run again and again in one Session after warm-up:
  single: one matmul of the [4,3] variable by the [3,1] variable (the single-device seed);
  in-graph: the seed's split -> one matmul per device -> concat, over 3 devices
            (CPU:0 plus two more devices: simulated GPUs in distflow, extra CPU
            devices in TensorFlow, which has no GPU here).

Usage:
  python benchmarks/bench_seed_latency.py [--tf-python /path/to/venv/bin/python] [--runs N]

TensorFlow is never imported by distflow: with --tf-python, the same measurement
runs in that interpreter (``tf.compat.v1``) and both figures print side by side.
"""

from __future__ import annotations

import argparse

from common import machine_line, run_tensorflow, use_distflow_source

# The measurement, written once for both libraries: `tf` is distflow or tf.compat.v1.
MEASURE = r'''
import time

def measure(tf, devices, runs, inter_op=0):
    out = {}
    for mode in ("single", "in-graph"):
        tf.reset_default_graph()
        with tf.device('/cpu:0'):
            x = tf.Variable([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.], [10., 11., 12.]])
            b = tf.Variable([[1.], [1.], [2.]])
        if mode == "single":
            result = tf.matmul(x, b)
        else:
            parts = tf.split(x, 2)
            outs = []
            for i in range(2):
                with tf.device(devices[i]):
                    outs.append(tf.matmul(parts[i], b))
            with tf.device('/cpu:0'):
                result = tf.concat(outs, axis=0)
        config = tf.ConfigProto(device_count={"CPU": 3}, inter_op_parallelism_threads=inter_op)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(max(100, runs // 10)):
                sess.run(result)
            best = float("inf")
            for _ in range(5):
                start = time.perf_counter()
                for _ in range(runs // 5):
                    sess.run(result)
                best = min(best, (time.perf_counter() - start) / (runs // 5))
            out[mode] = best * 1e6
    return out
'''


def run_distflow(runs: int) -> dict:
    tf = use_distflow_source()

    scope: dict = {}
    exec(MEASURE, scope)  # noqa: S102 - our own benchmark body
    out = scope["measure"](tf, ["/gpu:0", "/gpu:1"], runs)
    # The in-graph step again with inter_op_parallelism_threads=2, which forces the
    # concurrent form (one thread per device): what the automatic choice saves.
    out["in-graph, concurrent form"] = scope["measure"](tf, ["/gpu:0", "/gpu:1"], runs // 5, 2)["in-graph"]
    return out


def run_tensorflow_side(python: str, runs: int) -> dict:
    # extra CPU devices 1 and 2 stand in for the GPUs, which TensorFlow lacks here
    return run_tensorflow(python, MEASURE, f"measure(tf, ['/cpu:1', '/cpu:2'], {runs})", timeout=900)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tf-python", help="a Python with tensorflow installed")
    parser.add_argument("--runs", type=int, default=5000)
    args = parser.parse_args()
    print(machine_line())
    df = run_distflow(args.runs)
    tf = run_tensorflow_side(args.tf_python, args.runs) if args.tf_python else None
    print(f"{'graph':<26} {'distflow us/run':>16} {'TensorFlow us/run':>18} {'ratio':>7}")
    for mode in ("single", "in-graph", "in-graph, concurrent form"):
        ref = tf[mode.split(",")[0]] if tf else float("nan")
        print(f"{mode:<26} {df[mode]:>16.1f} {ref:>18.1f} {df[mode] / ref:>7.2f}")


if __name__ == "__main__":
    main()
