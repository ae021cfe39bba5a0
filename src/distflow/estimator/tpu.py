"""``tf.estimator.tpu`` (and ``tf.contrib.tpu``'s estimator names): TPUEstimator on CPUs and GPUs.

Many TF 1.x programs (BERT's fine-tuning and pre-training scripts among them) are written
for ``TPUEstimator`` and run on CPUs and GPUs with ``use_tpu=False``. There TPUEstimator is
an Estimator whose input_fn and model_fn get the mode's global batch size as
``params["batch_size"]`` (``train_batch_size``, ``eval_batch_size`` or
``predict_batch_size``), and whose model_fn returns a ``TPUEstimatorSpec``: its
``eval_metrics`` (a metric function and the tensors it takes) become the evaluation's
metric ops, its ``scaffold_fn`` the scaffold, and its ``host_call`` runs on every training
and evaluation step. A plain EstimatorSpec is taken too.

distflow has no TPUs: ``use_tpu=True`` is refused when the estimator is made.
"""

from __future__ import annotations

import collections

from .._namespace import missing
from ..framework import errors
from ..train.session_run_hook import SessionRunArgs, SessionRunHook
from .estimator import Estimator, EstimatorSpec, ModeKeys
from .run_config import RunConfig as _EstimatorRunConfig

_RESERVED_PARAMS = ("batch_size", "context")
_NO_TPU = ("distflow has no TPUs (they are out of its scope); TPUEstimator(use_tpu=False) runs the same "
           "model_fn on CPUs and GPUs")


class InputPipelineConfig:
    """How a TPU job's hosts feed their cores (kept in TPUConfig; CPUs and GPUs read the input
    once)."""

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


class TPUConfig(collections.namedtuple("TPUConfig", [
        "iterations_per_loop", "num_shards", "num_cores_per_replica", "per_host_input_for_training",
        "tpu_job_name", "initial_infeed_sleep_secs", "input_partition_dims", "eval_training_input_configuration",
        "experimental_host_call_every_n_steps"])):
    """A TPU job's settings. Without a TPU only their checks apply: on CPUs and GPUs each step
    is one step (``iterations_per_loop`` steps are not fused into one call)."""

    def __new__(cls, iterations_per_loop=2, num_shards=None, num_cores_per_replica=None,
                per_host_input_for_training=True, tpu_job_name=None, initial_infeed_sleep_secs=None,
                input_partition_dims=None, eval_training_input_configuration=InputPipelineConfig.PER_HOST_V1,
                experimental_host_call_every_n_steps=1):
        if not isinstance(iterations_per_loop, int) or iterations_per_loop < 1:
            raise ValueError(f"iterations_per_loop must be a positive integer, got {iterations_per_loop!r}")
        if num_shards is not None and (not isinstance(num_shards, int) or num_shards < 1):
            raise ValueError(f"num_shards must be a positive integer, got {num_shards!r}")
        if per_host_input_for_training is True:
            per_host_input_for_training = InputPipelineConfig.PER_HOST_V1
        elif per_host_input_for_training is False:
            per_host_input_for_training = InputPipelineConfig.PER_SHARD_V1
        return super().__new__(cls, iterations_per_loop, num_shards, num_cores_per_replica,
                               per_host_input_for_training, tpu_job_name, initial_infeed_sleep_secs,
                               input_partition_dims, eval_training_input_configuration,
                               experimental_host_call_every_n_steps)


class RunConfig(_EstimatorRunConfig):
    """An Estimator RunConfig with a ``tpu_config`` (and TPU jobs' ``master``,
    ``evaluation_master`` and ``cluster``, a TPU cluster resolver)."""

    def __init__(self, tpu_config=None, evaluation_master=None, master=None, cluster=None, **kwargs):
        super().__init__(**kwargs)
        self._tpu_config = tpu_config if tpu_config is not None else TPUConfig()
        if not isinstance(self._tpu_config, TPUConfig):
            raise ValueError(f"tpu_config must be a TPUConfig, got {type(tpu_config).__name__}")
        if cluster is not None:
            raise errors.UnimplementedError(None, None, "RunConfig(cluster=...) names a TPU cluster: " + _NO_TPU)
        self._tpu_master = master
        self._evaluation_master = evaluation_master

    tpu_config = property(lambda self: self._tpu_config)
    evaluation_master = property(lambda self: self._evaluation_master or self.master)
    cluster = property(lambda self: None)

    @property
    def master(self):
        return self._tpu_master if self._tpu_master is not None else super().master

    def _own_arguments(self) -> dict:
        return {"tpu_config": self._tpu_config, "evaluation_master": self._evaluation_master,
                "master": self._tpu_master}


_SPEC_FIELDS = ["mode", "predictions", "loss", "train_op", "eval_metrics", "export_outputs", "scaffold_fn",
                "host_call", "training_hooks", "evaluation_hooks", "prediction_hooks"]


