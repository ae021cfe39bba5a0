"""Pruning and partitioning: from a graph and a step's fetches to per-device node lists.

The subgraph a step needs is split by device. Every edge that crosses devices
becomes one ``_Send`` on the producer's device and one ``_Recv`` on the consumer's
(all consumers on one device share the ``_Recv``); a control edge across devices
sends an empty token the same way. Each device's nodes keep the order of one
global topological order, so running every partition in order, concurrently,
can never deadlock: the earliest unfinished node in the global order always has
all of its inputs.
"""

from __future__ import annotations

from ..framework import dtypes
from ..framework.ops import Operation, Tensor
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape


def _recv_shape(op):
    return TensorShape(None)


# The partitioner's own ops; the executor runs them against the step's rendezvous.
register_op("_Send", shape=lambda op: [])
register_op("_Recv", shape=_recv_shape, dtype=lambda op: op.get_attr("tensor_type"))

CONTROL = -1  # the output index of a control edge

# Ops whose kernel may return an input, or a view of it: a fetched value from one of
# them is copied, so that a later in-place variable update cannot change it.
MAY_ALIAS = frozenset({
    "Identity", "StopGradient", "PlaceholderWithDefault", "Reshape", "Squeeze", "ExpandDims",
    "StridedSlice", "Slice", "Split", "SplitV", "Unpack", "Transpose", "Const", "AddN",
    "Cast", "InitializedValueOrDefault", "VariableV2", "Assign", "AssignAdd", "AssignSub",
    "SumToShape", "BroadcastTo", "MirrorPadGrad",
})


class Node:
    """One node of a partition (a NodeDef with parsed inputs).

    ``inputs`` are ``(node name, output index)`` pairs; ``input_is_ref`` says which of
    them carry a variable reference; ``op`` is the client graph's Operation, if any.
    """

    __slots__ = ("name", "type", "attrs", "inputs", "input_is_ref", "num_outputs", "op")

    def __init__(self, name, op_type, attrs, inputs, input_is_ref, num_outputs, op=None):
        self.name = name
        self.type = op_type
        self.attrs = attrs
        self.inputs = inputs
        self.input_is_ref = input_is_ref
        self.num_outputs = num_outputs
        self.op = op

    @classmethod
    def from_op(cls, op: Operation, inputs=None) -> "Node":
        return cls(op.name, op.type, op._attrs,
                   inputs if inputs is not None else [(t.op.name, t.value_index) for t in op.inputs],
                   [t.dtype.is_ref_dtype for t in op.inputs], len(op.outputs), op)

    def __repr__(self):
        return f"Node({self.name!r}, {self.type!r}, inputs={self.inputs})"


def send_node(key: tuple[str, int], src: str, dst: str) -> Node:
    name, index = key
    tag = "ctrl" if index == CONTROL else str(index)
    return Node(f"_send_{name}_{tag}_to_{_safe(dst)}", "_Send",
                {"tensor_name": _tensor_name(key), "send_device": src, "recv_device": dst},
                [] if index == CONTROL else [key], [], 0)


def recv_node(key: tuple[str, int], src: str, dst: str, dtype) -> Node:
    name, index = key
    tag = "ctrl" if index == CONTROL else str(index)
    return Node(f"_recv_{name}_{tag}_on_{_safe(dst)}", "_Recv",
                {"tensor_name": _tensor_name(key), "send_device": src, "recv_device": dst,
                 "tensor_type": dtype}, [], [], 1)


def _safe(device: str) -> str:
    """A device name usable inside a node name (no ':' and no '/')."""
    return device.strip("/").replace("/", "_").replace(":", "_")


def _tensor_name(key) -> str:
    name, index = key
    return f"^{name}" if index == CONTROL else f"{name}:{index}"


def rendezvous_key(node: Node) -> tuple[str, str, str]:
    """(source device, destination device, tensor name): what a send and its recv share."""
    a = node.attrs
    return a["send_device"], a["recv_device"], a["tensor_name"]


def prune(fetch_ops: list[Operation], fed: set[tuple[str, int]]) -> list[Operation]:
    """The ops needed to compute ``fetch_ops``, in a topological order.

    A fed tensor cuts the graph: its producer runs only if something else needs it.
    """
    order: list[Operation] = []
    done: set[Operation] = set()
    for root in fetch_ops:
        if root in done:
            continue
        stack = [(root, False)]
        pending: set[Operation] = set()
        while stack:
            op, expanded = stack.pop()
            if expanded:
                pending.discard(op)
                if op not in done:
                    done.add(op)
                    order.append(op)
                continue
            if op in done or op in pending:
                continue
            pending.add(op)
            stack.append((op, True))
            deps = [c for c in op._control_inputs]
            deps += [t.op for t in op._inputs if (t.op._name, t._value_index) not in fed]
            for dep in reversed(deps):
                if dep not in done:
                    if dep in pending:
                        raise ValueError(f"The graph has a cycle through op '{dep.name}'")
                    stack.append((dep, False))
    return order


def partition(order: list[Operation], device_of: dict[Operation, str],
              fed: set[tuple[str, int]]) -> dict[str, list[Node]]:
    """Splits ``order`` by device, adding _Send/_Recv pairs (see the module docstring)."""
    parts: dict[str, list[Node]] = {}
    # consumers' devices of each output and each control edge, to send eagerly
    targets: dict[tuple[str, int], set[str]] = {}
    for op in order:
        dst = device_of[op]
        for t in op._inputs:
            key = (t.op._name, t._value_index)
            if key not in fed and device_of[t.op] != dst:
                targets.setdefault(key, set()).add(dst)
        for c in op._control_inputs:
            if device_of[c] != dst:
                targets.setdefault((c._name, CONTROL), set()).add(dst)
    received: dict[tuple[tuple[str, int], str], str] = {}
    for op in order:
        dev = device_of[op]
        nodes = parts.setdefault(dev, [])
        inputs = []
        for t in op._inputs:
            key = (t.op._name, t._value_index)
            src = device_of.get(t.op)
            if key in fed or src == dev:
                inputs.append(key)
            else:
                inputs.append((_recv_for(nodes, received, key, src, dev, t.dtype), 0))
        for c in op._control_inputs:
            src = device_of[c]
            if src != dev:
                _recv_for(nodes, received, (c._name, CONTROL), src, dev, dtypes.bool)
        nodes.append(Node.from_op(op, inputs))
        for index in range(CONTROL, len(op._outputs)):
            for dst in sorted(targets.get((op._name, index), ())):
                nodes.append(send_node((op._name, index), dev, dst))
    return parts


def _recv_for(nodes, received, key, src, dst, dtype) -> str:
    name = received.get((key, dst))
    if name is None:
        node = recv_node(key, src, dst, dtype.base_dtype if isinstance(dtype, dtypes.DType) else dtype)
        nodes.append(node)
        name = received[(key, dst)] = node.name
    return name


def output_key(t: Tensor) -> tuple[str, int]:
    return t.op._name, t._value_index
