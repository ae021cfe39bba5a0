"""Behaviours where distflow differed from TensorFlow 2.21's ``tf.compat.v1`` when the two
ran the same expressions side by side; each is checked here against NumPy written the
obvious way (or against the figure TensorFlow gave, where it says so)."""

import itertools
import math

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

RNG = np.random.RandomState(7)


def _run(*fetches):
    with tf.Session() as sess:
        return sess.run(list(fetches))


def _batch_gather(params, indices, batch_dims, axis):
    out = np.empty(params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:])
    for b in itertools.product(*[range(n) for n in params.shape[:batch_dims]]):
        out[b] = np.take(params[b], indices[b], axis=axis - batch_dims)
    return out


@pytest.mark.parametrize("batch_dims,axis,index_shape", [(1, 1, (2, 7)), (1, 2, (2, 7, 2)), (2, 2, (2, 3, 6)),
                                                         (2, 3, (2, 3)), (1, 3, (2, 4)), (-1, 3, (2, 3, 4, 2))])
def test_gather_with_batch_dims_picks_from_each_batch_and_differentiates(batch_dims, axis, index_shape):
    params = RNG.randn(2, 3, 4, 5)
    indices = RNG.randint(0, params.shape[axis], index_shape)
    got = tf.gather(params, indices, axis=axis, batch_dims=batch_dims)
    bd = batch_dims % len(index_shape) if batch_dims < 0 else batch_dims
    want = _batch_gather(params, indices, bd, axis)
    assert got.shape.as_list() == list(want.shape)
    np.testing.assert_array_equal(_run(got)[0], want)
    check_gradients(lambda x: tf.gather(x, indices, axis=axis, batch_dims=batch_dims), [params])
    # (and the gradient's own gradient, through a function that is not linear)
    check_gradients(lambda x: tf.gradients(tf.reduce_sum(tf.square(tf.gather(x, indices, axis=axis,
                                                                           batch_dims=batch_dims))), x)[0], [params])


def test_gather_batch_dims_defaults_its_axis_and_refuses_an_axis_before_the_batch():
    params, indices = RNG.randn(3, 4), np.array([[0, 3], [1, 1], [2, 0]])
    np.testing.assert_array_equal(_run(tf.gather(params, indices, batch_dims=1))[0],
                                  np.take_along_axis(params, indices, 1))
    with pytest.raises(ValueError, match="batch_dims"):
        tf.gather(params, indices, axis=0, batch_dims=1)


def test_a_mirror_pad_as_wide_as_its_dimension_is_refused_in_reflect_mode():
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(_run(tf.pad(x, [[2, 2], [3, 0]], "REFLECT"))[0],
                                  np.pad(x, [[2, 2], [3, 0]], mode="reflect"))
    np.testing.assert_array_equal(_run(tf.pad(x, [[3, 0], [0, 4]], "SYMMETRIC"))[0],
                                  np.pad(x, [[3, 0], [0, 4]], mode="symmetric"))
    for mode, pads in [("REFLECT", [[3, 0], [0, 0]]), ("SYMMETRIC", [[0, 0], [0, 5]])]:
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"MirrorPad.*{mode}"):
            _run(tf.pad(x, pads, mode))


