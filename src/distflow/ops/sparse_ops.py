"""``tf.SparseTensor`` and the sparse ops of TF 1.x.

A SparseTensor is three dense tensors: ``indices`` (int64 [N, rank], the coordinates of the
entries that are present), ``values`` ([N]) and ``dense_shape`` (int64 [rank]). Ops that
produce one (``string_split``, ``sparse_reorder``, ``sparse_add``, ...) are kernels with those
three outputs; ops that combine one with dense tensors (``sparse_tensor_dense_matmul``,
``sparse_reduce_sum``, ``sparse_tensor_to_dense``) have gradients for its values and the
dense operands. A session fetches a SparseTensor as a ``SparseTensorValue`` and feeds a
``sparse_placeholder`` from one (or from an (indices, values, dense_shape) tuple).
"""

from __future__ import annotations

import collections

import numpy as np

from google.protobuf.message import DecodeError

from ..framework import dtypes, errors, ops, wire
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape, as_shape
from . import array_ops, math_ops, reduction_ops, segment_ops, slicing_ops
from .array_ops import placeholder
from .check_ops import assert_equal, assert_less_equal
from .indexed_slices import IndexedSlices
from .manip_ops import boolean_mask, matrix_transpose
from .tensor_serialization_ops import parse_tensor, serialize_tensor
from .nd_ops import gather_nd, scatter_nd
from .op_util import add_rows_at, constant_value, make_op, make_tensor, only_default
from .segment_ops import setdiff1d
from ..protos import distflow_pb2 as pb

SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])


class SparseTensor:
    """Entries ``values[i]`` at coordinates ``indices[i]`` of a tensor of shape ``dense_shape``;
    every other entry is zero (or the default a consumer names)."""

    def __init__(self, indices, values, dense_shape):
        with ops.name_scope(None, "SparseTensor", []):
            self._indices = ops.convert_to_tensor(indices, dtype=dtypes.int64, name="indices")
            self._values = ops.convert_to_tensor(values, name="values")
            self._dense_shape = ops.convert_to_tensor(dense_shape, dtype=dtypes.int64, name="dense_shape")
        if self._indices.shape.ndims not in (None, 2):
            raise ValueError(f"SparseTensor indices must be a matrix [N, rank], got shape {self._indices.shape}")
        if self._values.shape.ndims not in (None, 1):
            raise ValueError(f"SparseTensor values must be a vector [N], got shape {self._values.shape}")
        self._static_shape = None  # (what a maker knows of the dense shape beyond dense_shape's value)

    @classmethod
    def from_value(cls, value):
        if isinstance(value, SparseTensor):
            return value
        return cls(value.indices, value.values, value.dense_shape)

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    graph = property(lambda self: self._values.graph)
    op = property(lambda self: self._values.op)

    @property
    def shape(self) -> TensorShape:
        known = constant_value(self._dense_shape)
        if known is not None:
            return as_shape([int(d) for d in known])
        rank = self._dense_shape.shape[0].value if self._dense_shape.shape.ndims == 1 else None
        shape = TensorShape(None) if rank is None else TensorShape([None] * rank)
        return shape if self._static_shape is None else shape.merge_with(self._static_shape)

    def get_shape(self) -> TensorShape:
        return self.shape

    def eval(self, feed_dict=None, session=None):
        session = session or ops.get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate a SparseTensor without a default session")
        return session.run(self, feed_dict)

    def consumers(self):
        return self._values.consumers()

    _takes_dense_operands = True  # (a Tensor's * leaves dense * sparse to __rmul__)

    def __mul__(self, other):
        return _cwise_dense(self, other, math_ops.multiply)

    __rmul__ = __mul__  # (dense * sparse is sparse too, as in TF)

    def __truediv__(self, other):
        return _cwise_dense(self, other, math_ops.truediv)

    __div__ = __truediv__

    def __repr__(self):
        return f"SparseTensor(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"


def _cwise_dense(sp, dense, fn):
    """``sp * dense`` (or ``/``): the dense operand broadcast to the sparse shape and read at its entries."""
    dense = ops.convert_to_tensor(dense, dtype=sp.dtype.base_dtype)
    picked = gather_nd(array_ops.broadcast_to(dense, sp.dense_shape), sp.indices)
    return SparseTensor(sp.indices, fn(sp.values, picked), sp.dense_shape)


def _is_sparse(x) -> bool:
    return isinstance(x, (SparseTensor, SparseTensorValue))


def as_sparse_tensor(x) -> SparseTensor:
    if isinstance(x, SparseTensor):
        return x
    if isinstance(x, SparseTensorValue):
        return SparseTensor.from_value(x)
    raise TypeError(f"Expected a SparseTensor or SparseTensorValue, got {type(x).__name__}")


def _three(op_type, inputs, attrs, name, values_dtype=None) -> SparseTensor:
    ind, val, shape = make_op(op_type, inputs, attrs, name or op_type).outputs
    return SparseTensor(ind, val, shape)


def _sp_shapes(rank_from=0):
    """Shape function for kernels returning (indices, values, dense_shape) of input ``rank_from``'s rank."""
    def shape(op):
        rank = op.inputs[rank_from].shape[1].value if op.inputs[rank_from].shape.ndims == 2 else None
        return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]
    return shape


def _sp_dtypes(values_input=1):
    return lambda op: [dtypes.int64, op.inputs[values_input].dtype.base_dtype, dtypes.int64]


def _check_indices(op_type, indices, shape):
    if indices.size and ((indices < 0).any() or (indices >= np.asarray(shape)[None, :]).any()):
        row = int(np.argmax(((indices < 0) | (indices >= np.asarray(shape)[None, :])).any(axis=1)))
        raise errors.InvalidArgumentError(None, None, f"{op_type}: indices[{row}] = {_listed(indices[row])} is out of "
                                                      f"bounds: need 0 <= index < {_listed(shape)}")


def _listed(values) -> str:
    """``[1,2]``: a shape or an index as TF's messages write it."""
    return "[" + ",".join(str(int(v)) for v in np.reshape(values, -1)) + "]"


def _order(indices, shape):
    """The permutation that sorts ``indices`` in row-major order."""
    return np.argsort(_row_keys(shape, indices), kind="stable")


def _row_keys(shape, indices) -> np.ndarray:
    """One int64 key per index row, in the rows' row-major order. An index past ``shape`` (which
    TF's kernels do not check) widens its dimension; a negative one is an error."""
    indices = np.asarray(indices)
    if not len(indices):
        return np.zeros(0, np.int64)
    if (indices < 0).any():
        raise errors.InvalidArgumentError(None, None, f"Sparse indices must be non-negative, got "
                                                      f"{indices[(indices < 0).any(axis=1)][0].tolist()}")
    dims = np.maximum(np.asarray([int(d) for d in shape], np.int64), indices.max(axis=0) + 1)
    try:
        return np.ravel_multi_index(tuple(indices.T), tuple(int(d) for d in dims))
    except ValueError:  # (more positions than an int64 counts: rank the rows themselves)
        return np.unique(indices, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)


# ---------------------------------------------------------------------------
# Sparse <-> dense


@register_op("SparseToDense", shape=lambda op: _dense_output_shape(op.inputs[1]),
             dtype=lambda op: op.inputs[2].dtype.base_dtype)
