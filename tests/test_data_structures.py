"""tf.data elements beyond dense tensors: SparseTensor components (parse_example's
VarLenFeatures, batched as TensorFlow batches them) and namedtuples; and arguments known only
when the iterator starts (padded shapes, a shuffle's seed, a reader's compression)."""

import collections
import gzip

import numpy as np
import pytest

import distflow as tf
from test_data import drain


def _example(values, label):
    feature = {"ids": tf.train.Feature(int64_list=tf.train.Int64List(value=values)),
               "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))}
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def test_var_len_features_parsed_in_a_map_are_batched_as_sparse_tensors():
    rows = [[4, 2], [], [7, 7, 1]]
    records = [_example(r, i) for i, r in enumerate(rows)]
    spec = {"ids": tf.VarLenFeature(tf.int64), "label": tf.FixedLenFeature([], tf.int64)}
    ds = tf.data.Dataset.from_tensor_slices(records).map(lambda s: tf.parse_single_example(s, spec)).batch(2)
    assert ds.output_classes == {"ids": tf.SparseTensor, "label": tf.Tensor}
    assert ds.output_types == {"ids": tf.int64, "label": tf.int64}
    assert ds.output_shapes["ids"].as_list() == [None, None]
    element = ds.make_one_shot_iterator().get_next()
    assert isinstance(element["ids"], tf.SparseTensor)
    dense = tf.sparse_tensor_to_dense(element["ids"], default_value=-1)
    with tf.Session() as sess:
        batches = drain(sess, {"ids": element["ids"], "dense": dense, "label": element["label"]})
    # (the oracle: each batch's rows, padded with -1 to the longest, as TF's batching of sparse rows gives)
    for batch, first in zip(batches, (0, 2)):
        part = rows[first:first + 2]
        width = max(len(r) for r in part)
        want = np.array([r + [-1] * (width - len(r)) for r in part]).reshape(len(part), width)
        np.testing.assert_array_equal(batch["dense"], want)
        assert batch["ids"].dense_shape.tolist() == [len(part), width]
        assert batch["ids"].indices.tolist() == [[i, j] for i, r in enumerate(part) for j in range(len(r))]
        np.testing.assert_array_equal(batch["label"], np.arange(first, first + len(part)))


def test_sparse_components_slice_unbatch_and_reach_functions_as_sparse_tensors():
    sparse = tf.SparseTensorValue(np.array([[0, 1], [2, 0], [2, 2]]), np.array([1.5, 2.5, 3.5], np.float32),
                                  np.array([3, 4]))
    dense = np.arange(3)
    ds = tf.data.Dataset.from_tensor_slices((sparse, dense)).map(
        lambda s, d: (s, tf.sparse_reduce_sum(s) + tf.cast(d, tf.float32)))
    assert ds.output_shapes[0].as_list() == [4]
    rows = tf.data.Dataset.from_sparse_tensor_slices(sparse).batch(3).apply(tf.data.experimental.unbatch())
    with tf.Session() as sess:
        got = drain(sess, ds.make_one_shot_iterator().get_next())
        again = drain(sess, rows.make_one_shot_iterator().get_next())
    full = np.zeros((3, 4), np.float32)
    full[[0, 2, 2], [1, 0, 2]] = [1.5, 2.5, 3.5]
    for i, (row, total) in enumerate(got):
        want = np.zeros(4, np.float32)
        want[row.indices[:, 0]] = row.values
        np.testing.assert_array_equal(want, full[i])
        assert row.dense_shape.tolist() == [4] and total == full[i].sum() + i
    for i, row in enumerate(again):
        assert row.indices[:, 0].tolist() == np.nonzero(full[i])[0].tolist() and row.dense_shape.tolist() == [4]
    with pytest.raises(TypeError, match="padded sparse"):
        ds.padded_batch(2)


def test_an_iterator_of_sparse_structure_is_made_from_output_classes():
    def dataset(values):
        return tf.data.Dataset.from_tensors(tf.SparseTensor([[0], [2]], values, [3]))

    iterator = tf.data.Iterator.from_structure(tf.int32, tf.TensorShape([3]), output_classes=tf.SparseTensor)
    element = iterator.get_next()
    assert isinstance(element, tf.SparseTensor)
    with tf.Session() as sess:
        sess.run(iterator.make_initializer(dataset(tf.constant([5, 6]))))
        got = sess.run(element)
    assert got.indices.tolist() == [[0], [2]] and got.values.tolist() == [5, 6]
    with pytest.raises(TypeError):
        iterator.make_initializer(tf.data.Dataset.from_tensors(tf.constant([1, 2, 3])))


def test_namedtuple_elements_stay_namedtuples_and_reach_functions_whole():
    Pair = collections.namedtuple("Pair", ["a", "b"])
    ds = tf.data.Dataset.from_tensor_slices(Pair(np.arange(3), np.arange(3) * 10)).map(lambda p: Pair(p.b, p.a))
    assert ds.output_types == Pair(tf.int64, tf.int64)
    element = ds.batch(3).make_one_shot_iterator().get_next()
    assert isinstance(element, Pair)
    with tf.Session() as sess:
        got = sess.run(element)
    assert isinstance(got, Pair) and got.a.tolist() == [0, 10, 20] and got.b.tolist() == [0, 1, 2]


def test_padded_shapes_fed_when_the_iterator_starts():
    lengths = tf.placeholder(tf.int32, [None])
    padded = tf.placeholder(tf.int64, [1])
    ds = tf.data.Dataset.from_tensor_slices(lengths).map(lambda n: tf.fill([n], n)).padded_batch(2, padded)
    assert ds.output_shapes.as_list() == [None, None]
    iterator = ds.make_initializable_iterator()
    element = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer, {lengths: [1, 3, 2], padded: [-1]})
        longest = drain(sess, element)
        sess.run(iterator.initializer, {lengths: [1, 3, 2], padded: [5]})
        fixed = drain(sess, element)
        sess.run(iterator.initializer, {lengths: [1, 3, 2], padded: [2]})
        with pytest.raises(tf.errors.DataLossError, match="component 0 has shape \\[3\\], its padded shape is \\[2\\]"):
            sess.run(element)

    def rows(ns, width):
        return np.array([[n] * n + [0] * (width - n) for n in ns])

    np.testing.assert_array_equal(longest[0], rows([1, 3], 3))
    np.testing.assert_array_equal(longest[1], rows([2], 2))
    np.testing.assert_array_equal(fixed[0], rows([1, 3], 5))
    np.testing.assert_array_equal(fixed[1], rows([2], 5))


