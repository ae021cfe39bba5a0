"""Between Python objects and the wire: tensors, attrs and graphs as protocol buffers.

Tensor bytes travel raw in ``tensor_content``; nothing is ever pickled. Every
decoder validates what it reads and raises ``InvalidArgumentError`` on bad input,
so a malformed request becomes an error status, never a crash.
"""

from __future__ import annotations

import contextlib

import math
import os
import time
from typing import TYPE_CHECKING

import numpy as np

from . import dtypes, errors, functionalize, op_upgrades, tf_attrs, varint
from .function_body import FuncBody
from .registry import is_registered
from .tensor_shape import TensorShape
from ..protos import distflow_pb2 as pb

if TYPE_CHECKING:  # (ops.py calls this module for protos: no import at run time)
    from . import ops



def positive_int_from_env(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name}={text!r}: expected a whole number") from None
    if value <= 0:
        raise ValueError(f"{name}={text!r}: expected a positive number")
    return value


# The largest tensor a message may declare (16 GiB unless DISTFLOW_MAX_TENSOR_BYTES says
# otherwise): a bound checked before anything is allocated for it.
MAX_TENSOR_BYTES = positive_int_from_env("DISTFLOW_MAX_TENSOR_BYTES", 2**34)
# The largest request a server reads (a graph, a step's feeds): DISTFLOW_MAX_MESSAGE_BYTES,
# 16 GiB by default (a gRPC message, which protobuf caps at 2 GiB, at most that).
MAX_MESSAGE_BYTES = positive_int_from_env("DISTFLOW_MAX_MESSAGE_BYTES", 2**34)

# The typed fields a tensor filled from one value can be written in (TensorProto's splat
# form: a constant of any size costs a few bytes on the wire).
_SPLAT_FIELDS = {np.dtype(np.float32): "float_val", np.dtype(np.float64): "double_val",
                 np.dtype(np.int64): "int64_val", np.dtype(np.bool_): "bool_val",
                 **{np.dtype(t): "int_val" for t in (np.int32, np.int16, np.int8, np.uint8, np.uint16)}}


def _bad(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


# -- tensors ------------------------------------------------------------------------


def shape_to_proto(shape: TensorShape) -> pb.TensorShapeProto:
    return shape.as_proto()


def shape_from_proto(proto: pb.TensorShapeProto) -> TensorShape:
    if proto.unknown_rank:
        return TensorShape(None)
    for d in proto.dim:
        if d.size < -1:
            raise _bad(f"invalid dimension size {d.size} in a shape")
    return TensorShape([None if d.size == -1 else d.size for d in proto.dim])


def tensor_to_proto(value) -> pb.TensorProto:
    """An array as a TensorProto: numbers as raw little-endian bytes, strings in string_val."""
    return fill_tensor_proto(pb.TensorProto(), value)


def fill_tensor_proto(proto: pb.TensorProto, value) -> pb.TensorProto:
    """Writes ``value`` into ``proto`` in place (a message field: no copy of the message)."""
    arr = np.asarray(value)
    for d in arr.shape:
        proto.tensor_shape.dim.add(size=d)
    if arr.dtype.kind in "USO":
        proto.dtype = pb.DT_STRING
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in arr.reshape(-1))
        return proto
    proto.dtype = dtypes.as_dtype(arr.dtype).as_datatype_enum
    field = _SPLAT_FIELDS.get(arr.dtype.newbyteorder("="))
    if field is not None and arr.size > 1 and not any(arr.strides):  # one value broadcast: sent as one
        getattr(proto, field).append(arr.reshape(-1)[0].item())
        return proto
    little = arr if arr.dtype.byteorder in "<|" or (arr.dtype.byteorder == "=" and np.little_endian) \
        else arr.astype(arr.dtype.newbyteorder("<"))
    proto.tensor_content = little.tobytes()
    return proto


