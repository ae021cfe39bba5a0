"""Math ops: elementwise binary arithmetic with NumPy broadcasting, matmul, casts, add_n, where.

Built on unary_ops.py (whose names it imports, so ``math_ops.exp`` works as in TF);
the reductions build on this module, in reduction_ops.py; the gradients of all three are
in math_grad.py.

TensorFlow's dtype rules hold: both operands of a binary op have one dtype (a Python
number takes the other operand's dtype; two tensors of different dtypes are a
TypeError), and nothing promotes an integer to a float silently -- except
``truediv``, which TF defines to cast int32/int64 to float64 and smaller ints to float32.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_list import TensorList
from ..framework.tensor_shape import TensorShape
from . import array_ops, blas, intra_op
from .op_util import (COMPLEX, FLOATS, NUMBERS, binary_shape, broadcast_shape, check_dtype, constant_value,
                      half_in_float32, make_tensor, on_sparse_values, same_dtype_inputs, unary_shape,
                      writable_like)
# TF's math_ops holds the unary ops too: ``math_ops.exp`` works
from .unary_ops import (abs, ceil, cos, exp, floor, log, log1p, logical_not, negative, reciprocal, round,  # noqa: A004,F401
                        rsqrt, sigmoid, sign, sin, sqrt, square, tanh)

# ---------------------------------------------------------------------------
# Elementwise binary ops


def _bool_dtype(op):
    return dtypes.bool


def _check_int_divisor(y):
    if y.dtype.kind in "iu" and not (y.all() if hasattr(y, "all") else np.all(y)):
        raise errors.InvalidArgumentError(None, None, "Integer division by zero")


def _numpy_binary(np_name: str):
    ufunc = getattr(np, np_name)

    def kernel(xp, x, y, *, inplace=False):
        out = writable_like(x, y) if inplace else None
        if xp is np:
            if getattr(x, "nbytes", 0) < intra_op.MIN_BYTES:  # (no ``out=None``: 0.2 us of a 0.4 us call)
                return ufunc(x, y) if out is None else ufunc(x, y, out=out)
            done = intra_op.elementwise(ufunc, out, x, y)  # (a large float array: on every core BLAS may use)
            if done is not None:
                return done
        return getattr(xp, np_name)(x, y, out=out)

    kernel.__name__ = f"_{np_name}_kernel"
    return kernel


def _numpy_comparison(np_name: str):
    def kernel(xp, x, y):
        return getattr(xp, np_name)(x, y)

    kernel.__name__ = f"_{np_name}_kernel"
    return kernel


# op type: (default op name, allowed dtypes, bool output?)
_BINARY = {
    "AddV2": ("add", NUMBERS + COMPLEX, False),
    "Sub": ("sub", NUMBERS + COMPLEX, False),
    "Mul": ("mul", NUMBERS + COMPLEX, False),
    "RealDiv": ("truediv", FLOATS + COMPLEX, False),
    "FloorDiv": ("floordiv", NUMBERS, False),
    "FloorMod": ("mod", NUMBERS, False),
    "Pow": ("pow", NUMBERS + COMPLEX, False),
    "Add": ("add", (dtypes.string,), False),  # (strings: concatenated; numbers go to AddV2)
    "Maximum": ("Maximum", NUMBERS, False),
    "Minimum": ("Minimum", NUMBERS, False),
    "SquaredDifference": ("SquaredDifference", NUMBERS, False),
    "Equal": ("Equal", NUMBERS + COMPLEX + (dtypes.bool, dtypes.string), True),
    "NotEqual": ("NotEqual", NUMBERS + COMPLEX + (dtypes.bool, dtypes.string), True),
    "Less": ("Less", NUMBERS, True),
    "LessEqual": ("LessEqual", NUMBERS, True),
    "Greater": ("Greater", NUMBERS, True),
    "GreaterEqual": ("GreaterEqual", NUMBERS, True),
    "LogicalAnd": ("LogicalAnd", (dtypes.bool,), True),
    "LogicalOr": ("LogicalOr", (dtypes.bool,), True),
}

# Binary ops whose kernel is one NumPy ufunc.
for _op_type, _np_name in (("AddV2", "add"), ("Sub", "subtract"), ("Mul", "multiply"),
                           ("RealDiv", "true_divide"), ("Pow", "power"), ("Maximum", "maximum"),
                           ("Minimum", "minimum"), ("Equal", "equal"), ("NotEqual", "not_equal"),
                           ("Less", "less"), ("LessEqual", "less_equal"), ("Greater", "greater"),
                           ("GreaterEqual", "greater_equal"), ("LogicalAnd", "logical_and"),
                           ("LogicalOr", "logical_or")):
    if _BINARY[_op_type][2]:
        register_op(_op_type, shape=binary_shape, dtype=_bool_dtype)(_numpy_comparison(_np_name))
    else:
        register_op(_op_type, shape=binary_shape, inplace_input=0)(_numpy_binary(_np_name))


@register_op("Add", shape=binary_shape)
def _add_kernel(xp, x, y):
    """TF's Add, which distflow makes for strings only: each pair of strings concatenated."""
    return np.add(np.asarray(x, dtype=object), np.asarray(y, dtype=object))


