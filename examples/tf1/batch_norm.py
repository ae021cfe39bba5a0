"""tf.layers.batch_normalization with a training placeholder and UPDATE_OPS."""
import numpy as np
import distflow as tf

tf.set_random_seed(2)  # (the initial weights too: how far the moving mean lags depends on them)
rng = np.random.RandomState(2)
x_data = (rng.randn(256, 8) * 3 + 5).astype(np.float32)
y_data = (x_data[:, :1] > 5).astype(np.float32)

x = tf.placeholder(tf.float32, [None, 8])
y = tf.placeholder(tf.float32, [None, 1])
is_training = tf.placeholder(tf.bool, [])
h = tf.layers.dense(x, 16)
h = tf.layers.batch_normalization(h, training=is_training, momentum=0.9)
h = tf.nn.relu(h)
logits = tf.layers.dense(h, 1)
loss = tf.losses.sigmoid_cross_entropy(multi_class_labels=y, logits=logits)
update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(logits > 0, tf.float32), y), tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(300):
        i = (step % 8) * 32
        sess.run(train_op, {x: x_data[i:i + 32], y: y_data[i:i + 32], is_training: True})
    moving_mean = sess.run(tf.get_default_graph().get_tensor_by_name("batch_normalization/moving_mean:0"))
    batch_mean = sess.run(tf.get_default_graph().get_tensor_by_name("dense/BiasAdd:0"), {x: x_data}).mean(0)
    print("moving mean tracks the batch mean:", np.allclose(moving_mean, batch_mean, atol=0.5))
    print("inference accuracy %.3f" % sess.run(accuracy, {x: x_data, y: y_data, is_training: False}))
