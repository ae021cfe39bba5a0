"""Recurrent cells and dynamic_rnn against NumPy written the obvious way; gradients by central differences."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(7)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_steps(x, kernel, bias, forget_bias=1.0, lengths=None):
    """[batch, time, depth] through TF 1.x's BasicLSTMCell equations."""
    batch, steps, _ = x.shape
    n = bias.shape[0] // 4
    c, h = np.zeros((batch, n)), np.zeros((batch, n))
    outputs = np.zeros((batch, steps, n))
    for t in range(steps):
        gates = np.concatenate([x[:, t], h], 1) @ kernel + bias
        i, j, f, o = np.split(gates, 4, axis=1)
        new_c = c * sigmoid(f + forget_bias) + sigmoid(i) * np.tanh(j)
        new_h = np.tanh(new_c) * sigmoid(o)
        live = np.ones(batch, bool) if lengths is None else t < lengths
        c = np.where(live[:, None], new_c, c)
        h = np.where(live[:, None], new_h, h)
        outputs[:, t] = np.where(live[:, None], new_h, 0.0)
    return outputs, c, h


def gru_steps(x, gate_kernel, gate_bias, cand_kernel, cand_bias):
    batch, steps, _ = x.shape
    h = np.zeros((batch, cand_bias.shape[0]))
    outputs = []
    for t in range(steps):
        r, u = np.split(sigmoid(np.concatenate([x[:, t], h], 1) @ gate_kernel + gate_bias), 2, axis=1)
        cand = np.tanh(np.concatenate([x[:, t], r * h], 1) @ cand_kernel + cand_bias)
        h = u * h + (1 - u) * cand
        outputs.append(h)
    return np.stack(outputs, 1), h


def test_dynamic_rnn_with_a_basic_lstm_cell_matches_numpy_and_tf1_names():
    x = RNG.standard_normal((3, 5, 4))
    cell = tf.nn.rnn_cell.BasicLSTMCell(6, dtype=tf.float64)
    outputs, state = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float64)
    assert isinstance(state, tf.nn.rnn_cell.LSTMStateTuple)
    assert outputs.shape.as_list() == [3, 5, 6]
    assert [v.op.name for v in tf.trainable_variables()] == ["rnn/basic_lstm_cell/kernel", "rnn/basic_lstm_cell/bias"]
    assert tf.trainable_variables()[0].shape.as_list() == [10, 24]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.trainable_variables()[1].assign(RNG.standard_normal(24) * 0.1))
        out, (c, h), kernel, bias = sess.run([outputs, state] + tf.trainable_variables())
    want, want_c, want_h = lstm_steps(x, kernel, bias)
    assert np.allclose(out, want) and np.allclose(c, want_c) and np.allclose(h, want_h)


