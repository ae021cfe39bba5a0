"""TensorInfo protos: how a SignatureDef names a tensor of the graph, and back."""

from __future__ import annotations

from ..framework import ops
from ..framework.wire import shape_to_proto
from ..ops.sparse_ops import SparseTensor
from ..protos import distflow_pb2 as pb


def build_tensor_info(tensor) -> pb.TensorInfo:
    """A TensorInfo naming ``tensor`` (a Tensor, or a SparseTensor's three), with its dtype and shape."""
    info = pb.TensorInfo()
    if isinstance(tensor, SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
        info.dtype = tensor.dtype.as_datatype_enum
        return info
    if not isinstance(tensor, ops.Tensor):
        raise TypeError(f"build_tensor_info needs a Tensor or SparseTensor, got {type(tensor).__name__}: {tensor!r}")
    info.name = tensor.name
    info.dtype = tensor.dtype.base_dtype.as_datatype_enum
    info.tensor_shape.CopyFrom(shape_to_proto(tensor.shape))
    return info


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The tensor (or SparseTensor) of ``graph`` that ``tensor_info`` names, under ``import_scope``."""
    graph = graph or ops.get_default_graph()

    def tensor(name):
        return graph.get_tensor_by_name(f"{import_scope}/{name}" if import_scope else name)

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return tensor(tensor_info.name)
    if encoding == "coo_sparse":
        sparse = tensor_info.coo_sparse
        return SparseTensor(tensor(sparse.indices_tensor_name), tensor(sparse.values_tensor_name),
                            tensor(sparse.dense_shape_tensor_name))
    raise ValueError(f"Invalid TensorInfo.encoding: {encoding}")
