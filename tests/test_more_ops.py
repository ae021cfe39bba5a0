"""The wider op set (special math, manipulation, segments, einsum, linear algebra, checks,
scatters): each against NumPy written the obvious way, gradients against central differences."""

import math

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate
from gradcheck import check_gradients


def r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def unit(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-0.9, 0.9, shape)


UNARY = {
    "acos": (tf.acos, np.arccos, unit), "asin": (tf.asin, np.arcsin, unit), "atan": (tf.atan, np.arctan, r),
    "acosh": (tf.acosh, np.arccosh, lambda *s, seed=0: 1.5 + np.abs(r(*s, seed=seed))), "asinh": (tf.asinh, np.arcsinh, r),
    "atanh": (tf.atanh, np.arctanh, unit), "sinh": (tf.sinh, np.sinh, r), "cosh": (tf.cosh, np.cosh, r),
    "tan": (tf.tan, np.tan, unit), "expm1": (tf.expm1, np.expm1, r),
    "erf": (tf.erf, np.vectorize(math.erf), r), "erfc": (tf.erfc, np.vectorize(math.erfc), r),
    "log_sigmoid": (tf.log_sigmoid, lambda x: -np.logaddexp(0, -x), r),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_math_values_and_gradients(name):
    fn, oracle, make = UNARY[name]
    x = make(3, 4)
    assert_oracle(evaluate(fn(x)), oracle(x), rtol=1e-10, atol=1e-12)
    check_gradients(fn, [make(3, 4, seed=1)])


def test_predicates_rint_and_truncating_division():
    x = np.array([1.0, np.inf, -np.inf, np.nan, 2.5, -2.5])
    assert_oracle(evaluate(tf.is_finite(x)), np.isfinite(x))
    assert_oracle(evaluate(tf.is_inf(x)), np.isinf(x))
    assert_oracle(evaluate(tf.is_nan(x)), np.isnan(x))
    assert_oracle(evaluate(tf.rint(np.array([0.5, 1.5, 2.5, -0.5]))), np.array([0.0, 2.0, 2.0, -0.0]))
    a, b = np.array([7, -7, 7, -7]), np.array([2, 2, -2, -2])
    assert_oracle(evaluate(tf.truncatediv(a, b)), np.array([3, -3, -3, 3]))
    assert_oracle(evaluate(tf.truncatemod(a, b)), np.fmod(a, b))
    assert_oracle(evaluate(tf.floordiv(a, b)), a // b)


def test_atan2_and_div_no_nan():
    y, x = r(3, 4), r(3, 4, seed=1)
    assert_oracle(evaluate(tf.atan2(y, x)), np.arctan2(y, x), rtol=1e-12)
    check_gradients(tf.atan2, [y, x])
    num, den = r(4), np.array([1.0, 0.0, -2.0, 0.0])
    assert_oracle(evaluate(tf.div_no_nan(num, den)), np.where(den == 0, 0.0, num / np.where(den == 0, 1, den)))
    check_gradients(tf.div_no_nan, [r(4), np.array([1.0, 2.0, -2.0, 3.0])])


def test_reverse_roll_diagonals_bands_and_trace():
    x = r(2, 3, 4)
    assert_oracle(evaluate(tf.reverse(x, [0, 2])), x[::-1, :, ::-1])
    assert_oracle(evaluate(tf.roll(x, [1, -2], [1, 2])), np.roll(x, [1, -2], axis=[1, 2]))
    m = r(2, 3, 3)
    assert_oracle(evaluate(tf.matrix_diag_part(m)), np.diagonal(m, axis1=-2, axis2=-1))
    d = r(2, 3)
    assert_oracle(evaluate(tf.matrix_diag(d)), np.stack([np.diag(row) for row in d]))
    assert_oracle(evaluate(tf.diag([1.0, 2.0])), np.diag([1.0, 2.0]).astype(np.float32))
    assert_oracle(evaluate(tf.trace(m)), np.trace(m, axis1=-2, axis2=-1), rtol=1e-12)
    band = evaluate(tf.matrix_band_part(np.ones((4, 4)), 1, 0))
    assert_oracle(band, np.tril(np.ones((4, 4))) - np.tril(np.ones((4, 4)), -2))
    assert_oracle(evaluate(tf.eye(2, 3)), np.eye(2, 3, dtype=np.float32))
    assert_oracle(evaluate(tf.matrix_transpose(x)), np.swapaxes(x, -1, -2))
    for fn, inputs in [(lambda t: tf.reverse(t, [1]), [r(2, 3)]), (lambda t: tf.roll(t, 1, 0), [r(3, 2)]),
                       (tf.matrix_diag_part, [r(2, 3, 3)]), (tf.matrix_diag, [r(2, 3)]),
                       (lambda t: tf.matrix_band_part(t, 0, 1), [r(3, 3)]),
                       (lambda a, b: tf.matrix_set_diag(a, b), [r(3, 3), r(3)])]:
        check_gradients(fn, inputs)


def test_linspace_meshgrid_repeat_masks():
    assert_oracle(evaluate(tf.linspace(0.0, 1.0, 5)), np.linspace(0, 1, 5, dtype=np.float32))
    gx, gy = evaluate(tf.meshgrid([1, 2, 3], [4, 5]))
    nx, ny = np.meshgrid([1, 2, 3], [4, 5])
    assert_oracle(gx, nx.astype(np.int32)) or assert_oracle(gy, ny.astype(np.int32))
    ix, _ = evaluate(tf.meshgrid([1, 2, 3], [4, 5], indexing="ij"))
    assert_oracle(ix, np.meshgrid([1, 2, 3], [4, 5], indexing="ij")[0].astype(np.int32))
    x = np.arange(6).reshape(2, 3)
    assert_oracle(evaluate(tf.repeat(x, 2, axis=1)), np.repeat(x, 2, axis=1))
    assert_oracle(evaluate(tf.sequence_mask([1, 3, 0], 4)), np.arange(4) < np.array([[1], [3], [0]]))
    mask = np.array([True, False, True])
    assert_oracle(evaluate(tf.boolean_mask(r(3, 2), mask)), r(3, 2)[mask])


def test_cumulative_ops_match_numpy_and_have_gradients():
    x = r(3, 4)
    assert_oracle(evaluate(tf.cumsum(x, axis=1)), np.cumsum(x, 1), rtol=1e-12)
    assert_oracle(evaluate(tf.cumsum(x, axis=1, exclusive=True)),
                  np.concatenate([np.zeros((3, 1)), np.cumsum(x, 1)[:, :-1]], 1), rtol=1e-12)
    assert_oracle(evaluate(tf.cumsum(x, axis=1, reverse=True)), np.cumsum(x[:, ::-1], 1)[:, ::-1], rtol=1e-12)
    assert_oracle(evaluate(tf.cumprod(x, axis=0)), np.cumprod(x, 0), rtol=1e-12)
    for kw in [{}, {"exclusive": True}, {"reverse": True}, {"exclusive": True, "reverse": True}]:
        check_gradients(lambda t, kw=kw: tf.cumsum(t, 1, **kw), [r(2, 4)])
        check_gradients(lambda t, kw=kw: tf.cumprod(t, 1, **kw), [r(2, 4) + 3])


def test_sort_and_argsort():
    x = np.array([[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 2.0]])
    assert_oracle(evaluate(tf.argsort(x)), np.argsort(x, kind="stable").astype(np.int32))
    assert_oracle(evaluate(tf.sort(x, direction="DESCENDING")), -np.sort(-x))
    check_gradients(lambda t: tf.sort(t), [r(2, 5)])


def test_segment_reductions():
    data = r(6, 2)
    ids = np.array([0, 0, 1, 3, 3, 3])
    for tf_fn, np_fn in [(tf.segment_sum, np.sum), (tf.segment_mean, np.mean), (tf.segment_max, np.max),
                         (tf.segment_min, np.min), (tf.segment_prod, np.prod)]:
        got = evaluate(tf_fn(data, ids))
        want = np.stack([np_fn(data[ids == i], axis=0) if np.any(ids == i) else got[i] for i in range(4)])
        assert_oracle(got, want, rtol=1e-12)
    assert_oracle(evaluate(tf.unsorted_segment_sum(data, np.array([2, 0, -1, 2, 0, 1]), 3)),
                  np.stack([data[[1, 4]].sum(0), data[5], data[[0, 3]].sum(0)]), rtol=1e-12)
    for fn in [lambda d: tf.unsorted_segment_sum(d, [1, 0, 1], 2), lambda d: tf.unsorted_segment_max(d, [1, 0, 1], 2),
               lambda d: tf.unsorted_segment_mean(d, [1, 0, 1], 2), lambda d: tf.segment_sqrt_n(d) if False else
               tf.unsorted_segment_sqrt_n(d, [0, 0, 1], 2)]:
        check_gradients(fn, [r(3, 2)])


def test_dynamic_partition_and_stitch_round_trip():
    data = r(5, 2)
    parts = np.array([1, 0, 1, 2, 0])
    outs = evaluate(tf.dynamic_partition(data, parts, 3))
    for i in range(3):
        assert_oracle(outs[i], data[parts == i])
    index = [np.nonzero(parts == i)[0] for i in range(3)]
    assert_oracle(evaluate(tf.dynamic_stitch([tf.constant(i, dtype=tf.int32) for i in index], outs)), data)
    check_gradients(lambda d: tf.dynamic_partition(d, parts, 3)[0] * 2, [r(5, 2)])


def test_unique_setdiff_bincount_count_nonzero_confusion_matrix():
    values, idx, counts = evaluate(tf.unique_with_counts([4, 1, 4, 2, 1, 4]))
    assert values.tolist() == [4, 1, 2] and idx.tolist() == [0, 1, 0, 2, 1, 0] and counts.tolist() == [3, 2, 1]
    out, positions = evaluate(tf.setdiff1d([1, 2, 3, 4, 5], [2, 4]))
    assert out.tolist() == [1, 3, 5] and positions.tolist() == [0, 2, 4]
    assert evaluate(tf.bincount([1, 1, 3])).tolist() == [0, 2, 0, 1]
    assert evaluate(tf.count_nonzero([[0, 1], [2, 0]], axis=1)).tolist() == [1, 1]
    cm = evaluate(tf.confusion_matrix([0, 1, 1, 2], [0, 2, 1, 2]))
    assert cm.tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]


def test_einsum_tensordot_cross_norm_logsumexp():
    a, b = r(2, 3), r(3, 4, seed=1)
    assert_oracle(evaluate(tf.einsum("ij,jk->ik", a, b)), a @ b, rtol=1e-12)
    assert_oracle(evaluate(tf.einsum("ij,jk", a, b)), a @ b, rtol=1e-12)
    c = r(2, 3, 4)
    assert_oracle(evaluate(tf.einsum("bij,bjk->bik", c, r(2, 4, 5))), np.einsum("bij,bjk->bik", c, r(2, 4, 5)),
                  rtol=1e-12)
    assert_oracle(evaluate(tf.tensordot(c, r(4, 3, seed=2), [[1, 2], [1, 0]])),
                  np.tensordot(c, r(4, 3, seed=2), [[1, 2], [1, 0]]), rtol=1e-12)
    check_gradients(lambda x, y: tf.einsum("ij,jk->ik", x, y), [a, b])
    check_gradients(lambda x, y: tf.tensordot(x, y, 1), [a, b])
    u, v = r(4, 3), r(4, 3, seed=1)
    assert_oracle(evaluate(tf.cross(u, v)), np.cross(u, v), rtol=1e-12)
    check_gradients(tf.cross, [u, v])
    assert_oracle(evaluate(tf.norm(a)), np.linalg.norm(a), rtol=1e-12)
    assert_oracle(evaluate(tf.norm(a, ord=1, axis=1)), np.abs(a).sum(1), rtol=1e-12)
    big = np.array([[1000.0, 1000.0], [-1.0, 2.0]])
    assert_oracle(evaluate(tf.reduce_logsumexp(big, axis=1)), np.log(np.exp(big - big.max(1, keepdims=True)).sum(1))
                  + big.max(1), rtol=1e-12)
    check_gradients(lambda t: tf.reduce_logsumexp(t, 1), [r(3, 4)])


def test_linear_algebra_against_numpy():
    a = r(3, 3) + 3 * np.eye(3)
    b = r(3, 2, seed=1)
    assert_oracle(evaluate(tf.matrix_determinant(a)), np.linalg.det(a), rtol=1e-10)
    assert_oracle(evaluate(tf.matrix_inverse(a)), np.linalg.inv(a), rtol=1e-10)
    assert_oracle(evaluate(tf.matrix_solve(a, b)), np.linalg.solve(a, b), rtol=1e-10)
    spd = a @ a.T
    assert_oracle(evaluate(tf.cholesky(spd)), np.linalg.cholesky(spd), rtol=1e-10)
    assert_oracle(evaluate(tf.cholesky_solve(tf.cholesky(spd), b)), np.linalg.solve(spd, b), rtol=1e-8)
    e, v = evaluate(tf.self_adjoint_eig(spd))
    assert_oracle(e, np.linalg.eigh(spd)[0], rtol=1e-10)
    s = evaluate(tf.svd(a, compute_uv=False))
    assert_oracle(s, np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    root = evaluate(tf.linalg.sqrtm(spd))
    np.testing.assert_allclose(root @ root, spd, rtol=1e-8)
    for fn, inputs in [(tf.matrix_determinant, [a]), (tf.matrix_inverse, [a]), (tf.matrix_solve, [a, b])]:
        check_gradients(fn, inputs, rtol=1e-4)
    with pytest.raises(tf.errors.InvalidArgumentError, match="singular"):
        evaluate(tf.matrix_inverse(np.zeros((2, 2))))


def test_adjoint_solves_and_inverses_conjugate_a_complex_matrix_and_differentiate():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))
    adj = a.conj().T
    assert_oracle(evaluate(tf.matrix_inverse(a, adjoint=True)), np.linalg.inv(adj), rtol=1e-10)
    assert_oracle(evaluate(tf.matrix_solve(a, b, adjoint=True)), np.linalg.solve(adj, b), rtol=1e-10)
    assert_oracle(evaluate(tf.matrix_triangular_solve(a, b, adjoint=True)), np.linalg.solve(np.tril(a).conj().T, b),
                  rtol=1e-10)
    real, rhs = r(3, 3) + 3 * np.eye(3), r(3, 2, seed=1)
    check_gradients(lambda t: tf.matrix_inverse(t, adjoint=True), [real], rtol=1e-4)
    check_gradients(lambda t, u: tf.matrix_solve(t, u, adjoint=True), [real, rhs], rtol=1e-4)


