"""Lists of tensors as values (``variant`` tensors holding a :class:`TensorList`), with gradients.

What ``tf.TensorArray`` is built on. Every op takes a list and, if it changes it,
outputs a new one (TensorFlow 2's TensorList ops, by name and meaning): a TensorArray
threaded through a ``tf.while_loop`` is a loop variable like any other, and its gradient
is a list of gradients flowing the other way. A list holds its elements' arrays, not
copies: the ops that put arrays into a list or take them out are registered
``may_alias``, so that no later kernel writes into those arrays in place.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_list import TensorList
from ..framework.tensor_shape import TensorShape, unknown_shape
from .op_util import make_tensor


def _variant(op):
    return dtypes.variant


def _list_shape(op):
    return unknown_shape()


def _element_shape(op):
    return op._attr("element_shape")


def _element_dtype(op):
    return op._attr("element_dtype")


def _index(index) -> int:
    return int(np.asarray(index))


def _checked(lst: TensorList, index: int, what: str) -> None:
    if index < 0 or (index >= len(lst) and not lst.dynamic):
        raise errors.InvalidArgumentError(
            None, None, f"Tried to {what} index {index} of a TensorArray of size {len(lst)}")


@register_op("EmptyTensorList", shape=_list_shape, dtype=_variant)
def _empty_kernel(num_elements, *, element_dtype=None, element_shape=None, dynamic_size=False):
    return TensorList((None,) * max(0, _index(num_elements)), bool(dynamic_size))


@register_op("TensorListSetItem", shape=_list_shape, dtype=_variant, may_alias=True)
def _set_item_kernel(lst, index, item, *, element_dtype=None):
    i = _index(index)
    _checked(lst, i, "write to")
    return lst.replaced(i, item)


@register_op("TensorListGetItem", shape=_element_shape, dtype=_element_dtype, may_alias=True)
def _get_item_kernel(lst, index, *, element_dtype=None, element_shape=None):
    i = _index(index)
    if not 0 <= i < len(lst):
        raise errors.InvalidArgumentError(None, None, f"Tried to read from index {i} but array size is: {len(lst)}")
    item = lst.items[i]
    if item is None:
        raise errors.InvalidArgumentError(
            None, None, f"Could not read from TensorArray index {i} because it has not yet been written to.")
    return item


def _stack_shape(op):
    return TensorShape([None]).concatenate(op._attr("element_shape"))


def _stacked(xp, items, element_shape, dtype, what: str):
    if any(item is None for item in items):
        missing = [i for i, item in enumerate(items) if item is None]
        raise errors.InvalidArgumentError(
            None, None, f"Could not {what} a TensorArray: element {missing[0]} has not been written to")
    if not items:
        if element_shape is None or not element_shape.is_fully_defined():
            raise errors.InvalidArgumentError(
                None, None, f"Could not {what} an empty TensorArray without a fully defined element_shape")
        return xp.zeros([0] + element_shape.as_list(), dtype=dtype.as_numpy_dtype)
    shapes = {tuple(item.shape) for item in items}
    if len(shapes) > 1:
        raise errors.InvalidArgumentError(
            None, None, f"Could not {what} a TensorArray: its elements have different shapes {sorted(shapes)}")
    return xp.stack(items)


@register_op("TensorListStack", shape=_stack_shape, dtype=_element_dtype)
def _stack_kernel(xp, lst, *, element_dtype=None, element_shape=None):
    return _stacked(xp, lst.items, element_shape, element_dtype, "stack")


@register_op("TensorListFromTensor", shape=_list_shape, dtype=_variant, may_alias=True)
def _from_tensor_kernel(xp, tensor, *, dynamic_size=False):
    tensor = xp.asarray(tensor)
    if tensor.ndim == 0:
        raise errors.InvalidArgumentError(None, None, "Cannot unstack a scalar into a TensorArray")
    return TensorList(list(tensor), bool(dynamic_size))


@register_op("TensorListGather", shape=_stack_shape, dtype=_element_dtype)
def _gather_kernel(xp, lst, indices, *, element_dtype=None, element_shape=None):
    picked = []
    for i in np.asarray(indices).reshape(-1).tolist():
        if not 0 <= i < len(lst):
            raise errors.InvalidArgumentError(None, None, f"Tried to gather index {i} of a TensorArray of size "
                                              f"{len(lst)}")
        picked.append(lst.items[i])
    return _stacked(xp, picked, element_shape, element_dtype, "gather from")


@register_op("TensorListScatter", shape=_list_shape, dtype=_variant, may_alias=True)
def _scatter_kernel(xp, lst, indices, tensor):
    indices = np.asarray(indices).reshape(-1).tolist()
    tensor = xp.asarray(tensor)
    if len(indices) != tensor.shape[0]:
        raise errors.InvalidArgumentError(None, None, f"scatter got {len(indices)} indices for {tensor.shape[0]} "
                                          "values")
    for i, value in zip(indices, tensor):
        _checked(lst, i, "scatter to")
        lst = lst.replaced(i, value)
    return lst


@register_op("TensorListLength", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.int32)
def _length_kernel(lst):
    return np.int32(len(lst))


@register_op("TensorListConcat", shape=lambda op: unknown_shape(), dtype=_element_dtype)
def _concat_kernel(xp, lst, *, element_dtype=None, element_shape=None):
    if any(item is None for item in lst.items):
        raise errors.InvalidArgumentError(None, None, "Could not concat a TensorArray: not every element is written")
    if not lst.items:
        return xp.zeros([0], dtype=element_dtype.as_numpy_dtype)
    return xp.concatenate(lst.items, axis=0)


@register_op("TensorListSplit", shape=_list_shape, dtype=_variant, may_alias=True)
def _split_kernel(xp, tensor, lengths, *, dynamic_size=False):
    tensor = xp.asarray(tensor)
    lengths = np.asarray(lengths).reshape(-1)
    if int(lengths.sum()) != tensor.shape[0]:
        raise errors.InvalidArgumentError(None, None, f"Expected lengths to sum to {tensor.shape[0]}, got "
                                          f"{int(lengths.sum())}")
    return TensorList(xp.split(tensor, np.cumsum(lengths)[:-1].tolist()), bool(dynamic_size))


not_differentiable("EmptyTensorList")
not_differentiable("TensorListLength")


# -- gradients: the gradient of a list is a list of gradients (None: zeros) --------------


@register_op("_TensorListPut", shape=_list_shape, dtype=_variant, may_alias=True)
def _put_kernel(like, index, item):
    """A gradient list as long as ``like`` holding only ``item`` at ``index``."""
    return like.zeros_like().replaced(_index(index), item)


@register_op("_TensorListTake", shape=lambda op: op.inputs[2].shape, dtype=lambda op: op.inputs[2].dtype.base_dtype,
             may_alias=True)
def _take_kernel(xp, grads, index, like):
    """Element ``index`` of a gradient list (zeros like ``like`` where it has none)."""
    i = _index(index)
    item = grads.items[i] if i < len(grads) else None
    return xp.zeros_like(like) if item is None else item


@register_op("_TensorListClear", shape=_list_shape, dtype=_variant, may_alias=True)
def _clear_kernel(grads, indices):
    """The gradient list without the elements at ``indices`` (overwritten in the forward pass)."""
    for i in np.asarray(indices).reshape(-1).tolist():
        if i < len(grads):
            grads = grads.replaced(i, None)
    return grads


@register_op("_TensorListTakeAll", shape=lambda op: op.inputs[2].shape, dtype=lambda op: op.inputs[2].dtype.base_dtype)
def _take_all_kernel(xp, grads, indices, like):
    """Elements ``indices`` of a gradient list, stacked (zeros where it has none), shaped like ``like``."""
    return _stacked_grads(xp, grads, np.asarray(indices).reshape(-1).tolist(), like)


def _stacked_grads(xp, grads: TensorList, indices, like):
    out = xp.zeros_like(xp.asarray(like))
    for k, i in enumerate(indices):
        if i < len(grads) and grads.items[i] is not None:
            out[k] = grads.items[i]
    return out


@register_op("_TensorListStackGrads", shape=lambda op: op.inputs[1].shape,
             dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _stack_grads_kernel(xp, grads, like):
    """A gradient list stacked like ``like`` (zeros where it has none)."""
    return _stacked_grads(xp, grads, range(len(like)), like)


@register_op("_TensorListPutAll", shape=_list_shape, dtype=_variant, may_alias=True)
def _put_all_kernel(xp, like, indices, values):
    out = like.zeros_like()
    for i, value in zip(np.asarray(indices).reshape(-1).tolist(), xp.asarray(values)):
        out = out.replaced(i, value)
    return out


for _op in ("_TensorListPut", "_TensorListTake", "_TensorListClear", "_TensorListTakeAll", "_TensorListPutAll",
            "_TensorListStackGrads"):
    not_differentiable(_op)


@register_gradient("TensorListGetItem")
def _get_item_grad(op, grad):
    return make_tensor("_TensorListPut", [op.inputs[0], op.inputs[1], grad]), None


@register_gradient("TensorListSetItem")
def _set_item_grad(op, grad):
    item = make_tensor("_TensorListTake", [grad, op.inputs[1], op.inputs[2]])
    return make_tensor("_TensorListClear", [grad, op.inputs[1]]), None, item


@register_gradient("TensorListStack")
def _stack_grad(op, grad):
    return make_tensor("TensorListFromTensor", [grad])


@register_gradient("TensorListFromTensor")
def _from_tensor_grad(op, grad):
    return make_tensor("_TensorListStackGrads", [grad, op.inputs[0]])


@register_gradient("TensorListGather")
def _gather_grad(op, grad):
    return make_tensor("_TensorListPutAll", [op.inputs[0], op.inputs[1], grad]), None


@register_gradient("TensorListScatter")
def _scatter_grad(op, grad):
    values = make_tensor("_TensorListTakeAll", [grad, op.inputs[1], op.inputs[2]])
    return make_tensor("_TensorListClear", [grad, op.inputs[1]]), None, values


@register_op("_TensorListSplitLike", shape=_list_shape, dtype=_variant, may_alias=True)
def _split_like_kernel(xp, grad, like):
    """``grad`` (of a concat of ``like``'s elements) split into a list of their lengths."""
    lengths = [item.shape[0] for item in like.items]
    return TensorList(xp.split(xp.asarray(grad), np.cumsum(lengths)[:-1].tolist()))


@register_op("_TensorListConcatGrads", shape=lambda op: op.inputs[1].shape,
             dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _concat_grads_kernel(xp, grads, tensor, lengths):
    """A gradient list's elements concatenated like ``tensor`` was split (zeros where none)."""
    out = xp.zeros_like(xp.asarray(tensor))
    start = 0
    for k, n in enumerate(np.asarray(lengths).reshape(-1).tolist()):
        if k < len(grads) and grads.items[k] is not None:
            out[start:start + n] = grads.items[k]
        start += n
    return out


not_differentiable("_TensorListSplitLike")
not_differentiable("_TensorListConcatGrads")


@register_gradient("TensorListConcat")
def _concat_grad(op, grad):
    return make_tensor("_TensorListSplitLike", [grad, op.inputs[0]])


@register_gradient("TensorListSplit")
def _split_grad(op, grad):
    return make_tensor("_TensorListConcatGrads", [grad, op.inputs[0], op.inputs[1]]), None
