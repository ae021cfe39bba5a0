"""tf.data as TF1 programs use it: datasets built in the graph, read by iterator ops."""

import os

import numpy as np
import pytest

import distflow as tf


def drain(sess, element, limit=1000):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(element))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("the iterator did not end")


def test_slices_map_filter_batch_in_order_then_out_of_range():
    x = np.arange(10, dtype=np.float32)
    y = np.arange(10) % 3
    ds = (tf.data.Dataset.from_tensor_slices((x, y))
          .map(lambda a, b: (a * 2, tf.one_hot(b, 3)))
          .filter(lambda a, b: a > 2)
          .batch(3))
    assert ds.output_types == (tf.float32, tf.float32)
    assert [s.as_list() for s in ds.output_shapes] == [[None], [None, 3]]
    element = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        batches = drain(sess, element)
    kept = x[x * 2 > 2]
    want = [(kept[i:i + 3] * 2, np.eye(3, dtype=np.float32)[y[x * 2 > 2][i:i + 3]]) for i in range(0, 8, 3)]
    assert len(batches) == len(want)
    for (a, b), (wa, wb) in zip(batches, want):
        np.testing.assert_array_equal(a, wa)
        np.testing.assert_array_equal(b, wb)


def test_initializable_iterator_reads_a_fed_placeholder_and_restarts():
    p = tf.placeholder(tf.int64, [None])
    ds = tf.data.Dataset.from_tensor_slices(p).batch(2, drop_remainder=True)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    assert nxt.shape.as_list() == [2]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
            sess.run(nxt)
        sess.run(it.initializer, {p: np.arange(5)})
        assert [b.tolist() for b in drain(sess, nxt)] == [[0, 1], [2, 3]]
        sess.run(it.initializer, {p: np.arange(10, 13)})
        assert [b.tolist() for b in drain(sess, nxt)] == [[10, 11]]


def test_one_shot_iterator_refuses_a_fed_dataset():
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="make_initializable_iterator"):
        tf.data.Dataset.from_tensor_slices(p).make_one_shot_iterator()


def test_shuffle_is_a_permutation_seeded_and_reshuffled_each_epoch():
    def epochs(seed, reshuffle):
        tf.reset_default_graph()
        ds = tf.data.Dataset.range(20).shuffle(8, seed=seed, reshuffle_each_iteration=reshuffle).repeat(3)
        element = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess:
            values = [int(v) for v in drain(sess, element)]
        return [values[i:i + 20] for i in range(0, 60, 20)]

    a = epochs(7, True)
    assert all(sorted(e) == list(range(20)) for e in a)
    assert a[0] != list(range(20)) and a[0] != a[1]
    assert epochs(7, True) == a  # the seed fixes every epoch's order
    fixed = epochs(7, False)
    assert fixed[0] == fixed[1] == fixed[2]


def test_shuffle_buffer_of_one_keeps_the_order():
    ds = tf.data.Dataset.range(6).shuffle(1, seed=1)
    element = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [int(v) for v in drain(sess, element)] == list(range(6))


def test_zip_range_take_skip_and_reinitializable_iterator():
    numbers = tf.data.Dataset.range(1, 10, 2)
    squares = numbers.map(lambda v: v * v)
    pairs = tf.data.Dataset.zip((numbers, squares)).skip(1).take(2)
    it = tf.data.Iterator.from_structure(pairs.output_types, pairs.output_shapes)
    nxt = it.get_next()
    other = tf.data.Dataset.zip((tf.data.Dataset.range(2), tf.data.Dataset.range(2)))
    with tf.Session() as sess:
        sess.run(it.make_initializer(pairs))
        assert [tuple(map(int, v)) for v in drain(sess, nxt)] == [(3, 9), (5, 25)]
        sess.run(it.make_initializer(other))
        assert [tuple(map(int, v)) for v in drain(sess, nxt)] == [(0, 0), (1, 1)]
    with pytest.raises(TypeError, match="output types"):
        it.make_initializer(tf.data.Dataset.range(3))


