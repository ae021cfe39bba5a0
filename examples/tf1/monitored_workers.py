"""Between-graph training with MonitoredTrainingSession and hooks; the cluster comes from TF_CONFIG
(as Estimator-era programs read it), the model is checkpointed by the chief."""
import json
import os
import sys
import tempfile

import numpy as np
import distflow as tf

flags = tf.app.flags
flags.DEFINE_string("checkpoint_dir", None, "Where the chief writes checkpoints (default: a new directory, "
                    "so that an earlier run's checkpoint is not picked up)")
flags.DEFINE_integer("last_step", 300, "Global step at which training stops")
FLAGS = flags.FLAGS


def main(_):
    tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
    cluster = tf.train.ClusterSpec(tf_config["cluster"])
    task = tf_config["task"]
    server = tf.train.Server(cluster, job_name=task["type"], task_index=task["index"])
    if task["type"] == "ps":
        server.join()
        return
    is_chief = task["index"] == 0
    checkpoint_dir = FLAGS.checkpoint_dir or (tempfile.mkdtemp(prefix="monitored-workers-") if is_chief else None)

    rng = np.random.RandomState(0)
    true_w = np.array([[1.5], [-2.0], [0.7], [0.0]], np.float32)
    data = rng.randn(1000, 4).astype(np.float32)
    target = data @ true_w + 0.3

    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % task["index"],
                                                  cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        dataset = tf.data.Dataset.from_tensor_slices((data, target)).shuffle(1000, seed=task["index"])
        features, labels = dataset.repeat().batch(25).make_one_shot_iterator().get_next()
        w = tf.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w) + b - labels))
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=global_step)

    hooks = [tf.train.StopAtStepHook(last_step=FLAGS.last_step),
             tf.train.NanTensorHook(loss),
             tf.train.LoggingTensorHook({"step": global_step, "loss": loss}, every_n_iter=100)]
    config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % task["index"]])
    steps = 0
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief,
                                           checkpoint_dir=checkpoint_dir if is_chief else None,
                                           hooks=hooks, config=config, save_checkpoint_steps=100) as sess:
        while not sess.should_stop():
            sess.run(train_op)
            steps += 1
    print("worker %d ran %d steps" % (task["index"], steps))
    if is_chief:
        latest = tf.train.latest_checkpoint(checkpoint_dir)
        reader = tf.train.NewCheckpointReader(latest)
        print("chief checkpoint", os.path.basename(latest), "w",
              " ".join("%.3f" % v for v in reader.get_tensor("w").reshape(-1)), "b %.3f" % reader.get_tensor("b"))
    sys.stdout.flush()


if __name__ == "__main__":
    tf.app.run()
