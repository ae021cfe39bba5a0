"""Checks shared by the tests of files TensorFlow wrote (tests/data/tensorflow)."""

import numpy as np


def feeds_of(data) -> dict:
    """The feeds a fixture's npz holds (``feed_<placeholder>``), by tensor name."""
    return {f"{k[5:]}:0": data[k] for k in data.files if k.startswith("feed_")}


def trains_as_tensorflow_did(sess, data, value_of) -> None:
    """Three steps of the graph's ``train`` op give TensorFlow's losses (``losses``), and then
    each variable ``value_of(name)`` TensorFlow's value (``after_<name>``)."""
    losses = [sess.run(["loss:0", "train"], feeds_of(data))[0] for _ in range(3)]
    np.testing.assert_allclose(losses, data["losses"], rtol=1e-6)
    for key in data.files:
        if key.startswith("after_"):
            np.testing.assert_allclose(value_of(key[6:]), data[key], rtol=1e-5, atol=1e-7, err_msg=key)


def formula_weights(weights) -> list:
    """Values for ``weights`` (variables, in ``model.weights`` order) from their places and
    names: kernels scaled by their fan-in, batch normalizations near the identity. A fixture
    maker sets them in TensorFlow's model and stores its predictions; a test sets them in
    distflow's, so that no weight file is needed."""
    out = []
    for i, w in enumerate(weights):
        shape = tuple(w.shape.as_list())
        wave = np.cos(np.arange(int(np.prod(shape))) * 0.7311 + i * 1.37).reshape(shape)
        if "moving_variance" in w.name:
            value = 1.0 + 0.5 * np.abs(wave)
        elif "gamma" in w.name:
            value = 1.0 + 0.1 * wave
        elif len(shape) >= 2:
            value = wave * np.sqrt(2.0 / np.prod(shape[:-1]))
        else:
            value = 0.1 * wave
        out.append(value.astype(np.float32))
    return out


def formula_input(shape) -> np.ndarray:
    """An input batch of ``shape`` from a formula (see formula_weights)."""
    return np.sin(np.arange(int(np.prod(shape))) * 0.37).reshape(shape).astype(np.float32)


def nested_keras_model(tf):
    """The model of models tests/data/tensorflow/keras_nested.h5 holds, built with ``tf``
    (TensorFlow's ``tf.compat.v1`` or distflow): a frozen Sequential ``base`` (Dense,
    BatchNormalization, ReLU, Dense, BatchNormalization) in a functional ``branch`` with a
    Dense ``head``, in a model that joins a second input and has two outputs; compiled."""
    layers = tf.keras.layers
    base = tf.keras.Sequential([layers.Dense(8, input_shape=(6,)), layers.BatchNormalization(),
                                layers.Activation("relu"), layers.Dense(8), layers.BatchNormalization()], name="base")
    inner = tf.keras.Input((6,), name="inner")
    branch = tf.keras.Model(inner, layers.Dense(5, name="head")(base(inner)), name="branch")
    first, second = tf.keras.Input((6,), name="first"), tf.keras.Input((2,), name="second")
    joined = layers.concatenate([branch(first), second], name="joined")
    model = tf.keras.Model([first, second], [layers.Dense(3, activation="softmax", name="cls")(joined),
                                             layers.Dense(1, name="reg")(joined)])
    base.trainable = False
    model.compile("adam", {"cls": "sparse_categorical_crossentropy", "reg": "mse"})
    return model