def test_dict_elements_and_from_generator():
    def gen():
        for i in range(3):
            yield {"a": i, "b": [i, -i]}

    ds = tf.data.Dataset.from_generator(gen, {"a": tf.int32, "b": tf.int64}, {"a": [], "b": [2]}).batch(2)
    element = ds.make_one_shot_iterator().get_next()
    assert set(element) == {"a", "b"} and element["b"].dtype == tf.int64
    with tf.Session() as sess:
        first, second = drain(sess, element)
    assert first["a"].tolist() == [0, 1] and first["b"].tolist() == [[0, 0], [1, -1]]
    assert second["a"].tolist() == [2]


def test_from_generator_gets_its_args_as_tf_hands_them_over():
    # as TF's py_func converts them: a scalar string as bytes, a scalar number as a NumPy
    # scalar, a list as an array (a program opens its file argument and counts)
    seen = []

    def gen(path, count, words):
        seen.append((type(path), type(count), words.tolist()))
        for i in range(int(count)):
            yield len(path) + i

    ds = tf.data.Dataset.from_generator(gen, tf.int64, [], args=("vocab.txt", 2, ["x", "y"]))
    with tf.Session() as sess:
        assert drain(sess, ds.make_one_shot_iterator().get_next()) == [9, 10]
    assert seen == [(bytes, np.int32, [b"x", b"y"])]


def test_feedable_iterator_switches_between_training_and_validation():
    train = tf.data.Dataset.range(100).repeat()
    valid = tf.data.Dataset.range(1000, 1003)
    handle = tf.placeholder(tf.string, [])
    it = tf.data.Iterator.from_string_handle(handle, train.output_types, train.output_shapes)
    nxt = it.get_next()
    train_it = train.make_one_shot_iterator()
    valid_it = valid.make_initializable_iterator()
    with tf.Session() as sess:
        th, vh = sess.run([train_it.string_handle(), valid_it.string_handle()])
        sess.run(valid_it.initializer)
        assert [sess.run(nxt, {handle: th}) for _ in range(2)] == [0, 1]
        assert [sess.run(nxt, {handle: vh}) for _ in range(3)] == [1000, 1001, 1002]
        assert sess.run(nxt, {handle: th}) == 2
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(nxt, {handle: vh})


def test_feeding_no_handle_is_an_error():
    handle = tf.placeholder(tf.string, [])
    it = tf.data.Iterator.from_string_handle(handle, tf.int64, [])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(it.get_next())
        with pytest.raises(tf.errors.InvalidArgumentError, match="not an iterator handle"):
            sess.run(it.get_next(), {handle: b"nothing"})


def test_a_map_function_error_names_the_function_and_the_op():
    ds = tf.data.Dataset.from_tensor_slices(np.array([1.0, -1.0], np.float32)).map(
        lambda v: tf.py_func(lambda a: np.sqrt(a) if a >= 0 else (_ for _ in ()).throw(ValueError("negative")),
                             [v], tf.float32))
    element = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        sess.run(element)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset.map.*negative"):
            sess.run(element)


def test_a_map_function_reads_the_programs_constant():
    outer = tf.constant(2.0)
    assert _elements(tf.data.Dataset.range(3).map(lambda v: tf.cast(v, tf.float32) * outer)) == [0.0, 2.0, 4.0]


def test_training_from_a_dataset_iterator_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16).repeat(2)
    xb, yb = ds.make_one_shot_iterator().get_next()
    w = tf.Variable(tf.zeros([3, 1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) - yb))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    w_np = np.zeros((3, 1), np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        steps = 0
        while True:
            try:
                sess.run(train)
            except tf.errors.OutOfRangeError:
                break
            b = steps % 4
            xs, ys = x[16 * b:16 * b + 16], y[16 * b:16 * b + 16]
            w_np = w_np - 0.1 * (2 / 16) * xs.T @ (xs @ w_np - ys)
            steps += 1
        assert steps == 8
        np.testing.assert_allclose(sess.run(w), w_np, rtol=1e-5)


def write_examples(path, n):
    with tf.python_io.TFRecordWriter(path) as writer:
        for i in range(n):
            example = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i, 2.0 * i])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 3])),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"item%d" % i]))}))
            writer.write(example.SerializeToString())


