"""Helpers shared by the op blocks: building ops, static shapes, constant folding."""

from __future__ import annotations

import functools

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.tensor_shape import TensorShape, as_shape


def make_op(op_type: str, inputs, attrs=None, name=None) -> ops.Operation:
    """Adds ``op_type`` to the graph of its inputs (a function's graph that captures: that one)."""
    default = ops.get_default_graph()
    graph = inputs[0].graph if inputs and not default._captures else default
    return graph.create_op(op_type, list(inputs), attrs, name=name)


def kernel_error(op_type: str, message: str) -> errors.InvalidArgumentError:
    """The error a kernel raises for input it cannot take: "<op type>: <message>"."""
    return errors.InvalidArgumentError(None, None, f"{op_type}: {message}")


def make_tensor(op_type: str, inputs, attrs=None, name=None) -> ops.Tensor:
    """``make_op`` for a single-output op: returns its output."""
    return make_op(op_type, inputs, attrs, name).outputs[0]


def same_dtype_inputs(op_type: str, values, names=("x", "y"), dtype=None) -> list[ops.Tensor]:
    """Converts ``values`` to Tensors of one dtype, as TensorFlow's type attr 'T' requires.

    Python numbers take the dtype of the Tensor operands; two Tensors of different
    dtypes are a TypeError naming the op and both inputs (no silent promotion).
    """
    if dtype is None:
        for v in values:
            if isinstance(v, ops.Tensor) or hasattr(v, "_as_graph_element"):
                dtype = ops.convert_to_tensor(v).dtype.base_dtype
                break
    out = []
    for v, arg in zip(values, names):
        try:
            t = ops.convert_to_tensor(v, dtype=dtype)
        except ValueError as e:
            raise TypeError(f"Input '{arg}' of '{op_type}' Op has type "
                            f"{ops.convert_to_tensor(v).dtype.base_dtype.name} that does not match "
                            f"type {dtype.name} of the other inputs ({e}). Cast one of them "
                            "with tf.cast.") from None
        if dtype is None:
            dtype = t.dtype.base_dtype
        out.append(t)
    return out


def same_dtype_values(op_type: str, values) -> list[ops.Tensor]:
    """``same_dtype_inputs`` for an op of a list of values (ConcatV2, Pack: "values[i]")."""
    return same_dtype_inputs(op_type, values, names=[f"values[{i}]" for i in range(len(values))])


def constant_value(tensor: ops.Tensor):
    """The value of ``tensor`` if it is known when the graph is built, else None."""
    op = tensor.op
    if op.type == "Const":
        return op._attr("value")
    if op.type == "Shape" and tensor.op.inputs[0].shape.is_fully_defined():
        return np.array(tensor.op.inputs[0].shape.as_list(),
                        dtype=op._attr("out_type").as_numpy_dtype)
    if op.type == "Size" and tensor.op.inputs[0].shape.is_fully_defined():
        return np.array(tensor.op.inputs[0].shape.num_elements(),
                        dtype=op._attr("out_type").as_numpy_dtype)
    if op.type == "Rank" and tensor.op.inputs[0].shape.ndims is not None:
        return np.array(tensor.op.inputs[0].shape.ndims, dtype=np.int32)
    if op.type == "Pack":
        parts = [constant_value(t) for t in op.inputs]
        if all(p is not None for p in parts):
            return np.stack(parts, axis=op._attr("axis"))
    if op.type == "ConcatV2":
        parts = [constant_value(t) for t in op.inputs]
        if all(p is not None for p in parts):
            return np.concatenate(parts[:-1], axis=int(parts[-1]))
    if op.type == "Fill":
        dims, value = constant_value(op.inputs[0]), constant_value(op.inputs[1])
        if dims is not None and value is not None:
            return np.full(dims, value, dtype=np.asarray(value).dtype)
    if op.type == "Range":
        start, limit, delta = (constant_value(t) for t in op.inputs)
        if start is not None and limit is not None and delta is not None:
            return np.arange(start, limit, delta, dtype=op.outputs[0].dtype.as_numpy_dtype)
    if op.type in ("Equal", "NotEqual"):
        a, b = (constant_value(t) for t in op.inputs)
        if a is not None and b is not None:
            return np.asarray(np.equal(a, b) if op.type == "Equal" else np.not_equal(a, b))
    if op.type in ("Identity", "StopGradient", "Cast"):
        value = constant_value(op.inputs[0])
        if value is not None and op.type == "Cast":
            value = value.astype(op._attr("DstT").as_numpy_dtype)
        return value
    return None


