"""tf.contrib.feature_column's sequence columns: sequence_input_layer against NumPy."""

import numpy as np
import pytest

import distflow as tf

sfc = tf.contrib.feature_column

# three examples of 2, 1 and 3 steps, and an empty fourth
IDS = ([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]], [1, 2, 0, 3, 3, 1], [4, 3])
NUMS = ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]] + [[2, i] for i in range(6)],
        np.arange(12, dtype=np.float32), [4, 6])


def sparse(spec, dtype):
    indices, values, shape = spec
    return tf.SparseTensor(indices, tf.constant(np.asarray(values), dtype), shape)


def dense_steps(spec, width, steps=3):
    """[batch, steps, width] of a [batch, steps * width] sparse spec, zeros where missing."""
    indices, values, shape = spec
    out = np.zeros((shape[0], shape[1]))
    for (b, i), v in zip(indices, values):
        out[b, i] = v
    return out[:, :steps * width].reshape(shape[0], steps, width)


def test_the_layer_is_each_steps_columns_side_by_side_with_each_examples_length():
    cat = sfc.sequence_categorical_column_with_identity("ids", 4)
    columns = [tf.feature_column.embedding_column(cat, 2), tf.feature_column.indicator_column(cat),
               sfc.sequence_numeric_column("nums", shape=(2,))]
    features = {"ids": sparse(IDS, tf.int64), "nums": sparse(NUMS, tf.float32)}
    layer, length = sfc.sequence_input_layer(features, columns)
    assert layer.shape.as_list() == [4, 3, 2 + 4 + 2]
    table_var = tf.global_variables()[0]
    assert table_var.op.name == "sequence_input_layer/ids_embedding/embedding_weights"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_length, table = sess.run([layer, length, table_var])
    assert got_length.tolist() == [2, 1, 3, 0]
    ids = dense_steps(IDS, 1)[..., 0].astype(int)
    present = dense_steps((IDS[0], np.ones(6), IDS[2]), 1)[..., 0] > 0
    embedded = np.where(present[..., None], table[ids], 0.0)
    one_hot = np.where(present[..., None], np.eye(4)[ids], 0.0)
    want = np.concatenate([embedded, one_hot, dense_steps(NUMS, 2)], -1)  # (columns sorted by name)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_recurrent_network_trains_its_embeddings_through_the_layer():
    cat = sfc.sequence_categorical_column_with_hash_bucket("words", 20)
    words = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant(["a", "b", "c"]), [2, 2])
    layer, length = sfc.sequence_input_layer({"words": words}, [tf.feature_column.embedding_column(cat, 3)])
    outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), layer, sequence_length=length, dtype=tf.float32)
    table = [v for v in tf.trainable_variables() if "embedding_weights" in v.op.name][0]
    grad = tf.gradients(tf.reduce_sum(outputs), table)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g = sess.run(tf.convert_to_tensor(grad))
    assert (np.abs(g).sum(1) > 0).sum() == 3  # the rows of the three words, no other


def test_context_goes_beside_every_step():
    sequence = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    context = tf.constant([[10.0], [20.0]])
    with tf.Session() as sess:
        got = sess.run(sfc.concatenate_context_input(context, sequence))
    assert got.shape == (2, 3, 3) and (got[0, :, 2] == 10).all() and (got[1, :, 2] == 20).all()
    with pytest.raises(ValueError, match="rank 3"):
        sfc.concatenate_context_input(context, tf.zeros([2, 3]))


def test_columns_that_are_not_sequences_and_lengths_that_differ_are_refused():
    plain = tf.feature_column.categorical_column_with_identity("ids", 4)
    features = {"ids": sparse(IDS, tf.int64)}
    with pytest.raises(ValueError, match="must be of type _SequenceCategoricalColumn"):
        sfc.sequence_input_layer(features, [tf.feature_column.embedding_column(plain, 2)])
    with pytest.raises(ValueError, match="must be sequence columns"):
        sfc.sequence_input_layer(features, [tf.feature_column.numeric_column("ids")])
    cat = sfc.sequence_categorical_column_with_identity("ids", 4)
    short = sfc.sequence_numeric_column("nums")  # one value a step: 4, 2 and 6 steps
    layer, _ = sfc.sequence_input_layer({"ids": sparse(IDS, tf.int64), "nums": sparse(NUMS, tf.float32)},
                                        [tf.feature_column.indicator_column(cat), short])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Difference in sequence lengths"):
            sess.run(layer)
    assert tf.feature_column.make_parse_example_spec([cat, short]) == {
        "ids": tf.VarLenFeature(tf.int64), "nums": tf.VarLenFeature(tf.float32)}


def _sequences(n, seed):
    """Sequences of 1-6 ids in [0, 4); half get a 4 somewhere, the label."""
    r = np.random.default_rng(seed)
    seqs = [r.integers(0, 4, r.integers(1, 7)) for _ in range(n)]
    for s in seqs[: n // 2]:
        s[r.integers(len(s))] = 4
    r.shuffle(seqs)
    indices = [[i, t] for i, s in enumerate(seqs) for t in range(len(s))]
    values = np.concatenate(seqs).astype(np.int64)
    labels = np.array([int(4 in s) for s in seqs])

    def input_fn():
        return {"ids": tf.SparseTensor(indices, tf.constant(values), [n, 6])}, tf.constant(labels)

    return input_fn


def test_the_rnn_classifier_learns_whether_a_sequence_holds_an_id(tmp_path):
    column = tf.feature_column.embedding_column(sfc.sequence_categorical_column_with_identity("ids", 5), 4)
    classifier = tf.contrib.estimator.RNNClassifier(sequence_feature_columns=[column], num_units=[16],
                                                    cell_type="lstm", optimizer=tf.train.AdamOptimizer(0.05),
                                                    model_dir=str(tmp_path), config=tf.estimator.RunConfig(
                                                        tf_random_seed=1))
    classifier.train(_sequences(200, 0), steps=120)
    assert classifier.evaluate(_sequences(200, 1), steps=1)["accuracy"] >= 0.9
    names = classifier.get_variable_names()
    assert "rnn/logits/dense/kernel" in names and "rnn/rnn/basic_lstm_cell/kernel" in names
    assert "rnn/sequence_input_layer/sequence_input_layer/ids_embedding/embedding_weights" in names
    with pytest.raises(ValueError, match="num_units and cell_type must not be specified"):
        tf.contrib.estimator.RNNClassifier([column], num_units=[4], rnn_cell_fn=lambda mode: None)
