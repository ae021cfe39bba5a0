"""Array manipulation programs reach for: reverse, roll, eye and diagonals, band parts,
linspace, meshgrid, repeat, boolean_mask, sequence_mask, depth/space rearrangements,
cumulative sums and products, sorting, and a few shape helpers."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape, as_shape
from . import array_ops, math_ops, reduction_ops, slicing_ops
from .nd_ops import gather_nd
from .op_util import (COMPLEX, NUMBERS, check_dtype, constant_value, index_tensor, kernel_error, make_tensor,
                      only_default)

# ---------------------------------------------------------------------------
# ReverseV2, Roll


@register_op("ReverseV2", shape=lambda op: op.inputs[0].shape)
def _reverse_kernel(xp, x, axis):
    axes = []
    for i, a in enumerate(int(a) for a in np.reshape(axis, [-1])):
        if not -x.ndim <= a < x.ndim:
            raise errors.InvalidArgumentError(None, None, f"'axis'[{i}] = {a} is out of valid range [{-x.ndim}, "
                                                          f"{x.ndim})")
        if a % x.ndim in axes:
            raise errors.InvalidArgumentError(None, None, f"axis {a % x.ndim} specified more than once")
        axes.append(a % x.ndim)
    return np.flip(x, axis=tuple(axes)).copy()


@register_gradient("ReverseV2")
def _reverse_grad(op, g):
    return reverse(g, op.inputs[1]), None


def reverse(tensor, axis, name=None) -> ops.Tensor:
    """``tensor`` with the order of the given axes reversed."""
    tensor = ops.convert_to_tensor(tensor)
    axis = index_tensor(axis)
    return make_tensor("ReverseV2", [tensor, axis], None, name or "ReverseV2")


reverse_v2 = reverse


@register_op("Roll", shape=lambda op: op.inputs[0].shape)
def _roll_kernel(xp, x, shift, axis):
    return np.roll(x, np.reshape(shift, [-1]).tolist(), axis=np.reshape(axis, [-1]).tolist())


@register_gradient("Roll")
def _roll_grad(op, g):
    return roll(g, -op.inputs[1], op.inputs[2]), None, None


def roll(input, shift, axis, name=None) -> ops.Tensor:  # noqa: A002
    """Elements shifted along ``axis`` by ``shift``, wrapping around."""
    x = ops.convert_to_tensor(input)
    return make_tensor("Roll", [x, ops.convert_to_tensor(shift), ops.convert_to_tensor(axis)], None,
                       name or "Roll")


# ---------------------------------------------------------------------------
# Diagonals and bands (on the last two axes, batched)


def _at_least(op_type: str, x, rank: int, what: str = "input") -> None:
    """InvalidArgumentError, worded as TF's, for an input of rank under ``rank``."""
    if x.ndim < rank:
        raise errors.InvalidArgumentError(None, None, f"{op_type}: {what} must be at least {rank}-dim, "
                                          f"received shape: {list(x.shape)}")


def _diag_shape(op):
    x = op.inputs[0].shape
    if x.ndims is None:
        return TensorShape(None)
    if x.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {x.ndims}")
    return x.concatenate([x[-1]])


@register_op("MatrixDiag", shape=_diag_shape)
def _matrix_diag_kernel(xp, diagonal):
    _at_least("MatrixDiag", diagonal, 1)
    n = diagonal.shape[-1]
    out = np.zeros(diagonal.shape + (n,), dtype=diagonal.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = diagonal
    return out


def _diag_part_shape(op):
    x = op.inputs[0].shape
    if x.ndims is None:
        return TensorShape(None)
    if x.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.ndims}")
    rows, cols = x[-2].value, x[-1].value
    n = None if rows is None or cols is None else min(rows, cols)
    return x[:-2].concatenate([n])


@register_op("MatrixDiagPart", shape=_diag_part_shape)
def _matrix_diag_part_kernel(xp, x):
    _at_least("MatrixDiagPart", x, 2)
    return np.diagonal(x, axis1=-2, axis2=-1).copy()


