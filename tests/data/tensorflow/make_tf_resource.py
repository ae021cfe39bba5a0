"""How ``resource/`` was made: with TensorFlow 2.21's ``tf.compat.v1`` (graph mode, TF 1.x's
behaviour, but resource variables: ``use_resource=True``, as ``tf.keras`` makes them), in a
virtual environment of its own (TensorFlow is never a dependency of distflow's tests).

    python make_tf_resource.py <folder>

``resource/model.ckpt`` with its ``.meta``: an embedding (read with ResourceGather) and two
dense layers of resource variables; a loss whose gradients each of five optimizers applies
to its own variables (GradientDescent, Momentum, Adam, Adagrad, RMSProp: ResourceApply* and,
for the embedding's sparse gradient, ResourceScatterAdd and ResourceSparseApply*), grouped as
``train``; the checkpoint is taken after ``tf.global_variables_initializer()``.
``resource/steps.npz`` holds the feeds, TensorFlow's gradients of the loss with respect to
each model variable at the checkpoint, its losses over three steps of ``train``, and its
variables after them.
"""

import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
out = os.path.join(sys.argv[1], "resource")
os.makedirs(out, exist_ok=True)
with tf.Graph().as_default() as g:
    ids = tf.placeholder(tf.int32, [None, 3], name="ids")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    init = tf.random_uniform_initializer(-0.5, 0.5, seed=5)
    with tf.variable_scope("model", use_resource=True, initializer=init):
        emb = tf.get_variable("embedding", [10, 4])
        w1 = tf.get_variable("w1", [12, 6])
        b1 = tf.get_variable("b1", [6], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", [6, 5])
        b2 = tf.get_variable("b2", [5], initializer=tf.constant_initializer(0.1))
        scale = tf.get_variable("scale", [], initializer=tf.constant_initializer(1.5))
    h = tf.reshape(tf.nn.embedding_lookup(emb, ids), [-1, 12])
    h = tf.nn.relu(tf.matmul(h, w1) + b1)
    logits = (tf.matmul(h, w2) + b2) * scale
    loss = tf.identity(tf.losses.sparse_softmax_cross_entropy(labels, logits), name="loss")
    grads = dict(zip([emb, w1, b1, w2, b2, scale], tf.gradients(loss, [emb, w1, b1, w2, b2, scale])))
    steps = [tf.train.GradientDescentOptimizer(0.5).apply_gradients([(grads[emb], emb), (grads[scale], scale)]),
             tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([(grads[w1], w1)]),
             tf.train.AdamOptimizer(0.05).apply_gradients([(grads[b1], b1)]),
             tf.train.AdagradOptimizer(0.3).apply_gradients([(grads[w2], w2)]),
             tf.train.RMSPropOptimizer(0.05).apply_gradients([(grads[b2], b2)]),
             tf.train.AdamOptimizer(0.05, name="SparseAdam").apply_gradients([(grads[emb], emb)]),
             tf.train.MomentumOptimizer(0.1, 0.9, name="SparseMomentum").apply_gradients([(grads[emb], emb)]),
             tf.train.AdagradOptimizer(0.3, name="SparseAdagrad").apply_gradients([(grads[emb], emb)])]
    tf.group(*steps, name="train")
    saver = tf.train.Saver(save_relative_paths=True)
    rng = np.random.RandomState(2)
    feeds = {"ids": rng.randint(0, 10, (8, 3)).astype(np.int32), "labels": rng.randint(0, 5, 8).astype(np.int32)}
    print("op types:", " ".join(sorted({n.op for n in g.as_graph_def().node})))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, os.path.join(out, "model.ckpt"))
        feed = {ids: feeds["ids"], labels: feeds["labels"]}
        first_grads = {f"grad_{v.op.name}": tf.convert_to_tensor(g) for v, g in grads.items()}
        first_grads = sess.run(first_grads, feed)
        losses = [sess.run([loss, "train"], feed)[0] for _ in range(3)]
        after = {v.op.name: sess.run(v) for v in tf.global_variables()}
    print("losses", losses)
    np.savez(os.path.join(out, "steps.npz"), **{f"feed_{k}": v for k, v in feeds.items()}, losses=np.array(losses),
             **{f"after_{k}": v for k, v in after.items()}, **first_grads)
