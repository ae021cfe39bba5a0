"""Rewrites made when a partition is compiled (TF's Grappler, for a few patterns).

Each rewrite keeps every value that a fetch, another partition or a remaining node
reads, and every side effect; it removes work whose result nobody sees.

- Constant folding: a stateless op whose inputs are all constants is run once, at
  compile time, and becomes a constant; so does ``OnesLike``/``ZerosLike`` of a tensor
  whose static shape is fully known (the seed of every ``tf.gradients`` call), with
  the chain of reshapes and broadcasts behind it.
- Update fusion: ``MatMul`` feeding only an ``ApplyGradientDescent`` of the same
  device (a weight's gradient and its update) becomes one
  ``_FusedMatMulApplyGradientDescent``: ``var -= alpha * a @ b`` as a single GEMM
  that accumulates into the variable (``blas.gemm``), with no gradient array. The
  same for a sum of gradients (``AddN``, towers' gradients averaged by a constant):
  each private product is a GEMM into the variable, each other term (a gradient
  received from another tower's device) one AXPY (``blas.axpy``); no sum is formed.
- Early compute (only in a partition that receives from another partition, as a
  tower or a task does): a stateless node that reads no variable's memory and has no
  control input moves up to just after its last input, ahead of receives and updates
  it does not depend on. A tower's own gradients are then computed while it would
  otherwise wait for the other tower's, instead of after; the receives, the stateful
  nodes and everything that reads a variable keep their order. (Update fusion leaves a
  product whose sum also waits for a received term unfused for that reason: it is
  computed early, and the received term and it are each added by one AXPY.)
- Replica merge (a plan holding the in-graph replicas of several devices, as the
  sequential form of a step does): the products of each replica's rows by one same
  matrix (``MatMul(a_i, w)``, i over the devices, equal static rows) become one
  ``_ReplicaMatMul`` of all the rows; then, layer by layer, the replicas' calls of one
  row-wise op (bias add, ReLU and its gradient, softmax cross-entropy, ...) on those rows
  become one call on all of them, which runs in place like the calls it replaces. Each
  replica's node stays, under its name, as ``_RowBlocks``: a view of its rows, so its
  readers do not change. One full-size GEMM runs faster than several of a fraction of the
  rows (a 128-row product with two threads took 19% longer per row than a 256-row one on
  a 2-core VM). A replica's rows are read where they are when they are adjacent in
  memory (the parts of a ``Split``, the blocks of a merged result), else concatenated.
  The plan is then put back in a topological order that keeps every stateful node's
  place among them and every read of a variable on its side of the variable's updates
  (``_schedule``); a "replica" that needs another's result is a chain, and is left alone.
- Nodes left without readers by the rewrites above (the loss that only seeded its
  gradient, when the loss is not fetched) are dropped. A node that never had a reader
  -- one that runs for a control dependency -- is kept.
"""

from __future__ import annotations

import heapq

import numpy as np

from ..framework.registry import get_registration, register_op
from ..framework.tensor_shape import TensorShape
from ..ops import blas
from ..ops.state_ops import locked
from .device import Device
from .partition import CONTROL, MAY_ALIAS, Node

_FOLD_MAX_ELEMENTS = 1 << 20  # a folded constant larger than this stays a computation
_NEVER_FOLDED = frozenset({"_Send", "_Recv", "Placeholder", "PlaceholderWithDefault", "Const", "NoOp"})
_SHAPE_CONSTANTS = {"OnesLike": np.ones, "ZerosLike": np.zeros}
FUSED_UPDATE = "_FusedMatMulApplyGradientDescent"
REPLICA_MATMUL = "_ReplicaMatMul"
ROW_BLOCKS = "_RowBlocks"
# Ops whose output rows depend only on the same rows of their inputs (any other input is
# shared and has no rows of its own): the replicas' calls can be one call on all rows.
_ROWWISE = frozenset({
    "AddV2", "Add", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "BiasAdd", "Neg", "Square", "Exp", "Log",
    "Relu", "Relu6", "Elu", "Sigmoid", "Tanh", "ReluGrad", "Relu6Grad", "EluGrad", "SigmoidGrad", "TanhGrad",
    "Softmax", "LogSoftmax", "SparseSoftmaxCrossEntropyWithLogits", "SoftmaxCrossEntropyWithLogits",
})


