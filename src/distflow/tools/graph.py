"""``distflow graph``: a picture of a graph, its ops grouped by task and device.

Draws a GraphDef file (binary ``.pb`` or text ``.pbtxt``), a meta graph (``.meta``), or the
graph a Python script builds (the default graph when it creates its first Session; the
script stops there) as SVG, with Graphviz's ``dot``:

- one box per task (``/job:ps/task:0``), and inside it one per device; ops without a
  device are grouped apart;
- an edge between devices (where a step sends and receives a tensor) is drawn red and
  dashed; a control edge dotted;
- ``--depth N`` collapses each name scope deeper than N into one box per device, which
  says how many ops it holds (the gradients of a model are one box, not hundreds).
"""

from __future__ import annotations

import argparse
import os
import runpy
import shutil
import subprocess
import sys
from collections import Counter

from google.protobuf import text_format

from ..framework.device_spec import DeviceSpec
from ..protos import distflow_pb2 as pb

UNPLACED = "(no device)"


class GraphSourceError(Exception):
    """``distflow graph`` cannot read its source: the message says why, and no traceback is shown."""


def load(source: str, script_args=()) -> pb.GraphDef:
    """The GraphDef in ``source``: a .pb/.pbtxt GraphDef, a .meta MetaGraphDef, or a .py script.

    Raises:
      GraphSourceError: the file is not what its name says, or the script failed before it
        made a session.
    """
    if source.endswith(".py"):
        return _script_graph(source, list(script_args))
    with open(source, "rb") as f:
        data = f.read()
    try:
        if source.endswith(".meta"):
            meta = pb.MetaGraphDef()
            try:
                meta.ParseFromString(data)
            except Exception:  # noqa: BLE001 - a text meta graph
                text_format.Parse(data.decode(), meta)
            return meta.graph_def
        graph_def = pb.GraphDef()
        if source.endswith((".pbtxt", ".txt")):
            text_format.Parse(data.decode(), graph_def)
        else:
            graph_def.ParseFromString(data)
        return graph_def
    except Exception as e:  # noqa: BLE001 - protobuf's parse errors, and bytes that are not text
        kind = "meta graph" if source.endswith(".meta") else "GraphDef"
        raise GraphSourceError(f"{source} is not a {kind} ({type(e).__name__}: {str(e).splitlines()[0][:300]})") \
            from None


class _Captured(Exception):
    def __init__(self, graph):
        super().__init__("graph captured")
        self.graph = graph


def _script_graph(path: str, args: list[str]) -> pb.GraphDef:
    """Runs the script until it creates its first Session; that session's graph."""
    import distflow as tf  # noqa: PLC0415
    from ..runtime import session  # noqa: PLC0415

    original = session.BaseSession.__init__

    def capture(self, target="", graph=None, config=None):
        raise _Captured(graph or tf.get_default_graph())

    session.BaseSession.__init__ = capture
    argv = sys.argv
    sys.argv = [path, *args]
    try:
        runpy.run_path(path, run_name="__main__")
    except _Captured as done:
        return done.graph.as_graph_def()
    except SystemExit as e:  # (the script's own argument parser, say)
        raise GraphSourceError(f"{path} exited (status {e.code}) before it made a session; its own arguments go "
                               f"after --: distflow graph {path} -- ARGS") from None
    except Exception as e:  # noqa: BLE001 - whatever the script raised
        raise GraphSourceError(f"{path} failed before it made a session: {type(e).__name__}: "
                               f"{str(e).splitlines()[0] if str(e) else ''} (its own arguments go after --: "
                               f"distflow graph {path} -- ARGS)") from None
    finally:
        session.BaseSession.__init__ = original
        sys.argv = argv
    return tf.get_default_graph().as_graph_def()  # the script made no session


def _place(device: str) -> tuple[str, str]:
    """(task, device) boxes for a device string."""
    if not device:
        return UNPLACED, ""
    spec = DeviceSpec.from_string(device)
    task = f"/job:{spec.job}/task:{spec.task or 0}" if spec.job else "this process"
    kind = f"{spec.device_type}:{spec.device_index or 0}" if spec.device_type else "any device"
    return task, kind


