"""More TF 1.x names that no other test calls by name, each against NumPy written from
TensorFlow's documented behaviour: scatter updates, tensor scatters, segment products,
casts, linear algebra, pooling shorthands, assertions and small helpers."""

import numpy as np
import pytest

import distflow as tf

rng = np.random.default_rng(1)


def run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        return sess.run(fetches, feed)


REF = rng.random((5, 3)).astype(np.float32) + 1.0
UPDATES = rng.random((2, 3)).astype(np.float32) + 0.5
INDICES = np.array([3, 1])


@pytest.mark.parametrize("name,combine", [
    ("scatter_sub", np.subtract), ("scatter_mul", np.multiply), ("scatter_div", np.divide),
    ("scatter_max", np.maximum), ("scatter_min", np.minimum),
])
def test_scatter_updates_change_only_the_named_rows(name, combine):
    with tf.Graph().as_default():
        ref = tf.Variable(REF)
        got = run(getattr(tf, name)(ref, INDICES, UPDATES))
    want = REF.copy()
    want[INDICES] = combine(REF[INDICES], UPDATES)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("indices", [
    np.array([4, 0, 4, 2, 4, 0]),  # a few repeated
    np.array([1] * 30 + [3] * 12 + list(range(5)) * 4),  # some indices with many rows
    np.repeat(np.arange(5), 11),  # every index with more rows than a few layers
])
def test_scatter_add_and_sub_with_repeated_indices_add_every_row(indices):
    """Repeated indices accumulate, as np.add.at does (float64: exact to the last bits)."""
    updates = rng.standard_normal((len(indices), 3))
    ref = rng.standard_normal((5, 3))
    with tf.Graph().as_default():
        added, subtracted = tf.Variable(ref), tf.Variable(ref)
        got = run([tf.scatter_add(added, indices, updates), tf.scatter_sub(subtracted, indices, updates)])
    for g, sign in zip(got, (1, -1)):
        want = ref.copy()
        np.add.at(want, indices, sign * updates)
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)


def test_scatter_nd_on_variables_and_tensor_scatters():
    indices = np.array([[0, 1], [4, 2]])
    values = np.array([10.0, 20.0], np.float32)
    with tf.Graph().as_default():
        added = run(tf.scatter_nd_add(tf.Variable(REF), indices, values))
        updated = run(tf.scatter_nd_update(tf.Variable(REF), indices, values))
        t_add, t_sub, t_upd, t_sub_alias = run([
            tf.tensor_scatter_nd_add(REF, indices, values), tf.tensor_scatter_nd_sub(REF, indices, values),
            tf.tensor_scatter_nd_update(REF, indices, values), tf.tensor_scatter_sub(REF, indices, values)])
    for got, op in ((added, np.add), (t_add, np.add), (t_sub, np.subtract), (t_sub_alias, np.subtract)):
        want = REF.copy()
        want[tuple(indices.T)] = op(want[tuple(indices.T)], values)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    for got in (updated, t_upd):
        want = REF.copy()
        want[tuple(indices.T)] = values
        np.testing.assert_array_equal(got, want)


def test_unsorted_segment_prod_reverse_v2_realdiv_and_shape_n():
    data = rng.random(7).astype(np.float32) + 0.5
    segments = np.array([2, 0, 2, 1, 0, 2, 1])
    x = rng.random((2, 3, 4)).astype(np.float32)
    with tf.Graph().as_default():
        prod, rev, div, shapes = run([tf.unsorted_segment_prod(data, segments, 4), tf.reverse_v2(x, [0, 2]),
                                      tf.realdiv(x, 2.0), tf.shape_n([x, data])])
    np.testing.assert_allclose(prod, [np.prod(data[segments == k]) for k in range(4)], rtol=1e-6)  # (empty: 1)
    np.testing.assert_array_equal(rev, x[::-1, :, ::-1])
    np.testing.assert_allclose(div, x / 2.0)
    assert [s.tolist() for s in shapes] == [[2, 3, 4], [7]]


def test_the_to_casts():
    x = np.array([1.7, -2.2, 3.0], np.float32)
    with tf.Graph().as_default():
        f, d, i, c = run([tf.to_float(x), tf.to_double(x), tf.to_int32(x), tf.to_complex128(x)])
    assert f.dtype == np.float32 and d.dtype == np.float64 and c.dtype == np.complex128
    np.testing.assert_array_equal(i, [1, -2, 3])  # (truncation toward zero, as a C cast)
    np.testing.assert_array_equal(c, x.astype(np.complex128))


