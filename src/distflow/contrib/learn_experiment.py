"""``tf.contrib.learn``'s ``Experiment``, ``learn_runner.run`` and ``RunConfig``: how TF
1.2-1.4 programs (Cloud ML Engine's among them) trained an Estimator on a cluster. One
program runs in every task; ``learn_runner.run`` builds the Experiment and calls the method
this task's role asks for (TF_CONFIG's task type): a ps runs its server until the cluster
stops it, the workers ``train``, the master (or chief) trains and then evaluates, an
evaluator evaluates each new checkpoint; without a cluster, ``train_and_evaluate`` in the
process. The work is tf.estimator's (estimator/training.py).

Differences from TF: ``train_and_evaluate`` evaluates after each checkpoint the training
saves (every ``save_checkpoints_steps``), as tf.estimator's does, not every
``min_eval_frequency`` steps; ``eval_metrics`` (contrib's metric functions) and export
strategies are refused: add metrics to the model function (or with
``tf.contrib.estimator.add_metrics``) and export with ``EvalSpec`` exporters.
"""

from __future__ import annotations

import logging
import time

from ..estimator import run_config as _run_config
from ..estimator import training as _training
from ..runtime.config import ConfigProto, GPUOptions

_log = logging.getLogger("distflow")


class Environment:
    LOCAL = "local"
    CLOUD = "cloud"
    GOOGLE = "google"


class RunConfig(_run_config.RunConfig):
    """``tf.contrib.learn.RunConfig``: tf.estimator's RunConfig with contrib's arguments
    (``num_cores``, ``log_device_placement`` and ``gpu_memory_fraction`` make the session
    config when none is given; ``master`` and ``evaluation_master`` override TF_CONFIG's)."""

    def __init__(self, master=None, num_cores=0, log_device_placement=False, gpu_memory_fraction=1,
                 tf_random_seed=None, save_summary_steps=100, save_checkpoints_secs=_run_config.USE_DEFAULT,
                 save_checkpoints_steps=None, keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000,
                 log_step_count_steps=100, evaluation_master="", model_dir=None, session_config=None,
                 **estimator_arguments):
        if save_checkpoints_secs is _run_config.USE_DEFAULT:  # (contrib's rule: every 600 s unless by steps)
            save_checkpoints_secs = 600 if save_checkpoints_steps is None else None
        if session_config is None:
            gpu_options = GPUOptions(per_process_gpu_memory_fraction=gpu_memory_fraction)
            session_config = ConfigProto(log_device_placement=log_device_placement,
                                         intra_op_parallelism_threads=num_cores,
                                         inter_op_parallelism_threads=num_cores, gpu_options=gpu_options)
        self._contrib_arguments = {"master": master, "num_cores": num_cores,
                                   "log_device_placement": log_device_placement,
                                   "gpu_memory_fraction": gpu_memory_fraction, "evaluation_master": evaluation_master}
        super().__init__(model_dir=model_dir, tf_random_seed=tf_random_seed, save_summary_steps=save_summary_steps,
                         save_checkpoints_steps=save_checkpoints_steps, save_checkpoints_secs=save_checkpoints_secs,
                         session_config=session_config, keep_checkpoint_max=keep_checkpoint_max,
                         keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
                         log_step_count_steps=log_step_count_steps, **estimator_arguments)
        if master is not None:
            self._master = master
        if evaluation_master:
            self._evaluation_master = evaluation_master

    def _own_arguments(self) -> dict:
        return dict(self._contrib_arguments)

    @property
    def environment(self) -> str:
        return Environment.CLOUD if self.cluster_spec.jobs else Environment.LOCAL

    def get_task_id(self) -> int:
        return self.task_id

    def uid(self, whitelist=None) -> str:
        """A string that is the same for configs that run the same way (their arguments)."""
        arguments = {k: v for k, v in sorted(vars(self).items()) if k != "_cluster_spec"}
        if whitelist is not None:
            arguments = {k: v for k, v in arguments.items() if k.lstrip("_") not in whitelist}
        return repr(sorted((k, repr(v)) for k, v in arguments.items()))


