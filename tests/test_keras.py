"""tf.keras in graph mode: layers against NumPy, training against a hand-written update,
the functional, Sequential and subclassed models, callbacks, progress output and weights."""

import contextlib
import io
import json
import os
import re

import numpy as np
import pytest

import distflow as tf

K = tf.keras.backend
layers = tf.keras.layers


pytestmark = pytest.mark.usefixtures("fresh_keras")  # (conftest.py: a fresh Keras session and a seed)


def _relu(v):
    return np.maximum(v, 0)


def _softmax(v):
    e = np.exp(v - v.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_names_and_shapes_are_keras_ones():
    model = tf.keras.Sequential([layers.Dense(8, activation="relu", input_shape=(4,)), layers.Dropout(0.5),
                                 layers.Dense(3, activation="softmax")])
    assert [w.name for w in model.weights] == ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]
    assert [l.name for l in model.layers] == ["dense", "dropout", "dense_1"]
    assert model.output_shape == (None, 3) and model.layers[0].input_shape == (None, 4)
    assert model.count_params() == 4 * 8 + 8 + 8 * 3 + 3
    lines = []
    model.summary(print_fn=lines.append)
    assert lines[0] == 'Model: "sequential"'
    assert lines[2].split() == ["Layer", "(type)", "Output", "Shape", "Param", "#"]
    assert lines[4].split() == ["dense", "(Dense)", "(None,", "8)", "40"]
    assert lines[-4:-1] == ["Total params: 67", "Trainable params: 67", "Non-trainable params: 0"]


def test_core_and_convolution_layers_match_numpy():
    rng = np.random.RandomState(0)
    x = rng.rand(2, 6, 6, 3).astype(np.float32)
    inp = tf.keras.Input(shape=(6, 6, 3))
    conv = layers.Conv2D(4, 3, padding="same", activation="relu")
    pooled = layers.MaxPooling2D()(conv(inp))
    flat = layers.Flatten()(pooled)
    dense = layers.Dense(5, activation="softmax")
    out = dense(flat)
    model = tf.keras.Model(inp, [out, pooled])
    got, got_pooled = model.predict(x)
    kernel, bias = conv.get_weights()
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv_out = np.zeros((2, 6, 6, 4))
    for i in range(6):
        for j in range(6):
            conv_out[:, i, j] = np.tensordot(padded[:, i:i + 3, j:j + 3], kernel, axes=3) + bias
    conv_out = _relu(conv_out)
    want_pooled = conv_out.reshape(2, 3, 2, 3, 2, 4).max(axis=(2, 4))
    np.testing.assert_allclose(got_pooled, want_pooled, rtol=1e-5, atol=1e-6)
    w, b = dense.get_weights()
    np.testing.assert_allclose(got, _softmax(want_pooled.reshape(2, -1) @ w + b), rtol=1e-5, atol=1e-6)


def test_recurrent_layers_match_numpy():
    rng = np.random.RandomState(1)
    x = rng.randn(3, 5, 4).astype(np.float32)

    def hard_sigmoid(v):
        return np.clip(0.2 * v + 0.5, 0, 1)

    for kind in ("LSTM", "GRU", "SimpleRNN"):
        K.clear_session()
        inp = tf.keras.Input(shape=(5, 4))
        model = tf.keras.Model(inp, getattr(layers, kind)(6, return_sequences=True)(inp))
        got = model.predict(x)
        kernel, recurrent, bias = model.get_weights()
        h, c, outs = np.zeros((3, 6)), np.zeros((3, 6)), []
        for t in range(5):
            xt = x[:, t]
            if kind == "LSTM":
                i, f, g, o = np.split(xt @ kernel + h @ recurrent + bias, 4, axis=1)
                c = hard_sigmoid(f) * c + hard_sigmoid(i) * np.tanh(g)
                h = hard_sigmoid(o) * np.tanh(c)
            elif kind == "GRU":
                xz = xt @ kernel + bias
                z = hard_sigmoid(xz[:, :6] + h @ recurrent[:, :6])
                r = hard_sigmoid(xz[:, 6:12] + h @ recurrent[:, 6:12])
                h = z * h + (1 - z) * np.tanh(xz[:, 12:] + (r * h) @ recurrent[:, 12:])
            else:
                h = np.tanh(xt @ kernel + h @ recurrent + bias)
            outs.append(h)
        np.testing.assert_allclose(got, np.stack(outs, 1), rtol=1e-5, atol=1e-6, err_msg=kind)
        if kind == "LSTM":  # (the forget gate's bias starts at one)
            np.testing.assert_array_equal(bias, np.r_[np.zeros(6), np.ones(6), np.zeros(12)])


def test_a_masked_step_keeps_the_state():
    tokens = np.array([[0, 0, 3, 4], [1, 2, 3, 4], [3, 4, 0, 0]])
    inp = tf.keras.Input(shape=(4,))
    model = tf.keras.Model(inp, layers.LSTM(2)(layers.Embedding(5, 3, mask_zero=True)(inp)))
    leading, full, trailing = model.predict(tokens)
    # padding before or after a sequence changes nothing: masked steps keep the state and output
    np.testing.assert_allclose(leading, trailing, rtol=1e-5)
    assert not np.allclose(leading, full)


def test_one_fit_step_is_the_sgd_update_of_the_mean_squared_error():
    rng = np.random.RandomState(3)
    x = rng.randn(16, 3).astype(np.float32)
    y = rng.randn(16, 2).astype(np.float32)
    model = tf.keras.Sequential([layers.Dense(2, input_shape=(3,))])
    model.compile(tf.keras.optimizers.SGD(lr=0.1), "mse")
    w, b = model.get_weights()
    loss = model.train_on_batch(x, y)
    error = x @ w + b - y
    assert loss == pytest.approx(np.mean(error ** 2), rel=1e-5)
    grad_w = 2 * x.T @ error / error.size
    grad_b = 2 * error.sum(0) / error.size
    new_w, new_b = model.get_weights()
    np.testing.assert_allclose(new_w, w - 0.1 * grad_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(new_b, b - 0.1 * grad_b, rtol=1e-5, atol=1e-6)


def test_a_functional_model_with_two_inputs_a_shared_layer_and_two_weighted_outputs():
    rng = np.random.RandomState(4)
    a, b = rng.randn(32, 5).astype(np.float32), rng.randn(32, 5).astype(np.float32)
    ya, yb = rng.randn(32, 1).astype(np.float32), rng.randn(32, 1).astype(np.float32)
    ia, ib = tf.keras.Input(shape=(5,), name="left"), tf.keras.Input(shape=(5,), name="right")
    shared = layers.Dense(4, activation="tanh", name="shared")
    merged = layers.concatenate([shared(ia), shared(ib)])
    out_a = layers.Dense(1, name="first")(merged)
    out_b = layers.Dense(1, name="second")(layers.add([shared(ia), shared(ib)]))
    model = tf.keras.Model([ia, ib], [out_a, out_b])
    assert len(model.weights) == 6  # (the shared layer's weights once)
    model.compile("sgd", loss={"first": "mse", "second": "mae"}, loss_weights=[1.0, 0.5])
    assert model.metrics_names == ["loss", "first_loss", "second_loss"]
    pa, pb = model.predict({"left": a, "right": b})
    total, first, second = model.evaluate([a, b], [ya, yb], verbose=0)
    assert first == pytest.approx(np.mean((pa - ya) ** 2), rel=1e-5)
    assert second == pytest.approx(np.mean(np.abs(pb - yb)), rel=1e-5)
    assert total == pytest.approx(first + 0.5 * second, rel=1e-5)
    history = model.fit([a, b], [ya, yb], epochs=3, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_a_subclassed_model_tracks_its_layers_and_trains():
    class TwoLayers(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = layers.Dense(16, activation="relu")
            self.out = layers.Dense(1)

        def call(self, inputs, training=None):
            return self.out(self.hidden(inputs))

    rng = np.random.RandomState(5)
    x = rng.randn(128, 2).astype(np.float32)
    y = (x[:, :1] * x[:, 1:]).astype(np.float32)
    model = TwoLayers()
    model.compile(tf.keras.optimizers.Adam(0.05), "mse")
    history = model.fit(x, y, epochs=20, batch_size=32, verbose=0)
    assert len(model.trainable_weights) == 4 and model.layers == [model.hidden, model.out]
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]


def test_dropout_and_batch_normalization_follow_the_learning_phase():
    rng = np.random.RandomState(6)
    x = (rng.randn(64, 3) * 2 + 5).astype(np.float32)
    model = tf.keras.Sequential([layers.BatchNormalization(momentum=0.5, input_shape=(3,)), layers.Dropout(0.5)])
    model.compile("sgd", "mse")
    # inference: moving statistics (0 and 1 at first), no dropout: the identity up to epsilon
    np.testing.assert_allclose(model.predict(x), x / np.sqrt(1 + 1e-3), rtol=1e-5)
    # training: batch statistics, half the units dropped (the rest doubled)
    out = K.get_session().run(model.outputs[0], {model.inputs[0]: x, K.learning_phase(): True})
    normalized = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3)
    kept = out != 0
    assert 0.3 < kept.mean() < 0.7
    np.testing.assert_allclose(out[kept], 2 * normalized[kept], rtol=1e-4, atol=1e-5)
    # a training step moves the moving averages half way (momentum 0.5) to the batch's
    model.train_on_batch(x, np.zeros_like(x))
    gamma, beta, mean, variance = model.layers[0].get_weights()
    np.testing.assert_allclose(mean, 0.5 * x.mean(0), rtol=1e-4)
    np.testing.assert_allclose(variance, 0.5 + 0.5 * x.var(0), rtol=1e-4)


def test_regularizers_add_to_the_loss():
    model = tf.keras.Sequential([layers.Dense(2, input_shape=(3,), kernel_initializer="ones",
                                              kernel_regularizer=tf.keras.regularizers.l2(0.1))])
    model.compile("sgd", "mse")
    x, y = np.zeros((4, 3), np.float32), np.zeros((4, 2), np.float32)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(0.1 * 6)


def test_callbacks(tmp_path):
    rng = np.random.RandomState(7)
    x = rng.randn(64, 4).astype(np.float32)
    y = (x.sum(1) > 0).astype(np.float32)
    model = tf.keras.Sequential([layers.Dense(1, activation="sigmoid", input_shape=(4,), kernel_initializer="zeros")])
    model.compile(tf.keras.optimizers.SGD(0.1), "binary_crossentropy", metrics=["acc"])
    seen = []
    callbacks = [
        tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "w.{epoch:02d}"), save_weights_only=True),
        tf.keras.callbacks.CSVLogger(str(tmp_path / "log.csv")),
        tf.keras.callbacks.LearningRateScheduler(lambda epoch: 0.1 / (epoch + 1)),
        tf.keras.callbacks.TensorBoard(str(tmp_path / "tb")),
        tf.keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append((epoch, sorted(logs)))),
        # 'loss' falls every epoch, so watching for a rise stops after the second
        tf.keras.callbacks.EarlyStopping(monitor="loss", mode="max", patience=0),
    ]
    history = model.fit(x, y, epochs=5, batch_size=16, validation_data=(x[:16], y[:16]), callbacks=callbacks,
                        verbose=0)
    assert history.epoch == [0, 1] and len(history.history["loss"]) == 2
    assert [e for e, _ in seen] == [0, 1] and seen[0][1] == ["acc", "loss", "lr", "val_acc", "val_loss"]
    assert history.history["lr"] == pytest.approx([0.1, 0.05])
    assert K.get_value(model.optimizer.lr) == pytest.approx(0.05)
    assert os.path.exists(str(tmp_path / "w.01.index")) and os.path.exists(str(tmp_path / "w.02.index"))
    rows = open(tmp_path / "log.csv").read().splitlines()
    assert rows[0] == "epoch,acc,loss,val_acc,val_loss" and len(rows) == 3
    tags = {}
    for which in ("train", "validation"):
        for name in os.listdir(tmp_path / "tb" / which):
            for event in tf.train.summary_iterator(str(tmp_path / "tb" / which / name)):
                for value in event.summary.value:
                    tags.setdefault((which, value.tag), []).append(event.step)
    assert tags[("train", "epoch_loss")] == [0, 1] and tags[("validation", "epoch_acc")] == [0, 1]
    reduce = tf.keras.callbacks.ReduceLROnPlateau(monitor="loss", mode="max", factor=0.5, patience=1)
    model.fit(x, y, epochs=3, verbose=0, callbacks=[reduce])
    assert K.get_value(model.optimizer.lr) == pytest.approx(0.05 * 0.5 ** 2)


