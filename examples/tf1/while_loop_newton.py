"""Newton's method for square roots in the graph: tf.while_loop, tf.cond and a TensorArray.

Each element of x iterates y <- (y + x / y) / 2 until every element has converged
(or 50 iterations); the iterates go into a TensorArray, and tf.gradients differentiates
through the loop (d sqrt(x) / dx = 1 / (2 sqrt(x))).
"""
import numpy as np

import distflow as tf

x = tf.placeholder(tf.float64, [None], name="x")
y0 = tf.cond(tf.reduce_min(x) > 1.0, lambda: x / 2.0, lambda: tf.ones_like(x))
history = tf.TensorArray(tf.float64, size=0, dynamic_size=True)


def not_converged(i, y, history):
    return tf.reduce_max(tf.abs(y * y - x)) > 1e-12


def newton_step(i, y, history):
    y_next = (y + x / y) / 2.0
    return i + 1, y_next, history.write(i, y_next)


steps, root, history = tf.while_loop(not_converged, newton_step, [tf.constant(0), y0, history],
                                     maximum_iterations=50)
iterates = history.stack()
slope = tf.gradients(tf.reduce_sum(root), x)[0]

with tf.Session() as sess:
    values = np.array([2.0, 9.0, 0.25, 1e4])
    n, r, its, g = sess.run([steps, root, iterates, slope], {x: values})
    print("iterations:", n)
    print("roots:", " ".join("%.12f" % v for v in r))
    print("iterates shape:", its.shape)
    print("gradient:", " ".join("%.12f" % v for v in g))
