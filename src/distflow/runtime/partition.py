"""Pruning and partitioning: from a graph and a step's fetches to per-device node lists.

The subgraph a step needs is split by device. Every edge that crosses devices
becomes one ``_Send`` on the producer's device and one ``_Recv`` on the consumer's
(all consumers on one device share the ``_Recv``); an op's control edges from
another device send one empty token the same way, once all of their sources have
run there. Each device's nodes keep the order of one global topological order, so
running every partition in order, concurrently, can never deadlock: the earliest
unfinished node in the global order always has all of its inputs.
"""

from __future__ import annotations

from ..framework import dtypes
from ..framework.ops import Operation, Tensor
from ..framework import registry
from ..framework.registry import get_registration
from ..ops import runtime_ops  # noqa: F401 - registers _Send and _Recv, the partitioner's ops

CONTROL = -1  # the output index of a control edge

# Ops whose kernel may return an input, or a view of it: a fetched value from one of
# them is copied, so that a later in-place variable update cannot change it.
_MAY_ALIAS_BUILTIN = frozenset({
    "Identity", "StopGradient", "PlaceholderWithDefault", "Reshape", "Squeeze", "ExpandDims",
    "StridedSlice", "Slice", "Split", "SplitV", "Unpack", "Transpose", "Const", "AddN",
    "Cast", "InitializedValueOrDefault", "VariableV2", "Assign", "AssignAdd", "AssignSub",
    "SumToShape", "BroadcastTo", "MirrorPadGrad", "_RowBlocks",
})


class _MayAlias:
    """``op_type in MAY_ALIAS``: the types above, and every op registered with ``may_alias=True``."""

    def __contains__(self, op_type: str) -> bool:
        if op_type in _MAY_ALIAS_BUILTIN:
            return True
        return registry.is_registered(op_type) and registry.get_registration(op_type).may_alias


MAY_ALIAS = _MayAlias()


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
    """The ops needed to compute ``fetch_ops``, in a topological order in which every
    read of a variable's memory comes before the step's updates of that variable that
    do not depend on it (see :func:`updates_after_reads`).

    A fed tensor cuts the graph: its producer runs only if something else needs it.
    """
    order = _topological(fetch_ops, fed, {})
    reordered = _waiting_fetches_last(fetch_ops, order, fed)
    if reordered is not None:
        fetch_ops = reordered
        order = _topological(fetch_ops, fed, {})
    after = updates_after_reads(order)
    for op, waits in collective_waits(order).items():
        after.setdefault(op, []).extend(waits)
    return contiguous_collectives(_topological(fetch_ops, fed, after)) if after else order


def _waiting_fetches_last(fetch_ops, order: list[Operation], fed) -> list[Operation] | None:
    """``fetch_ops`` reordered so that those that need an op that may wait for a value (a
    dequeue) come after those that do not, or None where that changes nothing.

    In a step that fetches a dequeue and an enqueue that fails (or would feed it), the
    enqueue's side runs first: the step fails, or the dequeue finds its element, where in
    the fetches' order the dequeue would wait for ever (TF's executor runs both at once).
    """
    takers = {op for op in order if op._outputs and _waiting_last(op)}  # (a dequeue; an enqueue gives nothing)
    if not takers:
        return None
    reaches: set[Operation] = set()
    for op in order:  # (inputs before the ops that take them)
        if op in takers or any(c in reaches for c in op._control_inputs) or any(
                t.op in reaches for t in op._inputs if (t.op._name, t._value_index) not in fed):
            reaches.add(op)
    later = sorted(fetch_ops, key=lambda op: op in reaches)
    return later if later != list(fetch_ops) else None


# The collectives whose members each wait in one op for the others (a _CollectiveReduceDone
# waits too, for the instance its start op began: see collective_waits)
BLOCKING_COLLECTIVES = frozenset({"CollectiveReduce", "NcclAllReduce", "CollectiveGather", "CollectiveBcastSend",
                                  "CollectiveBcastRecv"})


