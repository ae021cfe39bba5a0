"""A small sigmoid autoencoder trained with RMSProp (after the TF 1.x autoencoder example)."""
import numpy as np
import distflow as tf

rng = np.random.RandomState(8)
codes = rng.rand(400, 3)
data = (1 / (1 + np.exp(-(codes @ rng.randn(3, 16) * 3)))).astype(np.float32)

n_input, n_hidden_1, n_hidden_2 = 16, 8, 3
X = tf.placeholder("float", [None, n_input])
weights = {
    'encoder_h1': tf.Variable(tf.random_normal([n_input, n_hidden_1], seed=1)),
    'encoder_h2': tf.Variable(tf.random_normal([n_hidden_1, n_hidden_2], seed=2)),
    'decoder_h1': tf.Variable(tf.random_normal([n_hidden_2, n_hidden_1], seed=3)),
    'decoder_h2': tf.Variable(tf.random_normal([n_hidden_1, n_input], seed=4)),
}
biases = {
    'encoder_b1': tf.Variable(tf.random_normal([n_hidden_1], seed=5)),
    'encoder_b2': tf.Variable(tf.random_normal([n_hidden_2], seed=6)),
    'decoder_b1': tf.Variable(tf.random_normal([n_hidden_1], seed=7)),
    'decoder_b2': tf.Variable(tf.random_normal([n_input], seed=8)),
}


def encoder(x):
    layer_1 = tf.nn.sigmoid(tf.add(tf.matmul(x, weights['encoder_h1']), biases['encoder_b1']))
    return tf.nn.sigmoid(tf.add(tf.matmul(layer_1, weights['encoder_h2']), biases['encoder_b2']))


def decoder(x):
    layer_1 = tf.nn.sigmoid(tf.add(tf.matmul(x, weights['decoder_h1']), biases['decoder_b1']))
    return tf.nn.sigmoid(tf.add(tf.matmul(layer_1, weights['decoder_h2']), biases['decoder_b2']))


y_pred = decoder(encoder(X))
loss = tf.reduce_mean(tf.pow(X - y_pred, 2))
optimizer = tf.train.RMSPropOptimizer(0.01).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    first = sess.run(loss, {X: data})
    for i in range(1500):
        j = (i % 8) * 50
        _, l = sess.run([optimizer, loss], feed_dict={X: data[j:j + 50]})
    final = sess.run(loss, {X: data})
    print("reconstruction loss %.5f -> %.5f (variance of the data %.5f)" % (first, final, data.var()))