def test_tfrecord_dataset_of_examples_parsed_with_fixed_len_features(tmp_path):
    path = str(tmp_path / "data.tfrecord")
    write_examples(path, 5)
    spec = {"x": tf.FixedLenFeature([2], tf.float32), "label": tf.FixedLenFeature([], tf.int64),
            "name": tf.FixedLenFeature([], tf.string), "weight": tf.FixedLenFeature([], tf.float32, default_value=1.0)}
    dataset = tf.data.TFRecordDataset([path]).map(lambda record: tf.parse_single_example(record, spec)).batch(2)
    batch = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = drain(sess, batch)
    assert [b["label"].tolist() for b in got] == [[0, 1], [2, 0], [1]]
    assert got[1]["x"].tolist() == [[2.0, 4.0], [3.0, 6.0]]
    assert got[2]["name"].tolist() == [b"item4"] and got[0]["weight"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="FixedLenSequenceFeature in an Example needs allow_missing=True"):
        tf.parse_example(tf.constant([b""]), {"v": tf.FixedLenSequenceFeature([], tf.int64)})  # (as TF)
    missing = tf.parse_example(tf.constant([b""]), {"x": tf.FixedLenFeature([2], tf.float32)})
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="required"):
            sess.run(missing)


def test_text_line_and_fixed_length_record_datasets(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"first\nsecond\r\nlast")
    (tmp_path / "b.bin").write_bytes(b"HDR" + b"abcdefgh" + b"F")
    lines = tf.data.TextLineDataset(str(tmp_path / "a.txt")).make_one_shot_iterator().get_next()
    records = tf.data.FixedLengthRecordDataset([str(tmp_path / "b.bin")], 4, header_bytes=3, footer_bytes=1)
    record = records.make_one_shot_iterator().get_next()
    missing = tf.data.TextLineDataset(str(tmp_path / "nope.txt")).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert drain(sess, lines) == [b"first", b"second", b"last"]
        assert drain(sess, record) == [b"abcd", b"efgh"]
        with pytest.raises(tf.errors.NotFoundError):
            sess.run(missing)


# -- transformations TF 1.x pipelines applied: TensorFlow 2.21's elements for the same pipelines --

TF_ELEMENTS = {"bucket": [[[0, 0, 0, 0, 0], [2, 2, 2, 2, 2]], [[1, 0], [3, 3]], [[4, 4, 4, 4, 4, 4, 4], [6, 6, 6, 6, 6, 6, 0]], [[7, 7]], [[5, 5, 5, 5]]], "gbw": [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]], "interleave": [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5], "interleave3": [0, 0, 1, 0, 1, 0, 1, 2, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 4, 4, 5, 2, 3, 4, 5, 6], "padded": [[[[1, 1, -1], [-1, -1, -1]], [[2, 2, -1], [2, 2, -1]]], [[[3, 3, -1], [3, 3, -1], [3, 3, -1], [-1, -1, -1]], [[4, 4, -1], [4, 4, -1], [4, 4, -1], [4, 4, -1]]], [[[5, 5, -1], [5, 5, -1], [5, 5, -1], [5, 5, -1], [5, 5, -1]]]]}

def _elements(dataset) -> list:
    next_element = dataset.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                value = sess.run(next_element)
                out.append(np.asarray(value).tolist() if not isinstance(value, tuple) else value)
            except tf.errors.OutOfRangeError:
                return out


def _lengths_dataset():
    lengths = [3, 1, 5, 2, 7, 4, 6, 2]
    return tf.data.Dataset.from_tensor_slices(np.arange(8)).map(
        lambda i: tf.fill([tf.gather(tf.constant(lengths, tf.int64), i)], i))


def test_interleave_padded_batch_and_windows_give_tensorflows_elements():
    assert _elements(tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4)) == TF_ELEMENTS["interleave"]
    assert _elements(tf.data.Dataset.range(1, 8).interleave(
        lambda x: tf.data.Dataset.range(x), cycle_length=3, block_length=2)) == TF_ELEMENTS["interleave3"]
    assert _elements(tf.data.Dataset.range(1, 6).map(lambda x: tf.fill([x, 2], x)).padded_batch(
        2, padded_shapes=[None, 3], padding_values=tf.constant(-1, tf.int64))) == TF_ELEMENTS["padded"]
    assert _elements(tf.data.Dataset.range(10).apply(tf.data.experimental.group_by_window(
        lambda x: x % 3, lambda key, window: window.batch(2), window_size=2))) == TF_ELEMENTS["gbw"]
    assert _elements(_lengths_dataset().apply(tf.data.experimental.bucket_by_sequence_length(
        lambda x: tf.shape(x)[0], [3, 6], [2, 2, 2]))) == TF_ELEMENTS["bucket"]


