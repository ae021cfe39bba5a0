"""Dataset.window (read by flat_map and interleave), tf.data.experimental.scan, and one-shot
iterators over values computed from constants, against Python loops over the elements."""

import numpy as np
import pytest

import distflow as tf


def _elements(dataset, limit=100):
    nxt = tf.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tf.Session() as sess:
        for _ in range(limit):
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                return out
    raise AssertionError("the dataset did not end")


def _windows(n, size, shift, stride, drop):
    out, start = [], 0
    while start < n:
        window = list(range(start, n, stride))[:size]
        if len(window) == size or not drop:
            out.append(window)
        start += shift
    return [w for w in out if len(w) == size] if drop else out


@pytest.mark.parametrize("size,shift,stride,drop", [(3, 2, 1, True), (3, 2, 1, False), (3, None, 1, False),
                                                    (2, 1, 3, False), (2, 4, 1, False), (1, 3, 1, True),
                                                    (3, 1, 2, True), (4, 3, 2, False)])
def test_window_gives_each_window_as_a_dataset(size, shift, stride, drop):
    dataset = tf.data.Dataset.range(7).window(size, shift, stride, drop).flat_map(lambda w: w.batch(size))
    got = [e.tolist() for e in _elements(dataset)]
    assert got == _windows(7, size, size if shift is None else shift, stride, drop)


def test_windows_of_structures_and_interleaved_windows():
    pairs = tf.data.Dataset.zip((tf.data.Dataset.range(7), tf.data.Dataset.range(7).map(lambda x: x * 10)))
    zipped = pairs.window(3, 2).flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(3), b.batch(3))))
    got = [(a.tolist(), b.tolist()) for a, b in _elements(zipped)]
    assert got == [(w, [10 * x for x in w]) for w in _windows(7, 3, 2, 1, False)]
    keyed = tf.data.Dataset.range(5).map(lambda x: {"k": x}).window(2).flat_map(lambda d: d["k"].batch(2))
    assert [e.tolist() for e in _elements(keyed)] == [[0, 1], [2, 3], [4]]
    woven = tf.data.Dataset.range(8).window(3, 1).interleave(lambda w: w, cycle_length=2, block_length=2)
    # (TensorFlow 2.21's order: two windows open, two elements from each in turn)
    assert _elements(woven) == [0, 1, 1, 2, 2, 3, 2, 3, 3, 4, 4, 5, 4, 5, 5, 6, 6, 7, 6, 7, 7]
    with pytest.raises(tf.errors.InvalidArgumentError, match="flat_map or interleave"):
        _elements(tf.data.Dataset.range(4).window(2).map(lambda w: w))


def test_scan_carries_its_state():
    running = tf.data.Dataset.range(6).apply(tf.data.experimental.scan(tf.constant(0, tf.int64),
                                                                        lambda s, x: (s + x, s)))
    assert _elements(running) == [0, 0, 1, 3, 6, 10]
    pairs = tf.data.Dataset.zip((tf.data.Dataset.range(4), tf.data.Dataset.range(4)))
    nested = pairs.apply(tf.data.experimental.scan(
        (tf.constant(1, tf.int64), tf.constant(0.5)), lambda s, x: ((s[0] * 2, s[1] + 1.0), (x[0] + x[1] + s[0], s[1]))))
    got = _elements(nested)
    assert [int(a) for a, _ in got] == [2 * i + 2 ** i for i in range(4)]
    assert [float(b) for _, b in got] == [0.5, 1.5, 2.5, 3.5]
    with pytest.raises(TypeError, match="initial state"):
        tf.data.Dataset.range(3).apply(tf.data.experimental.scan(tf.constant(0, tf.int64),
                                                                 lambda s, x: (tf.cast(s, tf.float32), x)))


def test_a_one_shot_iterator_takes_values_computed_from_constants():
    v = tf.constant(np.arange(10))
    m = tf.constant(np.arange(12.0).reshape(6, 2))
    got = _elements(tf.data.Dataset.from_tensor_slices((m, v[:6] * 2)).batch(4))
    assert [(a.tolist(), b.tolist()) for a, b in got] == [(np.arange(8.0).reshape(4, 2).tolist(), [0, 2, 4, 6]),
                                                          ([[8.0, 9.0], [10.0, 11.0]], [8, 10])]
    with pytest.raises(ValueError, match="make_initializable_iterator"):
        tf.data.make_one_shot_iterator(tf.data.Dataset.from_tensor_slices(tf.placeholder(tf.float32, [3])))
    with pytest.raises(ValueError, match="make_initializable_iterator"):
        tf.data.make_one_shot_iterator(tf.data.Dataset.from_tensor_slices(tf.random_uniform([3])))