@register_op(FUSED_UPDATE, shape=lambda op: op.inputs[0].shape, dtype=lambda op: op.inputs[0].dtype,
             stateful=True, ref_inputs=(0,))
def _fused_matmul_apply_gradient_descent(xp, var, alpha, *operands, transposes=(), scale=1.0, use_locking=False):
    """ApplyGradientDescent(var, alpha, scale * (MatMul(a0, b0) + ... + t0 + t1 + ...)).

    ``operands`` are a0, b0, a1, b1, ... (one pair per entry of ``transposes``, their
    (transpose_a, transpose_b)), then the terms t0, t1, ... that are arrays already (a
    gradient received from another device, say). Each product is added into the variable
    by one GEMM and each term by one AXPY: no gradient array, no sum.
    """
    n = 2 * len(transposes)
    pairs = []
    for (a, b), (transpose_a, transpose_b) in zip(zip(operands[:n:2], operands[1:n:2]), transposes):
        a = a.T if transpose_a else a
        b = b.T if transpose_b else b
        if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
            raise ValueError(f"MatMul of the gradient: shapes {list(a.shape)} and {list(b.shape)} do not agree")
        pairs.append((a, b))
    terms = [np.asarray(t) for t in operands[n:]]
    if len(pairs) > 1 and all(t == (True, False) for t in transposes):  # replicas' x_i^T @ d_i
        rows_a, rows_b = _adjacent_rows([a.T for a, _ in pairs]), _adjacent_rows([b for _, b in pairs])
        if rows_a is not None and rows_b is not None:  # one GEMM over all their rows
            pairs = [(rows_a.T, rows_b)]
    step = -float(alpha) * scale
    with locked(var, use_locking):
        w = var.read()
        for shape in [(a.shape[0], b.shape[1]) for a, b in pairs] + [t.shape for t in terms]:
            if w.shape != shape:
                raise ValueError(f"ApplyGradientDescent: var '{var.name}' has shape {list(w.shape)} but the "
                                 f"gradient has shape {list(shape)}")
        if any(np.may_share_memory(w, x) for x in [*terms, *(x for pair in pairs for x in pair)]):
            delta = sum(xp.matmul(a, b) for a, b in pairs) + sum(terms)  # read all before writing any
            w += xp.multiply(delta, np.asarray(step, w.dtype))
            return var
        for a, b in pairs:
            if not blas.gemm(a, b, w, step, 1.0):
                w += xp.multiply(xp.matmul(a, b), np.asarray(step, w.dtype))
        for t in terms:
            if not blas.axpy(t, w, step):
                w += xp.multiply(t, np.asarray(step, w.dtype))
    return var


def optimize(nodes: list[Node], devices: list[Device], fed: dict, fetched: dict, fold_constants: bool = True,
             fuse: bool = True) -> tuple[list[Node], list[Device]]:
    """``nodes`` (one partition or one whole step, in order) with the rewrites above applied.

    ``fed`` and ``fetched`` are keyed by (node name, output index).
    """
    readers = _count_readers(nodes)
    if fold_constants:
        by_name: dict[str, Node] = {}
        folded = []
        for node, device in zip(nodes, devices):
            node = _folded(node, device, by_name, fed) or node
            by_name[node.name] = node
            folded.append(node)
        nodes = folded
    if fuse:
        nodes, devices = _merge_replica_products(nodes, devices, fed, fetched)
        nodes, devices = _fuse_updates(nodes, devices, fed, fetched)
        if any(node.type == "_Recv" for node in nodes):
            nodes, devices = _compute_early(nodes, devices)
    return _drop_unread(nodes, devices, readers, fetched)


