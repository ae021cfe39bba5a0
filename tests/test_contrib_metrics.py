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


def test_f1_score_is_the_best_over_its_thresholds():
    predictions = np.array([0.9, 0.8, 0.6, 0.3, 0.2, 0.1], np.float32)
    labels = np.array([1, 0, 1, 1, 0, 0], np.float32)
    with tf.Graph().as_default():
        f1, update = tf.contrib.metrics.f1_score(tf.constant(labels), tf.constant(predictions), num_thresholds=11)
        assert {v.op.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)} == {
            "f1/true_positives", "f1/false_positives", "f1/false_negatives"}
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run(update)
            got = sess.run(f1)
    best = 0.0
    for threshold in [-1e-7] + [i / 10 for i in range(1, 10)] + [1 + 1e-7]:
        positive = predictions > threshold
        tp, fp, fn = (positive & (labels == 1)).sum(), (positive & (labels == 0)).sum(), (~positive & (labels == 1)).sum()
        p, r = tp / (1e-7 + tp + fp), tp / (1e-7 + tp + fn)
        best = max(best, 2 * p * r / (p + r + 1e-7))
    assert got == pytest.approx(best, rel=1e-5)


def test_counts_squeeze_a_trailing_one_and_threshold_metrics_weigh_per_example_and_check_their_range():
    predictions = tf.constant([[1, 0, 1, 0], [0, 1, 1, 1], [0, 0, 0, 0]])
    labels = tf.constant([[0, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]])
    tp, tp_update = tf.metrics.true_positives(labels, tf.expand_dims(predictions, 2))
    scores = tf.constant([[0.1, 0.9], [0.8, 0.3]])
    auc, auc_update = tf.metrics.auc(tf.constant([[0, 1], [1, 0]]), scores, weights=tf.constant([[1.0], [0.0]]))
    fed = tf.placeholder(tf.float32, [2])
    bad, bad_update = tf.metrics.auc(tf.constant([1, 0]), fed)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([tp_update, auc_update])
        assert sess.run(tp) == 1.0
        assert sess.run(auc) == pytest.approx(1.0, abs=1e-3)  # (only the first example, which ranks right)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"predictions must be in \[0, 1\]"):
            sess.run(bad_update, {fed: [1.5, 0.2]})
