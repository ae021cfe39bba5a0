"""tf.contrib.resampler against NumPy written the obvious way, and its gradients by float64
central differences."""

import numpy as np
import pytest

import distflow as tf


def sample(image, x, y):
    """image [h, w, c] at (x, y): four neighbours weighted bilinearly, zero outside."""
    h, w, c = image.shape
    x0, y0 = int(np.floor(x)), int(np.floor(y))
    out = np.zeros(c)
    for dy, wy in ((0, 1 - (y - y0)), (1, y - y0)):
        for dx, wx in ((0, 1 - (x - x0)), (1, x - x0)):
            r, col = y0 + dy, x0 + dx
            if 0 <= r < h and 0 <= col < w:
                out += wy * wx * image[r, col]
    return out


def test_resampler_against_numpy_and_by_central_differences():
    rng = np.random.RandomState(4)
    data = rng.rand(2, 5, 6, 3)
    warp = rng.rand(2, 3, 4, 2) * [7.0, 6.0] - 1.0  # (x in [-1, 6), y in [-1, 5): some outside)
    want = np.array([[[sample(data[b], *warp[b, i, j]) for j in range(4)] for i in range(3)] for b in range(2)])
    d, w = tf.constant(data), tf.constant(warp)
    out = tf.contrib.resampler.resampler(d, w)
    assert out.shape.as_list() == [2, 3, 4, 3]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out), want, rtol=1e-12, atol=1e-15)
        assert tf.test.compute_gradient_error(d, [2, 5, 6, 3], out, [2, 3, 4, 3], x_init_value=data) < 1e-8
        inside = np.floor(warp) + 0.2 + rng.rand(2, 3, 4, 2) * 0.6  # (away from the grid lines' kinks)
        assert tf.test.compute_gradient_error(w, [2, 3, 4, 2], out, [2, 3, 4, 3], x_init_value=inside,
                                              delta=1e-6) < 1e-6
    with pytest.raises(ValueError, match="warp must be"):
        tf.contrib.resampler.resampler(d, tf.zeros([2, 3, 3]))
