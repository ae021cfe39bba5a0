"""What distflow builds otherwise than TensorFlow, written in a SavedModel as TensorFlow builds
it, so that TensorFlow's loader (and TensorFlow Serving) serves the models distflow exports;
distflow's loader runs either form.

- Feature columns' vocabulary lookups: distflow's ``VocabularyLookup`` carries its vocabulary
  as an attr and needs no initializer; TensorFlow's is a ``HashTableV2`` that an initializer
  fills (here the SavedModel's main op), read by ``LookupTableFindV2``, with out-of-vocabulary
  values hashed into their buckets by ``StringToHashBucketFast``.
- Conds: distflow's ``If`` holds its branches as function attrs TensorFlow's ``If`` cannot read;
  it becomes TF 1.x's Switch and Merge nodes (as ``tf.cond`` built them), which distflow's
  importer makes an If again. (Keras's learning-phase conds, for one.)

Each rewritten node keeps its name, so that what reads it reads the same.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, functionalize
from ..framework.wire import tensor_to_proto
from ..protos import distflow_pb2 as pb
from . import constants


def rewrite(meta) -> None:
    """``meta``'s graph (a MetaGraphDef of a SavedModel) with distflow's forms as TensorFlow's."""
    inits = _lookups(meta.graph_def)
    renamed = functionalize.conds_as_tf1(meta.graph_def)
    if renamed:  # (what names an If's outputs names its Merges')
        for signature in meta.signature_def.values():
            for info in list(signature.inputs.values()) + list(signature.outputs.values()):
                info.name = renamed.get(info.name, info.name)
        for collection in meta.collection_def.values():
            if collection.WhichOneof("kind") == "node_list":
                collection.node_list.value[:] = [renamed.get(v, v) for v in collection.node_list.value]
    if inits:  # (the tables are filled by the main op that loaders run after restoring the variables)
        key = next((k for k in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY) if k in meta.collection_def),
                   constants.MAIN_OP_KEY)
        before = list(meta.collection_def[key].node_list.value) if key in meta.collection_def else []
        group = _node(meta.graph_def, "vocabulary_tables_and_main_op", "NoOp")
        group.input.extend(f"^{n.split(':')[0]}" for n in before + inits)
        meta.collection_def[key].node_list.value[:] = [group.name]


def _node(graph_def, name: str, op: str, inputs=(), device: str = "", **attrs) -> pb.NodeDef:
    """A node added to ``graph_def``: attrs given as DTypes, bools, ints or strings, and a Const's
    ``value`` as an array."""
    node = graph_def.node.add(name=name, op=op, device=device)
    node.input.extend(inputs)
    for key, value in attrs.items():
        if key == "value":
            node.attr[key].tensor.CopyFrom(tensor_to_proto(np.asarray(value)))
        elif isinstance(value, dtypes.DType):
            node.attr[key].type = value.as_datatype_enum
        elif isinstance(value, bool):
            node.attr[key].b = value
        elif isinstance(value, (int, np.integer)):
            node.attr[key].i = int(value)
        else:
            node.attr[key].s = str(value).encode()
    return node


def _lookups(graph_def) -> list:
    """Each VocabularyLookup node as TensorFlow's lookup; the names of the tables' initializers."""
    lookups = [n for n in graph_def.node if n.op == "VocabularyLookup"]
    inits = []
    for node in lookups:
        name, device, source = node.name, node.device, node.input[0]
        control = [t for t in node.input if t.startswith("^")]
        vocabulary = list(node.attr["vocabulary"].list.s) or list(node.attr["vocabulary"].list.i)
        strings = bool(node.attr["vocabulary"].list.s) or not vocabulary
        key_dtype = dtypes.string if strings else dtypes.int64
        default, buckets = node.attr["default_value"].i, node.attr["num_oov_buckets"].i
        keys = np.array(vocabulary, dtype=object if strings else np.int64)
        _node(graph_def, f"{name}/table", "HashTableV2", device=device, key_dtype=key_dtype, value_dtype=dtypes.int64,
              shared_name="", container="", use_node_name_sharing=False)
        _node(graph_def, f"{name}/keys", "Const", device=device, dtype=key_dtype, value=keys)
        _node(graph_def, f"{name}/values", "Const", device=device, dtype=dtypes.int64,
              value=np.arange(len(vocabulary), dtype=np.int64))
        inits.append(_node(graph_def, f"{name}/table_init", "InitializeTableV2",
                           [f"{name}/table", f"{name}/keys", f"{name}/values"], device, Tkey=key_dtype,
                           Tval=dtypes.int64).name)
        _node(graph_def, f"{name}/default", "Const", device=device, dtype=dtypes.int64,
              value=np.int64(-1 if buckets else default))
        found = f"{name}/found" if buckets else name
        del node.attr["vocabulary"], node.attr["default_value"], node.attr["num_oov_buckets"]
        node.op = "LookupTableFindV2"
        node.name = found
        del node.input[:]
        node.input.extend([f"{name}/table", source, f"{name}/default"] + control)
        node.attr["Tin"].type = key_dtype.as_datatype_enum
        node.attr["Tout"].type = dtypes.int64.as_datatype_enum
        if buckets:  # (size + Fingerprint64(value as a string) % buckets where the value is not in it)
            text = source
            if not strings:
                text = _node(graph_def, f"{name}/as_string", "AsString", [source], device, T=dtypes.int64).name
            _node(graph_def, f"{name}/hashed", "StringToHashBucketFast", [text], device, num_buckets=buckets)
            _node(graph_def, f"{name}/size", "Const", device=device, dtype=dtypes.int64,
                  value=np.int64(len(vocabulary)))
            _node(graph_def, f"{name}/bucket", "AddV2", [f"{name}/hashed", f"{name}/size"], device, T=dtypes.int64)
            _node(graph_def, f"{name}/missing", "Equal", [found, f"{name}/default"], device, T=dtypes.int64)
            _node(graph_def, name, "SelectV2", [f"{name}/missing", f"{name}/bucket", found], device, T=dtypes.int64)
    return inits