def _sparse_to_dense_kernel(xp, indices, output_shape, values, default_value, *, validate_indices):
    indices, values = np.asarray(indices), np.asarray(values)
    if np.ndim(output_shape) != 1:
        raise errors.InvalidArgumentError(None, None, f"SparseToDense: output_shape must be rank 1, got shape "
                                                      f"{list(np.shape(output_shape))}")
    shape = tuple(int(d) for d in output_shape)
    if indices.ndim > 2:
        raise errors.InvalidArgumentError(None, None, f"SparseToDense: sparse_indices should be a scalar, vector, "
                                                      f"or matrix, got shape {list(indices.shape)}")
    count = indices.shape[0] if indices.ndim else 1
    dims = indices.shape[1] if indices.ndim == 2 else 1
    if dims != len(shape):
        raise errors.InvalidArgumentError(None, None, f"SparseToDense: sparse_indices has {dims} columns but "
                                                      f"output_shape has {len(shape)} dimensions")
    if values.ndim != 0 and values.shape != (count,):
        raise errors.InvalidArgumentError(None, None, f"SparseToDense: sparse_values has incorrect shape "
                                                      f"{_listed(values.shape)}, should be [] or [{count}]")
    if np.ndim(default_value) != 0:
        raise errors.InvalidArgumentError(None, None, f"SparseToDense: default_value should be a scalar, got "
                                                      f"shape {list(np.shape(default_value))}")
    indices = indices.reshape(count, dims)
    _check_indices("SparseToDense", indices, shape)
    if validate_indices and len(indices) > 1:
        flat = np.ravel_multi_index(tuple(indices.T), shape)
        steps = np.diff(flat)
        if (steps <= 0).any():
            row = int(np.argmax(steps <= 0)) + 1
            what = "repeated" if steps[row - 1] == 0 else "out of order"
            raise errors.InvalidArgumentError(None, None, f"SparseToDense: indices[{row}] = {_listed(indices[row])} "
                                                          f"is {what} (sparse_reorder the indices first)")
    out = np.full(shape, default_value, dtype=values.dtype)
    out[tuple(indices.T)] = values
    return out


def _dense_output_shape(shape_tensor):
    if shape_tensor.shape.ndims not in (None, 1):
        raise ValueError(f"output_shape must be rank 1, got shape {shape_tensor.shape}")
    known = constant_value(shape_tensor)
    if known is not None:
        return as_shape([int(d) for d in np.reshape(known, -1)])
    n = shape_tensor.shape[0].value if shape_tensor.shape.ndims == 1 else None
    return TensorShape(None) if n is None else TensorShape([None] * n)


@register_gradient("SparseToDense")
def _sparse_to_dense_grad(op, grad):
    indices, _, values, _ = op.inputs
    picked = gather_nd(grad, array_ops.reshape(indices, [-1, array_ops.size(op.inputs[1])]))
    if values.shape.ndims == 0:
        picked = reduction_ops.reduce_sum(picked)
    return None, None, picked, None


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0, validate_indices=True, name=None):
    """A dense tensor of ``output_shape`` with ``sparse_values`` at ``sparse_indices``, ``default_value`` elsewhere."""
    values = ops.convert_to_tensor(sparse_values)
    return make_tensor("SparseToDense", [
        ops.convert_to_tensor(sparse_indices), ops.convert_to_tensor(output_shape), values,
        ops.convert_to_tensor(default_value, dtype=values.dtype.base_dtype)],
        {"validate_indices": bool(validate_indices)}, name or "SparseToDense")


def sparse_tensor_to_dense(sp_input, default_value=0, validate_indices=True, name=None):
    sp = as_sparse_tensor(sp_input)
    return sparse_to_dense(sp.indices, sp.dense_shape, sp.values, default_value, validate_indices, name)


@register_op("DenseToSparse", shape=lambda op: [TensorShape([None, op.inputs[0].shape.ndims]), TensorShape([None]),
                                                TensorShape([op.inputs[0].shape.ndims])],
             dtype=lambda op: [dtypes.int64, op.inputs[0].dtype.base_dtype, dtypes.int64])
def _dense_to_sparse_kernel(xp, dense, ignore):
    where = np.argwhere(dense != ignore).astype(np.int64)
    return where, dense[tuple(where.T)], np.array(dense.shape, np.int64)


not_differentiable("DenseToSparse")


def from_dense(tensor, name=None):
    """The non-zero entries of a dense tensor as a SparseTensor."""
    tensor = ops.convert_to_tensor(tensor)
    zero = ops.convert_to_tensor(np.zeros((), tensor.dtype.base_dtype.as_numpy_dtype), dtype=tensor.dtype.base_dtype)
    return _three("DenseToSparse", [tensor, zero], None, name)


def sparse_placeholder(dtype, shape=None, name=None) -> SparseTensor:
    """A SparseTensor fed whole: ``feed_dict={sp: SparseTensorValue(...)}`` (or an (indices, values, shape) tuple)."""
    prefix = (name or "Placeholder") + "/"
    values = placeholder(dtype, [None], name=prefix + "values")
    if isinstance(shape, ops.Tensor):  # (TF 1.x takes the dense shape as a tensor, too)
        if shape.shape.ndims != 1:
            raise ValueError(f"sparse_placeholder: a shape given as a tensor must be a vector, got shape {shape.shape}")
        dense_shape = math_ops.cast(shape, dtypes.int64)
        indices = placeholder(dtypes.int64, [None, shape.shape[0].value], name=prefix + "indices")
        return SparseTensor(indices, values, dense_shape)
    if shape is not None and None not in list(as_shape(shape).as_list() or [None]):
        rank = len(shape)
        dense_shape = ops.convert_to_tensor(np.array(as_shape(shape).as_list(), np.int64), name=prefix + "shape")
    else:
        rank = None if shape is None or as_shape(shape).ndims is None else len(shape)
        dense_shape = placeholder(dtypes.int64, [rank], name=prefix + "shape")
    indices = placeholder(dtypes.int64, [None, rank], name=prefix + "indices")
    return SparseTensor(indices, values, dense_shape)


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(f"Sparse dtype: requested = {dtypes.as_dtype(dtype).name}, actual = {value.dtype.name}")
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)


# ---------------------------------------------------------------------------
# Products and reductions


def _matmul_operands(indices, values, shape, b, adjoint_a, adjoint_b):
    """The product's operands as ``out[rows[i]] += values[i] * b[cols[i]]``: the sparse
    operand's entries (conjugated for ``adjoint_a``, as TF's kernel does) with their output
    row and their row of the dense operand, and that operand (conjugate-transposed for
    ``adjoint_b``)."""
    rows, cols = (indices[:, 1], indices[:, 0]) if adjoint_a else (indices[:, 0], indices[:, 1])
    m = int(shape[1] if adjoint_a else shape[0])
    if adjoint_a:
        values = np.conj(values)
    b = np.conj(b).T if adjoint_b else b
    for name, got, bound in (("k", cols, b.shape[0]), ("m", rows, m)):  # (TF's messages)
        bad = np.flatnonzero((got < 0) | (got >= bound))
        if len(bad):
            column = 0 if (name == "m") != bool(adjoint_a) else 1
            raise errors.InvalidArgumentError(None, None, f"SparseTensorDenseMatMul: {name} ({int(got[bad[0]])}) "
                                                          f"from index[{int(bad[0])},{column}] out of bounds "
                                                          f"(>={bound})")
    return rows, cols, values, m, b


def _sparse_dense_matmul_shape(op):
    _, _, shape, b = op.inputs
    dims = constant_value(shape)
    a_rows = None if dims is None else int(dims[1] if op._attr("adjoint_a") else dims[0])
    a_inner = None if dims is None else int(dims[0] if op._attr("adjoint_a") else dims[1])
    b_inner, b_cols = (None, None) if b.shape.ndims != 2 else (b.shape.as_list()[::-1] if op._attr("adjoint_b")
                                                                  else b.shape.as_list())
    if a_inner is not None and b_inner is not None and a_inner != b_inner:
        raise ValueError(f"Dimensions must be equal, but are {a_inner} and {b_inner} (the inner dimensions of "
                         f"the sparse and the dense operand)")
    return TensorShape([a_rows, b_cols])


