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

from common import TOWERS, median_rates, side_by_side_main

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
    return median_rates(MEASURE, MODES, steps, tf_python, rounds)


def main() -> None:
    side_by_side_main(__doc__, MEASURE, MODES, "LSTM LM, batch 32 x 35")

if __name__ == "__main__":
    main()
