"""Resource variables of a graph TensorFlow wrote (tests/data/tensorflow/resource, made by
make_tf_resource.py there with TensorFlow 2.21): imported, restored, differentiated, trained by
its own ResourceApply ops and saved, each against TensorFlow's figures."""

import os

import numpy as np
import pytest

import distflow as tf
from distflow.framework import ops
from tf_figures import feeds_of, trains_as_tensorflow_did

FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tensorflow", "resource")
DATA = np.load(os.path.join(FOLDER, "steps.npz"))
FEEDS = feeds_of(DATA)


def _imported():
    saver = tf.train.import_meta_graph(os.path.join(FOLDER, "model.ckpt.meta"))
    return saver, {v.op.name: v for v in tf.global_variables()}


def test_a_graph_of_resource_variables_restores_and_trains_as_tensorflow_did(tmp_path):
    saver, variables = _imported()
    kinds = {op.type for op in tf.get_default_graph().get_operations()}
    assert {"VarHandleOp", "ResourceGather", "ResourceApplyAdam", "ResourceSparseApplyMomentum",
            "ResourceScatterAdd"} <= kinds
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(FOLDER, "model.ckpt"))
        trains_as_tensorflow_did(sess, DATA, lambda name: sess.run(variables[name]))
        # TensorFlow's Saver nodes save them, and restore them into a fresh session
        path = saver.save(sess, str(tmp_path / "model.ckpt"))
        trained = sess.run(variables["model/w1"])
    with tf.Session() as sess:
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(variables["model/w1"]), trained)
    # and distflow's own Saver does too (reading and assigning them through their handles)
    own = tf.train.Saver([variables["model/w1"], variables["model/embedding"]])
    with tf.Session() as sess:
        saver.restore(sess, path)
        own_path = own.save(sess, str(tmp_path / "own.ckpt"))
        sess.run(variables["model/w1"].assign(np.zeros((12, 6), np.float32)))
        own.restore(sess, own_path)
        np.testing.assert_array_equal(sess.run(variables["model/w1"]), trained)


def test_gradients_with_respect_to_resource_variables_are_tensorflows():
    _, variables = _imported()
    names = [k[5:] for k in DATA.files if k.startswith("grad_")]
    grads = tf.gradients(tf.get_default_graph().get_tensor_by_name("loss:0"), [variables[n] for n in names])
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, os.path.join(FOLDER, "model.ckpt"))
        got = sess.run([tf.convert_to_tensor(g) for g in grads], FEEDS)  # (the embedding's: IndexedSlices)
    assert isinstance(grads[names.index("model/embedding")], tf.IndexedSlices)
    for name, value in zip(names, got):
        np.testing.assert_allclose(value, DATA[f"grad_{name}"], rtol=1e-5, atol=1e-7, err_msg=name)


def test_an_imported_resource_variable_assigns_through_its_handle_and_refuses_reference_ops():
    _, variables = _imported()
    scale = variables["model/scale"]
    assert scale.dtype == tf.float32 and scale.shape.as_list() == []
    with tf.Session() as sess:
        sess.run(scale.initializer)
        assert sess.run(scale.assign_add(2.0)) == 3.5
        assert sess.run(scale.assign_sub(0.5)) == 3.0
        sess.run(scale.assign(7.0, read_value=False))
        assert sess.run(scale) == 7.0
    with pytest.raises(TypeError, match="'model/scale:0' is a resource variable .* use its own assign methods"):
        tf.assign(scale, 1.0)


def test_the_ops_on_a_handle_fail_with_tensorflows_checks():
    graph = ops.get_default_graph()
    handle = graph.create_op("VarHandleOp", [], {"dtype": tf.float32, "shape": tf.TensorShape([3, 2]),
                                                 "shared_name": "table", "container": ""}).outputs[0]
    read = graph.create_op("ReadVariableOp", [handle], {"dtype": tf.float32}).outputs[0]
    assert read.shape.as_list() == [3, 2]
    assign = graph.create_op("AssignVariableOp", [handle, tf.constant(np.arange(6.0, dtype=np.float32).reshape(3, 2))],
                             {"dtype": tf.float32})
    gather = graph.create_op("ResourceGather", [handle, tf.constant([2, 5])], {"dtype": tf.float32}).outputs[0]
    wrong = graph.create_op("AssignVariableOp", [handle, tf.constant([1, 2])], {"dtype": tf.int32})
    initialized = graph.create_op("VarIsInitializedOp", [handle], {}).outputs[0]
    with tf.Session() as sess:
        assert not sess.run(initialized)
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value table"):
            sess.run(read)
        sess.run(assign)
        assert sess.run(initialized)
        np.testing.assert_array_equal(sess.run(read), np.arange(6.0).reshape(3, 2))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"variable 'table': indices\[...\] = 5 is not in "
                                                                 r"\[0, 3\)"):
            sess.run(gather)
        with pytest.raises(tf.errors.InvalidArgumentError, match="variable 'table' holds float32, and a int32 value"):
            sess.run(wrong)


