"""Ops that only the runtime puts into a graph; no program builds them.

- ``_Send`` / ``_Recv``: the two ends of an edge that the partitioner cut between
  devices. They have no kernel here: the executor runs them against the step's
  rendezvous (runtime/executor.py).
- The kernels of the compile-time rewrites (runtime/rewrites/): a gradient's product
  fused into its variable's update, a scaled sum of products (the towers' gradients of a
  weight, averaged) made by GEMMs into one array, the replicas' products and row-wise ops
  merged into one call over all rows, a convolution's input windows shared by its
  forward product and its filter gradient, a convolution layer (convolution, bias,
  ReLU) in one call, and a max pooling that leaves where each maximum is for its gradient.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework.registry import get_registration, register_op
from ..framework.tensor_shape import TensorShape
from . import blas
from .math_ops import product
from .conv_ops import conv_from_cols, filter_grad_from_cols, im2col
from .op_util import half_in_float32
from .state_ops import locked

FUSED_UPDATE = "_FusedMatMulApplyGradientDescent"
REPLICA_MATMUL = "_ReplicaMatMul"
SUM_OF_PRODUCTS = "_ScaledSumOfProducts"
ROW_BLOCKS = "_RowBlocks"
CONV_PATCHES = "_Conv2DPatches"
CONV_FROM_PATCHES = "_Conv2DFromPatches"
CONV_FILTER_GRAD_FROM_PATCHES = "_Conv2DBackpropFilterFromPatches"
FUSED_CONV = "_FusedConv2D"
MAX_POOL_WITH_WORKSPACE = "_MaxPoolWithWorkspace"
MAX_POOL_GRAD_WITH_WORKSPACE = "_MaxPoolGradWithWorkspace"

register_op("_Send", shape=lambda op: [])
register_op("_Recv", shape=lambda op: TensorShape(None), dtype=lambda op: op._attr("tensor_type"))


@register_op(FUSED_UPDATE, shape=lambda op: op.inputs[0].shape, dtype=lambda op: op.inputs[0].dtype,
             stateful=True, ref_inputs=(0,))
def _fused_matmul_apply_gradient_descent(xp, var, alpha, *operands, transposes=(), scale=1.0, use_locking=False):
    """ApplyGradientDescent(var, alpha, scale * (MatMul(a0, b0) + ... + t0 + t1 + ...)).

    ``operands`` are a0, b0, a1, b1, ... (one pair per entry of ``transposes``, their
    (transpose_a, transpose_b)), then the terms t0, t1, ... that are arrays already (a
    gradient received from another device, say). Each product is added into the variable
    by one GEMM and each term by one AXPY: no gradient array, no sum.
    """
    pairs, terms = _products_and_terms(operands, transposes)
    step = -float(alpha) * scale
    with locked(var, use_locking):
        w = var.read()
        for shape in [(a.shape[0], b.shape[1]) for a, b in pairs] + [t.shape for t in terms]:
            if w.shape != shape:
                raise ValueError(f"ApplyGradientDescent: var '{var.name}' has shape {list(w.shape)} but the "
                                 f"gradient has shape {list(shape)}")
        if any(np.may_share_memory(w, x) for x in [*terms, *(x for pair in pairs for x in pair)]):
            delta = sum(xp.matmul(a, b) for a, b in pairs) + sum(terms)  # read all before writing any
            w += xp.multiply(delta, np.asarray(step, w.dtype))
            return var
        for a, b in pairs:
            if not blas.gemm(a, b, w, step, 1.0):
                w += xp.multiply(xp.matmul(a, b), np.asarray(step, w.dtype))
        for t in terms:
            if not blas.axpy(t, w, step):
                w += xp.multiply(t, np.asarray(step, w.dtype))
    return var


def _products_and_terms(operands, transposes) -> tuple[list, list]:
    """([(a0, b0), ...] with their transposes applied, [t0, ...]) from the operands of a
    node that update_fusion or gradient_sum made; replicas' ``x_i^T @ d_i`` whose rows
    are consecutive blocks of two arrays become one product over all the rows."""
    n = 2 * len(transposes)
    pairs = []
    for (a, b), (transpose_a, transpose_b) in zip(zip(operands[:n:2], operands[1:n:2]), transposes):
        a = a.T if transpose_a else a
        b = b.T if transpose_b else b
        if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
            raise ValueError(f"MatMul of the gradient: shapes {list(a.shape)} and {list(b.shape)} do not agree")
        pairs.append((a, b))
    terms = [np.asarray(t) for t in operands[n:]]
    if len(pairs) > 1 and all(t == (True, False) for t in transposes):  # replicas' x_i^T @ d_i
        xs, ds = [a.T for a, _ in pairs], [b for _, b in pairs]
        rows_x, rows_d = adjacent_rows(xs), adjacent_rows(ds)
        if rows_x is not None and rows_d is not None:  # one GEMM over all their rows
            pairs = [(rows_x.T, rows_d)]
        elif _stack_pays(xs, ds):  # one GEMM over copies of them
            pairs = [((rows_x if rows_x is not None else np.concatenate(xs)).T,
                      rows_d if rows_d is not None else np.concatenate(ds))]
    return pairs, terms


def _stack_pays(xs: list, ds: list) -> bool:
    """Whether the products ``x_i^T @ d_i`` are better summed as one product of their rows
    stacked (copied) than by a GEMM each, which reads and writes the whole result again:
    where the result is larger than the rows. Deep MNIST's 3136x1024 weight, from two
    towers' 32 rows each: 3.2 ms as two GEMMs, some 2.1 as one over 64 copied rows."""
    m, n = xs[0].shape[1], ds[0].shape[1]
    rows = sum(x.shape[0] for x in xs)
    return all(x.dtype == xs[0].dtype and x.shape[1] == m for x in xs) and \
        all(d.dtype == ds[0].dtype and d.shape[1] == n for d in ds) and rows * (m + n) <= m * n


