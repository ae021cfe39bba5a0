"""Every tf.keras layer against NumPy written the obvious way (weights read back from the
layer), and the shapes Keras gives; the recurrent layers and Dense/Conv2D are in test_keras.py."""

import hashlib
import json

import numpy as np
import pytest

import distflow as tf

K = tf.keras.backend
layers = tf.keras.layers
rng = np.random.RandomState(0)


pytestmark = pytest.mark.usefixtures("fresh_keras")  # (conftest.py: a fresh Keras session and a seed)


def run(layer, *arrays):
    """The layer's output on ``arrays`` (one Input each), through a Model's predict."""
    inputs = [tf.keras.Input(shape=a.shape[1:], dtype=a.dtype.name) for a in arrays]
    out = layer(inputs if len(inputs) > 1 else inputs[0])
    model = tf.keras.Model(inputs, out)
    got = model.predict(list(arrays) if len(arrays) > 1 else arrays[0])
    assert tuple(model.output_shape[1:]) == got.shape[1:], (model.output_shape, got.shape)
    return got


def conv_nd(x, kernel, strides, padding, dilation=None):
    """A channels-last convolution of any rank: x [n, *spatial, c], kernel [*k, c, f]."""
    spatial = kernel.shape[:-2]
    dilation = dilation or (1,) * len(spatial)
    eff = [(k - 1) * d + 1 for k, d in zip(spatial, dilation)]
    if padding == "same":
        outs = [-(-s // st) for s, st in zip(x.shape[1:-1], strides)]
        pads = [max((o - 1) * st + e - s, 0) for o, st, e, s in zip(outs, strides, eff, x.shape[1:-1])]
        x = np.pad(x, [(0, 0)] + [(p // 2, p - p // 2) for p in pads] + [(0, 0)])
    outs = [(s - e) // st + 1 for s, e, st in zip(x.shape[1:-1], eff, strides)]
    out = np.zeros((x.shape[0], *outs, kernel.shape[-1]))
    for index in np.ndindex(*outs):
        window = tuple(slice(i * st, i * st + e, d) for i, st, e, d in zip(index, strides, eff, dilation))
        patch = x[(slice(None),) + window]
        out[(slice(None),) + index] = np.tensordot(patch, kernel, axes=len(spatial) + 1)
    return out


def pool_nd(x, size, strides, reduce):
    outs = [(s - k) // st + 1 for s, k, st in zip(x.shape[1:-1], size, strides)]
    out = np.zeros((x.shape[0], *outs, x.shape[-1]))
    for index in np.ndindex(*outs):
        window = tuple(slice(i * st, i * st + k) for i, st, k in zip(index, strides, size))
        out[(slice(None),) + index] = reduce(x[(slice(None),) + window], axis=tuple(range(1, len(size) + 1)))
    return out


def test_convolutions_of_every_rank_and_kind():
    x1, x2, x3 = (rng.rand(2, 7, 3), rng.rand(2, 6, 5, 3), rng.rand(2, 5, 4, 4, 2))
    x1, x2, x3 = (a.astype(np.float32) for a in (x1, x2, x3))
    for layer, x, kwargs in ((layers.Conv1D(4, 3, strides=2), x1, dict(strides=(2,), padding="valid")),
                             (layers.Conv1D(4, 3, padding="same", dilation_rate=2), x1,
                              dict(strides=(1,), padding="same", dilation=(2,))),
                             (layers.Conv2D(4, (3, 2), strides=(2, 1), padding="same"), x2,
                              dict(strides=(2, 1), padding="same")),
                             (layers.Conv3D(3, 2), x3, dict(strides=(1, 1, 1), padding="valid"))):
        got = run(layer, x)
        kernel, bias = layer.get_weights()
        np.testing.assert_allclose(got, conv_nd(x, kernel, **kwargs) + bias, rtol=1e-4, atol=1e-5,
                                   err_msg=type(layer).__name__)
    depthwise = layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same")
    got = run(depthwise, x2)
    dk, db = depthwise.get_weights()
    want = np.concatenate([conv_nd(x2[..., c:c + 1], dk[:, :, c:c + 1, :], (1, 1), "same") for c in range(3)], -1)
    np.testing.assert_allclose(got, want + db, rtol=1e-4, atol=1e-5)
    separable = layers.SeparableConv2D(5, 3)
    got = run(separable, x2)
    sk, pk, sb = separable.get_weights()
    inner = np.concatenate([conv_nd(x2[..., c:c + 1], sk[:, :, c:c + 1, :], (1, 1), "valid") for c in range(3)], -1)
    np.testing.assert_allclose(got, conv_nd(inner, pk, (1, 1), "valid") + sb, rtol=1e-4, atol=1e-5)
    transpose = layers.Conv2DTranspose(2, 3, strides=2)
    got = run(transpose, x2)
    tk, tb = transpose.get_weights()  # [h, w, filters, in]: each input pixel scatters a kernel-sized patch
    want = np.zeros((2, 13, 11, 2))
    for i in range(6):
        for j in range(5):
            want[:, 2 * i:2 * i + 3, 2 * j:2 * j + 3] += np.einsum("nc,hwfc->nhwf", x2[:, i, j], tk)
    np.testing.assert_allclose(got, want + tb, rtol=1e-4, atol=1e-5)
    # (an output padding: one more row and column at the end, which only the edge pixels reach)
    padded = layers.Conv2DTranspose(2, 3, strides=2, output_padding=1, padding="same")
    got = run(padded, x2)
    pk, pb = padded.get_weights()
    full = np.zeros((2, 13 + 1, 11 + 1, 2))
    for i in range(6):
        for j in range(5):
            full[:, 2 * i:2 * i + 3, 2 * j:2 * j + 3] += np.einsum("nc,hwfc->nhwf", x2[:, i, j], pk)
    # ((6-1)*2+3-2+1 = 12 rows: the convolution it is the transpose of pads them at the end only)
    np.testing.assert_allclose(got, full[:, :12, :10] + pb, rtol=1e-4, atol=1e-5)
    first = layers.Conv2DTranspose(2, 3, strides=2, data_format="channels_first")
    run(first, np.ascontiguousarray(x2.transpose(0, 3, 1, 2)))
    first.set_weights([tk, tb])
    got = run(first, np.ascontiguousarray(x2.transpose(0, 3, 1, 2)))
    np.testing.assert_allclose(got, (want + tb).transpose(0, 3, 1, 2), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="greater than output padding"):
        layers.Conv2DTranspose(2, 3, strides=2, output_padding=2)


def test_pooling_of_every_rank():
    x1, x2, x3 = rng.rand(2, 8, 3), rng.rand(2, 6, 6, 2), rng.rand(2, 4, 4, 4, 2)
    x1, x2, x3 = (a.astype(np.float32) for a in (x1, x2, x3))
    for layer, x, size, strides, reduce in (
            (layers.MaxPooling1D(2), x1, (2,), (2,), np.max), (layers.AveragePooling1D(3, 2), x1, (3,), (2,), np.mean),
            (layers.MaxPool2D((3, 2), strides=(1, 2)), x2, (3, 2), (1, 2), np.max),
            (layers.AveragePooling2D(), x2, (2, 2), (2, 2), np.mean),
            (layers.MaxPooling3D(2), x3, (2, 2, 2), (2, 2, 2), np.max),
            (layers.AveragePooling3D(2), x3, (2, 2, 2), (2, 2, 2), np.mean)):
        np.testing.assert_allclose(run(layer, x), pool_nd(x, size, strides, reduce), rtol=1e-5,
                                   err_msg=type(layer).__name__)
    for layer, x, axes, reduce in ((layers.GlobalAveragePooling1D(), x1, (1,), np.mean),
                                   (layers.GlobalMaxPool2D(), x2, (1, 2), np.max),
                                   (layers.GlobalAvgPool3D(), x3, (1, 2, 3), np.mean),
                                   (layers.GlobalMaxPooling3D(), x3, (1, 2, 3), np.max)):
        np.testing.assert_allclose(run(layer, x), reduce(x, axis=axes), rtol=1e-5, err_msg=type(layer).__name__)


def test_reshaping_padding_cropping_and_up_sampling():
    x = rng.rand(2, 4, 3, 2).astype(np.float32)
    np.testing.assert_array_equal(run(layers.Reshape((6, 4)), x), x.reshape(2, 6, 4))
    np.testing.assert_array_equal(run(layers.Permute((3, 1, 2)), x), x.transpose(0, 3, 1, 2))
    np.testing.assert_array_equal(run(layers.Flatten(), x), x.reshape(2, -1))
    np.testing.assert_array_equal(run(layers.ZeroPadding2D(((1, 0), (2, 1))), x),
                                  np.pad(x, ((0, 0), (1, 0), (2, 1), (0, 0))))
    np.testing.assert_array_equal(run(layers.Cropping2D(((1, 2), (0, 1))), x), x[:, 1:2, 0:2])
    np.testing.assert_array_equal(run(layers.UpSampling2D((2, 3)), x), x.repeat(2, axis=1).repeat(3, axis=2))
    v = rng.rand(2, 5).astype(np.float32)
    np.testing.assert_array_equal(run(layers.RepeatVector(3), v), np.repeat(v[:, None], 3, axis=1))
    s = rng.rand(2, 5, 3).astype(np.float32)
    np.testing.assert_array_equal(run(layers.ZeroPadding1D(2), s), np.pad(s, ((0, 0), (2, 2), (0, 0))))
    np.testing.assert_array_equal(run(layers.Cropping1D((1, 2)), s), s[:, 1:3])
    np.testing.assert_array_equal(run(layers.UpSampling1D(2), s), s.repeat(2, axis=1))
    np.testing.assert_allclose(run(layers.Lambda(lambda t, k: t * k, arguments={"k": 3.0}), v), 3 * v, rtol=1e-6)


def test_merge_layers_and_their_functions():
    a, b, c = (rng.rand(3, 4).astype(np.float32) for _ in range(3))
    for layer, want in ((layers.Add(), a + b + c), (layers.Multiply(), a * b * c), (layers.Average(), (a + b + c) / 3),
                        (layers.Maximum(), np.maximum(np.maximum(a, b), c)),
                        (layers.Minimum(), np.minimum(np.minimum(a, b), c)),
                        (layers.Concatenate(axis=-1), np.concatenate([a, b, c], -1))):
        np.testing.assert_allclose(run(layer, a, b, c), want, rtol=1e-6, err_msg=type(layer).__name__)
    np.testing.assert_allclose(run(layers.Subtract(), a, b), a - b, rtol=1e-6)
    np.testing.assert_allclose(run(layers.Dot(axes=1), a, b), (a * b).sum(1, keepdims=True), rtol=1e-5)
    unit = lambda m: m / np.linalg.norm(m, axis=1, keepdims=True)  # noqa: E731
    np.testing.assert_allclose(run(layers.Dot(axes=1, normalize=True), a, b),
                               (unit(a) * unit(b)).sum(1, keepdims=True), rtol=1e-5)
    ia, ib = tf.keras.Input((4,)), tf.keras.Input((4,))
    for fn, want in ((layers.add, a + b), (layers.subtract, a - b), (layers.multiply, a * b),
                     (layers.average, (a + b) / 2), (layers.maximum, np.maximum(a, b)),
                     (layers.minimum, np.minimum(a, b)), (layers.concatenate, np.concatenate([a, b], -1))):
        got = tf.keras.Model([ia, ib], fn([ia, ib])).predict([a, b])
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=fn.__name__)
    with pytest.raises(ValueError, match="at least 2 inputs"):
        layers.Add()([ia])


def test_activation_layers():
    x = rng.randn(3, 5).astype(np.float32) * 2
    np.testing.assert_allclose(run(layers.LeakyReLU(0.2), x), np.where(x > 0, x, 0.2 * x), rtol=1e-6)
    np.testing.assert_allclose(run(layers.ELU(0.5), x), np.where(x > 0, x, 0.5 * (np.exp(x) - 1)), rtol=1e-5)
    np.testing.assert_allclose(run(layers.ReLU(max_value=1.5), x), np.clip(x, 0, 1.5), rtol=1e-6)
    np.testing.assert_allclose(run(layers.ReLU(negative_slope=0.1, threshold=0.5), x),
                               np.where(x >= 0.5, x, 0.1 * (x - 0.5)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(run(layers.ThresholdedReLU(1.0), x), np.where(x > 1.0, x, 0), rtol=1e-6)
    e = np.exp(x - x.max(0, keepdims=True))
    np.testing.assert_allclose(run(layers.Softmax(axis=0), x), e / e.sum(0, keepdims=True), rtol=1e-5)
    prelu = layers.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.3))
    np.testing.assert_allclose(run(prelu, x), np.where(x > 0, x, 0.3 * x), rtol=1e-5)
    assert prelu.get_weights()[0].shape == (5,)
    for name, fn in (("selu", lambda v: 1.0507009873554805 * np.where(v > 0, v, 1.6732632423543772 * (np.exp(v) - 1))),
                     ("softplus", lambda v: np.log1p(np.exp(v))), ("softsign", lambda v: v / (1 + np.abs(v))),
                     ("hard_sigmoid", lambda v: np.clip(0.2 * v + 0.5, 0, 1)), ("exponential", np.exp),
                     ("linear", lambda v: v)):
        np.testing.assert_allclose(run(layers.Activation(name), x), fn(x), rtol=1e-5, atol=1e-6, err_msg=name)


def test_layer_normalization_and_embedding_and_time_distributed():
    x = rng.randn(3, 4, 6).astype(np.float32)
    norm = layers.LayerNormalization(epsilon=1e-3)
    got = run(norm, x)
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    tokens = rng.randint(0, 10, size=(3, 5)).astype(np.int32)
    embedding = layers.Embedding(10, 4)
    np.testing.assert_array_equal(run(embedding, tokens), embedding.get_weights()[0][tokens])
    dense = layers.Dense(2)
    got = run(layers.TimeDistributed(dense), x)
    w, b = dense.get_weights()
    np.testing.assert_allclose(got, x @ w + b, rtol=1e-5, atol=1e-6)


def test_bidirectional_merges_a_forward_and_a_backward_pass():
    x = rng.randn(2, 4, 3).astype(np.float32)
    for mode in ("concat", "sum", "ave", "mul"):
        K.clear_session()
        inp = tf.keras.Input((4, 3))
        bi = layers.Bidirectional(layers.SimpleRNN(2, return_sequences=True), merge_mode=mode)
        got = tf.keras.Model(inp, bi(inp)).predict(x)
        fk, fr, fb, bk, br, bb = bi.get_weights()

        def rnn(seq, k, r, b):
            h, outs = np.zeros((2, 2)), []
            for t in range(seq.shape[1]):
                h = np.tanh(seq[:, t] @ k + h @ r + b)
                outs.append(h)
            return np.stack(outs, 1)

        forward, backward = rnn(x, fk, fr, fb), rnn(x[:, ::-1], bk, br, bb)[:, ::-1]
        want = {"concat": np.concatenate([forward, backward], -1), "sum": forward + backward,
                "ave": (forward + backward) / 2, "mul": forward * backward}[mode]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=mode)


def test_an_rnn_over_a_list_of_cells_is_the_recurrent_layers_stacked():
    """RNN([LSTMCell, GRUCell]) computes what LSTM(return_sequences=True) then GRU compute
    with the same weights (masked steps included), its weights named under each cell."""
    x = rng.randn(3, 5, 4).astype(np.float32)
    x[0, 3:] = 0.0  # (masked by the Masking layer: the steps keep the state)
    K.clear_session()
    inp = tf.keras.Input((5, 4))
    masked = layers.Masking()(inp)
    stacked = layers.RNN([layers.LSTMCell(6), layers.GRUCell(3)], return_sequences=True, return_state=True)
    out, h1, c1, h2 = stacked(masked)
    assert [w.name for w in stacked.weights] == [
        "rnn/lstm_cell/kernel:0", "rnn/lstm_cell/recurrent_kernel:0", "rnn/lstm_cell/bias:0",
        "rnn/gru_cell/kernel:0", "rnn/gru_cell/recurrent_kernel:0", "rnn/gru_cell/bias:0"]
    assert isinstance(stacked.cell, layers.StackedRNNCells) and stacked.cell.state_size == [6, 6, 3]
    first, second = layers.LSTM(6, return_sequences=True), layers.GRU(3, return_sequences=True)
    plain = second(first(masked))
    first.set_weights(stacked.get_weights()[:3])
    second.set_weights(stacked.get_weights()[3:])
    got, want, last = K.get_session().run([out, plain, h2], {inp: x})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(last, want[:, -1], rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError, match=r"lstm_cell_\d+ has dropout=0.5"):
        layers.RNN([layers.LSTMCell(2), layers.LSTMCell(2, dropout=0.5)])


def test_gru_with_the_reset_gate_after_the_product_matches_tensorflow():
    """GRU(reset_after=True), weights set alike: TensorFlow 2.21's tf_keras outputs (to 6 places)."""
    r = np.random.default_rng(0)
    x = r.standard_normal((2, 4, 3)).astype(np.float32)
    weights = [r.standard_normal((3, 6)).astype(np.float32) * 0.5, r.standard_normal((2, 6)).astype(np.float32) * 0.5,
               r.standard_normal((2, 6)).astype(np.float32) * 0.5]
    K.clear_session()
    layer = layers.GRU(2, reset_after=True, return_sequences=True, recurrent_activation="sigmoid")
    inp = tf.keras.Input((4, 3))
    model = tf.keras.Model(inp, layer(inp))
    layer.set_weights(weights)
    assert layer.weights[2].shape.as_list() == [2, 6] and layer.get_config()["reset_after"] is True
    want = [[[-0.519402, 0.038575], [-0.714159, -0.271439], [-0.538234, -0.581761], [-0.523692, -0.757094]],
            [[0.547399, -0.553650], [0.264053, -0.551180], [-0.151554, -0.330764], [-0.556452, -0.248660]]]
    np.testing.assert_allclose(model.predict(x), want, atol=2e-6)


def test_the_cudnn_layers_are_the_keras_layers_with_their_weights_converted():
    """As Keras converts their weights: CuDNNLSTM is LSTM(recurrent_activation='sigmoid') with
    the two biases summed; CuDNNGRU is GRU(reset_after=True, sigmoid) with its bias as two rows."""
    x = rng.randn(3, 5, 4).astype(np.float32)
    K.clear_session()
    inp = tf.keras.Input((5, 4))
    lstm, gru = layers.CuDNNLSTM(6, return_sequences=True), layers.CuDNNGRU(3, return_state=True)
    out, state = gru(lstm(inp))
    assert [w.shape.as_list() for w in lstm.weights] == [[4, 24], [6, 24], [48]]
    assert [w.shape.as_list() for w in gru.weights] == [[6, 9], [3, 9], [18]]
    assert lstm.name == "cu_dnnlstm" and gru.name == "cu_dnngru"
    plain_lstm = layers.LSTM(6, recurrent_activation="sigmoid", return_sequences=True)
    plain_gru = layers.GRU(3, reset_after=True, recurrent_activation="sigmoid")
    plain = plain_gru(plain_lstm(inp))
    lk, lr, lb = lstm.get_weights()
    assert lb[5 * 6:6 * 6].tolist() == [1.0] * 6 and not lb[:5 * 6].any()  # (unit_forget_bias: the recurrent half)
    biases = np.random.default_rng(1).standard_normal(48).astype(np.float32)
    lb, gb = biases, biases[:18]
    lstm.set_weights([lk, lr, lb])
    plain_lstm.set_weights([lk, lr, lb[:24] + lb[24:]])
    gk, gr, _ = gru.get_weights()
    gru.set_weights([gk, gr, gb])
    plain_gru.set_weights([gk, gr, gb.reshape(2, 9)])
    got, last, want = K.get_session().run([out, state, plain], {inp: x})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(last, want, rtol=1e-5, atol=1e-6)
    again = layers.CuDNNLSTM.from_config(lstm.get_config())
    assert again.get_config() == {**lstm.get_config(), "name": again.name} and "activation" not in lstm.get_config()


class MinimalRNNCell(tf.keras.layers.Layer):
    """Keras's documented example of a cell written by hand (TF 1.x's RNN docstring)."""

    def __init__(self, units, **kwargs):
        self.units = units
        self.state_size = units
        super(MinimalRNNCell, self).__init__(**kwargs)

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="uniform", name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units), initializer="uniform",
                                                name="recurrent_kernel")
        self.built = True

    def call(self, inputs, states):
        prev_output = states[0]
        h = K.dot(inputs, self.kernel)
        output = h + K.dot(prev_output, self.recurrent_kernel)
        return output, [output]


def test_rnn_layers_over_cells_written_by_hand_as_kerass_docs_write_them():
    x = rng.randn(2, 3, 5).astype(np.float32)
    K.clear_session()
    inp = tf.keras.Input((None, 5))
    single = layers.RNN(MinimalRNNCell(4))
    stacked = layers.RNN([MinimalRNNCell(4), layers.GRUCell(2), MinimalRNNCell(3)], return_sequences=True)
    outs = [single(inp), stacked(inp)]
    assert [w.name for w in single.weights] == ["rnn/kernel:0", "rnn/recurrent_kernel:0"]
    assert [w.name for w in stacked.weights][:2] == ["rnn_1/minimal_rnn_cell_1/kernel:0",
                                                     "rnn_1/minimal_rnn_cell_1/recurrent_kernel:0"]
    assert isinstance(tf.keras.layers.AbstractRNNCell(), tf.keras.layers.Layer)
    got_single, got_stacked = tf.keras.Model(inp, outs).predict(x)
    k, r = single.get_weights()
    h = np.zeros((2, 4))
    for t in range(3):
        h = x[:, t] @ k + h @ r
    np.testing.assert_allclose(got_single, h, rtol=1e-5, atol=1e-5)
    k1, r1, gk, gr, gb, k3, r3 = stacked.get_weights()
    h1, h2, h3, seq = np.zeros((2, 4)), np.zeros((2, 2)), np.zeros((2, 3)), []
    for t in range(3):
        h1 = x[:, t] @ k1 + h1 @ r1
        gates = h1 @ gk + gb
        hz = h2 @ gr[:, :4]
        hard = lambda v: np.clip(0.2 * v + 0.5, 0, 1)  # noqa: E731 (Keras's hard sigmoid, TF 1.x's default)
        z, rr = hard(gates[:, :2] + hz[:, :2]), hard(gates[:, 2:4] + hz[:, 2:])
        h2 = z * h2 + (1 - z) * np.tanh(gates[:, 4:] + (rr * h2) @ gr[:, 4:])
        h3 = h2 @ k3 + h3 @ r3
        seq.append(h3)
    np.testing.assert_allclose(got_stacked, np.stack(seq, 1), rtol=1e-5, atol=1e-5)
    # the configs hold each cell's class and config; with a get_config that has its arguments, and
    # its class among the custom objects, a cell written by hand comes back
    assert single.get_config()["cell"]["class_name"] == "MinimalRNNCell"

    class SizedCell(MinimalRNNCell):
        def get_config(self):
            return {**super().get_config(), "units": self.units}

    original = layers.RNN([SizedCell(4), layers.GRUCell(2, reset_after=True)], return_sequences=True)
    original(inp)
    config = original.get_config()
    assert [c["class_name"] for c in config["cell"]["config"]["cells"]] == ["SizedCell", "GRUCell"]
    with pytest.raises(ValueError, match="Unknown layer: SizedCell"):
        layers.RNN.from_config(config)
    again = layers.RNN.from_config(config, custom_objects={"SizedCell": SizedCell})
    again(inp)
    again.set_weights(original.get_weights())
    assert again.cell.cells[1].reset_after and again.cell.cells[0].units == 4
    np.testing.assert_allclose(tf.keras.Model(inp, again.output).predict(x),
                               tf.keras.Model(inp, original.output).predict(x), rtol=1e-6)


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_3d_padding_cropping_and_up_sampling_against_numpy(data_format):
    x = rng.randn(2, 3, 4, 5, 2).astype(np.float32)  # (channels last: 2; first: 3)
    K.clear_session()
    inp = tf.keras.Input(x.shape[1:])
    outs = [layers.ZeroPadding3D(((1, 2), (0, 1), 2), data_format=data_format)(inp),
            layers.ZeroPadding3D(1, data_format=data_format)(inp),
            layers.Cropping3D(((1, 0), (1, 2), (0, 1)), data_format=data_format)(inp),
            layers.UpSampling3D((2, 1, 3), data_format=data_format)(inp)]
    got = tf.keras.Model(inp, outs).predict(x)
    first = data_format == "channels_first"

    def pads(spec):  # (the spatial pairs placed on the data's axes)
        return [(0, 0), (0, 0), *spec] if first else [(0, 0), *spec, (0, 0)]

    np.testing.assert_array_equal(got[0], np.pad(x, pads([(1, 2), (0, 1), (2, 2)])))
    np.testing.assert_array_equal(got[1], np.pad(x, pads([(1, 1)] * 3)))
    crop = (slice(None), slice(None), slice(1, None), slice(1, -2), slice(0, -1)) if first else \
        (slice(None), slice(1, None), slice(1, -2), slice(0, -1), slice(None))
    np.testing.assert_array_equal(got[2], x[crop])
    want = x
    for axis, times in zip((2, 3, 4) if first else (1, 2, 3), (2, 1, 3)):
        want = np.repeat(want, times, axis=axis)
    np.testing.assert_array_equal(got[3], want)
    assert layers.ZeroPadding3D.from_config(layers.ZeroPadding3D(2).get_config()).padding == ((2, 2),) * 3


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_separable_conv1d_is_a_depthwise_then_a_pointwise_convolution_over_time(data_format):
    x = rng.randn(2, 9, 3).astype(np.float32)  # [batch, time, channels]
    K.clear_session()
    layer = layers.SeparableConv1D(4, 3, strides=2, depth_multiplier=2, padding="valid", data_format=data_format,
                                   bias_initializer="ones")
    inp = tf.keras.Input((3, 9) if data_format == "channels_first" else (9, 3))
    model = tf.keras.Model(inp, layer(inp))
    got = model.predict(x.transpose(0, 2, 1) if data_format == "channels_first" else x)
    depth, point, bias = layer.get_weights()
    assert depth.shape == (3, 3, 2) and point.shape == (1, 6, 4) and layer.name.startswith("separable_conv1d")
    steps = (9 - 3) // 2 + 1
    mid = np.zeros((2, steps, 3, 2), np.float64)
    for t in range(steps):
        window = x[:, 2 * t:2 * t + 3]  # [batch, 3 taps, channels]
        mid[:, t] = np.einsum("bkc,kcm->bcm", window, depth)
    want = mid.reshape(2, steps, 6) @ point[0] + bias
    if data_format == "channels_first":
        want = want.transpose(0, 2, 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert tf.keras.layers.SeparableConvolution1D is layers.SeparableConv1D


@pytest.mark.parametrize("padding, strides", [("same", 2), ("valid", (1, 2, 1))])
def test_conv3d_transpose_is_conv3ds_adjoint(padding, strides):
    """<conv3d(x, k), y> = <x, Conv3DTranspose(y)> with the layer's kernel (no bias); the
    output's size is Keras's."""
    K.clear_session()
    layer = layers.Conv3DTranspose(2, (2, 3, 2), strides=strides, padding=padding, use_bias=False)
    y_in = tf.keras.Input((3, 4, 3, 4))
    out = layer(y_in)
    full = (1,) + ((strides,) * 3 if isinstance(strides, int) else strides) + (1,)
    size = [3 * full[1], 4 * full[2], 3 * full[3]] if padding == "same" else \
        [d * s + max(k - s, 0) for d, k, s in zip((3, 4, 3), (2, 3, 2), full[1:4])]
    assert out.shape.as_list() == [None, *size, 2]
    x = tf.placeholder(tf.float32, [2, *size, 2])
    forward = tf.nn.conv3d(x, layer.kernel, full, padding.upper())
    xv = rng.randn(2, *size, 2).astype(np.float32)
    yv = rng.randn(2, 3, 4, 3, 4).astype(np.float32)
    fx, ty = K.get_session().run([forward, out], {x: xv, y_in: yv})
    assert fx.shape == yv.shape
    # (float32 sums that cancel: the tolerance scales with the terms' magnitude, not the result's)
    scale = np.vdot(np.abs(fx.astype(np.float64)), np.abs(yv))
    assert np.vdot(fx.astype(np.float64), yv) == pytest.approx(np.vdot(xv.astype(np.float64), ty), abs=1e-5 * scale)
    assert tf.keras.layers.Convolution3DTranspose is layers.Conv3DTranspose


@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_locally_connected_layers_give_each_position_its_own_kernel(data_format):
    """Against NumPy loops over the output positions, with Keras's weight layout."""
    first = data_format == "channels_first"
    x2 = rng.randn(2, 6, 5, 3).astype(np.float32)  # [batch, rows, cols, channels]
    x1 = rng.randn(2, 7, 3).astype(np.float32)  # [batch, steps, channels]
    K.clear_session()
    two = layers.LocallyConnected2D(4, (3, 2), strides=(2, 1), data_format=data_format, bias_initializer="ones")
    one = layers.LocallyConnected1D(2, 3, strides=2, data_format=data_format)
    in2 = tf.keras.Input((3, 6, 5) if first else (6, 5, 3))
    in1 = tf.keras.Input((3, 7) if first else (7, 3))
    got2, got1 = tf.keras.Model([in2, in1], [two(in2), one(in1)]).predict(
        [x2.transpose(0, 3, 1, 2) if first else x2, x1.transpose(0, 2, 1) if first else x1])
    k2, b2 = two.get_weights()
    assert k2.shape == (2 * 4, 3 * 2 * 3, 4) and b2.shape == (2, 4, 4)
    want2 = np.zeros((2, 2, 4, 4))
    for i in range(2):
        for j in range(4):
            patch = x2[:, 2 * i:2 * i + 3, j:j + 2, :].reshape(2, -1)
            want2[:, i, j] = patch @ k2[i * 4 + j] + b2[i, j]
    k1, b1 = one.get_weights()
    assert k1.shape == (3, 9, 2) and b1.shape == (3, 2)
    want1 = np.stack([x1[:, 2 * t:2 * t + 3].reshape(2, -1) @ k1[t] + b1[t] for t in range(3)], 1)
    np.testing.assert_allclose(got2, want2.transpose(0, 3, 1, 2) if first else want2, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got1, want1.transpose(0, 2, 1) if first else want1, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="only \"valid\""):
        layers.LocallyConnected2D(2, 3, padding="same")


def test_pad_sequences_and_the_tokenizer():
    pad = tf.keras.preprocessing.sequence.pad_sequences
    seqs = [[1, 2, 3], [4], [5, 6, 7, 8, 9]]
    np.testing.assert_array_equal(pad(seqs, maxlen=4), [[0, 1, 2, 3], [0, 0, 0, 4], [6, 7, 8, 9]])
    np.testing.assert_array_equal(pad(seqs, maxlen=4, padding="post", truncating="post", value=-1),
                                  [[1, 2, 3, -1], [4, -1, -1, -1], [5, 6, 7, 8]])
    assert pad(seqs).shape == (3, 5) and pad(seqs).dtype == np.int32
    tokenizer = tf.keras.preprocessing.text.Tokenizer(num_words=4, oov_token="<?>")
    tokenizer.fit_on_texts(["the cat sat", "The cat, the hat!"])
    assert tokenizer.word_index == {"<?>": 1, "the": 2, "cat": 3, "sat": 4, "hat": 5}
    assert tokenizer.texts_to_sequences(["the hat sat on the cat"]) == [[2, 1, 1, 1, 2, 3]]
    np.testing.assert_array_equal(tokenizer.texts_to_matrix(["cat the the"], mode="count"), [[0, 0, 2, 1]])


def test_datasets_are_read_from_keras_cache_and_never_downloaded(tmp_path, monkeypatch):
    import gzip

    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"mnist.npz is not in Keras's cache .*does not download"):
        tf.keras.datasets.mnist.load_data()
    cache = tmp_path / "datasets"
    (cache / "fashion-mnist").mkdir(parents=True)
    images = rng.randint(0, 255, size=(3, 28, 28)).astype(np.uint8)
    np.savez(cache / "mnist.npz", x_train=images, y_train=np.arange(3, dtype=np.uint8), x_test=images[:1],
             y_test=np.array([7], np.uint8))
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
    np.testing.assert_array_equal(x_train, images)
    assert y_test.tolist() == [7]
    for name, payload in (("train-labels-idx1-ubyte.gz", b"\0" * 8 + bytes([1, 2, 3])),
                          ("train-images-idx3-ubyte.gz", b"\0" * 16 + images.tobytes()),
                          ("t10k-labels-idx1-ubyte.gz", b"\0" * 8 + bytes([4])),
                          ("t10k-images-idx3-ubyte.gz", b"\0" * 16 + images[:1].tobytes())):
        with gzip.open(cache / "fashion-mnist" / name, "wb") as f:
            f.write(payload)
    (x_train, y_train), (x_test, y_test) = tf.keras.datasets.fashion_mnist.load_data()
    np.testing.assert_array_equal(x_train, images)
    assert y_train.tolist() == [1, 2, 3] and x_test.shape == (1, 28, 28)
    np.savez(cache / "boston_housing.npz", x=np.arange(20.0).reshape(10, 2), y=np.arange(10.0))
    (bx, by), (tx, ty) = tf.keras.datasets.boston_housing.load_data()
    assert bx.shape == (8, 2) and tx.shape == (2, 2) and sorted(np.r_[by, ty]) == list(range(10))


def conv_lstm_numpy(x, kernel, recurrent, bias, strides, padding, dilation, go_backwards=False, mask=None):
    """ConvLSTM2D written the obvious way: x [batch, time, rows, cols, c]; every state and
    output of the steps, in the order they ran."""
    f = recurrent.shape[-1] // 4

    def hard_sigmoid(v):
        return np.clip(0.2 * v + 0.5, 0, 1)

    steps = list(range(x.shape[1]))[::-1] if go_backwards else list(range(x.shape[1]))
    h = c = None
    outs = []
    for t in steps:
        xz = conv_nd(x[:, t], kernel, strides, padding, dilation) + bias
        if h is None:
            h = c = np.zeros(xz.shape[:-1] + (f,))
        z = xz + conv_nd(h, recurrent, (1, 1), "same")
        i, fg, g, o = (z[..., k * f:(k + 1) * f] for k in range(4))
        new_c = hard_sigmoid(fg) * c + hard_sigmoid(i) * np.tanh(g)
        new_h = hard_sigmoid(o) * np.tanh(new_c)
        if mask is not None:
            keep = mask[:, t].reshape(-1, 1, 1, 1)
            new_h, new_c = keep * new_h + (1 - keep) * h, keep * new_c + (1 - keep) * c
        h, c = new_h, new_c
        outs.append(h)
    return np.stack(outs, 1), h, c


@pytest.mark.parametrize("padding, strides, dilation, backwards", [("same", (1, 1), (1, 1), False),
                                                                 ("valid", (2, 1), (1, 1), True),
                                                                 ("valid", (1, 1), (2, 1), False)])
def test_conv_lstm_2d_matches_numpy(padding, strides, dilation, backwards):
    x = rng.randn(2, 4, 7, 6, 3).astype(np.float32)
    layer = layers.ConvLSTM2D(5, (3, 2), strides=strides, padding=padding, dilation_rate=dilation,
                              return_sequences=True, go_backwards=backwards, return_state=True,
                              bias_initializer="glorot_uniform")
    inputs = tf.keras.Input(shape=x.shape[1:])
    seq, h, c = layer(inputs)
    got = K.get_session().run([seq, h, c], {inputs: x})
    kernel, recurrent, bias = K.batch_get_value([layer.kernel, layer.recurrent_kernel, layer.bias])
    want = conv_lstm_numpy(x.astype(np.float64), kernel, recurrent, bias, strides, padding.lower(), dilation,
                           backwards)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)
    assert seq.shape.as_list() == [None, *want[0].shape[1:]] and h.shape.as_list() == [None, *want[1].shape[1:]]
    assert np.all(bias[5:10] == 1.0) and np.all(bias[:5] != 0.0)  # (unit_forget_bias: the forget gate's ones)


def test_conv_lstm_2d_channels_first_masking_dropout_and_training():
    x = rng.randn(3, 5, 6, 6, 2).astype(np.float32)
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]], dtype=np.float32)
    x[mask == 0] = 0.0
    inputs = tf.keras.Input(shape=x.shape[1:])
    masked = layers.Masking(0.0)(inputs)
    layer = layers.ConvLSTM2D(4, 3, padding="same")
    out = layer(masked)
    first = layers.ConvLSTM2D(4, 3, padding="same", data_format="channels_first")
    transposed = np.transpose(x, (0, 1, 4, 2, 3))
    cf_in = tf.keras.Input(shape=transposed.shape[1:])
    cf_out = first(layers.Masking(0.0)(cf_in))
    sess = K.get_session()
    first.set_weights(layer.get_weights())
    got, got_cf = sess.run([out, cf_out], {inputs: x, cf_in: transposed})
    kernel, recurrent, bias = layer.get_weights()
    _, h, _ = conv_lstm_numpy(x.astype(np.float64), kernel, recurrent, bias, (1, 1), "same", (1, 1), mask=mask)
    np.testing.assert_allclose(got, h, rtol=2e-5, atol=2e-5)  # (a masked step keeps the state it had)
    np.testing.assert_allclose(got_cf, np.transpose(h, (0, 3, 1, 2)), rtol=2e-5, atol=2e-5)
    # with dropout, a model trains, and predicts without it
    K.clear_session()
    model = tf.keras.Sequential([layers.ConvLSTM2D(3, 3, padding="same", dropout=0.2, recurrent_dropout=0.2,
                                                   input_shape=x.shape[1:]),
                                 layers.Flatten(), layers.Dense(1)])
    model.compile(tf.keras.optimizers.Adam(0.01), "mse")
    y = x.reshape(3, -1).sum(1, keepdims=True)
    before = model.evaluate(x, y, verbose=0)
    model.fit(x, y, epochs=20, verbose=0)
    assert model.evaluate(x, y, verbose=0) < before
    np.testing.assert_array_equal(model.predict(x), model.predict(x))
    clone = tf.keras.models.model_from_json(model.to_json())
    assert clone.layers[0].get_config() == model.layers[0].get_config()


