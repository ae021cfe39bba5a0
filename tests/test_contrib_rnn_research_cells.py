"""tf.contrib.rnn's research cells and wrappers against their equations in NumPy (float64),
with TensorFlow's variable names, and the fused-cell adaptors."""

import numpy as np
import pytest

import distflow as tf

RNG = np.random.default_rng(7)
B, D, N = 3, 4, 6
rnn = tf.contrib.rnn


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def layer_norm(x, gamma, beta):
    mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * gamma + beta


def _run_step(make_cell, x, state, scope="root"):
    """One call of a new cell on float64 constants: (output, new state, {variable name: value})."""
    with tf.Graph().as_default():
        cell = make_cell()
        with tf.variable_scope(scope, initializer=tf.random_normal_initializer(0.0, 0.5, seed=3)):
            const = lambda v: tf.constant(v) if isinstance(v, np.ndarray) else type(v)(*map(const, v))  # noqa: E731
            out, new_state = cell(const(x), const(state))
        assert {v.op.name for v in cell.variables} == {v.op.name for v in tf.global_variables()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_out, got_state = sess.run([out, new_state])
            weights = sess.run({v.op.name: v for v in tf.global_variables()})
    return got_out, got_state, weights


def _names(weights, prefix):
    return sorted(name[len(prefix) + 1:] for name in weights)


def test_coupled_input_forget_gate_lstm_with_peepholes_projection_and_shards():
    x, c, m = RNG.standard_normal((B, D)), RNG.standard_normal((B, N)), RNG.standard_normal((B, 2))
    out, (new_c, new_m), w = _run_step(lambda: rnn.CoupledInputForgetGateLSTMCell(
        N, use_peepholes=True, num_proj=2, proj_clip=0.4, num_unit_shards=4, forget_bias=0.5),
        x, tf.nn.rnn_cell.LSTMStateTuple(c, m))
    p = "root/coupled_input_forget_gate_lstm_cell"
    assert _names(w, p) == ["B", "W_0", "W_1", "W_2", "W_3", "W_F_diag", "W_O_diag", "W_P_0"]
    shards = [w[f"{p}/W_{k}"] for k in range(4)]
    assert [s.shape[0] for s in shards] == [2, 2, 1, 1]  # (6 rows, the first ones a row longer)
    j, f, o = np.split(np.concatenate([x, m], 1) @ np.concatenate(shards) + w[p + "/B"], 3, 1)
    forget = sigmoid(f + 0.5 + w[p + "/W_F_diag"] * c)
    want_c = forget * c + (1 - forget) * np.tanh(j)
    want_m = np.clip((sigmoid(o + w[p + "/W_O_diag"] * want_c) * np.tanh(want_c)) @ w[p + "/W_P_0"], -0.4, 0.4)
    np.testing.assert_allclose(new_c, want_c, rtol=1e-10)
    np.testing.assert_allclose(out, want_m, rtol=1e-10)
    np.testing.assert_allclose(new_m, want_m, rtol=1e-10)


def test_coupled_input_forget_gate_lstm_with_layer_normalization_adds_no_bias():
    x, c, m = RNG.standard_normal((B, D)), RNG.standard_normal((B, N)), RNG.standard_normal((B, N))
    out, state, w = _run_step(lambda: rnn.CoupledInputForgetGateLSTMCell(N, layer_norm=True, norm_gain=0.8,
                                                                         norm_shift=0.1, state_is_tuple=False),
                              x, np.concatenate([c, m], 1))
    p = "root/coupled_input_forget_gate_lstm_cell"
    assert {"transform/gamma", "forget/beta", "output/gamma", "state/beta"} <= set(_names(w, p))
    gates = np.concatenate([x, m], 1) @ w[p + "/W_0"]
    j, f, o = (layer_norm(g, w[f"{p}/{part}/gamma"], w[f"{p}/{part}/beta"])
               for g, part in zip(np.split(gates, 3, 1), ("transform", "forget", "output")))
    forget = sigmoid(f + 1.0)
    want_c = layer_norm(forget * c + (1 - forget) * np.tanh(j), w[p + "/state/gamma"], w[p + "/state/beta"])
    want_m = sigmoid(o) * np.tanh(want_c)
    np.testing.assert_allclose(out, want_m, rtol=1e-9)
    np.testing.assert_allclose(state, np.concatenate([want_c, want_m], 1), rtol=1e-9)


def test_nas_cell_combines_its_eight_projections_in_the_searched_tree():
    x, c, m = RNG.standard_normal((B, D)), RNG.standard_normal((B, N)), RNG.standard_normal((B, 3))
    out, (new_c, new_m), w = _run_step(lambda: rnn.NASCell(N, num_proj=3, use_biases=True), x,
                                       tf.nn.rnn_cell.LSTMStateTuple(c, m))
    p = "root/nas_cell"
    assert _names(w, p) == ["bias", "kernel", "projection_weights", "recurrent_kernel"]
    a = np.split(x @ w[p + "/kernel"], 8, 1)
    r = np.split(m @ w[p + "/recurrent_kernel"] + w[p + "/bias"], 8, 1)
    relu = lambda v: np.maximum(v, 0)  # noqa: E731
    l1 = [sigmoid(a[0] + r[0]), relu(a[1] + r[1]), sigmoid(a[2] + r[2]), relu(a[3] * r[3]), np.tanh(a[4] + r[4]),
          sigmoid(a[5] + r[5]), np.tanh(a[6] + r[6]), sigmoid(a[7] + r[7])]
    want_c = np.tanh(np.tanh(l1[0] * l1[1]) + c) * np.tanh(l1[2] + l1[3])
    want_m = np.tanh(want_c * np.tanh(np.tanh(l1[4] * l1[5]) + sigmoid(l1[6] + l1[7]))) @ w[p + "/projection_weights"]
    np.testing.assert_allclose(new_c, want_c, rtol=1e-10)
    np.testing.assert_allclose(out, want_m, rtol=1e-10)
    np.testing.assert_allclose(new_m, want_m, rtol=1e-10)


def test_ugrnn_and_intersection_rnn_cells():
    x, h = RNG.standard_normal((B, D)), RNG.standard_normal((B, N))
    out, state, w = _run_step(lambda: rnn.UGRNNCell(N, forget_bias=0.3), x, h)
    p = "root/ugrnn_cell"
    g, cand = np.split(np.concatenate([x, h], 1) @ w[p + "/kernel"] + w[p + "/bias"], 2, 1)
    gate = sigmoid(g + 0.3)
    np.testing.assert_allclose(state, gate * h + (1 - gate) * np.tanh(cand), rtol=1e-10)
    np.testing.assert_allclose(out, state)

    out, state, w = _run_step(lambda: rnn.IntersectionRNNCell(N, num_in_proj=N), x, h)
    p = "root/intersection_rnn_cell"
    assert _names(w, p) == ["bias", "in_projection/bias", "in_projection/kernel", "kernel"]
    inputs = x @ w[p + "/in_projection/kernel"] + w[p + "/in_projection/bias"]
    gh, hh, gy, y = np.split(np.concatenate([inputs, h], 1) @ w[p + "/kernel"] + w[p + "/bias"], 4, 1)
    gh, gy = sigmoid(gh + 1.0), sigmoid(gy + 1.0)
    np.testing.assert_allclose(state, gh * h + (1 - gh) * np.tanh(hh), rtol=1e-10)
    np.testing.assert_allclose(out, gy * inputs + (1 - gy) * np.maximum(y, 0), rtol=1e-10)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="num_in_proj should be set"):
        rnn.IntersectionRNNCell(N)(tf.constant(x), tf.constant(h))


