"""Training and validation datasets behind one feedable iterator (tf.data string handles)."""
import numpy as np
import distflow as tf

rng = np.random.RandomState(7)
x_all = rng.randn(600, 2).astype(np.float32)
y_all = (x_all[:, 0] + x_all[:, 1] > 0).astype(np.int64)

training = tf.data.Dataset.from_tensor_slices((x_all[:500], y_all[:500])).shuffle(500, seed=1).repeat().batch(50)
validation = tf.data.Dataset.from_tensor_slices((x_all[500:], y_all[500:])).batch(100)

handle = tf.placeholder(tf.string, shape=[])
iterator = tf.data.Iterator.from_string_handle(handle, training.output_types, training.output_shapes)
features, labels = iterator.get_next()

logits = tf.layers.dense(features, 2, name="classifier")
loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))

training_iterator = training.make_one_shot_iterator()
validation_iterator = validation.make_initializable_iterator()

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    training_handle = sess.run(training_iterator.string_handle())
    validation_handle = sess.run(validation_iterator.string_handle())
    for epoch in range(3):
        for _ in range(100):
            sess.run(train_op, feed_dict={handle: training_handle})
        sess.run(validation_iterator.initializer)
        print("epoch %d validation accuracy %.3f" % (epoch, sess.run(accuracy, feed_dict={handle: validation_handle})))
