"""``gather_nd`` and ``scatter_nd``: indexing by the last axis of an index tensor."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import constant_shape, make_tensor


def _gather_nd_shape(op):
    params, indices = op.inputs
    if params.shape.ndims is None or indices.shape.ndims is None:
        return TensorShape(None)
    depth = indices.shape.as_list()[-1]
    if depth is None:
        return TensorShape(None)
    if depth > params.shape.ndims:
        raise ValueError(f"indices.shape[-1] must be <= params.rank, got {depth} and rank {params.shape.ndims}")
    return TensorShape(indices.shape.as_list()[:-1] + params.shape.as_list()[depth:])


def index_tuple(indices, shape, op_type):
    """The index arrays, one per axis, of the rows of ``indices``; an index out of ``shape`` is
    an InvalidArgumentError naming where it is in ``indices``, as TF's message does."""
    depth = indices.shape[-1]
    flat = indices.reshape(-1, depth)
    # (one check of every axis at once, the common case; the loop finds what to report)
    if flat.size and flat.min() >= 0 and all(m < d for m, d in zip(flat.max(axis=0).tolist(), shape)):
        return tuple(flat.T)
    for axis in range(depth):
        bad = (flat[:, axis] < 0) | (flat[:, axis] >= shape[axis])
        if bad.any():
            first = int(np.argmax(bad))
            row = ", ".join(str(int(i)) for i in flat[first])
            dims = ",".join(str(int(d)) for d in shape)
            if op_type == "GatherNd":  # (TF's two messages)
                message = f"flat indices[{first}, :] = [{row}] does not index into param (shape: [{dims}])"
            else:
                where = ",".join(str(int(i)) for i in np.unravel_index(first * depth, indices.shape))
                message = f"Invalid indices: [{where}] = [{row}] does not index into [{dims}]"
            raise errors.InvalidArgumentError(None, None, f"{op_type}: {message}")
    return tuple(flat[:, axis] for axis in range(depth))


@register_op("GatherNd", shape=_gather_nd_shape)
def _gather_nd_kernel(xp, params, indices):
    depth = indices.shape[-1]
    out_shape = indices.shape[:-1] + params.shape[depth:]
    if not depth:  # (rows of no index: each is the whole of params)
        return xp.array(xp.broadcast_to(params, out_shape))
    if not params.size and indices.size:
        raise errors.InvalidArgumentError(None, None, f"GatherNd: Requested more than 0 entries, but params is empty. "
                                                      f"Params shape: {list(params.shape)}")
    if xp is np and params.flags.c_contiguous:
        # (the rows' flat positions, checked against the bounds as they are made: one index of
        # a [rows, ...] view, where indexing by one array an axis costs twice as much)
        try:
            rows = np.ravel_multi_index(tuple(indices.reshape(-1, depth).T), params.shape[:depth])
        except ValueError:
            rows = None
        if rows is not None:
            return params.reshape((-1,) + params.shape[depth:])[rows].reshape(out_shape)
    return params[index_tuple(indices, params.shape, "GatherNd")].reshape(out_shape)


def gather_nd(params, indices, name=None, batch_dims=0) -> ops.Tensor:
    """``params[indices[..., 0], indices[..., 1], ...]`` for each index row of ``indices``; with
    ``batch_dims`` b, the first b dimensions of both are a batch, and each example's indices
    index its own slice of ``params`` (output ``indices.shape[:-1] + params.shape[b + depth:]``)."""
    params = ops.convert_to_tensor(params)
    indices = ops.convert_to_tensor(indices)
    if indices.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"gather_nd indices must be int32 or int64, got {indices.dtype.name}")
    if not batch_dims:
        return make_tensor("GatherNd", [params, indices], None, name or "GatherNd")
    return _batch_gather_nd(params, indices, int(batch_dims), name)


