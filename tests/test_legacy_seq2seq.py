"""tf.contrib.legacy_seq2seq (the translation tutorial's models) and the contrib.rnn wrappers
they are built of: NumPy, written from the model's equations, is the oracle."""

import numpy as np
import pytest

import distflow as tf

seq2seq = tf.contrib.legacy_seq2seq


def _values(sess, scope):
    return {v.name[len(scope) + 1:-2]: sess.run(v) for v in tf.global_variables() if v.name.startswith(scope + "/")}


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_attention_decoder_reads_the_attention_states_as_its_equations_say():
    rng = np.random.default_rng(5)
    inputs = [rng.standard_normal((2, 2)) for _ in range(3)]
    states = rng.standard_normal((2, 4, 3))
    start = rng.standard_normal((2, 3))
    cell = tf.nn.rnn_cell.BasicRNNCell(3)
    outputs, final = seq2seq.attention_decoder([tf.constant(x) for x in inputs], tf.constant(start),
                                               tf.constant(states), cell, output_size=5, dtype=tf.float64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_final = sess.run([outputs, final])
        w = _values(sess, "attention_decoder")

    features = states @ w["AttnW_0"][0, 0]

    def attention(query):
        y = query @ w["Attention_0/kernel"] + w["Attention_0/bias"]
        scores = (w["AttnV_0"] * np.tanh(features + y[:, None, :])).sum(-1)
        return (_softmax(scores)[:, :, None] * states).sum(1)

    h, read, want = start, np.zeros((2, 3)), []
    for x in inputs:
        joined = np.concatenate([x, read], 1) @ w["kernel"] + w["bias"]
        h = np.tanh(np.concatenate([joined, h], 1) @ w["basic_rnn_cell/kernel"] + w["basic_rnn_cell/bias"])
        read = attention(h)
        want.append(np.concatenate([h, read], 1) @ w["AttnOutputProjection/kernel"] + w["AttnOutputProjection/bias"])
    for g, x in zip(got, want):
        np.testing.assert_allclose(g, x, rtol=1e-10)
    np.testing.assert_allclose(got_final, h, rtol=1e-10)


def test_the_wrappers_embed_and_project_with_tensorflows_variable_names():
    rng = np.random.default_rng(6)
    ids = np.array([1, 4])
    cell = tf.contrib.rnn.OutputProjectionWrapper(
        tf.contrib.rnn.EmbeddingWrapper(tf.nn.rnn_cell.BasicRNNCell(3), 5, 2), 4)
    state = tf.constant(rng.standard_normal((2, 3)), tf.float32)
    output, new_state = cell(tf.constant(ids), state)
    projected = tf.contrib.rnn.InputProjectionWrapper(tf.nn.rnn_cell.BasicRNNCell(3), 2)
    projected_output, _ = projected(tf.ones([2, 6]), state)
    names = sorted(v.name for v in tf.global_variables())
    assert names == ["input_projection_wrapper/basic_rnn_cell/bias:0",
                     "input_projection_wrapper/basic_rnn_cell/kernel:0", "input_projection_wrapper/kernel:0",
                     "output_projection_wrapper/bias:0",
                     "output_projection_wrapper/embedding_wrapper/basic_rnn_cell/bias:0",
                     "output_projection_wrapper/embedding_wrapper/basic_rnn_cell/kernel:0",
                     "output_projection_wrapper/embedding_wrapper/embedding:0", "output_projection_wrapper/kernel:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_state, start = sess.run([output, new_state, state])
        w = _values(sess, "output_projection_wrapper")
        assert sess.run(projected_output).shape == (2, 3)
    h = np.tanh(np.concatenate([w["embedding_wrapper/embedding"][ids], start], 1)
                @ w["embedding_wrapper/basic_rnn_cell/kernel"] + w["embedding_wrapper/basic_rnn_cell/bias"])
    np.testing.assert_allclose(got_state, h, rtol=1e-5)
    np.testing.assert_allclose(got, h @ w["kernel"] + w["bias"], rtol=1e-5)
    with pytest.raises(ValueError, match="must be > 0"):
        tf.contrib.rnn.EmbeddingWrapper(tf.nn.rnn_cell.BasicRNNCell(3), 0, 2)


def test_a_bucketed_attention_model_shares_its_variables_and_learns_to_copy():
    """The translation tutorial's model on a toy task: copy a sequence of symbols."""
    vocabulary, length, batch = 6, 3, 16
    buckets = [(2, 3), (3, 4)]
    encoder = [tf.placeholder(tf.int32, [None], name=f"encoder{i}") for i in range(3)]
    decoder = [tf.placeholder(tf.int32, [None], name=f"decoder{i}") for i in range(4)]
    weights = [tf.placeholder(tf.float32, [None], name=f"weight{i}") for i in range(4)]
    targets = decoder[1:] + [tf.zeros_like(decoder[0])]
    feed_previous = tf.placeholder(tf.bool, [])

    def model(enc, dec):
        return seq2seq.embedding_attention_seq2seq(enc, dec, tf.nn.rnn_cell.GRUCell(16), vocabulary, vocabulary, 8,
                                                   feed_previous=feed_previous)

    outputs, losses = seq2seq.model_with_buckets(encoder, decoder, targets, weights, buckets, model)
    assert [len(o) for o in outputs] == [3, 4] and len(losses) == 2
    assert len(tf.trainable_variables()) == 20  # (one set for both buckets and both ways of decoding)
    train = tf.train.AdamOptimizer(0.05).minimize(losses[1])
    rng = np.random.default_rng(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        history = []
        for _ in range(60):
            symbols = rng.integers(2, vocabulary, size=(batch, length))
            feed = {encoder[i]: symbols[:, i] for i in range(3)}
            feed.update({decoder[0]: np.ones(batch, np.int32), feed_previous: False})
            feed.update({decoder[i + 1]: symbols[:, i] for i in range(3)})
            feed.update({weights[i]: np.ones(batch) if i < 3 else np.zeros(batch) for i in range(4)})
            history.append(sess.run([losses[1], train], feed)[0])
        feed[feed_previous] = True  # (decoding from its own guesses: the same variables)
        guessed = sess.run(outputs[1], feed)
    assert np.mean(history[-10:]) < 0.5 * np.mean(history[:5])
    assert np.mean(np.argmax(np.stack(guessed[:3], 1), -1) == symbols) > 0.5


def test_the_other_models_build_and_check_their_arguments():
    enc = [tf.placeholder(tf.int32, [None]) for _ in range(2)]
    dec = [tf.placeholder(tf.int32, [None]) for _ in range(2)]
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    out, state = seq2seq.embedding_rnn_seq2seq(enc, dec, cell, 5, 7, 3, feed_previous=True)
    assert [o.shape.as_list() for o in out] == [[None, 7], [None, 7]]
    assert isinstance(state, tf.nn.rnn_cell.LSTMStateTuple)
    tied, _ = seq2seq.embedding_tied_rnn_seq2seq(enc, dec, tf.nn.rnn_cell.GRUCell(4), 5, 3, num_decoder_symbols=9)
    assert tied[0].shape.as_list() == [None, 9]
    many, _ = seq2seq.one2many_rnn_seq2seq(enc, {"a": dec, "b": dec[:1]}, tf.nn.rnn_cell.GRUCell(4),
                                           {"a": tf.nn.rnn_cell.GRUCell(4), "b": tf.nn.rnn_cell.GRUCell(4)}, 5,
                                           {"a": 6, "b": 8}, 3)
    assert many["a"][1].shape.as_list() == [None, 6] and many["b"][0].shape.as_list() == [None, 8]
    dense = [tf.zeros([2, 3]) for _ in range(2)]
    basic, _ = seq2seq.basic_rnn_seq2seq(dense, dense, tf.nn.rnn_cell.GRUCell(4))
    assert basic[1].shape.as_list() == [2, 4]
    with pytest.raises(ValueError, match="Must provide at least 1 input"):
        seq2seq.attention_decoder([], tf.zeros([2, 4]), tf.zeros([2, 3, 4]), cell)
    with pytest.raises(ValueError, match="must be at least that of last bucket"):
        seq2seq.model_with_buckets(enc, dec, dec, dec, [(3, 2)], lambda e, d: (d, None))