def _count_readers(nodes: list[Node]) -> dict[tuple[str, int], int]:
    readers: dict[tuple[str, int], int] = {}
    for node in nodes:
        for key in node.inputs:
            readers[key] = readers.get(key, 0) + 1
    return readers


def _constant(node: Node, value: np.ndarray) -> Node:
    return Node(node.name, "Const", {"value": value, "dtype": node.attrs.get("dtype")}, [], [], 1, node.op)


def _folded(node: Node, device: Device, earlier: dict[str, Node], fed: dict) -> Node | None:
    """``node`` as a constant, if it is one; else None."""
    if node.type in _NEVER_FOLDED or node.num_outputs != 1 or not node.inputs or any(node.input_is_ref):
        return None
    make = _SHAPE_CONSTANTS.get(node.type)
    if make is not None and node.op is not None:
        out = node.op.outputs[0]
        if out.shape.is_fully_defined() and out.shape.num_elements() <= _FOLD_MAX_ELEMENTS:
            return _constant(node, make(out.shape.as_list(), out.dtype.base_dtype.as_numpy_dtype))
    inputs = []
    for key in node.inputs:
        source = earlier.get(key[0])
        if key in fed or source is None or source.type != "Const":
            return None
        inputs.append(source.attrs["value"])
    reg = get_registration(node.type)
    if reg.stateful or reg.blocking or reg.kernel is None or reg.context_arg == "ctx" or reg.list_output:
        return None
    kernel_args = (device.xp, *inputs) if reg.context_arg == "xp" else tuple(inputs)
    try:
        with np.errstate(all="ignore"):
            value = reg.kernel(*kernel_args, **reg.kernel_attrs(node.attrs))
    except Exception:  # noqa: BLE001 - left to fail, with its usual error, when the step runs
        return None
    if not isinstance(value, np.ndarray) or value.size > _FOLD_MAX_ELEMENTS:
        return None
    value = np.array(value)  # its own memory: never a view of another constant
    value.flags.writeable = False
    return _constant(node, value)


@register_op(REPLICA_MATMUL, shape=lambda op: TensorShape(None), dtype=lambda op: op.inputs[0].dtype)
def _replica_matmul(xp, *operands, transpose_b=False):
    """``MatMul(a_i, b)`` for every ``a_i`` of ``operands[:-1]`` (replicas with equally
    many rows), as one product of all their rows: the rows of all the products."""
    *parts, b = operands
    for a in parts:
        if a.ndim != 2 or a.shape != parts[0].shape:
            raise ValueError(f"MatMul of replicas: shapes {[list(x.shape) for x in parts]} do not stack")
    whole = _adjacent_rows(parts)
    if whole is None:
        whole = xp.concatenate(parts)
    return xp.matmul(whole, b.T if transpose_b else b)


@register_op(ROW_BLOCKS, shape=lambda op: [TensorShape(None)] * len(op.inputs),
             dtype=lambda op: [t.dtype for t in op.inputs], list_output=True)
def _row_blocks(xp, *wholes, index, count):
    """Replica ``index``'s rows of each of ``wholes`` (``count`` equal blocks): views."""
    out = []
    for whole in wholes:
        rows = whole.shape[0] // count
        out.append(whole[index * rows:(index + 1) * rows])
    return tuple(out)


def _adjacent_rows(parts: list) -> np.ndarray | None:
    """The parts as one array without a copy, if they are consecutive rows of one array."""
    def root(x):
        while isinstance(x.base, np.ndarray):
            x = x.base
        return x

    base = root(parts[0])
    if not base.flags.c_contiguous or any(not a.flags.c_contiguous or a.dtype != base.dtype or root(a) is not base
                                          for a in parts):
        return None
    for a, b in zip(parts, parts[1:]):
        if b.ctypes.data != a.ctypes.data + a.nbytes:
            return None
    rows = sum(a.shape[0] for a in parts)
    return np.ndarray((rows, parts[0].shape[1]), base.dtype, buffer=base,
                      offset=parts[0].ctypes.data - base.ctypes.data)