def test_fused_batch_norm_returns_the_corrected_batch_variance_and_takes_nchw_and_lists():
    x = RNG.randn(2, 5, 5, 3).astype(np.float32)
    scale, offset = [1.0, 2.0, 3.0], [0.0, 1.0, 0.0]
    y, mean, variance = tf.nn.fused_batch_norm(x, scale, offset)
    y_nchw = tf.nn.fused_batch_norm(x.transpose(0, 3, 1, 2), scale, offset, data_format="NCHW")[0]
    fixed = tf.nn.fused_batch_norm(x, scale, offset, [0.0, 0.5, 0.0], [1.0, 4.0, 1.0], is_training=False)
    got_y, got_mean, got_var, got_nchw, got_fixed = _run(y, mean, variance, y_nchw, fixed[0])
    x64 = x.astype(np.float64)
    batch_mean, batch_var = x64.mean((0, 1, 2)), x64.var((0, 1, 2))
    np.testing.assert_allclose(got_y, (x64 - batch_mean) / np.sqrt(batch_var + 1e-3) * scale + offset, atol=1e-5)
    np.testing.assert_allclose(got_mean, batch_mean, atol=1e-6)
    np.testing.assert_allclose(got_var, x64.var((0, 1, 2), ddof=1), rtol=1e-5)  # (TensorFlow's: n / (n - 1))
    np.testing.assert_allclose(got_nchw, got_y.transpose(0, 3, 1, 2), atol=1e-6)
    np.testing.assert_allclose(got_fixed, (x64 - [0.0, 0.5, 0.0]) / np.sqrt(np.array([1.0, 4.0, 1.0]) + 1e-3)
                               * scale + offset, atol=1e-5)


def test_fused_batch_norm_with_an_averaging_factor_returns_the_moving_averages():
    # (TF 2's FusedBatchNormV3: training normalizes by the batch, and returns
    # (1 - f) * running + f * batch for the mean and the corrected variance)
    x = RNG.randn(4, 3, 2, 3)
    running_mean, running_var = np.array([0.5, -1.0, 2.0]), np.array([1.0, 3.0, 0.5])
    y, mean, variance = tf.nn.fused_batch_norm(x, np.ones(3), np.zeros(3), running_mean, running_var,
                                               exponential_avg_factor=0.25)
    got_y, got_mean, got_var = _run(y, mean, variance)
    batch_mean, batch_var = x.mean((0, 1, 2)), x.var((0, 1, 2))
    np.testing.assert_allclose(got_y, (x - batch_mean) / np.sqrt(batch_var + 1e-3), rtol=1e-10)
    np.testing.assert_allclose(got_mean, 0.75 * running_mean + 0.25 * batch_mean, rtol=1e-12)
    np.testing.assert_allclose(got_var, 0.75 * running_var + 0.25 * x.var((0, 1, 2), ddof=1), rtol=1e-12)
    with pytest.raises(ValueError, match="exponential_avg_factor"):
        tf.nn.fused_batch_norm(x, np.ones(3), np.zeros(3), exponential_avg_factor=0.5)


def test_conv2d_takes_explicit_padding_and_integer_strides_and_dilations():
    x, w = RNG.randn(2, 6, 7, 3), RNG.randn(3, 3, 3, 2)
    pads = [[0, 0], [1, 2], [0, 1], [0, 0]]
    explicit = tf.nn.conv2d(x, w, [1, 1, 1, 1], pads)
    padded = tf.nn.conv2d(np.pad(x, pads), w, [1, 1, 1, 1], "VALID")
    nchw = tf.nn.conv2d(x.transpose(0, 3, 1, 2), w, [1, 1, 2, 1], [pads[i] for i in (0, 3, 1, 2)], data_format="NCHW")
    strided = tf.nn.conv2d(np.pad(x, pads), w, [1, 2, 1, 1], "VALID")
    ints = tf.nn.conv2d(x, w, 1, "SAME", dilations=2)
    lists = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1])
    got = _run(explicit, padded, nchw, strided, ints, lists)
    np.testing.assert_array_equal(got[0], got[1])
    np.testing.assert_allclose(got[2], got[3].transpose(0, 3, 1, 2), atol=1e-12)
    np.testing.assert_array_equal(got[4], got[5])
    with pytest.raises(ValueError, match="explicit padding"):
        tf.nn.conv2d(x, w, 1, [[1, 1], [1, 2], [0, 1], [0, 0]])


