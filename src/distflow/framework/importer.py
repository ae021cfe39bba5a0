"""``tf.import_graph_def``: a GraphDef's nodes added to the default graph under a name scope."""

from __future__ import annotations

from . import errors
from . import ops
from . import wire


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports ``graph_def`` into the default graph.

    Args:
      graph_def: a GraphDef protocol buffer (from ``as_graph_def()``, a ``.pb`` file, ...).
      input_map: maps input names of ``graph_def`` ("x:0", or "x" for output 0) to Tensors
        of the default graph that replace them.
      return_elements: names in ``graph_def`` ("op" or "op:0") whose imported Operation
        or Tensor to return.
      name: the prefix of the imported names ("import" by default; "" for none).

    Returns:
      The imported elements named by ``return_elements`` (None when it is None).

    Raises:
      ValueError: the GraphDef is malformed, an op type is unknown, or an ``input_map``
        or ``return_elements`` name is not in it.
      TypeError: ``graph_def`` is not a GraphDef or ``input_map`` maps to a non-Tensor.
    """
    if not hasattr(graph_def, "node") or not hasattr(graph_def, "SerializeToString"):
        raise TypeError(f"graph_def must be a GraphDef proto, got {type(graph_def).__name__}")
    graph = ops.get_default_graph()
    names = {node.name for node in graph_def.node}
    mapping = {}
    for key, tensor in (input_map or {}).items():
        if not isinstance(tensor, ops.Tensor):
            raise TypeError(f"input_map values must be Tensors, got {tensor!r} for {key!r}")
        key = key if ":" in key or key.startswith("^") else key + ":0"
        if key.split(":")[0] not in names:
            raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{key}]")
        mapping[key] = tensor
    with graph.name_scope(name or "import" if name != "" else None) as scope:
        prefix = scope if name != "" else ""
        try:
            wire.import_graph_def(graph_def, graph, existing=False, prefix=prefix, input_map=mapping)
        except errors.InvalidArgumentError as e:
            raise ValueError(f"Cannot import the GraphDef: {e.message}") from None
    if return_elements is None:
        return None
    out = []
    for element in return_elements:
        if element.split(":")[0] not in names:
            raise ValueError(f"Requested return_element {element!r} not found in graph_def.")
        out.append(graph.as_graph_element(prefix + element))
    return out
