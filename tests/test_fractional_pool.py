"""tf.nn.fractional_max_pool and fractional_avg_pool: the regions their boundaries say (a loop
over regions in NumPy), boundaries as Graham's paper and TensorFlow constrain them, and
gradients by float64 central differences. (Given TensorFlow 2.21's own boundaries, its
outputs and gradients equalled these kernels', overlapping or not, checked by hand.)"""

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
