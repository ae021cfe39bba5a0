"""``SavedModelBuilder``: a model's graph, under one or more tag sets, with its variables
and assets, in a directory that ``loader.load`` brings back into a session.

The directory holds ``saved_model.pb`` (a SavedModel proto: TensorFlow's, field for field,
each meta graph with its signature defs and asset files), ``variables/variables*`` (the
variables, written by a Saver and kept in TensorFlow's checkpoint format) and ``assets/``
(the asset files, copied). Each
file is written atomically; ``saved_model.pb`` last, so a directory without it is not a
SavedModel (``loader.maybe_saved_model_directory``).
"""

from __future__ import annotations

import filecmp
import os
import shutil

import numpy as np
from google.protobuf import text_format

from ..framework import dtypes, ops
from ..ops import io_ops
from ..protos import distflow_pb2 as pb
from ..train.saver import Saver
from . import constants, tensorflow_form


def _as_tensorflow_bundle(prefix: str) -> None:
    """The checkpoint at ``prefix`` rewritten in TensorFlow's format (a tensor bundle), so that
    TensorFlow's loader, and TensorFlow Serving, restore the variables too; distflow reads it
    as well. Written atomically (the index last); the shard files it no longer needs go after."""
    from ..platform import tensor_bundle  # noqa: PLC0415
    before = {f for f in os.listdir(os.path.dirname(prefix)) if f.startswith(os.path.basename(prefix) + ".")}
    tensor_bundle.write_bundle(prefix, io_ops.load_checkpoint(prefix))
    kept = {os.path.basename(tensor_bundle.shard_path(prefix, 0, 1)), os.path.basename(prefix) + ".index"}
    for name in before - kept:
        os.unlink(os.path.join(os.path.dirname(prefix), name))


class SavedModelBuilder:
    """Builds a SavedModel in ``export_dir``, which must not exist or be empty.

    The first meta graph comes with the variables (:meth:`add_meta_graph_and_variables`);
    later ones, of the same variables under other tags, with :meth:`add_meta_graph`.
    :meth:`save` writes the SavedModel proto."""

    def __init__(self, export_dir):
        export_dir = os.fsdecode(export_dir)
        if os.path.exists(export_dir):
            if not os.path.isdir(export_dir) or os.listdir(export_dir):
                raise AssertionError(f"Export directory {export_dir} already exists, and isn't empty. Please choose "
                                     "a different export directory, or delete all the contents of the specified "
                                     "directory.")
        else:
            os.makedirs(export_dir)
        self._export_dir = export_dir
        self._saved_model = pb.SavedModel(saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._has_saved_variables = False
        self._assets: dict[str, str] = {}  # file name under assets/ -> the source it was copied from

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None, assets_collection=None,
                                     legacy_init_op=None, clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None):
        """Saves the session's variables and adds the default graph under ``tags``, with
        ``signature_def_map`` (key -> SignatureDef), the asset files that the string
        constants of ``assets_collection`` name, and ``main_op`` (or ``legacy_init_op``), the
        op that ``loader.load`` runs after restoring (to initialize tables, say)."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been saved. Please "
                                 "invoke `add_meta_graph()` instead.")
        signature_def_map, assets, saver = self._prepare(signature_def_map, assets_collection, main_op,
                                                         legacy_init_op, saver)
        variables_dir = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
        os.makedirs(variables_dir, exist_ok=True)
        prefix = os.path.join(variables_dir, constants.VARIABLES_FILENAME)
        if saver.save(sess, prefix, write_meta_graph=False, write_state=False) is not None:
            _as_tensorflow_bundle(prefix)
        with sess.graph.as_default():
            meta = saver.export_meta_graph(clear_devices=clear_devices, strip_default_attrs=strip_default_attrs)
        self._add(meta, tags, signature_def_map, assets)
        self._has_saved_variables = True

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None, legacy_init_op=None,
                       clear_devices=False, main_op=None, strip_default_attrs=False, saver=None):
        """Adds the default graph under ``tags`` (arguments as :meth:`add_meta_graph_and_variables`),
        to run with the variables saved with the first meta graph."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved yet. Please "
                                 "invoke `add_meta_graph_and_variables()` first.")
        signature_def_map, assets, saver = self._prepare(signature_def_map, assets_collection, main_op,
                                                         legacy_init_op, saver)
        meta = saver.export_meta_graph(clear_devices=clear_devices, strip_default_attrs=strip_default_attrs)
        self._add(meta, tags, signature_def_map, assets)

    def save(self, as_text=False) -> bytes:
        """Writes ``saved_model.pb`` (``saved_model.pbtxt`` if ``as_text``); returns its path."""
        name = constants.SAVED_MODEL_FILENAME_PBTXT if as_text else constants.SAVED_MODEL_FILENAME_PB
        path = os.path.join(self._export_dir, name)
        data = (text_format.MessageToString(self._saved_model).encode() if as_text
                else self._saved_model.SerializeToString(deterministic=True))
        io_ops.atomic_write(path, lambda f: f.write(data))
        return path.encode()

    # -- parts ----------------------------------------------------------------------------
    def _prepare(self, signature_def_map, assets_collection, main_op, legacy_init_op, saver) -> tuple:
        """What a meta graph is added with: its checked signatures, its assets (copied) and a
        saver; the main op goes into the graph's collection."""
        signature_def_map = _validated(signature_def_map)
        _add_main_op(main_op if main_op is not None else legacy_init_op)
        return signature_def_map, self._copy_assets(assets_collection), saver or _default_saver()

    def _add(self, meta, tags, signature_def_map: dict, assets: list) -> None:
        tags = [tags] if isinstance(tags, str) else list(tags or [])
        for other in self._saved_model.meta_graphs:
            if set(other.meta_info_def.tags) == set(tags):
                raise ValueError(f"The SavedModel already has a meta graph with tags {sorted(set(tags))}; each "
                                 "meta graph needs a tag set of its own")
        meta.meta_info_def.tags.extend(tags)
        tensorflow_form.rewrite(meta)  # (what distflow builds otherwise, as TensorFlow builds it)
        for key, signature in signature_def_map.items():
            meta.signature_def[key].CopyFrom(signature)
        for filename, tensor in assets:
            asset = meta.asset_file_def.add()
            asset.filename = filename
            asset.tensor_info.name = tensor.name
        self._saved_model.meta_graphs.add().CopyFrom(meta)

    def _copy_assets(self, assets_collection) -> list:
        """Copies each asset file into ``assets/`` (a name of its own where two files share
        one); returns (name under assets/, tensor) pairs."""
        out = []
        for tensor in assets_collection or []:
            source = _asset_path(tensor)
            base = name = os.path.basename(source)
            i = 1
            while name in self._assets and not (self._assets[name] == source
                                                  or filecmp.cmp(self._assets[name], source, shallow=False)):
                name, i = f"{base}_{i}", i + 1
            if name not in self._assets:
                target_dir = os.path.join(self._export_dir, constants.ASSETS_DIRECTORY)
                os.makedirs(target_dir, exist_ok=True)
                try:
                    shutil.copyfile(source, os.path.join(target_dir, name))
                except OSError as e:
                    raise ValueError(f"Asset file {source!r} (tensor {tensor.name}) cannot be copied: {e}") from None
                self._assets[name] = source
            out.append((name, tensor))
        return out


