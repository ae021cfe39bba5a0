"""TF-Slim's layers, variables and arg scopes as TF-Slim's own tests use them (each behaviour
here is one those tests found distflow getting wrong or lacking), checked against NumPy."""

import numpy as np
import pytest

import distflow as tf
from distflow.contrib import slim


# -- arg scopes and utils ---------------------------------------------------------------------

def test_each_decorated_function_has_its_own_arg_scope_key_even_under_one_name():
    fns = []
    for _ in range(2):
        @slim.add_arg_scope
        def f(a=1, b=2):
            return a, b
        fns.append(f)
    with slim.arg_scope([fns[0]], a=10) as scope:
        assert fns[0]() == (10, 2) and fns[1]() == (1, 2)
    assert scope == {fns[0]._key_op: {"a": 10}}
    assert slim.arg_scoped_arguments(fns[0]) == ("a", "b")


def test_end_points_keep_every_alias_in_collection_order():
    x = tf.constant([1.0])
    y = slim.utils.collect_named_outputs("ends", "net/a", x)
    slim.utils.collect_named_outputs("ends", "net/b/", y)  # (a trailing '/' is dropped)
    z = slim.utils.collect_named_outputs("ends", "net/c", tf.identity(x))
    assert list(slim.utils.convert_collection_to_dict("ends")) == ["net/a", "net/b", "net/c"]
    assert slim.utils.convert_collection_to_dict("ends")["net/c"] is z
    assert x.aliases == ["net/a", "net/b"] and x.alias == "net/b"
    assert slim.utils.convert_collection_to_dict("ends", clear_collection=True) and tf.get_collection("ends") == []


@pytest.mark.parametrize("n,value,want", [(2, 3, (3, 3)), (3, [1, 2, 3], (1, 2, 3)),
                                          (2, tf.TensorShape([4, 5]), (4, 5))])
def test_n_positive_integers(n, value, want):
    assert slim.utils.n_positive_integers(n, value) == want


@pytest.mark.parametrize("n,value", [("3", [1]), (3.3, [1]), (0, [1]), (1, [1, 2]), (1, [0]), (2, ["hello", 2]),
                                     (3, tf.TensorShape([2, None, 1]))])
def test_n_positive_integers_refuses(n, value):
    with pytest.raises(ValueError):
        slim.utils.n_positive_integers(n, value)


def test_model_analyzer_counts_elements_and_bytes(capsys):
    a = tf.Variable(tf.zeros([3, 4]))
    b = tf.Variable(tf.zeros([5], tf.float64))
    assert slim.model_analyzer.analyze_vars([a, b], print_info=True) == (17, 12 * 4 + 5 * 8)
    assert "(float32_ref 3x4)" in capsys.readouterr().out  # (a variable's dtype, as TF prints it)


# -- variables ---------------------------------------------------------------------------------

def test_local_and_global_variables_go_only_where_they_are_told():
    local = slim.local_variable(1.0, name="loc")
    glob = slim.global_variable(2.0, name="glob")
    assert tf.local_variables() == [local] and tf.global_variables() == [glob] and tf.trainable_variables() == []
    assert slim.get_local_variables() == [local]


def test_variables_by_suffix_name_and_unique_name_and_filters():
    with tf.variable_scope("conv1"):
        w1, b1 = slim.variable("weights", [1]), slim.variable("biases", [1])
    with tf.variable_scope("conv2"):
        w2 = slim.variable("weights", [1])
    with tf.variable_scope("conv11"):
        slim.variable("weights", [1])
    assert slim.get_variables_by_suffix("biases") == [b1]
    assert slim.get_variables_by_name("weights", scope="conv2") == [w2]
    assert slim.get_variables_by_name("weights") == [w1, w2, tf.global_variables()[-1]]
    assert slim.get_unique_variable("conv2/weights") is w2
    with pytest.raises(ValueError, match="Couldn't find"):
        slim.get_unique_variable("conv3/weights")
    with pytest.raises(ValueError, match="does not uniquely identify"):
        slim.get_unique_variable("conv1/w")
    names = [v.op.name for v in slim.filter_variables(tf.global_variables(), include_patterns=["conv1"],
                                                      exclude_patterns=["biases"])]
    assert names == ["conv1/weights", "conv11/weights"]
    assert slim.filter_variables([w1, w2], include_patterns=["weights"], reg_search=False) == []
    with pytest.raises(TypeError, match="include is provided but is not a list"):
        slim.get_variables_to_restore(include="conv1")


