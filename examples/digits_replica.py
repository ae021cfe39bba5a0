"""TensorFlow's classic "mnist_replica" pattern, on the digits data: distributed training with
parameter servers, synchronous or asynchronous, through a MonitoredTrainingSession that saves
checkpoints and recovers from a lost or restarted parameter server.

A local cluster in one command (1 ps, 2 workers; the first worker is the chief):

    distflow launch --ps 1 --workers 2 -- python examples/digits_replica.py --sync_replicas

or by hand, one process per task:

    python examples/digits_replica.py --ps_hosts=localhost:2222 \\
        --worker_hosts=localhost:2223,localhost:2224 --job_name=ps --task_index=0
    python examples/digits_replica.py ... --job_name=worker --task_index=0   (and 1)

--sync_replicas: SyncReplicasOptimizer, each update averaging --replicas_to_aggregate
gradients (default: every worker); fewer than the workers makes the others backups.
--checkpoint_dir: where the chief saves checkpoints and restores from after a restart.

Every task ends by itself: a worker puts a token in a "done" queue on each ps task when it
has finished, and a ps task leaves once every worker has (TF 1.x's ps tasks joined forever).
"""
import argparse
import json
import logging
import sys
import tempfile
import time

import distflow as tf
from distflow.datasets import batches, load_digits


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ps_hosts", default="", help="comma-separated host:port of the ps tasks")
    p.add_argument("--worker_hosts", default="", help="comma-separated host:port of the worker tasks")
    p.add_argument("--job_name", default=None, help="ps or worker")
    p.add_argument("--task_index", type=int, default=None)
    p.add_argument("--sync_replicas", action="store_true", help="synchronous updates (SyncReplicasOptimizer)")
    p.add_argument("--replicas_to_aggregate", type=int, default=None,
                   help="gradients per synchronous update (default: the number of workers)")
    p.add_argument("--train_steps", type=int, default=600, help="global steps to train for")
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--learning_rate", type=float, default=0.002)
    p.add_argument("--hidden_units", type=int, default=256)
    p.add_argument("--checkpoint_dir", default=None,
                   help="where the chief saves checkpoints, and resumes from if one is there (default: a new "
                        "directory for this run, so that an earlier run's checkpoint is never picked up)")
    p.add_argument("--save_checkpoint_steps", type=int, default=100)
    p.add_argument("--step_sleep", type=float, default=0.0,
                   help="seconds this worker sleeps before each step (to play a slow worker)")
    p.add_argument("--slow_task", type=int, default=None, help="only this worker task sleeps (default: all)")
    p.add_argument("--report", default=None, help="write a JSON line of results to this file (chief)")
    return p.parse_args(argv)


def cluster_and_task(args):
    if args.ps_hosts:
        cluster = tf.train.ClusterSpec({"ps": args.ps_hosts.split(","), "worker": args.worker_hosts.split(",")})
        return cluster, args.job_name, args.task_index
    resolver = tf.train.TFConfigClusterResolver()  # written by `distflow launch`, Kubernetes TFJob, ...
    return resolver.cluster_spec(), resolver.task_type, resolver.task_id


