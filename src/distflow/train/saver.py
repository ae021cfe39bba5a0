"""``tf.train.Saver`` and the 'checkpoint' state file (latest_checkpoint, get_checkpoint_state).

File layout and atomicity: ops/io_ops.py. The state file is TensorFlow's text format
(``model_checkpoint_path: "model.ckpt-100"`` then one ``all_model_checkpoint_paths``
line per kept checkpoint), written atomically after the checkpoint itself, so it never
names a checkpoint that is not complete.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time

import numpy as np

from google.protobuf import text_format

from ..framework import dtypes, errors
from ..framework import ops
from ..framework.importer import import_graph_def
from ..framework.ops import GraphKeys
from ..ops import array_ops, control_flow_ops, io_ops, slicing_ops, state_ops, string_ops
from ..ops.partitioned_variables import PartitionedVariable
from ..protos import distflow_pb2 as pb
from .meta_graph import VARIABLE_COLLECTIONS, export_meta_graph, read_meta_graph_file
from .queue_runner import QueueRunner

_log = logging.getLogger("distflow")


# ---------------------------------------------------------------------------
# The 'checkpoint' state file


CheckpointState = pb.CheckpointState


def _state_path(checkpoint_dir: str, latest_filename: str | None) -> str:
    return os.path.join(checkpoint_dir, latest_filename or "checkpoint")


def update_checkpoint_state(save_dir: str, model_checkpoint_path: str, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None) -> None:
    """Writes the state file of ``save_dir`` (atomically); paths inside it are stored relative."""
    save_dir = _local_path(save_dir)
    paths = [_local_path(p) for p in (all_model_checkpoint_paths or [])]
    model_checkpoint_path = _local_path(model_checkpoint_path)
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)

    def rel(p):  # checkpoints in save_dir itself are named relative to it, so the folder can move
        return os.path.basename(p) if os.path.dirname(os.path.abspath(p)) == os.path.abspath(save_dir) else p

    state = CheckpointState(model_checkpoint_path=rel(model_checkpoint_path),
                            all_model_checkpoint_paths=[rel(p) for p in paths],
                            all_model_checkpoint_timestamps=list(all_model_checkpoint_timestamps or []))
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    text = text_format.MessageToString(state).encode()
    io_ops.atomic_write(_state_path(save_dir, latest_filename), lambda f: f.write(text))


def get_checkpoint_state(checkpoint_dir: str, latest_filename=None):
    """The CheckpointState of ``checkpoint_dir`` (relative paths made absolute), or None if
    there is none, or if the state file is damaged (logged: latest_checkpoint then looks
    at the checkpoints themselves).

    Raises:
      ValueError: the state file exists but names no checkpoint (an empty file, as TF).
    """
    checkpoint_dir = _local_path(checkpoint_dir)
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (UnicodeDecodeError, OSError) as e:
        _log.warning("%s: the checkpoint state file is not understood (%s); the newest checkpoint in the folder "
                     "stands for it", path, e)
        return None
    state = CheckpointState()
    try:
        text_format.Parse(text, state)
    except text_format.ParseError as e:
        _log.warning("%s: the checkpoint state file is not understood (%s); the newest checkpoint in the folder "
                     "stands for it", path, e)
        return None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def _local_path(path: str) -> str:
    """A checkpoint path with TF's ``file://`` prefix removed (only local files are supported)."""
    path = os.fspath(path)
    return path[len("file://"):] if path.startswith("file://") else path


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    prefix = _local_path(checkpoint_prefix)
    return os.path.exists(io_ops.index_path(prefix)) or io_ops.is_v1_checkpoint(prefix)


def _has_files(prefix: str) -> bool:
    """Whether any file of checkpoint ``prefix`` is there (its index or a data file)."""
    folder, base = os.path.split(prefix)
    try:
        return any(n == base + ".index" or n.startswith(base + ".data-") for n in os.listdir(folder or "."))
    except OSError:
        return False


