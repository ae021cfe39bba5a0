"""The variables a metric keeps its running totals in."""

from __future__ import annotations

from ..framework import dtypes
from ..framework.ops import GraphKeys
from ..ops import array_ops, state_ops

METRIC_VARIABLES = GraphKeys.METRIC_VARIABLES


def local_variable(name, shape, dtype=dtypes.float32, initial_value=None):
    """A zero-initialized variable (or one of ``initial_value()``) in LOCAL_VARIABLES and METRIC_VARIABLES (reset by
    ``tf.local_variables_initializer()``), not trainable; synchronized on read as a sum, as
    TF's metric variables are: under a tf.distribute strategy each replica counts into its
    own copy, and the metric's value counts them all."""
    # (its zeros built by the variable: outside the control dependencies the metric's caller opened)
    initial_value = initial_value or (lambda: array_ops.zeros(shape, dtype=dtype))
    return state_ops.Variable(initial_value, name=name, trainable=False,
                              collections=[GraphKeys.LOCAL_VARIABLES, METRIC_VARIABLES],
                              synchronization=state_ops.VariableSynchronization.ON_READ,
                              aggregation=state_ops.VariableAggregation.SUM)
