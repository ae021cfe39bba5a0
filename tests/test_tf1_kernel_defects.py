"""Behaviours that TensorFlow 1.x's kernel tests (tensorflow/python/kernel_tests) expect, each
of which distflow once got wrong; NumPy written the obvious way is the oracle."""

import math

import numpy as np
import pytest

import distflow as tf
from distflow.ops.control_flow_ops import with_dependencies
from gradcheck import check_gradients


def _run(*fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(list(fetches), feed_dict)


def test_a_constant_is_a_snapshot_and_leaves_the_callers_array_writable():
    x = np.arange(6.0).reshape(2, 3)
    c = tf.constant(x)
    y = tf.abs(x)  # (an array converted where a tensor is expected)
    assert x.flags.writeable
    x[0, 0] = 50.0  # (TF's kernel tests sparsify their inputs in place after building ops from them)
    got_c, got_y = _run(c, y)
    assert got_c[0, 0] == 0.0 and got_y[0, 0] == 0.0
    empty = np.zeros((0, 3))
    tf.constant(empty)
    assert empty.flags.writeable  # (an empty array too: may_share_memory says False for it)


def test_fetches_do_not_share_memory_with_the_arrays_fed():
    p = tf.placeholder(tf.float64, [4, 1, 1, 2])
    moved = tf.batch_to_space_nd(p, [2, 2], [[0, 0], [0, 0]])  # (a view of its input)
    fed = np.random.rand(4, 1, 1, 2)
    with tf.Session() as sess:
        got, itself = sess.run([moved, p], {p: fed})
    before = got.copy()
    fed[:] = -1.0
    np.testing.assert_array_equal(got, before)
    assert (itself != -1.0).all()
    with tf.Session():  # (central differences feed one array, changed in place, again and again)
        theoretical, numerical = tf.test.compute_gradient(p, [4, 1, 1, 2], moved, [1, 2, 2, 2])
    np.testing.assert_allclose(numerical, theoretical, atol=1e-6)
    np.testing.assert_array_equal(theoretical, np.eye(8))


def test_a_step_that_fetches_a_dequeue_and_a_failing_enqueue_fails_instead_of_waiting():
    q = tf.FIFOQueue(10, [tf.int32], shapes=[()])
    dequeued = q.dequeue()
    check = tf.Assert(False, ["Before enqueue"])
    with tf.control_dependencies([check]):
        failing = q.enqueue(33)
    feeding = q.enqueue(44)
    options = tf.RunOptions(timeout_in_ms=20000)  # (a bound: the step must end long before it)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Before enqueue"):
            sess.run([dequeued, failing], options=options)
        assert sess.run([dequeued, feeding], options=options)[0] == 44  # (the enqueue feeds the dequeue)


_I64 = lambda v: tf.constant(v, dtype=tf.int64)  # noqa: E731


@pytest.mark.parametrize("build,expect", [
    (lambda x: tf.reverse_v2(x, _I64([0])), lambda x: x[::-1]),
    (lambda x: tf.reverse(x, _I64([1])), lambda x: x[:, ::-1]),
    (lambda x: tf.tile(x, _I64([1, 2, 1])), lambda x: np.tile(x, [1, 2, 1])),
    (lambda x: tf.pad(x, _I64([[0, 0], [1, 1], [0, 0]])), lambda x: np.pad(x, [[0, 0], [1, 1], [0, 0]])),
    (lambda x: tf.pad(x, _I64([[0, 0], [1, 1], [0, 0]]), mode="REFLECT"),
     lambda x: np.pad(x, [[0, 0], [1, 1], [0, 0]], mode="reflect")),
    (lambda x: tf.transpose(x, _I64([2, 0, 1])), lambda x: x.transpose(2, 0, 1)),
    (lambda x: tf.slice(x, _I64([1, 0, 1]), _I64([1, 2, 3])), lambda x: x[1:2, 0:2, 1:4]),
    (lambda x: tf.strided_slice(x, _I64([0, 0, 0]), _I64([2, 2, 6]), _I64([1, 2, 4])), lambda x: x[:, ::2, ::4]),
    (lambda x: tf.gather(x, _I64([1, 0, 1]), axis=_I64(1)), lambda x: x[:, [1, 0, 1]]),
    (lambda x: tf.reduce_sum(x, _I64([1])), lambda x: x.sum(1)),
    (lambda x: tf.reduce_max(x, _I64(2)), lambda x: x.max(2)),
    (lambda x: tf.reduce_logsumexp(x, _I64([0, 2])), lambda x: np.log(np.exp(x).sum((0, 2)))),
    (lambda x: tf.expand_dims(x, _I64(0)), lambda x: x[None]),
    (lambda x: tf.cumsum(x, axis=_I64(1)), lambda x: np.cumsum(x, 1)),
    (lambda x: tf.cumprod(x, axis=_I64(2)), lambda x: np.cumprod(x, 2)),
    (lambda x: tf.concat([x, 2 * x], _I64(1)), lambda x: np.concatenate([x, 2 * x], 1)),
    (lambda x: tf.batch_to_space_nd(tf.reshape(x, [4, 1, 1, 6]), _I64([2, 2]), _I64([[0, 0], [0, 0]])),
     lambda x: x.reshape(2, 2, 1, 1, 6).transpose(2, 0, 3, 1, 4).reshape(1, 2, 2, 6)),
    (lambda x: tf.space_to_batch_nd(tf.reshape(x, [1, 2, 2, 6]), _I64([2, 2]), _I64([[0, 0], [0, 0]])),
     lambda x: x.reshape(1, 1, 2, 1, 2, 6).transpose(2, 4, 0, 1, 3, 5).reshape(4, 1, 1, 6)),
])
def test_index_inputs_that_tf_types_int32_or_int64_take_int64_tensors_and_differentiate(build, expect):
    x = np.random.RandomState(3).rand(2, 2, 6) + 0.5
    (got,) = _run(build(tf.constant(x)))
    np.testing.assert_allclose(got, expect(x), rtol=1e-12)
    check_gradients(build, [x])


def test_an_index_input_fed_as_int64_at_run_time():
    axis = tf.placeholder(tf.int64, [])
    x = np.random.rand(2, 3)
    y = tf.concat([tf.constant(x), tf.constant(2 * x)], axis)
    grad = tf.gradients(tf.reduce_sum(y * y), y.op.inputs[0])[0]
    got, g = _run(y, grad, feed_dict={axis: 1})
    np.testing.assert_allclose(got, np.concatenate([x, 2 * x], 1))
    np.testing.assert_allclose(g, 2 * x)
    with pytest.raises(ValueError, match="int32"):
        tf.tile(tf.constant(x), tf.constant([1.0, 2.0]))  # (a float is no index)


def test_losses_take_integer_predictions_and_labels_as_float32():
    predictions = tf.constant([4, 8, 12, 8, 1, 3], shape=(2, 3))
    labels = tf.constant([1, 9, 2, -5, -2, 6], shape=(2, 3))
    mse = tf.losses.mean_squared_error(labels, predictions, weights=3.3)
    absolute = tf.losses.absolute_difference(labels, predictions)
    assert mse.dtype == tf.float32 and absolute.dtype == tf.float32
    p, lab = np.array([4, 8, 12, 8, 1, 3.0]), np.array([1, 9, 2, -5, -2, 6.0])
    got_mse, got_abs = _run(mse, absolute)
    np.testing.assert_allclose(got_mse, 3.3 * np.mean((p - lab) ** 2), rtol=1e-6)
    np.testing.assert_allclose(got_abs, np.mean(np.abs(p - lab)), rtol=1e-6)


def test_sparse_softmax_cross_entropy_loss_takes_a_column_of_labels_and_of_weights():
    logits = np.array([[10.0, 0.0, 0.0], [0.0, 10.0, 0.0], [0.0, 0.0, 10.0]])
    labels = np.array([[2], [0], [1]], np.int32)
    weights = np.array([[1.2], [3.4], [5.6]])
    loss = tf.losses.sparse_softmax_cross_entropy(labels, tf.constant(logits), weights)
    assert loss.op.name == "sparse_softmax_cross_entropy_loss/value"
    log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    per_example = -log_p[np.arange(3), labels[:, 0]]
    np.testing.assert_allclose(_run(loss)[0], np.sum(per_example * weights[:, 0]) / 3, rtol=1e-9)


def test_a_losss_weights_never_widen_its_values():
    logits = tf.constant(np.zeros((3, 3)))
    onehot = tf.constant(np.eye(3))
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        tf.losses.softmax_cross_entropy(onehot, logits, weights=np.ones((3, 3)))  # (per-class weights: [3] losses)
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        tf.losses.compute_weighted_loss(tf.ones([3, 2, 4]), weights=np.ones((3, 1)))


@pytest.mark.parametrize("shape", [(4,), (1, 1), (3, 2), (2, 4), (1, 1, 1, 1), (1, 3, 2, 4)])
def test_weights_of_shapes_known_only_when_the_step_runs_are_checked_then(shape):
    values = np.arange(24.0).reshape(3, 2, 4)
    weights = tf.placeholder(tf.float64)
    labels = tf.placeholder(tf.float64)
    loss = tf.losses.absolute_difference(labels, tf.constant(values), weights=weights)
    mean, update = tf.metrics.mean(labels, weights=weights)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        # (NumPy would broadcast most of these: [4] over [3, 2, 4]; a metric first adds or drops a
        # last dimension of weights whose rank is one off, as TF's do: [3, 2] works there)
        for fetch in (loss,) if shape in ((1, 1), (3, 2), (1, 1, 1, 1)) else (loss, update):
            with pytest.raises(tf.errors.InvalidArgumentError, match="weights can not be broadcast to values"):
                sess.run(fetch, {labels: values + 1.0, weights: np.ones(shape)})
        good = np.arange(1.0, 5.0).reshape(1, 1, 4)
        assert sess.run(loss, {labels: values + 1.0, weights: good}) == pytest.approx(good.sum() * 6 / 24)
        sess.run(update, {labels: values, weights: good})
        assert sess.run(mean) == pytest.approx((values * good).sum() / (good.sum() * 6))
        assert sess.run(loss, {labels: values + 1.0, weights: 2.0}) == pytest.approx(2.0)


def test_a_column_of_weights_and_labels_of_ranks_known_only_when_the_step_runs():
    logits = np.array([[10.0, 0.0, 0.0], [0.0, 10.0, 0.0], [0.0, 0.0, 3.0]])
    labels = np.array([[2], [1], [2]], np.int32)
    column = np.array([[1.2], [3.4], [5.6]])
    log_p = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    per_example = -log_p[np.arange(3), labels[:, 0]]
    want = np.sum(per_example * column[:, 0]) / 3
    logits_p, labels_p, weights_p = tf.placeholder(tf.float64), tf.placeholder(tf.int32), tf.placeholder(tf.float64)
    loss = tf.losses.sparse_softmax_cross_entropy(labels_p, logits_p, weights_p)
    values_p = tf.placeholder(tf.float64)
    mean, update = tf.metrics.mean(values_p, weights=weights_p)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        feeds = {logits_p: logits, labels_p: labels}
        assert sess.run(loss, {**feeds, weights_p: column}) == pytest.approx(want, rel=1e-12)
        assert sess.run(loss, {**feeds, labels_p: labels[:, 0], weights_p: column[:, 0]}) == pytest.approx(want)
        assert sess.run(loss, {**feeds, weights_p: 2.0}) == pytest.approx(2 * per_example.mean())
        values = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        sess.run(update, {values_p: values, weights_p: column[:, 0]})  # (a weight per row: a dimension added)
        sess.run(update, {values_p: values[:, 0], weights_p: column})  # (a column for [3]: its last dropped)
        want_mean = ((values * column).sum() + (values[:, 0] * column[:, 0]).sum()) / (2 * column.sum() + column.sum())
        assert sess.run(mean) == pytest.approx(want_mean)


def test_precision_at_k_takes_sparse_labels_of_one_id_per_example_of_shape_batch():
    predictions = np.array(((0.1, 0.3, 0.2, 0.4), (0.1, 0.2, 0.3, 0.4)))
    labels = tf.SparseTensorValue([[0], [1]], np.array([3, 2], np.int64), [2])
    precision, update = tf.metrics.precision_at_k(labels, tf.constant(predictions), k=1)
    precision3, update3 = tf.metrics.precision_at_k(labels, tf.constant(predictions), k=1, class_id=3)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([update, update3])
        assert sess.run([precision, precision3]) == [0.5, 0.5]  # (class 3 predicted twice, once right)


def test_metric_weights_with_one_dimension_fewer_or_more_than_the_values():
    labels = np.array(((0, 1, 0, 1, 0), (0, 0, 1, 1, 1), (1, 1, 1, 1, 0), (0, 0, 0, 0, 1)))
    predictions = np.array(((0, 0, 1, 1, 0), (1, 1, 1, 1, 1), (0, 1, 0, 1, 0), (1, 1, 1, 1, 1)))
    per_row = np.array([1.0, 1.5, 2.0, 2.5])
    _, tp = tf.metrics.true_positives(labels, predictions, weights=tf.constant(per_row))  # ([4] for [4, 5])
    values = np.random.RandomState(0).rand(3, 2, 4, 1)
    _, mean_less = tf.metrics.mean(values, weights=np.arange(1.0, 3.0).reshape(1, 2, 1))
    _, mean_more = tf.metrics.mean(values, weights=np.ones((3, 2, 4, 1, 1)))
    with pytest.raises(ValueError, match="weights can not be broadcast"):
        tf.metrics.mean(values, weights=np.ones((3, 2, 4, 2)))
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        got_tp, got_less, got_more = sess.run([tp, mean_less, mean_more])
    np.testing.assert_allclose(got_tp, (np.logical_and(labels, predictions) * per_row[:, None]).sum())
    w = np.broadcast_to(np.arange(1.0, 3.0).reshape(1, 2, 1, 1), values.shape)
    np.testing.assert_allclose(got_less, (values * w).sum() / w.sum(), rtol=1e-6)
    np.testing.assert_allclose(got_more, values.mean(), rtol=1e-6)


def test_pad_shapes_from_the_paddings_shape_and_rows_and_a_scalar_pads_to_itself():
    with pytest.raises(ValueError, match="rank of the input"):
        tf.pad(tf.reshape([1, 2], [1, 2]), tf.reshape([1, 2, 3, 4, 5, 6], [3, 2]))
    with pytest.raises(ValueError, match="2 columns"):
        tf.pad(tf.reshape([1, 2], [1, 2]), tf.reshape([1, 2], [2, 1]))
    assert tf.pad(tf.placeholder(tf.float32), [[2, 2], [2, 2]]).shape.as_list() == [None, None]
    assert tf.pad(tf.zeros([4, 4, 4, 4]), tf.placeholder(tf.int32)).shape.as_list() == [None] * 4
    unknown = tf.placeholder(tf.int32)
    assert tf.pad(tf.zeros([4, 4]), [[1, 2], unknown]).shape.as_list() == [7, None]
    assert tf.pad(tf.zeros([4, 4]), [unknown, [1, 2]]).shape.as_list() == [None, 7]
    columns = tf.stack([[1, 2], tf.placeholder(tf.int32, [2])], axis=1)  # (columns, not rows: nothing known)
    assert tf.pad(tf.zeros([4, 4]), columns).shape.as_list() == [None, None]
    for dtype in (tf.int32, tf.int64):
        scalar = tf.pad(np.asarray(7), tf.constant(np.zeros((0, 2)), dtype=dtype))
        assert scalar.shape.as_list() == [] and _run(scalar)[0] == 7


def test_where_alone_takes_numbers_and_gives_the_nonzero_coordinates():
    x = np.array([[0, 3, 0], [-1.5, 0, 2j]])
    for dtype in (np.int8, np.int64, np.uint8, np.float32, np.float64, np.complex64):
        value = x.real.astype(dtype) if not np.issubdtype(dtype, np.complexfloating) else x.astype(dtype)
        (got,) = _run(tf.where(value))
        np.testing.assert_array_equal(got, np.argwhere(value))
    with pytest.raises(TypeError, match="bool"):
        tf.where(tf.constant([1, 0]), [1, 2], [3, 4])  # (a select's condition stays bool)


def test_reentering_a_variable_scope_opens_a_new_name_scope_and_keeps_its_variable_names():
    with tf.variable_scope("outer") as outer:
        pass
    with tf.variable_scope(outer) as again:
        assert tf.get_variable("w", []).name == "outer/w:0"
        with tf.name_scope("scope2") as ops_scope:
            assert ops_scope == "outer_1/scope2/"
        with tf.variable_scope("default"):
            assert tf.get_variable("w", []).name == "outer/default/w:0"
            with tf.name_scope("scope2") as ops_scope:
                assert ops_scope == "outer_1/default/scope2/"
    assert again.original_name_scope == outer.original_name_scope == "outer/"
    assert [v.name for v in outer.global_variables()] == ["outer/w:0", "outer/default/w:0"]
    assert outer.trainable_variables() == outer.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)
    assert outer.local_variables() == []


