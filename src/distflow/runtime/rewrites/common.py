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

    def edit(self, replaced: dict[int, list[Node]], dropped=()) -> None:
        """Puts the nodes ``replaced[i]`` (on node i's device, in that order) where node i
        was, and drops the nodes whose index is in ``dropped``."""
        nodes, devices = [], []
        for i, (node, device) in enumerate(zip(self.nodes, self.devices)):
            if i in dropped:
                continue
            for new in replaced.get(i, (node,)):
                nodes.append(new)
                devices.append(device)
        self.replace(nodes, devices)


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


class Terms:
    """Finds, behind a node's input, a gradient formed as ``c * (t0 + t1 + ...)``: ``c`` from
    a ``RealDiv`` or ``Mul`` by a scalar constant, the sum from an ``AddN``, each read by
    nothing else; and which terms are private products (``MatMul`` nodes nothing else
    reads). What a caller fuses it marks ``taken``, so no value is fused twice."""

    def __init__(self, plan: Nodes):
        self.plan = plan
        self.readers = count_readers(plan.nodes)
        self.position = {node.name: i for i, node in enumerate(plan.nodes)}
        self.by_name = {node.name: node for node in plan.nodes}
        self.taken: set[int] = set()

    def private(self, key) -> Node | None:
        """The producer of ``key`` if nothing but its one reader sees the value."""
        plan = self.plan
        i = self.position.get(key[0])
        if i is None or key in plan.fed or key in plan.fetched or self.readers.get(key) != 1 or i in self.taken:
            return None
        return plan.nodes[i]

    def scaled_sum(self, key, is_ref: bool) -> tuple[list[Node], float, list, list]:
        """(the scale and sum nodes behind ``key``, the scale, the sum's terms and whether
        each is a variable's reference); the terms are ``[key]`` where there is no sum."""
        return self.sum_at(self.private(key), key, is_ref)

    def sum_at(self, source: "Node | None", key, is_ref: bool) -> tuple[list[Node], float, list, list]:
        """``scaled_sum`` of ``key`` whose producer is ``source`` (None: not one to look into)."""
        removed, scale = [], 1.0
        keys, refs = [key], [is_ref]
        if source is not None and source.type in ("RealDiv", "Mul"):
            (x, y), x_ref = source.inputs, source.input_is_ref[0]
            c = scalar_constant(y, self.by_name, self.plan.fed)
            if c is None and source.type == "Mul":
                x, x_ref, c = y, source.input_is_ref[1], scalar_constant(x, self.by_name, self.plan.fed)
            if c is not None and c != 0.0:
                removed.append(source)
                scale = 1.0 / c if source.type == "RealDiv" else c
                keys, refs = [x], [x_ref]
                source = self.private(x)
        if source is not None and source.type == "AddN":
            removed.append(source)
            keys, refs = list(source.inputs), list(source.input_is_ref)
        return removed, scale, keys, refs

    def products(self, keys: list, device) -> tuple[list[Node], list]:
        """(the private ``MatMul`` terms computed on ``device``'s kind of memory, the other
        terms); every term a product where a term is received from another partition (it is
        then computed early instead: early_compute.py)."""
        products, others = [], []
        for key in keys:
            t = self.private(key) if keys.count(key) == 1 else None
            if t is not None and t.type == "MatMul" and self.plan.devices[self.position[t.name]].xp is device.xp:
                products.append(t)
            else:
                others.append(key)
        if any(key[0] in self.by_name and self.by_name[key[0]].type == "_Recv" for key in others):
            return [], keys
        return products, others

    def fused(self, removed: list[Node]) -> None:
        self.taken.update(self.position[r.name] for r in removed)


def product_operands(products: list[Node], others: list) -> tuple[list, list, tuple]:
    """The inputs of a node that computes ``products`` and adds ``others``: (operands, whether
    each is a reference, the products' (transpose_a, transpose_b))."""
    operands = [key for t in products for key in t.inputs] + others
    is_ref = [r for t in products for r in t.input_is_ref] + [False] * len(others)
    transposes = tuple((bool(t.attrs.get("transpose_a", False)), bool(t.attrs.get("transpose_b", False)))
                       for t in products)
    return operands, is_ref, transposes
