"""tf.contrib.cudnn_rnn: the layers against cuDNN's equations written in NumPy, their gradients
by central differences, and their weights moved to and from the compatible cells by name."""

import numpy as np
import pytest

import distflow as tf

cudnn_rnn = tf.contrib.cudnn_rnn
GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


def _blocks(opaque, mode, num_layers, num_units, input_size, num_dirs):
    """The opaque vector cut as the layers lay it out: per layer and direction, the weights
    ([units, width], input's then recurrent, a gate each), then the biases."""
    g, at, out = GATES[mode], 0, {}
    for layer in range(num_layers):
        width = input_size if layer == 0 else num_units * num_dirs
        for d in range(num_dirs):
            w = []
            for k in range(2 * g):
                cols = width if k < g else num_units
                w.append(opaque[at:at + num_units * cols].reshape(num_units, cols))
                at += num_units * cols
            b = []
            for _ in range(2 * g):
                b.append(opaque[at:at + num_units])
                at += num_units
            out[(layer, d)] = (w, b)
    assert at == len(opaque)
    return out


def _numpy_rnn(mode, x, opaque, num_layers, num_units, num_dirs, lengths, h0=None, c0=None):
    """cuDNN's RNN written the obvious way: a loop over layers, directions, examples and steps."""
    steps, batch, depth = x.shape
    blocks = _blocks(opaque, mode, num_layers, num_units, depth, num_dirs)
    h_n = np.zeros((num_layers * num_dirs, batch, num_units))
    c_n = np.zeros_like(h_n)
    layer_in = x.astype(np.float64)
    for layer in range(num_layers):
        outs = []
        for d in range(num_dirs):
            w, b = blocks[(layer, d)]
            out = np.zeros((steps, batch, num_units))
            index = layer * num_dirs + d
            for n in range(batch):
                h = np.zeros(num_units) if h0 is None else h0[index, n].astype(np.float64)
                c = np.zeros(num_units) if c0 is None else c0[index, n].astype(np.float64)
                order = range(lengths[n]) if d == 0 else reversed(range(lengths[n]))
                for t in order:
                    xt = layer_in[t, n]
                    lin = [w[k] @ xt + b[k] for k in range(GATES[mode])]
                    rec = [w[GATES[mode] + k] @ h + b[GATES[mode] + k] for k in range(GATES[mode])]
                    if mode == "lstm":
                        i, f = _sigmoid(lin[0] + rec[0]), _sigmoid(lin[1] + rec[1])
                        g, o = np.tanh(lin[2] + rec[2]), _sigmoid(lin[3] + rec[3])
                        c = f * c + i * g
                        h = o * np.tanh(c)
                    elif mode == "gru":
                        r, u = _sigmoid(lin[0] + rec[0]), _sigmoid(lin[1] + rec[1])
                        h = (1 - u) * np.tanh(lin[2] + r * rec[2]) + u * h
                    else:
                        pre = lin[0] + rec[0]
                        h = np.tanh(pre) if mode == "rnn_tanh" else np.maximum(pre, 0)
                    out[t, n] = h
                h_n[index, n], c_n[index, n] = h, c
            outs.append(out)
        layer_in = np.concatenate(outs, axis=2)
    return layer_in, h_n, c_n


LAYERS = {"lstm": cudnn_rnn.CudnnLSTM, "gru": cudnn_rnn.CudnnGRU, "rnn_tanh": cudnn_rnn.CudnnRNNTanh,
          "rnn_relu": cudnn_rnn.CudnnRNNRelu}


@pytest.mark.parametrize("mode", sorted(LAYERS))
@pytest.mark.parametrize("direction", ["unidirectional", "bidirectional"])
def test_a_layer_computes_cudnns_equations(mode, direction):
    rng = np.random.RandomState(1)
    steps, batch, depth, units, layers = 5, 3, 4, 3, 2
    x = rng.randn(steps, batch, depth).astype(np.float32)
    lengths = [5, 2, 4]
    dirs = 2 if direction == "bidirectional" else 1
    h0 = rng.randn(layers * dirs, batch, units).astype(np.float32)
    c0 = rng.randn(layers * dirs, batch, units).astype(np.float32)
    tf.reset_default_graph()
    layer = LAYERS[mode](layers, units, direction=direction,
                         bias_initializer=tf.random_normal_initializer(seed=3))  # (nonzero biases)
    state = (h0, c0) if mode == "lstm" else (h0,)
    # batch-major here: the layer transposes to time-major and back
    out, final = layer(np.transpose(x, (1, 0, 2)), initial_state=state, sequence_lengths=lengths, time_major=False)
    assert out.shape.as_list() == [batch, steps, dirs * units] and len(final) == len(state)
    assert layer.name == {"lstm": "cudnn_lstm", "gru": "cudnn_gru", "rnn_tanh": "cudnn_rnn_tanh",
                          "rnn_relu": "cudnn_rnn_relu"}[mode]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_final, opaque = sess.run([out, final, layer._opaque])
    want, h_n, c_n = _numpy_rnn(mode, x, opaque, layers, units, dirs, lengths, h0, c0 if mode == "lstm" else None)
    np.testing.assert_allclose(np.transpose(got, (1, 0, 2)), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_final[0], h_n, rtol=1e-5, atol=1e-5)
    if mode == "lstm":
        np.testing.assert_allclose(got_final[1], c_n, rtol=1e-5, atol=1e-5)
    assert len(layer.canonical_weight_shapes) == layers * dirs * 2 * GATES[mode]
    assert layer.canonical_weight_shapes[0] == (units, depth) and layer.canonical_bias_shapes[0] == (units,)


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_gradients_match_central_differences(mode):
    rng = np.random.RandomState(2)
    tf.reset_default_graph()
    x = tf.constant(rng.randn(3, 2, 2))
    layer = LAYERS[mode](1, 2, direction="bidirectional", dtype=tf.float64)
    out, final = layer(x, sequence_lengths=[3, 2])
    loss = tf.reduce_sum(out * out) + tf.reduce_sum(final[0])
    with tf.Session():
        tf.global_variables_initializer().run()
        size = layer._opaque.shape.as_list()[0]
        for wrt, shape in ((x, [3, 2, 2]), (layer._opaque, [size])):
            assert tf.test.compute_gradient_error(wrt, shape, loss, [], delta=1e-6) < 1e-6


