"""Graph construction: names, scopes, devices, colocation, control dependencies, collections."""

import os
import subprocess
import sys

import numpy as np
import pytest

import distflow as tf
from distflow.framework import registry
from distflow.framework.device_spec import DeviceSpec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# -- names -----------------------------------------------------------------------


def test_unique_op_names():
    a = tf.constant(1.0, name="a")
    a1 = tf.constant(1.0, name="a")
    a2 = tf.constant(1.0, name="a")
    assert [a.op.name, a1.op.name, a2.op.name] == ["a", "a_1", "a_2"]
    assert a.name == "a:0"


def test_explicit_suffix_is_skipped():
    tf.constant(1.0, name="a_1")
    tf.constant(1.0, name="a")
    assert tf.constant(1.0, name="a").op.name == "a_2"


def test_name_scope_reentry_and_nesting():
    with tf.name_scope("layer") as scope:
        assert scope == "layer/"
        x = tf.constant(1.0, name="x")
        with tf.name_scope("inner"):
            y = tf.constant(1.0, name="y")
    with tf.name_scope("layer") as scope2:
        z = tf.constant(1.0, name="x")
    with tf.name_scope(scope):  # a trailing '/' re-enters exactly
        w = tf.constant(1.0, name="w")
    assert (x.op.name, y.op.name, scope2, z.op.name, w.op.name) == (
        "layer/x", "layer/inner/y", "layer_1/", "layer_1/x", "layer/w")
    with tf.name_scope("layer"):
        with tf.name_scope(None):
            assert tf.constant(1.0, name="top").op.name == "top"


def test_name_scope_default_name():
    with tf.name_scope(None, "Default") as s1:
        pass
    with tf.name_scope(None, "Default") as s2:
        pass
    assert (s1, s2) == ("Default/", "Default_1/")


def test_variable_names():
    v = tf.Variable(1.0, name="v")
    with tf.name_scope("scope"):
        w = tf.Variable([1.0, 2.0])
    assert v.name == "v:0" and v.op.name == "v"
    assert v.initializer.name == "v/Assign"
    assert v.value().name == "v/read:0"
    assert v.initial_value.name == "v/initial_value:0"
    assert w.name == "scope/Variable:0"


# -- lookup, collections, finalize, default graph ------------------------------------


def test_get_by_name():
    g = tf.get_default_graph()
    a = tf.constant([1, 2], name="a")
    assert g.get_operation_by_name("a") is a.op
    assert g.get_tensor_by_name("a:0") is a
    with pytest.raises(KeyError, match="does not exist"):
        g.get_tensor_by_name("a:3")
    with pytest.raises(KeyError, match="not in the graph"):
        g.get_operation_by_name("nope")
    with pytest.raises(ValueError, match="Tensor"):
        g.get_tensor_by_name("a")


def test_collections():
    v = tf.Variable(1.0, name="v")
    with tf.name_scope("s"):
        w = tf.Variable(2.0, trainable=False, name="w")
    assert tf.global_variables() == [v, w]
    assert tf.trainable_variables() == [v]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="s") == [w]
    tf.add_to_collection("mine", 3)
    tf.get_collection_ref("mine").append(4)
    assert tf.get_collection("mine") == [3, 4]
    tf.add_to_collections(["x", "y"], 5)
    assert tf.get_collection("x") == tf.get_collection("y") == [5]


def test_finalize():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1)
        g.finalize()
        with pytest.raises(RuntimeError, match="finalized"):
            tf.constant(2)


def test_default_graph_stack():
    outer = tf.get_default_graph()
    g = tf.Graph()
    with g.as_default():
        assert tf.get_default_graph() is g
        c = tf.constant(1)
        with pytest.raises(AssertionError, match="nested"):
            tf.reset_default_graph()
    assert c.graph is g and tf.get_default_graph() is outer
    tf.reset_default_graph()
    assert tf.get_default_graph() is not outer


def test_inputs_from_another_graph_are_rejected():
    a = tf.constant(1.0)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="different graph"):
            tf.add(a, tf.constant(2.0))


# -- control dependencies ----------------------------------------------------------------