def test_group_lstm_shares_one_kernel_between_its_groups_as_tensorflows():
    x, c, m = RNG.standard_normal((B, 4)), RNG.standard_normal((B, 8)), RNG.standard_normal((B, 4))
    out, (new_c, new_m), w = _run_step(lambda: rnn.GLSTMCell(8, num_proj=4, number_of_groups=2), x,
                                       tf.nn.rnn_cell.LSTMStateTuple(c, m))
    p = "root/glstm_cell"
    assert _names(w, p) == ["bias_f", "bias_i", "bias_j", "bias_o", "group0/kernel", "projection/kernel"]
    parts = [np.split(np.concatenate([x[:, 2 * k:2 * k + 2], m[:, 2 * k:2 * k + 2]], 1) @ w[p + "/group0/kernel"],
                      4, 1) for k in range(2)]
    i, j, f, o = (np.concatenate([parts[0][g], parts[1][g]], 1) + w[f"{p}/bias_{name}"]
                  for g, name in enumerate("ijfo"))
    want_c = sigmoid(f + 1.0) * c + sigmoid(i) * np.tanh(j)
    want_m = (sigmoid(o) * np.tanh(want_c)) @ w[p + "/projection/kernel"]
    np.testing.assert_allclose(new_c, want_c, rtol=1e-10)
    np.testing.assert_allclose(out, want_m, rtol=1e-10)
    with pytest.raises(ValueError, match="divisible"):
        rnn.GLSTMCell(7, number_of_groups=2)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="depth must be the output size 8"):
        rnn.GLSTMCell(8, number_of_groups=2)(tf.constant(RNG.standard_normal((B, 5))),
                                             tf.nn.rnn_cell.LSTMStateTuple(tf.constant(c), tf.constant(c)))