not_differentiable("Add")


@register_op("FloorDiv", shape=binary_shape)
def _floor_div_kernel(xp, x, y):
    _check_int_divisor(y)
    return xp.floor_divide(x, y)


@register_op("FloorMod", shape=binary_shape)
def _floor_mod_kernel(xp, x, y):
    _check_int_divisor(y)
    return xp.mod(x, y)


@register_op("SquaredDifference", shape=binary_shape)
def _squared_difference_kernel(xp, x, y):
    d = xp.subtract(x, y)
    return xp.multiply(d, d)


for _t in ("Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
           "LogicalAnd", "LogicalOr", "FloorDiv"):
    not_differentiable(_t)


def binary_op(op_type: str, x, y, name=None) -> ops.Tensor:
    x, y = same_dtype_inputs(op_type, [x, y])
    if op_type == "AddV2" and x.dtype.base_dtype == dtypes.string:
        op_type = "Add"  # (TF adds strings with its Add op; AddV2 is for numbers)
    default_name, allowed, _ = _BINARY[op_type]
    check_dtype(op_type, x, allowed)
    return make_tensor(op_type, [x, y], None, name or default_name)


# (As in TF 1.x, tf.add, tf.subtract and tf.multiply name their ops "Add", "Sub" and "Mul",
# and the operators +, - and * name theirs "add", "sub" and "mul".)
def add(x, y, name=None):
    return binary_op("AddV2", x, y, name or "Add")


def subtract(x, y, name=None):
    return binary_op("Sub", x, y, name or "Sub")


def multiply(x, y, name=None):
    return binary_op("Mul", x, y, name or "Mul")


def floordiv(x, y, name=None):
    return binary_op("FloorDiv", x, y, name)


def floormod(x, y, name=None):
    return binary_op("FloorMod", x, y, name)


def pow(x, y, name=None):  # noqa: A001 - TF's name
    return binary_op("Pow", x, y, name)


def maximum(x, y, name=None):
    return binary_op("Maximum", x, y, name)


def minimum(x, y, name=None):
    return binary_op("Minimum", x, y, name)


def squared_difference(x, y, name=None):
    return binary_op("SquaredDifference", x, y, name)


def equal(x, y, name=None):
    return binary_op("Equal", x, y, name)


def not_equal(x, y, name=None):
    return binary_op("NotEqual", x, y, name)


def less(x, y, name=None):
    return binary_op("Less", x, y, name)


def less_equal(x, y, name=None):
    return binary_op("LessEqual", x, y, name)


def greater(x, y, name=None):
    return binary_op("Greater", x, y, name)


def greater_equal(x, y, name=None):
    return binary_op("GreaterEqual", x, y, name)


def logical_and(x, y, name=None):
    return binary_op("LogicalAnd", x, y, name)


def logical_or(x, y, name=None):
    return binary_op("LogicalOr", x, y, name)


def logical_xor(x, y, name="LogicalXor"):
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


_TRUEDIV_FLOAT = {dtypes.int8: dtypes.float32, dtypes.int16: dtypes.float32, dtypes.uint8: dtypes.float32,
                  dtypes.uint16: dtypes.float32, dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64,
                  dtypes.uint32: dtypes.float64, dtypes.uint64: dtypes.float64}