def test_control_dependencies():
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    with tf.control_dependencies([a, b.op]):
        c = tf.constant(3.0)
        with tf.control_dependencies(None):
            d = tf.constant(4.0)
        e = c + 1.0  # c already carries the block's dependencies
    assert c.op.control_inputs == [a.op, b.op]
    assert d.op.control_inputs == []
    assert e.op.control_inputs == []


def test_control_dependencies_order_execution():
    v = tf.Variable(0, name="counter")
    inc = tf.assign_add(v, 1)
    with tf.control_dependencies([inc]):
        read = tf.identity(v.value())
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(read) == 1
        assert sess.run(read) == 2


def test_group_and_tuple():
    v = tf.Variable(0)
    g = tf.group(tf.assign_add(v, 1), tf.assign_add(v, 10), name="both")
    assert g.type == "NoOp" and g.name == "both" and len(g.control_inputs) == 2
    t1, t2 = tf.tuple([tf.constant(1), tf.constant(2)])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(g) is None
        assert sess.run(v) == 11
        assert sess.run([t1, t2]) == [1, 2]


# -- device specs and scopes ---------------------------------------------------------------


@pytest.mark.parametrize("text,canonical", [
    ("/job:worker/replica:0/task:2/device:GPU:1", "/job:worker/replica:0/task:2/device:GPU:1"),
    ("/cpu:0", "/device:CPU:0"), ("/gpu:1", "/device:GPU:1"), ("device:CPU:*", "/device:CPU:*"),
    ("/CPU", "/device:CPU:*"), ("/task:1/job:ps", "/job:ps/task:1"), ("", ""),
    ("/device:TPU:3", "/device:TPU:3"), ("/job:ps/gpu:*", "/job:ps/device:GPU:*"),
])
def test_device_spec_parse(text, canonical):
    assert DeviceSpec.from_string(text).to_string() == canonical


@pytest.mark.parametrize("bad,message", [
    ("/cpu:0/gpu:1", "multiple device types"), ("/foo:1", "Unknown attribute"),
    ("/task:x", "integer"), ("/job:a/replica:b", "integer"), ("/gpu:one", "integer"),
])
def test_device_spec_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        DeviceSpec.from_string(bad)


def test_device_spec_merge():
    a = DeviceSpec.from_string("/job:ps/task:1/cpu:0")
    a.merge_from(DeviceSpec.from_string("/job:worker/gpu:2"))
    assert a.to_string() == "/job:worker/task:1/device:GPU:2"


def test_device_scopes_merge_like_tensorflow():
    with tf.device("/job:ps/task:1"):
        with tf.device("/job:worker"):
            a = tf.constant(1)
        b = tf.constant(1)
    with tf.device("/device:GPU:7"):
        with tf.device("/device:GPU:*"):
            c = tf.constant(1)
    with tf.device("/cpu:3"):
        with tf.device(""):
            d = tf.constant(1)
        with tf.device(None):
            e = tf.constant(1)
    assert a.device == "/job:worker/task:1"
    assert b.device == "/job:ps/task:1"
    assert c.device == "/device:GPU:7"
    assert d.device == "/device:CPU:3"
    assert e.device == ""


def test_device_functions_apply_innermost_first():
    seen = []

    def fn(op):
        seen.append(op.device)
        return "/job:fn/task:9"

    with tf.device(fn):
        with tf.device("/gpu:1"):
            a = tf.constant(1)
    assert seen == ["/device:GPU:1"]
    assert a.device == "/job:fn/task:9"
    with tf.device("/job:outer"):
        with tf.device(None):
            with tf.device("/cpu:0"):
                b = tf.constant(1)
    assert b.device == "/device:CPU:0"


def test_colocate_with():
    with tf.device("/gpu:1"):
        v = tf.Variable(1.0, name="v")
    with tf.device("/cpu:0"):
        with tf.colocate_with(v):
            a = tf.constant(1.0, name="a")
            with tf.colocate_with(a.op, ignore_existing=True):
                b = tf.constant(1.0, name="b")
            c = tf.constant(2.0, name="c")
    assert a.op.get_attr("_class") == [b"loc:@v"]
    assert a.device == "/device:GPU:1"
    assert b.op.get_attr("_class") == [b"loc:@v"]  # a's own group is v's
    assert c.op.colocation_groups() == [b"loc:@v"]
    assert v.initializer.get_attr("_class") == [b"loc:@v"]
    assert v.value().op.get_attr("_class") == [b"loc:@v"]


