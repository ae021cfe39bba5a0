"""Lookup tables (tf.lookup, tf.contrib.lookup) against TensorFlow 2.21's results for the
same tables and keys, which the expected values below are."""

import numpy as np
import pytest

import distflow as tf


@pytest.fixture
def vocab_files(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("emerson\nlake\npalmer\n")
    kv = tmp_path / "kv.txt"
    kv.write_text("a\t10\nb\t20\nc\t30\n")
    return str(vocab), str(kv)


def test_static_tables_from_tensors_and_files_give_tensorflows_values(vocab_files):
    vocab, kv = vocab_files
    keys = tf.constant(["emerson", "lake", "palmer", "king", "crimson", "lake"])
    pairs = tf.lookup.KeyValueTensorInitializer(["emerson", "lake", "palmer"], tf.constant([0, 1, 2], tf.int64))
    t1 = tf.lookup.StaticHashTable(pairs, -1)
    t2 = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(["emerson", "lake", "palmer"], tf.constant([0, 1, 2], tf.int64)), 5)
    t3 = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
        vocab, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER), -7)
    t4 = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(kv, tf.string, 0, tf.int64, 1, delimiter="\t"), 0)
    ints = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([7, 8, 9], tf.int64), tf.constant([0, 1, 2], tf.int64)), 4)
    rev = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant([0, 1, 2], tf.int64), ["x", "y", "z"]), "UNK")
    sparse = t1.lookup(tf.SparseTensor([[0, 0], [1, 2]], ["lake", "nope"], [2, 3]))
    assert isinstance(sparse, tf.SparseTensor)
    fetches = {"t1": t1.lookup(keys), "t2": t2.lookup(keys), "t3": t3.lookup(keys),
               "t4": t4.lookup(tf.constant(["a", "c", "z"])),
               "ints": ints.lookup(tf.constant([[7, 100], [9, -3]], tf.int64)),
               "rev": rev.lookup(tf.constant([2, 0, 5], tf.int64)), "size1": t1.size(), "size2": t2.size(),
               "size3": t3.size(), "sparse": sparse.values}
    assert tf.get_default_graph().get_collection(tf.GraphKeys.TABLE_INITIALIZERS)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="not initialized"):
            sess.run(fetches["t1"])
        sess.run(tf.tables_initializer())
        got = sess.run(fetches)
        sess.run(tf.tables_initializer())  # (again: left as it is, as TensorFlow 2.x)
        assert sess.run(t1.size()) == 3
    assert got["t1"].tolist() == [0, 1, 2, -1, -1, 1] and got["t1"].dtype == np.int64
    assert got["t2"].tolist() == [0, 1, 2, 6, 7, 1]  # (king and crimson: Fingerprint64 buckets after the vocabulary)
    assert got["t3"].tolist() == [0, 1, 2, -7, -7, 1]
    assert got["t4"].tolist() == [10, 30, 0]
    assert got["ints"].tolist() == [[0, 6], [2, 6]]
    assert got["rev"].tolist() == [b"z", b"x", b"UNK"]
    assert (got["size1"], got["size2"], got["size3"]) == (3, 8, 3)
    assert got["sparse"].tolist() == [1, -1]


def test_contrib_constructors_give_tensorflows_values(vocab_files):
    vocab, _ = vocab_files
    lookup = tf.contrib.lookup
    names = tf.constant(["lake", "king", "x", "crimson"])
    fetches = [
        lookup.index_table_from_tensor(["emerson", "lake", "palmer"], num_oov_buckets=2).lookup(names),
        lookup.index_table_from_tensor(["emerson", "lake", "palmer"], num_oov_buckets=2,
                                       hasher_spec=lookup.StrongHashSpec((1, 2))).lookup(names),
        lookup.index_to_string_table_from_file(vocab).lookup(tf.constant([0, 2, 5], tf.int64)),
        lookup.index_table_from_file(vocab, num_oov_buckets=1).lookup(tf.constant(["palmer", "nope"])),
        lookup.index_table_from_tensor(tf.constant([7, 8], tf.int64), num_oov_buckets=3,
                                       dtype=tf.int64).lookup(tf.constant([8, 100], tf.int64)),
        lookup.index_table_from_file(vocab, vocab_size=2).lookup(tf.constant(["lake", "palmer"])),
        lookup.index_to_string_table_from_tensor(["x", "y"], default_value="?").lookup(tf.constant([1, 3], tf.int64)),
        lookup.index_table_from_tensor(["emerson", "lake", "palmer"], num_oov_buckets=2).size(),
        lookup.string_to_index(tf.constant(["palmer", "no"]), ["emerson", "lake", "palmer"]),
    ]
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        got = sess.run(fetches)
    assert [g.tolist() for g in got[:7]] == [
        [1, 3, 3, 3], [1, 4, 3, 3], [b"emerson", b"palmer", b"UNK"], [2, 3], [1, 2], [1, -1], [b"y", b"?"]]
    assert got[7] == 5 and got[8].tolist() == [2, -1]


