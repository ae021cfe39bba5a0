"""CPU kernels from oneDNN: 2-D convolutions (and depthwise ones, as grouped convolutions with
a group per input channel), their two gradients, max and average pooling
and local response normalization with their gradients, for float32 in NHWC; and a
convolution layer (convolution, bias and ReLU) as one call, which the ``conv_fusion``
rewrite makes.

Each is registered for the CPU (``register_kernel(..., "CPU", when=available)``) beside
the NumPy kernel of its op block (ops/conv_ops.py), which stays the reference it is
tested against and the fallback: the NumPy kernel runs where oneDNN is not installed,
and for what these do not take (another dtype, an empty tensor).

Layouts: tensors arrive and leave in NHWC and filters in HWIO, as the graph has them;
oneDNN picks the filter layout it computes fastest with, and the filter (or its
gradient) is reordered to and from it in each call (some 25 us for 5x5x32x64).
Convolutions read NHWC directly: for Deep MNIST's second layer (5x5x32x64 on 64x14x14 on
2 AVX-512 cores) the forward product took 2.2 ms against 6.9 ms for NumPy's im2col and
GEMM.

Max pooling's gradient (``MaxPoolGrad(x, y, dy)``) gets no workspace from the forward op,
which TensorFlow's op signature does not carry: it runs the forward pooling again for
the workspace (where each window's maximum is), then the backward one; LRN's gradient
does the same where oneDNN's backward LRN asks for a workspace.

LRN: TensorFlow divides by ``(bias + alpha * sum)^beta`` over the ``2 * depth_radius + 1``
channels around each one; oneDNN by ``(k + alpha / n * sum)^beta`` over ``n`` channels, so
its alpha is TensorFlow's times ``n``.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import threading
import time

import numpy as np

from ...framework.registry import get_registration, register_kernel
from ...ops import blas
from ...ops.conv_ops import conv_output_size
from ...ops.runtime_ops import FUSED_CONV, MAX_POOL_GRAD_WITH_WORKSPACE, MAX_POOL_WITH_WORKSPACE
from . import library as L
from .library import Dims, P, Primitive, available

_F32 = np.dtype(np.float32)
_log = logging.getLogger(__name__)

def _numpy(op_type: str):
    return get_registration(op_type).kernel


def _takes(*arrays) -> bool:
    return all(a.dtype == _F32 and a.size for a in arrays)


def _c(a: np.ndarray) -> np.ndarray:
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def _geometry(h, w, kh, kw, strides, padding):
    """(oh, ow), padding before, padding after, as oneDNN takes them (after may be cut to
    0 where VALID's last window stops short of the input's end)."""
    sh, sw = strides[1], strides[2]
    oh, ph = conv_output_size(h, kh, sh, padding)
    ow, pw = conv_output_size(w, kw, sw, padding)
    after = (max(0, (oh - 1) * sh + kh - h - ph), max(0, (ow - 1) * sw + kw - w - pw))
    return (oh, ow), (ph, pw), after


class _Descs:
    """Memory descriptors made for one primitive descriptor, destroyed once it exists."""

    def __init__(self, lib: L.Library):
        self.lib, self.made = lib, []

    def __call__(self, dims, tag) -> P:
        md = self.lib.memory_desc(dims, tag)
        self.made.append(md)
        return md

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for md in self.made:
            self.lib.lib.dnnl_memory_desc_destroy(md)


def _make_pd(lib: L.Library, create, what: str, *args, relu: bool = False) -> P:
    """A primitive descriptor, with a ReLU applied as the result is written where ``relu``."""
    return lib.primitive_desc(create, what, *args, post_ops=[("eltwise", L.ELTWISE_RELU, 0.0, 0.0)] if relu else ())


def _reorder(lib: L.Library, src_md: P, dst_md: P) -> Primitive:
    pd = _make_pd(lib, lambda out, engine, attr: lib.lib.dnnl_reorder_primitive_desc_create(
        out, src_md, engine, dst_md, engine, attr), "dnnl_reorder_primitive_desc_create")
    return Primitive(lib, pd, (L.ARG_SRC, L.ARG_DST))


class _Convolution:
    """The three primitives of one convolution's shape: forward, backward data, backward
    weights (each made when first needed), and the filter reorders they need. With
    ``fused``, only the forward, adding a bias and then a ReLU (``fused="relu"``) as it
    writes its result."""

    def __init__(self, lib: L.Library, x_shape, f_shape, strides, padding, fused: str | None = None,
                 depthwise: bool = False, dilations=(1, 1, 1, 1)):
        self.lib, self.fused = lib, fused
        n, h, w, c = x_shape
        kh, kw, _, o = f_shape
        dh, dw = dilations[1], dilations[2]
        (oh, ow), self.before, self.after = _geometry(h, w, (kh - 1) * dh + 1, (kw - 1) * dw + 1, strides, padding)
        self.dilates = (dh - 1, dw - 1)  # (oneDNN counts the taps skipped between two)
        if depthwise:  # a group per input channel, ``o`` (the multiplier) outputs each
            self.dims = {"x": (n, c, h, w), "f": (c, o, 1, kh, kw), "y": (n, c * o, oh, ow)}
            o *= c
        else:
            self.dims = {"x": (n, c, h, w), "f": (o, c, kh, kw), "y": (n, o, oh, ow)}
        # the filter as the graph holds it: HWIO, or a depthwise filter's [kh, kw, c, m]
        self.graph_filter_tag = "decab" if depthwise else "cdba"
        self.y_shape = (n, oh, ow, o)
        self.strides = (strides[1], strides[2])
        self._fwd_pd = None
        self._prims: dict = {}
        self._lock = threading.Lock()

    def _common(self):
        return (Dims(*self.strides), Dims(*self.dilates), Dims(*self.before), Dims(*self.after))

    def fwd_pd(self) -> P:
        if self._fwd_pd is None:
            lib = self.lib
            with _Descs(lib) as md:
                bias = md(self.dims["y"][1:2], "a") if self.fused else None
                self._fwd_pd = _make_pd(
                    lib, lib.lib.dnnl_convolution_forward_primitive_desc_create,
                    "dnnl_convolution_forward_primitive_desc_create", L.FORWARD_TRAINING, L.CONVOLUTION_DIRECT,
                    md(self.dims["x"], "acdb"), md(self.dims["f"], L.FORMAT_ANY), bias, md(self.dims["y"], "acdb"),
                    *self._common(), relu=self.fused == "relu")
        return self._fwd_pd

    def primitive(self, which: str) -> tuple[Primitive, Primitive | None]:
        """(the primitive, the reorder between HWIO and its filter layout, or None)."""
        found = self._prims.get(which)
        if found is None:
            with self._lock:
                found = self._prims.get(which) or self._make(which)
        return found

    def _make(self, which: str) -> tuple[Primitive, Primitive | None]:
        lib = self.lib
        with _Descs(lib) as md:
            x, y, f_any = md(self.dims["x"], "acdb"), md(self.dims["y"], "acdb"), md(self.dims["f"], L.FORMAT_ANY)
            hwio = md(self.dims["f"], self.graph_filter_tag)
            if which == "forward":
                args = (L.ARG_SRC, L.ARG_WEIGHTS, L.ARG_DST) + ((L.ARG_BIAS,) if self.fused else ())
                prim = Primitive(lib, self.fwd_pd(), args)
                f_arg, to_prim = L.ARG_WEIGHTS, True
            elif which == "input":
                pd = _make_pd(lib, lib.lib.dnnl_convolution_backward_data_primitive_desc_create,
                              "dnnl_convolution_backward_data_primitive_desc_create", L.CONVOLUTION_DIRECT,
                              x, f_any, y, *self._common(), self.fwd_pd())
                prim = Primitive(lib, pd, (L.ARG_DIFF_SRC, L.ARG_WEIGHTS, L.ARG_DIFF_DST))
                f_arg, to_prim = L.ARG_WEIGHTS, True
            else:
                pd = _make_pd(lib, lib.lib.dnnl_convolution_backward_weights_primitive_desc_create,
                              "dnnl_convolution_backward_weights_primitive_desc_create", L.CONVOLUTION_DIRECT,
                              x, f_any, None, y, *self._common(), self.fwd_pd())
                prim = Primitive(lib, pd, (L.ARG_SRC, L.ARG_DIFF_WEIGHTS, L.ARG_DIFF_DST))
                f_arg, to_prim = L.ARG_DIFF_WEIGHTS, False
            reorder = None
            if not prim.layout_is(f_arg, hwio):
                reorder = _reorder(lib, hwio, prim.mds[f_arg]) if to_prim else _reorder(lib, prim.mds[f_arg], hwio)
        self._prims[which] = found = (prim, reorder)
        return found


def _filter_in(reorder: Primitive | None, f: np.ndarray, threads: int) -> np.ndarray:
    if reorder is None:
        return f
    out = np.empty(reorder.bytes_of(L.ARG_DST), np.uint8)
    reorder({L.ARG_SRC: f, L.ARG_DST: out}, threads)
    return out


def _convolution(x_shape, f_shape, strides, padding, fused: str | None = None, depthwise: bool = False,
                 dilations=(1, 1, 1, 1)) -> _Convolution:
    key = ("conv", tuple(x_shape), tuple(f_shape), tuple(strides), padding, fused, depthwise, tuple(dilations))
    return L.cached(key, lambda lib: _Convolution(lib, x_shape, f_shape, strides, padding, fused, depthwise,
                                                  dilations))


def _forward(x, f, strides, padding, depthwise: bool = False, bias=None, relu: bool = False,
             dilations=(1, 1, 1, 1)) -> np.ndarray:
    fused = None if bias is None else "relu" if relu else "bias"
    conv = _convolution(x.shape, f.shape, strides, padding, fused, depthwise, dilations)
    prim, reorder = conv.primitive("forward")
    threads = blas.intra_op_threads()
    y = np.empty(conv.y_shape, _F32)
    arrays = {L.ARG_SRC: _c(x), L.ARG_WEIGHTS: _filter_in(reorder, _c(f), threads), L.ARG_DST: y}
    if bias is not None:
        arrays[L.ARG_BIAS] = _c(bias)
    prim(arrays, threads)
    return y


def _input_gradient(x_shape, f, dy, strides, padding, depthwise: bool = False,
                    dilations=(1, 1, 1, 1)) -> np.ndarray:
    conv = _convolution(x_shape, f.shape, strides, padding, depthwise=depthwise, dilations=dilations)
    prim, reorder = conv.primitive("input")
    threads = blas.intra_op_threads()
    dx = np.empty(x_shape, _F32)
    prim({L.ARG_DIFF_SRC: dx, L.ARG_WEIGHTS: _filter_in(reorder, _c(f), threads), L.ARG_DIFF_DST: _c(dy)}, threads)
    return dx


def _filter_gradient(x, f_shape, dy, strides, padding, depthwise: bool = False,
                     dilations=(1, 1, 1, 1)) -> np.ndarray:
    conv = _convolution(x.shape, f_shape, strides, padding, depthwise=depthwise, dilations=dilations)
    prim, reorder = conv.primitive("filter")
    threads = blas.intra_op_threads()
    df = np.empty(f_shape, _F32)
    if reorder is None:
        prim({L.ARG_SRC: _c(x), L.ARG_DIFF_WEIGHTS: df, L.ARG_DIFF_DST: _c(dy)}, threads)
        return df
    blocked = np.empty(prim.bytes_of(L.ARG_DIFF_WEIGHTS), np.uint8)
    prim({L.ARG_SRC: _c(x), L.ARG_DIFF_WEIGHTS: blocked, L.ARG_DIFF_DST: _c(dy)}, threads)
    reorder({L.ARG_SRC: blocked, L.ARG_DST: df}, threads)
    return df


# oneDNN 3.2 computes an input gradient as a forward convolution over the output gradient
# (its brgemm kernels, vectorized over the input's channels): with one input channel and a
# wide filter (a text CNN's 3x128 windows over 128-wide embeddings) that took 175-330 ms
# where NumPy takes 4. So each shape's first call times both, once, and a shape NumPy
# computes in under half oneDNN's time goes to NumPy from then on: (op, shapes, strides,
# padding, dilations) -> "onednn" or "numpy".
_INPUT_GRADIENT_BY: dict = {}


def _faster_input_gradient(onednn_kernel, numpy_kernel) -> str:
    start = time.perf_counter()
    onednn_kernel()  # (its primitive made by the call before: this times the computation)
    middle = time.perf_counter()
    numpy_kernel()
    numpy_s = time.perf_counter() - middle
    choice = "numpy" if numpy_s < 0.5 * (middle - start) else "onednn"
    _log.debug("input gradient: oneDNN %.2f ms, NumPy %.2f ms: %s", (middle - start) * 1e3, numpy_s * 1e3, choice)
    return choice


def _register_convolution(forward: str, input_grad: str, filter_grad: str, depthwise: bool) -> None:
    """oneDNN's kernels of a convolution op and its two gradients (a depthwise one: oneDNN's
    grouped convolution with a group per input channel); the NumPy kernels for what oneDNN
    does not take."""
    @register_kernel(forward, "CPU", when=available)
    def _forward_kernel(xp, x, f, *, strides, padding, dilations=(1, 1, 1, 1)):
        if not _takes(x, f):
            return _numpy(forward)(xp, x, f, strides=strides, padding=padding, dilations=dilations)
        return _forward(x, f, strides, padding, depthwise=depthwise, dilations=dilations)

    @register_kernel(input_grad, "CPU", when=available)
    def _input_grad_kernel(xp, input_sizes, f, dy, *, strides, padding, dilations=(1, 1, 1, 1)):
        x_shape = tuple(int(d) for d in input_sizes)
        numpy_kernel = functools.partial(_numpy(input_grad), xp, input_sizes, f, dy, strides=strides,
                                         padding=padding, dilations=dilations)
        if not _takes(f, dy) or 0 in x_shape:
            return numpy_kernel()
        key = (input_grad, x_shape, f.shape, tuple(strides), padding, tuple(dilations))
        if _INPUT_GRADIENT_BY.get(key) == "numpy":
            return numpy_kernel()
        onednn_kernel = functools.partial(_input_gradient, x_shape, f, dy, strides, padding, depthwise=depthwise,
                                          dilations=dilations)
        dx = onednn_kernel()
        if key not in _INPUT_GRADIENT_BY:
            _INPUT_GRADIENT_BY[key] = _faster_input_gradient(onednn_kernel, numpy_kernel)
        return dx

    @register_kernel(filter_grad, "CPU", when=available)
    def _filter_grad_kernel(xp, x, filter_sizes, dy, *, strides, padding, dilations=(1, 1, 1, 1)):
        f_shape = tuple(int(d) for d in filter_sizes)
        if not _takes(x, dy) or 0 in f_shape:
            return _numpy(filter_grad)(xp, x, filter_sizes, dy, strides=strides, padding=padding,
                                       dilations=dilations)
        return _filter_gradient(x, f_shape, dy, strides, padding, depthwise=depthwise, dilations=dilations)


_register_convolution("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", depthwise=False)
_register_convolution("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                      "DepthwiseConv2dNativeBackpropFilter", depthwise=True)


@register_kernel(FUSED_CONV, "CPU", when=available)
def _fused_conv2d(xp, x, f, bias, *, strides, padding, relu=False, dilations=(1, 1, 1, 1)):
    if not _takes(x, f, bias) or bias.shape != (f.shape[3],):
        return _numpy(FUSED_CONV)(xp, x, f, bias, strides=strides, padding=padding, relu=relu, dilations=dilations)
    return _forward(x, f, strides, padding, bias=bias, relu=relu, dilations=dilations)


class _ForwardBackward:
    """The primitives of one pooling's or LRN's shape: forward (inference), and for the
    gradient the forward that leaves a workspace (where oneDNN's backward asks for one)
    and the backward. A subclass says how its primitive descriptors are made."""

    backward_reads_src = False  # (the backward's arguments besides the gradients and the workspace)

    def __init__(self, lib: L.Library):
        self.lib = lib
        self._prims: dict = {}
        self._lock = threading.Lock()

    def _forward_pd(self, prop_kind: int) -> P:
        raise NotImplementedError

    def _backward_pd(self, hint: P) -> P:
        raise NotImplementedError

    def forward(self) -> Primitive:
        with self._lock:
            if "forward" not in self._prims:
                self._prims["forward"] = Primitive(self.lib, self._forward_pd(L.FORWARD_INFERENCE),
                                                   (L.ARG_SRC, L.ARG_DST))
        return self._prims["forward"]

    def backward(self) -> tuple[Primitive | None, Primitive]:
        """(the forward that leaves the workspace, or None where none is asked for; the backward)."""
        with self._lock:
            if "backward" not in self._prims:
                lib = self.lib
                hint = self._forward_pd(L.FORWARD_TRAINING)
                pd = self._backward_pd(hint)
                workspace = P(lib.lib.dnnl_primitive_desc_query_md(pd, L.QUERY_WORKSPACE, 0))
                needs = bool(workspace.value) and lib.lib.dnnl_memory_desc_get_size(workspace) > 0
                with_ws = Primitive(lib, hint, (L.ARG_SRC, L.ARG_DST, L.ARG_WORKSPACE)) if needs else None
                args = ((L.ARG_SRC,) if self.backward_reads_src else ()) + (L.ARG_DIFF_SRC, L.ARG_DIFF_DST) + (
                    (L.ARG_WORKSPACE,) if needs else ())
                self._prims["backward"] = (with_ws, Primitive(lib, pd, args, keep=(hint,)))
        return self._prims["backward"]

    def run_backward(self, arrays: dict, x: np.ndarray, threads: int) -> None:
        """The backward on ``arrays`` (its gradients, and ``x`` where it reads it), after the
        forward on ``x`` for the workspace where one is needed."""
        forward, backward = self.backward()
        if forward is not None:
            arrays[L.ARG_WORKSPACE] = np.empty(forward.bytes_of(L.ARG_WORKSPACE), np.uint8)
            forward({L.ARG_SRC: x, L.ARG_DST: np.empty(forward.bytes_of(L.ARG_DST), np.uint8),
                     L.ARG_WORKSPACE: arrays[L.ARG_WORKSPACE]}, threads)
        backward(arrays, threads)


class _Pooling(_ForwardBackward):
    def __init__(self, lib: L.Library, algorithm: int, x_shape, ksize, strides, padding):
        super().__init__(lib)
        self.algorithm = algorithm
        n, h, w, c = x_shape
        kh, kw = ksize[1], ksize[2]
        (oh, ow), before, after = _geometry(h, w, kh, kw, strides, padding)
        self.x_dims, self.y_dims = (n, c, h, w), (n, c, oh, ow)
        self.y_shape = (n, oh, ow, c)
        self.common = (Dims(strides[1], strides[2]), Dims(kh, kw), Dims(0, 0), Dims(*before), Dims(*after))

    def _forward_pd(self, prop_kind: int) -> P:
        lib = self.lib
        with _Descs(lib) as md:
            return _make_pd(lib, lib.lib.dnnl_pooling_forward_primitive_desc_create,
                            "dnnl_pooling_forward_primitive_desc_create", prop_kind, self.algorithm,
                            md(self.x_dims, "acdb"), md(self.y_dims, "acdb"), *self.common)

    def _backward_pd(self, hint: P) -> P:
        lib = self.lib
        with _Descs(lib) as md:
            return _make_pd(lib, lib.lib.dnnl_pooling_backward_primitive_desc_create,
                            "dnnl_pooling_backward_primitive_desc_create", self.algorithm,
                            md(self.x_dims, "acdb"), md(self.y_dims, "acdb"), *self.common, hint)


def _pooling(algorithm: int, x_shape, ksize, strides, padding) -> _Pooling:
    key = ("pool", algorithm, tuple(x_shape), tuple(ksize), tuple(strides), padding)
    return L.cached(key, lambda lib: _Pooling(lib, algorithm, x_shape, ksize, strides, padding))


def _pools_2d(ksize, strides) -> bool:
    """oneDNN pools over height and width only (as NHWC's NumPy kernel does)."""
    return ksize[0] == ksize[3] == strides[0] == strides[3] == 1


def _pool(algorithm: int, x, ksize, strides, padding):
    pool = _pooling(algorithm, x.shape, ksize, strides, padding)
    y = np.empty(pool.y_shape, _F32)
    pool.forward()({L.ARG_SRC: _c(x), L.ARG_DST: y}, blas.intra_op_threads())
    return y


@register_kernel("MaxPool", "CPU", when=available)
def _max_pool(xp, x, *, ksize, strides, padding):
    if not _takes(x) or not _pools_2d(ksize, strides):
        return _numpy("MaxPool")(xp, x, ksize=ksize, strides=strides, padding=padding)
    return _pool(L.POOLING_MAX, x, ksize, strides, padding)


@register_kernel("MaxPoolGrad", "CPU", when=available)
def _max_pool_grad(xp, x, y, grad, *, ksize, strides, padding):
    if not _takes(x, grad) or not _pools_2d(ksize, strides):
        return _numpy("MaxPoolGrad")(xp, x, y, grad, ksize=ksize, strides=strides, padding=padding)
    dx = np.empty(x.shape, _F32)
    _pooling(L.POOLING_MAX, x.shape, ksize, strides, padding).run_backward(
        {L.ARG_DIFF_SRC: dx, L.ARG_DIFF_DST: _c(grad)}, _c(x), blas.intra_op_threads())
    return dx


@register_kernel(MAX_POOL_WITH_WORKSPACE, "CPU", when=available)
def _max_pool_with_workspace(xp, x, *, ksize, strides, padding):
    if not _takes(x) or not _pools_2d(ksize, strides):
        return _numpy(MAX_POOL_WITH_WORKSPACE)(xp, x, ksize=ksize, strides=strides, padding=padding)
    pool = _pooling(L.POOLING_MAX, x.shape, ksize, strides, padding)
    forward, _ = pool.backward()
    if forward is None:  # (no workspace asked for)
        return _pool(L.POOLING_MAX, x, ksize, strides, padding), np.empty(0, np.uint8)
    y = np.empty(pool.y_shape, _F32)
    workspace = np.empty(forward.bytes_of(L.ARG_WORKSPACE), np.uint8)
    forward({L.ARG_SRC: _c(x), L.ARG_DST: y, L.ARG_WORKSPACE: workspace}, blas.intra_op_threads())
    return y, workspace


@register_kernel(MAX_POOL_GRAD_WITH_WORKSPACE, "CPU", when=available)
def _max_pool_grad_with_workspace(xp, x, y, workspace, grad, *, ksize, strides, padding):
    if not _takes(x, grad) or not _pools_2d(ksize, strides):
        return _numpy(MAX_POOL_GRAD_WITH_WORKSPACE)(xp, x, y, workspace, grad, ksize=ksize, strides=strides,
                                                     padding=padding)
    pool = _pooling(L.POOLING_MAX, x.shape, ksize, strides, padding)
    forward, backward = pool.backward()
    if forward is None or workspace.nbytes != forward.bytes_of(L.ARG_WORKSPACE):  # (none was kept: look again)
        return _max_pool_grad(xp, x, y, grad, ksize=ksize, strides=strides, padding=padding)
    dx = np.empty(x.shape, _F32)
    backward({L.ARG_DIFF_SRC: dx, L.ARG_DIFF_DST: _c(grad), L.ARG_WORKSPACE: workspace}, blas.intra_op_threads())
    return dx


@register_kernel("AvgPool", "CPU", when=available)
def _avg_pool(xp, x, *, ksize, strides, padding):
    if not _takes(x) or not _pools_2d(ksize, strides):
        return _numpy("AvgPool")(xp, x, ksize=ksize, strides=strides, padding=padding)
    # (TensorFlow's SAME average divides by the inputs a window covers, not by its size)
    return _pool(L.POOLING_AVG_EXCLUDE_PADDING, x, ksize, strides, padding)


@register_kernel("AvgPoolGrad", "CPU", when=available)
def _avg_pool_grad(xp, input_shape, grad, *, ksize, strides, padding):
    x_shape = tuple(int(d) for d in input_shape)
    if not _takes(grad) or 0 in x_shape or not _pools_2d(ksize, strides):
        return _numpy("AvgPoolGrad")(xp, input_shape, grad, ksize=ksize, strides=strides, padding=padding)
    dx = np.empty(x_shape, _F32)
    _pooling(L.POOLING_AVG_EXCLUDE_PADDING, x_shape, ksize, strides, padding).run_backward(
        {L.ARG_DIFF_SRC: dx, L.ARG_DIFF_DST: _c(grad)}, None, blas.intra_op_threads())
    return dx


class _LRN(_ForwardBackward):
    backward_reads_src = True

    def __init__(self, lib: L.Library, x_shape, depth_radius, bias, alpha, beta):
        super().__init__(lib)
        n, h, w, c = x_shape
        self.dims = (n, c, h, w)
        size = 2 * depth_radius + 1
        self.params = (ctypes.c_int64(size), ctypes.c_float(alpha * size), ctypes.c_float(beta), ctypes.c_float(bias))

    def _forward_pd(self, prop_kind: int) -> P:
        lib = self.lib
        with _Descs(lib) as md:
            return _make_pd(lib, lib.lib.dnnl_lrn_forward_primitive_desc_create,
                            "dnnl_lrn_forward_primitive_desc_create", prop_kind, L.LRN_ACROSS_CHANNELS,
                            md(self.dims, "acdb"), md(self.dims, "acdb"), *self.params)

    def _backward_pd(self, hint: P) -> P:
        lib = self.lib
        with _Descs(lib) as md:
            return _make_pd(lib, lib.lib.dnnl_lrn_backward_primitive_desc_create,
                            "dnnl_lrn_backward_primitive_desc_create", L.LRN_ACROSS_CHANNELS,
                            md(self.dims, "acdb"), md(self.dims, "acdb"), md(self.dims, "acdb"), *self.params, hint)


def _lrn(x_shape, depth_radius, bias, alpha, beta) -> _LRN:
    key = ("lrn", tuple(x_shape), int(depth_radius), float(bias), float(alpha), float(beta))
    return L.cached(key, lambda lib: _LRN(lib, x_shape, int(depth_radius), float(bias), float(alpha), float(beta)))


@register_kernel("LRN", "CPU", when=available)
def _local_response_normalization(xp, x, *, depth_radius, bias, alpha, beta):
    if not _takes(x) or x.ndim != 4:
        return _numpy("LRN")(xp, x, depth_radius=depth_radius, bias=bias, alpha=alpha, beta=beta)
    y = np.empty(x.shape, _F32)
    _lrn(x.shape, depth_radius, bias, alpha, beta).forward()({L.ARG_SRC: _c(x), L.ARG_DST: y},
                                                           blas.intra_op_threads())
    return y


@register_kernel("LRNGrad", "CPU", when=available)
def _local_response_normalization_grad(xp, grad, x, y, *, depth_radius, bias, alpha, beta):
    if not _takes(grad, x) or x.ndim != 4:
        return _numpy("LRNGrad")(xp, grad, x, y, depth_radius=depth_radius, bias=bias, alpha=alpha, beta=beta)
    dx = np.empty(x.shape, _F32)
    x = _c(x)
    _lrn(x.shape, depth_radius, bias, alpha, beta).run_backward(
        {L.ARG_SRC: x, L.ARG_DIFF_SRC: dx, L.ARG_DIFF_DST: _c(grad)}, x, blas.intra_op_threads())
    return dx
