"""Every differentiable op's gradient against float64 central differences."""

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

RNG = np.random.default_rng(1)


def r(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape)


def pos(*shape):
    return RNG.uniform(0.5, 2.0, size=shape)


UNARY = {
    "negative": (tf.negative, r), "abs": (tf.abs, r), "square": (tf.square, r), "sqrt": (tf.sqrt, pos),
    "rsqrt": (tf.rsqrt, pos), "reciprocal": (tf.reciprocal, pos), "exp": (tf.exp, r), "log": (tf.log, pos),
    "log1p": (tf.log1p, pos), "tanh": (tf.tanh, r), "sigmoid": (tf.sigmoid, r),
    "identity": (tf.identity, r),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_unary_gradients(name, shape):
    fn, make = UNARY[name]
    check_gradients(fn, [make(*shape)])


def test_cast_gradient_casts_back():
    x = tf.placeholder(tf.float32, [2])
    g = tf.gradients(tf.cast(x, tf.float64) * 3.0, x)[0]
    with tf.Session() as sess:
        out = sess.run(g, {x: [1.0, 2.0]})
    assert out.dtype == np.float32 and out.tolist() == [3.0, 3.0]


BINARY = {
    "add": tf.add, "subtract": tf.subtract, "multiply": tf.multiply, "divide": tf.divide,
    "maximum": tf.maximum, "minimum": tf.minimum, "squared_difference": tf.squared_difference,
    "pow": tf.pow,
}
SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((5,), ()), ((1, 3), (2, 1))]


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_binary_gradients_with_broadcasting(name, shapes):
    a = pos(*shapes[0]) if name in ("pow", "divide") else r(*shapes[0])
    b = pos(*shapes[1]) if name in ("pow", "divide") else r(*shapes[1])
    check_gradients(BINARY[name], [a, b])


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_gradients(ta, tb):
    a = r(4, 3) if ta else r(3, 4)
    b = r(5, 4) if tb else r(4, 5)
    check_gradients(lambda x, y: tf.matmul(x, y, transpose_a=ta, transpose_b=tb), [a, b])


@pytest.mark.parametrize("ta,tb,sa,sb", [(False, False, (2, 3, 4), (4, 5)), (True, False, (2, 4, 3), (2, 4, 5)),
                                         (False, True, (3, 4), (2, 5, 4)), (True, True, (1, 4, 3), (2, 5, 4))])
def test_batch_matmul_gradients(ta, tb, sa, sb):
    check_gradients(lambda x, y: tf.matmul(x, y, transpose_a=ta, transpose_b=tb), [r(*sa), r(*sb)])


REDUCTIONS = {"sum": tf.reduce_sum, "mean": tf.reduce_mean, "max": tf.reduce_max, "min": tf.reduce_min,
              "prod": tf.reduce_prod}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 2], []], ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_gradients(name, axis, keepdims):
    x = r(2, 3, 4)
    if name == "prod":
        x[0, 1, 2] = 0.0  # a zero must not break the product's gradient
    check_gradients(lambda t: REDUCTIONS[name](t, axis=axis, keepdims=keepdims), [x])


def test_reduction_gradients_with_unknown_shapes():
    def build(x):
        y = tf.placeholder_with_default(x, [None, None, 4])
        return tf.reduce_mean(y, axis=[0, 1]) + tf.reduce_sum(y, axis=2, keepdims=True)[0, 0]
    check_gradients(build, [r(2, 3, 4)])