def test_assertions_fail_the_step_naming_the_assertion():
    x = tf.placeholder(tf.float32, [None])
    check = tf.assert_positive(x, message="x must be positive")
    with tf.control_dependencies([check]):
        y = tf.identity(x * 2)
    with tf.Session() as sess:
        assert sess.run(y, {x: [1.0, 2.0]}).tolist() == [2.0, 4.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
            sess.run(y, {x: [1.0, -2.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="boom"):
            sess.run(tf.Assert(tf.less(x[0], 0.0), ["boom", x]), {x: [3.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor had NaN values"):
            sess.run(tf.check_numerics(x, "checking x"), {x: [np.nan]})
    with pytest.raises(ValueError, match="must have rank 2"):
        tf.assert_rank(tf.zeros([3]), 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
        tf.assert_equal(tf.constant(1), tf.constant(2))  # decided when built, as TF 1.x does


def test_scatter_updates_on_variables_and_tensors():
    v = tf.Variable(np.zeros((4, 2), np.float32))
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(tf.scatter_update(v, [1, 3], [[1.0, 1.0], [3.0, 3.0]]))
        sess.run(tf.scatter_add(v, [1, 1], [[1.0, 2.0], [1.0, 2.0]]))
        sess.run(tf.scatter_nd_sub(v, [[0, 1]], [5.0]))
        assert sess.run(v).tolist() == [[0.0, -5.0], [3.0, 5.0], [0.0, 0.0], [3.0, 3.0]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in"):
            sess.run(tf.scatter_update(v, [7], [[0.0, 0.0]]))
    t = np.arange(6.0).reshape(3, 2)
    got = evaluate(tf.tensor_scatter_update(t, [[2], [0]], [[9.0, 9.0], [8.0, 8.0]]))
    assert got.tolist() == [[8.0, 8.0], [2.0, 3.0], [9.0, 9.0]]
    assert evaluate(tf.tensor_scatter_add([1, 2, 3], [[0], [0]], [5, 5])).tolist() == [11, 2, 3]


def test_misc_helpers():
    v = tf.Variable(1.0)
    assert tf.all_variables() == [v]
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]
    assert tf.get_static_value(tf.placeholder(tf.int32)) is None
    assert tf.is_tensor(tf.constant(1)) and not tf.is_tensor(np.ones(2))
    proto = tf.make_tensor_proto([[1.0, 2.0]], dtype=tf.float32)
    assert tf.make_ndarray(proto).tolist() == [[1.0, 2.0]]
    assert tf.dimension_value(tf.TensorShape([3, None])[1]) is None
    assert evaluate(tf.saturate_cast(np.array([300.0, -5.0]), tf.uint8)).tolist() == [255, 0]
    assert evaluate(tf.batch_gather([[1, 2, 3], [4, 5, 6]], [[2, 0], [1, 1]])).tolist() == [[3, 1], [5, 5]]
    assert evaluate(tf.where_v2([True, False], 1.0, [5.0, 6.0])).tolist() == [1.0, 6.0]
    assert evaluate(tf.scalar_mul(2.0, tf.constant([1.0, 2.0]))).tolist() == [2.0, 4.0]
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
    assert tf.version.GRAPH_DEF_VERSION == 26 and tf.VERSION == tf.__version__


def test_nn_additions():
    x = r(3, 4)
    assert_oracle(evaluate(tf.nn.swish(x)), x / (1 + np.exp(-x)), rtol=1e-12)
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    assert_oracle(evaluate(tf.nn.selu(x)), scale * np.where(x > 0, x, alpha * np.expm1(x)), rtol=1e-12)
    assert_oracle(evaluate(tf.nn.crelu(x)), np.maximum(np.concatenate([x, -x], -1), 0))
    check_gradients(tf.nn.selu, [x])
    image = r(1, 4, 4, 3)
    moved = evaluate(tf.nn.space_to_depth(image, 2))
    assert moved.shape == (1, 2, 2, 12)
    assert_oracle(evaluate(tf.nn.depth_to_space(moved, 2)), image)
    y, mean, var = evaluate(tf.nn.fused_batch_norm(image, np.ones(3), np.zeros(3), epsilon=1e-3))
    assert_oracle(mean, image.mean((0, 1, 2)), rtol=1e-10)
    assert_oracle(y, (image - image.mean((0, 1, 2))) / np.sqrt(image.var((0, 1, 2)) + 1e-3), rtol=1e-8)


def test_conv2d_transpose_is_the_gradient_of_conv2d():
    x = r(2, 5, 5, 3)
    f = r(3, 3, 4, 3, seed=1)  # [h, w, out_channels, in_channels]
    out = tf.nn.conv2d_transpose(x, f, [2, 10, 10, 4], [1, 2, 2, 1], "SAME")
    y = tf.placeholder(tf.float64, [2, 10, 10, 4])
    conv = tf.nn.conv2d(y, f, [1, 2, 2, 1], "SAME")
    grad = tf.gradients(conv, y, grad_ys=x)[0]
    with tf.Session() as sess:
        got, want = sess.run([out, grad], {y: np.zeros((2, 10, 10, 4))})
    assert_oracle(got, want, rtol=1e-10)
    layer = tf.layers.conv2d_transpose(tf.constant(x), 2, 3, strides=2, padding="same")
    assert layer.shape.as_list() == [2, 10, 10, 2]
    check_gradients(lambda t: tf.nn.conv2d_transpose(t, f, [2, 10, 10, 4], [1, 2, 2, 1], "SAME"), [r(2, 5, 5, 3)])


def test_custom_gradient_and_gradient_override_map():
    @tf.custom_gradient
    def clip_gradient(x):
        def grad(dy):
            return tf.clip_by_value(dy, -0.1, 0.1)
        return tf.identity(x), grad

    x = tf.constant([1.0, 2.0])
    y = clip_gradient(x) * 5.0
    assert evaluate(tf.gradients(y, x)[0]).tolist() == pytest.approx([0.1, 0.1])

    @tf.RegisterGradient("TimesTenSquare")
    def _times_ten(op, grad):
        return grad * 10.0

    with tf.get_default_graph().gradient_override_map({"Square": "TimesTenSquare"}):
        s = tf.square(x)
    assert evaluate(tf.gradients(s, x)[0]).tolist() == [10.0, 10.0]
    assert evaluate(tf.gradients(tf.square(x), x)[0]).tolist() == [2.0, 4.0]


def test_make_callable_run_metadata_and_thread_local_scopes():
    import threading

    a = tf.placeholder(tf.float32)
    with tf.device("/gpu:1"):
        b = a * 2
    with tf.Session() as sess:
        double = sess.make_callable(b, [a])
        assert double(3.0) == 6.0
        metadata = tf.RunMetadata()
        sess.run([b, a + 1], {a: 1.0}, options=tf.RunOptions(output_partition_graphs=True), run_metadata=metadata)
        assert sorted(g.node[0].device.rsplit(":", 2)[-2] for g in metadata.partition_graphs) == ["CPU", "GPU"]
    g = tf.get_default_graph()
    g.switch_to_thread_local()
    seen = {}

    def build():
        with tf.name_scope("in_thread"):
            seen["name"] = tf.constant(1.0).op.name

    with tf.name_scope("outer"):
        t = threading.Thread(target=build)
        t.start()
        t.join()
    assert seen["name"] == "in_thread/Const"  # the thread did not see the main thread's scope
    assert "variables" not in g.collections


def test_a_callable_resolves_its_fetches_once_and_checks_each_call_as_run_does():
    a = tf.placeholder(tf.int32, [None], name="a")
    s = tf.placeholder(tf.string, [], name="s")
    out = {"sum": tf.reduce_sum(a), "both": (a * 2, tf.strings.length(s))}
    with tf.Session() as sess:
        call = sess.make_callable(out, [a, "s:0"])
        got = call([1, 2, 3], "abcd")
        assert got["sum"] == 6 and got["both"][0].tolist() == [2, 4, 6] and got["both"][1] == 4
        with pytest.raises(ValueError, match="lose information"):
            call([1.5], "x")  # (a lossy feed, as run refuses it)
        assert call(np.array([]), "x")["sum"] == 0  # (an empty float64 array loses nothing)
        # (arrays of the placeholder's dtype are taken as they are; the rest are converted or refused as run does)
        assert call(np.array([4, 5], np.int32), "x")["sum"] == 9 and call(np.array([4, 5], np.int64), "x")["sum"] == 9
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(2, 2\) for Tensor 'a:0'"):
            call(np.ones([2, 2], np.int32), "x")
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(\)"):
            call(np.int32(3), "x")
        scalar = sess.make_callable(a[0] + tf.cast(tf.placeholder_with_default(np.int32(1), []), tf.int32), [a])
        assert scalar(np.array([2**31 - 2], np.int64)) == 2**31 - 1
        with pytest.raises(ValueError, match="out of its range"):
            scalar(np.array([2**31], np.int64))
        # (whole floats feed integer and bool placeholders, as TF 1.x converted them; fractions, NaN and
        # floats out of the range do not)
        assert call(np.ones(3), "x")["sum"] == 3 and scalar(np.array([2.0**31 - 2])) == 2**31 - 1
        for bad, message in (([0.5], "lose information"), ([np.nan], "lose information"),
                             ([2.0**31], "out of its range"), ([-2.0**31 - 1], "out of its range")):
            with pytest.raises(ValueError, match=message):
                call(np.array(bad), "x")
        flag = tf.placeholder(tf.bool, [None])
        assert sess.run(flag, {flag: np.array([1.0, 0.0])}).tolist() == [True, False]
        with pytest.raises(ValueError, match="lose information"):
            sess.run(flag, {flag: np.array([2.0])})
        wide = tf.placeholder(tf.int64, [])
        with pytest.raises(ValueError, match="out of its range"):
            sess.run(wide, {wide: 2.0**63})
        assert sess.run(wide, {wide: -2.0**63}) == -2**63
        with pytest.raises(TypeError, match="expects 2 feed values"):
            call([1])
        check = sess.make_callable(tf.debugging.assert_positive(a), [a])
        with pytest.raises(tf.errors.InvalidArgumentError) as caught:
            check([-1])
        assert caught.value.op is not None  # (the failing op, found as run finds it)
        assert sess.make_callable(a * 3, [a], accept_options=True)([2], options=tf.RunOptions()).tolist() == [6]
        twice = sess.make_callable(a + 0, [a, "a:0"])  # (one tensor fed twice: as run, the last value)
        assert twice([1], [2]).tolist() == sess.run(a + 0, {a: [1], "a:0": [2]}).tolist()
    with pytest.raises(RuntimeError, match="closed Session"):
        call([1], "x")


def test_reverse_names_an_axis_out_of_range_or_given_twice():
    x = np.arange(6).reshape(2, 3)
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(tf.reverse(x, [-1])).tolist() == [[2, 1, 0], [5, 4, 3]]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"'axis'\[0\] = -30 is out of valid range \[-2, 2\)"):
            sess.run(tf.reverse(x, [-30]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="axis 0 specified more than once"):
            sess.run(tf.reverse(x, [0, -2]))