@register_op("SparseTensorDenseMatMul", shape=_sparse_dense_matmul_shape,
             dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _sparse_dense_matmul_kernel(xp, indices, values, shape, b, *, adjoint_a, adjoint_b):
    rows, cols, values, m, b = _matmul_operands(indices, values, shape, b, adjoint_a, adjoint_b)
    k = int(shape[0] if adjoint_a else shape[1])
    if b.shape[0] != k:
        raise errors.InvalidArgumentError(None, None, f"SparseTensorDenseMatMul: cannot multiply A with inner "
                                                      f"dimension {k} by B with {b.shape[0]} rows")
    products = b.take(cols, axis=0).astype(np.result_type(values, b), copy=False)
    products *= values[:, None]
    out = np.zeros((m, b.shape[1]), dtype=products.dtype)
    add_rows_at(out, rows, products)
    return out


@register_op("SparseTensorDenseMatMulValuesGrad", shape=lambda op: op.inputs[1].shape,
             dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _sparse_dense_matmul_values_grad_kernel(xp, indices, values, shape, b, grad, *, adjoint_a, adjoint_b):
    """The gradient for the sparse operand's values: ``grad @ adjoint(b)`` at its entries
    only, conjugated for ``adjoint_a`` (TF's convention for complex gradients)."""
    rows, cols, _, _, b = _matmul_operands(indices, values, shape, b, adjoint_a, adjoint_b)
    d_values = np.einsum("ij,ij->i", grad.take(rows, axis=0), np.conj(b.take(cols, axis=0)))
    return (np.conj(d_values) if adjoint_a else d_values).astype(values.dtype, copy=False)


@register_gradient("SparseTensorDenseMatMul")
def _sparse_dense_matmul_grad(op, grad):
    indices, values, shape, b = op.inputs
    adjoint_a, adjoint_b = op._attr("adjoint_a"), op._attr("adjoint_b")
    # (two ops, so that a step that needs only one of them runs only it: the values' gradient
    # is not wanted where the sparse operand is an input, as a graph network's features are)
    d_values = make_tensor("SparseTensorDenseMatMulValuesGrad", [indices, values, shape, b, grad],
                           {"adjoint_a": adjoint_a, "adjoint_b": adjoint_b})
    d_b = make_tensor("SparseTensorDenseMatMul", [indices, values, shape, grad],
                      {"adjoint_a": not adjoint_a, "adjoint_b": False})
    if adjoint_b:
        d_b = matrix_transpose(d_b, conjugate=True)
    return None, d_values, None, d_b


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``sp_a @ b`` with sp_a sparse (rank 2) and b dense, differentiable in sp_a's values and b."""
    sp = as_sparse_tensor(sp_a)
    b = ops.convert_to_tensor(b, dtype=sp.dtype.base_dtype)
    return make_tensor("SparseTensorDenseMatMul", [sp.indices, sp.values, sp.dense_shape, b],
                       {"adjoint_a": bool(adjoint_a), "adjoint_b": bool(adjoint_b)}, name or "SparseTensorDenseMatMul")


def _reduce_axes(axes, rank):
    if axes is None:
        return tuple(range(rank))
    axes = [int(a) for a in np.reshape(axes, -1)]
    for a in axes:
        if not -rank <= a < rank:
            raise errors.InvalidArgumentError(None, None, f"Invalid reduction dimension {a}, for input with {rank} "
                                                          "dimensions.")
    return tuple(sorted({a % rank for a in axes}))


def _sparse_reduce(indices, values, shape, axes, keep_dims, ufunc, identity):
    shape = tuple(int(d) for d in shape)
    axes = _reduce_axes(axes, len(shape))
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    out = np.full(out_shape, identity, dtype=values.dtype)
    where = tuple(np.zeros(len(indices), np.int64) if i in axes else indices[:, i] for i in range(len(shape)))
    ufunc.at(out, where, values)
    return out if keep_dims else out.reshape([d for i, d in enumerate(shape) if i not in axes])


def _reduce_shape(op):
    return TensorShape(None)


@register_op("SparseReduceSum", shape=_reduce_shape, dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _sparse_reduce_sum_kernel(xp, indices, values, shape, axes, *, keep_dims, all_axes):
    return _sparse_reduce(indices, values, shape, None if all_axes else axes, keep_dims, np.add, 0)


@register_op("SparseReduceMax", shape=_reduce_shape, dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _sparse_reduce_max_kernel(xp, indices, values, shape, axes, *, keep_dims, all_axes):
    # The entries not present are zeros, so they take part in the max where a slice has any.
    counts = _sparse_reduce(indices, np.ones(len(values), np.int64), shape, None if all_axes else axes, True,
                            np.add, 0)
    size = np.prod([int(d) for d in shape]) // max(counts.size, 1)
    low = np.array(-np.inf if values.dtype.kind == "f" else np.iinfo(values.dtype).min, dtype=values.dtype)
    out = _sparse_reduce(indices, values, shape, None if all_axes else axes, True, np.maximum, low)
    out = np.where(counts < size, np.maximum(out, 0), out).astype(values.dtype)
    return out if keep_dims else out.reshape([d for i, d in enumerate(int(s) for s in shape)
                                              if i not in _reduce_axes(None if all_axes else axes, len(shape))])


not_differentiable("SparseReduceMax")


@register_gradient("SparseReduceSum")
def _sparse_reduce_sum_grad(op, grad):
    indices, _, shape, axes = op.inputs
    keep = make_tensor("SparseReduceSumKeepShape", [shape, axes], {"all_axes": op._attr("all_axes")})
    spread = array_ops.broadcast_to(array_ops.reshape(grad, keep), shape)
    return None, gather_nd(spread, indices), None, None


@register_op("SparseReduceSumKeepShape", shape=lambda op: TensorShape([None]), dtype=lambda op: dtypes.int64)
def _keep_shape_kernel(xp, shape, axes, *, all_axes):
    axes = _reduce_axes(None if all_axes else axes, len(shape))
    return np.array([1 if i in axes else int(d) for i, d in enumerate(shape)], np.int64)


not_differentiable("SparseReduceSumKeepShape")


def _reduction(op_type, sp_input, axis, keep_dims, name, reduction_axes=None, keepdims=None):
    sp = as_sparse_tensor(sp_input)
    axis = axis if axis is not None else reduction_axes
    keep_dims = bool(keepdims if keepdims is not None else keep_dims)
    axes = ops.convert_to_tensor(np.zeros(0, np.int32) if axis is None else axis, dtype=dtypes.int32)
    return make_tensor(op_type, [sp.indices, sp.values, sp.dense_shape, axes],
                       {"keep_dims": keep_dims, "all_axes": axis is None}, name or op_type)


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None, name=None):
    """The sum of a SparseTensor's entries along ``axis`` (all axes when None), as a dense tensor."""
    return _reduction("SparseReduceSum", sp_input, axis, keep_dims, name, reduction_axes, keepdims)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None, name=None):
    """The max along ``axis``, counting the absent entries as zeros (as TF's SparseReduceMax)."""
    return _reduction("SparseReduceMax", sp_input, axis, keep_dims, name, reduction_axes, keepdims)


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None, name=None):
    return from_dense(sparse_reduce_sum(sp_input, axis, keepdims, reduction_axes, keep_dims), name)


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None, name=None):
    return from_dense(sparse_reduce_max(sp_input, axis, keepdims, reduction_axes, keep_dims), name)


# ---------------------------------------------------------------------------
# Reordering, reshaping and combining


@register_op("SparseReorder", list_output=True, shape=lambda op: [op.inputs[0].shape, op.inputs[1].shape],
             dtype=lambda op: [dtypes.int64, op.inputs[1].dtype.base_dtype])
def _sparse_reorder_kernel(xp, indices, values, shape):
    order = _order(indices, shape)
    return indices[order], values[order]


@register_gradient("SparseReorder")
def _sparse_reorder_grad(op, grad_indices, grad_values):
    """Each value's gradient is that of the place the reorder moved it to."""
    indices, _, shape = op.inputs
    positions = math_ops.range_(array_ops.shape(indices, out_type=dtypes.int64)[0])
    moved = make_op("SparseReorder", [indices, positions, shape], None, "SparseReorder").outputs[1]
    return None, slicing_ops.gather(grad_values, array_ops.invert_permutation(moved)), None


def sparse_reorder(sp_input, name=None):
    """The same SparseTensor with its entries in row-major order (what SparseToDense validates)."""
    sp = as_sparse_tensor(sp_input)
    ind, val = make_op("SparseReorder", [sp.indices, sp.values, sp.dense_shape], None, name or "SparseReorder").outputs
    return SparseTensor(ind, val, sp.dense_shape)


def _sparse_reshape_shape(op):
    indices, _, new_shape = op.inputs
    rank = new_shape.shape[0].value if new_shape.shape.ndims == 1 else None
    count = indices.shape[0].value if indices.shape.ndims == 2 else None
    return [TensorShape([count, rank]), TensorShape([rank])]


