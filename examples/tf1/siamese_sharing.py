"""Two towers that share their variables through variable_scope reuse, trained with a contrastive loss."""
import numpy as np
import distflow as tf

rng = np.random.RandomState(6)
left_np = rng.randn(300, 4).astype(np.float32)
same_np = (rng.rand(300) < 0.5)
right_np = np.where(same_np[:, None], left_np + 0.1 * rng.randn(300, 4), rng.randn(300, 4)).astype(np.float32)


def tower(x):
    with tf.variable_scope("layer1"):
        w = tf.get_variable("w", [4, 8], initializer=tf.random_normal_initializer(stddev=0.5, seed=1))
        b = tf.get_variable("b", [8], initializer=tf.constant_initializer(0.0))
        h = tf.nn.tanh(tf.matmul(x, w) + b)
    with tf.variable_scope("layer2"):
        w = tf.get_variable("w", [8, 2], initializer=tf.random_normal_initializer(stddev=0.5, seed=2))
        return tf.matmul(h, w)


left = tf.placeholder(tf.float32, [None, 4])
right = tf.placeholder(tf.float32, [None, 4])
same = tf.placeholder(tf.float32, [None])
with tf.variable_scope("siamese") as scope:
    out_left = tower(left)
    scope.reuse_variables()
    out_right = tower(right)
distance = tf.sqrt(tf.reduce_sum(tf.square(out_left - out_right), 1) + 1e-6)
margin = 1.0
loss = tf.reduce_mean(same * tf.square(distance) + (1 - same) * tf.square(tf.maximum(margin - distance, 0)))
train_op = tf.train.AdamOptimizer(0.01).minimize(loss)

print("shared variables:", [v.op.name for v in tf.trainable_variables()])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(400):
        sess.run(train_op, {left: left_np, right: right_np, same: same_np.astype(np.float32)})
    d = sess.run(distance, {left: left_np, right: right_np})
    print("mean distance same %.3f different %.3f" % (d[same_np].mean(), d[~same_np].mean()))
