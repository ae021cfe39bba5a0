"""Kernels cut into pieces that run at once (ops/intra_op.py), against NumPy written the
obvious way; and the kept large blocks of runtime/blocks.py."""

import os
import subprocess
import sys

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle
from distflow.ops import intra_op
from distflow.platform import blocks


@pytest.fixture
def in_pieces(monkeypatch):
    """Every kernel above 4 KB in three pieces, whatever this machine has."""
    monkeypatch.setattr(intra_op, "MIN_BYTES", 4096)
    monkeypatch.setattr(intra_op.blas, "get_threads", lambda: 3)
    assert intra_op.pieces(64, 1 << 20) == 3


def _pool_oracle(x, k):
    n, h, w, c = x.shape
    return x.reshape(n, h // k, k, w // k, k, c).max(axis=(2, 4))


def _pool_grad_oracle(x, y, dy, k):
    """Each window's gradient to the first position (row-major) holding its maximum."""
    dx = np.zeros_like(x)
    n, oh, ow, c = y.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for ch in range(c):
                    window = x[b, i * k:(i + 1) * k, j * k:(j + 1) * k, ch]
                    di, dj = np.unravel_index(np.argmax(window), window.shape)
                    dx[b, i * k + di, j * k + dj, ch] += dy[b, i, j, ch]
    return dx


def test_kernels_in_pieces_match_numpy(in_pieces):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 8, 8, 5)).astype(np.float32)
    x[0, :2, :2, 0] = 1.5  # a tie: the first position takes the gradient
    f = rng.standard_normal((3, 3, 5, 4)).astype(np.float32)
    dy = rng.standard_normal((7, 4, 4, 5)).astype(np.float32)
    xt, ft, dyt = tf.constant(x), tf.constant(f), tf.constant(dy)
    pooled = tf.nn.max_pool(xt, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    (pool_grad,) = tf.gradients(pooled, [xt], grad_ys=[dyt])
    relu = tf.nn.relu(xt)
    (relu_grad,) = tf.gradients(relu, [xt], grad_ys=[xt * 3.0])
    conv = tf.nn.conv2d(xt, ft, [1, 1, 1, 1], "SAME")
    with tf.Session() as sess:
        got = sess.run([pooled, pool_grad, relu, relu_grad, conv])
    want_pool = _pool_oracle(x, 2)
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    want_conv = np.zeros((7, 8, 8, 4), np.float64)
    for i in range(3):
        for j in range(3):
            want_conv += padded[:, i:i + 8, j:j + 8, :].astype(np.float64) @ f[i, j].astype(np.float64)
    assert_oracle(got[0], want_pool)
    assert_oracle(got[1], _pool_grad_oracle(x, want_pool, dy, 2))
    assert_oracle(got[2], np.maximum(x, 0))
    assert_oracle(got[3], np.where(x > 0, x * 3.0, 0).astype(np.float32))
    assert_oracle(got[4], want_conv.astype(np.float32), rtol=1e-5, atol=1e-5)


def test_adam_in_pieces_matches_numpy(in_pieces, numpy_kernels):
    """Adam on a variable large enough to update chunk by chunk, whole and in pieces (the
    NumPy kernel: oneDNN's, where installed, is checked against it in test_onednn.py)."""
    rng = np.random.default_rng(1)
    n = 300_001  # (chunks of 65536 elements, cut among three pieces; the last one short)
    w0, g = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    v = tf.Variable(w0)
    grad = tf.placeholder(tf.float32, [n])
    train = tf.train.AdamOptimizer(0.01).apply_gradients([(grad, v)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            sess.run(train, {grad: g})
        got = sess.run(v)
    m, s, w = np.zeros(n), np.zeros(n), w0.astype(np.float64)
    for t in (1, 2):
        m = 0.9 * m + 0.1 * g
        s = 0.999 * s + 0.001 * g * g
        w = w - 0.01 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(s) + 1e-8)
    assert np.allclose(got, w, atol=1e-6)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "add_n", "add_n3"])
def test_binary_ops_in_pieces_match_numpy(in_pieces, op):
    """Large float binary ops and sums cut into pieces: same-shape operands, a scalar beside
    an array, float64, and operands that cannot be cut (broadcast rows)."""
    rng = np.random.default_rng(2)
    a, b, c = (rng.standard_normal((301, 17)).astype(np.float32) for _ in range(3))
    row, d64 = rng.standard_normal(17).astype(np.float32), rng.standard_normal((301, 17))
    fns = {"add": (tf.add, np.add), "sub": (tf.subtract, np.subtract), "mul": (tf.multiply, np.multiply),
           "div": (tf.truediv, np.true_divide)}
    if op.startswith("add_n"):
        operands = [a, b, c] if op == "add_n3" else [a, b]
        got = tf.Session().run(tf.add_n([tf.constant(x) for x in operands]))
        assert_oracle(got, sum(x.astype(np.float64) for x in operands).astype(np.float32))
        return
    ours, theirs = fns[op]
    cases = [(a, b), (a, np.float32(1.5)), (np.float32(2.5), a), (a, row), (row, a), (d64, d64 + 1)]
    with tf.Session() as sess:
        got = sess.run([ours(tf.constant(x), tf.constant(y)) for x, y in cases])
    for (x, y), g in zip(cases, got):
        assert_oracle(g, theirs(np.asarray(x, np.float64), np.asarray(y, np.float64)).astype(g.dtype))


def test_an_error_in_a_piece_is_raised_once_every_piece_is_done(in_pieces):
    done = []

    def piece(a, b):
        if a == 0:
            raise ValueError("the first piece failed")
        done.append((a, b))

    with pytest.raises(ValueError, match="the first piece failed"):
        intra_op.run_split(90, 1 << 20, piece)
    assert sorted(done) == [(30, 60), (60, 90)]


def test_large_blocks_are_handed_out_again_only_when_nothing_uses_them():
    n = (blocks.LARGE_BYTES // 4) + 1
    a = blocks.empty((n,), np.float32)
    address = a.ctypes.data
    b = blocks.empty((n,), np.float32)
    assert b.ctypes.data != address  # a is alive
    view = a[10:]
    del a
    c = blocks.empty((n,), np.float32)
    assert c.ctypes.data not in (address, b.ctypes.data)  # a view of a is alive
    freed = {address, c.ctypes.data}
    del view, c
    d = blocks.empty((n,), np.float32)
    assert d.ctypes.data in freed  # one of the two no array uses any more
    small = blocks.empty((1000,), np.float32)
    assert small.base is None and small.shape == (1000,)
    del b, d


def test_idle_blas_threads_sleep_unless_the_user_says_otherwise():
    code = ("import os, distflow as tf\n"
            "from distflow.ops import blas\n"
            "tf.Session().close()\n"
            "print(os.environ.get('OPENBLAS_THREAD_TIMEOUT'), blas._lookup() is not None)\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.dirname(__file__)), "src"))
    env.pop("OPENBLAS_THREAD_TIMEOUT", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    if out.split()[1] == "True":  # (NumPy's own OpenBLAS found)
        assert out.split()[0] == "20"
    env["OPENBLAS_THREAD_TIMEOUT"] = "20"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split()[0] == "20"