def test_keras_momentum_on_a_handle_is_numpys_formula():
    graph = ops.get_default_graph()

    def variable(name, value):
        handle = graph.create_op("VarHandleOp", [], {"dtype": tf.float64, "shape": tf.TensorShape(value.shape),
                                                     "shared_name": name, "container": ""}).outputs[0]
        return handle, graph.create_op("AssignVariableOp", [handle, tf.constant(value)], {"dtype": tf.float64})

    w0, a0 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), np.array([[0.5, 0.5], [0.0, 1.0], [2.0, 0.0]])
    grad = np.array([[0.1, -0.2], [0.3, 0.4]])
    (w, w_init), (a, a_init) = variable("w", w0), variable("a", a0)
    dense = graph.create_op("ResourceApplyKerasMomentum", [w, a, tf.constant(0.1, tf.float64),
                                                           tf.constant(w0 * 0 + 1, tf.float64),
                                                           tf.constant(0.9, tf.float64)], {"use_nesterov": True})
    sparse = graph.create_op("ResourceSparseApplyKerasMomentum", [w, a, tf.constant(0.1, tf.float64),
                                                                  tf.constant(grad), tf.constant([2, 2]),
                                                                  tf.constant(0.9, tf.float64)], {})
    read = [graph.create_op("ReadVariableOp", [h], {"dtype": tf.float64}).outputs[0] for h in (w, a)]
    with tf.Session() as sess:
        sess.run([w_init, a_init])
        sess.run(dense)
        acc = a0 * 0.9 - 0.1
        want_w = w0 + acc * 0.9 - 0.1
        np.testing.assert_allclose(sess.run(read), [want_w, acc], rtol=1e-12)
        sess.run(sparse)
        for g in grad:  # (a repeated row is updated once per occurrence)
            acc[2] = acc[2] * 0.9 - 0.1 * g
            want_w[2] += acc[2]
        np.testing.assert_allclose(sess.run(read), [want_w, acc], rtol=1e-12)


def test_the_gradients_of_reads_and_gathers_are_central_differences():
    from gradcheck import check_resource_gradients
    graph = ops.get_default_graph

    def build(table, weights):
        rows = graph().create_op("ResourceGather", [table, tf.constant([[2, 0], [2, 3]])],
                                 {"dtype": tf.float64}).outputs[0]
        w = graph().create_op("ReadVariableOp", [weights], {"dtype": tf.float64}).outputs[0]
        w_again = graph().create_op("ReadVariableOp", [weights], {"dtype": tf.float64}).outputs[0]
        return tf.tanh(tf.tensordot(rows, w, 1)) * w_again[0]

    rng = np.random.default_rng(4)
    check_resource_gradients(build, [rng.standard_normal((4, 3)), rng.standard_normal(3)])


def test_distflows_optimizers_train_tensorflows_resource_variables_as_its_own_train_op_did():
    # the generator's train op, built again with distflow's optimizers (their slots are
    # distflow's reference variables; the updates, the Resource twins of their ops)
    saver, variables = _imported()
    names = ["embedding", "w1", "b1", "w2", "b2", "scale"]
    model = [variables[f"model/{n}"] for n in names]
    graph = tf.get_default_graph()
    grads = dict(zip(names, zip(tf.gradients(graph.get_tensor_by_name("loss:0"), model), model)))
    steps = [tf.train.GradientDescentOptimizer(0.5).apply_gradients([grads["embedding"], grads["scale"]]),
             tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients([grads["w1"]]),
             tf.train.AdamOptimizer(0.05).apply_gradients([grads["b1"]]),
             tf.train.AdagradOptimizer(0.3).apply_gradients([grads["w2"]]),
             tf.train.RMSPropOptimizer(0.05).apply_gradients([grads["b2"]]),
             tf.train.AdamOptimizer(0.05, name="SparseAdam").apply_gradients([grads["embedding"]]),
             tf.train.MomentumOptimizer(0.1, 0.9, name="SparseMomentum").apply_gradients([grads["embedding"]]),
             tf.train.AdagradOptimizer(0.3, name="SparseAdagrad").apply_gradients([grads["embedding"]])]
    train = tf.group(*steps)
    kinds = {op.type for op in graph.get_operations()}
    assert {"ResourceApplyMomentum", "ResourceSparseApplyAdagrad", "ResourceScatterSub"} <= kinds
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())  # (distflow's slots; then TensorFlow's values)
        saver.restore(sess, os.path.join(FOLDER, "model.ckpt"))
        for _ in range(3):
            sess.run(train, FEEDS)
        for name, variable in zip(names, model):
            np.testing.assert_allclose(sess.run(variable), DATA[f"after_model/{name}"], rtol=1e-5, atol=1e-7,
                                       err_msg=name)


