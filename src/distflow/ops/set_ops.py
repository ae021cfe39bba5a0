"""``tf.sets``: set operations along the last dimension, as TensorFlow's set ops.

Each row of ``a`` and ``b`` (all dimensions but the last) is a set of its values (a dense
row's every value; a SparseTensor row's present ones); ``set_intersection``,
``set_union`` and ``set_difference`` give a SparseTensor whose row holds the result's
values in increasing order, its last dimension the largest result's size; ``set_size``
counts a SparseTensor row's distinct values. Integers and strings, as TensorFlow's.
A SparseTensor may be ``b`` with a dense ``a``; given the other way round, intersection
and union swap them, and difference swaps them and subtracts the other way, as TF does.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import make_op, make_tensor
from .sparse_ops import SparseTensor, SparseTensorValue

_TYPES = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.string)


def _dense_rows(a: np.ndarray) -> tuple[list, dict]:
    """(leading shape, {row index tuple: its values}) of a dense tensor of rank >= 2."""
    if a.ndim < 2:
        raise errors.InvalidArgumentError(None, None, f"set ops need rank 2 or more, got rank {a.ndim}")
    lead = list(a.shape[:-1])
    flat = a.reshape(-1, a.shape[-1])
    return lead, {tuple(int(i) for i in np.unravel_index(r, lead)): list(flat[r]) for r in range(flat.shape[0])}


def _sparse_rows(indices, values, dense_shape, validate: bool) -> tuple[list, dict]:
    indices, dense_shape = np.asarray(indices), np.asarray(dense_shape)
    if dense_shape.size < 2:
        raise errors.InvalidArgumentError(None, None, f"set ops need rank 2 or more, got rank {dense_shape.size}")
    if validate and len(indices) > 1:
        keys = [tuple(i) for i in indices.tolist()]
        if any(later <= earlier for earlier, later in zip(keys, keys[1:])):
            raise errors.InvalidArgumentError(None, None, "set ops: the SparseTensor's indices are not in "
                                                          "increasing row-major order (tf.sparse_reorder them)")
    rows: dict = {}
    for index, value in zip(indices.tolist(), list(values)):
        rows.setdefault(tuple(index[:-1]), []).append(value)
    return [int(d) for d in dense_shape[:-1]], rows


def _result(lead_a: list, lead_b: list, rows_a: dict, rows_b: dict, operation: str, dtype):
    if lead_a != lead_b:
        raise errors.InvalidArgumentError(None, None, f"set ops: the inputs' shapes but the last differ: {lead_a} and "
                                                      f"{lead_b}")
    indices, values, widest = [], [], 0
    for key in sorted(set(rows_a) | set(rows_b)):
        a, b = set(rows_a.get(key, ())), set(rows_b.get(key, ()))
        out = sorted(a & b if operation == "intersection" else a | b if operation == "union" else
                     a - b if operation == "a-b" else b - a)
        widest = max(widest, len(out))
        indices += [[*key, k] for k in range(len(out))]
        values += out
    np_dtype = object if dtype == dtypes.string else dtype.as_numpy_dtype
    return (np.array(indices, np.int64).reshape(-1, len(lead_a) + 1), np.array(values, dtype=np_dtype),
            np.array(lead_a + [widest], np.int64))


def _check_operation(operation) -> str:
    operation = operation.decode() if isinstance(operation, bytes) else str(operation)
    if operation not in ("intersection", "union", "a-b", "b-a"):
        raise errors.InvalidArgumentError(None, None, f"Invalid set_operation {operation}")
    return operation


def _three_shapes(op):
    rank = op.inputs[0].shape.ndims
    return [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]


def _three_dtypes(op):
    return [dtypes.int64, op.inputs[1 if op.type == "SparseToSparseSetOperation" else 0].dtype.base_dtype,
            dtypes.int64]


@register_op("DenseToDenseSetOperation", list_output=True, shape=_three_shapes, dtype=_three_dtypes)
def _dense_dense_kernel(xp, a, b, *, set_operation, validate_indices=True):
    a, b = np.asarray(a), np.asarray(b)
    (lead_a, rows_a), (lead_b, rows_b) = _dense_rows(a), _dense_rows(b)
    return _result(lead_a, lead_b, rows_a, rows_b, _check_operation(set_operation),
                   dtypes.as_dtype(a.dtype) if a.dtype != object else dtypes.string)


@register_op("DenseToSparseSetOperation", list_output=True, shape=_three_shapes, dtype=_three_dtypes)
def _dense_sparse_kernel(xp, a, b_indices, b_values, b_shape, *, set_operation, validate_indices=True):
    a = np.asarray(a)
    lead_a, rows_a = _dense_rows(a)
    lead_b, rows_b = _sparse_rows(b_indices, b_values, b_shape, validate_indices)
    return _result(lead_a, lead_b, rows_a, rows_b, _check_operation(set_operation),
                   dtypes.as_dtype(a.dtype) if a.dtype != object else dtypes.string)


@register_op("SparseToSparseSetOperation", list_output=True,
             shape=lambda op: [TensorShape([None, op.inputs[2].shape[0].value]), TensorShape([None]),
                               TensorShape([op.inputs[2].shape[0].value])], dtype=_three_dtypes)
def _sparse_sparse_kernel(xp, a_indices, a_values, a_shape, b_indices, b_values, b_shape, *, set_operation,
                          validate_indices=True):
    lead_a, rows_a = _sparse_rows(a_indices, a_values, a_shape, validate_indices)
    lead_b, rows_b = _sparse_rows(b_indices, b_values, b_shape, validate_indices)
    values = np.asarray(a_values)
    return _result(lead_a, lead_b, rows_a, rows_b, _check_operation(set_operation),
                   dtypes.as_dtype(values.dtype) if values.dtype != object else dtypes.string)


@register_op("SetSize", shape=lambda op: TensorShape(None), dtype=lambda op: dtypes.int32)
def _set_size_kernel(xp, indices, values, dense_shape, *, validate_indices=True):
    lead, rows = _sparse_rows(indices, values, dense_shape, validate_indices)
    out = np.zeros(lead, np.int32)
    for key, row in rows.items():
        out[key] = len(set(row))
    return out


for _t in ("DenseToDenseSetOperation", "DenseToSparseSetOperation", "SparseToSparseSetOperation", "SetSize"):
    not_differentiable(_t)


def _as_set_input(x, dtype=None):
    if isinstance(x, SparseTensorValue):
        x = SparseTensor.from_value(x)
    if isinstance(x, SparseTensor):
        found = x.values.dtype.base_dtype
    else:
        x = ops.convert_to_tensor(x, dtype=dtype)
        found = x.dtype.base_dtype
    if found not in _TYPES:
        raise TypeError(f"Unsupported dtype {found.name} for set ops (integers and strings)")
    return x, found


def _set_operation(a, b, operation: str, validate_indices: bool):
    a, a_type = _as_set_input(a)
    b, b_type = _as_set_input(b, None if isinstance(b, (SparseTensor, SparseTensorValue)) else a_type)
    if a_type != b_type:
        raise TypeError(f"set ops: the inputs must have one dtype, got {a_type.name} and {b_type.name}")
    attrs = {"set_operation": operation, "validate_indices": bool(validate_indices)}
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError("Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of your "
                             "inputs.")
        op = make_op("SparseToSparseSetOperation", [a.indices, a.values, a.dense_shape, b.indices, b.values,
                                                    b.dense_shape], attrs, "SparseToSparseSetOperation")
    elif isinstance(b, SparseTensor):
        op = make_op("DenseToSparseSetOperation", [a, b.indices, b.values, b.dense_shape], attrs,
                     "DenseToSparseSetOperation")
    else:
        op = make_op("DenseToDenseSetOperation", [a, b], attrs, "DenseToDenseSetOperation")
    return SparseTensor(*op.outputs)


def _flipped(a, b) -> bool:
    """Whether a sparse ``a`` and a dense ``b`` are to be swapped (TF takes Dense,Sparse only)."""
    return isinstance(a, (SparseTensor, SparseTensorValue)) and not isinstance(b, (SparseTensor, SparseTensorValue))


def set_size(a, validate_indices=True):
    """The number of distinct values in each row (all dimensions but the last) of the
    SparseTensor ``a``, int32."""
    if not isinstance(a, (SparseTensor, SparseTensorValue)):
        raise TypeError(f"Expected `SparseTensor`, got {a!r}")
    a, _ = _as_set_input(a)
    return make_tensor("SetSize", [a.indices, a.values, a.dense_shape], {"validate_indices": bool(validate_indices)},
                       "SetSize")


def set_intersection(a, b, validate_indices=True):
    """Each row's values present in both ``a`` and ``b``, a SparseTensor."""
    if _flipped(a, b):
        a, b = b, a
    return _set_operation(a, b, "intersection", validate_indices)


def set_union(a, b, validate_indices=True):
    """Each row's values present in ``a`` or ``b``, a SparseTensor."""
    if _flipped(a, b):
        a, b = b, a
    return _set_operation(a, b, "union", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True):
    """Each row's values of ``a`` not in ``b`` (``aminusb``), or of ``b`` not in ``a``, a SparseTensor."""
    if _flipped(a, b):
        a, b, aminusb = b, a, not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)
