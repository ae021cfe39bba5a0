"""A max pooling that keeps where each maximum is, for its gradient.

Matches: ``MaxPoolGrad(x, y, g)`` where ``y`` is the output of a float32 ``MaxPool(x)`` of
the plan, on the same device, with the same windows, strides and padding (NHWC, windows
over height and width only), and ``y`` is not fed.
Produces: the ``MaxPool`` becomes ``_MaxPoolWithWorkspace`` under its name (output 0 is the
pooling, so its readers do not change; output 1 the workspace), and each such gradient
``_MaxPoolGradWithWorkspace(x, y, workspace, g)`` (ops/runtime_ops.py).
Applies: where oneDNN serves the pair (runtime/onednn). TensorFlow's ``MaxPoolGrad`` carries
no workspace, so oneDNN's kernel of it runs the forward pooling again to find the maxima;
with the workspace the forward pass leaves, the gradient is oneDNN's backward pooling
alone (TensorFlow's MKL build makes the same pair).
Why: Deep MNIST's two poolings (64x28x28x32 and 64x14x14x64, 2x2/2) ran that second forward
pooling in each step: their gradients took 0.82 and 0.44 ms with it (arrays out of cache, 2
AVX-512 cores), against 0.16 and 0.05 ms for the forward poolings alone.
"""

from __future__ import annotations

from ...framework import dtypes
from ...framework.registry import get_registration, kernel_for
from ...ops.runtime_ops import MAX_POOL_GRAD_WITH_WORKSPACE, MAX_POOL_WITH_WORKSPACE
from ..partition import Node
from .common import Nodes

def applies() -> bool:
    """Whether a compiled library's kernels serve the pair on CPU."""
    return kernel_for(MAX_POOL_WITH_WORKSPACE, "CPU") is not get_registration(MAX_POOL_WITH_WORKSPACE)


def run(plan: Nodes) -> int:
    """Rewrites each pooling that has a matching gradient, and its gradients; how many poolings."""
    nodes, devices = plan.nodes, plan.devices
    at = {node.name: i for i, node in enumerate(nodes)}
    grads: dict[int, list[int]] = {}  # pooling -> its gradients
    for j, grad in enumerate(nodes):
        if grad.type != "MaxPoolGrad" or len(grad.inputs) != 3 or any(grad.input_is_ref):
            continue
        i = at.get(grad.inputs[1][0])
        if i is None or grad.inputs[1][1] != 0 or not _pools(nodes[i], grad, plan) or devices[i] is not devices[j]:
            continue
        grads.setdefault(i, []).append(j)
    replaced: dict[int, list[Node]] = {}
    for i, users in grads.items():
        pool = nodes[i]
        replaced[i] = [Node(pool.name, MAX_POOL_WITH_WORKSPACE, pool.attrs, pool.inputs, pool.input_is_ref, 2,
                            pool.op)]
        for j in users:
            grad = nodes[j]
            x, y, g = grad.inputs
            replaced[j] = [Node(grad.name, MAX_POOL_GRAD_WITH_WORKSPACE, grad.attrs, [x, y, (pool.name, 1), g],
                                [False] * 4, 1, grad.op)]
    if replaced:
        plan.edit(replaced)
    return len(grads)


def _pools(pool: Node, grad: Node, plan: Nodes) -> bool:
    """Whether ``grad`` is the gradient of the float32 2-D pooling ``pool`` of its own input."""
    if pool.type != "MaxPool" or pool.inputs[:1] != grad.inputs[:1] or (pool.name, 0) in plan.fed:
        return False
    if pool.op is None or pool.op.outputs[0].dtype.base_dtype != dtypes.float32:
        return False
    if any(list(pool.attrs.get(k, ())) != list(grad.attrs.get(k, ())) for k in ("ksize", "strides")) \
            or _text(pool.attrs.get("padding")) != _text(grad.attrs.get("padding")):
        return False
    ksize, strides = list(pool.attrs.get("ksize", ())), list(pool.attrs.get("strides", ()))
    return _text(pool.attrs.get("data_format", "NHWC")) == "NHWC" and len(ksize) == len(strides) == 4 \
        and ksize[0] == ksize[3] == strides[0] == strides[3] == 1


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
