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


def _precision_recall_at_k_numpy(labels, scores, k, class_id=None, weights=None):
    """TF 1.x's sets semantics: each example's top k ids against its set of labels."""
    top = np.argsort(-scores, axis=-1)[..., :k].reshape(-1, k)
    labels = labels.reshape(len(top), -1)
    weights = np.ones(len(top)) if weights is None else weights.reshape(-1)
    tp = fp = fn = 0.0
    for ids, row, w in zip(top, labels, weights):
        ids, row = set(ids), set(row)
        if class_id is not None:
            ids, row = ids & {class_id}, row & {class_id}
        tp += w * len(ids & row)
        fp += w * len(ids - row)
        fn += w * len(row - ids)
    with np.errstate(invalid="ignore"):
        return np.float64(tp) / (tp + fp), np.float64(tp) / (tp + fn)


@pytest.mark.parametrize("kwargs", [{}, {"class_id": 2}, {"class_id": 5}, {"weights": True}])
def test_precision_and_recall_at_k_count_label_sets_over_every_leading_dimension(kwargs):
    rng = np.random.RandomState(0)
    scores = rng.rand(4, 3, 6).astype(np.float32)
    labels = rng.randint(0, 6, size=(4, 3, 2)).astype(np.int64)  # (some rows repeat a label)
    weights = rng.rand(4, 3).astype(np.float32) if kwargs.pop("weights", False) else None
    with tf.Graph().as_default():
        precision = tf.metrics.precision_at_k(labels, scores, 2, weights=weights, **kwargs)
        recall = tf.metrics.recall_at_k(labels, scores, 2, weights=weights, **kwargs)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            got = sess.run([precision[1], recall[1]])
    np.testing.assert_allclose(got, _precision_recall_at_k_numpy(labels, scores, 2, weights=weights, **kwargs),
                               rtol=1e-6)


def test_precision_at_k_is_nan_before_a_prediction_and_sparse_label_values_all_count():
    scores = np.array([[0.1, 0.3, 0.2, 0.4], [0.1, 0.2, 0.3, 0.4]], np.float32)
    sparse = tf.SparseTensorValue(np.array([[0, 0], [1, 0], [1, 1]], np.int64), np.array([3, 2, 9], np.int64),
                                  np.array([2, 2], np.int64))
    precision = tf.metrics.precision_at_k(np.array([[3], [2]], np.int64), scores, 1, class_id=0)
    recall = tf.metrics.recall_at_k(sparse, scores, 2)  # (3 labels, 9 among them: 2 found)
    top_k = tf.contrib.metrics.streaming_sparse_precision_at_top_k(tf.constant([[3], [3]]), sparse)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert np.isnan(sess.run(precision[1]))
        assert sess.run(recall[1]) == pytest.approx(2 / 3)
        assert sess.run(top_k[1]) == pytest.approx(1 / 2)


def test_covariance_and_pearson_correlation_combine_batches_exactly():
    rng = np.random.RandomState(1)
    x, y, w = rng.randn(3, 20), rng.randn(3, 20), rng.rand(3, 20)
    p, l, wt = (tf.placeholder(tf.float32, [20]) for _ in range(3))
    cov = tf.contrib.metrics.streaming_covariance(p, l)
    weighted = tf.contrib.metrics.streaming_covariance(p, l, weights=wt, name="weighted")
    corr = tf.contrib.metrics.streaming_pearson_correlation(p, l)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert np.isnan(sess.run(cov[0]))  # (nothing seen yet)
        for i in range(3):
            sess.run([cov[1], weighted[1], corr[1]], {p: x[i], l: y[i], wt: w[i]})
        got = sess.run([cov[0], weighted[0], corr[0]])
    xs, ys, ws = x.ravel(), y.ravel(), w.ravel()
    weighted_cov = (ws * (xs - np.average(xs, weights=ws)) * (ys - np.average(ys, weights=ws))).sum() / (ws.sum() - 1)
    np.testing.assert_allclose(got, [np.cov(xs, ys)[0, 1], weighted_cov, np.corrcoef(xs, ys)[0, 1]], rtol=1e-4)


