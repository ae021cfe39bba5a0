"""tf.contrib.layers' functions over feature columns (input_from_feature_columns,
weighted_sum_from_feature_columns, the parsing spec, placeholders), bow_encoder and
embedding_lookup_unique, against NumPy."""

import numpy as np
import pytest

import distflow as tf

layers = tf.contrib.layers


def _columns():
    size = layers.real_valued_column("size", dimension=2)
    color = layers.sparse_column_with_keys("color", ["red", "green", "blue"])
    return size, color


def test_input_and_weighted_sum_from_feature_columns():
    size, color = _columns()
    with tf.Graph().as_default():
        features = {"size": tf.constant([[1.0, 2.0], [3.0, 4.0]]), "color": tf.constant([["green"], ["blue"]])}
        dense = layers.input_from_feature_columns(features, [size, layers.one_hot_column(color)])
        predictions, variables, bias = layers.weighted_sum_from_feature_columns(features, [size, color], 3)
        assert predictions.shape.as_list() == [2, 3] and set(variables) == {size, color}
        assert bias.name.startswith("weighted_sum_from_feature_columns/")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            weights = {c: sess.run(v[0]) for c, v in variables.items()}
            sess.run(tf.assign(bias, [0.5, -1.0, 2.0]))
            got_dense, got = sess.run([dense, predictions])
        np.testing.assert_allclose(got_dense, [[0, 1, 0, 1, 2], [0, 0, 1, 3, 4]])  # (columns sorted by name)
        expected = np.array([[1.0, 2.0], [3.0, 4.0]]) @ weights[size] + weights[color][[1, 2]] + [0.5, -1.0, 2.0]
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    with pytest.raises(ValueError, match="Duplicate feature column key"):
        layers.check_feature_columns([size, layers.real_valued_column("size")])


def test_columns_parse_examples_and_make_placeholders():
    size, color = _columns()
    spec = layers.create_feature_spec_for_parsing([size, color])
    assert spec["size"] == tf.FixedLenFeature((2,), tf.float32) and spec["color"] == tf.VarLenFeature(tf.string)
    example = tf.train.Example(features=tf.train.Features(feature={
        "size": tf.train.Feature(float_list=tf.train.FloatList(value=[1.5, 2.5])),
        "color": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"blue", b"red"]))}))
    with tf.Graph().as_default(), tf.Session() as sess:
        parsed = layers.parse_feature_columns_from_examples([example.SerializeToString()], [size, color])
        got = sess.run(parsed)
        np.testing.assert_allclose(got[size], [[1.5, 2.5]])
        assert got[color].values.tolist() == [2, 0]  # (the keys' ids)
        placeholders = layers.make_place_holder_tensors_for_base_features([size, color])
        assert placeholders["size"].shape.as_list() == [None, 2] and isinstance(placeholders["color"],
                                                                                tf.SparseTensor)
        inferred = layers.infer_real_valued_columns({"x": tf.zeros([4, 3]), "n": tf.zeros([4], tf.int64)})
        assert [(c.name, c.shape) for c in inferred] == [("n", (1,)), ("x", (3,))]


def test_bow_encoder_and_embedding_lookup_unique_against_numpy():
    ids = np.array([[1, 2, 0], [3, 3, 3], [0, 0, 0]])
    with tf.Graph().as_default(), tf.Session() as sess:
        sparse = layers.bow_encoder(ids, 4, 5, initializer=tf.random_normal_initializer(seed=1))
        dense = layers.bow_encoder(ids, 4, 5, sparse_lookup=False, scope="bow_encoder", reuse=True)
        unique = layers.embedding_lookup_unique(tf.trainable_variables()[0], ids)
        sess.run(tf.global_variables_initializer())
        table = sess.run(tf.trainable_variables()[0])
        got_sparse, got_dense, got_unique = sess.run([sparse, dense, unique])
    np.testing.assert_allclose(got_sparse, [table[[1, 2]].mean(0), table[3], table[0]], rtol=1e-6)
    np.testing.assert_allclose(got_dense, table[ids].mean(1), rtol=1e-6)
    np.testing.assert_array_equal(got_unique, table[ids])
    with pytest.raises(ValueError, match="vocab_size > 0"):
        layers.bow_encoder(ids, 0, 5)


def test_tf_1_0s_names_of_the_index_tables(tmp_path):
    vocabulary = tmp_path / "words.txt"
    vocabulary.write_text("a\nb\n")
    with tf.Graph().as_default(), tf.Session() as sess:
        from_tensor = tf.contrib.lookup.string_to_index_table_from_tensor(["a", "b"], default_value=7)
        from_file = tf.contrib.lookup.string_to_index_table_from_file(str(vocabulary), num_oov_buckets=1)
        sess.run(tf.tables_initializer())
        words = tf.constant(["b", "z", "a"])
        assert sess.run(from_tensor.lookup(words)).tolist() == [1, 7, 0]
        assert sess.run(from_file.lookup(words)).tolist() == [1, 2, 0]