def test_tf_div_divides_integers_as_python_2_did():
    i, k = np.array([-7, 7, -8, 9], np.int32), np.array([2, -2, 3, 3], np.int32)
    got_int, got_float, got_divide = _run(tf.div(i, k), tf.div(i.astype(np.float32), k.astype(np.float32)),
                                          tf.divide(i, k))
    assert got_int.dtype == np.int32 and got_int.tolist() == (i // k).tolist()
    np.testing.assert_allclose(got_float, i / k, rtol=1e-7)
    assert got_divide.dtype == np.float64


def test_matrix_solve_ls_gives_a_wide_system_its_minimum_norm_solution():
    a, b = RNG.randn(3, 5), RNG.randn(3, 2)
    tall = RNG.randn(6, 3)
    got_wide, got_regularized, got_tall = _run(tf.matrix_solve_ls(a, b), tf.matrix_solve_ls(a, b, l2_regularizer=0.5),
                                               tf.matrix_solve_ls(tall, tall[:, :1] + 0.1))
    np.testing.assert_allclose(got_wide, np.linalg.lstsq(a, b, rcond=None)[0], atol=1e-10)
    np.testing.assert_allclose(got_regularized, a.T @ np.linalg.solve(a @ a.T + 0.5 * np.eye(3), b), atol=1e-10)
    np.testing.assert_allclose(got_tall, np.linalg.lstsq(tall, tall[:, :1] + 0.1, rcond=None)[0], atol=1e-10)


def _bessel_i(x, order):
    """I_n(x) = (1/pi) * integral over [0, pi] of exp(x cos t) cos(n t): the rule of
    trapezoids, exact to rounding for this periodic integrand."""
    t = np.linspace(0.0, np.pi, 4001)
    values = np.exp(np.multiply.outer(x, np.cos(t))) * np.cos(order * t)
    return (values[..., 1:-1].sum(-1) + 0.5 * (values[..., 0] + values[..., -1])) * (t[1] - t[0]) / np.pi


def test_inverse_normal_erfinv_and_the_bessel_functions():
    p = np.array([1e-300, 1e-20, 1e-8, 0.001, 0.1, 0.3, 0.5, 0.7, 0.999, 1 - 1e-10, 0.0, 1.0, -0.1])
    y = np.array([-0.999999, -0.9, -0.3, 0.0, 1e-10, 0.5, 0.99, 0.9999999999, 1.0, -1.0])
    x = np.array([0.0, 1e-8, -0.5, 1.0, -3.0, 7.5, 19.99, 20.01, -25.0, 50.0])
    big = np.array([100.0, 700.0, -1000.0, 1e5])
    got = _run(tf.math.ndtri(p), tf.math.erfinv(y), tf.math.bessel_i0e(x), tf.math.bessel_i1e(x),
               tf.math.bessel_i0(x[:6]), tf.math.bessel_i1(x[:6]), tf.math.bessel_i0e(big), tf.math.bessel_i1e(big))
    phi = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in got[0][:10]])
    np.testing.assert_allclose(phi, p[:10], rtol=1e-13)
    assert got[0][10:12].tolist() == [-np.inf, np.inf] and np.isnan(got[0][12])
    np.testing.assert_allclose([math.erf(v) for v in got[1][:8]], y[:8], rtol=1e-14, atol=1e-300)
    assert got[1][8:].tolist() == [np.inf, -np.inf]
    np.testing.assert_allclose(got[2], np.exp(-np.abs(x)) * _bessel_i(x, 0), rtol=1e-13)
    np.testing.assert_allclose(got[3], np.exp(-np.abs(x)) * _bessel_i(x, 1), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(got[4], np.i0(x[:6]), rtol=1e-13)
    np.testing.assert_allclose(got[5], _bessel_i(x[:6], 1), rtol=1e-13, atol=1e-15)
    # (far out, where the integral overflows: TensorFlow 2.21's figures)
    np.testing.assert_allclose(got[6], [0.03994437929909669, 0.015081295651531355, 0.012617240455891254,
                                        0.0012615678379767766], rtol=1e-13)
    np.testing.assert_allclose(got[7], [0.039744153025130256, 0.015070519444716844, -0.012610930256928629,
                                        0.0012615615301218171], rtol=1e-13)


def test_the_inverse_normal_erfinv_and_bessel_gradients_against_central_differences():
    check_gradients(tf.math.ndtri, [np.array([0.01, 0.3, 0.5, 0.8])])
    check_gradients(tf.math.erfinv, [np.array([-0.9, -0.2, 0.1, 0.7])])
    check_gradients(tf.math.bessel_i0e, [np.array([-3.0, -0.4, 0.6, 2.0, 25.0])])
    check_gradients(tf.math.bessel_i1e, [np.array([-3.0, -0.4, 0.6, 2.0, 25.0])])
    check_gradients(tf.math.bessel_i1, [np.array([-2.0, 0.3, 1.5])])


def _moving_after_two_steps(batch_var, momentum=0.5):
    moving = np.ones_like(batch_var)
    for _ in range(2):
        moving = moving - (moving - batch_var) * (1 - momentum)
    return moving


@pytest.mark.parametrize("fused,axis", [(None, -1), (True, 1), (False, -1)])
def test_batch_normalization_moving_variance_is_bessel_corrected_where_tf_fuses(fused, axis):
    images = RNG.randn(2, 7, 7, 3).astype(np.float32)
    tf.reset_default_graph()
    tf.layers.batch_normalization(images, axis=axis, training=True, momentum=0.5, fused=fused)
    layer = tf.keras.layers.BatchNormalization(axis=axis, momentum=0.5, fused=fused)
    layer(images, training=True)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS) + layer.updates
    moving = [v for v in tf.global_variables() if "moving_variance" in v.name]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            sess.run(updates)
        got = sess.run(moving)
    reduce_axes = tuple(a for a in range(4) if a != axis % 4)
    ddof = 0 if fused is False else 1  # (TF 1.x's fused kernel corrects the variance it averages)
    want = _moving_after_two_steps(images.astype(np.float64).var(reduce_axes, ddof=ddof))
    for value in got:
        np.testing.assert_allclose(value, want, rtol=1e-5)
    # (2-D inputs never take the fused kernel: the biased variance)
    tf.reset_default_graph()
    x = RNG.randn(4, 6).astype(np.float32)
    tf.layers.batch_normalization(x, training=True, momentum=0.5)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
        got = sess.run([v for v in tf.global_variables() if "moving_variance" in v.name][0])
    np.testing.assert_allclose(got, _moving_after_two_steps(x.astype(np.float64).var(0)), rtol=1e-5)


