"""Graphs, meta graphs, savers and checkpoint state as TensorFlow's protocol buffers: the bytes and
text distflow writes parse with TensorFlow's own schema, and come back as the same program."""

import os

import numpy as np
import pytest
from google.protobuf import text_format

import distflow as tf
from tf_protos import TF


def build_model():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w")
    b = tf.Variable(0.5, name="b")
    y = tf.add(tf.matmul(x, w), b, name="y")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y), global_step=step)
    tf.add_to_collection("prediction", y)
    tf.add_to_collection("learning_rate", 0.1)
    tf.add_to_collection("epochs", 3)
    tf.add_to_collection("note", "hello")
    return x, y, train


def test_graph_def_is_tensorflows_message_in_bytes_and_text():
    x, y, _ = build_model()
    graph_def = tf.get_default_graph().as_graph_def()
    assert isinstance(graph_def, tf.GraphDef)
    theirs = TF["GraphDef"].FromString(graph_def.SerializeToString())
    assert [n.name for n in theirs.node] == [op.name for op in tf.get_default_graph().get_operations()]
    assert theirs.versions.producer == 26
    node = {n.name: n for n in theirs.node}
    assert node["y"].op == "AddV2" and list(node["y"].input) == ["MatMul", "b/read"]
    assert node["x"].attr["dtype"].type == 1 and [d.size for d in node["x"].attr["shape"].shape.dim] == [-1, 2]
    again = text_format.Parse(text_format.MessageToString(graph_def), TF["GraphDef"]())
    assert again == theirs
    assert y.op.node_def.name == "y" and isinstance(y.op.node_def, tf.NodeDef)
    assert len(tf.get_default_graph().as_graph_def(from_version=x.op._id).node) == len(theirs.node) - 1


def test_import_graph_def_with_input_map_and_return_elements():
    build_model()
    graph_def = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default() as g:
        fed = tf.constant([[1.0, 1.0]])
        y, w_init = tf.import_graph_def(graph_def, input_map={"x": fed}, return_elements=["y:0", "w/Assign"],
                                        name="model")
        assert y.name == "model/y:0" and w_init.name == "model/w/Assign"
        with tf.Session() as sess:
            sess.run([w_init, g.get_operation_by_name("model/b/Assign")])
            assert sess.run(y).tolist() == [[3.5]]
        with pytest.raises(ValueError, match="not found in graph_def"):
            tf.import_graph_def(graph_def, input_map={"nope:0": fed})
        with pytest.raises(ValueError, match="not found in graph_def"):
            tf.import_graph_def(graph_def, return_elements=["nope"])
    bad = tf.GraphDef()
    bad.node.add(name="a", op="NoSuchOp")
    with pytest.raises(ValueError, match="unknown op type"):
        tf.import_graph_def(bad)


def test_imported_nodes_take_the_callers_device_scopes_as_tensorflows_importer_gives_them():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        with tf.device("/device:GPU:1"):
            tf.identity(v * 2.0, name="y")
        with tf.colocate_with(v.op):
            tf.identity(v, name="near_v")
        graph_def = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default() as g:
        with tf.device("/job:worker/task:1"):
            tf.import_graph_def(graph_def, name="")
        # the node's own fields win, the scope fills the others; a colocated node takes its group's device
        assert g.get_operation_by_name("y").device == "/job:worker/task:1/device:GPU:1"
        assert g.get_operation_by_name("v").device == "/job:worker/task:1"
        assert g.get_operation_by_name("near_v").device == "/job:worker/task:1"
    with tf.Graph().as_default() as g:
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            tf.import_graph_def(graph_def, name="")
        assert g.get_operation_by_name("v").device == "/job:ps/task:0"
        assert g.get_operation_by_name("v/read").device == "/job:ps/task:0"  # (colocated with v)
        assert g.get_operation_by_name("y").device == "/job:worker/device:GPU:1"


def test_a_saved_model_comes_back_from_its_meta_file_and_trains_on(tmp_path):
    x, y, train = build_model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: [[1.0, 1.0]]})
        path = saver.save(sess, str(tmp_path / "model"), global_step=tf.train.get_global_step())
        want = sess.run(y, {x: [[1.0, 2.0]]})
    assert os.path.exists(path + ".meta")
    theirs = TF["MetaGraphDef"].FromString(open(path + ".meta", "rb").read())
    assert theirs.saver_def.filename_tensor_name == "save/Const:0"
    assert theirs.saver_def.restore_op_name == "save/restore_all" and theirs.saver_def.version == 2
    assert list(theirs.collection_def["prediction"].node_list.value) == ["y:0"]
    variables = [TF["VariableDef"].FromString(v) for v in theirs.collection_def["trainable_variables"].bytes_list.value]
    assert [(v.variable_name, v.snapshot_name, v.initializer_name) for v in variables] == [
        ("w:0", "w/read:0", "w/Assign"), ("b:0", "b/read:0", "b/Assign")]

    tf.reset_default_graph()
    restorer = tf.train.import_meta_graph(path + ".meta")
    with tf.Session() as sess:
        restorer.restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
        prediction = tf.get_collection("prediction")[0]
        np.testing.assert_allclose(sess.run(prediction, {"x:0": [[1.0, 2.0]]}), want)
        assert [v.op.name for v in tf.trainable_variables()] == ["w", "b"]
        assert tf.get_collection("learning_rate") == [pytest.approx(0.1)] and tf.get_collection("epochs") == [3]
        assert tf.get_collection("note") == [b"hello"]
        sess.run(tf.get_collection(tf.GraphKeys.TRAIN_OP)[0], {"x:0": [[1.0, 1.0]]})
        assert sess.run(tf.train.get_global_step()) == 2
        again = restorer.save(sess, str(tmp_path / "again"))
    assert tf.train.NewCheckpointReader(again).get_tensor("global_step") == 2