def test_sequence_length_zeroes_finished_outputs_and_keeps_their_state():
    x = RNG.standard_normal((4, 6, 3))
    lengths = np.array([6, 2, 0, 4])
    cell = tf.nn.rnn_cell.BasicLSTMCell(5, dtype=tf.float64)
    outputs, state = tf.nn.dynamic_rnn(cell, tf.constant(x), sequence_length=lengths, dtype=tf.float64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, (c, h), kernel, bias = sess.run([outputs, state] + tf.trainable_variables())
    want, want_c, want_h = lstm_steps(x, kernel, bias, lengths=lengths)
    assert np.allclose(out, want) and np.allclose(c, want_c) and np.allclose(h, want_h)
    assert np.all(out[1, 2:] == 0.0) and np.all(h[2] == 0.0)


def test_raw_rnn_as_tensorflows_docs_write_it_is_dynamic_rnn():
    """The loop function of TF 1.x's raw_rnn documentation (dynamic_rnn written by hand),
    against NumPy; a loop state counts the steps, and the gradient reaches the inputs."""
    x = RNG.standard_normal((4, 6, 3))  # [batch, time, depth]
    lengths = np.array([6, 2, 1, 4])
    inputs = tf.constant(np.transpose(x, (1, 0, 2)))  # time-major, as the docs' loop reads it
    inputs_ta = tf.TensorArray(tf.float64, size=6).unstack(inputs)
    cell = tf.nn.rnn_cell.BasicLSTMCell(5, dtype=tf.float64)

    def loop_fn(time, cell_output, cell_state, loop_state):
        next_cell_state = cell.zero_state(4, tf.float64) if cell_output is None else cell_state
        elements_finished = time >= lengths
        next_input = tf.cond(tf.reduce_all(elements_finished), lambda: tf.zeros([4, 3], tf.float64),
                             lambda: inputs_ta.read(time))
        next_loop_state = tf.constant(0) if loop_state is None else loop_state + 1
        return elements_finished, next_input, next_cell_state, cell_output, next_loop_state

    outputs_ta, (c, h), steps = tf.nn.raw_rnn(cell, loop_fn)
    outputs = outputs_ta.stack()
    grad = tf.gradients(tf.reduce_sum(outputs * outputs), inputs)[0]
    assert [v.op.name for v in tf.trainable_variables()] == ["rnn/basic_lstm_cell/kernel", "rnn/basic_lstm_cell/bias"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, got_c, got_h, got_steps, g, kernel, bias = sess.run([outputs, c, h, steps, grad] + tf.trainable_variables())
    want, want_c, want_h = lstm_steps(x, kernel, bias, lengths=lengths)
    assert out.shape == (6, 4, 5) and got_steps == 6  # (until the longest sequence ends)
    assert np.allclose(np.transpose(out, (1, 0, 2)), want) and np.allclose(got_c, want_c) and np.allclose(got_h, want_h)

    def loss(value):
        o, _, _ = lstm_steps(value, kernel, bias, lengths=lengths)
        return np.sum(o * o)

    eps, index = 1e-6, (1, 1, 2)  # (an entry of a step that counts: sequence 1 has two steps)
    bumped = [x.copy(), x.copy()]
    bumped[0][index] += eps
    bumped[1][index] -= eps
    assert np.isclose(g[index[1], index[0], index[2]], (loss(bumped[0]) - loss(bumped[1])) / (2 * eps), rtol=1e-5)
    assert np.all(g[2:, 1] == 0.0)  # (past its length, sequence 1's inputs are never read)


def test_raw_rnn_emits_what_loop_fn_says_and_needs_an_initial_state():
    cell = tf.nn.rnn_cell.BasicRNNCell(2, dtype=tf.float64)

    def loop_fn(time, cell_output, cell_state, loop_state):
        state = cell.zero_state(3, tf.float64) if cell_output is None else cell_state
        emit = tf.zeros([3, 1], tf.float64) if cell_output is None else tf.reduce_sum(cell_output, 1, keepdims=True)
        return time >= np.array([1, 3, 2]), tf.ones([3, 2], tf.float64), state, emit, None

    emitted, _, loop_state = tf.nn.raw_rnn(cell, loop_fn, scope="summed")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(emitted.stack())
    assert loop_state is None and got.shape == (3, 3, 1)
    assert got[1, 0, 0] == 0.0 and got[2, 2, 0] == 0.0 and got[2, 1, 0] != 0.0  # (finished entries emit zeros)
    with pytest.raises(ValueError, match="initial cell state"):
        tf.nn.raw_rnn(cell, lambda time, o, s, l: (time >= 1, tf.ones([3, 2], tf.float64), None, None, None))


def test_time_major_and_a_batch_of_unknown_size():
    x = RNG.standard_normal((5, 2, 3))  # [time, batch, depth]
    inputs = tf.placeholder(tf.float64, [None, None, 3])
    cell = tf.nn.rnn_cell.GRUCell(4, dtype=tf.float64)
    outputs, state = tf.nn.dynamic_rnn(cell, inputs, time_major=True, dtype=tf.float64)
    names = [v.op.name for v in tf.trainable_variables()]
    assert names == ["rnn/gru_cell/gates/kernel", "rnn/gru_cell/gates/bias", "rnn/gru_cell/candidate/kernel",
                     "rnn/gru_cell/candidate/bias"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, h, *weights = sess.run([outputs, state] + tf.trainable_variables(), {inputs: x})
    want, want_h = gru_steps(np.transpose(x, (1, 0, 2)), *weights)
    assert np.allclose(out, np.transpose(want, (1, 0, 2))) and np.allclose(h, want_h)


def test_lstm_cell_with_peepholes_clip_and_projection():
    x = RNG.standard_normal((2, 3, 4))
    cell = tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True, cell_clip=0.5, num_proj=3, dtype=tf.float64)
    outputs, state = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float64)
    assert outputs.shape.as_list() == [2, 3, 3] and cell.state_size == (5, 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, (c, h) = sess.run([outputs, state])
        values = {v.op.name.split("lstm_cell/")[1]: sess.run(v) for v in tf.trainable_variables()}
    cv, hv = np.zeros((2, 5)), np.zeros((2, 3))
    for t in range(3):
        i, j, f, o = np.split(np.concatenate([x[:, t], hv], 1) @ values["kernel"] + values["bias"], 4, axis=1)
        cv = cv * sigmoid(f + 1.0 + values["w_f_diag"] * cv) + sigmoid(i + values["w_i_diag"] * cv) * np.tanh(j)
        cv = np.clip(cv, -0.5, 0.5)
        hv = (sigmoid(o + values["w_o_diag"] * cv) * np.tanh(cv)) @ values["projection/kernel"]
        assert np.allclose(out[:, t], hv)
    assert np.allclose(c, cv) and np.allclose(h, hv)


def test_multi_rnn_cell_names_and_state_and_basic_rnn_cell():
    x = RNG.standard_normal((2, 4, 3))
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicRNNCell(4, dtype=tf.float64),
                                        tf.nn.rnn_cell.BasicRNNCell(2, dtype=tf.float64)])
    outputs, state = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float64)
    assert [v.op.name for v in tf.trainable_variables()] == [
        "rnn/multi_rnn_cell/cell_0/basic_rnn_cell/kernel", "rnn/multi_rnn_cell/cell_0/basic_rnn_cell/bias",
        "rnn/multi_rnn_cell/cell_1/basic_rnn_cell/kernel", "rnn/multi_rnn_cell/cell_1/basic_rnn_cell/bias"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, (h0, h1), k0, b0, k1, b1 = sess.run([outputs, state] + tf.trainable_variables())
    a, b = np.zeros((2, 4)), np.zeros((2, 2))
    for t in range(4):
        a = np.tanh(np.concatenate([x[:, t], a], 1) @ k0 + b0)
        b = np.tanh(np.concatenate([a, b], 1) @ k1 + b1)
        assert np.allclose(out[:, t], b)
    assert np.allclose(h0, a) and np.allclose(h1, b)


def test_static_rnn_shares_the_cell_with_dynamic_rnn():
    x = RNG.standard_normal((2, 3, 4))
    cell = tf.nn.rnn_cell.BasicLSTMCell(3, dtype=tf.float64)
    dynamic, _ = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float64)
    static, _ = tf.contrib.rnn.static_rnn(cell, [tf.constant(x[:, t]) for t in range(3)], dtype=tf.float64)
    assert len(tf.trainable_variables()) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        d, s = sess.run([dynamic, static])
    assert np.allclose(d, np.stack(s, 1))