def _tripled(x, scale=1.0):
    return 3.0 * scale * x


def _tripled_shape(input_shape):
    return input_shape


@pytest.mark.parametrize("make", [
    lambda: layers.GaussianNoise(0.3), lambda: layers.GaussianDropout(0.2), lambda: layers.AlphaDropout(0.1, seed=3),
    lambda: layers.SpatialDropout1D(0.4), lambda: layers.Masking(-1.0), lambda: layers.ActivityRegularization(0.1, 0.2),
    lambda: layers.PReLU(alpha_regularizer="l2", shared_axes=[1]), lambda: layers.ThresholdedReLU(0.5),
    lambda: layers.UpSampling1D(3), lambda: layers.ZeroPadding1D((1, 2)), lambda: layers.Cropping1D((2, 0)),
    lambda: layers.LayerNormalization(epsilon=0.01, center=False), lambda: layers.LSTMCell(3, unit_forget_bias=False),
    lambda: layers.GRUCell(2, reset_after=True), lambda: layers.SimpleRNNCell(4, activation="relu"),
    lambda: layers.SeparableConv2D(2, 3, depth_multiplier=2), lambda: layers.Conv2DTranspose(2, 3),
    lambda: layers.RNN(layers.LSTMCell(3), return_sequences=True),
    lambda: layers.RNN([layers.SimpleRNNCell(2), layers.GRUCell(3)]),
    lambda: layers.Lambda(_tripled, output_shape=_tripled_shape, arguments={"scale": 2.0}),
    lambda: layers.Lambda(_tripled, output_shape=(7,))])
