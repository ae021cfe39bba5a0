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

``resource/serving``: a SavedModel as an Estimator's serving input receiver makes one: it
parses serialized tf.Examples (ParseExampleV2), and a Keras model (resource variables) and an
embedding of a sparse feature (SparseSegmentSum) give its ``probs``. ``resource/serving.npz``
holds the examples (``records``, their bytes one after another, ``ends`` where each ends) and
TensorFlow's ``probs`` for them.
"""

import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # (tf.keras as TF 1.x had it)
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
with tf.Graph().as_default() as g:
    serialized = tf.placeholder(tf.string, [None], name="examples")
    features = tf.io.parse_example(serialized, {
        "x": tf.io.FixedLenFeature([3], tf.float32), "ids": tf.io.VarLenFeature(tf.int64),
        "w": tf.io.FixedLenFeature([], tf.float32, default_value=1.0)})
    init = tf.random_uniform_initializer(-1, 1, seed=1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,), kernel_initializer=init),
                                 tf.keras.layers.Dense(2, activation="softmax", kernel_initializer=init)])
    emb = tf.get_variable("emb", [5, 2], use_resource=True, initializer=init)
    pooled = tf.nn.embedding_lookup_sparse(emb, features["ids"], None, combiner="sum")
    probs = tf.identity(model(features["x"]) * features["w"][:, None] + pooled, name="probs")
    records = []
    for i in range(3):
        example = tf.train.Example()
        example.features.feature["x"].float_list.value.extend([i, 0.5 * i, -1.0])
        example.features.feature["ids"].int64_list.value.extend([i, (i + 2) % 5][:i + 1])
        if i != 1:
            example.features.feature["w"].float_list.value.append(2.0 + i)
        records.append(example.SerializeToString())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        served = sess.run(probs, {serialized: records})
        tf.saved_model.simple_save(sess, os.path.join(out, "serving"), {"examples": serialized}, {"probs": probs})
    print("serving op types:", " ".join(sorted({n.op for n in g.as_graph_def().node})))
    np.savez(os.path.join(out, "serving.npz"), records=np.frombuffer(b"".join(records), np.uint8),
             ends=np.cumsum([len(r) for r in records]), probs=served)