def test_bidirectional_dynamic_rnn_reverses_each_sequence_up_to_its_length():
    x = RNG.standard_normal((2, 4, 3))
    lengths = np.array([4, 2])
    fw = tf.nn.rnn_cell.GRUCell(2, dtype=tf.float64)
    bw = tf.nn.rnn_cell.GRUCell(2, dtype=tf.float64)
    (out_fw, out_bw), _ = tf.nn.bidirectional_dynamic_rnn(fw, bw, tf.constant(x), sequence_length=lengths,
                                                          dtype=tf.float64)
    names = [v.op.name for v in tf.trainable_variables()]
    assert names[0] == "bidirectional_rnn/fw/gru_cell/gates/kernel"
    assert names[4] == "bidirectional_rnn/bw/gru_cell/gates/kernel"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_bw, *weights = sess.run([out_bw] + tf.trainable_variables()[4:])
    for b, n in enumerate(lengths):
        reversed_input = x[b:b + 1, :n][:, ::-1]
        want, _ = gru_steps(reversed_input, *weights)
        assert np.allclose(got_bw[b, :n], want[0, ::-1])
        assert np.all(got_bw[b, n:] == 0.0)


@pytest.mark.parametrize("lengths", [None, [4, 2]])
def test_static_bidirectional_rnn_against_numpy_and_tensorflows_names(lengths):
    """Each step's output is the forward LSTM's and the backward GRU's (which reads each
    sequence reversed up to its length) side by side; variables named as TensorFlow's."""
    x = RNG.standard_normal((2, 4, 3))
    fw = tf.nn.rnn_cell.BasicLSTMCell(3, dtype=tf.float64)
    bw = tf.nn.rnn_cell.GRUCell(2, dtype=tf.float64)
    steps = [tf.constant(x[:, t]) for t in range(4)]
    outputs, state_fw, state_bw = tf.nn.static_bidirectional_rnn(fw, bw, steps, sequence_length=lengths,
                                                                  dtype=tf.float64)
    assert tf.contrib.rnn.static_bidirectional_rnn is tf.nn.static_bidirectional_rnn
    assert len(outputs) == 4 and outputs[0].shape.as_list() == [2, 5]
    assert [v.op.name for v in tf.trainable_variables()] == [
        "bidirectional_rnn/fw/basic_lstm_cell/kernel", "bidirectional_rnn/fw/basic_lstm_cell/bias",
        "bidirectional_rnn/bw/gru_cell/gates/kernel", "bidirectional_rnn/bw/gru_cell/gates/bias",
        "bidirectional_rnn/bw/gru_cell/candidate/kernel", "bidirectional_rnn/bw/gru_cell/candidate/bias"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, (c, h), last_bw, weights = sess.run([outputs, state_fw, state_bw, tf.trainable_variables()])
    want_fw, want_c, want_h = lstm_steps(x, *weights[:2], lengths=None if lengths is None else np.array(lengths))
    got = np.stack(got, 1)
    np.testing.assert_allclose(got[..., :3], want_fw, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c, want_c, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h, want_h, rtol=1e-12, atol=1e-12)
    for b, n in enumerate(lengths or [4, 4]):
        want_bw, state = gru_steps(x[b:b + 1, :n][:, ::-1], *weights[2:])
        np.testing.assert_allclose(got[b, :n, 3:], want_bw[0, ::-1], rtol=1e-12, atol=1e-12)
        assert np.all(got[b, n:, 3:] == 0.0)
        np.testing.assert_allclose(last_bw[b], state[0], rtol=1e-12, atol=1e-12)


def test_static_bidirectional_rnn_refuses_what_tensorflow_refuses():
    cell = tf.nn.rnn_cell.BasicRNNCell(2)
    with pytest.raises(TypeError, match="cell_bw must be an instance of RNNCell"):
        tf.nn.static_bidirectional_rnn(cell, "not a cell", [tf.ones([1, 2])], dtype=tf.float32)
    with pytest.raises(TypeError, match="inputs must be a sequence"):
        tf.nn.static_bidirectional_rnn(cell, cell, tf.ones([1, 2]), dtype=tf.float32)
    with pytest.raises(ValueError, match="inputs must not be empty"):
        tf.nn.static_bidirectional_rnn(cell, cell, [], dtype=tf.float32)


def test_dropout_wrapper():
    x = tf.ones([8, 3, 50])
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(50), output_keep_prob=0.5)
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(outputs)
    assert 0.3 < np.mean(out == 0.0) < 0.7


