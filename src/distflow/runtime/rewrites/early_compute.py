"""Early compute: in a partition that waits for tensors, work that does not need them runs first.

Matches: a partition (or a step) with a ``_Recv``; in it, every stateless, non-blocking
node that reads no variable's memory and has no control input.
Produces: the same nodes, each such node moved up to just after its last input, ahead
of receives and updates it does not depend on. Every other node -- receives, stateful
and blocking nodes, readers of a variable, nodes with control inputs -- is a barrier
and keeps its place among the barriers, so a node only ever moves earlier and only past
nodes it does not depend on: the partitions still run in one global topological order
and cannot deadlock.
Why: a tower then computes its own gradients while the other tower's are still coming,
instead of after. Measured on the MLP benchmark's concurrent in-graph step (2 towers,
2-core VM, 7 rounds each in one process): 0.73x the one-device step before, 0.83x
after (43.5k -> 55.1k samples/s).
"""

from __future__ import annotations

from ...framework.registry import get_registration
from ..partition import CONTROL
from .common import Nodes, variables_touched


def applies(plan: Nodes) -> bool:
    return any(node.type == "_Recv" for node in plan.nodes)


def run(plan: Nodes) -> int:
    """Moves each movable node up; how many nodes changed place."""
    nodes, devices = plan.nodes, plan.devices
    position = {node.name: i for i, node in enumerate(nodes)}
    touched_by, _ = variables_touched(nodes)
    after = []
    for i, node in enumerate(nodes):
        reads_variable = any(node.input_is_ref) or bool(touched_by[i])
        reg = get_registration(node.type)
        barrier = reads_variable or reg.stateful or reg.blocking or node.type == "_Recv" \
            or (node.op is not None and node.op._control_inputs)
        if barrier:
            after.append((i, i))
        else:
            inputs = node.inputs
            if node.type == "_Send" and not inputs:  # a control edge's token: sent once its op has run
                source = node.attrs["tensor_name"][1:]
                if source not in position:
                    # A token for several ops of this partition (one update waiting for all
                    # of them) is placed after the last of them: it keeps its place.
                    after.append((i, i))
                    continue
                inputs = [(source, CONTROL)]
            # (a producer listed later is a fed placeholder, whose value is there from the start)
            producers = [position[key[0]] for key in inputs if position.get(key[0], i) < i]
            after.append((max((after[j][0] for j in producers), default=-1), i))
    # Sorting by (the barrier or input a node must follow, its own index) keeps every node
    # after its inputs and every barrier in its order.
    order = sorted(range(len(nodes)), key=after.__getitem__)
    plan.replace([nodes[i] for i in order], [devices[i] for i in order])
    return sum(1 for place, i in enumerate(order) if place != i)