def test_progress_output_is_keras_format():
    x = np.random.RandomState(8).randn(100, 2).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    model = tf.keras.Sequential([layers.Dense(2, activation="softmax", input_shape=(2,))])
    model.compile("adam", "sparse_categorical_crossentropy", metrics=["accuracy"])
    num = r"\d\.\d{4}(?:e[+-]\d\d)?"  # (Keras prints a value below 1e-3 as 1.2345e-04)
    # (the time per sample is in s, ms or us, as long as it took: the machine decides)
    for verbose, pattern in ((1, rf"100/100 \[={{30}}\] - \d+s \d+(?:s|ms|us)/sample - loss: {num} - "
                                 rf"acc: {num} - val_loss: {num} - val_acc: {num}"),
                             (2, rf"100/100 - \d+s - loss: {num} - acc: {num} - val_loss: {num} - "
                                 rf"val_acc: {num}")):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            model.fit(x, y, epochs=2, batch_size=10, verbose=verbose, validation_data=(x, y))
        lines = [line for line in out.getvalue().splitlines() if line.strip()]
        assert lines[0] == "Train on 100 samples, validate on 100 samples"
        assert lines[1] == "Epoch 1/2"
        finals = [line.strip("\x08\r ") for line in lines if line.startswith(("100/100", "\x08", "\r"))]
        assert re.fullmatch(pattern, finals[-1].strip()), finals[-1]
        if verbose == 1:  # (in between: the count so far, a bar with its head, the ETA and running means)
            assert any(re.fullmatch(rf" 10/100 \[==>\.{{27}}\] - ETA: \d+s - loss: {num} - acc: {num}",
                                    line) for line in lines), lines


def test_weights_round_trip_and_errors(tmp_path):
    model = tf.keras.Sequential([layers.Dense(3, input_shape=(2,)), layers.Dense(1)])
    weights = model.get_weights()
    model.save_weights(str(tmp_path / "ckpt"))
    model.set_weights([np.zeros_like(w) for w in weights])
    model.load_weights(str(tmp_path / "ckpt"))
    for a, b in zip(weights, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="expecting 4 weights"):
        model.set_weights(weights[:2])
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(np.zeros((2, 2)), np.zeros((2, 1)))
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match=r"expected dense_input to have shape \(2,\)"):
        model.fit(np.zeros((4, 5)), np.zeros((4, 1)), verbose=0)
    rebuilt = tf.keras.models.model_from_json(model.to_json())
    assert [type(l).__name__ for l in rebuilt.layers] == ["Dense", "Dense"] and rebuilt.output_shape == (None, 1)


def test_fit_takes_datasets_and_generators():
    rng = np.random.RandomState(9)
    x = rng.randn(64, 3).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    model = tf.keras.Sequential([layers.Dense(1, input_shape=(3,), kernel_initializer="zeros")])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16).repeat()
    first = model.fit(dataset, epochs=3, steps_per_epoch=4, verbose=0).history["loss"]

    def batches():
        while True:
            for i in range(0, 64, 16):
                yield x[i:i + 16], y[i:i + 16]

    second = model.fit(batches(), epochs=3, steps_per_epoch=4, verbose=0).history["loss"]
    assert first[-1] < first[0] and second[-1] < first[-1]
    assert model.evaluate(dataset, steps=4, verbose=0) == pytest.approx(model.evaluate(x, y, verbose=0), rel=1e-5)


def test_a_finite_dataset_without_steps_is_one_pass_an_epoch(capsys):
    # TF 1.14-1.15's Keras: without steps, an epoch (and evaluate, and predict) runs until the
    # dataset ends, and the next epoch reads it from its beginning again
    rng = np.random.RandomState(4)
    x = rng.randn(50, 3).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    model = tf.keras.Sequential([layers.Dense(1, input_shape=(3,), kernel_initializer="zeros")])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    per_epoch = []
    count = tf.keras.callbacks.LambdaCallback(on_epoch_begin=lambda epoch, logs: per_epoch.append(0),
                                              on_batch_end=lambda batch, logs: per_epoch.__setitem__(
                                                  -1, per_epoch[-1] + 1))
    history = model.fit(dataset, epochs=3, callbacks=[count], validation_data=dataset, verbose=1)
    assert per_epoch == [4, 4, 4] and len(history.history["val_loss"]) == 3
    assert "4/4 [" in capsys.readouterr().out  # (the bar ends at the pass's length once it is known)
    assert model.evaluate(dataset, verbose=0) == pytest.approx(model.evaluate(x, y, verbose=0), rel=1e-5)
    np.testing.assert_allclose(model.predict(dataset), model.predict(x), rtol=1e-6)
    with pytest.raises(ValueError, match="fit on a generator needs steps_per_epoch"):
        model.fit(iter([(x, y)]), epochs=1, verbose=0)


