"""More TF 1.x names of the top-level namespace: searchsorted, histograms, reverse_sequence,
lgamma, accumulate_n, random_crop and multinomial, tensor (de)serialization, templates."""

from __future__ import annotations

import functools
import glob as _glob
import math

import numpy as np

from ..framework import dtypes, errors, ops, wire
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, math_ops, random_ops, slicing_ops
from .op_util import broadcast_shape, make_tensor
from .random_ops import seeded_generator, seed_attrs
from .reduction_ops import reduce_sum
from .segment_ops import bincount
from .variable_scope import variable_scope

# ---------------------------------------------------------------------------
# SearchSorted, histograms


@register_op("SearchSorted", shape=lambda op: op.inputs[1].shape, dtype=lambda op: op.get_attr("out_type"))
def _search_sorted_kernel(xp, sorted_sequence, values, *, side, out_type):
    seq = np.atleast_2d(sorted_sequence)
    vals = np.atleast_2d(values)
    out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
    return out.reshape(np.shape(values)).astype(out_type.as_numpy_dtype)


not_differentiable("SearchSorted")


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each value, its insertion index in the (row-wise) sorted sequence."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    a = ops.convert_to_tensor(sorted_sequence)
    v = ops.convert_to_tensor(values, dtype=a.dtype.base_dtype)
    return make_tensor("SearchSorted", [a, v], {"side": side, "out_type": dtypes.as_dtype(out_type)},
                       name or "SearchSorted")


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin index of each value in ``nbins`` equal bins over ``value_range`` (outliers in the end bins)."""
    with ops.name_scope(name, "histogram_fixed_width_bins", [values, value_range]):
        values = math_ops.cast(ops.convert_to_tensor(values), dtypes.float64)
        value_range = math_ops.cast(ops.convert_to_tensor(value_range), dtypes.float64)
        low, high = value_range[0], value_range[1]
        scaled = (values - low) / (high - low)
        index = math_ops.cast(math_ops.floor(scaled * nbins), dtypes.int64)
        index = math_ops.maximum(math_ops.minimum(index, nbins - 1), 0)
        return math_ops.cast(index, dtype)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """How many values fall in each of ``nbins`` equal bins over ``value_range``."""
    with ops.name_scope(name, "histogram_fixed_width", [values, value_range]):
        bins = array_ops.reshape(histogram_fixed_width_bins(values, value_range, nbins), [-1])
        return math_ops.cast(bincount(bins, minlength=nbins, maxlength=nbins), dtype)


# ---------------------------------------------------------------------------
# ReverseSequence


@register_op("ReverseSequence", shape=lambda op: op.inputs[0].shape)
def _reverse_sequence_kernel(xp, x, lengths, *, seq_dim, batch_dim):
    out = np.array(x, copy=True)
    for b, n in enumerate(np.asarray(lengths).reshape(-1)):
        n = int(n)
        if n > x.shape[seq_dim]:
            raise errors.InvalidArgumentError(None, None, f"seq_lengths[{b}] = {n} is larger than the sequence "
                                                          f"dimension {x.shape[seq_dim]}")
        index = [slice(None)] * x.ndim
        index[batch_dim] = b
        index[seq_dim] = slice(0, n)
        src = tuple(index)
        out[src] = np.flip(x[src], axis=seq_dim - (1 if batch_dim < seq_dim else 0))
    return out


@register_gradient("ReverseSequence")
def _reverse_sequence_grad(op, grad):
    return (reverse_sequence(grad, op.inputs[1], op.get_attr("seq_dim"), op.get_attr("batch_dim")), None)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None,  # noqa: A002
                     batch_dim=None):
    """Reverses the first ``seq_lengths[b]`` entries along ``seq_axis`` of each batch entry b."""
    seq_axis = seq_dim if seq_axis is None else seq_axis
    batch_axis = (batch_dim if batch_dim is not None else 0) if batch_axis is None else batch_axis
    x = ops.convert_to_tensor(input)
    return make_tensor("ReverseSequence", [x, ops.convert_to_tensor(seq_lengths)],
                       {"seq_dim": int(seq_axis), "batch_dim": int(batch_axis)}, name or "ReverseSequence")


# ---------------------------------------------------------------------------
# Lgamma


_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def digamma_values(x):
    """digamma by recurrence to x >= 6 and the asymptotic series (1e-12 relative)."""
    x = np.asarray(x, dtype=np.float64)
    result = np.zeros_like(x)
    while np.any(x < 6):
        small = x < 6
        result = np.where(small, result - 1 / x, result)
        x = np.where(small, x + 1, x)
    inv = 1 / x
    inv2 = inv * inv
    return result + np.log(x) - 0.5 * inv - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 / 240)))


@register_op("Lgamma", shape=lambda op: op.inputs[0].shape)
def _lgamma_kernel(xp, x):
    return np.asarray(_lgamma(x)).astype(x.dtype)


@register_op("Digamma", shape=lambda op: op.inputs[0].shape)
def _digamma_kernel(xp, x):
    return np.asarray(digamma_values(x)).astype(x.dtype)


@register_gradient("Lgamma")
def _lgamma_grad(op, g):
    return (g * digamma(op.inputs[0]),)


def lgamma(x, name=None):
    """log(|Gamma(x)|)."""
    return make_tensor("Lgamma", [ops.convert_to_tensor(x)], None, name or "Lgamma")


def digamma(x, name=None):
    """The derivative of lgamma (its own gradient, polygamma(1, x), is not implemented)."""
    return make_tensor("Digamma", [ops.convert_to_tensor(x)], None, name or "Digamma")


def lbeta(x, name=None):
    """log|Beta(x)| along the last axis: sum(lgamma(x)) - lgamma(sum(x)) (0 for an empty last axis)."""
    with ops.name_scope(name, "lbeta", [x]):
        x = ops.convert_to_tensor(x)
        return reduce_sum(lgamma(x), -1) - lgamma(reduce_sum(x, -1))


# ---------------------------------------------------------------------------
# Small compositions


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of ``inputs`` (add_n; TF accumulated them in place)."""
    return math_ops.add_n(list(inputs), name=name or "AccumulateN")