def test_a_device_function_sees_each_variable_once_and_its_initializer_follows_it():
    calls = []

    def device_fn(op):
        calls.append(op.type)
        return f"/cpu:{len(calls) - 1}"

    with slim.arg_scope([slim.variable], device=device_fn):
        a = slim.variable("a", [], initializer=tf.random_uniform_initializer())
        b = slim.variable("b", [])
    assert calls == ["VariableV2", "VariableV2"]
    assert (a.device, b.device) == ("/device:CPU:0", "/device:CPU:1")
    assert a.initial_value.op.colocation_groups() == a.op.colocation_groups() == [b"loc:@a"]
    chooser = slim.VariableDeviceChooser(num_tasks=2)
    assert [chooser(None) for _ in range(3)] == ["/job:ps/task:0/device:CPU:0", "/job:ps/task:1/device:CPU:0",
                                                 "/job:ps/task:0/device:CPU:0"]
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:  # (initializers run by their variables)
        sess.run(tf.global_variables_initializer())
        assert 0.0 <= sess.run(a) < 1.0


def test_assign_from_values_and_from_a_checkpoint_with_a_partitioned_variable(tmp_path):
    values = np.arange(6, dtype=np.float32).reshape(3, 2)
    with tf.Graph().as_default(), tf.Session() as sess:
        saved = tf.Variable(values, name="v0")
        sess.run(saved.initializer)
        path = tf.train.Saver([saved]).save(sess, str(tmp_path / "model"))
    with tf.Graph().as_default():
        whole = slim.variable("whole", [3, 2])
        parts = tf.get_variable("parts", [3, 2], partitioner=tf.fixed_size_partitioner(2))
        scalar = slim.variable("scalar", [])
        op, feed = slim.assign_from_checkpoint(path, {"v0": [whole] + list(parts)})
        values_op, values_feed = slim.assign_from_values({"scalar": np.float32(4.0)})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op, feed)
            sess.run(values_op, values_feed)
            np.testing.assert_array_equal(sess.run(whole), values)
            np.testing.assert_array_equal(np.concatenate(sess.run(list(parts))), values)
            assert sess.run(scalar) == 4.0
        with pytest.raises(ValueError, match=r"Checkpoint is missing variable \[nope\]"):
            slim.assign_from_checkpoint(path, {"nope": whole})
        with pytest.raises(ValueError, match="wasn't found"):
            slim.assign_from_values({"nope": 1.0})


def test_saver_reshape_restores_a_value_of_the_same_size_in_the_variables_shape(tmp_path):
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(values, name="v")
        sess.run(v.initializer)
        path = tf.train.Saver().save(sess, str(tmp_path / "model"))
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(tf.zeros([3, 2]), name="v")
        tf.train.Saver(reshape=True).restore(sess, path)
        np.testing.assert_array_equal(sess.run(v), values.reshape(3, 2))
        with pytest.raises(tf.errors.InvalidArgumentError):
            tf.train.Saver().restore(sess, path)


