"""A worker process for the synchronous-replica tests (run by tests/test_sync_replicas.py).

Each worker fits w (4 values) to its own least-squares problem A_i w = b_i (seeded by its
task index) with SyncReplicasOptimizer over one ps task, through a MonitoredTrainingSession.

--lockstep: reads "step" lines on stdin and answers each with one JSON line after one
  train step (no initial tokens, so every update averages exactly one gradient per worker).
--last-step K: trains freely until global_step reaches K, then prints one JSON line.
--average DECAY: the optimizer keeps a moving average of w (variable_averages), and in
  lockstep a "shadow" line is answered with its value.
--sparse: the model is an embedding table of 6 rows instead, of which each worker reads 3
  (rows i to i + 2) and pulls them toward targets of its own: its gradient is IndexedSlices.
"""

import argparse
import json
import sys

import numpy as np

import distflow as tf


def sparse_problem(task: int):
    """The rows a worker reads and the targets it pulls them toward."""
    return np.arange(task, task + 3), np.random.default_rng(200 + task).standard_normal((3, 1))


def problem(task: int):
    rng = np.random.default_rng(100 + task)
    return rng.standard_normal((8, 4)).astype(np.float64), rng.standard_normal((8, 1)).astype(np.float64)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cluster", required=True)
    p.add_argument("--task", type=int, required=True)
    p.add_argument("--aggregate", type=int, required=True)
    p.add_argument("--total", type=int, required=True)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--lockstep", action="store_true")
    p.add_argument("--last-step", type=int, default=0)
    p.add_argument("--average", type=float, default=0.0)
    p.add_argument("--sparse", action="store_true")
    p.add_argument("--long-step-s", type=float, default=0.0, help="report steps running this long (default: 10 s)")
    args = p.parse_args()
    if args.long_step_s:
        from distflow.distributed import master

        master.LONG_STEP_S = args.long_step_s
    cluster = tf.train.ClusterSpec(json.loads(args.cluster))
    server = tf.train.Server(cluster, job_name="worker", task_index=args.task)
    is_chief = args.task == 0
    a, b = problem(args.task)
    with tf.device(tf.train.replica_device_setter(worker_device=f"/job:worker/task:{args.task}", cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        if args.sparse:
            rows, targets = sparse_problem(args.task)
            w = tf.get_variable("emb", [6, 1], tf.float64, initializer=tf.zeros_initializer())
            loss = 0.5 * tf.reduce_sum(tf.square(tf.gather(w, rows) - tf.constant(targets)))
        else:
            w = tf.get_variable("w", [4, 1], tf.float64, initializer=tf.zeros_initializer())
            loss = 0.5 * tf.reduce_sum(tf.square(tf.matmul(tf.constant(a), w) - tf.constant(b)))
        averages = tf.train.ExponentialMovingAverage(args.average) if args.average else None
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(args.lr),
                                             replicas_to_aggregate=args.aggregate, total_num_replicas=args.total,
                                             variable_averages=averages, variables_to_average=[w])
        train = opt.minimize(loss, global_step=global_step)
    hooks = [opt.make_session_run_hook(is_chief, num_tokens=0 if args.lockstep else -1)]
    if args.last_step:
        hooks.append(tf.train.StopAtStepHook(last_step=args.last_step))
    config = tf.ConfigProto(device_filters=["/job:ps", f"/job:worker/task:{args.task}"])
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, hooks=hooks, config=config,
                                           log_step_count_steps=0, max_wait_secs=60) as sess:
        print("ready", flush=True)
        worker_steps = 0
        if args.lockstep:
            for line in sys.stdin:
                if line.strip() == "shadow":
                    print(json.dumps(sess._tf_sess().run(averages.average(w)).ravel().tolist()), flush=True)
                    continue
                if line.strip() != "step":
                    break
                sess.run(train)
                worker_steps += 1
                print(json.dumps({"step": worker_steps}), flush=True)
            raw = sess._tf_sess()
            print(json.dumps({"w": raw.run(w).ravel().tolist(), "global_step": int(raw.run(global_step))}),
                  flush=True)
        else:
            while not sess.should_stop():
                sess.run(train)
                worker_steps += 1
            print(json.dumps({"worker_steps": worker_steps}), flush=True)
    print("closed", flush=True)


if __name__ == "__main__":
    main()
