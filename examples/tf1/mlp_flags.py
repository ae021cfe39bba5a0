"""A multilayer perceptron on the digits, with TF 1.x's flags, app.run and logging."""
import numpy as np
import distflow as tf
from sklearn.datasets import load_digits

flags = tf.app.flags
flags.DEFINE_integer("hidden1", 64, "Number of units in hidden layer 1.")
flags.DEFINE_integer("hidden2", 32, "Number of units in hidden layer 2.")
flags.DEFINE_integer("max_steps", 600, "Number of steps to run trainer.")
flags.DEFINE_integer("batch_size", 100, "Batch size.")
flags.DEFINE_float("learning_rate", 0.1, "Initial learning rate.")
FLAGS = flags.FLAGS


def inference(images, hidden1_units, hidden2_units):
    with tf.name_scope("hidden1"):
        weights = tf.Variable(tf.truncated_normal([64, hidden1_units], stddev=1.0 / 8.0, seed=1), name="weights")
        biases = tf.Variable(tf.zeros([hidden1_units]), name="biases")
        hidden1 = tf.nn.relu(tf.matmul(images, weights) + biases)
    with tf.name_scope("hidden2"):
        weights = tf.Variable(tf.truncated_normal([hidden1_units, hidden2_units],
                                                  stddev=1.0 / np.sqrt(float(hidden1_units)), seed=2), name="weights")
        biases = tf.Variable(tf.zeros([hidden2_units]), name="biases")
        hidden2 = tf.nn.relu(tf.matmul(hidden1, weights) + biases)
    with tf.name_scope("softmax_linear"):
        weights = tf.Variable(tf.truncated_normal([hidden2_units, 10],
                                                  stddev=1.0 / np.sqrt(float(hidden2_units)), seed=3), name="weights")
        biases = tf.Variable(tf.zeros([10]), name="biases")
        logits = tf.matmul(hidden2, weights) + biases
    return logits


def loss(logits, labels):
    labels = tf.to_int64(labels)
    return tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)


def evaluation(logits, labels):
    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))


def main(_):
    tf.logging.set_verbosity(tf.logging.INFO)
    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    train_x, test_x, train_y, test_y = images[:1400], images[1400:], labels[:1400], labels[1400:]
    with tf.Graph().as_default():
        images_placeholder = tf.placeholder(tf.float32, shape=(None, 64))
        labels_placeholder = tf.placeholder(tf.int32, shape=(None,))
        logits = inference(images_placeholder, FLAGS.hidden1, FLAGS.hidden2)
        loss_op = loss(logits, labels_placeholder)
        global_step = tf.Variable(0, name="global_step", trainable=False)
        train_op = tf.train.GradientDescentOptimizer(FLAGS.learning_rate).minimize(loss_op, global_step=global_step)
        eval_correct = evaluation(logits, labels_placeholder)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        rng = np.random.RandomState(0)
        for step in range(FLAGS.max_steps):
            idx = rng.randint(0, len(train_x), FLAGS.batch_size)
            _, loss_value = sess.run([train_op, loss_op], feed_dict={images_placeholder: train_x[idx],
                                                                     labels_placeholder: train_y[idx]})
            if step % 200 == 0:
                tf.logging.info("Step %d: loss = %.2f", step, loss_value)
        true_count = sess.run(eval_correct, feed_dict={images_placeholder: test_x, labels_placeholder: test_y})
        print("Num examples: %d  Num correct: %d  Precision @ 1: %0.04f" % (
            len(test_x), true_count, float(true_count) / len(test_x)))


if __name__ == "__main__":
    tf.app.run()
