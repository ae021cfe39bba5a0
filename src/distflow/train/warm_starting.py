"""Warm-starting: variables that begin from another model's checkpoint, as TF 1.x's
``tf.train.warm_start``, ``tf.estimator.WarmStartSettings`` and ``VocabInfo``.

A warm-started variable's initializer assigns a tensor of the checkpoint instead of its
own initial value. The tensor is read when the initializer runs, as a restore reads it,
so only a model that a session initializes (a fresh one, not one restored from its own
checkpoint) begins from it; an Estimator warm-starts only when its model_dir holds no
checkpoint yet, as TensorFlow's does.

A partitioned variable is warm-started as a whole, under its full name, each part from its
slice. A variable whose rows (or columns, ``axis=1``) follow a vocabulary (an embedding, the
weights of a categorical column) may be warm-started across a change of vocabulary
(``VocabInfo``): each entry of the new vocabulary takes the old row of the same entry where
the old vocabulary had it, and the backup initializer's row otherwise, as do the
out-of-vocabulary buckets after the vocabulary's rows.
"""

from __future__ import annotations

import logging
from collections import namedtuple

import numpy as np

from ..framework import ops
from ..framework.ops import GraphKeys
from ..ops import array_ops, init_ops, io_ops, math_ops, slicing_ops, state_ops
from ..ops.partitioned_variables import PartitionedVariable
from ..platform import gfile
from . import saver as saver_mod

_log = logging.getLogger("distflow")


class VocabInfo(namedtuple("VocabInfo", ["new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab",
                                         "old_vocab_size", "backup_initializer", "axis"])):
    """How a variable's rows (``axis=0``) or columns (``axis=1``) follow a vocabulary, new and
    old: each vocabulary a file of one entry per line, or a list of entries;
    ``old_vocab_size=-1`` takes the whole old vocabulary. Rows of new entries and of the
    ``num_oov_buckets`` buckets come from ``backup_initializer`` (zeros if None)."""

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size=-1,
                backup_initializer=None, axis=0):
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1.  Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size,
                               backup_initializer, axis)


class WarmStartSettings(namedtuple("WarmStartSettings", ["ckpt_to_initialize_from", "vars_to_warm_start",
                                                         "var_name_to_vocab_info", "var_name_to_prev_var_name"])):
    """What an Estimator warm-starts from (``Estimator(warm_start_from=...)``): the arguments
    of :func:`warm_start`."""

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
                var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        return super().__new__(cls, ckpt_to_initialize_from, vars_to_warm_start, var_name_to_vocab_info or {},
                               var_name_to_prev_var_name or {})


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None) -> None:
    """Makes variables of the default graph initialize from ``ckpt_to_initialize_from`` (a
    checkpoint's prefix, or a directory: its latest checkpoint).

    ``vars_to_warm_start``: a regular expression matched against the names of the trainable
    variables (the default, ``".*"``, takes them all); a list of such expressions, each
    matched against all global variables (optimizer slots, moving averages); a list of
    variables; or None, for the trainable variables named in ``var_name_to_vocab_info``.
    ``var_name_to_prev_var_name`` names a variable's tensor in the checkpoint where it is
    not the variable's own name. A variable the checkpoint lacks, or holds with another
    shape, is a ValueError naming both; so is an entry of either map that names no variable
    being warm-started.
    """
    reader = saver_mod.CheckpointReader(ckpt_to_initialize_from)
    vocab_infos = dict(var_name_to_vocab_info or {})
    prev_names = dict(var_name_to_prev_var_name or {})
    targets = by_full_name(_variables_to_warm_start(vars_to_warm_start, vocab_infos))
    shapes = reader.get_variable_to_shape_map()
    used_vocab, used_prev = set(), set()
    for name, parts in targets:
        prev = prev_names.get(name, name)
        used_prev.add(name)
        if prev not in shapes:
            raise ValueError(f"Tensor {prev} (the checkpoint's name for variable {name}) is not found in "
                             f"{ckpt_to_initialize_from} checkpoint")
        info = vocab_infos.get(name)
        full_shape, dtype = _full_shape(parts), parts[0].dtype.base_dtype
        with ops.colocate_with(parts[0].op):
            if info is not None:
                used_vocab.add(name)
                value = _with_vocabulary(name, full_shape, dtype, reader, prev, shapes[prev], info)
            else:
                if list(shapes[prev]) != full_shape:
                    raise ValueError(f"Shape of variable {name} ({full_shape}) doesn't match with shape of "
                                     f"tensor {prev} ({list(shapes[prev])}) from checkpoint reader.")
                value = io_ops.restore_v2(array_ops.constant(reader._prefix), [prev], [dtype])[0]
        initialize_parts(parts, value)
        _log.info("Warm-starting variable: %s; prev_var_name: %s", name, prev if prev != name else "Unchanged")
    for unused, what in ((set(vocab_infos) - used_vocab, "var_name_to_vocab_info"),
                         (set(prev_names) - used_prev, "var_name_to_prev_var_name")):
        if unused:
            raise ValueError(f"You provided the following variables in {what} that were not used: "
                             f"{sorted(unused)}.  Perhaps you misspelled them?  Here is the list of viable "
                             f"variable names: {sorted(name for name, _ in targets)}")


