"""TensorFlow 1.x's control flow in a GraphDef (Switch and Merge for tf.cond; Enter, Merge,
Switch, LoopCond, NextIteration and Exit for tf.while_loop; dead tensors) rewritten as If and
While nodes, the form distflow runs, so that a frozen or exported TF 1.x graph with conds and
loops imports (a batch normalization or dropout switched by a ``training`` placeholder,
``tf.cond``, ``tf.case``, ``tf.while_loop``, ``tf.map_fn``, ``tf.scan``, ``tf.nn.dynamic_rnn``).

**Conds.** TF 1.x builds a cond under a name scope ``S``: ``S/pred_id`` (the predicate), a
Switch for each tensor from outside that a branch reads (port 0 goes to the false branch,
port 1 to the true one; the "pivot" Switch of the predicate itself feeds ``S/switch_t`` and
``S/switch_f``, on which the branches' constants wait), the branches' ops, and a Merge per
output joining a false-branch tensor and a true-branch one. Each cond becomes one If node:
its inputs are the predicate and the tensors the Switches carried; each branch is the ops
reached from its side of the Switches (by data or control edges) up to the Merges, reading
those tensors by their own names (as distflow's own If ops do); its outputs are what the
Merges joined, and the Merges' readers read the If's outputs.

**Loops.** A tf.while_loop is a frame (its Enters' ``frame_name``): per loop variable an Enter
of its first value, a Merge of that and the NextIteration of its next value, a Switch of the
Merge on the LoopCond (port 1 goes on into the body, port 0 leaves through an Exit); and per
tensor from outside that the loop reads, a constant Enter. Each frame becomes one While node:
its inputs are the variables' first values, then the tensors the constant Enters carried; its
condition is the ops from the Merges to the LoopCond, its body the ops from the Switches to the
NextIterations; the Merges become the condition's arguments and the Switches the body's
(``_Arg`` nodes of the same names), and the Exits' readers read the While's outputs.

The other way, ``conds_as_tf1`` writes distflow's If nodes as TF 1.x's Switch and Merge, for
the graphs distflow hands to TensorFlow (SavedModels, frozen graphs).

Constructs are rewritten innermost first (by the depth of their name scopes, as TF 1.x nests
them), so a cond or loop inside a branch or body is an If or While node of that function.
Not rewritten: a Merge whose second output (which input arrived) is read, an op that both a
loop's condition and its body read, and graphs whose nodes do not pair as tf.cond and
tf.while_loop make them; each is an UnimplementedError naming the node.
"""

from __future__ import annotations

from . import errors
from .function_body import FuncBody
from ..protos import distflow_pb2 as pb

LOOP_OPS = frozenset({"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond"})
COND_OPS = frozenset({"Switch", "RefSwitch", "Merge", "RefMerge"})
_INT32 = 3  # (DataType DT_INT32: a While's count of iterations)


