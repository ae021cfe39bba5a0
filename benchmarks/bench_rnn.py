"""Recurrent training throughput: a dynamic_rnn LSTM language model, distflow beside TensorFlow.

The small configuration of TensorFlow's PTB tutorial: batch 32, 35 time steps, an
embedding of 200 and one BasicLSTMCell of 200 units run by ``tf.nn.dynamic_rnn``
(a ``tf.while_loop`` with its gradient loop), a softmax over a 1000-word vocabulary
(the tutorial's 10000 would make the step a softmax benchmark), sequence loss, gradients
clipped to norm 5, plain SGD. Samples (sequences) per second, the median of 7 rounds,
the two libraries' rounds taken in turn (TensorFlow in its own process).

TensorFlow 2.16 and later have tf.compat.v1's RNN cells only with Keras 2: install
``tf_keras`` beside ``tensorflow-cpu`` in TensorFlow's environment (the benchmark sets
TF_USE_LEGACY_KERAS=1 there).

Usage:
  python benchmarks/bench_rnn.py [--tf-python /path/to/venv/bin/python] [--steps N] [--profile]
"""

from __future__ import annotations

import argparse

import numpy as np

from common import TOWERS, alternate_rounds, machine_line, use_distflow_source

# The measurement, written once for both libraries: `tf` is distflow or tf.compat.v1.
MEASURE = TOWERS + r'''
import numpy as np

BATCH, STEPS, UNITS, VOCAB = 32, 35, 200, 1000


def build(tf, mode):
    tf.reset_default_graph()
    tf.set_random_seed(0)
    rng = np.random.default_rng(0)
    xv = rng.integers(0, VOCAB, size=(BATCH, STEPS)).astype(np.int32)
    yv = rng.integers(0, VOCAB, size=(BATCH, STEPS)).astype(np.int32)
    x = tf.placeholder(tf.int32, [BATCH, STEPS])
    y = tf.placeholder(tf.int32, [BATCH, STEPS])
    with tf.variable_scope("model", initializer=tf.random_uniform_initializer(-0.1, 0.1)):
        embedding = tf.get_variable("embedding", [VOCAB, UNITS])
        inputs = tf.nn.embedding_lookup(embedding, x)
        cell = tf.nn.rnn_cell.BasicLSTMCell(UNITS, forget_bias=0.0)
        outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
        w = tf.get_variable("softmax_w", [UNITS, VOCAB])
        b = tf.get_variable("softmax_b", [VOCAB])
        logits = tf.matmul(tf.reshape(outputs, [-1, UNITS]), w) + b
        # (tf.contrib.seq2seq.sequence_loss with unit weights; TensorFlow 2 has no contrib)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(y, [-1]),
                                                                             logits=logits))
    tvars = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
    train = tf.train.GradientDescentOptimizer(1.0).apply_gradients(zip(grads, tvars))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return timed_rounds(sess, train, {x: xv, y: yv}, BATCH)
'''

MODES = ("one device",)


def run_side_by_side(tf_python: str | None, steps: int, rounds: int = 7) -> tuple[dict, dict]:
    rates, tf_rates = alternate_rounds(MEASURE, MODES, steps, tf_python, rounds)
    return ({m: float(np.median(r)) for m, r in rates.items()},
            {m: float(np.median(r)) for m, r in tf_rates.items() if r})


def profile(steps: int) -> None:
    """distflow's kernel calls of one step (outside the loops' functions), by op type."""
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
    for op_type, ms in sorted(by_type.items(), key=lambda kv: -kv[1])[:15]:
        print(f"{op_type:<34} {ms:>8.2f} {ms / total:>6.1%}")


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
    print(f"{'LSTM LM, batch 32 x 35':<24} {'distflow':>10} {'TensorFlow':>11} {'df/TF':>7}")
    for mode in MODES:
        t = tf.get(mode, float("nan"))
        print(f"{mode:<24} {df[mode]:>10.0f} {t:>11.0f} {df[mode] / t:>7.2f}")


if __name__ == "__main__":
    main()
