"""Replica merge: the in-graph replicas' identical work becomes one call over all their rows.

Matches, in a plan that holds several devices' replicas (the sequential form of an
in-graph step, which runs every device's nodes on one thread):
- first, the replicas' products by one same matrix: ``MatMul(a_i, w)`` for i over the
  devices, one per device, with equal static rows;
- then, layer by layer, the replicas' calls of one row-wise op (bias add, ReLU and its
  gradient, softmax cross-entropy, ...: ``ROWWISE``) or batch-wise op (convolutions,
  pooling and their input gradients, reshapes: ``ROWS_AT``, whose rows are a batch's
  examples) on the rows of what the previous layer merged (or on the parts of a ``Split``
  along axis 0), with every other input shared (a small constant, such as a shape, that
  each tower has a copy of, by value) and the same attributes;
- and last, the sum over the replicas of a reduction of their rows: ``AddN`` of one
  ``SumToShape(g_i, shape)`` per replica (a bias's gradient, summed over the towers),
  where each ``g_i`` is replica i's rows of one merged result and the reduction sums the
  rows away; and ``AddN`` of the replicas' filter gradients (``FILTER_GRADIENTS``) of
  their rows of one input and one output gradient.
Produces: one ``_ReplicaMatMul`` of all the rows, then one call of each row-wise or
batch-wise op on all of them, which runs in place like the calls it replaces (a shape
input that counts one replica's rows, as a convolution's input gradient or a reshape
has, becomes a constant that counts all of them); the sums become one ``SumToShape``, or
one filter gradient, of all the rows, under the ``AddN``'s name. Each replica's node stays,
under its name, as a ``_RowBlocks`` view of its rows, so its readers do not change. A
replica's rows are read where they are when they are adjacent in memory (the parts of a
``Split``, the blocks of a merged result), else concatenated. The plan is then put back
in a topological order (``schedule``) that keeps every stateful node's place among them
and every read of a variable on its side of the variable's updates.
Why: one full-size GEMM runs faster than several of a fraction of the rows: a 128-row
product with two threads took 19% longer per row than a 256-row one (420 vs 353 us for
128x784 @ 784x512, 2-core VM). On the MLP benchmark's sequential in-graph step: 0.84x the
one-device step without the merge, 0.92x with the products merged (49.4k -> 54.1k
samples/s), and +4% more with the row-wise ops merged too. Once the products were
turned as one-device products are (math_ops.product), the merged step went from 0.92x to
0.98x TensorFlow's in-graph MLP (82.7k -> 86.0k samples/s; one device: 93.2k); the
merged bias gradients took the three layers' sums from 6 calls and 3 additions to 3 calls.
For convolutional towers, each convolution of half the batch ran at a lower rate than one
of the whole batch, and each filter gradient was computed twice and added: Deep MNIST
in-graph on 2 CPU devices (2-core Xeon VM, processes alternated) ran 1,630-1,940
samples/s before the convolutions and pooling were merged and 1,770-2,040 after (+7% in
the median of six pairs), as fast as the same model on one device, and its sequential
form then beat the concurrent one (28.5-31.6 against 35.6-36.7 ms a step).
Left alone: a "replica" that needs another's result (a chain, not replicas: there is no
order to put the merged nodes in), and fetched nodes.
"""

from __future__ import annotations

import heapq
from typing import NamedTuple

import numpy as np

from ...framework.registry import get_registration
from ...ops.runtime_ops import REPLICA_MATMUL, ROW_BLOCKS
from ..partition import CONTROL, Node
from .common import Nodes, count_readers, scalar_constant, variables_touched

# Ops whose output rows depend only on the same rows of their inputs (any other input is
# shared and has no rows of its own): the replicas' calls can be one call on all rows.
ROWWISE = frozenset({
    "AddV2", "Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "BiasAdd", "Neg", "Square", "Exp", "Log",
    "Relu", "Relu6", "Elu", "Sigmoid", "Tanh", "ReluGrad", "Relu6Grad", "EluGrad", "SigmoidGrad", "TanhGrad",
    "Softmax", "LogSoftmax", "SparseSoftmaxCrossEntropyWithLogits", "SoftmaxCrossEntropyWithLogits",
})


