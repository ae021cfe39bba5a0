"""Segment reductions, partition and stitch, unique, einsum and its relatives (tensordot,
cross), and reductions built from the basic ones (logsumexp, norm, count_nonzero)."""

from __future__ import annotations

import collections

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, math_ops, reduction_ops, slicing_ops, special_math_ops
from .check_ops import assert_less, assert_non_negative
from .op_util import constant_value, make_op, make_tensor
from .weights_broadcast_ops import adjust_last_dimension

# ---------------------------------------------------------------------------
# UnsortedSegment{Sum,Max,Min,Prod}; the sorted segment ops share the kernels


def _segment_shape(op):
    data, ids = op.inputs[0], op.inputs[1]
    n = constant_value(op.inputs[2]) if len(op.inputs) > 2 else None
    if data.shape.ndims is None or ids.shape.ndims is None:
        return TensorShape(None)
    if ids.shape.ndims > data.shape.ndims or not data.shape[:ids.shape.ndims].is_compatible_with(ids.shape):
        raise ValueError(f"data.shape = {data.shape} does not start with segment_ids.shape = {ids.shape}")
    return TensorShape([None if n is None else int(n)]).concatenate(data.shape[ids.shape.ndims:])


_IDENTITY = {"sum": 0, "prod": 1, "max": -np.inf, "min": np.inf}
_UFUNC = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def _segment_reduce(kind, data, ids, num_segments):
    num_segments = int(num_segments)
    ids = np.asarray(ids)
    if data.shape[:ids.ndim] != ids.shape:
        raise errors.InvalidArgumentError(None, None, f"segment_ids should be the same size as dimension 0 of input: "
                                                      f"data.shape = {list(data.shape)} does not start with "
                                                      f"segment_ids.shape = {list(ids.shape)}")
    if ids.size and (ids.max() >= num_segments):
        raise errors.InvalidArgumentError(None, None, f"segment id {ids.max()} is out of range [0, {num_segments})")
    tail = data.shape[ids.ndim:]
    flat_ids = ids.reshape(-1)
    flat = data.reshape((flat_ids.size,) + tail)
    identity = _IDENTITY[kind]
    if kind in ("max", "min") and data.dtype.kind in "iuf":  # (TF's lowest() and max() of the dtype)
        info = np.iinfo(data.dtype) if data.dtype.kind in "iu" else np.finfo(data.dtype)
        identity = info.min if kind == "max" else info.max
    out = np.full((num_segments,) + tail, identity, dtype=data.dtype)
    keep = flat_ids >= 0  # negative ids are dropped, as in TF
    _UFUNC[kind].at(out, flat_ids[keep], flat[keep])
    return out


for _kind in ("sum", "prod", "max", "min"):
    register_op(f"UnsortedSegment{_kind.capitalize()}", shape=_segment_shape)(
        (lambda k: lambda xp, data, ids, num_segments: _segment_reduce(k, data, ids, num_segments))(_kind))


@register_gradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op, g):
    return _gather_dropping_negative(g, op.inputs[1]), None, None


def _gather_dropping_negative(g, ids):
    safe = math_ops.maximum(ids, 0)
    gathered = slicing_ops.gather(g, safe)
    valid = math_ops.cast(math_ops.greater_equal(ids, 0), g.dtype.base_dtype)
    if gathered.shape.ndims is not None and ids.shape.ndims is not None:  # (known ranks: fewer ops)
        for _ in range(gathered.shape.ndims - ids.shape.ndims):
            valid = array_ops.expand_dims(valid, -1)
        return gathered * valid
    extra = array_ops.rank(gathered) - array_ops.rank(ids)
    valid = array_ops.reshape(valid, slicing_ops.concat([array_ops.shape(ids), array_ops.ones([extra],
                                                                                            dtypes.int32)], 0))
    return gathered * valid


def _extremum_segment_grad(op, g):
    data, ids = op.inputs[0], op.inputs[1]
    chosen = _gather_dropping_negative(op.outputs[0], ids)
    hit = math_ops.cast(math_ops.equal(data, chosen), g.dtype.base_dtype)
    counts = unsorted_segment_sum(hit, ids, op.inputs[2])
    return hit * _gather_dropping_negative(g / math_ops.maximum(counts, 1), ids), None, None