class TPUEstimatorSpec(collections.namedtuple("TPUEstimatorSpec", _SPEC_FIELDS)):
    """What a TPUEstimator's model_fn returns: an EstimatorSpec whose metrics are
    ``eval_metrics = (metric_fn, tensors)`` (``tensors`` a list, passed in order, or a dict,
    passed by name), whose scaffold is made by ``scaffold_fn()``, and whose ``host_call =
    (fn, tensors)`` runs ``fn(tensors)``'s ops on each step."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metrics=None, export_outputs=None,
                scaffold_fn=None, host_call=None, training_hooks=None, evaluation_hooks=None,
                prediction_hooks=None):
        for name, call in (("eval_metrics", eval_metrics), ("host_call", host_call)):
            if call is not None and (not isinstance(call, (tuple, list)) or len(call) != 2 or not callable(call[0])):
                raise ValueError(f"TPUEstimatorSpec.{name} should be a tuple of (fn, tensors), got {call!r}")
        if scaffold_fn is not None and not callable(scaffold_fn):
            raise TypeError(f"scaffold_fn must be callable, got {scaffold_fn!r}")
        return super().__new__(cls, mode, predictions, loss, train_op, eval_metrics, export_outputs, scaffold_fn,
                               host_call, tuple(training_hooks or ()), tuple(evaluation_hooks or ()),
                               tuple(prediction_hooks or ()))

    def as_estimator_spec(self) -> EstimatorSpec:
        """The EstimatorSpec this spec stands for on CPUs and GPUs."""
        host_hooks = [_HostCallHook(_called(self.host_call))] if self.host_call is not None else []
        return EstimatorSpec(
            mode=self.mode, predictions=self.predictions, loss=self.loss, train_op=self.train_op,
            eval_metric_ops=_called(self.eval_metrics) if self.eval_metrics is not None else None,
            export_outputs=self.export_outputs,
            scaffold=self.scaffold_fn() if self.scaffold_fn is not None else None,
            training_hooks=list(self.training_hooks) + host_hooks,
            evaluation_hooks=list(self.evaluation_hooks) + host_hooks,
            prediction_hooks=list(self.prediction_hooks))


def _called(fn_and_tensors):
    fn, tensors = fn_and_tensors
    return fn(**tensors) if isinstance(tensors, dict) else fn(*tensors)


class _HostCallHook(SessionRunHook):
    """Runs a host call's ops with every step."""

    def __init__(self, ops):
        self._ops = ops

    def before_run(self, run_context):
        return SessionRunArgs(self._ops)


class TPUEstimator(Estimator):
    """An Estimator for model functions written for TPUs, run on CPUs and GPUs
    (``use_tpu=False``); see the module docstring."""

    def __init__(self, model_fn=None, model_dir=None, config=None, params=None, use_tpu=True,
                 train_batch_size=None, eval_batch_size=None, predict_batch_size=None, batch_axis=None,
                 eval_on_tpu=True, export_to_tpu=True, export_to_cpu=True, warm_start_from=None,
                 embedding_config_spec=None, export_saved_model_api_version=None):
        if use_tpu:
            raise errors.UnimplementedError(None, None, "TPUEstimator(use_tpu=True): " + _NO_TPU)
        if config is None or not isinstance(config, RunConfig):
            raise ValueError("`config` must be provided with type `tpu.RunConfig` (tf.contrib.tpu.RunConfig or "
                             "tf.estimator.tpu.RunConfig)")
        reserved = [key for key in _RESERVED_PARAMS if key in (params or {})]
        if reserved:
            raise ValueError(f"{reserved} are reserved keys but existed in params {params}.")
        for name, size in (("train_batch_size", train_batch_size), ("eval_batch_size", eval_batch_size),
                           ("predict_batch_size", predict_batch_size)):
            if size is not None and (not isinstance(size, int) or size < 1):
                raise ValueError(f"{name} must be a positive integer, got {size!r}")
        super().__init__(model_fn, model_dir=model_dir, config=config, params=params,
                         warm_start_from=warm_start_from)
        self._batch_sizes = {ModeKeys.TRAIN: train_batch_size, ModeKeys.EVAL: eval_batch_size,
                             ModeKeys.PREDICT: predict_batch_size}

    def _params_for(self, mode) -> dict:
        params = self.params
        params["use_tpu"] = False
        if self._batch_sizes.get(mode) is not None:
            params["batch_size"] = self._batch_sizes[mode]
        return params

    def _model(self, features, labels, mode) -> EstimatorSpec:
        spec = self._call_model_fn(features, labels, mode)
        if isinstance(spec, TPUEstimatorSpec):
            return spec.as_estimator_spec()
        if not isinstance(spec, EstimatorSpec):
            raise ValueError(f"model_fn should return a TPUEstimatorSpec or an EstimatorSpec, got "
                             f"{type(spec).__name__}")
        return spec


__getattr__ = missing("tf.estimator.tpu")
