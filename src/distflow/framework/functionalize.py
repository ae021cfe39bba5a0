"""TensorFlow 1.x's tf.cond in a GraphDef (Switch and Merge nodes, dead tensors) rewritten as
If nodes, the form distflow runs, so that a frozen or exported TF 1.x graph with conds imports
(a batch normalization or dropout switched by a ``training`` placeholder, ``tf.cond``,
``tf.case``).

TF 1.x builds a cond under a name scope ``S``: ``S/pred_id`` (the predicate), a Switch for
each tensor from outside that a branch reads (port 0 goes to the false branch, port 1 to
the true one; the "pivot" Switch of the predicate itself feeds ``S/switch_t`` and
``S/switch_f``, on which the branches' constants wait), the branches' ops, and a Merge per
output joining a false-branch tensor and a true-branch one. Each cond becomes one If node:
its inputs are the predicate and the tensors the Switches carried; each branch is the ops
reached from its side of the Switches (by data or control edges) up to the Merges, reading
those tensors by their own names (as distflow's own If ops do); its outputs are what the
Merges joined, and the Merges' readers read the If's outputs. Conds are rewritten innermost
first, so a cond inside a branch is an If node of that branch's function.

Not rewritten: the loops (Enter, Exit, NextIteration, LoopCond: an UnimplementedError, as
before), a Merge whose second output (which input arrived) is read, and graphs whose
Switches and Merges do not pair as tf.cond makes them; each is an UnimplementedError naming
the node.
"""

from __future__ import annotations

from . import errors
from .function_body import FuncBody
from ..protos import distflow_pb2 as pb

LOOP_OPS = frozenset({"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond"})
COND_OPS = frozenset({"Switch", "RefSwitch", "Merge", "RefMerge"})


def _refused(node: str, why: str) -> errors.UnimplementedError:
    return errors.UnimplementedError(None, None, f"node '{node}': {why}. distflow runs tf.cond as If ops and "
                                     "rewrites TF 1.x's conds (Switch, Merge) when it imports a GraphDef, but not "
                                     "this one; rebuild the graph with distflow from the program's Python code")


def _tensor(text: str) -> str:
    """An input as "node:index" (control inputs, "^node", are kept as they are)."""
    return text if text.startswith("^") or ":" in text else text + ":0"


def _node_of(text: str) -> str:
    return text[1:] if text.startswith("^") else text.rpartition(":")[0] or text


def _scope(name: str) -> str:
    return name.rpartition("/")[0]


class _Node:
    __slots__ = ("proto", "inputs")

    def __init__(self, proto):
        self.proto = proto
        self.inputs = [_tensor(t) for t in proto.input]


def functionalize_conds(graph_def: pb.GraphDef) -> pb.GraphDef:
    """``graph_def`` with its TF 1.x conds as If nodes (a new GraphDef; the argument is unchanged)."""
    nodes = {n.name: _Node(n) for n in graph_def.node}
    order = [n.name for n in graph_def.node]
    bodies: dict[str, dict[str, FuncBody]] = {}  # If node -> its two functions
    owned: set[str] = set()  # nodes already inside a function
    while True:
        scopes = {}
        for name, node in nodes.items():
            if node.proto.op in ("Switch", "RefSwitch"):
                scopes.setdefault(_cond_scope(node), []).append(name)
        if not scopes:
            break
        scope = max(scopes, key=lambda s: (s.count("/"), s))  # (innermost first)
        _rewrite(scope, scopes[scope], nodes, order, bodies, owned)
    for name, node in nodes.items():
        if node.proto.op in ("Merge", "RefMerge"):
            raise _refused(name, "a Merge that no cond's Switch leads to")
    out = pb.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    for name in order:
        if name not in nodes:
            continue
        node = nodes[name]
        proto = out.node.add()
        proto.CopyFrom(node.proto)
        del proto.input[:]
        proto.input.extend(node.inputs)
        for key, body in bodies.get(name, {}).items():
            proto.attr[key].CopyFrom(pb.AttrValue(function_body=pb.FunctionBody(
                op=body.ops, feed_name=[k for k, _ in body.feeds], feed_position=[p for _, p in body.feeds],
                output=body.outputs)))
    return out


def _cond_scope(switch: _Node) -> str:
    """The name scope of the cond a Switch belongs to: its predicate's (``S/pred_id``), or
    for the pivot Switch of the predicate itself, its own."""
    pred = _node_of(switch.inputs[1])
    return _scope(pred) if pred.rpartition("/")[2] == "pred_id" else _scope(switch.proto.name)


