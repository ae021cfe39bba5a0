"""Smaller parts of ``tf.train``: two hooks, ``basic_train_loop``, joined and conditional batching,
checkpoint helpers (iterate, time, remove, initialize variables from a checkpoint)."""

from __future__ import annotations

import logging
import os
import time

from ..framework import dtypes, errors
from ..framework import ops
from ..framework.ops import GraphKeys
from ..ops import array_ops, io_ops, state_ops, variable_scope
from ..ops.random_shuffle_queue import RandomShuffleQueue
from . import saver as saver_mod
from . import training_util
from .input import (batch_flat, batch_queue, dequeue_batch, flatten_tensors, fullness, queue_shapes,
                    shuffle_batch_flat)
from .queue_runner import QueueRunner, add_queue_runner
from .session_run_hook import SessionRunArgs, SessionRunHook
from ..ops.partitioned_variables import PartitionedVariable
from .warm_starting import by_full_name, initialize_from_checkpoint, initialize_parts

_log = logging.getLogger("distflow")


class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()``'s feed dict to every step."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class GlobalStepWaiterHook(SessionRunHook):
    """Holds each step until the global step reaches ``wait_until_step`` (staggered worker starts)."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = training_util.get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use GlobalStepWaiterHook.")

    def before_run(self, run_context):
        if self._worker_is_started or self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        last_logged = None
        while True:
            step = int(run_context.session.run(self._global_step_tensor))
            if step >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if last_logged != step:
                _log.info("Waiting for global step %d before starting training (at %d).", self._wait_until_step,
                          step)
                last_logged = step
            if run_context.stop_requested:
                return None
            time.sleep(0.5)


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Calls ``train_step_fn(sess, *args, **kwargs)`` until the supervisor says to stop.

    An AbortedError (a task of the cluster restarted) starts a new managed session and
    goes on, as in TF."""
    while True:
        try:
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *(args or ()), **(kwargs or {}))
            return
        except errors.AbortedError as e:
            _log.info("basic_train_loop: %s; starting a new session", e.message.splitlines()[0])


# ---------------------------------------------------------------------------
# Batching from several inputs, and batching with a keep condition


def _flatten_list(tensors_list, enqueue_many):
    """``flatten_tensors`` of each input of a join; they must have one structure."""
    if not tensors_list:
        raise ValueError("Expecting at least one input to join; got an empty tensors_list")
    flats = [flatten_tensors(t, enqueue_many) for t in tensors_list]
    first = flats[0][1]
    for i, (flat, pack) in enumerate(flats[1:], 1):
        if pack.keys != first.keys:
            raise ValueError(f"All dictionaries in tensors_list must have the same keys: input 0 has "
                             f"{first.keys}, input {i} {pack.keys}")
        if len(flat) != len(flats[0][0]) or [k is None for k in pack.sparse] != [k is None for k in first.sparse]:
            raise ValueError(f"Every input of a join must hold the same number of tensors, sparse in the same "
                             f"places: input 0 has {len(flats[0][0])}, input {i} {len(flat)}")
    return [f for f, _ in flats], first


