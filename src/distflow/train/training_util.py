"""The global step: one int64 counter per graph, in the GLOBAL_STEP collection."""

from __future__ import annotations

import logging

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..ops import init_ops
from ..ops.state_ops import Variable
from ..ops.variable_scope import get_variable

_log = logging.getLogger("distflow")


def get_global_step(graph=None):
    """The graph's global step: the one in the GLOBAL_STEP collection, else the tensor named
    'global_step:0' (``tf.Variable(0, name='global_step')``), else None.

    Raises:
      TypeError: it is not an integer scalar.
    """
    graph = graph or ops.get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        _log.error("Multiple tensors in global_step collection.")
        return None
    if found:
        step = found[0]
    else:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except (KeyError, ValueError):
            return None
    assert_global_step(step)
    return step


def assert_global_step(global_step_tensor) -> None:
    """Raises TypeError unless ``global_step_tensor`` is an integer scalar Variable or Tensor."""
    if not isinstance(global_step_tensor, (ops.Tensor, Variable)):
        raise TypeError(f'Existing "global_step" must be a Variable or Tensor: {global_step_tensor}.')
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: {global_step_tensor.dtype.name}')
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


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
