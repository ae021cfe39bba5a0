"""TensorFlow's older or other names for ops distflow runs, rewritten when a GraphDef is imported.

A GraphDef that TensorFlow wrote may hold an op under a name TensorFlow has since replaced
(``Add`` before ``AddV2``, ``Concat`` before ``ConcatV2``, ``TopK`` with ``k`` an attr), or
under a name and form of its own for what distflow builds from one general op
(``ResizeBilinear`` for ``ResizeImage`` with its method; TensorFlow's first ``ParseExample``,
with its keys and defaults as inputs, where distflow's takes them as attrs and orders its
outputs otherwise: the node's readers are re-pointed). Each
such node becomes the op distflow registers, under the node's own name, so that every
reader, kernel (on every device), gradient and rewrite of that op applies. An attr that the
newer op takes as an input becomes a constant node named ``<node>/<input>``. A node that
cannot be rewritten (``Reverse`` whose dims are computed, a diagonal op with a band ``k``)
is an UnimplementedError naming it.

Re-exported, such a graph holds the newer names, which TensorFlow reads too.
"""

from __future__ import annotations

import numpy as np

from . import dtypes, errors
from ..protos import distflow_pb2 as pb

_FLOATING = {dtypes.as_dtype(t).as_datatype_enum for t in ("float16", "float32", "float64", "complex64", "complex128")}
_RESIZE_METHODS = {"ResizeBilinear": 0, "ResizeNearestNeighbor": 1, "ResizeBicubic": 2, "ResizeArea": 3}


def _refused(node: pb.NodeDef, why: str) -> errors.UnimplementedError:
    return errors.UnimplementedError(None, None, f"node '{node.name}' ({node.op}): {why}")


class _Upgrader:
    def __init__(self, graph_def: pb.GraphDef, tensor_to_proto, tensor_from_proto):
        self.tensor_to_proto, self.tensor_from_proto = tensor_to_proto, tensor_from_proto
        self.by_name = {n.name: n for n in graph_def.node}
        self.added: list[pb.NodeDef] = []
        self.outputs: dict[str, str] = {}  # "node:k" -> "node:j", for a node whose outputs are reordered
        self.function_of = {}  # node -> the FunctionBody (of an If or While node) listing it
        for node in graph_def.node:
            for value in node.attr.values():
                if value.WhichOneof("value") == "function_body":
                    for name in value.function_body.op:
                        self.function_of[name] = value.function_body

    def constant(self, node: pb.NodeDef, what: str, value) -> str:
        """A new Const node ``<node>/<what>`` holding ``value``, in the function ``node`` is in
        (if any); its tensor's name."""
        const = pb.NodeDef(name=f"{node.name}/{what}", op="Const", device=node.device)
        array = np.asarray(value)
        const.attr["dtype"].type = dtypes.as_dtype(array.dtype).as_datatype_enum
        const.attr["value"].tensor.CopyFrom(self.tensor_to_proto(array))
        self.added.append(const)
        body = self.function_of.get(node.name)
        if body is not None:  # (listed just before the node it feeds)
            names = list(body.op)
            names.insert(names.index(node.name), const.name)
            del body.op[:]
            body.op.extend(names)
            self.function_of[const.name] = body
        return f"{const.name}:0"

    def constant_value(self, node: pb.NodeDef, index: int):
        """The value of input ``index`` of ``node`` where it is a Const node's (or an Identity or
        a Reshape of one, to a constant shape: how TensorFlow hands parse_example its defaults),
        else None."""
        text = node.input[index]
        source = self.by_name.get(text.split(":")[0])
        if source is None or (":" in text and not text.endswith(":0")):
            return None
        if source.op == "Const":
            return self.tensor_from_proto(source.attr["value"].tensor)
        if source.op in ("Identity", "Reshape"):
            value = self.constant_value(source, 0)
            shape = self.constant_value(source, 1) if source.op == "Reshape" else None
            if value is None or (source.op == "Reshape" and shape is None):
                return None
            return value if shape is None else np.reshape(value, [int(d) for d in np.asarray(shape).reshape(-1)])
        return None


def _renamed(new_type: str, drop=()):
    def upgrade(node, up):
        node.op = new_type
        for key in drop:
            if key in node.attr:
                del node.attr[key]
    return upgrade


def _div(node, up):
    node.op = "RealDiv" if node.attr["T"].type in _FLOATING else "TruncateDiv"


def _gather(node, up):
    data = [t for t in node.input if not t.startswith("^")]
    control = [t for t in node.input if t.startswith("^")]
    axis = up.constant(node, "axis", np.int32(0))
    del node.input[:]
    node.input.extend(data + [axis] + control)
    node.op = "GatherV2"
    node.attr["Taxis"].type = dtypes.int32.as_datatype_enum
    if "validate_indices" in node.attr:
        del node.attr["validate_indices"]


def _concat(node, up):
    data = [t for t in node.input if not t.startswith("^")]
    control = [t for t in node.input if t.startswith("^")]
    del node.input[:]
    node.input.extend(data[1:] + data[:1] + control)
    node.op = "ConcatV2"
    node.attr["Tidx"].type = dtypes.int32.as_datatype_enum