def test_a_tf1_keras_program_monitors_val_acc_and_its_lambdas_take_only_logs(tmp_path):
    """TF 1.x's Keras logs metrics=['accuracy'] as 'acc': programs monitor 'val_acc' and read
    history['acc']; a LambdaCallback's train hooks take the logs alone; the generator methods
    take the steps second."""
    rng = np.random.RandomState(3)
    x = rng.randn(64, 4).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    model = tf.keras.Sequential([layers.Dense(2, activation="softmax", input_shape=(4,))])
    model.compile(tf.keras.optimizers.SGD(0.5), "sparse_categorical_crossentropy", metrics=["accuracy"])
    path = str(tmp_path / "best.h5")
    calls = []
    callbacks = [tf.keras.callbacks.ModelCheckpoint(path, monitor="val_acc", save_best_only=True, mode="max"),
                 tf.keras.callbacks.LambdaCallback(on_train_begin=lambda logs: calls.append(("begin", logs)),
                                                   on_train_end=lambda logs: calls.append(("end", logs)))]
    history = model.fit(x, y, epochs=2, batch_size=16, validation_data=(x, y), callbacks=callbacks, verbose=0)
    assert sorted(history.history) == ["acc", "loss", "val_acc", "val_loss"]
    assert os.path.exists(path) and calls == [("begin", {}), ("end", {})]

    def batches():
        while True:
            for i in range(0, 64, 16):
                yield x[i:i + 16], y[i:i + 16]

    history = model.fit_generator(batches(), 4, epochs=2, verbose=0)  # (4: steps_per_epoch)
    assert len(history.history["acc"]) == 2
    assert model.evaluate_generator(batches(), 4) == pytest.approx(model.evaluate(x, y, verbose=0), rel=1e-5)
    assert model.predict_generator((b[0] for b in batches()), 2).shape == (32, 2)


def test_keras_layers_mix_with_raw_tf1():
    x = tf.placeholder(tf.float32, [None, 3])
    hidden = layers.Dense(4, activation="relu", kernel_initializer="ones")(x)
    out = tf.reduce_sum(hidden, axis=1)
    sess = K.get_session()
    assert sess.run(out, {x: np.ones((2, 3))}).tolist() == [12.0, 12.0]
    K.set_value(tf.trainable_variables()[0], np.zeros((3, 4)))
    assert sess.run(out, {x: np.ones((2, 3))}).tolist() == [0.0, 0.0]
    assert tf.keras.utils.to_categorical([0, 2, 1]).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]


def test_masking_and_the_noise_layers_act_in_training_only():
    rng = np.random.RandomState(10)
    x = rng.rand(4, 5, 3).astype(np.float32) + 0.5
    x[0, :2] = 0.0  # two masked steps in front of the first sequence
    inp = tf.keras.Input(shape=(5, 3))
    masked = tf.keras.Model(inp, layers.SimpleRNN(2)(layers.Masking()(inp)))
    short = x[:1, 2:]  # (the same RNN, no mask, on the 3 real steps)
    inp3 = tf.keras.Input(shape=(3, 3))
    unmasked = tf.keras.Model(inp3, masked.layers[-1](inp3))
    np.testing.assert_allclose(masked.predict(x)[0], unmasked.predict(short)[0], rtol=1e-5, atol=1e-6)
    sess = K.get_session()
    x = rng.rand(4, 5, 3).astype(np.float32) + 0.5
    for layer in (layers.GaussianNoise(0.5), layers.GaussianDropout(0.3), layers.AlphaDropout(0.3),
                  layers.SpatialDropout1D(0.5)):
        out = layer(inp)
        np.testing.assert_array_equal(sess.run(out, {inp: x}), x)  # inference: the identity
        noisy = sess.run(out, {inp: x, K.learning_phase(): True})
        assert not np.allclose(noisy, x), type(layer).__name__
        if isinstance(layer, layers.SpatialDropout1D):  # a channel is dropped at every step or at none
            dropped = noisy == 0
            assert dropped.any() and (dropped.all(axis=1) == dropped.any(axis=1)).all()


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _h5py():
    return pytest.importorskip("h5py", reason="Keras's HDF5 files need h5py (the keras extra)")


def test_a_whole_model_saved_to_hdf5_loads_and_predicts_the_same(tmp_path):
    h5 = _h5py()
    rng = np.random.RandomState(11)
    x, xs = rng.rand(16, 6).astype(np.float32), rng.rand(16, 3, 4).astype(np.float32)
    y = (x.sum(1) > 3).astype(np.float32)
    left, right = tf.keras.Input((6,), name="left"), tf.keras.Input((3, 4), name="right")
    shared = layers.Dense(4, name="shared", kernel_regularizer=tf.keras.regularizers.l2(0.01))
    merged = layers.concatenate([shared(left), layers.LSTM(5)(right), shared(left)])
    normed = layers.BatchNormalization()(layers.Dropout(0.2)(merged))
    model = tf.keras.Model([left, right], [layers.Dense(1, activation="sigmoid", name="out")(normed),
                                           layers.Dense(2, name="aux")(merged)])
    model.compile(tf.keras.optimizers.Adam(0.01), ["binary_crossentropy", "mse"], loss_weights=[1.0, 0.5],
                  metrics=["accuracy"])
    model.fit([x, xs], [y, np.zeros((16, 2))], epochs=2, verbose=0)
    want = model.predict([x, xs])
    path = str(tmp_path / "model.h5")
    model.save(path)
    with h5.File(path, "r") as f:  # Keras's layout
        assert _text(f.attrs["keras_version"]) == "2.2.4-tf" and _text(f.attrs["backend"]) == "tensorflow"
        config = json.loads(f.attrs["model_config"])
        assert config["class_name"] == "Model" and config["config"]["input_layers"] == [["left", 0, 0],
                                                                                       ["right", 0, 0]]
        shared_entry = next(e for e in config["config"]["layers"] if e["name"] == "shared")
        assert len(shared_entry["inbound_nodes"]) == 2  # (called twice)
        assert [_text(n) for n in f["model_weights"].attrs["layer_names"]][:3] == ["left", "right", "shared"]
        assert [_text(n) for n in f["model_weights/lstm"].attrs["weight_names"]] == [
            "lstm/kernel:0", "lstm/recurrent_kernel:0", "lstm/bias:0"]
        assert json.loads(f.attrs["training_config"])["loss_weights"] == [1.0, 0.5]
    K.clear_session()
    loaded = tf.keras.models.load_model(path)
    for a, b in zip(want, loaded.predict([x, xs])):
        np.testing.assert_array_equal(a, b)
    assert loaded.metrics_names == model.metrics_names
    loaded.fit([x, xs], [y, np.zeros((16, 2))], epochs=1, verbose=0)  # (compiled as it was)


@pytest.mark.parametrize("optimizer", [
    lambda: tf.keras.optimizers.Adam(0.01), lambda: tf.keras.optimizers.SGD(0.05, momentum=0.9),
    lambda: tf.keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True), lambda: tf.keras.optimizers.Adagrad(0.1),
    lambda: tf.keras.optimizers.Adadelta(1.0)], ids=["adam", "momentum", "rmsprop", "adagrad", "adadelta"])
def test_a_saved_model_goes_on_training_where_it_stopped(tmp_path, optimizer):
    """The optimizer's state is saved and loaded: a loaded model's next epoch gives the same
    weights as the saved model's next epoch (a fresh optimizer's would differ)."""
    h5 = _h5py()
    rng = np.random.RandomState(5)
    x, y = rng.rand(32, 4).astype(np.float32), rng.rand(32, 1).astype(np.float32)
    model = tf.keras.Sequential([layers.Dense(3, activation="tanh", input_shape=(4,)), layers.Dense(1)])
    model.compile(optimizer(), "mse")
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    path = str(tmp_path / "model.h5")
    model.save(path)
    state = model.optimizer.get_weights()
    assert int(state[0]) == 8  # iterations, then the slots of both layers' kernel and bias
    with h5.File(path, "r") as f:
        names = [_text(n) for n in f["optimizer_weights"].attrs["weight_names"]]
        assert len(names) == len(state) and names[0].endswith("iterations:0")
    model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    want = model.get_weights()
    K.clear_session()
    loaded = tf.keras.models.load_model(path)
    for a, b in zip(state, loaded.optimizer.get_weights()):
        np.testing.assert_array_equal(a, b)
    loaded.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
    for a, b in zip(want, loaded.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)  # (Adam: beta ** t against a running product)


