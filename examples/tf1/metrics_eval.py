"""Streaming evaluation with tf.metrics over batches."""
import numpy as np
import distflow as tf

rng = np.random.RandomState(4)
labels_np = rng.randint(0, 2, 1000)
predictions_np = np.where(rng.rand(1000) < 0.8, labels_np, 1 - labels_np)

labels = tf.placeholder(tf.int64, [None])
predictions = tf.placeholder(tf.int64, [None])
accuracy, acc_op = tf.metrics.accuracy(labels=labels, predictions=predictions)
precision, prec_op = tf.metrics.precision(labels=labels, predictions=predictions)
recall, rec_op = tf.metrics.recall(labels=labels, predictions=predictions)
mean_label, mean_op = tf.metrics.mean(tf.cast(labels, tf.float32))
update_ops = tf.group(acc_op, prec_op, rec_op, mean_op)

with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    for i in range(0, 1000, 100):
        sess.run(update_ops, {labels: labels_np[i:i + 100], predictions: predictions_np[i:i + 100]})
    print("accuracy %.6f precision %.6f recall %.6f mean %.6f" % tuple(
        sess.run([accuracy, precision, recall, mean_label])))
