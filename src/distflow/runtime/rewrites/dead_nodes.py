"""Dead nodes: what the other passes left without a reader is not run.

Matches: a stateless, non-blocking node (not a ``_Send``/``_Recv``) that had readers
before the rewrites and has none now, and no fetched output -- the loss that only
seeded its gradient, once the seed is folded and the loss is not fetched.
Produces: the nodes without it; its inputs lose a reader and may go too (last first).
A node that never had a reader -- one that runs for a control dependency -- is kept.
Why: work whose result nobody sees.
"""

from __future__ import annotations

from ...framework.registry import get_registration
from .common import Nodes, count_readers


def run(plan: Nodes) -> int:
    """Drops the nodes left unread; how many."""
    nodes, devices = plan.nodes, plan.devices
    readers = count_readers(nodes)
    keep = [True] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):
        node = nodes[i]
        keys = [(node.name, k) for k in range(node.num_outputs)]
        if not keys or any(readers.get(k) or k in plan.fetched for k in keys) \
                or not any(plan.readers_before.get(k) for k in keys) or node.type in ("_Send", "_Recv"):
            continue
        reg = get_registration(node.type)
        if reg.stateful or reg.blocking:
            continue
        keep[i] = False
        for key in node.inputs:
            readers[key] -= 1
    dropped = keep.count(False)
    if dropped:
        plan.replace([n for n, k in zip(nodes, keep) if k], [d for d, k in zip(devices, keep) if k])
    return dropped
