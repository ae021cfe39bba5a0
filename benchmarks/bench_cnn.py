"""Convolutional training throughput: TensorFlow's "Deep MNIST" model, distflow beside TensorFlow.

The model of TensorFlow's "Deep MNIST for experts" tutorial: conv 5x5x32 + ReLU, max-pool
2x2, conv 5x5x64 + ReLU, max-pool 2x2, fully connected 1024 + ReLU, fully connected 10,
softmax cross-entropy, Adam (1e-4); batch 64 of 28x28x1 synthetic images, NHWC, float32.
Samples per second (higher is better), the median of 7 rounds, the two libraries' rounds
taken in turn (TensorFlow in its own process):
  one device:   the model on one device;
  in-graph x2:  two towers on two CPU devices (device_count={"CPU": 2}), each on half of
                the batch, gradients averaged and applied once.
With ``--profile``, distflow's kernels of one step are listed with their times instead.

Usage:
  python benchmarks/bench_cnn.py [--tf-python /path/to/venv/bin/python] [--steps N] [--profile]
"""

from __future__ import annotations

from common import TOWERS, median_rates, side_by_side_main

# The measurement, written once for both libraries: `tf` is distflow or tf.compat.v1.
MEASURE = TOWERS + r'''
import time
import numpy as np

BATCH = 64


def conv_layer(tf, x, name, k, c_in, c_out):
    w = tf.get_variable(f"{name}_w", [k, k, c_in, c_out], initializer=tf.truncated_normal_initializer(stddev=0.1))
    b = tf.get_variable(f"{name}_b", [c_out], initializer=tf.constant_initializer(0.1))
    h = tf.nn.relu(tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME") + b)
    return tf.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


def dense(tf, x, name, n_in, n_out, relu):
    w = tf.get_variable(f"{name}_w", [n_in, n_out], initializer=tf.truncated_normal_initializer(stddev=0.1))
    b = tf.get_variable(f"{name}_b", [n_out], initializer=tf.constant_initializer(0.1))
    h = tf.matmul(x, w) + b
    return tf.nn.relu(h) if relu else h


def build_model(tf, x, y):
    h = conv_layer(tf, tf.reshape(x, [-1, 28, 28, 1]), "conv1", 5, 1, 32)
    h = conv_layer(tf, h, "conv2", 5, 32, 64)
    h = dense(tf, tf.reshape(h, [-1, 7 * 7 * 64]), "fc1", 7 * 7 * 64, 1024, relu=True)
    logits = dense(tf, h, "fc2", 1024, 10, relu=False)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def build(tf, mode):
    tf.reset_default_graph()
    tf.set_random_seed(0)
    rng = np.random.default_rng(0)
    xv = rng.random((BATCH, 784)).astype(np.float32)
    yv = rng.integers(0, 10, size=BATCH).astype(np.int64)
    x = tf.placeholder(tf.float32, [BATCH, 784])
    y = tf.placeholder(tf.int64, [BATCH])
    opt = tf.train.AdamOptimizer(1e-4)
    train, config = train_op(tf, opt, build_model, x, y, mode, "cnn")
    sess = tf.Session(config=config)
    sess.run(tf.global_variables_initializer())
    return timed_rounds(sess, train, {x: xv, y: yv}, BATCH)
'''

MODES = ("one device", "in-graph x2")


def run_side_by_side(tf_python: str | None, steps: int, rounds: int = 7) -> tuple[dict, dict]:
    return median_rates(MEASURE, MODES, steps, tf_python, rounds)


def main() -> None:
    side_by_side_main(__doc__, MEASURE, MODES, "Deep MNIST, batch 64")

if __name__ == "__main__":
    main()