def check_checkpoint(prefix: str) -> None:
    """Checks what can be checked of checkpoint ``prefix`` without reading its tensors: its
    index, and every shard's presence and header.

    Raises:
      DataLossError: a file of it is missing or damaged (naming the file).
      NotFoundError: nothing of it is there.
      UnimplementedError: it is a checkpoint that TensorFlow wrote, holding what distflow
        does not read (platform/tensor_bundle.py).
    """
    prefix = _local_path(prefix)
    if not checkpoint_exists(prefix) and _has_files(prefix):
        raise errors.DataLossError(None, None, f"checkpoint {prefix} is damaged: its index {io_ops.index_path(prefix)} "
                                   "is missing")
    io_ops.open_shards(prefix)


def usable_checkpoint_state(checkpoint_dir: str, latest_filename=None):
    """(state, why not): the CheckpointState of ``checkpoint_dir``, or None and the reason
    when its state file is there but cannot be used ('' when there is none)."""
    try:
        state = get_checkpoint_state(checkpoint_dir, latest_filename)
    except ValueError as e:  # (a state file that names no checkpoint)
        return None, str(e)
    if state is None and os.path.exists(_state_path(checkpoint_dir, latest_filename)):
        return None, "its checkpoint state file is not understood"
    return state, ""


def checkpoint_candidates(checkpoint_dir: str, latest_filename=None) -> list[str]:
    """The checkpoints of ``checkpoint_dir``, newest first: those its state file names
    (when it is understood), then any other whose index is in the folder, by the time it
    was written."""
    checkpoint_dir = _local_path(checkpoint_dir)
    state, _ = usable_checkpoint_state(checkpoint_dir, latest_filename)
    named = []
    if state is not None:
        for p in [state.model_checkpoint_path, *reversed(state.all_model_checkpoint_paths)]:
            if p not in named:
                named.append(p)
    return named + [p for p in _by_index_age(checkpoint_dir) if p not in named]


def latest_checkpoint(checkpoint_dir: str, latest_filename=None) -> str | None:
    """The prefix of the newest checkpoint of ``checkpoint_dir`` that is whole, or None.

    That is the one the state file names, as in TF. Where that one is missing or damaged
    (its index, a shard, a header), or the state file itself is, it is the newest whole
    one before it, with a warning: never None (which would start training again from
    step 0) while a usable checkpoint is there. Tensors' bytes are not read here; a
    restore checks those (SessionManager goes on to older checkpoints if they are damaged).
    """
    checkpoint_dir = _local_path(checkpoint_dir)
    _, state_problem = usable_checkpoint_state(checkpoint_dir, latest_filename)
    skipped = [state_problem] if state_problem else []
    for prefix in checkpoint_candidates(checkpoint_dir, latest_filename):
        try:
            check_checkpoint(prefix)
        except errors.UnimplementedError:
            raise  # (TensorFlow's: not damaged, and not to be trained over from step 0 as if absent)
        except errors.OpError as e:
            skipped.append(e.message if prefix in e.message else f"{prefix}: {e.message}")
            continue
        if skipped:
            _log.warning("using %s, the newest whole checkpoint in %s: %s", prefix, checkpoint_dir, "; ".join(skipped))
        return prefix
    if skipped:
        _log.warning("no whole checkpoint in %s: %s", checkpoint_dir, "; ".join(skipped))
    return None


def _by_index_age(checkpoint_dir: str) -> list[str]:
    """The prefixes of the checkpoints in ``checkpoint_dir`` whose index is there, newest first."""
    try:
        names = [n for n in os.listdir(checkpoint_dir) if n.endswith(".index")]
    except OSError:
        return []

    def age(name: str) -> tuple[int, int]:  # (written at, global step in the name: ties within a clock tick)
        step = name[:-len(".index")].rpartition("-")[2]
        try:
            written = os.stat(os.path.join(checkpoint_dir, name)).st_mtime_ns
        except OSError:
            written = 0
        return written, int(step) if step.isdigit() else -1

    return [os.path.join(checkpoint_dir, n[:-len(".index")]) for n in sorted(names, key=age, reverse=True)]


