"""Convolutional training throughput: TensorFlow's CIFAR-10 tutorial model, distflow beside TensorFlow.

The model of TensorFlow's CIFAR-10 tutorial (models/tutorials/image/cifar10/cifar10.py,
``inference`` and ``loss``): conv 5x5x64 + ReLU, max-pool 3x3/2, LRN, conv 5x5x64 + ReLU,
LRN, max-pool 3x3/2, fully connected 384 + ReLU and 192 + ReLU (each with weight decay
0.004), linear 10, softmax cross-entropy plus the weight decay; plain SGD (0.1); batch
128 of 24x24x3 synthetic images (the tutorial's crops), NHWC, float32. Samples per
second (higher is better), the median of 7 rounds, the two libraries' rounds taken in
turn (TensorFlow in its own process), one device.

Usage:
  python benchmarks/bench_cifar.py [--tf-python /path/to/venv/bin/python] [--steps N] [--profile]
"""

from __future__ import annotations

from common import TOWERS, median_rates, side_by_side_main

MEASURE = TOWERS + r'''
import numpy as np

BATCH = 128


def variable(tf, name, shape, stddev, wd=None):
    var = tf.get_variable(name, shape, initializer=tf.truncated_normal_initializer(stddev=stddev))
    if wd is not None:
        tf.add_to_collection("losses", tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss"))
    return var


def build_model(tf, images, labels):
    def conv(x, name, c_in, bias):
        k = variable(tf, f"{name}_w", [5, 5, c_in, 64], 5e-2)
        b = tf.get_variable(f"{name}_b", [64], initializer=tf.constant_initializer(bias))
        return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 1, 1, 1], padding="SAME"), b))

    def local(x, name, n_in, n_out, relu=True, wd=0.004, stddev=0.04, bias=0.1):
        w = variable(tf, f"{name}_w", [n_in, n_out], stddev, wd)
        b = tf.get_variable(f"{name}_b", [n_out], initializer=tf.constant_initializer(bias))
        h = tf.matmul(x, w) + b
        return tf.nn.relu(h) if relu else h

    h = conv(images, "conv1", 3, 0.0)
    h = tf.nn.max_pool(h, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
    h = tf.nn.lrn(h, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
    h = conv(h, "conv2", 64, 0.1)
    h = tf.nn.lrn(h, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
    h = tf.nn.max_pool(h, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
    h = tf.reshape(h, [images.get_shape().as_list()[0], -1])
    h = local(h, "local3", 6 * 6 * 64, 384)
    h = local(h, "local4", 384, 192)
    logits = local(h, "softmax_linear", 192, 10, relu=False, wd=None, stddev=1 / 192.0, bias=0.0)
    cross_entropy = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    tf.add_to_collection("losses", cross_entropy)
    return tf.add_n(tf.get_collection("losses"))


def build(tf, mode):
    tf.reset_default_graph()
    tf.set_random_seed(0)
    rng = np.random.default_rng(0)
    xv = rng.random((BATCH, 24, 24, 3)).astype(np.float32)
    yv = rng.integers(0, 10, size=BATCH).astype(np.int64)
    x = tf.placeholder(tf.float32, [BATCH, 24, 24, 3])
    y = tf.placeholder(tf.int64, [BATCH])
    train, config = train_op(tf, tf.train.GradientDescentOptimizer(0.1), build_model, x, y, mode, "cifar10")
    sess = tf.Session(config=config)
    sess.run(tf.global_variables_initializer())
    return timed_rounds(sess, train, {x: xv, y: yv}, BATCH)
'''

MODES = ("one device",)


def run_side_by_side(tf_python: str | None, steps: int, rounds: int = 7) -> tuple[dict, dict]:
    return median_rates(MEASURE, MODES, steps, tf_python, rounds)


def main() -> None:
    side_by_side_main(__doc__, MEASURE, MODES, "CIFAR-10, batch 128")


if __name__ == "__main__":
    main()