def test_a_checkpoint_saved_under_the_name_of_a_folder_is_read(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable([1.0, 2.0], name="v")
        sess.run(v.initializer)
        assert tf.train.Saver().save(sess, str(folder)) == str(folder)  # (writes run.index beside run/)
    assert tf.train.NewCheckpointReader(str(folder)).get_tensor("v").tolist() == [1.0, 2.0]


# -- batch norm ----------------------------------------------------------------------------------

def test_batch_norm_weighs_the_batch_moments_by_batch_weights():
    rng = np.random.RandomState(0)
    x = rng.rand(6, 3).astype(np.float32)
    w = np.array([1, 2, 0, 1, 3, 1], np.float32)
    out = slim.batch_norm(tf.constant(x), batch_weights=tf.constant(w), updates_collections=None, decay=0.0,
                          epsilon=1e-5)
    mean = (w[:, None] * x).sum(0) / w.sum()
    var = (w[:, None] * (x - mean) ** 2).sum(0) / w.sum()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out)
        moving_mean, moving_var = sess.run(slim.get_variables_by_name("moving_mean")
                                           + slim.get_variables_by_name("moving_variance"))
    np.testing.assert_allclose(got, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(moving_mean, mean, rtol=1e-5)  # (decay 0: the batch's, weighted, unbiased: no
    np.testing.assert_allclose(moving_var, var, rtol=1e-5)    # Bessel where the weights kept the fused kernel out)


def test_batch_norm_debiases_its_moving_mean():
    rng = np.random.RandomState(1)
    batches = rng.rand(4, 10, 3).astype(np.float32)
    x = tf.placeholder(tf.float32, [10, 3])
    is_training = tf.placeholder(tf.bool, [])
    slim.batch_norm(x, decay=0.5, zero_debias_moving_mean=True, is_training=is_training)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    names = sorted(v.op.name for v in slim.get_model_variables())
    assert names == ["BatchNorm/BatchNorm/moving_mean/biased", "BatchNorm/BatchNorm/moving_mean/local_step",
                     "BatchNorm/beta", "BatchNorm/moving_mean", "BatchNorm/moving_variance"]
    moving_mean = slim.get_variables_by_name("moving_mean")[0]
    biased = 0.0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for t, batch in enumerate(batches, 1):
            sess.run(updates, {x: batch, is_training: True})
            biased = 0.5 * biased + 0.5 * batch.mean(0)
            np.testing.assert_allclose(sess.run(moving_mean), biased / (1 - 0.5 ** t), rtol=1e-5)
        before = sess.run(moving_mean)
        sess.run(updates, {x: batches[0] + 5, is_training: False})  # (not training: no update runs)
        np.testing.assert_array_equal(sess.run(moving_mean), before)


def test_batch_norm_of_float16_keeps_float32_parameters_and_no_partitioned_statistics():
    with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(2)):
        out = slim.batch_norm(tf.zeros([4, 2, 2, 6], tf.float16), scale=True)
    assert out.dtype == tf.float16
    stats = slim.get_variables_by_name("moving_mean") + slim.get_variables_by_name("moving_variance")
    assert [(v.op.name, v.dtype.base_dtype, v.shape.as_list()) for v in stats] == [
        ("s/BatchNorm/moving_mean", tf.float32, [6]), ("s/BatchNorm/moving_variance", tf.float32, [6])]


def test_batch_norm_applies_an_adjustment_while_training_only():
    x = np.random.RandomState(2).rand(8, 3).astype(np.float32)
    training = tf.placeholder(tf.bool, [])
    shapes = []

    def adjustment(shape):
        shapes.append(tf.ones(shape[-1:]).shape.as_list())
        return tf.constant([2.0, 2.0, 2.0]), tf.constant([1.0, 0.0, -1.0])

    out = tf.layers.batch_normalization(tf.constant(x), training=training, adjustment=adjustment, epsilon=0.0)
    normalized = (x - x.mean(0)) / x.std(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(out, {training: True}), normalized * 2 + [1.0, 0.0, -1.0], atol=1e-4)
        np.testing.assert_allclose(sess.run(out, {training: False}), x, atol=1e-6)  # (moving stats 0 and 1)
    assert shapes == [[3]]


def test_batch_and_layer_norm_errors_say_what_is_undefined():
    with pytest.raises(ValueError, match="data_format has to be either NCHW or NHWC"):
        slim.batch_norm(tf.placeholder(tf.float32), data_format="CHWN")
    with pytest.raises(ValueError, match="undefined rank"):
        slim.batch_norm(tf.placeholder(tf.float32))
    with pytest.raises(ValueError, match="undefined channels"):
        slim.batch_norm(tf.placeholder(tf.float32, [5, None, 3, 3]), data_format="NCHW")
    with pytest.raises(ValueError, match=r"must be < rank\(inputs\)"):
        slim.layer_norm(tf.zeros([10, 30]), begin_norm_axis=2)


def test_layer_norm_of_float16_uses_a_larger_epsilon_and_a_float32_sum():
    x = (np.random.RandomState(3).randn(1, 200, 500) * 1e-4 + 10).astype(np.float16)
    out = slim.layer_norm(tf.constant(x), begin_norm_axis=1)
    mean = tf.reduce_mean(tf.constant(x))  # (1e5 values of 10: a float16 running sum overflows)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_mean = sess.run([out, mean])
    assert np.isfinite(got).all() and abs(float(got_mean) - 10.0) < 0.01
    assert got.astype(np.float64).var() < 0.05  # (epsilon 1e-3 dominates the underflowed variance)