def _checkpoint_prefix(ckpt_dir_or_file: str) -> str:
    """The latest checkpoint of a folder, or the prefix itself (also when a folder has that name:
    ``saver.save(sess, some_dir)`` writes ``some_dir.index`` beside it)."""
    prefix = ckpt_dir_or_file
    if os.path.isdir(ckpt_dir_or_file):
        prefix = latest_checkpoint(ckpt_dir_or_file)
        if prefix is None and os.path.exists(ckpt_dir_or_file.rstrip("/\\") + ".index"):
            prefix = ckpt_dir_or_file.rstrip("/\\")
    if prefix is None:
        raise ValueError(f"Couldn't find a checkpoint in {ckpt_dir_or_file}")
    return prefix


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list]]:
    tensors = io_ops.read_index(_checkpoint_prefix(ckpt_dir_or_file))["tensors"]
    return sorted((name, list(entry["shape"])) for name, entry in tensors.items())


def to_tensorflow(ckpt_dir_or_file: str, out_prefix: str) -> list[str]:
    """Writes the tensors of a checkpoint (any format distflow reads; a folder's latest) as a
    TensorFlow checkpoint at ``out_prefix``, which TensorFlow's Saver restores; their names."""
    from ..platform import tensor_bundle  # noqa: PLC0415

    tensors = io_ops.load_checkpoint(_checkpoint_prefix(_local_path(ckpt_dir_or_file)))
    out_prefix = _local_path(out_prefix)
    if not os.path.isdir(os.path.dirname(out_prefix) or "."):
        raise ValueError(f"Parent directory of {out_prefix} doesn't exist, can't write.")
    tensor_bundle.write_bundle(out_prefix, tensors)
    return sorted(tensors)


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    name = name.split(":")[0]
    return io_ops.load_checkpoint(_checkpoint_prefix(ckpt_dir_or_file), [name])[name]


def _remove_checkpoint(prefix: str, meta_graph_suffix: str = "meta") -> None:
    folder = os.path.dirname(prefix) or "."
    base = os.path.basename(prefix)
    for name in os.listdir(folder):
        if name == base + ".index" or name.startswith(base + ".data-") or name == f"{base}.{meta_graph_suffix}":
            try:
                os.unlink(os.path.join(folder, name))
            except OSError as e:
                _log.warning("could not remove old checkpoint file %s: %s", name, e)


# ---------------------------------------------------------------------------
# Saver


class _Partitioned:
    """The parts of a partitioned variable, saved as one tensor under its full name and
    restored by slices into each part (whatever partitioning wrote it)."""

    def __init__(self, parts: list):
        self.parts = sorted(parts, key=lambda v: v._save_slice_info.var_offset)
        info = self.parts[0]._save_slice_info
        self.full_shape = info.full_shape
        self.dtype = self.parts[0].dtype
        self.device = self.parts[0].device

    def value(self):
        axes = [i for i, n in enumerate(self.parts[0]._save_slice_info.var_shape) if n != self.full_shape[i]]
        values = [p.value() for p in self.parts]
        return slicing_ops.concat(values, axes[0]) if len(values) > 1 else values[0]

    def restore_ops(self, value) -> list:
        ops_ = []
        for part in self.parts:
            info = part._save_slice_info
            piece = slicing_ops.slice(value, info.var_offset, info.var_shape)
            ops_.append(state_ops.assign(part, piece, validate_shape=True).op)
        return ops_


def _saveables(var_list) -> dict[str, object]:
    """name -> variable (or the parts of a partitioned one, under its full name), from None
    (all global variables and the SAVEABLE_OBJECTS collection: mutable tables), a list or a
    dict. A saveable other than a variable gives its ``saveable_parts()``, each saved under
    its own name and restored by its ``restore_ops(value)``."""
    if var_list is None:
        var_list = state_ops.global_variables() + ops.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS)
    if isinstance(var_list, dict):  # (a value may be a partitioned variable, or a list of its parts)
        items = [(name, _Partitioned(_parts_of(v, name)) if isinstance(v, (PartitionedVariable, list, tuple)) else v)
                 for name, v in var_list.items()]
    else:
        items, parts = [], {}
        for v in var_list:
            if hasattr(v, "saveable_parts"):
                items.extend(v.saveable_parts().items())
                continue
            for var in (list(v) if isinstance(v, PartitionedVariable) else [v]):
                if not isinstance(var, state_ops.Variable):
                    raise TypeError(f"Saver: {var!r} is not a Variable; pass variables, or a dict of name -> "
                                    "variable")
                info = getattr(var, "_save_slice_info", None)
                if info is not None:  # (a part: saved with the others under the full name)
                    if info.full_name not in parts:
                        parts[info.full_name] = []
                        items.append((info.full_name, parts[info.full_name]))
                    if not any(var is p for p in parts[info.full_name]):
                        parts[info.full_name].append(var)
                else:
                    items.append((var.op.name, var))
        items = [(name, _Partitioned(v) if isinstance(v, list) else v) for name, v in items]
    named: dict[str, object] = {}
    for name, v in items:
        if name in named:
            raise ValueError(f"At least two variables have the same name: {name}")
        named[name] = v
    return named