def _set_diag_shape(op):
    x, diagonal = op.inputs[0].shape, op.inputs[1].shape
    if x.ndims is not None and x.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.ndims}")
    if diagonal.ndims is not None and diagonal.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {diagonal.ndims}")
    if x.ndims is not None and diagonal.ndims is not None:
        if diagonal.ndims != x.ndims - 1:
            raise ValueError(f"Shape must be rank {x.ndims - 1} but is rank {diagonal.ndims} (the diagonal of a "
                             f"matrix of shape {x})")
        rows, cols = x[-2].value, x[-1].value
        n = None if rows is None or cols is None else min(rows, cols)
        x[:-2].concatenate([n]).assert_is_compatible_with(diagonal)
    return x


@register_op("MatrixSetDiag", shape=_set_diag_shape)
def _matrix_set_diag_kernel(xp, x, diagonal):
    _at_least("MatrixSetDiag", x, 2)
    if diagonal.ndim != x.ndim - 1 or diagonal.shape[:-1] != x.shape[:-2] or \
            diagonal.shape[-1] != min(x.shape[-2:]):
        raise errors.InvalidArgumentError(
            None, None, f"MatrixSetDiag: the diagonal must be the input's batch shape plus the shorter of its last "
            f"two dimensions, but received input shape: [{','.join(map(str, x.shape))}] and diagonal shape: "
            f"[{','.join(map(str, diagonal.shape))}]")
    out = x.copy()
    n = diagonal.shape[-1]
    idx = np.arange(n)
    out[..., idx, idx] = diagonal
    return out


@register_gradient("MatrixDiag")
def _matrix_diag_grad(op, g):
    return (matrix_diag_part(g),)


@register_gradient("MatrixDiagPart")
def _matrix_diag_part_grad(op, g):
    return (matrix_set_diag(array_ops.zeros_like(op.inputs[0]), g),)


@register_gradient("MatrixSetDiag")
def _matrix_set_diag_grad(op, g):
    return matrix_set_diag(g, array_ops.zeros_like(op.inputs[1])), matrix_diag_part(g)


