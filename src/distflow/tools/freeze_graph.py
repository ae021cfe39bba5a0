"""Freezing a graph for inference, as TF 1.x's ``freeze_graph`` tool did: the graph (a
GraphDef, a meta graph or a SavedModel) with its variables' values from a checkpoint as
constants, cut down to what the output nodes need, written as one GraphDef.

``distflow freeze-graph`` (or ``python -m distflow.tools.freeze_graph``) takes the tool's
flags (``--input_graph``, ``--input_binary``, ``--input_checkpoint``, ``--output_node_names``,
``--output_graph``, ``--input_meta_graph``, ``--input_saved_model_dir``, ...);
``freeze_graph(...)`` and ``freeze_graph_with_def_protos(...)`` are its functions.
"""

from __future__ import annotations

import argparse
import sys

from google.protobuf import text_format

from ..framework import errors, ops
from ..graph_util import convert_variables_to_constants
from ..protos import distflow_pb2 as pb


class FreezeError(ValueError):
    """What stops a graph from being frozen (a missing checkpoint, no output node...)."""


def _names(text) -> list | None:
    return [n for n in text.split(",") if n] if text else None


def freeze_graph_with_def_protos(input_graph_def, input_saver_def, input_checkpoint, output_node_names,
                                 restore_op_name=None, filename_tensor_name=None, output_graph=None,
                                 clear_devices=True, initializer_nodes="", variable_names_whitelist="",
                                 variable_names_blacklist="", input_meta_graph_def=None, input_saved_model_dir=None,
                                 saved_model_tags=None):
    """The frozen GraphDef of a graph and checkpoint (written to ``output_graph`` if given).
    The graph is ``input_graph_def`` (its variables restored from ``input_checkpoint`` by
    name, or by ``input_saver_def``), ``input_meta_graph_def`` (restored by its saver), or
    the SavedModel at ``input_saved_model_dir`` (``saved_model_tags``). ``restore_op_name``
    and ``filename_tensor_name`` are accepted, unused, as by TF's tool."""
    from ..runtime.session import Session  # noqa: PLC0415
    from ..saved_model import loader  # noqa: PLC0415
    from ..train import saver as saver_lib  # noqa: PLC0415

    del restore_op_name, filename_tensor_name
    if not input_saved_model_dir and not saver_lib.checkpoint_exists(input_checkpoint or ""):
        raise FreezeError(f"Input checkpoint '{input_checkpoint}' doesn't exist!")
    outputs = _names(output_node_names) if isinstance(output_node_names, str) else list(output_node_names or [])
    if not outputs:
        raise FreezeError("You need to supply the name of a node to --output_node_names.")
    if clear_devices:
        for graph_def in (getattr(input_meta_graph_def, "graph_def", None), input_graph_def):
            for node in getattr(graph_def, "node", ()):
                node.device = ""
    with ops.Graph().as_default() as graph, Session(graph=graph) as sess:
        if input_meta_graph_def is not None:
            saver_lib.import_meta_graph(input_meta_graph_def, clear_devices=True).restore(sess, input_checkpoint)
            graph_def = input_meta_graph_def.graph_def
        elif input_saved_model_dir:
            tags = _names(saved_model_tags) if isinstance(saved_model_tags, str) else list(saved_model_tags or [])
            graph_def = loader.load(sess, tags, input_saved_model_dir).graph_def
        else:
            from ..framework.importer import import_graph_def  # noqa: PLC0415

            import_graph_def(input_graph_def, name="")
            graph_def = input_graph_def
            if input_saver_def is not None:
                saver_lib.Saver(saver_def=input_saver_def).restore(sess, input_checkpoint)
            else:  # (each checkpointed tensor into the graph's variable of that name)
                reader = saver_lib.NewCheckpointReader(input_checkpoint)
                var_list = {}
                for key in reader.get_variable_to_shape_map():
                    try:
                        var_list[key] = graph.get_tensor_by_name(key + ":0")
                    except (KeyError, ValueError):
                        continue
                saver_lib.Saver(var_list=var_list).restore(sess, input_checkpoint)
        if initializer_nodes and input_saved_model_dir is None:
            sess.run(_names(initializer_nodes))
        frozen = convert_variables_to_constants(sess, graph_def, outputs,
                                                variable_names_whitelist=_names(variable_names_whitelist),
                                                variable_names_blacklist=_names(variable_names_blacklist))
    if output_graph:
        from ..platform import gfile  # noqa: PLC0415

        with gfile.GFile(output_graph, "wb") as f:
            f.write(frozen.SerializeToString())
    return frozen


def _read_graph_def(path: str, binary: bool):
    from ..platform import gfile  # noqa: PLC0415

    if not gfile.Exists(path):
        raise FreezeError(f"Input graph file '{path}' does not exist!")
    return _read_message(path, pb.GraphDef(), binary,
                         f"a {'binary' if binary else 'text'} GraphDef "
                         f"({'try --input_binary=false' if binary else 'try --input_binary'})")