def test_choose_unique_ignore_errors_and_get_single_element():
    E = tf.data.experimental
    chosen = E.choose_from_datasets([tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)],
                                    tf.data.Dataset.from_tensor_slices(tf.constant([0, 1, 1, 0, 1], tf.int64)))
    assert _elements(chosen) == [0, 10, 11, 1, 12]
    uniques = tf.data.Dataset.from_tensor_slices(tf.constant([b"a", b"b", b"a", b"c"])).apply(E.unique())
    assert _elements(uniques) == [b"a", b"b", b"c"]
    checked = tf.data.Dataset.from_tensor_slices(tf.constant([1.0, 0.0, 2.0, 0.0, 4.0])).map(
        lambda x: tf.debugging.check_numerics(1.0 / x, "a zero"))
    assert _elements(checked.apply(E.ignore_errors())) == [1.0, 0.5, 0.25]
    with pytest.raises(tf.errors.InvalidArgumentError, match="a zero"):
        _elements(checked)
    single = E.get_single_element(tf.data.Dataset.from_tensors((tf.constant([1, 2]), tf.constant(3.0))))
    several = E.get_single_element(tf.data.Dataset.range(3))
    with tf.Session() as sess:
        got = sess.run(single)
        assert got[0].tolist() == [1, 2] and got[1] == 3.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="more than one"):
            sess.run(several)


def test_csv_datasets_read_as_pythons_csv_module_does(tmp_path):
    import csv

    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text('age,name,score,flag\n31,ann,1.5,1\n42,"bo, b",,0\n7,cy,2.25,1\n')
    b.write_text("age,name,score,flag\n99,dee,3,0\n")
    rows = [row for path in (a, b) for row in list(csv.reader(open(path, newline="")))[1:]]
    records = tf.data.experimental.CsvDataset([str(a), str(b)], [0, "", [9.0], 0], header=True)
    got = _elements(records)
    assert [(int(r[0]), r[1].decode(), float(r[2]), int(r[3])) for r in got] == [
        (int(r[0]), r[1], float(r[2] or 9.0), int(r[3])) for r in rows]
    batches = tf.data.experimental.make_csv_dataset([str(a), str(b)], 4, label_name="flag", shuffle=False,
                                                    num_epochs=1)
    (features, label), = _elements(batches)
    assert sorted(features) == ["age", "name", "score"] and label.tolist() == [int(r[3]) for r in rows]
    # (inferred as TF infers: ints int32, "1.5" and "" float32, text string; "" takes the default 0)
    assert features["age"].dtype == np.int32 and features["score"].dtype == np.float32
    assert features["score"].tolist() == [1.5, 0.0, 2.25, 3.0]
    assert [n.decode() for n in features["name"]] == [r[1] for r in rows]


def test_group_by_reducer_and_sample_from_datasets():
    E = tf.data.experimental
    summed = tf.data.Dataset.range(10).apply(E.group_by_reducer(
        lambda x: x % 3, E.Reducer(lambda k: tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: s * 10)))
    assert _elements(summed) == [10 * sum(range(k, 10, 3)) for k in range(3)]  # (smallest key first)
    keyed = tf.data.Dataset.from_tensor_slices(tf.constant([5, 1, 8, 2], tf.int64)).apply(E.group_by_reducer(
        lambda x: 7 - x % 2, E.Reducer(lambda k: (k, tf.constant(0.0)),
                                       lambda s, x: (s[0], s[1] + tf.cast(x, tf.float32)),
                                       lambda key, total: {"key": key, "total": total})))
    assert [(int(e["key"]), float(e["total"])) for e in _elements(keyed)] == [(6, 6.0), (7, 10.0)]  # (5+1, 8+2)
    mixed = _elements(E.sample_from_datasets([tf.data.Dataset.range(3), tf.data.Dataset.range(10, 14)], seed=1))
    assert sorted(mixed) == [0, 1, 2, 10, 11, 12, 13]
    assert [x for x in mixed if x < 10] == [0, 1, 2] and [x for x in mixed if x >= 10] == [10, 11, 12, 13]
    only_first = E.sample_from_datasets([tf.data.Dataset.range(3), tf.data.Dataset.range(10, 14)], [1.0, 0.0])
    assert _elements(only_first) == [0, 1, 2]
