"""Classify variable-length sequences with an LSTM, the TF 1.x way.

Each sequence is 5 to 20 digits; its label says whether it holds more 7s than 3s. The
digits are embedded, a `tf.contrib.rnn.LSTMCell` runs over them with `tf.nn.dynamic_rnn`
and `sequence_length` (padding past a sequence's end is ignored), dropout is switched on
for training with `tf.cond`, and the last state feeds a softmax.
"""
import numpy as np

import distflow as tf

flags = tf.app.flags
flags.DEFINE_integer("steps", 600, "training steps")
flags.DEFINE_integer("batch_size", 64, "sequences per batch")
FLAGS = flags.FLAGS

MAX_LEN = 20


def make_data(n, rng):
    lengths = rng.integers(5, MAX_LEN + 1, size=n)
    digits = rng.integers(0, 10, size=(n, MAX_LEN))
    mask = np.arange(MAX_LEN)[None, :] < lengths[:, None]
    digits = np.where(mask, digits, 0)
    sevens = ((digits == 7) & mask).sum(1)
    threes = ((digits == 3) & mask).sum(1)
    keep = sevens != threes  # no ties
    return digits[keep].astype(np.int32), lengths[keep].astype(np.int32), (sevens > threes)[keep].astype(np.int64)


def main(_):
    rng = np.random.default_rng(0)
    train_x, train_len, train_y = make_data(8000, rng)
    test_x, test_len, test_y = make_data(1000, rng)
    tf.set_random_seed(1)

    digits = tf.placeholder(tf.int32, [None, MAX_LEN], name="digits")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    is_training = tf.placeholder_with_default(False, [], name="is_training")

    embedding = tf.get_variable("embedding", [10, 16])
    inputs = tf.nn.embedding_lookup(embedding, digits)
    cell = tf.contrib.rnn.LSTMCell(32)
    _, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=lengths, dtype=tf.float32)
    features = tf.cond(is_training, lambda: tf.nn.dropout(state.h, keep_prob=0.9), lambda: state.h)
    logits = tf.layers.dense(features, 2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(FLAGS.steps):
            pick = rng.integers(0, len(train_y), FLAGS.batch_size)
            _, l = sess.run([train_op, loss], {digits: train_x[pick], lengths: train_len[pick],
                                               labels: train_y[pick], is_training: True})
            if step % 100 == 0:
                tf.logging.info("step %d: loss %.4f", step, l)
        acc = sess.run(accuracy, {digits: test_x, lengths: test_len, labels: test_y})
    print("test accuracy: %.4f" % acc)


if __name__ == "__main__":
    tf.logging.set_verbosity(tf.logging.INFO)
    tf.app.run()