def truediv(x, y, name=None):
    """``x / y`` in floating point: integer inputs are cast first, as in TensorFlow."""
    x, y = same_dtype_inputs("RealDiv", [x, y])
    target = _TRUEDIV_FLOAT.get(x.dtype.base_dtype)
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return binary_op("RealDiv", x, y, name)


def divide(x, y, name=None):
    return truediv(x, y, name)


def div(x, y, name=None):
    """``x / y`` as Python 2 divided (TF 1.x's ``tf.div``): integers by floor division,
    floating-point and complex numbers exactly."""
    x, y = same_dtype_inputs("Div", [x, y])
    if x.dtype.base_dtype.is_integer:
        return floordiv(x, y, name)
    return binary_op("RealDiv", x, y, name)


realdiv = truediv
mod = floormod

# ---------------------------------------------------------------------------
# Shapes shared with the unary ops (ops/unary_ops.py)

# ---------------------------------------------------------------------------
# Cast


@register_op("Cast", shape=unary_shape, dtype=lambda op: op._attr("DstT"))
def _cast_kernel(xp, x, *, DstT):  # noqa: N803 - TF's attr name
    x = xp.asarray(x)
    if x.dtype.kind == "c" and not DstT.is_complex:
        x = x.real  # (TensorFlow keeps the real part)
    return x.astype(DstT.as_numpy_dtype, copy=False)


@on_sparse_values
def cast(x, dtype, name=None) -> ops.Tensor:
    """Converts ``x`` to ``dtype`` (floats to ints truncate toward zero)."""
    x = ops.convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype == dtypes.string or x.dtype.base_dtype == dtypes.string:
        if dtype != x.dtype.base_dtype:
            raise TypeError(f"Cast from {x.dtype.name} to {dtype.name} is not supported")
    if x.dtype.base_dtype == dtype:
        return x
    return make_tensor("Cast", [x], {"SrcT": x.dtype.base_dtype, "DstT": dtype}, name or "Cast")


def to_float(x, name="ToFloat"):
    return cast(x, dtypes.float32, name)


def to_int32(x, name="ToInt32"):
    return cast(x, dtypes.int32, name)


def to_int64(x, name="ToInt64"):
    return cast(x, dtypes.int64, name)


# ---------------------------------------------------------------------------
# MatMul, BatchMatMulV2


def _matmul_shape(op):
    a, b = op.inputs
    if a.shape.ndims is None or b.shape.ndims is None:
        return TensorShape([None, None])
    a_shape, b_shape = a.shape.with_rank(2).as_list(), b.shape.with_rank(2).as_list()
    if op._attr("transpose_a"):
        a_shape = a_shape[::-1]
    if op._attr("transpose_b"):
        b_shape = b_shape[::-1]
    if a_shape[1] is not None and b_shape[0] is not None and a_shape[1] != b_shape[0]:
        raise ValueError(f"Dimensions must be equal, but are {a_shape[1]} and {b_shape[0]}")
    return TensorShape([a_shape[0], b_shape[1]])


@register_op("MatMul", shape=_matmul_shape)
@half_in_float32
def _matmul_kernel(xp, a, b, *, transpose_a=False, transpose_b=False):
    return product(xp, a.T if transpose_a else a, b.T if transpose_b else b)


def product(xp, a, b):
    """``a @ b`` of two matrices, computed as its transpose where that is faster (below)."""
    if xp is np and b.ndim == 2 and a.shape[0] <= _FEW_ROWS and _transpose_pays(a.shape[0], b):
        return (b.T @ a.T).T  # (Fortran-ordered: op_util.writable_like writes no C-ordered result into it)
    return xp.matmul(a, b)