@register_gradient("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op, g):
    # d prod / d x_i = prod / x_i where the segment has no zero; with one zero, the product of
    # the others at that zero (0 elsewhere); with two or more, 0 everywhere.
    data, ids, num_segments = op.inputs
    is_zero = math_ops.equal(data, 0)
    zeros = unsorted_segment_sum(math_ops.cast(is_zero, dtypes.int32), ids, num_segments)
    g = math_ops.where(math_ops.greater(zeros, 1), array_ops.zeros_like(g), g)
    nonzero = math_ops.where(is_zero, array_ops.ones_like(data), data)
    others = _gather_dropping_negative(unsorted_segment_prod(nonzero, ids, num_segments), ids)
    partial = math_ops.where(is_zero, others, _gather_dropping_negative(op.outputs[0], ids) / nonzero)
    return _gather_dropping_negative(g, ids) * partial, None, None


register_gradient("UnsortedSegmentMax")(_extremum_segment_grad)
register_gradient("UnsortedSegmentMin")(_extremum_segment_grad)


def _segment(kind, data, segment_ids, num_segments, name):
    data = ops.convert_to_tensor(data)
    segment_ids = ops.convert_to_tensor(segment_ids)
    if segment_ids.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"segment_ids must be int32 or int64, got {segment_ids.dtype.name}")
    if isinstance(num_segments, ops.Tensor):  # (int32 or int64, whatever the ids' type: TF's Tnumsegments)
        if num_segments.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"num_segments must be int32 or int64, got {num_segments.dtype.name}")
        n = num_segments
    else:
        n = ops.convert_to_tensor(num_segments, dtype=segment_ids.dtype.base_dtype)
    return make_tensor(f"UnsortedSegment{kind.capitalize()}", [data, segment_ids, n], None,
                       name or f"UnsortedSegment{kind.capitalize()}")


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """``out[i] = sum of data[j] with segment_ids[j] == i`` (0 for an empty segment; negative ids dropped)."""
    return _segment("sum", data, segment_ids, num_segments, name)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    return _segment("prod", data, segment_ids, num_segments, name)


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """The largest entry of each segment (the dtype's lowest value for an empty one, as TF)."""
    return _segment("max", data, segment_ids, num_segments, name)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    return _segment("min", data, segment_ids, num_segments, name)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    with ops.name_scope(name, "UnsortedSegmentMean", [data, segment_ids]):
        data = ops.convert_to_tensor(data)
        total = unsorted_segment_sum(data, segment_ids, num_segments)
        return total / _expand_to(math_ops.maximum(_counts(data, segment_ids, num_segments), 1), total)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The segment sums divided by the square root of each segment's size."""
    with ops.name_scope(name, "UnsortedSegmentSqrtN", [data, segment_ids]):
        data = ops.convert_to_tensor(data)
        total = unsorted_segment_sum(data, segment_ids, num_segments)
        return total / _expand_to(math_ops.sqrt(math_ops.maximum(_counts(data, segment_ids, num_segments), 1)), total)


def _counts(data, segment_ids, num_segments):
    """How many entries each segment has, in ``data``'s dtype."""
    return unsorted_segment_sum(array_ops.ones_like(segment_ids, dtype=data.dtype.base_dtype), segment_ids,
                                num_segments)


def _expand_to(counts, total):
    extra = array_ops.rank(total) - 1
    return array_ops.reshape(counts, slicing_ops.concat([array_ops.shape(counts), array_ops.ones([extra],
                                                                                               dtypes.int32)], 0))