@register_op("SparseReshape", list_output=True, shape=_sparse_reshape_shape,
             dtype=lambda op: [dtypes.int64, dtypes.int64])
def _sparse_reshape_kernel(xp, indices, shape, new_shape):
    shape = [int(d) for d in shape]
    new_shape = [int(d) for d in new_shape]
    total = int(np.prod(shape))
    inferred = [i for i, d in enumerate(new_shape) if d == -1]
    if len(inferred) > 1:
        raise errors.InvalidArgumentError(None, None, f"SparseReshape: only one output dimension may be -1, not both "
                                                      f"{inferred[0]} and {inferred[1]}")
    known = int(np.prod([d for d in new_shape if d != -1]))
    if inferred:
        if not known or total % known:
            raise errors.InvalidArgumentError(None, None, f"SparseReshape: Input to reshape is a tensor with {total} "
                                                          f"dense values, but the requested shape requires a multiple "
                                                          f"of {known}")
        new_shape[inferred[0]] = total // known
    elif known != total:
        raise errors.InvalidArgumentError(None, None, f"SparseReshape: Input to reshape is a tensor with {total} dense "
                                                      f"values, but the requested shape has {known} (from shape "
                                                      f"{shape} to {new_shape})")
    flat = np.ravel_multi_index(tuple(indices.T), shape) if len(indices) else np.zeros(0, np.int64)
    new = np.stack(np.unravel_index(flat, new_shape), axis=1) if len(indices) else np.zeros((0, len(new_shape)))
    return new.astype(np.int64), np.array(new_shape, np.int64)


not_differentiable("SparseReshape")