def test_table_errors_say_what_was_expected(vocab_files, tmp_path):
    vocab, _ = vocab_files
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(["a"], tf.constant([1], tf.int64)), -1)
    with pytest.raises(TypeError, match="keys` must be tf.string, received: tf.int64"):
        table.lookup(tf.constant([1], tf.int64))
    with pytest.raises(ValueError, match="Can't specify both default_value and num_oov_buckets"):
        tf.contrib.lookup.index_table_from_tensor(["a"], num_oov_buckets=1, default_value=3)
    with pytest.raises(ValueError, match="oov_buckets must be > 0"):
        tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(["a"], tf.constant([0], tf.int64)), 0)
    with pytest.raises(ValueError, match="Signature mismatch"):
        tf.lookup.TextFileInitializer(vocab, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int32,
                                      tf.lookup.TextFileIndex.LINE_NUMBER)
    short = tf.contrib.lookup.index_table_from_file(vocab, vocab_size=5)
    missing = tf.contrib.lookup.index_table_from_file(str(tmp_path / "none.txt"))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid vocab_size .* expected 5 lines, the file "
                                                                 "has 3"):
            sess.run(short.initializer)
        with pytest.raises(tf.errors.NotFoundError, match="none.txt"):
            sess.run(missing.initializer)


def test_a_table_lives_on_its_device_and_serves_a_cluster(vocab_files):
    """Under a ps/worker device setter a table stays with the worker that made it (TensorFlow
    puts only mutable tables on the ps), and its lookups run there."""
    vocab, _ = vocab_files
    cluster = tf.train.ClusterSpec({"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]})
    with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")):
        table = tf.contrib.lookup.index_table_from_file(vocab)
        ids = table.lookup(tf.constant(["lake"]))
    assert table.resource_handle.device == ids.device == "/job:worker/task:0"
    assert table.initializer.device == "/job:worker/task:0"


def test_a_table_on_a_server_is_initialized_once_and_read_by_each_session(vocab_files):
    from cluster_util import LocalCluster

    vocab, _ = vocab_files
    cluster = LocalCluster({"worker": 1})
    try:
        with tf.device("/job:worker/task:0"):
            table = tf.contrib.lookup.index_table_from_file(vocab, num_oov_buckets=1)
            ids = table.lookup(tf.constant(["palmer", "nope", "emerson"]))
        with tf.Session(cluster.target("worker")) as sess:
            sess.run(tf.tables_initializer())
            assert sess.run(ids).tolist() == [2, 3, 0]
        with tf.Session(cluster.target("worker")) as sess:  # (the table is the server's: still there)
            assert sess.run(ids).tolist() == [2, 3, 0]
    finally:
        cluster.close()


def test_each_session_has_its_own_tables_as_in_tensorflow():
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], tf.constant([1], tf.int64)), -1)
    found = table.lookup(tf.constant(["a", "b"]))
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        assert sess.run(found).tolist() == [1, -1]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized: 'hash_table'"):
            sess.run(found)


def test_tables_in_dataset_functions_as_tf1s_nmt_input_pipeline(vocab_files):
    """TF 1.x's NMT tutorial looks words up in its vocabulary tables inside Dataset.map."""
    vocab, _ = vocab_files
    words_to_ids = tf.contrib.lookup.index_table_from_file(vocab, default_value=0)
    with_oov = tf.lookup.StaticVocabularyTable(
        tf.lookup.KeyValueTensorInitializer(["emerson", "lake"], tf.constant([0, 1], tf.int64)), 5)
    lines = tf.data.Dataset.from_tensor_slices(tf.constant(["lake palmer", "king emerson lake"]))
    words = lines.map(lambda line: tf.string_split([line]).values)
    ids = words.map(lambda w: (tf.cast(words_to_ids.lookup(w), tf.int32), with_oov.lookup(w), with_oov.size()))
    it = ids.make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run([tf.tables_initializer(), it.initializer])
        first, second = sess.run(nxt), sess.run(nxt)
    assert first[0].tolist() == [1, 2] and second[0].tolist() == [0, 0, 1] and first[0].dtype == np.int32
    assert first[1].tolist() == [1, 4] and second[1].tolist() == [5, 0, 1]  # (TensorFlow 2.21's buckets)
    assert first[2] == 7
    computed = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant(["a"]), tf.range(1, dtype=tf.int64) * 2), -1)
    with pytest.raises(ValueError, match="keys and values known when the graph is built"):
        lines.map(lambda line: computed.lookup(line))


def test_a_hash_table_exports_its_entries():
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["b", "a", "c"], [2, 1, 3]), -1)
    keys, values = table.export()
    assert keys.dtype == tf.string and values.dtype == tf.int32
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="not initialized"):
            sess.run(keys)
        sess.run(table.initializer)
        got_keys, got_values = sess.run([keys, values])
    assert dict(zip(got_keys.tolist(), got_values.tolist())) == {b"a": 1, b"b": 2, b"c": 3}


