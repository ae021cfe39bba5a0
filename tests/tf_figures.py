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
