"""One task of a ParameterServerStrategy job (TF_CONFIG names it): a ps serves, a worker trains
a linear model with two replicas (simulated GPUs) for STEPS steps and prints JSON.

Usage: python ps_strategy_task.py STEPS
"""

import json
import os
import sys

import numpy as np

import distflow as tf

rng = np.random.RandomState(0)
X = rng.randn(64, 3).astype(np.float32)
Y = X @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3


def main():
    steps = int(sys.argv[1])
    config = json.loads(os.environ["TF_CONFIG"])
    task = config["task"]
    server = tf.train.Server(tf.train.ClusterSpec(config["cluster"]), job_name=task["type"], task_index=task["index"])
    if task["type"] == "ps":
        server.join()
        return
    strategy = tf.distribute.experimental.ParameterServerStrategy(num_gpus_per_worker=2)
    with tf.device("/job:ps/task:0"):
        step = tf.train.get_or_create_global_step()
    with strategy.scope():
        def replica_step(x, y):
            prediction = tf.layers.dense(x, 1, name="linear")
            loss = tf.losses.mean_squared_error(y, prediction)
            with tf.control_dependencies([tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)]):
                return tf.identity(loss)

        inputs = strategy._split_batch((tf.constant(X), tf.constant(Y)))
        loss = strategy.reduce(tf.distribute.ReduceOp.MEAN, strategy.experimental_run_v2(replica_step, inputs))
    placement = {v.op.name: v.device for v in tf.global_variables()}
    is_chief = strategy.extended.experimental_should_init
    losses = []
    config = strategy.update_config_proto(tf.ConfigProto())
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, save_checkpoint_secs=None,
                                           save_summaries_steps=None, log_step_count_steps=None,
                                           config=config) as sess:
        for _ in range(steps):
            losses.append(float(sess.run(loss)))
        final_step = int(sess.run(step))
    print("RESULT " + json.dumps({"losses": losses, "placement": placement, "step": final_step}), flush=True)


if __name__ == "__main__":
    main()
