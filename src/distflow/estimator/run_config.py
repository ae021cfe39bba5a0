"""``tf.estimator.RunConfig``: where an Estimator writes, how often, and its task in a cluster
(from TF_CONFIG, as TF reads it)."""

from __future__ import annotations

import json
import os

from ..distributed.cluster_spec import ClusterSpec
from ..framework import errors
from ..runtime.config import ConfigProto
from ..train.monitored_session import USE_DEFAULT, frequencies  # (neither given: every 600 s; both None: none)


class TaskType:
    """The task types of a TF_CONFIG cluster."""

    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."
# what replace may change (TF's list, with distflow's distribution arguments)
_REPLACEABLE = ("model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
                "save_checkpoints_secs", "session_config", "keep_checkpoint_max", "keep_checkpoint_every_n_hours",
                "log_step_count_steps", "train_distribute", "eval_distribute", "device_fn",
                "experimental_max_worker_delay_secs", "session_creation_timeout_secs")


class RunConfig:
    """How an Estimator runs. Without ``save_checkpoints_steps`` or ``_secs``, a checkpoint is
    saved every 600 s (and always at the end of ``train``); both given as None, none is saved.
    The cluster, this task's type and index and whether it is the chief come from the
    ``TF_CONFIG`` environment variable, checked as TF checks it:
    ``{"cluster": {...}, "task": {"type": "worker", "index": 1}}``, with ``model_dir``,
    ``session_master``, ``eval_session_master`` (an evaluator's) and ``service`` keys too,
    and a legacy cluster's ``master`` job as its chief. (A cluster without a chief, which TF
    refuses, is taken with worker 0 as the chief: tf.distribute's multi-worker clusters.)
    ``train_distribute`` and ``eval_distribute`` are tf.distribute strategies that ``train``
    and ``evaluate`` run the model function under, once per replica (or both from
    ``experimental_distribute``, a ``tf.contrib.distribute.DistributeConfig``). ``device_fn``
    places training's ops in place of the ``replica_device_setter`` a cluster with ps tasks
    gets. A worker task of a cluster starts training at once; TF 1.x made worker ``i`` wait
    ``5 * (i + 1)`` seconds, up to a minute, which ``experimental_max_worker_delay_secs``
    asks for (up to that many seconds)."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=USE_DEFAULT, save_checkpoints_secs=USE_DEFAULT, session_config=None,
                 keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 train_distribute=None, device_fn=None, protocol=None, eval_distribute=None,
                 experimental_distribute=None, experimental_max_worker_delay_secs=None,
                 session_creation_timeout_secs=7200):
        if save_checkpoints_steps is not None and save_checkpoints_secs is not None and \
                USE_DEFAULT not in (save_checkpoints_steps, save_checkpoints_secs):
            raise ValueError(_SAVE_CKPT_ERR)
        save_checkpoints_steps, save_checkpoints_secs = frequencies(save_checkpoints_steps, save_checkpoints_secs,
                                                                    (None, 600))
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
        tf_config = _tf_config()
        self._model_dir = _model_dir(tf_config, model_dir)
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = save_checkpoints_steps
        self._save_checkpoints_secs = save_checkpoints_secs
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
        _validate_properties(self)
        self._read_tf_config(tf_config)

    def _read_tf_config(self, config: dict) -> None:
        service = config.get("service")
        if service is not None and not isinstance(service, dict):
            raise TypeError(f'If "service" is set in TF_CONFIG, it must be a dict. Given {type(service)}')
        self._service = service
        cluster = config.get("cluster") or {}
        task = config.get("task") or {}
        self._cluster_spec = ClusterSpec(cluster)
        if not cluster:  # (one process: TF_CONFIG may still name its masters)
            self._task_type = task.get("type", TaskType.WORKER)
            self._task_id = int(task.get("index", 0))
            if self._task_type != TaskType.WORKER:
                raise ValueError('If "cluster" is not set in TF_CONFIG, task type must be WORKER.')
            if self._task_id != 0:
                raise ValueError('If "cluster" is not set in TF_CONFIG, task index must be 0.')
            self._master = config.get("session_master", "")
            self._evaluation_master = config.get("eval_session_master", "")
            self._is_chief, self._num_ps_replicas, self._num_worker_replicas = True, 0, 1
            return
        chief = TaskType.MASTER if TaskType.MASTER in cluster else TaskType.CHIEF
        if chief == TaskType.MASTER and TaskType.CHIEF in cluster:
            raise ValueError("If `master` node exists in `cluster`, job `chief` is not supported.")
        if len(cluster.get(chief, [])) > 1:
            raise ValueError(f'The "cluster" in TF_CONFIG must have only one "{chief}" node.')
        self._task_type, self._task_id = _task_of(cluster, task)
        if chief == TaskType.MASTER and self._task_type == TaskType.EVALUATOR:
            raise ValueError("If `master` node exists in `cluster`, task_type `evaluator` is not supported.")
        if self._task_type == TaskType.EVALUATOR:
            self._evaluation_master = config.get("eval_session_master", "")
        elif "eval_session_master" in config:
            raise ValueError(f"Key (eval_session_master) should not be set for task type other than evaluator. Task "
                             f"type: {self._task_type}")
        else:
            self._evaluation_master = ""
        if self._task_type == TaskType.EVALUATOR:  # (it runs apart from the cluster)
            self._cluster_spec = ClusterSpec({})
            self._master, self._num_ps_replicas, self._num_worker_replicas = "", 0, 0
            self._is_chief = False
            return
        jobs = [job for job, tasks in cluster.items() if tasks]
        if "session_master" in config:
            self._master = config["session_master"]
        elif len(jobs) == 1 and len(cluster[jobs[0]]) == 1:
            self._master = ""  # (a cluster of one task: the session runs in process)
        else:
            self._master = f"grpc://{cluster[self._task_type][self._task_id]}"
        self._num_ps_replicas = len(cluster.get(TaskType.PS, []))
        self._num_worker_replicas = len(cluster.get(TaskType.WORKER, [])) + len(cluster.get(chief, [])) or 1
        if chief in cluster:
            self._is_chief = self._task_type == chief
        else:  # (no chief: worker 0 is, as tf.distribute's multi-worker clusters have it)
            self._is_chief = self._task_type == TaskType.WORKER and self._task_id == 0

    def replace(self, **kwargs) -> "RunConfig":
        """A copy with ``kwargs`` changed (of RunConfig's own keyword arguments, those TF lets
        ``replace`` change): a checkpoint frequency replaces the other one."""
        unknown = sorted(set(kwargs) - set(_REPLACEABLE))
        if unknown:
            raise ValueError(f"Replacing {', '.join(unknown)} is not supported. Allowed properties are "
                             f"{', '.join(_REPLACEABLE)}.")
        values = {name: getattr(self, name) for name in _REPLACEABLE}
        values.update(kwargs)
        steps, secs = values.pop("save_checkpoints_steps"), values.pop("save_checkpoints_secs")
        if "save_checkpoints_steps" in kwargs and "save_checkpoints_secs" in kwargs:
            if steps is not None and secs is not None:
                raise ValueError(_SAVE_CKPT_ERR)
        elif "save_checkpoints_steps" in kwargs and steps is not None:
            secs = None
        elif "save_checkpoints_secs" in kwargs and secs is not None:
            steps = None
        return type(self)(**self._own_arguments(), save_checkpoints_steps=steps, save_checkpoints_secs=secs,
                          **values)

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
    evaluation_master = property(lambda self: self._evaluation_master)
    service = property(lambda self: self._service)
    num_ps_replicas = property(lambda self: self._num_ps_replicas)
    num_worker_replicas = property(lambda self: self._num_worker_replicas)
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    experimental_distribute = property(lambda self: self._experimental_distribute)
    device_fn = property(lambda self: self._device_fn)
    experimental_max_worker_delay_secs = property(lambda self: self._experimental_max_worker_delay_secs)
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)


def _tf_config() -> dict:
    config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    if not isinstance(config, dict):
        raise ValueError(f"TF_CONFIG should be a JSON object, got {config!r}")
    return config


def _model_dir(tf_config: dict, model_dir):
    """The constructor's model_dir, or TF_CONFIG's; both, they must agree."""
    from_config = tf_config.get("model_dir")
    if from_config is not None and not from_config:
        raise ValueError("model_dir in TF_CONFIG should be non-empty")
    if model_dir is not None and from_config is not None and model_dir != from_config:
        raise ValueError(f"`model_dir` provided in RunConfig construct, if set, must have the same value as the "
                         f"model_dir in TF_CONFIG. model_dir: {model_dir}\nTF_CONFIG[\"model_dir\"]: {from_config}")
    return model_dir if model_dir is not None else from_config


def _task_of(cluster: dict, task: dict) -> tuple:
    """This task's type and index, checked against the cluster as TF checks them."""
    task_type, task_id = task.get("type"), task.get("index")
    if not task_type:
        raise ValueError('If "cluster" is set in TF_CONFIG, task type must be set.')
    if task_id is None:
        raise ValueError('If "cluster" is set in TF_CONFIG, task index must be set.')
    task_id = int(task_id)
    if task_id < 0:
        raise ValueError("Task index must be non-negative number.")
    if task_type == TaskType.EVALUATOR:
        return task_type, task_id
    if task_type not in cluster:
        raise ValueError(f"{task_type} is not a valid task_type in the cluster_spec:\n{cluster}\n\nNote that these "
                         "values may be coming from the TF_CONFIG environment variable.")
    if not 0 <= task_id < len(cluster[task_type]):
        raise ValueError(f"{task_id} is not a valid task_id for task_type {task_type} in the cluster_spec:\n"
                         f"{cluster}\n\nNote that these values may be coming from the TF_CONFIG environment variable.")
    return task_type, task_id


def _validate_properties(config) -> None:
    """TF's checks of RunConfig's values (None is always allowed)."""
    checks = (("model_dir", lambda v: v, "model_dir should be non-empty"),
              ("save_summary_steps", lambda v: v >= 0, "save_summary_steps should be >= 0"),
              ("save_checkpoints_steps", lambda v: v >= 0, "save_checkpoints_steps should be >= 0"),
              ("save_checkpoints_secs", lambda v: v >= 0, "save_checkpoints_secs should be >= 0"),
              ("session_config", lambda v: isinstance(v, ConfigProto),
               "session_config must be instance of ConfigProto"),
              ("keep_checkpoint_max", lambda v: v >= 0, "keep_checkpoint_max should be >= 0"),
              ("keep_checkpoint_every_n_hours", lambda v: v > 0, "keep_checkpoint_every_n_hours should be > 0"),
              ("log_step_count_steps", lambda v: v > 0, "log_step_count_steps should be > 0"),
              ("tf_random_seed", lambda v: isinstance(v, int), "tf_random_seed must be integer."))
    for name, valid, message in checks:
        value = getattr(config, f"_{name}")
        if value is not None and not valid(value):
            raise ValueError(message)