@register_op(SUM_OF_PRODUCTS, shape=lambda op: TensorShape(None), dtype=lambda op: op.inputs[0].dtype)
def _scaled_sum_of_products(xp, *operands, transposes=(), scale=1.0):
    """``scale * (MatMul(a0, b0) + ... + t0 + t1 + ...)`` as one array: the first product
    written by a GEMM with ``alpha = scale``, the others added into it by GEMMs with beta =
    1, each term by an AXPY (``operands`` as for the fused update above)."""
    pairs, terms = _products_and_terms(operands, transposes)
    a, b = pairs[0]
    dtype = np.result_type(a, b)
    shape = (a.shape[0], b.shape[1])
    for x, y in pairs[1:]:
        if (x.shape[0], y.shape[1]) != shape:
            raise ValueError(f"AddN of products: shapes {list(shape)} and {[x.shape[0], y.shape[1]]} differ")
    for t in terms:
        if t.shape != shape:
            raise ValueError(f"AddN of products: shapes {list(shape)} and {list(t.shape)} differ")
    out = np.empty(shape, dtype)
    factor = np.asarray(scale, dtype)
    beta = 0.0
    for x, y in pairs:
        if not blas.gemm(x, y, out, scale, beta):
            part = xp.matmul(x, y)
            if beta:
                out += xp.multiply(part, factor)
            else:
                xp.multiply(part, factor, out=out)
        beta = 1.0
    for t in terms:
        if t.dtype != dtype or not blas.axpy(t, out, scale):
            out += xp.multiply(t, factor, dtype=dtype)
    return out


@register_op(REPLICA_MATMUL, shape=lambda op: TensorShape(None), dtype=lambda op: op.inputs[0].dtype)
@half_in_float32
def _replica_matmul(xp, *operands, transpose_b=False):
    """``MatMul(a_i, b)`` for every ``a_i`` of ``operands[:-1]`` (replicas with equally
    many rows), as one product of all their rows: the rows of all the products."""
    *parts, b = operands
    for a in parts:
        if a.ndim != 2 or a.shape != parts[0].shape:
            raise ValueError(f"MatMul of replicas: shapes {[list(x.shape) for x in parts]} do not stack")
    whole = adjacent_rows(parts)
    if whole is None:
        whole = xp.concatenate(parts)
    return product(xp, whole, b.T if transpose_b else b)  # (turned as one MatMul of all the rows would be)


@register_op(ROW_BLOCKS, shape=lambda op: [TensorShape(None)] * len(op.inputs),
             dtype=lambda op: [t.dtype for t in op.inputs], list_output=True)
def _row_blocks(xp, *wholes, index, count):
    """Replica ``index``'s rows of each of ``wholes`` (``count`` equal blocks): views."""
    out = []
    for whole in wholes:
        rows = whole.shape[0] // count
        out.append(whole[index * rows:(index + 1) * rows])
    return tuple(out)