def test_optimizer_state_that_does_not_fit_leaves_a_fresh_optimizer(tmp_path, caplog):
    _h5py()
    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    model = tf.keras.Sequential([layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")  # plain SGD: only iterations
    model.fit(x, y, verbose=0)
    path = str(tmp_path / "sgd.h5")
    model.save(path)
    K.clear_session()
    with caplog.at_level("WARNING", logger="distflow"):
        tf.keras.models.load_model(path)
    assert not caplog.records
    with _h5py().File(path, "r+") as f:  # another optimizer's state under the same training config
        del f["optimizer_weights"]
        group = f.create_group("optimizer_weights")
        group.attrs["weight_names"] = [b"Adam/iter:0", b"Adam/dense/kernel/m:0"]
        group["Adam/iter:0"], group["Adam/dense/kernel/m:0"] = np.int64(3), np.zeros((2, 1), np.float32)
    K.clear_session()
    with caplog.at_level("WARNING", logger="distflow"):
        loaded = tf.keras.models.load_model(path)
    assert "freshly initialized optimizer" in caplog.text
    assert int(loaded.optimizer.get_weights()[0]) == 0


def test_a_sequential_model_in_the_layout_tensorflow_writes_loads(tmp_path):
    """A file as TF 1.15's model.save writes one (the config's keys and the weights' layout as
    Keras documents them), with the InputLayer in the layer list as later versions put it."""
    h5 = _h5py()
    rng = np.random.RandomState(12)
    kernel, bias = rng.randn(3, 2).astype(np.float32), rng.randn(2).astype(np.float32)
    glorot = {"class_name": "GlorotUniform", "config": {"seed": None, "dtype": "float32"}}
    dense = {"name": "dense", "trainable": True, "dtype": "float32", "units": 2, "activation": "softmax",
             "use_bias": True, "kernel_initializer": glorot, "bias_initializer": {"class_name": "Zeros",
                                                                                 "config": {"dtype": "float32"}},
             "kernel_regularizer": None, "bias_regularizer": None, "activity_regularizer": None,
             "kernel_constraint": {"class_name": "MaxNorm", "config": {"max_value": 2, "axis": 0}},
             "bias_constraint": None}
    config = {"class_name": "Sequential", "config": {"name": "sequential", "layers": [
        {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 3], "dtype": "float32",
                                                "sparse": False, "name": "dense_input"}},
        {"class_name": "Dense", "config": dense}]}}
    training = {"optimizer_config": {"class_name": "RMSprop", "config": {
        "name": "RMSprop", "learning_rate": 0.001, "decay": 0.0, "rho": 0.9, "momentum": 0.0, "epsilon": 1e-07,
        "centered": False}}, "loss": "categorical_crossentropy", "metrics": ["acc"], "weighted_metrics": None,
        "sample_weight_mode": None, "loss_weights": None}
    path = str(tmp_path / "tf_written.h5")
    with h5.File(path, "w") as f:
        f.attrs["keras_version"], f.attrs["backend"] = b"2.2.4-tf", b"tensorflow"
        f.attrs["model_config"] = json.dumps(config).encode()
        f.attrs["training_config"] = json.dumps(training).encode()
        weights = f.create_group("model_weights")
        weights.attrs["layer_names"] = [b"dense"]
        group = weights.create_group("dense")
        group.attrs["weight_names"] = [b"dense/kernel:0", b"dense/bias:0"]
        group["dense/kernel:0"], group["dense/bias:0"] = kernel, bias
    model = tf.keras.models.load_model(path)
    x = rng.randn(5, 3).astype(np.float32)
    np.testing.assert_allclose(model.predict(x), _softmax(x @ kernel + bias), rtol=1e-5)
    assert type(model.optimizer).__name__ == "RMSprop" and model.metrics_names == ["loss", "acc"]
    assert isinstance(model.layers[0].kernel_constraint, tf.keras.constraints.MaxNorm)


DATA = os.path.join(os.path.dirname(__file__), "data")


def test_a_file_that_tensorflow_wrote_loads_and_predicts_the_same():
    """tests/data/tf_keras_functional.h5 was written by TensorFlow 2.21's graph-mode Keras
    (tf_keras 2.21, ``TF_USE_LEGACY_KERAS=1``, ``tf.compat.v1`` with eager execution off):
    a two-input functional model (Conv2D, BatchNormalization, MaxPooling2D, Flatten,
    Dropout, Dense, concatenate) compiled with Adam and fitted 2 epochs, then
    ``model.save``; the .npz holds six inputs and TensorFlow's ``model.predict`` of them.
    Its config has the arguments later Keras releases write (``groups``, ``ragged``,
    ``optional``, an initializer's ``module``, BatchNormalization's axis as a list)."""
    _h5py()
    want = np.load(os.path.join(DATA, "tf_keras_functional_pred.npz"))
    model = tf.keras.models.load_model(os.path.join(DATA, "tf_keras_functional.h5"))
    assert [layer.name for layer in model.layers if layer.weights] == ["conv", "bn", "aux_dense", "out"]
    np.testing.assert_allclose(model.predict([want["x"], want["a"]]), want["pred"], rtol=1e-5, atol=1e-6)
    assert type(model.optimizer).__name__ == "Adam" and model.metrics_names == ["loss", "acc"]
    with _h5py().File(os.path.join(DATA, "tf_keras_functional.h5"), "r") as f:  # TensorFlow's Adam state
        group = f["optimizer_weights"]
        state = [np.asarray(group[_text(name)]) for name in group.attrs["weight_names"]]
    assert len(state) == len(model.optimizer.get_weights()) == 17  # iter, then m and v of 8 variables
    for a, b in zip(state, model.optimizer.get_weights()):
        np.testing.assert_array_equal(a, b)
    history = model.fit([want["x"], want["a"]], np.arange(6) % 3, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


def test_a_later_keras_argument_that_tf1_keras_lacks_is_refused_by_name():
    config = {"class_name": "Conv2D", "config": {"name": "grouped", "filters": 4, "kernel_size": [3, 3],
                                                 "groups": 2}}
    with pytest.raises(ValueError, match="Conv2D 'grouped' has groups=2, which TF 1.x's Keras does not have"):
        tf.keras.layers.deserialize(config)


def test_weights_in_hdf5_by_order_and_by_name(tmp_path):
    _h5py()
    model = tf.keras.Sequential([layers.Dense(3, input_shape=(2,), name="a"), layers.Dense(1, name="b")])
    weights = model.get_weights()
    path = str(tmp_path / "w.h5")
    model.save_weights(path)
    K.clear_session()
    other = tf.keras.Sequential([layers.Dense(3, input_shape=(2,), name="x"), layers.Dense(1, name="y")])
    other.load_weights(path)  # (by order: names may differ)
    for a, b in zip(weights, other.get_weights()):
        np.testing.assert_array_equal(a, b)
    partial = tf.keras.Sequential([layers.Dense(3, input_shape=(2,), name="a"), layers.Dense(4, name="c")])
    before = partial.layers[1].get_weights()
    partial.load_weights(path, by_name=True)  # only "a" is in the file
    np.testing.assert_array_equal(partial.layers[0].get_weights()[0], weights[0])
    np.testing.assert_array_equal(partial.layers[1].get_weights()[0], before[0])
    small = tf.keras.Sequential([layers.Dense(3, input_shape=(2,))])
    with pytest.raises(ValueError, match="containing 2 layers into a model with 1 layers"):
        small.load_weights(path)


def test_model_checkpoint_saves_the_whole_model_by_default(tmp_path):
    _h5py()
    model = tf.keras.Sequential([layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")
    x = np.random.RandomState(13).randn(8, 2).astype(np.float32)
    model.fit(x, x[:, :1], epochs=2, verbose=0, validation_data=(x, x[:, :1]), callbacks=[
        tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "best.h5"), save_best_only=True)])
    np.testing.assert_array_equal(tf.keras.models.load_model(str(tmp_path / "best.h5")).predict(x), model.predict(x))


def test_model_to_estimator_starts_from_the_keras_weights_and_trains(tmp_path):
    rng = np.random.RandomState(14)
    x = rng.randn(256, 4).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    inputs = tf.keras.Input((4,), name="features")
    outputs = layers.Dense(2, activation="softmax", name="probs")(layers.Dense(8, activation="relu")(inputs))
    model = tf.keras.Model(inputs, outputs)
    model.compile(tf.keras.optimizers.SGD(0.0), "sparse_categorical_crossentropy", metrics=["accuracy"])
    want = model.predict(x[:8])
    estimator = tf.keras.estimator.model_to_estimator(keras_model=model, model_dir=str(tmp_path / "frozen"))

    def train_input():
        return tf.data.Dataset.from_tensor_slices(({"features": x}, y)).batch(32).repeat()

    def predict_input():
        return tf.data.Dataset.from_tensor_slices({"features": x[:8]}).batch(8)

    estimator.train(train_input, steps=2)  # (a rate of zero: the weights stay the Keras model's)
    got = np.stack([p["probs"] for p in estimator.predict(predict_input)])
    np.testing.assert_allclose(got, want, rtol=1e-5)
    model.compile(tf.keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy", metrics=["accuracy"])
    learning = tf.keras.estimator.model_to_estimator(keras_model=model, model_dir=str(tmp_path / "trained"))
    learning.train(train_input, steps=100)
    result = learning.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"features": x}, y)).batch(64))
    assert result["global_step"] == 100 and result["acc"] > 0.95 and result["loss"] < 0.2, result
    with pytest.raises(ValueError, match="has not been compiled"):
        tf.keras.estimator.model_to_estimator(keras_model=tf.keras.Sequential([layers.Dense(1, input_shape=(2,))]))