def _compatible_outputs(mode, direction, layers, units, x, lengths, scope):
    cell = {"lstm": cudnn_rnn.CudnnCompatibleLSTMCell, "gru": cudnn_rnn.CudnnCompatibleGRUCell}[mode]
    with tf.variable_scope(scope):
        if direction == "unidirectional":
            stack = tf.nn.rnn_cell.MultiRNNCell([cell(units) for _ in range(layers)])
            out, _ = tf.nn.dynamic_rnn(stack, x, sequence_length=lengths, dtype=tf.float32, time_major=True)
            return out
        out, _, _ = tf.contrib.rnn.stack_bidirectional_dynamic_rnn(
            [cell(units) for _ in range(layers)], [cell(units) for _ in range(layers)], tf.transpose(x, [1, 0, 2]),
            sequence_length=lengths, dtype=tf.float32)
        return tf.transpose(out, [1, 0, 2])


@pytest.mark.parametrize("mode", ["lstm", "gru"])
@pytest.mark.parametrize("direction", ["unidirectional", "bidirectional"])
def test_weights_move_by_the_compatible_cells_names_both_ways(tmp_path, mode, direction):
    rng = np.random.RandomState(3)
    x = rng.randn(4, 2, 3).astype(np.float32)
    lengths = [4, 3]
    layers, units = 2, 3
    tf.reset_default_graph()
    layer = LAYERS[mode](layers, units, direction=direction, bias_initializer=tf.random_normal_initializer(seed=1))
    out, _ = layer(tf.constant(x), sequence_lengths=lengths)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        want = sess.run(out)
        path = tf.train.Saver().save(sess, str(tmp_path / "cudnn"))
    names = {name for name, _ in tf.train.list_variables(path)}
    cell = "cudnn_compatible_lstm_cell" if mode == "lstm" else "cudnn_compatible_gru_cell"
    where = ("rnn/multi_rnn_cell/cell_1" if direction == "unidirectional" else
             "stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw")
    assert f"cudnn_{mode}/{where}/{cell}/{'kernel' if mode == 'lstm' else 'gates/kernel'}" in names
    assert f"cudnn_{mode}/opaque_kernel" in names

    # the cells read the layer's checkpoint and compute the same
    tf.reset_default_graph()
    cells_out = _compatible_outputs(mode, direction, layers, units, tf.constant(x), lengths, f"cudnn_{mode}")
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, path)
        np.testing.assert_allclose(sess.run(cells_out), want, rtol=1e-5, atol=1e-5)
        cells_path = tf.train.Saver().save(sess, str(tmp_path / "cells"))

    # and a layer reads the cells' checkpoint (no opaque vector in it) through its saveable
    tf.reset_default_graph()
    layer = LAYERS[mode](layers, units, direction=direction)
    out, _ = layer(tf.constant(x), sequence_lengths=lengths)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver([layer.saveable]).restore(sess, cells_path)
        np.testing.assert_allclose(sess.run(out), want, rtol=1e-5, atol=1e-5)


def test_a_stacked_lstm_trains_with_dropout_between_its_layers():
    # which of two tokens came more often in a sequence: a classifier on the last output
    rng = np.random.RandomState(4)
    x = rng.randint(0, 2, size=(12, 256)).astype(np.float32)
    y = (x.sum(0) > 6).astype(np.int64)
    tf.reset_default_graph()
    inputs = tf.one_hot(tf.constant(x, tf.int32), 2)
    training = tf.placeholder_with_default(True, [])
    layer = cudnn_rnn.CudnnLSTM(2, 16, dropout=0.2, seed=1)
    out, (h, _) = layer(inputs, training=training)
    logits = tf.layers.dense(h[-1], 2)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train = tf.train.AdamOptimizer(0.02).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(150):
            sess.run(train)
        assert sess.run(accuracy, {training: False}) >= 0.9
        np.testing.assert_array_equal(sess.run(out, {training: False}), sess.run(out, {training: False}))


def test_bad_arguments_say_what_is_wrong():
    with pytest.raises(ValueError, match="Invalid direction"):
        cudnn_rnn.CudnnLSTM(1, 2, direction="sideways")
    with pytest.raises(NotImplementedError, match="skip_input"):
        cudnn_rnn.CudnnGRU(1, 2, input_mode=cudnn_rnn.CUDNN_INPUT_SKIP_MODE)
    layer = cudnn_rnn.CudnnLSTM(1, 2)
    with pytest.raises(ValueError, match=r"initial_state must be a tuple of 2 tensors \(h, c\)"):
        layer(tf.zeros([3, 1, 2]), initial_state=(tf.zeros([1, 1, 2]),))
    with pytest.raises(ValueError, match="must be 3-D"):
        cudnn_rnn.CudnnGRU(1, 2)(tf.zeros([3, 2]))
    assert cudnn_rnn.CudnnLSTM(2, 5, direction="bidirectional").state_shape(7) == ([4, 7, 5], [4, 7, 5])