def _parts_of(value, name: str) -> list:
    """The parts of the partitioned variable that a Saver's dict gives under ``name``."""
    parts = [p for v in ([value] if isinstance(value, PartitionedVariable) else value)
             for p in (list(v) if isinstance(v, PartitionedVariable) else [v])]
    if not parts or any(getattr(p, "_save_slice_info", None) is None for p in parts):
        raise ValueError(f"Saver: the list given for '{name}' must be the parts of one partitioned variable "
                         f"(each with its slice), got {value!r}")
    return parts


class Saver:
    """Saves and restores variables (``tf.train.Saver``).

    ``sharded=True`` writes one shard per device that holds variables, on that device's
    task (each parameter server writes what it holds), then one index. Files:
    ops/io_ops.py. The graph's ops are built once, here; ``save`` and ``restore`` feed
    the path. ``reshape=True`` restores a saved value into a variable of another shape and
    the same size (reshaped).
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False, write_version=2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        if builder is not None:
            raise errors.UnimplementedError(None, None, "Saver(builder=...) is not supported: distflow builds its "
                                            "own save and restore ops")
        if write_version not in (2, None):
            raise errors.UnimplementedError(None, None, f"Saver(write_version={write_version!r}): distflow writes "
                                            "one checkpoint format (V2's file layout, safetensors shards)")
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either set defer_build=False "
                             "or var_list=None.")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_every_s = keep_checkpoint_every_n_hours * 3600.0
        self._next_keep_time = time.time() + self._keep_every_s
        self._name = name
        self._allow_empty = allow_empty
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._last_checkpoints: list[tuple[str, float]] = []
        self._built = False
        self._keep_hours = keep_checkpoint_every_n_hours
        if saver_def is not None:
            self._from_saver_def(saver_def)
        elif not defer_build:
            self.build()

    def _from_saver_def(self, saver_def) -> None:
        """Uses the save and restore ops a SaverDef names (a graph imported from a .meta file)."""
        graph = ops.get_default_graph()
        try:
            self.filename_tensor = graph.as_graph_element(saver_def.filename_tensor_name)
            self.save_tensor = graph.as_graph_element(saver_def.save_tensor_name)
            self.restore_op = graph.as_graph_element(saver_def.restore_op_name)
        except (KeyError, ValueError) as e:
            raise ValueError(f"The graph does not hold the saver this SaverDef describes: {e}") from None
        self._max_to_keep = saver_def.max_to_keep
        self._sharded = saver_def.sharded
        if saver_def.keep_checkpoint_every_n_hours:
            self._keep_hours = saver_def.keep_checkpoint_every_n_hours
            self._keep_every_s = self._keep_hours * 3600.0
            self._next_keep_time = time.time() + self._keep_every_s
        self._empty = False
        self._built = True

    @property
    def saver_def(self):
        """This saver as TensorFlow's SaverDef: the names of its filename tensor, save and restore ops."""
        return self.as_saver_def()

    def as_saver_def(self):
        self.build()
        if self._empty:
            return None
        return pb.SaverDef(
            filename_tensor_name=self.filename_tensor.name, save_tensor_name=self.save_tensor.name,
            restore_op_name=self.restore_op.name, max_to_keep=int(self._max_to_keep or 0),
            sharded=bool(self._sharded), keep_checkpoint_every_n_hours=float(self._keep_hours),
            version=pb.SaverDef.V2)

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False, export_scope=None,
                          clear_devices=False, clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """The default graph, its collections and this saver as a MetaGraphDef (written to ``filename``)."""
        return export_meta_graph(filename=filename, graph_def=ops.get_default_graph().as_graph_def(add_shapes=True),
                                 saver_def=self.saver_def, collection_list=collection_list, as_text=as_text,
                                 export_scope=export_scope, clear_devices=clear_devices,
                                 clear_extraneous_savers=clear_extraneous_savers,
                                 strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)

    def build(self) -> None:
        if self._built:
            return
        named = _saveables(self._var_list)
        self._empty = not named
        if self._empty:
            if not self._allow_empty:
                raise ValueError("No variables to save")
            self._built = True
            return
        with ops.name_scope(self._name or "save"):
            # TF's names: save/filename (the default prefix) behind save/Const, the tensor to feed.
            default = array_ops.constant(self._filename or "model", dtypes.string, name="filename/input")
            filename = array_ops.placeholder_with_default(default, shape=[], name="filename")
            self.filename_tensor = array_ops.placeholder_with_default(filename, shape=[], name="Const")
            groups: dict[str, list[tuple[str, object]]] = {}
            for name, v in named.items():
                groups.setdefault(v.device if self._sharded else "", []).append((name, v))
            saves, assigns, shard_files = [], [], []
            num_shards = len(groups)
            if self._sharded:  # (TensorFlow's form: each shard a checkpoint under a temporary name, then merged)
                temporary = string_ops.string_join([self.filename_tensor, "_temp/part"], name="StringJoin")
                shard_count = array_ops.constant(num_shards, dtypes.int32, name="num_shards")
            for shard, (device, members) in enumerate(sorted(groups.items())):
                with ops.device(device) if device else contextlib.nullcontext():
                    tensors = [v if isinstance(v, ops.Tensor) else v.value() for _, v in members]
                    target = self.filename_tensor
                    if self._sharded:
                        target = io_ops.sharded_filename(temporary, shard, shard_count)
                        shard_files.append(target)
                    saves.append(io_ops.save_v2(target, [n for n, _ in members], tensors))
                    restored = io_ops.restore_v2(self.filename_tensor, [n for n, _ in members],
                                                 [v.dtype.base_dtype for _, v in members])
                for (_, v), value in zip(members, restored):
                    if hasattr(v, "restore_ops"):  # (a partitioned variable's parts, a table's entries)
                        assigns += v.restore_ops(value)
                        continue
                    # (a mirrored variable: every copy; one synchronized on read: its share on each)
                    parts = v.restore_values(value) if hasattr(v, "restore_values") else \
                        [(target, value) for target in getattr(v, "components", (v,))]
                    for target, part in parts:
                        if isinstance(target, state_ops.ImportedResourceVariable):  # (TensorFlow's, by handle)
                            assigns.append(target.assign(part, read_value=False))
                        else:
                            if self._reshape:  # (a value of the same size, another shape: reshaped to the variable's)
                                shape = target.get_shape()
                                part = array_ops.reshape(part, shape.as_list() if shape.is_fully_defined()
                                                         else array_ops.shape(target))
                            assigns.append(state_ops.assign(target, part, validate_shape=True).op)
            with ops.control_dependencies(saves):
                if self._sharded:
                    saves = [io_ops.merge_v2_checkpoints(array_ops.stack(shard_files), self.filename_tensor)]
            self.save_tensor = control_flow_ops.with_dependencies(saves, self.filename_tensor,
                                                                  name="control_dependency")
            self.restore_op = control_flow_ops.group(*assigns, name="restore_all")
        self._saved_names = list(named)
        self._built = True

    # -- bookkeeping of kept checkpoints ---------------------------------------------
    @property
    def last_checkpoints(self) -> list[str]:
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time) -> None:
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths) -> None:
        """Takes over the kept checkpoints of an earlier run (those that still exist)."""
        now = time.time()
        self._last_checkpoints = [(p, now) for p in checkpoint_paths if checkpoint_exists(p)]

    def _record(self, path: str) -> None:
        if not self._max_to_keep:  # (None or 0: every checkpoint is kept, and none listed, as TF)
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != path]
        self._last_checkpoints.append((path, time.time()))
        while len(self._last_checkpoints) > self._max_to_keep:
            old, stamp = self._last_checkpoints.pop(0)
            if stamp >= self._next_keep_time:  # kept for good: one per keep_checkpoint_every_n_hours
                self._next_keep_time += self._keep_every_s
                continue
            _remove_checkpoint(old)

    # -- save and restore -----------------------------------------------------------------
    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        """Writes a checkpoint at ``save_path[-global_step]``; returns its prefix.

        The state file ('checkpoint' in the same folder) is updated only after every
        file of the checkpoint is in place.
        """
        if not self._built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        save_path = _local_path(save_path)
        if global_step is not None:
            step = global_step if isinstance(global_step, (int, np.integer)) else sess.run(global_step)
            save_path = f"{save_path}-{int(step):08d}" if self._pad_step_number else f"{save_path}-{int(step)}"
        elif os.path.basename(save_path) == (latest_filename or "checkpoint") and not self._sharded:
            raise ValueError(f"'latest_filename' collides with 'save_path': '{latest_filename or 'checkpoint'}' "
                             f"and '{save_path}'")
        save_dir = os.path.dirname(save_path) or "."
        if not os.path.isdir(save_dir):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        if not self._empty:
            # (by name, as TF's Saver: a session of another graph with the same ops works too)
            sess.run(self.save_tensor.name, {self.filename_tensor.name: save_path})
            self._record(save_path)
            if write_state:
                update_checkpoint_state(save_dir, save_path, self.last_checkpoints, latest_filename)
        if write_meta_graph:  # (an empty Saver writes one too, as TF's)
            with sess.graph.as_default():
                self.export_meta_graph(f"{save_path}.{meta_graph_suffix}")
        return None if self._empty else save_path

    def restore(self, sess, save_path) -> None:
        """Assigns every variable its value in checkpoint ``save_path``."""
        if self._empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = _local_path(save_path)
        if not checkpoint_exists(save_path):
            if _has_files(save_path):
                check_checkpoint(save_path)  # (DataLossError: the index is missing)
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        _log.info("Restoring parameters from %s", save_path)
        # (by name, as TF's Saver: a session of another graph with the same ops works too)
        sess.run(self.restore_op.name, {self.filename_tensor.name: save_path})