def test_layer_norm_lstm_cell_with_peepholes_clips_and_projection():
    x, c, m = RNG.standard_normal((B, D)), RNG.standard_normal((B, N)), RNG.standard_normal((B, 2))
    out, (new_c, new_m), w = _run_step(lambda: rnn.LayerNormLSTMCell(
        N, use_peepholes=True, cell_clip=0.7, num_proj=2, proj_clip=0.5, layer_norm=True), x,
        tf.nn.rnn_cell.LSTMStateTuple(c, m))
    p = "root/layer_norm_lstm_cell"
    gates = np.concatenate([x, m], 1) @ w[p + "/kernel"]  # (the bias is not added under layer norm)
    i, j, f, o = (layer_norm(g, w[f"{p}/{part}/gamma"], w[f"{p}/{part}/beta"])
                  for g, part in zip(np.split(gates, 4, 1), ("input", "transform", "forget", "output")))
    want_c = (sigmoid(f + 1.0 + w[p + "/w_f_diag"] * c) * c + sigmoid(i + w[p + "/w_i_diag"] * c) * np.tanh(j))
    want_c = np.clip(layer_norm(want_c, w[p + "/state/gamma"], w[p + "/state/beta"]), -0.7, 0.7)
    want_m = sigmoid(o + w[p + "/w_o_diag"] * want_c) * np.tanh(want_c)
    want_m = np.clip(want_m @ w[p + "/projection/kernel"], -0.5, 0.5)
    np.testing.assert_allclose(new_c, want_c, rtol=1e-9)
    np.testing.assert_allclose(out, want_m, rtol=1e-9)


def test_sru_cell():
    x, c = RNG.standard_normal((B, D)), RNG.standard_normal((B, N))
    out, state, w = _run_step(lambda: rnn.SRUCell(N), x, c)
    p = "root/sru_cell"
    cand, f, r, highway = np.split(x @ w[p + "/kernel"], 4, 1)
    f, r = np.split(sigmoid(np.concatenate([f, r], 1) + w[p + "/bias"]), 2, 1)
    want_c = f * c + (1 - f) * cand
    np.testing.assert_allclose(state, want_c, rtol=1e-10)
    np.testing.assert_allclose(out, r * np.tanh(want_c) + (1 - r) * highway, rtol=1e-10)


