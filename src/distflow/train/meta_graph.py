"""Meta graphs (``.meta`` files): a graph with its collections and saver, to rebuild it elsewhere.

``export_meta_graph`` writes TensorFlow's MetaGraphDef: the GraphDef, a SaverDef, and
each collection as TF encodes it (variables as VariableDefs, tensors and operations by
name, numbers and strings as lists); ``read_meta_graph_file`` reads one back.
``import_meta_graph``, which rebuilds a graph from one and returns its Saver, lives in
saver.py, as in TensorFlow.

Savers are written as SaverDefs. Collections of other Python objects (queue runners,
hooks) are not written; a warning names each one left out, once per process.
"""

from __future__ import annotations

import logging
import numbers

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from ..framework import errors, ops
from ..framework.ops import GraphKeys
from ..ops import io_ops, state_ops
from ..protos import distflow_pb2 as pb
from ..version import GIT_VERSION, VERSION

_log = logging.getLogger("distflow")
_warned: set = set()  # collections already warned about, once per process

# Collections whose items are variables, written as VariableDefs (as TF registers them).
VARIABLE_COLLECTIONS = frozenset({
    GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, GraphKeys.LOCAL_VARIABLES,
    GraphKeys.MODEL_VARIABLES, GraphKeys.MOVING_AVERAGE_VARIABLES, GraphKeys.GLOBAL_STEP,
    "metric_variables"})


def _collection_def(key: str, items: list, export_scope):
    """A CollectionDef for ``items``, or None (with a warning) if TF has no encoding for them."""
    out = pb.CollectionDef()
    if all(hasattr(v, "as_saver_def") for v in items):  # Savers (saver.py builds on this module)
        out.bytes_list.value.extend(v.as_saver_def().SerializeToString() for v in items if v.as_saver_def())
    elif key == GraphKeys.QUEUE_RUNNERS and all(hasattr(v, "enqueue_ops") for v in items):  # (QueueRunnerDefs)
        out.bytes_list.value.extend(d.SerializeToString() for d in (v.to_proto(export_scope) for v in items) if d)
    elif key in VARIABLE_COLLECTIONS and all(isinstance(v, state_ops.Variable) for v in items):
        out.bytes_list.value.extend(v.to_proto(export_scope).SerializeToString() for v in items)
    elif all(isinstance(v, (ops.Tensor, ops.Operation, state_ops.Variable)) for v in items):
        # (a variable in a collection of the program's own by its name, "v:0", as TF writes it: it
        # comes back as the variable's tensor)
        out.node_list.value.extend(_strip(v.name, export_scope) for v in items)
    elif all(isinstance(v, (bool, numbers.Integral)) for v in items):
        out.int64_list.value.extend(int(v) for v in items)
    elif all(isinstance(v, numbers.Real) for v in items):
        out.float_list.value.extend(float(v) for v in items)
    elif all(isinstance(v, (str, bytes)) for v in items):
        out.bytes_list.value.extend(v.encode() if isinstance(v, str) else v for v in items)
    else:
        if key not in _warned:
            _warned.add(key)
            kinds = sorted({type(v).__name__ for v in items})
            _log.warning("Collection %r is not written to meta graphs: its items (%s) have no MetaGraphDef "
                         "encoding in distflow", key, ", ".join(kinds))
        return None
    return out