def _instance(op: Operation):
    """What the members of one collective run share: its group and instance keys (an
    NcclAllReduce's: its shared name)."""
    if op._type == "NcclAllReduce":
        return ("nccl", op._attrs.get("shared_name"))
    return (op._attrs.get("group_key"), op._attrs.get("instance_key"))


def collective_waits(order: list[Operation]) -> dict[Operation, list[Operation]]:
    """The ops each collective member of the step must run after, beyond its inputs.

    Each device runs its ops in the step's order, so the order decides whether members
    meet: a member that waits in its op while another member's device still has to compute
    (and send it) that member's inputs would wait forever.

    - A collective's done op (the op that waits for an all-reduce begun by a start op) comes
      after the start ops of the instance's other members: every member's start is before
      any member's done, so a member waits for the ring only once every member's partition
      is past its start, and a tensor one replica's device sends another (a metric's value
      summed across replicas) cannot hold a member back from its start while another waits.
    - The members of a blocking collective (one op that waits for the others) come after
      the inputs of all of them, and the ops that read any member's output after all of
      them: a device reaches its member only when it has computed its share of every
      member's inputs, and :func:`contiguous_collectives` can then put the members side by
      side, so that every device meets two instances in one order.
    """
    starts: dict[tuple, list[Operation]] = {}
    blocking: dict[tuple, list[Operation]] = {}
    for op in order:
        if op._type == "_CollectiveReduceStart":
            starts.setdefault(_instance(op), []).append(op)
        elif op._type in BLOCKING_COLLECTIVES:
            blocking.setdefault(_instance(op), []).append(op)
    waits = {}
    for op in order:
        if op._type == "_CollectiveReduceDone" and op._inputs and op._inputs[0].op._type == "_CollectiveReduceStart":
            start = op._inputs[0].op
            others = [m for m in starts.get(_instance(start), ()) if m is not start]
            if others:
                waits[op] = others
    in_order = set(order)
    instance_of = {m: members for members in blocking.values() if len(members) > 1 for m in members}
    for members in blocking.values():
        if len(members) < 2:
            continue
        inputs = [t.op for m in members for t in m._inputs] + [c for m in members for c in m._control_inputs]
        inputs = [x for x in dict.fromkeys(inputs) if x in in_order]  # (not a fed tensor's producer)
        for member in members:
            waits[member] = inputs
    for op in order:
        read = {id(m): m for t in op._inputs for m in instance_of.get(t.op, ())}
        read.update((id(m), m) for c in op._control_inputs for m in instance_of.get(c, ()))
        if read and op not in instance_of:
            waits.setdefault(op, []).extend(read.values())
    return waits


def contiguous_collectives(order: list[Operation]) -> list[Operation]:
    """``order`` (arranged by :func:`collective_waits`) with the members of each blocking
    collective side by side, where its first member was. That keeps it an order: the first
    member comes after every member's inputs, and the readers of any member after the last."""
    blocking: dict[tuple, list[Operation]] = {}
    for op in order:
        if op._type in BLOCKING_COLLECTIVES:
            blocking.setdefault(_instance(op), []).append(op)
    if all(len(members) < 2 for members in blocking.values()):
        return order
    out, placed = [], set()
    for op in order:
        if op in placed:
            continue
        members = blocking.get(_instance(op), [op]) if op._type in BLOCKING_COLLECTIVES else [op]
        out.extend(members)
        placed.update(members)
    return out


def _waiting_last(op: Operation) -> bool:
    """Whether ``op`` may wait for what other steps give (a dequeue, a reader's read): not a
    collective, whose members' order collective_waits decides (and which should start early)."""
    if op._type in BLOCKING_COLLECTIVES or op._type.startswith(("_Collective", "Collective", "Nccl")):
        return False
    return bool(getattr(getattr(op, "_reg", None), "blocking", False))


