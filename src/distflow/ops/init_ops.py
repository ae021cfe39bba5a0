"""Initializers: objects called with a shape (and dtype) that build an initial-value tensor."""

from __future__ import annotations

import math

import numpy as np

from ..framework import dtypes
from ..framework.tensor_shape import as_shape
from . import array_ops, linalg_ops, manip_ops, math_ops, random_ops, slicing_ops


class Initializer:
    """Base class: ``init(shape, dtype=None, partition_info=None) -> Tensor``."""

    dtype = dtypes.float32

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    def _dtype(self, dtype) -> dtypes.DType:
        return dtypes.as_dtype(dtype if dtype is not None else self.dtype)


def _float_dtype(dtype) -> dtypes.DType:
    """``dtype``, which must be a floating point type (a ValueError otherwise, as TF's)."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype.name}.")
    return dtype


def _scale_shape(shape, partition_info) -> list:
    """The shape an initializer scales by: the whole variable's for a part of a partitioned one."""
    return list(shape) if partition_info is None else list(partition_info.full_shape)


class Zeros(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.zeros(shape, self._dtype(dtype))


class Ones(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.ones(shape, self._dtype(dtype))


class Constant(Initializer):
    """Fills with ``value``: a scalar is broadcast, a list must match the shape's size."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self.verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None):
        return array_ops.constant(self.value, dtype=self._dtype(dtype), shape=shape,
                                  verify_shape=self.verify_shape)

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(shape, self.mean, self.stddev, self._dtype(dtype), seed=self.seed)


class TruncatedNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(shape, self.mean, self.stddev, self._dtype(dtype), seed=self.seed)


class RandomUniform(Initializer):
    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(shape, self.minval, self.maxval, self._dtype(dtype), seed=self.seed)


def _fans(shape) -> tuple[float, float]:
    dims = as_shape(shape).as_list()
    if not dims:
        return 1.0, 1.0
    if len(dims) == 1:
        return float(dims[0]), float(dims[0])
    receptive = float(np.prod(dims[:-2])) if len(dims) > 2 else 1.0
    return dims[-2] * receptive, dims[-1] * receptive


class VarianceScaling(Initializer):
    """Samples with variance ``scale / n``, n being fan_in, fan_out or their mean (``mode``)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.0:
            raise ValueError(f"`scale` must be a positive float, got {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self._dtype(dtype)
        fan_in, fan_out = _fans(_scale_shape(shape, partition_info))
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            # NOTE: 0.879... is the stddev of a unit normal truncated to [-2, 2].
            stddev = math.sqrt(variance) / 0.87962566103423978
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(variance), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * variance)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)


class GlorotUniform(VarianceScaling):
    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)


class GlorotNormal(VarianceScaling):
    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
random_uniform_initializer = RandomUniform
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal


class Orthogonal(Initializer):
    """A (scaled) orthogonal matrix: the Q of a Gaussian matrix's QR decomposition, signs fixed."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.seed, self.dtype = gain, seed, _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self._dtype(dtype)
        shape = list(shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows = int(math.prod(shape[:-1]))
        cols = shape[-1]
        a = random_ops.random_normal([max(rows, cols), min(rows, cols)], dtype=dtype, seed=self.seed)
        q, r = linalg_ops.qr(a)
        q = q * array_ops.expand_dims(math_ops.sign(manip_ops.matrix_diag_part(r)), 0)
        if rows < cols:
            q = manip_ops.matrix_transpose(q)
        return array_ops.reshape(q, shape) * self.gain


class UniformUnitScaling(Initializer):
    """Uniform in [-limit, limit] with limit = factor * sqrt(3 / input size), keeping activations' scale."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor, self.seed, self.dtype = factor, seed, _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        scale_shape = _scale_shape(shape, partition_info)
        input_size = max(1.0, float(math.prod(scale_shape[:-1])) if len(scale_shape) > 1 else 1.0)
        limit = math.sqrt(3 / input_size) * self.factor
        return random_ops.random_uniform(shape, -limit, limit, self._dtype(dtype), seed=self.seed)


class Identity(Initializer):
    """``gain`` times the identity matrix, for 2-D variables (square or not); a part of a
    partitioned variable gets its slice of the whole one's."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain, self.dtype = gain, _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        full_shape = [int(d) for d in _scale_shape(shape, partition_info)]
        if len(full_shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        eye = manip_ops.eye(full_shape[0], full_shape[1], dtype=self._dtype(dtype))
        if partition_info is not None:
            eye = slicing_ops.slice(eye, list(partition_info.var_offset), [int(d) for d in shape])
        return self.gain * eye

    def get_config(self) -> dict:
        return {"gain": self.gain, "dtype": self.dtype.name}


orthogonal_initializer = Orthogonal
uniform_unit_scaling_initializer = UniformUnitScaling
identity_initializer = Identity