def test_keras_losses_smooth_labels_take_their_arguments_in_order_and_reduce():
    p = RNG.rand(4, 3) + 0.05
    labels = np.array([0, 2, 1, 2])
    onehot = np.eye(3)[labels]
    q = p[::-1]
    binary = (p > 0.5).astype(np.float64)
    L = tf.keras.losses
    got = _run(L.CategoricalCrossentropy(label_smoothing=0.1)(onehot, p), L.CategoricalCrossentropy(True, 0.1)(onehot, p),
               L.BinaryCrossentropy(from_logits=True, label_smoothing=0.2)(binary, p), L.Huber(0.3)(p, q),
               L.categorical_hinge(p, q), L.MeanSquaredError(reduction="sum")(p, q),
               L.MeanSquaredError(reduction="none")(p, q), L.MeanSquaredError()(p, q, sample_weight=[1.0, 0.0, 2.0, 1.0]),
               L.CosineSimilarity(axis=0)(p, q))
    smooth = onehot * 0.9 + 0.1 / 3
    probs = np.clip(p / p.sum(1, keepdims=True), 1e-7, 1 - 1e-7)
    np.testing.assert_allclose(got[0], np.mean(-(smooth * np.log(probs)).sum(1)), rtol=1e-6)
    log_softmax = p - np.log(np.exp(p).sum(1, keepdims=True))
    np.testing.assert_allclose(got[1], np.mean(-(smooth * log_softmax).sum(1)), rtol=1e-6)
    smooth_binary = binary * 0.8 + 0.1
    sigmoid_xent = np.maximum(p, 0) - p * smooth_binary + np.log1p(np.exp(-np.abs(p)))
    np.testing.assert_allclose(got[2], sigmoid_xent.mean(), rtol=1e-6)
    error = np.abs(q - p)
    huber = np.where(error <= 0.3, 0.5 * error ** 2, 0.3 * error - 0.5 * 0.09)
    np.testing.assert_allclose(got[3], huber.mean(), rtol=1e-6)
    np.testing.assert_allclose(got[4], np.maximum(((1 - p) * q).max(1) - (p * q).sum(1) + 1, 0), rtol=1e-6)
    squared = ((p - q) ** 2).mean(1)
    np.testing.assert_allclose(got[5], squared.sum(), rtol=1e-6)
    np.testing.assert_allclose(got[6], squared, rtol=1e-6)
    np.testing.assert_allclose(got[7], (squared * [1, 0, 2, 1]).mean(), rtol=1e-6)
    cosine = -((p / np.linalg.norm(p, axis=0)) * (q / np.linalg.norm(q, axis=0))).sum(0)
    np.testing.assert_allclose(got[8], cosine.mean(), rtol=1e-6)
    with pytest.raises(ValueError, match="Reduction"):
        L.MeanSquaredError(reduction="mean")


