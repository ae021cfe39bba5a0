"""CTC loss, greedy and beam search decoding against TensorFlow 2.21's values for the same logits (the
expected figures below), and the loss's gradient by float64 central differences."""

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

LOGITS = np.random.default_rng(3).standard_normal((6, 3, 5)).astype(np.float32)  # [time, batch, classes]
LENGTHS = np.array([6, 5, 2], np.int32)


def labels():
    # example 0: [1, 1] (a repeat: needs a blank between), 1: [2, 0, 3], 2: [3]
    return tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]], np.array([1, 1, 2, 0, 3, 3], np.int32),
                           [3, 3])


def test_ctc_loss_and_its_gradient_give_tensorflows_values():
    x = tf.constant(LOGITS)
    loss = tf.nn.ctc_loss(labels(), x, LENGTHS)
    grad = tf.gradients(tf.reduce_sum(loss * tf.constant([1.0, 2.0, 0.5])), x)[0]
    collapsed = tf.nn.ctc_loss(labels(), x, LENGTHS, preprocess_collapse_repeated=True)
    batch_first = tf.nn.ctc_loss(labels(), tf.transpose(x, [1, 0, 2]), LENGTHS, time_major=False)
    with tf.Session() as sess:
        got, g, got_collapsed, got_batch_first = sess.run([loss, grad, collapsed, batch_first])
    np.testing.assert_allclose(got, [7.480042, 5.709198, 3.102996], rtol=1e-5)
    np.testing.assert_allclose(got_collapsed, [7.964314, 5.709198, 3.102996], rtol=1e-5)
    np.testing.assert_allclose(got_batch_first, got, rtol=1e-6)
    # (a few of TensorFlow's gradient entries; and nothing past an example's length)
    np.testing.assert_allclose(g[0, 0], [0.733314, -0.130461, 0.144713, 0.053995, -0.801560], atol=2e-6)
    np.testing.assert_allclose(g[0, 1], [0.053924, 0.008875, -0.059146, 0.028162, -0.031814], atol=2e-6)
    assert not g[5, 1].any() and not g[2:, 2].any()
    np.testing.assert_allclose(g[:, 1].sum(axis=1), 0.0, atol=1e-5)  # (softmax minus a distribution, per step)


def test_the_ctc_loss_gradient_against_central_differences():
    def loss(x):  # (labels [2, 2] and [0, 1]; built in the check's graph)
        sparse = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1]], np.array([2, 2, 0, 1], np.int32), [2, 2])
        return tf.nn.ctc_loss(sparse, x, [5, 4])

    check_gradients(loss, [np.random.default_rng(4).standard_normal((5, 2, 4))])


def test_labels_longer_than_the_input_are_an_error_or_ignored():
    long_labels = tf.SparseTensor([[0, 0], [0, 1], [0, 2]], np.array([1, 2, 3], np.int32), [1, 3])
    x = tf.constant(LOGITS[:, :1])
    ignored = tf.nn.ctc_loss(long_labels, x, [2], ignore_longer_outputs_than_inputs=True)
    with tf.Session() as sess:
        assert sess.run(ignored).tolist() == [0.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Not enough time for target transition sequence "
                                                                 r"\(required: 3, available: 2\)"):
            sess.run(tf.nn.ctc_loss(long_labels, x, [2]))
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.nn.ctc_loss(np.array([[1, 2]]), x, [2])


def test_greedy_decoding_gives_tensorflows_labels():
    x = tf.constant(LOGITS)
    (merged,), score = tf.nn.ctc_greedy_decoder(x, LENGTHS)
    (unmerged,), score2 = tf.nn.ctc_greedy_decoder(x, LENGTHS, merge_repeated=False)
    with tf.Session() as sess:
        m, s, u, s2 = sess.run([merged, score, unmerged, score2])
    assert m.indices.tolist() == [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [1, 0], [1, 1], [2, 0], [2, 1]]
    assert m.values.tolist() == [0, 3, 2, 1, 3, 1, 1, 2, 0, 1] and m.dense_shape.tolist() == [3, 6]
    assert u.values.tolist() == [0, 3, 2, 1, 3, 1, 1, 2, 2, 2, 0, 1] and u.dense_shape.tolist() == [3, 6]
    np.testing.assert_allclose(s, [[-7.449999], [-7.630587], [-2.160875]], rtol=1e-6)
    np.testing.assert_allclose(s2, s)