# OpenBLAS computes a product of few rows faster as its transpose, ``(b.T @ a.T).T``, on
# this project's 2-core AVX-512 machine:
# - times a transposed matrix (a gradient times a layer's weights, g @ W.T): 0.44 against
#   0.54 ms for [256, 512] x [512, 512] on 2 threads, 0.012 against 0.095 ms for
#   [256, 10] x [10, 512], 1.50 against 1.78 ms for [64, 1024] x [1024, 3136]; about equal
#   at 512 rows, slower at 1024;
# - on two threads or more, times a plain matrix at least twice as wide as the rows are
#   many (a layer's forward product): 0.45 against 0.50 ms for [256, 512] x [512, 512],
#   1.16 against 1.33 ms for [64, 3136] x [3136, 1024]; on one thread 2-8% slower, and
#   twice as slow for a narrow product such as [256, 512] x [512, 10].
# The result is Fortran-ordered, and a layer's elementwise gradient (ReLU's) is fastest
# where its two operands are laid out alike: a ReLU gradient of 128x512 took 60 us with one
# operand of each order, 12 with both of one. So a layer's forward and backward products
# turn together: up to 256 rows on two threads or more (the MLP 784-512-512-10 at batch
# 256: 3.00 -> 2.72 ms a step), and on one thread only the backward one, up to 128 rows
# (beyond that, its Fortran-ordered gradient beside the forward's C-ordered activations
# cost the step 5%).
_FEW_ROWS = 256


def _transpose_pays(rows: int, b) -> bool:
    transposed = b.flags.f_contiguous and not b.flags.c_contiguous  # (a weight matrix's .T)
    if transposed and rows <= _FEW_ROWS // 2:
        return True
    if blas.intra_op_threads() < 2:
        return False
    return transposed or (b.flags.c_contiguous and b.shape[1] >= 2 * rows)


def _batch_matmul_shape(op):
    a, b = op.inputs
    if a.shape.ndims is None or b.shape.ndims is None:
        return TensorShape(None)
    a_shape, b_shape = a.shape.as_list(), b.shape.as_list()
    if len(a_shape) < 2 or len(b_shape) < 2:
        raise ValueError("BatchMatMul needs inputs of rank 2 or more")
    if op._attr("adj_x"):
        a_shape[-2:] = a_shape[-2:][::-1]
    if op._attr("adj_y"):
        b_shape[-2:] = b_shape[-2:][::-1]
    if a_shape[-1] is not None and b_shape[-2] is not None and a_shape[-1] != b_shape[-2]:
        raise ValueError(f"Dimensions must be equal, but are {a_shape[-1]} and {b_shape[-2]}")
    batch = broadcast_shape(TensorShape(a_shape[:-2]), TensorShape(b_shape[:-2]))
    return batch.concatenate([a_shape[-2], b_shape[-1]])


@register_op("BatchMatMulV2", shape=_batch_matmul_shape)
@half_in_float32
def _batch_matmul_kernel(xp, a, b, *, adj_x=False, adj_y=False):
    def adjoint(m):
        m = xp.swapaxes(m, -1, -2)
        return xp.conj(m) if m.dtype.kind == "c" else m
    return xp.matmul(adjoint(a) if adj_x else a, adjoint(b) if adj_y else b)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None) -> ops.Tensor:
    """``a @ b`` for matrices (rank 2) or batches of matrices (rank > 2, broadcast)."""
    a, b = same_dtype_inputs("MatMul", [a, b], names=("a", "b"))
    check_dtype("MatMul", a, FLOATS + COMPLEX + (dtypes.int32, dtypes.int64), "a")
    if (transpose_a and adjoint_a) or (transpose_b and adjoint_b):
        raise ValueError("Only one of transpose and adjoint may be True for each matrix")
    batched = any(t.shape.ndims is None or t.shape.ndims > 2 for t in (a, b))  # (an unknown rank may be a batch)
    if a.dtype.base_dtype.is_complex:
        # (MatMul's flags transpose; BatchMatMulV2's take adjoints: the conjugate goes where
        # the other one asks for it)
        if (adjoint_a and not batched) or (transpose_a and batched):
            a = make_tensor("Conj", [a], None, "Conj")  # (complex_ops's op; that module builds on this one)
        if (adjoint_b and not batched) or (transpose_b and batched):
            b = make_tensor("Conj", [b], None, "Conj")
    transpose_a = transpose_a or adjoint_a
    transpose_b = transpose_b or adjoint_b
    if batched:
        return make_tensor("BatchMatMulV2", [a, b], {"adj_x": transpose_a, "adj_y": transpose_b},
                           name or "MatMul")
    return make_tensor("MatMul", [a, b], {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)},
                       name or "MatMul")


