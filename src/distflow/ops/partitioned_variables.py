"""Partitioned variables: one large variable kept as several parts, as TF 1.x's ps jobs kept
their embeddings (``tf.get_variable(..., partitioner=...)``, ``tf.fixed_size_partitioner``,
``tf.min_max_variable_partitioner``, ``tf.variable_axis_size_partitioner``; the store
that makes the parts, and ``tf.create_partitioned_variables``, are in variable_scope.py).

``get_variable`` with a partitioner makes ``name/part_0``, ``name/part_1``, ... along one
axis, each a variable of its own (so ``replica_device_setter`` deals them out among the ps
tasks, and an optimizer updates each where it lies), and returns a
:class:`PartitionedVariable`. Used as a tensor it is the parts concatenated;
``embedding_lookup`` takes it as its list of shards, with TF's ``partition_strategy``
("mod" by default, as in TF: id ``i`` is then row ``i // n`` of part ``i % n``, not row
``i`` of the concatenation; "div" matches the concatenation). A Saver writes it as one
tensor under the full name, and restores it into any partitioning of that name, or into
one unpartitioned variable.

As in TF, the first ``dim % n`` parts are one row longer; an initializer is called once per
part, with the part's shape (a random one thus draws each part on its own).
"""

from __future__ import annotations

import math

from ..framework import dtypes, ops
from ..framework.tensor_shape import TensorShape, as_shape
from . import array_ops, control_flow_ops, slicing_ops, state_ops


class PartitionInfo:
    """What an initializer of one part of a partitioned variable is told of the whole
    (TF's ``_PartitionInfo``): its ``full_shape`` and the part's ``var_offset`` in it, so that
    it scales by the whole variable's fans, or gives the part its slice of a whole value."""

    def __init__(self, full_shape, var_offset):
        for what, value in (("full_shape", full_shape), ("var_offset", var_offset)):
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"`{what}` must be a sequence (like tuple or list) instead of "
                                f"{type(value).__name__}")
        if len(full_shape) != len(var_offset):
            raise ValueError(f"Expected equal length, but `var_offset` is of length {len(var_offset)} while "
                             f"full_shape is of length {len(full_shape)}.")
        for offset, dim in zip(var_offset, full_shape):
            if not 0 <= offset < dim:
                raise ValueError(f"Expected 0 <= offset < shape but found offset={offset}, shape={dim} for "
                                 f"var_offset={list(var_offset)}, full_shape={list(full_shape)}")
        self.full_shape = list(full_shape)
        self.var_offset = list(var_offset)

    def single_offset(self, shape) -> int:
        """The part's offset along the one dimension it is sliced in (0 for a whole variable)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self.var_offset[dim]

    def single_slice_dim(self, shape):
        """The one dimension in which the part (of ``shape``) is narrower than the whole, or None."""
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"`shape` must be a sequence (like tuple or list) instead of {type(shape).__name__}")
        if len(shape) != len(self.full_shape):
            raise ValueError(f"Expected equal length, but received shape={list(shape)} of length {len(shape)} "
                             f"while self.full_shape={self.full_shape} is of length {len(self.full_shape)}.")
        for i, (d, o, f) in enumerate(zip(shape, self.var_offset, self.full_shape)):
            if o + d > f:
                raise ValueError(f"With self.var_offset={self.var_offset}, a partition of shape={list(shape)} would "
                                 f"exceed self.full_shape={self.full_shape} in dimension {i}.")
        sliced = [i for i, (d, f) in enumerate(zip(shape, self.full_shape)) if d != f]
        if len(sliced) > 1:
            raise ValueError(f"Cannot use single_slice_dim() with shape={list(shape)} and self.full_shape="
                             f"{self.full_shape} since slice dim could be either dimension {sliced[0]} or "
                             f"{sliced[1]}.")
        return sliced[0] if sliced else None

    def __repr__(self):
        return f"PartitionInfo(full_shape={self.full_shape}, var_offset={self.var_offset})"


class SaveSliceInfo:
    """Where a part lies in its partitioned variable (``Variable.SaveSliceInfo``)."""

    def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None):
        self.full_name = full_name
        self.full_shape = list(full_shape or [])
        self.var_offset = list(var_offset or [])
        self.var_shape = list(var_shape or [])

    @property
    def spec(self) -> str:
        """TF's slice spec: the full shape, then ``offset,length`` per dimension."""
        return " ".join(str(d) for d in self.full_shape) + " " + ":".join(
            f"{o},{n}" for o, n in zip(self.var_offset, self.var_shape))