def build_model(x, y, hidden_units):
    h = tf.layers.dense(x, hidden_units, activation=tf.nn.relu, name="fc1")
    h = tf.layers.dense(h, hidden_units // 2, activation=tf.nn.relu, name="fc2")
    logits = tf.layers.dense(h, 10, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    return loss, accuracy


def done_queues(cluster, num_workers):
    """One queue per ps task where each worker puts a token when it has finished training."""
    queues = []
    for i in range(cluster.num_tasks("ps")):
        with tf.device(f"/job:ps/task:{i}"):
            queues.append(tf.FIFOQueue(num_workers, tf.int32, shared_name=f"done_queue_{i}", name=f"done_queue_{i}"))
    return queues


def wait_for_workers(server, queue, task_index, num_workers):
    """A ps task serves until every worker has said it is done, then exits: no join() forever.

    A lost worker never says so; then `distflow launch` (or a Shutdown call) stops this
    server, which cancels the wait.
    """
    take = queue.dequeue()
    config = tf.ConfigProto(device_filters=[f"/job:ps/task:{task_index}"])
    try:
        with tf.Session(server.target, config=config) as sess:
            for _ in range(num_workers):
                sess.run(take)
    except tf.errors.CancelledError:
        pass  # the server was stopped from outside
    print(f"ps {task_index}: every worker is done; stopping", flush=True)
    server.stop()


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stdout)
    cluster, job_name, task_index = cluster_and_task(args)
    server = tf.train.Server(cluster, job_name=job_name, task_index=task_index)
    # With a 'chief' task (`distflow launch --chief`, TFJob) the chief is trainer 0 and the
    # chief; the workers follow it. Without one, worker 0 is the chief.
    has_chief = "chief" in cluster.jobs
    num_workers = cluster.num_tasks("worker") + (cluster.num_tasks("chief") if has_chief else 0)
    done = done_queues(cluster, num_workers)
    if job_name == "ps":
        wait_for_workers(server, done[task_index], task_index, num_workers)
        return
    trainer = task_index + (1 if has_chief and job_name == "worker" else 0)
    say_done = [queue.enqueue(trainer) for queue in done]  # built now: the session finalizes the graph
    is_chief = job_name == "chief" or (not has_chief and task_index == 0)
    me = f"/job:{job_name}/task:{task_index}"

    x_train, y_train, x_test, y_test = load_digits()
    tf.set_random_seed(0)
    with tf.device(tf.train.replica_device_setter(worker_device=me, cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 64], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        loss, accuracy = build_model(x, y, args.hidden_units)
        opt = tf.train.AdamOptimizer(args.learning_rate)
        hooks = [tf.train.StopAtStepHook(last_step=args.train_steps)]
        if args.sync_replicas:
            aggregate = args.replicas_to_aggregate or num_workers
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=aggregate, total_num_replicas=num_workers,
                                                 name="digits_sync_replicas")
            hooks.append(opt.make_session_run_hook(is_chief))
        train_op = opt.minimize(loss, global_step=global_step)

    mode = "sync" if args.sync_replicas else "async"
    print(f"{job_name} {task_index}: {mode} training to global step {args.train_steps}", flush=True)
    slow = args.step_sleep if args.slow_task in (None, trainer) else 0.0
    stream = batches(x_train, y_train, args.batch_size, seed=trainer)
    local_steps, start, last_step_time = 0, time.monotonic(), None
    first_step = first_step_time = None
    results = {}
    # Each worker talks to the ps tasks and itself only, so that a lost or finished worker
    # never stalls another's session (TensorFlow's advice for between-graph replication).
    config = tf.ConfigProto(device_filters=["/job:ps", me])
    checkpoint_dir = args.checkpoint_dir
    if checkpoint_dir is None and is_chief:
        checkpoint_dir = tempfile.mkdtemp(prefix="digits_replica-")
        print(f"{job_name} {task_index}: checkpoints go to {checkpoint_dir}", flush=True)
    resume_from = tf.train.latest_checkpoint(checkpoint_dir) if is_chief and checkpoint_dir else None
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, checkpoint_dir=checkpoint_dir,
                                           hooks=hooks, save_checkpoint_steps=args.save_checkpoint_steps,
                                           log_step_count_steps=0, max_wait_secs=300, config=config) as sess:
        if resume_from:  # (said, so that a short run is not a surprise)
            print(f"{job_name} {task_index}: resumed from {resume_from}, global step {sess.run(global_step)} of "
                  f"{args.train_steps}", flush=True)
        while not sess.should_stop():
            if slow:
                time.sleep(slow)
            bx, by = next(stream)
            _, loss_value, step = sess.run([train_op, loss, global_step], {x: bx, y: by})
            local_steps += 1
            last_step_time = time.monotonic()
            if first_step is None:
                first_step, first_step_time = step, last_step_time
            if local_steps % 100 == 0:
                print(f"{job_name} {task_index}: local step {local_steps}, global step {step}, loss {loss_value:.4f}",
                      flush=True)
        if is_chief:
            results["test_accuracy"] = float(sess.run(accuracy, {x: x_test, y: y_test}))
            results["global_step"] = int(sess.run(global_step))
            print(f"{job_name} {task_index}: test accuracy {results['test_accuracy']:.4f}", flush=True)
    closed = time.monotonic()
    train_secs = (last_step_time or closed) - start
    results.update(local_steps=local_steps, train_secs=train_secs, task=trainer, mode=mode,
                   close_secs=closed - (last_step_time or closed),  # last step to the session closed
                   last_step_unix=time.time() - (closed - (last_step_time or closed)))
    if is_chief and first_step_time is not None and last_step_time > first_step_time:
        # global steps per second between this worker's first and last step (start-up excluded)
        results["global_steps_per_sec"] = (results["global_step"] - first_step) / (last_step_time - first_step_time)
        results["secs_per_local_step"] = (last_step_time - first_step_time) / max(1, local_steps - 1)
    print(f"{job_name} {task_index}: done, {local_steps} local steps in {train_secs:.1f} s", flush=True)
    with tf.Session(server.target, config=config) as sess:  # tell every ps task this worker is done
        sess.run(say_done)
    if args.report and is_chief:
        with open(args.report, "w") as f:
            f.write(json.dumps(results) + "\n")


if __name__ == "__main__":
    main()
