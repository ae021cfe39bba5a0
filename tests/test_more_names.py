"""The remaining everyday names: nest, graph_util (freezing), tf.test, samplers and sampled losses,
depthwise/separable/1-D convolutions, reverse_sequence, searchsorted, histograms, lgamma, templates,
orthogonal initializers, tensor serialization, audio summaries, extra losses."""

import math

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate
from gradcheck import check_gradients


def r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_nest_flatten_pack_and_map():
    structure = {"b": (1, [2, 3]), "a": 4}
    assert tf.nest.flatten(structure) == [4, 1, 2, 3]
    assert tf.nest.pack_sequence_as(structure, [40, 10, 20, 30]) == {"a": 40, "b": (10, [20, 30])}
    assert tf.nest.map_structure(lambda x, y: x + y, (1, [2]), (10, [20])) == (11, [22])
    with pytest.raises(ValueError, match="same"):
        tf.nest.assert_same_structure((1, 2), (1, (2, 3)))


def test_freezing_a_graph_with_graph_util():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w")
    y = tf.identity(tf.matmul(x, w), name="y")
    with tf.Session() as sess:
        sess.run(w.initializer)
        sess.run(tf.assign(w, [[3.0], [4.0]]))
        frozen = tf.graph_util.convert_variables_to_constants(sess, tf.get_default_graph().as_graph_def(), ["y"])
    assert {n.op for n in frozen.node} >= {"Const", "MatMul"} and "VariableV2" not in {n.op for n in frozen.node}
    assert "w/Assign" not in {n.name for n in frozen.node}
    with tf.Graph().as_default():
        y2, = tf.import_graph_def(frozen, return_elements=["y:0"], name="")
        with tf.Session() as sess:
            assert sess.run(y2, {"x:0": [[1.0, 1.0]]}).tolist() == [[7.0]]
    slim = tf.graph_util.remove_training_nodes(frozen)
    assert "Identity" not in {n.op for n in slim.node if n.name != "y"}


class _Case(tf.test.TestCase):
    def test_inside(self):
        self.assertAllClose(self.evaluate(tf.constant([1.0, 2.0]) * 2), [2.0, 4.0])
        with self.session() as sess:
            self.assertAllEqual(sess.run(tf.constant([1, 2])), [1, 2])


def test_tf_test_case_runs_under_unittest():
    import unittest

    result = unittest.TextTestRunner(stream=open("/dev/null", "w")).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(_Case))
    # (the test_session method counts as a test that skips itself, as in TF)
    assert result.wasSuccessful() and result.testsRun == 2 and len(result.skipped) == 1
    from distflow.runtime.gpu import backend

    with backend.set_backend(None):  # (simulated GPUs are not GPUs)
        assert not tf.test.is_gpu_available() and tf.test.gpu_device_name() == ""


def test_candidate_samplers_and_sampled_losses():
    labels = np.array([[1], [3]])
    sampled, true_expected, sampled_expected = evaluate(
        tf.nn.log_uniform_candidate_sampler(labels, 1, 5, True, 20, seed=3))
    assert len(set(sampled.tolist())) == 5 and sampled.max() < 20
    probs = (np.log(sampled + 2.0) - np.log(sampled + 1.0)) / math.log(21)
    assert np.all(sampled_expected >= probs * 0.999) and true_expected.shape == (2, 1)
    w, b = tf.Variable(r(20, 4)), tf.Variable(np.zeros(20))
    x = tf.constant(r(2, 4, seed=1))
    values = (tf.constant(np.array([0, 5, 7], np.int64)), tf.constant(np.full((2, 1), 0.5)),
              tf.constant(np.full(3, 0.5)))
    nce = tf.nn.nce_loss(w, b, labels, x, 3, 20, sampled_values=values)
    softmax = tf.nn.sampled_softmax_loss(w, b, labels, x, 3, 20, sampled_values=values)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_nce, got_softmax, wv, xv = sess.run([nce, softmax, w, x])
    logits = np.concatenate([np.sum(xv * wv[labels[:, 0]], 1, keepdims=True), xv @ wv[[0, 5, 7]].T], 1)
    logits -= np.log(0.5)
    targets = np.concatenate([np.ones((2, 1)), np.zeros((2, 3))], 1)
    want_nce = (np.maximum(logits, 0) - logits * targets + np.log1p(np.exp(-np.abs(logits)))).sum(1)
    np.testing.assert_allclose(got_nce, want_nce, rtol=1e-10)
    shifted = logits - logits.max(1, keepdims=True)
    want_softmax = -(shifted[:, 0] - np.log(np.exp(shifted).sum(1)))
    np.testing.assert_allclose(got_softmax, want_softmax, rtol=1e-10)