ARRAY = {
    "reshape": (lambda x: tf.reshape(x, [4, -1]), [(2, 3, 4)]),
    "transpose": (lambda x: tf.transpose(x, [2, 0, 1]), [(2, 3, 4)]),
    "transpose_default": (lambda x: tf.transpose(x), [(2, 3, 4)]),
    "expand_dims": (lambda x: tf.expand_dims(x, 1), [(2, 3)]),
    "squeeze": (lambda x: tf.squeeze(x, [1]), [(2, 1, 3)]),
    "split": (lambda x: tf.split(x, 2, axis=1)[1] * 2.0 + tf.split(x, 2, axis=1)[0], [(3, 4)]),
    "split_sizes": (lambda x: tf.concat(tf.split(x, [1, -1, 2], axis=2)[::-1], axis=2), [(2, 3, 5)]),
    "concat": (lambda x, y: tf.concat([x, y, x], axis=1), [(2, 3), (2, 1)]),
    "concat_unknown": (lambda x, y: tf.concat([tf.placeholder_with_default(x, [2, None]), y], axis=-1),
                       [(2, 3), (2, 1)]),
    "stack": (lambda x, y: tf.stack([x, y], axis=1), [(2, 3), (2, 3)]),
    "unstack": (lambda x: tf.unstack(x, axis=1)[2] * tf.unstack(x, axis=1)[0], [(2, 3, 2)]),
    "gather0": (lambda x: tf.gather(x, [2, 0, 2]), [(3, 4)]),
    "gather1": (lambda x: tf.gather(x, [[1, 1], [0, 3]], axis=1), [(2, 4, 3)]),
    "slice": (lambda x: tf.slice(x, [1, 0, 2], [1, -1, 2]), [(2, 3, 4)]),
    "getitem": (lambda x: x[1:, ::-2, tf.newaxis, 1], [(3, 4, 2)]),
    "getitem_ellipsis": (lambda x: x[..., 0] * x[0], [(2, 2)]),
    "tile": (lambda x: tf.tile(x, [2, 3]), [(2, 3)]),
    "pad": (lambda x: tf.pad(x, [[1, 2], [0, 1]]), [(2, 3)]),
    "pad_value": (lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=3.0), [(2, 3)]),
    "pad_reflect": (lambda x: tf.pad(x, [[2, 1], [1, 2]], mode="REFLECT"), [(4, 4)]),
    "pad_symmetric": (lambda x: tf.pad(x, [[2, 1], [1, 3]], mode="SYMMETRIC"), [(3, 4)]),
    "fill": (lambda v: tf.fill([2, 3], v), [()]),
    "add_n": (lambda x, y: tf.add_n([x, y, x]), [(2, 3), (2, 3)]),
    "where": (lambda x, y: tf.where(x > y, x, y * 2.0), [(3, 4), (3, 4)]),
    "clip": (lambda x: tf.clip_by_value(x, -0.5, 0.7), [(4, 5)]),
    "placeholder_with_default": (lambda x: tf.placeholder_with_default(x, [None, 3]) * 3.0, [(2, 3)]),
    "broadcast_chain": (lambda x, y: tf.reduce_sum((x + y) * (x - y), axis=0), [(3, 1), (1, 4)]),
}


@pytest.mark.parametrize("name", sorted(ARRAY))
def test_array_gradients(name):
    fn, shapes = ARRAY[name]
    check_gradients(fn, [r(*s) for s in shapes])