def test_a_layer_made_from_its_config_has_the_same_config(make):
    """Every argument of a layer is in its config (what model.save writes), so that the layer
    comes back from it the same."""
    layer = make()
    config = layer.get_config()
    again = type(layer).from_config(config)
    assert again.get_config() == {**config, "name": again.name}


def test_a_lambda_layer_of_a_lambda_is_refused_on_loading_saying_why():
    layer = layers.Lambda(lambda x: x + 1, output_shape=(3,))
    config = layer.get_config()
    assert config["function"] is None and config["function_type"] == "lambda"
    with pytest.raises(ValueError, match="named function"):
        layers.Lambda.from_config(config)
    # a named function that no module imported here defines: found through custom_objects
    config = {**layers.Lambda(_tripled).get_config(), "module": "not_a_module"}
    with pytest.raises(ValueError, match="pass it in custom_objects"):
        layers.Lambda.from_config(config)
    assert layers.Lambda.from_config(config, custom_objects={"_tripled": _tripled}).function is _tripled
    assert layers.Lambda(_tripled, output_shape=(7,)).compute_output_shape((None, 3)).as_list() == [None, 7]


def test_merges_carry_masks_and_check_shapes():
    K.clear_session()
    a, b = tf.keras.Input((3, 2)), tf.keras.Input((3, 2))
    masked = layers.Masking(0.0)(a)
    added = layers.add([masked, b])
    joined = layers.Concatenate(axis=1)([masked, b])
    model = tf.keras.Model([a, b], [added, joined])
    xa = np.array([[[1.0, 1.0], [0.0, 0.0], [2.0, 0.0]]])
    xb = np.ones((1, 3, 2))
    add_layer, concat_layer = model.layers[-2], model.layers[-1]
    mask_add, mask_concat = K.get_session().run([add_layer.output_mask, concat_layer.output_mask],
                                                {a: xa, b: xb})
    np.testing.assert_array_equal(mask_add, [[True, False, True]])  # (b has none: a's mask)
    np.testing.assert_array_equal(mask_concat, [[True, False, True, True, True, True]])
    assert add_layer.input_mask[1] is None and layers.Dropout(0.5).supports_masking
    with pytest.raises(ValueError, match="matching shapes except for the concat axis"):
        layers.Concatenate(axis=1)([tf.keras.Input((4, 5)), tf.keras.Input((3, 6))])
    assert layers.Dot(axes=-1).compute_output_shape([(4, 5), (4, 5)]).as_list() == [4, 1]
    assert [s.as_list() for s in layers.Lambda(lambda xs: [xs[0], xs[1] * 2]).compute_output_shape(
        [(None, 2), (None, 3)])] == [[None, 2], [None, 3]]