# Ops whose output's rows (the first axis: a batch's examples) depend only on the same rows
# of their inputs at ``ROWS_AT``, every other input shared and not broadcast against the
# rows (a filter, a shape, window sizes): the replicas' calls can be one call on all rows.
# A shape input at ``BATCH_SHAPE_AT`` counts the rows in its first entry; the merged call's
# counts all of them (-1 stays -1).
ROWS_AT = {
    "Conv2D": (0,), "DepthwiseConv2dNative": (0,), "MaxPool": (0,), "AvgPool": (0,), "LRN": (0,),
    "MaxPoolGrad": (0, 1, 2), "LRNGrad": (0, 1, 2), "AvgPoolGrad": (1,), "Conv2DBackpropInput": (2,),
    "DepthwiseConv2dNativeBackpropInput": (2,), "Reshape": (0,),
}
BATCH_SHAPE_AT = {"Conv2DBackpropInput": 0, "DepthwiseConv2dNativeBackpropInput": 0, "AvgPoolGrad": 0, "Reshape": 1}
# The filter gradients of those convolutions: summed over the replicas, one call on all rows.
FILTER_GRADIENTS = frozenset({"Conv2DBackpropFilter", "DepthwiseConv2dNativeBackpropFilter"})
_SMALL_CONSTANT = 16  # (elements: a shape, sizes; compared by value, as each tower has its own)


class _SharedProduct(NamedTuple):
    """What the replicas' products share: the matrix they multiply by, and where they run."""

    weight: tuple  # (node name, output index)
    transpose_b: bool
    weight_is_ref: bool
    backend: int  # id of the devices' array module: one kernel runs all the rows


class _RowwiseCall(NamedTuple):
    """What makes the replicas' calls of a row-wise op one call: all but whose rows they take."""

    op_type: str
    attrs: str  # the kernel's attributes, as comparable text
    # per input: ("r", whole) for a replica's rows of ``whole``, ("s", key) for a shared input,
    # ("v", value) for a small constant of each replica's own, ("n", value) for one that counts its rows
    inputs: tuple
    replicas: int
    input_is_ref: tuple
    backend: int


def run(plan: Nodes) -> int:
    """Merges the replicas' products, then their row-wise ops layer by layer; how many
    merged nodes were made (0 if the plan is left as it was)."""
    nodes, devices = plan.nodes, plan.devices
    found = _product_groups(nodes, devices, plan.fetched)
    made = 0
    # Each round turns at least two row-wise nodes into _RowBlocks, which no round
    # matches again, so the rounds end.
    while found:
        nodes, devices = _apply_groups(nodes, devices, found)
        made += len(found)
        found = _rowwise_groups(nodes, devices, plan.fetched)
    if not made:
        return 0
    nodes, sums = _merge_row_sums(nodes, plan.fetched)
    made += sums
    nodes, devices = _drop_unread_blocks(nodes, devices, plan.fetched)
    order = schedule(nodes, plan.fed)
    if order is None:  # one replica's rows come from another's result (a chain, not replicas)
        return 0
    plan.replace([nodes[i] for i in order], [devices[i] for i in order])
    return made


def _drop_unread_blocks(nodes, devices, fetched):
    """Without the replicas' ``_RowBlocks`` that nothing reads any more (every reader was
    merged too), so that the merged nodes' readers are counted as later passes see them."""
    readers = count_readers(nodes)
    keep = [not (node.type == ROW_BLOCKS and not any(readers.get((node.name, o)) or (node.name, o) in fetched
                                                       for o in [*range(node.num_outputs), CONTROL]))
            for node in nodes]
    return [n for n, k in zip(nodes, keep) if k], [d for d, k in zip(devices, keep) if k]


def _replica_rows(node: Node) -> int | None:
    """The static number of rows of a node's first input, if known."""
    if node.op is None or not node.op.inputs or node.op.inputs[0].shape.ndims is None:
        return None
    return node.op.inputs[0].shape.as_list()[0]