@register_op("SparseMatMul", shape=_matmul_shape,
             dtype=lambda op: [dtypes.float64 if op.inputs[0].dtype.base_dtype == dtypes.float64 else dtypes.float32])
def _sparse_matmul_kernel(xp, a, b, *, transpose_a=False, transpose_b=False, a_is_sparse=False, b_is_sparse=False):
    """TensorFlow's MatMul with hints that an operand is mostly zeros: the same product,
    float32 (the hints choose no other algorithm here). ``sparse_matmul`` makes it of
    float32 operands, as TensorFlow's; the op also multiplies float64 ones in float64, which
    its gradient check uses."""
    dtype = "float64" if a.dtype == np.float64 and b.dtype == np.float64 else "float32"
    a, b = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
    return product(xp, a.T if transpose_a else a, b.T if transpose_b else b)


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False, b_is_sparse=False,
                  name=None) -> ops.Tensor:
    """``a @ b`` of two float32 matrices, either of which may be marked mostly zeros
    (``tf.sparse_matmul``): a float32 product, as MatMul's."""
    a, b = ops.convert_to_tensor(a, dtype=dtypes.float32, name="a"), ops.convert_to_tensor(b, dtype=dtypes.float32,
                                                                                          name="b")
    return make_tensor("SparseMatMul", [a, b], {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b),
                                                "a_is_sparse": bool(a_is_sparse), "b_is_sparse": bool(b_is_sparse)},
                       name or "SparseMatMul")


# ---------------------------------------------------------------------------
# AddN


def _add_n_shape(op):
    shape = TensorShape(None)
    for t in op.inputs:
        try:
            shape = shape.merge_with(t.shape)
        except ValueError:
            raise ValueError(f"Shapes must be equal, but {op.inputs[0].shape} and {t.shape} differ") from None
    return shape


@register_op("AddN", shape=_add_n_shape, inplace_input=0)
def _add_n_kernel(xp, *inputs, inplace=False):
    if len(inputs) == 1:
        return inputs[0]
    if inputs[0].__class__ is TensorList:  # gradients of a TensorArray's list, from several paths
        out = inputs[0]
        for x in inputs[1:]:
            out = out.add(x)
        return out
    out = writable_like(inputs[0], inputs[1]) if inplace else None
    done = intra_op.elementwise(np.add, out, inputs[0], inputs[1]) \
        if xp is np and getattr(inputs[0], "nbytes", 0) >= intra_op.MIN_BYTES else None
    out = done if done is not None else xp.add(inputs[0], inputs[1], out=out)
    for x in inputs[2:]:
        if done is not None and intra_op.elementwise(np.add, out, out, x) is not None:
            continue
        if isinstance(out, xp.ndarray):
            xp.add(out, x, out=out)  # `out` is fresh: accumulate in place
        else:
            out = out + x
    return out


def add_n(inputs, name=None) -> ops.Tensor:
    """Sums a list of tensors of one shape and dtype."""
    inputs = list(inputs)
    if not inputs:
        raise ValueError("inputs must be a non-empty list of tensors")
    tensors = same_dtype_inputs("AddN", inputs, names=[f"inputs[{i}]" for i in range(len(inputs))])
    if len(tensors) == 1:
        return array_ops.identity(tensors[0], name=name)
    return make_tensor("AddN", tensors, {"N": len(tensors)}, name or "AddN")


# ---------------------------------------------------------------------------
# Select (where with three arguments), Where (with one)


def _select_shape(op):
    cond, x, y = op.inputs
    shape = broadcast_shape(x.shape, y.shape)
    if cond.shape.ndims == 1 and (shape.ndims or 0) > 1:
        if not cond.shape[0].is_compatible_with(shape[0]):
            raise ValueError(f"condition of shape {cond.shape} does not match the first "
                             f"dimension of {shape}")
        return shape
    return broadcast_shape(cond.shape, shape)