@register_op("SortedSegmentCount", shape=lambda op: TensorShape([]))
def _sorted_segment_count_kernel(xp, ids):
    """The number of segments of sorted ``segment_ids`` (the largest + 1; 0 for none), which
    must be a vector of non-negative, non-decreasing ids, as TensorFlow's segment ops check."""
    ids = np.asarray(ids)
    if ids.ndim != 1:
        raise errors.InvalidArgumentError(None, None, f"segment_ids should be a vector, got shape {list(ids.shape)}")
    if ids.size and ids.min() < 0:
        raise errors.InvalidArgumentError(None, None, f"segment ids must be >= 0, got {ids.min()} at "
                                                      f"{int(np.argmin(ids))}")
    if ids.size > 1 and (np.diff(ids) < 0).any():
        k = int(np.argmax(np.diff(ids) < 0))
        raise errors.InvalidArgumentError(None, None, f"segment ids are not increasing: {ids[k]} at {k} is "
                                                      f"followed by {ids[k + 1]}")
    return np.asarray(ids[-1] + 1 if ids.size else 0, dtype=ids.dtype)


not_differentiable("SortedSegmentCount")


def _sorted_count(segment_ids):
    if segment_ids.shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {segment_ids.shape.ndims}: the segment_ids of a sorted "
                         f"segment op are a vector, got shape {segment_ids.shape}")
    return make_tensor("SortedSegmentCount", [segment_ids], None, "SortedSegmentCount")


def segment_sum(data, segment_ids, name=None):
    """Sums over runs of equal, sorted ``segment_ids`` (one row per id up to the largest)."""
    return unsorted_segment_sum(data, segment_ids, _sorted_count(ops.convert_to_tensor(segment_ids)), name)


def segment_prod(data, segment_ids, name=None):
    return unsorted_segment_prod(data, segment_ids, _sorted_count(ops.convert_to_tensor(segment_ids)), name)


def _sorted_extremum(reduce, data, segment_ids, name):
    """A sorted segment max or min: 0 for an id no entry has, as TF's (the unsorted ops give
    the dtype's extreme there)."""
    data, segment_ids = ops.convert_to_tensor(data), ops.convert_to_tensor(segment_ids)
    n = _sorted_count(segment_ids)
    out = reduce(data, segment_ids, n, name)
    # (the extreme the unsorted op leaves in an empty segment is finite: times 0 it is 0)
    return out * _expand_to(math_ops.minimum(_counts(data, segment_ids, n), 1), out)


def segment_max(data, segment_ids, name=None):
    return _sorted_extremum(unsorted_segment_max, data, segment_ids, name)


def segment_min(data, segment_ids, name=None):
    return _sorted_extremum(unsorted_segment_min, data, segment_ids, name)


def segment_mean(data, segment_ids, name=None):
    return unsorted_segment_mean(data, segment_ids, _sorted_count(ops.convert_to_tensor(segment_ids)), name)


# ---------------------------------------------------------------------------
# DynamicPartition, DynamicStitch


def _dynamic_partition_shape(op):
    """Each output: an unknown number of the rows of ``data`` after ``partitions``' dimensions
    (which must be ``data``'s first ones)."""
    data, partitions = op.inputs
    n = op._attr("num_partitions")
    if data.shape.ndims is None or partitions.shape.ndims is None:
        return [TensorShape(None)] * n
    if not data.shape[:partitions.shape.ndims].is_compatible_with(partitions.shape):
        raise ValueError(f"DynamicPartition '{op.name}': partitions' shape {partitions.shape} must be a prefix of "
                         f"data's {data.shape}")
    return [TensorShape([None]).concatenate(data.shape[partitions.shape.ndims:])] * n


@register_op("DynamicPartition", list_output=True, shape=_dynamic_partition_shape,
             dtype=lambda op: [op.inputs[0].dtype.base_dtype] * op._attr("num_partitions"))