def constant_shape(tensor: ops.Tensor) -> TensorShape:
    """A shape given as a 1-D tensor, as far as it is known statically."""
    value = constant_value(tensor)
    if value is not None:
        return TensorShape([None if d < 0 else int(d) for d in np.reshape(value, [-1])])
    if tensor.op.type == "Shape":
        return tensor.op.inputs[0].shape
    if tensor.op.type == "Pack":
        return TensorShape([_scalar_or_none(t) for t in tensor.op.inputs])
    if tensor.op.type == "StridedSlice":  # (shape[-1:], shape[1:3]...: a plain slice of a shape)
        sliced = _sliced_shape(tensor.op)
        if sliced is not None:
            return sliced
    if tensor.op.type == "ConcatV2":
        parts = [constant_shape(t) for t in tensor.op.inputs[:-1]]
        if all(p.ndims is not None for p in parts):
            return TensorShape([d for p in parts for d in p.dims])
    n = tensor.shape[0].value if tensor.shape.ndims == 1 else None
    return TensorShape(None if n is None else [None] * n)


def _sliced_shape(op: ops.Operation):
    """The statically known part of ``shape[begin:end:stride]``, or None."""
    if any(op._attr(mask) for mask in ("ellipsis_mask", "new_axis_mask", "shrink_axis_mask")):
        return None
    whole = constant_shape(op.inputs[0])
    begin, end, strides = (constant_value(t) for t in op.inputs[1:4])
    if whole.ndims is None or any(v is None or np.size(v) != 1 for v in (begin, end, strides)):
        return None
    start = None if op._attr("begin_mask") & 1 else int(np.reshape(begin, [-1])[0])
    stop = None if op._attr("end_mask") & 1 else int(np.reshape(end, [-1])[0])
    return TensorShape(whole.dims[start:stop:int(np.reshape(strides, [-1])[0])])


def _scalar_or_none(t):
    v = constant_value(t)
    if v is None and t.op.type == "StridedSlice":  # (tf.shape(x)[i]: x's dimension i, when known)
        return _element_of_shape(t.op)
    return None if v is None or int(v) < 0 else int(v)


def _element_of_shape(op: ops.Operation):
    if op._attr("shrink_axis_mask") != 1 or any(op._attr(m) for m in ("ellipsis_mask", "new_axis_mask")):
        return None
    whole = constant_shape(op.inputs[0])
    begin = constant_value(op.inputs[1])
    if whole.ndims is None or begin is None or np.size(begin) != 1:
        return None
    index = int(np.reshape(begin, [-1])[0])
    return whole.dims[index].value if -whole.ndims <= index < whole.ndims else None


def broadcast_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """NumPy's broadcasting on static shapes; incompatible shapes are a ValueError."""
    a, b = as_shape(a), as_shape(b)
    if a.ndims is None or b.ndims is None:
        return TensorShape(None)
    da, db = a.as_list(), b.as_list()
    n = max(len(da), len(db))
    da = [1] * (n - len(da)) + da
    db = [1] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
    return TensorShape(out)


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1):
        raise ValueError(f"{what} {axis} is out of bounds for a tensor of rank {rank} "
                         f"(expected a value in [{-rank}, {rank}))")
    return axis % rank if rank else 0


def known_axis(tensor: ops.Tensor):
    """An axis input's constant value as an int (or list of ints), or None if unknown."""
    value = constant_value(tensor)
    if value is None:
        return None
    value = np.asarray(value)
    return int(value) if value.ndim == 0 else [int(v) for v in value.reshape(-1)]