def matrix_diag(diagonal, name=None, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Square matrices with ``diagonal`` (batched on the leading axes) on their diagonals."""
    if k != 0 or num_rows != -1 or num_cols != -1 or padding_value != 0:
        raise NotImplementedError("matrix_diag supports the main diagonal only (k=0, default sizes)")
    return make_tensor("MatrixDiag", [ops.convert_to_tensor(diagonal)], None, name or "MatrixDiag")


def matrix_diag_part(input, name=None, k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    if k != 0:
        raise NotImplementedError("matrix_diag_part supports the main diagonal only (k=0)")
    return make_tensor("MatrixDiagPart", [ops.convert_to_tensor(input)], None, name or "MatrixDiagPart")


def matrix_set_diag(input, diagonal, name=None, k=0, align="RIGHT_LEFT"):  # noqa: A002
    if k != 0:
        raise NotImplementedError("matrix_set_diag supports the main diagonal only (k=0)")
    x = ops.convert_to_tensor(input)
    return make_tensor("MatrixSetDiag", [x, ops.convert_to_tensor(diagonal, dtype=x.dtype.base_dtype)], None,
                       name or "MatrixSetDiag")


def diag(diagonal, name=None):
    """A tensor with ``diagonal`` on its diagonal: rank 2k for a rank-k input (TF's Diag)."""
    d = ops.convert_to_tensor(diagonal)
    if d.shape.ndims == 0:
        raise ValueError("diag: the input must be at least rank 1, got a scalar")
    if d.shape.ndims == 1:
        return matrix_diag(d, name=name)
    with ops.name_scope(name, "Diag", [d]):
        flat = array_ops.reshape(d, [-1])
        return array_ops.reshape(matrix_diag(flat), slicing_ops.concat([array_ops.shape(d), array_ops.shape(d)], 0))


def diag_part(input, name=None):  # noqa: A002
    """The diagonal of a rank-2k tensor (the inverse of diag)."""
    x = ops.convert_to_tensor(input)
    if x.shape.ndims is not None:
        if x.shape.ndims % 2 or x.shape.ndims == 0:
            raise ValueError(f"diag_part: the input's rank must be even and not zero, got shape {x.shape}")
        half = x.shape.ndims // 2
        if not x.shape[:half].is_compatible_with(x.shape[half:]):
            raise ValueError(f"diag_part: the input's shape must be [D1, ..., Dk, D1, ..., Dk], got {x.shape}")
    if x.shape.ndims == 2:
        return matrix_diag_part(x, name=name)
    with ops.name_scope(name, "DiagPart", [x]):
        half = x.shape.ndims // 2
        dims = x.shape.as_list()[:half]
        n = int(np.prod(dims))
        return array_ops.reshape(matrix_diag_part(array_ops.reshape(x, [n, n])), dims)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """The identity matrix (``num_rows`` x ``num_columns``), optionally batched; the sizes may
    be tensors known only when the graph runs."""
    num_columns = num_rows if num_columns is None else num_columns
    sizes = [_static_value(num_rows), _static_value(num_columns),
             () if batch_shape is None else _static_value(batch_shape)]
    if all(size is not None for size in sizes):
        value = np.eye(int(sizes[0]), int(sizes[1]), dtype=dtypes.as_dtype(dtype).as_numpy_dtype)
        if batch_shape is not None:
            value = np.broadcast_to(value, tuple(int(d) for d in sizes[2]) + value.shape).copy()
        return array_ops.constant(value, name=name or "eye")
    with ops.name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        rows = ops.convert_to_tensor(num_rows, dtype=dtypes.int32)
        columns = ops.convert_to_tensor(num_columns, dtype=dtypes.int32)
        batch = ops.convert_to_tensor([] if batch_shape is None else batch_shape, dtype=dtypes.int32)
        zeros = array_ops.zeros(slicing_ops.concat([batch, array_ops.stack([rows, columns])], 0), dtype=dtype)
        ones = array_ops.ones(slicing_ops.concat([batch, array_ops.reshape(math_ops.minimum(rows, columns), [1])],
                                                 0), dtype=dtype)
        return matrix_set_diag(zeros, ones)


def _static_value(size):
    """A size (an int, a list of them, or a tensor) as a value if the graph determines it."""
    if isinstance(size, ops.Tensor):
        return constant_value(size)
    if isinstance(size, (list, tuple)) and any(isinstance(d, ops.Tensor) for d in size):
        return None
    return size


@register_op("MatrixBandPart", shape=lambda op: op.inputs[0].shape)
def _matrix_band_part_kernel(xp, x, num_lower, num_upper):
    rows, cols = x.shape[-2], x.shape[-1]
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    lower, upper = int(num_lower), int(num_upper)
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return np.where(keep, x, 0).astype(x.dtype)


@register_gradient("MatrixBandPart")
def _matrix_band_part_grad(op, g):
    return matrix_band_part(g, op.inputs[1], op.inputs[2]), None, None


def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keeps ``num_lower`` sub-diagonals and ``num_upper`` super-diagonals (-1: all); zeroes the rest."""
    x = ops.convert_to_tensor(input)
    return make_tensor("MatrixBandPart", [x, ops.convert_to_tensor(num_lower, dtype=dtypes.int64),
                                          ops.convert_to_tensor(num_upper, dtype=dtypes.int64)], None,
                       name or "MatrixBandPart")


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swaps the last two axes."""
    a = ops.convert_to_tensor(a)
    rank = a.shape.ndims
    if rank is None:  # (the permutation computed when the step runs, as TF's)
        r = array_ops.rank(a)
        perm = slicing_ops.concat([math_ops.range_(r - 2), array_ops.stack([r - 1, r - 2])], 0)
        return array_ops.transpose(a, perm, name=name, conjugate=conjugate)
    if rank < 2:
        raise ValueError(f"Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: {a.shape}")
    return array_ops.transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2], name=name, conjugate=conjugate)