class Experiment:
    """An Estimator with its training and evaluation inputs and how long to run them; its
    methods are the schedules ``learn_runner.run`` calls, one a task."""

    def __init__(self, estimator, train_input_fn, eval_input_fn, eval_metrics=None, train_steps=None,
                 eval_steps=100, train_monitors=None, eval_hooks=None, local_eval_frequency=None,
                 eval_delay_secs=120, continuous_eval_throttle_secs=60, min_eval_frequency=None,
                 delay_workers_by_global_step=False, export_strategies=None, train_steps_per_iteration=None,
                 checkpoint_and_export=False, saving_listeners=None):
        if not hasattr(estimator, "train") or not hasattr(estimator, "evaluate"):
            raise ValueError(f"`estimator` must implement `train` and `evaluate` (a tf.estimator.Estimator), got "
                             f"{estimator!r}")
        if eval_metrics is not None:
            raise ValueError("Experiment(eval_metrics=) is not supported with a tf.estimator.Estimator (as in TF): "
                             "compute the metrics in the model function, or add them with "
                             "tf.contrib.estimator.add_metrics")
        if export_strategies or checkpoint_and_export or saving_listeners:
            raise ValueError("Experiment's export strategies, checkpoint_and_export and saving_listeners are not "
                             "supported: export with tf.estimator.train_and_evaluate and an EvalSpec's exporters")
        self._estimator = estimator
        self._train_input_fn, self._eval_input_fn = train_input_fn, eval_input_fn
        self._train_steps, self._eval_steps = train_steps, eval_steps
        self._train_monitors = list(train_monitors or [])
        self._eval_hooks = list(eval_hooks or [])
        self._local_eval_frequency = local_eval_frequency
        self._eval_delay_secs = eval_delay_secs
        self._continuous_eval_throttle_secs = continuous_eval_throttle_secs
        self._min_eval_frequency = min_eval_frequency
        self._delay_workers_by_global_step = delay_workers_by_global_step
        self._train_steps_per_iteration = train_steps_per_iteration

    estimator = property(lambda self: self._estimator)
    train_steps = property(lambda self: self._train_steps)
    eval_steps = property(lambda self: self._eval_steps)
    eval_metrics = property(lambda self: None)

    def extend_train_hooks(self, additional_hooks) -> None:
        self._train_monitors.extend(additional_hooks)

    def _specs(self, eval_delay_secs=0, throttle_secs=0, name=None):
        train = _training.TrainSpec(self._train_input_fn, max_steps=self._train_steps, hooks=self._train_monitors)
        evaluation = _training.EvalSpec(self._eval_input_fn, steps=self._eval_steps, name=name,
                                        hooks=self._eval_hooks, start_delay_secs=eval_delay_secs,
                                        throttle_secs=throttle_secs)
        return train, evaluation

    def _in_a_cluster(self) -> bool:
        config = self._estimator.config
        return bool(config.cluster_spec.jobs) and config.task_type not in ("evaluator", None)

    def train(self, delay_secs=None):
        """Trains to ``train_steps`` (for ever if None); in a cluster, this task's server runs
        meanwhile, and worker ``i`` first waits ``delay_secs`` (by default ``min(60, 5 i)``
        seconds, as TF)."""
        config = self._estimator.config
        server = None
        if self._in_a_cluster():
            from ..distributed.server import Server  # noqa: PLC0415

            server = Server(config.cluster_spec, job_name=config.task_type, task_index=config.task_id,
                            config=config.session_config)
        try:
            if delay_secs is None:
                delay_secs = 0 if self._delay_workers_by_global_step else min(60, (config.task_id or 0) * 5)
            if delay_secs > 0:
                _log.info("Waiting %d secs before starting training.", delay_secs)
                time.sleep(delay_secs)
            self._estimator.train(input_fn=self._train_input_fn, hooks=self._train_monitors,
                                  max_steps=self._train_steps)
        finally:
            if server is not None:
                server.stop()
        return self._estimator

    def evaluate(self, delay_secs=None, name=None):
        """The metrics of the newest checkpoint over ``eval_steps`` batches, after
        ``delay_secs`` (by default ``eval_delay_secs``)."""
        delay_secs = self._eval_delay_secs if delay_secs is None else delay_secs
        if delay_secs:
            _log.info("Waiting %d secs before starting eval.", delay_secs)
            time.sleep(delay_secs)
        return self._estimator.evaluate(input_fn=self._eval_input_fn, steps=self._eval_steps, hooks=self._eval_hooks,
                                        name=name or "one_pass")

    def train_and_evaluate(self):
        """Trains, evaluating after each checkpoint, and returns ``(the last metrics, [])``; in
        a cluster (the master's schedule), trains with the others, then evaluates."""
        if self._in_a_cluster():
            self.train()
            return self.evaluate(delay_secs=0), []
        metrics, exports = _training.train_and_evaluate(self._estimator, *self._specs())
        return metrics, exports

    def local_run(self):
        return self.train_and_evaluate()

    def continuous_eval(self, delay_secs=None, throttle_delay_secs=None, evaluate_checkpoint_only_once=True,
                        continuous_eval_predicate_fn=None, name="continuous"):
        """Evaluates each new checkpoint (after ``delay_secs``, at most every
        ``throttle_delay_secs``) until ``continuous_eval_predicate_fn(metrics)`` is false or,
        where ``train_steps`` is set, the checkpoint of that step is evaluated; returns the
        last metrics."""
        time.sleep(max(0, self._eval_delay_secs if delay_secs is None else delay_secs))
        throttle = self._continuous_eval_throttle_secs if throttle_delay_secs is None else throttle_delay_secs
        evaluated, metrics = None, None
        while True:
            latest = self._estimator.latest_checkpoint()
            if latest is None or (evaluate_checkpoint_only_once and latest == evaluated):
                time.sleep(_training._POLL_SECS)
                continue
            started = time.monotonic()
            metrics = self._estimator.evaluate(input_fn=self._eval_input_fn, steps=self._eval_steps,
                                               hooks=self._eval_hooks, checkpoint_path=latest, name=name)
            evaluated = latest
            done = self._train_steps is not None and _training._global_step_of(latest) >= self._train_steps
            if done or (continuous_eval_predicate_fn is not None and not continuous_eval_predicate_fn(metrics)):
                return metrics
            time.sleep(max(0.0, throttle - (time.monotonic() - started)))

    def continuous_eval_on_train_data(self, delay_secs=None, throttle_delay_secs=None,
                                      continuous_eval_predicate_fn=None):
        with _swapped_eval_input(self):
            return self.continuous_eval(delay_secs, throttle_delay_secs, True, continuous_eval_predicate_fn,
                                        name="continuous_on_train_data")

    def run_std_server(self):
        """Runs this task's server (a ps's schedule) until the cluster stops it."""
        from ..distributed.server import Server  # noqa: PLC0415

        config = self._estimator.config
        Server(config.cluster_spec, job_name=config.task_type, task_index=config.task_id,
               config=config.session_config).join()

    def test(self):
        """One training step and one evaluation step: a check that the Experiment runs."""
        step = _training._global_step_of(self._estimator.latest_checkpoint())
        self._estimator.train(input_fn=self._train_input_fn, hooks=self._train_monitors, max_steps=step + 1)
        return self._estimator.evaluate(input_fn=self._eval_input_fn, steps=1, hooks=self._eval_hooks, name="one_pass")


