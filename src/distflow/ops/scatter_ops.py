"""Sparse updates: ``tf.scatter_*`` write rows of a variable in place; ``tf.tensor_scatter_*``
return an updated copy of a tensor. Duplicate indices accumulate for add, sub, mul, div, min
and max; for update the last one wins."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from .nd_ops import check_nd_updates, gather_nd, index_tuple
from .op_util import add_rows_at, make_op, make_tensor
from .state_ops import ImportedResourceVariable, locked, variable_ref

_UFUNCS = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.true_divide, "Min": np.minimum,
           "Max": np.maximum}


def _check_rows(op_type, value, indices):
    n = value.shape[0] if value.ndim else 0
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        bad = indices[(indices < 0) | (indices >= n)].reshape(-1)[0]
        raise errors.InvalidArgumentError(None, None, f"{op_type}: indices[...] = {bad} is not in [0, {n})")


def _apply(kind, target, where, updates):
    if kind == "Update":
        target[where] = updates
    elif kind in ("Add", "Sub") and isinstance(where, np.ndarray):  # rows: a sort, not a loop per element
        rows = updates.reshape((-1,) + target.shape[1:])
        add_rows_at(target, where, rows if kind == "Add" else -rows)
    elif kind == "Div" and target.dtype.kind in "iu":
        np.floor_divide.at(target, where, updates)
    else:
        _UFUNCS[kind].at(target, where, updates)


def _scatter_shape(op):
    """The variable's shape, once ``updates`` is seen to fit it: the indices' shape, then the
    variable's shape after its first dimension (or a scalar, for every row), as TF's shape
    function checks when the graph is built."""
    ref, indices, updates = op.inputs
    if updates.shape.ndims != 0 and ref.shape.ndims is not None and indices.shape.ndims is not None:
        expected = indices.shape.concatenate(ref.shape[1:])
        if not updates.shape.is_compatible_with(expected):
            raise ValueError(f"{op.type} '{op.name}': updates must have shape {expected} (the indices' shape, then "
                             f"the variable's after its first dimension), got {updates.shape}")
    return ref.shape


def _register_scatter(kind: str):
    op_type = f"Scatter{kind}"

    @register_op(op_type, shape=_scatter_shape, dtype=lambda op: op.inputs[0].dtype, stateful=True,
                 ref_inputs=(0,))
    def kernel(xp, ref, indices, updates, *, use_locking=False):
        with locked(ref, use_locking):
            value = ref.read()
            _check_rows(op_type, value, indices)
            expected = indices.shape + value.shape[1:]
            if updates.ndim and updates.shape != expected:
                raise errors.InvalidArgumentError(None, None, f"{op_type}: updates must have shape {list(expected)} "
                                                  f"(the indices' shape, then the variable's after its first "
                                                  f"dimension), got {list(updates.shape)}")
            updates = np.broadcast_to(updates, expected)
            _apply(kind, value, indices, updates.astype(value.dtype, copy=False))
        return ref

    not_differentiable(op_type)

    nd_type = f"ScatterNd{kind}"
    if kind in ("Update", "Add", "Sub"):
        @register_op(nd_type, shape=lambda op: op.inputs[0].shape, dtype=lambda op: op.inputs[0].dtype, stateful=True,
                     ref_inputs=(0,))
        def nd_kernel(xp, ref, indices, updates, *, use_locking=False):
            with locked(ref, use_locking):
                value = ref.read()
                depth = indices.shape[-1]
                where = index_tuple(indices, value.shape, nd_type)
                _apply(kind, value, where, np.reshape(updates, (-1,) + value.shape[depth:]).astype(value.dtype))
            return ref

        not_differentiable(nd_type)

    @register_op(f"TensorScatter{kind}", shape=lambda op: op.inputs[0].shape)
    def tensor_kernel(xp, tensor, indices, updates):
        out = tensor.copy()
        if not out.size:
            if indices.size:
                raise errors.InvalidArgumentError(None, None, f"TensorScatter{kind}: Indices and updates specified "
                                                  f"for empty output shape {list(out.shape)}")
            return out
        depth = indices.shape[-1]
        expected = indices.shape[:-1] + out.shape[depth:]
        if updates.shape != expected:
            raise errors.InvalidArgumentError(None, None, f"TensorScatter{kind}: updates must have shape "
                                              f"{list(expected)} (the indices' rows, then the tensor's shape "
                                              f"after depth {depth}), got {list(updates.shape)}")
        where = index_tuple(indices, out.shape, f"TensorScatter{kind}")
        _apply(kind, out, where, np.reshape(updates, (-1,) + out.shape[depth:]).astype(out.dtype))
        return out

    if kind not in ("Update", "Add", "Sub"):
        not_differentiable(f"TensorScatter{kind}")


for _kind in ("Update", "Add", "Sub", "Mul", "Div", "Min", "Max"):
    _register_scatter(_kind)


def _scatter(kind, ref, indices, updates, use_locking, name):
    if isinstance(ref, ImportedResourceVariable):  # (TensorFlow's: through its handle, then read)
        resource_kind = "Resource" + kind
        update = make_op(resource_kind, [ref._variable, ops.convert_to_tensor(indices),
                                         ops.convert_to_tensor(updates, dtype=ref.dtype)],
                         {"dtype": ref.dtype}, name or resource_kind)
        with ops.control_dependencies([update]):
            return ref.read_value()
    ref = variable_ref(ref)
    indices = ops.convert_to_tensor(indices)
    if indices.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"scatter indices must be int32 or int64, got {indices.dtype.name}")
    updates = ops.convert_to_tensor(updates, dtype=ref.dtype.base_dtype)
    if "Nd" in kind:
        check_nd_updates(ref.shape, indices.shape, updates.shape)
    return make_tensor(kind, [ref, indices, updates], {"use_locking": bool(use_locking)}, name or kind)


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[indices] = updates`` in place; returns the variable (its reference)."""
    return _scatter("ScatterUpdate", ref, indices, updates, use_locking, name)


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    return _scatter("ScatterAdd", ref, indices, updates, use_locking, name)


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    return _scatter("ScatterSub", ref, indices, updates, use_locking, name)