def test_a_layer_shared_at_two_depths_comes_back_from_the_config_and_clones_on_tensors():
    K.clear_session()
    in_a, in_b = tf.keras.Input((4,)), tf.keras.Input((4,))
    shared, second = layers.Dense(4), layers.Dense(4)
    deep = second(layers.Dropout(0.5)(shared(in_a)))
    model = tf.keras.Model([in_a, in_b], layers.add([deep, shared(in_b)]))
    x = [np.random.RandomState(2).rand(3, 4), np.random.RandomState(3).rand(3, 4)]
    # (the config lists the shared layer before the input of its second call)
    again = tf.keras.models.clone_model(model)
    again.set_weights(model.get_weights())
    np.testing.assert_allclose(again.predict(x), model.predict(x), rtol=1e-6)
    values = [tf.constant(v.astype(np.float32)) for v in x]
    on_tensors = tf.keras.models.clone_model(model, input_tensors=values)
    on_tensors.set_weights(model.get_weights())
    np.testing.assert_allclose(K.get_session().run(on_tensors.output), model.predict(x), rtol=1e-6)


def _scaled(x, factor):
    return x * factor


def test_a_saved_lambda_keeps_its_array_arguments_and_a_tf_optimizer_is_left_out(tmp_path, caplog):
    pytest.importorskip("h5py")
    K.clear_session()
    factor = np.array([1.0, 2.0, 3.0], np.float32)
    model = tf.keras.Sequential([layers.Lambda(_scaled, arguments={"factor": factor}, input_shape=(3,))])
    model.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
    path = str(tmp_path / "lambda.h5")
    with caplog.at_level("WARNING"):
        model.save(path)
    assert "compile your model again after loading it" in caplog.text
    loaded = tf.keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(np.ones((2, 3))), [[1.0, 2.0, 3.0]] * 2)
    with pytest.raises(RuntimeError, match="must compile your model"):  # (as the warning said)
        loaded.evaluate(np.ones((2, 3)), np.ones((2, 3)), verbose=0)


