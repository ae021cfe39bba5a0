"""Optimizer updates from oneDNN's elementwise primitives: ``ApplyAdam`` for float32.

NumPy makes Adam's update as a chain of whole-array operations, each a pass over memory:
for Deep MNIST's 3136x1024 layer (2-core AVX-512 VM) it took 2.9 ms a step even cut into
cache-sized chunks on both cores, where TensorFlow's one fused loop took 1.1 ms. oneDNN's
binary primitive computes ``dst = src0 op src1`` and then a chain of post-ops (elementwise
functions, and ``dst op operand`` with another array or a broadcast scalar) in the same
vectorized loop, so three primitives make the whole update, each one pass (0.8 ms):

    m <- b1 * m + (1 - b1) * g                      add(m, g), runtime scales b1 and 1 - b1
    v <- b2 * ((1 - b2) / b2 * g * g + v)           mul(g, g), scale; post-ops: + v, * b2
    w <- w + (-lr_t) / (sqrt(v) + eps) * m          max(v, v); post-ops: sqrt, + eps, ^-1,
                                                    * m, * (-lr_t), + w

Every scalar is an operand passed at each call (a runtime scale, or a one-element operand
broadcast), so one set of primitives serves a variable's size whatever its
hyperparameters. The second and third primitives read, as a post-op operand, the array
they write (``v``, ``w``): each element is read before it is written, in the same
iteration, which the tests check against the NumPy kernel.

Where these do not apply (another dtype, Nesterov momentum, ``beta2 == 0``, arrays not
contiguous, a variable under ``MIN_ELEMENTS``: 128K elements) the NumPy kernel of
ops/training_ops.py runs: it is the reference and the fallback.
"""

from __future__ import annotations

import math

import numpy as np

from ...framework.registry import get_registration, register_kernel
from ...ops import blas
from ...ops.state_ops import locked
from ...ops.training_ops import checked_value
from . import library as L
from .library import Primitive, available

_F32 = np.dtype(np.float32)

# Below this many elements NumPy's passes cost less than the three calls (some 70 us through
# ctypes): on 2 AVX-512 cores, 65,536 elements took 91 us here and 60 in NumPy, 131,072 took
# 93 and 105.
MIN_ELEMENTS = 1 << 17

_SCALE0, _SCALE1 = L.ARG_ATTR_SCALES | L.ARG_SRC, L.ARG_ATTR_SCALES | L.ARG_SRC_1


def _operand(index: int) -> int:
    return L.ARG_POST_OP(index) | L.ARG_SRC_1


class _Adam:
    """The three primitives of Adam's update for variables of ``n`` elements (and the
    memory descriptors of their operands, which live as long as they do)."""

    def __init__(self, lib: L.Library, n: int):
        self.array = array = lib.memory_desc([n], "a")
        self.scalar = scalar = lib.memory_desc([1], "a")  # (broadcast over the array)
        self.moment = self._binary(lib, L.BINARY_ADD, scales=(L.ARG_SRC, L.ARG_SRC_1))
        self.second = self._binary(lib, L.BINARY_MUL, scales=(L.ARG_SRC,), post_ops=[
            ("binary", L.BINARY_ADD, array), ("binary", L.BINARY_MUL, scalar)])
        self.step = self._binary(lib, L.BINARY_MAX, post_ops=[
            ("eltwise", L.ELTWISE_SQRT, 0.0, 0.0), ("binary", L.BINARY_ADD, scalar),
            ("eltwise", L.ELTWISE_POW, 1.0, -1.0), ("binary", L.BINARY_MUL, array),
            ("binary", L.BINARY_MUL, scalar), ("binary", L.BINARY_ADD, array)])

    def _binary(self, lib: L.Library, algorithm: int, scales=(), post_ops=()) -> Primitive:
        operands = {L.ARG_ATTR_SCALES | arg: self.scalar for arg in scales}
        operands.update({_operand(i): op[2] for i, op in enumerate(post_ops) if op[0] == "binary"})
        pd = lib.primitive_desc(lib.lib.dnnl_binary_primitive_desc_create, "dnnl_binary_primitive_desc_create",
                                algorithm, self.array, self.array, self.array, post_ops=post_ops, scales=scales)
        return Primitive(lib, pd, (L.ARG_SRC, L.ARG_SRC_1, L.ARG_DST), operands=operands)

    def __call__(self, w, m, v, g, beta1, beta2, epsilon, lr_t, threads: int) -> None:
        def scalar(x):
            return np.array([x], _F32)

        self.moment({L.ARG_SRC: m, L.ARG_SRC_1: g, L.ARG_DST: m, _SCALE0: scalar(beta1),
                     _SCALE1: scalar(1 - beta1)}, threads)
        self.second({L.ARG_SRC: g, L.ARG_SRC_1: g, L.ARG_DST: v, _SCALE0: scalar((1 - beta2) / beta2),
                     _operand(0): v, _operand(1): scalar(beta2)}, threads)
        self.step({L.ARG_SRC: v, L.ARG_SRC_1: v, L.ARG_DST: w, _operand(1): scalar(epsilon), _operand(3): m,
                   _operand(4): scalar(-lr_t), _operand(5): w}, threads)


def _flat(a: np.ndarray) -> "np.ndarray | None":
    return a.reshape(-1) if a.dtype == _F32 and a.flags.c_contiguous else None


@register_kernel("ApplyAdam", "CPU", when=available)
def _apply_adam(xp, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, *,
                use_locking=False, use_nesterov=False):
    with locked(var, use_locking):
        w = checked_value(var, grad, "ApplyAdam")
        arrays = [_flat(a) for a in (w, m.read(), v.read(), np.asarray(grad))]
        beta2 = float(beta2)
        if use_nesterov or w.size < MIN_ELEMENTS or beta2 == 0 or any(a is None or a.size != w.size
                                                                      for a in arrays):
            get_registration("ApplyAdam").kernel(xp, var, m, v, beta1_power, beta2_power, lr, beta1, beta2,
                                                 epsilon, grad, use_locking=False, use_nesterov=use_nesterov)
            return var
        lr_t = float(lr) * math.sqrt(1 - float(beta2_power)) / (1 - float(beta1_power))
        adam = L.cached(("adam", w.size), lambda lib: _Adam(lib, w.size))
        adam(*arrays, float(beta1), beta2, float(epsilon), lr_t, blas.intra_op_threads())
    return var