def test_keras_batch_dot_contracts_the_given_axes():
    a, b = RNG.randn(2, 5, 3), RNG.randn(2, 5, 3)
    m = RNG.randn(2, 3)
    K = tf.keras.backend
    got = _run(K.batch_dot(a, b, axes=[2, 2]), K.batch_dot(a, b, axes=[1, 1]), K.batch_dot(a, b.transpose(0, 2, 1)),
               K.batch_dot(m, m, axes=1), K.batch_dot(a, m, axes=[2, 1]), K.batch_dot(m, b[:, :3], axes=[1, 1]))
    np.testing.assert_allclose(got[0], np.einsum("bik,bjk->bij", a, b), atol=1e-12)
    np.testing.assert_allclose(got[1], np.einsum("bki,bkj->bij", a, b), atol=1e-12)
    np.testing.assert_allclose(got[2], np.einsum("bik,bkj->bij", a, b.transpose(0, 2, 1)), atol=1e-12)
    np.testing.assert_allclose(got[3], (m * m).sum(1, keepdims=True), atol=1e-12)
    np.testing.assert_allclose(got[4], np.einsum("bik,bk->bi", a, m), atol=1e-12)
    np.testing.assert_allclose(got[5], np.einsum("bk,bkj->bj", m, b[:, :3]), atol=1e-12)


def test_keras_causal_convolution_sees_no_later_step():
    seq = RNG.randn(2, 6, 3)
    layer = tf.keras.layers.Conv1D(2, 3, dilation_rate=2, padding="causal", kernel_initializer="ones",
                                   use_bias=False, dtype="float64")
    strided = tf.keras.layers.Conv1D(1, 2, strides=2, padding="causal", kernel_initializer="ones", use_bias=False,
                                     dtype="float64")
    outputs = [layer(tf.constant(seq)), strided(tf.constant(seq))]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_strided = sess.run(outputs)
    padded = np.pad(seq, [[0, 0], [4, 0], [0, 0]])
    want = np.stack([padded[:, t:t + 5:2].sum((1, 2)) for t in range(6)], 1)
    np.testing.assert_allclose(got, np.repeat(want[..., None], 2, -1), atol=1e-12)
    padded = np.pad(seq, [[0, 0], [1, 0], [0, 0]])
    np.testing.assert_allclose(got_strided[..., 0], np.stack([padded[:, t:t + 2].sum((1, 2)) for t in (0, 2, 4)], 1),
                               atol=1e-12)
    with pytest.raises(ValueError, match="causal"):
        tf.keras.layers.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="threshold"):
        tf.keras.layers.ReLU(threshold=-0.2)