def test_a_dataset_function_that_updates_a_variable_is_refused_clearly():
    counter = tf.get_variable("counter", (), tf.int32)
    with pytest.raises(ValueError, match="updates the variable 'counter' \\(AssignAdd\\)"):
        tf.data.Dataset.range(3).map(lambda _: tf.assign_add(counter, 1))


def test_a_shuffles_seed_and_a_readers_compression_fed_when_the_iterator_starts(tmp_path):
    seed = tf.placeholder(tf.int64, [])
    shuffled = tf.data.Dataset.range(20).shuffle(20, seed=seed).make_initializable_iterator()
    lines = ["alpha", "beta", "gamma"]
    with gzip.open(tmp_path / "a.txt.gz", "wt") as f:
        f.write("\n".join(lines) + "\n")
    compression = tf.placeholder_with_default("", [])
    text = tf.data.TextLineDataset(str(tmp_path / "a.txt.gz"), compression_type=compression)
    text_iterator = text.make_initializable_iterator()
    with tf.Session() as sess:
        orders = []
        for value in (7, 7, 8):
            sess.run(shuffled.initializer, {seed: value})
            orders.append(drain(sess, shuffled.get_next()))
        sess.run(text_iterator.initializer, {compression: "GZIP"})
        got = drain(sess, text_iterator.get_next())
        sess.run(text_iterator.initializer, {compression: "BZIP"})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown compression type 'BZIP'"):
            sess.run(text_iterator.get_next())
    assert orders[0] == orders[1] and orders[0] != orders[2]
    assert sorted(orders[2]) == list(range(20))
    assert got == [line.encode() for line in lines]


def test_a_fixed_length_record_file_that_is_not_whole_records_is_an_error(tmp_path):
    path = tmp_path / "records.bin"
    path.write_bytes(b"HEAD" + bytes(range(10)) + b"FT")
    records = tf.data.FixedLengthRecordDataset(str(path), 4, header_bytes=4, footer_bytes=2)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="body length 10 bytes, which is not an exact "
                                                                 "multiple of the record length \\(4 bytes\\)"):
            sess.run(records.make_one_shot_iterator().get_next())
        path.write_bytes(b"HEAD" + bytes(range(8)) + b"FT")
        assert drain(sess, tf.data.FixedLengthRecordDataset(str(path), 4, 4, 2).make_one_shot_iterator()
                     .get_next()) == [bytes(range(4)), bytes(range(4, 8))]