def _attr_to_input(new_type: str, attr: str, input_name: str, dtype_of=None, drop=()):
    """``new_type`` taking attr ``attr`` as its last data input (a constant)."""
    def upgrade(node, up):
        data = [t for t in node.input if not t.startswith("^")]
        control = [t for t in node.input if t.startswith("^")]
        dtype = dtypes.as_dtype(node.attr[dtype_of].type).as_numpy_dtype if dtype_of else np.int32
        value = up.constant(node, input_name, np.asarray(node.attr[attr].i, dtype))
        del node.input[:]
        node.input.extend(data + [value] + control)
        node.op = new_type
        for key in (attr,) + tuple(drop):
            if key in node.attr:
                del node.attr[key]
    return upgrade


def _reverse(node, up):
    dims = up.constant_value(node, 1)
    if dims is None:
        raise _refused(node, "its dims are computed; distflow takes them only as a constant (ReverseV2 takes axes)")
    axis = up.constant(node, "axis", np.flatnonzero(np.asarray(dims)).astype(np.int32))
    node.input[1] = axis
    node.op = "ReverseV2"
    node.attr["Tidx"].type = dtypes.int32.as_datatype_enum


def _max_pool_v2(new_type: str, first_window_input: int):
    def upgrade(node, up):
        windows = [up.constant_value(node, first_window_input + k) for k in (0, 1)]
        if any(w is None for w in windows):
            raise _refused(node, "its ksize or strides are computed; distflow takes them only as constants")
        data = [t for t in node.input if not t.startswith("^")][:first_window_input]
        control = [t for t in node.input if t.startswith("^")]
        del node.input[:]
        node.input.extend(data + control)
        node.op = new_type
        node.attr["ksize"].list.i.extend([int(v) for v in windows[0]])
        node.attr["strides"].list.i.extend([int(v) for v in windows[1]])
    return upgrade


def _ftrl(new_type: str, before: int):
    """ApplyFtrl and SparseApplyFtrl: their V2 with an l2_shrinkage of 0."""
    def upgrade(node, up):
        data = [t for t in node.input if not t.startswith("^")]
        control = [t for t in node.input if t.startswith("^")]
        zero = up.constant(node, "l2_shrinkage", np.zeros((), dtypes.as_dtype(node.attr["T"].type).as_numpy_dtype))
        del node.input[:]
        node.input.extend(data[:before] + [zero] + data[before:] + control)
        node.op = new_type
    return upgrade


def _band(new_type: str, k_input: int, defaults: dict):
    """MatrixDiagV3 and its kin: the main diagonal only (``k`` 0, default sizes and padding)."""
    def upgrade(node, up):
        k = up.constant_value(node, k_input)
        if k is None or np.any(np.asarray(k) != 0):
            raise _refused(node, "distflow takes the main diagonal only (k = 0, a constant)")
        for index, want in defaults.items():
            value = up.constant_value(node, index)
            if value is None or np.any(np.asarray(value) != want):
                raise _refused(node, f"input {index} must be the constant {want} (the main diagonal's default)")
        data = [t for t in node.input if not t.startswith("^")][:k_input]
        control = [t for t in node.input if t.startswith("^")]
        del node.input[:]
        node.input.extend(data + control)
        node.op = new_type
        if "align" in node.attr:
            del node.attr["align"]
    return upgrade


def _resize(node, up):
    method = _RESIZE_METHODS[node.op]
    node.op = "ResizeImage"
    node.attr["method"].i = method
    node.attr["align_corners"].b = node.attr["align_corners"].b  # (set: ResizeImage has no default for it)
    if method == 3 and "half_pixel_centers" in node.attr:
        del node.attr["half_pixel_centers"]
    if "T" in node.attr:
        del node.attr["T"]


def _resize_grad(node, up):
    node.op = "ResizeImageGrad"
    node.attr["method"].i = 0
    node.attr["align_corners"].b = node.attr["align_corners"].b  # (set: ResizeImageGrad has no default for it)
    if "T" in node.attr:
        del node.attr["T"]


def _strings(value) -> list:
    return [v.decode() if isinstance(v, bytes) else str(v) for v in np.asarray(value, dtype=object).reshape(-1)]


