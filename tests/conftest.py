import numpy as np
import pytest

import distflow as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    """Every test starts with an empty default graph."""
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def evaluate(fetches, feed_dict=None, config=None):
    """Runs ``fetches`` in a new session on the default graph (initializing variables)."""
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed_dict)


def assert_oracle(got, want, rtol=1e-6, atol=1e-6):
    """Shape, then dtype, then values; the message shows both sides."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"shape: got {got.shape}, want {want.shape}\ngot={got}\nwant={want}"
    assert got.dtype == want.dtype, f"dtype: got {got.dtype}, want {want.dtype}"
    if got.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"got={got}\nwant={want}")
    else:
        np.testing.assert_array_equal(got, want, err_msg=f"got={got}\nwant={want}")