def sparse_reshape(sp_input, shape, name=None):
    """``sp_input`` with its dense shape changed to ``shape`` (at most one -1, inferred), the
    entries in the same row-major order; what is known when the graph is built is checked then."""
    sp = as_sparse_tensor(sp_input)
    shape = ops.convert_to_tensor(shape)
    if shape.dtype.base_dtype != dtypes.int64:  # (tf.shape's int32 too)
        shape = math_ops.cast(shape, dtypes.int64)
    ind, new_shape = make_op("SparseReshape", [sp.indices, sp.dense_shape, shape], None,
                             name or "SparseReshape").outputs
    wanted = constant_value(shape)
    static = None
    if wanted is not None:
        wanted = [int(d) for d in wanted]
        if wanted.count(-1) > 1:
            raise ValueError(f"At most one dimension can be inferred (-1). Found: {wanted}")
        static = TensorShape([None if d == -1 else d for d in wanted])
        if sp.shape.is_fully_defined():
            size = int(np.prod(sp.shape.as_list()))
            known = int(np.prod([d for d in wanted if d != -1]))
            if -1 in wanted and known and not size % known:
                static = TensorShape([size // known if d == -1 else d for d in wanted])
            if not static.is_fully_defined() or static.num_elements() != size:
                raise ValueError(f"Cannot reshape a tensor with {size} elements to shape {wanted}"
                                 + ("" if -1 in wanted else f" ({known} elements)"))
    out = SparseTensor(ind, array_ops.identity(sp.values), new_shape)
    out._static_shape = static
    return out


def sparse_retain(sp_input, to_retain):
    """The entries where the boolean vector ``to_retain`` is True (a vector whose rank is known
    only when the step runs too: dropout's mask over a fed number of values)."""
    sp = as_sparse_tensor(sp_input)
    to_retain = ops.convert_to_tensor(to_retain, dtype=dtypes.bool)
    to_retain.shape.assert_has_rank(1)
    if sp.values.shape.ndims is not None:
        sp.values.shape[:1].assert_is_compatible_with(to_retain.shape)
    kept = array_ops.reshape(math_ops.where(to_retain), [-1])
    return SparseTensor(slicing_ops.gather(sp.indices, kept), slicing_ops.gather(sp.values, kept),
                        array_ops.identity(sp.dense_shape))


@register_op("SparseTranspose", shape=_sp_shapes(), dtype=_sp_dtypes())
def _sparse_transpose_kernel(xp, indices, values, shape, perm):
    perm = [int(p) for p in perm]
    if sorted(perm) != list(range(len(shape))):
        raise errors.InvalidArgumentError(None, None, f"SparseTranspose: {perm} is not a permutation of "
                                                      f"{len(shape)} axes")
    ind, new_shape = indices[:, perm], np.asarray(shape)[perm]
    order = _order(ind, new_shape)
    return ind[order], values[order], new_shape.astype(np.int64)


not_differentiable("SparseTranspose")


def sparse_transpose(sp_input, perm=None, name=None):
    sp = as_sparse_tensor(sp_input)
    if perm is None:
        rank = sp.dense_shape.shape[0].value
        if rank is None:
            raise ValueError("sparse_transpose without perm needs the SparseTensor's rank known")
        perm = list(range(rank - 1, -1, -1))
    perm = ops.convert_to_tensor(perm, dtype=dtypes.int32)
    out = _three("SparseTranspose", [sp.indices, sp.values, sp.dense_shape, perm], None, name)
    known = constant_value(perm)
    if known is not None and sp.shape.ndims == len(known):  # (the dense shape, permuted, where it is known)
        dims = sp.shape.as_list()
        out._static_shape = TensorShape([dims[int(p)] for p in known])
    return out


@register_op("SparseAdd", shape=_sp_shapes(), dtype=_sp_dtypes())
def _sparse_add_kernel(xp, a_ind, a_val, a_shape, b_ind, b_val, b_shape, thresh):
    if list(a_shape) != list(b_shape):
        raise errors.InvalidArgumentError(None, None, f"SparseAdd: operands' shapes do not match: "
                                                      f"{list(a_shape)} vs. {list(b_shape)}")
    indices = np.concatenate([a_ind.reshape(-1, len(a_shape)), b_ind.reshape(-1, len(a_shape))])
    values = np.concatenate([a_val, b_val])
    if not len(indices):
        return indices.astype(np.int64), values, a_shape
    keys, first, position = np.unique(_row_keys(a_shape, indices), return_index=True, return_inverse=True)
    sums = np.zeros(len(keys), dtype=values.dtype)
    np.add.at(sums, position.reshape(-1), values)
    keep = np.abs(sums) >= thresh if np.ndim(thresh) == 0 and thresh > 0 else np.ones(len(keys), bool)
    return indices[first][keep].astype(np.int64), sums[keep], a_shape


@register_op("SparseAddGrad", list_output=True, shape=lambda op: [TensorShape([op.inputs[1].shape[0]]),
                                                                   TensorShape([op.inputs[2].shape[0]])],
             dtype=lambda op: [op.inputs[0].dtype.base_dtype] * 2)
def _sparse_add_grad_kernel(xp, grad, a_ind, b_ind, sum_ind):
    """The gradient of each operand's values: the sum's at its index, 0 where the sum dropped it."""
    rank = max(a_ind.shape[1], b_ind.shape[1], sum_ind.shape[1]) if a_ind.ndim == 2 else 0
    rows = [np.asarray(i).reshape(-1, rank) for i in (a_ind, b_ind, sum_ind)]
    keys = _row_keys([0] * rank, np.concatenate(rows))
    a_keys, b_keys, sum_keys = np.split(keys, np.cumsum([len(rows[0]), len(rows[1])]))
    order = np.argsort(sum_keys, kind="stable")
    out = []
    for k in (a_keys, b_keys):
        at = np.clip(np.searchsorted(sum_keys[order], k), 0, max(len(sum_keys) - 1, 0))
        found = order[at] if len(sum_keys) else np.zeros(len(k), np.int64)
        match = sum_keys[found] == k if len(sum_keys) else np.zeros(len(k), bool)
        out.append(np.where(match, grad[found] if len(sum_keys) else 0, 0).astype(grad.dtype))
    return tuple(out)


not_differentiable("SparseAddGrad")


@register_gradient("SparseAdd")
def _sparse_add_grad(op, grad_indices, grad_values, grad_shape):
    if grad_values is None:
        return (None,) * 7
    da, db = make_op("SparseAddGrad", [grad_values, op.inputs[0], op.inputs[3], op.outputs[0]], None,
                     "SparseAddGrad").outputs
    return None, da, None, None, db, None, None


def sparse_add(a, b, thresh=0, threshold=None):
    """sparse + sparse is sparse (entries summed; sums under ``thresh`` in magnitude dropped);
    sparse + dense is dense."""
    thresh = threshold if threshold is not None else thresh
    if _is_sparse(a) and _is_sparse(b):
        a, b = as_sparse_tensor(a), as_sparse_tensor(b)
        out = _three("SparseAdd", [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape,
                                   ops.convert_to_tensor(thresh, dtype=a.dtype.base_dtype)], None, "SparseAdd")
        if a.shape.is_compatible_with(b.shape):
            out._static_shape = a.shape.merge_with(b.shape)
        return out
    sp, dense = (a, b) if _is_sparse(a) else (b, a)
    sp = as_sparse_tensor(sp)
    dense = ops.convert_to_tensor(dense, dtype=sp.dtype.base_dtype)
    return dense + scatter_nd(sp.indices, sp.values, array_ops.shape(dense, out_type=dtypes.int64))


def _sparse_concat_shape(op):
    """TF's: the entries' count where every input's is known, the rank every input agrees on
    (a ValueError where two differ)."""
    n = op._attr("N")
    inds, vals, shapes = op.inputs[:n], op.inputs[n:2 * n], op.inputs[2 * n:]
    rank, count = None, 0
    for ind, val, shape in zip(inds, vals, shapes):
        for r in (ind.shape[1].value if ind.shape.ndims == 2 else None,
                  shape.shape[0].value if shape.shape.ndims == 1 else None):
            if r is not None and rank is not None and r != rank:
                raise ValueError(f"SparseConcat '{op.name}': the inputs must have one rank, got {rank} and {r}")
            rank = r if r is not None else rank
        rows = [d for d in (ind.shape[0].value if ind.shape.ndims == 2 else None,
                            val.shape[0].value if val.shape.ndims == 1 else None) if d is not None]
        count = None if count is None or not rows else count + rows[0]
    return [TensorShape([count, rank]), TensorShape([count]), TensorShape([rank])]


@register_op("SparseConcat", shape=_sparse_concat_shape,
             dtype=lambda op: [dtypes.int64, op.inputs[op._attr("N")].dtype.base_dtype, dtypes.int64])
def _sparse_concat_kernel(xp, *parts, N, concat_dim, expand_nonconcat_dim):  # noqa: N803
    inds, vals, shapes = parts[:N], parts[N:2 * N], [np.array(s, np.int64) for s in parts[2 * N:]]
    rank = len(shapes[0])
    axis = concat_dim % rank
    if expand_nonconcat_dim:
        biggest = np.max(shapes, axis=0)
        shapes = [np.where(np.arange(rank) == axis, s, biggest) for s in shapes]
    for s in shapes[1:]:
        if (np.delete(s, axis) != np.delete(shapes[0], axis)).any():
            raise errors.InvalidArgumentError(None, None, f"SparseConcat: Input shapes must match: shapes "
                                                          f"{[x.tolist() for x in shapes]} differ outside dimension "
                                                          f"{axis}")
    offsets = np.concatenate([[0], np.cumsum([s[axis] for s in shapes])])
    moved = []
    for ind, off in zip(inds, offsets):
        ind = np.array(ind, np.int64).reshape(-1, rank)
        ind[:, axis] += off
        moved.append(ind)
    indices, values = np.concatenate(moved), np.concatenate(vals)
    shape = shapes[0].copy()
    shape[axis] = offsets[-1]
    order = _order(indices, shape)
    return indices[order], values[order], shape


not_differentiable("SparseConcat")


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None, expand_nonconcat_dims=None):
    axis = concat_dim if concat_dim is not None else axis
    expand = bool(expand_nonconcat_dims if expand_nonconcat_dims is not None else expand_nonconcat_dim)
    parts = [as_sparse_tensor(s) for s in sp_inputs]
    if len(parts) == 1:  # (one input is the result, whatever the axis: as TF's)
        return parts[0]
    return _three("SparseConcat", [p.indices for p in parts] + [p.values for p in parts] +
                  [p.dense_shape for p in parts], {"N": len(parts), "concat_dim": int(axis),
                                                   "expand_nonconcat_dim": expand}, name)


@register_op("SparseFillEmptyRows", list_output=True,
             shape=lambda op: [TensorShape([None, None]), TensorShape([None]), TensorShape([None]), TensorShape([None])],
             dtype=lambda op: [dtypes.int64, op.inputs[1].dtype.base_dtype, dtypes.bool, dtypes.int64])
def _fill_empty_rows_kernel(xp, indices, values, shape, default_value):
    rows = int(shape[0])
    empty = np.ones(rows, bool)
    empty[indices[:, 0]] = False
    extra = np.zeros((int(empty.sum()), len(shape)), np.int64)
    extra[:, 0] = np.flatnonzero(empty)
    all_ind = np.concatenate([indices.astype(np.int64), extra])
    all_val = np.concatenate([values, np.full(len(extra), default_value, dtype=values.dtype)])
    order = _order(all_ind, shape)
    reverse = np.argsort(order)[:len(indices)]
    return all_ind[order], all_val[order], empty, reverse.astype(np.int64)


@register_gradient("SparseFillEmptyRows")
def _fill_empty_rows_grad(op, grad_indices, grad_values, grad_empty, grad_reverse):
    """Each input value's gradient is its output's (where reverse_index_map put it); the default
    value's is the sum over the entries it filled."""
    if grad_values is None:
        return None, None, None, None
    d_values = slicing_ops.gather(grad_values, op.outputs[3])
    d_default = reduction_ops.reduce_sum(grad_values) - reduction_ops.reduce_sum(d_values)
    return None, d_values, None, d_default


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """(SparseTensor with one ``default_value`` entry in column 0 of each empty row, the empty-row indicator)."""
    sp = as_sparse_tensor(sp_input)
    ind, val, empty, _ = make_op("SparseFillEmptyRows", [
        sp.indices, sp.values, sp.dense_shape, ops.convert_to_tensor(default_value, dtype=sp.dtype.base_dtype)],
        None, name or "SparseFillEmptyRows").outputs
    return SparseTensor(ind, val, sp.dense_shape), empty


@register_op("SparseSoftmax", shape=lambda op: op.inputs[1].shape, dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _sparse_softmax_kernel(xp, indices, values, shape):
    groups = np.ravel_multi_index(tuple(indices[:, :-1].T), tuple(int(d) for d in shape[:-1])) \
        if len(indices) else np.zeros(0, np.int64)
    top = np.full(int(np.prod(shape[:-1])), -np.inf)
    np.maximum.at(top, groups, values)
    e = np.exp(values - top[groups])
    total = np.zeros_like(top)
    np.add.at(total, groups, e)
    return (e / total[groups]).astype(values.dtype)


@register_gradient("SparseSoftmax")
def _sparse_softmax_grad(op, grad):
    """As a dense softmax's, within each innermost row of entries: y * (g - sum over the row of y g)."""
    indices, _, shape = op.inputs
    out = op.outputs[0]
    row_sums = sparse_reduce_sum(SparseTensor(indices, out * grad, shape), -1, keepdims=True)
    rows = slicing_ops.slice(indices, [0, 0], array_ops.stack([-1, array_ops.size(shape) - 1]))
    per_entry = array_ops.reshape(gather_nd(row_sums, rows), [-1])
    return None, out * (grad - per_entry), None


def sparse_softmax(sp_input, name=None):
    """Softmax over the entries present in each innermost row (absent entries take no part)."""
    sp = as_sparse_tensor(sp_input)
    values = make_tensor("SparseSoftmax", [sp.indices, sp.values, sp.dense_shape], None, name or "SparseSoftmax")
    return SparseTensor(sp.indices, values, sp.dense_shape)


@register_op("SparseSlice", shape=_sp_shapes(), dtype=_sp_dtypes())
def _sparse_slice_kernel(xp, indices, values, shape, start, size):
    start = np.asarray(start, np.int64)
    end = np.minimum(start + np.asarray(size, np.int64), np.asarray(shape, np.int64))
    keep = ((indices >= start) & (indices < end)).all(axis=1) if len(indices) else np.zeros(0, bool)
    return (indices[keep] - start).astype(np.int64), values[keep], np.maximum(end - start, 0).astype(np.int64)


not_differentiable("SparseSlice")


def sparse_slice(sp_input, start, size, name=None):
    sp = as_sparse_tensor(sp_input)
    return _three("SparseSlice", [sp.indices, sp.values, sp.dense_shape,
                                  ops.convert_to_tensor(start, dtype=dtypes.int64),
                                  ops.convert_to_tensor(size, dtype=dtypes.int64)], None, name)


def sparse_split(keyword_required=None, sp_input=None, num_split=None, axis=None, name=None, split_dim=None):
    """``num_split`` SparseTensors along ``axis``; the first ``size % num_split`` parts are one larger."""
    if keyword_required is not None:
        raise ValueError("sparse_split takes keyword arguments only (sp_input=, num_split=, axis=)")
    axis = split_dim if split_dim is not None else axis
    sp = as_sparse_tensor(sp_input)
    with ops.name_scope(name, "SparseSplit"):
        rank = array_ops.size(sp.dense_shape)
        dim = sp.dense_shape[axis]
        base, extra = dim // num_split, dim % num_split
        parts = []
        for i in range(num_split):
            offset = i * base + math_ops.minimum(ops.convert_to_tensor(i, dtypes.int64), extra)
            length = base + math_ops.cast(math_ops.less(ops.convert_to_tensor(i, dtypes.int64), extra), dtypes.int64)
            one_hot = math_ops.equal(math_ops.range_(rank), axis)
            start = math_ops.where(one_hot, array_ops.fill([rank], offset), array_ops.zeros_like(sp.dense_shape))
            size = math_ops.where(one_hot, array_ops.fill([rank], length), sp.dense_shape)
            parts.append(sparse_slice(sp, start, size))
        return parts


@register_op("SparseSparseMaximum", list_output=True,
             shape=lambda op: [TensorShape([None, None]), TensorShape([None])],
             dtype=lambda op: [dtypes.int64, op.inputs[1].dtype.base_dtype])
def _sparse_maximum_kernel(xp, a_ind, a_val, a_shape, b_ind, b_val, b_shape, *, minimum):
    return _union_apply(a_ind, a_val, a_shape, b_ind, b_val, b_shape, np.minimum if minimum else np.maximum)


def _union_apply(a_ind, a_val, a_shape, b_ind, b_val, b_shape, fn):
    a_dims, b_dims = [int(d) for d in a_shape], [int(d) for d in b_shape]
    if len(a_dims) != len(b_dims):
        raise errors.InvalidArgumentError(None, None, f"Operands do not have the same ranks; got shapes: {a_dims} "
                                                      f"and {b_dims}")
    if a_dims != b_dims:
        raise errors.InvalidArgumentError(None, None, f"Operands' shapes do not match: got {a_dims} and {b_dims}")
    shape = tuple(a_dims)
    fa = np.ravel_multi_index(tuple(a_ind.T), shape) if len(a_ind) else np.zeros(0, np.int64)
    fb = np.ravel_multi_index(tuple(b_ind.T), shape) if len(b_ind) else np.zeros(0, np.int64)
    keys = np.union1d(fa, fb)
    left = np.zeros(len(keys), a_val.dtype)
    right = np.zeros(len(keys), a_val.dtype)
    left[np.searchsorted(keys, fa)] = a_val
    right[np.searchsorted(keys, fb)] = b_val
    out = np.stack(np.unravel_index(keys, shape), axis=1) if len(keys) else np.zeros((0, len(shape)))
    return out.astype(np.int64), fn(left, right)


not_differentiable("SparseSparseMaximum")


def _binary_sparse(sp_a, sp_b, minimum, name):
    a, b = as_sparse_tensor(sp_a), as_sparse_tensor(sp_b)
    ind, val = make_op("SparseSparseMaximum", [a.indices, a.values, a.dense_shape, b.indices, b.values, b.dense_shape],
                       {"minimum": minimum}, name or ("SparseSparseMinimum" if minimum else "SparseSparseMaximum")
                       ).outputs
    return SparseTensor(ind, val, a.dense_shape)


def sparse_maximum(sp_a, sp_b, name=None):
    """Entry-wise max of two SparseTensors of one shape (absent entries count as zero)."""
    return _binary_sparse(sp_a, sp_b, False, name)


def sparse_minimum(sp_a, sp_b, name=None):
    return _binary_sparse(sp_a, sp_b, True, name)


@register_op("SparseToIndicator", shape=lambda op: TensorShape(None), dtype=lambda op: dtypes.bool)
def _sparse_to_indicator_kernel(xp, indices, values, shape, vocab_size):
    out = np.zeros([int(d) for d in shape[:-1]] + [int(vocab_size)], bool)
    if (values < 0).any() or (values >= vocab_size).any():
        raise errors.InvalidArgumentError(None, None, f"sparse_to_indicator: ids must lie in [0, {int(vocab_size)}), "
                                                      f"got {values.tolist()}")
    out[tuple(indices[:, :-1].T) + (values,)] = True
    return out


not_differentiable("SparseToIndicator")


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor, True at ``[..., id]`` for each id in each innermost row of ``sp_input``."""
    sp = as_sparse_tensor(sp_input)
    return make_tensor("SparseToIndicator", [sp.indices, math_ops.cast(sp.values, dtypes.int64), sp.dense_shape,
                                             ops.convert_to_tensor(vocab_size, dtype=dtypes.int64)], None,
                       name or "SparseToIndicator")


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """A SparseTensor whose last coordinate is the id: ``[..., sp_ids[..., k]] = sp_values[..., k]``.
    With lists of ``sp_ids`` and ``vocab_size``, one coordinate per id tensor, in order."""
    several = isinstance(sp_ids, (list, tuple)) and not isinstance(sp_ids, SparseTensorValue)
    if several != isinstance(vocab_size, (list, tuple)) or (several and len(sp_ids) != len(vocab_size)):
        raise ValueError("sp_ids and vocab_size must both be single, or lists of the same length")
    id_list = [as_sparse_tensor(i) for i in (sp_ids if several else [sp_ids])]
    sizes = list(vocab_size) if several else [vocab_size]
    ids, values = id_list[0], as_sparse_tensor(sp_values)
    with ops.name_scope(name, "SparseMerge"):
        rows = slicing_ops.slice(ids.indices, [0, 0], [-1, array_ops.size(ids.dense_shape) - 1])
        columns = [array_ops.expand_dims(math_ops.cast(i.values, dtypes.int64), 1) for i in id_list]
        indices = slicing_ops.concat([rows] + columns, 1)
        outer = slicing_ops.slice(ids.dense_shape, [0], [array_ops.size(ids.dense_shape) - 1])
        shape = slicing_ops.concat([outer] + [array_ops.reshape(ops.convert_to_tensor(size, dtypes.int64), [1])
                                              for size in sizes], 0)
        merged = SparseTensor(indices, values.values, shape)
        return merged if already_sorted else sparse_reorder(merged)


def sparse_reset_shape(sp_input, new_shape=None):
    """The same entries with ``new_shape`` (checked to hold them), or the tightest shape when None."""
    sp = as_sparse_tensor(sp_input)
    if new_shape is None:  # (0 in every dimension for no entries)
        tight = math_ops.maximum(reduction_ops.reduce_max(sp.indices, 0) + 1, 0)
        return SparseTensor(sp.indices, sp.values, tight)
    new_shape = ops.convert_to_tensor(new_shape)
    if new_shape.dtype.base_dtype != dtypes.int64:
        new_shape = math_ops.cast(new_shape, dtypes.int64)
    new_shape.shape.assert_has_rank(1)
    rank = sp.dense_shape.shape[0] if sp.dense_shape.shape.ndims == 1 else None
    if rank is not None and not new_shape.shape[0].is_compatible_with(rank):
        raise ValueError(f"sparse_reset_shape: new_shape has {new_shape.shape[0].value} dimensions, and sp_input "
                         f"{rank.value}")
    wanted = constant_value(new_shape)
    if wanted is not None and sp.shape.is_fully_defined():
        if not np.all(np.array(sp.shape.as_list()) <= wanted):
            raise ValueError(f"Requested new_shape should have dimension sizes >= sp_input.shape.  Found new_shape "
                             f"({np.asarray(wanted).tolist()}), sp_input.shape ({sp.shape.as_list()}).")
        return SparseTensor(array_ops.identity(sp.indices), sp.values, new_shape)
    same_rank = assert_equal(array_ops.shape(sp.dense_shape), array_ops.shape(new_shape),
                             message="sparse_reset_shape: new_shape must have the rank of sp_input")
    with ops.control_dependencies([same_rank]):
        check = assert_less_equal(sp.dense_shape, new_shape, message="sparse_reset_shape: new_shape is too small")
    with ops.control_dependencies([check]):
        return SparseTensor(array_ops.identity(sp.indices), sp.values, array_ops.identity(new_shape))


def sparse_mask(a, mask_indices, name=None):
    """The rows of IndexedSlices ``a`` whose indices are not in ``mask_indices``."""
    with ops.name_scope(name, "sparse_mask"):
        kept, _ = setdiff1d(a.indices, mask_indices)
        keep = reduction_ops.reduce_any(math_ops.equal(array_ops.expand_dims(a.indices, 1), kept[None, :]), 1)
        return IndexedSlices(boolean_mask(a.values, keep), boolean_mask(a.indices, keep), a.dense_shape)


# ---------------------------------------------------------------------------
# Segment reductions over selected rows


def _sparse_segment(data, indices, segment_ids, num_segments, name, kind):
    with ops.name_scope(name, f"SparseSegment{kind}"):
        rows = slicing_ops.gather(data, indices)
        if num_segments is None:
            total = segment_ops.segment_sum(rows, segment_ids)
            count = segment_ops.segment_sum(array_ops.ones_like(math_ops.cast(segment_ids, data.dtype.base_dtype)),
                                            segment_ids)
        else:
            total = segment_ops.unsorted_segment_sum(rows, segment_ids, num_segments)
            count = segment_ops.unsorted_segment_sum(
                array_ops.ones_like(math_ops.cast(segment_ids, data.dtype.base_dtype)), segment_ids, num_segments)
        if kind == "Sum":
            return total
        scale = math_ops.maximum(count, 1) if kind == "Mean" else math_ops.sqrt(math_ops.maximum(count, 1))
        extra = array_ops.rank(total) - 1
        scale = array_ops.reshape(scale, slicing_ops.concat([array_ops.shape(scale), array_ops.ones([extra],
                                                                                                    dtypes.int32)], 0))
        return total / scale


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None):
    """``segment_sum(gather(data, indices), segment_ids)``."""
    return _sparse_segment(ops.convert_to_tensor(data), indices, segment_ids, num_segments, name, "Sum")


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None):
    return _sparse_segment(ops.convert_to_tensor(data), indices, segment_ids, num_segments, name, "Mean")


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None):
    return _sparse_segment(ops.convert_to_tensor(data), indices, segment_ids, num_segments, name, "SqrtN")


# ---------------------------------------------------------------------------
# Strings to sparse, and serialization


@register_op("StringSplit", shape=lambda op: [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])],
             dtype=lambda op: [dtypes.int64, dtypes.string, dtypes.int64])
def _string_split_kernel(xp, source, delimiter, *, skip_empty):
    delimiter = np.asarray(delimiter, dtype=object).item()
    delimiter = delimiter if isinstance(delimiter, bytes) else str(delimiter).encode()
    indices, values, widest = [], [], 0
    for row, text in enumerate(np.asarray(source, dtype=object).reshape(-1)):
        text = text if isinstance(text, bytes) else str(text).encode()
        pieces = _split_any(text, delimiter) if delimiter and text else [text[i:i + 1] for i in range(len(text))]
        if skip_empty:
            pieces = [p for p in pieces if p]
        indices.extend([row, k] for k in range(len(pieces)))
        values.extend(pieces)
        widest = max(widest, len(pieces))
    return (np.array(indices, np.int64).reshape(-1, 2), np.array(values, dtype=object),
            np.array([np.size(source), widest], np.int64))


def _split_any(text: bytes, delimiters: bytes):
    """Splits at every byte of ``delimiters`` (TF 1.x's string_split treats the delimiter as a set)."""
    pieces, start = [], 0
    for i, byte in enumerate(text):
        if byte in delimiters:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return pieces


not_differentiable("StringSplit")


@register_op("StringSplitV2", shape=lambda op: [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])],
             dtype=lambda op: [dtypes.int64, dtypes.string, dtypes.int64])
def _string_split_v2_kernel(xp, source, sep, *, maxsplit):
    sep = _split_text(np.asarray(sep, dtype=object).item()) or None
    indices, values, widest = [], [], 0
    for row, text in enumerate(np.asarray(source, dtype=object).reshape(-1)):
        pieces = _split_text(text).split(sep, maxsplit)  # (Python's str.split: TensorFlow's semantics)
        indices.extend([row, k] for k in range(len(pieces)))
        values.extend(pieces)
        widest = max(widest, len(pieces))
    return (np.array(indices, np.int64).reshape(-1, 2), np.array(values, dtype=object),
            np.array([np.size(source), widest], np.int64))


def _split_text(v) -> bytes:
    return v if isinstance(v, bytes) else str(v).encode()


not_differentiable("StringSplitV2")


def strings_split(input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None,  # noqa: A002
                  name=None):
    """Each string of the vector ``input`` split at ``sep`` (a whole string; runs of
    whitespace, with empty pieces dropped, when None), at most ``maxsplit`` times: a
    [len(input), most pieces] SparseTensor (``tf.strings.split`` of TF 1.x)."""
    if result_type != "SparseTensor":
        raise NotImplementedError("tf.strings.split(result_type='RaggedTensor') is not supported by distflow "
                                  "(it has no RaggedTensor)")
    source = ops.convert_to_tensor(input if input is not None else source, dtype=dtypes.string)
    if source.shape.ndims not in (None, 1):
        raise ValueError(f"tf.strings.split needs a vector of strings, got shape {source.shape}")
    if sep is not None and not sep:
        raise ValueError("tf.strings.split: sep must be None or a non-empty string")
    return _three("StringSplitV2", [source, ops.convert_to_tensor(sep or "", dtype=dtypes.string)],
                  {"maxsplit": int(maxsplit)}, name)


def string_split(source, delimiter=" ", skip_empty=True, sep=None, result_type="SparseTensor", name=None):
    """Splits each string of the vector ``source`` at any byte of ``delimiter`` (characters when empty),
    giving a [len(source), widest row] SparseTensor of the pieces."""
    if result_type != "SparseTensor":
        raise NotImplementedError("string_split(result_type='RaggedTensor') is not supported by distflow")
    delimiter = sep if sep is not None else delimiter
    source = ops.convert_to_tensor(source, dtype=dtypes.string)
    if source.shape.ndims not in (None, 1):
        raise ValueError(f"string_split needs a vector of strings, got shape {source.shape}")
    return _three("StringSplit", [source, ops.convert_to_tensor(delimiter, dtype=dtypes.string)],
                  {"skip_empty": bool(skip_empty)}, name)


def serialize_sparse(sp_input, name=None, out_type=dtypes.string):
    """A string 3-vector: the serialized TensorProtos of indices, values and dense_shape."""
    only_default("serialize_sparse", "out_type", dtypes.as_dtype(out_type), dtypes.string)
    sp = as_sparse_tensor(sp_input)
    with ops.name_scope(name, "SerializeSparse"):
        return array_ops.stack([serialize_tensor(sp.indices), serialize_tensor(sp.values),
                                serialize_tensor(sp.dense_shape)])


def deserialize_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The SparseTensor that ``serialize_sparse`` wrote."""
    serialized = ops.convert_to_tensor(serialized_sparse, dtype=dtypes.string)
    with ops.name_scope(name, "DeserializeSparse"):
        if serialized.shape.ndims == 1:
            return SparseTensor(parse_tensor(serialized[0], dtypes.int64), parse_tensor(serialized[1], dtype),
                                parse_tensor(serialized[2], dtypes.int64))
        # ([..., 3] of them: the leading dimensions come first, as deserialize_many_sparse's batch)
        many = deserialize_many_sparse(array_ops.reshape(serialized, [-1, 3]), dtype)
        lead = array_ops.shape(serialized, out_type=dtypes.int64)[:-1]
        out = sparse_reshape(many, slicing_ops.concat([lead, many.dense_shape[1:]], 0))
        if rank is not None and serialized.shape.ndims is not None:
            out.indices.set_shape([None, serialized.shape.ndims - 1 + int(rank)])
        return out


def _proto_bytes(array) -> bytes:
    return wire.tensor_to_proto(np.asarray(array)).SerializeToString()


def _from_proto(data, what: str) -> np.ndarray:
    try:
        proto = pb.TensorProto.FromString(data if isinstance(data, bytes) else str(data).encode())
    except DecodeError:
        raise errors.InvalidArgumentError(None, None, f"DeserializeManySparse: Could not parse serialized proto: "
                                                      f"its {what} is not a TensorProto") from None
    return wire.tensor_from_proto(proto, writable=True)


@register_op("SerializeManySparse", shape=lambda op: TensorShape([None, 3]), dtype=lambda op: dtypes.string)
def _serialize_many_sparse_kernel(xp, indices, values, dense_shape):
    indices, values, dense_shape = np.asarray(indices), np.asarray(values), np.asarray(dense_shape)
    if dense_shape.size < 2:
        raise errors.InvalidArgumentError(None, None, f"SerializeManySparse: the SparseTensor must have rank 2 or "
                                                      f"more (a minibatch of rows), got rank {dense_shape.size}")
    rows = int(dense_shape[0])
    out = np.empty((rows, 3), dtype=object)
    for r in range(rows):
        mine = indices[:, 0] == r
        out[r] = [_proto_bytes(indices[mine, 1:]), _proto_bytes(values[mine]), _proto_bytes(dense_shape[1:])]
    return out


@register_op("DeserializeManySparse", list_output=True,
             shape=lambda op: [TensorShape([None, None]), TensorShape([None]), TensorShape([None])],
             dtype=lambda op: [dtypes.int64, op._attr("dtype"), dtypes.int64])
def _deserialize_many_sparse_kernel(xp, serialized, *, dtype):
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim != 2 or serialized.shape[1] != 3:
        raise errors.InvalidArgumentError(None, None, f"DeserializeManySparse: serialized_sparse must be a [N, 3] "
                                                      f"string matrix, got shape {list(serialized.shape)}")
    indices, values, shapes = [], [], []
    for r, (ind, val, shape) in enumerate(serialized):
        ind, val, shape = _from_proto(ind, "indices"), _from_proto(val, "values"), _from_proto(shape, "dense_shape")
        if val.dtype != np.dtype(_np_dtype(dtype)):  # (TF's messages)
            raise errors.InvalidArgumentError(None, None, f"DeserializeManySparse: Requested SparseTensor of type "
                                                          f"{dtype.name} but SparseTensor[{r}].values.dtype() == "
                                                          f"{dtypes.as_dtype(val.dtype).name}")
        if shapes and shape.size != shapes[0].size:
            raise errors.InvalidArgumentError(None, None, f"DeserializeManySparse: Inconsistent shape across "
                                                          f"SparseTensors: rank prior to SparseTensor[{r}] was: "
                                                          f"{shapes[0].size} but rank of SparseTensor[{r}] is: "
                                                          f"{shape.size}")
        ind = ind.reshape(len(ind) if ind.ndim else 0, shape.size)
        indices.append(np.concatenate([np.full((len(ind), 1), r, np.int64), ind], axis=1))
        values.append(val)
        shapes.append(shape)
    inner = np.max(np.stack(shapes), axis=0) if shapes else np.zeros(0, np.int64)
    width = 1 + inner.size
    return (np.concatenate(indices).astype(np.int64) if indices else np.zeros((0, width), np.int64),
            np.concatenate(values).astype(_np_dtype(dtype)) if values else np.zeros(0, _np_dtype(dtype)),
            np.concatenate([[len(serialized)], inner]).astype(np.int64))


not_differentiable("SerializeManySparse")
not_differentiable("DeserializeManySparse")


def _np_dtype(dtype):
    return object if dtype == dtypes.string else dtype.as_numpy_dtype


def serialize_many_sparse(sp_input, name=None, out_type=dtypes.string):
    """A ``[N, 3]`` string matrix: row ``i`` is ``serialize_sparse`` of the minibatch entry
    ``sp_input[i]`` (``tf.serialize_many_sparse``), as queues carried sparse batches."""
    only_default("serialize_many_sparse", "out_type", dtypes.as_dtype(out_type), dtypes.string)
    sp = as_sparse_tensor(sp_input)
    return make_tensor("SerializeManySparse", [sp.indices, sp.values, sp.dense_shape], None,
                       name or "SerializeManySparse")


def deserialize_many_sparse(serialized_sparse, dtype, rank=None, name=None):
    """The minibatch ``serialize_many_sparse`` wrote (or any ``[N, 3]`` of
    ``serialize_sparse`` rows of one rank) as one SparseTensor with the batch first: each
    entry's indices, the shape ``[N]`` and each dimension's largest (TF's
    ``tf.deserialize_many_sparse``; indices in order when the entries' were)."""
    serialized = ops.convert_to_tensor(serialized_sparse, dtype=dtypes.string)
    out = _three("DeserializeManySparse", [serialized], {"dtype": dtypes.as_dtype(dtype)}, name)
    if rank is not None:  # (the rank with the batch dimension: known statically)
        out.indices.set_shape([None, int(rank)])
        out.dense_shape.set_shape([int(rank)])
    return out


def _refuse_conversion(value, dtype=None, name=None, as_ref=False):
    raise TypeError(f"Failed to convert a SparseTensor to a Tensor ({value!r}); use tf.sparse_tensor_to_dense")


ops.register_tensor_conversion_function(SparseTensor, _refuse_conversion)


def sparse_eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None) -> SparseTensor:
    """A sparse identity matrix [num_rows, num_columns]: ones on the diagonal."""
    with ops.name_scope(name, "eye", [num_rows, num_columns]):
        rows = ops.convert_to_tensor(num_rows, dtype=dtypes.int64)
        cols = rows if num_columns is None else ops.convert_to_tensor(num_columns, dtype=dtypes.int64)
        diagonal = math_ops.range_(math_ops.minimum(rows, cols))
        indices = array_ops.stack([diagonal, diagonal], axis=1)
        values = array_ops.ones(array_ops.shape(diagonal), dtype=dtypes.as_dtype(dtype))
        return SparseTensor(indices, values, array_ops.stack([rows, cols]))


def sparse_expand_dims(sp_input, axis=None, name=None) -> SparseTensor:
    """``sp_input`` with a dimension of size 1 inserted at ``axis`` (negative: from the end;
    the last by default, as TF's)."""
    sp = as_sparse_tensor(sp_input)
    with ops.name_scope(name, "expand_dims", [sp.indices]):
        rank = sp.dense_shape.shape[0].value
        if rank is None:
            raise ValueError("sparse expand_dims needs the input's rank known")
        axis = -1 if axis is None else int(axis)
        if not -rank - 1 <= axis <= rank:
            raise ValueError(f"axis {axis} is out of range for a SparseTensor of rank {rank}")
        axis = axis + rank + 1 if axis < 0 else axis
        zeros = array_ops.zeros(array_ops.stack([array_ops.shape(sp.indices)[0], 1]), dtype=dtypes.int64)
        indices = slicing_ops.concat([sp.indices[:, :axis], zeros, sp.indices[:, axis:]], 1)
        shape = slicing_ops.concat([sp.dense_shape[:axis], [1], sp.dense_shape[axis:]], 0)
        return SparseTensor(indices, sp.values, shape)