# -- the smaller layers --------------------------------------------------------------------------

def test_pool_with_dilation_channels_first_and_the_scope_naming_the_result():
    x = np.random.RandomState(4).rand(2, 7, 7, 3).astype(np.float32)
    out = slim.pool(tf.constant(x), [2, 2], "AVG", dilation_rate=2)
    nchw = slim.pool(tf.constant(x.transpose(0, 3, 1, 2)), [2, 2], "MAX", data_format="NCHW", scope="p")
    assert out.shape.as_list() == [2, 5, 5, 3] and nchw.op.name == "p"
    want = (x[:, :5, :5] + x[:, 2:, :5] + x[:, :5, 2:] + x[:, 2:, 2:]) / 4
    windows = np.stack([x[:, i:i + 6, j:j + 6] for i in (0, 1) for j in (0, 1)])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out), want, rtol=1e-6)
        np.testing.assert_array_equal(sess.run(nchw), windows.max(0).transpose(0, 3, 1, 2))


def test_maxout_spatial_softmax_and_in_plane_convolution_against_numpy():
    rng = np.random.RandomState(5)
    x = rng.randn(2, 4, 5, 6).astype(np.float32)
    maxed = slim.maxout(tf.constant(x), 3)
    keypoints = slim.spatial_softmax(tf.placeholder_with_default(x, [None, None, None, 6]))
    in_plane = slim.conv2d_in_plane(tf.constant(x), [1, 2], activation_fn=None, padding="VALID")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_max, got_keys, got_conv = sess.run([maxed, keypoints, in_plane])
        kernel = sess.run(slim.get_variables_by_name("weights")[0]).reshape(2)
    np.testing.assert_array_equal(got_max, x.reshape(2, 4, 5, 3, 2).max(-1))
    logits = x.transpose(0, 3, 1, 2).reshape(2, 6, 20)
    attention = np.exp(logits - logits.max(-1, keepdims=True))
    attention /= attention.sum(-1, keepdims=True)
    gx, gy = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 5), indexing="ij")
    want = np.stack([(attention * gx.ravel()).sum(-1), (attention * gy.ravel()).sum(-1)], -1).reshape(2, 12)
    np.testing.assert_allclose(got_keys, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_conv, x[:, :, :-1] * kernel[0] + x[:, :, 1:] * kernel[1], rtol=1e-5, atol=1e-6)


def test_images_to_sequence_and_back_and_dense_to_sparse():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    seq = slim.images_to_sequence(tf.constant(x))
    back = slim.sequence_to_images(seq, 3)
    sparse = slim.dense_to_sparse(tf.constant([[1, 0, 2], [0, 0, 3]]))
    assert seq.shape.as_list() == [4, 6, 5]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(seq), x.transpose(2, 0, 1, 3).reshape(4, 6, 5))
        np.testing.assert_array_equal(sess.run(back), x)
        got = sess.run(sparse)
    assert got.indices.tolist() == [[0, 0], [0, 2], [1, 2]] and got.values.tolist() == [1, 2, 3]


def test_scale_gradient_and_poincare_normalize():
    x = tf.constant([[3.0, 4.0], [0.3, 0.4]])
    y = slim.scale_gradient(x, 0.25)
    grad = tf.gradients(tf.reduce_sum(y * y), x)[0]
    ball = slim.poincare_normalize(x, axis=1, epsilon=0.1)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(grad), 0.25 * 2 * np.array([[3.0, 4.0], [0.3, 0.4]]), rtol=1e-6)
        np.testing.assert_allclose(sess.run(ball), [[0.54, 0.72], [0.3, 0.4]], rtol=1e-6)


