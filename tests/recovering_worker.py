"""One worker of a MultiWorkerMirroredStrategy job that trains in a MonitoredTrainingSession,
worker 0 checkpointing to MODEL_DIR; with DIE_AT, the process ends itself at that step, as
a worker that dies mid-training; prints the final weights as JSON.

Usage: python recovering_worker.py MODEL_DIR LAST_STEP [DIE_AT]
"""

import json
import os
import sys

import numpy as np

import distflow as tf

rng = np.random.RandomState(0)
X = rng.randn(32, 4).astype(np.float32)
Y = X @ np.array([[1.0], [-1.0], [0.5], [2.0]], np.float32)


def main():
    model_dir, last_step = sys.argv[1], int(sys.argv[2])
    die_at = int(sys.argv[3]) if len(sys.argv) > 3 else None
    config = json.loads(os.environ["TF_CONFIG"])
    task = config["task"]
    server = tf.train.Server(tf.train.ClusterSpec(config["cluster"]), job_name=task["type"], task_index=task["index"])
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    step = tf.train.get_or_create_global_step()
    with strategy.scope():
        def replica_step():
            loss = tf.losses.mean_squared_error(Y, tf.layers.dense(tf.constant(X), 1, name="linear"))
            return tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=step)

        train = strategy.group(strategy.experimental_run_v2(replica_step))
    chief = strategy.extended.should_checkpoint
    hooks = [tf.train.StopAtStepHook(last_step=last_step)]
    with tf.train.MonitoredTrainingSession(
            master=server.target, is_chief=True, checkpoint_dir=model_dir, hooks=hooks,
            save_checkpoint_steps=10 if chief else None, save_checkpoint_secs=None, save_summaries_steps=None,
            save_summaries_secs=None, log_step_count_steps=None) as sess:
        while not sess.should_stop():
            sess.run(train)
            done = sess.run(step)
            if die_at is not None and done >= die_at:
                print(f"dying at step {done}", flush=True)
                os._exit(3)
        weights = {v.op.name: sess.run(v).tolist() for v in tf.trainable_variables()}
        final = int(sess.run(step))
    print("RESULT " + json.dumps({"weights": weights, "step": final}), flush=True)


if __name__ == "__main__":
    main()