def test_a_saved_model_parsing_tf_examples_serves_tensorflows_predictions():
    # an Estimator-style serving SavedModel: ParseExampleV2 (keys as tensors, a default through
    # a Reshape), Keras layers of resource variables, an embedding of a sparse feature
    data = np.load(os.path.join(os.path.dirname(FOLDER), "resource", "serving.npz"))
    ends = data["ends"].tolist()
    records = [data["records"][start:end].tobytes() for start, end in zip([0] + ends[:-1], ends)]
    with tf.Session(graph=tf.Graph()) as sess:
        meta_graph = tf.saved_model.loader.load(sess, ["serve"], os.path.join(FOLDER, "serving"))
        signature = meta_graph.signature_def["serving_default"]
        got = sess.run(signature.outputs["probs"].name, {signature.inputs["examples"].name: records})
    np.testing.assert_allclose(got, data["probs"], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("taken", [True, False])
def test_a_resource_variable_read_in_a_cond_or_a_loop_gets_its_gradient(taken):
    # (the branch that does not read it, and the loop's accumulator, hold zeros of its value)
    from gradcheck import check_resource_gradients
    graph = ops.get_default_graph

    def build(table):
        def read():
            return graph().create_op("ReadVariableOp", [table], {"dtype": tf.float64}).outputs[0]
        picked = tf.cond(tf.constant(taken), lambda: tf.sin(read()) * 2.0, lambda: tf.ones([2], tf.float64))
        looped = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * read() + 0.5),
                               [0, tf.ones([2], tf.float64)])[1]
        return picked + looped

    check_resource_gradients(build, [np.array([0.7, -1.2])])


def test_a_graph_of_resource_variables_trains_between_graph_with_its_variables_on_the_ps():
    """The classic TF 1.x way to train an imported graph on a cluster: import_meta_graph with
    clear_devices=True inside a replica_device_setter. The handles go to the ps (and every
    read and update of one with it), so the variables one worker trained are the ones another
    worker reads."""
    from cluster_util import LocalCluster

    cluster = LocalCluster({"ps": 1, "worker": 2})
    try:
        def imported(task):
            setter = tf.train.replica_device_setter(worker_device=f"/job:worker/task:{task}",
                                                    cluster=tf.train.ClusterSpec(cluster.spec))
            with tf.device(setter):
                saver = tf.train.import_meta_graph(os.path.join(FOLDER, "model.ckpt.meta"), clear_devices=True)
            return saver, {v.op.name: v for v in tf.global_variables()}

        with tf.Graph().as_default() as graph:
            saver, variables = imported(0)
            with tf.Session(cluster.target("worker", 0)) as sess:
                saver.restore(sess, os.path.join(FOLDER, "model.ckpt"))
                trains_as_tensorflow_did(sess, DATA, lambda name: sess.run(variables[name]))
            assert graph.get_operation_by_name("model/w1").device == "/job:ps/task:0"
            assert graph.get_operation_by_name("loss").device == "/job:worker/task:0"
            # (the reads and updates ask for the worker's device: they are placed with their handle)
            assert graph.get_operation_by_name("model/w1/Read/ReadVariableOp").device == "/job:worker/task:0"
        with tf.Graph().as_default():
            _, variables = imported(1)
            with tf.Session(cluster.target("worker", 1)) as sess:  # (no restore: the ps holds them)
                for key in DATA.files:
                    if key.startswith("after_"):
                        np.testing.assert_allclose(sess.run(variables[key[6:]]), DATA[key], rtol=1e-5, atol=1e-7,
                                                   err_msg=key)
    finally:
        cluster.close()
