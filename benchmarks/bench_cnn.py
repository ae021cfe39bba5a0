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

import argparse

import numpy as np

from common import TOWERS, alternate_rounds, machine_line, use_distflow_source

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
    rates, tf_rates = alternate_rounds(MEASURE, MODES, steps, tf_python, rounds)
    return ({m: float(np.median(r)) for m, r in rates.items()},
            {m: float(np.median(r)) for m, r in tf_rates.items() if r})


def profile(steps: int) -> None:
    """distflow's kernel calls of the one-device step, summed by op type over ``steps`` steps."""
    tf = use_distflow_source()
    scope: dict = {}
    exec(MEASURE, scope)  # noqa: S102
    timed_round = scope["build"](tf, "one device")
    by_type: dict[str, float] = {}
    for _ in range(steps):
        meta = tf.RunMetadata()
        timed_round.session.run(timed_round.train, timed_round.feed, run_metadata=meta,
                                options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
        for dev in meta.step_stats.dev_stats:
            for node in dev.node_stats:
                op_type = node.timeline_label.split(" = ")[1].rstrip("()")
                by_type[op_type] = by_type.get(op_type, 0.0) + node.op_end_rel_nanos / 1e6 / steps
    total = sum(by_type.values())
    print(f"{'op type':<34} {'ms/step':>8} {'share':>6}")
    for op_type, ms in sorted(by_type.items(), key=lambda kv: -kv[1])[:20]:
        print(f"{op_type:<34} {ms:>8.2f} {ms / total:>6.1%}")
    print(f"{'all kernels':<34} {total:>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tf-python", help="a Python with tensorflow installed")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--profile", action="store_true", help="list distflow's kernel times instead")
    args = parser.parse_args()
    print(machine_line())
    if args.profile:
        profile(args.steps)
        return
    df, tf = run_side_by_side(args.tf_python, args.steps)
    print(f"{'Deep MNIST, batch 64':<22} {'distflow':>10} {'TensorFlow':>11} {'df/TF':>7}")
    for mode in MODES:
        t = tf.get(mode, float("nan"))
        print(f"{mode:<22} {df[mode]:>10.0f} {t:>11.0f} {df[mode] / t:>7.2f}")


if __name__ == "__main__":
    main()