def test_a_variable_scope_passes_a_tensor_initializer_and_zero_defaults_down():
    with tf.variable_scope("foo", initializer=tf.constant(0.1)):
        v = tf.get_variable("v")
    with tf.variable_scope("bar", dtype=tf.float64) as bar:
        bar.set_regularizer(lambda w: 2.0 * w)
        u = tf.get_variable("u", [], initializer=tf.zeros_initializer())
    assert u.dtype.base_dtype == tf.float64
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert np.isclose(sess.run(v), 0.1) and sess.run(u) == 0.0


def test_in_top_k_says_false_for_a_row_with_any_non_finite_score():
    predictions = [[0.1, float("nan"), 0.2, 0.4], [0.1, 0.2, 0.3, float("inf")], [0.1, 0.2, 0.3, 0.4]]
    (got,) = _run(tf.nn.in_top_k(predictions, [0, 2, 2], 2))
    assert got.tolist() == [False, False, True]


class TestTruthValuesInAllClose(tf.test.TestCase):
    def test_all_close_compares_truth_values(self):
        self.assertAllClose(np.array([True, False]), [True, False])
        with self.assertRaises(AssertionError):
            self.assertAllClose(np.array([True, False]), [True, True])


def _complex_gradient(f, x, eps=1e-6):
    """TF's gradient of a real f at complex x: dL/da + i dL/db for x = a + ib."""
    out = np.zeros(x.shape, complex)
    for i in np.ndindex(x.shape):
        d = np.zeros(x.shape)
        d[i] = eps
        out[i] = (f(x + d) - f(x - d)) / (2 * eps) + 1j * (f(x + 1j * d) - f(x - 1j * d)) / (2 * eps)
    return out


def test_reduce_prod_of_complex_numbers_and_its_gradient():
    rng = np.random.RandomState(5)
    x = rng.rand(2, 3) + 1j * rng.rand(2, 3)
    weights = np.array([1 + 2j, 3 - 1j])
    c = tf.placeholder(tf.complex128, [2, 3])
    prod = tf.reduce_prod(c, 1)
    grad = tf.gradients(tf.real(tf.reduce_sum(prod * weights)), c)[0]
    got, g = _run(prod, grad, feed_dict={c: x})
    np.testing.assert_allclose(got, x.prod(1))
    np.testing.assert_allclose(g, _complex_gradient(lambda z: np.real(np.sum(z.prod(1) * weights)), x), atol=1e-8)


def test_reductions_over_every_axis_of_unknown_rank_are_scalars_and_all_any_take_lists():
    p = tf.placeholder(tf.float32)
    assert tf.reduce_sum(p).shape.as_list() == []
    assert tf.reduce_max(p).shape.as_list() == []
    assert tf.reduce_sum(p, keepdims=True).shape.ndims is None
    assert tf.reduce_sum(p, 0).shape.ndims is None
    total, every, some = _run(tf.reduce_sum(p), tf.reduce_all([]), tf.reduce_any([[]], 1),
                              feed_dict={p: np.ones((2, 3))})
    assert total == 6.0 and every == np.all([]) and some.tolist() == [False]