def test_a_mutable_hash_table_takes_inserts_and_removals_as_steps_run():
    table = tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, -1)
    insert = table.insert(tf.constant(["brain", "salad", "surgery", "brain"]), tf.constant([0, 1, 2, 3], tf.int64))
    found = table.lookup(tf.constant(["brain", "salad", "tank"]))
    assert found.shape.as_list() == [3]
    keys, values = table.export()
    with tf.Session() as sess:
        assert sess.run(table.size()) == 0
        sess.run(insert)  # (a key inserted twice keeps its last value)
        assert sess.run(table.size()) == 3 and sess.run(found).tolist() == [3, 1, -1]
        sess.run(table.remove(tf.constant(["salad", "nothing"])))
        got = dict(zip(*sess.run([keys, values])))
        assert got == {b"brain": 3, b"surgery": 2}
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected shape \\[2\\]"):
            sess.run(table.insert(tf.constant(["a", "b"]), tf.constant([1], tf.int64)))
    with pytest.raises(TypeError, match="`keys` must be"):
        table.lookup(tf.constant([1, 2], tf.int64))
    with pytest.raises(TypeError, match="`values` must be"):
        table.insert(tf.constant(["a"]), tf.constant([1.0]))


def test_mutable_tables_of_vectors_and_dense_tables():
    vectors = tf.contrib.lookup.MutableHashTable(tf.int64, tf.float32, [-1.0, -1.0])
    found = vectors.lookup(tf.constant([[1, 7]], tf.int64))
    assert found.shape.as_list() == [1, 2, 2]
    dense = tf.contrib.lookup.MutableDenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=[0, 3],
                                                     initial_num_buckets=8)
    pairs = dense.lookup(tf.constant([[0, 1], [1, 2], [0, 2]], tf.int64))
    assert pairs.shape.as_list() == [3]
    with tf.Session() as sess:
        sess.run(vectors.insert(tf.constant([1, 2], tf.int64), tf.constant([[1.0, 2.0], [3.0, 4.0]])))
        np.testing.assert_array_equal(sess.run(found), [[[1.0, 2.0], [-1.0, -1.0]]])
        sess.run(dense.insert(tf.constant([[0, 1], [1, 2], [1, 3]], tf.int64), tf.constant([10, 11, 12], tf.int64)))
        assert sess.run(pairs).tolist() == [10, 11, -1]
        with pytest.raises(tf.errors.InvalidArgumentError, match="empty_key"):
            sess.run(dense.insert(tf.constant([[0, 3]], tf.int64), tf.constant([1], tf.int64)))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected key shape"):
            sess.run(dense.lookup(tf.constant([1, 2], tf.int64)))
    with pytest.raises(ValueError, match="power of 2"):
        tf.contrib.lookup.MutableDenseHashTable(tf.int64, tf.int64, -1, empty_key=0, initial_num_buckets=12)


def test_a_saver_keeps_a_mutable_tables_entries(tmp_path):
    path = str(tmp_path / "model")
    with tf.Graph().as_default():
        table = tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, -1, name="t1")
        tf.Variable(10.0, name="v0")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(table.insert(tf.constant(["b", "c", "d"]), tf.constant([0, 1, 2], tf.int64)))
            tf.train.Saver().save(sess, path)
    assert sorted(tf.train.list_variables(path)) == [("t1-keys", [3]), ("t1-values", [3]), ("v0", [])]
    with tf.Graph().as_default():
        table = tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, -1, name="t1")
        tf.Variable(-1.0, name="v0")
        found = table.lookup(tf.constant(["a", "b", "c", "d", "e"]))
        with tf.Session() as sess:
            sess.run(table.insert(tf.constant(["a", "c"]), tf.constant([12, 24], tf.int64)))
            tf.train.Saver().restore(sess, path)  # (the checkpoint's entries replace the table's)
            assert sess.run(table.size()) == 3
            assert sess.run(found).tolist() == [-1, 0, 1, 2, -1]


def test_tables_check_their_initializers_when_the_graph_is_built():
    with pytest.raises(ValueError, match="keys and values must have one shape"):
        tf.lookup.KeyValueTensorInitializer(tf.constant(["a", "b", "c"]), tf.constant([0, 1, 2, 3], tf.int64))
    with pytest.raises(ValueError, match="Filename required"):
        tf.lookup.TextFileInitializer("", tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                      tf.lookup.TextFileIndex.LINE_NUMBER)
    with pytest.raises(ValueError, match="must be a string scalar"):
        tf.lookup.TextFileInitializer(tf.constant(["a.txt", "b.txt"]), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE,
                                      tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER)
    for dtype in (tf.bool, tf.float64):
        with pytest.raises(TypeError, match="Invalid key_dtype"):
            tf.contrib.lookup.IdTableWithHashBuckets(None, num_oov_buckets=5, key_dtype=dtype)
