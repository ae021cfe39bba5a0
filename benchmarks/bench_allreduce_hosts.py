"""Synchronous training on emulated hosts: 4 workers with collective all-reduce (no ps) beside
the same job with SyncReplicasOptimizer and 1 ps, in one run.

The cluster benchmark's model (MLP 784-512-512-10, batch 256 of synthetic data per worker,
SGD): *all-reduce*: each worker on its own emulated host (netns.py) trains with
``tf.distribute.experimental.MultiWorkerMirroredStrategy``, its gradients averaged by one
packed ring all-reduce a step; *ps*: 1 ps and 4 workers, each on its own host, with
``SyncReplicasOptimizer(replicas_to_aggregate=4)`` and the variables on the ps. Every host
has the same CPU budget (this machine's cores over 5 by default) and the same link rate.

The figure is the cluster's samples/s (4 x 256 per synchronous step). The all-reduce
row's ceiling is what the link allows: a ring of n moves 2(n-1)/n of the 2.68 MB of
gradients over each host's link each way, per step; the ps row's is the ps's link carrying
every worker's pulls. Needs root (skips with the reason).

With ``--tf-python`` (a Python with ``tensorflow`` and ``tf_keras``), a third row runs the
same job in TensorFlow 2 on the same hosts, as its own tutorials write it: TF_CONFIG,
``tf.distribute.MultiWorkerMirroredStrategy`` with the ring implementation, a
``tf.function`` step and tf_keras's SGD, whose ``apply_gradients`` all-reduces the
gradients in one packed collective.

Usage:
  sudo python benchmarks/bench_allreduce_hosts.py [--steps N] [--rate 1gbit] [--cpus-per-host C]
                                                  [--tf-python PY]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import netns
from common import SRC, machine_line

SIZES = [784, 512, 512, 10]
PARAM_BYTES = 4 * sum(a * b + b for a, b in zip(SIZES[:-1], SIZES[1:]))  # 2,678,824
HEADER = 1 + 66 / 1448  # Ethernet, IP and TCP headers per full packet
WORKERS = 4

# Both libraries' tasks end with this: ``step()`` timed ``steps`` times, then ``sync()``.
TIMED = r'''
def counters():
    for line in open("/proc/net/dev"):
        name, _, fields = line.partition(":")
        if name.strip() == "eth0":
            f = [int(v) for v in fields.split()]
            return [f[8], f[0]]
    raise RuntimeError("no eth0")

for _ in range(5):
    step()
sync()
before = counters()
start, cpu = time.time(), time.process_time()
for _ in range(steps):
    step()
sync()
end, cpu = time.time(), time.process_time() - cpu
print(json.dumps({"start": start, "end": end, "steps": steps, "cpu": cpu,
                  "traffic": [b - a for a, b in zip(before, counters())]}), flush=True)
'''

TASK = r'''
import json, os, sys, time
import numpy as np
import distflow as tf
cluster, job, index, steps, mode = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
server = tf.train.Server(tf.train.ClusterSpec(cluster), job_name=job, task_index=index)
if job == "ps":
    server.join()
    sys.exit(0)
sizes, batch, n = [784, 512, 512, 10], 256, len(cluster["worker"])

def model(x, y):
    h = x
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = tf.get_variable("w%d" % i, [a, b], initializer=tf.random_normal_initializer(stddev=0.05))
        bias = tf.get_variable("b%d" % i, [b], initializer=tf.zeros_initializer())
        h = tf.matmul(h, w) + bias
        if i < len(sizes) - 2:
            h = tf.nn.relu(h)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))

if mode == "allreduce":
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(cluster_spec=cluster, task_type=job, task_id=index)
    with tf.device(strategy.extended.worker_devices[0]):
        x = tf.placeholder(tf.float32, [batch, sizes[0]])
        y = tf.placeholder(tf.int64, [batch])
    with strategy.scope():
        def step(x, y):
            return tf.train.GradientDescentOptimizer(0.01).minimize(model(x, y))
        train = strategy.group(strategy.experimental_run_v2(step, (x, y)))
    init = tf.global_variables_initializer()
    sess = tf.Session(server.target)
    sess.run(init)  # (every worker at once: the initial values are worker 0's, broadcast)
else:
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % index, cluster=cluster)):
        x = tf.placeholder(tf.float32, [batch, sizes[0]])
        y = tf.placeholder(tf.int64, [batch])
        step_var = tf.train.get_or_create_global_step()
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.01), replicas_to_aggregate=n,
                                             total_num_replicas=n)
        train = opt.minimize(model(x, y), global_step=step_var)
        done = tf.Variable(0, name="bench_done", trainable=False)  # (workers that have finished timing)
        finish = done.assign_add(1)
    hook = opt.make_session_run_hook(index == 0)
    sess = tf.train.MonitoredTrainingSession(master=server.target, is_chief=index == 0, hooks=[hook],
                                             save_checkpoint_secs=None, save_summaries_steps=None,
                                             log_step_count_steps=None,
                                             config=tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % index]))
rng = np.random.default_rng(index)  # (each worker its own batch, the same in every row)
feed = {x: rng.standard_normal((batch, sizes[0])).astype(np.float32), y: rng.integers(0, 10, batch)}
step, sync = lambda: sess.run(train, feed), lambda: None
exec(TIMED)
if mode == "ps":
    # A synchronous step takes 4 gradients from any workers: keep giving them until every
    # worker is done (a step the others no longer feed gives up), then leave without closing.
    sess.run(finish)
    while sess.run(done) < n:
        try:
            sess.run(train, feed, options=tf.RunOptions(timeout_in_ms=5000))
        except tf.errors.DeadlineExceededError:
            break
os._exit(0)
'''

# The same job in TensorFlow 2, as its multi-worker tutorials write it.
TF_TASK = r'''
import json, os, sys, time
cluster, index, steps = json.loads(sys.argv[1]), int(sys.argv[3]), int(sys.argv[4])
os.environ["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}})
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np
import tensorflow as tf
import tf_keras
ring = tf.distribute.experimental.CommunicationImplementation.RING
strategy = tf.distribute.MultiWorkerMirroredStrategy(
    communication_options=tf.distribute.experimental.CommunicationOptions(implementation=ring))
sizes, batch, n = [784, 512, 512, 10], 256, len(cluster["worker"])
with strategy.scope():
    params = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        params.append(tf.Variable(tf.random.normal([a, b], stddev=0.05, seed=i), name="w%d" % i))
        params.append(tf.Variable(tf.zeros([b]), name="b%d" % i))
    opt = tf_keras.optimizers.SGD(0.01)

def model(x):
    h = x
    for i in range(len(sizes) - 1):
        h = tf.matmul(h, params[2 * i]) + params[2 * i + 1]
        if i < len(sizes) - 2:
            h = tf.nn.relu(h)
    return h

@tf.function
def train(x, y):
    def step(x, y):
        with tf.GradientTape() as tape:
            losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=model(x))
            loss = tf.nn.compute_average_loss(losses, global_batch_size=batch * n)
        opt.apply_gradients(zip(tape.gradient(loss, params), params))
    strategy.run(step, (x, y))

rng = np.random.default_rng(index)
x = tf.constant(rng.standard_normal((batch, sizes[0])).astype(np.float32))
y = tf.constant(rng.integers(0, 10, batch))
step, sync = lambda: train(x, y), lambda: params[0].numpy()  # (sync: the last step's update is done)
exec(TIMED)
os._exit(0)
'''


def run(mode: str, steps: int, rate: str, cpus: float | None, tf_python: str | None = None) -> dict:
    hosts_needed = WORKERS + (1 if mode == "ps" else 0)
    with netns.EmulatedHosts(hosts_needed, rate=rate, cpus=cpus) as hosts:
        port = 2222
        first = 1 if mode == "ps" else 0
        cluster = {"worker": [f"{hosts.address(first + i)}:{port}" for i in range(WORKERS)]}
        if mode == "ps":
            cluster["ps"] = [f"{hosts.address(0)}:{port}"]
        env = dict(os.environ, PYTHONPATH=SRC)
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env.pop(name, None)
        python, task = (tf_python, TF_TASK) if mode == "tensorflow" else (sys.executable, TASK)
        task = f"TIMED = {TIMED!r}\n" + task
        args = lambda job, i: [python, "-c", task, json.dumps(cluster), job, str(i), str(steps), mode]  # noqa: E731
        ps = hosts.run(0, args("ps", 0), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) \
            if mode == "ps" else None
        try:
            workers = [hosts.run(first + i, args("worker", i), env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for i in range(WORKERS)]
            reports = []
            for w in workers:
                out, err = w.communicate(timeout=1800)
                if w.returncode != 0:
                    raise RuntimeError(f"{mode} worker failed:\n{err[-3000:]}")
                reports.append(json.loads(out.strip().splitlines()[-1]))
        finally:
            if ps is not None:
                ps.kill()
                ps.wait()
    seconds = max(r["end"] for r in reports) - min(r["start"] for r in reports)
    return {"samples": steps * 256 * WORKERS / seconds,
            "sent": sum(r["traffic"][0] for r in reports) / WORKERS / steps,
            "cpu_ms": 1e3 * sum(r["cpu"] for r in reports) / WORKERS / steps,
            "step_ms": 1e3 * seconds / steps}


def ceiling(rate: str, mode: str) -> float:
    """Samples/s the links allow."""
    bits = float(rate.rstrip("gbit").rstrip("mbit")) * (1e9 if rate.endswith("gbit") else 1e6)
    per_step = WORKERS * PARAM_BYTES if mode == "ps" else 2 * (WORKERS - 1) / WORKERS * PARAM_BYTES
    return bits / 8 / (per_step * HEADER) * 256 * WORKERS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rate", default="1gbit")
    parser.add_argument("--allreduce-only", action="store_true", help="skip the ps row")
    parser.add_argument("--cpus-per-host", type=float, default=round((os.cpu_count() or 2) / 5, 2))
    parser.add_argument("--tf-python", help="a Python with tensorflow and tf_keras: adds TensorFlow's row")
    args = parser.parse_args()
    why = netns.unavailable()
    if why:
        print(f"skipped: {why}")
        return
    print(machine_line())
    cpus = args.cpus_per_host or None
    modes = ("allreduce",) if args.allreduce_only else ("allreduce", "ps")
    modes += ("tensorflow",) if args.tf_python else ()
    results = {mode: run(mode, args.steps, args.rate, cpus, args.tf_python) for mode in modes}
    print(f"4 workers at {args.rate}, {cpus} cores per host, MLP batch 256 per worker, synchronous SGD:")
    for mode, r in results.items():
        top = ceiling(args.rate, mode)
        print(f"  {mode:<10} {r['samples']:9.0f} samples/s   {r['sent'] / 1e6:5.2f} MB sent per worker step   "
              f"link ceiling {top:9.0f} ({r['samples'] / top:.2f} of it); a step {r['step_ms']:.1f} ms, "
              f"{r['cpu_ms']:.1f} ms of CPU per worker")
    if "ps" in results:
        print(f"  all-reduce / ps: {results['allreduce']['samples'] / results['ps']['samples']:.2f}x (target 2.0x)")
    if "tensorflow" in results:
        print(f"  distflow / TensorFlow's MultiWorkerMirroredStrategy: "
              f"{results['allreduce']['samples'] / results['tensorflow']['samples']:.2f}x")
    print(f"  all-reduce at {results['allreduce']['samples'] / ceiling(args.rate, 'allreduce'):.2f} of its ceiling "
          "(target 0.9)")


if __name__ == "__main__":
    main()