def test_parallel_stack_qr_eigvals_square_root_and_digamma():
    a = rng.random((4, 3))
    sym = a.T @ a + np.eye(3)
    with tf.Graph().as_default():
        points = np.array([1.0, 2.0, 7.0, 30.0, 0.5, 3.5, 12.5])
        stacked, (q, r), eig, root, psi = run([tf.parallel_stack([a, a + 1]), tf.qr(a), tf.self_adjoint_eigvals(sym),
                                               tf.matrix_square_root(sym), tf.digamma(points)])
    np.testing.assert_array_equal(stacked, np.stack([a, a + 1]))
    np.testing.assert_allclose(q @ r, a, atol=1e-10)
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-10)
    np.testing.assert_allclose(eig, np.linalg.eigvalsh(sym), rtol=1e-10)
    np.testing.assert_allclose(root @ root, sym, rtol=1e-8)
    # digamma's closed forms: psi(n) = -gamma + sum 1/k (k < n); psi(n + 1/2) = -gamma - 2 ln 2 + sum 2/(2k - 1)
    euler = 0.57721566490153286061
    exact = [-euler + sum(1.0 / k for k in range(1, int(p))) if p == int(p) else
             -euler - 2 * np.log(2) + sum(2.0 / (2 * k - 1) for k in range(1, int(p) + 1)) for p in points]
    np.testing.assert_allclose(psi, exact, rtol=1e-14, atol=1e-15)


def test_static_helpers():
    assert tf.broadcast_static_shape(tf.TensorShape([3, 1]), tf.TensorShape([1, 4])).as_list() == [3, 4]
    assert tf.dimension_at_index(tf.TensorShape([2, None]), 0).value == 2
    with tf.Graph().as_default():
        assert tf.is_numeric_tensor(tf.constant(1.0)) and not tf.is_numeric_tensor(tf.constant("a"))
        assert run(tf.guarantee_const(tf.constant([1, 2]))).tolist() == [1, 2]


