"""TensorFlow's op types in its own GraphDefs (tests/data/tensorflow/op_types.pb, made by
make_tf_op_types.py there with TensorFlow 2.21): older names rewritten on import, TensorFlow's
names for what distflow composes, and its gradient ops; each result against TensorFlow's."""

import os

import numpy as np
import pytest

import distflow as tf
from distflow.framework import ops

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tensorflow")
DATA = np.load(os.path.join(HERE, "op_types.npz"))
CASES = sorted(k[4:] for k in DATA.files if k.startswith("out_"))


@pytest.fixture(scope="module")
def results():
    """Every case of op_types.pb, run in one step of one session."""
    with tf.Graph().as_default():
        with open(os.path.join(HERE, "op_types.pb"), "rb") as f:
            tf.import_graph_def(tf.GraphDef.FromString(f.read()), name="")
        feeds = {f"{k[5:]}:0": DATA[k] for k in DATA.files if k.startswith("feed_")}
        with tf.Session() as sess:
            return sess.run({case: f"out/{case}:0" for case in CASES}, feeds)


@pytest.mark.parametrize("case", CASES)
def test_each_op_type_gives_tensorflows_result(results, case):
    got, want = results[case], DATA[f"out_{case}"]
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    rtol = 1e-4 if case.startswith(("resize_bicubic", "grad_")) else 1e-5
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-5)


def test_the_older_names_become_the_ops_distflow_runs_and_export_so():
    with tf.Graph().as_default() as graph:
        with open(os.path.join(HERE, "op_types.pb"), "rb") as f:
            tf.import_graph_def(tf.GraphDef.FromString(f.read()), name="")
        kinds = {op.type for op in graph.get_operations()}
        assert not kinds & {"Add", "Div", "Mod", "Inv", "Gather", "Concat", "InTopK", "Unique", "Reverse", "MaxPoolV2",
                            "ResizeBilinear", "MatrixDiagV3", "BiasAddV1"}
        assert {"AddV2", "TruncateDiv", "RealDiv", "GatherV2", "ConcatV2", "ResizeImage", "MatrixDiag"} <= kinds
        assert graph.get_operation_by_name("Gather").inputs[2].op.name == "Gather/axis"
        exported = {node.op for node in graph.as_graph_def().node}
        assert "Add" not in exported and "AddV2" in exported


def test_tensorflows_older_optimizer_ops_update_as_it_did():
    with tf.Graph().as_default():
        tf.train.import_meta_graph(os.path.join(HERE, "op_types_train.meta"))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run("update")
            for key in DATA.files:
                if key.startswith("after_"):
                    np.testing.assert_allclose(sess.run(f"{key[6:]}:0"), DATA[key], rtol=1e-6, err_msg=key)


def _node(graph_def, name, op, inputs=(), **attrs):
    node = graph_def.node.add(name=name, op=op)
    node.input.extend(inputs)
    for key, value in attrs.items():
        if isinstance(value, bool):
            node.attr[key].b = value
        elif isinstance(value, int):
            node.attr[key].i = value
        elif isinstance(value, tf.DType):
            node.attr[key].type = value.as_datatype_enum
        else:
            node.attr[key].tensor.CopyFrom(tf.make_tensor_proto(value))
    return node


def test_tensorflows_first_top_k_takes_k_as_an_attr_and_gives_numpys_top_values():
    # (TensorFlow itself no longer makes this op: a hand-written node of its GraphDef form)
    x = np.array([[3.0, 1.0, 4.0, 1.5], [9.0, 2.0, 6.0, 5.0]], np.float32)
    graph_def = tf.GraphDef()
    _node(graph_def, "x", "Const", dtype=tf.float32, value=x)
    _node(graph_def, "top", "TopK", ["x"], k=2, sorted=True, T=tf.float32)
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            values, indices = sess.run(["top:0", "top:1"])
    order = np.argsort(-x, axis=1)[:, :2]
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, 1))


def test_an_older_op_that_cannot_be_rewritten_is_refused_by_name():
    graph_def = tf.GraphDef()
    _node(graph_def, "x", "Const", dtype=tf.float32, value=np.ones((2, 3), np.float32))
    _node(graph_def, "flags", "Placeholder", dtype=tf.bool)
    _node(graph_def, "flipped", "Reverse", ["x", "flags"], T=tf.float32)
    with tf.Graph().as_default(), pytest.raises(tf.errors.UnimplementedError,
                                                match="node 'flipped' \\(Reverse\\): its dims are computed"):
        tf.import_graph_def(graph_def, name="")
    graph_def = tf.GraphDef()
    _node(graph_def, "x", "Const", dtype=tf.float32, value=np.ones((2, 3), np.float32))
    _node(graph_def, "k", "Const", dtype=tf.int32, value=np.int32(1))
    _node(graph_def, "band", "MatrixDiagPartV3", ["x", "k", "x"], T=tf.float32)
    with tf.Graph().as_default(), pytest.raises(tf.errors.UnimplementedError,
                                                match="node 'band' \\(MatrixDiagPartV3\\): distflow takes the main"):
        tf.import_graph_def(graph_def, name="")