class PartitionedVariable:
    """The parts of one variable split along one axis (``tf.PartitionedVariable``)."""

    def __init__(self, name: str, shape, dtype, variable_list: list, partitions: list):
        if not variable_list:
            raise ValueError("variable_list must be non-empty")
        self._name = name
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._variable_list = sorted(variable_list, key=lambda v: v._save_slice_info.var_offset)
        self._partitions = list(partitions)
        axes = [i for i, p in enumerate(self._partitions) if p > 1]
        self._axis = axes[0] if axes else 0

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self) -> int:
        return len(self._variable_list)

    def _get_variable_list(self) -> list:
        return list(self._variable_list)

    def _get_partitions(self) -> list:
        return list(self._partitions)

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    shape = property(lambda self: self._shape)
    graph = property(lambda self: self._variable_list[0].graph)

    def get_shape(self) -> TensorShape:
        return self._shape

    def _concat(self):
        """The parts concatenated along their axis (one tensor, made where it is asked for)."""
        # (named as the variable, as TF's: "scope/name:0")
        if len(self._variable_list) == 1:
            with ops.name_scope(None):
                return array_ops.identity(self._variable_list[0], name=self._name)
        with ops.name_scope(self._name + "/ConcatPartitions/"):
            concatenated = slicing_ops.concat([v.value() for v in self._variable_list], self._axis)
        with ops.name_scope(None):
            return array_ops.identity(concatenated, name=self._name)

    def as_tensor(self):
        with ops.control_dependencies(None):
            return self._concat()

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Each part assigned its slice of ``value``; the assignments, grouped."""
        value = ops.convert_to_tensor(value, dtype=self._dtype)
        sizes = [v.shape.as_list()[self._axis] for v in self._variable_list]
        pieces = slicing_ops.split(value, sizes, axis=self._axis) if len(sizes) > 1 else [value]
        assigns = [state_ops.assign(v, p, use_locking=use_locking) for v, p in zip(self._variable_list, pieces)]
        return control_flow_ops.group(*[a.op for a in assigns], name=name)

    def __repr__(self):
        return f"<tf.PartitionedVariable '{self._name}' shape={self._shape} dtype={self._dtype.name} " \
               f"parts={len(self._variable_list)}>"


def _to_tensor(value, dtype=None, name=None, as_ref=False):
    if as_ref:
        raise ValueError("a PartitionedVariable is not one variable: it cannot be taken by reference")
    return value._concat()


ops.register_tensor_conversion_function(PartitionedVariable, _to_tensor)


def part_shapes(shape: list, partitions: list) -> list[tuple[list, list]]:
    """(offset, shape) of each part of ``shape`` cut by ``partitions`` (one axis, as TF's:
    the first ``dim % n`` parts one longer)."""
    axes = [i for i, p in enumerate(partitions) if p > 1]
    if not axes:
        return [([0] * len(shape), list(shape))]
    axis = axes[0]
    n, dim = partitions[axis], shape[axis]
    out, offset = [], 0
    for i in range(n):
        size = dim // n + (1 if i < dim % n else 0)
        part_offset = [0] * len(shape)
        part_offset[axis] = offset
        part_shape = list(shape)
        part_shape[axis] = size
        out.append((part_offset, part_shape))
        offset += size
    return out


def check_partitions(name: str, shape: list, partitions) -> list:
    """``partitions`` as a list, checked: one entry per dimension, each at least 1, at most
    one above 1, and none above its dimension."""
    try:
        partitions = [int(p) for p in partitions]
    except TypeError:
        raise ValueError(f"Partitioner for {name} returned {partitions!r}, not a list of integers") from None
    if len(partitions) != len(shape):
        raise ValueError(f"Partitioner for {name} returned {partitions}, one entry per dimension of {shape} "
                         "expected")
    if any(p < 1 for p in partitions):
        raise ValueError(f"Partitioner for {name} returned {partitions}: every entry must be at least 1")
    if sum(p > 1 for p in partitions) > 1:
        raise ValueError(f"Partitioner for {name} returned {partitions}: can only slice one dimension")
    if any(p > d for p, d in zip(partitions, shape)):
        raise ValueError(f"Partitioner for {name} returned {partitions}: more parts than rows in {shape}")
    return partitions


def _element_size(dtype, bytes_per_string_element: int) -> int:
    dtype = dtypes.as_dtype(dtype).base_dtype
    return bytes_per_string_element if dtype == dtypes.string else dtype.size


def fixed_size_partitioner(num_shards: int, axis: int = 0):
    """A partitioner that cuts ``axis`` into ``num_shards`` parts (fewer where it is shorter)."""

    def _partitioner(shape, dtype=None, **unused):
        shape = as_shape(shape)
        partitions = [1] * shape.ndims
        partitions[axis] = min(num_shards, shape.as_list()[axis])
        return partitions

    return _partitioner


def min_max_variable_partitioner(max_partitions: int = 1, axis: int = 0, min_slice_size: int = 256 << 10,
                                 bytes_per_string_element: int = 16):
    """A partitioner that makes parts of at least ``min_slice_size`` bytes, at most
    ``max_partitions`` of them."""
    if min_slice_size <= 0:
        raise ValueError(f"min_slice_size must be positive, got {min_slice_size}")

    def _partitioner(shape, dtype=dtypes.float32, **unused):
        shape = as_shape(shape)
        total = shape.num_elements() * _element_size(dtype, bytes_per_string_element)
        partitions = [1] * shape.ndims
        partitions[axis] = max(1, min(shape.as_list()[axis], max_partitions, int(math.ceil(total / min_slice_size))))
        return partitions

    return _partitioner


def variable_axis_size_partitioner(max_shard_bytes: int, axis: int = 0, bytes_per_string_element: int = 16,
                                   max_shards=None):
    """A partitioner that keeps each part under ``max_shard_bytes`` (at least one slice of
    ``axis`` each), with at most ``max_shards`` parts."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive.")
    if max_shards is not None and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype=dtypes.float32, **unused):
        shape = as_shape(shape)
        dims = shape.as_list()
        slice_bytes = shape.num_elements() / dims[axis] * _element_size(dtype, bytes_per_string_element)
        slices_per_shard = max(1, math.floor(max_shard_bytes / slice_bytes))
        shards = int(math.ceil(dims[axis] / slices_per_shard))
        if max_shards:
            shards = min(max_shards, shards)
        partitions = [1] * len(dims)
        partitions[axis] = shards
        return partitions

    return _partitioner