def tensor_from_proto(proto: pb.TensorProto, writable: bool = False) -> np.ndarray:
    """The array a TensorProto holds; a malformed proto is an InvalidArgumentError."""
    try:
        dtype = dtypes.as_dtype(int(proto.dtype))
    except TypeError:
        raise _bad(f"unsupported tensor dtype enum {proto.dtype}") from None
    if dtype.is_ref_dtype:
        raise _bad("a tensor on the wire cannot have a reference dtype")
    shape = shape_from_proto(proto.tensor_shape)
    if not shape.is_fully_defined():
        raise _bad(f"a tensor on the wire needs a fully defined shape, got {shape}")
    dims = shape.as_list()
    n = math.prod(dims)
    if dtype == dtypes.string:
        if len(proto.string_val) != n:
            raise _bad(f"string tensor of shape {dims} holds {len(proto.string_val)} values")
        out = np.empty(n, dtype=object)
        out[:] = list(proto.string_val)
        return out.reshape(dims)
    np_dtype = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
    if n * np_dtype.itemsize > MAX_TENSOR_BYTES:
        raise _bad(f"tensor of shape {dims} is too large")
    if proto.tensor_content:
        if len(proto.tensor_content) != n * np_dtype.itemsize:
            raise _bad(f"tensor_content has {len(proto.tensor_content)} bytes; shape {dims} of "
                       f"{dtype.name} needs {n * np_dtype.itemsize}")
        arr = np.frombuffer(proto.tensor_content, dtype=np_dtype).reshape(dims)
        arr = arr.astype(np_dtype.newbyteorder("="), copy=writable)
        return arr
    values = {dtypes.float32: proto.float_val, dtypes.float64: proto.double_val, dtypes.int64: proto.int64_val,
              dtypes.bool: proto.bool_val, dtypes.float16: proto.half_val}.get(dtype, proto.int_val)
    if dtype == dtypes.float16:
        values = np.array(values, np.uint16).view(np.float16)
    if len(values) not in (n, 1) and not (n == 0 and len(values) == 0):
        raise _bad(f"tensor of shape {dims} holds {len(values)} values")
    arr = np.array(values, dtype=dtype.as_numpy_dtype)
    if arr.size == 1 and n != 1:
        # One value for the whole shape: a read-only broadcast of it, which costs no memory
        # however large the shape it declares (a kernel reading it makes what it computes).
        return np.broadcast_to(arr.reshape(()), dims).copy() if writable else np.broadcast_to(arr.reshape(()), dims)
    return arr.reshape(dims)


# -- attrs --------------------------------------------------------------------------


def attr_to_proto(value) -> pb.AttrValue:
    if isinstance(value, bool):
        return pb.AttrValue(b=value)
    if isinstance(value, (int, np.integer)):
        return pb.AttrValue(i=int(value))
    if isinstance(value, (float, np.floating)):
        return pb.AttrValue(f=float(value))
    if isinstance(value, str):
        return pb.AttrValue(s=value.encode())
    if isinstance(value, bytes):
        return pb.AttrValue(s=value)
    if isinstance(value, dtypes.DType):
        return pb.AttrValue(type=value.as_datatype_enum)
    if isinstance(value, TensorShape):
        return pb.AttrValue(shape=shape_to_proto(value))
    if isinstance(value, np.ndarray):
        return pb.AttrValue(tensor=tensor_to_proto(value))
    if isinstance(value, FuncBody):
        return pb.AttrValue(function_body=pb.FunctionBody(
            op=value.ops, feed_name=[k for k, _ in value.feeds], feed_position=[p for _, p in value.feeds],
            output=value.outputs))
    if isinstance(value, (list, tuple)):
        lst = pb.AttrValue.ListValue()
        for v in value:
            if isinstance(v, bool):
                lst.b.append(v)
            elif isinstance(v, (int, np.integer)):
                lst.i.append(int(v))
            elif isinstance(v, float):
                lst.f.append(v)
            elif isinstance(v, (str, bytes)):
                lst.s.append(v.encode() if isinstance(v, str) else v)
            elif isinstance(v, dtypes.DType):
                lst.type.append(v.as_datatype_enum)
            elif isinstance(v, TensorShape):
                lst.shape.append(shape_to_proto(v))
            elif isinstance(v, np.ndarray):
                lst.tensor.append(tensor_to_proto(v))
            else:
                raise TypeError(f"cannot encode list attr element {v!r}")
        return pb.AttrValue(list=lst)
    raise TypeError(f"cannot encode attr value {value!r} of type {type(value).__name__}")


