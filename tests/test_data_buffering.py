"""Dataset.prefetch (a producing thread ahead of the consumer) and Dataset.cache (in memory,
or in a file that later runs read)."""

import os
import threading

import numpy as np
import pytest

import distflow as tf
from test_data import drain

WAIT = 60  # seconds: a bound on every wait, never a duration the test relies on


def _counted(values, calls, fail_at=None):
    """A dataset of ``values`` doubled by a py_func that records each call (and fails at ``fail_at``)."""
    def double(x):
        calls.append(int(x))
        if int(x) == fail_at:
            raise ValueError(f"element {int(x)} is bad")
        return x * 2

    return tf.data.Dataset.from_tensor_slices(np.array(values, np.int64)).map(
        lambda x: tf.py_func(double, [x], tf.int64))


def test_prefetch_gives_the_elements_and_errors_in_order_and_runs_ahead():
    calls = []
    ran_ahead = threading.Event()

    def produce(x):
        calls.append(int(x))
        if int(x) == 3:  # (made only if the producer runs ahead of a consumer still at element 0)
            ran_ahead.set()
        return x

    ds = tf.data.Dataset.range(6).map(lambda x: tf.py_func(produce, [x], tf.int64)).prefetch(4)
    iterator = ds.make_initializable_iterator()
    element = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        assert sess.run(element) == 0
        assert ran_ahead.wait(WAIT)  # (the thread made elements 1-3 while nobody asked for them)
        assert drain(sess, element) == [1, 2, 3, 4, 5]
        calls.clear()
        broken = _counted(range(5), calls, fail_at=2).prefetch(2).make_one_shot_iterator().get_next()
        assert [sess.run(broken), sess.run(broken)] == [0, 2]
        with pytest.raises(tf.errors.InvalidArgumentError, match="element 2 is bad"):
            sess.run(broken)
        sess.run(iterator.initializer)
        assert drain(sess, element) == list(range(6))
        with pytest.raises(tf.errors.InvalidArgumentError, match="buffer_size must be >= 0"):
            sess.run(tf.data.Dataset.range(3).prefetch(-5).make_one_shot_iterator().get_next())
        assert drain(sess, tf.data.Dataset.range(3).prefetch(0).make_one_shot_iterator().get_next()) == [0, 1, 2]


def test_starting_an_iterator_again_stops_its_prefetching_thread():
    def threads():
        return [t for t in threading.enumerate() if t.name == "distflow-prefetch"]

    before = len(threads())
    ds = tf.data.Dataset.range(1000).prefetch(2)
    iterator = ds.make_initializable_iterator()
    element = iterator.get_next()
    with tf.Session() as sess:
        for _ in range(3):
            sess.run(iterator.initializer)
            assert sess.run(element) == 0  # (a producer waits, its queue full)
        assert len(threads()) <= before + 1
    for t in threads()[before:]:
        t.join(WAIT)


def test_cache_in_memory_computes_the_first_pass_only():
    calls = []
    ds = _counted([5, 6, 7], calls).cache().repeat(3)
    iterator = ds.make_initializable_iterator()
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        assert drain(sess, iterator.get_next()) == [10, 12, 14] * 3
        assert calls == [5, 6, 7]
        sess.run(iterator.initializer)  # (a new initialization: a new cache, as TF makes its dataset anew)
        assert drain(sess, iterator.get_next()) == [10, 12, 14] * 3
    assert calls == [5, 6, 7] * 2


def test_cache_in_a_file_is_read_by_later_runs_and_written_by_one_iterator_at_a_time(tmp_path):
    calls = []
    prefix = str(tmp_path / "cache")

    def read_all():
        with tf.Graph().as_default(), tf.Session() as sess:
            return drain(sess, _counted([1, 2, 3], calls).cache(prefix).make_one_shot_iterator().get_next())

    with tf.Graph().as_default(), tf.Session() as sess:  # (a pass left incomplete keeps no cache)
        partial = _counted([1, 2, 3], calls).cache(prefix).make_one_shot_iterator().get_next()
        assert sess.run(partial) == 2
        other = _counted([1, 2, 3], calls).cache(prefix).make_one_shot_iterator().get_next()
        with pytest.raises(tf.errors.AlreadyExistsError, match="cache lockfile already exists"):
            sess.run(other)
    assert not os.path.exists(prefix + ".distflow-cache")
    calls.clear()
    assert read_all() == [2, 4, 6] and calls == [1, 2, 3]
    assert read_all() == [2, 4, 6] and calls == [1, 2, 3]  # (read from the file: no call)
    assert sorted(os.listdir(tmp_path)) == ["cache.distflow-cache"]
    with tf.Graph().as_default(), tf.Session() as sess:
        wrong = tf.data.Dataset.from_tensors((np.int64(1), np.int64(2))).cache(prefix)
        with pytest.raises(tf.errors.DataLossError, match="a cache of another dataset"):
            sess.run(wrong.make_one_shot_iterator().get_next())


def test_a_saver_keeps_where_an_iterator_is_and_a_restore_goes_on_from_there(tmp_path):
    ds = tf.data.Dataset.range(12).shuffle(12, seed=3).map(lambda x: x * 2).prefetch(2)
    iterator = ds.make_initializable_iterator()
    one_shot = tf.data.Dataset.range(5).make_one_shot_iterator()
    element, other = iterator.get_next(), one_shot.get_next()
    for it in (iterator, one_shot):
        tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, tf.data.experimental.make_saveable_from_iterator(it))
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        first = [sess.run(element) for _ in range(4)]
        assert [sess.run(other) for _ in range(2)] == [0, 1]
        path = saver.save(sess, str(tmp_path / "ckpt"))
        rest = drain(sess, element)
    assert sorted(first + rest) == [2 * i for i in range(12)]
    assert dict(tf.train.list_variables(path)) == {"Iterator": [1], "OneShotIterator": [1]}
    with tf.Session() as sess:
        sess.run(iterator.initializer)  # (the pass to restore into: the initializer's dataset)
        saver.restore(sess, path)
        assert drain(sess, element) == rest
        assert drain(sess, other) == [2, 3, 4]
    with tf.Session() as sess:  # (constant inputs: a restore starts the initializer's dataset itself)
        saver.restore(sess, path)
        assert drain(sess, element) == rest
    with tf.Graph().as_default():
        fed = tf.placeholder(tf.int64, [])
        iterator = tf.data.Dataset.range(fed).make_initializable_iterator()
        saver = tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(iterator)])
        with tf.Session() as sess:
            sess.run(iterator.initializer, {fed: 4})
            sess.run(iterator.get_next())
            path = saver.save(sess, str(tmp_path / "fed"))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="run its initializer first"):
                saver.restore(sess, path)
            sess.run(iterator.initializer, {fed: 4})
            saver.restore(sess, path)
            assert drain(sess, iterator.get_next()) == [1, 2, 3]