def index_tensor(value) -> ops.Tensor:
    """An index input that TF types ``int32`` or ``int64`` (an axis, a permutation, paddings,
    multiples, begin/size): an int64 tensor (or variable) stays int64; anything else is
    converted to int32, TF's default for such an input."""
    if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_element"):
        value = ops.convert_to_tensor(value)
        if value.dtype.base_dtype == dtypes.int64:
            return value
    return ops.convert_to_tensor(value, dtype=dtypes.int32)


def on_sparse_values(fn):
    """``fn`` (an elementwise function of one tensor) also applied to a SparseTensor's values,
    keeping its indices and dense shape, as TF's abs, negative, sign, square, sqrt, erf, tanh and
    cast take one. (SparseTensor known by name: sparse_ops builds on these modules.)"""
    @functools.wraps(fn)
    def wrapped(x, *args, **kwargs):
        if type(x).__name__ == "SparseTensor":
            return type(x)(x.indices, fn(x.values, *args, **kwargs), x.dense_shape)
        return fn(x, *args, **kwargs)
    return wrapped


def int_dtype(op_type: str, value, allowed=(dtypes.int32, dtypes.int64)) -> None:
    if value.dtype.base_dtype not in allowed:
        raise TypeError(f"'{op_type}' expects an integer tensor ({', '.join(d.name for d in allowed)})"
                        f" for '{value.name}', got {value.dtype.name}")


# ---------------------------------------------------------------------------
# Dtype groups and checks shared by the math op files

FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
INTS = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32,
        dtypes.uint64)
NUMBERS = FLOATS + INTS
SIGNED = FLOATS + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
COMPLEX = (dtypes.complex64, dtypes.complex128)


def check_dtype(op_type: str, t: ops.Tensor, allowed, arg: str = "x") -> None:
    """TypeError, worded as TensorFlow's, unless ``t``'s dtype is one of ``allowed``."""
    if t.dtype.base_dtype not in allowed:
        raise TypeError(f"Value passed to parameter '{arg}' of '{op_type}' has DataType "
                        f"{t.dtype.base_dtype.name} not in list of allowed values: "
                        f"{', '.join(d.name for d in allowed)}")


def unary_shape(op):
    """The shape function of an elementwise op of one input: that input's shape."""
    return op.inputs[0].shape


def binary_shape(op):
    """The shape function of an elementwise op of two inputs: their broadcast shape."""
    return broadcast_shape(op.inputs[0].shape, op.inputs[1].shape)


def writable_like(x, other=None):
    """``x`` itself if a result of x's shape and dtype may be written into it, else None.

    Never below ``INPLACE_MIN_BYTES``: a small array is allocated faster than these checks
    run (a fresh 64-float result 0.1 us, the checks 1.2), as it is in a loop's body."""
    if x.__class__ is not np.ndarray or x.nbytes < INPLACE_MIN_BYTES or not x.flags.writeable:
        return None
    if other is None:
        return x
    if np.shape(other) == x.shape:
        # (not into a buffer laid out otherwise than a C-ordered operand, such as a transposed
        # product's: NumPy's loop over the two then ran 4x slower than into a fresh array,
        # 220 against 60 us for a ReLU gradient of 128x512)
        if x.ndim > 1 and not x.flags.c_contiguous and other.__class__ is np.ndarray and other.flags.c_contiguous:
            return None
        return x
    if getattr(other, "dtype", x.dtype) != x.dtype or np.ndim(other) > x.ndim:
        return None
    # (other broadcasts to x's shape: each of its trailing dimensions is 1 or x's; written
    # out, as np.broadcast_shapes costs some 10 us a call)
    return x if all(o == 1 or o == d for o, d in zip(reversed(np.shape(other)), reversed(x.shape))) else None


INPLACE_MIN_BYTES = 16384


