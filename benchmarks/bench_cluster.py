"""Between-graph replication throughput: 1 ps and 2 workers on loopback, async SGD.

MLP 784-512-512-10, batch 256 of synthetic data per worker, plain SGD, variables on the
ps task (replica_device_setter), each worker in its own process. The figure is the
cluster's samples per second: the sum of both workers' rates (each timed over its own
steps, after 5 warm-up steps). Two ways of starting distflow's tasks: *launcher*, with
the BLAS thread counts that `distflow launch` exports for co-located tasks (cores /
tasks); *by hand*, three processes started as a user starts them from a shell, with no
thread variable set (each server then sizes its own threads). TensorFlow's tasks start
the same way by hand and keep its defaults.

Usage:
  python benchmarks/bench_cluster.py [--tf-python /path/to/venv/bin/python] [--steps N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

from common import SRC, machine_line, use_distflow_source

TASK = r'''
import json, os, sys, time
import numpy as np
cluster, job, index, steps, lib = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
if lib == "tensorflow":
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf
    tf.disable_eager_execution()
else:
    import distflow as tf
server = tf.train.Server(tf.train.ClusterSpec(cluster), job_name=job, task_index=index)
if job == "ps":
    server.join()
    sys.exit(0)
sizes, batch = [784, 512, 512, 10], 256
with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % index, cluster=cluster)):
    x = tf.placeholder(tf.float32, [batch, sizes[0]])
    y = tf.placeholder(tf.int64, [batch])
    h = x
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = tf.Variable(tf.random_normal([a, b], stddev=0.05), name="w%d" % i)
        bias = tf.Variable(tf.zeros([b]), name="b%d" % i)
        h = tf.matmul(h, w) + bias
        if i < len(sizes) - 2:
            h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    arrived = tf.Variable(0, name="arrived")  # workers at the start line
    arrive = arrived.assign_add(1)
    init = tf.global_variables_initializer()
    ready = tf.report_uninitialized_variables()
rng = np.random.default_rng(index)
feed = {x: rng.standard_normal((batch, sizes[0])).astype(np.float32), y: rng.integers(0, 10, batch)}
# each worker talks to the ps and itself only (TF's advice): one finishing early cannot stall the other
config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % index])
with tf.Session(server.target, config=config) as sess:
    if index == 0:
        sess.run(init)
    while len(sess.run(ready)):
        time.sleep(0.05)
    for _ in range(5):
        sess.run(train, feed)
    # Every worker starts timing once all are warm (one that started first would
    # otherwise run alone for a while, and faster).
    sess.run(arrive)
    while sess.run(arrived) < len(cluster["worker"]):
        time.sleep(0.001)
    iface = os.environ.get("BENCH_IFACE")  # on an emulated host: count this host's traffic too

    def counters():  # (/proc/net/dev is the reading process's network namespace's, whatever /sys shows)
        for line in open("/proc/net/dev"):
            name, _, fields = line.partition(":")
            if name.strip() == iface:
                f = [int(x) for x in fields.split()]
                return [f[8], f[0], f[9], f[1]]  # tx bytes, rx bytes, tx packets, rx packets
        raise RuntimeError("no interface %r in /proc/net/dev" % iface)
    before = counters() if iface else None
    start, cpu = time.time(), time.process_time()
    for _ in range(steps):
        sess.run(train, feed)
    report = {"start": start, "end": time.time(), "steps": steps, "cpu": time.process_time() - cpu}
    if iface:
        report["traffic"] = [b - a for a, b in zip(before, counters())]
    print(json.dumps(report), flush=True)
'''


def run_cluster(python: str, lib: str, steps: int, by_hand: bool = False) -> float:
    use_distflow_source()
    from distflow.tools.launcher import BLAS_THREAD_VARIABLES, blas_thread_env, free_ports  # noqa: PLC0415

    ports = free_ports(3)
    cluster = {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}
    env = dict(os.environ, PYTHONPATH=SRC, TF_CPP_MIN_LOG_LEVEL="3")
    for name in BLAS_THREAD_VARIABLES:  # as a user's shell has them: none set
        env.pop(name, None)
    if lib == "distflow" and not by_hand:  # the thread policy of `distflow launch`; TensorFlow sizes its own pools
        env.update(blas_thread_env(3))
    reports = run_tasks(lambda job, i, argv, **popen: subprocess.Popen(argv, **popen), python, cluster, lib, steps, env)
    return cluster_samples(reports)


def cluster_samples(reports: list[dict]) -> float:
    """The cluster's samples/s: every worker's steps over the time from the first start
    to the last end (a worker that runs on alone after the others are done counts at the
    cluster's pace, not its own)."""
    return sum(r["steps"] for r in reports) * 256 / (max(r["end"] for r in reports) - min(r["start"] for r in reports))


def run_tasks(start, python: str, cluster: dict, lib: str, steps: int, env: dict) -> list[dict]:
    """Starts the ps and the workers of ``cluster`` running TASK, each with
    ``start(job, index, argv, **popen)`` (a Popen); each worker's report once all are
    done. The ps is killed at the end."""
    args = lambda job, i: [python, "-c", TASK, json.dumps(cluster), job, str(i), str(steps), lib]  # noqa: E731
    ps = start("ps", 0, args("ps", 0), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers = [start("worker", i, args("worker", i), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True) for i in range(len(cluster["worker"]))]
        reports = []
        for w in workers:
            out, err = w.communicate(timeout=1800)
            if w.returncode != 0:
                raise RuntimeError(f"{lib} worker failed:\n{err[-3000:]}")
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        ps.kill()
        ps.wait()
    return reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tf-python", help="a Python with tensorflow installed")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3,
                        help="clusters per library, alternating distflow and TensorFlow (the VM drifts)")
    args = parser.parse_args()
    print(machine_line())
    launched, by_hand, tfs = [], [], []
    for _ in range(args.repeats):
        launched.append(run_cluster(sys.executable, "distflow", args.steps))
        by_hand.append(run_cluster(sys.executable, "distflow", args.steps, by_hand=True))
        if args.tf_python:
            tfs.append(run_cluster(args.tf_python, "tensorflow", args.steps))
    tf = float(np.median(tfs)) if tfs else float("nan")
    print(f"{'cluster samples/s':<28} {'distflow':>10} {'TensorFlow':>11} {'df/TF':>7}   (median of {args.repeats}; "
          f"TensorFlow runs {', '.join(f'{v:.0f}' for v in tfs)})")
    for label, runs in (("1 ps + 2 workers, launcher", launched), ("1 ps + 2 workers, by hand", by_hand)):
        df = float(np.median(runs))
        print(f"{label:<28} {df:>10.0f} {tf:>11.0f} {df / tf:>7.2f}   (runs {', '.join(f'{v:.0f}' for v in runs)})")


if __name__ == "__main__":
    main()
