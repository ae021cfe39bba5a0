"""Graph-level and op-level random seeds, combined as TensorFlow 1.x does."""

from __future__ import annotations

from . import ops

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def get_seed(op_seed):
    """The ``(seed, seed2)`` pair for a new random op.

    With a graph seed, an op without its own seed takes the graph's op count, so the
    same graph built twice draws the same numbers; with neither seed, ``(None, None)``
    asks the kernel for fresh entropy.
    """
    graph_seed = ops.get_default_graph().seed
    if graph_seed is not None:
        if op_seed is None:
            op_seed = ops.get_default_graph()._last_id
        seeds = (int(graph_seed), int(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed))
    else:
        return None, None
    seeds = (seeds[0] % _MAXINT32, seeds[1] % _MAXINT32)  # (as TF: a seed of 2**31 - 1 or more wraps)
    if seeds == (0, 0):  # (0, 0) means "nondeterministic" to the kernels
        return 0, _MAXINT32
    return seeds


def set_random_seed(seed) -> None:
    """Sets the graph-level seed of the default graph."""
    ops.get_default_graph().seed = seed