def add_rows_at(out, index, rows) -> None:
    """``out[index[k]] += rows[k]`` for every k, repeated indices adding up (``np.add.at``),
    in a few whole-array operations instead of NumPy's element-by-element loop.

    The rows are sorted by index (stably); then each index's first rows are summed layer by
    layer (the first row of every index, plus the second of those that have two, ...), and
    the few indices left with many rows (a frequent word's) sum the rest of theirs at once.
    An embedding gradient of 1120 rows of 200 into 1000 rows: 1.12 ms with ``np.add.at``,
    0.67 with a sort and ``np.add.reduceat`` (which costs about 0.8 us a group), 0.16 so.

    Narrow rows go through ``np.add.at`` on the flattened arrays instead, one element at a
    time in NumPy's fast one-dimensional loop (3-4 ns an element), which needs no sort and
    no layers: a graph network's product of 49,216 entries by 16 columns, 2.6 ms against
    4.3 layered (and 12.8 with ``np.add.at`` on rows), 200,000 by 1, 0.8 against 3.0."""
    index = np.asarray(index).reshape(-1)
    if index.size == 0:
        return
    width = out[:1].size
    if width < _WIDE_ROW and out.flags.c_contiguous and rows.dtype == out.dtype:
        flat = (index.astype(np.intp) * width)[:, None] + np.arange(width)
        np.add.at(out.reshape(-1), flat.reshape(-1), np.ascontiguousarray(rows).reshape(-1))
        return
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    counts = np.diff(np.append(starts, index.size))
    rows = rows[order]
    total = rows[starts]  # (a copy: every index's first row)
    k = 1
    while True:
        more = np.flatnonzero(counts > k)
        if more.size <= _FEW_LEFT:
            for g in more.tolist():
                total[g] += rows[starts[g] + k:starts[g] + counts[g]].sum(0)
            break
        total[more] += rows[starts[more] + k]
        k += 1
    out[ordered[starts]] += total


_WIDE_ROW = 32  # elements in a row, from which the layered sums beat np.add.at's flat loop
_FEW_LEFT = 8  # indices with rows left, below which each sums the rest of its rows at once


_HALF = np.dtype(np.float16)


def half_in_float32(kernel):
    """A CPU product kernel (a matrix product, a convolution) that computes float16 operands
    in float32 and rounds its result to float16.

    NumPy has no BLAS for float16: its products run a scalar loop, 75x slower than float32
    for [32768, 16] x [16, 16] and 140x for a 3x3 convolution of 16 channels. Rounded once at
    the end, the result is also closer to the exact product than sums kept in float16.
    (TensorFlow's CPU kernels compute half products in float as well.) Device kernels (``xp``
    not NumPy) are called as they are."""
    @functools.wraps(kernel)
    def run(xp, *args, **attrs):
        if xp is not np or not any(a.__class__ is np.ndarray and a.dtype == _HALF for a in args):
            return kernel(xp, *args, **attrs)
        out = kernel(xp, *(a.astype(np.float32) if a.__class__ is np.ndarray and a.dtype == _HALF else a
                           for a in args), **attrs)
        return tuple(o.astype(_HALF) for o in out) if isinstance(out, tuple) else out.astype(_HALF)
    return run


def only_default(fn: str, arg: str, value, *defaults) -> None:
    """UnimplementedError naming ``fn``'s argument ``arg`` and ``value`` unless ``value`` is
    one of ``defaults`` (an argument distflow cannot honour is refused, never ignored)."""
    def same(a, b):
        try:
            return bool(np.all(np.asarray(a) == np.asarray(b))) and np.shape(a) == np.shape(b)
        except (TypeError, ValueError):
            return a == b

    if not any(value is d or same(value, d) for d in defaults):
        raise errors.UnimplementedError(None, None, f"{fn}({arg}={value!r}) is not supported by distflow "
                                        f"(only {' or '.join(repr(d) for d in defaults)})")


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` if the graph determines it (a constant, a known shape, and
    what Pack, ConcatV2, Fill, Range, Cast, Equal... make of those), else None; a variable's
    is None. With ``partial``, a Pack along axis 0 of values of which only some are known
    gives an object array with None for the others, as TF's ``constant_value``."""
    if not isinstance(tensor, ops.Tensor):
        if hasattr(tensor, "read_value"):  # a variable (of any kind)
            return None
        return np.asarray(tensor)
    value = constant_value(tensor)
    if value is None and partial and tensor.op.type == "Pack" and tensor.op._attr("axis") == 0:
        parts = [constant_value(t) for t in tensor.op.inputs]
        if any(p is not None for p in parts):
            value = np.empty(len(parts), dtype=object)
            value[:] = parts
    return value