def test_streaming_concat_and_the_exact_dynamic_auc():
    rng = np.random.RandomState(2)
    labels = rng.randint(0, 2, size=(4, 10))
    scores = np.clip(0.3 * labels + rng.rand(4, 10) * 0.7, 0, 1).astype(np.float32)
    l, s = tf.placeholder(tf.int64, [None]), tf.placeholder(tf.float32, [None])
    concat, concat_update = tf.contrib.metrics.streaming_concat(tf.reshape(s, [-1, 2]), axis=0, max_size=15)
    auc, auc_update = tf.contrib.metrics.streaming_dynamic_auc(l, s)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(concat).shape == (0, 2)
        for i in range(4):
            sess.run([concat_update, auc_update], {l: labels[i], s: scores[i]})
        got_concat, got_auc = sess.run([concat, auc])
    np.testing.assert_array_equal(got_concat, scores.reshape(-1, 2)[:15])  # (max_size rows kept)
    positives, negatives = scores[labels == 1], scores[labels == 0]
    pairs = (positives[:, None] > negatives[None]).mean() + 0.5 * (positives[:, None] == negatives[None]).mean()
    assert got_auc == pytest.approx(pairs, rel=1e-6)


def test_cohen_kappa_rates_count_and_curve_points_against_numpy():
    rng = np.random.RandomState(3)
    labels, predicted = rng.randint(0, 3, 40), rng.randint(0, 3, 40)
    kappa = tf.contrib.metrics.cohen_kappa(tf.constant(labels), tf.constant(predicted), 3)
    bools_l, bools_p = labels == 1, predicted == 1
    fpr = tf.contrib.metrics.streaming_false_positive_rate(tf.constant(bools_p), tf.constant(bools_l))
    fnr = tf.contrib.metrics.streaming_false_negative_rate(tf.constant(bools_p), tf.constant(bools_l))
    counted = tf.contrib.metrics.count(tf.zeros([5, 2]), weights=tf.constant([[1.0], [2.0], [0.0], [1.0], [1.0]]))
    scores = rng.rand(40).astype(np.float32)
    points = tf.contrib.metrics.streaming_curve_points(tf.constant(bools_l), tf.constant(scores), num_thresholds=3)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        got = sess.run([kappa[1], fpr[1], fnr[1], counted[1], points[1]])
        got_points = sess.run(points[0])
    table = np.zeros((3, 3))
    np.add.at(table, (labels, predicted), 1)
    po, pe = np.trace(table) / 40, (table.sum(0) * table.sum(1)).sum() / 40 ** 2
    assert got[0] == pytest.approx((po - pe) / (1 - pe), rel=1e-6)
    assert got[1] == pytest.approx((bools_p & ~bools_l).sum() / (~bools_l).sum())
    assert got[2] == pytest.approx((~bools_p & bools_l).sum() / bools_l.sum())
    assert got[3] == 10.0
    above = scores > 0.5  # (thresholds: just below 0, 0.5, just above 1)
    want_middle = [(above & ~bools_l).sum() / (~bools_l).sum(), (above & bools_l).sum() / bools_l.sum()]
    np.testing.assert_allclose(got_points[1], want_middle, rtol=1e-4)
    np.testing.assert_allclose(got_points[[0, 2]], [[1.0, 1.0], [0.0, 0.0]], atol=1e-4)


def test_precision_recall_at_equal_thresholds_from_a_histogram_of_the_predictions():
    rng = np.random.RandomState(4)
    labels = rng.rand(30) > 0.5
    scores = rng.rand(30).astype(np.float32)
    data, update = tf.contrib.metrics.precision_recall_at_equal_thresholds(tf.constant(labels), tf.constant(scores),
                                                                          num_thresholds=5)
    with pytest.raises(TypeError):
        tf.contrib.metrics.precision_recall_at_equal_thresholds(tf.constant([1, 0]), tf.constant([0.5, 0.5]))
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update)
        got = sess.run(data)
    bucket = np.floor(scores * 4).astype(int)
    tp = np.array([(labels & (bucket >= i)).sum() for i in range(5)], np.float32)
    fp = np.array([(~labels & (bucket >= i)).sum() for i in range(5)], np.float32)
    np.testing.assert_array_equal(got.tp, tp)
    np.testing.assert_array_equal(got.fn, tp[0] - tp)
    np.testing.assert_allclose(got.precision, tp / np.maximum(tp + fp, 1e-7), rtol=1e-6)
    np.testing.assert_allclose(got.thresholds, [0, 0.25, 0.5, 0.75, 1.0])


