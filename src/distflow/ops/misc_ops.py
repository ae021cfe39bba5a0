"""TF 1.x names that are aliases or small compositions of other ops: deprecated spellings
(``all_variables``, ``arg_max``, ``op_scope``), table initializers (distflow has no lookup
tables, so they are no-ops), and a few casting, gathering and conversion helpers."""

from __future__ import annotations

import contextlib

import numpy as np

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from . import array_ops, control_flow_ops, math_ops, reduction_ops, slicing_ops, state_ops, variable_scope
from .op_util import constant_value


def all_variables():
    """The old name of ``global_variables()``."""
    return state_ops.global_variables()


def initialize_variables(var_list, name="init"):
    return state_ops.variables_initializer(var_list, name)


def initialize_local_variables():
    return state_ops.local_variables_initializer()


def moving_average_variables(scope=None):
    return ops.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def tables_initializer(name="init_all_tables"):
    """Runs the graph's table initializers: distflow has no lookup tables, so this is a NoOp."""
    initializers = ops.get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return control_flow_ops.group(*initializers, name=name)
    return control_flow_ops.no_op(name=name)


initialize_all_tables = tables_initializer


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=False,
                       collections=None, **kwargs):
    """``get_variable`` in the LOCAL_VARIABLES collection (not saved, not trained)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return variable_scope.get_variable(name, shape, dtype, initializer, regularizer, trainable=False,
                                       collections=collections, **kwargs)


def no_regularizer(_):
    """A regularizer that adds nothing."""
    return None


@contextlib.contextmanager
def op_scope(values, name, default_name=None):
    """The old argument order of ``name_scope(name, default_name, values)``."""
    with ops.name_scope(name, default_name, values) as scope:
        yield scope


@contextlib.contextmanager
def variable_op_scope(values, name_or_scope, default_name=None, initializer=None, regularizer=None,
                      caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None):
    """The old argument order of ``variable_scope``."""
    with variable_scope.variable_scope(name_or_scope, default_name, values, initializer, regularizer,
                                       caching_device, partitioner=partitioner, custom_getter=custom_getter,
                                       reuse=reuse, dtype=dtype) as scope:
        yield scope


def arg_max(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    return reduction_ops.argmax(input, dimension, name=name, output_type=output_type)


def arg_min(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    return reduction_ops.argmin(input, dimension, name=name, output_type=output_type)


def to_double(x, name="ToDouble"):
    return math_ops.cast(x, dtypes.float64, name=name)


def floor_div(x, y, name=None):
    return math_ops.floordiv(x, y, name=name)


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a scalar (a Python number or a 0-D tensor); ``x`` may be an
    IndexedSlices, and then so is the result (its values scaled)."""
    from .indexed_slices import IndexedSlices  # noqa: PLC0415 - (imports this module)

    values = x.values if isinstance(x, IndexedSlices) else x
    scalar = ops.convert_to_tensor(scalar, dtype=ops.convert_to_tensor(values).dtype.base_dtype)
    if scalar.shape.ndims not in (None, 0):
        raise ValueError(f"Only scalar multiply works, got shape {scalar.shape}")
    with ops.name_scope(name, "scalar_mul", [scalar, values]):
        if isinstance(x, IndexedSlices):
            return IndexedSlices(scalar * values, x.indices, x.dense_shape)
        return scalar * x


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
            value = math_ops.clip_by_value(value, math_ops.cast(low, value.dtype.base_dtype),
                                           math_ops.cast(high, value.dtype.base_dtype))
        return math_ops.cast(value, dtype)


def where_v2(condition, x=None, y=None, name=None):
    """``where`` with NumPy broadcasting of condition, x and y (or the true coordinates with one argument)."""
    if x is None and y is None:
        return math_ops.where(condition, name=name)
    with ops.name_scope(name, "SelectV2", [condition, x, y]):
        x = ops.convert_to_tensor(x)
        y = ops.convert_to_tensor(y, dtype=x.dtype.base_dtype)
        condition = ops.convert_to_tensor(condition, dtype=dtypes.bool)
        shape = array_ops.shape(math_ops.cast(condition, x.dtype.base_dtype) + x + y)
        return math_ops.where(array_ops.broadcast_to(condition, shape), array_ops.broadcast_to(x, shape),
                              array_ops.broadcast_to(y, shape))


def batch_gather(params, indices, name=None):
    """``params[b, indices[b, ...]]`` for each leading batch index b."""
    with ops.name_scope(name, "BatchGather", [params, indices]):
        params = ops.convert_to_tensor(params)
        indices = ops.convert_to_tensor(indices)
        batch = array_ops.shape(params)[0]
        depth = array_ops.shape(params)[1]
        offsets = math_ops.range_(batch) * depth
        rank = indices.shape.ndims
        if rank is None:
            raise ValueError("batch_gather needs indices of known rank")
        offsets = array_ops.reshape(offsets, [-1] + [1] * (rank - 1))
        flat = array_ops.reshape(params, slicing_ops.concat([[-1], array_ops.shape(params)[2:]], 0))
        return slicing_ops.gather(flat, indices + math_ops.cast(offsets, indices.dtype.base_dtype))


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    return ops.convert_to_tensor(value, dtype=dtype, name=name)


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` if the graph determines it (a constant, a known shape), else None."""
    if not isinstance(tensor, ops.Tensor):
        return np.asarray(tensor)
    return constant_value(tensor)