def trace(x, name=None):
    """The sum of the diagonal of each (batched) matrix."""
    with ops.name_scope(name, "Trace", [x]):
        return reduction_ops.reduce_sum(matrix_diag_part(x), -1)


# ---------------------------------------------------------------------------
# LinSpace, meshgrid, repeat, masks


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``num`` may be a
    tensor: then the length is known at run time)."""
    only_default("linspace", "axis", axis, 0)
    with ops.name_scope(name, "LinSpace", [start, stop, num]):
        start = ops.convert_to_tensor(start)
        dtype = start.dtype.base_dtype
        stop = ops.convert_to_tensor(stop, dtype=dtype)
        num = ops.convert_to_tensor(num)
        n = constant_value(num)
        if n is None:  # (i / max(num - 1, 1) for i < num: [start] when num is 1)
            steps = math_ops.cast(math_ops.range_(num), dtype) / math_ops.cast(math_ops.maximum(num - 1, 1), dtype)
            return start + (stop - start) * steps
        n = int(n)
        if n == 1:
            return array_ops.reshape(start, [1])
        steps = array_ops.constant(np.arange(n) / (n - 1), dtype=start.dtype.base_dtype)
        return start + (stop - start) * steps


lin_space = linspace


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D tensors; ``indexing="xy"`` (default) or ``"ij"``."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"Invalid keyword arguments: {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with ops.name_scope(name, "meshgrid", args):
        tensors = [array_ops.reshape(ops.convert_to_tensor(a), [-1]) for a in args]
        n = len(tensors)
        outputs = []
        sizes = [array_ops.size(t) for t in tensors]
        if indexing == "xy" and n > 1:
            sizes[0], sizes[1] = sizes[1], sizes[0]
        full = array_ops.stack(sizes) if n else None
        for i, t in enumerate(tensors):
            shape = [1] * n
            position = i
            if indexing == "xy" and n > 1 and i < 2:
                position = 1 - i
            shape[position] = -1
            outputs.append(array_ops.broadcast_to(array_ops.reshape(t, shape), full))
        return outputs


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Each element repeated ``repeats`` times along ``axis`` (the flattened input when None):
    one count for all (a scalar) or one per element; either may be a tensor, and the axis may
    be of unknown size."""
    x = ops.convert_to_tensor(input)
    with ops.name_scope(name, "Repeat", [x, repeats]):
        repeats = ops.convert_to_tensor(repeats)
        if not repeats.dtype.is_integer:
            raise TypeError(f"repeat: repeats should be integers, got {repeats.dtype.name}")
        if repeats.shape.ndims not in (0, 1):
            raise ValueError(f"repeat: repeats should be a scalar or a vector, got shape {repeats.shape}")
        if axis is None:
            x = array_ops.reshape(x, [-1])
            axis = 0
        rank = x.shape.ndims
        if rank is None:
            raise ValueError("repeat needs the rank of its input to be known")
        axis = int(axis) % rank
        reps, n = constant_value(repeats), x.shape[axis].value
        if repeats.shape.ndims == 0 or repeats.shape.as_list() == [1]:  # each slice tiled, then folded in
            repeats = array_ops.reshape(repeats, [])
            multiples = [1] * (rank + 1)
            multiples[axis + 1] = repeats
            tiled = array_ops.tile(array_ops.expand_dims(x, axis + 1), array_ops.stack(multiples))
            dims = array_ops.shape(x)
            out = array_ops.reshape(tiled, slicing_ops.concat(
                [dims[:axis], array_ops.reshape(dims[axis] * math_ops.cast(repeats, dims.dtype), [1]),
                 dims[axis + 1:]], 0))
            static = x.shape.as_list()
            static[axis] = n * int(reps) if n is not None and reps is not None else None
            out.set_shape(TensorShape(static))
            return out
        if reps is not None and n is not None:
            index = np.repeat(np.arange(n), np.broadcast_to(np.asarray(reps), [n]))
            return slicing_ops.gather(x, array_ops.constant(index.astype(np.int32)), axis=axis)
        # (the slice index i, repeats[i] times: the rows of a [n, most] mask's True places)
        kept = sequence_mask(repeats, reduction_ops.reduce_max(repeats))
        return slicing_ops.gather(x, math_ops.where(kept)[:, 0], axis=axis)


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """``mask[i, j] = j < lengths[i]``, ``maxlen`` columns (the largest length by default)."""
    with ops.name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = ops.convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = reduction_ops.reduce_max(lengths)
        maxlen = ops.convert_to_tensor(maxlen)
        if maxlen.shape.ndims not in (None, 0):
            raise ValueError(f"maxlen must be scalar for sequence_mask, got shape {maxlen.shape}")
        maxlen = math_ops.cast(maxlen, lengths.dtype.base_dtype)
        row = math_ops.range_(maxlen)
        mask = math_ops.less(row, array_ops.expand_dims(lengths, -1))
        return mask if dtypes.as_dtype(dtype) == dtypes.bool else math_ops.cast(mask, dtype)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The entries of ``tensor`` where ``mask`` (over its leading axes) is true, flattened over them."""
    with ops.name_scope(name, "boolean_mask", [tensor, mask]):
        tensor = ops.convert_to_tensor(tensor)
        mask = ops.convert_to_tensor(mask, dtype=dtypes.bool)
        k = mask.shape.ndims
        if k is None:
            raise ValueError("Number of mask dimensions must be specified")
        if k == 0:
            raise ValueError("mask cannot be scalar.")
        axis = 0 if axis is None else axis
        if tensor.shape.ndims is not None:  # (the masked dimensions must be the mask's: TF's check)
            tensor.shape[axis:axis + k].assert_is_compatible_with(mask.shape)
        shape = array_ops.shape(tensor)
        leading = shape[:axis] if axis else array_ops.constant([], dtypes.int32)
        masked = reduction_ops.reduce_prod(shape[axis:axis + k], [0], keepdims=True)  # (not -1: it may be empty)
        flat = array_ops.reshape(tensor, slicing_ops.concat([leading, masked, shape[axis + k:]], 0))
        indices = array_ops.squeeze(math_ops.where(array_ops.reshape(mask, [-1])), [1])
        out = slicing_ops.gather(flat, indices, axis=axis)
        if tensor.shape.ndims is not None:  # (TF's static shape: the masked axes become one unknown axis)
            dims = tensor.shape.as_list()
            out.set_shape(dims[:axis] + [None] + dims[axis + k:])
        return out


# ---------------------------------------------------------------------------
# Cumsum, Cumprod


def _scan_axis(axis, rank: int) -> int:
    """The scan axis, checked as TF's kernels check it."""
    if np.ndim(axis) != 0:
        raise errors.InvalidArgumentError(None, None, f"ScanOp: axis must be a scalar, not a tensor of shape "
                                                      f"{list(np.shape(axis))}")
    axis = int(axis)
    if not -rank <= axis < rank:
        raise errors.InvalidArgumentError(None, None, f"ScanOp: Expected scan axis in the range [{-rank}, {rank}), "
                                                      f"but got {axis}")
    return axis