def test_precision_at_a_recall_and_recall_at_a_precision_over_the_thresholds():
    labels = np.array([1, 1, 1, 1, 0, 0, 0, 0], bool)
    scores = np.array([0.95, 0.7, 0.45, 0.3, 0.6, 0.35, 0.2, 0.1], np.float32)
    precision = tf.contrib.metrics.precision_at_recall(tf.constant(labels), tf.constant(scores), 0.75,
                                                       num_thresholds=21)
    recall = tf.contrib.metrics.recall_at_precision(tf.constant(labels), tf.constant(scores), 1.0, num_thresholds=21)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        got = sess.run([precision[1], recall[1]])
    # recall 0.75 last holds at threshold 0.4 (3 positives above, and the negative at 0.6): 3/4;
    # precision 1 first holds at 0.6 (only 0.95 and 0.7 above): recall 2/4
    assert got == pytest.approx([0.75, 0.5], rel=1e-5)


def test_auc_with_confidence_intervals_against_numpys_placement_values():
    import statistics

    rng = np.random.RandomState(5)
    labels = rng.randint(0, 2, size=(3, 20))
    scores = np.round(np.clip(0.25 * labels + rng.rand(3, 20) * 0.75, 0, 1), 1)  # (with ties)
    weights = rng.rand(3, 20) + 0.5
    l, s, w = tf.placeholder(tf.int64, [20]), tf.placeholder(tf.float64, [20]), tf.placeholder(tf.float64, [20])
    data, update = tf.contrib.metrics.auc_with_confidence_intervals(l, s, weights=w, alpha=0.9)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for i in range(3):
            sess.run(update, {l: labels[i], s: scores[i], w: weights[i]})
        sess.run(update, {l: labels[0], s: scores[0], w: np.full(20, 0.01)})  # (weights below 1: not kept)
        got = sess.run(data)
    ys, xs, ws = labels.ravel(), scores.ravel(), weights.ravel()
    pos, neg = ys == 1, ys == 0

    def outranked(x, others, other_weights):  # (the others' weight below x, ties counting half)
        return ((others < x) * other_weights + 0.5 * (others == x) * other_weights).sum() / other_weights.sum()

    v1 = np.array([outranked(x, xs[neg], ws[neg]) for x in xs[pos]])
    v0 = np.array([1 - outranked(x, xs[pos], ws[pos]) for x in xs[neg]])
    total_1, total_0 = ws[pos].sum(), ws[neg].sum()
    auc = (ws[pos] * v1).sum() / total_1
    var_1 = (ws[pos] * (v1 - auc) ** 2).sum() / (total_1 - 1)
    var_0 = (ws[neg] * (v0 - (ws[neg] * v0).sum() / total_0) ** 2).sum() / (total_0 - 1)
    err = np.sqrt(var_0 / total_0 + var_1 / total_1) / (auc * (1 - auc))
    z = statistics.NormalDist().inv_cdf(0.05)
    logit = np.log(auc / (1 - auc))
    want = [auc, 1 / (1 + np.exp(-(logit + z * err))), 1 / (1 + np.exp(-(logit - z * err)))]
    np.testing.assert_allclose([got.auc, got.lower, got.upper], want, rtol=1e-5)
    assert got.lower < got.auc < got.upper


def test_auc_using_histogram_matches_the_exact_auc_of_binned_scores():
    rng = np.random.default_rng(3)
    labels = rng.random(400) < 0.3
    scores = np.clip(labels * 0.3 + rng.random(400) * 0.7, 0, 1)
    binned = np.minimum((scores * 50).astype(int), 49)
    # the exact AUC of the binned scores, ties counted half
    pos, neg = binned[labels], binned[~labels]
    exact = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    with tf.Graph().as_default(), tf.Session() as sess:
        auc, update = tf.contrib.metrics.auc_using_histogram(tf.constant(labels), tf.constant(scores), [0.0, 1.0],
                                                             nbins=50)
        sess.run(tf.local_variables_initializer())
        sess.run(update)
        np.testing.assert_allclose(sess.run(auc), exact, rtol=1e-12)
        assert tf.contrib.metrics.set_size is tf.sets.set_size