def _rewrite(scope: str, switch_names: list, nodes: dict, order: list, bodies: dict, owned: set) -> None:
    switches = {name: nodes[name] for name in switch_names}
    merges = {name: node for name, node in nodes.items()
              if node.proto.op in ("Merge", "RefMerge") and _scope(name) == scope}
    if not merges:
        raise _refused(switch_names[0], f"a Switch of the cond '{scope}', which has no Merge")
    # each Switch output is the tensor it carries, in the branch of its port
    carried = {}
    for name, sw in switches.items():
        carried[f"{name}:0"] = carried[f"{name}:1"] = sw.inputs[0]
    for key in carried:  # (a Switch of a tensor another Switch of this cond carried)
        seen = {key}
        while carried[key] in carried and carried[key] not in seen:
            seen.add(carried[key])
            carried[key] = carried[carried[key]]
    pred = next((sw.inputs[1] for sw in switches.values() if _node_of(sw.inputs[1]).endswith("pred_id")),
                next(iter(switches.values())).inputs[1])
    # consumers of every node (data and control), to walk each branch forward
    readers: dict[str, list[str]] = {}
    for name, node in nodes.items():
        for text in node.inputs:
            readers.setdefault(_node_of(text), []).append(name)
    side = {}  # node -> True (then branch) or False (else branch)
    for name in switches:
        for reader in readers.get(name, ()):
            node = nodes[reader]
            for text in node.inputs:
                if _node_of(text) == name and reader not in switches and reader not in merges:
                    if text.startswith("^"):
                        raise _refused(reader, f"a control edge from Switch '{name}'")
                    _mark(reader, text.endswith(":1"), side, nodes, readers, switches, merges, owned)
    # what the Merges join: (then tensor, else tensor, dtype) per output
    outputs = []
    for name in sorted(merges, key=_merge_position):
        merge = merges[name]
        data = [t for t in merge.inputs if not t.startswith("^")]
        if len(data) != 2:
            raise _refused(name, f"a Merge of {len(data)} inputs")
        sides = {}
        for position, text in enumerate(data):
            src = _node_of(text)
            branch = text.endswith(":1") if src in switches else side.get(src)
            if branch is None:
                branch = position == 1  # (TF 1.x's order: the else branch's tensor, then the then branch's)
            if branch in sides:
                raise _refused(name, "a Merge of two tensors of one branch")
            sides[branch] = carried.get(text, text)
        outputs.append((name, sides[True], sides[False], merge.proto.attr["T"].type))
        for reader in readers.get(name, ()):
            if any(t == f"{name}:1" for t in nodes[reader].inputs):
                raise _refused(reader, f"it reads which input of Merge '{name}' arrived")
    if_name = scope if scope and scope not in nodes else f"{scope}/If"
    rename = dict(carried)
    for k, (name, _, _, _) in enumerate(outputs):
        rename[f"{name}:0"] = f"{if_name}:{k}"
        rename[f"^{name}"] = f"^{if_name}"
    for name in list(switches) + list(merges):
        del nodes[name]
        order.remove(name)
    for node in nodes.values():
        node.inputs = [rename.get(t, t) for t in node.inputs]
    for functions in bodies.values():
        for key, body in functions.items():
            functions[key] = FuncBody(body.ops, [(rename.get(t, t), p) for t, p in body.feeds],
                                      [rename.get(t, t) for t in body.outputs])
    # the If's inputs: the predicate, then every tensor from outside that a branch reads
    inputs, control = [rename.get(pred, pred)], []
    functions = {}
    for key, branch in (("then_branch", True), ("else_branch", False)):
        members = _sorted([name for name in order if side.get(name) is branch], nodes)
        inside = set(members)
        feeds = []
        for name in members:
            node = nodes[name]
            kept = []
            for text in node.inputs:
                src = _node_of(text)
                if src in inside:
                    kept.append(text)
                elif text.startswith("^"):
                    if text not in control:
                        control.append(text)  # (an edge from outside waits for the If itself)
                else:
                    kept.append(text)
                    if text not in inputs:
                        inputs.append(text)
                    if (text, inputs.index(text)) not in feeds:
                        feeds.append((text, inputs.index(text)))
            node.inputs = kept
        ends = [then if branch else other for _, then, other, _ in outputs]
        for text in ends:  # (an output that is a tensor from outside: fed, and given back)
            if _node_of(text) not in inside:
                if text not in inputs:
                    inputs.append(text)
                if (text, inputs.index(text)) not in feeds:
                    feeds.append((text, inputs.index(text)))
        functions[key] = FuncBody(members, feeds, ends)
        owned.update(members)
    proto = pb.NodeDef(name=if_name, op="If")
    proto.attr["Tout"].list.type.extend([dtype for _, _, _, dtype in outputs])
    for _ in outputs:
        proto.attr["output_shapes"].list.shape.add(unknown_rank=True)
    nodes[if_name] = _Node(proto)
    nodes[if_name].inputs = inputs + control
    bodies[if_name] = functions
    order.append(if_name)


def _sorted(members: list, nodes: dict) -> list:
    """``members`` in an order in which each comes after the members it reads."""
    inside, done, out = set(members), set(), []
    for root in members:
        stack = [(root, False)]
        while stack:
            name, expanded = stack.pop()
            if expanded:
                if name not in done:
                    done.add(name)
                    out.append(name)
                continue
            if name in done:
                continue
            stack.append((name, True))
            stack.extend((_node_of(t), False) for t in reversed(nodes[name].inputs)
                         if _node_of(t) in inside and _node_of(t) not in done)
    return out


def _merge_position(name: str) -> tuple:
    """Merge, Merge_1, Merge_2, ...: the order of the cond's outputs."""
    base = name.rpartition("/")[2]
    suffix = base.rpartition("_")[2]
    return (0, 0) if base == "Merge" else (1, int(suffix)) if suffix.isdigit() else (2, base)


def _mark(start: str, branch: bool, side: dict, nodes: dict, readers: dict, switches: dict, merges: dict,
          owned: set) -> None:
    """Puts ``start`` and every node it leads to (short of the cond's Merges) in ``branch``."""
    stack = [start]
    while stack:
        name = stack.pop()
        if name in owned or name in merges or name in switches:
            continue
        if name in side:
            if side[name] is not branch:
                raise _refused(name, "it is reached from both branches of its cond")
            continue
        side[name] = branch
        stack.extend(readers.get(name, ()))