def test_a_layer_shared_by_two_models_gives_each_the_updates_of_its_own_call():
    K.clear_session()
    bn = layers.BatchNormalization()
    x1, x2 = tf.keras.Input((10,)), tf.keras.Input((10,))
    first, second = tf.keras.Model(x1, bn(x1)), tf.keras.Model(x2, bn(x2))
    assert len(bn.updates) == 4 and len(first.updates) == 2 and len(second.updates) == 2
    assert not {id(u) for u in first.updates} & {id(u) for u in second.updates}


def test_separable_conv2d_regularizes_and_constrains_both_kernels_and_paddings_refuse_bad_sizes():
    K.clear_session()
    layer = layers.SeparableConv2D(2, 3, depthwise_regularizer=tf.keras.regularizers.l2(0.5),
                                   pointwise_regularizer="l1", depthwise_constraint=tf.keras.constraints.NonNeg(),
                                   pointwise_constraint=tf.keras.constraints.MaxNorm(1.0))
    layer(tf.keras.Input((5, 5, 3)))
    assert len(layer.losses) == 2
    assert layer.depthwise_kernel.constraint is layer.depthwise_constraint
    assert isinstance(layer.pointwise_kernel.constraint, tf.keras.constraints.MaxNorm)
    assert type(layer).from_config(layer.get_config()).get_config()["pointwise_regularizer"]["config"]["l1"] == 0.01
    for make in (lambda: layers.ZeroPadding1D(padding=None), lambda: layers.ZeroPadding2D(padding=(1, 1, 1)),
                 lambda: layers.ZeroPadding3D(padding=(1, 1)), lambda: layers.Cropping3D(cropping=None),
                 lambda: layers.Cropping2D(cropping=(1, 1, 1))):
        with pytest.raises(ValueError):
            make()


