"""tf.contrib.rnn's own cells against their equations in NumPy, with TensorFlow's variable names."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(31)
B, T, D, N = 3, 5, 4, 6


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _values(names):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run({n: tf.get_default_graph().get_tensor_by_name(n + ":0") for n in names})


def _lstm_steps(x, w, b, forget_bias=1.0, peep=None, clip=None, lengths=None):
    """Block LSTM over [time, batch, depth]: outputs (zero past each length) and the last state."""
    c, h = np.zeros((x.shape[1], w.shape[1] // 4)), np.zeros((x.shape[1], w.shape[1] // 4))
    outs = []
    wci, wcf, wco = peep if peep is not None else (0, 0, 0)
    for t in range(x.shape[0]):
        i, j, f, o = np.split(np.concatenate([x[t], h], 1) @ w + b, 4, axis=1)
        new_c = np.tanh(j) * sigmoid(i + wci * c) + c * sigmoid(f + forget_bias + wcf * c)
        if clip is not None:
            new_c = np.clip(new_c, -clip, clip)
        new_h = sigmoid(o + wco * new_c) * np.tanh(new_c)
        if lengths is not None:
            live = (t < lengths)[:, None]
            new_c, new_h = np.where(live, new_c, c), np.where(live, new_h, h)
            outs.append(np.where(live, new_h, 0.0))
        else:
            outs.append(new_h)
        c, h = new_c, new_h
    return np.stack(outs), (c, h)


@pytest.mark.parametrize("peephole,clip", [(False, None), (True, 0.3)])
def test_lstm_block_cell_is_the_block_lstm_with_lstm_cells_names(peephole, clip):
    x = RNG.standard_normal((B, T, D))
    with tf.Graph().as_default():
        cell = tf.contrib.rnn.LSTMBlockCell(N, forget_bias=0.5, cell_clip=clip, use_peephole=peephole)
        out, state = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float64)
        names = ["rnn/lstm_cell/kernel", "rnn/lstm_cell/bias"] + (
            ["rnn/lstm_cell/w_i_diag", "rnn/lstm_cell/w_f_diag", "rnn/lstm_cell/w_o_diag"] if peephole else [])
        assert sorted(v.op.name for v in tf.global_variables()) == sorted(names)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_out, got_state, weights = sess.run([out, state, {n: n + ":0" for n in names}])
    peep = tuple(weights[f"rnn/lstm_cell/w_{g}_diag"] for g in "ifo") if peephole else None
    want_out, (c, h) = _lstm_steps(x.transpose(1, 0, 2), weights["rnn/lstm_cell/kernel"],
                                   weights["rnn/lstm_cell/bias"], 0.5, peep, clip)
    np.testing.assert_allclose(got_out, want_out.transpose(1, 0, 2), rtol=1e-10)
    np.testing.assert_allclose(got_state.c, c, rtol=1e-10)
    np.testing.assert_allclose(got_state.h, h, rtol=1e-10)


def test_the_fused_lstm_runs_a_time_major_sequence_and_stops_each_at_its_length():
    x, lengths = RNG.standard_normal((T, B, D)), np.array([5, 2, 0])
    with tf.Graph().as_default():
        cell = tf.contrib.rnn.LSTMBlockFusedCell(N)
        out, state = cell(tf.constant(x), dtype=tf.float64, sequence_length=tf.constant(lengths))
        listed, _ = cell(list(tf.unstack(tf.constant(x))), dtype=tf.float64)  # (its variables again)
        assert isinstance(listed, list) and len(listed) == T
        assert sorted(v.op.name for v in tf.global_variables()) == ["lstm_fused_cell/bias", "lstm_fused_cell/kernel"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_out, got_state, w, b = sess.run([out, state, "lstm_fused_cell/kernel:0", "lstm_fused_cell/bias:0"])
    want_out, (c, h) = _lstm_steps(x, w, b, lengths=lengths)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_state.c, c, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_state.h, h, rtol=1e-10, atol=1e-12)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="initial_state or dtype"):
        tf.contrib.rnn.LSTMBlockFusedCell(N)(tf.constant(x))


@pytest.mark.parametrize("cls,names", [
    ("GRUBlockCell", {"gate_k": "w_c", "gate_b": "b_ru", "cand_k": "w_ru", "cand_b": "b_c"}),
    ("GRUBlockCellV2", {"gate_k": "gates/kernel", "gate_b": "gates/bias", "cand_k": "candidate/kernel",
                        "cand_b": "candidate/bias"})])
def test_gru_block_cells_are_the_gru_with_their_own_variable_names(cls, names):
    x = RNG.standard_normal((B, T, D))
    with tf.Graph().as_default():
        out, state = tf.nn.dynamic_rnn(getattr(tf.contrib.rnn, cls)(N), tf.constant(x), dtype=tf.float64)
        full = {k: f"rnn/gru_cell/{v}" for k, v in names.items()}
        assert sorted(v.op.name for v in tf.global_variables()) == sorted(full.values())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_out, got_state, w = sess.run([out, state, {k: v + ":0" for k, v in full.items()}])
    assert w["gate_k"].shape == (D + N, 2 * N) and w["cand_k"].shape == (D + N, N)
    np.testing.assert_array_equal(w["gate_b"], 1.0)
    h = np.zeros((B, N))
    for t in range(T):
        r, u = np.split(sigmoid(np.concatenate([x[:, t], h], 1) @ w["gate_k"] + w["gate_b"]), 2, axis=1)
        cand = np.tanh(np.concatenate([x[:, t], r * h], 1) @ w["cand_k"] + w["cand_b"])
        h = u * h + (1 - u) * cand
        np.testing.assert_allclose(got_out[:, t], h, rtol=1e-10)
    np.testing.assert_allclose(got_state, h, rtol=1e-10)


@pytest.mark.parametrize("layer_norm", [True, False])
def test_layer_norm_basic_lstm_normalizes_each_gate_and_the_state(layer_norm):
    x = RNG.standard_normal((B, T, D))
    parts = ("input", "transform", "forget", "output", "state")
    with tf.Graph().as_default():
        cell = tf.contrib.rnn.LayerNormBasicLSTMCell(N, layer_norm=layer_norm, norm_gain=1.5, norm_shift=0.2)
        out, state = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float64)
        scope = "rnn/layer_norm_basic_lstm_cell/"
        names = [scope + "kernel"] + ([scope + f"{p}/{v}" for p in parts for v in ("gamma", "beta")]
                                      if layer_norm else [scope + "bias"])
        assert sorted(v.op.name for v in tf.global_variables()) == sorted(names)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_out, got_state, w = sess.run([out, state, {n: n + ":0" for n in names}])

    def norm(v, part):
        if not layer_norm:
            return v
        mean, var = v.mean(1, keepdims=True), v.var(1, keepdims=True)
        return (v - mean) / np.sqrt(var + 1e-12) * w[scope + part + "/gamma"] + w[scope + part + "/beta"]

    c, h = np.zeros((B, N)), np.zeros((B, N))
    for t in range(T):
        gates = np.concatenate([x[:, t], h], 1) @ w[scope + "kernel"] + (0 if layer_norm else w[scope + "bias"])
        i, j, f, o = (norm(g, p) for g, p in zip(np.split(gates, 4, axis=1), parts))
        c = norm(c * sigmoid(f + 1.0) + sigmoid(i) * np.tanh(j), "state")
        h = np.tanh(c) * sigmoid(o)
        np.testing.assert_allclose(got_out[:, t], h, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got_state.c, c, rtol=1e-9, atol=1e-12)


def test_stacked_bidirectional_rnns_feed_each_layer_both_directions_of_the_last():
    x, lengths = RNG.standard_normal((B, T, D)), np.array([5, 3, 1])
    init = tf.random_uniform_initializer(-0.5, 0.5, seed=4)
    with tf.Graph().as_default():
        with tf.variable_scope("", initializer=init):
            out, fw, bw = tf.contrib.rnn.stack_bidirectional_dynamic_rnn(
                [tf.nn.rnn_cell.GRUCell(N), tf.nn.rnn_cell.GRUCell(2)],
                [tf.nn.rnn_cell.GRUCell(N), tf.nn.rnn_cell.GRUCell(2)], tf.constant(x), dtype=tf.float64,
                sequence_length=lengths)
        kernels = sorted(v.op.name for v in tf.global_variables() if v.op.name.endswith("gates/kernel"))
        assert kernels == [f"stack_bidirectional_rnn/cell_{i}/bidirectional_rnn/{d}/gru_cell/gates/kernel"
                           for i in (0, 1) for d in ("bw", "fw")]
        assert len(fw) == len(bw) == 2 and out.shape.as_list() == [B, T, 4]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(out)
    with tf.Graph().as_default():  # (the same two layers written out)
        layer = tf.constant(x)
        with tf.variable_scope("stack_bidirectional_rnn", initializer=init):
            for i, units in enumerate((N, 2)):
                with tf.variable_scope(f"cell_{i}"):
                    pair, _ = tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.GRUCell(units),
                                                              tf.nn.rnn_cell.GRUCell(units), layer,
                                                              sequence_length=lengths, dtype=tf.float64)
                    layer = tf.concat(pair, 2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(layer)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="same depth"):
        tf.contrib.rnn.stack_bidirectional_dynamic_rnn([tf.nn.rnn_cell.GRUCell(2)],
                                                       [tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.GRUCell(2)],
                                                       tf.constant(x))


@pytest.mark.parametrize("make", [lambda: tf.nn.rnn_cell.LSTMCell(N, use_peepholes=True),
                                  lambda: tf.nn.rnn_cell.BasicRNNCell(N), lambda: tf.nn.rnn_cell.GRUCell(N)])
def test_a_cells_variables_take_the_dtype_of_its_inputs(make):
    with tf.Graph().as_default():
        tf.nn.dynamic_rnn(make(), tf.constant(RNG.standard_normal((B, T, D))), dtype=tf.float64)
        assert {v.dtype.base_dtype for v in tf.global_variables()} == {tf.float64}


def test_an_lstm_block_wrapper_masks_past_each_length_and_returns_each_last_state():
    class Summing(tf.contrib.rnn.LSTMBlockWrapper):
        """c_t = c_{t-1} + x_t and h_t = 2 c_t: a cell whose every step NumPy can say."""

        num_units = 2

        def _call_cell(self, inputs, initial_cell_state, initial_output, dtype, sequence_length):
            states = tf.cumsum(inputs, axis=0) + initial_cell_state
            return states, 2.0 * states

    x = np.arange(4 * 3 * 2, dtype=np.float64).reshape(4, 3, 2)
    c0 = np.ones((3, 2))
    with tf.Graph().as_default(), tf.Session() as sess:
        outputs, (c, h) = sess.run(Summing()(tf.constant(x), initial_state=(c0, np.zeros((3, 2))),
                                             sequence_length=[4, 1, 0]))
        states = np.cumsum(x, 0) + c0
        expected = 2 * states * (np.arange(4)[:, None] < np.array([4, 1, 0])[None, :])[..., None]
        np.testing.assert_allclose(outputs, expected)
        np.testing.assert_allclose(c, [states[3, 0], states[0, 1], c0[2]])
        np.testing.assert_allclose(h, [2 * states[3, 0], 2 * states[0, 1], [0.0, 0.0]])
        assert isinstance(tf.contrib.rnn.LSTMBlockFusedCell(3), tf.contrib.rnn.LSTMBlockWrapper)
