"""Softmax (multinomial logistic) regression, trained with full-batch gradient descent."""
import numpy as np
import distflow as tf

rng = np.random.RandomState(42)
centers = rng.randn(3, 5) * 2
labels = rng.randint(0, 3, size=300)
features = (centers[labels] + rng.randn(300, 5)).astype(np.float32)
onehot = np.eye(3, dtype=np.float32)[labels]

x = tf.placeholder(tf.float32, [None, 5])
y = tf.placeholder(tf.float32, [None, 3])
W = tf.Variable(tf.zeros([5, 3]))
b = tf.Variable(tf.zeros([3]))
pred = tf.nn.softmax(tf.matmul(x, W) + b)
cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred), reduction_indices=1))
optimizer = tf.train.GradientDescentOptimizer(0.5).minimize(cost)
correct = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(100):
        _, c = sess.run([optimizer, cost], feed_dict={x: features, y: onehot})
    print("final cost %.6f" % c)
    print("accuracy %.4f" % accuracy.eval({x: features, y: onehot}))
    print("W", " ".join("%.6f" % v for v in sess.run(W).reshape(-1)))