def _scalar_constant(key, by_name: dict[str, Node], fed=(), kinds: str = "f"):
    """The value of the scalar ``Const`` behind ``key`` if its dtype kind is in ``kinds``, else None."""
    node = by_name.get(key[0])
    if key in fed or node is None or node.type != "Const":
        return None
    value = node.attrs["value"]
    return value.item() if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in kinds else None


def _fuse_updates(nodes: list[Node], devices: list[Device], fed: dict, fetched: dict):
    """ApplyGradientDescent of ``c * (MatMul + MatMul + ...)`` (c from RealDiv or Mul by a
    constant, the sum from AddN; each value read by nothing else) -> one fused node."""
    readers = _count_readers(nodes)
    position = {node.name: i for i, node in enumerate(nodes)}
    by_name = {node.name: node for node in nodes}
    out_nodes = list(nodes)
    fused_away: set[int] = set()

    def private(key) -> Node | None:
        """The producer of ``key`` if nothing but its one reader sees the value."""
        i = position.get(key[0])
        if i is None or key in fed or key in fetched or readers.get(key) != 1 or i in fused_away:
            return None
        return nodes[i]

    for i, node in enumerate(nodes):
        if node.type != "ApplyGradientDescent" or len(node.inputs) != 3 or node.input_is_ref[2]:
            continue
        removed, scale = [], 1.0
        keys, refs = [node.inputs[2]], [False]
        source = private(node.inputs[2])
        if source is not None and source.type in ("RealDiv", "Mul"):
            (x, y), x_ref = source.inputs, source.input_is_ref[0]
            c = _scalar_constant(y, by_name, fed)
            if c is None and source.type == "Mul":
                x, x_ref, c = y, source.input_is_ref[1], _scalar_constant(x, by_name, fed)
            if c is not None and c != 0.0:
                removed.append(source)
                scale = 1.0 / c if source.type == "RealDiv" else c
                keys, refs = [x], [x_ref]
                source = private(x)
        if source is not None and source.type == "AddN":
            removed.append(source)
            keys, refs = list(source.inputs), list(source.input_is_ref)
        if any(refs):
            continue  # a variable's reference as a term: left to the plain kernels
        # a private MatMul of this device becomes a GEMM into the variable; any other term an AXPY
        products, others = [], []
        for key in keys:
            t = private(key) if keys.count(key) == 1 else None
            if t is not None and t.type == "MatMul" and devices[position[t.name]].xp is devices[i].xp:
                products.append(t)
            else:
                others.append(key)
        if any(key[0] in by_name and by_name[key[0]].type == "_Recv" for key in others):
            others, products = keys, []  # each product computed early instead (_compute_early)
        if not products and not removed:
            continue  # nothing to fuse: the plain kernel is as good
        removed.extend(products)
        operands = [key for t in products for key in t.inputs] + others
        is_ref = [r for t in products for r in t.input_is_ref] + [False] * len(others)
        attrs = {"transposes": tuple((bool(t.attrs.get("transpose_a", False)), bool(t.attrs.get("transpose_b", False)))
                                     for t in products),
                 "scale": scale, "use_locking": node.attrs.get("use_locking", False)}
        out_nodes[i] = Node(node.name, FUSED_UPDATE, attrs, [node.inputs[0], node.inputs[1], *operands],
                            [node.input_is_ref[0], node.input_is_ref[1], *is_ref], 1, node.op)
        fused_away.update(position[r.name] for r in removed)
    if not fused_away:
        return nodes, devices
    keep = [i for i in range(len(nodes)) if i not in fused_away]
    return [out_nodes[i] for i in keep], [devices[i] for i in keep]


