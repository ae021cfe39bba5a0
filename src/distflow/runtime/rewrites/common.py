"""What several rewrite passes need to know about a list of nodes."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..device import Device
from ..partition import MAY_ALIAS, Node


@dataclass
class Nodes:
    """The nodes being rewritten (one partition, or a whole step in its global order),
    each with its device, and what must survive: fed and fetched outputs, keyed by
    (node name, output index)."""

    nodes: list[Node]
    devices: list[Device]
    fed: dict
    fetched: dict
    readers_before: dict = field(default_factory=dict)  # reader counts before any rewrite

    def replace(self, nodes: list[Node], devices: list[Device]) -> None:
        self.nodes, self.devices = nodes, devices


def count_readers(nodes: list[Node]) -> dict[tuple[str, int], int]:
    readers: dict[tuple[str, int], int] = {}
    for node in nodes:
        for key in node.inputs:
            readers[key] = readers.get(key, 0) + 1
    return readers


def scalar_constant(key, by_name: dict[str, Node], fed=(), kinds: str = "f"):
    """The value of the scalar ``Const`` behind ``key`` if its dtype kind is in ``kinds``, else None."""
    node = by_name.get(key[0])
    if key in fed or node is None or node.type != "Const":
        return None
    value = node.attrs["value"]
    return value.item() if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in kinds else None


def variables_touched(nodes: list[Node]) -> tuple[list[frozenset], dict]:
    """For each node, the variables whose memory it reads or writes: through a variable's
    reference, or an output that may be a view of one (``MAY_ALIAS``); and, by output,
    the variables an output may be the memory of."""
    variables_of: dict[tuple[str, int], frozenset] = {}
    touched_by = []
    for node in nodes:
        touched = frozenset().union(*(variables_of.get(key, ()) for key in node.inputs))
        if node.type == "VariableV2":
            variables_of[(node.name, 0)] = frozenset((node.name,))
        elif node.type in MAY_ALIAS and touched:
            for k in range(node.num_outputs):
                variables_of[(node.name, k)] = touched
        touched_by.append(touched)
    return touched_by, variables_of