def _conv2d_same(x, k):
    kh, kw = k.shape[:2]
    padded = np.pad(x, [(0, 0), ((kh - 1) // 2, kh // 2), ((kw - 1) // 2, kw // 2), (0, 0)])
    out = np.zeros(x.shape[:3] + (k.shape[3],))
    for a in range(x.shape[1]):
        for b in range(x.shape[2]):
            out[:, a, b] = np.einsum("nhwc,hwco->no", padded[:, a:a + kh, b:b + kw], k)
    return out


def test_conv2d_lstm_runs_in_dynamic_rnn_with_image_states_and_a_skip_connection():
    x = RNG.standard_normal((B, 3, 5, 4, 2))  # [batch, time, height, width, channels]
    with tf.Graph().as_default():
        cell = rnn.Conv2DLSTMCell(input_shape=[5, 4, 2], output_channels=3, kernel_shape=[3, 2],
                                  skip_connection=True)
        assert cell.output_size.as_list() == [5, 4, 5] and cell.state_size.c.as_list() == [5, 4, 3]
        out, state = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float64)
        assert out.shape.as_list() == [B, 3, 5, 4, 5]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_out, got_state, w = sess.run([out, state, {v.op.name: v for v in tf.global_variables()}])
    assert sorted(w) == ["rnn/conv_lstm_cell/biases", "rnn/conv_lstm_cell/kernel"]
    c = h = np.zeros((B, 5, 4, 3))
    for t in range(3):
        i, j, f, o = np.split(_conv2d_same(np.concatenate([x[:, t], h], -1), w["rnn/conv_lstm_cell/kernel"])
                              + w["rnn/conv_lstm_cell/biases"], 4, -1)
        c = sigmoid(f + 1.0) * c + sigmoid(i) * np.tanh(j)
        h = np.tanh(c) * sigmoid(o)
        np.testing.assert_allclose(got_out[:, t], np.concatenate([h, x[:, t]], -1), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got_state.c, c, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got_state.h, h, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="Invalid input_shape"):
        rnn.Conv1DLSTMCell(input_shape=[5, 4, 2], output_channels=3, kernel_shape=[3])


def _phased(x, t, c, h, w, p, leak=0.001):
    mask = sigmoid(np.concatenate([x, h], 1) @ w[p + "/mask_gates/kernel"] + w[p + "/mask_gates/bias"])
    i, f = np.split(mask, 2, 1)
    new_c = c * f + i * np.tanh(np.concatenate([x, h], 1) @ w[p + "/new_input/kernel"] + w[p + "/new_input/bias"])
    o = sigmoid(np.concatenate([x, h], 1) @ w[p + "/output_gate/kernel"] + w[p + "/output_gate/bias"])
    new_h = np.tanh(new_c) * o
    period, ratio = w[p + "/period"], w[p + "/ratio_on"]
    cycle = np.mod(t - w[p + "/phase"], period) / period
    k = np.where(cycle < 0.5 * ratio, 2 * cycle / ratio, np.where(cycle < ratio, 2 - 2 * cycle / ratio, leak * cycle))
    return k * new_h + (1 - k) * h, k * new_c + (1 - k) * c


def test_phased_lstm_opens_each_unit_on_its_own_rhythm_and_differentiates_through_time():
    x, c, h = RNG.standard_normal((B, D)), RNG.standard_normal((B, N)), RNG.standard_normal((B, N))
    t = np.array([[1.5], [7.0], [40.0]])
    with tf.Graph().as_default():
        cell = rnn.PhasedLSTMCell(N, ratio_on=0.4, period_init_min=2.0, period_init_max=20.0)
        tt, xx = tf.constant(t), tf.constant(x)
        out, state = cell((tt, xx), tf.nn.rnn_cell.LSTMStateTuple(tf.constant(c), tf.constant(h)))
        p = "phased_lstm_cell"
        assert p + "/ratio_on" in {v.op.name for v in tf.trainable_variables()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_out, got_state, w = sess.run([out, state, {v.op.name: v for v in tf.global_variables()}])
            assert np.all((w[p + "/period"] >= 2.0) & (w[p + "/period"] <= 20.0))
            assert np.all((w[p + "/phase"] >= 0) & (w[p + "/phase"] <= w[p + "/period"]))
            want_h, want_c = _phased(x, t, c, h, w, p)
            np.testing.assert_allclose(got_out, want_h, rtol=1e-9)
            np.testing.assert_allclose(got_state.c, want_c, rtol=1e-9)
            # the time gate passes the time's gradient through the modulo: central differences
            grad_t, grad_x = sess.run(tf.gradients(tf.reduce_sum(out * out), [tt, xx]))
    eps, num_t = 1e-6, np.zeros_like(t)
    for b in range(B):
        for sign in (1, -1):
            shifted = t.copy()
            shifted[b] += sign * eps
            num_t[b] += sign * np.sum(_phased(x, shifted, c, h, w, p)[0] ** 2) / (2 * eps)
    np.testing.assert_allclose(grad_t, num_t, rtol=1e-5, atol=1e-8)
    num_x = np.zeros_like(x)
    for index in np.ndindex(*x.shape):
        for sign in (1, -1):
            shifted = x.copy()
            shifted[index] += sign * eps
            num_x[index] += sign * np.sum(_phased(shifted, t, c, h, w, p)[0] ** 2) / (2 * eps)
    np.testing.assert_allclose(grad_x, num_x, rtol=1e-5, atol=1e-8)


def test_time_freq_lstm_runs_one_lstm_along_the_windows_and_knows_its_size_once_built():
    x = RNG.standard_normal((B, 5))
    cell_holder = []

    def make():
        cell_holder.append(rnn.TimeFreqLSTMCell(N, use_peepholes=True, feature_size=3, frequency_skip=1))
        return cell_holder[0]

    state = RNG.standard_normal((B, 2 * N * 3))
    out, new_state, w = _run_step(make, x, state)
    assert cell_holder[0].state_size == 2 * N * 3 and cell_holder[0].output_size == N * 3
    p = "root/time_freq_lstm_cell"
    assert _names(w, p) == ["B", "W_0", "W_F_diag", "W_I_diag", "W_O_diag"]
    m_freq, outs, states = np.zeros((B, N)), [], []
    for k in range(3):
        c_prev, m_prev = state[:, 2 * k * N:(2 * k + 1) * N], state[:, (2 * k + 1) * N:(2 * k + 2) * N]
        i, j, f, o = np.split(np.concatenate([x[:, k:k + 3], m_prev, m_freq], 1) @ w[p + "/W_0"] + w[p + "/B"], 4, 1)
        c = (sigmoid(f + 1.0 + w[p + "/W_F_diag"] * c_prev) * c_prev
             + sigmoid(i + w[p + "/W_I_diag"] * c_prev) * np.tanh(j))
        m_freq = sigmoid(o + w[p + "/W_O_diag"] * c) * np.tanh(c)
        outs.append(m_freq)
        states += [c, m_freq]
    np.testing.assert_allclose(out, np.concatenate(outs, 1), rtol=1e-10)
    np.testing.assert_allclose(new_state, np.concatenate(states, 1), rtol=1e-10)


def _grid_reference(x, state, w, p, blocks, n, forget_bias=1.0):
    """Grid LSTM with peepholes, unshared weights and a concatenated state, block by block."""
    outs, states, first = [], [], 0
    for b, starts in enumerate(blocks):
        kf, bf = w[f"{p}/W_f_{b}_0"], w[f"{p}/B_f_{b}"]
        kt, bt = w[f"{p}/W_t_{b}_0"], w[f"{p}/B_t_{b}"]
        d = lambda g, kind, src: w[f"{p}/W_{g}_diag_{kind}{src}_{b}"]  # noqa: E731
        m_freq = c_freq = np.zeros((x.shape[0], n))
        for k, start in enumerate(starts):
            idx = first + k
            c_time, m_time = state[:, 2 * idx * n:(2 * idx + 1) * n], state[:, (2 * idx + 1) * n:(2 * idx + 2) * n]
            cell_in = np.concatenate([x[:, start:start + 2], m_time, m_freq], 1)
            new = {}
            for kind, kernel, bias in (("freq", kf, bf), ("time", kt, bt)):
                i, j, f, o = np.split(cell_in @ kernel + bias, 4, 1)
                i = sigmoid(i + d("I", kind, "f") * c_freq + d("I", kind, "t") * c_time)
                f = sigmoid(f + forget_bias + d("F", kind, "f") * c_freq + d("F", kind, "t") * c_time)
                new[kind] = (f * (c_freq if kind == "freq" else c_time) + i * np.tanh(j), o)
            (cf, of), (ct, ot) = new["freq"], new["time"]
            m_freq = sigmoid(of + d("O", "freq", "f") * cf + d("O", "freq", "t") * ct) * np.tanh(cf)
            m_time = sigmoid(ot + d("O", "time", "f") * cf + d("O", "time", "t") * ct) * np.tanh(ct)
            c_freq = cf
            outs += [m_time, m_freq]
            states += [ct, m_time]
        first += len(starts)
    return np.concatenate(outs, 1), np.concatenate(states, 1)


def test_grid_lstm_over_two_frequency_blocks_with_a_concatenated_state():
    n, x = 3, RNG.standard_normal((B, 7))
    state = RNG.standard_normal((B, 2 * n * 4))
    out, new_state, w = _run_step(lambda: rnn.GridLSTMCell(
        n, use_peepholes=True, feature_size=2, frequency_skip=1, num_frequency_blocks=[2, 2],
        start_freqindex_list=[0, 4], end_freqindex_list=[3, 7], state_is_tuple=False), x, state)
    want_out, want_state = _grid_reference(x, state, w, "root/grid_lstm_cell", [[0, 1], [4, 5]], n)
    np.testing.assert_allclose(out, want_out, rtol=1e-10)
    np.testing.assert_allclose(new_state, want_state, rtol=1e-10)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="requires 3 but gets 2"):
        rnn.GridLSTMCell(n, feature_size=2, frequency_skip=1, num_frequency_blocks=[3])(
            tf.zeros([B, 3]), tf.zeros([B, 6 * n]))


def test_bidirectional_grid_lstm_runs_each_direction_with_its_own_variables():
    n = 2
    with tf.Graph().as_default():
        cell = rnn.BidirectionalGridLSTMCell(n, feature_size=2, frequency_skip=1, num_frequency_blocks=[3],
                                             share_time_frequency_weights=True, couple_input_forget_gates=True,
                                             backward_slice_offset=1)
        x = tf.constant(RNG.standard_normal((B, 4)))
        state = cell.zero_state(B, tf.float64)
        assert state._fields[:2] == ("fwd_state_f00_b00_c", "fwd_state_f00_b00_m") and len(state) == 12
        out, new_state = cell(x, state)
        assert out.shape.as_list() == [B, cell.output_size] and cell.output_size == 2 * 2 * n * 3
        assert sorted(v.op.name for v in tf.global_variables()) == [
            "bidirectional_grid_lstm_cell/bwd/B_f_0", "bidirectional_grid_lstm_cell/bwd/W_f_0_0",
            "bidirectional_grid_lstm_cell/fwd/B_f_0", "bidirectional_grid_lstm_cell/fwd/W_f_0_0"]
        assert type(new_state) is type(state)


def test_attention_cell_wrapper_attends_over_its_last_outputs():
    length, size, steps = 3, 4, 3
    xs = RNG.standard_normal((steps, B, D))
    with tf.Graph().as_default():
        cell = rnn.AttentionCellWrapper(tf.nn.rnn_cell.GRUCell(size), attn_length=length)
        assert cell.state_size == (size, size, size * length)
        outs, state = tf.nn.static_rnn(cell, [tf.constant(v) for v in xs], dtype=tf.float64)
        assert {v.op.name for v in cell.variables} == {v.op.name for v in tf.global_variables()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, w = sess.run([outs, {v.op.name: v for v in tf.global_variables()}])
    p = "rnn/attention_cell_wrapper"
    assert {p + "/attention/attn_w", p + "/attention/attn_v", p + "/attn_output_projection/kernel",
            p + "/gru_cell/gates/kernel"} <= set(w)
    h, attns, window = np.zeros((B, size)), np.zeros((B, size)), np.zeros((B, length, size))
    for t in range(steps):
        inp = np.concatenate([xs[t], attns], 1) @ w[p + "/kernel"] + w[p + "/bias"]
        g = p + "/gru_cell"
        r, u = np.split(sigmoid(np.concatenate([inp, h], 1) @ w[g + "/gates/kernel"] + w[g + "/gates/bias"]), 2, 1)
        cand = np.tanh(np.concatenate([inp, r * h], 1) @ w[g + "/candidate/kernel"] + w[g + "/candidate/bias"])
        h = u * h + (1 - u) * cand
        features = window @ w[p + "/attention/attn_w"][0, 0]
        y = h @ w[p + "/attention/kernel"] + w[p + "/attention/bias"]
        scores = (w[p + "/attention/attn_v"] * np.tanh(features + y[:, None, :])).sum(-1)
        a = np.exp(scores - scores.max(1, keepdims=True))
        a /= a.sum(1, keepdims=True)
        attns = (a[:, :, None] * window).sum(1)
        output = np.concatenate([h, attns], 1) @ w[p + "/attn_output_projection/kernel"] + w[
            p + "/attn_output_projection/bias"]
        window = np.concatenate([window[:, 1:], output[:, None]], 1)
        np.testing.assert_allclose(got[t], output, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="attn_length should be greater than zero"):
        rnn.AttentionCellWrapper(tf.nn.rnn_cell.GRUCell(size), attn_length=0)
    with pytest.raises(ValueError, match="state_is_tuple is not set"):
        rnn.AttentionCellWrapper(tf.nn.rnn_cell.LSTMCell(size), attn_length=2, state_is_tuple=False)


@pytest.mark.parametrize("coupled", [True, False])
def test_highway_wrapper_mixes_input_and_output_with_gates_made_once(coupled):
    xs = RNG.standard_normal((2, B, N))
    with tf.Graph().as_default():
        cell = rnn.HighwayWrapper(tf.nn.rnn_cell.GRUCell(N), couple_carry_transform_gates=coupled,
                                  carry_bias_init=0.5)
        outs, _ = tf.nn.static_rnn(cell, [tf.constant(v) for v in xs], dtype=tf.float64)
        gru_outs, _ = tf.nn.static_rnn(cell._cell, [tf.constant(v) for v in xs], dtype=tf.float64, scope="rnn")
        names = sorted(v.op.name for v in cell.variables)
        assert names == sorted(v.op.name for v in tf.global_variables())
        assert [n for n in names if "carry" in n or "transform" in n] == (
            ["rnn/carry_b", "rnn/carry_w"] + ([] if coupled else ["rnn/transform_b", "rnn/transform_w"]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, plain, w = sess.run([outs, gru_outs, {v.op.name: v for v in tf.global_variables()}])
    for x, y, out in zip(xs, plain, got):  # (the same GRU weights, so the plain GRU's outputs are y)
        carry = sigmoid(x @ w["rnn/carry_w"] + w["rnn/carry_b"])
        transform = 1 - carry if coupled else sigmoid(x @ w["rnn/transform_w"] + w["rnn/transform_b"])
        np.testing.assert_allclose(out, x * carry + y * transform, rtol=1e-10)
    np.testing.assert_allclose(w["rnn/carry_b"], 0.5)


def test_fused_adaptors_run_a_cell_over_a_sequence_and_reverse_it_within_each_length():
    x, lengths = RNG.standard_normal((4, B, D)), np.array([4, 2, 1])
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.BasicRNNCell(N)
        fused = rnn.FusedRNNCellAdaptor(cell, use_dynamic_rnn=True)
        forward, _ = fused(tf.constant(x), dtype=tf.float64, scope="fw")
        backward, _ = rnn.TimeReversedFusedRNN(fused)(tf.constant(x), dtype=tf.float64, sequence_length=lengths,
                                                      scope="fw")
        static = rnn.FusedRNNCellAdaptor(cell)
        listed, _ = rnn.TimeReversedFusedRNN(static)(list(tf.unstack(tf.constant(x))), dtype=tf.float64,
                                                     sequence_length=lengths, scope="fw")
        assert isinstance(listed, list) and len(listed) == 4
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_fw, got_bw, got_listed, w = sess.run([forward, backward, listed, {
                v.op.name: v for v in tf.global_variables()}])
    kernel, bias = w["fw/basic_rnn_cell/kernel"], w["fw/basic_rnn_cell/bias"]

    def run(seq):
        h, outs = np.zeros((B, N)), []
        for step in seq:
            h = np.tanh(np.concatenate([step, h], 1) @ kernel + bias)
            outs.append(h)
        return np.stack(outs)

    np.testing.assert_allclose(got_fw, run(x), rtol=1e-10)
    for b, n in enumerate(lengths):
        want = run(x[:n, b:b + 1].repeat(B, 1)[::-1])[::-1, 0]
        np.testing.assert_allclose(got_bw[:n, b], want, rtol=1e-10)
        np.testing.assert_allclose(np.stack(got_listed)[:n, b], want, rtol=1e-10)
        np.testing.assert_allclose(got_bw[n:, b], 0.0)


def test_compiled_wrapper_runs_the_cell_as_it_is():
    x, h = RNG.standard_normal((B, D)), RNG.standard_normal((B, N))
    out, _, w = _run_step(lambda: rnn.CompiledWrapper(tf.nn.rnn_cell.BasicRNNCell(N)), x, h)
    p = "root/basic_rnn_cell"
    np.testing.assert_allclose(out, np.tanh(np.concatenate([x, h], 1) @ w[p + "/kernel"] + w[p + "/bias"]))


def test_static_rnns_keep_their_shapes_with_lengths_and_refuse_a_scalar_length():
    with tf.Graph().as_default():
        steps = [tf.placeholder(tf.float32, [2, 5]) for _ in range(3)]
        cell = tf.nn.rnn_cell.LSTMCell(3, state_is_tuple=False)
        outs, state = tf.nn.static_rnn(cell, steps, dtype=tf.float32, sequence_length=tf.placeholder(tf.int64))
        assert outs[0].shape.as_list() == [2, 3] and state.shape.as_list() == [2, 6]
        with pytest.raises(ValueError, match="must be a vector"):
            tf.nn.static_rnn(cell, steps, dtype=tf.float32, sequence_length=4)
        multi = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.GRUCell(2)])
        with pytest.raises(ValueError, match="Expected state to be a tuple of length 2"):
            multi(steps[0], tf.zeros([2, 4]))


def test_ind_rnn_cell_sees_its_own_state_only():
    x, h = RNG.standard_normal((B, D)), RNG.standard_normal((B, N))
    out, new_h, w = _run_step(lambda: rnn.IndRNNCell(N), x, h)
    p = "root/ind_rnn_cell"
    assert _names(w, p) == ["bias", "kernel_u", "kernel_w"] and w[p + "/kernel_u"].shape == (1, N)
    assert np.abs(w[p + "/kernel_u"]).max() <= 1.0 and not w[p + "/bias"].any()
    want = np.maximum(x @ w[p + "/kernel_w"] + h * w[p + "/kernel_u"] + w[p + "/bias"], 0.0)
    np.testing.assert_allclose(out, want, rtol=1e-10)
    np.testing.assert_allclose(new_h, want, rtol=1e-10)


def test_indy_gru_cell_has_diagonal_recurrent_weights_and_tensorflows_names():
    x, h = RNG.standard_normal((B, D)), RNG.standard_normal((B, N))
    out, new_h, w = _run_step(lambda: rnn.IndyGRUCell(N), x, h)
    p = "root/indy_gru_cell"
    assert _names(w, p) == ["candidate/bias", "candidate/kernel", "candidate/kernel_u", "gates/bias",
                            "gates/kernel_u", "gates/kernel_w"]
    assert (w[p + "/gates/bias"] == 1.0).all()
    r, u = np.split(sigmoid(x @ w[p + "/gates/kernel_w"] + np.tile(h, 2) * w[p + "/gates/kernel_u"]
                            + w[p + "/gates/bias"]), 2, 1)
    c = np.tanh(x @ w[p + "/candidate/kernel"] + r * h * w[p + "/candidate/kernel_u"] + w[p + "/candidate/bias"])
    np.testing.assert_allclose(out, u * h + (1 - u) * c, rtol=1e-10)
    np.testing.assert_allclose(new_h, out, rtol=1e-10)


def test_indy_lstm_cell_with_its_forget_bias():
    x, c, h = RNG.standard_normal((B, D)), RNG.standard_normal((B, N)), RNG.standard_normal((B, N))
    out, (new_c, new_h), w = _run_step(lambda: rnn.IndyLSTMCell(N, forget_bias=0.5), x,
                                       tf.nn.rnn_cell.LSTMStateTuple(c, h))
    p = "root/indy_lstm_cell"
    assert _names(w, p) == ["bias", "kernel_u", "kernel_w"] and w[p + "/kernel_u"].shape == (1, 4 * N)
    i, j, f, o = np.split(x @ w[p + "/kernel_w"] + np.tile(h, 4) * w[p + "/kernel_u"] + w[p + "/bias"], 4, 1)
    want_c = c * sigmoid(f + 0.5) + sigmoid(i) * np.tanh(j)
    want_h = np.tanh(want_c) * sigmoid(o)
    np.testing.assert_allclose(new_c, want_c, rtol=1e-10)
    np.testing.assert_allclose(out, want_h, rtol=1e-10)
    np.testing.assert_allclose(new_h, want_h, rtol=1e-10)


_IND_WEIGHTS = {  # (each cell's variables and their shapes for 3 inputs and 3 units)
    "IndRNNCell": {"kernel_w": (3, 3), "kernel_u": (1, 3), "bias": (3,)},
    "IndyGRUCell": {"gates/kernel_w": (3, 6), "gates/kernel_u": (1, 6), "gates/bias": (6,),
                    "candidate/kernel": (3, 3), "candidate/kernel_u": (1, 3), "candidate/bias": (3,)},
    "IndyLSTMCell": {"kernel_w": (3, 12), "kernel_u": (1, 12), "bias": (12,)}}


@pytest.mark.parametrize("cell", sorted(_IND_WEIGHTS))
def test_ind_cells_gradients_through_a_dynamic_rnn_are_central_differences(cell):
    """With respect to the inputs and every weight (fed in place of the variables)."""
    from gradcheck import check_gradients

    names = list(_IND_WEIGHTS[cell])

    def build(inputs, *weights):
        given = dict(zip(names, weights))

        def getter(get, name, *args, **kwargs):
            return given[name.split("_cell/", 1)[1]]  # (rnn/rnn/<the cell's scope>_cell/<its own name>)

        with tf.variable_scope("rnn", custom_getter=getter):
            outputs, _ = tf.nn.dynamic_rnn(getattr(rnn, cell)(3, dtype=tf.float64), inputs, dtype=tf.float64)
        return outputs

    weights = [0.5 * RNG.standard_normal(shape) for shape in _IND_WEIGHTS[cell].values()]
    check_gradients(build, [RNG.standard_normal((2, 4, 3))] + weights)
