"""GPU kernels written as one CUDA kernel each, where the shared kernel makes many passes.

On a GPU a kernel's passes are launches, and a training step of small tensors is bound by
them: the shared Adam makes nine passes, the sparse cross-entropy a dozen, max pooling's
gradient four per window position. Each kernel here is one CuPy ``ElementwiseKernel`` (CUDA
source compiled by NVRTC when first used, cached on disk by CuPy). ``cuda_kernel(xp, spec)``
returns None on a backend that has no such kernels (the tests' fake device), and each
caller then does the same arithmetic with array operations: those paths are what the fake
device checks, and the CUDA ones are checked against the NumPy kernels on a GPU
(tests/test_gpu.py).
"""

from __future__ import annotations

import functools

from ...ops.conv_ops import conv_output_size

_NAN = "__int_as_float(0x7fc00000)"
_NEG_INF = "(-__int_as_float(0x7f800000))"


@functools.lru_cache(maxsize=None)
def _compiled(xp, name: str, params: str, outputs: str, body: str):
    return xp.ElementwiseKernel(params, outputs, body, f"distflow_{name}")


def cuda_kernel(xp, name: str, spec: tuple):
    """The ElementwiseKernel ``(params, outputs, body)`` for ``xp``, or None without CUDA."""
    return _compiled(xp, name, *spec) if hasattr(xp, "ElementwiseKernel") else None


# -- optimizer updates ------------------------------------------------------------------

SGD = ("T g, T lr", "T w", "w -= lr * g")
ADAM = ("T g, T b1p, T b2p, T lr, T b1, T b2, T eps", "T w, T m, T v",
        """m += (g - m) * (1 - b1);
        v += (g * g - v) * (1 - b2);
        w -= lr * sqrt(1 - b2p) / (1 - b1p) * m / (sqrt(v) + eps);""")


def sgd(xp, w, lr, g) -> None:
    kernel = cuda_kernel(xp, "sgd", SGD)
    if kernel is not None:
        kernel(g, lr, w)
    else:
        w -= lr * g


def adam(xp, w, m, v, b1p, b2p, lr, b1, b2, eps, g) -> None:
    kernel = cuda_kernel(xp, "adam", ADAM)
    if kernel is not None:
        kernel(g, b1p, b2p, lr, b1, b2, eps, w, m, v)
    else:
        m += (g - m) * (1 - b1)
        v += (g * g - v) * (1 - b2)
        w -= lr * xp.sqrt(1 - b2p) / (1 - b1p) * m / (xp.sqrt(v) + eps)


# -- sparse softmax cross-entropy --------------------------------------------------------
# Five launches: the rows' maxima, the shifted exponentials, their sums, the loss, the gradient.

_SHIFTED_EXP = ("T x, raw T top, int64 cols", "T e", "e = exp(x - top[i / cols]);")
_XENT_LOSS = ("raw T x, raw T top, raw T total, raw L labels, int64 cols", "T loss",
              f"""long long c = (long long)labels[i];
              loss = (c >= 0 && c < cols) ? (T)(log(total[i]) - (x[i * cols + c] - top[i])) : (T){_NAN};""")
_XENT_GRAD = ("T e, raw T total, raw L labels, int64 cols", "T g",
              f"""long long r = i / cols, c = (long long)labels[r];
              g = (c >= 0 && c < cols) ? (T)(e / total[r] - ((i % cols) == c ? 1 : 0)) : (T){_NAN};""")