def _product_groups(nodes, devices, fetched) -> list:
    """(merged node, members) for each set of replicas' ``MatMul(a_i, w)``, one ``w``."""
    groups: dict[_SharedProduct, list[int]] = {}
    for i, node in enumerate(nodes):
        if node.type != "MatMul" or node.attrs.get("transpose_a", False) or (node.name, 0) in fetched \
                or node.op is None or node.op.inputs[0].shape.ndims != 2 or _replica_rows(node) is None:
            continue
        key = _SharedProduct(node.inputs[1], bool(node.attrs.get("transpose_b", False)), node.input_is_ref[1],
                             id(devices[i].xp))
        groups.setdefault(key, []).append(i)
    found = []
    for shared, members in groups.items():
        if len(members) < 2 or len({devices[i].name for i in members}) != len(members) \
                or len({_replica_rows(nodes[i]) for i in members}) != 1:
            continue  # the replicas of in-graph replication: one product per device, equal rows
        merged = Node(f"{nodes[members[0]].name}/_replicas", REPLICA_MATMUL, {"transpose_b": shared.transpose_b},
                      [nodes[i].inputs[0] for i in members] + [shared.weight],
                      [nodes[i].input_is_ref[0] for i in members] + [shared.weight_is_ref], 1)
        found.append((merged, members, ()))
    return found


def _rowwise_groups(nodes, devices, fetched) -> list:
    """(merged node, members, new constants) for each set of replicas' calls of one
    row-wise (``ROWWISE``) or batch-wise (``ROWS_AT``) op on the rows of merged results (or
    of a ``Split``'s input), other inputs shared."""
    by_name = {node.name: node for node in nodes}
    groups: dict[_RowwiseCall, dict[int, int]] = {}
    for n, node in enumerate(nodes):
        if node.type not in ROWWISE and node.type not in ROWS_AT \
                or get_registration(node.type).context_arg != "xp" or any(key[1] == CONTROL for key in node.inputs) \
                or (node.op is not None and node.op._control_inputs) \
                or any((node.name, o) in fetched for o in range(node.num_outputs)):
            continue
        blocks = [_block(key, by_name) for key in node.inputs]
        replicas = {(b[1], b[2]) for b in blocks if b is not None}
        if len(replicas) != 1:
            continue
        if node.op is None and None in blocks:
            continue  # (a node a pass made, with shared inputs whose shapes are not known here)
        if node.op is None:
            inputs = tuple(("r", b[0]) for b in blocks)
        elif node.type in ROWS_AT:
            inputs = _batchwise_inputs(node, blocks, by_name)
            if inputs is None:
                continue
        else:
            rank = max(t.shape.ndims or 0 for t, b in zip(node.op.inputs, blocks) if b is not None)
            if any(b is None and (t.shape.ndims is None or (t.shape.ndims >= rank and t.shape.as_list()[-rank] != 1))
                   for t, b in zip(node.op.inputs, blocks)):
                continue  # a shared input with rows of its own would not broadcast the same over all rows
            inputs = tuple(("r", b[0]) if b is not None else _shared(key, by_name)
                           for b, key in zip(blocks, node.inputs))
        (replica, count), = replicas
        attrs = get_registration(node.type).kernel_attrs(node.attrs)
        call = _RowwiseCall(node.type, repr(sorted(attrs.items())), inputs, count, tuple(node.input_is_ref),
                            id(devices[n].xp))
        members = groups.setdefault(call, {})
        members[replica] = -1 if replica in members else n  # -1: two calls on one replica's rows
    found = []
    for call, members in groups.items():
        if sorted(members) != list(range(call.replicas)) or -1 in members.values() \
                or len({devices[n].name for n in members.values()}) != call.replicas:
            continue
        first = nodes[members[0]]
        inputs, constants = [], []
        for j, (kind, what) in enumerate(call.inputs):
            if kind == "r":
                inputs.append(what)
            elif kind == "n" and what[0] != -1:  # (a shape that counts one replica's rows: all of them)
                source = by_name[first.inputs[j][0]]
                value = np.array(what, dtype=source.attrs["value"].dtype)
                value[0] *= call.replicas
                value.flags.writeable = False
                constants.append(Node(f"{first.name}/_replicas/shape_{j}", "Const",
                                      dict(source.attrs, value=value), [], [], 1, source.op))
                inputs.append((constants[-1].name, 0))
            else:
                inputs.append(first.inputs[j])
        merged = Node(f"{first.name}/_replicas", first.type, first.attrs, inputs,
                      [False if kind == "r" else ref for (kind, _), ref in zip(call.inputs, call.input_is_ref)],
                      first.num_outputs, first.op)  # (the op: its dtypes and ranks, not its rows)
        found.append((merged, [members[i] for i in range(call.replicas)], constants))
    return found