def test_flat_map_unbatch_enumerate_and_the_fused_transformations():
    nested = tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.from_tensor_slices(tf.range(x) * 10 + x))
    assert _elements(nested) == [1, 2, 12, 3, 13, 23]
    pairs = _elements(tf.data.Dataset.from_tensors([[1, 2], [3, 4]]).apply(tf.data.experimental.unbatch())
                      .apply(tf.data.experimental.enumerate_dataset(5)))
    assert [(int(i), list(v)) for i, v in pairs] == [(5, [1, 2]), (6, [3, 4])]
    batched = _elements(tf.data.Dataset.range(7).apply(tf.data.experimental.map_and_batch(
        lambda x: x * 2, 3, drop_remainder=True)))
    assert batched == [[0, 2, 4], [6, 8, 10]]
    shuffled = _elements(tf.data.Dataset.range(5).apply(tf.data.experimental.shuffle_and_repeat(5, count=2, seed=3)))
    assert sorted(shuffled) == sorted(list(range(5)) * 2) and shuffled[:5] != shuffled[5:]  # (each pass anew)
    assert _elements(tf.data.Dataset.range(3).apply(tf.contrib.data.parallel_interleave(
        lambda x: tf.data.Dataset.range(2), cycle_length=2))) == [0, 0, 1, 1, 0, 1]
    assert _elements(tf.data.experimental.Counter(3, 2).take(3)) == [3, 5, 7]
    with pytest.raises(tf.errors.DataLossError, match="pad to a smaller size .* component 0 has shape \\[2\\]"):
        _elements(tf.data.Dataset.range(1, 3).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[1]))
    with pytest.raises(TypeError, match="must return a Dataset"):
        tf.data.Dataset.range(3).flat_map(lambda x: x)


def test_dataset_functions_capture_the_programs_tensors():
    """A constant, a placeholder (fed when the iterator is initialized) and, in a nested
    function, the outer function's argument, as TF 1.x's functions capture them."""
    mean = tf.constant([1.0, 2.0])
    scale = tf.placeholder(tf.float32, [])
    iterator = tf.data.Dataset.from_tensor_slices(np.arange(4, dtype=np.float32).reshape(2, 2)).map(
        lambda x: (x - mean) * scale).make_initializable_iterator()
    element = iterator.get_next()
    nested = tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x).map(lambda y: y * 10 + x))
    keep = tf.placeholder(tf.int64, [])
    filtered = tf.data.Dataset.range(6).filter(lambda x: tf.not_equal(x % 3, keep)).make_initializable_iterator()
    filtered_element = filtered.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer, {scale: 10.0})
        assert sess.run(element).tolist() == [-10.0, -10.0]
        sess.run(iterator.initializer, {scale: 1.0})  # (evaluated again at each initialization)
        assert sess.run(element).tolist() == [-1.0, -1.0]
        sess.run(filtered.initializer, {keep: 1})
        assert drain(sess, filtered_element) == [0, 2, 3, 5]
    assert _elements(nested) == [1, 2, 12, 3, 13, 23]


def test_batching_elements_of_different_shapes_names_the_component_and_the_element():
    ds = tf.data.Dataset.from_generator(lambda: iter([([1, 2], 0), ([1, 2], 1), ([3], 2)]),
                                        (tf.int64, tf.int64), ([None], [])).batch(3)
    element = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"different shapes in component 0. First element had shape \[2\] and element 2 had "
                                 r"shape \[1\]"):
            sess.run(element)


def _batches(ds):
    element = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return drain(sess, element)