def _dynamic_partition_kernel(xp, data, partitions, *, num_partitions):
    partitions = np.asarray(partitions)
    bad = (partitions < 0) | (partitions >= num_partitions)
    if bad.any():  # (TF's message: where the first one is)
        where = ",".join(str(int(i)) for i in np.unravel_index(int(np.argmax(bad)), partitions.shape))
        raise errors.InvalidArgumentError(None, None, f"partitions{f'[{where}]' if where else ''} = "
                                                      f"{int(partitions[bad][0])} is not in [0, {num_partitions})")
    if data.shape[:partitions.ndim] != partitions.shape:
        raise errors.InvalidArgumentError(None, None, f"data.shape must start with partitions.shape, got data.shape "
                                                      f"= {list(data.shape)}, partitions.shape = "
                                                      f"{list(partitions.shape)}")
    flat = data.reshape((partitions.size,) + data.shape[partitions.ndim:])  # (an empty batch too)
    flat_p = partitions.reshape(-1)
    return tuple(flat[flat_p == i] for i in range(num_partitions))


@register_gradient("DynamicPartition")
def _dynamic_partition_grad(op, *grads):
    data, partitions = op.inputs
    n = op._attr("num_partitions")
    original = array_ops.reshape(math_ops.range_(array_ops.size(partitions)), array_ops.shape(partitions))
    indices = dynamic_partition(original, partitions, n)
    stitched = dynamic_stitch(indices, list(grads))
    return array_ops.reshape(stitched, array_ops.shape(data)), None


def dynamic_partition(data, partitions, num_partitions, name=None) -> list:
    """``outputs[i]`` holds the rows of ``data`` whose ``partitions`` entry is i, in order."""
    data = ops.convert_to_tensor(data)
    partitions = ops.convert_to_tensor(partitions, dtype=dtypes.int32)
    return list(make_op("DynamicPartition", [data, partitions], {"num_partitions": int(num_partitions)},
                        name or "DynamicPartition").outputs)


@register_op("DynamicStitch", shape=lambda op: TensorShape(None), dtype=lambda op: op.inputs[-1].dtype.base_dtype)
def _dynamic_stitch_kernel(xp, *indices_and_data, N):  # noqa: N803 - TF's attr name
    indices, data = indices_and_data[:N], indices_and_data[N:]
    size = max((int(np.max(i)) + 1 for i in indices if np.size(i)), default=0)
    tail = data[0].shape[np.ndim(indices[0]):]
    out = np.zeros((size,) + tail, dtype=data[0].dtype)
    for idx, d in zip(indices, data):
        out[np.reshape(idx, -1)] = d.reshape((-1,) + tail)
    return out


@register_gradient("DynamicStitch")
def _dynamic_stitch_grad(op, g):
    n = op._attr("N")
    indices = op.inputs[:n]
    return [None] * n + [slicing_ops.gather(g, i) for i in indices]


def dynamic_stitch(indices, data, name=None):
    """``merged[indices[m][i]] = data[m][i]``: the inverse of dynamic_partition (later entries win)."""
    indices = [ops.convert_to_tensor(i, dtype=dtypes.int32) for i in indices]
    data = [ops.convert_to_tensor(d) for d in data]
    return make_tensor("DynamicStitch", indices + data, {"N": len(indices)}, name or "DynamicStitch")


# ---------------------------------------------------------------------------
# Unique, setdiff1d, bincount


@register_op("UniqueWithCounts", list_output=True, shape=lambda op: [TensorShape([None]), op.inputs[0].shape,
                                                                      TensorShape([None])],
             dtype=lambda op: [op.inputs[0].dtype.base_dtype, op._attr("out_idx"), op._attr("out_idx")])
def _unique_kernel(xp, x, *, out_idx):
    values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")  # TF keeps the order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    idx_type = out_idx.as_numpy_dtype
    return values[order], rank[inverse.reshape(-1)].astype(idx_type), counts[order].astype(idx_type)


not_differentiable("UniqueWithCounts")


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """(unique values in order of first appearance, each entry's index into them, their counts)."""
    x = ops.convert_to_tensor(x)
    if x.shape.ndims not in (None, 1):
        raise ValueError(f"unique needs a 1-D tensor, got shape {x.shape}")
    outs = make_op("UniqueWithCounts", [x], {"out_idx": dtypes.as_dtype(out_idx)}, name or "UniqueWithCounts").outputs
    return UniqueWithCounts(*outs)


UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])
Unique = collections.namedtuple("Unique", ["y", "idx"])
ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def unique(x, out_idx=dtypes.int32, name=None):
    """(unique values in order of first appearance, each entry's index into them), TF's named pair."""
    y, idx, _ = unique_with_counts(x, out_idx, name or "Unique")
    return Unique(y, idx)


@register_op("ListDiff", list_output=True, shape=lambda op: [TensorShape([None])] * 2,
             dtype=lambda op: [op.inputs[0].dtype.base_dtype, op._attr("out_idx")])
def _list_diff_kernel(xp, x, y, *, out_idx):
    keep = ~np.isin(x, y)
    return x[keep], np.nonzero(keep)[0].astype(out_idx.as_numpy_dtype)


not_differentiable("ListDiff")


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """(the entries of x not in y, in order; their positions in x)."""
    x = ops.convert_to_tensor(x)
    y = ops.convert_to_tensor(y, dtype=x.dtype.base_dtype)
    return ListDiff(*make_op("ListDiff", [x, y], {"out_idx": dtypes.as_dtype(index_dtype)}, name or "ListDiff").outputs)


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None):
    """Counts (or sums ``weights``) of each value 0 .. max(arr) in ``arr``."""
    with ops.name_scope(name, "bincount", [arr, weights]):
        arr = ops.convert_to_tensor(arr, dtype=dtypes.int32)
        with ops.control_dependencies([assert_non_negative(arr, message="Input arr must be non-negative!")]):
            arr = array_ops.identity(arr)
        # (no values: no bins, where the largest of none would be int32's lowest)
        size = math_ops.cast(array_ops.size(arr) > 0, dtypes.int32) * (reduction_ops.reduce_max(arr) + 1)
        if minlength is not None:
            size = math_ops.maximum(size, minlength)
        if maxlength is not None:
            size = math_ops.minimum(size, maxlength)
            arr = math_ops.where(math_ops.less(arr, maxlength), arr, -array_ops.ones_like(arr))
        values = array_ops.ones_like(arr, dtype=dtype) if weights is None else ops.convert_to_tensor(weights)
        return unsorted_segment_sum(values, arr, size)


# ---------------------------------------------------------------------------
# Einsum, tensordot, cross


def _einsum_shape(op):
    equation = op._attr("equation")
    inputs, _, output = equation.partition("->")
    sizes = {}
    for spec, t in zip(inputs.split(","), op.inputs):
        if t.shape.ndims is None or "." in spec:
            return TensorShape(None)
        for letter, dim in zip(spec, t.shape.as_list()):
            if dim is not None:
                sizes[letter] = dim
    return TensorShape([sizes.get(letter) for letter in output])


@register_op("Einsum", shape=_einsum_shape)
def _einsum_kernel(xp, *inputs, equation):
    return np.asarray(np.einsum(equation, *inputs, optimize=len(inputs) > 2))


@register_gradient("Einsum")
def _einsum_grad(op, g):
    # The gradient of operand i is the einsum of g and the other operands into operand i's
    # indices. An index of operand i that appears nowhere else (summed away) comes back by a
    # product with ones of its size; a repeated one (a diagonal) by a product with the
    # identity, under a fresh letter for each repetition.
    equation = op._attr("equation")
    lhs, _, out = equation.partition("->")
    specs = lhs.split(",")
    unused = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in equation]
    grads = []
    for i, spec in enumerate(specs):
        x = op.inputs[i]
        others = [s for j, s in enumerate(specs) if j != i]
        operand_specs, operands = [out] + others, [g] + [t for j, t in enumerate(op.inputs) if j != i]
        available = set(out).union(*others)
        if "." in spec and (len(set(spec) - {"."}) != len(spec.replace(".", "")) or not set(spec) <= available):
            raise NotImplementedError(f"the gradient of einsum '{equation}' for operand {i} (an ellipsis with a "
                                      "repeated or summed-away index) is not supported by distflow")
        full, seen = [], set()
        for pos, c in enumerate(spec):
            if c == ".":
                full.append(c)
                continue
            size = array_ops.shape(x)[pos]
            if c in seen:  # a repetition: the identity links it to the first
                fresh = unused.pop(0)
                operand_specs.append(c + fresh)
                operands.append(_identity_of_size(size, x.dtype.base_dtype))
                c = fresh
            elif c not in available:  # summed away
                operand_specs.append(c)
                operands.append(array_ops.ones(array_ops.reshape(size, [1]), x.dtype.base_dtype))
            seen.add(c)
            full.append(c)
        grads.append(einsum(",".join(operand_specs) + "->" + "".join(full), *operands))
    return grads


