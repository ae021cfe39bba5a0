"""``tf.profiler``: a graph's parameters and floating-point operations, counted as TF 1.x's
profiler counts them (``profile`` with ``ProfileOptionBuilder.trainable_variables_parameter()``
or ``float_operation()``), by name scope or by op type.

A trainable variable counts its elements as parameters; an op of a type TensorFlow's
profiler has a formula for (MatMul, the convolutions and their gradients, pooling,
element-wise and reduction ops, Softmax, L2Loss...) counts its float operations by that
formula, where its shapes are fully defined. The ops counted are distflow's graph's, so a
gradient graph, where distflow may build other ops than TensorFlow, can count otherwise.
Execution times and memory (``time_and_memory``) are not measured here: those fields are 0.
"""

from __future__ import annotations

import copy
import os
import re
import sys

from .._namespace import missing
from ..framework import ops
from ..framework.ops import GraphKeys
from .flops import float_ops

_PARAMETERS, _FLOATS = "params", "float_ops"


class ProfileOptionBuilder:
    """The options of ``profile``: what to count and show, and where to write the report."""

    def __init__(self, options=None):
        self._options = copy.deepcopy(options) if options is not None else {
            "max_depth": 100, "min_bytes": 0, "min_micros": 0, "min_params": 0, "min_float_ops": 0,
            "min_occurrence": 0, "order_by": "name", "account_type_regexes": [".*"],
            "start_name_regexes": [".*"], "trim_name_regexes": [], "show_name_regexes": [".*"],
            "hide_name_regexes": [], "account_displayed_op_only": False, "select": ["micros"], "step": -1,
            "output": "stdout"}

    @staticmethod
    def trainable_variables_parameter():
        options = ProfileOptionBuilder()._options
        options.update(max_depth=10000, min_params=0, order_by="name", account_type_regexes=["_trainable_variables"],
                       account_displayed_op_only=True, select=[_PARAMETERS])
        return options

    @staticmethod
    def float_operation():
        options = ProfileOptionBuilder()._options
        options.update(max_depth=10000, min_float_ops=1, order_by="float_ops", account_displayed_op_only=True,
                       select=[_FLOATS])
        return options

    @staticmethod
    def time_and_memory(min_micros=1, min_bytes=1, min_accelerator_micros=0, min_cpu_micros=0, min_peak_bytes=0,
                        min_residual_bytes=0, min_output_bytes=0):
        options = ProfileOptionBuilder()._options
        options.update(max_depth=10000, min_bytes=min_bytes, min_micros=min_micros, order_by="micros",
                       select=["micros", "bytes"])
        return options

    def _set(self, **values):
        self._options.update(values)
        return self

    def with_max_depth(self, max_depth):
        return self._set(max_depth=max_depth)

    def with_min_memory(self, min_bytes=0, min_peak_bytes=0, min_residual_bytes=0, min_output_bytes=0):
        return self._set(min_bytes=min_bytes)

    def with_min_execution_time(self, min_micros=0, min_accelerator_micros=0, min_cpu_micros=0):
        return self._set(min_micros=min_micros)

    def with_min_parameters(self, min_params):
        return self._set(min_params=min_params)

    def with_min_occurrence(self, min_occurrence):
        return self._set(min_occurrence=min_occurrence)

    def with_min_float_operations(self, min_float_ops):
        return self._set(min_float_ops=min_float_ops)

    def with_accounted_types(self, account_type_regexes):
        return self._set(account_type_regexes=list(account_type_regexes))

    def with_node_names(self, start_name_regexes=None, show_name_regexes=None, hide_name_regexes=None,
                        trim_name_regexes=None):
        for key, value in (("start_name_regexes", start_name_regexes), ("show_name_regexes", show_name_regexes),
                           ("hide_name_regexes", hide_name_regexes), ("trim_name_regexes", trim_name_regexes)):
            if value is not None:
                self._options[key] = list(value)
        return self

    def account_displayed_op_only(self, is_true):
        return self._set(account_displayed_op_only=bool(is_true))

    def with_empty_output(self):
        return self._set(output="none")

    def with_stdout_output(self):
        return self._set(output="stdout")

    def with_file_output(self, outfile):
        return self._set(output=f"file:outfile={outfile}")

    def with_timeline_output(self, timeline_file):
        return self._set(output=f"timeline:outfile={timeline_file}")

    def with_pprof_output(self, pprof_file):
        return self._set(output=f"pprof:outfile={pprof_file}")

    def order_by(self, attribute):
        return self._set(order_by=attribute)

    def select(self, attributes):
        return self._set(select=list(attributes))

    def with_step(self, step):
        return self._set(step=step)

    def build(self):
        return copy.deepcopy(self._options)


class GraphNodeProto:
    """One node of the report (a name scope, an op, or an op type): its own parameters and
    float operations, and those of everything below it (``total_*``)."""

    def __init__(self, name):
        self.name = name
        self.parameters = self.float_ops = 0
        self.total_parameters = self.total_float_ops = 0
        self.exec_micros = self.total_exec_micros = 0
        self.requested_bytes = self.total_requested_bytes = 0
        self.run_count = self.total_run_count = 0
        self.definition_count = self.total_definition_count = 0
        self.children: list[GraphNodeProto] = []
        self.graph_nodes = self.children  # (MultiGraphNodeProto's name for them)
        self.shapes: list = []

    def __repr__(self):
        return (f"GraphNodeProto(name={self.name!r}, total_parameters={self.total_parameters}, "
                f"total_float_ops={self.total_float_ops})")


