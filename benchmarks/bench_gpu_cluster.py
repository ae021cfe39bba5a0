"""Between-graph replication with GPU towers: 1 CPU ps and 2 workers training on a GPU.

The seed's recipe, as TF 1.x programs write it: ``replica_device_setter(worker_device=
"/job:worker/task:i")`` keeps the variables on the ps (which sees no GPU, as TF users start
it) and puts each worker's tower on that worker's GPU, where ops with no device type go. The
model is bench_mlp.py's MLP 784-512-512-10, SGD, batch 256 of synthetic data, each
worker stepping asynchronously. Every step pulls the parameters from the ps into the
worker's GPU and pushes the gradients back, so the step rate is bounded by how fast the
ps serves tensors: the ceiling is the 16 MB read rate of bench_distributed.py, measured
in the same run, divided by the bytes a step moves (the parameters, twice).

Usage:
  python benchmarks/bench_gpu_cluster.py [--steps N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from common import use_distflow_source

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = [784, 512, 512, 10]
PARAMS = sum(a * b + b for a, b in zip(SIZES[:-1], SIZES[1:]))

WORKER = r'''
import json, sys, time
import numpy as np
import distflow as tf

cluster, index, steps = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
sizes, batch = %s, 256
server = tf.train.Server(tf.train.ClusterSpec(cluster), job_name="worker", task_index=index)
with tf.device(tf.train.replica_device_setter(worker_device=f"/job:worker/task:{index}",
                                              cluster=tf.train.ClusterSpec(cluster))):
    x = tf.placeholder(tf.float32, [batch, sizes[0]])
    y = tf.placeholder(tf.int64, [batch])
    loss = build_model(tf, x, y)  # (bench_mlp.py's, defined above this script)
    step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    init = tf.global_variables_initializer()
    ready = tf.report_uninitialized_variables()
rng = np.random.default_rng(index)
feeds = {x: rng.standard_normal((batch, sizes[0])).astype(np.float32), y: rng.integers(0, sizes[-1], batch)}
with tf.Session(server.target) as sess:
    if index == 0:
        sess.run(init)
    while len(sess.run(ready)):
        time.sleep(0.05)
    first = sess.run(loss, feeds)
    for _ in range(20):
        sess.run(step, feeds)
    start = time.perf_counter()
    for _ in range(steps):
        sess.run(step, feeds)
    elapsed = time.perf_counter() - start
    placed = [d for g in server._worker._graphs.values() for d, nodes in g.partitions.items() for _ in nodes]
    print(json.dumps({"steps_per_sec": steps / elapsed, "first_loss": float(first),
                      "last_loss": float(sess.run(loss, feeds)),
                      "ops_on_gpu": sum("GPU" in d for d in placed), "ops_on_cpu": sum("CPU" in d for d in placed)}), flush=True)
'''


def run(steps: int) -> dict:
    use_distflow_source()
    import bench_distributed  # noqa: PLC0415

    pull = bench_distributed.run_distflow(20)["16 MB read GB/s"]
    scope: dict = {}
    exec(bench_distributed.MEASURE, scope)  # noqa: S102 - our own benchmark's helpers (free_ports)
    ports = scope["free_ports"](3)
    cluster = {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}
    # (the ps sees no GPU, as TF users start it: its variables stay on its CPU)
    ps = subprocess.Popen([sys.executable, "-c", bench_distributed.DISTFLOW_PS % json.dumps(cluster)],
                          env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    try:
        import bench_mlp  # noqa: PLC0415

        code = bench_mlp.MEASURE + WORKER % SIZES
        workers = [subprocess.Popen([sys.executable, "-c", code, json.dumps(cluster), str(i), str(steps)],
                                    stdout=subprocess.PIPE, text=True) for i in range(2)]
        reports = []
        for w in workers:
            out, _ = w.communicate(timeout=300)
            if w.returncode != 0:
                raise RuntimeError(f"a worker failed (exit {w.returncode})")
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        ps.kill()
        ps.wait()
    rate = sum(r["steps_per_sec"] for r in reports)
    ceiling = pull * 1e9 / (2 * 4 * PARAMS)
    return {"steps_per_sec": rate, "ceiling": ceiling, "pull_gbps": pull, "workers": reports}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    result = run(args.steps)
    print(json.dumps(result, indent=1))
    print(f"2 GPU workers: {result['steps_per_sec']:.0f} steps/s, ceiling {result['ceiling']:.0f} "
          f"({result['steps_per_sec'] / result['ceiling']:.2f} of it; target 0.8)")


if __name__ == "__main__":
    main()