def test_boolean_mask_of_an_empty_tensor_and_of_several_axes():
    rng = np.random.RandomState(2)
    cases = [(np.zeros((2, 0), np.float32), np.array([True, False]), None),
             (rng.rand(2, 3, 4), rng.rand(3, 4) > 0.5, 1), (rng.rand(2, 3, 4), rng.rand(2, 3) > 0.5, None)]
    for arr, mask, axis in cases:
        (got,) = _run(tf.boolean_mask(arr, mask, axis=axis))
        np.testing.assert_array_equal(got, arr[mask] if not axis else arr[:, mask])
    with pytest.raises(ValueError, match="mask cannot be scalar"):
        tf.boolean_mask([1, 2], True)


def test_a_partitioned_variable_from_an_initial_value_gives_each_part_its_slice():
    value = np.arange(8, dtype=np.int32).reshape(2, 4)
    parts = tf.create_partitioned_variables([2, 4], [1, 2], tf.constant(value))
    assert [p.dtype.base_dtype for p in parts] == [tf.int32, tf.int32]  # (the value's dtype, as TF's)
    with tf.variable_scope("w", partitioner=tf.fixed_size_partitioner(3)):
        w = tf.get_variable("w", initializer=np.arange(12.0).reshape(6, 2))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(tf.concat(parts, 1)), value)
        np.testing.assert_array_equal(sess.run(tf.concat(list(w), 0)), np.arange(12.0).reshape(6, 2))
    assert [p.shape.as_list() for p in w] == [[2, 2]] * 3
    with pytest.raises(ValueError, match="not \\(3, 3\\)"):
        tf.create_partitioned_variables([3, 3], [1, 3], tf.constant(value))


def test_diagonal_ops_refuse_too_few_dimensions_clearly():
    for build in (lambda: tf.matrix_diag(0), lambda: tf.matrix_diag_part(0), lambda: tf.matrix_set_diag([0], [0]),
                  lambda: tf.matrix_set_diag([[0]], 0), lambda: tf.diag(0.0), lambda: tf.diag_part(tf.ones([2, 2, 2])),
                  lambda: tf.diag_part(tf.ones([2, 3]))):
        with pytest.raises(ValueError):
            build()
    v = tf.placeholder(tf.float32)
    with tf.Session() as sess:
        for fetch, message in [(tf.matrix_diag(v), "input must be at least 1-dim"),
                               (tf.matrix_diag_part(v), "input must be at least 2-dim"),
                               (tf.matrix_set_diag(v, [v]), "input must be at least 2-dim"),
                               (tf.matrix_set_diag([[v]], v), r"input shape: \[1,1\] and diagonal shape: \[\]")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(fetch, {v: 0.0})
    x = np.arange(6.0).reshape(2, 3)
    (got,) = _run(tf.matrix_set_diag(x, [7.0, 8.0]))
    np.testing.assert_array_equal(got, [[7, 1, 2], [3, 8, 5]])


def test_a_negative_segment_id_anywhere_is_named_as_negative():
    x = np.ones((4, 4))
    with tf.Session() as sess:
        for ids in ([-1, -1, 0, 0], [0, 0, 0, -1], [0, 0, 0, -2]):
            with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids must be >= 0"):
                sess.run(tf.segment_sum(x, ids))
        with pytest.raises(tf.errors.InvalidArgumentError, match="not increasing"):
            sess.run(tf.segment_sum(x, [0, 1, 0, 1]))


def test_a_slice_of_a_variable_can_be_assigned():
    v = tf.Variable(np.zeros((3, 4)))
    block = v[1:3, ::2].assign(np.ones((2, 2)))
    row = v[0].assign([1.0, 2.0, 3.0, 4.0])
    column = v[..., -1].assign(tf.constant([7.0, 8.0, 9.0], tf.float64))
    loss = tf.reduce_sum(v[1:2] * 3.0)  # (a slice still reads, and differentiates, as before)
    grad = tf.gradients(loss, v)[0]
    expect = np.zeros((3, 4))
    with tf.Session() as sess:
        sess.run(v.initializer)
        after_block = sess.run(block)
        expect[1:3, ::2] = 1.0
        np.testing.assert_array_equal(after_block, expect)
        sess.run(row)
        sess.run(column)
        expect[0] = [1, 2, 3, 4]
        expect[:, -1] = [7, 8, 9]
        np.testing.assert_array_equal(sess.run(v), expect)
        np.testing.assert_array_equal(after_block[0], 0.0)  # (what the step fetched stays as it was)
        np.testing.assert_array_equal(sess.run(grad), np.repeat([[0.0], [3.0], [0.0]], 4, 1))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"l-value shape \[2, 4\] does not match"):
            sess.run(v[1:3].assign(np.ones((2, 2))))
    assert block.op.type == "StridedSliceAssign" and block.op.inputs[0].op is v.op


def test_a_template_names_each_calls_ops_afresh_lists_its_variables_and_refuses_new_trainable_ones():
    def linear(x, output_size):
        w = tf.get_variable("w", [x.shape[1], output_size], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [output_size], initializer=tf.zeros_initializer())
        return tf.matmul(x, w) + b

    module = tf.make_template("foo", linear, output_size=2, create_scope_now_=True)
    assert module.variables == [] and module.trainable_variables == []
    first, second = module(tf.ones((3, 4))), module(tf.ones((3, 4)))
    assert (first.name, second.name) == ("foo/add:0", "foo_1/add:0")
    assert [v.name for v in module.trainable_variables] == ["foo/w:0", "foo/b:0"]
    assert module.variables == module.global_variables and module.non_trainable_variables == []
    with pytest.raises(ValueError, match="name cannot be None"):
        tf.make_template(None, linear)

    def side_effect(trainable):
        tf.Variable(0, trainable=trainable)
        return tf.get_variable("dummy", [1], initializer=tf.zeros_initializer())

    quiet = tf.make_template("quiet", side_effect, trainable=False)
    assert quiet() is quiet()
    loud = tf.make_template("loud", side_effect, trainable=True)
    loud()
    with pytest.raises(ValueError, match="Trainable variable created when calling the template"):
        loud()

    def needs_one(inputs):
        return inputs * tf.get_variable("w", [1], initializer=tf.zeros_initializer())

    fragile = tf.make_template("fragile", needs_one)
    with pytest.raises(TypeError):
        fragile(tf.zeros([1]), is_training=True)
    fragile(tf.zeros([1]))  # (a first call that failed created nothing that a later call trips on)
    assert [v.name for v in fragile.variables] == ["fragile/w:0"]


class _CountingCell(tf.nn.rnn_cell.RNNCell):
    """output = input; state = a scalar count of the steps (int32)."""

    @property
    def output_size(self):
        return 1

    @property
    def state_size(self):
        return tf.TensorShape([])

    def zero_state(self, batch_size, dtype):
        return tf.zeros([], dtype=tf.int32)

    def call(self, inputs, state):
        return inputs, state + 1


class _ArrayStateCell(tf.nn.rnn_cell.RNNCell):
    """output = input; the state is a TensorArray of the inputs seen."""

    @property
    def output_size(self):
        return 1

    @property
    def state_size(self):
        return (tf.TensorShape([]), ())

    def zero_state(self, batch_size, dtype):
        return tf.zeros([], dtype=tf.int32), tf.TensorArray(dtype=tf.float32, size=0, dynamic_size=True)

    def call(self, inputs, state):
        count, seen = state
        return inputs, (count + 1, seen.write(count, inputs))


def test_dynamic_rnn_outputs_take_the_dtype_asked_for_and_pass_scalar_and_array_states_through():
    inputs = tf.placeholder(tf.float32, (1, 4, 1))
    feed = {inputs: [[[1], [2], [3], [4]]]}
    outputs, count = tf.nn.dynamic_rnn(_CountingCell(), inputs, dtype=tf.float32, sequence_length=[4])
    assert outputs.dtype == tf.float32 and count.dtype == tf.int32
    with tf.variable_scope("arrays"):
        _, (steps, seen) = tf.nn.dynamic_rnn(_ArrayStateCell(), inputs, dtype=tf.float32, sequence_length=[4])
    got_outputs, got_count, got_steps, got_seen = _run(outputs, count, steps, seen.stack(), feed_dict=feed)
    np.testing.assert_array_equal(got_outputs, [[[1], [2], [3], [4]]])
    assert got_count == 4 and got_steps == 4
    np.testing.assert_array_equal(got_seen, [[[1]], [[2]], [[3]], [[4]]])


def test_cond_returns_sparse_tensors_and_indexed_slices_as_they_are():
    values = tf.constant([2.0, 4.0])
    indices = tf.constant([[0], [3]], dtype=tf.int64)
    shape = tf.constant([10], dtype=tf.int64)
    pred = tf.placeholder(tf.bool, [])
    sparse = tf.cond(pred, lambda: tf.SparseTensor(indices + 1, values + 1, shape),
                     lambda: tf.SparseTensor(indices, values - 1, shape))
    assert isinstance(sparse, tf.SparseTensor) and sparse.values.shape.as_list() == [2]
    i32, i64 = tf.constant(0), tf.constant(0, tf.int64)
    slices = tf.cond(pred, lambda: tf.IndexedSlices(tf.constant(10) + 1, i32),
                     lambda: tf.IndexedSlices(tf.constant(10) - 1, i64))  # (int32 and int64 indices: int64)
    assert isinstance(slices, tf.IndexedSlices) and slices.indices.dtype == tf.int64
    shaped = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    mixed = tf.cond(pred, lambda: shaped, lambda: tf.zeros([3, 2]))  # (slices against a tensor: dense)
    with tf.Session() as sess:
        for taken, v, i, s_v, dense in [(True, [3.0, 5.0], [[1], [4]], 11, [[0, 0], [1, 2], [0, 0]]),
                                        (False, [1.0, 3.0], [[0], [3]], 9, np.zeros((3, 2)))]:
            got = sess.run([sparse.values, sparse.indices, sparse.dense_shape, slices.values, mixed], {pred: taken})
            np.testing.assert_array_equal(got[0], v)
            np.testing.assert_array_equal(got[1], i)
            assert got[2].tolist() == [10] and got[3] == s_v
            np.testing.assert_array_equal(got[4], dense)