def test_dynamic_rnn_needs_a_dtype_or_an_initial_state():
    with pytest.raises(ValueError, match="dtype"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(2), tf.ones([1, 2, 3]))


def test_gradients_through_dynamic_rnn_against_central_differences():
    x0 = RNG.standard_normal((2, 4, 3)) * 0.5
    inputs = tf.placeholder(tf.float64, [2, 4, 3])
    lengths = np.array([4, 3])
    cell = tf.nn.rnn_cell.BasicLSTMCell(3, dtype=tf.float64)
    outputs, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=lengths, dtype=tf.float64)
    r = RNG.standard_normal((2, 4, 3))
    loss = tf.reduce_sum(outputs * r) + tf.reduce_sum(state.c * state.c)
    kernel, bias = tf.trainable_variables()
    grads = tf.gradients(loss, [inputs, kernel, bias])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(bias.assign(RNG.standard_normal(12) * 0.3))
        g_x, g_k, g_b = sess.run(grads, {inputs: x0})
        k0, b0 = sess.run([kernel, bias])
        eps = 1e-6
        for target, value, g in ((inputs, x0, g_x), (kernel, k0, g_k), (bias, b0, g_b)):
            d = RNG.standard_normal(value.shape)

            def at(v):
                if target is inputs:
                    return sess.run(loss, {inputs: v})
                sess.run(target.assign(v))
                out = sess.run(loss, {inputs: x0})
                sess.run(target.assign(value))
                return out

            numeric = (at(value + eps * d) - at(value - eps * d)) / (2 * eps)
            assert np.isclose(np.sum(g * d), numeric, rtol=1e-5, atol=1e-8), target.name


