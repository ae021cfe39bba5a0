"""Convolution layers: a convolution, its bias and its ReLU as one call.

Matches: a float32 ``Conv2D`` whose output only a ``BiasAdd`` (NHWC) or an ``Add``/``AddV2``
of a bias reads (a tensor of shape [out channels] on the same device), and, where that
sum's only reader is a ``Relu``, the ``Relu`` too; no output in between is fetched, fed, or
a control input of another node.
Produces: ``_FusedConv2D(x, f, bias)`` (``relu`` set where the ReLU was taken in), at the
place and under the name of the last node it replaces, so that its readers (a pooling, a
ReLU's gradient) find it there (ops/runtime_ops.py).
Applies: where oneDNN serves the fused op (runtime/onednn), which adds the bias and takes
the ReLU as it writes the convolution's result: the NumPy kernel would do the same passes.
Why: the add and the ReLU are passes over the layer's whole output. Deep MNIST's two
layers (64x28x28x32 and 64x14x14x64 outputs) spent 0.64 ms a step in the adds and 0.53 ms
in the ReLUs, of a 17.4 ms step on 2 cores; the post-ops cost a few percent of the
convolution.
"""

from __future__ import annotations

from ...framework import dtypes
from ...framework.registry import get_registration, kernel_for
from ...ops.runtime_ops import FUSED_CONV
from ..partition import CONTROL, Node
from .common import Nodes, count_readers

_ADDS = ("BiasAdd", "Add", "AddV2")


def applies() -> bool:
    """Whether a compiled library's kernel serves the fused op on CPU."""
    return kernel_for(FUSED_CONV, "CPU") is not get_registration(FUSED_CONV)


def run(plan: Nodes) -> int:
    """Fuses each matching layer; how many."""
    nodes, devices = plan.nodes, plan.devices
    readers = count_readers(nodes)
    only_reader: dict[tuple[str, int], int] = {}
    for j, node in enumerate(nodes):
        for key in node.inputs:
            if readers.get(key) == 1:
                only_reader[key] = j
    fused: dict[int, Node] = {}  # the last node of a layer -> the fused node
    dropped: set[int] = set()
    for i, conv in enumerate(nodes):
        if conv.type != "Conv2D" or not _private(plan, readers, conv):
            continue
        if conv.op is None or conv.op.outputs[0].dtype.base_dtype != dtypes.float32:
            continue
        a = only_reader.get((conv.name, 0))
        if a is None or nodes[a].type not in _ADDS or devices[a] is not devices[i]:
            continue
        add = nodes[a]
        bias_at = _bias_input(add, conv)
        if bias_at is None:
            continue
        last, relu = a, False
        r = only_reader.get((add.name, 0))
        if _private(plan, readers, add) and r is not None and nodes[r].type == "Relu" \
                and devices[r] is devices[i]:
            last, relu = r, True
        elif not _private(plan, readers, add, keep_output=True):
            continue
        end = nodes[last]
        attrs = {"strides": list(conv.attrs["strides"]), "padding": conv.attrs["padding"], "relu": relu}
        if "dilations" in conv.attrs:
            attrs["dilations"] = list(conv.attrs["dilations"])
        fused[last] = Node(end.name, FUSED_CONV, attrs, [conv.inputs[0], conv.inputs[1], add.inputs[bias_at]],
                           [conv.input_is_ref[0], conv.input_is_ref[1], add.input_is_ref[bias_at]], 1, end.op)
        dropped.update({i, a} if relu else {i})
    if fused:
        plan.edit({k: [node] for k, node in fused.items()}, dropped)
    return len(fused)


def _private(plan: Nodes, readers: dict, node: Node, keep_output: bool = False) -> bool:
    """Whether ``node``'s output is read by one node only (or, with ``keep_output``, may be
    read and fetched as it is: it stays, under the fused node's name), and no node waits
    on it by a control edge."""
    key = (node.name, 0)
    if readers.get((node.name, CONTROL)):
        return False
    if keep_output:
        return True
    return readers.get(key) == 1 and key not in plan.fetched and key not in plan.fed


def _bias_input(add: Node, conv: Node) -> int | None:
    """The index of the bias among ``add``'s inputs, where it adds one value per channel of
    ``conv``'s NHWC output; else None."""
    if add.op is None or len(add.inputs) != 2:
        return None
    if add.type == "BiasAdd":
        fmt = add.attrs.get("data_format", b"NHWC")
        if (fmt.decode() if isinstance(fmt, bytes) else fmt) != "NHWC" or add.inputs[0] != (conv.name, 0):
            return None
        at = 1
    elif add.inputs[0] == (conv.name, 0):
        at = 1
    elif add.inputs[1] == (conv.name, 0):
        at = 0
    else:
        return None
    channels = conv.op.outputs[0].shape
    bias = add.op.inputs[at].shape
    if channels.ndims != 4 or channels[3].value is None or bias.ndims != 1 or bias[0].value != channels[3].value:
        return None
    return at
