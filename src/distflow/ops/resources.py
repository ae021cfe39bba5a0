"""TensorFlow's resource registry (``tensorflow.python.ops.resources``): stateful objects that a
graph starts with an op of their own, as TF 1.x's tensor_forest and boosted-trees ops kept
their state. A resource registers ``(handle, create_op, is_initialized_op)`` in the graph's
``RESOURCES`` (or ``LOCAL_RESOURCES``) collection; ``initialize_resources`` groups their
create ops. distflow's own stateful models keep their state in variables, so their programs'
``initialize_resources(shared_resources())`` is a no-op beside ``global_variables_initializer``.
"""

from __future__ import annotations

import collections

from ..framework import dtypes, ops
from ..ops import array_ops, control_flow_ops, unary_ops
from ..ops.manip_ops import boolean_mask

_Resource = collections.namedtuple("_Resource", ["handle", "create", "is_initialized"])


def register_resource(handle, create_op, is_initialized_op, is_shared=True):
    """Registers a resource in the graph's ``RESOURCES`` (``LOCAL_RESOURCES`` if not shared)."""
    key = ops.GraphKeys.RESOURCES if is_shared else ops.GraphKeys.LOCAL_RESOURCES
    ops.add_to_collection(key, _Resource(handle, create_op, is_initialized_op))


def shared_resources():
    """The resources shared between sessions (the ``RESOURCES`` collection)."""
    return ops.get_collection(ops.GraphKeys.RESOURCES)


def local_resources():
    """The resources local to a session (the ``LOCAL_RESOURCES`` collection)."""
    return ops.get_collection(ops.GraphKeys.LOCAL_RESOURCES)


def initialize_resources(resource_list, name="init"):
    """An op that creates every resource of ``resource_list`` (a no-op if it is empty)."""
    if resource_list:
        return control_flow_ops.group(*[r.create for r in resource_list], name=name)
    return control_flow_ops.no_op(name=name)


def report_uninitialized_resources(resource_list=None, name=None):
    """The handles' names of the resources not yet created, a 1-D string tensor."""
    with ops.name_scope(name or "report_uninitialized_resources"):
        resources = shared_resources() + local_resources() if resource_list is None else list(resource_list)
        if not resources:
            return array_ops.constant([], dtype=dtypes.string)
        names = array_ops.constant([r.handle.op.name for r in resources])
        missing = unary_ops.logical_not(array_ops.stack([r.is_initialized for r in resources]))
        return boolean_mask(names, missing)
