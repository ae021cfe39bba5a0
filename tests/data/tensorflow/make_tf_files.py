"""How the files in this folder were made: with TensorFlow 2.21's ``tf.compat.v1`` (in a
virtual environment of its own; TensorFlow is never a dependency of distflow's tests).

    python make_tf_files.py <folder>

writes
- ``model.ckpt-2``: a dense layer trained two Adam steps, and variables of other dtypes
  (float64, bool, string, int8, float16, a scalar);
- ``sharded/model.ckpt``: two variables on two devices, so two data files;
- ``saved_model/``: a softmax layer saved by ``tf.saved_model.simple_save``;
- ``meta/model.ckpt-1`` with its ``.meta``: a small classifier after one Adam step, whose
  graph (training ops and Saver included) a program imports and trains on;
- ``meta_sharded/model.ckpt`` with its ``.meta``: a sharded Saver's graph over two devices;
- ``conds.pb``: a frozen graph of TF 1.x conds (Switch and Merge): a simple one, one of two
  outputs, a nested one, and the conds of a batch normalization and a dropout switched by a
  ``training`` placeholder; ``loop.pb``: a frozen tf.while_loop (Enter, Exit, ...);
- ``v1/model.ckpt``: a checkpoint in TF 1.x's first format (``SaverDef.V1``, one table
  file), with a partitioned variable saved in slices;
- ``sliced/model.ckpt``: a V2 checkpoint of a partitioned variable (saved in slices) and a
  whole one;
- ``keras/weights``: a Keras model's ``save_weights`` in TF's format (an object-based
  checkpoint: keys are object paths) after one epoch of Adam;
- ``keras_frozen.pb``: a Keras model with batch normalization and dropout, frozen: its conds
  switch on Keras's learning phase.
"""

import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # (tf.layers as TF 1.x had them)
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
tf.disable_control_flow_v2()  # (TF 1.x's Switch and Merge)
out = sys.argv[1]
for folder in ("sharded", "meta", "meta_sharded", "v1", "sliced", "keras"):
    os.makedirs(os.path.join(out, folder), exist_ok=True)
with tf.Graph().as_default():
    w = tf.get_variable("dense/kernel", initializer=np.arange(6, dtype=np.float32).reshape(2, 3) / 4)
    b = tf.get_variable("dense/bias", initializer=np.array([0.5, -1.5, 2.25], np.float32))
    tf.get_variable("double", initializer=np.array([[1e-300, -2.5]], np.float64))
    step = tf.train.get_or_create_global_step()
    tf.get_variable("flags", initializer=np.array([True, False, True]))
    tf.Variable([b"alpha", b"", b"a longer word \x00\xff"], name="words")
    tf.get_variable("small", initializer=np.array([-3, 7], np.int8))
    tf.get_variable("half", initializer=np.array([1.5, -0.25], np.float16))
    tf.get_variable("scalar", initializer=np.float32(3.0))
    tf.get_variable("big", initializer=(np.arange(1000, dtype=np.float32) % 97) / 7)
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.ones([1, 2]), w) + b))
    train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step, var_list=[w, b])
    saver = tf.train.Saver(save_relative_paths=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        sess.run(train)
        saver.save(sess, os.path.join(out, "model.ckpt"), global_step=step, write_meta_graph=False)
with tf.Graph().as_default():
    with tf.device("/cpu:0"):
        tf.get_variable("a", initializer=np.array([1.0, 2.0], np.float32))
    with tf.device("/cpu:1"):
        tf.get_variable("c", initializer=np.array([[3, 4]], np.int64))
    saver = tf.train.Saver(sharded=True)
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, os.path.join(out, "sharded", "model.ckpt"), write_meta_graph=False)
with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(3, 2))
    b = tf.get_variable("b", initializer=np.array([0.5, -1.0], np.float32))
    y = tf.nn.softmax(tf.matmul(x, w) + b, name="y")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, os.path.join(out, "saved_model"), {"x": x}, {"y": y})
        print("saved_model y:", sess.run(y, {x: [[1, 2, 3]]}).tolist())
with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    w = tf.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(3, 2) / 10)
    b = tf.get_variable("b", initializer=np.array([0.5, -1.0], np.float32))
    logits = tf.nn.relu(tf.matmul(x, w) + b, name="logits")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step, name="train")
    tf.add_to_collection("train_op", train)
    saver = tf.train.Saver(save_relative_paths=True)
    feed = {x: [[1, 2, 3], [0.5, -1, 2]], y: [1, 0]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, feed)
        saver.save(sess, os.path.join(out, "meta", "model.ckpt"), global_step=step)
        sess.run(train, feed)
        print("meta, after a second step: loss, w", sess.run([loss, w], feed))