# ---------------------------------------------------------------------------
# Reading checkpoints without a graph


class CheckpointReader:
    """What ``tf.train.NewCheckpointReader(prefix)`` returns: a checkpoint's names, shapes and values."""

    def __init__(self, prefix: str):
        self._prefix = _checkpoint_prefix(_local_path(prefix)) if os.path.isdir(_local_path(prefix)) \
            else _local_path(prefix)
        self._index = io_ops.read_index(self._prefix)["tensors"]

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        return {name: list(entry["shape"]) for name, entry in self._index.items()}

    def get_variable_to_dtype_map(self) -> dict:
        return {name: dtypes.as_dtype(io_ops.entry_dtype(entry)) for name, entry in self._index.items()}

    def has_tensor(self, name: str) -> bool:
        return name in self._index

    def get_tensor(self, name: str) -> np.ndarray:
        """The saved value of ``name`` (NotFoundError if the checkpoint has no such tensor)."""
        return io_ops.load_checkpoint(self._prefix, [name])[name]

    def debug_string(self) -> bytes:
        lines = [f"{name} ({self.get_variable_to_dtype_map()[name].name}) {shape}"
                 for name, shape in sorted(self.get_variable_to_shape_map().items())]
        return ("\n".join(lines) + "\n").encode()


def NewCheckpointReader(filepattern: str) -> CheckpointReader:  # noqa: N802 - TF's name
    """A reader of the checkpoint at prefix ``filepattern`` (NotFoundError if there is none)."""
    return CheckpointReader(filepattern)