def test_time_distributed_passes_training_on():
    K.clear_session()
    x = tf.keras.Input((3, 2))
    model = tf.keras.Model(x, layers.TimeDistributed(layers.Dropout(0.5))(x, training=True))
    got = model.predict(np.ones((100, 3, 2)))  # (dropped, though predict does not train: 600 draws)
    assert set(np.unique(got)) == {0.0, 2.0}


def test_a_stateful_lstm_carries_its_states_from_batch_to_batch_until_reset():
    """Keras's stateful example: the states one batch ends with start the next (predict's too);
    reset_states starts again from zeros, and the result is one run over the joined sequence."""
    K.clear_session()
    x = np.random.RandomState(4).rand(2, 6, 3).astype(np.float32)
    stateful = tf.keras.Sequential([layers.LSTM(4, stateful=True, batch_input_shape=(2, 3, 3))])
    whole = tf.keras.Sequential([layers.LSTM(4, input_shape=(6, 3))])
    whole.set_weights(stateful.get_weights())
    first = stateful.predict(x[:, :3])
    second = stateful.predict(x[:, 3:])  # (starts where the first left off)
    np.testing.assert_allclose(second, whole.predict(x), rtol=1e-5, atol=1e-6)
    stateful.reset_states()
    np.testing.assert_allclose(stateful.predict(x[:, :3]), first, rtol=1e-6)
    layer = stateful.layers[0]
    layer.reset_states([np.ones((2, 4)), np.zeros((2, 4))])
    assert (K.get_value(layer.states[0]) == 1).all()
    with pytest.raises(ValueError, match="should have shape"):
        layer.reset_states([np.ones((3, 4)), np.zeros((2, 4))])
    assert layers.LSTM.from_config(layer.get_config()).stateful
    with pytest.raises(ValueError, match="batch size"):
        tf.keras.Sequential([layers.GRU(2, stateful=True, input_shape=(3, 3))])
    with pytest.raises(AttributeError, match="must be stateful"):
        whole.layers[0].reset_states()