def _parse_example(node, up):
    """TensorFlow's first ParseExample (a key and a default per input) as distflow's ParseExample
    (keys and defaults as attrs, the dense values first and then each sparse feature's
    indices, values and shape). (ParseExampleV2, which TF 1.15 and later write, and which
    distflow's parse_example builds, runs as it is.)"""
    if "dense_keys" in node.attr:  # (distflow's own)
        return
    data = [t for t in node.input if not t.startswith("^")]
    control = [t for t in node.input if t.startswith("^")]
    num_sparse, num_dense = node.attr["Nsparse"].i, node.attr["Ndense"].i
    values = [up.constant_value(node, 2 + k) for k in range(num_sparse + 2 * num_dense)]
    if any(v is None for v in values):
        raise _refused(node, "its feature keys or defaults are computed; distflow takes them only as constants")
    sparse_keys = [key for v in values[:num_sparse] for key in _strings(v)]
    dense_keys = [key for v in values[num_sparse:num_sparse + num_dense] for key in _strings(v)]
    defaults = values[num_sparse + num_dense:]
    proto = pb.NodeDef(name=node.name, op="ParseExample", device=node.device)
    proto.input.extend(data[:1] + control)
    proto.attr["dense_keys"].list.s.extend([k.encode() for k in dense_keys])
    proto.attr["Tdense"].list.type.extend(node.attr["Tdense"].list.type)
    proto.attr["dense_shapes"].list.shape.extend(node.attr["dense_shapes"].list.shape)
    proto.attr["defaults"].list.tensor.extend([up.tensor_to_proto(np.asarray(d)) for d in defaults])
    proto.attr["has_default"].list.b.extend([np.asarray(d).size > 0 for d in defaults])
    proto.attr["sparse_keys"].list.s.extend([k.encode() for k in sparse_keys])
    proto.attr["Tsparse"].list.type.extend(node.attr["sparse_types"].list.type)
    node.CopyFrom(proto)
    for i in range(num_sparse):  # (TensorFlow's order: every sparse index, value, shape, then the dense values)
        for part in range(3):
            up.outputs[f"{node.name}:{part * num_sparse + i}"] = f"{node.name}:{num_dense + 3 * i + part}"
    for j in range(num_dense):
        up.outputs[f"{node.name}:{3 * num_sparse + j}"] = f"{node.name}:{j}"


UPGRADES = {
    "Add": _renamed("AddV2"),
    "BiasAddV1": _renamed("BiasAdd"),
    "Div": _div,
    "Mod": _renamed("TruncateMod"),
    "Inv": _renamed("Reciprocal"),
    "InvGrad": _renamed("ReciprocalGrad"),
    "PlaceholderV2": _renamed("Placeholder"),
    "RefIdentity": _renamed("Identity"),
    "GuaranteeConst": _renamed("Identity"),
    "CheckNumericsV2": _renamed("CheckNumerics"),
    "Unique": _renamed("UniqueWithCounts"),
    "Gather": _gather,
    "Concat": _concat,
    "TopK": _attr_to_input("TopKV2", "k", "k"),
    "InTopK": _attr_to_input("InTopKV2", "k", "k", dtype_of="T"),
    "Reverse": _reverse,
    "MaxPoolV2": _max_pool_v2("MaxPool", 1),
    "MaxPoolGradV2": _max_pool_v2("MaxPoolGrad", 3),
    "ApplyFtrl": _ftrl("ApplyFtrlV2", 7),
    "SparseApplyFtrl": _ftrl("SparseApplyFtrlV2", 8),
    "MatrixDiagV2": _band("MatrixDiag", 1, {2: -1, 3: -1, 4: 0}),
    "MatrixDiagV3": _band("MatrixDiag", 1, {2: -1, 3: -1, 4: 0}),
    "MatrixSetDiagV2": _band("MatrixSetDiag", 2, {}),
    "MatrixSetDiagV3": _band("MatrixSetDiag", 2, {}),
    "MatrixDiagPartV2": _band("MatrixDiagPart", 1, {2: 0}),
    "MatrixDiagPartV3": _band("MatrixDiagPart", 1, {2: 0}),
    "ResizeBilinear": _resize,
    "ResizeNearestNeighbor": _resize,
    "ResizeBicubic": _resize,
    "ResizeArea": _resize,
    "ResizeBilinearGrad": _resize_grad,
    "ParseExample": _parse_example,
}


def upgrade(graph_def: pb.GraphDef, tensor_to_proto, tensor_from_proto) -> pb.GraphDef:
    """``graph_def`` with the nodes of UPGRADES rewritten (a new GraphDef; the argument is
    unchanged), or ``graph_def`` itself where it holds none. The two functions convert
    between arrays and TensorProtos (wire.py's)."""
    if not any(node.op in UPGRADES for node in graph_def.node):
        return graph_def
    out = pb.GraphDef()
    out.CopyFrom(graph_def)
    up = _Upgrader(out, tensor_to_proto, tensor_from_proto)
    for node in out.node:
        rewrite = UPGRADES.get(node.op)
        if rewrite is not None:
            rewrite(node, up)
    taken = set(up.by_name)
    for const in up.added:
        if const.name in taken:
            raise errors.InvalidArgumentError(None, None, f"Cannot rewrite TensorFlow's older ops: the graph already "
                                              f"has a node named '{const.name}'")
        taken.add(const.name)
    out.node.extend(up.added)
    if up.outputs:  # (readers of reordered outputs, in functions too)
        def renamed(text):
            return up.outputs.get(text if ":" in text else f"{text}:0", text)
        for node in out.node:
            names = [renamed(t) for t in node.input]
            del node.input[:]
            node.input.extend(names)
            for value in node.attr.values():
                if value.WhichOneof("value") == "function_body":
                    body = value.function_body
                    for field in (body.feed_name, body.output):
                        names = [renamed(t) for t in field]
                        del field[:]
                        field.extend(names)
    return out