def test_the_top_k_metrics_count_in_float64():
    labels = np.array([1, 0, 1, 1])
    scores = np.array([[0.1, 0.9], [0.8, 0.2], [0.6, 0.4], [0.3, 0.7]], np.float32)
    metrics = [tf.metrics.recall_at_k(labels, scores, 1), tf.metrics.precision_at_k(labels, scores, 1),
               tf.metrics.sparse_precision_at_k(labels, scores, 1), tf.metrics.average_precision_at_k(labels, scores, 2),
               tf.metrics.precision_at_top_k(labels, np.array([[1], [0], [0], [1]])),
               tf.metrics.recall_at_top_k(labels, np.array([[1], [0], [0], [1]]))]
    assert all(value.dtype == tf.float64 and update.dtype == tf.float64 for value, update in metrics)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([update for _, update in metrics])
        got = sess.run([value for value, _ in metrics])
    hits = (scores.argmax(1) == labels).mean()  # 3 of 4
    # AP@2: a hit at rank 1 scores 1, at rank 2 (the only label) 1/2
    np.testing.assert_allclose(got, [hits, hits, hits, (1 + 1 + 0.5 + 1) / 4, hits, hits], rtol=1e-12)


def test_a_built_keras_model_has_its_input_and_output_tensors():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,)), tf.keras.layers.Dense(2)])
    assert model.input is model.inputs[0] and model.output is model.outputs[0]
    assert model.input.shape.as_list() == [None, 3] and model.output.shape.as_list() == [None, 2]
    a, b = tf.keras.Input((2,)), tf.keras.Input((3,))
    joined = tf.keras.Model([a, b], [tf.keras.layers.concatenate([a, b]), a])
    assert joined.input == [a, b] and len(joined.output) == 2
    with pytest.raises(AttributeError, match="inbound nodes"):
        tf.keras.Sequential([tf.keras.layers.Dense(2)]).output  # noqa: B018 - (not built yet)


