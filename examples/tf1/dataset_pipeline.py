"""A tf.data input pipeline feeding a linear model until the data run out."""
import numpy as np
import distflow as tf

rng = np.random.RandomState(1)
true_w = np.array([[2.0], [-3.0], [0.5]], np.float32)
features = rng.randn(512, 3).astype(np.float32)
targets = (features @ true_w + 1.0).astype(np.float32)

dataset = tf.data.Dataset.from_tensor_slices((features, targets))
dataset = dataset.map(lambda x, y: (x, y + 0.0))
dataset = dataset.shuffle(buffer_size=128, seed=3).batch(32).repeat(20)
iterator = dataset.make_one_shot_iterator()
next_x, next_y = iterator.get_next()

w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
prediction = tf.matmul(next_x, w) + b
loss = tf.losses.mean_squared_error(labels=next_y, predictions=prediction)
global_step = tf.train.get_or_create_global_step()
train_op = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=global_step)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    while True:
        try:
            _, step, loss_value = sess.run([train_op, global_step, loss])
        except tf.errors.OutOfRangeError:
            break
    print("steps", step, "loss %.6f" % loss_value)
    print("w", " ".join("%.4f" % v for v in sess.run(w).reshape(-1)), "b %.4f" % sess.run(b))