def write_graph(graph_or_graph_def, logdir: str, name: str, as_text: bool = True) -> str:
    """Writes a GraphDef to ``logdir/name`` (text format unless ``as_text=False``); returns the path."""
    graph_def = graph_or_graph_def.as_graph_def() if isinstance(graph_or_graph_def, ops.Graph) \
        else graph_or_graph_def
    logdir = _local_path(logdir)
    path = os.path.join(logdir, name)
    # (deterministic: the same graph gives the same bytes in every process, as TF writes them)
    data = (text_format.MessageToString(graph_def).encode() if as_text
            else graph_def.SerializeToString(deterministic=True))
    io_ops.atomic_write(path, lambda f: f.write(data))
    return path


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, input_map=None, **kwargs):
    """Adds the graph of a MetaGraphDef (or ``.meta`` file) to the default graph, under
    ``import_scope`` or else the current name scope (as TF), with ``input_map`` as in
    ``tf.import_graph_def``.

    Returns:
      A Saver that restores the original program's checkpoints into the imported
      variables, or None when the graph has no variables.

    Raises:
      TypeError: a keyword argument TF's function does not take (a misspelling is not dropped).
    """
    unknown = set(kwargs) - {"unbound_inputs_col_name", "restore_collections_predicate"}
    if unknown:
        raise TypeError(f"import_meta_graph() got unexpected keyword arguments {sorted(unknown)}")
    if kwargs.get("restore_collections_predicate") is not None:
        raise errors.UnimplementedError(None, None, "import_meta_graph(restore_collections_predicate=...) is not "
                                        "supported: every collection is restored")
    graph = ops.get_default_graph()
    scope_name = import_scope or ""
    if import_scope is None and graph.get_name_scope():
        import_scope = graph.get_name_scope()
        scope_name = import_scope + "/"  # (the scope we are in, entered again as it is)
    meta = read_meta_graph_file(meta_graph_or_file) if isinstance(meta_graph_or_file, str) else meta_graph_or_file
    graph_def = pb.GraphDef()
    graph_def.CopyFrom(meta.graph_def)
    if clear_devices:
        for node in graph_def.node:
            node.device = ""
    with ops.name_scope(None):  # (the scope is given whole to import_graph_def)
        import_graph_def(graph_def, input_map=input_map, name=scope_name)
    variables: dict = {}
    for key in sorted(meta.collection_def):
        collection = meta.collection_def[key]
        kind = collection.WhichOneof("kind")
        if kind == "node_list":
            for name in collection.node_list.value:
                full = f"{import_scope}/{name}" if import_scope else name
                graph.add_to_collection(key, graph.as_graph_element(full))
        elif kind == "bytes_list" and key == GraphKeys.SAVERS:
            for data in collection.bytes_list.value:
                graph.add_to_collection(key, Saver(saver_def=_scoped_saver_def(pb.SaverDef.FromString(data),
                                                                               import_scope)))
        elif kind == "bytes_list" and key == GraphKeys.QUEUE_RUNNERS:
            for data in collection.bytes_list.value:
                graph.add_to_collection(key, QueueRunner.from_proto(pb.QueueRunnerDef.FromString(data), import_scope))
        elif kind == "bytes_list" and key in VARIABLE_COLLECTIONS:
            for data in collection.bytes_list.value:
                variable_def = pb.VariableDef.FromString(data)
                var = variables.get(variable_def.variable_name)
                if var is None:
                    var = variables[variable_def.variable_name] = state_ops.Variable.from_proto(
                        variable_def, import_scope)
                graph.add_to_collection(key, var)
        elif kind == "bytes_list":
            for value in collection.bytes_list.value:
                graph.add_to_collection(key, value)
        elif kind == "int64_list":
            for value in collection.int64_list.value:
                graph.add_to_collection(key, int(value))
        elif kind == "float_list":
            for value in collection.float_list.value:
                graph.add_to_collection(key, float(value))
    if meta.HasField("saver_def"):
        return Saver(saver_def=_scoped_saver_def(meta.saver_def, import_scope))
    if graph.get_collection(GraphKeys.GLOBAL_VARIABLES):
        return Saver()
    return None


def _scoped_saver_def(saver_def, import_scope):
    scoped = pb.SaverDef()
    scoped.CopyFrom(saver_def)
    if import_scope:
        for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            setattr(scoped, field, f"{import_scope}/{getattr(scoped, field)}")
    return scoped
