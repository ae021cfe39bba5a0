"""``tf.IndexedSlices``: a gradient that touches only some rows of a tensor.

The gradient of ``gather(params, ids)`` (and so of ``embedding_lookup``) is an IndexedSlices
of the gathered rows' gradients (``values``), their row ``indices`` and the params'
``dense_shape``. Sums of several keep the sparse form (concatenated); anything that needs a
dense tensor converts it (the rows summed into zeros), as TF 1.x does. Optimizers apply it
to only the rows it names.
"""

from __future__ import annotations

from ..framework import dtypes, ops
from . import array_ops, math_ops, slicing_ops
from .array_ops import shape_of
from .op_util import constant_shape, constant_value, make_tensor
from .segment_ops import unique, unsorted_segment_sum
from ..framework.tensor_shape import TensorShape


class IndexedSlices:
    """Rows ``values[i]`` of a tensor of shape ``dense_shape`` at row ``indices[i]`` (duplicates add)."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    graph = property(lambda self: self._values.graph)
    op = property(lambda self: self._values.op)
    name = property(lambda self: self._values.name)
    device = property(lambda self: self._values.device)

    @property
    def shape(self):
        """The dense tensor's shape: unknown without ``dense_shape``, as in TF."""
        return constant_shape(self._dense_shape) if self._dense_shape is not None else TensorShape(None)

    def get_shape(self):
        return self.shape

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self):
        return f"IndexedSlices(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"


def to_dense(value: IndexedSlices, name=None) -> ops.Tensor:
    """The dense tensor an IndexedSlices stands for (its rows summed into zeros)."""
    if value.dense_shape is None:
        raise ValueError(f"Cannot convert {value!r} to a Tensor without its dense_shape")
    return make_tensor("GatherV2Grad", [ops.convert_to_tensor(value.dense_shape, dtype=dtypes.int32), value.indices,
                                        value.values, ops.convert_to_tensor(0, dtype=dtypes.int32)], None,
                       name or "IndexedSlicesToDense")


def _conversion(value, dtype=None, name=None, as_ref=False):
    return to_dense(value, name)


ops.register_tensor_conversion_function(IndexedSlices, _conversion)


def concat_slices(parts) -> IndexedSlices:
    """The sum of several IndexedSlices of one tensor: their rows and indices side by side
    (int64 indices where any part's are, as TF's: ids from tf.argmax beside int32 ones)."""
    indices = [p.indices for p in parts]
    if len({i.dtype.base_dtype for i in indices}) > 1:
        indices = [math_ops.cast(i, dtypes.int64) for i in indices]
    return IndexedSlices(slicing_ops.concat([p.values for p in parts], 0), slicing_ops.concat(indices, 0),
                         parts[0].dense_shape)


def deduplicated(value: IndexedSlices):
    """(unique row indices, the summed values of each): what a sparse update applies."""
    rows, position = unique(value.indices)
    return rows, unsorted_segment_sum(value.values, position, array_ops.shape(rows)[0])


# The gradient of a gather along the first axis is sparse, as in TF (other axes stay dense).
def gather_grad(op, grad):
    params, indices, axis = op.inputs
    axis_value = constant_value(axis)
    batch_dims = op._attrs.get("batch_dims", 0)
    if batch_dims:
        return make_tensor("GatherV2Grad", [shape_of(params), indices, grad, axis], {"batch_dims": batch_dims},
                           "GatherV2Grad"), None, None
    if axis_value is not None and int(axis_value) == 0:
        flat_indices = array_ops.reshape(indices, [-1])
        params_shape = shape_of(params)
        # (rows of params' shape, as TF's: whatever shape a gradient fed for the gather has)
        values = array_ops.reshape(grad, slicing_ops.concat([[-1], params_shape[1:]], 0))
        return IndexedSlices(values, flat_indices, params_shape), None, None
    return make_tensor("GatherV2Grad", [shape_of(params), indices, grad, axis], None, "GatherV2Grad"), None, None


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """An IndexedSlices as it is (its dtype checked), anything else as a Tensor."""
    if isinstance(value, IndexedSlices):
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for IndexedSlices "
                             f"with dtype {value.dtype.name}: {value!r}")
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a scalar (a Python number or a 0-D tensor); ``x`` may be an
    IndexedSlices, and then so is the result (its values scaled)."""
    values = x.values if isinstance(x, IndexedSlices) else x
    scalar = ops.convert_to_tensor(scalar, dtype=ops.convert_to_tensor(values).dtype.base_dtype)
    if scalar.shape.ndims not in (None, 0):
        raise ValueError(f"Only scalar multiply works, got shape {scalar.shape}")
    with ops.name_scope(name, "scalar_mul", [scalar, values]):
        if isinstance(x, IndexedSlices):
            return IndexedSlices(scalar * values, x.indices, x.dense_shape)
        return scalar * x
