"""Between-graph replication as TensorFlow's mnist_replica.py wrote it (asynchronous updates,
tf.train.Supervisor), on a small synthetic classification task so that it runs anywhere.

Start one process per task, by hand:
  python mnist_replica.py --job_name=ps --task_index=0 --ps_hosts=localhost:2222 \
      --worker_hosts=localhost:2223,localhost:2224
  python mnist_replica.py --job_name=worker --task_index=0 --ps_hosts=... --worker_hosts=...
  python mnist_replica.py --job_name=worker --task_index=1 --ps_hosts=... --worker_hosts=...
"""
import math
import sys
import tempfile
import time

import numpy as np
import distflow as tf

flags = tf.app.flags
flags.DEFINE_string("data_dir", "/tmp/replica-data", "Directory for storing input data (unused: synthetic)")
flags.DEFINE_integer("hidden_units", 32, "Number of units in the hidden layer of the NN")
flags.DEFINE_integer("train_steps", 400, "Number of (global) training steps to perform")
flags.DEFINE_integer("batch_size", 50, "Training batch size")
flags.DEFINE_float("learning_rate", 0.05, "Learning rate")
flags.DEFINE_string("ps_hosts", "localhost:2222", "Comma-separated list of hostname:port pairs")
flags.DEFINE_string("worker_hosts", "localhost:2223,localhost:2224", "Comma-separated list of hostname:port pairs")
flags.DEFINE_string("job_name", None, "job name: worker or ps")
flags.DEFINE_integer("task_index", None, "Worker task index, should be >= 0. task_index=0 is the master worker "
                                         "task that performs the variable initialization")
FLAGS = flags.FLAGS

FEATURES, CLASSES = 20, 4


def make_data():
    rng = np.random.RandomState(1234)  # every task draws the same data
    centers = rng.randn(CLASSES, FEATURES) * 0.8
    labels = rng.randint(0, CLASSES, 2000)
    images = (centers[labels] + rng.randn(2000, FEATURES)).astype(np.float32)
    return images[:1600], labels[:1600], images[1600:], labels[1600:]


def main(unused_argv):
    if FLAGS.job_name is None or FLAGS.job_name == "":
        raise ValueError("Must specify an explicit `job_name`")
    if FLAGS.task_index is None or FLAGS.task_index == "":
        raise ValueError("Must specify an explicit `task_index`")
    print("job name = %s" % FLAGS.job_name)
    print("task index = %d" % FLAGS.task_index)
    sys.stdout.flush()

    ps_spec = FLAGS.ps_hosts.split(",")
    worker_spec = FLAGS.worker_hosts.split(",")
    num_workers = len(worker_spec)
    cluster = tf.train.ClusterSpec({"ps": ps_spec, "worker": worker_spec})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
        return

    is_chief = (FLAGS.task_index == 0)
    train_x, train_y, test_x, test_y = make_data()
    worker_device = "/job:worker/task:%d/cpu:0" % FLAGS.task_index
    with tf.device(tf.train.replica_device_setter(worker_device=worker_device, ps_device="/job:ps/cpu:0",
                                                  cluster=cluster)):
        global_step = tf.Variable(0, name="global_step", trainable=False)
        hid_w = tf.Variable(tf.truncated_normal([FEATURES, FLAGS.hidden_units], stddev=1.0 / math.sqrt(FEATURES),
                                                seed=1), name="hid_w")
        hid_b = tf.Variable(tf.zeros([FLAGS.hidden_units]), name="hid_b")
        sm_w = tf.Variable(tf.truncated_normal([FLAGS.hidden_units, CLASSES],
                                               stddev=1.0 / math.sqrt(FLAGS.hidden_units), seed=2), name="sm_w")
        sm_b = tf.Variable(tf.zeros([CLASSES]), name="sm_b")

        x = tf.placeholder(tf.float32, [None, FEATURES])
        y_ = tf.placeholder(tf.float32, [None, CLASSES])
        hid = tf.nn.relu(tf.nn.xw_plus_b(x, hid_w, hid_b))
        y = tf.nn.softmax(tf.nn.xw_plus_b(hid, sm_w, sm_b))
        cross_entropy = -tf.reduce_sum(y_ * tf.log(tf.clip_by_value(y, 1e-10, 1.0)))
        opt = tf.train.AdamOptimizer(FLAGS.learning_rate)
        train_step = opt.minimize(cross_entropy / FLAGS.batch_size, global_step=global_step)
        correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
        init_op = tf.global_variables_initializer()
        train_dir = tempfile.mkdtemp()

    sv = tf.train.Supervisor(is_chief=is_chief, logdir=train_dir, init_op=init_op, recovery_wait_secs=1,
                             global_step=global_step)
    sess_config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False,
                                 device_filters=["/job:ps", "/job:worker/task:%d" % FLAGS.task_index])
    if is_chief:
        print("Worker %d: Initializing session..." % FLAGS.task_index)
    else:
        print("Worker %d: Waiting for session to be initialized..." % FLAGS.task_index)
    sess = sv.prepare_or_wait_for_session(server.target, config=sess_config)
    print("Worker %d: Session initialization complete." % FLAGS.task_index)
    sys.stdout.flush()

    time_begin = time.time()
    print("Training begins @ %f" % time_begin)
    local_step = 0
    rng = np.random.RandomState(FLAGS.task_index)
    onehot = np.eye(CLASSES, dtype=np.float32)
    while True:
        idx = rng.randint(0, len(train_x), FLAGS.batch_size)
        _, step = sess.run([train_step, global_step], feed_dict={x: train_x[idx], y_: onehot[train_y[idx]]})
        local_step += 1
        if local_step % 100 == 0:
            print("Worker %d: training step %d done (global step: %d)" % (FLAGS.task_index, local_step, step))
        if step >= FLAGS.train_steps:
            break
    print("Training ends @ %f" % time.time())
    print("Training elapsed time: %f s" % (time.time() - time_begin))
    val_xent = sess.run(cross_entropy, feed_dict={x: test_x, y_: onehot[test_y]})
    val_acc = sess.run(accuracy, feed_dict={x: test_x, y_: onehot[test_y]})
    print("After %d training step(s), validation cross entropy = %g, accuracy = %g" % (
        FLAGS.train_steps, val_xent, val_acc))
    sys.stdout.flush()
    sv.stop()


if __name__ == "__main__":
    tf.app.run()