def test_a_one_shot_iterator_whose_values_fail_fails_every_read_and_handles_are_made_once():
    broken = tf.data.Dataset.from_tensors(tf.check_numerics(tf.constant(1.0) / tf.constant(0.0), "oops"))
    iterator = broken.make_one_shot_iterator()  # (made: the error is the reads')
    element = iterator.get_next()
    with tf.Session() as sess:
        for _ in range(2):
            with pytest.raises(tf.errors.InvalidArgumentError, match="oops"):
                sess.run(element)
    assert iterator.string_handle() is iterator.string_handle()
    named = iterator.string_handle(name="handle")
    assert named.op.name == "handle" and iterator.string_handle(name="handle").op.name == "handle_1"


def test_list_files_of_patterns_fed_when_the_iterator_starts(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text(name)
    pattern = tf.placeholder(tf.string, [None])
    ordered = tf.data.Dataset.list_files(pattern, shuffle=False).make_initializable_iterator()
    shuffled = tf.data.Dataset.list_files(pattern, seed=5).make_initializable_iterator()
    with tf.Session() as sess:
        sess.run([ordered.initializer, shuffled.initializer], {pattern: [str(tmp_path / "*.txt"),
                                                                        str(tmp_path / "c.*")]})
        names = drain(sess, ordered.get_next())
        mixed = drain(sess, shuffled.get_next())
        sess.run(ordered.initializer, {pattern: [str(tmp_path / "*.none")]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="to match at least one file"):
            sess.run(ordered.get_next())
    want = [str(tmp_path / n).encode() for n in ("a.txt", "b.txt", "c.csv")]
    assert names == want and sorted(mixed) == want


def test_dense_to_sparse_batch_keeps_every_value_of_ragged_elements():
    ds = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n)).apply(
        tf.contrib.data.dense_to_sparse_batch(3, [5]))
    assert ds.output_classes is tf.SparseTensor and ds.output_shapes.as_list() == [None, 5]
    with tf.Session() as sess:
        batches = drain(sess, ds.make_one_shot_iterator().get_next())
        too_long = tf.data.Dataset.range(7, 8).map(lambda n: tf.fill([n], n)).apply(
            tf.data.experimental.dense_to_sparse_batch(2, [5]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="shape \\[7\\] does not fit row_shape \\[5\\]"):
            sess.run(too_long.make_one_shot_iterator().get_next())
    for batch, ns in zip(batches, ([1, 2, 3], [4])):
        want = [[i, j] for i, n in enumerate(ns) for j in range(n)]
        assert batch.indices.tolist() == want and batch.values.tolist() == [n for n in ns for _ in range(n)]
        assert batch.dense_shape.tolist() == [len(ns), 5]


def test_arguments_wrong_whatever_the_elements_fail_the_initializer():
    size = tf.placeholder(tf.int64, [])
    pipelines = [tf.data.Dataset.range(4).batch(size),
                 tf.data.Dataset.range(4).map(lambda x: x + 1).prefetch(size - 3),
                 tf.data.Dataset.zip((tf.data.Dataset.range(4), tf.data.Dataset.range(4).shuffle(size))),
                 tf.data.Dataset.range(4).concatenate(tf.data.Dataset.range(2).shard(size, 0))]
    iterators = [p.make_initializable_iterator() for p in pipelines]
    messages = ["Batch size must be greater than zero", "buffer_size must be >= 0",
                "buffer_size must be greater than zero", "index 0 is not in \\[0, 0\\)"]
    with tf.Session() as sess:
        for iterator, message in zip(iterators, messages):
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(iterator.initializer, {size: 0})  # (not the first get_next: TF builds the dataset here)
            sess.run(iterator.initializer, {size: 2})
            assert len(drain(sess, iterator.get_next())) > 0


def test_keras_probing_a_layers_output_shape_may_build_its_updates():
    # (Keras builds a layer in the same kind of scratch graph to learn its output shape; only a
    # dataset function's graph runs, so only there is an update refused)
    tf.keras.backend.set_learning_phase(1)
    try:
        layer = tf.keras.layers.BatchNormalization()
        layer(tf.keras.Input((10,)))
        assert layer.compute_output_shape((None, 10)).as_list() == [None, 10]
    finally:
        tf.keras.backend.clear_session()
