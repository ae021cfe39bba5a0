"""Math kernels against NumPy written the obvious way: shape, then dtype, then values."""

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate

RNG = np.random.default_rng(0)

BROADCAST_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((5,), ())]
FLOAT_TYPES = [np.float32, np.float64]
INT_TYPES = [np.int32, np.int64]


def sample(shape, dtype, low=-5, high=5, nonzero=False, positive=False):
    if np.issubdtype(dtype, np.floating):
        x = RNG.uniform(low, high, size=shape).astype(dtype)
    elif dtype == np.bool_:
        x = RNG.random(size=shape) > 0.5
    else:
        x = RNG.integers(low, high, size=shape).astype(dtype)
    if positive:
        x = np.abs(x) + (1 if not np.issubdtype(dtype, np.floating) else 0.5)
        x = x.astype(dtype)
    if nonzero:
        x = np.where(x == 0, 1, x).astype(dtype)
    return np.asarray(x, dtype=dtype)


def run_binary(fn, a, b):
    x = tf.placeholder(tf.as_dtype(a.dtype), a.shape)
    y = tf.placeholder(tf.as_dtype(b.dtype), b.shape)
    return evaluate(fn(x, y), {x: a, y: b})


# name: (distflow fn, NumPy oracle, dtypes, input options)
BINARY = {
    "add": (tf.add, np.add, FLOAT_TYPES + INT_TYPES, {}),
    "subtract": (tf.subtract, np.subtract, FLOAT_TYPES + INT_TYPES, {}),
    "multiply": (tf.multiply, np.multiply, FLOAT_TYPES + INT_TYPES, {}),
    "maximum": (tf.maximum, np.maximum, FLOAT_TYPES + INT_TYPES, {}),
    "minimum": (tf.minimum, np.minimum, FLOAT_TYPES + INT_TYPES, {}),
    "squared_difference": (tf.squared_difference, lambda a, b: (a - b) * (a - b), FLOAT_TYPES + INT_TYPES, {}),
    "floordiv": (tf.floordiv, np.floor_divide, FLOAT_TYPES + INT_TYPES, {"nonzero": True}),
    "mod": (tf.mod, np.mod, FLOAT_TYPES + INT_TYPES, {"nonzero": True}),
    "pow": (tf.pow, np.power, FLOAT_TYPES, {"positive": True}),
    "equal": (tf.equal, np.equal, FLOAT_TYPES + INT_TYPES, {}),
    "not_equal": (tf.not_equal, np.not_equal, FLOAT_TYPES + INT_TYPES, {}),
    "less": (tf.less, np.less, FLOAT_TYPES + INT_TYPES, {}),
    "less_equal": (tf.less_equal, np.less_equal, FLOAT_TYPES + INT_TYPES, {}),
    "greater": (tf.greater, np.greater, FLOAT_TYPES + INT_TYPES, {}),
    "greater_equal": (tf.greater_equal, np.greater_equal, FLOAT_TYPES + INT_TYPES, {}),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=str)
def test_binary_ops_broadcast_like_numpy(name, shapes):
    fn, oracle, types, opts = BINARY[name]
    for dtype in types:
        a = sample(shapes[0], dtype, **opts)
        b = sample(shapes[1], dtype, **opts)
        if name == "pow" and np.issubdtype(dtype, np.integer):
            continue
        assert_oracle(run_binary(fn, a, b), oracle(a, b), rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8, np.int16, np.uint8, np.float32, np.float64])
def test_truediv_casts_integers_like_tensorflow(dtype):
    a = sample((3, 4), dtype, 1, 9)
    b = sample((4,), dtype, 1, 9)
    want_type = {np.int32: np.float64, np.int64: np.float64}.get(dtype, np.float32 if dtype in
                                                                    (np.int8, np.int16, np.uint8) else dtype)
    want = a.astype(want_type) / b.astype(want_type)
    assert_oracle(run_binary(tf.truediv, a, b), want)
    assert_oracle(run_binary(lambda x, y: x / y, a, b), want)
    assert_oracle(run_binary(tf.divide, a, b), want)


