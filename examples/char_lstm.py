"""A character-level LSTM language model, written as a TensorFlow 1.x program.

The text is Python's own documentation (the help topics that ship with CPython in
``pydoc_data``), about 465,000 characters; the last tenth is held out. The model is the
one of TensorFlow's PTB tutorial at character scale: an embedding, an LSTM run by
``tf.nn.dynamic_rnn`` over 35 steps, a softmax over the characters, trained with
truncated backpropagation (each batch starts from the state the previous one ended in).

    python examples/char_lstm.py                 # 1500 steps, a few minutes on 2 cores
    python examples/char_lstm.py --steps 200     # a short run

Prints the held-out perplexity against the unigram baseline (predicting each character
from its frequency alone), e.g. "validation perplexity: 5.1 (unigram baseline 24.3)".
"""

import numpy as np
import pydoc_data.topics

import distflow as tf

flags = tf.app.flags
flags.DEFINE_integer("steps", 1500, "training steps")
flags.DEFINE_integer("batch_size", 32, "sequences per batch")
flags.DEFINE_integer("num_steps", 35, "characters per sequence (truncated backpropagation)")
flags.DEFINE_integer("hidden_size", 200, "LSTM units")
flags.DEFINE_integer("embedding_size", 64, "character embedding size")
flags.DEFINE_float("learning_rate", 0.005, "Adam's learning rate")
flags.DEFINE_float("keep_prob", 1.0, "dropout keep probability on the LSTM's outputs while training")
flags.DEFINE_integer("seed", 0, "graph-level random seed")
FLAGS = flags.FLAGS


def load_text():
    text = "".join(pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics))
    chars = sorted(set(text))
    lookup = {c: i for i, c in enumerate(chars)}
    ids = np.fromiter((lookup[c] for c in text), dtype=np.int32, count=len(text))
    split = len(ids) * 9 // 10
    return ids[:split], ids[split:], len(chars)


def batches(data, batch_size, num_steps):
    """PTB-style: the data cut into batch_size rows, read num_steps at a time, forever."""
    rows = len(data) // batch_size
    grid = data[:rows * batch_size].reshape(batch_size, rows)
    while True:
        for start in range(0, rows - num_steps - 1, num_steps):
            yield grid[:, start:start + num_steps], grid[:, start + 1:start + num_steps + 1]


class Model:
    def __init__(self, vocab, training, reuse):
        self.inputs = tf.placeholder(tf.int32, [FLAGS.batch_size, FLAGS.num_steps], name="inputs")
        self.targets = tf.placeholder(tf.int32, [FLAGS.batch_size, FLAGS.num_steps], name="targets")
        with tf.variable_scope("model", reuse=reuse):
            embedding = tf.get_variable("embedding", [vocab, FLAGS.embedding_size])
            x = tf.nn.embedding_lookup(embedding, self.inputs)
            cell = tf.nn.rnn_cell.BasicLSTMCell(FLAGS.hidden_size, forget_bias=0.0)
            if training and FLAGS.keep_prob < 1.0:
                cell = tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=FLAGS.keep_prob)
            self.initial_state = cell.zero_state(FLAGS.batch_size, tf.float32)
            outputs, self.final_state = tf.nn.dynamic_rnn(cell, x, initial_state=self.initial_state)
            logits = tf.layers.dense(tf.reshape(outputs, [-1, FLAGS.hidden_size]), vocab, name="softmax")
            logits = tf.reshape(logits, [FLAGS.batch_size, FLAGS.num_steps, vocab])
            self.cost = tf.contrib.seq2seq.sequence_loss(
                logits, self.targets, tf.ones([FLAGS.batch_size, FLAGS.num_steps]))
        if training:
            tvars = tf.trainable_variables()
            grads, _ = tf.clip_by_global_norm(tf.gradients(self.cost, tvars), 5.0)
            self.train_op = tf.train.AdamOptimizer(FLAGS.learning_rate).apply_gradients(
                zip(grads, tvars), global_step=tf.train.get_or_create_global_step())


def run_epoch(sess, model, data, steps, train_op=None, log_every=0):
    """Mean cross-entropy over ``steps`` batches, carrying the LSTM state across them."""
    state = sess.run(model.initial_state)
    total, done = 0.0, 0
    fetches = {"cost": model.cost, "state": model.final_state}
    if train_op is not None:
        fetches["train"] = train_op
    for step, (x, y) in zip(range(steps), batches(data, FLAGS.batch_size, FLAGS.num_steps)):
        feed = {model.inputs: x, model.targets: y, model.initial_state: state}
        out = sess.run(fetches, feed)
        state = out["state"]
        total += out["cost"]
        done += 1
        if log_every and (step + 1) % log_every == 0:
            tf.logging.info("step %d: training perplexity %.2f", step + 1, np.exp(total / done))
    return total / done


def main(_):
    tf.logging.set_verbosity(tf.logging.INFO)
    train, valid, vocab = load_text()
    counts = np.bincount(train, minlength=vocab) + 1.0
    unigram = float(np.exp(-np.mean(np.log(counts / counts.sum())[valid])))
    tf.set_random_seed(FLAGS.seed)
    train_model = Model(vocab, training=True, reuse=None)
    valid_model = Model(vocab, training=False, reuse=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        run_epoch(sess, train_model, train, FLAGS.steps, train_model.train_op, log_every=max(1, FLAGS.steps // 10))
        valid_steps = (len(valid) // FLAGS.batch_size - 1) // FLAGS.num_steps
        perplexity = float(np.exp(run_epoch(sess, valid_model, valid, valid_steps)))
    print(f"validation perplexity: {perplexity:.2f} (unigram baseline {unigram:.2f})")


if __name__ == "__main__":
    tf.app.run()