def test_depthwise_separable_and_one_dimensional_convolutions():
    img, f = r(1, 5, 5, 2), r(3, 3, 2, 3, seed=1)
    got = evaluate(tf.nn.depthwise_conv2d(img, f, [1, 1, 1, 1], "SAME"))
    for c in range(2):
        want = evaluate(tf.nn.conv2d(img[..., c:c + 1], f[:, :, c:c + 1, :], [1, 1, 1, 1], "SAME"))
        assert_oracle(got[..., 3 * c:3 * c + 3], want, rtol=1e-12)
    point = r(1, 1, 6, 4, seed=2)
    assert evaluate(tf.nn.separable_conv2d(img, f, point, [1, 1, 1, 1], "SAME")).shape == (1, 5, 5, 4)
    x, k = r(2, 7, 3), r(3, 3, 2, seed=3)
    want = np.stack([np.stack([np.sum(x[b, t:t + 3, :, None] * k, (0, 1)) for t in range(5)]) for b in range(2)])
    assert_oracle(evaluate(tf.nn.conv1d(x, k, 1, "VALID")), want, rtol=1e-10)
    check_gradients(lambda t: tf.nn.depthwise_conv2d(t, f, [1, 1, 1, 1], "VALID"), [r(1, 4, 4, 2)])


def test_reverse_sequence_searchsorted_histograms_lgamma():
    x = np.arange(12).reshape(2, 6)
    assert_oracle(evaluate(tf.reverse_sequence(x, [3, 5], seq_axis=1, batch_axis=0)),
                  np.array([[2, 1, 0, 3, 4, 5], [10, 9, 8, 7, 6, 11]]))
    assert evaluate(tf.searchsorted([1.0, 3.0, 5.0], [0.0, 3.0, 6.0])).tolist() == [0, 1, 3]
    assert evaluate(tf.searchsorted([1.0, 3.0, 5.0], [3.0], side="right")).tolist() == [2]
    values = np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0])
    assert evaluate(tf.histogram_fixed_width(values, [0.0, 5.0], nbins=5)).tolist() == [2, 1, 1, 0, 2]
    assert_oracle(evaluate(tf.lgamma(np.array([0.5, 3.0, 10.0]))), np.vectorize(math.lgamma)([0.5, 3.0, 10.0]),
                  rtol=1e-12)
    check_gradients(tf.lgamma, [np.array([0.7, 2.5, 6.3])])


def test_make_template_shares_variables_and_orthogonal_initializer():
    def scale(x):
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(2.0))
        return x * w

    template = tf.make_template("scale", scale)
    a, b = template(tf.constant(1.0)), template(tf.constant(3.0))
    assert [v.op.name for v in tf.global_variables()] == ["scale/w"]
    assert evaluate([a, b]) == [2.0, 6.0]
    q = evaluate(tf.orthogonal_initializer(seed=1)([4, 3]))
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-5)


def test_serialize_tensor_round_trip_and_misc():
    value = np.arange(6, dtype=np.int32).reshape(2, 3)
    back = evaluate(tf.parse_tensor(tf.serialize_tensor(value), tf.int32))
    assert_oracle(back, value)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Type mismatch"):
            sess.run(tf.parse_tensor(tf.serialize_tensor(value), tf.float32))
    assert evaluate(tf.broadcast_dynamic_shape([2, 1], [1, 3])).tolist() == [2, 3]
    assert evaluate(tf.invert_permutation([2, 0, 1])).tolist() == [1, 2, 0]
    draws = evaluate(tf.multinomial(np.log([[0.0001, 0.9999]]), 50, seed=1))
    assert draws.shape == (1, 50) and draws.mean() > 0.9
    crop = evaluate(tf.random_crop(np.arange(20).reshape(4, 5), [2, 3], seed=2))
    assert crop.shape == (2, 3) and crop[0, 1] == crop[0, 0] + 1