def test_pow_with_integers():
    a = np.array([1, 2, 3], np.int32)
    b = np.array([3, 2, 0], np.int32)
    assert_oracle(run_binary(tf.pow, a, b), np.power(a, b))


def test_integer_division_by_zero_is_an_invalid_argument_error():
    a = np.array([1, 2], np.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        run_binary(tf.floordiv, a, np.array([1, 0], np.int32))


@pytest.mark.parametrize("fn,oracle", [(tf.logical_and, np.logical_and), (tf.logical_or, np.logical_or),
                                       (tf.logical_xor, np.logical_xor)])
def test_logical_binary(fn, oracle):
    for sa, sb in BROADCAST_SHAPES:
        a, b = sample(sa, np.bool_), sample(sb, np.bool_)
        assert_oracle(run_binary(fn, a, b), oracle(a, b))


def test_equal_on_strings_and_bools():
    a = tf.constant(["a", "b", "c"])
    assert_oracle(evaluate(tf.equal(a, "b")), np.array([False, True, False]))
    assert_oracle(evaluate(tf.not_equal(tf.constant([True, False]), True)), np.array([False, True]))


UNARY = {
    "negative": (tf.negative, np.negative, FLOAT_TYPES + INT_TYPES, {}),
    "abs": (tf.abs, np.abs, FLOAT_TYPES + INT_TYPES, {}),
    "sign": (tf.sign, np.sign, FLOAT_TYPES + INT_TYPES, {}),
    "square": (tf.square, np.square, FLOAT_TYPES + INT_TYPES, {}),
    "sqrt": (tf.sqrt, np.sqrt, FLOAT_TYPES, {"positive": True}),
    "rsqrt": (tf.rsqrt, lambda x: 1 / np.sqrt(x), FLOAT_TYPES, {"positive": True}),
    "reciprocal": (tf.reciprocal, lambda x: 1 / x, FLOAT_TYPES, {"nonzero": True}),
    "exp": (tf.exp, np.exp, FLOAT_TYPES, {}),
    "log": (tf.log, np.log, FLOAT_TYPES, {"positive": True}),
    "log1p": (tf.log1p, np.log1p, FLOAT_TYPES, {"positive": True}),
    "tanh": (tf.tanh, np.tanh, FLOAT_TYPES, {}),
    "sigmoid": (tf.sigmoid, lambda x: 1 / (1 + np.exp(-x)), FLOAT_TYPES, {}),
    "floor": (tf.floor, np.floor, FLOAT_TYPES, {}),
    "ceil": (tf.ceil, np.ceil, FLOAT_TYPES, {}),
    "round": (tf.round, np.round, FLOAT_TYPES + INT_TYPES, {}),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(), (7,), (2, 3, 4)], ids=str)
def test_unary_ops(name, shape):
    fn, oracle, types, opts = UNARY[name]
    for dtype in types:
        x = sample(shape, dtype, **opts)
        p = tf.placeholder(tf.as_dtype(dtype), shape)
        want = np.asarray(oracle(x)).astype(dtype)
        assert_oracle(evaluate(fn(p), {p: x}), want, rtol=2e-6 if dtype == np.float32 else 1e-12)


def test_sigmoid_does_not_overflow():
    x = np.array([-1000.0, 0.0, 1000.0], np.float32)
    assert_oracle(evaluate(tf.sigmoid(x)), np.array([0.0, 0.5, 1.0], np.float32))


def test_float_only_ops_reject_integers():
    with pytest.raises(TypeError, match="'Sqrt'.*int32"):
        tf.sqrt(tf.constant([1, 2]))


def test_logical_not_and_operators():
    x = np.array([True, False])
    t = tf.constant(x)
    assert_oracle(evaluate(tf.logical_not(t)), ~x)
    assert_oracle(evaluate(~t), ~x)
    assert_oracle(evaluate(t & tf.constant([True, True])), x)
    assert_oracle(evaluate(t | tf.constant([False, True])), np.array([True, True]))


@pytest.mark.parametrize("src,dst", [(np.float32, np.int32), (np.float64, np.float32), (np.int32, np.float64),
                                     (np.int64, np.bool_), (np.bool_, np.float32), (np.float32, np.uint8)])