def test_batches_of_slices_gather_the_rows_the_elements_would_give():
    # slices repeated and batched come as one take of rows; a map in between makes the same
    # batches element by element: both the same, remainder and structure included
    rows = {"x": np.arange(30, dtype=np.float32).reshape(10, 3), "name": np.array([b"r%d" % i for i in range(10)])}
    labels = np.arange(10, dtype=np.int64)
    for drop in (False, True):
        gathered = _batches(tf.data.Dataset.from_tensor_slices((rows, labels)).repeat(3).batch(7, drop))
        stacked = _batches(tf.data.Dataset.from_tensor_slices((rows, labels)).map(lambda r, y: (r, y)).repeat(3)
                           .batch(7, drop))
        assert len(gathered) == len(stacked) == (4 if drop else 5)
        for (g_rows, g_labels), (s_rows, s_labels) in zip(gathered, stacked):
            np.testing.assert_array_equal(g_labels, s_labels)
            np.testing.assert_array_equal(g_rows["x"], s_rows["x"])
            np.testing.assert_array_equal(g_rows["name"], s_rows["name"])
            assert g_rows["x"].dtype == np.float32 and g_labels.dtype == np.int64
        np.testing.assert_array_equal(np.concatenate([b[1] for b in gathered]),
                                      np.tile(np.arange(10), 3)[:28 if drop else 30])


def test_shuffled_batches_of_slices_keep_the_buffers_guarantees():
    # each epoch a permutation, reshuffled each epoch, fixed by the seed; with a buffer smaller
    # than the data, no row comes out before a buffer's length of rows after its own place
    def epochs(buffer_size, seed=5):
        tf.reset_default_graph()
        ds = tf.data.Dataset.from_tensor_slices(np.arange(50)).shuffle(buffer_size, seed=seed).repeat(3).batch(50)
        return [b.tolist() for b in _batches(ds)]

    a = epochs(64)
    assert len(a) == 3 and all(sorted(e) == list(range(50)) for e in a) and a[0] != a[1] != a[2]
    assert epochs(64) == a and epochs(64, seed=6) != a
    for e in epochs(8):
        assert sorted(e) == list(range(50)) and e != list(range(50))
        assert all(position >= row - 7 for position, row in enumerate(e))
    ds = tf.data.Dataset.from_tensor_slices(np.arange(6)).shuffle(1, seed=1).batch(4)
    assert [b.tolist() for b in _batches(ds)] == [[0, 1, 2, 3], [4, 5]]  # (a buffer of one keeps the order)


def test_a_batch_of_gathered_rows_is_a_copy_the_step_may_write_into():
    x = np.arange(6, dtype=np.float32)
    element = tf.data.Dataset.from_tensor_slices(x).repeat().batch(6).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        first = sess.run(element)
        first += 100  # (a fetched batch is the caller's)
        np.testing.assert_array_equal(sess.run(element), x)
    np.testing.assert_array_equal(x, np.arange(6))


def test_take_skip_and_cache_keep_batches_of_slices_gathered():
    x = np.arange(20, dtype=np.int64)

    def rows(ds):
        return [b.tolist() for b in _batches(ds)]

    def both(make):  # (gathered, and element by element behind a map)
        tf.reset_default_graph()
        gathered = rows(make(tf.data.Dataset.from_tensor_slices(x)).batch(6))
        stacked = rows(make(tf.data.Dataset.from_tensor_slices(x)).map(lambda v: v).batch(6))
        assert gathered == stacked
        return gathered

    assert both(lambda d: d.skip(3).take(10)) == [[3, 4, 5, 6, 7, 8], [9, 10, 11, 12]]
    assert both(lambda d: d.repeat(2).skip(15).take(-1)) == [[15, 16, 17, 18, 19, 0], [1, 2, 3, 4, 5, 6],
                                                            [7, 8, 9, 10, 11, 12], [13, 14, 15, 16, 17, 18], [19]]
    assert both(lambda d: d.take(0)) == [] and both(lambda d: d.skip(-1)) == []
    # a cache after a shuffle keeps the first pass's order for the later ones
    tf.reset_default_graph()
    epochs = rows(tf.data.Dataset.from_tensor_slices(x).shuffle(20, seed=2).cache().repeat(3).batch(20))
    assert len(epochs) == 3 and epochs[0] == epochs[1] == epochs[2] and sorted(epochs[0]) == list(range(20))
    assert epochs[0] != list(range(20))


# -- more of tf.data.experimental: batched features from files, cardinality, take_while, SQL, random --

