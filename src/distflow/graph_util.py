"""``tf.graph_util``: freezing a trained graph (variables to constants) and extracting subgraphs."""

from __future__ import annotations

import numpy as np

from ._namespace import missing
from .framework import functionalize, wire
from .protos import distflow_pb2 as pb


def _name(text: str) -> str:
    return text.lstrip("^").split(":")[0]


def extract_sub_graph(graph_def, dest_nodes):
    """The nodes ``dest_nodes`` need (inputs and control inputs, and the ops of the functions of
    the If and While nodes among them), in the original order."""
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list.")
    by_name = {node.name: node for node in graph_def.node}
    for name in dest_nodes:
        if name not in by_name:
            raise AssertionError(f"{name} is not in graph")
    keep, stack = set(), list(dest_nodes)
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        node = by_name[name]
        stack.extend(_name(i) for i in node.input)
        for value in node.attr.values():  # (a cond's branches, a loop's condition and body)
            if value.WhichOneof("value") == "function_body":
                stack.extend(value.function_body.op)
    out = pb.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    for node in graph_def.node:
        if node.name in keep:
            out.node.add().CopyFrom(node)
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names, variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """The subgraph ``output_node_names`` need, with each variable replaced by a Const of its value now."""
    sub = extract_sub_graph(input_graph_def, output_node_names)
    variables = [n.name for n in sub.node if n.op in ("VariableV2", "Variable")
                 and (variable_names_whitelist is None or n.name in variable_names_whitelist)
                 and (variable_names_blacklist is None or n.name not in variable_names_blacklist)]
    values = dict(zip(variables, sess.run([name + ":0" for name in variables]))) if variables else {}
    out = pb.GraphDef()
    out.versions.CopyFrom(sub.versions)
    for node in sub.node:
        if node.name in values:
            const = out.node.add(name=node.name, op="Const", device=node.device)
            value = np.asarray(values[node.name])
            const.attr["dtype"].CopyFrom(node.attr["dtype"])
            const.attr["value"].CopyFrom(wire.attr_to_proto(value))
        else:
            out.node.add().CopyFrom(node)
    # (a frozen graph goes to other tools: its conds as TF 1.x's Switch and Merge, which TensorFlow imports)
    functionalize.conds_as_tf1(out)
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """The graph without Identity and CheckNumerics nodes (their consumers read their input)."""
    protected = set(protected_nodes or [])
    removable = {n.name: n.input[0] for n in input_graph.node
                 if n.op in ("Identity", "CheckNumerics") and n.name not in protected and len(n.input) == 1}

    def resolve(text):
        control = text.startswith("^")
        name = _name(text)
        suffix = text.split(":", 1)[1] if ":" in text and not control else None
        while name in removable:
            text = removable[name]
            name = _name(text)
            suffix = text.split(":", 1)[1] if ":" in text else None
        return ("^" if control else "") + name + (f":{suffix}" if suffix and suffix != "0" else "")

    out = pb.GraphDef()
    out.versions.CopyFrom(input_graph.versions)
    for node in input_graph.node:
        if node.name in removable:
            continue
        copy = out.node.add()
        copy.CopyFrom(node)
        del copy.input[:]
        copy.input.extend(resolve(i) for i in node.input)
    return out


def tensor_shape_from_node_def_name(graph, input_name):
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).shape


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """Whether ``node`` (an Operation or a NodeDef) must run on a CPU by TF's rule: a constant
    of strings or int32s, an int32 DynamicStitch, a Cast from int32, and with
    ``pin_variables_on_cpu`` the variable ops."""
    node_def = node.node_def if hasattr(node, "node_def") else node
    if pin_variables_on_cpu and node_def.op in ("Variable", "VariableV2", "VarHandleOp", "AutoReloadVariable"):
        return True
    if node_def.op == "Const":
        return node_def.attr["dtype"].type in (pb.DT_STRING, pb.DT_INT32)
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        return node_def.attr["T"].type == pb.DT_INT32
    if node_def.op == "Cast":
        return node_def.attr["SrcT"].type == pb.DT_INT32
    return False


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """``tf.import_graph_def`` (TF 1.x's graph_util has it too)."""
    from .framework.importer import import_graph_def as _import  # noqa: PLC0415

    return _import(graph_def, input_map, return_elements, name, op_dict, producer_op_list)


__getattr__ = missing("tf.graph_util")
