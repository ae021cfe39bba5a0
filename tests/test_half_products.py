"""float16 products and convolutions on the CPU: computed in float32, rounded once to float16.

The oracle is NumPy written the obvious way in float64 (a product; a convolution as a sum
over the filter's taps of shifted inputs), rounded to float16: a kernel that rounds once is
within a float16 ulp or two of it, where sums kept in float16 drift further.
"""

import numpy as np
import pytest

import distflow as tf


def half(a):
    return np.asarray(a, np.float16)


def close_to(got, exact):
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float64), exact, rtol=2e-3, atol=2e-3 * np.abs(exact).max())


def conv_oracle(x, f, stride, padding):
    """Conv2D in float64: NHWC input, HWIO filter, SAME or VALID as TF pads."""
    n, h, w, c = x.shape
    kh, kw, _, o = f.shape
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-w // stride)
        ph, pw = max((oh - 1) * stride + kh - h, 0), max((ow - 1) * stride + kw - w, 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    else:
        oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    out = np.zeros((n, oh, ow, o))
    for i in range(kh):
        for j in range(kw):
            window = x[:, i:i + (oh - 1) * stride + 1:stride, j:j + (ow - 1) * stride + 1:stride, :]
            out += window @ f[i, j]
    return out


def test_matmul_and_batch_matmul_of_float16():
    rng = np.random.RandomState(0)
    a, b = half(rng.randn(40, 300)), half(rng.randn(300, 7))
    ba, bb = half(rng.randn(3, 5, 64)), half(rng.randn(3, 64, 6))
    pa, pb = tf.placeholder(tf.float16), tf.placeholder(tf.float16)
    with tf.Session() as sess:
        got = sess.run(tf.matmul(pa, pb), {pa: a, pb: b})
        got_t = sess.run(tf.matmul(pa, pb, transpose_a=True), {pa: a.T.copy(), pb: b})
        got_b = sess.run(tf.matmul(pa, pb), {pa: ba, pb: bb})
    exact = a.astype(np.float64) @ b.astype(np.float64)
    close_to(got, exact)
    close_to(got_t, exact)
    close_to(got_b, ba.astype(np.float64) @ bb.astype(np.float64))


@pytest.mark.parametrize("stride,padding", [(1, "SAME"), (2, "VALID"), (2, "SAME")])
def test_conv2d_and_its_gradients_of_float16(stride, padding):
    rng = np.random.RandomState(1)
    x64, f64 = rng.randn(2, 9, 8, 5), rng.randn(3, 3, 5, 4) * 0.3
    x, f = tf.placeholder(tf.float16, x64.shape), tf.placeholder(tf.float16, f64.shape)
    y = tf.nn.conv2d(x, f, [1, stride, stride, 1], padding)
    dy64 = rng.randn(*y.shape.as_list())
    dx, df = tf.gradients(y, [x, f], grad_ys=tf.constant(half(dy64)))
    feed = {x: half(x64), f: half(f64)}
    with tf.Session() as sess:
        got_y, got_dx, got_df = sess.run([y, dx, df], feed)
    xh, fh, dyh = (half(v).astype(np.float64) for v in (x64, f64, dy64))
    close_to(got_y, conv_oracle(xh, fh, stride, padding))
    # the gradients by the adjoint identity: <conv(x, f), dy> = <x, dx> = <f, df>
    inner = np.sum(conv_oracle(xh, fh, stride, padding) * dyh)
    np.testing.assert_allclose(np.sum(xh * got_dx.astype(np.float64)), inner, rtol=5e-3)
    np.testing.assert_allclose(np.sum(fh * got_df.astype(np.float64)), inner, rtol=5e-3)
    with tf.Session() as sess:  # (and against float64's own kernels, value by value)
        x6, f6 = tf.constant(xh), tf.constant(fh)
        y6 = tf.nn.conv2d(x6, f6, [1, stride, stride, 1], padding)
        want_dx, want_df = sess.run(tf.gradients(y6, [x6, f6], grad_ys=tf.constant(dyh)))
    close_to(got_dx, want_dx)
    close_to(got_df, want_df)


def test_depthwise_conv_of_float16():
    rng = np.random.RandomState(2)
    x64, f64 = rng.randn(2, 6, 6, 3), rng.randn(3, 3, 3, 2)
    x, f = tf.placeholder(tf.float16), tf.placeholder(tf.float16)
    with tf.Session() as sess:
        got = sess.run(tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME"), {x: half(x64), f: half(f64)})
    xh, fh = half(x64).astype(np.float64), half(f64).astype(np.float64)
    # (channel k's multiplier m is output channel k * 2 + m: a Conv2D of channel k alone)
    exact = np.concatenate([conv_oracle(xh[..., k:k + 1], fh[:, :, k:k + 1, :], 1, "SAME") for k in range(3)],
                           axis=-1)
    close_to(got, exact)


def test_float16_sums_are_kept_in_float32():
    # 3000 taps of 1 * 1: kept in float16 a sum stops at 2048 (2048 + 1 rounds to 2048)
    x = tf.placeholder(tf.float16, [1, 1, 3000, 1])
    f = tf.ones([1, 3000, 1, 1], tf.float16)
    with tf.Session() as sess:
        got = sess.run(tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "VALID"), {x: np.ones((1, 1, 3000, 1))})
    assert got.dtype == np.float16 and got.item() == 3000