def _topological(fetch_ops, fed, after: dict) -> list[Operation]:
    """Depth-first post-order from ``fetch_ops``; ``after[op]`` lists ops to run before
    ``op`` that are not its inputs (skipped where that would close a cycle)."""
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
            # (an op that may wait (a dequeue) after its siblings that do not: where a sibling
            # fails (count_up_to past its limit), the step ends before anything waits, as TF's
            # concurrent executor cancels the waiting op)
            deps.sort(key=_waiting_last)
            for dep in after.get(op, ()):
                if dep not in done and dep not in pending:
                    stack.append((dep, False))
            for dep in reversed(deps):
                if dep not in done:
                    if dep in pending:
                        raise ValueError(f"The graph has a cycle through op '{dep.name}'")
                    stack.append((dep, False))
    return order


_ENQUEUES = frozenset({"QueueEnqueue", "QueueEnqueueMany"})
_DEQUEUES = frozenset({"QueueDequeue"})


def later_dequeues(nodes: list[Node]) -> dict[str, int]:
    """For each enqueue of ``nodes`` (one device's ops in the order they run), how many
    dequeues of the same queue come after it and do not depend on it.

    TensorFlow's executor runs such a pair at once, so an enqueue onto a full queue finds
    room when the step's dequeue takes an element: a queue used as a delay line (WaveNet's
    fast generation pushes each layer's input onto a queue as long as its dilation and
    pops the one pushed that many steps before, in one step) moves by one element a step.
    Here a device runs its ops one after another; the enqueue may instead overfill the
    queue by that many elements, which the step's dequeues then take, leaving what TF's
    order leaves (the dequeues take the oldest elements either way)."""
    enqueues = [i for i, n in enumerate(nodes) if n.type in _ENQUEUES]
    if not enqueues:
        return {}
    found = {}
    for i in enqueues:
        queue = nodes[i].inputs[0] if nodes[i].inputs else None
        downstream, count = {nodes[i].name}, 0
        for later in nodes[i + 1:]:
            if any(name in downstream for name, _ in later.inputs):
                downstream.add(later.name)
            elif later.type in _DEQUEUES and later.inputs and later.inputs[0] == queue:
                count += 1
        if count:
            found[nodes[i].name] = count
    return found


def updates_after_reads(order: list[Operation], wanted=None) -> dict[Operation, list[Operation]]:
    """For each op of ``order`` that updates a variable in place (one taking the
    variable's reference, as Assign and the optimizers' Apply ops do), the ops of
    ``order`` that read the variable's memory and do not depend on that update.

    In one step they run before the update. TF 1.x left this to chance: a gradient
    computed in the same step as another variable's update (``minimize`` with
    ``var_list`` in another order, say) could read the updated value.

    ``wanted(reader, writer)`` picks the pairs to report; by default, readers that come
    after the update in ``order`` (the ones a reordering must move), so most steps cost
    one pass.
    """
    if wanted is None:
        def wanted(reader, writer):
            return position[reader] > position[writer]
    position = {op: i for i, op in enumerate(order)}
    consumers: dict[tuple[str, int], list[Operation]] = {}
    for op in order:
        for i, t in enumerate(op._inputs):
            consumers.setdefault((t.op._name, t._value_index), []).append((op, i))
    after: dict[Operation, list[Operation]] = {}
    for var in order:
        if var.type != "VariableV2":
            continue
        writers, readers = [], []
        aliases, seen = [(var._name, 0)], set()
        while aliases:
            key = aliases.pop()
            for op, i in consumers.get(key, ()):
                if (op, i) in seen:
                    continue
                seen.add((op, i))
                reg = get_registration(op.type)
                if reg.stateful and i in reg.ref_inputs:
                    writers.append(op)
                    continue
                readers.append(op)
                if op.type in MAY_ALIAS:  # its outputs are the variable's memory too
                    aliases.extend((op._name, k) for k in range(len(op._outputs)))
        for writer in writers:
            chosen = [r for r in readers if r is not writer and wanted(r, writer)]
            late = [r for r in chosen if position[r] > position[writer]]
            if late:  # (a reader before the update in a topological order cannot depend on it)
                downstream = _downstream(writer, max(position[r] for r in late), order, position)
                chosen = [r for r in chosen if r not in downstream]
            if chosen:
                after.setdefault(writer, []).extend(chosen)
    return after