def guarantee_const(input, name=None):  # noqa: A002
    """``input``, promised constant (an identity here)."""
    return array_ops.identity(input, name=name or "GuaranteeConst")


def grad_pass_through(f):
    """``f`` in the forward pass, the identity in the backward one."""

    @functools.wraps(f)
    def wrapped(x):
        x = ops.convert_to_tensor(x)
        y = ops.convert_to_tensor(f(x))
        return x + array_ops.stop_gradient(y - x)

    return wrapped


def broadcast_static_shape(shape_x, shape_y):
    return broadcast_shape(shape_x, shape_y)


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two shapes given as 1-D tensors."""
    with ops.name_scope(None, "BroadcastArgs", [shape_x, shape_y]):
        x = array_ops.zeros(ops.convert_to_tensor(shape_x, dtype=dtypes.int32), dtypes.int8)
        y = array_ops.zeros(ops.convert_to_tensor(shape_y, dtype=dtypes.int32), dtypes.int8)
        return array_ops.shape(x + y)


def random_crop(value, size, seed=None, name=None):
    """A random slice of ``value`` of shape ``size`` (the same offset drawn for every dimension at once)."""
    with ops.name_scope(name, "random_crop", [value, size]):
        value = ops.convert_to_tensor(value)
        size = ops.convert_to_tensor(size, dtype=dtypes.int32)
        limit = array_ops.shape(value) - size + 1
        offset = random_ops.random_uniform(array_ops.shape(limit), dtype=dtypes.int32, maxval=dtypes.int32.max,
                                           seed=seed) % limit
        return slicing_ops.slice(value, offset, size)


@register_op("Multinomial", shape=lambda op: TensorShape([op.inputs[0].shape[0], None]),
             dtype=lambda op: op.get_attr("output_dtype"), stateful=True)
def _multinomial_kernel(ctx, logits, num_samples, *, seed, seed2, output_dtype):
    gen = seeded_generator(ctx, seed, seed2)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    n = int(num_samples)
    return np.stack([gen.choice(p.shape[1], size=n, p=row) for row in p]).astype(output_dtype.as_numpy_dtype)


not_differentiable("Multinomial")


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """``num_samples`` class indices per row, drawn from the softmax of ``logits`` [batch, classes]."""
    logits = ops.convert_to_tensor(logits)
    attrs = {**seed_attrs(seed), "output_dtype": dtypes.as_dtype(output_dtype or dtypes.int64)}
    return make_tensor("Multinomial", [logits, ops.convert_to_tensor(num_samples, dtype=dtypes.int32)], attrs,
                       name or "Multinomial")


# ---------------------------------------------------------------------------
# Tensors as bytes, file patterns


@register_op("SerializeTensor", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.string)
def _serialize_tensor_kernel(xp, tensor):
    return np.array(wire.tensor_to_proto(tensor).SerializeToString(), dtype=object)


@register_op("ParseTensor", shape=lambda op: TensorShape(None), dtype=lambda op: op.get_attr("out_type"))
def _parse_tensor_kernel(xp, serialized, *, out_type):
    from ..protos import distflow_pb2  # noqa: PLC0415

    proto = distflow_pb2.TensorProto.FromString(serialized.item() if hasattr(serialized, "item") else serialized)
    value = wire.tensor_from_proto(proto, writable=True)
    if dtypes.as_dtype(value.dtype if value.dtype != object else dtypes.string) != out_type:
        raise errors.InvalidArgumentError(None, None, f"Type mismatch between parsed tensor ({value.dtype}) and "
                                                      f"dtype ({out_type.name})")
    return value


@register_op("MatchingFiles", shape=lambda op: TensorShape([None]), dtype=lambda op: dtypes.string)
def _matching_files_kernel(xp, pattern):
    patterns = [p.decode() if isinstance(p, bytes) else str(p) for p in np.asarray(pattern, dtype=object).reshape(-1)]
    return np.array([f.encode() for p in patterns for f in sorted(_glob.glob(p))], dtype=object)


for _t in ("SerializeTensor", "ParseTensor", "MatchingFiles"):
    not_differentiable(_t)


def serialize_tensor(tensor, name=None):
    """``tensor`` as the bytes of a TensorProto."""
    return make_tensor("SerializeTensor", [ops.convert_to_tensor(tensor)], None, name or "SerializeTensor")


def parse_tensor(serialized, out_type, name=None):
    """The tensor a serialized TensorProto holds (InvalidArgumentError if its dtype is not ``out_type``)."""
    return make_tensor("ParseTensor", [ops.convert_to_tensor(serialized, dtype=dtypes.string)],
                       {"out_type": dtypes.as_dtype(out_type)}, name or "ParseTensor")


def matching_files(pattern, name=None):
    """The files matching a glob pattern (or several), sorted."""
    return make_tensor("MatchingFiles", [ops.convert_to_tensor(pattern, dtype=dtypes.string)], None,
                       name or "MatchingFiles")


# ---------------------------------------------------------------------------
# make_template


class Template:
    """A function whose variables are created on the first call and shared by the later ones."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None, custom_getter=None):
        self._name = name
        self._func = func
        self._scope = None
        self._calls = 0
        self._unique_name = unique_name  # (the scope's name as given, not made unique: TF's unique_name_)
        self._custom_getter = custom_getter
        if create_scope_now:
            with self._first_scope() as scope:
                self._scope = scope

    def _first_scope(self):
        if self._unique_name is not None:
            return variable_scope(self._unique_name, custom_getter=self._custom_getter)
        return variable_scope(None, default_name=self._name, custom_getter=self._custom_getter)

    def __call__(self, *args, **kwargs):
        if self._calls == 0:
            scope_ctx = self._first_scope() if self._scope is None else variable_scope(self._scope)
            with scope_ctx as scope:
                self._scope = scope
                result = self._func(*args, **kwargs)
        else:
            with variable_scope(self._scope, reuse=True):
                result = self._func(*args, **kwargs)
        self._calls += 1
        return result

    @property
    def variable_scope(self):
        return self._scope

    @property
    def variable_scope_name(self) -> str:
        return self._scope.name if self._scope is not None else ""


def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None, **kwargs):
    """``func_`` wrapped so that every call shares the variables the first call made (get_variable)."""
    return Template(name_, functools.partial(func_, **kwargs) if kwargs else func_, create_scope_now_, unique_name_,
                    custom_getter_)
