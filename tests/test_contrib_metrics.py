"""tf.contrib.metrics: the streaming metrics (predictions first) accumulate as tf.metrics'
do, against counts in NumPy."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(51)


def test_streaming_metrics_take_the_predictions_first_and_accumulate_over_batches():
    batches = [(RNG.integers(0, 3, 8), RNG.integers(0, 3, 8)) for _ in range(3)]
    with tf.Graph().as_default():
        predictions, labels = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.int64, [None])
        names_to_values, names_to_updates = tf.contrib.metrics.aggregate_metric_map({
            "accuracy": tf.contrib.metrics.streaming_accuracy(predictions, labels),
            "iou": tf.contrib.metrics.streaming_mean_iou(predictions, labels, 3),
            "tp": tf.contrib.metrics.streaming_true_positives(predictions=tf.equal(predictions, 1),
                                                              labels=tf.equal(labels, 1)),
        })
        assert sorted(names_to_values) == sorted(names_to_updates) == ["accuracy", "iou", "tp"]
        assert sorted(v.op.name for v in tf.local_variables())[:2] == ["accuracy/count", "accuracy/total"]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for p, y in batches:
                sess.run(list(names_to_updates.values()), {predictions: p, labels: y})
            got = sess.run(names_to_values)
    p, y = np.concatenate([b[0] for b in batches]), np.concatenate([b[1] for b in batches])
    assert got["accuracy"] == np.float32(np.mean(p == y))
    assert got["tp"] == np.sum((p == 1) & (y == 1))
    ious = [np.sum((p == c) & (y == c)) / np.sum((p == c) | (y == c)) for c in range(3)]
    np.testing.assert_allclose(got["iou"], np.mean(ious), rtol=1e-6)


def test_streaming_auc_and_at_k_metrics_are_tf_metrics_with_the_arguments_swapped():
    scores, truth = RNG.random(20), RNG.random(20) > 0.5
    logits, classes = RNG.standard_normal((20, 4)).astype(np.float32), RNG.integers(0, 4, 20)
    with tf.Graph().as_default():
        got = [tf.contrib.metrics.streaming_auc(scores, truth, num_thresholds=50, name="contrib_auc"),
               tf.contrib.metrics.streaming_sparse_recall_at_k(logits, classes[:, None].astype(np.int64), 2,
                                                               name="contrib_recall"),
               tf.contrib.metrics.streaming_recall_at_k(logits, classes, 2)]
        want = [tf.metrics.auc(truth, scores, num_thresholds=50),
                tf.metrics.recall_at_k(classes[:, None].astype(np.int64), logits, 2)]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run([update for _, update in got + want])
            values = sess.run([value for value, _ in got + want])
    assert values[0] == values[3] and values[1] == values[4]
    top2 = np.argsort(-logits, axis=1)[:, :2]
    assert values[2] == np.float32(np.mean([c in row for c, row in zip(classes, top2)]))
    assert values[1] == pytest.approx(values[2])  # (the sparse form agrees, one label an example)


def test_the_one_shot_accuracy_weighs_this_batch_only():
    p, y, w = np.array([1, 2, 3, 4]), np.array([1, 0, 3, 0]), np.array([1.0, 3.0, 1.0, 1.0])
    with tf.Graph().as_default():
        with tf.Session() as sess:
            plain, weighted = sess.run([tf.contrib.metrics.accuracy(p, y), tf.contrib.metrics.accuracy(p, y, w)])
    assert plain == 0.5 and weighted == np.float32(2 / 6)
