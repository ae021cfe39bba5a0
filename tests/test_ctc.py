"""CTC loss and greedy decoding against TensorFlow 2.21's values for the same logits (the
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
