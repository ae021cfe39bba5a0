"""TF 1.15 tf.keras names that programs reach for less often: RadialConstraint, RemoteMonitor,
HDF5Matrix, YAML configs, and a few aliases. Oracles: the algorithms as TF's Keras writes
them, in NumPy; a real HTTP server on 127.0.0.1; h5py's own reads."""

import http.server
import json
import logging
import sys
import threading
import urllib.parse

import numpy as np
import pytest

import distflow as tf
from distflow.tools.launcher import free_ports

keras = tf.keras
rng = np.random.RandomState(7)


def radial_numpy(kernel):
    """TF 1.15's Keras's loop for one (k, k) slice: start from the middle value(s), then pad one
    ring at a time with the next value of the diagonal."""
    k = kernel.shape[0]
    start = k // 2
    if k % 2:
        out, i = kernel[start - 1:start, start - 1:start], 0
    else:
        out, i = np.full((2, 2), kernel[start - 1, start - 1]), 1
    while i < start:
        out = np.pad(out, 1, constant_values=kernel[start + i, start + i])
        i += 1
    return out


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_radial_constraint_gives_each_ring_the_value_tf_keras_gives_it(k):
    w = rng.randn(k, k, 2, 3).astype(np.float32)
    with tf.Session() as sess:
        got = sess.run(keras.constraints.RadialConstraint()(tf.constant(w)))
    for c in range(2):
        for o in range(3):
            np.testing.assert_array_equal(got[:, :, c, o], radial_numpy(w[:, :, c, o]))


def test_radial_constraint_in_a_layer_its_gradient_and_its_config():
    w = tf.constant(rng.randn(4, 4, 1, 1))
    projected = keras.constraints.get("radial_constraint")(w)
    (grad,) = tf.gradients(tf.reduce_sum(projected), w)
    with tf.Session() as sess:
        grad = sess.run(grad)[:, :, 0, 0]
    # every ring's value came from one diagonal entry, which gets the ring's size
    assert grad[1, 1] == 4 and grad[3, 3] == 12 and grad.sum() == 16
    layer = keras.layers.Conv2D(1, 4, kernel_constraint=keras.constraints.radial_constraint())
    config = layer.get_config()["kernel_constraint"]
    assert config == {"class_name": "RadialConstraint", "config": {}}
    assert isinstance(keras.constraints.deserialize(config), keras.constraints.RadialConstraint)
    with pytest.raises(ValueError, match="rank 4"):
        keras.constraints.RadialConstraint()(tf.zeros([3, 3]))
    with pytest.raises(ValueError, match="square kernel"):
        keras.constraints.RadialConstraint()(tf.zeros([3, 2, 1, 1]))


def test_tf_1_15_aliases():
    assert keras.initializers.normal is keras.initializers.RandomNormal
    assert keras.initializers.uniform is keras.initializers.RandomUniform
    assert keras.experimental.terminate_keras_multiprocessing_pools() == []
    with tf.Session() as sess:
        got = sess.run(keras.metrics.cosine(tf.constant([[1.0, 0.0], [0.0, 2.0]]),
                                            tf.constant([[2.0, 0.0], [1.0, 1.0]])))
    np.testing.assert_allclose(got, [-1.0, -np.sqrt(0.5)], rtol=1e-6)


class _Recorder(http.server.BaseHTTPRequestHandler):
    posts: list = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.posts.append((self.path, self.headers["Content-Type"], body))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    _Recorder.posts = []
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", _Recorder.posts
    httpd.shutdown()
    thread.join(timeout=10)
    httpd.server_close()


def small_model():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    return model


def test_remote_monitor_posts_each_epochs_logs_as_a_form_or_as_json(server, fresh_keras):
    root, posts = server
    x, y = rng.randn(8, 3).astype(np.float32), rng.randn(8, 1).astype(np.float32)
    model = small_model()
    history = model.fit(x, y, epochs=2, verbose=0, callbacks=[keras.callbacks.RemoteMonitor(root=root)])
    assert [p[0] for p in posts] == ["/publish/epoch/end/"] * 2
    assert posts[0][1] == "application/x-www-form-urlencoded"
    sent = [json.loads(urllib.parse.parse_qs(body.decode())["data"][0]) for _, _, body in posts]
    assert [s["epoch"] for s in sent] == [0, 1]
    assert [s["loss"] for s in sent] == pytest.approx(history.history["loss"])
    posts.clear()
    model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.RemoteMonitor(
        root=root, path="/logs", send_as_json=True, headers={"X-Run": "7"})])
    (path, kind, body), = posts
    assert path == "/logs" and kind == "application/json" and json.loads(body)["epoch"] == 0