# TensorFlow 2.21's tf.compat.v1.nn.ctc_beam_search_decoder on RandomState(seed).randn(*shape) * 2:
# (seed, shape, lengths, beam_width, top_paths, merge_repeated, each path's labels per example and
# dense shape, the log probabilities).
BEAM_CASES = [
    (0, (6, 3, 4), [6, 4, 3], 5, 3, True,
     [[[[0, 1], [0], [2]], [3, 2]], [[[0, 1], [0, 1], [1]], [3, 2]], [[[0, 1, 0], [2, 0], [1, 2]], [3, 3]]],
     [[-1.796357, -2.416115, -2.551512], [-0.898125, -1.075639, -2.652857], [-0.769041, -1.43651, -1.973205]]),
    (1, (8, 2, 5), [8, 6], 3, 2, False,
     [[[[0, 1, 3, 0, 1, 3], [1, 3, 2]], [2, 6]], [[[0, 1, 3, 1, 3], [1, 3, 2, 1]], [2, 5]]],
     [[-3.036332, -3.474134], [-1.419544, -2.287671]]),
    (2, (5, 2, 3), [5, 3], 10, 4, True,
     [[[[1, 0, 1], [0]], [2, 3]], [[[0, 1], [0, 1]], [2, 2]], [[[1, 0, 1, 0], [0]], [2, 4]], [[[0, 1, 0], []], [2, 3]]],
     [[-1.081008, -1.766698, -1.805479, -2.459641], [-0.151965, -2.22912, -3.696205, -5.117919]]),
    (3, (12, 2, 6), [12, 10], 2, 1, True,
     [[[[0, 1, 2, 3, 1, 3, 1], [4, 1, 0, 3, 1, 3, 2]], [2, 7]]],
     [[-5.277884], [-3.286338]]),
]


def _dense_rows(sparse, batch: int) -> list:
    rows = [[] for _ in range(batch)]
    for (b, _), v in zip(sparse.indices.tolist(), sparse.values.tolist()):
        rows[b].append(v)
    return rows


@pytest.mark.parametrize("seed, shape, lengths, beam_width, top_paths, merge_repeated, paths, log_probs", BEAM_CASES)
def test_beam_search_decoding_gives_tensorflows_paths(seed, shape, lengths, beam_width, top_paths, merge_repeated,
                                                       paths, log_probs):
    x = np.random.RandomState(seed).randn(*shape).astype(np.float32) * 2
    decoded, log_probability = tf.nn.ctc_beam_search_decoder(x, lengths, beam_width=beam_width, top_paths=top_paths,
                                                             merge_repeated=merge_repeated)
    assert len(decoded) == top_paths and log_probability.shape.as_list() == [shape[1], top_paths]
    with tf.Session() as sess:
        got, got_log_probs = sess.run([decoded, log_probability])
    assert [[_dense_rows(d, shape[1]), d.dense_shape.tolist()] for d in got] == paths
    np.testing.assert_allclose(got_log_probs, log_probs, atol=5e-6)


def test_beam_search_with_a_full_beam_gives_tensorflows_paths():
    """A beam narrower than the prefixes it could hold, so every step drops some (TensorFlow
    2.21's figures, beam 20, 5 paths, over RandomState(7).randn(30, 2, 10) * 3)."""
    x = np.random.RandomState(7).randn(30, 2, 10).astype(np.float32) * 3
    decoded, log_probability = tf.nn.ctc_beam_search_decoder(x, [30, 25], beam_width=20, top_paths=5)
    v2, v2_log_probability = tf.nn.ctc_beam_search_decoder_v2(x, [30, 25], beam_width=20, top_paths=5)
    with tf.Session() as sess:
        got, got_log_probs, got_v2 = sess.run([decoded, log_probability, v2])
    assert [d.values.tolist() for d in got] == REF_FULL_VALUES
    assert [d.dense_shape.tolist() for d in got] == REF_FULL_SHAPES
    np.testing.assert_allclose(got_log_probs, REF_FULL_LOG_PROBS, atol=2e-5)
    for merged, unmerged in zip(got, got_v2):  # (v2 keeps equal labels next to each other: never shorter)
        assert len(unmerged.values) >= len(merged.values)