def _downstream(op: Operation, last: int, order: list[Operation], position: dict) -> set[Operation]:
    """The ops of ``order[:last + 1]`` that depend on ``op`` (by data or control)."""
    found = {op}
    for other in order[position[op] + 1:last + 1]:
        if any(t.op in found for t in other._inputs) or any(c in found for c in other._control_inputs):
            found.add(other)
    return found


def partition(order: list[Operation], device_of: dict[Operation, str],
              fed: set[tuple[str, int]]) -> dict[str, list[Node]]:
    """Splits ``order`` by device, adding _Send/_Recv pairs (see the module docstring).

    A variable's update waits, by a control edge, for the step's reads of it on other
    devices of the same task, which get the variable's memory itself, not a copy
    (:func:`updates_after_reads`; ``order`` already has them first within a device).
    """
    parts: dict[str, list[Node]] = {}
    # (only pairs that ``order`` already has reader-first: an edge against it could close a cycle)
    position = {op: i for i, op in enumerate(order)}
    cross_reads = updates_after_reads(order, lambda r, w: position[r] < position[w] and device_of[r] != device_of[w]
                                      and _task(device_of[r]) == _task(device_of[w]))
    # consumers' devices of each output and each control edge, to send eagerly
    targets: dict[tuple[str, int], set[str]] = {}
    # An op's control edges from several ops of one other device are one token, sent
    # once the last of them has run there (a partition runs in order): a training op
    # that groups a ps task's updates waits for one message, not one per variable.
    joint: dict[Operation, dict[str, tuple[str, int]]] = {}  # op -> source device -> token
    joint_after: dict[Operation, list[tuple[tuple[str, int], str]]] = {}  # last source -> (token, dst)
    for op in order:
        dst = device_of[op]
        for t in op._inputs:
            key = (t.op._name, t._value_index)
            if key not in fed and device_of[t.op] != dst:
                targets.setdefault(key, set()).add(dst)
        by_source: dict[str, list[Operation]] = {}
        for c in dict.fromkeys([*op._control_inputs, *cross_reads.get(op, ())]):
            if device_of[c] != dst:
                by_source.setdefault(device_of[c], []).append(c)
        for src, controls in by_source.items():
            if len(controls) == 1:
                targets.setdefault((controls[0]._name, CONTROL), set()).add(dst)
                continue
            token = (f"{op._name}/_controls_from_{_safe(src)}", CONTROL)
            joint.setdefault(op, {})[src] = token
            joint_after.setdefault(max(controls, key=position.__getitem__), []).append((token, dst))
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
        tokens = joint.get(op, {})
        for c in [*op._control_inputs, *cross_reads.get(op, ())]:
            src = device_of[c]
            if src != dev:
                key = tokens.get(src, (c._name, CONTROL))
                _recv_for(nodes, received, key, src, dev, dtypes.bool)
        nodes.append(Node.from_op(op, inputs))
        for index in range(CONTROL, len(op._outputs)):
            for dst in sorted(targets.get((op._name, index), ())):
                nodes.append(send_node((op._name, index), dev, dst))
        for token, dst in joint_after.get(op, ()):
            nodes.append(send_node(token, dev, dst))
    return parts


def _task(device: str) -> str:
    """The task part of a full device name ('/job:w/replica:0/task:1/device:CPU:0' -> '/job:w/replica:0/task:1')."""
    return device.rpartition("/device:")[0]


def _recv_for(nodes, received, key, src, dst, dtype) -> str:
    name = received.get((key, dst))
    if name is None:
        node = recv_node(key, src, dst, dtype.base_dtype if isinstance(dtype, dtypes.DType) else dtype)
        nodes.append(node)
        name = received[(key, dst)] = node.name
    return name


def output_key(t: Tensor) -> tuple[str, int]:
    return t.op._name, t._value_index