def test_fit_under_mirrored_strategy_trains_as_one_device_on_the_whole_batch():
    rng = np.random.RandomState(15)
    x = rng.randn(16, 4).astype(np.float32)
    y = rng.randint(0, 3, 16)

    def build():
        model = tf.keras.Sequential([
            layers.Dense(8, activation="relu", input_shape=(4,), kernel_initializer=tf.keras.initializers.Constant(0.1),
                         kernel_regularizer=tf.keras.regularizers.l2(0.01)),
            layers.Dense(3, activation="softmax", kernel_initializer="ones")])
        model.compile(tf.keras.optimizers.SGD(0.5), "sparse_categorical_crossentropy", ["accuracy"])
        return model

    one = build()
    want = [one.train_on_batch(x, y) for _ in range(3)]
    weights = one.get_weights()
    K.clear_session()
    K.set_session(tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})))
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        two = build()
    got = [two.train_on_batch(x, y) for _ in range(3)]  # (each replica on half the batch)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for a, b in zip(weights, two.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    assert isinstance(two.layers[0].kernel, tf.distribute.MirroredVariable)
    history = two.fit(x, y, epochs=3, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < want[-1][0]


@pytest.mark.parametrize("name", ["sgd_momentum", "adam", "rmsprop", "adagrad", "adadelta"])
def test_a_keras_optimizer_step_is_its_update_rule(name):
    rng = np.random.RandomState(16)
    x = rng.randn(8, 3).astype(np.float32)
    y = rng.randn(8, 1).astype(np.float32)
    optimizer = {"sgd_momentum": tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
                 "adam": tf.keras.optimizers.Adam(0.01), "rmsprop": tf.keras.optimizers.RMSprop(0.01),
                 "adagrad": tf.keras.optimizers.Adagrad(0.1), "adadelta": tf.keras.optimizers.Adadelta(1.0)}[name]
    model = tf.keras.Sequential([layers.Dense(1, input_shape=(3,), use_bias=False)])
    model.compile(optimizer, "mse")
    w = model.get_weights()[0].astype(np.float64)
    state = {}
    for step in range(1, 3):
        g = 2 * x.T @ (x @ w - y) / len(x)
        model.train_on_batch(x, y)
        if name == "sgd_momentum":  # (Nesterov: the step looks ahead along the new velocity)
            v = state["v"] = 0.9 * state.get("v", 0) + g
            w = w - 0.1 * (g + 0.9 * v)
        elif name == "adam":
            m = state["m"] = 0.9 * state.get("m", 0) + 0.1 * g
            s = state["s"] = 0.999 * state.get("s", 0) + 0.001 * g * g
            rate = 0.01 * np.sqrt(1 - 0.999 ** step) / (1 - 0.9 ** step)
            w = w - rate * m / (np.sqrt(s) + 1e-7)
        elif name == "rmsprop":  # (the mean square starts at zero, as Keras's)
            s = state["s"] = 0.9 * state.get("s", 0) + 0.1 * g * g
            w = w - 0.01 * g / np.sqrt(s + 1e-7)
        elif name == "adagrad":
            s = state["s"] = state.get("s", 0.1) + g * g
            w = w - 0.1 * g / np.sqrt(s)
        else:
            s = state["s"] = 0.95 * state.get("s", 0) + 0.05 * g * g
            update = g * np.sqrt(state.get("d", 0) + 1e-7) / np.sqrt(s + 1e-7)
            state["d"] = 0.95 * state.get("d", 0) + 0.05 * update * update
            w = w - update
        np.testing.assert_allclose(model.get_weights()[0], w, rtol=1e-4, atol=1e-6, err_msg=f"{name} step {step}")


def test_a_model_whose_loss_comes_from_add_loss_alone():
    """Keras's VAE example: the loss is added to the model (reconstruction plus the KL term, with
    K.random_normal sampling), compile gets no loss, and fit gets no targets."""
    rng = np.random.RandomState(17)
    codes = rng.randn(128, 2)
    x = (1 / (1 + np.exp(-3 * codes @ rng.randn(2, 6)))).astype(np.float32)  # (two factors behind six values)
    tf.set_random_seed(1)
    inputs = tf.keras.Input((6,))
    hidden = layers.Dense(8, activation="relu")(inputs)
    z_mean, z_log_var = layers.Dense(2)(hidden), layers.Dense(2)(hidden)
    z = layers.Lambda(lambda a: a[0] + K.exp(0.5 * a[1]) * K.random_normal(K.shape(a[0])))([z_mean, z_log_var])
    decoded = layers.Dense(6, activation="sigmoid")(layers.Dense(8, activation="relu")(z))
    vae = tf.keras.Model(inputs, decoded)
    reconstruction = K.sum(K.binary_crossentropy(inputs, decoded), axis=-1)
    kl = -0.5 * K.sum(1 + z_log_var - K.square(z_mean) - K.exp(z_log_var), axis=-1)
    vae.add_loss(K.mean(reconstruction + kl))
    vae.compile(optimizer=tf.keras.optimizers.Adam(0.01))
    np.random.seed(3)  # (fit shuffles with NumPy's global generator: the same batches whatever ran before)
    history = vae.fit(x, epochs=20, batch_size=32, verbose=0)
    assert vae.metrics_names == ["loss"]
    losses = history.history["loss"]  # (the cross-entropy of non-binary targets has a floor: it falls slowly)
    assert losses[-1] < losses[0] and min(losses) < 0.97 * losses[0], losses
    assert vae.predict(x[:4]).shape == (4, 6)
    with pytest.raises(ValueError, match="no loss to train"):
        plain = tf.keras.Sequential([layers.Dense(1, input_shape=(2,))])
        plain.compile("sgd")
        plain.fit(np.zeros((2, 2)), verbose=0)


def test_custom_objects_resolve_in_configs_and_saved_models(tmp_path):
    """A constraint, an initializer, a regularizer, a loss and a metric Keras does not define
    come back from configs and files by name: from custom_objects, or a CustomObjectScope."""
    _h5py()

    class HalfOnes(tf.keras.initializers.Initializer):
        def __call__(self, shape, dtype=None, partition_info=None):
            return tf.ones(shape, dtype or tf.float32) * 0.5

        def get_config(self):
            return {}

    class Clip(tf.keras.constraints.Constraint):
        def __init__(self, limit):
            self.limit = limit

        def __call__(self, w):
            return tf.clip_by_value(w, -self.limit, self.limit)

        def get_config(self):
            return {"limit": self.limit}

    def doubled_mse(y_true, y_pred):
        return 2.0 * tf.reduce_mean(tf.square(y_true - y_pred), -1)

    config = tf.keras.constraints.serialize(Clip(0.3))
    with pytest.raises(ValueError, match="Unknown constraint: Clip"):
        tf.keras.constraints.deserialize(config)
    assert tf.keras.constraints.deserialize(config, {"Clip": Clip}).limit == 0.3
    with tf.keras.utils.CustomObjectScope({"Clip": Clip}):
        assert isinstance(tf.keras.constraints.get(config), Clip)
    assert "Clip" not in tf.keras.utils.get_custom_objects()  # (the scope put the registry back)
    assert isinstance(tf.keras.regularizers.deserialize(tf.keras.regularizers.serialize(tf.keras.regularizers.l2(0.1))),
                      tf.keras.regularizers.L1L2)
    adam = tf.keras.optimizers.deserialize(tf.keras.optimizers.serialize(tf.keras.optimizers.Adam(0.25)))
    assert type(adam).__name__ == "Adam" and adam.get_config()["learning_rate"] == pytest.approx(0.25)
    assert tf.keras.metrics.deserialize(tf.keras.metrics.serialize(tf.keras.metrics.mae)) is tf.keras.metrics.mae

    model = tf.keras.Sequential([layers.Dense(2, input_shape=(3,), kernel_initializer=HalfOnes(),
                                              kernel_constraint=Clip(0.3))])
    model.compile(tf.keras.optimizers.SGD(0.1), doubled_mse, metrics=[doubled_mse])
    x, y = np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32)
    model.fit(x, y, epochs=1, verbose=0)
    assert np.abs(model.get_weights()[0]).max() <= 0.3 + 1e-7  # (the constraint ran after the update)
    path = str(tmp_path / "custom.h5")
    model.save(path)
    objects = {"HalfOnes": HalfOnes, "Clip": Clip, "doubled_mse": doubled_mse}
    with pytest.raises(ValueError, match="custom_objects"):
        tf.keras.models.load_model(path)
    loaded = tf.keras.models.load_model(path, custom_objects=objects)
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)
    assert isinstance(loaded.layers[0].kernel_constraint, Clip) and loaded.layers[0].kernel_constraint.limit == 0.3
    assert loaded.evaluate(x, y, verbose=0) == pytest.approx(model.evaluate(x, y, verbose=0), rel=1e-5)


def test_a_model_on_data_tensors_trains_evaluates_and_predicts_without_feeds():
    """Keras's mnist_tfrecord pattern: Input(tensor=a tf.data batch), compile's target_tensors,
    fit with steps_per_epoch; nothing is fed but the learning phase."""
    rng = np.random.RandomState(5)
    x = rng.randn(64, 3).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    features, labels = tf.data.Dataset.from_tensor_slices((x, y)).batch(16).repeat().make_one_shot_iterator() \
        .get_next()
    inp = tf.keras.Input(tensor=features)
    model = tf.keras.Model(inp, layers.Dense(1, kernel_initializer="zeros")(inp))
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", target_tensors=[labels])
    history = model.fit(epochs=3, steps_per_epoch=4, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] / 4
    loss = model.evaluate(steps=4, verbose=0)
    kernel, bias = model.get_weights()
    assert loss == pytest.approx(float(np.mean((x @ kernel + bias - y) ** 2)), rel=1e-4)  # (4 steps: one pass)
    assert model.predict(steps=2).shape == (32, 1)
    assert np.isfinite(model.train_on_batch(None, None))
    with pytest.raises(ValueError, match="steps_per_epoch"):
        model.fit(epochs=1, verbose=0)
    with pytest.raises(ValueError, match="target_tensors"):
        model.fit(y=y, epochs=1, steps_per_epoch=1, verbose=0)


