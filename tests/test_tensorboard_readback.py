"""TensorBoard itself reads what distflow writes: the real ``tensorboard`` package (a test
extra) loads the event files of a short training run and finds the graph, the scalars, the
histograms and the images."""

import numpy as np
import pytest

import distflow as tf

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator",
                                        reason="the tensorboard package comes with the 'test' extra")


def test_tensorboard_reads_graph_scalars_histograms_and_images(tmp_path):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[0.5], [-0.5]], name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0), name="loss")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("weights", w)
    tf.summary.image("picture", tf.reshape(tf.range(16, dtype=tf.float32) / 16.0, [1, 4, 4, 1]))
    merged = tf.summary.merge_all()
    writer = tf.summary.FileWriter(str(tmp_path), tf.get_default_graph())
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            _, summary, value, at = sess.run([train, merged, loss, step], {x: np.ones((3, 2))})
            writer.add_summary(summary, at)
            losses.append(value)
    writer.close()

    events = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"scalars": 0, "images": 0})
    events.Reload()
    tags = events.Tags()
    # (the op named "loss" takes the name: the summary's scope and tag are "loss_1", as in TensorFlow;
    # an image summary of up to three images tags each "picture/image/<i>")
    assert tags["graph"] and {"loss_1"} <= set(tags["scalars"]) and "weights" in tags["histograms"]
    assert "picture/image/0" in tags["images"]
    scalars = events.Scalars("loss_1")
    assert [s.step for s in scalars] == [1, 2, 3, 4, 5]
    np.testing.assert_allclose([s.value for s in scalars], losses, rtol=1e-6)
    graph = events.Graph()
    assert {"x", "w", "loss"} <= {node.name for node in graph.node}
    assert events.Images("picture/image/0")[0].width == 4
    assert events.Histograms("weights")[0].histogram_value.num == 2


def test_the_graph_tensorboard_reads_shows_where_a_session_placed_each_op(tmp_path):
    with tf.Graph().as_default() as g:
        a = tf.constant(2.0, name="a")
        with tf.device("/cpu:1"):
            b = tf.multiply(a, 3.0, name="b")
        c = tf.add(b, 1.0, name="c")
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            sess.run(c)
        writer = tf.summary.FileWriter(str(tmp_path))
        writer.add_graph(g)
        writer.close()
    events = event_accumulator.EventAccumulator(str(tmp_path))
    events.Reload()
    devices = {node.name: node.device for node in events.Graph().node}
    assert devices["b"] == "/job:localhost/replica:0/task:0/device:CPU:1"
    assert devices["a"] == devices["c"] == "/job:localhost/replica:0/task:0/device:CPU:0"