def _scan_shape(op):
    x, axis = op.inputs
    value = constant_value(axis)
    if value is not None and x.shape.ndims is not None:
        rank = x.shape.ndims
        if np.ndim(value) != 0:
            raise ValueError(f"{op.type}: axis must be a scalar, got shape {list(np.shape(value))}")
        if not -rank <= int(value) < rank:
            raise ValueError(f"{op.type}: Expected scan axis in the range [{-rank}, {rank}), but got {int(value)}")
    return x.shape


def _cumulative(np_fn, x, axis, exclusive, reverse):
    axis = _scan_axis(axis, x.ndim)
    if reverse:
        x = np.flip(x, axis)
    out = np_fn(x, axis=axis)
    if exclusive:
        identity = 0 if np_fn is np.cumsum else 1
        out = np.concatenate([np.full_like(np.take(out, [0], axis=axis), identity),
                              np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return out.astype(x.dtype, copy=False)


@register_op("Cumsum", shape=_scan_shape)
def _cumsum_kernel(xp, x, axis, *, exclusive, reverse):
    return _cumulative(np.cumsum, x, axis, exclusive, reverse)


@register_op("Cumprod", shape=_scan_shape)
def _cumprod_kernel(xp, x, axis, *, exclusive, reverse):
    return _cumulative(np.cumprod, x, axis, exclusive, reverse)


@register_gradient("Cumsum")
def _cumsum_grad(op, g):
    return cumsum(g, op.inputs[1], exclusive=op._attr("exclusive"),
                  reverse=not op._attr("reverse")), None


@register_op("CumprodGrad", shape=lambda op: op.inputs[0].shape)
def _cumprod_grad_kernel(xp, x, g, axis, *, exclusive, reverse):
    """Cumprod's gradient without dividing by x (exact where x holds zeros): for y_j the
    product of x_k for k <= j, d/dx_i sum_j g_j y_j = (product of x_k, k < i) * R_i with
    R_i = g_i + x_{i+1} R_{i+1} (exclusive: R_i = g_{i+1} + x_{i+1} R_{i+1}), a pass back
    along the axis."""
    axis = int(axis) % x.ndim
    if reverse:
        x, g = np.flip(x, axis), np.flip(g, axis)
    x, g = np.moveaxis(x, axis, 0), np.moveaxis(g, axis, 0)
    n = x.shape[0]
    rest = np.zeros_like(g)
    carry = np.zeros(g.shape[1:], dtype=g.dtype)
    for i in range(n - 1, -1, -1):
        if exclusive:
            rest[i] = carry
            carry = g[i] + x[i] * carry
        else:
            carry = g[i] + (x[i + 1] * carry if i + 1 < n else 0)
            rest[i] = carry
    before = np.ones_like(x)
    if n > 1:
        np.cumprod(x[:-1], axis=0, out=before[1:])
    out = np.moveaxis(before * rest, 0, axis)
    return (np.flip(out, axis) if reverse else out).astype(x.dtype, copy=False)


not_differentiable("CumprodGrad")


@register_gradient("Cumprod")
def _cumprod_grad(op, g):
    # Where x has no zero, TF's formula d/dx_i = sum_{j>=i} g_j y_j / x_i, in ops that have
    # gradients of their own; at zeros (where that divides by zero: NaN in TF 1.x, 0 in TF 2)
    # the exact value, from a pass that does not divide.
    x, axis = op.inputs
    exclusive, rev = op._attr("exclusive"), op._attr("reverse")
    nonzero = math_ops.not_equal(x, array_ops.zeros_like(x))
    safe = math_ops.where(nonzero, x, array_ops.ones_like(x))
    out = cumprod(x, axis, exclusive=exclusive, reverse=rev)
    divided = cumsum(out * g, axis, exclusive=exclusive, reverse=not rev) / safe
    exact = make_tensor("CumprodGrad", [x, g, axis], {"exclusive": exclusive, "reverse": rev}, "CumprodGrad")
    return math_ops.where(nonzero, divided, exact), None


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    x = ops.convert_to_tensor(x)
    check_dtype("Cumsum", x, NUMBERS + COMPLEX, "x")
    return make_tensor("Cumsum", [x, index_tensor(axis)],
                       {"exclusive": bool(exclusive), "reverse": bool(reverse)}, name or "Cumsum")


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    x = ops.convert_to_tensor(x)
    check_dtype("Cumprod", x, NUMBERS + COMPLEX, "x")
    return make_tensor("Cumprod", [x, index_tensor(axis)],
                       {"exclusive": bool(exclusive), "reverse": bool(reverse)}, name or "Cumprod")


# ---------------------------------------------------------------------------
# Sorting


@register_op("Argsort", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.int32)
def _argsort_kernel(xp, x, *, axis, descending):
    order = np.argsort(-x if descending else x, axis=axis, kind="stable")
    return order.astype(np.int32)


not_differentiable("Argsort")


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """Indices that sort ``values`` along ``axis`` (stable: equal values keep their order)."""
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f'Unknown direction "{direction}": expected "ASCENDING" or "DESCENDING"')
    values = ops.convert_to_tensor(values)
    return make_tensor("Argsort", [values], {"axis": int(axis), "descending": direction == "DESCENDING"},
                       name or "argsort")


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis``; differentiable (a gather of the sorted positions)."""
    with ops.name_scope(name, "sort", [values]):
        values = ops.convert_to_tensor(values)
        rank = values.shape.ndims
        if rank is not None:
            if not -rank <= axis < rank:
                raise ValueError(f"sort: axis {axis} is out of bounds for a tensor of rank {rank}")
            axis %= rank
        elif axis != -1:
            raise ValueError(f"sort: values of unknown rank can be sorted along axis -1 only, not {axis}")
        moved = None
        if axis not in (-1, (rank or 0) - 1):
            moved = list(range(rank))
            moved[axis], moved[-1] = moved[-1], moved[axis]
            values = array_ops.transpose(values, moved)
        order = argsort(values, -1, direction)
        shape = array_ops.shape(values)
        rows, cols = reduction_ops.reduce_prod(shape[:-1]), shape[-1]  # (not -1: a dimension may be 0)
        flat_v = array_ops.reshape(values, array_ops.stack([rows, cols]))
        flat_o = array_ops.reshape(order, array_ops.stack([rows, cols]))
        row_ids = array_ops.tile(array_ops.expand_dims(math_ops.range_(rows), 1), array_ops.stack([1, cols]))
        picked = array_ops.reshape(gather_nd(flat_v, array_ops.stack([row_ids, flat_o], axis=-1)), shape)
        return picked if moved is None else array_ops.transpose(picked, moved)


# ---------------------------------------------------------------------------
# Shape helpers


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shapes of a list of tensors."""
    with ops.name_scope(name, "ShapeN", input):
        return [array_ops.shape(t, out_type=out_type) for t in input]


def ensure_shape(x, shape, name=None):
    """``x``, checked when the step runs to have a shape compatible with ``shape``."""
    x = ops.convert_to_tensor(x)
    shape = as_shape(shape)
    if not x.shape.is_compatible_with(shape):
        raise ValueError(f"Shape of tensor {x.name} {x.shape} is not compatible with expected shape {shape}.")
    return make_tensor("EnsureShape", [x], {"shape": shape}, name or "EnsureShape")


@register_op("EnsureShape", shape=lambda op: op.inputs[0].shape.merge_with(op._attr("shape")), may_alias=True)
def _ensure_shape_kernel(xp, x, *, shape):
    if not shape.is_compatible_with(TensorShape(x.shape)):
        raise errors.InvalidArgumentError(None, None, f"Shape of tensor {list(x.shape)} is not compatible with "
                                                      f"expected shape {shape}.")
    return x


@register_gradient("EnsureShape")
def _ensure_shape_grad(op, g):
    return (g,)


def parallel_stack(values, name="parallel_stack"):
    """``stack(values)`` (TF computes it in parallel; the result is the same)."""
    return array_ops.stack(values, name=name)


def _space_shape(op, to_depth: bool):
    """The output shape of SpaceToDepth (``to_depth``) or DepthToSpace: rank 4 whatever is
    known of the input, each dimension where the input's is known."""
    shape, b = op.inputs[0].shape, op._attr("block_size")
    if shape.ndims is not None and shape.ndims != 4:
        raise ValueError(f"{op.type} '{op.name}': the input must be 4-D, got shape {shape}")
    nchw = op._attrs.get("data_format", "NHWC") == "NCHW"
    dims = shape.as_list() if shape.ndims is not None else [None] * 4
    n, h, w, c = [dims[i] for i in (0, 2, 3, 1)] if nchw else dims
    if to_depth:
        for size, what in ((h, "height"), (w, "width")):
            if size is not None and size % b:
                raise ValueError(f"SpaceToDepth '{op.name}': image {what} {size} is not divisible by block_size {b}")
        out = [n, None if h is None else h // b, None if w is None else w // b, None if c is None else c * b * b]
    else:
        if c is not None and c % (b * b):
            raise ValueError(f"DepthToSpace '{op.name}': input depth {c} is not divisible by block_size * "
                             f"block_size = {b * b}")
        out = [n, None if h is None else h * b, None if w is None else w * b, None if c is None else c // (b * b)]
    return TensorShape([out[i] for i in (0, 3, 1, 2)] if nchw else out)


def _nhwc(x, data_format):
    return x if data_format == "NHWC" else x.transpose(0, 2, 3, 1)


def _from_nhwc(x, data_format):
    return x if data_format == "NHWC" else x.transpose(0, 3, 1, 2)


@register_op("DepthToSpace", shape=lambda op: _space_shape(op, False))
def _depth_to_space_kernel(xp, input, *, block_size, data_format="NHWC"):  # noqa: A002 - TF's name
    x, b = _nhwc(input, data_format), block_size
    if x.ndim != 4:
        raise kernel_error("DepthToSpace", f"input rank should be 4 instead of {x.ndim}")
    n, h, w, c = x.shape
    if c % (b * b):
        raise kernel_error("DepthToSpace", f"Input depth dimension {c} should be divisible by: {b * b}")
    out = x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, c // (b * b))
    return _from_nhwc(out, data_format)


@register_op("SpaceToDepth", shape=lambda op: _space_shape(op, True))
def _space_to_depth_kernel(xp, input, *, block_size, data_format="NHWC"):  # noqa: A002 - TF's name
    x, b = _nhwc(input, data_format), block_size
    if x.ndim != 4:
        raise kernel_error("SpaceToDepth", f"input rank should be 4 instead of {x.ndim}")
    n, h, w, c = x.shape
    if h % b or w % b:
        raise kernel_error("SpaceToDepth", f"Image width {w} and height {h} should be divisible by block_size: {b}")
    out = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, b * b * c)
    return _from_nhwc(out, data_format)


@register_gradient("DepthToSpace")
def _depth_to_space_grad(op, grad):  # (the moves are permutations: the inverse move is the adjoint)
    return _space_op("SpaceToDepth", grad, op._attr("block_size"), op._attrs.get("data_format", "NHWC"), None)


@register_gradient("SpaceToDepth")
def _space_to_depth_grad(op, grad):
    return _space_op("DepthToSpace", grad, op._attr("block_size"), op._attrs.get("data_format", "NHWC"), None)


def _space_op(op_type, x, block_size, data_format, name):
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{op_type}: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    if int(block_size) < 2:
        raise ValueError(f"{op_type}: block_size must be at least 2, got {block_size}")
    return make_tensor(op_type, [ops.convert_to_tensor(x)], {"block_size": int(block_size), "data_format": data_format},
                       name or op_type)


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """Moves ``block_size`` x ``block_size`` spatial blocks into the channels (NHWC, or NCHW)."""
    return _space_op("SpaceToDepth", input, block_size, data_format, name)


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """The inverse of space_to_depth (NHWC, or NCHW)."""
    return _space_op("DepthToSpace", input, block_size, data_format, name)


def unravel_index(indices, dims, name=None):
    """The coordinates of flat ``indices`` in an array of shape ``dims`` (one row per dimension)."""
    with ops.name_scope(name, "UnravelIndex", [indices, dims]):
        indices = ops.convert_to_tensor(indices)
        dims = ops.convert_to_tensor(dims, dtype=indices.dtype.base_dtype)
        strides = cumprod(dims, exclusive=True, reverse=True)
        return math_ops.floormod(math_ops.floordiv(array_ops.expand_dims(indices, 0),
                                                   array_ops.expand_dims(strides, -1)),
                                 array_ops.expand_dims(dims, -1))


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