def by_full_name(variables) -> list[tuple[str, list]]:
    """(name, parts) for each variable to warm-start: a partitioned variable's parts under
    its full name, as its checkpoint holds it; any other variable alone."""
    groups: dict[str, list] = {}
    for var in variables:
        info = getattr(var, "_save_slice_info", None)
        parts = groups.setdefault(info.full_name if info is not None else var.op.name, [])
        if not any(var is p for p in parts):
            parts.append(var)
    return list(groups.items())


def _full_shape(parts: list) -> list:
    info = getattr(parts[0], "_save_slice_info", None)
    return list(info.full_shape) if info is not None else parts[0].shape.as_list()


def initialize_parts(parts: list, value) -> None:
    """Each part's initial value: its slice of ``value``, the whole variable's."""
    for part in parts:
        info = getattr(part, "_save_slice_info", None)
        with ops.colocate_with(part.op):
            _set_initial_value(part, value if info is None else slicing_ops.slice(value, info.var_offset,
                                                                                 info.var_shape))


def initialize_from_checkpoint(var, prefix: str, tensor_name: str) -> None:
    """Makes ``var``'s initializer assign the checkpoint's ``tensor_name`` (read as it runs)."""
    with ops.colocate_with(var.op):
        restored = io_ops.restore_v2(array_ops.constant(prefix), [tensor_name], [var.dtype.base_dtype])[0]
        _set_initial_value(var, restored)


def _set_initial_value(var, value) -> None:
    var._initializer_op = state_ops.assign(var, value).op
    var._initial_value = value


def _variables_to_warm_start(vars_to_warm_start, vocab_infos: dict) -> list:
    if isinstance(vars_to_warm_start, str):
        return ops.get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    if vars_to_warm_start is None:
        return [v for v in ops.get_collection(GraphKeys.TRAINABLE_VARIABLES) if v.op.name in vocab_infos]
    if isinstance(vars_to_warm_start, (list, tuple)):
        vars_to_warm_start = [p for v in vars_to_warm_start
                              for p in (list(v) if isinstance(v, PartitionedVariable) else [v])]
        if all(isinstance(v, str) for v in vars_to_warm_start):
            found = []
            for scope in vars_to_warm_start:
                found += [v for v in ops.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope) if v not in found]
            return found
        if all(isinstance(v, state_ops.Variable) for v in vars_to_warm_start):
            return list(vars_to_warm_start)
        raise ValueError("If `vars_to_warm_start` is a list, it must be all `Variable` or all `str`.  Given types "
                         f"are {[type(v).__name__ for v in vars_to_warm_start]}")
    raise ValueError(f"vars_to_warm_start must be a string, a list or None, got {vars_to_warm_start!r}")


def _vocabulary(vocab, size: int, what: str) -> list:
    if isinstance(vocab, (str, bytes)):
        with gfile.GFile(vocab.decode() if isinstance(vocab, bytes) else vocab, "r") as f:
            entries = [line.rstrip("\r\n") for line in f]
    else:
        entries = [e.decode() if isinstance(e, bytes) else str(e) for e in vocab]
    if size is not None and size >= 0:
        if size > len(entries):
            raise ValueError(f"{what}_size is {size}, but the {what} has only {len(entries)} entries")
        entries = entries[:size]
    return entries


def _with_vocabulary(name: str, shape: list, dtype, reader, prev: str, prev_shape, info: VocabInfo):
    """The whole variable's initial value across a change of vocabulary: the old rows
    (columns) of the entries both vocabularies have, the backup initializer's for the rest
    (see the module docstring)."""
    axis = info.axis
    new = _vocabulary(info.new_vocab, info.new_vocab_size, "new_vocab")
    old = _vocabulary(info.old_vocab, info.old_vocab_size, "old_vocab")
    if len(shape) < axis + 1 or shape[axis] != len(new) + info.num_oov_buckets:
        raise ValueError(f"Variable {name} has shape {shape}: along axis {axis} it must have new_vocab_size + "
                         f"num_oov_buckets = {len(new)} + {info.num_oov_buckets} entries")
    if len(prev_shape) != len(shape) or prev_shape[axis] < len(old) or any(
            a != b for k, (a, b) in enumerate(zip(prev_shape, shape)) if k != axis):
        raise ValueError(f"Tensor {prev} of the checkpoint has shape {list(prev_shape)}: it cannot be variable "
                         f"{name}'s rows (shape {shape}, axis {axis}) of an old vocabulary of {len(old)} entries")
    where = {}
    for i, entry in enumerate(old):
        where.setdefault(entry, i)
    source = np.array([where.get(entry, -1) for entry in new] + [-1] * info.num_oov_buckets, np.int64)
    found = source >= 0
    backup = info.backup_initializer or init_ops.zeros_initializer()
    mask_shape = [1] * len(shape)
    mask_shape[axis] = shape[axis]
    with ops.name_scope(f"{name}/warm_start"):
        old_rows = io_ops.restore_v2(array_ops.constant(reader._prefix), [prev], [dtype])[0]
        rows = slicing_ops.gather(old_rows, np.where(found, source, 0), axis=axis)
        mask = array_ops.broadcast_to(array_ops.constant(found.reshape(mask_shape)), shape)
        value = math_ops.where(mask, rows, backup(shape, dtype=dtype))
    _log.info("Warm-starting %s from %s with a vocabulary: %d of %d entries found in the old one", name, prev,
              int(found[:len(new)].sum()), len(new))
    return value
