"""``tf.estimator.train_and_evaluate`` with ``TrainSpec`` and ``EvalSpec``: in one process,
or as one task of the cluster TF_CONFIG names."""

from __future__ import annotations

import collections
import logging
import os
import time

from .exporter import Exporter

_log = logging.getLogger("distflow")


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    def __new__(cls, input_fn, max_steps=None, hooks=None):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(cls, input_fn, max_steps, tuple(hooks or ()))


class EvalSpec(collections.namedtuple("EvalSpec", ["input_fn", "steps", "name", "hooks", "exporters",
                                                   "start_delay_secs", "throttle_secs"])):
    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None, start_delay_secs=120,
                throttle_secs=600):
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        exporters = _exporters(exporters)
        return super().__new__(cls, input_fn, steps, name, tuple(hooks or ()), exporters, start_delay_secs,
                               throttle_secs)


def _exporters(exporters) -> tuple:
    """``exporters`` (one Exporter, several or None) as a tuple, each of its own name."""
    if exporters is None:
        return ()
    exporters = (exporters,) if isinstance(exporters, Exporter) else tuple(exporters)
    names = set()
    for exporter in exporters:
        if not isinstance(exporter, Exporter):
            raise TypeError(f"`exporters` must be an Exporter, an iterable of Exporter, or `None`, found "
                            f"{exporter!r}")
        if exporter.name in names:
            raise ValueError(f"`exporters` must have unique names. Such a name cannot be `None`. {exporter.name} "
                             "appears more than once")
        names.add(exporter.name)
    return exporters


def train_and_evaluate(estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """Trains to ``train_spec.max_steps`` and evaluates, as TensorFlow's does.

    Without a cluster in TF_CONFIG (the estimator's RunConfig), in this process: evaluates
    after each checkpoint the training saves (every ``save_checkpoints_steps``, or when
    training ends) and returns (the last evaluation's metrics, the paths its exporters
    wrote). (Evaluation waits for its checkpoint, so ``start_delay_secs`` and
    ``throttle_secs`` have nothing to pace.) After each evaluation, ``eval_spec.exporters``
    export into ``model_dir/export/<name>`` (exporter.py).

    With one, this process is the task TF_CONFIG names: a ``ps`` serves its variables until
    the cluster stops it; the ``chief`` and the ``worker`` tasks train together (the
    variables on the ps tasks, between-graph, each stepping on its own), the chief saving
    checkpoints to ``model_dir``, and return None; the ``evaluator`` evaluates each new
    checkpoint (after ``start_delay_secs``, at most every ``throttle_secs``) and returns
    (the metrics of the checkpoint at ``max_steps``, the paths its exporters wrote).
    """
    config = estimator.config
    if config.cluster_spec.jobs or config.task_type == "evaluator":  # (an evaluator's config has no cluster)
        return _run_task(estimator, train_spec, eval_spec)
    every = config.save_checkpoints_steps
    metrics = None
    while True:
        latest = estimator.latest_checkpoint()
        done = _global_step_of(latest)
        if train_spec.max_steps is not None and done >= train_spec.max_steps:
            break
        target = train_spec.max_steps if every is None or train_spec.max_steps is None else \
            min(train_spec.max_steps, done + every)
        estimator.train(train_spec.input_fn, hooks=list(train_spec.hooks), max_steps=target)
        now = estimator.latest_checkpoint()
        # (the input ran out, nothing new was trained, max_steps is reached, or a hook stopped training early)
        stopped = any(getattr(hook, "stopped_early", False) for hook in train_spec.hooks)
        final = train_spec.max_steps is None or now == latest or _global_step_of(now) >= train_spec.max_steps or \
            stopped
        metrics, exports = _evaluate(estimator, eval_spec, final=final)
        if final:
            return metrics, exports
    return _evaluate(estimator, eval_spec, final=True)


def _evaluate(estimator, eval_spec: EvalSpec, checkpoint_path=None, final=False) -> tuple[dict, list]:
    """The metrics of the checkpoint (the newest by default), and what the exporters wrote."""
    checkpoint_path = checkpoint_path or estimator.latest_checkpoint()
    metrics = estimator.evaluate(input_fn=eval_spec.input_fn, steps=eval_spec.steps, hooks=list(eval_spec.hooks),
                                 checkpoint_path=checkpoint_path, name=eval_spec.name)
    exports = []
    for exporter in eval_spec.exporters:
        path = exporter.export(estimator, os.path.join(estimator.model_dir, "export", exporter.name),
                               checkpoint_path, metrics, final)
        if path is not None:
            exports.append(path)
    return metrics, exports


def _global_step_of(checkpoint) -> int:
    if not checkpoint:
        return 0
    from ..train import saver as saver_lib  # noqa: PLC0415

    return int(saver_lib.load_variable(checkpoint, "global_step"))


_POLL_SECS = 0.5  # (how often an evaluator looks for a new checkpoint)


def _run_task(estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    config = estimator.config
    role = config.task_type
    if role == "evaluator":
        return _evaluate_checkpoints(estimator, train_spec, eval_spec)
    if role not in ("ps", "chief", "worker", "master"):
        raise ValueError(f"TF_CONFIG's task type {role!r} is none of ps, chief, worker, master, evaluator")
    from ..distributed.server import Server  # noqa: PLC0415

    server = Server(config.cluster_spec, job_name=role, task_index=config.task_id, config=config.session_config)
    if role == "ps":
        server.join()  # (returns when the cluster's launcher, or its owner, stops the task)
        return None
    try:
        delay = worker_delay_secs(config)
        if delay:
            _log.info("Waiting %d secs before starting training.", delay)
            time.sleep(delay)
        estimator.train(train_spec.input_fn, hooks=list(train_spec.hooks), max_steps=train_spec.max_steps)
    finally:
        server.stop()
    return None


DELAY_SECS_PER_WORKER = 5


def worker_delay_secs(config) -> int:
    """How long a worker task waits before it trains: ``5 * (task_id + 1)`` seconds, up to
    ``RunConfig(experimental_max_worker_delay_secs)``, where that is set (TF 1.x's stagger,
    which it applied to every worker, up to 60 s); otherwise none."""
    limit = config.experimental_max_worker_delay_secs
    if config.task_type != "worker" or limit is None:
        return 0
    return min(int(limit), (config.task_id + 1) * DELAY_SECS_PER_WORKER)


def _evaluate_checkpoints(estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """The evaluator: each new checkpoint evaluated, until the one at ``max_steps``."""
    time.sleep(max(0, eval_spec.start_delay_secs))
    evaluated, metrics = None, None
    while True:
        latest = estimator.latest_checkpoint()
        if latest is None or latest == evaluated:
            time.sleep(_POLL_SECS)
            continue
        started = time.monotonic()
        final = train_spec.max_steps is not None and _global_step_of(latest) >= train_spec.max_steps
        metrics, exports = _evaluate(estimator, eval_spec, checkpoint_path=latest, final=final)
        evaluated = latest
        _log.info("Evaluated %s: %s", latest, metrics)
        if final:
            return metrics, exports
        time.sleep(max(0.0, eval_spec.throttle_secs - (time.monotonic() - started)))