REF_FULL_VALUES = [[0, 3, 7, 3, 8, 1, 2, 3, 1, 6, 4, 7, 0, 1, 0, 6, 2, 5, 0, 1, 2, 4, 2, 6, 8, 0, 6, 5, 6, 5, 2, 5, 1, 6, 0, 3, 8, 1, 6], [0, 3, 7, 3, 8, 1, 2, 3, 1, 2, 4, 7, 0, 1, 0, 6, 2, 5, 0, 1, 2, 4, 2, 6, 8, 0, 6, 5, 3, 5, 2, 5, 1, 6, 0, 3, 8, 1, 6], [0, 3, 7, 3, 8, 1, 2, 3, 1, 6, 4, 7, 8, 1, 0, 6, 2, 5, 0, 1, 2, 4, 2, 6, 8, 0, 4, 6, 5, 6, 5, 2, 5, 1, 6, 0, 3, 8, 1, 6], [0, 3, 7, 3, 8, 1, 2, 3, 1, 2, 4, 7, 8, 1, 0, 6, 2, 5, 0, 1, 2, 4, 2, 6, 8, 0, 4, 6, 5, 3, 5, 2, 5, 1, 6, 0, 3, 8, 1, 6], [0, 3, 7, 3, 8, 1, 2, 1, 6, 4, 7, 0, 1, 0, 6, 2, 5, 0, 1, 2, 4, 2, 6, 8, 0, 6, 5, 6, 5, 2, 5, 1, 6, 4, 0, 3, 8, 1, 6]]
REF_FULL_SHAPES = [[2, 23], [2, 23], [2, 23], [2, 23], [2, 22]]
REF_FULL_LOG_PROBS = [[-13.08355, -13.12208, -13.18962, -13.22814, -13.24958], [-12.79766, -12.81855, -12.89232, -12.91321, -13.18934]]


def test_beam_search_arguments_and_lengths_are_checked():
    x = np.zeros((3, 1, 4), np.float32)
    with pytest.raises(ValueError, match="1 <= top_paths <= beam_width"):
        tf.nn.ctc_beam_search_decoder(x, [3], beam_width=2, top_paths=3)
    with pytest.raises(TypeError, match="floating logits"):
        tf.nn.ctc_beam_search_decoder(np.zeros((3, 1, 4), np.int32), [3])
    too_long = tf.nn.ctc_beam_search_decoder(x, [4])[1]
    empty = tf.nn.ctc_beam_search_decoder(x, [0], top_paths=2)[1]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"sequence_length\[0\] = 4"):
            sess.run(too_long)
        with pytest.raises(tf.errors.InvalidArgumentError, match="fewer prefixes in the beam"):
            sess.run(empty)  # (an empty sequence leaves one prefix, as TensorFlow's)


def test_ctc_loss_v2_dense_labels_and_its_helpers_give_tensorflows_values():
    x = tf.constant(LOGITS)
    blank_first = tf.nn.ctc_loss_v2(np.array([[1, 1, 0], [2, 4, 3], [3, 0, 0]], np.int32), x, [2, 3, 1], LENGTHS)
    blank_two = tf.nn.ctc_loss_v2(np.array([[1, 1, 0], [3, 0, 4], [3, 0, 0]], np.int32), x, [2, 3, 1], LENGTHS,
                                  blank_index=2)
    grad = tf.gradients(tf.reduce_sum(blank_two), x)[0]
    unique = tf.nn.ctc_unique_labels(np.array([[3, 1, 3, 2, 1], [5, 5, 5, 0, 0]], np.int32))
    collapsed = tf.nn.collapse_repeated(np.array([[1, 1, 2, 2, 3, 0], [4, 4, 4, 1, 0, 0], [2, 3, 3, 1, 1, 1]],
                                                 np.int32), np.array([5, 4, 6], np.int32))
    with tf.Session() as sess:
        got_first, got_two, g, (labels_, index), (rows, lengths) = sess.run([blank_first, blank_two, grad, unique,
                                                                             collapsed])
        with pytest.raises(tf.errors.InvalidArgumentError, match="blank index 2"):
            sess.run(tf.nn.ctc_loss_v2(np.array([[2]], np.int32), x[:, :1], [1], LENGTHS[:1], blank_index=2))
    # (TensorFlow 2.21's figures for the same logits)
    np.testing.assert_allclose(got_first, [6.204313, 9.419661, 3.013985], rtol=1e-5)
    np.testing.assert_allclose(got_two, [5.944954, 7.602404, 3.505608], rtol=1e-5)
    np.testing.assert_allclose(g[0, 1], [0.026962, 0.004437, -0.185500, -0.773894, 0.927995], atol=2e-6)
    assert labels_.dtype == np.int64 and labels_.tolist() == [[3, 1, 2, 0, 0], [5, 0, 0, 0, 0]]
    assert index.tolist() == [[0, 1, 0, 2, 1], [0, 0, 0, 1, 1]]
    assert rows.tolist() == [[1, 2, 3], [4, 1, 0], [2, 3, 1]] and lengths.tolist() == [3, 2, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="labels length is zero in batch 2"):
        with tf.Session() as sess:
            sess.run(tf.nn.ctc_loss(tf.SparseTensor([[0, 0], [1, 0]], np.array([1, 2], np.int32), [3, 1]), x, LENGTHS))