def test_extra_losses_and_audio_summary():
    labels, predictions = r(3, 4), r(3, 4, seed=1)
    weights = np.array([[0.5], [0.0], [2.0]])
    got, weighted = evaluate([tf.losses.mean_pairwise_squared_error(labels, predictions),
                              tf.losses.mean_pairwise_squared_error(labels, predictions, weights)])
    d = predictions - labels
    per_example = [np.mean([(d[i, a] - d[i, b]) ** 2 for a in range(4) for b in range(4) if a != b])
                   for i in range(3)]
    # (TF 1.x sums the examples' weighted means over the batch; TF 2.15 gave the same on other data)
    assert got == pytest.approx(np.sum(per_example), rel=1e-10)
    assert weighted == pytest.approx(0.5 * per_example[0] + 2.0 * per_example[2], rel=1e-10)
    unit = labels / np.linalg.norm(labels, axis=1, keepdims=True)
    assert evaluate(tf.losses.cosine_distance(unit, unit, axis=1)) == pytest.approx(0.0, abs=1e-12)
    clip = np.sin(np.linspace(0, 20, 800)).reshape(1, 800)
    summary = tf.Summary.FromString(evaluate(tf.summary.audio("tone", clip, 8000)))
    audio = summary.value[0].audio
    assert summary.value[0].tag == "tone/audio/0" and audio.length_frames == 800  # (max_outputs 3: indexed, as TF)
    assert audio.encoded_audio_string[:4] == b"RIFF" and audio.content_type == "audio/wav"


def test_random_gamma_poisson_and_lbeta():
    gamma = evaluate(tf.random_gamma([4000], [2.0, 5.0], beta=2.0, seed=1))
    assert gamma.shape == (4000, 2) and gamma.dtype == np.float32
    np.testing.assert_allclose(gamma.mean(0), [1.0, 2.5], rtol=0.05)
    counts = evaluate(tf.random_poisson([3.0, 10.0], [4000], seed=2))
    assert counts.shape == (4000, 2) and (counts == np.round(counts)).all()
    np.testing.assert_allclose(counts.mean(0), [3.0, 10.0], rtol=0.05)
    assert evaluate(tf.random.poisson(1.0, [5], dtype=tf.int64, seed=3)).dtype == np.int64
    x = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])
    want = [sum(math.lgamma(v) for v in row) - math.lgamma(sum(row)) for row in x]
    assert_oracle(evaluate(tf.lbeta(x)), np.array(want), rtol=1e-12)
    assert_oracle(evaluate(tf.math.lbeta(x[0])), np.array(want[0]), rtol=1e-12)


def test_unsigned_dtypes_compute_and_convert():
    x = np.array([1, 2, 40000], np.uint16)
    assert evaluate(tf.constant(x) + 1).tolist() == [2, 3, 40001]
    assert tf.uint16.is_unsigned and tf.uint64.is_integer and tf.as_dtype(np.uint32) == tf.uint32
    assert evaluate(tf.cast(tf.constant(np.array([2**40], np.uint64)), tf.float64)).tolist() == [2.0 ** 40]
    assert evaluate(tf.constant(np.array([7], np.uint32)) / 2).tolist() == [3.5]


def test_edit_distance_between_sparse_sequences():
    hypothesis = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([b"a", b"b", b"c"], dtype=object), [2, 2])
    truth = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0]], np.array([b"a", b"x", b"b", b"c"], dtype=object),
                            [2, 3])
    assert evaluate(tf.edit_distance(hypothesis, truth, normalize=False)).tolist() == [1.0, 0.0]
    assert evaluate(tf.edit_distance(hypothesis, truth)).tolist() == pytest.approx([1 / 3, 0.0])
    empty_truth = tf.SparseTensor(np.zeros((0, 2), np.int64), np.array([], dtype=object), [2, 1])
    assert evaluate(tf.edit_distance(hypothesis, empty_truth)).tolist() == [math.inf, math.inf]


