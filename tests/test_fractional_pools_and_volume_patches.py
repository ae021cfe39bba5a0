"""tf.nn.fractional_max_pool and fractional_avg_pool: the regions their boundaries say (a loop
over regions in NumPy), boundaries as Graham's paper and TensorFlow constrain them, and
gradients by float64 central differences. (Given TensorFlow 2.21's own boundaries, its
outputs and gradients equalled these kernels', overlapping or not, checked by hand.)
tf.extract_volume_patches against loops over windows (and TensorFlow 2.21's values and
gradients for the same cases, checked by hand)."""

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients

X = np.random.default_rng(4).standard_normal((2, 7, 9, 3))


def _oracle(x, rows, cols, overlapping, reduce):
    out = np.zeros((x.shape[0], len(rows) - 1, len(cols) - 1, x.shape[3]))
    for i in range(len(rows) - 1):
        for j in range(len(cols) - 1):
            r1 = min(rows[i + 1] + overlapping, x.shape[1])
            c1 = min(cols[j + 1] + overlapping, x.shape[2])
            for n in range(x.shape[0]):
                for c in range(x.shape[3]):
                    out[n, i, j, c] = reduce(x[n, rows[i]:r1, cols[j]:c1, c])
    return out


@pytest.mark.parametrize("kind,reduce", [("max", np.max), ("avg", np.mean)])
@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_each_output_pools_the_region_its_boundaries_name(kind, reduce, pseudo_random, overlapping):
    fn = tf.nn.fractional_max_pool if kind == "max" else tf.nn.fractional_avg_pool
    out, rows, cols = fn(X, [1.0, 1.44, 1.73, 1.0], pseudo_random=pseudo_random, overlapping=overlapping)
    assert out.shape.as_list() == [2, 4, 5, 3] and rows.shape.as_list() == [5] and cols.shape.as_list() == [6]
    with tf.Session() as sess:
        for _ in range(3):  # (new boundaries each run)
            got, r, c = sess.run([out, rows, cols])
            for bounds, size, count in ((r, 7, 4), (c, 9, 5)):
                steps = np.diff(bounds)
                assert bounds[0] == 0 and bounds[-1] == size and len(bounds) == count + 1
                assert set(steps.tolist()) <= {size // count, size // count + 1}  # (K or K + 1 each)
            np.testing.assert_allclose(got, _oracle(X, r, c, overlapping, reduce), rtol=1e-12)


def test_seeds_and_deterministic():
    x = tf.constant(X)
    fixed = tf.nn.fractional_max_pool(x, [1.0, 2.0, 1.3, 1.0], deterministic=True, seed=5, seed2=6)[1:]
    with tf.Session() as sess:
        first = sess.run(fixed)
        assert all((a == b).all() for a, b in zip(first, sess.run(fixed)))
    with tf.Session() as sess:  # (the same seeds: the same boundaries in a new session)
        assert all((a == b).all() for a, b in zip(first, sess.run(fixed)))
    with pytest.raises(ValueError, match="pooling_ratio"):
        tf.nn.fractional_max_pool(x, [2.0, 2.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="at least 1.0"):
        tf.nn.fractional_avg_pool(x, [1.0, 0.5, 2.0, 1.0])


@pytest.mark.parametrize("overlapping", [False, True])
def test_gradients(overlapping):
    # (distinct values: a maximum is never tied; fixed boundaries, so that every evaluation agrees)
    x = np.random.default_rng(5).permutation(2 * 7 * 9 * 2).reshape(2, 7, 9, 2).astype(np.float64) / 10
    for fn in (tf.nn.fractional_max_pool, tf.nn.fractional_avg_pool):
        check_gradients(lambda v, fn=fn: fn(v, [1.0, 1.44, 1.73, 1.0], pseudo_random=True, overlapping=overlapping,
                                             deterministic=True, seed=7)[0] ** 2, [x], rtol=1e-6, atol=1e-9)


def _volume_oracle(x, k, s, padding):
    """The patches by loops: each output position's window, taps (depth, row, column) then channels."""
    n, d, h, w, c = x.shape
    outs, befores = [], []
    for size, kk, ss in ((d, k[1], s[1]), (h, k[2], s[2]), (w, k[3], s[3])):
        out = -(-size // ss) if padding == "SAME" else (size - kk) // ss + 1
        pad = max((out - 1) * ss + kk - size, 0) if padding == "SAME" else 0
        outs.append(out)
        befores.append(pad // 2)
    got = np.zeros((n, *outs, k[1] * k[2] * k[3] * c))
    for i in range(outs[0]):
        for j in range(outs[1]):
            for m in range(outs[2]):
                flat = []
                for a in range(k[1]):
                    for b in range(k[2]):
                        for e in range(k[3]):
                            z, y, q = i * s[1] - befores[0] + a, j * s[2] - befores[1] + b, m * s[3] - befores[2] + e
                            inside = 0 <= z < d and 0 <= y < h and 0 <= q < w
                            flat.append(x[:, z, y, q, :] if inside else np.zeros((n, c)))
                got[:, i, j, m] = np.concatenate(flat, axis=1)
    return got


@pytest.mark.parametrize("k,s,padding", [([1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID"),
                                         ([1, 2, 3, 2, 1], [1, 2, 2, 3, 1], "SAME"),
                                         ([1, 3, 1, 2, 1], [1, 1, 2, 2, 1], "SAME")])
def test_extract_volume_patches(k, s, padding):
    x = np.random.default_rng(6).standard_normal((2, 4, 5, 6, 2))
    patches = tf.extract_volume_patches(tf.constant(x), k, s, padding)
    want = _volume_oracle(x, k, s, padding)
    assert patches.shape.as_list() == list(want.shape)
    np.testing.assert_allclose(tf.Session().run(patches), want, rtol=1e-12)
    check_gradients(lambda v: tf.extract_volume_patches(v, k, s, padding) ** 2, [x[:1, :3, :4, :4]],
                    rtol=1e-6, atol=1e-9)