def test_cast(src, dst):
    x = sample((3, 2), src, 0, 9) if src != np.bool_ else sample((3, 2), src)
    if src == np.float32 and dst == np.int32:
        x = np.array([[-1.7, 1.7], [2.5, -2.5], [0.0, 3.9]], np.float32)  # truncates toward zero
    assert_oracle(evaluate(tf.cast(x, tf.as_dtype(dst))), x.astype(dst))


@pytest.mark.parametrize("dtype", FLOAT_TYPES + INT_TYPES)
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul(dtype, ta, tb):
    a = sample((3, 4), dtype)
    b = sample((4, 5), dtype)
    a_in, b_in = (a.T.copy() if ta else a), (b.T.copy() if tb else b)
    got = run_binary(lambda x, y: tf.matmul(x, y, transpose_a=ta, transpose_b=tb), a_in, b_in)
    assert_oracle(got, a @ b, rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_of_large_arrays_in_either_layout_is_numpys_maximum(dtype):
    """ReLU takes a large float array as rows against a row of zeros (NumPy's loop against
    a scalar is not vectorized): any size, C- or Fortran-ordered, NaN and -0.0 kept as
    ``np.maximum(x, 0)`` keeps them, in place or into a new array."""
    from distflow.ops.nn_ops import _max_zero

    rng = np.random.default_rng(3)  # (its own: the draws of the shared one stay as they were)
    for shape in [(3, 4097), (4096 * 2,), (1000, 3), (700, 33)]:
        x = rng.uniform(-5, 5, shape).astype(dtype)
        x.reshape(-1)[:3] = [np.nan, -0.0, -np.inf]
        want = np.maximum(x, 0)
        for arr in (x, np.asfortranarray(x)):
            assert_oracle(_max_zero(np, arr), want, rtol=0, atol=0)
            inplace = arr.copy(order="K")
            assert _max_zero(np, inplace, inplace) is inplace
            assert_oracle(inplace, want, rtol=0, atol=0)
        assert_oracle(evaluate(tf.nn.relu(tf.constant(x))), want, rtol=0, atol=0)


def test_a_transposed_product_feeds_elementwise_ops_with_numpys_values():
    """A product of few rows times a transposed matrix comes back transposed (its
    Fortran-ordered result computes faster); the ReLU gradient and the sums after it give
    NumPy's values, and no kernel writes in place into that buffer beside a C-ordered
    operand (NumPy's loop over the two is 4x slower than into a fresh array)."""
    from distflow.ops.op_util import writable_like

    g, w, y = sample((16, 10), np.float32), sample((24, 10), np.float32), sample((16, 24), np.float32)
    product = tf.matmul(tf.constant(g), tf.constant(w), transpose_b=True)
    features = tf.constant(y)
    (relu_grad,) = tf.gradients(tf.nn.relu(features), [features], grad_ys=[product])  # (a ReluGrad)
    got = evaluate([relu_grad, product + tf.constant(y), tf.reduce_sum(relu_grad, 0)])
    want = (g @ w.T) * (y > 0)
    # (float32 sums of ten products of up to 25: an element near 0 may differ by 1e-6 or so)
    assert_oracle(got[0], want, rtol=1e-5, atol=1e-5)
    assert_oracle(got[1], g @ w.T + y, rtol=1e-5, atol=1e-5)
    assert_oracle(got[2], want.sum(0), rtol=1e-5, atol=1e-5)
    c = sample((128, 64), np.float32)
    f = np.asfortranarray(c)
    assert writable_like(f, c) is None and writable_like(f, f) is f and writable_like(c, f) is c
    # (a small array is never reused: allocating one is cheaper than the checks)
    assert writable_like(y.copy(), y) is None


@pytest.mark.parametrize("threads", [1, 2])
def test_products_of_few_rows_are_computed_as_their_transpose_where_that_pays(threads, monkeypatch):
    """Which products come back as a transpose's Fortran-ordered result (math_ops' rule),
    each with NumPy's values."""
    from distflow.framework.registry import get_registration
    from distflow.ops import blas

    monkeypatch.setattr(blas, "intra_op_threads", lambda: threads)
    kernel = get_registration("MatMul").kernel
    rng = np.random.default_rng(5)
    cases = [  # (rows, inner, columns, b transposed?, Fortran-ordered result on 1 thread, on 2)
        (100, 30, 40, True, True, True), (200, 30, 40, True, False, True), (300, 30, 40, True, False, False),
        (100, 30, 200, False, False, True), (100, 30, 150, False, False, False), (300, 30, 700, False, False, False)]
    for rows, inner, cols, transposed, on_one, on_two in cases:
        a = rng.standard_normal((rows, inner)).astype(np.float32)
        w = rng.standard_normal((cols, inner) if transposed else (inner, cols)).astype(np.float32)
        got = kernel(np, a, w, transpose_b=transposed)
        want = a.astype(np.float64) @ (w.T if transposed else w).astype(np.float64)
        assert_oracle(got, want.astype(np.float32), rtol=1e-5, atol=1e-5)
        want_fortran = on_two if threads == 2 else on_one
        assert got.flags.f_contiguous == want_fortran and got.flags.c_contiguous != want_fortran, (rows, cols)


def test_batch_matmul_broadcasts():
    a = sample((2, 3, 4), np.float64)
    b = sample((4, 5), np.float64)
    assert_oracle(run_binary(tf.matmul, a, b), a @ b)
    c = sample((2, 5, 4), np.float64)
    assert_oracle(run_binary(lambda x, y: tf.matmul(x, y, transpose_b=True), a, c), a @ np.swapaxes(c, -1, -2))
    assert_oracle(run_binary(lambda x, y: x @ y, a, b), a @ b)


def test_add_n():
    xs = [sample((2, 3), np.float32) for _ in range(4)]
    assert_oracle(evaluate(tf.add_n([tf.constant(x) for x in xs])), xs[0] + xs[1] + xs[2] + xs[3])
    assert_oracle(evaluate(tf.add_n([tf.constant(xs[0])])), xs[0])
    ints = [np.array([1, 2], np.int64), np.array([3, 4], np.int64), np.array([5, 6], np.int64)]
    assert_oracle(evaluate(tf.add_n(ints)), sum(ints))


REDUCTIONS = {
    "reduce_sum": (tf.reduce_sum, np.sum),
    "reduce_prod": (tf.reduce_prod, np.prod),
    "reduce_max": (tf.reduce_max, np.max),
    "reduce_min": (tf.reduce_min, np.min),
    "reduce_mean": (tf.reduce_mean, np.mean),
}
AXES = [None, 0, 1, -1, [0, 2], [-1, 0], []]


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(name, axis, keepdims):
    fn, oracle = REDUCTIONS[name]
    for dtype in (np.float32, np.float64, np.int32):
        x = sample((2, 3, 4), dtype, -3, 4)
        np_axis = tuple(axis) if isinstance(axis, list) else axis
        if name == "reduce_mean" and dtype == np.int32:
            total = np.sum(x, axis=np_axis, keepdims=keepdims, dtype=np.int64)
            count = x.size // max(1, np.sum(np.ones_like(x), axis=np_axis, keepdims=keepdims).size) \
                if np_axis != () else 1
            want = (np.sign(total) * (np.abs(total) // count)).astype(np.int32)
        else:
            want = np.asarray(oracle(x, axis=np_axis, keepdims=keepdims)).astype(dtype)
        got = evaluate(fn(tf.constant(x), axis=axis, keepdims=keepdims))
        assert_oracle(got, want, rtol=1e-5)


@pytest.mark.parametrize("shape,axis", [((12, 30, 8), 1), ((8, 100, 16), 1), ((4, 6, 50, 3), 2), ((4, 6, 50, 3), -3),
                                        ((3, 600, 200), 1)])
def test_sums_and_means_over_a_middle_axis(shape, axis):
    # (a middle axis with few elements after it is summed as a product with ones: the oracle
    # is the float64 sum)
    x = sample(shape, np.float32)
    want = x.astype(np.float64).sum(axis=axis, keepdims=True)
    p = tf.placeholder(tf.float32)
    with tf.Session() as sess:
        for keepdims in (False, True):
            got_sum, got_mean, got_t = sess.run(
                [tf.reduce_sum(p, axis, keepdims=keepdims), tf.reduce_mean(p, axis, keepdims=keepdims),
                 tf.reduce_sum(tf.transpose(p), x.ndim - 1 - axis % x.ndim, keepdims=keepdims)], {p: x})
            shaped = want if keepdims else want.squeeze(axis)
            assert got_sum.dtype == np.float32 and got_sum.shape == shaped.shape
            np.testing.assert_allclose(got_sum, shaped, rtol=1e-5, atol=1e-4)
            np.testing.assert_allclose(got_mean, shaped / x.shape[axis], rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(got_t, shaped.T, rtol=1e-5, atol=1e-4)


def test_reduce_legacy_argument_names():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_oracle(evaluate(tf.reduce_sum(x, reduction_indices=[1], keep_dims=True)), x.sum(1, keepdims=True))


def test_reduce_all_any():
    x = np.array([[True, False], [True, True]])
    assert_oracle(evaluate(tf.reduce_all(x, axis=1)), x.all(1))
    assert_oracle(evaluate(tf.reduce_any(x)), np.bool_(x.any()))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argmax_argmin(axis):
    x = sample((4, 5), np.float32)
    assert_oracle(evaluate(tf.argmax(x, axis=axis)), np.argmax(x, axis=axis).astype(np.int64))
    assert_oracle(evaluate(tf.argmin(x, axis=axis, output_type=tf.int32)), np.argmin(x, axis=axis).astype(np.int32))


def test_where_three_arguments_and_tf1_vector_condition():
    x, y = sample((3, 4), np.float32), sample((3, 4), np.float32)
    cond = x > y
    assert_oracle(evaluate(tf.where(cond, x, y)), np.where(cond, x, y))
    rows = np.array([True, False, True])
    assert_oracle(evaluate(tf.where(rows, x, y)), np.where(rows[:, None], x, y))
    assert_oracle(evaluate(tf.where(tf.constant(cond), x, 0.0)), np.where(cond, x, np.float32(0)))


def test_where_one_argument_gives_indices():
    cond = np.array([[True, False], [False, True], [True, True]])
    assert_oracle(evaluate(tf.where(cond)), np.argwhere(cond).astype(np.int64))


def test_clip_by_value():
    x = sample((3, 4), np.float32)
    assert_oracle(evaluate(tf.clip_by_value(x, -1.0, 2.0)), np.clip(x, -1, 2))
    lo = np.full((4,), -0.5, np.float32)
    assert_oracle(evaluate(tf.clip_by_value(x, lo, 1.0)), np.clip(x, lo, 1))


def test_range():
    assert_oracle(evaluate(tf.range(5)), np.arange(5, dtype=np.int32))
    assert_oracle(evaluate(tf.range(1, 10, 3)), np.arange(1, 10, 3, dtype=np.int32))
    assert_oracle(evaluate(tf.range(0.0, 1.0, 0.25)), np.arange(0, 1, 0.25, dtype=np.float32))
    assert evaluate(tf.range(0.0, 1.0, 0.25)).shape == tuple(tf.range(0.0, 1.0, 0.25).shape.as_list())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_kernels_of_large_arrays_in_pieces(dtype):
    """Over 1 MB: computed in pieces at once, into a new array or (its input dead) in place."""
    x = np.random.default_rng(3).standard_normal((300, 1000)).astype(dtype)
    fns = {"sigmoid": (tf.sigmoid, lambda v: 1 / (1 + np.exp(-v))), "exp": (tf.exp, np.exp),
           "tanh": (tf.tanh, np.tanh), "neg": (tf.negative, np.negative), "square": (tf.square, np.square)}
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for fn, want in fns.values():
        t = tf.constant(x)
        got_new, got_in_place = evaluate([fn(t), fn(t * 2)])  # (t * 2 is dead once read)
        assert_oracle(got_new, want(x.astype(np.float64)).astype(dtype), rtol=tol, atol=tol)
        assert_oracle(got_in_place, want(2 * x.astype(np.float64)).astype(dtype), rtol=tol, atol=tol)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's, for the empty mean)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_and_means_over_leading_axes(dtype):
    """A batch's positions reduced per channel (BLAS sums large ones), any axis order, kept or not."""
    x = np.random.default_rng(5).standard_normal((32, 20, 20, 16)).astype(dtype)
    x64 = x.astype(np.float64)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    got = evaluate([tf.reduce_sum(x, [0, 1, 2]), tf.reduce_mean(x, [2, 0, 1], keepdims=True),
                    tf.reduce_mean(x, [-4, -3]), tf.reduce_sum(x[:2, :2], [0])])
    want = [x64.sum((0, 1, 2)), x64.mean((0, 1, 2), keepdims=True), x64.mean((0, 1)), x64[:2, :2].sum(0)]
    for g, w in zip(got, want):
        assert_oracle(g, w.astype(dtype), rtol=tol, atol=tol * 100)
    empty = evaluate(tf.reduce_mean(tf.placeholder_with_default(np.zeros((0, 3), dtype), [None, 3]), [0]))
    assert np.isnan(empty).all()
    # a Fortran-ordered matrix (a product computed as its transpose), summed over its rows
    from distflow.ops.array_ops import sum_leading_axes
    turned = np.asfortranarray(x.reshape(-1, 16 * 20))
    assert_oracle(sum_leading_axes(np, turned, 1), turned.astype(np.float64).sum(0).astype(dtype),
                  rtol=tol, atol=tol * 100)


@pytest.mark.parametrize("width", [1, 5, 31, 32, 200])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_rows_added_at_repeated_indices_are_numpys_add_at(width, dtype):
    # narrow rows go through the flattened arrays, wide ones through sorted layers; a
    # frequent index (many rows) and indices never hit; an int32 index
    from distflow.ops.op_util import add_rows_at
    rng = np.random.default_rng(width)
    index = np.concatenate([rng.integers(0, 50, 300), np.full(40, 7)]).astype(np.int32)
    rows = (rng.standard_normal((index.size, width)) + (1j * rng.standard_normal((index.size, width))
                                                         if dtype == np.complex64 else 0)).astype(dtype)
    want = np.zeros((60, width), dtype)
    np.add.at(want, index, rows)
    got = np.zeros((60, width), dtype)
    add_rows_at(got, index, rows)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    transposed = np.zeros((width, 60), dtype).T  # (not C-ordered: the layered sums)
    add_rows_at(transposed, index, rows)
    np.testing.assert_allclose(transposed, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint16,
                                   np.bool_])
def test_select_of_large_arrays_is_numpys_where_bit_for_bit(dtype):
    # (large arrays pick bits through a mask: NaN, infinities, -0.0 and every integer kept
    # exactly; a condition that broadcasts; a transposed operand)
    rng = np.random.default_rng(3)
    shape = (64, 9, 32)

    def values():
        if dtype == np.bool_:
            return rng.random(shape) < 0.5
        if np.dtype(dtype).kind == "f":
            v = rng.standard_normal(shape).astype(dtype)
            v.reshape(-1)[:4] = [np.nan, np.inf, -np.inf, -0.0]
            return v
        return rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, shape, dtype=dtype, endpoint=True)

    x, y = values(), values()
    cond = rng.random(shape) < 0.5
    for c, a, b in ((cond, x, y), (cond[:1, :, :1], x, y), (cond[0, 0], x, y),
                    (cond.transpose(2, 1, 0), x.transpose(2, 1, 0), np.ascontiguousarray(y.transpose(2, 1, 0)))):
        for got in (evaluate(tf.where_v2(tf.constant(c), tf.constant(a), tf.constant(b))),
                    evaluate(tf.where(tf.constant(np.broadcast_to(c, a.shape)), tf.constant(a), tf.constant(b)))):
            want = np.where(c, a, b)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.tobytes() == np.ascontiguousarray(want).tobytes()
