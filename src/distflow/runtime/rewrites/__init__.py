"""Rewrites made when a plan is compiled (TensorFlow's Grappler, for a few patterns).

Each pass is a module with ``run(plan) -> int`` (how many rewrites it made; it changes
``plan`` in place) and a docstring that says what it matches, what it produces and why,
with the measurement that justified it. ``PASSES`` is the pipeline: the passes in the
order they run, each with the option that turns it on and, where it has one, the
condition under which it applies. Every pass keeps each value that a fetch, another
partition or a remaining node reads, and every side effect; it only removes work whose
result nobody sees or does the same work in fewer, larger calls.

The kernels of the nodes the passes make are ops like any other, in ops/runtime_ops.py.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

from ..device import Device
from ..partition import Node
from . import (constant_folding, conv_fusion, conv_patches, dead_nodes, early_compute, gradient_sum, pool_relu_grad,
               pool_workspace, pooled_bias_grad, replica_merge, update_fusion)
from .common import Nodes, count_readers


class Pass(NamedTuple):
    name: str
    run: Callable[[Nodes], int]
    option: str  # the RewriteOptions flag that turns it on ("" for always)
    applies: Callable[[Nodes], bool] = lambda plan: True


def _host_only(plan: Nodes) -> bool:
    """The fusions make host kernels (ops/runtime_ops.py): none for a plan with real GPUs."""
    return all(d.memory == "host" for d in plan.devices)


PASSES = (
    Pass("constant_folding", constant_folding.run, "fold_constants"),
    # before replica merge: the pooled gradients it makes are row-wise ops like the others
    Pass("pool_relu_grad", pool_relu_grad.run, "fuse"),
    Pass("pooled_bias_grad", pooled_bias_grad.run, "fuse"),  # (after it: the routing it made)
    # before update fusion: it fuses the merged products
    Pass("replica_merge", replica_merge.run, "fuse", _host_only),
    Pass("update_fusion", update_fusion.run, "fuse", _host_only),
    # after update fusion: the sums that plain gradient descent applies are fused into it
    Pass("gradient_sum", gradient_sum.run, "fuse", _host_only),
    Pass("conv_fusion", conv_fusion.run, "fuse", lambda plan: _host_only(plan) and conv_fusion.applies()),
    # after replica merge and the pooled gradients' rewrites: it takes the MaxPoolGrad they leave
    Pass("pool_workspace", pool_workspace.run, "fuse", lambda plan: _host_only(plan) and pool_workspace.applies()),
    # after folding: the filter sizes are constants
    Pass("conv_patches", conv_patches.run, "fuse", lambda plan: _host_only(plan) and conv_patches.applies()),
    Pass("early_compute", early_compute.run, "fuse", lambda plan: _host_only(plan) and early_compute.applies(plan)),
    Pass("dead_nodes", dead_nodes.run, ""),  # last: drops what the others left unread
)


def optimize(nodes: list[Node], devices: list[Device], fed: dict, fetched: dict, fold_constants: bool = True,
             fuse: bool = True) -> tuple[list[Node], list[Device], dict[str, int]]:
    """``nodes`` (one partition or one whole step, in order) rewritten by ``PASSES``.

    ``fed`` and ``fetched`` are keyed by (node name, output index). Returns the nodes,
    their devices, and how many rewrites each pass that fired made.
    """
    enabled = {"": True, "fold_constants": fold_constants, "fuse": fuse}
    plan = Nodes(list(nodes), list(devices), fed, fetched, count_readers(nodes))
    fired = {}
    for p in PASSES:
        if enabled[p.option] and p.applies(plan):
            made = p.run(plan)
            if made:
                fired[p.name] = made
    return plan.nodes, plan.devices, fired