def test_export_meta_graph_as_text_and_import_under_a_scope(tmp_path):
    build_model()
    path = str(tmp_path / "graph.meta")
    meta = tf.train.export_meta_graph(path, as_text=True, clear_devices=True)
    assert text_format.Parse(open(path).read(), TF["MetaGraphDef"]()).graph_def.node[0].name == "x"
    with tf.Graph().as_default():
        tf.train.import_meta_graph(path, import_scope="copy")
        assert [v.op.name for v in tf.global_variables()][:2] == ["copy/w", "copy/b"]
        assert tf.get_collection("prediction")[0].name == "copy/y:0"
    assert meta.meta_info_def.tensorflow_version == "1.15.0"  # (TensorFlow's loader parses it as a version)
    assert meta.meta_info_def.tensorflow_git_version.startswith("distflow")


def test_a_variable_in_a_programs_own_collection_comes_back_as_its_tensor_as_in_tensorflow():
    v = tf.Variable(42, name="v")
    tf.add_to_collection("my_variables", v)
    meta = tf.train.export_meta_graph()
    assert list(meta.collection_def["my_variables"].node_list.value) == ["v:0"]  # (TF's encoding of it)
    with tf.Graph().as_default():
        tf.train.import_meta_graph(meta)
        (found,) = tf.get_collection("my_variables")
        assert found.name == "v:0" and [g.name for g in tf.global_variables()] == ["v:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(found) == 42


def test_checkpoint_state_file_is_tensorflows_text_format(tmp_path):
    tf.train.update_checkpoint_state(str(tmp_path), str(tmp_path / "model-2"),
                                     [str(tmp_path / "model-1"), str(tmp_path / "model-2")])
    theirs = text_format.Parse(open(tmp_path / "checkpoint").read(), TF["CheckpointState"]())
    assert theirs.model_checkpoint_path == "model-2"
    assert list(theirs.all_model_checkpoint_paths) == ["model-1", "model-2"]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == str(tmp_path / "model-2")
    (tmp_path / "checkpoint").write_text("")
    with pytest.raises(ValueError, match="Invalid checkpoint state"):
        tf.train.get_checkpoint_state(str(tmp_path))


def test_saver_def_round_trip_and_path_errors(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    saver = tf.train.Saver(max_to_keep=None)
    saver_def = saver.as_saver_def()
    assert TF["SaverDef"].FromString(saver_def.SerializeToString()).save_tensor_name == "save/control_dependency:0"
    again = tf.train.Saver(saver_def=saver_def)
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = again.save(sess, "file://" + str(tmp_path / "m"))
        assert path == str(tmp_path / "m") and tf.train.checkpoint_exists(path)
        with pytest.raises(ValueError, match="collides"):
            saver.save(sess, str(tmp_path / "checkpoint"))
        for i in range(7):  # max_to_keep=None keeps every checkpoint (and, as TF, lists only the last)
            saver.save(sess, str(tmp_path / "k"), global_step=i)
    assert all(tf.train.checkpoint_exists(str(tmp_path / f"k-{i}")) for i in range(7))
    assert len(tf.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths) == 1


def test_write_graph_and_a_checkpoint_reader(tmp_path):
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    path = tf.train.write_graph(tf.get_default_graph(), str(tmp_path), "graph.pbtxt")
    assert text_format.Parse(open(path).read(), TF["GraphDef"]()).node[-1].name.startswith("v")
    binary = tf.train.write_graph(tf.get_default_graph().as_graph_def(), str(tmp_path), "graph.pb", as_text=False)
    assert TF["GraphDef"].FromString(open(binary, "rb").read()).node
    with tf.Session() as sess:
        sess.run(v.initializer)
        prefix = tf.train.Saver().save(sess, str(tmp_path / "ckpt"), write_meta_graph=False)
    reader = tf.train.NewCheckpointReader(prefix)
    assert reader.get_variable_to_shape_map() == {"v": [2, 3]}
    assert reader.get_variable_to_dtype_map() == {"v": tf.float32} and reader.has_tensor("v")
    np.testing.assert_array_equal(reader.get_tensor("v"), np.arange(6).reshape(2, 3))
    with pytest.raises(tf.errors.NotFoundError):
        reader.get_tensor("w")
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.NewCheckpointReader(str(tmp_path / "missing"))


def test_clear_extraneous_savers_leaves_out_the_other_savers_ops(tmp_path):
    v = tf.Variable(3.0, name="v")
    tf.train.Saver()  # (a first saver, under "save/")
    kept = tf.train.Saver()  # (under "save_1/")
    with tf.Session() as sess:
        sess.run(v.initializer)
        path = kept.save(sess, str(tmp_path / "model"))
    meta = kept.export_meta_graph(clear_extraneous_savers=True)
    names = {n.name for n in meta.graph_def.node}
    assert not any(n.startswith("save/") for n in names) and any(n.startswith("save_1/") for n in names)
    assert "savers" not in meta.collection_def
    assert any(n.startswith("save/") for n in (x.name for x in kept.export_meta_graph().graph_def.node))
    tf.reset_default_graph()
    saver = tf.train.import_meta_graph(meta)
    with tf.Session() as sess:
        saver.restore(sess, path)
        assert sess.run("v:0") == 3.0


def test_a_node_whose_attributes_disagree_on_its_outputs_is_invalid_argument():
    """A loop whose output types outnumber its shapes (a mutated GraphDef) is refused as bad
    input, as a server must answer it: InvalidArgument, never an internal error."""
    from distflow.framework import ops, wire

    g = tf.Graph()
    with g.as_default():
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
    graph_def = g.as_graph_def()
    for node in graph_def.node:
        if node.op == "While":
            node.attr["Tout"].list.type.append(1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'while' .*attributes give .* output shapes but"):
        wire.import_graph_def(graph_def, ops.Graph())


def test_graph_files_are_the_same_bytes_in_every_process(tmp_path):
    """write_graph and export_meta_graph serialize deterministically, as TF writes them (the
    binary order of protocol buffer map fields otherwise follows the process's hash seed)."""
    import subprocess
    import sys

    script = (
        "import os, sys, distflow as tf\n"
        "with tf.Graph().as_default() as g:\n"
        "    x = tf.placeholder(tf.float32, [None, 3], name='x')\n"
        "    w = tf.Variable(tf.ones([3, 2]), name='w')\n"
        "    tf.cond(tf.reduce_sum(x) > 0, lambda: tf.matmul(x, w), lambda: -tf.matmul(x, w))\n"
        "    tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])\n"
        "    tf.train.write_graph(g, sys.argv[1], 'g.pb', as_text=False)\n"
        "    tf.train.export_meta_graph(os.path.join(sys.argv[1], 'm.meta'))\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    written = []
    for seed in ("1", "2"):
        out = tmp_path / seed
        out.mkdir()
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=os.path.join(root, "src"))
        done = subprocess.run([sys.executable, "-c", script, str(out)], capture_output=True, text=True, timeout=120,
                              env=env)
        assert done.returncode == 0, done.stderr[-2000:]
        written.append([(out / name).read_bytes() for name in ("g.pb", "m.meta")])
    assert written[0] == written[1]


def test_graph_util_has_tensorflows_cpu_rule_and_import_graph_def():
    text, count = tf.constant("x"), tf.constant(3)
    v = tf.Variable(1.0)
    rule = tf.graph_util.must_run_on_cpu
    assert [rule(t.op) for t in (text, count, tf.constant(2.0), tf.cast(count, tf.float32))] == [True, True, False,
                                                                                                 True]
    assert rule(v.op, pin_variables_on_cpu=True) and not rule(v.op) and rule(text.op.node_def)
    graph_def = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default():
        (found,) = tf.graph_util.import_graph_def(graph_def, return_elements=["Const:0"], name="")
        assert found.name == "Const:0"


def test_a_graph_serialized_again_shows_every_change_to_its_ops():
    # (each op's NodeDef is kept between serializations: every kind of change must show)
    def fresh(graph, add_shapes=False):
        from distflow.framework import wire
        nodes = [wire.node_to_proto(op) for op in graph.get_operations()]
        if add_shapes:
            for node, op in zip(nodes, graph.get_operations()):
                node.attr["_output_shapes"].CopyFrom(wire.attr_to_proto([t.shape for t in op.outputs]))
        return [n.SerializeToString(deterministic=True) for n in nodes]

    def served(graph, add_shapes=False):
        return [n.SerializeToString(deterministic=True) for n in graph.as_graph_def(add_shapes=add_shapes).node]

    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, name="x")
        y = tf.identity(x, name="y")
        z = tf.add(y, 1.0, name="z")
        for add_shapes in (False, True, False):
            assert served(g, add_shapes) == fresh(g, add_shapes)
        z.op._set_device("/device:CPU:0")
        y.op._add_control_input(x.op)
        y.op._set_attr("_class", [b"loc:@x"])
        w = tf.constant(2.0, name="w")
        z.op._replace_input(1, w)
        y.set_shape([3])
        for add_shapes in (True, False):
            got = served(g, add_shapes)
            assert got == fresh(g, add_shapes)
        node = {n.name: n for n in g.as_graph_def(add_shapes=True).node}
        assert node["z"].device == "/device:CPU:0" and node["z"].input[1] == "w"
        assert "^x" in node["y"].input and list(node["y"].attr["_class"].list.s) == [b"loc:@x"]
        assert [d.size for d in node["y"].attr["_output_shapes"].list.shape[0].dim] == [3]