def test_targets_are_given_for_the_outputs_that_have_a_loss_and_checked_against_them():
    a = tf.keras.Input((3,), name="a")
    hidden = layers.Dense(4, name="hidden")(a)
    out = layers.Dense(2, activation="softmax", name="out")(hidden)
    model = tf.keras.Model(a, [hidden, out])
    model.compile("sgd", {"out": "categorical_crossentropy"}, metrics=["acc"])
    x = np.random.RandomState(1).rand(8, 3)
    onehot = np.eye(2)[np.arange(8) % 2]
    assert np.isfinite(model.train_on_batch(x, onehot)).all()  # (one array: the one output with a loss)
    assert np.isfinite(model.train_on_batch(x, [None, onehot])).all()
    with pytest.raises(ValueError, match="sparse_categorical_crossentropy"):
        model.fit(x, np.arange(8) % 2, verbose=0)  # (class indices with categorical_crossentropy)
    single = tf.keras.Sequential([layers.Dense(3, input_shape=(2,))])
    single.compile("sgd", "mse")
    with pytest.raises(ValueError, match=r"target array with shape \(4, 2\) was passed for an output of shape"):
        single.train_on_batch(np.ones((4, 2)), np.ones((4, 2)))


def test_masked_steps_count_for_nothing_in_the_loss_and_the_metrics():
    """Masking + TimeDistributed: the loss is the mean over all steps of the unmasked steps'
    losses (TF 1.15's), the metrics the mean over the unmasked steps."""
    model = tf.keras.Sequential([layers.Masking(0.0, input_shape=(3, 1)),
                                 layers.TimeDistributed(layers.Dense(1, kernel_initializer="ones",
                                                                     bias_initializer="zeros"))])
    model.compile("sgd", "mse", metrics=["mae"])
    x = np.array([[[1.0], [2.0], [0.0]], [[0.0], [0.0], [3.0]]])
    y = np.array([[[1.0], [0.0], [5.0]], [[9.0], [9.0], [1.0]]])
    # unmasked steps: (1 vs 1), (2 vs 0), (3 vs 1): squared errors 0, 4, 4 over 6 steps; abs 0, 2, 2 over 3
    loss, mae = model.evaluate(x, y, verbose=0)
    assert loss == pytest.approx(8.0 / 6) and mae == pytest.approx(4.0 / 3)
    assert model.test_on_batch(x, y)[0] == pytest.approx(8.0 / 6)


def _classifier(hidden=8, classes=3):
    model = tf.keras.Sequential([layers.Dense(hidden, activation="relu", input_shape=(4,)),
                                 layers.Dense(classes, activation="softmax")])
    model.compile(tf.keras.optimizers.Adam(0.05), "categorical_crossentropy", metrics=["accuracy"])
    return model


def _regressor():
    model = tf.keras.Sequential([layers.Dense(1, input_shape=(4,))])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    return model


def test_scikit_learn_wrappers_build_train_predict_and_score():
    from distflow.keras.wrappers.scikit_learn import KerasClassifier, KerasRegressor
    rng = np.random.RandomState(8)
    x = rng.randn(120, 4).astype(np.float32)
    labels = np.array(["low", "mid", "high"])[np.argmax(x[:, :3], 1)]  # (string labels)
    clf = KerasClassifier(_classifier, hidden=16, epochs=30, batch_size=16, verbose=0)
    assert clf.get_params()["hidden"] == 16 and clf.get_params()["build_fn"] is _classifier
    clf.fit(x, labels)
    assert list(clf.classes_) == ["high", "low", "mid"]
    assert (clf.predict(x) == labels).mean() > 0.9 and clf.score(x, labels) > 0.9
    probabilities = clf.predict_proba(x)
    assert probabilities.shape == (120, 3) and np.allclose(probabilities.sum(1), 1, atol=1e-5)
    np.testing.assert_array_equal(clf.model.predict_classes(x), probabilities.argmax(1))
    with pytest.raises(ValueError, match="colour is not a legal parameter"):
        clf.set_params(colour="red")
    y = x @ np.array([1.0, -1.0, 0.5, 2.0], np.float32)
    reg = KerasRegressor(_regressor, epochs=40, batch_size=16, verbose=0)
    reg.fit(x, y)
    assert reg.predict(x).shape == (120,) and -0.05 < reg.score(x, y) <= 0  # (the loss, negated)
    binary = tf.keras.Sequential([layers.Dense(1, activation="sigmoid", input_shape=(4,))])
    np.testing.assert_array_equal(binary.predict_classes(x)[:, 0], (binary.predict(x)[:, 0] > 0.5).astype(int))


def test_temporal_sample_weights_weigh_each_time_step():
    model = tf.keras.Sequential([layers.TimeDistributed(layers.Dense(1, kernel_initializer="ones",
                                                                     bias_initializer="zeros"), input_shape=(3, 1))])
    model.compile("sgd", "mse", sample_weight_mode="temporal")
    x = np.array([[[1.0], [2.0], [3.0]], [[0.0], [1.0], [4.0]]])
    y = np.zeros((2, 3, 1))
    weights = np.array([[1.0, 0.0, 2.0], [0.5, 1.0, 0.0]])
    # squared errors 1 4 9 / 0 1 16, weighted 1 0 18 / 0 1 0: the mean over the 6 steps
    assert model.evaluate(x, y, sample_weight=weights, verbose=0) == pytest.approx(20.0 / 6)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(31.0 / 6)  # (no weights: every step 1)
    with pytest.raises(ValueError, match=r"\[samples, steps\]"):
        model.evaluate(x, y, sample_weight=np.ones(2), verbose=0)
    with pytest.raises(ValueError, match="class_weight"):
        model.fit(x, y, class_weight={0: 1.0}, verbose=0)


def test_model_to_estimator_takes_arrays_by_input_name_and_says_which_names_it_expected(tmp_path):
    a, b = tf.keras.Input((2,), name="a"), tf.keras.Input((3,), name="b")
    out = layers.Dense(1, name="out", kernel_initializer="zeros")(layers.concatenate([a, b]))
    model = tf.keras.Model([a, b], out)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    estimator = tf.keras.estimator.model_to_estimator(model, model_dir=str(tmp_path))
    x = {"a": np.ones((8, 2), np.float32), "b": np.ones((8, 3), np.float32)}
    y = {"out": np.full((8, 1), 2.0, np.float32)}
    before = estimator.evaluate(lambda: (x, y), steps=1)["loss"]  # (arrays, as TF's converts them)
    assert before == pytest.approx(4.0)
    estimator.train(lambda: (x, y), steps=5)
    assert estimator.evaluate(lambda: (x, y), steps=1)["loss"] < before
    with pytest.raises(KeyError, match="Expected keys: {'out'}"):
        estimator.evaluate(lambda: (x, {"wrong": y["out"]}), steps=1)


def test_enqueuers_make_batches_ahead_in_order_and_say_what_failed():
    class Squares(tf.keras.utils.Sequence):
        def __init__(self):
            self.epochs = 0

        def __len__(self):
            return 5

        def __getitem__(self, i):
            return np.full((2,), i * i)

        def on_epoch_end(self):
            self.epochs += 1

    sequence = Squares()
    enqueuer = tf.keras.utils.OrderedEnqueuer(sequence)
    enqueuer.start(workers=3, max_queue_size=4)
    batches = enqueuer.get()
    got = [next(batches)[0] for _ in range(12)]  # (two epochs and a bit, each in the Sequence's order)
    enqueuer.stop(timeout=10)
    assert got == [0, 1, 4, 9, 16] * 2 + [0, 1] and sequence.epochs >= 2 and not enqueuer.is_running()

    shuffled = tf.keras.utils.OrderedEnqueuer(Squares(), shuffle=True)
    shuffled.start(workers=2)
    epoch = [next(shuffled.get())[0] for _ in range(5)]
    shuffled.stop(timeout=10)
    assert sorted(epoch) == [0, 1, 4, 9, 16]

    generator = tf.keras.utils.GeneratorEnqueuer((np.array([i]) for i in range(20)))
    generator.start(workers=2, max_queue_size=3)
    assert sorted(int(b[0]) for b in generator.get()) == list(range(20))  # (every batch once; the end ends get)
    generator.stop(timeout=10)

    def failing():
        yield np.zeros(1)
        raise RuntimeError("the third file is damaged")

    broken = tf.keras.utils.GeneratorEnqueuer(failing())
    broken.start()
    with pytest.raises(RuntimeError, match="third file"):
        list(broken.get())


