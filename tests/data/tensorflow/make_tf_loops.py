"""How ``loops.pb`` and ``loops.npz`` were made: with TensorFlow 2.21's ``tf.compat.v1`` and
TF 1.x's dataflow control flow (Enter, Merge, Switch, LoopCond, NextIteration, Exit), in a
virtual environment of its own (TensorFlow is never a dependency of distflow's tests).

    python make_tf_loops.py <folder>

``loops.pb`` is one frozen graph holding: a counting loop; nested loops; a loop whose body
holds a tf.cond; a cond whose branch holds a loop; a loop with ``maximum_iterations``;
``tf.map_fn`` and ``tf.scan`` (TensorArrays scattered, read, written and gathered in a loop);
and an LSTM run by ``tf.nn.dynamic_rnn`` with sequence lengths (its weights frozen to
constants). ``loops.npz`` holds the feeds and TensorFlow's outputs for them.

``loops_train/model.ckpt`` with its ``.meta`` is a TF 1.x training graph whose loss goes
through loops: an LSTM by ``tf.nn.dynamic_rnn`` over an embedding, a cross-entropy of its
outputs, and a tf.while_loop of a variable; TF 1.x's gradients of them (its gradient loops,
the stacks that hand them the forward values, TensorArray gradients) and a gradient-descent
step. ``loops_train/steps.npz`` holds the feeds and TensorFlow's losses over three steps and
its variables after them. ``loop_assign.meta``: a loop whose body adds to a variable (a
RefEnter of it) and reads it; for ``n`` = 3 TensorFlow gives 15.0, and the variable 7.0.
"""

import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_USE_LEGACY_KERAS"] = "1"  # (tf.nn.rnn_cell as TF 1.x had it)
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
tf.disable_control_flow_v2()  # (TF 1.x's dataflow loops)
out = sys.argv[1]
g = tf.Graph()
with g.as_default():
    n = tf.placeholder(tf.int32, [], name="n")
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    seq = tf.placeholder(tf.float32, [2, None, 3], name="seq")
    lengths = tf.placeholder(tf.int32, [2], name="lengths")
    count = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [0, 0], name="count")[1]

    def outer_body(i, acc):
        inner = tf.while_loop(lambda j, a: j < i, lambda j, a: (j + 1, a + tf.cast(i * j, tf.float32)),
                              [0, acc], name="inner")[1]
        return i + 1, inner
    nested = tf.while_loop(lambda i, acc: i < n, outer_body, [0, 0.0], name="nested")[1]

    def switching_body(i, s):
        return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: s + x, lambda: s * 2.0, name="pick")
    switching = tf.while_loop(lambda i, s: i < n, switching_body, [0, tf.zeros_like(x)], name="switching")[1]
    looped_in_cond = tf.cond(p, lambda: tf.while_loop(lambda s: tf.reduce_sum(s) < 100.0, lambda s: s * 3.0 + 1.0,
                                                      [x], name="grow"),
                             lambda: x - 1.0, name="maybe")
    x64 = tf.placeholder(tf.float64, [3], name="x64")
    power = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * x64 + tf.sin(s)), [0, x64], name="power")[1]
    capped = tf.while_loop(lambda i: i < 1000, lambda i: i + 3, [n], maximum_iterations=4, name="capped")
    mapped = tf.map_fn(lambda r: tf.reduce_sum(r * r) + r[0], x, name="mapped")
    scanned = tf.scan(lambda a, r: a * 0.5 + r, x, name="scanned")
    cell = tf.nn.rnn_cell.LSTMCell(4, initializer=tf.random_uniform_initializer(-0.5, 0.5, seed=3))
    rnn_out, rnn_state = tf.nn.dynamic_rnn(cell, seq, sequence_length=lengths, dtype=tf.float32, scope="rnn")
    outputs = {"count": tf.identity(count, name="count_out"), "nested": tf.identity(nested, name="nested_out"),
               "switching": tf.identity(switching, name="switching_out"),
               "looped_in_cond": tf.identity(looped_in_cond, name="looped_in_cond_out"),
               "capped": tf.identity(capped, name="capped_out"),
               "power": tf.identity(power, name="power_out"), "mapped": tf.identity(mapped, name="mapped_out"),
               "scanned": tf.identity(scanned, name="scanned_out"), "rnn": tf.identity(rnn_out, name="rnn_out"),
               "rnn_c": tf.identity(rnn_state.c, name="rnn_c"), "rnn_h": tf.identity(rnn_state.h, name="rnn_h")}
    rng = np.random.RandomState(0)
    feeds = {"n": np.int32(5), "x": rng.uniform(-1, 1, (4, 3)).astype(np.float32),
             "seq": rng.uniform(-1, 1, (2, 6, 3)).astype(np.float32), "lengths": np.array([6, 3], np.int32),
             "x64": np.array([0.5, -1.25, 0.75])}
    results = {}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for pv in (True, False):
            got = sess.run(outputs, {n: feeds["n"], x: feeds["x"], seq: feeds["seq"], lengths: feeds["lengths"],
                                     x64: feeds["x64"], p: pv})
            for key, value in got.items():
                if key == "looped_in_cond" or pv:
                    results[f"{key}_{pv}" if key == "looped_in_cond" else key] = value
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, g.as_graph_def(), [t.op.name for t in outputs.values()])
    with open(os.path.join(out, "loops.pb"), "wb") as f:
        f.write(frozen.SerializeToString())
    np.savez(os.path.join(out, "loops.npz"), **{f"feed_{k}": v for k, v in feeds.items()},
             **{f"out_{k}": v for k, v in results.items()})
    print({k: v.tolist() for k, v in results.items()})