def _block(key, by_name: dict) -> tuple | None:
    """(the whole, replica, replicas) if ``key`` is a replica's rows of a whole: a block of a
    merged result, or a part of a ``Split`` along the rows."""
    node = by_name.get(key[0])
    if node is None or key[1] == CONTROL:
        return None
    if node.type == ROW_BLOCKS:
        return node.inputs[key[1]], node.attrs["index"], node.attrs["count"]
    if node.type == "Split" and scalar_constant(node.inputs[0], by_name, kinds="iu") == 0:
        return node.inputs[1], key[1], node.attrs["num_split"]
    return None


def _batchwise_inputs(node: Node, blocks: list, by_name: dict) -> tuple | None:
    """The inputs of a batch-wise op's call as ``_RowwiseCall`` has them, or None where the
    rows are not where the op takes rows, or a shape counting them is not a constant."""
    rows_at, shape_at = ROWS_AT[node.type], BATCH_SHAPE_AT.get(node.type)
    inputs = []
    for j, (b, key) in enumerate(zip(blocks, node.inputs)):
        if (b is not None) != (j in rows_at):
            return None
        if b is not None:
            inputs.append(("r", b[0]))
            continue
        if j == shape_at:
            value = _small_constant(key, by_name)
            if value is None or value.ndim != 1 or not value.size or value[0] == 0:
                return None
            inputs.append(("n", tuple(value.tolist())))
        else:
            inputs.append(_shared(key, by_name))
    return tuple(inputs)


def _shared(key, by_name: dict) -> tuple:
    """A shared input as ``_RowwiseCall`` has it: by its value where it is a small constant
    (each replica has its own), else by its key."""
    value = _small_constant(key, by_name)
    if value is None:
        return "s", key
    return "v", (value.dtype.str, value.shape, tuple(value.ravel().tolist()))


def _small_constant(key, by_name: dict) -> np.ndarray | None:
    node = by_name.get(key[0])
    if node is None or node.type != "Const" or key[1] != 0:
        return None
    value = node.attrs.get("value")
    return value if isinstance(value, np.ndarray) and value.size <= _SMALL_CONSTANT else None


def _merge_row_sums(nodes, fetched) -> tuple[list, int]:
    """Each ``AddN`` of the replicas' ``SumToShape`` of their rows of one merged result
    (read by nothing else) as one ``SumToShape`` of all the rows; the nodes, and how many."""
    by_name = {node.name: node for node in nodes}
    readers = count_readers(nodes)
    out, made = [], 0
    for node in nodes:
        merged = None
        if node.type == "AddN" and len(node.inputs) > 1 and (node.name, 0) not in fetched:
            merged = _row_sum_of_replicas(node, by_name, readers, fetched) \
                or _filter_gradient_of_replicas(node, by_name, readers, fetched)
        out.append(merged or node)
        made += merged is not None
    return out, made


def _row_sum_of_replicas(add: Node, by_name: dict, readers: dict, fetched) -> Node | None:
    wholes, shapes, replicas = set(), set(), []
    for key in add.inputs:
        node = by_name.get(key[0])
        if node is None or node.type != "SumToShape" or key[1] != 0 or readers.get(key) != 1 or key in fetched:
            return None
        rows = by_name.get(node.inputs[0][0])
        if rows is None or rows.type != ROW_BLOCKS or rows.attrs["count"] != len(add.inputs):
            return None
        grad = node.op.inputs[0].shape if node.op is not None else None
        target = node.op.outputs[0].shape if node.op is not None else None
        if grad is None or target is None or not grad.is_fully_defined() or not target.is_fully_defined() \
                or not (target.ndims < grad.ndims or target.as_list()[0] == 1):
            return None  # (a sum that keeps the rows apart)
        wholes.add(rows.inputs[node.inputs[0][1]])
        shape = by_name.get(node.inputs[1][0])  # (each tower has a constant of its own)
        shapes.add(tuple(np.asarray(shape.attrs["value"]).tolist()) if shape is not None and shape.type == "Const"
                   and node.inputs[1][1] == 0 else node.inputs[1])
        replicas.append(rows.attrs["index"])
    if len(wholes) != 1 or len(shapes) != 1 or sorted(replicas) != list(range(len(add.inputs))):
        return None
    first = by_name[add.inputs[0][0]]
    return Node(add.name, "SumToShape", first.attrs, [wholes.pop(), first.inputs[1]], [False, first.input_is_ref[1]], 1)


