"""``distflow graph``: SVG pictures of graphs, grouped by task and device."""

import html
import os
import shutil
import subprocess
import sys

import pytest

import distflow as tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def graph_cli(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    return subprocess.run([sys.executable, "-m", "distflow.tools.cli", "graph", *args], capture_output=True,
                          text=True, timeout=120, env=env, cwd=ROOT)


def between_graph(path):
    """A between-graph model: variables on two ps tasks, the computation on the worker."""
    cluster = tf.train.ClusterSpec({"ps": ["h0:2222", "h1:2222"], "worker": ["h2:2222"]})
    with tf.Graph().as_default() as g:
        with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")):
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            w = tf.Variable(tf.zeros([4, 3]), name="w")
            b = tf.Variable(tf.zeros([3]), name="b")
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b))
            tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        tf.train.write_graph(g, os.path.dirname(path), os.path.basename(path))
        return g.as_graph_def()


@needs_dot
def test_every_op_is_drawn_in_one_box_per_task_and_device(tmp_path):
    graph_def = between_graph(str(tmp_path / "model.pbtxt"))
    out = graph_cli(str(tmp_path / "model.pbtxt"), "-o", str(tmp_path / "model.svg"))
    assert out.returncode == 0, out.stderr
    svg = html.unescape((tmp_path / "model.svg").read_text())
    for node in graph_def.node:
        assert f">{node.name}<" in svg, node.name
    devices = {(n.device.split("/device:")[0], n.device) for n in graph_def.node if n.device}
    tasks = {task for task, _ in devices}
    assert tasks == {"/job:ps/task:0", "/job:ps/task:1", "/job:worker/task:0"}
    assert svg.count('class="cluster"') == len(tasks) + len(devices)
    assert 'stroke="#cc3333"' in svg and "stroke-dasharray" in svg  # edges between devices, dashed red


@needs_dot
def test_a_script_is_drawn_up_to_its_first_session_and_scopes_collapse(tmp_path):
    out = graph_cli("examples/in_graph_training.py", "-o", str(tmp_path / "in_graph.svg"), "--depth", "1",
                    "--", "--devices", "/gpu:0,/gpu:1")
    assert out.returncode == 0, out.stderr
    svg = html.unescape((tmp_path / "in_graph.svg").read_text())
    assert "ops)<" in svg  # a collapsed scope says how many ops it holds
    assert ">GPU:0<" in svg and ">GPU:1<" in svg


def test_without_a_source_file_it_says_so():
    out = graph_cli("no/such/graph.pbtxt")
    assert out.returncode == 2 and "no/such/graph.pbtxt: no such file" in out.stderr


def test_sources_that_cannot_be_read_are_one_line_errors(tmp_path):
    bad = tmp_path / "bad.pbtxt"
    bad.write_text("node { name: 'x' op: }}} not a graph")
    out = graph_cli(str(bad), "--dot")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "bad.pbtxt is not a GraphDef" in out.stderr, out.stderr
    out = graph_cli("examples/seed_between_graph.py", "--dot")  # (it needs its --job_name: they go after --)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "before it made a session" in out.stderr and "-- ARGS" in out.stderr, out.stderr
    out = graph_cli("--help")
    assert out.returncode == 0 and "``" not in out.stdout


def test_depth_puts_every_op_of_a_scope_in_its_box():
    from distflow.tools.graph import to_dot

    graph_def = tf.GraphDef()
    for name in ("Adam", "Adam/mul", "Adam/Assign", "Adam/update/x", "loss"):
        graph_def.node.add(name=name, op="NoOp")
    dot = to_dot(graph_def, depth=1)
    assert '"Adam/ (3 ops)"' in dot  # (Adam/mul and Adam/Assign were drawn apart from the box)
    assert '"Adam\\nNoOp"' in dot and '"loss\\nNoOp"' in dot


@needs_dot
def test_the_picture_goes_to_the_current_directory_by_default(tmp_path):
    between_graph(str(tmp_path / "src" / "model.pbtxt"))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    out = subprocess.run([sys.executable, "-m", "distflow.tools.cli", "graph", str(tmp_path / "src" / "model.pbtxt")],
                         capture_output=True, text=True, timeout=120, env=env, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "model.svg").exists() and not (tmp_path / "src" / "model.svg").exists()


def _two_input_model():
    tf.keras.backend.clear_session()
    a = tf.keras.Input((4,), name="a")
    b = tf.keras.Input((3,), name="b")
    hidden = tf.keras.layers.Dense(5, name="hidden")(a)
    joined = tf.keras.layers.Concatenate(name="joined")([hidden, b])
    return tf.keras.Model([a, b], tf.keras.layers.Dense(1, name="out")(joined))


def test_keras_model_to_dot_has_a_node_a_layer_and_an_edge_a_call():
    text = tf.keras.utils.model_to_dot(_two_input_model(), show_shapes=True).to_string()
    labels = {}
    for line in text.splitlines():
        if "[label=" in line:
            node, label = line.strip().split(" [label=")
            labels[label.split(":")[0].strip('"{')] = (node, label)
    assert set(labels) == {"a", "b", "hidden", "joined", "out"}
    assert "[(None, 5), (None, 3)]|(None, 8)" in labels["joined"][1]
    edges = {tuple(line.strip().rstrip(";").split(" -> ")) for line in text.splitlines() if "->" in line}
    name = {node: layer for layer, (node, _) in labels.items()}
    assert {(name[x], name[y]) for x, y in edges} == {("a", "hidden"), ("hidden", "joined"), ("b", "joined"),
                                                      ("joined", "out")}
    plain = tf.keras.utils.model_to_dot(_two_input_model(), show_layer_names=False).to_string()
    assert '"InputLayer"' in plain and "hidden" not in plain


@needs_dot
def test_keras_plot_model_draws_the_model(tmp_path):
    path = str(tmp_path / "model.svg")
    tf.keras.utils.plot_model(_two_input_model(), to_file=path, show_shapes=True)
    picture = html.unescape(open(path).read())
    assert picture.startswith("<?xml") and "joined: Concatenate" in picture and "(None, 8)" in picture
    tf.keras.utils.plot_model(_two_input_model(), to_file=str(tmp_path / "model.dot"))
    assert open(str(tmp_path / "model.dot")).read().startswith("digraph G {")
