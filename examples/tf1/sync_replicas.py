"""Synchronous data parallelism with SyncReplicasOptimizer and an int32 global step (as many TF 1.x
programs declared it), two workers and one parameter server started by hand."""
import sys

import numpy as np
import distflow as tf

flags = tf.app.flags
flags.DEFINE_string("ps_hosts", "", "Comma-separated list of hostname:port pairs")
flags.DEFINE_string("worker_hosts", "", "Comma-separated list of hostname:port pairs")
flags.DEFINE_string("job_name", "", "One of 'ps', 'worker'")
flags.DEFINE_integer("task_index", 0, "Index of task within the job")
flags.DEFINE_integer("train_steps", 30, "Global steps (one per aggregated update)")
FLAGS = flags.FLAGS


def main(_):
    cluster = tf.train.ClusterSpec({"ps": FLAGS.ps_hosts.split(","), "worker": FLAGS.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
        return
    num_workers = len(FLAGS.worker_hosts.split(","))
    is_chief = FLAGS.task_index == 0
    rng = np.random.RandomState(FLAGS.task_index)
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % FLAGS.task_index,
                                                  cluster=cluster)):
        global_step = tf.Variable(0, dtype=tf.int32, trainable=False, name="global_step")
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable(tf.zeros([2, 1]), name="w")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                             replicas_to_aggregate=num_workers, total_num_replicas=num_workers)
        train_op = opt.minimize(loss, global_step=global_step)
    hooks = [opt.make_session_run_hook(is_chief), tf.train.StopAtStepHook(last_step=FLAGS.train_steps)]
    config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % FLAGS.task_index])
    local_steps = 0
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, hooks=hooks,
                                           config=config) as sess:
        while not sess.should_stop():
            batch = rng.randn(16, 2).astype(np.float32)
            try:
                sess.run(train_op, {x: batch, y: batch @ np.array([[2.0], [-1.0]], np.float32)})
            except tf.errors.OutOfRangeError:
                break
            local_steps += 1
    with tf.Session(server.target, config=config) as sess:
        final_w = sess.run(w)
        final_step = sess.run(global_step)
    print("worker %d local steps %d global step %d w %s" % (
        FLAGS.task_index, local_steps, final_step, " ".join("%.3f" % v for v in final_w.reshape(-1))))
    sys.stdout.flush()


if __name__ == "__main__":
    tf.app.run()
