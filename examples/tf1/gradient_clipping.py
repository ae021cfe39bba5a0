"""compute_gradients, clip_by_global_norm, apply_gradients with momentum and a decaying rate."""
import numpy as np
import distflow as tf

rng = np.random.RandomState(9)
x_data = rng.randn(40, 4).astype(np.float32)
y_data = (x_data @ np.array([[3.0], [-1.0], [2.0], [0.5]], np.float32) * 4).astype(np.float32)

x = tf.placeholder(tf.float32, [None, 4])
y = tf.placeholder(tf.float32, [None, 1])
w = tf.Variable(tf.zeros([4, 1]), name="w")
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
global_step = tf.train.get_or_create_global_step()
learning_rate = tf.train.exponential_decay(0.05, global_step, decay_steps=10, decay_rate=0.9, staircase=True)
optimizer = tf.train.MomentumOptimizer(learning_rate, momentum=0.9)
grads_and_vars = optimizer.compute_gradients(loss)
grads, variables = zip(*grads_and_vars)
clipped, global_norm = tf.clip_by_global_norm(grads, clip_norm=5.0)
train_op = optimizer.apply_gradients(zip(clipped, variables), global_step=global_step)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(50):
        _, norm = sess.run([train_op, global_norm], {x: x_data, y: y_data})
    print("step", sess.run(global_step), "last norm %.6f" % norm, "lr %.6f" % sess.run(learning_rate))
    print("w", " ".join("%.6f" % v for v in sess.run(w).reshape(-1)))