def _merge_replica_products(nodes: list[Node], devices: list[Device], fed: dict, fetched: dict):
    """The replicas' products by one matrix, then their row-wise ops, as one node each over
    all rows; each replica's node becomes a ``_RowBlocks`` view of its rows, under its own
    name, so its readers do not change (module docstring)."""
    original = nodes, devices
    changed = False
    for find in [_product_groups] + [_rowwise_groups] * 64:  # (a chain of row-wise ops, layer by layer)
        found = find(nodes, devices, fetched)
        if not found:
            break
        nodes, devices = _apply_groups(nodes, devices, found)
        changed = True
    if not changed:
        return nodes, devices
    order = _schedule(nodes, fed)
    if order is None:  # one replica's rows come from another's result (a chain, not replicas)
        return original
    return [nodes[i] for i in order], [devices[i] for i in order]


def _replica_rows(node: Node) -> int | None:
    """The static number of rows of a node's first input, if known."""
    if node.op is None or not node.op.inputs or node.op.inputs[0].shape.ndims is None:
        return None
    return node.op.inputs[0].shape.as_list()[0]


def _product_groups(nodes, devices, fetched) -> list:
    """(merged node, members) for each set of replicas' ``MatMul(a_i, w)``, one ``w``."""
    groups: dict[tuple, list[int]] = {}
    for i, node in enumerate(nodes):
        if node.type != "MatMul" or node.attrs.get("transpose_a", False) or (node.name, 0) in fetched \
                or node.op is None or node.op.inputs[0].shape.ndims != 2 or _replica_rows(node) is None:
            continue
        key = (node.inputs[1], bool(node.attrs.get("transpose_b", False)), node.input_is_ref[1], id(devices[i].xp))
        groups.setdefault(key, []).append(i)
    found = []
    for (w, transpose_b, w_ref, _), members in groups.items():
        if len(members) < 2 or len({devices[i].name for i in members}) != len(members) \
                or len({_replica_rows(nodes[i]) for i in members}) != 1:
            continue  # the replicas of in-graph replication: one product per device, equal rows
        merged = Node(f"{nodes[members[0]].name}/_replicas", REPLICA_MATMUL, {"transpose_b": transpose_b},
                      [nodes[i].inputs[0] for i in members] + [w],
                      [nodes[i].input_is_ref[0] for i in members] + [w_ref], 1)
        found.append((merged, members))
    return found


def _rowwise_groups(nodes, devices, fetched) -> list:
    """(merged node, members) for each set of replicas' calls of one row-wise op on the
    rows of merged results (or of a ``Split``'s input), other inputs shared."""
    by_name = {node.name: node for node in nodes}

    def block(key):  # (the whole, replica, replicas) if ``key`` is a replica's rows of a whole
        node = by_name.get(key[0])
        if node is None:
            return None
        if node.type == ROW_BLOCKS:
            return node.inputs[key[1]], node.attrs["index"], node.attrs["count"]
        if node.type == "Split" and _scalar_constant(node.inputs[0], by_name, kinds="iu") == 0:
            return node.inputs[1], key[1], node.attrs["num_split"]
        return None

    groups: dict[tuple, dict[int, int]] = {}
    for n, node in enumerate(nodes):
        if node.type not in _ROWWISE or node.op is None or get_registration(node.type).context_arg != "xp" \
                or any((node.name, o) in fetched for o in range(node.num_outputs)):
            continue
        blocks = [block(key) for key in node.inputs]
        replicas = {(b[1], b[2]) for b in blocks if b is not None}
        if len(replicas) != 1:
            continue
        rank = max(t.shape.ndims or 0 for t, b in zip(node.op.inputs, blocks) if b is not None)
        if any(b is None and (t.shape.ndims is None or (t.shape.ndims >= rank and t.shape.as_list()[-rank] != 1))
               for t, b in zip(node.op.inputs, blocks)):
            continue  # a shared input with rows of its own would not broadcast the same over all rows
        (replica, count), = replicas
        attrs = get_registration(node.type).kernel_attrs(node.attrs)
        signature = tuple(("r", b[0]) if b is not None else ("s", key) for b, key in zip(blocks, node.inputs))
        key = (node.type, repr(sorted(attrs.items())), signature, count, tuple(node.input_is_ref), id(devices[n].xp))
        members = groups.setdefault(key, {})
        members[replica] = -1 if replica in members else n  # -1: two calls on one replica's rows
    found = []
    for (_, _, signature, count, is_ref, _), members in groups.items():
        if sorted(members) != list(range(count)) or -1 in members.values() \
                or len({devices[n].name for n in members.values()}) != count:
            continue
        first = nodes[members[0]]
        merged = Node(f"{first.name}/_replicas", first.type, first.attrs, [sig[1] for sig in signature],
                      [False if sig[0] == "r" else ref for sig, ref in zip(signature, is_ref)], first.num_outputs)
        found.append((merged, [members[i] for i in range(count)]))
    return found