def _refused(node: str, why: str) -> errors.UnimplementedError:
    return errors.UnimplementedError(None, None, f"node '{node}': {why}. distflow runs tf.cond and "
                                     "tf.while_loop as If and While ops and rewrites TF 1.x's conds and loops "
                                     "(Switch, Merge, Enter, Exit, ...) when it imports a GraphDef, but not "
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


def functionalize(graph_def: pb.GraphDef) -> pb.GraphDef:
    """``graph_def`` with its TF 1.x conds and loops as If and While nodes (a new GraphDef; the
    argument is unchanged)."""
    nodes = {n.name: _Node(n) for n in graph_def.node}
    order = [n.name for n in graph_def.node]
    bodies: dict[str, dict[str, FuncBody]] = {}  # If or While node -> its functions
    owned: set[str] = set()  # nodes already inside a function
    moved: dict[str, str] = {}  # a node rewritten away -> the node that stands for it
    while True:
        scopes, frames = {}, {}
        for name, node in nodes.items():
            op = node.proto.op
            if op in ("Switch", "RefSwitch") and not _is_loop_switch(node, nodes):
                scopes.setdefault(_cond_scope(node), []).append(name)
            elif op in ("Enter", "RefEnter"):
                frames.setdefault(_frame_of(node), []).append(name)
        if not scopes and not frames:
            break
        # (innermost first: the deepest name scope, a cond or a loop)
        found = [(s.count("/"), 0, s) for s in scopes] + [(_scope(f).count("/"), 1, f) for f in frames]
        _, is_loop, key = max(found)
        if is_loop:
            _rewrite_loop(key, frames[key], nodes, order, bodies, owned, moved)
        else:
            _rewrite(key, scopes[key], nodes, order, bodies, owned, moved)
    for name, node in nodes.items():
        if node.proto.op in ("Merge", "RefMerge"):
            raise _refused(name, "a Merge that no cond's Switch or loop's Enter leads to")
        if node.proto.op in LOOP_OPS:
            raise _refused(name, f"a {node.proto.op} outside any loop's frame")
    for node in nodes.values():
        _recolocate(node.proto, nodes, moved)
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


def _rewrite(scope: str, switch_names: list, nodes: dict, order: list, bodies: dict, owned: set,
             moved: dict) -> None:
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
    _rename_everywhere(rename, nodes, bodies, moved)
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


def _rename_everywhere(rename: dict, nodes: dict, bodies: dict, moved: dict) -> None:
    """Every input of every node, and every feed and output of the functions made so far,
    passed through ``rename`` (tensor or "^node" -> its new name); ``moved`` learns which
    node stands for each node renamed away."""
    for old, new in rename.items():
        if _node_of(old) != _node_of(new):
            moved.setdefault(_node_of(old), _node_of(new))
    for node in nodes.values():
        node.inputs = [rename.get(t, t) for t in node.inputs]
    for functions in bodies.values():
        for key, body in functions.items():
            functions[key] = FuncBody(body.ops, [(rename.get(t, t), p) for t, p in body.feeds],
                                      [rename.get(t, t) for t in body.outputs])


def _recolocate(proto, nodes: dict, moved: dict) -> None:
    """``proto``'s colocation constraints (``_class``: ``loc:@node``) on nodes rewritten away
    moved to the nodes that stand for them."""
    if "_class" not in proto.attr:
        return
    names = []
    for entry in proto.attr["_class"].list.s:
        text = entry.decode(errors="replace")
        if text.startswith("loc:@"):
            target, seen = text[5:], set()
            while target not in nodes and target in moved and target not in seen:
                seen.add(target)
                target = moved[target]
            if target not in nodes:
                continue
            text = f"loc:@{target}"
        if text.encode() not in names:
            names.append(text.encode())
    del proto.attr["_class"].list.s[:]
    proto.attr["_class"].list.s.extend(names)
    if not names:
        del proto.attr["_class"]


def _is_loop_switch(switch: _Node, nodes: dict) -> bool:
    pred = nodes.get(_node_of(switch.inputs[1])) if len(switch.inputs) > 1 else None
    return pred is not None and pred.proto.op == "LoopCond"


def _frame_of(enter: _Node) -> str:
    return enter.proto.attr["frame_name"].s.decode()


def _dtype(node: _Node) -> int:
    return node.proto.attr["T"].type


def _rewrite_loop(frame: str, enter_names: list, nodes: dict, order: list, bodies: dict, owned: set,
                  moved: dict) -> None:
    """The loop of ``frame`` (its Enters: ``enter_names``) as one While node."""
    readers: dict[str, list[str]] = {}
    for name, node in nodes.items():
        for text in node.inputs:
            readers.setdefault(_node_of(text), []).append(name)
    # the frame: what its Enters lead to, up to its Exits
    members, exits, stack = set(), [], list(enter_names)
    while stack:
        name = stack.pop()
        if name in members or name in owned or name in exits:
            continue
        if nodes[name].proto.op in ("Exit", "RefExit"):
            exits.append(name)
            continue
        members.add(name)
        stack.extend(readers.get(name, ()))
    constants = [e for e in enter_names if nodes[e].proto.attr["is_constant"].b]
    merges = sorted((m for m in members if nodes[m].proto.op in ("Merge", "RefMerge")), key=_merge_position)
    loop_conds = [m for m in members if nodes[m].proto.op == "LoopCond"]
    if len(loop_conds) != 1:
        raise _refused(enter_names[0], f"an Enter of the loop '{frame}', which has {len(loop_conds)} LoopConds")
    loop_cond = loop_conds[0]
    variables = []  # per loop variable: (Enter, Merge, NextIteration, Switch)
    for merge in merges:
        data = [t for t in nodes[merge].inputs if not t.startswith("^")]
        kinds = {nodes[_node_of(t)].proto.op.removeprefix("Ref"): _node_of(t) for t in data if _node_of(t) in nodes}
        if len(data) != 2 or set(kinds) != {"Enter", "NextIteration"}:
            raise _refused(merge, f"a Merge of the loop '{frame}' that does not join an Enter and a NextIteration")
        switches = [r for r in readers.get(merge, ()) if nodes[r].proto.op in ("Switch", "RefSwitch")
                    and _node_of(nodes[r].inputs[1]) == loop_cond]
        if len(switches) != 1:
            raise _refused(merge, f"a Merge of the loop '{frame}' read by {len(switches)} Switches on its LoopCond")
        variables.append((kinds["Enter"], merge, kinds["NextIteration"], switches[0]))
    for name in readers.get(loop_cond, ()):
        if name not in {v[3] for v in variables}:
            raise _refused(name, f"it reads the LoopCond of the loop '{frame}'")
    for name in members:
        for text in nodes[name].inputs:
            if text.endswith(":1") and _node_of(text) in {m for _, m, _, _ in variables}:
                raise _refused(name, f"it reads which input of Merge '{_node_of(text)}' arrived")
    n = len(variables)
    # what the loop computes from its variables' last values on their way out (the Switches'
    # false sides, up to the Exits: TF 1.x's gradient loops put ops there): after the While
    switch_names = {v[3] for v in variables}
    after, stack = set(), [r for sw in switch_names for r in readers.get(sw, ())
                           if f"{sw}:0" in nodes[r].inputs and r not in exits]
    while stack:
        name = stack.pop()
        if name in after or name in exits:
            continue
        after.add(name)
        stack.extend(readers.get(name, ()))
    members -= after
    structural = set(enter_names) | {loop_cond} | {x for v in variables for x in v}
    # the condition: what the LoopCond reads, back to the Merges and the constant Enters
    cond_output = nodes[loop_cond].inputs[0]
    cond_ops, stack = set(), [_node_of(cond_output)]
    while stack:
        name = stack.pop()
        if name in cond_ops or name not in members or name in structural:
            continue
        cond_ops.add(name)
        stack.extend(_node_of(t) for t in nodes[name].inputs)
    body_ops = members - structural - cond_ops
    for name in body_ops:
        for text in nodes[name].inputs:
            if _node_of(text) in cond_ops:
                raise _refused(name, f"it reads '{text}', which the condition of the loop '{frame}' computes: "
                               "an op that both the condition and the body read")
            if _node_of(text) in after:
                raise _refused(name, f"it reads '{text}', which the loop '{frame}' computes on its way out")
    # the While's inputs: the variables' first values, then what the constant Enters carried
    inputs, control = [], []
    for enter, _, _, _ in variables:
        inputs.append(next(t for t in nodes[enter].inputs if not t.startswith("^")))
    rename = {}
    for enter in constants:
        data = [t for t in nodes[enter].inputs if not t.startswith("^")]
        if len(data) != 1:
            raise _refused(enter, f"an Enter of {len(data)} inputs")
        if data[0] not in inputs[n:]:
            inputs.append(data[0])
        rename[f"{enter}:0"] = data[0]
        rename[f"^{enter}"] = f"^{_node_of(data[0])}"
    for enter in enter_names:
        control.extend(t for t in nodes[enter].inputs if t.startswith("^") and t not in control)
    while_name = _scope(frame) if _scope(frame) and _scope(frame) not in nodes else f"{frame}/While"
    last = {f"{v[3]}:0": f"{while_name}:{k}" for k, v in enumerate(variables)}
    for name in after:  # (they read the While's outputs, and wait for nothing inside it)
        node = nodes[name]
        node.inputs = [last.get(t, t) for t in node.inputs
                       if not (t.startswith("^") and (_node_of(t) in members or _node_of(t) in exits))]
    for exit_ in exits:
        data = [t for t in nodes[exit_].inputs if not t.startswith("^")]
        if len(data) != 1 or (_node_of(data[0]) not in after and data[0] not in last):
            raise _refused(exit_, f"an Exit of the loop '{frame}' that reads no Switch of it")
        rename[f"{exit_}:0"] = last.get(data[0], data[0])
        rename[f"^{exit_}"] = f"^{_node_of(rename[f'{exit_}:0'])}"
    for switch in switch_names:
        rename[f"{switch}:1"] = f"{switch}:0"  # (the body's argument: the Switch's true side)
    _rename_everywhere(rename, nodes, bodies, moved)
    merged = {f"{merge}:0": f"{switch}:0" for _, merge, _, switch in variables}
    for name in body_ops:  # (a body op reading a Merge reads the same value from its Switch)
        nodes[name].inputs = [merged.get(t, t) for t in nodes[name].inputs]
    # outside control edges of the functions' ops wait for the While itself
    for name in cond_ops | body_ops:
        node = nodes[name]
        kept = []
        for text in node.inputs:
            if text.startswith("^") and _node_of(text) not in members:
                if text not in control:
                    control.append(text)
            else:
                kept.append(text)
        node.inputs = kept
    next_values = [nodes[next_iteration].inputs[0] for _, _, next_iteration, _ in variables]
    dtypes = [_dtype(nodes[merge]) for _, merge, _, _ in variables]
    parallel = nodes[enter_names[0]].proto.attr["parallel_iterations"].i or 10
    for k, (enter, merge, next_iteration, switch) in enumerate(variables):
        for arg in (merge, switch):
            proto = pb.NodeDef(name=arg, op="_Arg")
            proto.attr["dtype"].type = dtypes[k]
            proto.attr["shape"].shape.unknown_rank = True
            proto.attr["index"].i = k
            nodes[arg] = _Node(proto)
        moved[next_iteration] = _node_of(nodes[next_iteration].inputs[0])
        del nodes[next_iteration]
        order.remove(next_iteration)
    for name in list(enter_names) + [loop_cond]:
        moved.setdefault(name, _node_of(nodes[name].inputs[0]))
    for name in list(enter_names) + [loop_cond] + exits:
        del nodes[name]
        order.remove(name)
    captures = [(text, n + j) for j, text in enumerate(inputs[n:])]
    cond_members = _sorted([v[1] for v in variables] + sorted(cond_ops), nodes)
    body_members = _sorted([v[3] for v in variables] + sorted(body_ops), nodes)
    functions = {
        "cond": FuncBody(cond_members, [(f"{v[1]}:0", k) for k, v in enumerate(variables)] + captures,
                         [rename.get(cond_output, cond_output)]),
        "body": FuncBody(body_members, [(f"{v[3]}:0", k) for k, v in enumerate(variables)] + captures,
                         next_values)}
    owned.update(cond_members, body_members)
    proto = pb.NodeDef(name=while_name, op="While")
    proto.attr["num_loop_vars"].i = n
    proto.attr["num_stacked"].i = 0
    proto.attr["back_prop"].b = True
    proto.attr["parallel_iterations"].i = parallel
    proto.attr["Tout"].list.type.extend(dtypes + [_INT32])
    for _ in range(n + 1):
        proto.attr["output_shapes"].list.shape.add(unknown_rank=True)
    nodes[while_name] = _Node(proto)
    nodes[while_name].inputs = inputs + control
    bodies[while_name] = functions
    order.append(while_name)


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


def conds_as_tf1(graph_def: pb.GraphDef) -> dict:
    """Each If node (distflow's tf.cond: its branches FuncBody attrs) as TF 1.x's cond: a Switch
    of each tensor the branches read on the predicate (the true branch reads port 1, the false
    branch port 0; their constants wait for the pivot of their side), the branches' ops, and a
    Merge per output, so that TensorFlow imports the graph; distflow's importer makes it an If
    again. Rewrites ``graph_def`` in place; returns the renamed tensors ("If:k" -> its Merge's).
    An If whose branch holds a loop stays as it is."""
    ifs = [n for n in graph_def.node if n.op == "If"]
    if not ifs:
        return {}
    by_name = {n.name: n for n in graph_def.node}
    rename: dict = {}
    for node in ifs:
        if any(by_name[name].op == "While" for branch in ("then_branch", "else_branch")
               for name in node.attr[branch].function_body.op if name in by_name):
            continue  # (a loop in a branch: left as it is)
        name, device, pred = node.name, node.device, node.input[0]
        data = [t for t in node.input if not t.startswith("^")]
        control = [t for t in node.input if t.startswith("^")]
        types = list(node.attr["Tin"].list.type)  # (TensorFlow's attrs, which the export writes)
        if len(types) != len(data) - 1:
            continue
        _add_node(graph_def, f"{name}/pred_id", "Identity", [pred] + control, device, T=_BOOL)
        _add_node(graph_def, f"{name}/Switch", "Switch", [f"{name}/pred_id", f"{name}/pred_id"], device, T=_BOOL)
        pivots = {1: _add_node(graph_def, f"{name}/switch_t", "Identity", [f"{name}/Switch:1"], device, T=_BOOL).name,
                  0: _add_node(graph_def, f"{name}/switch_f", "Identity", [f"{name}/Switch:0"], device, T=_BOOL).name}
        switches = {}
        outputs = {}
        for branch, port in (("then_branch", 1), ("else_branch", 0)):
            body = node.attr[branch].function_body
            local = {}
            for fed, position in zip(body.feed_name, body.feed_position):
                if position not in switches:
                    switches[position] = _add_node(graph_def, f"{name}/Switch_{len(switches) + 1}", "Switch",
                                               [data[position], f"{name}/pred_id"], device,
                                               T=types[position - 1]).name
                local[fed] = f"{switches[position]}:{port}"
            for op_name in body.op:
                member = by_name[op_name]
                inputs = [local.get(t if ":" in t or t.startswith("^") else f"{t}:0", t) for t in member.input]
                if not any(not t.startswith("^") for t in inputs):  # (a constant: it waits for its side's pivot)
                    inputs.append(f"^{pivots[port]}")
                del member.input[:]
                member.input.extend(inputs)
            outputs[port] = [local.get(t, t) for t in body.output]
        for k, dtype in enumerate(node.attr["Tout"].list.type):
            if not outputs[0][k] or not outputs[1][k]:
                raise ValueError(f"If node '{name}': output {k} has a value in one branch only")
            merge = _add_node(graph_def, f"{name}/Merge_{k}" if k else f"{name}/Merge", "Merge",
                          [outputs[0][k], outputs[1][k]], device, T=dtype, N=2)
            rename[f"{name}:{k}"] = f"{merge.name}:0"
        rename[f"^{name}"] = f"^{name}/Merge" if len(node.attr["Tout"].list.type) else f"^{name}/pred_id"
        graph_def.node.remove(node)
    for node in graph_def.node:
        names = [rename.get(t if ":" in t or t.startswith("^") else f"{t}:0", t) for t in node.input]
        del node.input[:]
        node.input.extend(names)
    return rename


_BOOL = 10  # (DataType DT_BOOL)


def _add_node(graph_def: pb.GraphDef, name: str, op: str, inputs=(), device: str = "", T: int = 0, N: int = 0):  # noqa: N803
    """A node of TF 1.x's control flow added to ``graph_def`` (its dtype attr ``T``, its count ``N``)."""
    node = graph_def.node.add(name=name, op=op, device=device)
    node.input.extend(inputs)
    node.attr["T"].type = T
    if N:
        node.attr["N"].i = N
    return node
