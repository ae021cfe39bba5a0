"""Which tf.distribute strategy, and which of its replicas, the code being built runs for.

The strategies (distflow/distribute/) push contexts here; code below them (variables,
optimizers, losses) asks without importing them:

- outside every strategy there is no context: one replica, the default strategy;
- inside ``strategy.scope()``, the *cross-replica* context of that strategy;
- inside a replica function that ``strategy.experimental_run_v2`` calls, the *replica*
  context of one replica (its index among this process's replicas, and in the group).

Contexts are per thread, as TensorFlow's are.
"""

from __future__ import annotations

import contextlib
import threading
from typing import NamedTuple


class Context(NamedTuple):
    strategy: object  # a distflow.distribute Strategy
    replica: object  # None in the cross-replica context; the ReplicaContext in a replica's


_local = threading.local()


def _stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current() -> Context | None:
    stack = _stack()
    return stack[-1] if stack else None


@contextlib.contextmanager
def entered(context: Context):
    stack = _stack()
    stack.append(context)
    try:
        yield context
    finally:
        stack.pop()


def replica_context():
    """The ReplicaContext of the replica being built, or None (outside a replica function)."""
    context = current()
    return None if context is None else context.replica


def in_cross_replica_context() -> bool:
    context = current()
    return context is not None and context.replica is None