def _join(queue_type, flat_list, pack, batch_size, capacity, enqueue_many, shapes, allow_smaller_final_batch,
          shared_name, name, default, **queue_kwargs):
    with ops.name_scope(name, default, [t for f in flat_list for t in f]) as scope:
        first = flat_list[0]
        dynamic_pad = queue_kwargs.pop("dynamic_pad", False)
        element_shapes = queue_shapes(first, shapes, enqueue_many, dynamic_pad, pack.sparse)
        if queue_type is None:
            queue = batch_queue([t.dtype.base_dtype for t in first], element_shapes, capacity, dynamic_pad,
                                shared_name)
        else:
            queue = queue_type(capacity=capacity, dtypes=[t.dtype.base_dtype for t in first], shapes=element_shapes,
                               shared_name=shared_name, **queue_kwargs)
        enqueues = [queue.enqueue_many(f) if enqueue_many else queue.enqueue(f) for f in flat_list]
        add_queue_runner(QueueRunner(queue, enqueues))
        if queue_type is None:
            fullness(f"fraction_of_{capacity}_full", queue.size(), capacity)
        else:
            below = queue_kwargs["min_after_dequeue"]
            fullness(f"fraction_over_{below}_of_{capacity - below}_full", queue.size(), capacity, below)
        out = dequeue_batch(queue, batch_size, allow_smaller_final_batch, scope)
        return pack(out if isinstance(out, list) else [out])


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
               allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches elements drawn from several lists of tensors (one enqueuing thread each); padded
    to the longest element of each batch with ``dynamic_pad``."""
    return _join(None, *_flatten_list(tensors_list, enqueue_many), batch_size, capacity, enqueue_many, shapes,
                 allow_smaller_final_batch, shared_name, name, "batch_join", dynamic_pad=dynamic_pad)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None, enqueue_many=False,
                       shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    return _join(RandomShuffleQueue, *_flatten_list(tensors_list, enqueue_many), batch_size, capacity, enqueue_many,
                 shapes, allow_smaller_final_batch, shared_name, name, "shuffle_batch_join",
                 min_after_dequeue=min_after_dequeue, seed=seed)


def _kept(flat, keep_input, enqueue_many):
    """The elements of ``flat`` (as ``flatten_tensors`` made it) for which ``keep_input`` holds
    (a scalar bool, or one per row with enqueue_many), as a batch of rows to enqueue."""
    from ..ops.manip_ops import boolean_mask  # noqa: PLC0415

    keep = ops.convert_to_tensor(keep_input, dtype=dtypes.bool)
    ndims = keep.shape.ndims
    if ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if ndims > 1:
        raise ValueError(f"`keep_input` must be 0 or 1 dimensions; got shape {keep.shape}")
    if ndims == 1 and not enqueue_many:
        raise ValueError(f"`keep_input` cannot be a vector when `enqueue_many=False`; got shape {keep.shape}")
    if not enqueue_many:
        keep = array_ops.reshape(keep, [1])
        flat = [array_ops.expand_dims(t, 0) for t in flat]
    elif ndims == 0:  # (one decision for the whole batch of rows)
        keep = array_ops.fill(array_ops.shape(flat[0])[:1], keep)
    return [boolean_mask(t, keep) for t in flat]


def _kept_list(tensors_list, keep_input, enqueue_many):
    flat_list, pack = _flatten_list(tensors_list, enqueue_many)
    return [_kept(f, keep_input, enqueue_many) for f in flat_list], pack


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
                dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """``batch`` of the elements for which ``keep_input`` is true."""
    flat, pack = flatten_tensors(tensors, enqueue_many)
    return batch_flat(_kept(flat, keep_input, enqueue_many), pack, batch_size, num_threads, capacity, True, shapes,
                      dynamic_pad, allow_smaller_final_batch, shared_name, name)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1, seed=None,
                        enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                        name=None):
    flat, pack = flatten_tensors(tensors, enqueue_many)
    return shuffle_batch_flat(_kept(flat, keep_input, enqueue_many), pack, batch_size, capacity, min_after_dequeue,
                              num_threads, seed, True, shapes, allow_smaller_final_batch, shared_name, name)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False, shapes=None,
                     dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    return _join(None, *_kept_list(tensors_list, keep_input, enqueue_many), batch_size, capacity, True, shapes,
                 allow_smaller_final_batch, shared_name, name, "batch_join", dynamic_pad=dynamic_pad)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed=None,
                             enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                             name=None):
    return _join(RandomShuffleQueue, *_kept_list(tensors_list, keep_input, enqueue_many), batch_size, capacity, True,
                 shapes, allow_smaller_final_batch, shared_name, name, "shuffle_batch_join",
                 min_after_dequeue=min_after_dequeue, seed=seed)


def match_filenames_once(pattern, name=None):
    """A local variable holding the files matching ``pattern`` (matched when it is initialized)."""
    with ops.name_scope(name, "matching_filenames", [pattern]) as scope:
        from ..platform import gfile  # noqa: PLC0415

        names = sorted(gfile.Glob(pattern)) if isinstance(pattern, (str, list, tuple)) else None
        if names is None:
            raise NotImplementedError("match_filenames_once needs a Python string pattern in distflow")
        value = array_ops.constant([n.encode() for n in names], dtype=dtypes.string) if names else \
            array_ops.constant([], dtype=dtypes.string)
        return state_ops.Variable(value, name=scope, trainable=False, validate_shape=False,
                                  collections=[GraphKeys.LOCAL_VARIABLES])


# ---------------------------------------------------------------------------
# Checkpoint helpers


def get_checkpoint_mtimes(checkpoint_prefixes) -> list:
    """The modification times of the checkpoints' index files (missing ones are skipped)."""
    out = []
    for prefix in checkpoint_prefixes:
        path = io_ops.index_path(saver_mod._local_path(prefix))
        if os.path.exists(path):
            out.append(os.stat(path).st_mtime)
    return out


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=None, meta_graph_suffix="meta") -> None:
    """Deletes every file of a checkpoint (data shards, index, and its ``.<meta_graph_suffix>`` meta graph)."""
    if checkpoint_format_version not in (None, 2):
        raise errors.UnimplementedError(None, None, f"remove_checkpoint(checkpoint_format_version="
                                        f"{checkpoint_format_version!r}): distflow writes one format only")
    saver_mod._remove_checkpoint(saver_mod._local_path(checkpoint_prefix), meta_graph_suffix)


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None, last_preserved_timestamp=None):
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)

    def relative(p):  # (with a relative save_dir, relative paths are made relative to it, as TF does)
        return os.path.relpath(p, save_dir) if not os.path.isabs(save_dir) and not os.path.isabs(p) else p

    model_checkpoint_path, paths = relative(model_checkpoint_path), [relative(p) for p in paths]
    state = saver_mod.CheckpointState(model_checkpoint_path=model_checkpoint_path, all_model_checkpoint_paths=paths,
                                      all_model_checkpoint_timestamps=list(all_model_checkpoint_timestamps or []))
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    return state


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint of ``checkpoint_dir`` as it appears (an evaluation loop's source).

    Ends after ``timeout`` seconds without a new one (unless ``timeout_fn()`` says to go on).
    """
    last = None
    while True:
        start = time.monotonic()
        found = None
        while found is None:
            path = saver_mod.latest_checkpoint(checkpoint_dir)
            if path is not None and path != last:
                found = path
                break
            if timeout is not None and time.monotonic() - start >= timeout:
                break
            time.sleep(min(1.0, timeout or 1.0))
        if found is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        last = found
        began = time.monotonic()
        yield found
        pause = min_interval_secs - (time.monotonic() - began)
        if pause > 0:
            time.sleep(pause)


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader of the checkpoint (or of the latest one in a directory)."""
    return saver_mod.CheckpointReader(ckpt_dir_or_file)


def init_from_checkpoint(ckpt_dir_or_file, assignment_map) -> None:
    """Makes the given variables initialize from a checkpoint instead of their initializers.

    ``assignment_map`` maps checkpoint names to variables, as TF's does:

    - ``{"ckpt_scope/": "scope/"}``: every variable that ``get_variable`` made under ``scope/``
      starts from ``ckpt_scope/<the rest of its name>``; ``"/"`` on either side is the root.
      Each of them must be in the checkpoint (a ValueError names the first that is not).
    - ``{"ckpt_name": "scope/var"}``, or a variable, a PartitionedVariable or a list of one
      variable's parts: that variable starts from the checkpoint tensor, of the same shape.
      A partitioned variable is named by its full name, and each part starts from its slice.
    """
    reader = saver_mod.CheckpointReader(ckpt_dir_or_file)
    prefix = reader._prefix
    shapes = reader.get_variable_to_shape_map()
    store = variable_scope.variable_store()
    made = {**{n: [v] for n, v in store.variables.items() if getattr(v, "_save_slice_info", None) is None},
            **{n: list(v) for n, v in store.partitioned.items()}}
    pairs = []
    for source, target in assignment_map.items():
        if isinstance(target, str) and target.endswith("/"):
            pairs += _scope_pairs(source, target, made, shapes, ckpt_dir_or_file)
            continue
        if isinstance(target, str):
            parts = made.get(target) or dict(by_full_name(state_ops.global_variables())).get(target)
        else:
            parts = list(target) if isinstance(target, (PartitionedVariable, list, tuple)) else [target]
        if not parts:
            raise ValueError(f"init_from_checkpoint: no variable named '{target}' (to start from '{source}')")
        if source not in shapes:
            raise ValueError(f"Tensor {source} is not found in {ckpt_dir_or_file} checkpoint")
        info = getattr(parts[0], "_save_slice_info", None)
        shape = list(info.full_shape) if info is not None else parts[0].shape.as_list()
        if list(shapes[source]) != shape:
            raise ValueError(f"Shape of variable {info.full_name if info is not None else parts[0].op.name} "
                             f"({shape}) doesn't match with shape of tensor {source} ({list(shapes[source])}) from "
                             "checkpoint reader.")
        pairs.append((source, parts))
    for name, parts in pairs:
        if len(parts) == 1 and getattr(parts[0], "_save_slice_info", None) is None:
            initialize_from_checkpoint(parts[0], prefix, name)
        else:
            with ops.colocate_with(parts[0].op):
                value = io_ops.restore_v2(array_ops.constant(prefix), [name], [parts[0].dtype.base_dtype])[0]
            initialize_parts(parts, value)


def _scope_pairs(source, target, made, shapes, where) -> list:
    """(checkpoint name, parts) of each variable in the scope ``target`` (as TF maps scopes)."""
    if not source.endswith("/"):
        raise ValueError(f"Assignment map with scope only name {target} should map to scope only {source}. "
                         "Should be 'scope/': 'other_scope/'.")
    target_scope = "" if target == "/" else target
    source_scope = "" if source == "/" else source
    pairs = []
    for name in sorted(made):
        if not name.startswith(target_scope):
            continue
        tensor = source_scope + name[len(target_scope):]
        if tensor not in shapes:
            raise ValueError(f"Tensor {tensor} ({name[len(target_scope):]} in {source}) is not found in {where} "
                             "checkpoint")
        pairs.append((tensor, made[name]))
    return pairs