def _identity_of_size(n, dtype):
    r = math_ops.range_(n)
    return math_ops.cast(math_ops.equal(array_ops.expand_dims(r, 1), array_ops.expand_dims(r, 0)), dtype)


def _normalize_equation(equation: str, n: int) -> str:
    equation = equation.replace(" ", "")
    if "->" in equation:
        return equation
    letters = equation.replace(",", "")
    output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return f"{equation}->{output}"


def einsum(equation, *inputs, **kwargs):
    """Einstein summation, as NumPy's einsum (explicit or implicit output)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"invalid keyword arguments: {sorted(kwargs)}")
    tensors = [ops.convert_to_tensor(t) for t in inputs]
    equation = _normalize_equation(equation, len(tensors))
    if len(equation.partition("->")[0].split(",")) != len(tensors):
        raise ValueError(f"einsum '{equation}' names {len(equation.split(','))} operands, got {len(tensors)}")
    return make_tensor("Einsum", tensors, {"equation": equation}, name or "Einsum")


def tensordot(a, b, axes, name=None):
    """Sums the products of ``a`` and ``b`` over ``axes`` (an int: the last n of a with the first n of b)."""
    a = ops.convert_to_tensor(a)
    b = ops.convert_to_tensor(b, dtype=a.dtype.base_dtype)
    if a.shape.ndims is None or b.shape.ndims is None:
        return _tensordot_of_unknown_rank(a, b, axes, name)
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    ra, rb = a.shape.ndims, b.shape.ndims
    if isinstance(axes, int):
        a_axes, b_axes = list(range(ra - axes, ra)), list(range(axes))
    else:
        a_axes, b_axes = [list(np.atleast_1d(x)) for x in axes]
    a_axes = [x % ra for x in a_axes]
    b_axes = [x % rb for x in b_axes]
    sa = [next(letters) for _ in range(ra)]
    sb = [next(letters) for _ in range(rb)]
    for i, j in zip(a_axes, b_axes):
        sb[j] = sa[i]
    out = [c for k, c in enumerate(sa) if k not in a_axes] + [c for k, c in enumerate(sb) if k not in b_axes]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b, name=name or "Tensordot")


def _tensordot_of_unknown_rank(a, b, axes, name):
    """tensordot where a rank is known only when the step runs: each input transposed so
    that its summed axes are last (a) or first (b), flattened to a matrix, multiplied, and
    the product shaped as the free dimensions of a, then of b."""
    with ops.name_scope(name, "Tensordot", [a, b]) as scope:
        ra, rb = array_ops.rank(a), array_ops.rank(b)
        if isinstance(axes, (int, np.integer)):
            a_axes, b_axes = math_ops.range_(ra - int(axes), ra), math_ops.range_(0, int(axes))
        else:
            a_axes, b_axes = [ops.convert_to_tensor(np.atleast_1d(x).astype(np.int32)) for x in axes]
            a_axes, b_axes = math_ops.floormod(a_axes, ra), math_ops.floormod(b_axes, rb)
        a2, a_free = _as_matrix(a, ra, a_axes, axes_first=False)
        b2, b_free = _as_matrix(b, rb, b_axes, axes_first=True)
        return array_ops.reshape(math_ops.matmul(a2, b2), slicing_ops.concat([a_free, b_free], 0), name=scope)


def _as_matrix(x, rank, axes, axes_first: bool):
    """``x`` as a matrix of its free dimensions by its ``axes`` (or the transpose), and the
    free dimensions' sizes."""
    shape = array_ops.shape(x)
    free = setdiff1d(math_ops.range_(0, rank), axes)[0]
    free_dims, axes_dims = slicing_ops.gather(shape, free), slicing_ops.gather(shape, axes)
    rows, cols = reduction_ops.reduce_prod(free_dims), reduction_ops.reduce_prod(axes_dims)
    perm = slicing_ops.concat([axes, free], 0) if axes_first else slicing_ops.concat([free, axes], 0)
    matrix_shape = array_ops.stack([cols, rows] if axes_first else [rows, cols])
    return array_ops.reshape(array_ops.transpose(x, perm), matrix_shape), free_dims