def _batch_gather_nd(params, indices, batch_dims, name):
    """``gather_nd`` with its batch dimensions folded into one, and each index row led by its
    example's number."""
    from . import array_ops, math_ops, reduction_ops, slicing_ops  # noqa: PLC0415

    if indices.shape.ndims is None or params.shape.ndims is None:
        raise ValueError("gather_nd with batch_dims needs params and indices of known rank")
    if not 0 < batch_dims < indices.shape.ndims or batch_dims >= params.shape.ndims:
        raise ValueError(f"gather_nd: batch_dims must be in [0, {min(indices.shape.ndims - 1, params.shape.ndims)}),"
                         f" got {batch_dims}")
    if not params.shape[:batch_dims].is_compatible_with(indices.shape[:batch_dims]):
        raise ValueError(f"gather_nd: the batch dimensions of params {params.shape} and indices {indices.shape} "
                         f"differ")
    depth = indices.shape[-1].value
    if depth is None:
        raise ValueError(f"gather_nd with batch_dims needs the indices' last dimension known, got {indices.shape}")
    with ops.name_scope(name, "batch_gather_nd", [params, indices]):
        p_shape, i_shape = array_ops.shape(params), array_ops.shape(indices)
        examples = reduction_ops.reduce_prod(i_shape[:batch_dims])
        flat_params = array_ops.reshape(params, slicing_ops.concat([[-1], p_shape[batch_dims:]], 0))
        flat_indices = array_ops.reshape(indices, array_ops.stack([examples, -1, depth]))
        rows = array_ops.shape(flat_indices)[1]
        example = array_ops.tile(array_ops.reshape(math_ops.range_(examples), [-1, 1, 1]),
                                 array_ops.stack([1, rows, 1]))
        example = math_ops.cast(example, indices.dtype.base_dtype)
        picked = make_tensor("GatherNd", [flat_params, slicing_ops.concat([example, flat_indices], 2)], None,
                             "GatherNd")
        out = array_ops.reshape(picked, slicing_ops.concat([i_shape[:-1], p_shape[batch_dims + depth:]], 0))
        out.set_shape(indices.shape[:-1].concatenate(params.shape[batch_dims + depth:]))
        return out


def check_nd_updates(target: TensorShape, indices: TensorShape, updates: TensorShape, what: str = "input") -> None:
    """ValueError, worded as TF's, unless ``updates`` has the shape an nd scatter into a tensor of
    shape ``target`` at ``indices`` needs: the indices' rows, then the target's dimensions after
    the indices' depth (checked where the shapes are known)."""
    if target.ndims is None or indices.ndims is None or updates.ndims is None or indices[-1].value is None:
        return
    depth, outer = indices[-1].value, indices.ndims - 1
    if target.num_elements() == 0 and indices.num_elements() != 0:
        raise ValueError(f"Indices and updates specified for empty output shape {target}")
    if updates.ndims < outer or not updates[:outer].is_compatible_with(indices[:outer]):
        raise ValueError(f"The outer {outer} dimensions of indices.shape={indices} must match the outer {outer} "
                         f"dimensions of updates.shape={updates}")
    inner = target.ndims - depth
    if updates.ndims - outer != inner or not updates[outer:].is_compatible_with(target[depth:]):
        raise ValueError(f"The inner {inner} dimensions of {what}.shape={target} must match the inner "
                         f"{updates.ndims - outer} dimensions of updates.shape={updates}")


def _scatter_nd_shape(op):
    shape = constant_shape(op.inputs[2])
    check_nd_updates(shape, op.inputs[0].shape, op.inputs[1].shape, "output")
    return shape


@register_op("ScatterNd", shape=_scatter_nd_shape, dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _scatter_nd_kernel(xp, indices, updates, shape):
    if not np.prod(shape) and indices.size:
        raise errors.InvalidArgumentError(None, None, f"ScatterNd: Indices and updates specified for empty output "
                                                      f"shape {list(np.asarray(shape))}")
    out = xp.zeros([int(d) for d in shape], dtype=updates.dtype)
    if not out.size:
        return out  # (an empty output: nothing to scatter)
    depth = indices.shape[-1]
    where = index_tuple(indices, out.shape, "ScatterNd")
    xp.add.at(out, where, updates.reshape((-1,) + out.shape[depth:]))
    return out


@register_gradient("ScatterNd")
def _scatter_nd_grad(op, grad):
    return None, gather_nd(grad, op.inputs[0]), None


def scatter_nd(indices, updates, shape, name=None) -> ops.Tensor:
    """A zero tensor of ``shape`` with ``updates`` added at ``indices`` (duplicates sum)."""
    from . import math_ops  # noqa: PLC0415

    indices = ops.convert_to_tensor(indices)
    updates = ops.convert_to_tensor(updates)
    shape = ops.convert_to_tensor(shape)  # (in the indices' dtype: an int32 shape of int64 indices is cast)
    if shape.dtype.base_dtype != indices.dtype.base_dtype:
        shape = math_ops.cast(shape, indices.dtype.base_dtype)
    return make_tensor("ScatterNd", [indices, updates, shape], None, name or "ScatterNd")