def test_fused_batch_norm_in_nchw_is_nhwc_transposed_and_its_gradient_is_numpys_central_differences():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4, 5))  # NHWC, float64
    scale, offset = rng.uniform(0.5, 1.5, 5), rng.uniform(-1, 1, 5)
    dy = rng.standard_normal(x.shape)
    graph = ops.get_default_graph()

    def norm(value, data_format):
        return graph.create_op("FusedBatchNormV3", [tf.constant(value), tf.constant(scale), tf.constant(offset),
                                                    tf.constant(np.zeros(0)), tf.constant(np.zeros(0))],
                               {"epsilon": 1e-3, "data_format": data_format, "is_training": True}).outputs

    nhwc, nchw = norm(x, "NHWC"), norm(x.transpose(0, 3, 1, 2), "NCHW")
    grad = graph.create_op("FusedBatchNormGradV3", [tf.constant(dy), tf.constant(x), tf.constant(scale), nhwc[3],
                                                    nhwc[4], nhwc[5]], {"epsilon": 1e-3, "is_training": True}).outputs
    with tf.Session() as sess:
        y, y_nchw, dx, dscale, doffset = sess.run([nhwc[0], nchw[0], grad[0], grad[1], grad[2]])
    np.testing.assert_allclose(y_nchw, y.transpose(0, 3, 1, 2), rtol=1e-12)
    m, v = x.mean((0, 1, 2)), x.var((0, 1, 2))
    np.testing.assert_allclose(y, (x - m) / np.sqrt(v + 1e-3) * scale + offset, rtol=1e-12)

    def loss(xv, sv, ov):
        mm, vv = xv.mean((0, 1, 2)), xv.var((0, 1, 2))
        return np.sum(((xv - mm) / np.sqrt(vv + 1e-3) * sv + ov) * dy)
    eps = 1e-6
    for got, arg in ((dx, 0), (dscale, 1), (doffset, 2)):
        args = [x, scale, offset]
        numeric = np.zeros_like(args[arg])
        for i in np.ndindex(args[arg].shape):
            plus = [a.copy() for a in args]
            minus = [a.copy() for a in args]
            plus[arg][i] += eps
            minus[arg][i] -= eps
            numeric[i] = (loss(*plus) - loss(*minus)) / (2 * eps)
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)


def test_a_slice_of_a_tensor_of_many_unknown_dimensions_has_its_static_shape():
    x = tf.placeholder(tf.float32, [None] * 6)
    y = x[:1, 2:, ..., 0]
    # (x[:1] has 1 row only when x has one: TF's shape is unknown too)
    assert y.shape.as_list() == [None, None, None, None, None]
    with tf.Session() as sess:
        value = np.arange(2 * 4 * 1 * 2 * 3 * 2, dtype=np.float32).reshape(2, 4, 1, 2, 3, 2)
        np.testing.assert_array_equal(sess.run(y, {x: value}), value[:1, 2:, ..., 0])


def test_a_frozen_graph_distflow_exports_names_every_attr_tensorflow_requires():
    # (TensorFlow's importer needs its type and count attrs; checked by hand: TensorFlow 2.21
    # imports such a frozen CNN and gives distflow's outputs)
    from distflow.framework.tf_attrs import signatures
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="x")
        h = tf.layers.conv2d(x, 4, 3, activation=tf.nn.relu, name="conv")
        h = tf.layers.batch_normalization(tf.layers.max_pooling2d(h, 2, 2), training=False)
        h = tf.reshape(tf.concat([h, h * 2.0], axis=-1), [-1, 3 * 3 * 8])
        training = tf.placeholder_with_default(False, [], name="training")
        h = tf.cond(training, lambda: tf.nn.dropout(h, 0.5) * 1.0, lambda: h * 1.0, name="drop")
        y = tf.nn.softmax(tf.layers.dense(tf.cast(tf.shape(h)[0], tf.float32) * h, 3, name="dense"), name="y")
        tf.argmax(y, 1, name="label")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            frozen = tf.graph_util.convert_variables_to_constants(sess, sess.graph.as_graph_def(), ["y", "label"])
            x_value = np.random.RandomState(0).rand(2, 8, 8, 1).astype(np.float32)
            expected = sess.run(y, {x: x_value})
    table = dict(signatures(), Switch={"required": ["T"], "attrs": ["T"]},  # (TF 1.x's cond: not distflow's ops)
                 Merge={"required": ["N", "T"], "attrs": ["N", "T"]})
    assert "If" not in {node.op for node in frozen.node} and "Merge" in {node.op for node in frozen.node}
    for node in frozen.node:
        assert node.op in table, node.op
        missing = set(table[node.op]["required"]) - set(node.attr)
        assert not missing, f"{node.name} ({node.op}) lacks {sorted(missing)}"
        unknown = {k for k in node.attr if not k.startswith("_")} - set(table[node.op]["attrs"])
        assert not unknown, f"{node.name} ({node.op}) has attrs TensorFlow does not know: {sorted(unknown)}"
    with tf.Graph().as_default():  # (and distflow imports it back, the cond an If again)
        tf.import_graph_def(frozen, name="")
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run("y:0", {"x:0": x_value}), expected, rtol=1e-6)
        assert "If" in {op.type for op in tf.get_default_graph().get_operations()}
    nodes = {node.name: node for node in frozen.node}
    assert nodes["concat"].attr["N"].i == 2 and nodes["concat"].attr["T"].type == tf.float32.as_datatype_enum
    assert nodes["concat"].attr["Tidx"].type == tf.int32.as_datatype_enum
    assert (nodes["Cast"].attr["SrcT"].type, nodes["Cast"].attr["DstT"].type) == (tf.int32.as_datatype_enum,
                                                                                 tf.float32.as_datatype_enum)
    assert nodes["strided_slice"].attr["Index"].type == tf.int32.as_datatype_enum