def test_decode_compressed_json_examples_and_bitcast():
    import gzip
    import zlib

    text = b"distflow " * 20
    assert evaluate(tf.decode_compressed(zlib.compress(text), "ZLIB")) == text
    assert evaluate(tf.decode_compressed(gzip.compress(text), "GZIP")) == text
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DataLossError, match="ZLIB"):
            sess.run(tf.decode_compressed(b"not zlib", "ZLIB"))
    record = evaluate(tf.decode_json_example('{"features": {"feature": {"x": {"floatList": {"value": [1.5, 2]}}}}}'))
    parsed = evaluate(tf.parse_single_example(record, {"x": tf.FixedLenFeature([2], tf.float32)}))
    assert parsed["x"].tolist() == [1.5, 2.0]
    value = np.array([1.0, -2.5], np.float32)
    assert_oracle(evaluate(tf.bitcast(value, tf.uint8)), value.view(np.uint8).reshape(2, 4))
    assert_oracle(evaluate(tf.bitcast(value.view(np.uint8).reshape(2, 4), tf.float32)), value)
    assert_oracle(evaluate(tf.bitcast(value, tf.int32)), value.view(np.int32))


def test_extract_image_patches_and_its_gradient():
    images = np.arange(2 * 5 * 6 * 2, dtype=np.float64).reshape(2, 5, 6, 2)
    patches = evaluate(tf.extract_image_patches(images, [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"))
    assert patches.shape == (2, 2, 2, 12)
    assert_oracle(patches[1, 1, 0], images[1, 2:4, 0:3].reshape(-1))
    dilated = evaluate(tf.extract_image_patches(images, [1, 2, 2, 1], [1, 1, 1, 1], [1, 2, 3, 1], "SAME"))
    assert dilated.shape == (2, 5, 6, 8)
    assert_oracle(dilated[0, 1, 1], images[0, [0, 0, 2, 2], [0, 3, 0, 3]].reshape(-1))  # SAME pads 1 row, 1 col
    check_gradients(lambda t: tf.extract_image_patches(t, [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME"),
                    [r(1, 3, 4, 2)])


def test_batch_scatter_update_and_add_check_numerics_ops():
    ref = tf.Variable(np.zeros((2, 4)))
    update = tf.batch_scatter_update(ref, [[1, 3], [0, 0]], [[1.0, 2.0], [3.0, 3.0]])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(update).tolist() == [[0, 1, 0, 2], [3, 0, 0, 0]]
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2])
    y = tf.log(x)
    check = tf.add_check_numerics_ops()
    with tf.Session() as sess:
        assert sess.run([y, check], {x: [1.0, 2.0]})[0].tolist() == pytest.approx([0.0, math.log(2.0)])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Log"):
            sess.run([y, check], {x: [0.0, 1.0]})


def test_fake_quantization_and_its_straight_through_gradient():
    x = np.array([-7.0, -1.03, 0.0, 0.26, 2.5, 6.1], np.float32)
    got = evaluate(tf.fake_quant_with_min_max_args(x, min=-6.0, max=6.0, num_bits=8))
    scale = np.float32(12.0 / 255)
    zero = np.floor(6.0 / scale + 0.5)  # the nudged zero point: zero maps to a level exactly
    lo, hi = (0 - zero) * scale, (255 - zero) * scale
    want = np.floor((np.clip(x, lo, hi) - lo) / scale + 0.5) * scale + lo
    assert_oracle(got, want.astype(np.float32), rtol=1e-6)
    assert got[2] == 0.0
    lo_v, hi_v = tf.Variable(-1.0), tf.Variable(1.0)
    xt = tf.constant(x)
    y = tf.fake_quant_with_min_max_vars(xt, lo_v, hi_v, num_bits=4, narrow_range=True)
    dx, dlo, dhi = tf.gradients(tf.reduce_sum(y * np.arange(6.0, dtype=np.float32)), [xt, lo_v, hi_v])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        dx, dlo, dhi, levels = sess.run([dx, dlo, dhi, y])
    assert len(np.unique(levels)) <= 15
    assert dx.tolist() == [0, 0, 2, 3, 0, 0] and dlo == 0 + 1 and dhi == 4 + 5
    channels = evaluate(tf.fake_quant_with_min_max_vars_per_channel(np.full((2, 2), 0.7, np.float32), [0.0, -1.0],
                                                                    [1.0, 0.5], num_bits=2))
    assert_oracle(channels[0], np.array([2 / 3, 0.5], np.float32), rtol=1e-6)
    back, g_lo, g_hi = evaluate(tf.fake_quant_with_min_max_vars_gradient(np.ones(6, np.float32), x, -1.0, 1.0))
    assert back.tolist() == [0, 0, 1, 1, 0, 0] and g_lo == 2 and g_hi == 2


def test_compute_gradient_gives_the_graphs_jacobian_and_central_differences():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        w = tf.constant(np.arange(12.0).reshape(4, 3))
        y = tf.gather(tf.square(x) * 2.0, [2, 0]) + tf.reduce_sum(tf.gather(w, [1, 1]))
        init = np.array([0.5, -1.0, 2.0])
        with tf.Session():
            theoretical, numerical = tf.test.compute_gradient(x, [3], y, [2], x_init_value=init)
            want = np.zeros((3, 2))
            want[2, 0], want[0, 1] = 4 * init[2], 4 * init[0]
            np.testing.assert_allclose(theoretical, want)
            np.testing.assert_allclose(numerical, want, atol=1e-6)
            # (a list of inputs; w's gradient comes as IndexedSlices from the gather)
            pairs = tf.test.compute_gradient([x, w], [[3], [4, 3]], y, [2], x_init_value=[init, np.ones((4, 3))])
            assert len(pairs) == 2 and pairs[1][0].shape == (12, 2)
            np.testing.assert_allclose(pairs[1][0][3:6], 2.0)  # (row 1 gathered twice, into both outputs)
            assert tf.test.compute_gradient_error([x, w], [[3], [4, 3]], y, [2]) < 1e-6
    with pytest.raises(ValueError, match="default session"):
        tf.test.compute_gradient(x, [3], y, [2])


def test_loss_reduction_keys_as_tf_1x():
    R = tf.losses.Reduction
    assert R.SUM_OVER_NONZERO_WEIGHTS == R.SUM_BY_NONZERO_WEIGHTS  # (TF 1.x's older name)
    assert set(R.all()) == {R.NONE, R.SUM, R.MEAN, R.SUM_OVER_BATCH_SIZE, R.SUM_BY_NONZERO_WEIGHTS}
    R.validate(R.MEAN)
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        R.validate("average")


@pytest.mark.parametrize("ord_,axis", [(1, (0, 1)), (np.inf, (0, 1)), (2, (-2, -1)), ("fro", (1, 2)),
                                       (1, (2, 0)), ("euclidean", (0, 2))])
def test_norm_over_two_axes_is_the_matrix_norm(ord_, axis):
    x = r(3, 4, 5, seed=3) if axis != (0, 1) else r(4, 5, seed=3)
    got = evaluate(tf.norm(x, ord=ord_, axis=list(axis)))
    want = np.linalg.norm(x, ord="fro" if ord_ in ("fro", "euclidean") else ord_, axis=axis)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    kept = evaluate(tf.norm(x, ord=ord_, axis=list(axis), keepdims=True))
    assert kept.shape == np.linalg.norm(x, ord="fro" if ord_ in ("fro", "euclidean") else ord_, axis=axis,
                                        keepdims=True).shape
    with pytest.raises(ValueError, match="matrix norm"):
        tf.norm(x, ord=3, axis=list(axis))


def test_empty_segments_and_named_results_as_tf():
    data = r(3, 2, seed=4).astype(np.float32)
    gap = evaluate(tf.segment_max(data, np.array([0, 2, 2], np.int32)))
    np.testing.assert_array_equal(gap[1], [0.0, 0.0])  # (an id no entry has: 0, as TF's sorted ops)
    np.testing.assert_array_equal(gap[2], data[1:].max(0))
    empty = evaluate(tf.unsorted_segment_min(data[:2], np.array([1, 1], np.int32), 3))
    assert (empty[0] == np.finfo(np.float32).max).all() and (empty[2] == np.finfo(np.float32).max).all()
    assert (evaluate(tf.unsorted_segment_max(data[:1], np.array([0], np.int32), 2))[1]
            == np.finfo(np.float32).min).all()  # (TF's lowest(), not -inf)
    unique = tf.unique(tf.constant([3, 1, 3]))
    diff = tf.setdiff1d(tf.constant([1, 2, 3]), tf.constant([2]))
    qr = tf.qr(tf.constant(r(3, 3, seed=5)))
    assert type(unique).__name__ == "Unique" and unique.idx is unique[1]
    assert type(diff).__name__ == "ListDiff" and diff.out is diff[0]
    assert type(qr).__name__ == "Qr" and qr.r is qr[1]
    assert evaluate(unique).idx.tolist() == [0, 1, 0] and evaluate(diff).out.tolist() == [1, 3]
