"""Convolution patches: a convolution's input windows are gathered once for its forward
product and its filter gradient.

Matches: a ``Conv2D(x, f)`` and a ``Conv2DBackpropFilter(x, filter_sizes, dy)`` later in
the same plan, on devices of one kind, that read the same ``x`` with the same strides and
padding and a filter of the same height and width (the forward convolution and the
weight gradient of one layer, which ``tf.gradients`` puts on the forward's device).
Produces: ``_Conv2DPatches(x)``, the windows as one array [N, OH, OW, KH*KW*C], placed just
before the convolution; the convolution becomes ``_Conv2DFromPatches(patches, f)`` and the
filter gradient ``_Conv2DBackpropFilterFromPatches(patches, filter_sizes, dy)``, each one
GEMM, under their own names (ops/runtime_ops.py).
Why: gathering the windows is a copy of KH*KW times the input, made twice per layer and
step otherwise: 4.8 ms of an 18 ms forward for the second convolution of TensorFlow's
Deep MNIST model (5x5x32x64 on 64x14x14, 2-core VM), and as much again in its filter
gradient. The windows then stay in memory from the forward product to the gradient
(40 MB for that layer), as TensorFlow keeps activations.
Applies: where the NumPy kernels serve Conv2D; oneDNN's convolutions read the input as
it is and need no windows (runtime/onednn).
"""

from __future__ import annotations

import numpy as np

from ...framework.registry import get_registration, kernel_for
from ...ops.runtime_ops import CONV_FILTER_GRAD_FROM_PATCHES, CONV_FROM_PATCHES, CONV_PATCHES
from ..partition import Node
from .common import Nodes


def applies() -> bool:
    """Whether Conv2D runs the NumPy kernel on CPU (which the windows serve)."""
    return kernel_for("Conv2D", "CPU") is get_registration("Conv2D")


def run(plan: Nodes) -> int:
    """Shares the windows of every matching pair; how many pairs."""
    nodes, devices = plan.nodes, plan.devices
    by_name = {node.name: node for node in nodes}
    convs: dict[tuple, int] = {}
    for i, node in enumerate(nodes):
        if node.type == "Conv2D" and not node.input_is_ref[0] and node.op is not None \
                and node.op.inputs[1].shape.is_fully_defined():
            kh, kw = node.op.inputs[1].shape.as_list()[:2]
            convs.setdefault(_key(node, kh, kw, devices[i]), i)
    pairs: dict[int, int] = {}  # conv index -> filter gradient index
    for j, node in enumerate(nodes):
        if node.type != "Conv2DBackpropFilter" or node.input_is_ref[0]:
            continue
        sizes = _constant(by_name.get(node.inputs[1][0]), node.inputs[1], plan.fed)
        if sizes is None or sizes.shape != (4,):
            continue
        i = convs.get(_key(node, int(sizes[0]), int(sizes[1]), devices[j]))
        if i is not None and i < j and i not in pairs:
            pairs[i] = j
    if not pairs:
        return 0
    replaced: dict[int, list[Node]] = {}
    for i, j in pairs.items():
        conv, grad = nodes[i], nodes[j]
        patches = f"{conv.name}/_patches"
        kh, kw = conv.op.inputs[1].shape.as_list()[:2]
        attrs = {"kh": kh, "kw": kw, "strides": list(conv.attrs["strides"]), "padding": conv.attrs["padding"],
                 "dilations": _dilations(conv)}
        replaced[i] = [Node(patches, CONV_PATCHES, attrs, [conv.inputs[0]], [False], 1),
                       Node(conv.name, CONV_FROM_PATCHES, {}, [(patches, 0), conv.inputs[1]],
                            [False, conv.input_is_ref[1]], 1, conv.op)]
        replaced[j] = [Node(grad.name, CONV_FILTER_GRAD_FROM_PATCHES, {}, [(patches, 0), grad.inputs[1], grad.inputs[2]],
                            [False, grad.input_is_ref[1], grad.input_is_ref[2]], 1, grad.op)]
    plan.edit(replaced)
    return len(pairs)


def _key(node: Node, kh: int, kw: int, device) -> tuple:
    return node.inputs[0], kh, kw, tuple(node.attrs["strides"]), node.attrs["padding"], tuple(_dilations(node)), \
        id(device.xp)


def _dilations(node: Node) -> list:
    return list(node.attrs.get("dilations", (1, 1, 1, 1)))


def _constant(node: Node | None, key, fed) -> np.ndarray | None:
    if node is None or key in fed or node.type != "Const":
        return None
    value = node.attrs["value"]
    return value if isinstance(value, np.ndarray) else None