def test_get_source_inputs_walks_back_to_the_inputs():
    a, b = tf.keras.Input((2,)), tf.keras.Input((3,))
    joined = tf.keras.layers.Concatenate()([tf.keras.layers.Dense(4)(a), b])
    out = tf.keras.layers.Dense(1)(tf.keras.layers.Dense(3)(joined))
    assert tf.keras.utils.get_source_inputs(out) == [a, b]
    assert tf.keras.utils.get_source_inputs(a) == [a]


def test_the_weights_trained_are_those_trainable_at_compile_as_a_gan_needs():
    rng = np.random.RandomState(0)
    generator = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,))])
    discriminator = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(4,))])
    discriminator.compile(tf.keras.optimizers.SGD(0.5), "binary_crossentropy")
    discriminator.trainable = False  # (after its compile: it still trains by itself, not in the combined model)
    z = tf.keras.Input((3,))
    gan = tf.keras.Model(z, discriminator(generator(z)))
    gan.compile(tf.keras.optimizers.SGD(0.5), "binary_crossentropy")
    x, noise = rng.randn(8, 4).astype(np.float32), rng.randn(8, 3).astype(np.float32)
    before = discriminator.get_weights()
    discriminator.train_on_batch(x, np.ones((8, 1)))
    trained = discriminator.get_weights()
    assert not np.array_equal(before[0], trained[0])
    g_before = generator.get_weights()[0]
    gan.train_on_batch(noise, np.ones((8, 1)))
    assert all(np.array_equal(a, b) for a, b in zip(trained, discriminator.get_weights()))
    assert not np.array_equal(g_before, generator.get_weights()[0])
    discriminator.compile(tf.keras.optimizers.SGD(0.5), "binary_crossentropy")  # (compiled again: now frozen)
    discriminator.train_on_batch(x, np.ones((8, 1)))
    assert all(np.array_equal(a, b) for a, b in zip(trained, discriminator.get_weights()))


def test_an_encoders_states_given_as_initial_state_join_the_model():
    encoder_inputs = tf.keras.Input((None, 3))
    encoder = tf.keras.layers.LSTM(4, return_state=True)
    _, h, c = encoder(encoder_inputs)
    decoder_inputs = tf.keras.Input((None, 3))
    decoded = tf.keras.layers.LSTM(4, return_sequences=True)(decoder_inputs, initial_state=[h, c])
    model = tf.keras.Model([encoder_inputs, decoder_inputs], tf.keras.layers.Dense(2)(decoded))
    assert encoder in model.layers and len(model.trainable_weights) == 8  # (two LSTMs and the Dense)
    model.compile("sgd", "mse")
    before = tf.keras.backend.get_value(encoder.weights[0])
    x = np.random.RandomState(0).randn(4, 5, 3).astype(np.float32)
    model.train_on_batch([x, x], np.ones((4, 5, 2), np.float32))
    assert not np.array_equal(before, tf.keras.backend.get_value(encoder.weights[0]))  # (the encoder learns)


def test_weighted_metrics_weigh_each_example_by_its_sample_weight():
    rng = np.random.RandomState(0)
    x = rng.randn(40, 5).astype(np.float32)
    y = (rng.rand(40, 1) > 0.5).astype(np.float32)
    w = rng.rand(40).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, activation="sigmoid", input_shape=(5,))])
    model.compile("sgd", "binary_crossentropy", metrics=["accuracy"], weighted_metrics=["accuracy", "mse"])
    assert model.metrics_names == ["loss", "acc", "weighted_acc", "weighted_mean_squared_error"]
    loss, acc, weighted_acc, weighted_mse = model.evaluate(x, y, sample_weight=w, batch_size=16, verbose=0)
    p = model.predict(x)
    right = ((p > 0.5) == (y > 0.5)).ravel()
    assert acc == pytest.approx(right.mean(), rel=1e-6)
    assert weighted_acc == pytest.approx(np.sum(w * right) / w.sum(), rel=1e-5)  # (over the whole set, not per batch)
    assert weighted_mse == pytest.approx(np.sum(w * (p - y).ravel() ** 2) / w.sum(), rel=1e-5)
    unweighted = model.evaluate(x, y, batch_size=16, verbose=0)
    assert unweighted[2] == pytest.approx(right.mean(), rel=1e-6)
    history = model.fit(x, y, sample_weight=w, batch_size=40, epochs=1, verbose=0)
    assert set(history.history) == {"loss", "acc", "weighted_acc", "weighted_mean_squared_error"}


def test_a_custom_training_loop_with_the_optimizers_updates():
    rng = np.random.RandomState(1)
    x = rng.randn(32, 3).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,), use_bias=False)])
    model.set_weights([np.zeros((3, 1), np.float32)])
    target = K.placeholder((None, 1))
    loss = K.mean(K.square(model.output - target))
    optimizer = tf.keras.optimizers.SGD(0.1, clipvalue=0.5)
    grads = K.function([model.input, target], optimizer.get_gradients(loss, model.trainable_weights))([x, y])
    expected = np.clip(2 * x.T @ (x @ np.zeros((3, 1)) - y) / 32, -0.5, 0.5)
    np.testing.assert_allclose(grads[0], expected, rtol=1e-5, atol=1e-6)
    optimizer = tf.keras.optimizers.SGD(0.1)
    step = K.function([model.input, target], [loss], updates=optimizer.get_updates(loss, model.trainable_weights))
    losses = [step([x, y])[0] for _ in range(30)]
    assert losses[-1] < 0.05 * losses[0] and K.get_value(optimizer.iterations) == 30
    np.testing.assert_allclose(model.get_weights()[0].ravel(), [1.0, -2.0, 0.5], atol=0.1)


def test_bidirectional_returns_and_takes_each_directions_states():
    rng = np.random.RandomState(2)
    x = rng.randn(3, 4, 2).astype(np.float32)
    inp = tf.keras.Input((4, 2))
    bi = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(3, return_sequences=True, return_state=True))
    seq, fh, fc, bh, bc = bi(inp)
    assert seq.shape.as_list() == [None, 4, 6] and fh.shape.as_list() == [None, 3]
    model = tf.keras.Model(inp, [seq, fh, fc, bh, bc])
    seq_v, fh_v, fc_v, bh_v, bc_v = model.predict(x)
    # (each direction alone, with the same weights: the forward's last step, the backward's first)
    forward = tf.keras.layers.LSTM(3, return_sequences=True, return_state=True)
    backward = tf.keras.layers.LSTM(3, return_sequences=True, return_state=True, go_backwards=True)
    f_out = forward(inp)
    b_out = backward(inp)
    forward.set_weights(bi.forward_layer.get_weights())
    backward.set_weights(bi.backward_layer.get_weights())
    f_seq, f_h, f_c = tf.keras.Model(inp, f_out).predict(x)
    b_seq, b_h, b_c = tf.keras.Model(inp, b_out).predict(x)
    np.testing.assert_allclose(seq_v, np.concatenate([f_seq, b_seq[:, ::-1]], -1), rtol=1e-5, atol=1e-6)
    for got, want in ((fh_v, f_h), (fc_v, f_c), (bh_v, b_h), (bc_v, b_c)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # (initial states: the first half the forward layer's, the second the backward's)
    states = [tf.keras.Input((3,)) for _ in range(4)]
    started = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(3))(inp, initial_state=states)
    starter = tf.keras.Model([inp] + states, started)
    values = [rng.randn(3, 3).astype(np.float32) for _ in range(4)]
    layer = starter.layers[-1]
    one = tf.keras.layers.LSTM(3)
    one_out = one(inp, initial_state=states[:2])
    one.set_weights(layer.forward_layer.get_weights())
    want = tf.keras.Model([inp] + states[:2], one_out).predict([x] + values[:2])
    np.testing.assert_allclose(starter.predict([x] + values)[:, :3], want, rtol=1e-5, atol=1e-6)


def test_reshape_works_out_its_unknown_dimension():
    inp = tf.keras.Input((4, 6))
    flat = tf.keras.layers.Reshape((-1,))(inp)
    assert flat.shape.as_list() == [None, 24]
    assert tf.keras.layers.Reshape((3, -1))(inp).shape.as_list() == [None, 3, 8]
    with pytest.raises(ValueError, match="total size of new array must be unchanged"):
        tf.keras.layers.Reshape((5, -1))(inp)