def test_text_file_id_and_string_table_initializers_map_the_ways_tf_names_them(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("brain\nsalad\nsurgery\n")
    ids = tf.contrib.lookup.HashTable(tf.contrib.lookup.TextFileIdTableInitializer(str(vocab)), -1)
    words = tf.contrib.lookup.HashTable(tf.contrib.lookup.TextFileStringTableInitializer(str(vocab)), "UNK")
    numbers = tmp_path / "numbers.txt"
    numbers.write_text("42\n1\n-1000\n")
    int_ids = tf.contrib.lookup.HashTable(
        tf.contrib.lookup.TextFileIdTableInitializer(str(numbers), key_dtype=tf.int64), -1)
    assert (ids.key_dtype, ids.value_dtype, words.key_dtype, words.value_dtype) == (
        tf.string, tf.int64, tf.int64, tf.string)
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        got = sess.run([ids.lookup(tf.constant(["salad", "surgery", "tarkus"])),
                        words.lookup(tf.constant([0, 2, 7], tf.int64)),
                        int_ids.lookup(tf.constant([1, -1000, 5], tf.int64))])
    assert got[0].tolist() == [1, 2, -1] and got[1].tolist() == [b"brain", b"surgery", b"UNK"]
    assert got[2].tolist() == [1, 2, -1]


def test_parse_example_knows_its_batch_from_a_vector_of_records_and_needs_dense_shapes():
    example = tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0, 2.0, 3.0]))})).SerializeToString()
    features = {"a": tf.FixedLenFeature([1, 3], tf.float32)}
    out = tf.parse_example([example, example], features)
    assert out["a"].shape.as_list() == [2, 1, 3]
    assert tf.parse_example(tf.placeholder(tf.string, [None]), features)["a"].shape.as_list() == [None, 1, 3]
    (got,) = _run(out["a"])
    np.testing.assert_array_equal(got, [[[1, 2, 3]], [[1, 2, 3]]])
    with pytest.raises(ValueError, match="Missing shape for feature 'a'"):
        tf.parse_example([example], {"a": tf.FixedLenFeature(None, tf.float32)})


def test_sparse_to_dense_names_what_is_wrong_with_its_input():
    with pytest.raises(ValueError, match="output_shape must be rank 1"):
        tf.sparse_to_dense([1, 3], [[5], [3]], 1, -1)
    cases = [(([1, 3], [5], [[1], [2]], -1), r"sparse_values has incorrect shape \[2,1\], should be \[\] or \[2\]"),
             (([1, 3], [5], [1, 2, 3], -1), r"sparse_values has incorrect shape \[3\], should be \[\] or \[2\]"),
             (([1, 3], [5], 1, [1, 2]), "default_value should be a scalar"),
             (([[1], [10]], [5], 1, -1), r"indices\[1\] = \[10\] is out of bounds: need 0 <= index < \[5\]"),
             (([[1], [1]], [5], 1, -1), r"indices\[1\] = \[1\] is repeated"),
             (([[2], [1]], [5], 1, -1), r"indices\[1\] = \[1\] is out of order")]
    with tf.Session() as sess:
        for args, message in cases:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(tf.sparse_to_dense(*args))
        unsorted = tf.sparse_to_dense([[2], [1]], [5], [7, 8], -1, validate_indices=False)
        assert sess.run(unsorted).tolist() == [-1, 8, 7, -1, -1]


def test_a_slice_by_scalar_tensors_keeps_the_dimensions_it_can_know():
    a = tf.placeholder(tf.float32, (5, 3, 7))
    i, j = tf.placeholder(tf.int32, []), tf.placeholder(tf.int32, [])
    shapes = [a[i], a[i, ::-1], a[i, ::-2], a[i, j], a[1:i], a[:, i:], a[..., i], a[i, tf.newaxis], a[j:i]]
    assert [s.shape.as_list() for s in shapes] == [[3, 7], [3, 7], [2, 7], [7], [None, 3, 7], [5, None, 7],
                                                   [5, 3], [1, 3, 7], [None, 3, 7]]  # (both bounds unknown)
    value = np.arange(105.0).reshape(5, 3, 7)
    got = _run(*shapes, feed_dict={a: value, i: 2, j: 1})
    for g, e in zip(got, [value[2], value[2, ::-1], value[2, ::-2], value[2, 1], value[1:2], value[:, 2:],
                          value[..., 2], value[2, None], value[1:2]]):
        np.testing.assert_array_equal(g, e)


def test_matrix_transpose_of_unknown_rank_sequence_mask_checks_and_sparse_shapes():
    p = tf.placeholder(tf.float32)
    flipped = tf.matrix_transpose(p)
    x = np.arange(24.0).reshape(2, 3, 4)
    (got,) = _run(flipped, feed_dict={p: x})
    np.testing.assert_array_equal(got, x.transpose(0, 2, 1))
    with pytest.raises(ValueError, match="maxlen must be scalar"):
        tf.sequence_mask([10, 20], [10, 20])
    value = tf.SparseTensorValue(indices=((0, 1), (1, 0)), values=(42, 24), dense_shape=(2, 3))
    sparse = tf.SparseTensor.from_value(value)
    got = _run(tf.shape(value), tf.size(value), tf.rank(value), tf.shape(sparse), tf.size(sparse), tf.rank(sparse))
    assert [np.asarray(g).tolist() for g in got] == [[2, 3], 6, 2, [2, 3], 6, 2]


def test_pow_of_complex_numbers_with_gradients_strings_added_and_complex_broadcast():
    rng = np.random.RandomState(8)
    x = rng.rand(3) + 1j * rng.rand(3)
    y = np.array([2.0 + 0.5j, 1.5 - 1j, 0.3 + 0j])
    w = np.array([1 + 2j, 3 - 1j, 0.5 + 0.5j])
    cx, cy = tf.placeholder(tf.complex128, [3]), tf.placeholder(tf.complex128, [3])
    z = tf.pow(cx, cy)
    gx, gy = tf.gradients(tf.real(tf.reduce_sum(z * w)), [cx, cy])
    got, a, b = _run(z, gx, gy, feed_dict={cx: x, cy: y})
    np.testing.assert_allclose(got, x ** y)
    np.testing.assert_allclose(a, _complex_gradient(lambda v: np.real(np.sum(v ** y * w)), x), atol=1e-7)
    np.testing.assert_allclose(b, _complex_gradient(lambda v: np.real(np.sum(x ** v * w)), y), atol=1e-7)
    words = tf.add(tf.constant(["a", "b"]), "c")
    assert words.op.type == "Add" and (tf.ones([2]) + 1).op.type == "AddV2"
    real = np.arange(-3, 3).reshape(1, 3, 2) / 4.0
    c = tf.complex(tf.constant(real), 12.0)
    assert c.shape.as_list() == [1, 3, 2]
    got_words, got_c, both = _run(words, c, tf.constant("a") + tf.constant("b"))
    assert got_words.tolist() == [b"ac", b"bc"] and both == b"ab"
    np.testing.assert_array_equal(got_c, real + 12j)
    with pytest.raises(TypeError, match="Expected numeric or variant tensor"):
        tf.conj(tf.placeholder(tf.string))