def sparse_softmax_xent(xp, logits, labels):
    """(loss, gradient) of softmax cross-entropy with integer labels, as TensorFlow's GPU
    kernel: a label outside [0, classes) gives its row NaN rather than an error, which would
    wait for the device to check every label."""
    n = logits.shape[-1]
    flat, cols = logits.reshape(-1, n), labels.reshape(-1)
    top = flat.max(axis=-1)
    shifted_exp = cuda_kernel(xp, "shifted_exp", _SHIFTED_EXP)
    if shifted_exp is not None:  # (raw arguments flat and contiguous: indexed by position)
        flat, cols = xp.ascontiguousarray(flat), xp.ascontiguousarray(cols)
        e = shifted_exp(flat, top, n)
        total = e.sum(axis=-1)
        loss = cuda_kernel(xp, "xent_loss", _XENT_LOSS)(flat.reshape(-1), top, total, cols, n, size=cols.shape[0])
        backprop = cuda_kernel(xp, "xent_grad", _XENT_GRAD)(e, total, cols, n)
        return loss.reshape(labels.shape), backprop.reshape(logits.shape)
    e = xp.exp(flat - top[:, None])
    total = e.sum(axis=-1, keepdims=True)
    backprop = e / total
    rows = xp.arange(cols.shape[0])
    valid = (cols >= 0) & (cols < n)
    picked = xp.where(valid, cols, 0)
    loss = xp.log(total.reshape(-1)) - (flat[rows, picked] - top)
    backprop[rows, picked] -= 1
    loss = xp.where(valid, loss, xp.nan).astype(logits.dtype, copy=False)
    backprop = xp.where(valid[:, None], backprop, xp.nan).astype(logits.dtype, copy=False)
    return loss.reshape(labels.shape), backprop.reshape(logits.shape)


# -- max pooling --------------------------------------------------------------------------
# One thread per output (the pool) or per input (its gradient), any window, stride and padding.
# The gradient goes to the first position of each window that holds its maximum, scanning
# the window row by row, as the NumPy kernel does.

_POOL_GEOMETRY = "int32 H, int32 W, int32 C, int32 OH, int32 OW, int32 KH, int32 KW, int32 SH, int32 SW, " \
                 "int32 PH, int32 PW"

_MAX_POOL = (f"raw T x, {_POOL_GEOMETRY}", "T y",
             f"""long long c = i % C, t = i / C;
             int ox = t % OW; t /= OW;
             int oy = t % OH; long long b = t / OH;
             T best = (T){_NEG_INF};
             for (int ky = 0; ky < KH; ++ky) {{
               int iy = oy * SH + ky - PH;
               if (iy < 0 || iy >= H) continue;
               for (int kx = 0; kx < KW; ++kx) {{
                 int ix = ox * SW + kx - PW;
                 if (ix < 0 || ix >= W) continue;
                 T v = x[((b * H + iy) * W + ix) * C + c];
                 if (v > best || v != v) best = v;
               }}
             }}
             y = best;""")

_MAX_POOL_GRAD = (f"raw T x, raw T y, raw T g, {_POOL_GEOMETRY}", "T dx",
                  """long long c = i % C, t = i / C;
                  int ix = t % W; t /= W;
                  int iy = t % H; long long b = t / H;
                  int lo_y = iy + PH - KH + 1, lo_x = ix + PW - KW + 1;
                  int oy0 = lo_y <= 0 ? 0 : (lo_y + SH - 1) / SH, oy1 = min(OH - 1, (iy + PH) / SH);
                  int ox0 = lo_x <= 0 ? 0 : (lo_x + SW - 1) / SW, ox1 = min(OW - 1, (ix + PW) / SW);
                  T acc = 0;
                  for (int oy = oy0; oy <= oy1; ++oy) {
                    for (int ox = ox0; ox <= ox1; ++ox) {
                      long long o = ((b * OH + oy) * OW + ox) * C + c;
                      T m = y[o];
                      bool done = false;
                      for (int ky = 0; ky < KH && !done; ++ky) {
                        int jy = oy * SH + ky - PH;
                        if (jy < 0 || jy >= H) continue;
                        for (int kx = 0; kx < KW; ++kx) {
                          int jx = ox * SW + kx - PW;
                          if (jx < 0 || jx >= W) continue;
                          if (x[((b * H + jy) * W + jx) * C + c] == m) {
                            if (jy == iy && jx == ix) acc += g[o];
                            done = true;
                            break;
                          }
                        }
                      }
                    }
                  }
                  dx = acc;""")