MultiGraphNodeProto = GraphNodeProto


def _parameters(graph) -> dict:
    """op name -> the element count of each trainable variable."""
    out = {}
    for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES):
        for part in getattr(v, "components", None) or [v]:
            count = part.shape.num_elements() if part.shape.is_fully_defined() else 0
            out[part.op.name] = count or 0
    return out


def _stats(graph, options) -> dict:
    """op name -> (parameters, float ops, op type) of the ops the options account."""
    params = _parameters(graph)
    types = options.get("account_type_regexes", [".*"])
    accounted = {}
    for op in graph.get_operations():
        kinds = [op.type] + (["_trainable_variables"] if op.name in params else [])
        if not any(re.fullmatch(rx, kind) for rx in types for kind in kinds):
            continue
        accounted[op.name] = (params.get(op.name, 0), float_ops(op), op.type)
    return accounted


def _shown(name, options) -> bool:
    if any(re.fullmatch(rx, name) for rx in options.get("hide_name_regexes", [])):
        return False
    return any(re.fullmatch(rx, name) for rx in options.get("show_name_regexes", [".*"]))


def _scope_tree(stats: dict, options) -> GraphNodeProto:
    root = GraphNodeProto("_TFProfRoot")
    nodes = {"": root}

    def node_of(path: str) -> GraphNodeProto:
        if path not in nodes:
            parent = node_of(path.rpartition("/")[0])
            nodes[path] = GraphNodeProto(path)
            parent.children.append(nodes[path])
        return nodes[path]

    for name, (n_params, n_flops, _) in stats.items():
        node = node_of(name)
        node.parameters, node.float_ops = n_params, n_flops
    _total(root, options)
    return root


def _total(node: GraphNodeProto, options) -> None:
    for child in node.children:
        _total(child, options)
    node.total_parameters = node.parameters + sum(c.total_parameters for c in node.children)
    node.total_float_ops = node.float_ops + sum(c.total_float_ops for c in node.children)
    keep = [c for c in node.children if _kept(c, options)]
    order = options.get("order_by", "name")
    key = {"float_ops": lambda c: -c.total_float_ops, "params": lambda c: -c.total_parameters}.get(
        order, lambda c: c.name)
    node.children[:] = sorted(keep, key=key)


def _kept(node: GraphNodeProto, options) -> bool:
    if node.total_float_ops < options.get("min_float_ops", 0) or node.total_parameters < options.get("min_params", 0):
        return False
    if options.get("account_displayed_op_only") and not (node.total_float_ops or node.total_parameters or
                                                         node.children):
        return False
    return True


def _op_tree(stats: dict, options) -> GraphNodeProto:
    root = GraphNodeProto("_TFProfRoot")
    by_type: dict = {}
    for name, (n_params, n_flops, op_type) in stats.items():
        node = by_type.get(op_type)
        if node is None:
            node = by_type[op_type] = GraphNodeProto(op_type)
            root.children.append(node)
        node.parameters += n_params
        node.float_ops += n_flops
    _total(root, options)
    return root


def _report(node: GraphNodeProto, options, depth=0, lines=None) -> list:
    lines = [] if lines is None else lines
    selected = options.get("select", [])
    if depth <= options.get("max_depth", 100) and (depth == 0 or _shown(node.name, options)):
        fields = []
        if _PARAMETERS in selected:
            fields.append(f"{node.total_parameters} params")
        if _FLOATS in selected:
            fields.append(f"{node.total_float_ops} flops")
        lines.append("  " * depth + f"{node.name} ({', '.join(fields) or '-'})")
    for child in node.children:
        _report(child, options, depth + 1, lines)
    return lines


def profile(graph=None, run_meta=None, op_log=None, cmd="scope", options=None):
    """Counts the graph's parameters and float operations as ``options`` select, by name scope
    (``cmd`` "scope" or "graph") or op type ("op" or "code"); writes the report where
    ``options["output"]`` says (stdout, a file, or none) and returns its root."""
    graph = graph if graph is not None else ops.get_default_graph()
    options = ProfileOptionBuilder.trainable_variables_parameter() if options is None else options
    if cmd not in ("scope", "graph", "op", "code"):
        raise ValueError(f"cmd must be one of scope, graph, op, code, got {cmd!r}")
    stats = _stats(graph, options)
    root = _op_tree(stats, options) if cmd in ("op", "code") else _scope_tree(stats, options)
    output = options.get("output", "stdout")
    if output != "none":
        text = "\n".join(_report(root, options)) + "\n"
        if output.startswith("file:outfile="):
            path = output.split("=", 1)[1]
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        elif output == "stdout":
            sys.stdout.write(text)
    return root


class Profiler:
    """``profile`` of one graph, by scope, op or graph (``add_step`` keeps the run metadata;
    times are not measured here)."""

    def __init__(self, graph=None, op_log=None):
        self._graph = graph if graph is not None else ops.get_default_graph()
        self._steps: dict = {}

    def add_step(self, step, run_meta):
        self._steps[step] = run_meta

    def profile_name_scope(self, options):
        return profile(self._graph, cmd="scope", options=options)

    def profile_operations(self, options):
        return profile(self._graph, cmd="op", options=options)

    def profile_graph(self, options):
        return profile(self._graph, cmd="graph", options=options)

    def profile_python(self, options):
        return profile(self._graph, cmd="code", options=options)


__getattr__ = missing("tf.profiler")