def attr_from_proto(proto: pb.AttrValue):
    kind = proto.WhichOneof("value")
    if kind == "s":
        try:
            return proto.s.decode()
        except UnicodeDecodeError:
            return proto.s
    if kind in ("i", "f", "b"):
        return getattr(proto, kind)
    if kind == "type":
        try:
            return dtypes.as_dtype(int(proto.type))
        except TypeError:
            raise _bad(f"unknown dtype enum {proto.type} in an attr") from None
    if kind == "shape":
        return shape_from_proto(proto.shape)
    if kind == "tensor":
        arr = tensor_from_proto(proto.tensor)
        arr.flags.writeable = False
        return arr
    if kind == "function_body":
        body = proto.function_body
        if len(body.feed_name) != len(body.feed_position):
            raise _bad("a function body attr has different numbers of feed names and positions")
        return FuncBody(body.op, zip(body.feed_name, body.feed_position), body.output)
    if kind == "list":
        lst = proto.list
        for field in ("s", "i", "f", "b", "type", "shape", "tensor"):
            values = getattr(lst, field)
            if len(values):
                if field == "tensor":
                    return [tensor_from_proto(v) for v in values]
                if field == "s":
                    return [v.decode() for v in values]
                if field == "type":
                    return [dtypes.as_dtype(int(v)) for v in values]
                if field == "shape":
                    return [shape_from_proto(v) for v in values]
                return list(values)
        return []
    raise _bad(f"unsupported attr kind {kind!r}")


# -- graphs -------------------------------------------------------------------------


# TF 1.15's GraphDef version: what a TensorFlow reading distflow's GraphDefs expects.
GRAPH_DEF_VERSION = 26
GRAPH_DEF_VERSION_MIN_CONSUMER = 0


def _fill_node(node: pb.NodeDef, op, add_shapes: bool = False) -> None:
    node.name = op.name
    node.op = op.type
    node.device = op.device
    node.input.extend([t._as_node_def_input() for t in op.inputs] + [f"^{c.name}" for c in op.control_inputs])
    for key, value in op._attrs.items():
        node.attr[key].CopyFrom(attr_to_proto(value))
    # (TensorFlow's attrs naming its arguments' dtypes and counts: so that TensorFlow imports it)
    for key, value in tf_attrs.tensorflow_attrs(op.type, list(op.inputs), list(op.outputs), op._attrs).items():
        node.attr[key].CopyFrom(attr_to_proto(value))
    if add_shapes:
        node.attr["_output_shapes"].CopyFrom(attr_to_proto([t.shape for t in op.outputs]))


def partition_to_proto(nodes, device: str) -> pb.GraphDef:
    """A partition's nodes (runtime Nodes: name, type, attrs, (name, index) inputs) as a GraphDef."""
    graph_def = pb.GraphDef()
    graph_def.versions.producer = GRAPH_DEF_VERSION
    for node in nodes:
        proto = graph_def.node.add(name=node.name, op=node.type, device=device)
        proto.input.extend(f"^{name}" if index < 0 else (name if index == 0 else f"{name}:{index}")
                           for name, index in node.inputs)
        for key, value in node.attrs.items():
            try:
                proto.attr[key].CopyFrom(attr_to_proto(value))
            except TypeError:  # a runtime-only attr (a kernel's Python state): named, not encoded
                proto.attr[key].s = type(value).__name__.encode()
    return graph_def


def node_to_proto(op) -> pb.NodeDef:
    node = pb.NodeDef()
    _fill_node(node, op)
    return node


def graph_to_proto(operations, add_shapes: bool = False) -> pb.GraphDef:
    """A GraphDef of ``operations`` (a Graph's ops, in order).

    Each op's NodeDef is kept serialized on the op with what it was made from (its device,
    inputs, control inputs, attrs and, with ``add_shapes``, its outputs' shapes, compared
    by identity), so that a graph saved again (a Saver writes its meta graph at every
    save) serializes only what changed; the GraphDef is parsed from the joined bytes at
    once. A char-RNN's 660 ops: 44 ms the first time, 3 ms after."""
    parts = []
    for op in operations:
        data = _node_bytes(op, add_shapes)
        parts += (_NODE_TAG, varint.encode(len(data)), data)
    graph_def = pb.GraphDef.FromString(b"".join(parts))
    graph_def.versions.producer = GRAPH_DEF_VERSION
    graph_def.versions.min_consumer = GRAPH_DEF_VERSION_MIN_CONSUMER
    return graph_def