def blend(xp, cond, x, y):
    """``xp.where(cond, x, y)``; for large NumPy arrays of one shape, without a branch an
    element: NumPy's where mispredicts on a mask half set (a ReLU's, in the gradients of
    maximum, minimum and clipping), 3.6 ns an element, where picking bits through a mask
    takes 0.7 (2.96 against 0.56 ms for 800,000 floats, each in a new array)."""
    if (xp is np and x.__class__ is np.ndarray and y.__class__ is np.ndarray and x.dtype == y.dtype
            and x.shape == y.shape and x.size >= _BLEND_MIN and x.dtype.itemsize in (1, 2, 4, 8)
            and x.dtype.kind in "fiub" and cond.dtype == np.bool_ and cond.ndim <= x.ndim
            and all(c in (1, d) for c, d in zip(reversed(cond.shape), reversed(x.shape)))):
        bits = np.dtype(f"u{x.dtype.itemsize}")
        y_bits = y.view(bits)
        out = np.bitwise_xor(x.view(bits), y_bits)  # (the bits where x and y differ...
        np.multiply(out, cond, out=out)  # ...where cond holds (an integer product by 0 or 1)...
        return np.bitwise_xor(out, y_bits, out=out).view(x.dtype)  # ...flipped in y: x there)
    return xp.where(cond, x, y)


_BLEND_MIN = 8192  # elements: below, NumPy's where is as fast