def test_rank_asserts_take_rank_tensors_and_name_the_tensor_when_checked_at_run_time():
    tensor = tf.placeholder(tf.float32, name="my_tensor")
    rank = tf.placeholder(tf.int32)
    checks = [tf.assert_rank(tensor, 1), tf.assert_rank(tensor, rank, message="fail"),
              tf.assert_rank_at_least(tensor, 2), tf.assert_rank_in(tensor, [1, rank])]
    with tf.Session() as sess:
        sess.run(checks[0], {tensor: [1.0, 2.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor my_tensor:0 must have rank"):
            sess.run(checks[0], {tensor: 1.0})
        with pytest.raises(tf.errors.InvalidArgumentError, match="fail.*my_tensor.*rank"):
            sess.run(checks[1], {tensor: 1.0, rank: 1})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Rank must be a scalar"):
            sess.run(checks[1], {tensor: 1.0, rank: [1, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank at least"):
            sess.run(checks[2], {tensor: [1.0]})
        sess.run(checks[3], {tensor: [[1.0]], rank: 2})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank in"):
            sess.run(checks[3], {tensor: 1.0, rank: 2})
    with pytest.raises(ValueError, match="Rank must be a scalar"):
        tf.assert_rank(tf.ones([2]), np.array([], np.int32))
    with pytest.raises(TypeError, match="int32"):
        tf.assert_rank(tf.ones([2]), 0.5)
    with pytest.raises(ValueError, match="must have rank in"):
        tf.assert_rank_in(tf.ones([2]), [0, 2])


def test_sign_and_near_asserts_say_what_did_not_hold_and_mismatched_shapes_fail_at_once():
    x = tf.placeholder(tf.float32, name="meechum")
    with tf.Session() as sess:
        for check, message in [(tf.assert_positive(x), r"x > 0 did not hold element-wise"),
                               (tf.assert_non_negative(x), r"x >= 0 did not hold element-wise"),
                               (tf.assert_near(x, 10.2, atol=0.1, message="failure message"),
                                "failure message.*x and y not equal to tolerance")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(check, {x: [-1.0] if "near" not in check.name else 10.0})
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.assert_equal(tf.constant([1, 2, 3]), tf.constant([1, 2]))


def test_elementwise_functions_that_tf_applies_to_a_sparse_tensors_values():
    values = np.array([-1.5, 4.0], np.float32)
    sparse = tf.SparseTensor([[0, 0], [1, 2]], tf.constant(values), [2, 3])
    cases = [(tf.abs, np.abs), (tf.negative, np.negative), (tf.sign, np.sign), (tf.square, np.square),
             (lambda s: tf.sqrt(tf.abs(s)), lambda v: np.sqrt(np.abs(v))), (tf.tanh, np.tanh),
             (lambda s: tf.cast(s, tf.int32), lambda v: v.astype(np.int32))]
    outs = [f(sparse) for f, _ in cases]
    assert all(isinstance(o, tf.SparseTensor) for o in outs)
    got = _run(*[o.values for o in outs], outs[0].indices, tf.erf(sparse).values)
    for g, (_, oracle) in zip(got, cases):
        np.testing.assert_allclose(g, oracle(values), rtol=1e-6)
    assert got[-2].tolist() == [[0, 0], [1, 2]]
    assert got[-1][1] > 0.99 and got[-1][0] < -0.96  # (erf)


def test_pow_differentiates_when_the_base_is_broadcast_to_the_exponents_shape():
    check_gradients(lambda x, y: tf.pow(x, y), [np.array([1.3]), np.random.RandomState(4).rand(2, 3, 1, 5)])
    x, y = tf.constant([-1.0, 0.0, 2.0], tf.float64), tf.constant([2.0, 3.0, 0.5], tf.float64)
    (dy,) = _run(tf.gradients(tf.reduce_sum(tf.pow(x, y)), y)[0])
    np.testing.assert_allclose(dy, [0.0, 0.0, np.sqrt(2.0) * np.log(2.0)])  # (0 where the base is not positive)


def test_accumulate_n_checks_the_shape_and_dtype_it_is_given():
    a, b = tf.Variable(0.2), tf.Variable(0.1)
    with pytest.raises(ValueError, match="not the shape given"):
        tf.accumulate_n([a, b], shape=[2, 2])
    with pytest.raises(TypeError, match="not the tensor_dtype given"):
        tf.accumulate_n([a], tensor_dtype=np.int32)
    total = tf.accumulate_n([a, b], shape=[], tensor_dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert np.isclose(sess.run(total), 0.3)


def test_while_loop_carries_sparse_tensors_and_indexed_slices_with_their_gradients():
    values = tf.constant([2.0, 4.0])
    sparse = tf.SparseTensor(tf.constant([[0], [3]], tf.int64), values, tf.constant([10], tf.int64))
    slices = tf.IndexedSlices(tf.constant([[2.0, 4.0], [3.0, 5.0]]), tf.constant([0, 3]), tf.constant([10, 2]))

    def body(i, sp, sl):
        return [i + 1, tf.SparseTensor(sp.indices, sp.values * 2.0, sp.dense_shape),
                tf.IndexedSlices(sl.values * 2.0, sl.indices, sl.dense_shape)]

    _, sp, sl = tf.while_loop(lambda i, *_: i < 10, body, [tf.constant(0), sparse, slices])
    assert isinstance(sp, tf.SparseTensor) and isinstance(sl, tf.IndexedSlices)
    assert sp.dense_shape.shape.as_list() == [1] and sl.values.shape.as_list() == [2, 2]
    _, _, relaxed = tf.while_loop(lambda i, *_: i < 10, body, [tf.constant(0), sparse, slices],
                                  [tf.TensorShape([]), tf.TensorShape([None]), tf.TensorShape([None, 2])])
    assert relaxed.values.shape.as_list() == [None, 2]
    with pytest.raises(ValueError, match="is not compatible with"):
        tf.while_loop(lambda i, *_: i < 10, body, [tf.constant(0), sparse, slices],
                      [tf.TensorShape([]), tf.TensorShape([5]), tf.TensorShape([None, 2])])
    grad = tf.gradients(sp.values, values)[0]
    got = _run(sp.values, sp.indices, sl.values, grad)
    np.testing.assert_allclose(got[0], [2048.0, 4096.0])
    assert got[1].tolist() == [[0], [3]]
    np.testing.assert_allclose(got[2], [[2048.0, 4096.0], [3072.0, 5120.0]])
    np.testing.assert_allclose(got[3], [1024.0, 1024.0])


def test_a_tensor_array_split_by_int32_lengths_stays_dynamically_sized():
    ta = tf.TensorArray(dtype=tf.float32, size=3, dynamic_size=True)
    x = tf.constant([1.0, 2.0, 3.0])
    grown = ta.split(x, [1, 1, 1]).write(3, [4.0])
    joined = grown.concat()
    grad = tf.gradients(joined, x)[0]
    got, g = _run(joined, grad)
    np.testing.assert_array_equal(got, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(g, [1.0, 1.0, 1.0])
    fixed = tf.TensorArray(dtype=tf.float32, size=3).split(x, tf.constant([1, 2], tf.int32))
    (second,) = _run(fixed.read(1))
    np.testing.assert_array_equal(second, [2.0, 3.0])


def test_concatenating_scalars_says_to_stack_them():
    scalar = tf.constant(7)
    with pytest.raises(ValueError, match=r"Can't concatenate scalars \(use tf\.stack instead\)"):
        tf.concat([scalar, scalar, scalar], tf.placeholder(tf.int32))
    (got,) = _run(tf.stack([scalar, scalar]))
    assert got.tolist() == [7, 7]


def test_bincount_of_nothing_and_of_negative_values():
    got = _run(tf.bincount([]), tf.bincount([], minlength=5), tf.bincount([], maxlength=3),
               tf.bincount([], minlength=0, dtype=tf.float32), tf.bincount([3, 1, 3], maxlength=3))
    assert [g.tolist() for g in got] == [[], [0] * 5, [], [], [0, 1, 0]]
    assert got[3].dtype == np.float32
    with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
        _run(tf.bincount([1, 2, 3, -1, 6, 8]))


def test_decode_raw_names_a_record_of_the_wrong_length():
    records = tf.placeholder(tf.string, [None])
    as_bytes, as_floats = tf.decode_raw(records, tf.uint8), tf.decode_raw(records, tf.float32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="element 1 has size 5 != 6"):
            sess.run(as_bytes, {records: [b"longer", b"short"]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="length 5 that is not a multiple of 4"):
            sess.run(as_floats, {records: [b"short"]})
        assert sess.run(as_bytes, {records: [b"ab", b"cd"]}).tolist() == [[97, 98], [99, 100]]


def test_nd_scatters_check_the_updates_shape_as_tf_words_it():
    ref = tf.Variable(tf.zeros([2, 2, 2], tf.int32))
    with pytest.raises(ValueError, match=r"The outer 2 dimensions of indices\.shape=\(3, 2, 2\)"):
        tf.scatter_nd_update(ref, tf.zeros([3, 2, 2], tf.int32), tf.zeros([2, 2, 2], tf.int32))
    with pytest.raises(ValueError, match=r"The inner 2 dimensions of input\.shape=\(2, 2, 2\)"):
        tf.scatter_nd_update(ref, tf.zeros([2, 2, 1], tf.int32), tf.zeros([2, 2], tf.int32))
    with pytest.raises(ValueError, match="Indices and updates specified for empty output shape"):
        tf.scatter_nd(tf.zeros([2, 2, 2], tf.int32), tf.zeros([2, 2, 2], tf.int32), [0, 3, 2])
    indices, updates = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Indices and updates specified for empty output"):
        _run(tf.scatter_nd(indices, updates, [0, 3, 2]),
             feed_dict={indices: np.zeros([2, 2, 2], np.int32), updates: np.zeros([2, 2, 2], np.int32)})
    (got,) = _run(tf.scatter_nd([[1], [3]], [9, 10], [5]))
    assert got.tolist() == [0, 9, 0, 10, 0]


def _glimpses(images, size, offsets, centered, normalized):
    """NumPy's extract_glimpse: the window's corner is its centre less half its size, truncated
    toward zero (TensorFlow 2.21's kernel gave these values for 12 cases of each convention);
    NaN where the window leaves the image."""
    batch, height, width, channels = images.shape
    out = np.full((batch,) + tuple(size) + (channels,), np.nan)
    for b, (y, x) in enumerate(offsets):
        if normalized:
            y, x = y * height, x * width
        if centered:
            y, x = y / 2 + height / 2, x / 2 + width / 2
        top, left = int(y - size[0] / 2), int(x - size[1] / 2)
        for r in range(size[0]):
            for c in range(size[1]):
                if 0 <= top + r < height and 0 <= left + c < width:
                    out[b, r, c] = images[b, top + r, left + c]
    return out


@pytest.mark.parametrize("centered,normalized,offsets", [
    (True, True, [[0.0, 0.0], [-0.9, 0.7], [1.1, -1.2]]), (False, True, [[0.5, 0.5], [0.05, 0.95], [1.1, -0.1]]),
    (True, False, [[0.0, 0.0], [-2.6, 3.3], [5.0, -5.5]]), (False, False, [[3.2, 4.7], [0.0, 8.9], [-2.5, 9.5]])])
def test_extract_glimpse_places_its_windows_as_tf_and_fills_what_is_outside_with_noise(centered, normalized, offsets):
    images = np.random.RandomState(6).rand(3, 7, 9, 2).astype(np.float32)
    glimpse = tf.image.extract_glimpse(images, [3, 4], np.float32(offsets), centered=centered, normalized=normalized)
    assert glimpse.shape.as_list() == [3, 3, 4, 2]
    (got,) = _run(glimpse)
    expect = _glimpses(images, (3, 4), np.float32(offsets), centered, normalized)
    inside = ~np.isnan(expect)
    np.testing.assert_array_equal(got[inside], expect[inside])
    low, high = images.min(axis=(1, 2)), images.max(axis=(1, 2))  # (uniform noise: each image's channel range)
    for b in range(3):
        noise = got[b][np.isnan(expect[b])].reshape(-1, 2)
        assert ((noise >= low[b]) & (noise <= high[b])).all()


def test_reduce_join_keeps_long_strings_whole_joins_in_the_order_given_and_checks_its_axes():
    words = np.array([["this", "is", "a", "test"], ["please", "do", "not", "panic"]])
    joined = [tf.reduce_join(words, 1), tf.reduce_join(words, 0, separator=" "), tf.reduce_join(words, [0, 1]),
              tf.reduce_join(words, [1, 0]), tf.reduce_join(words, 1, keep_dims=True), tf.reduce_join(words, [])]
    assert [t.shape.as_list() for t in joined] == [[2], [4], [], [], [2, 1], [2, 4]]
    got = _run(*joined)
    assert got[0].tolist() == [b"thisisatest", b"pleasedonotpanic"]  # (the second row longer than the first)
    assert got[1].tolist() == [b"this please", b"is do", b"a not", b"test panic"]
    assert got[2] == b"thispleaseisdoanottestpanic" and got[3] == b"thisisatestpleasedonotpanic"
    assert got[4].tolist() == [[b"thisisatest"], [b"pleasedonotpanic"]] and got[5].shape == (2, 4)
    with pytest.raises(ValueError, match="Invalid reduction dimension -3"):
        tf.reduce_join([[""]], -3)
    with pytest.raises(ValueError, match="Duplicate reduction dimension"):
        tf.reduce_join([[""]], [-1, 1])
    index = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="reduction dimension 2"):
        _run(tf.reduce_join(["test", "test2"], index), feed_dict={index: 2})


@pytest.mark.parametrize("pool", [tf.nn.max_pool3d, tf.nn.avg_pool3d])
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_3d_pooling_has_a_second_derivative(pool, padding):
    x = np.random.RandomState(11).permutation(2 * 4 * 5 * 3 * 2).reshape(2, 4, 5, 3, 2) / 10.0  # (unique maxima)
    check_gradients(lambda t: pool(t, [1, 2, 2, 2, 1], [1, 2, 1, 1, 1], padding) ** 2, [x], order=2)
    if pool is not tf.nn.max_pool3d:
        return

    def grad_grad(w):  # MaxPool3DGradGrad(x, w), as the gradient of MaxPool3DGrad reaches it
        xs = tf.constant(x)
        y = pool(xs, [1, 2, 2, 2, 1], [1, 2, 1, 1, 1], padding)
        g = tf.zeros_like(y)
        (dx,) = tf.gradients(y, xs, grad_ys=g)
        (out,) = tf.gradients(dx, g, grad_ys=w)
        assert out.op.type == "MaxPool3DGradGrad"
        return out ** 2

    check_gradients(grad_grad, [np.random.RandomState(12).randn(*x.shape)])  # (its gradient: MaxPool3DGrad)


def test_lgamma_is_infinite_at_its_poles_and_lbeta_of_nothing_is_minus_infinity():
    x = np.array([0.0, -1.0, -2.5, 1.0, 0.5, np.inf, -np.inf, np.nan])
    want = [np.inf if v in (0.0, -1.0) or np.isinf(v) else np.nan if np.isnan(v) else math.lgamma(v)
            for v in x]
    got, beta, pole = _run(tf.lgamma(tf.constant(x)), tf.lbeta(tf.zeros([2, 0])), tf.lbeta([[0.0, 1.0]]))
    np.testing.assert_allclose(got, want)
    np.testing.assert_array_equal(beta, [-np.inf, -np.inf])
    np.testing.assert_array_equal(pole, [np.inf])


@pytest.mark.parametrize("is_training", [True, False])
def test_fused_batch_norm_of_float16_takes_float32_parameters(is_training):
    rng = np.random.RandomState(3)
    x = rng.randn(2, 3, 3, 4).astype(np.float16)
    scale, offset = rng.rand(4).astype(np.float32) + 0.5, rng.randn(4).astype(np.float32)
    mean, variance = rng.randn(4).astype(np.float32), rng.rand(4).astype(np.float32) + 0.5
    y, m, v = tf.nn.fused_batch_norm(tf.constant(x), scale, offset, None if is_training else mean,
                                     None if is_training else variance, epsilon=0.001, is_training=is_training)
    assert (y.dtype, m.dtype, v.dtype) == (tf.float16, tf.float32, tf.float32)
    got_y, got_m, got_v = _run(y, m, v)
    x32 = x.astype(np.float32)
    if is_training:
        mean, variance = x32.mean(axis=(0, 1, 2)), x32.var(axis=(0, 1, 2))
        np.testing.assert_allclose(got_v, variance * 18 / 17, rtol=1e-4)  # (Bessel's correction: n = 18)
    want = (x32 - mean) / np.sqrt(variance + 0.001) * scale + offset
    np.testing.assert_allclose(got_y.astype(np.float32), want, rtol=1e-2, atol=1e-2)  # (float16's precision)
    np.testing.assert_allclose(got_m, mean, rtol=1e-5)


def test_cross_entropies_with_logits_are_named_by_their_scope():
    logits, labels = tf.constant([[1.0, -2.0]]), tf.constant([[1.0, 0.0]])
    assert tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="mylogistic").op.name == \
        "mylogistic"
    assert tf.nn.weighted_cross_entropy_with_logits(labels, logits, 2.0, name="mybce").op.name == "mybce"


def _crop_or_pad(x, th, tw):
    """resize_image_with_crop_or_pad written the obvious way: centre crop, then centre pad."""
    h, w = x.shape[:2]
    top, left = max(h - th, 0) // 2, max(w - tw, 0) // 2
    x = x[top:top + min(h, th), left:left + min(w, tw)]
    out = np.zeros((th, tw, x.shape[2]), x.dtype)
    top, left = (th - x.shape[0]) // 2, (tw - x.shape[1]) // 2
    out[top:top + x.shape[0], left:left + x.shape[1]] = x
    return out


def test_crops_and_pads_of_images_whose_size_is_known_only_when_the_step_runs():
    image = tf.placeholder(tf.float32, [None, None, 3])
    size = tf.placeholder(tf.int32, [])
    fitted = tf.image.resize_image_with_crop_or_pad(image, 4, 5)
    assert fitted.shape.as_list() == [4, 5, 3] and fitted.op.name.startswith("resize_image_with_crop_or_pad")
    cropped = tf.image.crop_to_bounding_box(image, 1, size, 2, 2)
    padded = tf.image.pad_to_bounding_box(image, 1, 2, 8, size)
    central = tf.image.central_crop(image, 0.5)
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        for h, w in ((3, 3), (7, 2), (6, 9)):
            x = rng.rand(h, w, 3).astype(np.float32)
            got = sess.run(fitted, {image: x})
            np.testing.assert_array_equal(got, _crop_or_pad(x, 4, 5))
            top, left = int((h - h * 0.5) / 2), int((w - w * 0.5) / 2)  # (truncated, as TF)
            np.testing.assert_array_equal(sess.run(central, {image: x}), x[top:h - top, left:w - left])
        x = rng.rand(4, 5, 3).astype(np.float32)
        np.testing.assert_array_equal(sess.run(cropped, {image: x, size: 3}), x[1:3, 3:5])
        want = np.zeros((8, 9, 3), np.float32)
        want[1:5, 2:7] = x
        np.testing.assert_array_equal(sess.run(padded, {image: x, size: 9}), want)
        with pytest.raises(tf.errors.InvalidArgumentError, match="width must be >= target \\+ offset"):
            sess.run(cropped, {image: x, size: 4})
        with pytest.raises(tf.errors.InvalidArgumentError, match="width must be <= target - offset"):
            sess.run(padded, {image: x, size: 6})
    with pytest.raises(ValueError, match="height must be >= target \\+ offset"):
        tf.image.crop_to_bounding_box(np.zeros([4, 4, 1]), 2, 0, 3, 3)
    with pytest.raises(ValueError, match="all dims of 'image.shape' must be > 0"):
        tf.image.pad_to_bounding_box(np.zeros([0, 2, 2]), 0, 0, 2, 2)
    with pytest.raises(ValueError, match="'image' must have either 3 or 4 dimensions"):
        tf.image.crop_to_bounding_box(np.zeros([3, 5]), 0, 0, 2, 2)


def test_rot90_by_a_tensor_and_image_op_names():
    image = np.arange(24.0).reshape(2, 4, 3)
    k = tf.placeholder(tf.int32, [])
    turned = tf.image.rot90(image, k)
    with tf.Session() as sess:
        for turns in range(-1, 6):
            np.testing.assert_array_equal(sess.run(turned, {k: turns}), np.rot90(image, turns))
    x = tf.placeholder(tf.float32, [5, 6, 3])
    for fn, scope in ((tf.image.flip_left_right, "flip_left_right"), (tf.image.random_flip_up_down, "random_flip"),
                      (tf.image.transpose_image, "transpose_image"),
                      (tf.image.per_image_standardization, "per_image_standardization"),
                      (lambda t: tf.image.resize_images(t, [3, 3]), "resize_images"),
                      (lambda t: tf.image.central_crop(t, 0.5), "central_crop")):
        assert fn(x).op.name.startswith(scope), (scope, fn(x).op.name)
    gray = tf.image.rgb_to_grayscale(np.array([[[255, 0, 0], [0, 255, 0]]], np.uint8))
    assert gray.dtype == tf.uint8
    np.testing.assert_array_equal(_run(gray)[0].ravel(), [76, 149])  # (TF 2.21: 0.2989 and 0.587 of 255.5, truncated)
    same = tf.image.resize_images(tf.zeros([1, 6, 4, 1], tf.uint8), [6, 4])
    assert same.dtype == tf.uint8  # (no resize: the images themselves)
    with pytest.raises(ValueError, match="must be a 1-D Tensor of 2 elements"):
        tf.image.resize_images(x, tf.constant([1, 2, 3]))


def test_dropout_keeps_the_shape_of_its_input_whatever_the_noise_shape():
    x = tf.ones([40, 30])
    dropped = tf.nn.dropout(x, 0.5, noise_shape=tf.placeholder(tf.int32))
    assert dropped.shape.as_list() == [40, 30]


def test_reductions_take_an_axis_named_twice_once():
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    sums = [tf.reduce_sum(x, axis=a) for a in ((0, 0), (0, -2), (1, -1), (-2, -1, 0, 1))]
    means = [tf.reduce_mean(x.astype(np.float64), axis=a) for a in ((1, -1), (0, 1, -1))]
    got = _run(*sums, *means)
    for value, want in zip(got, [x.sum(0), x.sum(0), x.sum(1), x.sum(), x.mean(1), x.mean()]):
        np.testing.assert_array_equal(value, want)
    axis = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension \\(2 for input with 2"):
        _run(tf.reduce_sum(x, axis), feed_dict={axis: 2})


def test_moments_of_float16_are_computed_in_float32():
    x = (np.random.RandomState(5).randn(40, 50, 2) * 3 + 100).astype(np.float16)  # (sums past float16's 65504)
    mean, variance = tf.nn.moments(tf.constant(x), [0, 1])
    weighted = tf.nn.weighted_moments(tf.constant(x), [0, 1], np.ones([40, 50, 1], np.float16))
    assert mean.dtype == variance.dtype == weighted[0].dtype == tf.float16
    got = _run(mean, variance, *weighted)
    x64 = x.astype(np.float64)
    for value, want in zip(got, [x64.mean((0, 1)), x64.var((0, 1))] * 2):
        np.testing.assert_allclose(value.astype(np.float64), want, rtol=2e-3)


def test_gradients_of_a_complex_tensor_need_grad_ys():
    x = tf.constant(7 + 3j, dtype=tf.complex64)
    y = tf.square(x)
    with pytest.raises(TypeError, match="Gradients of complex tensors .* must set grad_ys \\(y.dtype = tf.complex64\\)"):
        tf.gradients(y, x)
    (dx,) = tf.gradients(y, x, grad_ys=tf.constant(1 + 0j, tf.complex64))
    assert _run(dx)[0] == pytest.approx(2 * np.conj(7 + 3j))  # (TF's convention: the conjugate)


def test_case_without_a_default_fails_when_no_predicate_holds():
    x = tf.placeholder(tf.int32, [])
    out = tf.case([(tf.equal(x, 1), lambda: tf.constant(2)), (tf.equal(x, 2), lambda: tf.constant(4))],
                  exclusive=True)
    with tf.Session() as sess:
        assert [sess.run(out, {x: v}) for v in (1, 2)] == [2, 4]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input error: None of conditions evaluated as True"):
            sess.run(out, {x: 4})


def test_cond_returns_tensor_arrays():
    ta = tf.TensorArray(tf.float32, size=3).write(0, 1.0)
    pred = tf.placeholder(tf.bool, [])
    out = tf.cond(pred, lambda: ta.write(1, 2.0), lambda: ta.write(1, 5.0))
    assert isinstance(out, tf.TensorArray)
    stacked = out.write(2, 9.0).stack()
    with tf.Session() as sess:
        assert sess.run(stacked, {pred: True}).tolist() == [1.0, 2.0, 9.0]
        assert sess.run(stacked, {pred: False}).tolist() == [1.0, 5.0, 9.0]
    with pytest.raises(ValueError, match="must have the same type"):
        tf.cond(pred, lambda: ta, lambda: tf.constant(1.0))


def test_gather_nd_of_whole_rows_has_a_sparse_gradient_and_edge_shapes_work():
    params = np.arange(12.0).reshape(4, 3)
    rows = np.array([[2], [0], [2]])
    p = tf.constant(params)
    (dx,) = tf.gradients(tf.reduce_sum(tf.gather_nd(p, rows) * 2.0), p)
    assert isinstance(dx, tf.IndexedSlices)
    with tf.Session() as sess:
        dense = sess.run(tf.convert_to_tensor(dx))
        whole = sess.run(tf.gather_nd(params, np.zeros((2, 0), np.int32)))  # (rows of no index: all of params)
        empty = sess.run(tf.scatter_nd(np.zeros([0], np.int32), np.zeros([0], np.int32), [0]))
        kept = sess.run(tf.tensor_scatter_nd_add(np.zeros((0, 3)), np.zeros((0, 1), np.int32), np.zeros((0, 3))))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Requested more than 0 entries, but params is empty"):
            sess.run(tf.gather_nd(np.zeros((0, 3)), np.zeros((1, 2), np.int32)))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"flat indices\[1, :\] = \[7\] does not index into param \(shape: \[3\]\)"):
            sess.run(tf.gather_nd([0, 1, 2], [[[0], [7]]]))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid indices: \[2,0\] = \[6\] does not index "
                                                                 r"into \[6\]"):
            sess.run(tf.scatter_nd([[0], [1], [6]], [1, 2, 3], [6]))
        indices, updates = tf.placeholder(tf.int32), tf.placeholder(tf.float64)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Indices and updates specified for empty output"):
            sess.run(tf.tensor_scatter_nd_add(np.zeros((0, 3)), indices, updates),
                     {indices: np.zeros((1, 1), np.int32), updates: np.zeros((1, 3))})
    np.testing.assert_array_equal(dense, [[2, 2, 2], [0, 0, 0], [4, 4, 4], [0, 0, 0]])
    np.testing.assert_array_equal(whole, [params, params])
    assert empty.shape == (0,) and kept.shape == (0, 3)
    check_gradients(lambda p: tf.gather_nd(p, rows), [params])


@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_cross_entropy_over_any_axis_keeps_the_other_axes_in_order(dim):
    rng = np.random.default_rng(4)
    logits, labels = rng.standard_normal((3, 2, 4)), rng.random((3, 2, 4))
    log_softmax = logits - np.log(np.exp(logits).sum(axis=dim, keepdims=True))
    want = -(labels * log_softmax).sum(axis=dim)
    fed_logits, fed_labels = tf.placeholder(tf.float64), tf.placeholder(tf.float64)  # (ranks known only then)
    known = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits, dim=dim)
    unknown = tf.nn.softmax_cross_entropy_with_logits(labels=fed_labels, logits=fed_logits, dim=dim)
    softmax = tf.nn.softmax(fed_logits, axis=dim)
    assert known.shape.as_list() == list(want.shape)
    with tf.Session() as sess:
        got = sess.run([known, unknown, softmax], {fed_logits: logits, fed_labels: labels})
    np.testing.assert_allclose(got[0], want, rtol=1e-12)
    np.testing.assert_allclose(got[1], want, rtol=1e-12)
    np.testing.assert_allclose(got[2], np.exp(log_softmax), rtol=1e-12)


def test_confusion_matrix_refuses_labels_and_predictions_out_of_range():
    with tf.Session() as sess:
        for labels, predictions, message in (([1, 1, 0, -1], [2, 1, 0, 2], "`labels` contains negative values"),
                                             ([1, 1, 0, 2], [2, -1, 0, 2], "`predictions` contains negative"),
                                             ([1, 3], [2, 1], "`labels` out of bound"),
                                             ([1, 1], [3, 1], "`predictions` out of bound")):  # ([1, 3]: cell [2, 0])
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(tf.confusion_matrix(labels, predictions, num_classes=3))
        column = sess.run(tf.confusion_matrix([[1], [2]], [1, 2]))  # (a last dimension of 1 squeezed)
        fed = tf.placeholder(tf.int32)
        dynamic = sess.run(tf.confusion_matrix(fed, [1, 2], num_classes=3), {fed: [[1], [2]]})
    assert column.tolist() == [[0, 0, 0], [0, 1, 0], [0, 0, 1]] and dynamic.tolist() == column.tolist()
    with pytest.raises(ValueError, match=r"Can not squeeze dim\[1\], expected a dimension of 1, got 3"):
        tf.confusion_matrix([1, 2, 3], [[1, 2, 3]])


def test_a_variables_operators_include_xor_and_its_constraint_must_be_callable():
    flags = tf.Variable([True, False])
    both = [flags ^ [False, True], [True, True] ^ flags]
    with tf.Session() as sess:
        sess.run(flags.initializer)
        assert [v.tolist() for v in sess.run(both)] == [[True, True], [False, True]]
    with pytest.raises(ValueError, match="The `constraint` argument must be a callable"):
        tf.Variable(1.0, constraint=0)


def _into(n):
    return lambda shape, **unused: [n] + [1] * (len(shape) - 1)


def test_partitioned_variables_reused_as_tensorflow_reuses_them():
    with tf.variable_scope("scope0", partitioner=_into(2)):
        v = tf.get_variable("name0", shape=(3, 1, 1))
        scalar = tf.get_variable("scalar", shape=())  # (a scalar is never partitioned)
    assert v.as_tensor().name == "scope0/name0:0" and scalar.name == "scope0/scalar:0"
    with tf.variable_scope("scope0", reuse=True):
        assert tf.get_variable("name0") is v  # (reused without its partitioner)
    with tf.variable_scope("scope0", partitioner=_into(3), reuse=True):
        with pytest.raises(ValueError, match=r"Trying to reuse partitioned variable scope0/name0, but specified "
                                             r"partitions \[3, 1, 1\] and found partitions \[2, 1, 1\]"):
            tf.get_variable("name0", shape=(3, 1, 1))


def test_variable_scope_names_and_checks_as_tensorflow():
    with tf.variable_scope("default") as default:
        with tf.variable_scope(None, "layer"):
            first = tf.get_variable("w", [])
        with tf.variable_scope(None, "layer"):
            second = tf.get_variable("w", [])
        with tf.variable_scope(default):  # (a jump into the scope: the default names go on after it)
            pass
        with tf.variable_scope(None, "layer"):
            third = tf.get_variable("w", [])
    assert [v.name for v in (first, second, third)] == ["default/layer/w:0", "default/layer_1/w:0",
                                                          "default/layer_2/w:0"]
    with tf.name_scope("outer"):
        with tf.variable_scope(tf.get_variable_scope()):  # (the root scope opens no name scope)
            with tf.name_scope("inner") as inner:
                assert inner == "outer/inner/"

    def getter(next_getter, *args, **kwargs):
        return tf.identity(next_getter(*args, **kwargs), name="got")

    with tf.variable_scope("custom", custom_getter=getter):
        got = tf.get_variable("v", [1])
    assert got.name == "got:0"  # (getters run outside any name scope, as TF's)
    with pytest.raises(ValueError, match="custom_getter is not callable"):
        tf.get_variable("x", [1], custom_getter=3)
    with pytest.raises(ValueError, match="custom_getter is not callable"):
        with tf.variable_scope("bad", custom_getter=3):
            pass
    with pytest.raises(TypeError, match="auxiliary_name_scope must be `True` or `False`"):
        with tf.variable_scope("bad", auxiliary_name_scope="no"):
            pass
    with pytest.raises(ValueError, match="Initializer type 'int32' and explicit dtype 'float64' don't match"):
        tf.get_variable("typed", initializer=tf.constant(1), dtype=tf.float64)


def test_parse_tensor_refuses_bytes_that_are_no_tensor_and_a_feature_of_no_kind_is_missing():
    serialized = tf.placeholder(tf.string)
    parsed = tf.parse_tensor(serialized, tf.uint16)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse `serialized` as TensorProto: "
                                                                 "'bogus'"):
            sess.run(parsed, {serialized: "bogus"})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected `serialized` to be a scalar, got shape: "
                                                                 r"\[1\]"):
            sess.run(parsed, {serialized: ["bogus"]})
    empty = tf.train.Example(features=tf.train.Features(feature={"b": tf.train.Feature()}))
    got = tf.parse_example([empty.SerializeToString()],
                           {"b": tf.FixedLenFeature([1], tf.string, default_value="default")})
    with tf.Session() as sess:
        assert sess.run(got["b"]).tolist() == [[b"default"]]  # (a Feature with no list set: the default)


def test_a_graph_says_what_a_step_may_feed_and_fetch():
    x = tf.placeholder(tf.float32)
    y = tf.cond(tf.constant(True), lambda: x + 2, lambda: x + 0)
    inner = [op for op in tf.get_default_graph().get_operations() if op._ctx is not None][0]
    graph = tf.get_default_graph()
    assert not graph.is_fetchable(inner) and graph.is_fetchable(y) and graph.is_feedable(x)
    z = y * 3.0
    graph.prevent_feeding(y)
    graph.prevent_fetching(z.op)
    assert not graph.is_feedable(y) and not graph.is_fetchable(z)
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="has been marked as not fetchable"):
            sess.run(inner.outputs[0], {x: 3.0})
        with pytest.raises(ValueError, match="has been marked as not fetchable"):
            sess.run(z, {x: 3.0})
        with pytest.raises(ValueError, match=f"Tensor {y.name} may not be fed"):
            sess.run(y * 2.0, {y: 1.0})
        assert sess.run(y, {x: 3.0}) == 5.0


def test_with_dependencies_and_tuple_gate_indexed_slices_and_variables():
    with tf.device("/cpu:1"):
        v = tf.Variable(np.array([[0.0, 1.0], [10.0, 11.0], [20.0, 21.0]], np.float32))
    row = tf.IndexedSlices(v, tf.constant([1]))
    early = tf.gather(row.values, row.indices)
    gated = tf.tuple([row], control_inputs=[v.initializer])[0]
    late = tf.gather(gated.values, gated.indices)
    assert isinstance(gated, tf.IndexedSlices)
    after_init = with_dependencies([v.initializer], v)
    assert after_init.device.endswith("CPU:1")  # (where the value is, as TF's)
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(early)
        assert sess.run(late).tolist() == [[10.0, 11.0]]  # (the gate initialized the variable first)


def test_slices_index_with_int64_tensors_and_scans_check_their_axis():
    table = tf.constant([[0, 1, 2], [3, 4, 5]], tf.int64)
    best = tf.argmax([1, 5, 2])  # (int64, as tf.argmax gives)
    x = tf.placeholder(tf.float64, [None, 3])
    (dx,) = tf.gradients(tf.reduce_sum(x[:, best] * 2.0), x)
    axis = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        got = sess.run([table[1, best], table[:, best:best + 1], table[tf.constant(1, tf.int64)],
                        table[0, ::tf.constant(2)]])
        assert [np.asarray(g).tolist() for g in got] == [4, [[1], [4]], [3, 4, 5], [0, 2]]
        assert sess.run(dx, {x: np.ones((2, 3))}).tolist() == [[0, 2, 0], [0, 2, 0]]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected scan axis in the range \[-2, 2\), but "
                                                                 r"got 2"):
            sess.run(tf.cumsum(tf.zeros([2, 5]), axis), {axis: 2})
    with pytest.raises(ValueError, match=r"Expected scan axis in the range \[-2, 2\), but got -3"):
        tf.cumprod(tf.zeros([2, 5]), -3)


def test_dynamic_partition_edit_distance_and_unstack_as_tensorflows_shape_functions_say():
    data = tf.constant(np.arange(12.0).reshape(4, 3))
    parts = tf.dynamic_partition(data, [1, 0, 1, 2], 3)
    assert [p.shape.as_list() for p in parts] == [[None, 3]] * 3
    with pytest.raises(ValueError, match="must be a prefix of"):
        tf.dynamic_partition(data, [[0, 1]], 2)
    empty = tf.dynamic_partition(tf.zeros([2, 0]), [0, 1], 3)
    truth = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
    hypothesis = tf.SparseTensor([[0, 0], [1, 0]], ["a", "c"], [2, 1])
    distance = tf.edit_distance(hypothesis, truth, normalize=False)
    assert distance.shape.as_list() == [2]
    with pytest.raises(ValueError, match=r"axis = 2 not in \[-2, 2\)"):
        tf.unstack(data, axis=2)
    with tf.Session() as sess:
        got = sess.run(parts)
        assert [p.tolist() for p in got] == [[[3.0, 4.0, 5.0]], [[0.0, 1.0, 2.0], [6.0, 7.0, 8.0]],
                                             [[9.0, 10.0, 11.0]]]
        assert [p.shape for p in sess.run(empty)] == [(1, 0), (1, 0), (0, 0)]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"partitions\[2\] = 4 is not in \[0, 3\)"):
            sess.run(tf.dynamic_partition(data, [1, 0, 4, 2], 3))
        assert sess.run(distance).tolist() == [0.0, 1.0]


def test_a_strided_slice_of_tensor_bounds_strides_by_one_and_a_dependency_may_gate_a_python_value():
    x = tf.constant([1, 2, 3, 4, 5, 6])
    begin = tf.expand_dims(tf.constant(2), 0)
    v = tf.Variable(-1)
    gated = with_dependencies([tf.assign(v, 7)], 0)  # (TF's tf.case branches return such values)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(tf.strided_slice(x, begin, [1] + begin)).tolist() == [3]
        assert sess.run(gated) == 0 and sess.run(v) == 7


def test_segment_ops_check_their_ids_against_the_data_and_take_empty_rows():
    with pytest.raises(ValueError, match="rank 1"):
        tf.segment_sum(tf.zeros([4, 4]), tf.constant([0, 1, 2, 2], shape=[2, 2]))
    with pytest.raises(ValueError, match=r"does not start with segment_ids.shape"):
        tf.segment_sum(tf.zeros([4, 4]), [0, 1])
    ids = tf.placeholder(tf.int32, [None])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="segment_ids should be the same size as dimension 0"):
            sess.run(tf.segment_sum(tf.zeros([4, 4]), ids), {ids: [0, 1]})
        assert sess.run(tf.unsorted_segment_sum(np.zeros((2, 0)), np.array([0, 1]), 2)).shape == (2, 0)


