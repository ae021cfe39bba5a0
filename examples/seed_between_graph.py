"""Between-graph replication: every task runs this script; ps tasks serve, workers train.

Run a local cluster of 1 ps and 2 workers in one command:

    distflow launch --ps 1 --workers 2 -- python examples/seed_between_graph.py

Each worker builds its own copy of the graph; replica_device_setter puts the
variables on the ps task, so both workers update the same weights (asynchronously).
The task comes from TF_CONFIG (written by the launcher, or by Kubernetes TFJob), or
from --job_name/--task_index with --ps_hosts/--worker_hosts.
"""
import argparse
import time

import distflow as tf
from distflow.datasets import batches, load_digits


def build_model(x, y):
    h = tf.layers.dense(x, 256, activation=tf.nn.relu, name="fc1")
    h = tf.layers.dense(h, 128, activation=tf.nn.relu, name="fc2")
    logits = tf.layers.dense(h, 10, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    return loss, accuracy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ps_hosts", default="")
    parser.add_argument("--worker_hosts", default="")
    parser.add_argument("--job_name", default=None)
    parser.add_argument("--task_index", type=int, default=None)
    parser.add_argument("--steps", type=int, default=600, help="training steps per worker")
    parser.add_argument("--batch_size", type=int, default=64)
    args = parser.parse_args()

    if args.ps_hosts:
        cluster = tf.train.ClusterSpec({"ps": args.ps_hosts.split(","), "worker": args.worker_hosts.split(",")})
        job_type, task_idx = args.job_name, args.task_index
    else:
        resolver = tf.train.TFConfigClusterResolver()
        cluster, job_type, task_idx = resolver.cluster_spec(), resolver.task_type, resolver.task_id

    server = tf.train.Server(cluster, job_name=job_type, task_index=task_idx)
    if job_type == "ps":
        server.join()  # returns when the launcher stops the cluster
        return

    # With a 'chief' task (TF_CONFIG from `distflow launch --chief`, TFJob) the chief is the
    # first trainer and initializes the variables; without one, worker 0 does.
    has_chief = "chief" in cluster.jobs
    is_chief = job_type == "chief" or (not has_chief and task_idx == 0)
    trainer = task_idx + (1 if has_chief and job_type == "worker" else 0)
    x_train, y_train, x_test, y_test = load_digits()
    tf.set_random_seed(0)
    with tf.device(tf.train.replica_device_setter(worker_device=f"/job:{job_type}/task:{task_idx}",
                                                  cluster=cluster)):
        x = tf.placeholder(tf.float32, [None, 64], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        loss, accuracy = build_model(x, y)
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.train.AdamOptimizer(0.002).minimize(loss, global_step=global_step)
        init = tf.global_variables_initializer()
        uninitialized = tf.report_uninitialized_variables()

    # Each trainer's steps need the ps and itself only: with these filters a trainer that
    # starts after another has finished and left still runs (TF's advice for between-graph
    # replication).
    config = tf.ConfigProto(device_filters=["/job:ps", f"/job:{job_type}/task:{task_idx}"])
    with tf.Session(server.target, config=config) as sess:
        if is_chief:
            sess.run(init)
        else:  # wait for the chief to initialize the shared variables
            deadline = time.monotonic() + 120
            while len(sess.run(uninitialized)) and time.monotonic() < deadline:
                time.sleep(0.1)
        stream = batches(x_train, y_train, args.batch_size, seed=trainer)
        for step in range(1, args.steps + 1):
            bx, by = next(stream)
            _, loss_value, gstep = sess.run([train_op, loss, global_step], {x: bx, y: by})
            if step % 200 == 0:
                print(f"{job_type} {task_idx} step {step} (global step {gstep}): loss {loss_value:.4f}", flush=True)
        print(f"{job_type} {task_idx} test accuracy: {sess.run(accuracy, {x: x_test, y: y_test}):.4f}", flush=True)


if __name__ == "__main__":
    main()