def _filter_gradient_of_replicas(add: Node, by_name: dict, readers: dict, fetched) -> Node | None:
    """One filter gradient of all the rows, for the ``AddN`` of the replicas' filter
    gradients (``FILTER_GRADIENTS``) of their rows of one input and one output gradient,
    with equal filter sizes and attributes; else None."""
    calls = [by_name.get(key[0]) for key in add.inputs]
    if any(c is None or c.type not in FILTER_GRADIENTS or key[1] != 0 or readers.get(key) != 1 or key in fetched
           for c, key in zip(calls, add.inputs)):
        return None
    first = calls[0]
    wholes, sizes, replicas = set(), set(), set()
    for call in calls:
        if call.type != first.type or call.attrs is not first.attrs and get_registration(call.type).kernel_attrs(
                call.attrs) != get_registration(first.type).kernel_attrs(first.attrs):
            return None
        x, dy = (_block(call.inputs[j], by_name) for j in (0, 2))
        if x is None or dy is None or x[1:] != dy[1:] or x[2] != len(calls):
            return None
        wholes.add((x[0], dy[0]))
        size = _small_constant(call.inputs[1], by_name)
        sizes.add(call.inputs[1] if size is None else tuple(size.tolist()))
        replicas.add(x[1])
    if len(wholes) != 1 or len(sizes) != 1 or replicas != set(range(len(calls))):
        return None
    x, dy = wholes.pop()
    return Node(add.name, first.type, first.attrs, [x, first.inputs[1], dy], [False, first.input_is_ref[1], False], 1,
                first.op)


def _apply_groups(nodes, devices, found):
    """Each merged node (after the constants made for it) in at its first member's place;
    member i becomes replica i's rows of it."""
    merged_at, blocks_of = {}, {}
    for merged, members, constants in found:
        merged_at[members[0]] = [*constants, merged]
        for i, n in enumerate(members):
            member = nodes[n]
            blocks_of[n] = Node(member.name, ROW_BLOCKS, {"index": i, "count": len(members)},
                                [(merged.name, o) for o in range(member.num_outputs)], [False] * member.num_outputs,
                                member.num_outputs, member.op)
    out_nodes, out_devices = [], []
    for n, (node, device) in enumerate(zip(nodes, devices)):
        for made in merged_at.get(n, ()):
            out_nodes.append(made)
            out_devices.append(device)
        out_nodes.append(blocks_of.get(n, node))
        out_devices.append(device)
    return out_nodes, out_devices


def schedule(nodes: list[Node], fed: dict) -> list[int] | None:
    """A topological order of ``nodes`` (their indices), some of whose inputs come later
    in the list; None if there is none (a cycle).

    Kept from the list's order: the order of the stateful and blocking nodes and of those
    with control inputs (a node's control inputs come first); every read of a variable's
    memory on its side of each update of that variable. Among the nodes ready at a time,
    the earliest in the list goes first.
    """
    position = {node.name: i for i, node in enumerate(nodes)}
    deps: list[set[int]] = [set() for _ in nodes]
    touched_by, variables_of = variables_touched(nodes)
    last_barrier, last_update, reads_since = None, {}, {}
    for i, (node, touched) in enumerate(zip(nodes, touched_by)):
        deps[i].update(position[key[0]] for key in node.inputs if key[0] in position and key not in fed)
        controls = node.op._control_inputs if node.op is not None else ()
        deps[i].update(position[c.name] for c in controls if c.name in position)
        reg = get_registration(node.type)
        updated = {v for j, key in enumerate(node.inputs) if reg.stateful and j in reg.ref_inputs
                   for v in variables_of.get(key, ())}
        if reg.stateful or reg.blocking or controls:
            if last_barrier is not None:
                deps[i].add(last_barrier)
            last_barrier = i
        for v in touched - updated:
            if v in last_update:
                deps[i].add(last_update[v])
            reads_since.setdefault(v, []).append(i)
        for v in updated:
            deps[i].update(reads_since.pop(v, ()))
            if v in last_update:
                deps[i].add(last_update[v])
            last_update[v] = i
    if any(i in d for i, d in enumerate(deps)):  # a node reading its own output
        return None
    waiting = [len(d) for d in deps]
    users: list[list[int]] = [[] for _ in nodes]
    for i, d in enumerate(deps):
        for j in d:
            users[j].append(i)
    ready = [i for i, n in enumerate(waiting) if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for u in users[i]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    return order if len(order) == len(nodes) else None