os.makedirs(os.path.join(out, "loops_train"), exist_ok=True)
with tf.Graph().as_default() as g:
    ids = tf.placeholder(tf.int32, [2, 5], name="ids")
    labels = tf.placeholder(tf.int32, [2, 5], name="labels")
    lengths = tf.placeholder(tf.int32, [2], name="lengths")
    xw = tf.placeholder(tf.float32, [3], name="xw")
    init = tf.random_uniform_initializer(-0.5, 0.5, seed=3)
    embedding = tf.get_variable("embedding", [7, 3], initializer=init)
    w = tf.get_variable("w", initializer=np.array([0.5, -0.25, 0.75], np.float32))
    power = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * w + tf.sin(s)), [0, xw], name="power")[1]
    cell = tf.nn.rnn_cell.LSTMCell(4, initializer=init)
    seq = tf.nn.embedding_lookup(embedding, ids)
    outs, state = tf.nn.dynamic_rnn(cell, seq, sequence_length=lengths, dtype=tf.float32, scope="rnn")
    logits = tf.layers.dense(outs, 7, kernel_initializer=init, name="logits")
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    loss = tf.identity(tf.reduce_mean(xent) + 0.1 * tf.reduce_sum(power), name="loss")
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss, name="train")
    saver = tf.train.Saver(save_relative_paths=True)
    rng = np.random.RandomState(1)
    feeds = {"ids": rng.randint(0, 7, (2, 5)).astype(np.int32), "labels": rng.randint(0, 7, (2, 5)).astype(np.int32),
             "lengths": np.array([5, 3], np.int32), "xw": np.array([0.1, 0.2, 0.3], np.float32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, os.path.join(out, "loops_train", "model.ckpt"))
        feed = {g.get_tensor_by_name(f"{k}:0"): v for k, v in feeds.items()}
        losses = [sess.run([loss, step], feed)[0] for _ in range(3)]
        after = {v.op.name: sess.run(v) for v in tf.global_variables()}
    print("train losses", losses)
    np.savez(os.path.join(out, "loops_train", "steps.npz"), **{f"feed_{k}": v for k, v in feeds.items()},
             losses=np.array(losses), **{f"after_{k}": v for k, v in after.items()})
with tf.Graph().as_default():
    v = tf.get_variable("v", initializer=1.0, use_resource=False)
    n = tf.placeholder(tf.int32, [], name="n")

    def adding_body(i, s):
        with tf.control_dependencies([tf.assign_add(v, 2.0)]):
            return i + 1, s + v.read_value()
    tf.identity(tf.while_loop(lambda i, s: i < n, adding_body, [0, 0.0], parallel_iterations=1, name="acc")[1],
                name="out")  # (one iteration at a time: with more, TF races the reads and the adds)
    tf.train.export_meta_graph(os.path.join(out, "loop_assign.meta"))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print("loop_assign", sess.run("out:0", {n: 3}), sess.run(v))