def _apply_groups(nodes, devices, found):
    """Each merged node in at its first member's place; member i becomes replica i's rows of it."""
    merged_at, blocks_of = {}, {}
    for merged, members in found:
        merged_at[members[0]] = merged
        for i, n in enumerate(members):
            member = nodes[n]
            blocks_of[n] = Node(member.name, ROW_BLOCKS, {"index": i, "count": len(members)},
                                [(merged.name, o) for o in range(member.num_outputs)], [False] * member.num_outputs,
                                member.num_outputs, member.op)
    out_nodes, out_devices = [], []
    for n, (node, device) in enumerate(zip(nodes, devices)):
        if n in merged_at:
            out_nodes.append(merged_at[n])
            out_devices.append(device)
        out_nodes.append(blocks_of.get(n, node))
        out_devices.append(device)
    return out_nodes, out_devices


def _variables_touched(nodes: list[Node]) -> tuple[list[frozenset], dict]:
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


def _schedule(nodes: list[Node], fed: dict) -> list[int] | None:
    """A topological order of ``nodes`` (their indices), some of whose inputs come later
    in the list; None if there is none (a cycle).

    Kept from the list's order: the order of the stateful and blocking nodes and of those
    with control inputs (a node's control inputs come first); every read of a variable's
    memory on its side of each update of that variable. Among the nodes ready at a time,
    the earliest in the list goes first.
    """
    position = {node.name: i for i, node in enumerate(nodes)}
    deps: list[set[int]] = [set() for _ in nodes]
    touched_by, variables_of = _variables_touched(nodes)
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


def _compute_early(nodes: list[Node], devices: list[Device]):
    """Moves each movable node up to just after its last input (see the module docstring).

    Every other node is a barrier and keeps its place among the barriers; sorting by
    (the index of the barrier or input a node must follow, its own index) keeps every
    node after its inputs.
    """
    position = {node.name: i for i, node in enumerate(nodes)}
    touched_by, _ = _variables_touched(nodes)
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
                inputs = [(node.attrs["tensor_name"][1:], CONTROL)]
            # (a producer listed later is a fed placeholder, whose value is there from the start)
            producers = [position[key[0]] for key in inputs if position.get(key[0], i) < i]
            after.append((max((after[j][0] for j in producers), default=-1), i))
    order = sorted(range(len(nodes)), key=after.__getitem__)
    return [nodes[i] for i in order], [devices[i] for i in order]


def _drop_unread(nodes: list[Node], devices: list[Device], readers_before: dict, fetched: dict):
    """Drops the stateless nodes that had readers and have none left, last first."""
    readers = _count_readers(nodes)
    keep = [True] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):
        node = nodes[i]
        keys = [(node.name, k) for k in range(node.num_outputs)]
        if not keys or any(readers.get(k) or k in fetched for k in keys) \
                or not any(readers_before.get(k) for k in keys) or node.type in ("_Send", "_Recv"):
            continue
        reg = get_registration(node.type)
        if reg.stateful or reg.blocking:
            continue
        keep[i] = False
        for key in node.inputs:
            readers[key] -= 1
    return [n for n, k in zip(nodes, keep) if k], [d for d, k in zip(devices, keep) if k]
