"""TF 1.x's deprecated spellings, each the op or function it was renamed to:
``all_variables`` (``global_variables``), ``initialize_*`` (``*_initializer``), ``op_scope`` and
``variable_op_scope`` (the old argument orders of ``name_scope`` and ``variable_scope``),
``arg_max``/``arg_min``, ``to_double`` and ``floor_div``."""

from __future__ import annotations

import contextlib

from ..framework import dtypes, ops
from . import math_ops, reduction_ops, state_ops, variable_scope


def all_variables():
    """The old name of ``global_variables()``."""
    return state_ops.global_variables()


def initialize_variables(var_list, name="init"):
    return state_ops.variables_initializer(var_list, name)


def initialize_local_variables():
    return state_ops.local_variables_initializer()


initialize_all_tables = state_ops.tables_initializer


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