def test_legacy_fully_connected_and_inner_flatten():
    x = np.random.RandomState(6).rand(2, 3, 4).astype(np.float32)
    y = slim.legacy_relu(tf.constant(x), 5, weight_init=tf.constant_initializer(0.1), name="fc")
    flat = slim._inner_flatten(tf.zeros([2, 3, 4, 5]), 2)
    assert y.shape.as_list() == [2, 3, 5] and flat.shape.as_list() == [2, 60]
    assert [v.op.name for v in tf.get_collection(tf.GraphKeys.WEIGHTS)] == ["fc/weights"]
    assert [v.op.name for v in tf.get_collection(tf.GraphKeys.BIASES)] == ["fc/bias"]
    assert tf.get_collection(tf.GraphKeys.ACTIVATIONS) == [y]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y), np.maximum(x @ np.full((4, 5), 0.1), 0), rtol=1e-5)


def test_flatten_of_a_batch_of_scalars_and_regularizer_names():
    assert slim.flatten(tf.zeros([5])).shape.as_list() == [5, 1]
    w = tf.ones([2])
    assert slim.l1_l2_regularizer(0.0, 1.0)(w).op.name == "l1_l2_regularizer"
    assert slim.l1_l2_regularizer(1.0, 1.0)(w).op.name == "l1_l2_regularizer_1"
    with pytest.raises(TypeError, match="non-floating point"):
        slim.variance_scaling_initializer()([2], dtype=tf.int32)


def test_optimize_loss_casts_a_gradient_multiplier_of_another_dtype():
    var = tf.get_variable("v", [], initializer=tf.constant_initializer(10.0))
    step = tf.train.get_or_create_global_step()
    multiplier = tf.placeholder(tf.float64, [])
    train = tf.contrib.layers.optimize_loss(var * 5.0, step, 0.1, "SGD", gradient_multipliers={var: multiplier})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {multiplier: 7.0})
        assert sess.run(var) == pytest.approx(10.0 - 0.1 * 7.0 * 5.0)


def test_shapes_sliced_from_a_shape_are_known_and_linspace_takes_a_tensor():
    s = tf.shape(tf.zeros([10, 5, 5, 8]))
    assert tf.ones(s[-1:]).shape.as_list() == [8]
    assert tf.zeros(tf.concat([s[:1], [3]], 0)).shape.as_list() == [10, 3]
    n = tf.placeholder(tf.int32, [])
    with tf.Session() as sess:
        assert sess.run(tf.lin_space(-1.0, 1.0, n), {n: 5}).tolist() == [-1.0, -0.5, 0.0, 0.5, 1.0]
        assert sess.run(tf.lin_space(3.0, 4.0, n), {n: 1}).tolist() == [3.0]


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_gdn_divides_each_channel_by_its_norm_pool_and_igdn_multiplies(data_format):
    x = np.random.RandomState(8).rand(2, 3, 4, 5)
    t = tf.constant(x)
    divided = slim.gdn(t, data_format=data_format, name="g")
    layer = slim.GDN(inverse=True, data_format=data_format)
    multiplied = layer(t)
    channels = x if data_format == "channels_last" else np.moveaxis(x, 1, -1)
    gamma = 0.1 * np.eye(channels.shape[-1]) + 2.0 ** -36
    norm = np.sqrt((channels ** 2) @ gamma + 1.0)
    if data_format == "channels_first":
        norm = np.moveaxis(norm, -1, 1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(divided), x / norm, rtol=1e-6)
        np.testing.assert_allclose(sess.run(multiplied), x * norm, rtol=1e-6)
    assert sorted(v.op.name for v in layer.variables) == ["gdn/reparam_beta", "gdn/reparam_gamma"]
    with pytest.raises(ValueError, match="Unsupported `data_format`"):
        slim.gdn(t, data_format="NHWC")
    with pytest.raises(ValueError, match="rank 3 to 5"):
        slim.gdn(tf.zeros([2, 3]))


def test_gdn_gradients_match_central_differences():
    x = np.random.RandomState(9).rand(2, 3, 4) + 0.1
    t = tf.constant(x)
    out = slim.gdn(t)
    params = slim.get_variables_by_name("reparam_gamma") + slim.get_variables_by_name("reparam_beta")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for var in [t] + [p.value() for p in params]:  # (a variable's value, fed in its place,
            value = sess.run(var) + 0.05                # away from the bound, where max() has a kink)
            assert tf.test.compute_gradient_error(var, value.shape, out, x.shape, x_init_value=value) < 1e-5


