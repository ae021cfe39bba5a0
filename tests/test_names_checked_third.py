"""A third group of TF 1.x names that no other test called by name, each against NumPy written
from TensorFlow's documentation: the remaining losses, the confusion-count metrics and the
metrics at thresholds, sensitivity and specificity, and the batching helpers of tf.train."""

import numpy as np
import pytest

import distflow as tf

rng = np.random.default_rng(2)
LABELS = (rng.random((6, 2)) > 0.5).astype(np.float32)
PREDICTIONS = rng.random((6, 2)).astype(np.float32)
WEIGHTS = np.array([[1.0], [0.0], [2.0], [1.0], [0.5], [0.0]], np.float32)


def run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        return sess.run(fetches, feed)


def by_nonzero_weights(losses, weights):
    """TF's default reduction, SUM_BY_NONZERO_WEIGHTS: the weighted sum over the count of
    non-zero weights (each weight broadcast over the losses' shape)."""
    w = np.broadcast_to(weights, losses.shape)
    return (losses * w).sum() / np.count_nonzero(w)


@pytest.mark.parametrize("name,per_element", [
    ("absolute_difference", lambda y, p: np.abs(p - y)),
    ("hinge_loss", lambda y, p: np.maximum(0, 1 - (2 * y - 1) * p)),
    ("huber_loss", lambda y, p: np.where(np.abs(p - y) <= 1.0, 0.5 * (p - y) ** 2, np.abs(p - y) - 0.5)),
    ("log_loss", lambda y, p: -y * np.log(p + 1e-7) - (1 - y) * np.log(1 - p + 1e-7)),
])
def test_the_remaining_losses_with_weights(name, per_element):
    fn = getattr(tf.losses, name)
    with tf.Graph().as_default():
        if name == "hinge_loss":
            got = run(fn(LABELS, PREDICTIONS * 4 - 2, weights=WEIGHTS))
            want = by_nonzero_weights(per_element(LABELS, PREDICTIONS * 4 - 2), WEIGHTS)
        else:
            got = run(fn(LABELS, PREDICTIONS * (3 if name == "huber_loss" else 1), weights=WEIGHTS))
            want = by_nonzero_weights(per_element(LABELS, PREDICTIONS * (3 if name == "huber_loss" else 1)),
                                      WEIGHTS)
        unweighted = run(fn(LABELS, PREDICTIONS, reduction=tf.losses.Reduction.NONE))
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert unweighted.shape == LABELS.shape


def test_confusion_counts_and_their_values_at_thresholds():
    labels = np.array([1, 0, 1, 1, 0, 0, 1, 0], bool)
    scores = np.array([0.9, 0.8, 0.3, 0.6, 0.2, 0.55, 0.4, 0.1], np.float32)
    predicted = scores > 0.5
    thresholds = [0.25, 0.5, 0.75]
    with tf.Graph().as_default():
        counts = {name: getattr(tf.metrics, name)(labels, predicted) for name in
                  ("true_positives", "false_positives", "true_negatives", "false_negatives")}
        at = {name: getattr(tf.metrics, f"{name}_at_thresholds")(labels, scores, thresholds) for name in
              ("true_positives", "false_positives", "true_negatives", "false_negatives")}
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run([update for _, update in list(counts.values()) + list(at.values())])
            got = sess.run({k: v for k, (v, _) in counts.items()})
            got_at = sess.run({k: v for k, (v, _) in at.items()})
    assert got == {"true_positives": 2.0, "false_positives": 2.0, "true_negatives": 2.0, "false_negatives": 2.0}
    for name, want in (("true_positives", lambda t: (labels & (scores > t)).sum()),
                       ("false_positives", lambda t: (~labels & (scores > t)).sum()),
                       ("true_negatives", lambda t: (~labels & (scores <= t)).sum()),
                       ("false_negatives", lambda t: (labels & (scores <= t)).sum())):
        np.testing.assert_array_equal(got_at[name], [want(t) for t in thresholds], err_msg=name)