def _read_message(path: str, message, binary: bool, expected: str = ""):
    """``message`` read from ``path`` (binary or text format); a FreezeError saying it is not
    ``expected`` (by default, the message's type) if it cannot be parsed."""
    from ..platform import gfile  # noqa: PLC0415

    with gfile.GFile(path, "rb") as f:
        data = f.read()
    try:
        if binary:
            message.ParseFromString(data)
        else:
            text_format.Merge(data.decode(), message)
    except Exception as e:  # (protobuf's DecodeError, text_format's ParseError)
        raise FreezeError(f"'{path}' is not {expected or 'a ' + type(message).__name__}: {e}") from None
    return message


def freeze_graph(input_graph, input_saver, input_binary, input_checkpoint, output_node_names, restore_op_name=None,
                 filename_tensor_name=None, output_graph=None, clear_devices=True, initializer_nodes="",
                 variable_names_whitelist="", variable_names_blacklist="", input_meta_graph=None,
                 input_saved_model_dir=None, saved_model_tags="serve"):
    """TF's ``freeze_graph`` from files: the graph (a GraphDef file, text unless
    ``input_binary``; or a meta graph; or a SavedModel folder), frozen with the checkpoint's
    values and written to ``output_graph``. Returns the frozen GraphDef."""
    graph_def = _read_graph_def(input_graph, input_binary) if input_graph else None
    saver_def = _read_message(input_saver, pb.SaverDef(), input_binary) if input_saver else None
    meta = _read_message(input_meta_graph, pb.MetaGraphDef(), input_binary) if input_meta_graph else None
    if graph_def is None and meta is None and not input_saved_model_dir:
        raise FreezeError("Give a graph to freeze: --input_graph, --input_meta_graph or --input_saved_model_dir")
    return freeze_graph_with_def_protos(graph_def, saver_def, input_checkpoint, output_node_names, restore_op_name,
                                        filename_tensor_name, output_graph, clear_devices, initializer_nodes,
                                        variable_names_whitelist, variable_names_blacklist, meta,
                                        input_saved_model_dir, saved_model_tags)


def _bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes"):
        return True
    if text.lower() in ("0", "false", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def parser(prog: str = "freeze_graph") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Freezes a graph and a checkpoint into one GraphDef for "
                                                       "inference (TF 1.x's freeze_graph tool and its flags).")
    p.add_argument("--input_graph", default="", help="a GraphDef file (text unless --input_binary)")
    p.add_argument("--input_saver", default="", help="a SaverDef file")
    p.add_argument("--input_checkpoint", default="", help="the checkpoint prefix")
    p.add_argument("--checkpoint_version", type=int, default=2, help="accepted (distflow reads either)")
    p.add_argument("--output_graph", default="", help="where to write the frozen GraphDef (binary)")
    p.add_argument("--input_binary", type=_bool, nargs="?", const=True, default=False)
    p.add_argument("--output_node_names", default="", help="the output nodes, comma-separated")
    p.add_argument("--restore_op_name", default="save/restore_all", help="accepted, unused (as in TensorFlow)")
    p.add_argument("--filename_tensor_name", default="save/Const:0", help="accepted, unused (as in TensorFlow)")
    p.add_argument("--clear_devices", type=_bool, nargs="?", const=True, default=True)
    p.add_argument("--initializer_nodes", default="", help="nodes to run after restoring, comma-separated")
    p.add_argument("--variable_names_whitelist", default="")
    p.add_argument("--variable_names_blacklist", default="")
    p.add_argument("--input_meta_graph", default="", help="a MetaGraphDef file (binary with --input_binary)")
    p.add_argument("--input_saved_model_dir", default="", help="a SavedModel folder")
    p.add_argument("--saved_model_tags", default="serve", help="the SavedModel's tag set, comma-separated")
    return p


def main(argv=None, prog: str = "freeze_graph") -> int:
    args = parser(prog).parse_args(argv)
    try:
        frozen = freeze_graph(args.input_graph, args.input_saver, args.input_binary, args.input_checkpoint,
                              args.output_node_names, args.restore_op_name, args.filename_tensor_name,
                              args.output_graph, args.clear_devices, args.initializer_nodes,
                              args.variable_names_whitelist, args.variable_names_blacklist, args.input_meta_graph,
                              args.input_saved_model_dir, args.saved_model_tags)
    except (FreezeError, errors.OpError, KeyError, ValueError, OSError) as e:
        print(f"{prog}: error: {getattr(e, 'message', None) or e}", file=sys.stderr)
        return 1
    where = args.output_graph or "(not written: no --output_graph)"
    print(f"{len(frozen.node)} ops in the frozen graph: {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