SECOND_ORDER = {
    "tanh": (tf.tanh, [(3,)]), "sigmoid": (tf.sigmoid, [(3,)]), "exp": (tf.exp, [(2, 2)]),
    "mul": (lambda x, y: x * y * x, [(2, 3), (3,)]), "divide": (lambda x, y: x / (y * y + 1.0), [(2, 3), (2, 3)]),
    "square_sub": (lambda x, y: tf.square(x - y), [(2, 3), (3,)]),
    "matmul": (lambda x, y: tf.matmul(tf.tanh(tf.matmul(x, y)), y, transpose_b=True), [(2, 3), (3, 4)]),
    "log_sqrt": (lambda x: tf.log(x) * tf.sqrt(x) + tf.rsqrt(x) + tf.reciprocal(x), [(4,)]),
    "reduce_mean": (lambda x: tf.reduce_mean(tf.square(x), axis=1), [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_gradients_of_gradients(name):
    fn, shapes = SECOND_ORDER[name]
    make = pos if name == "log_sqrt" else r
    check_gradients(fn, [make(*s) for s in shapes], order=2, rtol=1e-4, atol=1e-7)


# -- tf.gradients semantics -----------------------------------------------------------------


def test_unconnected_inputs_get_none_and_paths_are_summed():
    x = tf.placeholder(tf.float64, [])
    y = tf.placeholder(tf.float64, [])
    z = x * x + 3.0 * x
    gx, gy = tf.gradients(z, [x, y])
    assert gy is None
    with tf.Session() as sess:
        assert sess.run(gx, {x: 2.0}) == 7.0


def test_grad_ys_and_multiple_ys():
    x = tf.placeholder(tf.float64, [2])
    g = tf.gradients([x * 2.0, x * x], x, grad_ys=[tf.constant([1.0, 10.0], tf.float64), None])[0]
    with tf.Session() as sess:
        assert sess.run(g, {x: [1.0, 2.0]}).tolist() == [4.0, 24.0]


def test_stop_gradient_and_stop_gradients():
    x = tf.placeholder(tf.float64, [])
    a = x * x
    b = tf.stop_gradient(a) * x
    c = a * x
    with tf.Session() as sess:
        assert sess.run(tf.gradients(b, x)[0], {x: 3.0}) == 9.0
        assert sess.run(tf.gradients(c, x, stop_gradients=[a])[0], {x: 3.0}) == 9.0


def test_gradient_through_variables():
    w = tf.Variable([[1.0, 2.0]], dtype=tf.float64)
    x = tf.constant([[3.0], [4.0]], tf.float64)
    loss = tf.reduce_sum(tf.matmul(w, x))
    gw = tf.gradients(loss, w)[0]
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(gw).tolist() == [[3.0, 4.0]]


def test_missing_gradient_raises_lookup_error_naming_the_op_type():
    from distflow.framework.registry import register_op
    from distflow.ops.op_util import make_tensor

    register_op("TestNoGradOp", shape=lambda op: op.inputs[0].shape)(lambda xp, x: x)
    x = tf.placeholder(tf.float64, [2])
    y = make_tensor("TestNoGradOp", [x * 2.0], None, "nograd")
    with pytest.raises(LookupError, match="TestNoGradOp"):
        tf.gradients(y, x)


def test_integer_paths_carry_no_gradient():
    x = tf.placeholder(tf.float64, [3])
    y = tf.cast(tf.cast(x, tf.int32), tf.float64) + x
    with tf.Session() as sess:
        assert sess.run(tf.gradients(y, x)[0], {x: [1.5, 2.5, 3.5]}).tolist() == [1.0, 1.0, 1.0]


def test_colocate_gradients_with_ops():
    x = tf.placeholder(tf.float64, [2, 2])
    with tf.device("/gpu:1"):
        w = tf.Variable(tf.ones([2, 2], tf.float64))
        y = tf.matmul(x, w)
    with tf.device("/cpu:0"):
        loss = tf.reduce_sum(y)
        g_default = tf.gradients(loss, w)[0]
        g_colocated = tf.gradients(loss, w, colocate_gradients_with_ops=True)[0]
    matmul_grads = [op for op in tf.get_default_graph().get_operations()
                    if op.type == "MatMul" and op.name.startswith("gradients_1/")]
    assert matmul_grads and all(op.device == "/device:GPU:1" for op in matmul_grads)
    assert g_default.op.device == "/device:CPU:0"
    with tf.Session() as sess:
        sess.run(w.initializer)
        a, b = sess.run([g_default, g_colocated], {x: np.eye(2)})
        assert a.tolist() == b.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_colocated_gradients_sum_each_tensors_gradients_beside_its_op():
    x = tf.placeholder(tf.float64, [2, 2])
    with tf.device("/gpu:1"):
        w = tf.Variable(tf.ones([2, 2], tf.float64))
        y = tf.matmul(x, w, name="product")
    with tf.device("/cpu:0"):
        loss = tf.reduce_sum(y) + tf.reduce_sum(y * 2.0)  # (two paths into y: an AddN sums them)
        g = tf.gradients(loss, w, colocate_gradients_with_ops=True)[0]
    sums = [op for op in tf.get_default_graph().get_operations() if op.type == "AddN"]
    assert sums and all(op.colocation_groups() == [b"loc:@product"] for op in sums), \
        [(op.name, op.colocation_groups()) for op in sums]
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(g, {x: np.eye(2)}).tolist() == [[3.0, 3.0], [3.0, 3.0]]