def test_sequence_losses_match_numpy():
    logits = RNG.standard_normal((2, 3, 5))
    targets = RNG.integers(0, 5, (2, 3))
    weights = np.array([[1.0, 1.0, 0.0], [1.0, 0.5, 1.0]])
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    crossent = -np.take_along_axis(log_p, targets[..., None], -1)[..., 0] * weights
    loss = tf.contrib.seq2seq.sequence_loss(tf.constant(logits), tf.constant(targets), tf.constant(weights))
    per_step = tf.contrib.seq2seq.sequence_loss(tf.constant(logits), tf.constant(targets), tf.constant(weights),
                                                average_across_timesteps=False)
    by_example = tf.contrib.legacy_seq2seq.sequence_loss_by_example(
        [tf.constant(logits[:, t]) for t in range(3)], [tf.constant(targets[:, t]) for t in range(3)],
        [tf.constant(weights[:, t]) for t in range(3)])
    with tf.Session() as sess:
        a, b, c = sess.run([loss, per_step, by_example])
    assert np.isclose(a, crossent.sum() / weights.sum())
    assert np.allclose(b, crossent.sum(0) / weights.sum(0))
    assert np.allclose(c, crossent.sum(1) / weights.sum(1))


class _VariableStateSaver:
    """A state saver over variables: ``state(name)`` reads one, ``save_state`` assigns it."""

    def __init__(self, sizes, batch):
        self.saved = {name: tf.Variable(tf.zeros([batch, size], tf.float64), name=name)
                      for name, size in sizes.items()}

    def state(self, name):
        return self.saved[name].read_value()

    def save_state(self, name, value):
        return tf.assign(self.saved[name], value).op


def test_a_state_saving_rnn_carries_its_state_from_one_segment_to_the_next():
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    saver = _VariableStateSaver({"c": 3, "h": 3}, 2)
    segment = [tf.placeholder(tf.float64, [2, 4]) for _ in range(2)]
    outputs, state = tf.nn.static_state_saving_rnn(cell, segment, saver, tf.nn.rnn_cell.LSTMStateTuple("c", "h"))
    whole = [tf.placeholder(tf.float64, [2, 4]) for _ in range(4)]
    with tf.variable_scope("rnn", reuse=True):
        whole_outputs, _ = tf.nn.static_rnn(cell, whole, dtype=tf.float64)
    steps = RNG.standard_normal((4, 2, 4))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(outputs, dict(zip(segment, steps[:2])))
        second = sess.run(outputs, dict(zip(segment, steps[2:])))  # (from the state the first segment saved)
        expected = sess.run(whole_outputs, dict(zip(whole, steps)))
    np.testing.assert_allclose(np.stack(first + second), np.stack(expected), rtol=1e-12)
    with pytest.raises(ValueError, match="state_name should be the same type as cell.state_size"):
        tf.nn.static_state_saving_rnn(cell, segment, saver, "c")