def test_tf_assign_stores_into_a_slice_of_a_variable():
    v = tf.Variable([1, 2, 3, 4])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(tf.assign(v[1:3], [7, 8])).tolist() == [1, 7, 8, 4]


def test_slices_know_partly_known_sizes_take_numpy_scalar_indices_and_say_an_index_is_out_of_range():
    z = tf.zeros((1, 2, 3))
    assert tf.slice(z, [0, 0, 0], [tf.constant(1) + 0, 2, -1]).shape.as_list() == [None, 2, 3]
    assert tf.slice(z, [tf.constant(0) + 0, 0, 1], [1, 2, -1]).shape.as_list() == [1, 2, 2]
    x = tf.constant([1, 2, 3], tf.int64)
    with pytest.raises(ValueError, match="out of range"):
        tf.constant([1, 2])[1:, 1:]
    p = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        assert sess.run(x[np.asarray(1, np.int64)]) == 2
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"out of range for a tensor of shape \[2\]"):
            sess.run(p[1:, 1:], {p: [1, 2]})


def test_decode_csv_follows_tfs_quoting_rules_and_refuses_numbers_out_of_range():
    def decoded(records, defaults):
        with tf.Session() as sess:
            return sess.run(tf.decode_csv(records, defaults))

    names, notes = decoded(['"a,b","c""d"', "x,"], [["s"], ["t"]])
    assert names.tolist() == [b"a,b", b"x"] and notes.tolist() == [b'c"d', b"t"]
    for records, defaults, message in [
            (['"'], [["default"]], r"Quoted field has to end with quote followed by delim or end, in record 0"),
            (['"ab"c'], [["default"]], r"Quoted field has to end with quote"),
            (["0.22", 'a"bc'], [["a"]], r"Unquoted fields cannot have quotes/CRLFs inside, in record 1"),
            (["1", "9999999999999999999999999"], [[1]], r"Field 0 in record 1 .* is not a valid int32"),
            (["3.0,"], [[1.0], np.array([], np.int32)], r"Field 1 is required but missing in record 0")]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            decoded(records, defaults)


def test_max_pool_across_channels_takes_each_groups_maximum_and_differentiates():
    x = np.random.default_rng(2).standard_normal((2, 3, 3, 6))
    with tf.Session() as sess:
        got = sess.run(tf.nn.max_pool(x, [1, 1, 1, 3], [1, 1, 1, 3], "VALID"))
    np.testing.assert_array_equal(got, x.reshape(2, 3, 3, 2, 3).max(-1))
    check_gradients(lambda t: tf.nn.max_pool(t, [1, 1, 1, 2], [1, 1, 1, 2], "SAME"), [x])
    for ksize, strides, message in [([1, 2, 2, 2], [1, 1, 1, 2], "exactly one of pooling across depth"),
                                    ([1, 1, 1, 2], [1, 1, 1, 1], "depth window to equal the depth stride"),
                                    ([1, 1, 1, 4], [1, 1, 1, 4], "evenly divide")]:
        with pytest.raises(ValueError, match=message):
            tf.nn.max_pool(x, ksize, strides, "SAME")