def test_sensitivity_at_specificity_and_back():
    labels = np.array([1, 1, 1, 1, 0, 0, 0, 0], bool)
    scores = np.array([0.95, 0.7, 0.45, 0.3, 0.6, 0.35, 0.2, 0.1], np.float32)
    with tf.Graph().as_default():
        sensitivity, update_a = tf.metrics.sensitivity_at_specificity(labels, scores, specificity=0.75,
                                                                     num_thresholds=201)
        specificity, update_b = tf.metrics.specificity_at_sensitivity(labels, scores, sensitivity=0.75,
                                                                     num_thresholds=201)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run([update_a, update_b])
            got = sess.run([sensitivity, specificity])
    # As TF 1.x (checked with tf.compat.v1): sensitivity_at_specificity takes the first threshold
    # whose specificity is nearest: 0.75 first holds at 0.35, where 3 positives are above
    # (sensitivity 0.75); specificity_at_sensitivity takes the last whose sensitivity is nearest:
    # 0.75 holds up to 0.445, where 3 negatives are at or below it (specificity 0.75)
    assert got == pytest.approx([0.75, 0.75])


def test_sparse_average_precision_at_k():
    logits = np.array([[0.1, 0.9, 0.3, 0.6], [0.8, 0.05, 0.1, 0.2]], np.float32)
    labels = np.array([[1, 2], [3, 0]], np.int64)  # (ranked: row 0 is 1, 3, 2, 0; row 1 is 0, 3, 2, 1)
    with tf.Graph().as_default():
        value, update = tf.metrics.sparse_average_precision_at_k(labels, logits, k=3)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run(update)
            got = sess.run(value)
    # row 0: hits at ranks 1 and 3 -> (1/1 + 2/3) / min(k, 2 labels); row 1: hits at ranks 1 and 2 -> (1 + 1) / 2
    assert got == pytest.approx(((1 + 2 / 3) / 2 + 1.0) / 2)


def test_batching_helpers_of_tf_train(tmp_path):
    for i in range(2):
        (tmp_path / f"part-{i}.txt").write_text("x")
    with tf.Graph().as_default():
        files = tf.train.match_filenames_once(str(tmp_path / "part-*.txt"))
        a = tf.constant(np.arange(12, dtype=np.float32).reshape(12, 1))
        b = tf.constant(np.arange(100, 112, dtype=np.float32).reshape(12, 1))
        slices = [tf.train.slice_input_producer([t], shuffle=False)[0] for t in (a, b)]
        joined = tf.train.shuffle_batch_join([[s] for s in slices], batch_size=6, capacity=24, min_after_dequeue=6,
                                            seed=1)
        kept = tf.train.maybe_shuffle_batch([slices[0]], batch_size=4, capacity=24, min_after_dequeue=4,
                                            keep_input=tf.constant(True))
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            names = sorted(n.decode() for n in sess.run(files))
            batch = sess.run(joined).ravel()  # (one tensor in, one tensor out: TF's queues)
            kept_batch = sess.run(kept).ravel()
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    assert [n.rsplit("/", 1)[1] for n in names] == ["part-0.txt", "part-1.txt"]
    assert batch.shape == (6,) and set(batch) <= set(range(12)) | set(range(100, 112))
    assert kept_batch.shape == (4,) and set(kept_batch) <= set(range(12))


def test_the_logging_functions_log_at_their_levels(caplog):
    import logging

    before = tf.logging.get_verbosity()
    tf.logging.set_verbosity(tf.logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="distflow"):
            tf.logging.debug("d %d", 1)
            tf.logging.warn("w")
            tf.logging.error("e")
            tf.logging.fatal("f")
            tf.logging.log(tf.logging.INFO, "l %s", "x")
            tf.logging.vlog(tf.logging.WARN, "v")
            tf.logging.log_if(tf.logging.INFO, "shown", True)
            tf.logging.log_if(tf.logging.INFO, "hidden", False)
            for i in range(5):
                tf.logging.log_first_n(tf.logging.INFO, "first %d", 2, i)
            tf.logging.flush()
            with tf.logging.TaskLevelStatusMessage("status"):
                pass
    finally:
        tf.logging.set_verbosity(before)
    seen = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "distflow"]
    assert seen == [(logging.DEBUG, "d 1"), (logging.WARNING, "w"), (logging.ERROR, "e"), (logging.CRITICAL, "f"),
                    (logging.INFO, "l x"), (logging.WARNING, "v"), (logging.INFO, "shown"),
                    (logging.INFO, "first 0"), (logging.INFO, "first 1")]