def test_rnn_cells_that_take_constants_or_are_not_layers():
    K.clear_session()

    class WithConstants(tf.keras.layers.Layer):
        def __init__(self, units, **kwargs):
            self.units = self.state_size = units
            super().__init__(**kwargs)

        def build(self, input_shape):
            step_shape, constant_shape = input_shape  # (built with the constants' shapes too)
            self.kernel = self.add_weight("kernel", (step_shape[-1], self.units), initializer="ones")
            self.constant_kernel = self.add_weight("constant_kernel", (constant_shape[-1], self.units),
                                                   initializer="ones")
            self.built = True

        def call(self, inputs, states, constants):
            out = K.dot(inputs, self.kernel) + states[0] + K.dot(constants[0], self.constant_kernel)
            return out, [out]

    class Plain:  # (not a Layer: a state size, a call and a variable of its own)
        state_size = 2

        def __init__(self):
            self.kernel = K.variable(np.ones((3, 2)))

        def call(self, inputs, states):
            out = K.dot(inputs, self.kernel) + states[0]
            return out, [out]

    x, c, s = tf.keras.Input((None, 3)), tf.keras.Input((2,)), tf.keras.Input((1,))
    y = layers.RNN(WithConstants(1))(x, initial_state=s, constants=c)
    xs, cs, ss = np.ones((2, 4, 3)), np.ones((2, 2)), np.full((2, 1), 10.0)
    np.testing.assert_allclose(tf.keras.Model([x, s, c], y).predict([xs, ss, cs]), np.full((2, 1), 10.0 + 4 * 5))
    z = layers.RNN(Plain())(x)
    np.testing.assert_allclose(tf.keras.Model(x, z).predict(xs), np.full((2, 2), 12.0))
    with pytest.raises(ValueError, match="takes none"):
        layers.LSTM(2)(x, constants=c)
    assert layers.SimpleRNN(2, implementation=2).get_config()["units"] == 2


def test_a_layer_called_on_a_variable_gives_its_losses_for_that_variable():
    K.clear_session()
    layer = layers.Dense(2, activity_regularizer="l1")
    v = K.variable(np.ones((3, 4)))
    layer(v)
    assert len(layer.get_losses_for(v)) == 1 and len(layer.get_losses_for(None)) == 0


