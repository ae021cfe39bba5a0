"""TF 1.x's stacks (``StackV2``, ``StackPushV2``, ``StackPopV2``, ``StackCloseV2``) as its
GraphDefs hold them: how TF 1.x's gradient of a tf.while_loop gets the forward loop's values.
The forward loop pushes each value it will need, one per iteration; the gradient loop pops
them, last first. A GraphDef of a TF 1.x training graph with loops (imported with
``import_meta_graph``) holds them; distflow's own loops keep those values as lists instead
(function_ops.py).

The handle is the stack itself (a ``resource`` tensor), made anew by each run of ``StackV2``.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape, unknown_shape


class StackResource:
    """One run's stack of a ``StackV2`` node."""

    __slots__ = ("name", "dtype", "max_size", "items")

    def __init__(self, name: str, dtype, max_size: int):
        self.name, self.dtype, self.max_size = name, dtype, max_size
        self.items: list = []

    def __repr__(self):
        return f"Stack({self.name!r}, {len(self.items)} elements)"


@register_op("StackV2", shape=lambda op: TensorShape([2]), dtype=lambda op: dtypes.resource, stateful=True)
def _stack_kernel(ctx, max_size, *, elem_type, stack_name=""):
    return StackResource(stack_name or ctx.op_name, dtypes.as_dtype(elem_type).base_dtype, int(np.asarray(max_size)))


@register_op("StackPushV2", shape=lambda op: op.inputs[1].shape, dtype=lambda op: op.inputs[1].dtype.base_dtype,
             stateful=True, may_alias=True)
def _push_kernel(handle, elem, *, swap_memory=False):
    if 0 <= handle.max_size <= len(handle.items):
        raise errors.InvalidArgumentError(None, None, f"Stack[{handle.name}] overflowed its max_size "
                                          f"({handle.max_size})")
    elem = np.asarray(elem)
    if dtypes.as_dtype(elem.dtype).base_dtype != handle.dtype:
        raise errors.InvalidArgumentError(None, None, f"Stack[{handle.name}]: its elements are "
                                          f"{handle.dtype.name}, and a {dtypes.as_dtype(elem.dtype).name} was pushed")
    handle.items.append(elem)
    return elem


@register_op("StackPopV2", shape=lambda op: unknown_shape(), dtype=lambda op: op._attr("elem_type"), stateful=True,
             may_alias=True)
def _pop_kernel(handle, *, elem_type=None):
    if not handle.items:
        raise errors.InvalidArgumentError(None, None, f"Stack[{handle.name}] is empty.")
    return handle.items.pop()


@register_op("StackCloseV2", shape=lambda op: [], dtype=lambda op: [], stateful=True, list_output=True)
def _close_kernel(handle):
    handle.items.clear()
    return ()


for _op_type in ("StackV2", "StackPushV2", "StackPopV2", "StackCloseV2"):
    not_differentiable(_op_type)