def adjacent_rows(parts: list) -> np.ndarray | None:
    """The parts (matrices) as one array without a copy, if they are consecutive row blocks
    of one array, laid out alike (row blocks of a C- or a Fortran-ordered matrix)."""
    def root(x):
        while isinstance(x.base, np.ndarray):
            x = x.base
        return x

    first = parts[0]
    base = root(first)
    if any(a.ndim != 2 or a.shape[0] == 0 or a.dtype != first.dtype or a.strides != first.strides
           or a.shape[1] != first.shape[1] or root(a) is not base for a in parts):
        return None
    for a, b in zip(parts, parts[1:]):
        if b.ctypes.data != a.ctypes.data + a.shape[0] * a.strides[0]:
            return None
    rows = sum(a.shape[0] for a in parts)
    # (within ``base``: every block is, and they follow one another along the rows)
    return np.lib.stride_tricks.as_strided(first, (rows, first.shape[1]), first.strides, writeable=False)


@register_op(CONV_PATCHES, shape=lambda op: TensorShape(None), dtype=lambda op: op.inputs[0].dtype)
def _conv2d_patches(xp, x, *, kh, kw, strides, padding, dilations=(1, 1, 1, 1)):
    """The windows of a Conv2D's input, [N, OH, OW, KH*KW*C], for the two nodes below."""
    return im2col(xp, x, kh, kw, strides, padding, dilations)


@register_op(CONV_FROM_PATCHES, shape=lambda op: TensorShape(None), dtype=lambda op: op.inputs[1].dtype)
@half_in_float32
def _conv2d_from_patches(xp, cols, f):
    """Conv2D, from its input's windows."""
    return conv_from_cols(cols, f)


@register_op(CONV_FILTER_GRAD_FROM_PATCHES, shape=lambda op: TensorShape(None),
             dtype=lambda op: op.inputs[2].dtype)
@half_in_float32
def _conv2d_filter_grad_from_patches(xp, cols, filter_sizes, dy):
    """Conv2DBackpropFilter, from its input's windows."""
    return filter_grad_from_cols(cols, filter_sizes, dy)


@register_op(FUSED_CONV, shape=lambda op: TensorShape(None), dtype=lambda op: op.inputs[0].dtype)
def _fused_conv2d(xp, x, f, bias, *, strides, padding, relu=False, dilations=(1, 1, 1, 1)):
    """Conv2D(x, f) plus ``bias`` (one value per output channel), then ReLU where ``relu``:
    a convolution layer's three ops in one call (TensorFlow's _FusedConv2D). This is the
    reference; oneDNN's kernel does the add and the ReLU as it writes the convolution."""
    y = get_registration("Conv2D").kernel(xp, x, f, strides=strides, padding=padding, dilations=dilations)
    y += bias
    if relu:
        xp.maximum(y, 0, out=y)
    return y


@register_op(MAX_POOL_WITH_WORKSPACE, shape=lambda op: [TensorShape(None)] * 2,
             dtype=lambda op: [op.inputs[0].dtype.base_dtype, dtypes.uint8])
def _max_pool_with_workspace(xp, x, *, ksize, strides, padding):
    """MaxPool(x), and a workspace: what the kernel that computed it keeps of where each
    window's maximum is, so that ``_MaxPoolGradWithWorkspace`` routes the gradient without
    looking for the maxima again (TensorFlow's MKL pooling has the same pair). The NumPy
    kernel keeps nothing (an empty workspace), and its gradient looks again."""
    y = get_registration("MaxPool").kernel(xp, x, ksize=ksize, strides=strides, padding=padding)
    return y, np.empty(0, np.uint8)


@register_op(MAX_POOL_GRAD_WITH_WORKSPACE, shape=lambda op: op.inputs[0].shape,
             dtype=lambda op: op.inputs[3].dtype.base_dtype)
def _max_pool_grad_with_workspace(xp, x, y, workspace, grad, *, ksize, strides, padding):
    """MaxPoolGrad(x, y, grad), with the workspace ``_MaxPoolWithWorkspace`` left (which
    this kernel does not need)."""
    return get_registration("MaxPoolGrad").kernel(xp, x, y, grad, ksize=ksize, strides=strides, padding=padding)