def scatter_mul(ref, indices, updates, use_locking=False, name=None):
    return _scatter("ScatterMul", ref, indices, updates, use_locking, name)


def scatter_div(ref, indices, updates, use_locking=False, name=None):
    return _scatter("ScatterDiv", ref, indices, updates, use_locking, name)


def scatter_min(ref, indices, updates, use_locking=False, name=None):
    return _scatter("ScatterMin", ref, indices, updates, use_locking, name)


def scatter_max(ref, indices, updates, use_locking=False, name=None):
    return _scatter("ScatterMax", ref, indices, updates, use_locking, name)


def scatter_nd_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[indices[i]] = updates[i]`` for index rows of the last axis of ``indices``."""
    return _scatter("ScatterNdUpdate", ref, indices, updates, use_locking, name)


def scatter_nd_add(ref, indices, updates, use_locking=False, name=None):
    return _scatter("ScatterNdAdd", ref, indices, updates, use_locking, name)


def scatter_nd_sub(ref, indices, updates, use_locking=False, name=None):
    return _scatter("ScatterNdSub", ref, indices, updates, use_locking, name)


def _tensor_scatter(kind, tensor, indices, updates, name):
    tensor = ops.convert_to_tensor(tensor)
    indices = ops.convert_to_tensor(indices)
    updates = ops.convert_to_tensor(updates, dtype=tensor.dtype.base_dtype)
    check_nd_updates(tensor.shape, indices.shape, updates.shape)
    return make_tensor(kind, [tensor, indices, updates], None, name or kind)


@register_gradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op, grad):
    _, indices, updates = op.inputs
    return (_tensor_scatter("TensorScatterUpdate", grad, indices, make_tensor("ZerosLike", [updates]), None), None,
            gather_nd(grad, indices))


@register_gradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op, grad):
    return grad, None, gather_nd(grad, op.inputs[1])


@register_gradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op, grad):
    return grad, None, make_tensor("Neg", [gather_nd(grad, op.inputs[1])])


def tensor_scatter_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates`` written at the index rows ``indices``."""
    return _tensor_scatter("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_add(tensor, indices, updates, name=None):
    return _tensor_scatter("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_sub(tensor, indices, updates, name=None):
    return _tensor_scatter("TensorScatterSub", tensor, indices, updates, name)


tensor_scatter_nd_update = tensor_scatter_update
tensor_scatter_nd_add = tensor_scatter_add
tensor_scatter_nd_sub = tensor_scatter_sub


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[b, indices[b, k]] = updates[b, k]`` for a [batch, n, ...] variable and [batch, k] indices."""
    from . import array_ops  # noqa: PLC0415 - (array_ops builds on this module's neighbours)
    from .math_ops import cast, range_  # noqa: PLC0415

    with ops.name_scope(name, "BatchScatterUpdate", [ref, indices, updates]):
        indices = ops.convert_to_tensor(indices)
        batch = array_ops.shape(indices)[0]
        rows = array_ops.tile(array_ops.expand_dims(cast(range_(batch), indices.dtype.base_dtype), 1),
                              array_ops.stack([1, array_ops.shape(indices)[1]]))
        return scatter_nd_update(ref, array_ops.stack([rows, indices], axis=-1), updates, use_locking=use_locking)
