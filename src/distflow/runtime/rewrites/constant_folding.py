"""Constant folding: values that are the same in every step are computed once, at compile time.

Matches: a stateless, non-blocking node with one output, whose inputs are all
constants (none fed, none a variable's reference); and ``OnesLike``/``ZerosLike`` of a
tensor whose static shape is fully known, which is the seed of every ``tf.gradients``
call, whatever its input.
Produces: a ``Const`` under the node's name, holding a read-only array of its own.
Why: a gradient's seed and the chain of reshapes and broadcasts behind it otherwise
run every step, and folding lets update fusion see the constant scale of averaged
tower gradients. Measured with update fusion, on the MLP benchmark (784-512-512-10,
batch 256, 2-core VM, the two versions interleaved in one process): +9% samples/s on
one device, +23% in-graph on two.
Left alone: results larger than 2^20 elements (memory over time), and a node whose
kernel fails at compile time: it fails with its usual error when the step runs.
"""

from __future__ import annotations

import numpy as np

from ...framework.registry import get_registration
from ..device import Device
from ..partition import Node
from .common import Nodes

FOLD_MAX_ELEMENTS = 1 << 20
_NEVER_FOLDED = frozenset({"_Send", "_Recv", "Placeholder", "PlaceholderWithDefault", "Const", "NoOp"})
_SHAPE_CONSTANTS = {"OnesLike": np.ones, "ZerosLike": np.zeros}


def run(plan: Nodes) -> int:
    """Folds every foldable node, in order (a folded node makes its readers foldable); how many."""
    by_name: dict[str, Node] = {}
    nodes, count = [], 0
    for node, device in zip(plan.nodes, plan.devices):
        folded = _folded(node, device, by_name, plan.fed)
        if folded is not None:
            node, count = folded, count + 1
        by_name[node.name] = node
        nodes.append(node)
    plan.replace(nodes, plan.devices)
    return count


def _constant(node: Node, value: np.ndarray) -> Node:
    return Node(node.name, "Const", {"value": value, "dtype": node.attrs.get("dtype")}, [], [], 1, node.op)


def _folded(node: Node, device: Device, earlier: dict[str, Node], fed: dict) -> Node | None:
    """``node`` as a constant, if it is one; else None."""
    if node.type in _NEVER_FOLDED or node.num_outputs != 1 or not node.inputs or any(node.input_is_ref):
        return None
    make = _SHAPE_CONSTANTS.get(node.type)
    if make is not None and node.op is not None:
        out = node.op.outputs[0]
        if out.shape.is_fully_defined() and out.shape.num_elements() <= FOLD_MAX_ELEMENTS:
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
    # (folded on the host, with the CPU kernel, whatever device the node is on)
    kernel_args = (np, *inputs) if reg.context_arg == "xp" else tuple(inputs)
    try:
        with np.errstate(all="ignore"):
            value = reg.kernel(*kernel_args, **reg.kernel_attrs(node.attrs))
    except Exception:  # noqa: BLE001 - left to fail, with its usual error, when the step runs
        return None
    if not isinstance(value, np.ndarray) or value.size > FOLD_MAX_ELEMENTS:
        return None
    value = np.array(value)  # its own memory: never a view of another constant
    value.flags.writeable = False
    return _constant(node, value)