def test_hashing_skipgrams_sampling_table_and_time_series_windows():
    text = tf.keras.preprocessing.text
    sequence = tf.keras.preprocessing.sequence
    hashed = text.hashing_trick("The cat sat on the mat.", 7, hash_function="md5")
    assert hashed == [int(hashlib.md5(w.encode()).hexdigest(), 16) % 6 + 1
                      for w in ["the", "cat", "sat", "on", "the", "mat"]]
    assert hashed[0] == hashed[4] and all(1 <= i < 7 for i in text.one_hot("The cat sat on the mat.", 7))
    tokenizer = text.Tokenizer()
    tokenizer.fit_on_sequences([[1, 2, 2], [2, 3]])
    assert tokenizer.document_count == 2 and tokenizer.index_docs[2] == 2 and tokenizer.index_docs[3] == 1
    # the sampling table: sqrt(sampling_factor / frequency), frequencies from Zipf's law, at most 1
    table = sequence.make_sampling_table(5, sampling_factor=1e-3)
    r = np.array([1.0, 1, 2, 3, 4])
    want = np.minimum(1.0, np.sqrt(1e-3 * (r * (np.log(r) + 0.577) + 0.5 - 1 / (12 * r))))
    np.testing.assert_allclose(table, want)
    couples, labels = sequence.skipgrams([0, 1, 2, 3], vocabulary_size=4, window_size=1, seed=3)
    positive = sorted(tuple(c) for c, label in zip(couples, labels) if label == 1)
    assert positive == [(1, 2), (2, 1), (2, 3), (3, 2)]  # (index 0 is padding: no pair)
    assert labels.count(0) == 4 and all(1 <= c[1] < 4 for c, label in zip(couples, labels) if label == 0)
    _, categorical = sequence.skipgrams([1, 2], 3, negative_samples=0.0, categorical=True, shuffle=False)
    assert categorical == [[0, 1], [0, 1]]
    data = np.arange(10)[:, None]
    windows = sequence.TimeseriesGenerator(data, np.arange(10), length=3, sampling_rate=1, batch_size=2)
    assert len(windows) == 4  # (targets 3..9: 7 windows, 2 a batch)
    x, y = windows[0]
    np.testing.assert_array_equal(x[:, :, 0], [[0, 1, 2], [1, 2, 3]])
    np.testing.assert_array_equal(y, [3, 4])
    x, y = windows[3]
    np.testing.assert_array_equal(y, [9])
    strided = sequence.TimeseriesGenerator(data, np.arange(10), length=4, sampling_rate=2, stride=3, reverse=True)
    x, y = strided[0]
    np.testing.assert_array_equal(x[:, :, 0], [[2, 0], [5, 3]])
    np.testing.assert_array_equal(y, [4, 7])


def _softmax_mix(scores, value):
    w = np.exp(scores - scores.max(-1, keepdims=True))
    return (w / w.sum(-1, keepdims=True)) @ value


def test_attention_layers_against_numpy():
    q = rng.randn(2, 3, 4).astype(np.float32)
    v = rng.randn(2, 5, 4).astype(np.float32)
    k = rng.randn(2, 5, 4).astype(np.float32)
    np.testing.assert_allclose(run(layers.Attention(), q, v), _softmax_mix(q @ v.transpose(0, 2, 1), v), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(run(layers.Attention(), q, v, k), _softmax_mix(q @ k.transpose(0, 2, 1), v),
                               rtol=1e-5, atol=1e-6)
    additive = layers.AdditiveAttention()
    got = run(additive, q, v)
    scale = K.get_value(additive.scale)
    scores = (scale * np.tanh(q[:, :, None, :] + v[:, None, :, :])).sum(-1)
    np.testing.assert_allclose(got, _softmax_mix(scores, v), rtol=1e-5, atol=1e-6)
    assert additive.get_config()["use_scale"] is True


def test_attention_masks_padding_and_the_future():
    tokens = np.array([[3, 1, 2, 0], [5, 4, 0, 0]])  # (zero: padding)
    inp = tf.keras.Input((4,))
    embedded = layers.Embedding(6, 3, mask_zero=True)(inp)
    out = layers.Attention(causal=True)([embedded, embedded])
    model = tf.keras.Model(inp, out)
    table = K.get_value(model.layers[1].embeddings)
    e = table[tokens]
    got = model.predict(tokens)
    mask = tokens > 0
    scores = e @ e.transpose(0, 2, 1) - 1e9 * ~mask[:, None, :] - 1e9 * (1 - np.tril(np.ones((4, 4))))[None]
    expected = _softmax_mix(scores, e) * mask[:, :, None]  # (padded query steps give zeros)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"namely \[query, value\]"):
        layers.Attention()(tf.keras.Input((4, 3)))


def test_attention_gradients_by_central_differences():
    with tf.Graph().as_default():
        q = tf.constant(rng.randn(1, 2, 3))
        v = tf.constant(rng.randn(1, 4, 3))
        for layer in (layers.Attention(use_scale=True, dtype="float64"), layers.AdditiveAttention(dtype="float64")):
            out = layer([q, v])
            with tf.Session() as session:
                session.run(tf.global_variables_initializer())
                for wrt in (q, v, layer.scale):
                    shape = wrt.shape.as_list()
                    value = session.run(wrt)
                    assert tf.test.compute_gradient_error(wrt, shape, out, [1, 2, 3], x_init_value=value,
                                                          delta=1e-6) < 1e-6


def test_a_tokenizer_goes_to_json_and_back_in_keras_form():
    texts = ["The cat sat on the mat.", "The dog ate my homework!", "cats and dogs"]
    tokenizer = tf.keras.preprocessing.text.Tokenizer(num_words=6, oov_token="<unk>")
    tokenizer.fit_on_texts(texts)
    text = tokenizer.to_json()
    config = json.loads(text)["config"]
    assert json.loads(config["word_index"])["the"] == 2 and isinstance(config["word_counts"], str)  # (Keras's form)
    again = tf.keras.preprocessing.text.tokenizer_from_json(text)
    assert again.texts_to_sequences(texts + ["a new text"]) == tokenizer.texts_to_sequences(texts + ["a new text"])
    np.testing.assert_array_equal(again.texts_to_matrix(texts, mode="tfidf"), tokenizer.texts_to_matrix(texts,
                                                                                                          mode="tfidf"))
    assert again.index_word[2] == "the" and again.document_count == 3


def test_peephole_lstm_cell_against_its_equations():
    x = rng.randn(3, 4, 2).astype(np.float32)
    rnn = layers.RNN(tf.keras.experimental.PeepholeLSTMCell(3))
    got = run(rnn, x)
    kernel, recurrent, bias, p_i, p_f, p_o = rnn.get_weights()
    assert [w.name.split("/")[-1] for w in rnn.weights][3:] == [
        "input_gate_peephole_weights:0", "forget_gate_peephole_weights:0", "output_gate_peephole_weights:0"]
    h, c = np.zeros((3, 3)), np.zeros((3, 3))

    def hard_sigmoid(v):
        return np.clip(0.2 * v + 0.5, 0, 1)

    for t in range(4):
        z = x[:, t] @ kernel + h @ recurrent + bias
        i = hard_sigmoid(z[:, :3] + p_i * c)
        f = hard_sigmoid(z[:, 3:6] + p_f * c)
        c = f * c + i * np.tanh(z[:, 6:9])
        h = hard_sigmoid(z[:, 9:] + p_o * c) * np.tanh(c)
    np.testing.assert_allclose(got, h, rtol=1e-5, atol=1e-6)