class _swapped_eval_input:  # noqa: N801 - a context manager
    def __init__(self, experiment):
        self._experiment = experiment

    def __enter__(self):
        self._saved = self._experiment._eval_input_fn
        self._experiment._eval_input_fn = self._experiment._train_input_fn

    def __exit__(self, *exc):
        self._experiment._eval_input_fn = self._saved


_SCHEDULES = ("train", "evaluate", "train_and_evaluate", "local_run", "continuous_eval",
              "continuous_eval_on_train_data", "run_std_server", "test")


def _default_schedule(config) -> str:
    if not config.cluster_spec.jobs and config.task_type != "evaluator":
        return "train_and_evaluate"
    return {"master": "train_and_evaluate", "chief": "train_and_evaluate", "worker": "train", "ps": "run_std_server",
            "evaluator": "continuous_eval"}.get(config.task_type) or _unknown_task(config)


def _unknown_task(config):
    raise ValueError(f"No default schedule for task type {config.task_type!r}: pass `schedule`")


def run(experiment_fn, output_dir=None, schedule=None, run_config=None, hparams=None):
    """Builds the Experiment (``experiment_fn(run_config, hparams)``, or the old
    ``experiment_fn(output_dir)``) and runs ``schedule`` (this task's, by default) on it."""
    if output_dir is not None and run_config is not None:
        raise ValueError("Cannot provide both `output_dir` and `run_config`")
    if output_dir is not None:
        experiment = experiment_fn(output_dir)
    else:
        if run_config is None:
            raise ValueError("`run_config` must be provided (a tf.contrib.learn.RunConfig with model_dir)")
        if not run_config.model_dir:
            raise ValueError("`run_config` must have `model_dir` set")
        experiment = experiment_fn(run_config, hparams)
    if not isinstance(experiment, Experiment):
        raise TypeError(f"Experiment builder did not return an Experiment instance, got {type(experiment)} instead.")
    schedule = schedule or _default_schedule(experiment.estimator.config)
    if schedule not in _SCHEDULES:
        raise ValueError(f"Schedule references non-existent task {schedule!r}: one of {', '.join(_SCHEDULES)}")
    _log.info("Running schedule %s", schedule)
    return getattr(experiment, schedule)()