with tf.Graph().as_default():
    with tf.device("/cpu:0"):
        a = tf.get_variable("a", initializer=np.array([1.0, 2.0], np.float32))
    with tf.device("/cpu:1"):
        c = tf.get_variable("c", initializer=np.array([[3, 4]], np.int64))
    tf.group(tf.assign_add(a, [1.0, 1.0]), tf.assign_add(c, [[1, 1]]), name="inc")
    saver = tf.train.Saver(sharded=True, save_relative_paths=True)
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, os.path.join(out, "meta_sharded", "model.ckpt"))
g = tf.Graph()
with g.as_default():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    q = tf.placeholder(tf.bool, [], name="q")
    c = tf.constant(3.0, name="c")
    y = tf.cond(p, lambda: x * 2.0 + c, lambda: x - 1.0, name="simple")
    y2, y3 = tf.cond(p, lambda: (tf.reduce_sum(x), x * x), lambda: (tf.constant(7.0), x), name="pair")
    z = tf.cond(p, lambda: tf.cond(q, lambda: x * 10.0, lambda: x + 5.0), lambda: x - 1.0, name="nested")
    training = tf.placeholder_with_default(False, [], name="training")
    h = tf.layers.batch_normalization(x, training=training, name="bn")
    d = tf.layers.dropout(h, rate=0.5, training=training, name="drop")
    out_t = tf.identity(y + z + y3 + y2 + d, name="out")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for pv in (True, False):
            for qv in (True, False):
                print("conds", pv, qv, sess.run(out_t, {x: [[1, 2, 3], [4, 5, -6]], p: pv, q: qv}).tolist())
        frozen = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["out"])
    with open(os.path.join(out, "conds.pb"), "wb") as f:
        f.write(frozen.SerializeToString())
g = tf.Graph()
with g.as_default():
    n = tf.placeholder(tf.int32, [], name="n")
    total = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [0, 0], name="loop")[1]
    tf.identity(total, name="total")
    with open(os.path.join(out, "loop.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
with tf.Graph().as_default():
    from tensorflow.core.protobuf import saver_pb2
    tf.get_variable("w", initializer=np.arange(6, dtype=np.float32).reshape(2, 3) / 4)
    tf.get_variable("neg", initializer=np.array([-3, 7, -2147483648], np.int32))
    tf.get_variable("double", initializer=np.array([1e-300, -2.5]))
    tf.get_variable("flags", initializer=np.array([True, False]))
    tf.get_variable("half", initializer=np.array([1.5, -0.25], np.float16))
    tf.get_variable("step", initializer=np.int64(-5))
    tf.Variable([b"ab", b""], name="words")
    emb = tf.get_variable("emb", [6, 2], initializer=tf.zeros_initializer(), partitioner=tf.fixed_size_partitioner(2))
    saver = tf.train.Saver(write_version=saver_pb2.SaverDef.V1, save_relative_paths=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        rows = np.arange(12, dtype=np.float32).reshape(6, 2)
        sess.run([emb_part.assign(rows[3 * i:3 * i + 3]) for i, emb_part in enumerate(emb)])
        saver.save(sess, os.path.join(out, "v1", "model.ckpt"), write_meta_graph=False)
with tf.Graph().as_default():
    emb = tf.get_variable("emb", [5, 2], initializer=tf.zeros_initializer(), partitioner=tf.fixed_size_partitioner(2))
    tf.get_variable("whole", initializer=np.array([1.5, 2.5], np.float32))
    saver = tf.train.Saver(save_relative_paths=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        rows = np.arange(10, dtype=np.float32).reshape(5, 2)
        sess.run([emb_part.assign(rows[start:start + 3 - i]) for i, (emb_part, start) in enumerate(zip(emb, [0, 3]))])
        saver.save(sess, os.path.join(out, "sliced", "model.ckpt"), write_meta_graph=False)
with tf.Graph().as_default():
    init = tf.keras.initializers.RandomUniform(-0.5, 0.5, seed=1)
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,), kernel_initializer=init),
                                 tf.keras.layers.BatchNormalization(), tf.keras.layers.Dense(2, kernel_initializer=init)])
    model.compile("adam", "mse")
    xs = np.arange(24, dtype=np.float32).reshape(8, 3) / 10
    model.fit(xs, np.ones((8, 2), np.float32), epochs=1, batch_size=4, verbose=0)
    model.save_weights(os.path.join(out, "keras", "weights"))
    print("keras predictions:", model.predict(xs[:2]).tolist())
with tf.Graph().as_default():
    K = tf.keras.backend
    init = tf.keras.initializers.RandomUniform(-0.5, 0.5, seed=1)
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(8, activation="relu", input_shape=(4,), kernel_initializer=init),
        tf.keras.layers.BatchNormalization(), tf.keras.layers.Dropout(0.5),
        tf.keras.layers.Dense(3, activation="softmax", kernel_initializer=init)])
    model.compile("adam", "sparse_categorical_crossentropy")
    xs = np.arange(40, dtype=np.float32).reshape(10, 4) / 10
    model.fit(xs, np.arange(10) % 3, epochs=2, verbose=0)
    sess = K.get_session()
    frozen = tf.graph_util.convert_variables_to_constants(sess, sess.graph.as_graph_def(), [model.output.op.name])
    with open(os.path.join(out, "keras_frozen.pb"), "wb") as f:
        f.write(frozen.SerializeToString())
    print("keras frozen:", model.input.name, K.learning_phase().name, model.output.name,
          sess.run(model.output, {model.input: xs[:2], K.learning_phase(): 0}).tolist())
