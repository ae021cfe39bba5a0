"""Python code inside the graph: tf.py_func for preprocessing, tf.Print for debugging."""
import numpy as np
import distflow as tf


def normalize(batch):
    batch = batch.astype(np.float32)
    return (batch - batch.mean(axis=0)) / (batch.std(axis=0) + 1e-6)


raw = tf.placeholder(tf.float64, [None, 3])
normalized = tf.py_func(normalize, [raw], tf.float32)
normalized.set_shape([None, 3])
normalized = tf.Print(normalized, [tf.shape(normalized), tf.reduce_mean(normalized)], "normalized batch: ",
                      first_n=2)
w = tf.Variable(tf.ones([3, 1]))
out, total = tf.identity_n([tf.matmul(normalized, w), tf.reduce_sum(normalized)])

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    data = np.arange(12, dtype=np.float64).reshape(4, 3)
    for _ in range(3):
        result, s = sess.run([out, total], {raw: data})
    print("output", np.round(result.reshape(-1), 4).tolist(), "sum %.4f" % s)