_NODE_TAG = bytes([1 << 3 | 2])  # (GraphDef.node: field 1, length-delimited)


def _node_bytes(op, add_shapes: bool) -> bytes:
    """``op``'s NodeDef, serialized: made again only where its device, inputs, control
    inputs, attrs or (with ``add_shapes``) output shapes are not the objects it was made
    from (every change to an op or a shape replaces one of them: attr values and shapes
    are not changed in place)."""
    attrs = op._attrs
    source = (op._device, op._inputs, tuple(op._control_inputs), tuple(attrs), tuple(attrs.values()),
              tuple(t._shape for t in op._outputs) if add_shapes else ())
    cached = op._node_def
    if cached is not None and cached[0] is add_shapes:
        old = cached[1]
        if (old[0] == source[0] and old[1] is source[1] and old[3] == source[3] and len(old[2]) == len(source[2])
                and all(a is b for a, b in zip(old[2], source[2])) and all(a is b for a, b in zip(old[4], source[4]))
                and all(a is b for a, b in zip(old[5], source[5]))):
            return cached[2]
    node = pb.NodeDef()
    _fill_node(node, op, add_shapes)
    data = node.SerializeToString()
    op._node_def = (add_shapes, source, data)
    return data


# TensorFlow 1.x's control-flow primitives: conds and loops are rewritten as If and While
# nodes on import (functionalize.py).
TF1_CONTROL_FLOW_OPS = functionalize.LOOP_OPS | functionalize.COND_OPS


def _parse_input(text: str) -> tuple[str, int]:
    if text.startswith("^"):
        return text[1:], -1
    name, _, index = text.partition(":")
    if not name:
        raise _bad(f"empty input name {text!r}")
    try:
        return name, int(index) if index else 0
    except ValueError:
        raise _bad(f"bad input {text!r}: the output index must be an integer") from None


