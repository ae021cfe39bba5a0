"""``tf.estimator.RunConfig``: where an Estimator writes, how often, and its task in a cluster
(from TF_CONFIG, as TF reads it)."""

from __future__ import annotations

import json
import os

from ..distributed.cluster_spec import ClusterSpec
from ..framework import errors


class RunConfig:
    """How an Estimator runs. Without ``save_checkpoints_steps`` or ``_secs``, a checkpoint is
    saved every 600 s (and always at the end of ``train``). The cluster, this task's type and
    index and whether it is the chief come from the ``TF_CONFIG`` environment variable:
    ``{"cluster": {...}, "task": {"type": "worker", "index": 1}}``. ``train_distribute`` and
    ``eval_distribute`` are tf.distribute strategies that ``train`` and ``evaluate`` run the
    model function under, once per replica (or both from ``experimental_distribute``, a
    ``tf.contrib.distribute.DistributeConfig``). ``device_fn`` places training's ops in place
    of the ``replica_device_setter`` a cluster with ps tasks gets. A worker task of a
    cluster starts training at once; TF 1.x made worker ``i`` wait ``5 * (i + 1)`` seconds,
    up to a minute, which ``experimental_max_worker_delay_secs`` asks for (up to that many
    seconds)."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100, save_checkpoints_steps=None,
                 save_checkpoints_secs=None, session_config=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100, train_distribute=None,
                 device_fn=None, protocol=None, eval_distribute=None, experimental_distribute=None,
                 experimental_max_worker_delay_secs=None, session_creation_timeout_secs=7200):
        if save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError("Can not provide both save_checkpoints_steps and save_checkpoints_secs.")
        if experimental_distribute is not None:  # (tf.contrib.distribute.DistributeConfig)
            if getattr(experimental_distribute, "remote_cluster", None) is not None:
                raise errors.UnimplementedError(
                    None, None, "RunConfig(experimental_distribute=DistributeConfig(remote_cluster=...)), TF's "
                    "standalone-client mode, is not supported: run each task's program with TF_CONFIG")
            train_distribute = train_distribute or experimental_distribute.train_distribute
            eval_distribute = eval_distribute or experimental_distribute.eval_distribute
        for name, strategy in (("train_distribute", train_distribute), ("eval_distribute", eval_distribute)):
            if strategy is not None and not hasattr(strategy, "experimental_run_v2"):
                raise ValueError(f"{name} must be a tf.distribute strategy, got {strategy!r}")
        if device_fn is not None and not callable(device_fn):
            raise ValueError(f"device_fn must be callable with exactly one argument \"op\", got {device_fn!r}")
        if experimental_max_worker_delay_secs is not None and not isinstance(experimental_max_worker_delay_secs, int):
            raise ValueError(f"experimental_max_worker_delay_secs must be an integer if set, got "
                             f"{experimental_max_worker_delay_secs!r}")
        if protocol not in (None, "grpc"):
            raise ValueError(f"protocol must be 'grpc', got {protocol!r}")
        self._model_dir = model_dir
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = save_checkpoints_steps
        self._save_checkpoints_secs = save_checkpoints_secs if save_checkpoints_steps is None else None
        if save_checkpoints_steps is None and save_checkpoints_secs is None:
            self._save_checkpoints_secs = 600
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._session_creation_timeout_secs = session_creation_timeout_secs
        self._train_distribute = train_distribute
        self._eval_distribute = eval_distribute
        self._experimental_distribute = experimental_distribute
        self._device_fn = device_fn
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._read_tf_config()

    def _read_tf_config(self) -> None:
        config = json.loads(os.environ.get("TF_CONFIG") or "{}")
        cluster = config.get("cluster") or {}
        task = config.get("task") or {}
        self._cluster_spec = ClusterSpec(cluster)
        self._task_type = task.get("type", "worker")
        self._task_id = int(task.get("index", 0))
        self._num_ps_replicas = len(cluster.get("ps", []))
        self._num_worker_replicas = len(cluster.get("worker", [])) + len(cluster.get("chief", [])) or 1
        has_chief = "chief" in cluster
        self._is_chief = (self._task_type == "chief") if has_chief else (
            self._task_type in ("worker", "master") and self._task_id == 0)
        address = cluster.get(self._task_type, [None] * (self._task_id + 1))
        self._master = f"grpc://{address[self._task_id]}" if cluster and self._task_type != "evaluator" else ""

    def replace(self, **kwargs) -> "RunConfig":
        """A copy with ``kwargs`` changed (RunConfig's own keyword arguments)."""
        values = {name: getattr(self, name) for name in (
            "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps", "session_config",
            "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute",
            "eval_distribute", "device_fn", "experimental_max_worker_delay_secs", "session_creation_timeout_secs")}
        if "save_checkpoints_steps" not in kwargs and "save_checkpoints_secs" not in kwargs:
            values["save_checkpoints_secs"] = self.save_checkpoints_secs if self.save_checkpoints_steps is None \
                else None
        values.update(kwargs)
        return type(self)(**self._own_arguments(), **values)

    def _own_arguments(self) -> dict:
        """A subclass's constructor arguments beyond RunConfig's, for ``replace``."""
        return {}

    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    cluster_spec = property(lambda self: self._cluster_spec)
    task_type = property(lambda self: self._task_type)
    task_id = property(lambda self: self._task_id)
    is_chief = property(lambda self: self._is_chief)
    master = property(lambda self: self._master)
    num_ps_replicas = property(lambda self: self._num_ps_replicas)
    num_worker_replicas = property(lambda self: self._num_worker_replicas)
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    experimental_distribute = property(lambda self: self._experimental_distribute)
    device_fn = property(lambda self: self._device_fn)
    experimental_max_worker_delay_secs = property(lambda self: self._experimental_max_worker_delay_secs)
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)
