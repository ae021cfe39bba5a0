"""tf.contrib.training's queue-based batching: bucket and bucket_by_sequence_length (every
example comes out once, in a batch of its own bucket, padded to the batch's longest; examples
not kept are dropped), stratified_sample and rejection_sample."""

import numpy as np
import pytest

import distflow as tf

BOUNDED = tf.RunOptions(timeout_in_ms=30000)  # (a stuck pipeline fails the test instead of hanging it)


def _drain(fetches):
    got = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            while True:
                got.append(sess.run(fetches, options=BOUNDED))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    return got


def test_bucket_by_sequence_length_batches_similar_lengths_padded():
    lengths = np.random.default_rng(0).integers(1, 16, 40).astype(np.int32)
    with tf.Graph().as_default():
        length, = tf.train.slice_input_producer([lengths], num_epochs=1, shuffle=False)
        sequence = tf.fill([length], length)
        batches = _drain(tf.contrib.training.bucket_by_sequence_length(
            length, {"seq": sequence}, batch_size=4, bucket_boundaries=[5, 10], dynamic_pad=True,
            allow_smaller_final_batch=True))
    seen = []
    for batch_lengths, batch in batches:
        buckets = np.searchsorted([5, 10], batch_lengths, side="right")
        assert len(set(buckets)) == 1 and len(batch_lengths) <= 4
        assert batch["seq"].shape == (len(batch_lengths), batch_lengths.max())
        for n, row in zip(batch_lengths, batch["seq"]):
            assert row.tolist() == [n] * n + [0] * (batch_lengths.max() - n)
        seen += batch_lengths.tolist()
    assert sorted(seen) == sorted(lengths.tolist())
    with pytest.raises(ValueError, match="sequential increasing"):
        tf.contrib.training.bucket_by_sequence_length(3, [tf.zeros([3])], 2, [5, 5])


def test_bucket_drops_the_examples_not_kept():
    with tf.Graph().as_default():
        value, = tf.train.slice_input_producer([np.arange(20, dtype=np.int32)], num_epochs=1, shuffle=False)
        which, batch = tf.contrib.training.bucket([value], value % 3, batch_size=[2, 3, 1], num_buckets=3,
                                                  keep_input=tf.not_equal(value % 2, 1),
                                                  allow_smaller_final_batch=True)
        got = _drain([which, batch])
    assert all(np.all(values % 3 == bucket_id) and len(values) <= [2, 3, 1][bucket_id]
               for bucket_id, values in got)
    assert sorted(v for _, values in got for v in values.tolist()) == list(range(0, 20, 2))


def test_stratified_sample_rebalances_the_classes_and_rejection_sample_keeps_what_it_accepts():
    labels = np.array([0] * 90 + [1] * 10, np.int32)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        label, value = tf.train.slice_input_producer([labels, np.arange(100, dtype=np.int32)], shuffle=True, seed=2)
        [values], classes = tf.contrib.training.stratified_sample([value], label, [0.5, 0.5], 10,
                                                                  init_probs=[0.9, 0.1])
        even, = tf.contrib.training.rejection_sample([value], lambda t: tf.cast(tf.equal(t[0] % 2, 0), tf.float32), 5)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            try:
                batches = [sess.run([values, classes, even], options=BOUNDED) for _ in range(30)]
            finally:
                coord.request_stop()
                coord.join(threads, stop_grace_period_secs=10)
    got_classes = np.concatenate([c for _, c, _ in batches])
    assert all(np.array_equal(c, labels[v]) for v, c, _ in batches)  # (each value with its own class)
    assert 0.35 < got_classes.mean() < 0.65  # (the rare class now half of the batches; 300 seeded draws)
    assert all(np.all(e % 2 == 0) for _, _, e in batches)
    with pytest.raises(ValueError, match="labels must have only a batch dimension"):
        tf.contrib.training.stratified_sample([tf.zeros([1, 3])], tf.zeros([1, 1], tf.int32), [0.5, 0.5], 4,
                                              [0.5, 0.5], enqueue_many=True)