@register_op("Cross", shape=lambda op: op.inputs[0].shape)
def _cross_kernel(xp, a, b):
    return np.cross(a, b)


@register_gradient("Cross")
def _cross_grad(op, g):
    a, b = op.inputs
    return cross(b, g), cross(g, a)


def cross(a, b, name=None):
    """The cross product of 3-vectors (the last axis)."""
    a = ops.convert_to_tensor(a)
    return make_tensor("Cross", [a, ops.convert_to_tensor(b, dtype=a.dtype.base_dtype)], None, name or "Cross")


# ---------------------------------------------------------------------------
# Reductions built from the basic ones


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) over ``axis``, computed without overflow."""
    axis = reduction_indices if axis is None else axis
    keep = bool(keep_dims if keep_dims is not None else keepdims)
    with ops.name_scope(name, "ReduceLogSumExp", [input_tensor]):
        x = ops.convert_to_tensor(input_tensor)
        top = array_ops.stop_gradient(reduction_ops.reduce_max(x, axis, keepdims=True))
        top = math_ops.where(special_math_ops.is_finite(top), top, array_ops.zeros_like(top))
        result = math_ops.log(reduction_ops.reduce_sum(math_ops.exp(x - top), axis, keepdims=keep))
        if not keep:  # (the maximum without its reduced dimensions; the axis may be a tensor)
            top = array_ops.reshape(top, array_ops.shape(result))
        return result + top


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None):  # noqa: A002
    """How many entries are not zero, over ``axis``."""
    input_tensor = input if input_tensor is None else input_tensor
    axis = reduction_indices if axis is None else axis
    keep = bool(keep_dims if keep_dims is not None else keepdims)
    with ops.name_scope(name, "count_nonzero", [input_tensor]):
        x = ops.convert_to_tensor(input_tensor)
        nonzero = math_ops.cast(math_ops.not_equal(x, array_ops.zeros_like(x)), dtypes.int64)
        return math_ops.cast(reduction_ops.reduce_sum(nonzero, axis, keepdims=keep), dtype)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """The vector norm over ``axis`` (all entries by default): euclidean/2/'fro', 1, np.inf or
    any p > 0; with two axes, TF's matrix norm over them: 'euclidean'/'fro' (Frobenius), 1
    (the largest column sum of magnitudes), np.inf (the largest row sum) or 2 (the largest
    singular value)."""
    keep = bool(keep_dims if keep_dims is not None else keepdims)
    with ops.name_scope(name, "norm", [tensor]):
        x = ops.convert_to_tensor(tensor)
        if isinstance(axis, (list, tuple)) and len(axis) == 2:
            return _matrix_norm(x, ord, [int(a) for a in axis], keep)
        if ord in ("euclidean", "fro", 2, 2.0):
            return math_ops.sqrt(reduction_ops.reduce_sum(x * x, axis, keepdims=keep))
        if ord in (1, 1.0):
            return reduction_ops.reduce_sum(math_ops.abs(x), axis, keepdims=keep)
        if ord == np.inf:
            return reduction_ops.reduce_max(math_ops.abs(x), axis, keepdims=keep)
        if isinstance(ord, (int, float)) and ord > 0:
            return math_ops.pow(reduction_ops.reduce_sum(math_ops.pow(math_ops.abs(x), float(ord)), axis,
                                                         keepdims=keep), 1.0 / ord)
        raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}")


def _matrix_norm(x, ord, axes, keep):  # noqa: A002
    rank = x.shape.ndims
    if rank is None:
        raise ValueError("norm over two axes needs a tensor of known rank")
    rows, cols = (a % rank for a in axes)
    if rows == cols:
        raise ValueError(f"norm: the two axes must differ, got {axes}")
    if ord in ("euclidean", "fro"):
        out = math_ops.sqrt(reduction_ops.reduce_sum(x * x, [rows, cols], keepdims=True))
    elif ord in (1, 1.0):
        out = reduction_ops.reduce_max(reduction_ops.reduce_sum(math_ops.abs(x), rows, keepdims=True), cols,
                                       keepdims=True)
    elif ord == np.inf:
        out = reduction_ops.reduce_max(reduction_ops.reduce_sum(math_ops.abs(x), cols, keepdims=True), rows,
                                       keepdims=True)
    elif ord in (2, 2.0):
        from .linalg_ops import svd  # noqa: PLC0415

        perm = [a for a in range(rank) if a not in (rows, cols)] + [rows, cols]
        singular = svd(array_ops.transpose(x, perm), compute_uv=False)
        out = reduction_ops.reduce_max(singular, -1)
        for a in sorted((rows, cols)):
            out = array_ops.expand_dims(out, a)
    else:
        raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, np.inf], got {ord!r}")
    return out if keep else array_ops.squeeze(out, [rows, cols])


def remove_squeezable_dimensions(labels, predictions, expected_rank_diff=0, name=None):
    """``(labels, predictions)`` with a last dimension dropped from the one whose rank is one
    more than ``expected_rank_diff`` allows (TF's; where a rank is known only when the step
    runs, that is decided then). Squeezing a last dimension that is not 1 is a ValueError."""
    with ops.name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        labels, predictions = ops.convert_to_tensor(labels), ops.convert_to_tensor(predictions)
        l_rank, p_rank = labels.shape.ndims, predictions.shape.ndims
        if l_rank is not None and p_rank is not None:
            if p_rank - l_rank == expected_rank_diff + 1:
                predictions = array_ops.squeeze(predictions, [-1])
            elif p_rank - l_rank == expected_rank_diff - 1:
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions
        rank_diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if p_rank is None or predictions.shape[-1].is_compatible_with(1):
            predictions = adjust_last_dimension(predictions, rank_diff, squeeze_at=expected_rank_diff + 1)
        if l_rank is None or labels.shape[-1].is_compatible_with(1):
            labels = adjust_last_dimension(labels, rank_diff, squeeze_at=expected_rank_diff - 1)
        return labels, predictions


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32, name=None):
    """``m[i, j]``: how many (or how much weight) of label i were predicted j. A label or
    prediction that is negative, or not under ``num_classes``, fails the step (each would
    count in another cell)."""
    with ops.name_scope(name, "confusion_matrix", [labels, predictions, num_classes, weights]):
        labels, predictions = remove_squeezable_dimensions(labels, predictions)
        labels = math_ops.cast(labels, dtypes.int64)
        predictions = math_ops.cast(predictions, dtypes.int64)
        checks = [assert_non_negative(labels, message="`labels` contains negative values"),
                  assert_non_negative(predictions, message="`predictions` contains negative values")]
        if num_classes is None:
            num_classes = math_ops.maximum(reduction_ops.reduce_max(labels), reduction_ops.reduce_max(predictions)) + 1
        else:
            bound = math_ops.cast(num_classes, dtypes.int64)
            checks += [assert_less(labels, bound, message="`labels` out of bound"),
                       assert_less(predictions, bound, message="`predictions` out of bound")]
        with ops.control_dependencies(checks):
            labels, predictions = array_ops.identity(labels), array_ops.identity(predictions)
        if weights is not None:
            predictions.shape.assert_is_compatible_with(ops.convert_to_tensor(weights).shape)
        n = math_ops.cast(num_classes, dtypes.int64)
        values = array_ops.ones_like(labels, dtype=dtype) if weights is None else math_ops.cast(weights, dtype)
        flat = unsorted_segment_sum(values, labels * n + predictions, n * n)
        return array_ops.reshape(flat, array_ops.stack([n, n]))