def test_bad_inputs_tensorflow_refuses_are_refused_with_the_reason():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="DecodeBase64"):
        _run(tf.decode_base64("@@@"))
    assert _run(tf.decode_base64(tf.encode_base64(["a?b>", "xy"])))[0].tolist() == [b"a?b>", b"xy"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="not increasing: 1 at 0 is followed by 0"):
        _run(tf.segment_sum(a, [1, 0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=">= 0"):
        _run(tf.segment_max(a, [-1, 0]))
    np.testing.assert_array_equal(_run(tf.segment_sum(a, [0, 2]))[0], [[1, 1, 1], [0, 0, 0], [1, 1, 1]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a permutation"):
        _run(tf.invert_permutation([0, 0]))
    with pytest.raises(ValueError, match="incompatible"):
        tf.boolean_mask(a, [True])
    with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 3 from 2"):
        tf.nn.conv2d(tf.ones([1, 2, 2, 1]), tf.ones([3, 3, 1, 1]), [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="Negative dimension size"):
        tf.nn.max_pool(tf.ones([1, 2, 2, 1]), [1, 3, 3, 1], [1, 1, 1, 1], "VALID")
    fed = tf.placeholder(tf.float32, [1, None, None, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Negative dimension size"):
        with tf.Session() as sess:
            sess.run(tf.nn.max_pool(fed, [1, 3, 3, 1], [1, 1, 1, 1], "VALID"), {fed: np.ones((1, 2, 2, 1))})
    with pytest.raises(ValueError, match="3 or 4 dimensions"):
        tf.image.resize_images(tf.ones([4, 4]), [2, 2])


@pytest.mark.parametrize("l1,l2", [(0.0, 0.0), (0.05, 0.2)])
def test_adagrad_dual_averaging_against_its_formula(l1, l2):
    x, y = RNG.randn(8, 3), RNG.randn(8, 1)
    ids = np.array([0, 2, 2, 1])
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(np.ones((3, 1)))
    emb = tf.Variable(np.ones((4, 2)))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y)) + tf.reduce_sum(tf.square(tf.nn.embedding_lookup(emb, ids)
                                                                                      - 0.5))
    opt = tf.train.AdagradDAOptimizer(0.1, step, 0.5, l1, l2)
    train = opt.minimize(loss, global_step=step)
    grads = [tf.convert_to_tensor(g) for g in tf.gradients(loss, [w, emb])]  # (the embedding's densified)
    assert sorted(opt.get_slot_names()) == ["gradient_accumulator", "gradient_squared_accumulator"]
    values = [np.ones((3, 1)), np.ones((4, 2))]
    accumulated = [np.zeros((3, 1)), np.zeros((4, 2))]
    squared = [np.full((3, 1), 0.5), np.full((4, 2), 0.5)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for t in range(1, 4):
            gradients = sess.run(grads)
            sess.run(train)
            for k, g in enumerate(gradients):
                # (the sparse update moves only the embedding rows looked up, and their slots)
                touched = np.isin(np.arange(4), ids)[:, None] if k else np.ones((3, 1), bool)
                accumulated[k] = np.where(touched, accumulated[k] + g, accumulated[k])
                squared[k] = np.where(touched, squared[k] + g * g, squared[k])
                shrunk = np.sign(accumulated[k]) * np.maximum(np.abs(accumulated[k]) - l1 * t, 0) if l1 else \
                    accumulated[k]
                values[k] = np.where(touched, -0.1 * shrunk / (l2 * t * 0.1 + np.sqrt(squared[k])), values[k])
        got_w, got_emb = sess.run([w, emb])
    np.testing.assert_allclose(got_w, values[0], rtol=1e-10)
    np.testing.assert_allclose(got_emb, values[1], rtol=1e-10)


def test_constants_empty_extrema_nan_ordering_and_dtypes_as_tensorflow():
    got = _run(tf.constant([1, 2], shape=[4]), tf.constant([[1.5]], shape=[2, 2]), tf.zeros([2], tf.string),
               tf.one_hot([1], 3, on_value=True, off_value=False), tf.reduce_max(tf.constant([], tf.float32)),
               tf.reduce_min(tf.zeros([0, 2], tf.int32), 0), tf.reduce_max(tf.zeros([2, 0]), 1, keepdims=True),
               tf.argmin(tf.constant([2.0, np.nan, 1.0])), tf.argmax(tf.constant([[np.nan, 1.0, 3.0]]), 1),
               tf.nn.top_k(tf.constant([1.0, np.nan, 3.0]), 2))
    assert got[0].tolist() == [1, 2, 2, 2]  # (TF 1.x: the last value repeats)
    assert got[1].tolist() == [[1.5, 1.5], [1.5, 1.5]]
    assert got[2].tolist() == [b"", b""]
    assert got[3].dtype == np.bool_ and got[3].tolist() == [[False, True, False]]
    assert got[4] == -np.inf and got[5].tolist() == [np.iinfo(np.int32).max] * 2
    assert got[6].shape == (2, 1) and (got[6] == -np.inf).all()
    assert got[7] == 2 and got[8].tolist() == [2]  # (NaN never wins an argmin or argmax)
    values, indices = got[9]
    assert np.isnan(values[0]) and values[1] == 3.0 and indices.tolist() == [1, 2]  # (NaN counts as the largest)
    with pytest.raises(TypeError):
        tf.cumsum(tf.constant([True, True]))
    with pytest.raises(TypeError):
        tf.ones_like(tf.constant(["a"]))
    with pytest.raises(ValueError, match="Too many elements"):
        tf.constant([1, 2, 3], shape=[2])


@pytest.mark.parametrize("centered", [False, True])
def test_keras_rmsprop_without_momentum_adds_epsilon_outside_the_root(centered):
    target = np.array([0.3, -1.2, 2.0])
    w = tf.Variable(np.zeros(3))
    opt = tf.keras.optimizers.RMSprop(0.05, epsilon=1e-3, centered=centered)
    train = opt.minimize(tf.reduce_sum(tf.square(w - target)), [w])
    value, ms, mg = np.zeros(3), np.zeros(3), np.zeros(3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(4):
            sess.run(train)
            g = 2 * (value - target)
            ms = 0.9 * ms + 0.1 * g * g
            mg = 0.9 * mg + 0.1 * g
            denominator = ms - mg * mg if centered else ms
            value = value - 0.05 * g / (np.sqrt(denominator) + 1e-3)  # (Keras's: epsilon outside the root)
        np.testing.assert_allclose(sess.run(w), value, rtol=1e-6)  # (the rate is a float32 variable)


def test_keras_adamax_and_nadam_against_their_formulas():
    target = np.array([0.3, -1.2, 2.0])
    for name in ("Adamax", "Nadam"):
        tf.reset_default_graph()
        w = tf.Variable(np.zeros(3))
        opt = getattr(tf.keras.optimizers, name)(0.1)
        train = opt.minimize(tf.reduce_sum(tf.square(w - target)), [w])
        value, m, v, cache = np.zeros(3), np.zeros(3), np.zeros(3), 1.0
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for t in range(1, 5):
                sess.run(train)
                g = 2 * (value - target)
                m = 0.9 * m + 0.1 * g
                if name == "Adamax":
                    v = np.maximum(0.999 * v, np.abs(g))
                    value = value - 0.1 / (1 - 0.9 ** t) * m / (v + 1e-7)
                else:  # (TF's Keras schedule: momentum 0.9 (1 - 0.5 * 0.96^(0.004 t)), a running product)
                    m_t, m_next = (0.9 * (1 - 0.5 * 0.96 ** (0.004 * s)) for s in (t, t + 1))
                    cache *= m_t
                    v = 0.999 * v + 0.001 * g * g
                    m_bar = (1 - m_t) * g / (1 - cache) + m_next * m / (1 - cache * m_next)
                    value = value - 0.1 * m_bar / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-7)
            np.testing.assert_allclose(sess.run(w), value, rtol=1e-5)  # (float32 rate and schedule)


def test_keras_model_weights_go_layer_by_layer_and_short_metric_names_are_logged_in_full():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,)), tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.Dense(1)])
    # (TF's Keras: each layer's trainable, then non-trainable weights, before the next layer's)
    assert [w.name.split(":")[0] for w in model.weights] == [
        "dense/kernel", "dense/bias", "batch_normalization/gamma", "batch_normalization/beta",
        "batch_normalization/moving_mean", "batch_normalization/moving_variance", "dense_1/kernel", "dense_1/bias"]
    model.compile("sgd", "mse", metrics=["mae", "mse"])
    history = model.fit(np.ones((4, 3)), np.ones((4, 1)), epochs=1, verbose=0)
    assert sorted(history.history) == ["loss", "mean_absolute_error", "mean_squared_error"]


def test_a_tf_layers_object_called_again_reuses_its_scopes_for_its_ops():
    layer = tf.layers.Dense(3)
    x = tf.ones([2, 4])
    first = layer(x)
    with tf.name_scope("elsewhere"):
        second = layer(x)
    conv = tf.layers.Conv2D(2, 3)
    image = tf.zeros([1, 5, 5, 1])
    conv_first, conv_second = conv(image), conv(image)
    # (TensorFlow 2.21's names for the same calls: the layer's own scope again, its ops numbered)
    assert [first.name, second.name, conv_first.name, conv_second.name] == [
        "dense/BiasAdd:0", "dense/BiasAdd_1:0", "conv2d/BiasAdd:0", "conv2d/BiasAdd_1:0"]
    assert len(tf.global_variables()) == 4