@register_op("Select", shape=_select_shape, dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _select_kernel(xp, cond, x, y):
    if cond.ndim == 1 and max(x.ndim, y.ndim) > 1:
        cond = cond.reshape((-1,) + (1,) * (max(x.ndim, y.ndim) - 1))
    return blend(xp, cond, x, y)


@register_op("SelectV2", shape=lambda op: broadcast_shape(op.inputs[0].shape,
                                                        broadcast_shape(op.inputs[1].shape, op.inputs[2].shape)),
             dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _select_v2_kernel(xp, cond, x, y):
    """``where`` with NumPy's broadcasting of all three (TF's SelectV2, ``tf.where_v2``)."""
    return blend(xp, cond, x, y)


@register_op("Where", shape=lambda op: TensorShape([None, op.inputs[0].shape.ndims]),
             dtype=lambda op: dtypes.int64)
def _where_kernel(xp, cond):
    return xp.argwhere(cond).astype(np.int64)


not_differentiable("Where")


def where(condition, x=None, y=None, name=None) -> ops.Tensor:
    """With x and y: elements of x where condition, else y. Alone: the true indices."""
    condition = ops.convert_to_tensor(condition)
    if x is None and y is None:  # (a number counts as true where it is not zero, as TF's Where takes it)
        check_dtype("Where", condition, (dtypes.bool,) + NUMBERS + COMPLEX, "input")
        return make_tensor("Where", [condition], None, name or "Where")
    if condition.dtype.base_dtype != dtypes.bool:
        raise TypeError(f"where's condition must be bool, got {condition.dtype.name}")
    if x is None or y is None:
        raise ValueError("x and y must both be given, or neither")
    x, y = same_dtype_inputs("Select", [x, y], names=("x", "y"))
    return make_tensor("Select", [condition, x, y], None, name or "Select")


# ---------------------------------------------------------------------------
# Range, clip_by_value


def _range_shape(op):
    start, limit, delta = (constant_value(t) for t in op.inputs)
    if start is None or limit is None or delta is None:
        return TensorShape([None])
    return TensorShape([len(range(int(start), int(limit), int(delta)))
                        if op.inputs[0].dtype.is_integer else
                        int(np.ceil((float(limit) - float(start)) / float(delta)))])


@register_op("Range", shape=_range_shape)
def _range_kernel(xp, start, limit, delta):
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if start.dtype.kind in "iu":  # (Python ints: NumPy's arange takes 0-D arrays 5x slower)
        return xp.arange(start.item(), limit.item(), delta.item(), dtype=start.dtype)
    return xp.arange(start, limit, delta, dtype=start.dtype)


not_differentiable("Range")


def range_(start, limit=None, delta=1, dtype=None, name="range") -> ops.Tensor:
    """``tf.range``: like Python's range, as a tensor."""
    if limit is None:
        start, limit = 0, start
    values = [start, limit, delta]
    if dtype is None:
        kinds = [v.dtype.base_dtype if isinstance(v, ops.Tensor) else
                 (dtypes.float32 if isinstance(v, float) else dtypes.int32) for v in values]
        # (the widest of them, as TF's: int32 < int64 < float32 < float64)
        order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
        dtype = max(kinds, key=lambda k: order.index(k) if k in order else -1)
    tensors = [cast(ops.convert_to_tensor(v), dtype) if isinstance(v, ops.Tensor) else
               ops.convert_to_tensor(v, dtype=dtype) for v in values]
    return make_tensor("Range", tensors, None, name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None) -> ops.Tensor:
    """Clips ``t`` to [clip_value_min, clip_value_max]; the result keeps t's shape."""
    with ops.name_scope(name, "clip_by_value", [t]) as scope:
        t = ops.convert_to_tensor(t)
        low = minimum(t, clip_value_max)
        out = maximum(low, clip_value_min, name=scope or None)
        if not out.shape.is_compatible_with(t.shape):
            raise ValueError(f"clip_by_value bounds would change the shape of {t.name} from "
                             f"{t.shape} to {out.shape}")
        return out


# ---------------------------------------------------------------------------
# Tensor operators


def _swap(fn):
    def reflected(y, x):
        return fn(x, y)

    return reflected


def _matmul_op(a, b):
    return matmul(a, b)


def _operator(op_type: str):
    def operator(x, y):
        if getattr(y, "_takes_dense_operands", False):  # (a SparseTensor: dense * sparse is its to make)
            return NotImplemented
        return binary_op(op_type, x, y)  # (the lowercase default name)

    return operator


for _name, _fn in (("add", _operator("AddV2")), ("sub", _operator("Sub")), ("mul", _operator("Mul")),
                   ("truediv", truediv),
                   ("floordiv", floordiv), ("mod", floormod), ("pow", pow), ("matmul", _matmul_op),
                   ("and", logical_and), ("or", logical_or), ("xor", logical_xor)):
    ops.Tensor._override_operator(f"__{_name}__", _fn)
    ops.Tensor._override_operator(f"__r{_name}__", _swap(_fn))
ops.Tensor._override_operator("__div__", truediv)
ops.Tensor._override_operator("__lt__", less)
ops.Tensor._override_operator("__le__", less_equal)
ops.Tensor._override_operator("__gt__", greater)
ops.Tensor._override_operator("__ge__", greater_equal)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of ``inputs`` (add_n; TF accumulated them in place). ``shape`` and
    ``tensor_dtype``, where given, are what the inputs must have (a ValueError, a TypeError)."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = [ops.convert_to_tensor(t) for t in inputs]
    expected = TensorShape(None) if shape is None else TensorShape(shape)
    for t in inputs:
        if not expected.is_compatible_with(t.shape):
            raise ValueError(f"accumulate_n: input {t.name} has shape {t.shape}, not the shape given, {expected}")
        expected = expected.merge_with(t.shape)
        if tensor_dtype is not None and t.dtype.base_dtype != dtypes.as_dtype(tensor_dtype).base_dtype:
            raise TypeError(f"accumulate_n: input {t.name} is {t.dtype.base_dtype.name}, not the tensor_dtype "
                            f"given, {dtypes.as_dtype(tensor_dtype).name}")
    return add_n(inputs, name=name or "AccumulateN")


def saturate_cast(value, dtype, name=None):
    """Casts, clipping to the target dtype's range first (no wrap-around)."""
    with ops.name_scope(name, "saturate_cast", [value]):
        value = ops.convert_to_tensor(value)
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype.is_integer and (value.dtype.is_floating or value.dtype.is_integer):
            info = np.iinfo(dtype.as_numpy_dtype)
            low, high = float(info.min), float(info.max)
            if value.dtype.is_integer:
                src = np.iinfo(value.dtype.base_dtype.as_numpy_dtype)
                low, high = max(low, src.min), min(high, src.max)
            value = clip_by_value(value, cast(low, value.dtype.base_dtype),
                                           cast(high, value.dtype.base_dtype))
        return cast(value, dtype)


def where_v2(condition, x=None, y=None, name=None):
    """``where`` with NumPy broadcasting of condition, x and y (or the true coordinates with one argument)."""
    if x is None and y is None:
        return where(condition, name=name)
    x = ops.convert_to_tensor(x)
    y = ops.convert_to_tensor(y, dtype=x.dtype.base_dtype)
    condition = ops.convert_to_tensor(condition, dtype=dtypes.bool)
    return make_tensor("SelectV2", [condition, x, y], None, name or "SelectV2")
