"""Gradient sums: towers' products of a weight's gradient, summed and scaled, as one array.

Matches: ``c * (t0 + t1 + ...)`` -- an ``AddN`` of two or more terms, under a ``RealDiv``
or ``Mul`` by a scalar constant or not, the ``AddN`` read by nothing else -- where some
terms are ``MatMul`` nodes of the same device that nothing else reads: the average of
the towers' ``x_i^T @ dy_i`` that in-graph replication forms for each weight (what is left
after update_fusion, which takes those that plain gradient descent applies). Not where a
term is received from another partition (early_compute.py computes the products early
instead), nor where a term is a variable's reference.
Produces: one ``_ScaledSumOfProducts`` (ops/runtime_ops.py) under the name of the scale
(or of the sum): the first product written by one GEMM with ``alpha = c``, each other
product added into it by a GEMM with beta = 1, each other term by an AXPY. Where the
products' rows are consecutive blocks of two arrays (replicas merged by replica_merge),
one GEMM over all of them; where they are few beside the result, one GEMM over copies of
them stacked (the kernel decides, with the arrays in hand).
Why: the sum and the scale are each a pass over the weight's memory. Deep MNIST in-graph on
2 CPU devices (batch 64, the 3136x1024 layer's gradient: 12.8 MB) spent 2.3 ms a step
in the AddN and 1.65 ms in the division, of a 35 ms step on a 2-core Xeon VM.
"""

from __future__ import annotations

from ...ops.runtime_ops import SUM_OF_PRODUCTS
from ..partition import Node
from .common import Nodes, Terms, product_operands


def run(plan: Nodes) -> int:
    """Fuses every matching sum; how many."""
    terms = Terms(plan)
    replaced: dict[int, list[Node]] = {}
    # (from the last node back: a scale is met before the sum under it, and takes it)
    for i in range(len(plan.nodes) - 1, -1, -1):
        node = plan.nodes[i]
        if node.type not in ("RealDiv", "Mul", "AddN") or i in terms.taken:
            continue
        removed, scale, keys, refs = terms.sum_at(node, (node.name, 0), False)
        if not removed or removed[-1].type != "AddN" or len(keys) < 2 or any(refs):
            continue
        products, others = terms.products(keys, plan.devices[i])
        if not products:
            continue
        operands, is_ref, transposes = product_operands(products, others)
        replaced[i] = [Node(node.name, SUM_OF_PRODUCTS, {"transposes": transposes, "scale": scale}, operands,
                            is_ref, 1, node.op)]
        terms.fused([r for r in removed + products if r is not node])
    if replaced:
        plan.edit(replaced, terms.taken)
    return len(replaced)
