"""Pictures of Keras models: ``model_to_dot`` (the layers and how they connect, in Graphviz's
DOT language) and ``plot_model`` (that drawn to a file by Graphviz's ``dot``).

TF 1.x drew them through the pydot package; here the DOT text is written directly and only
Graphviz's ``dot`` program (the system package) is needed to draw it. ``model_to_dot``
returns a small object with pydot's ``to_string``, ``create`` and ``write`` methods.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from ..engine.base_layer import history


class Dot:
    """A DOT graph: ``to_string()`` is its text; ``create(format=...)`` draws it (bytes) and
    ``write(path, format=...)`` writes either ('raw' is the text)."""

    def __init__(self, text: str):
        self._text = text

    def to_string(self) -> str:
        return self._text

    def create(self, prog="dot", format="png") -> bytes:  # noqa: A002 - pydot's name
        if format == "raw":
            return self._text.encode()
        program = shutil.which(prog)
        if program is None:
            raise ImportError(f"Drawing a model needs Graphviz's `{prog}` program: install the system package "
                              "graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz)")
        done = subprocess.run([program, f"-T{format}"], input=self._text.encode(), capture_output=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"{prog} failed to draw the model: {done.stderr.decode(errors='replace').strip()}")
        return done.stdout

    def write(self, path, prog="dot", format="raw") -> bool:  # noqa: A002
        data = self.create(prog, format)
        with open(path, "wb") as f:
            f.write(data)
        return True


def _shape_text(tensors) -> str:
    shapes = [tuple(t.shape.as_list()) if t.shape.ndims is not None else "?" for t in tensors]
    return str(shapes[0]) if len(shapes) == 1 else str(shapes)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _record(text: str) -> str:
    """``text`` with the characters a record label gives meaning to escaped."""
    for c in "{}|<>":
        text = text.replace(c, "\\" + c)
    return text


def model_to_dot(model, show_shapes=False, show_layer_names=True, rankdir="TB", expand_nested=False, dpi=96,
                 subgraph=False):
    """The layers of ``model`` as DOT nodes (``name: Class``), the calls between them as edges;
    with ``show_shapes`` each node also shows its input and output shapes."""
    if expand_nested:
        raise NotImplementedError("model_to_dot(expand_nested=True) is not supported by distflow: a nested model is "
                                  "drawn as one node")
    nodes = list(getattr(model, "_nodes", None) or [])
    if not nodes:
        raise ValueError("model_to_dot draws models made of layer calls (functional or Sequential, built); this "
                         "model has none to draw")
    ids: dict = {}
    lines = ["digraph G {", f"  graph [rankdir={rankdir}, dpi={dpi}];", "  node [shape=record];"]

    def node_of(layer, inputs, outputs):
        if id(layer) in ids:
            return ids[id(layer)]
        ids[id(layer)] = name = f"n{len(ids)}"
        label = f"{layer.name}: {type(layer).__name__}" if show_layer_names else type(layer).__name__
        label = _record(label)
        if show_shapes:
            given = _record(_shape_text(inputs)) if inputs else "multiple"
            made = _record(_shape_text(outputs))
            label = f"{label}|{{input:|output:}}|{{{given}|{made}}}"
            label = "{" + label + "}"
        lines.append(f"  {name} [label={_quoted(label)}];")
        return name

    edges = []
    for node in nodes:
        target = node_of(node.layer, node.inputs, node.outputs)
        for tensor in node.inputs:
            made_by = history(tensor)
            if made_by is None:
                continue
            layer = made_by[0]
            source = ids.get(id(layer)) or node_of(layer, [tensor], [tensor])  # (an input layer)
            if (source, target) not in edges:
                edges.append((source, target))
    lines += [f"  {a} -> {b};" for a, b in edges]
    lines.append("}")
    return Dot("\n".join(lines) + "\n")


def plot_model(model, to_file="model.png", show_shapes=False, show_layer_names=True, rankdir="TB",
               expand_nested=False, dpi=96):
    """Draws ``model_to_dot(model, ...)`` to ``to_file``, in the format its extension names
    (png, svg, pdf, ...; dot for the DOT text itself)."""
    dot = model_to_dot(model, show_shapes, show_layer_names, rankdir, expand_nested, dpi)
    extension = os.path.splitext(str(to_file))[1][1:] or "png"
    return dot.write(to_file, format="raw" if extension == "dot" else extension)