def test_make_batched_features_dataset_reads_parses_and_splits_the_label(tmp_path):
    for part in range(2):
        write_examples(str(tmp_path / f"part-{part}.tfrecord"), 5)
    spec = {"x": tf.FixedLenFeature([2], tf.float32), "label": tf.FixedLenFeature([], tf.int64)}
    dataset = tf.data.experimental.make_batched_features_dataset(str(tmp_path / "part-*.tfrecord"), 4, spec,
                                                                 label_key="label", num_epochs=1, shuffle=False)
    features, label = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        batches = drain(sess, [features["x"], label])
    assert [len(lab) for _, lab in batches] == [4, 4, 2]  # (two files of 5, read in turn, the last batch short)
    labels = np.concatenate([lab for _, lab in batches])
    xs = np.concatenate([x for x, _ in batches])
    assert labels.tolist() == [i % 3 for i in range(5)] * 2 and xs[:, 1].tolist() == [2.0 * i for i in range(5)] * 2
    shuffled = tf.data.experimental.make_batched_features_dataset(str(tmp_path / "part-*.tfrecord"), 3, spec,
                                                                  num_epochs=2, shuffle_seed=1)
    parsed = shuffled.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        seen = np.concatenate([b["x"][:, 0] for b in drain(sess, parsed)])
    assert sorted(seen.tolist()) == sorted(list(range(5)) * 4)  # (every record of both files, twice)
    with pytest.raises(ValueError, match="must be one of the `features` keys"):
        tf.data.experimental.make_batched_features_dataset(str(tmp_path / "*"), 2, spec, label_key="y")


def test_cardinality_of_the_common_pipelines():
    D = tf.data.Dataset
    cases = {D.range(10): 10, D.range(10).batch(3): 4, D.range(10).batch(3, drop_remainder=True): 3,
             D.range(4).repeat(): tf.data.experimental.INFINITE_CARDINALITY, D.range(4).repeat(3): 12,
             D.range(4).repeat().take(7): 7, D.range(10).skip(3): 7, D.range(10).skip(-1): 0,
             D.range(10).filter(lambda x: x > 3): tf.data.experimental.UNKNOWN_CARDINALITY,
             D.zip((D.range(3), D.range(5).repeat())): 3, D.range(3).concatenate(D.range(2)): 5,
             D.from_tensor_slices(np.zeros((6, 2))).shuffle(3).map(lambda x: x * 2).prefetch(1): 6}
    with tf.Session() as sess:
        got = sess.run([tf.data.experimental.cardinality(d) for d in cases])
    assert got == list(cases.values())
    n = tf.placeholder(tf.int64, [])
    with tf.Session() as sess:  # (a count known only when the step runs)
        assert sess.run(tf.data.experimental.cardinality(D.range(n))) == tf.data.experimental.UNKNOWN_CARDINALITY


def test_take_while_stops_at_the_first_false():
    dataset = tf.data.Dataset.from_tensor_slices([1, 3, 5, 2, 7]).apply(
        tf.data.experimental.take_while(lambda x: tf.equal(x % 2, 1)))
    assert _elements(dataset) == [1, 3, 5]
    with pytest.raises(ValueError, match="scalar boolean"):
        tf.data.Dataset.range(3).apply(tf.data.experimental.take_while(lambda x: x))