def _strip(name: str, export_scope) -> str:
    if export_scope and name.startswith(export_scope + "/"):
        return name[len(export_scope) + 1:]
    return name


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False,
                      clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False, **kwargs):
    """The graph, its collections and ``saver_def`` as a MetaGraphDef; written to ``filename`` if given.

    The file is binary unless ``as_text``, written atomically. ``strip_default_attrs``
    (smaller files for other readers) changes nothing that distflow reads back, and is
    accepted as such. With ``clear_extraneous_savers`` and a ``saver_def``, the ops of every
    other saver (the name scopes that hold save or restore ops, but not this saver's) and
    the ``savers`` collection are left out, as TF does. A debug-info file
    (``save_debug_info``) is not supported.
    """
    if kwargs:
        raise TypeError(f"export_meta_graph() got unexpected keyword arguments {sorted(kwargs)}")
    if save_debug_info:
        raise errors.UnimplementedError(None, None, "export_meta_graph(save_debug_info=True) is not supported")
    graph = graph or ops.get_default_graph()
    meta = pb.MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    # (as TensorFlow writes them: the API level, which its loader parses as a version, and the
    # build that wrote the graph, distflow's)
    meta.meta_info_def.tensorflow_version = VERSION
    meta.meta_info_def.tensorflow_git_version = GIT_VERSION
    meta.graph_def.CopyFrom(graph_def if graph_def is not None else graph.as_graph_def(add_shapes=True))
    excluded: set = set()
    if clear_extraneous_savers and saver_def is not None:
        excluded = _other_savers_nodes(meta.graph_def, saver_def)
        kept = [n for n in meta.graph_def.node if n.name not in excluded]
        del meta.graph_def.node[:]
        meta.graph_def.node.extend(kept)
    if export_scope:
        _scope_graph_def(meta.graph_def, export_scope)
    if clear_devices:
        for node in meta.graph_def.node:
            node.device = ""
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = collection_list if collection_list is not None else graph.get_all_collection_keys()
    for key in sorted(keys):
        if excluded and key == ops.GraphKeys.SAVERS:
            continue
        items = graph.get_collection(key)
        if excluded:
            items = [v for v in items if getattr(v, "name", "").split(":")[0] not in excluded]
        if export_scope:
            items = [v for v in items if not hasattr(v, "name") or v.name.startswith(export_scope + "/")]
        if not items:
            continue
        collection = _collection_def(key, items, export_scope)
        if collection is not None:
            meta.collection_def[key].CopyFrom(collection)
    if filename:
        data = text_format.MessageToString(meta).encode() if as_text else meta.SerializeToString(deterministic=True)
        io_ops.atomic_write(filename, lambda f: f.write(data))
    return meta


_SAVE_AND_RESTORE_OPS = frozenset({"SaveV2", "RestoreV2", "MergeV2Checkpoints", "Save", "Restore", "SaveSlice",
                                   "RestoreSlice"})


def _other_savers_nodes(graph_def, saver_def) -> set[str]:
    """The names of the nodes in the name scopes of savers other than ``saver_def``'s."""
    def scope(name: str) -> str:
        return name.split(":")[0].rpartition("/")[0]

    kept = {scope(saver_def.save_tensor_name), scope(saver_def.restore_op_name)}
    scopes = {scope(n.name) for n in graph_def.node if n.op in _SAVE_AND_RESTORE_OPS} - kept - {""}
    return {n.name for n in graph_def.node if any(n.name.startswith(s + "/") for s in scopes)}


def _scope_graph_def(graph_def, export_scope: str) -> None:
    """Keeps only the nodes under ``export_scope`` and names them relative to it."""
    prefix = export_scope + "/"
    kept = [n for n in graph_def.node if n.name.startswith(prefix)]
    del graph_def.node[:]
    for node in kept:
        node.name = node.name[len(prefix):]
        for i, text in enumerate(node.input):
            control = text.startswith("^")
            bare = text[1:] if control else text
            if bare.startswith(prefix):
                node.input[i] = ("^" if control else "") + bare[len(prefix):]
        graph_def.node.add().CopyFrom(node)


def read_meta_graph_file(filename: str):
    """A MetaGraphDef from a binary or text ``.meta`` file.

    Raises:
      IOError: the file does not exist, or holds neither encoding (as TF's).
    """
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise IOError(f"File {filename} does not exist.") from None
    meta = pb.MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except DecodeError:
        pass
    try:
        text_format.Merge(data.decode("utf-8"), meta)
    except (UnicodeDecodeError, text_format.ParseError) as e:
        raise IOError(f"Cannot parse file {filename}: it is not a MetaGraphDef file ({e})") from None
    return meta
