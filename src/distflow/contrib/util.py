"""``tf.contrib.util``: a tensor's value when the graph alone determines it, the TensorProto
conversions, and the op types a GraphDef uses."""

from __future__ import annotations

from .._namespace import missing
from ..framework.tensor_util import make_ndarray, make_tensor_proto  # noqa: F401
from ..ops.op_util import get_static_value


def constant_value(tensor, partial=False):
    """``tensor``'s value if the graph determines it when built (``tf.get_static_value``), else None."""
    return get_static_value(tensor, partial=partial)


def ops_used_by_graph_def(graph_def) -> list[str]:
    """The sorted op types of ``graph_def``'s nodes (and of its functions', where it has any)."""
    used = {node.op for node in graph_def.node}
    for function in getattr(getattr(graph_def, "library", None), "function", ()):
        used.update(node.op for node in function.node_def)
    return sorted(used)


__getattr__ = missing("tf.contrib.util")
