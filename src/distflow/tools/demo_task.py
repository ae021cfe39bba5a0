"""One task of ``distflow demo``: between-graph training of a digits classifier.

Started by ``distflow launch`` (it reads TF_CONFIG): a ps task serves until the launcher
stops it; a worker trains the shared model through a MonitoredTrainingSession (the first
worker is the chief: it initializes, writes TensorBoard summaries and the graph to the log
directory, and measures test accuracy at the end). Workers print machine-readable lines
that the demo turns into its progress display and final table:

    progress {"step": global step, "loss": ..., "samples_per_sec": ..., "local_steps": ...}
                          (after the first step, then four times a second, and once at the end;
                          samples_per_sec is None until a second step has been timed)
    result {"test_accuracy": ..., "global_step": ..., "first_step": ..., "local_steps": ..., "train_secs": ...}

"step" is the global step after this worker's update; "first_step" (the chief's) is the
global step it started from: above 0 when it resumed from a checkpoint in the log directory.
"""

from __future__ import annotations

import argparse
import json
import time

import distflow as tf
from distflow.datasets import batches, load_digits


def build_model(x, y):
    h = tf.layers.dense(x, 128, activation=tf.nn.relu, name="hidden")
    logits = tf.layers.dense(h, 10, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    return loss, accuracy


def report(step: int, loss: float, rate, local_steps: int) -> None:
    print("progress " + json.dumps({"step": step, "loss": float(loss), "samples_per_sec": rate,
                                    "local_steps": local_steps}), flush=True)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=3000, help="global steps to train for")
    p.add_argument("--sync", action="store_true", help="synchronous updates (SyncReplicasOptimizer)")
    p.add_argument("--logdir", required=True)
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--every", type=float, default=0.25, help="seconds between progress lines")
    args = p.parse_args(argv)

    resolver = tf.train.TFConfigClusterResolver()
    cluster, job, index = resolver.cluster_spec(), resolver.task_type, resolver.task_id
    server = tf.train.Server(cluster, job_name=job, task_index=index)
    if job == "ps":
        server.join()  # until the launcher stops it, once the workers are done
        return
    workers = cluster.num_tasks("worker")
    is_chief = index == 0
    me = f"/job:worker/task:{index}"
    x_train, y_train, x_test, y_test = load_digits()
    tf.set_random_seed(0)
    with tf.device(tf.train.replica_device_setter(worker_device=me, cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 64], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        loss, accuracy = build_model(x, y)
        tf.summary.scalar("loss", loss)
        tf.summary.scalar("accuracy", accuracy)
        opt = tf.train.AdamOptimizer(0.003)
        hooks = [tf.train.StopAtStepHook(last_step=args.steps)]
        if args.sync:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=workers, total_num_replicas=workers)
            hooks.append(opt.make_session_run_hook(is_chief))
        train_op = opt.minimize(loss, global_step=global_step)

    if is_chief:  # the worker's graph, placed by replica_device_setter, for `distflow graph`
        tf.train.write_graph(tf.get_default_graph(), args.logdir, "graph.pbtxt")
    stream = batches(x_train, y_train, args.batch_size, seed=index)
    config = tf.ConfigProto(device_filters=["/job:ps", me])
    local_steps, start = 0, time.monotonic()
    window_start, window_steps = start, 0
    # The chief resumes from the newest checkpoint in the log directory, if there is one.
    resumed = tf.train.latest_checkpoint(args.logdir) if is_chief else None
    first_step = int(tf.train.load_variable(resumed, "global_step")) if resumed else 0
    # The chief's checkpoints go to the log directory too; its checkpoint hook writes the
    # graph there, with each op's device, for TensorBoard's graph view.
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, hooks=hooks, config=config,
                                           checkpoint_dir=args.logdir, summary_dir=args.logdir,
                                           save_summaries_steps=20, log_step_count_steps=0,
                                           max_wait_secs=120) as sess:
        rate, step, loss_value = None, 0, float("nan")
        while not sess.should_stop():
            bx, by = next(stream)
            _, loss_value, step = sess.run([train_op, loss, global_step], {x: bx, y: by})
            step = int(step) + 1  # (the step reads the global step before its own update)
            local_steps += 1
            now = time.monotonic()
            if local_steps == 1:  # (the rate is timed from here: session start-up is not training)
                window_start, window_steps, timed_from = now, 0, now
                report(step, loss_value, None, local_steps)
                continue
            window_steps += 1
            if now - window_start >= args.every:
                rate = window_steps * args.batch_size / max(now - window_start, 1e-9)
                window_start, window_steps = now, 0
                report(step, loss_value, rate, local_steps)
        result = {"local_steps": local_steps, "train_secs": time.monotonic() - start}
        # (read without the hooks, whose summaries would need a batch fed)
        final_step = int(sess.run_step_fn(lambda step_context: step_context.session.run(global_step)))
        if local_steps > 1:  # (the end, whatever the timer says: the rate over all timed steps)
            rate = (local_steps - 1) * args.batch_size / max(time.monotonic() - timed_from, 1e-9)
        report(max(step, final_step), loss_value, rate, local_steps)
        if is_chief:
            result["test_accuracy"] = float(sess.run(accuracy, {x: x_test, y: y_test}))
            result["global_step"] = final_step
            result["first_step"] = first_step
    print("result " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