def _geometry(x_shape, ksize, strides, padding):
    _, h, w, c = x_shape
    kh, kw, sh, sw = ksize[1], ksize[2], strides[1], strides[2]
    oh, ph = conv_output_size(h, kh, sh, padding)
    ow, pw = conv_output_size(w, kw, sw, padding)
    return h, w, c, oh, ow, kh, kw, sh, sw, ph, pw


def max_pool(xp, x, ksize, strides, padding):
    """The pooled array, or None where the backend has no CUDA kernels."""
    kernel = cuda_kernel(xp, "max_pool", _MAX_POOL)
    if kernel is None:
        return None
    g = _geometry(x.shape, ksize, strides, padding)
    y = xp.empty((x.shape[0], g[3], g[4], g[2]), dtype=x.dtype)
    return kernel(_flat(xp, x), *g, y)


def max_pool_grad(xp, x, y, grad, ksize, strides, padding):
    """The input's gradient, or None where the backend has no CUDA kernels."""
    kernel = cuda_kernel(xp, "max_pool_grad", _MAX_POOL_GRAD)
    if kernel is None:
        return None
    g = _geometry(x.shape, ksize, strides, padding)
    return kernel(_flat(xp, x), _flat(xp, y), _flat(xp, grad), *g, xp.empty(x.shape, dtype=grad.dtype))


def _flat(xp, a):
    """``a`` as a contiguous 1-D array: what the raw arguments above index by position."""
    return xp.ascontiguousarray(a).reshape(-1)


# -- im2col --------------------------------------------------------------------------------

# (32-bit index arithmetic: a 64-bit division costs several times a 32-bit one, and this
# kernel divides nine times per element; arrays of 2**31 elements or more take the copy below)
_IM2COL = ("raw T x, int32 H, int32 W, int32 C, int32 OH, int32 OW, int32 KW, int32 SH, int32 SW, int32 PH, "
           "int32 PW, int32 K", "T col",
           """int e = (int)i, r = e / K, k = e - r * K;
           int ci = k % C, q = k / C, kx = q % KW, ky = q / KW;
           int ox = r % OW, t = r / OW, oy = t % OH, b = t / OH;
           int iy = oy * SH + ky - PH, ix = ox * SW + kx - PW;
           col = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? x[((b * H + iy) * W + ix) * C + ci] : (T)0;""")


def im2col(xp, x, kh, kw, sh, sw, ph, pw, oh, ow):
    """[N*OH*OW, KH*KW*C]: the window of each output position as a row, ``x`` padded by
    ``ph`` rows above and ``pw`` columns left (and zeros past its end). One kernel on a GPU."""
    n, h, w, c = x.shape
    k = kh * kw * c
    kernel = cuda_kernel(xp, "im2col", _IM2COL)
    if kernel is not None and max(n * oh * ow * k, x.size) < 2**31:
        return kernel(_flat(xp, x), h, w, c, oh, ow, kw, sh, sw, ph, pw, k, xp.empty((n * oh * ow, k), dtype=x.dtype))
    need_h, need_w = (oh - 1) * sh + kh, (ow - 1) * sw + kw
    xpad = xp.zeros((n, need_h, need_w, c), dtype=x.dtype)
    hh, ww = min(h, need_h - ph), min(w, need_w - pw)
    xpad[:, ph:ph + hh, pw:pw + ww, :] = x[:, :hh, :ww, :]
    s = xpad.strides
    windows = xp.lib.stride_tricks.as_strided(
        xpad, shape=(n, oh, ow, kh, kw, c), strides=(s[0], s[1] * sh, s[2] * sw, s[1], s[2], s[3]))
    return xp.ascontiguousarray(windows).reshape(n * oh * ow, k)
