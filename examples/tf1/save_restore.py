"""Save a trained model, then restore it in a fresh graph from its .meta file and by name."""
import os
import sys
import tempfile

import numpy as np
import distflow as tf

model_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
rng = np.random.RandomState(0)
data = rng.randn(64, 3).astype(np.float32)
target = data @ np.array([[1.0], [2.0], [3.0]], np.float32)

# 1. Train and save.
x = tf.placeholder(tf.float32, [None, 3], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")
W = tf.Variable(tf.zeros([3, 1]), name="W")
b = tf.Variable(tf.zeros([1]), name="b")
pred = tf.add(tf.matmul(x, W), b, name="pred")
loss = tf.reduce_mean(tf.square(pred - y), name="loss")
global_step = tf.Variable(0, name="global_step", trainable=False)
train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
tf.add_to_collection("train_op", train_op)
saver = tf.train.Saver(max_to_keep=2)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(100):
        sess.run(train_op, {x: data, y: target})
        if (i + 1) % 50 == 0:
            path = saver.save(sess, os.path.join(model_dir, "model.ckpt"), global_step=global_step)
    trained = sess.run(pred, {x: data[:4]})
print("saved", os.path.basename(path), sorted(f for f in os.listdir(model_dir) if f.endswith(".meta")))

# 2. A fresh graph from the .meta file, values from the latest checkpoint.
tf.reset_default_graph()
with tf.Session() as sess:
    new_saver = tf.train.import_meta_graph(tf.train.latest_checkpoint(model_dir) + ".meta")
    new_saver.restore(sess, tf.train.latest_checkpoint(model_dir))
    graph = tf.get_default_graph()
    restored = sess.run(graph.get_tensor_by_name("pred:0"), {"x:0": data[:4]})
    print("meta graph restore matches:", np.allclose(restored, trained))
    sess.run(tf.get_collection("train_op")[0], {"x:0": data, "y:0": target})
    print("global step after one more step:", sess.run("global_step:0"))

# 3. The same model built again in code: restore by variable names.
tf.reset_default_graph()
W2 = tf.Variable(tf.zeros([3, 1]), name="W")
b2 = tf.Variable(tf.zeros([1]), name="b")
x2 = tf.placeholder(tf.float32, [None, 3])
with tf.Session() as sess:
    tf.train.Saver({"W": W2, "b": b2}).restore(sess, tf.train.latest_checkpoint(model_dir))
    print("rebuilt graph restore matches:", np.allclose(sess.run(tf.matmul(x2, W2) + b2, {x2: data[:4]}), trained))
reader = tf.train.NewCheckpointReader(tf.train.latest_checkpoint(model_dir))
print("checkpoint holds", sorted(reader.get_variable_to_shape_map()))