def import_graph_def(graph_def: pb.GraphDef, graph: ops.Graph, existing: bool = False, prefix: str = "",
                     input_map=None) -> list[ops.Operation]:
    """Adds the nodes of ``graph_def`` to ``graph`` with their names (behind ``prefix``) and devices.

    Nodes may come in any order; inputs may name nodes already in ``graph``
    (``existing``: for a graph extended in steps). ``input_map`` maps an input's name in
    ``graph_def`` ("x:0") to a Tensor of ``graph`` that replaces it.

    Raises:
      InvalidArgumentError: an unknown op type, a dangling or cyclic input, a bad attr,
        or a node the shape functions reject.
    """
    input_map = dict(input_map or {})
    nodes = {}
    kinds = {node.op for node in graph_def.node}
    if kinds & TF1_CONTROL_FLOW_OPS:  # (TF 1.x's conds and loops: as If and While nodes)
        graph_def = functionalize.functionalize(graph_def)
    graph_def = op_upgrades.upgrade(graph_def, tensor_to_proto, tensor_from_proto)  # (TensorFlow's older names)
    for node in graph_def.node:
        if not node.name or node.name in nodes:
            raise _bad(f"node name {node.name!r} is empty or repeated")
        if not is_registered(node.op):
            raise _bad(f"node '{node.name}' has an unknown op type {node.op!r}")
        nodes[node.name] = node

    def mapped(text):
        src, index = _parse_input(text)
        return input_map.get(f"{src}:{index}") if index >= 0 else None

    replaced = {name: tensor.name for name, tensor in input_map.items()}

    created: dict[str, ops.Operation] = {}
    colocations: dict = {}  # an op made here -> the names of the ops it is colocated with
    order, state = [], {}
    for root in nodes:
        stack = [(root, False)]
        while stack:
            name, done = stack.pop()
            if done:
                state[name] = 2
                order.append(name)
                continue
            if state.get(name) == 2:
                continue
            if state.get(name) == 1:
                raise _bad(f"the graph has a cycle through node '{name}'")
            state[name] = 1
            stack.append((name, True))
            for text in nodes[name].input:
                src, _ = _parse_input(text)
                if mapped(text) is not None:
                    continue
                if src in nodes:
                    if state.get(src) == 1:
                        raise _bad(f"the graph has a cycle through node '{src}'")
                    if state.get(src) != 2:
                        stack.append((src, False))
                elif not existing or src not in graph._nodes_by_name:
                    raise _bad(f"node '{name}' has input '{text}', which is not in the graph")
    with graph.as_default():
        for name in order:
            node = nodes[name]
            full_name = prefix + name
            if full_name in graph._nodes_by_name:
                raise _bad(f"node '{full_name}' is already in the graph")
            inputs, control = [], []
            for text in node.input:
                replacement = mapped(text)
                if replacement is not None:
                    inputs.append(replacement)
                    continue
                src, index = _parse_input(text)
                op = created.get(src) or graph._nodes_by_name[src]
                if index == -1:
                    control.append(op)
                elif not 0 <= index < len(op.outputs):
                    raise _bad(f"node '{name}' reads output {index} of '{src}', which has {len(op.outputs)}")
                else:
                    inputs.append(op.outputs[index])
            attrs = {key: attr_from_proto(value) for key, value in node.attr.items() if key != "_output_shapes"}
            if prefix or input_map:  # a control-flow op's function names ops of this import, and mapped inputs
                attrs = {key: value.renamed(lambda n: prefix + n if n in nodes else n, replaced)
                         if isinstance(value, FuncBody) else value for key, value in attrs.items()}
            if prefix and "_class" in attrs:  # colocation with a node of this import keeps pointing at it
                attrs["_class"] = [f"loc:@{prefix}{g[5:]}" if g.startswith("loc:@") and g[5:] in nodes else g
                                   for g in attrs["_class"]]
            # Where the node goes, as TensorFlow's importer decides it: a node colocated with
            # others takes their device (below); any other gets its own device inside the
            # caller's device scopes (its fields win), so that `with tf.device(...)` and a
            # replica_device_setter place an imported graph (import_meta_graph with
            # clear_devices=True, then variables on the ps tasks).
            colocated = [g[5:] for g in attrs.get("_class", ()) if isinstance(g, str) and g.startswith("loc:@")
                         and g[5:] != full_name]
            try:
                scope = graph.device(None) if colocated else graph.device(node.device) if node.device else \
                    contextlib.nullcontext()
            except ValueError as e:
                raise _bad(f"node '{name}' has a bad device {node.device!r}: {e}") from None
            try:
                with graph.control_dependencies(None), scope:
                    op = graph.create_op(node.op, inputs, attrs, name=full_name + "/", control_inputs=control)
            except (ValueError, TypeError, KeyError, IndexError, AttributeError) as e:
                # (an attr of another kind than the op takes shows as an AttributeError or TypeError)
                raise _bad(f"cannot build node '{name}' ({node.op}): {type(e).__name__}: {e}") from None
            if colocated:
                colocations[op] = colocated
            created[name] = op
        for op, names in colocations.items():
            devices = [graph._nodes_by_name[n].device for n in names if n in graph._nodes_by_name]
            device = next((d for d in devices if d), "")
            if device:
                op._set_device(device)
    return [created[name] for name in order]


def step_stats(kernels, devices=()) -> pb.StepStats:
    """A traced step's kernel calls (``executor.KernelTime``) as a StepStats, one
    DeviceStepStats per device (each of ``devices`` the step ran on, those first, even where
    no kernel was called: a step of constants), calls in the order they started."""
    # perf_counter_ns is monotonic with an arbitrary origin: anchor it to the wall clock
    offset_ns = time.time_ns() - time.perf_counter_ns()
    stats = pb.StepStats()
    by_device: dict = {device: stats.dev_stats.add(device=device) for device in devices}
    for k in sorted(kernels, key=lambda k: k.start_ns):
        dev = by_device.get(k.device)
        if dev is None:
            dev = by_device[k.device] = stats.dev_stats.add(device=k.device)
        start_ns = k.start_ns + offset_ns
        took_ns = k.end_ns - k.start_ns
        dev.node_stats.add(node_name=k.node_name, all_start_micros=start_ns // 1000, op_start_rel_micros=0,
                           op_end_rel_micros=took_ns // 1000, all_end_rel_micros=took_ns // 1000,
                           timeline_label=f"{k.node_name} = {k.op_type}()", thread_id=k.thread_id & 0xFFFFFFFF,
                           all_start_nanos=start_ns, op_start_rel_nanos=0, op_end_rel_nanos=took_ns,
                           all_end_rel_nanos=took_ns)
    return stats