def test_remote_monitor_without_a_server_warns_and_training_goes_on(fresh_keras, caplog):
    (port,) = free_ports(1)  # (nothing listens there)
    model = small_model()
    with caplog.at_level(logging.WARNING, logger="distflow"):
        history = model.fit(rng.randn(4, 3), rng.randn(4, 1), epochs=2, verbose=0,
                            callbacks=[keras.callbacks.RemoteMonitor(root=f"http://127.0.0.1:{port}")])
    assert len(history.history["loss"]) == 2
    assert sum("could not reach RemoteMonitor root server" in r.getMessage() for r in caplog.records) == 2


def test_hdf5_matrix_reads_rows_of_a_dataset_and_fits_like_the_array(tmp_path, fresh_keras):
    h5py = pytest.importorskip("h5py", reason="HDF5Matrix needs h5py (the 'keras' extra)")
    data = rng.randn(10, 3).astype(np.float32)
    labels = rng.randn(10, 1).astype(np.float32)
    path = str(tmp_path / "data.h5")
    with h5py.File(path, "w") as f:
        f["x"], f["y"] = data, labels
    m = keras.utils.HDF5Matrix(path, "x", start=2, end=8, normalizer=lambda a: a * 2)
    assert len(m) == 6 and m.shape == (6, 3) and m.ndim == 2 and m.size == 18 and m.dtype == np.float32
    np.testing.assert_array_equal(m[0], data[2] * 2)
    np.testing.assert_array_equal(m[1:3], data[3:5] * 2)
    np.testing.assert_array_equal(m[[0, 4]], data[[2, 6]] * 2)
    np.testing.assert_array_equal(m[np.array([1, 5])], data[[3, 7]] * 2)
    np.testing.assert_array_equal(np.asarray(m), data[2:8] * 2)
    for bad in (6, slice(0, 7), [1, 6]):
        with pytest.raises(IndexError):
            m[bad]
    x, y = keras.utils.HDF5Matrix(path, "x"), keras.utils.HDF5Matrix(path, "y")
    model = small_model()
    weights = model.get_weights()
    model.fit(x, y, batch_size=5, epochs=2, shuffle=False, verbose=0)
    from_matrix = model.predict(x)
    model.set_weights(weights)
    model.fit(data, labels, batch_size=5, epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(from_matrix, model.predict(data), rtol=1e-6)


def test_a_model_written_as_yaml_is_built_again_from_it(fresh_keras, monkeypatch):
    pytest.importorskip("yaml", reason="YAML configs need PyYAML (the 'keras' extra)")
    inputs = keras.Input((4,))
    outputs = keras.layers.Dense(2, activation="relu")(keras.layers.Dense(3)(inputs))
    model = keras.Model(inputs, outputs)
    text = model.to_yaml()
    assert "class_name: Model" in text and "Dense" in text
    again = keras.models.model_from_yaml(text)
    again.set_weights(model.get_weights())
    x = rng.randn(5, 4).astype(np.float32)
    np.testing.assert_allclose(again.predict(x), model.predict(x), rtol=1e-6)
    assert [type(layer).__name__ for layer in again.layers] == [type(layer).__name__ for layer in model.layers]
    monkeypatch.setitem(sys.modules, "yaml", None)  # (as if PyYAML were not installed)
    with pytest.raises(ImportError, match="pip install pyyaml"):
        model.to_yaml()


def test_a_data_frame_fits_and_predicts_as_its_values(fresh_keras):
    pd = pytest.importorskip("pandas", reason="data frames need pandas (the 'examples' extra)")
    values, targets = rng.randn(8, 3).astype(np.float32), rng.randn(8).astype(np.float32)
    model = small_model()
    weights = model.get_weights()
    model.fit(pd.DataFrame(values, columns=list("abc")), pd.Series(targets), batch_size=4, shuffle=False, verbose=0)
    from_frame = model.predict(pd.DataFrame(values))
    model.set_weights(weights)
    model.fit(values, targets, batch_size=4, shuffle=False, verbose=0)
    np.testing.assert_allclose(from_frame, model.predict(values), rtol=1e-6)