def _validated(signature_def_map) -> dict:
    """The map, once every TensorInfo in it names a tensor and has a dtype, and no key is one
    that SavedModel reserves."""
    signature_def_map = dict(signature_def_map or {})
    for key, signature in signature_def_map.items():
        if not isinstance(signature, pb.SignatureDef):
            raise TypeError(f"signature_def_map[{key!r}] must be a SignatureDef, got {type(signature).__name__}")
        for side in ("inputs", "outputs"):
            for name, info in getattr(signature, side).items():
                if info.WhichOneof("encoding") is None:
                    raise AssertionError(f"Invalid `tensor_info` {side}[{name!r}] of signature {key!r}: all "
                                         "TensorInfo protos used in the SignatureDefs must have the name or "
                                         "coo_sparse field set.")
                if info.dtype == pb.DT_INVALID:
                    raise AssertionError(f"Invalid `tensor_info` {side}[{name!r}] of signature {key!r}: all "
                                         "TensorInfo protos used in the SignatureDefs must have the dtype field set.")
    for reserved in (constants.INIT_OP_SIGNATURE_KEY, constants.TRAIN_OP_SIGNATURE_KEY):
        if reserved in signature_def_map:
            raise KeyError(f'SignatureDef map key "{reserved}" is reserved. Please use a different key.')
    return signature_def_map


def _add_main_op(main_op) -> None:
    if main_op is None:
        return
    if not isinstance(main_op, ops.Operation):
        raise TypeError(f"Expected {main_op!r} to be an Operation but got type {type(main_op).__name__} instead.")
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if ops.get_collection(key):
            raise ValueError(f"Graph already contains one or more main ops under the collection {key}.")
    ops.add_to_collection(constants.MAIN_OP_KEY, main_op)


def _default_saver() -> Saver:
    """A sharded Saver of every global variable of the default graph (none is allowed)."""
    return Saver(sharded=True, allow_empty=True)


def _asset_path(tensor) -> str:
    """The file that an asset tensor (a scalar string constant) names."""
    if not isinstance(tensor, ops.Tensor):
        raise TypeError(f"Asset path tensor {tensor!r} must be a Tensor.")
    if tensor.op.type != "Const":
        raise TypeError(f"Asset path tensor {tensor.name} must be of type constant. Has type {tensor.op.type} "
                        "instead.")
    if tensor.dtype.base_dtype != dtypes.string:
        raise TypeError(f"Asset path tensor {tensor.name} must be of dtype string. Has type {tensor.dtype.name} "
                        "instead.")
    value = np.asarray(tensor.op.get_attr("value"))
    if value.ndim != 0:
        raise TypeError(f"Asset path tensor {tensor.name} must be a scalar.")
    value = value.item()
    return value.decode() if isinstance(value, bytes) else str(value)