def _group(name: str, depth: int | None) -> str:
    """The box of op ``name``: itself, or with ``depth`` the name scope ``depth`` levels deep
    that holds it ("Adam/" for "Adam/mul" and "Adam/update/x" at depth 1)."""
    parts = name.split("/")
    return name if depth is None or len(parts) <= depth else "/".join(parts[:depth]) + "/"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph_def: pb.GraphDef, depth: int | None = None) -> str:
    """The graph in Graphviz's language (see the module docstring)."""
    places = {node.name: _place(node.device) for node in graph_def.node}
    box_of = {node.name: (_group(node.name, depth), places[node.name]) for node in graph_def.node}
    members = Counter(box_of.values())
    only_op = {box: name for name, box in box_of.items()}  # (for a box of one op: that op)
    op_of = {node.name: node.op for node in graph_def.node}
    ids = {box: f"n{i}" for i, box in enumerate(dict.fromkeys(box_of.values()))}
    by_place: dict[tuple, list] = {}
    for box in ids:
        by_place.setdefault(box[1], []).append(box)
    lines = ["digraph G {", "  compound=true; rankdir=TB; newrank=true;",
             '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica", fontsize=10];',
             '  edge [color="#555555", arrowsize=0.6];']
    tasks: dict[str, list] = {}
    for place in by_place:
        tasks.setdefault(place[0], []).append(place)
    for t, (task, device_places) in enumerate(sorted(tasks.items())):
        lines.append(f"  subgraph cluster_t{t} {{ label={_quote(task)}; style=filled; fillcolor=\"#eef2f7\"; "
                     "fontname=\"Helvetica-Bold\";")
        for d, place in enumerate(sorted(device_places)):
            if place[1]:
                lines.append(f"    subgraph cluster_t{t}_d{d} {{ label={_quote(place[1])}; style=filled; "
                             "fillcolor=\"#ffffff\"; color=\"#8899aa\";")
            for box in by_place[place]:
                name = box[0]
                if name.endswith("/") and members[box] > 1:
                    label = _quote(f"{name} ({members[box]} ops)")
                    lines.append(f"      {ids[box]} [label={label}, fillcolor=\"#dde8f5\"];")
                else:
                    op = only_op[box]
                    label = _quote(op)[:-1] + "\\n" + _quote(op_of[op])[1:]  # name, then type below it
                    lines.append(f"      {ids[box]} [label={label}];")
            if place[1]:
                lines.append("    }")
        lines.append("  }")
    seen = set()
    for node in graph_def.node:
        for text in node.input:
            control = text.startswith("^")
            src = text.lstrip("^").split(":")[0]
            if src not in box_of:
                continue
            a, b = box_of[src], box_of[node.name]
            if a == b or (a, b, control) in seen:
                continue
            seen.add((a, b, control))
            attrs = []
            if places[src] != places[node.name]:
                attrs.append('color="#cc3333", style=dashed, penwidth=1.4')
            elif control:
                attrs.append("style=dotted")
            lines.append(f"  {ids[a]} -> {ids[b]}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(dot_text: str, out_path: str) -> None:
    """Writes ``dot_text`` as SVG to ``out_path`` with Graphviz."""
    dot = shutil.which("dot")
    if dot is None:
        raise SystemExit("distflow graph: Graphviz's `dot` is not installed; install the system package "
                         "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz)")
    done = subprocess.run([dot, "-Tsvg", "-o", out_path], input=dot_text, text=True, capture_output=True,
                          timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"distflow graph: dot failed: {done.stderr.strip()}")


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="distflow graph", description=__doc__.replace("``", "`"),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="a .pb/.pbtxt GraphDef, a .meta meta graph, or a .py script")
    parser.add_argument("-o", "--output", help="the SVG to write (default: the source's name with .svg, in the "
                                               "current directory)")
    parser.add_argument("--depth", type=_depth, default=None, help="collapse name scopes deeper than this (1 or more)")
    parser.add_argument("--dot", action="store_true", help="print the Graphviz source instead")
    argv = list(sys.argv[1:] if argv is None else argv)
    script_args = []
    if "--" in argv:  # a script's own arguments follow --
        argv, script_args = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    parser.usage = "distflow graph [-o OUT.svg] [--depth N] [--dot] SOURCE [-- SCRIPT ARGS ...]"
    args = parser.parse_args(argv)
    if not os.path.exists(args.source):
        parser.error(f"{args.source}: no such file")
    try:
        graph_def = load(args.source, script_args)
    except GraphSourceError as e:
        parser.exit(2, f"distflow graph: {e}\n")
    dot_text = to_dot(graph_def, args.depth)
    if args.dot:
        sys.stdout.write(dot_text)
        return 0
    out = args.output or os.path.splitext(os.path.basename(args.source))[0] + ".svg"
    render(dot_text, out)
    print(out)
    return 0
