"""Freezing a graph for inference (TF 1.x's freeze_graph tool, as ``distflow freeze-graph``)."""

import numpy as np
import pytest

import distflow as tf
from distflow.tools import cli, freeze_graph


def _trained(tmp_path):
    """A small model, its variables changed from their initial values, saved three ways:
    a text GraphDef and a checkpoint, a meta graph, a SavedModel. Returns the paths and
    the model's outputs for a batch."""
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    with tf.Graph().as_default():
        inputs = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(tf.random_normal([3, 2], seed=1), name="w")
        b = tf.Variable(tf.zeros([2]), name="b")
        tf.nn.softmax(tf.matmul(inputs, w) + b, name="y")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign_add(b, [0.5, -0.5]))
            want = sess.run("y:0", {inputs: x})
            checkpoint = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
            tf.train.write_graph(sess.graph_def, str(tmp_path), "graph.pbtxt")
            tf.train.export_meta_graph(str(tmp_path / "model.meta"))
            builder = tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "saved"))
            builder.add_meta_graph_and_variables(sess, ["serve"])
            builder.save()
    return x, want, checkpoint


def _run_frozen(path, x):
    graph_def = tf.GraphDef()
    with open(path, "rb") as f:
        graph_def.ParseFromString(f.read())
    assert not [n for n in graph_def.node if "Variable" in n.op]  # (every variable a constant now)
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            return sess.run("y:0", {"x:0": x})


def test_a_graph_and_its_checkpoint_freeze_into_one_graphdef_that_predicts_as_the_model(tmp_path, capsys):
    x, want, checkpoint = _trained(tmp_path)
    out = str(tmp_path / "frozen.pb")
    assert cli.main(["freeze-graph", "--input_graph", str(tmp_path / "graph.pbtxt"), "--input_checkpoint", checkpoint,
                     "--output_node_names", "y", "--output_graph", out]) == 0
    assert "ops in the frozen graph" in capsys.readouterr().out
    np.testing.assert_allclose(_run_frozen(out, x), want, rtol=1e-6)
    meta_out = str(tmp_path / "from_meta.pb")
    assert freeze_graph.main(["--input_meta_graph", str(tmp_path / "model.meta"), "--input_binary", "true",
                              "--input_checkpoint", checkpoint, "--output_node_names", "y",
                              "--output_graph", meta_out]) == 0
    np.testing.assert_allclose(_run_frozen(meta_out, x), want, rtol=1e-6)
    saved_out = str(tmp_path / "from_saved_model.pb")
    frozen = freeze_graph.freeze_graph(None, None, False, None, "y", output_graph=saved_out,
                                       input_saved_model_dir=str(tmp_path / "saved"))
    assert {"x", "y"} <= {n.name for n in frozen.node}
    np.testing.assert_allclose(_run_frozen(saved_out, x), want, rtol=1e-6)


def test_what_stops_a_freeze_is_said_in_one_line(tmp_path, capsys):
    x, _, checkpoint = _trained(tmp_path)
    graph = str(tmp_path / "graph.pbtxt")
    for flags, message in [
            (["--input_graph", graph, "--input_checkpoint", str(tmp_path / "nothing"), "--output_node_names", "y"],
             "doesn't exist"),
            (["--input_graph", graph, "--input_checkpoint", checkpoint], "supply the name of a node"),
            (["--input_graph", graph, "--input_binary", "--input_checkpoint", checkpoint,
              "--output_node_names", "y"], "not a binary GraphDef"),
            (["--input_checkpoint", checkpoint, "--output_node_names", "y"], "Give a graph to freeze")]:
        assert freeze_graph.main(flags) == 1
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    with pytest.raises(freeze_graph.FreezeError, match="doesn't exist"):
        freeze_graph.freeze_graph(graph, None, False, str(tmp_path / "nothing"), "y")