def test_sql_dataset_reads_the_rows_of_a_query(tmp_path):
    import sqlite3

    path = str(tmp_path / "people.db")
    with sqlite3.connect(path) as db:
        db.execute("create table people (name text, age integer, score real)")
        db.executemany("insert into people values (?, ?, ?)", [("ann", 31, 1.5), ("bob", 27, 2.5)])
    dataset = tf.data.experimental.SqlDataset("sqlite", path, "select name, age, score from people order by age",
                                              (tf.string, tf.int32, tf.float64))
    assert _elements(dataset) == [(b"bob", 27, 2.5), (b"ann", 31, 1.5)]
    bad = tf.data.experimental.SqlDataset("sqlite", path, "select name from people", (tf.string, tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="gives 1 columns and output_types has 2"):
        _elements(bad)
    other = tf.data.experimental.SqlDataset("mysql", path, "select 1", (tf.int32,))
    with pytest.raises(tf.errors.InvalidArgumentError, match="mysql, is not supported"):
        _elements(other)


def test_random_dataset_repeats_with_its_seed():
    first = _elements(tf.data.experimental.RandomDataset(seed=7).take(4))
    assert first == _elements(tf.data.experimental.RandomDataset(seed=7).take(4))
    assert first != _elements(tf.data.experimental.RandomDataset(seed=8).take(4)) and len(set(first)) == 4


def test_get_next_as_optional_says_when_the_data_end():
    iterator = tf.data.Dataset.range(3).map(lambda x: (x, tf.fill([x + 1], 2.0))).make_initializable_iterator()
    optional = tf.data.experimental.get_next_as_optional(iterator)
    has, value = optional.has_value(), optional.get_value()
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        got = [sess.run([has, value]) for _ in range(3)]
        assert [(bool(h), int(v[0]), v[1].tolist()) for h, v in got] == [
            (True, 0, [2.0]), (True, 1, [2.0, 2.0]), (True, 2, [2.0, 2.0, 2.0])]
        assert not sess.run(has)  # (the end: no OutOfRangeError)
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
            sess.run(value)
        none = tf.data.experimental.Optional.none_from_structure(iterator.element_spec)
        assert not sess.run(none.has_value())
        some = tf.data.experimental.Optional.from_value({"a": tf.constant(1)})
        assert sess.run([some.has_value(), some.get_value()]) == [True, {"a": 1}]


def test_tfrecord_writer_writes_a_datasets_elements_whole_or_not_at_all(tmp_path):
    path = str(tmp_path / "out.tfrecord")
    records = tf.data.Dataset.range(5).map(lambda x: tf.as_string(x * 10))
    write = tf.data.experimental.TFRecordWriter(path, "GZIP").write(records)
    failing = tf.data.Dataset.from_tensor_slices([b"1", b"x"]).map(  # (the second is no number)
        lambda s: tf.as_string(tf.strings.to_number(s)))
    broken = tf.data.experimental.TFRecordWriter(str(tmp_path / "broken.tfrecord")).write(failing)
    with tf.Session() as sess:
        sess.run(write)
        assert [r for r in tf.python_io.tf_record_iterator(
            path, tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP))] == [
            b"0", b"10", b"20", b"30", b"40"]
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(broken)
    assert sorted(os.listdir(str(tmp_path))) == ["out.tfrecord"]  # (the failed pass left nothing)
    with pytest.raises(TypeError, match="scalar `DT_STRING`"):
        tf.data.experimental.TFRecordWriter(path).write(tf.data.Dataset.range(3))


def test_options_are_carried_merged_and_checked_as_tf_declares_them():
    base = tf.data.Dataset.range(6)
    options = tf.data.Options()
    # (TF 1.15's groups exist as soon as they are read, as the model garden's pipelines set them)
    options.experimental_threading.max_intra_op_parallelism = 1
    options.experimental_optimization.map_parallelization = True
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    with_options = base.with_options(options)
    assert with_options is not base and base.options() == tf.data.Options()  # (a new dataset)
    slack = tf.data.Options()
    slack.experimental_slack = True
    ds = with_options.map(lambda v: v * 2).prefetch(2).with_options(slack)
    got = ds.options()
    assert got.experimental_slack is True and got.threading.max_intra_op_parallelism == 1
    assert got.experimental_optimization.map_parallelization is True
    assert got.experimental_distribute.auto_shard is True  # (a default)
    assert tf.data.Dataset.zip((with_options, base)).options().experimental_threading.max_intra_op_parallelism == 1
    conflicting = tf.data.Options()
    conflicting.experimental_threading.max_intra_op_parallelism = 2
    with pytest.raises(ValueError, match="max_intra_op_parallelism"):
        ds.with_options(conflicting)
    with pytest.raises(AttributeError, match="Cannot set the property threads"):
        options.threads = 2
    with pytest.raises(TypeError, match="private_threadpool_size.*int"):
        options.experimental_threading.private_threadpool_size = "4"
    assert tf.data.experimental.cardinality(ds).eval(session=tf.Session()) == 6
    element = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert drain(sess, element) == [0, 2, 4, 6, 8, 10]
