"""The global step: one int64 counter per graph, in the GLOBAL_STEP collection."""

from __future__ import annotations

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..ops import init_ops
from ..ops.variable_scope import get_variable


def get_global_step(graph=None):
    """The graph's global step variable, or None."""
    graph = graph or ops.get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        raise TypeError("There are multiple items in the GLOBAL_STEP collection")
    return found[0] if found else None


def create_global_step(graph=None):
    """Creates the global step (an error if the graph already has one)."""
    graph = graph or ops.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(None):
        return get_variable("global_step", shape=[], dtype=dtypes.int64, initializer=init_ops.zeros_initializer(),
                            trainable=False, collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    graph = graph or ops.get_default_graph()
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


def global_step(sess, global_step_tensor) -> int:
    """The current value of the global step, as a Python int."""
    return int(sess.run(global_step_tensor))