def test_container_scope_sets_variable_container():
    with tf.container("experiment"):
        v = tf.Variable(1.0)
    assert v.op.get_attr("container") == b"experiment"
    assert tf.Variable(1.0).op.get_attr("container") == b""


# -- registry and the kernel-free core ---------------------------------------------------------


def test_duplicate_registration_names_the_first():
    with pytest.raises(KeyError, match=r"'MatMul' is already registered at .*math_ops.py"):
        registry.register_op("MatMul", shape=lambda op: [])
    registry.register_gradient("TestOnlyOp")(lambda op, g: (g,))
    with pytest.raises(KeyError, match="already registered at .*test_graph.py"):
        registry.not_differentiable("TestOnlyOp")


def test_missing_gradient_is_a_lookup_error():
    with pytest.raises(LookupError, match="No gradient defined for operation type 'NoSuchOp'"):
        registry.get_gradient_function("NoSuchOp")
    assert registry.get_gradient_function("Shape") is None  # explicitly not differentiable


def test_framework_imports_no_kernels():
    code = (
        "import sys, types\n"
        f"pkg = types.ModuleType('distflow'); pkg.__path__ = [{os.path.join(ROOT, 'src', 'distflow')!r}]\n"
        "sys.modules['distflow'] = pkg\n"
        "import distflow.framework.ops, distflow.framework.registry, distflow.framework.random_seed\n"
        "bad = [m for m in sys.modules if m.startswith(('distflow.ops', 'distflow.runtime'))]\n"
        "assert not bad, bad\n"
        "g = distflow.framework.ops.Graph()\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


# -- tensors, dtypes and static shapes -----------------------------------------------------------


def test_tensor_properties():
    p = tf.placeholder(tf.float32, [None, 3], name="p")
    assert p.name == "p:0" and p.dtype == tf.float32 and p.shape.as_list() == [None, 3]
    assert p.op.type == "Placeholder" and p.op.outputs == (p,)
    q = p * 2.0
    assert p.consumers() == [q.op]
    with pytest.raises(TypeError, match="bool"):
        bool(p)
    with pytest.raises(TypeError, match="not iterable"):
        iter(p)


def test_operators_build_the_right_ops():
    a = tf.constant([[1.0, 2.0]])
    b = tf.constant([[3.0], [4.0]])
    table = {a + 1: "AddV2", 1 - a: "Sub", a * a: "Mul", a / 2: "RealDiv", a // 2: "FloorDiv",
             a % 2: "FloorMod", a ** 2: "Pow", a @ b: "MatMul", -a: "Neg", abs(a): "Abs",
             a < 1: "Less", a <= 1: "LessEqual", a > 1: "Greater", a >= 1: "GreaterEqual"}
    for t, op_type in table.items():
        assert t.op.type == op_type
    with tf.Session() as sess:
        assert sess.run(2 - a).tolist() == [[1.0, 0.0]]
        assert sess.run(np.float32(10) / a).tolist() == [[10.0, 5.0]]
        assert sess.run(a @ b).tolist() == [[11.0]]


def test_no_silent_int_to_float_promotion():
    i = tf.constant([1, 2])
    f = tf.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32 that does not match type int32"):
        i + f
    with pytest.raises(TypeError, match="Expected int32, got 1.5"):
        i + 1.5
    assert (i + 1).dtype == tf.int32
    assert (f + 1).dtype == tf.float32


def test_dtypes():
    assert tf.as_dtype("float32") is tf.float32
    assert tf.as_dtype(np.int64) is tf.int64
    assert tf.float32.as_numpy_dtype is np.float32
    assert tf.float32._as_ref.base_dtype is tf.float32
    assert tf.int32.is_integer and not tf.int32.is_floating and tf.float16.is_floating
    assert tf.as_dtype(np.dtype("U3")) is tf.string
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.as_dtype("complex256")


def test_tensor_shape():
    s = tf.TensorShape([None, 3])
    assert s.as_list() == [None, 3] and s.ndims == 2 and not s.is_fully_defined()
    assert s.is_compatible_with([5, 3]) and not s.is_compatible_with([5, 4])
    assert s.merge_with([5, None]).as_list() == [5, 3]
    assert s[1].value == 3 and s[0].value is None
    assert tf.TensorShape(None).ndims is None
    with pytest.raises(ValueError):
        tf.TensorShape(None).as_list()
    assert tf.TensorShape([2, 3]).num_elements() == 6


@pytest.mark.parametrize("build,message", [
    (lambda: tf.matmul(tf.zeros([2, 3]), tf.zeros([2, 3])), "Dimensions must be equal, but are 3 and 2"),
    (lambda: tf.add(tf.zeros([2, 3]), tf.zeros([4])), "Dimensions must be equal"),
    (lambda: tf.reshape(tf.zeros([2, 3]), [4]), "Cannot reshape a tensor with 6 elements"),
    (lambda: tf.split(tf.zeros([5, 2]), 2), "evenly divisible by 2 but is 5"),
    (lambda: tf.concat([tf.zeros([2, 3]), tf.zeros([2, 4])], 0), "Dimension 1 in both shapes must be equal"),
    (lambda: tf.concat([tf.zeros([2, 3]), tf.zeros([2])], 0), "rank"),
    (lambda: tf.stack([tf.zeros([2]), tf.zeros([3])]), "compatible"),
    (lambda: tf.squeeze(tf.zeros([2, 3]), [0]), "Can not squeeze dim\\[0\\]"),
    (lambda: tf.transpose(tf.zeros([2, 3]), [0, 0]), "permutation"),
    (lambda: tf.reduce_sum(tf.zeros([2, 3]), axis=2), "out of bounds"),
    (lambda: tf.tile(tf.zeros([2, 3]), [2]), "multiples"),
    (lambda: tf.zeros([2, 3])[5], "out of bounds"),
    (lambda: tf.Variable(tf.zeros([2])).assign(tf.zeros([3])), "incompatible"),
])
def test_static_shape_errors_at_build_time(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_shape_error_names_the_op():
    with pytest.raises(ValueError, match=r"for 'mm' \(op: 'MatMul'\) with input shapes: \[2,3\], \[2,3\]"):
        tf.matmul(tf.zeros([2, 3]), tf.zeros([2, 3]), name="mm")


def test_static_shapes_are_inferred():
    p = tf.placeholder(tf.float32, [None, 4])
    assert (tf.matmul(p, tf.zeros([4, 2]))).shape.as_list() == [None, 2]
    assert tf.reduce_mean(p, axis=1, keepdims=True).shape.as_list() == [None, 1]
    assert [t.shape.as_list() for t in tf.split(p, [1, 3], axis=1)] == [[None, 1], [None, 3]]
    assert tf.concat([p, p], 0).shape.as_list() == [None, 4]
    assert tf.concat([tf.zeros([2, 4]), tf.zeros([3, 4])], 0).shape.as_list() == [5, 4]
    assert tf.one_hot(tf.placeholder(tf.int32, [None]), 10).shape.as_list() == [None, 10]
    assert tf.gather(tf.zeros([5, 3]), tf.placeholder(tf.int32, [7])).shape.as_list() == [7, 3]
    assert tf.expand_dims(p, -1).shape.as_list() == [None, 4, 1]
    assert tf.argmax(p, 1).shape.as_list() == [None]
    assert tf.reshape(tf.zeros([2, 6]), [-1, 3]).shape.as_list() == [4, 3]


def test_device_scopes_exited_out_of_order_are_an_error():
    g = tf.get_default_graph()
    outer, inner = g.device("/cpu:0"), g.device("/gpu:0")
    outer.__enter__()
    inner.__enter__()
    with pytest.raises(RuntimeError, match="proper scope nesting"):
        outer.__exit__(None, None, None)