def test_tensorflow_ops_between_keras_layers_become_layers_of_the_model(tmp_path):
    pytest.importorskip("h5py")
    rng = np.random.RandomState(3)
    x = rng.randn(6, 5).astype(np.float32)
    inp = tf.keras.Input((5,), name="feat")
    hidden = tf.keras.layers.Dense(4, name="hidden")(inp)
    mixed = tf.concat([tf.nn.relu(hidden) * 2.0 + tf.reduce_mean(inp, axis=1, keepdims=True), tf.square(inp)], -1)
    model = tf.keras.Model(inp, tf.keras.layers.Dense(1, name="out")(mixed))
    kinds = [type(layer).__name__ for layer in model.layers]
    assert kinds.count("TensorFlowOpLayer") == 6 and "tf_op_layer_Relu" in [layer.name for layer in model.layers]
    w, b = model.get_layer("hidden").get_weights()
    w2, b2 = model.get_layer("out").get_weights()
    h = np.maximum(x @ w + b, 0) * 2 + x.mean(1, keepdims=True)
    expected = np.concatenate([h, x ** 2], -1) @ w2 + b2
    np.testing.assert_allclose(model.predict(x), expected, rtol=1e-5, atol=1e-5)
    again = tf.keras.Model.from_config(model.get_config())  # (the ops made again from their configs)
    again.set_weights(model.get_weights())
    np.testing.assert_allclose(again.predict(x), expected, rtol=1e-5, atol=1e-5)
    outer_input = tf.keras.Input((5,))
    np.testing.assert_allclose(tf.keras.Model(outer_input, model(outer_input)).predict(x), expected, rtol=1e-5,
                               atol=1e-5)
    model.compile("sgd", "mse")
    model.save(str(tmp_path / "m.h5"))
    np.testing.assert_allclose(tf.keras.models.load_model(str(tmp_path / "m.h5")).predict(x), expected, rtol=1e-5,
                               atol=1e-5)


def test_keras_layers_on_a_programs_own_tensors_stay_plain():
    with tf.Graph().as_default():
        given = tf.placeholder(tf.float32, [None, 3])
        dense = tf.keras.layers.Dense(2)
        out = dense(given * 2.0)  # (no Keras tensor behind it: nothing to wrap)
        mixed = tf.keras.layers.Dense(1)(out + given[:, :2])  # (a Keras tensor and the program's own: not wrapped)
        assert len(dense._inbound_nodes) == 1 and mixed.shape.as_list() == [None, 1]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(mixed, {given: np.ones((2, 3))}).shape == (2, 1)


def test_learning_rate_schedules_give_tfs_rates_and_drive_the_optimizers(tmp_path):
    S = tf.keras.optimizers.schedules
    steps = np.arange(8, dtype=np.float32)
    cases = [(S.ExponentialDecay(0.2, 2, 0.5, staircase=True), 0.2 * 0.5 ** np.floor(steps / 2)),
             (S.InverseTimeDecay(0.1, 1, 0.5), 0.1 / (1 + 0.5 * steps)),
             (S.PolynomialDecay(0.1, 4, 0.01, power=2.0), (0.1 - 0.01) * (1 - np.minimum(steps, 4) / 4) ** 2 + 0.01),
             (S.PiecewiseConstantDecay([2, 4], [0.1, 0.05, 0.01]), np.where(steps <= 2, 0.1, np.where(steps <= 4, 0.05,
                                                                                                       0.01))),
             (tf.keras.experimental.CosineDecay(0.1, 5, alpha=0.1),
              0.1 * ((1 - 0.1) * 0.5 * (1 + np.cos(np.pi * np.minimum(steps, 5) / 5)) + 0.1))]
    session = K.get_session()
    for schedule, expected in cases:
        got = session.run([schedule(K.constant(s)) for s in steps])
        np.testing.assert_allclose(got, expected, rtol=1e-5, err_msg=type(schedule).__name__)
        again = S.deserialize(S.serialize(schedule))
        np.testing.assert_allclose(session.run(again(K.constant(3.0))), expected[3], rtol=1e-5)
    # (SGD with a schedule: each step w -= rate(iterations) * gradient)
    rng = np.random.RandomState(0)
    x = rng.randn(16, 3).astype(np.float32)
    y = x @ np.ones((3, 1), np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,), use_bias=False)])
    model.set_weights([np.zeros((3, 1), np.float32)])
    schedule = S.ExponentialDecay(0.2, 2, 0.5, staircase=True)
    model.compile(tf.keras.optimizers.SGD(schedule), "mse")
    w = np.zeros((3, 1))
    for step in range(5):
        model.train_on_batch(x, y)
        w = w - 0.2 * 0.5 ** (step // 2) * 2 * x.T @ (x @ w - y) / 16
        np.testing.assert_allclose(model.get_weights()[0], w, rtol=1e-4, atol=1e-6)
    assert model.optimizer.lr is schedule
    pytest.importorskip("h5py")
    model.save(str(tmp_path / "m.h5"))
    loaded = tf.keras.models.load_model(str(tmp_path / "m.h5"))
    assert isinstance(loaded.optimizer.lr, S.ExponentialDecay) and loaded.optimizer.lr.decay_steps == 2


def test_keras_ftrl_follows_the_ftrl_proximal_update():
    rng = np.random.RandomState(4)
    x = rng.randn(16, 3).astype(np.float32)
    y = x @ np.ones((3, 1), np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,), use_bias=False)])
    model.set_weights([np.full((3, 1), 0.1, np.float32)])
    lr, l1, l2, shrink = 0.1, 0.01, 0.02, 0.01
    model.compile(tf.keras.optimizers.Ftrl(lr, l1_regularization_strength=l1, l2_regularization_strength=l2,
                                           l2_shrinkage_regularization_strength=shrink), "mse")
    w, accum, linear = np.full((3, 1), 0.1), np.full((3, 1), 0.1), np.zeros((3, 1))
    for _ in range(3):
        model.train_on_batch(x, y)
        g = 2 * x.T @ (x @ w - y) / 16
        new_accum = accum + g * g
        linear = linear + g + 2 * shrink * w - (np.sqrt(new_accum) - np.sqrt(accum)) / lr * w
        quadratic = np.sqrt(new_accum) / lr + 2 * l2
        w = np.where(np.abs(linear) > l1, (np.sign(linear) * l1 - linear) / quadratic, 0.0)
        accum = new_accum
        np.testing.assert_allclose(model.get_weights()[0], w, rtol=1e-4, atol=1e-6)
    assert tf.keras.optimizers.get("ftrl").get_config()["learning_rate_power"] == -0.5


def test_premade_linear_and_wide_deep_models():
    rng = np.random.RandomState(5)
    x = rng.randn(32, 4).astype(np.float32)
    y = (x @ np.array([[1.0], [-1.0], [0.5], [2.0]], np.float32) > 0).astype(np.float32)
    linear = tf.keras.experimental.LinearModel(units=1, activation="sigmoid")
    linear.compile(tf.keras.optimizers.SGD(0.5), "binary_crossentropy")
    w, b = np.zeros((4, 1)), np.zeros(1)
    for _ in range(3):
        linear.train_on_batch(x, y)
        p = 1 / (1 + np.exp(-(x @ w + b)))
        w, b = w - 0.5 * x.T @ (p - y) / 32, b - 0.5 * (p - y).mean(0)
    kernel, bias = linear.get_weights()
    np.testing.assert_allclose(kernel, w, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(bias, b, rtol=1e-4, atol=1e-6)
    # (each part by its own optimizer: here the deep part's does not move it)
    wide = tf.keras.experimental.LinearModel(units=1)
    deep = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="relu"), tf.keras.layers.Dense(1)])
    model = tf.keras.experimental.WideDeepModel(wide, deep, activation="sigmoid")
    model.compile([tf.keras.optimizers.SGD(0.5), tf.keras.optimizers.SGD(0.0)], "binary_crossentropy")
    model.train_on_batch([x, x], y)
    deep_before = deep.get_weights()
    model.train_on_batch([x, x], y)
    assert all(np.array_equal(a, c) for a, c in zip(deep_before, deep.get_weights()))
    assert np.abs(wide.get_weights()[0]).sum() > 0
    lin = x @ wide.get_weights()[0] + wide.get_weights()[1]
    h = np.maximum(x @ deep.get_weights()[0] + deep.get_weights()[1], 0)
    dnn = h @ deep.get_weights()[2] + deep.get_weights()[3]
    np.testing.assert_allclose(model.predict([x, x]), 1 / (1 + np.exp(-0.5 * (lin + dnn))), rtol=1e-5, atol=1e-6)


def test_a_sequential_model_may_use_one_layer_twice():
    # (the model garden's MNIST model shares one pooling layer between its two blocks)
    L = tf.keras.layers
    pool = L.MaxPooling2D((2, 2), (2, 2), padding="same")
    model = tf.keras.Sequential([L.Reshape((8, 8, 1), input_shape=(64,)), L.Conv2D(2, 3, padding="same"), pool,
                                 L.Conv2D(3, 3, padding="same"), pool, L.Flatten(), L.Dense(4)])
    assert [layer.name for layer in model.layers].count(pool.name) == 1
    assert len(model.trainable_weights) == 6
    x = np.random.RandomState(0).rand(5, 64).astype(np.float32)
    out = model(tf.constant(x), training=True)
    assert out.shape.as_list() == [5, 4] and model.output_shape == (None, 4)
    sess = tf.keras.backend.get_session()
    sess.run(tf.global_variables_initializer())
    assert sess.run(out).shape == (5, 4)
    assert model.predict(x).shape == (5, 4)
    with pytest.raises(ValueError, match="unique names"):
        model.add(L.Dense(2, name=pool.name))
    model.pop()
    assert model.output_shape == (None, 12)