def test_summaries_of_activations_and_slims_named_summaries():
    x = tf.constant([[-1.0, 2.0, 7.0, -3.0]])
    relu6 = tf.nn.relu6(x, name="act")
    tf.add_to_collection(tf.GraphKeys.ACTIVATIONS, relu6)
    tf.contrib.layers.summarize_activations()
    slim.summaries.add_zero_fraction_summary(tf.nn.relu(x, name="r"), prefix="p")
    printed = slim.summaries.add_scalar_summary(tf.reduce_sum(x), name="total", print_summary=True)
    assert tf.contrib.layers.summarize_tensor(tf.constant(["s"])) is None
    with tf.Session() as sess:
        merged = sess.run(tf.summary.merge_all())
    values = {v.tag: v for v in tf.Summary.FromString(merged).value}
    assert values["act/zeros"].simple_value == pytest.approx(0.5)  # (inputs below zero)
    assert values["act/sixes"].simple_value == pytest.approx(0.25)  # (and above six)
    assert values["act/activation"].HasField("histo")
    assert values["p/r/Fraction_of_Zero_Values"].simple_value == pytest.approx(0.5)
    assert printed in tf.get_collection(tf.GraphKeys.SUMMARIES) and values["total"].simple_value == 5.0


def test_relu_takes_integers_as_tensorflows():
    with tf.Session() as sess:
        assert sess.run(tf.nn.relu([-2, 3])).tolist() == [0, 3]
        assert sess.run(tf.nn.relu6(np.array([-1, 9], np.int64))).tolist() == [0, 6]
    with pytest.raises(TypeError, match="real-number input"):
        tf.nn.relu([True, False])


def test_dense_to_sparse_tensor_and_indicators_to_sparse_ids():
    indicators = np.array([[[0, 1, 0, 1], [1, 0, 0, 0]], [[0, 0, 0, 0], [1, 1, 1, 0]]])
    ids = tf.contrib.layers.indicators_to_sparse_ids(indicators, dtype=tf.int32)
    strings = tf.contrib.layers.dense_to_sparse_tensor([["a", ""], ["", "b"]])
    with tf.Session() as sess:
        got, got_strings = sess.run([ids, strings])
    dense = np.full(got.dense_shape, -1)
    dense[tuple(got.indices.T)] = got.values
    want = [[[1, 3, -1], [0, -1, -1]], [[-1, -1, -1], [0, 1, 2]]]  # (each row's classes present, in order)
    assert dense.tolist() == want and got.values.dtype == np.int32
    assert got_strings.indices.tolist() == [[0, 0], [1, 1]] and got_strings.values.tolist() == [b"a", b"b"]
    with pytest.raises(ValueError, match="not integer"):
        tf.contrib.layers.indicators_to_sparse_ids(indicators, dtype=tf.float32)


def test_sparse_row_envelope_and_segments_counted_by_an_int32_tensor():
    sparse = tf.SparseTensor(np.array([[0, 1], [0, 3], [2, 0]], np.int64), [1.0, 2.0, 3.0], [3, 5])
    counts = tf.unsorted_segment_sum(tf.ones([3]), tf.constant([0, 2, 2], tf.int64), tf.constant(4, tf.int32))
    with tf.Session() as sess:
        assert sess.run(tf.contrib.layers.sparse_row_envelope(sparse)).tolist() == [4, 0, 1]
        assert sess.run(counts).tolist() == [1.0, 0.0, 2.0, 0.0]


def test_arg_scope_func_key_and_transposed_convolutions_of_any_padding_case():
    # (TF-Slim's nets: mobilenet's tests read an arg scope by arg_scope_func_key; cyclegan's
    # upsampling passes padding='valid')
    slim = tf.contrib.slim
    with slim.arg_scope([slim.batch_norm], is_training=False) as sc:
        pass
    assert sc[slim.arg_scope_func_key(slim.batch_norm)] == {"is_training": False}
    x = tf.zeros([1, 4, 4, 2])
    assert slim.conv2d_transpose(x, 3, 3, stride=2, padding="valid").shape.as_list() == [1, 9, 9, 3]
    assert slim.conv2d_transpose(x, 3, 3, stride=2, padding="same").shape.as_list() == [1, 8, 8, 3]
    with pytest.raises(ValueError, match="padding must be 'SAME' or 'VALID'"):
        slim.conv2d_transpose(x, 3, 3, padding="full")