def test_pooling_shorthands_match_numpy():
    x = rng.random((2, 6, 3)).astype(np.float32)
    image = rng.random((1, 4, 4, 2)).astype(np.float32)
    with tf.Graph().as_default():
        avg1, max2, avg2, max2_list = run([
            tf.nn.avg_pool1d(x, 2, 2, "VALID"), tf.nn.max_pool2d(image, 2, 2, "VALID"),
            tf.nn.avg_pool2d(image, [2, 2], [2], "VALID"), tf.nn.max_pool2d(image, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")])
    np.testing.assert_allclose(avg1, x.reshape(2, 3, 2, 3).mean(axis=2), rtol=1e-6)
    blocks = image.reshape(1, 2, 2, 2, 2, 2)
    np.testing.assert_allclose(max2, blocks.max(axis=(2, 4)))
    np.testing.assert_array_equal(max2_list, max2)
    np.testing.assert_allclose(avg2, blocks.mean(axis=(2, 4)), rtol=1e-6)


def test_with_space_to_batch_is_a_dilated_convolution():
    image = rng.random((1, 8, 8, 2)).astype(np.float32)
    kernel = rng.random((3, 3, 2, 4)).astype(np.float32)
    with tf.Graph().as_default():
        dilated = tf.nn.convolution(image, kernel, "SAME", dilation_rate=[2, 2])
        via_batch = tf.nn.with_space_to_batch(
            image, dilation_rate=[2, 2], padding="SAME", filter_shape=[3, 3],
            op=lambda inp, num_spatial_dims, padding: tf.nn.convolution(inp, kernel, padding))
        got, want = run([via_batch, dilated])
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_assertions_pass_and_fail_with_the_op_named():
    with tf.Graph().as_default():
        good = [tf.assert_integer(tf.constant([1])), tf.assert_scalar(tf.constant(1.0)),
                tf.assert_type(tf.constant(1.0), tf.float32),
                tf.assert_rank_at_least(tf.constant([[1.0]]), 1)]
        run([g for g in good if g is not None])
        tf.assert_proper_iterable([1, 2])
        assert tf.assert_same_float_dtype([tf.constant(1.0), tf.constant(2.0)]) == tf.float32
        with pytest.raises(TypeError):
            tf.assert_integer(tf.constant([1.0]))
        with pytest.raises(ValueError):
            tf.assert_scalar(tf.constant([1.0]))
        with pytest.raises(TypeError):
            tf.assert_proper_iterable("a string")
        checked = tf.verify_tensor_all_finite(tf.constant([1.0, np.inf]), "not finite here")
        with pytest.raises(tf.errors.InvalidArgumentError, match="not finite here"):
            run(checked)


def test_random_shuffle_is_a_permutation_and_py_functions_run():
    values = np.arange(20)
    with tf.Graph().as_default():
        shuffled = tf.random_shuffle(values, seed=3)
        doubled = tf.numpy_function(lambda v: v * 2, [values], tf.int64)
        tripled = tf.py_function(lambda v: v * 3, [values], tf.int64)
        got, d, t = run([shuffled, doubled, tripled])
    assert sorted(got.tolist()) == values.tolist() and got.tolist() != values.tolist()
    np.testing.assert_array_equal(d, values * 2)
    np.testing.assert_array_equal(t, values * 3)


def test_grad_pass_through_and_noisy_linear_cosine_decay():
    with tf.Graph().as_default():
        x = tf.constant(3.0)
        y = tf.grad_pass_through(lambda v: tf.round(v * 1.4))(x)  # (forward rounded, gradient as identity)
        grad = tf.gradients(y, x)[0]
        step = tf.constant(50, tf.int64)
        rate = tf.train.noisy_linear_cosine_decay(0.1, step, decay_steps=100, initial_variance=0.0)
        got_y, got_grad, got_rate = run([y, grad, rate])
    assert got_y == 4.0 and got_grad == 1.0
    # with no noise: linear_cosine_decay's value (alpha 0.0, beta 0.001, 0.5 periods)
    fraction = 0.5
    cosine = 0.5 * (1 + np.cos(np.pi * 2 * 0.5 * fraction))
    np.testing.assert_allclose(got_rate, 0.1 * ((1 - fraction) * cosine + 0.001), rtol=1e-5)


def test_batch_norm_with_global_normalization_and_silu():
    t = rng.random((4, 3)).astype(np.float32)
    m, v = t.mean(axis=0), t.var(axis=0)
    beta, gamma = np.array([0.1, 0.2, 0.3], np.float32), np.array([2.0, 3.0, 4.0], np.float32)
    with tf.Graph().as_default():
        scaled, plain, silu = run([
            tf.nn.batch_norm_with_global_normalization(t, m, v, beta, gamma, 1e-3, True),
            tf.nn.batch_norm_with_global_normalization(t, m, v, beta, gamma, 1e-3, False),
            tf.nn.silu(t)])
    np.testing.assert_allclose(scaled, (t - m) / np.sqrt(v + 1e-3) * gamma + beta, rtol=1e-5)
    np.testing.assert_allclose(plain, (t - m) / np.sqrt(v + 1e-3) + beta, rtol=1e-5)
    np.testing.assert_allclose(silu, t / (1 + np.exp(-t)), rtol=1e-6)


def test_backprop_functions_are_the_gradients_of_their_convolutions():
    image = rng.random((1, 5, 5, 2)).astype(np.float32)
    kernel = rng.random((3, 3, 2, 2)).astype(np.float32)  # (depthwise: multiplier 2)
    volume = rng.random((1, 4, 4, 4, 2)).astype(np.float32)
    kernel3 = rng.random((2, 2, 2, 2, 3)).astype(np.float32)
    with tf.Graph().as_default():
        x, w = tf.constant(image), tf.constant(kernel)
        out = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME")
        dy = tf.constant(rng.random((1, 5, 5, 4)).astype(np.float32))
        want_dx, want_dw = tf.gradients(out, [x, w], grad_ys=dy)
        dx = tf.nn.depthwise_conv2d_backprop_input([1, 5, 5, 2], w, dy, [1, 1, 1, 1], "SAME")
        dw = tf.nn.depthwise_conv2d_native_backprop_filter(x, [3, 3, 2, 2], dy, [1, 1, 1, 1], "SAME")
        v, k = tf.constant(volume), tf.constant(kernel3)
        out3 = tf.nn.conv3d(v, k, [1, 1, 1, 1, 1], "VALID")
        dy3 = tf.constant(rng.random((1, 3, 3, 3, 3)).astype(np.float32))
        want_dk = tf.gradients(out3, k, grad_ys=dy3)[0]
        dk = tf.nn.conv3d_backprop_filter(v, [2, 2, 2, 2, 3], dy3, [1, 1, 1, 1, 1], "VALID")
        got = run([dx, want_dx, dw, want_dw, dk, want_dk])
    for a, b in zip(got[::2], got[1::2]):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_separable_conv1d_is_depthwise_then_pointwise():
    x = rng.random((2, 7, 3)).astype(np.float32)
    depth = rng.random((3, 3, 2)).astype(np.float32)  # (width, in channels, multiplier)
    point = rng.random((1, 6, 4)).astype(np.float32)
    with tf.Graph().as_default():
        got = run(tf.layers.separable_conv1d(x, 4, 3, depth_multiplier=2, use_bias=False,
                                             depthwise_initializer=tf.constant_initializer(depth),
                                             pointwise_initializer=tf.constant_initializer(point)))
    windows = np.stack([x[:, i:i + 3, :] for i in range(5)], axis=1)  # [batch, 5, 3, in]
    depthwise = np.einsum("bwkc,kcm->bwcm", windows, depth).reshape(2, 5, 6)
    np.testing.assert_allclose(got, depthwise @ point[0], rtol=1e-5)


def test_uniform_candidate_sampler_draws_distinct_ids_in_range():
    with tf.Graph().as_default():
        true = tf.constant([[1], [4]], tf.int64)
        sampled, true_expected, sampled_expected = tf.nn.uniform_candidate_sampler(
            true, 1, num_sampled=5, unique=True, range_max=10, seed=2)
        s, te, se = run([sampled, true_expected, sampled_expected])
    assert len(set(s.tolist())) == 5 and all(0 <= i < 10 for i in s)
    assert te.shape == (2, 1) and se.shape == (5,) and np.all(se > 0) and np.all(te > 0)


def test_sparse_mask_and_sparse_reduce_max_sparse():
    with tf.Graph().as_default():
        slices = tf.IndexedSlices(tf.constant([[1.0], [2.0], [3.0]]), tf.constant([0, 5, 7]), tf.constant([10, 1]))
        masked = tf.sparse_mask(slices, tf.constant([5]))
        st = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [3.0, 5.0, 4.0], [2, 3])
        reduced = tf.sparse_reduce_max_sparse(st, axis=1)
        values, indices, red = run([masked.values, masked.indices, reduced])
    assert indices.tolist() == [0, 7] and values.tolist() == [[1.0], [3.0]]
    assert red.indices.tolist() == [[0], [1]] and red.values.tolist() == [5.0, 4.0]


def test_initializers_seeds_and_collections():
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        assert tf.get_seed(3) == (7, 3)
        normal = tf.get_variable("n", [200, 100], initializer=tf.glorot_normal_initializer(seed=1))
        uniform = tf.get_variable("u", [1000], initializer=tf.random_uniform_initializer(-0.5, 0.25, seed=1))
        scaled = tf.get_variable("s", [50, 20], initializer=tf.uniform_unit_scaling_initializer(factor=2.0, seed=1))
        plain = tf.get_variable("p", [3], regularizer=tf.no_regularizer, initializer=tf.zeros_initializer())
        ema = tf.train.ExponentialMovingAverage(0.9)
        ema.apply([plain])
        n, u, s = run([normal, uniform, scaled])
        assert plain in tf.moving_average_variables()
        assert not tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert abs(n.std() - np.sqrt(2.0 / 300)) < 0.1 * np.sqrt(2.0 / 300)  # (truncated normal, scaled back)
    assert np.abs(n).max() <= 2 * np.sqrt(2.0 / 300) / 0.87962566103423978 + 1e-6
    assert u.min() >= -0.5 and u.max() < 0.25
    assert np.abs(s).max() <= 2.0 * np.sqrt(3.0 / 50) + 1e-6


def test_added_and_regularization_losses():
    with tf.Graph().as_default():
        w = tf.get_variable("w", [2], initializer=tf.constant_initializer([1.0, 2.0]),
                            regularizer=lambda v: 0.5 * tf.reduce_sum(v * v))
        tf.losses.add_loss(tf.constant(3.0))
        regularization, total = run([tf.losses.get_regularization_loss(), tf.losses.get_total_loss()])
    assert regularization == 2.5 and total == 5.5


def test_second_or_step_timer_and_assert_global_step():
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    assert timer.should_trigger_for_step(0)
    timer.update_last_triggered_step(0)
    assert not timer.should_trigger_for_step(2) and timer.should_trigger_for_step(3)
    with tf.Graph().as_default():
        tf.train.assert_global_step(tf.train.get_or_create_global_step())
        with pytest.raises(TypeError):
            tf.train.assert_global_step(tf.Variable(0.0, name="not_a_step"))
