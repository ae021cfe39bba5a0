"""``loader.load``: a SavedModel's meta graph, by its tags, into a session, with its
variables restored, its asset files found and its main op run."""

from __future__ import annotations

import os

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from ..protos import distflow_pb2 as pb
from ..train.saver import import_meta_graph
from . import constants


def maybe_saved_model_directory(export_dir) -> bool:
    """Whether ``export_dir`` holds a SavedModel (its ``saved_model.pb`` or ``.pbtxt``)."""
    export_dir = os.fsdecode(export_dir)  # (export_saved_model returns bytes, as TensorFlow's does)
    return any(os.path.isfile(os.path.join(export_dir, name))
               for name in (constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT))


contains_saved_model = maybe_saved_model_directory


def parse_saved_model(export_dir) -> pb.SavedModel:
    """The SavedModel proto of ``export_dir`` (binary, else text).

    Raises:
      IOError: there is none, or it cannot be parsed (as TensorFlow's).
    """
    export_dir = os.fsdecode(export_dir)  # (export_saved_model returns bytes, as TensorFlow's does)
    saved = pb.SavedModel()
    path = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    if os.path.isfile(path):
        with open(path, "rb") as f:
            try:
                saved.ParseFromString(f.read())
            except DecodeError as e:
                raise IOError(f"Cannot parse file {path}: {e}.") from None
        return saved
    path = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    if os.path.isfile(path):
        with open(path, "rb") as f:
            try:
                text_format.Merge(f.read().decode("utf-8"), saved)
            except (UnicodeDecodeError, text_format.ParseError) as e:
                raise IOError(f"Cannot parse file {path}: {e}.") from None
        return saved
    raise IOError(f"SavedModel file does not exist at: {export_dir}{os.sep}"
                  f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|{constants.SAVED_MODEL_FILENAME_PB}}}")


def _meta_graph(saved: pb.SavedModel, tags):
    tags = [tags] if isinstance(tags, str) else list(tags)
    for meta in saved.meta_graphs:
        if set(meta.meta_info_def.tags) == set(tags):
            return meta
    available = [sorted(m.meta_info_def.tags) for m in saved.meta_graphs]
    raise RuntimeError(f"MetaGraphDef associated with tags {sorted(set(tags))} could not be found in SavedModel, "
                       f"with available tags {available}")


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the meta graph of ``export_dir`` whose tag set is ``tags`` into ``sess``'s graph
    (under ``import_scope``), restores its variables, and runs its main op (or legacy
    init op), with each asset tensor fed the path of its file under ``assets/``.

    Returns:
      The MetaGraphDef loaded (its signature defs name the tensors, without the scope).
    """
    export_dir = os.fsdecode(export_dir)  # (export_saved_model returns bytes, as TensorFlow's does)
    meta = _meta_graph(parse_saved_model(export_dir), tags)
    graph = sess.graph

    def element(name: str):
        return graph.as_graph_element(f"{import_scope}/{name}" if import_scope else name)

    with graph.as_default():
        saver = import_meta_graph(meta, import_scope=import_scope, **saver_kwargs)
        if saver is not None:
            saver.restore(sess, os.path.join(export_dir, constants.VARIABLES_DIRECTORY,
                                             constants.VARIABLES_FILENAME))
        feeds = {element(asset.tensor_info.name): os.path.join(export_dir, constants.ASSETS_DIRECTORY,
                                                                asset.filename)
                 for asset in meta.asset_file_def}
        for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
            if key in meta.collection_def:
                names = list(meta.collection_def[key].node_list.value)
                if len(names) != 1:
                    raise RuntimeError(f"Expected exactly one SavedModel main op in collection {key}, found {names}")
                sess.run(element(names[0]), feed_dict=feeds)
                break
    return meta
