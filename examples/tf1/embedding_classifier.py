"""A bag-of-words classifier over an embedding table (embedding_lookup, in_top_k)."""
import numpy as np
import distflow as tf

VOCAB, DIM, LENGTH, CLASSES = 50, 8, 6, 5
rng = np.random.RandomState(12)
# Each class favours its own ten words.
labels_np = rng.randint(0, CLASSES, 800)
words_np = np.where(rng.rand(800, LENGTH) < 0.7, labels_np[:, None] * 10 + rng.randint(0, 10, (800, LENGTH)),
                    rng.randint(0, VOCAB, (800, LENGTH))).astype(np.int32)

words = tf.placeholder(tf.int32, [None, LENGTH])
labels = tf.placeholder(tf.int32, [None])
embeddings = tf.Variable(tf.random_uniform([VOCAB, DIM], -1.0, 1.0, seed=1), name="embeddings")
embedded = tf.nn.embedding_lookup(embeddings, words)
bag = tf.reduce_mean(embedded, axis=1)
logits = tf.layers.dense(bag, CLASSES)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
train_op = tf.train.AdagradOptimizer(0.5).minimize(loss)
top1 = tf.reduce_mean(tf.cast(tf.nn.in_top_k(logits, labels, 1), tf.float32))
top2 = tf.reduce_mean(tf.cast(tf.nn.in_top_k(logits, labels, 2), tf.float32))
values, indices = tf.nn.top_k(logits, k=2)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(300):
        i = (step % 6) * 100
        sess.run(train_op, {words: words_np[i:i + 100], labels: labels_np[i:i + 100]})
    acc1, acc2, top = sess.run([top1, top2, indices], {words: words_np[600:], labels: labels_np[600:]})
    print("held-out top-1 %.3f top-2 %.3f" % (acc1, acc2))
    print("top-2 classes of the first example:", top[0].tolist(), "label", labels_np[600])
