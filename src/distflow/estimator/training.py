"""``tf.estimator.train_and_evaluate`` with ``TrainSpec`` and ``EvalSpec``, in one process."""

from __future__ import annotations

import collections
import json
import os

from ..framework import errors


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
        if exporters:
            raise errors.UnimplementedError(None, None, "EvalSpec(exporters=...) is not supported: distflow has no "
                                            "SavedModel yet")
        return super().__new__(cls, input_fn, steps, name, tuple(hooks or ()), exporters, start_delay_secs,
                               throttle_secs)


def train_and_evaluate(estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """Trains to ``train_spec.max_steps``, evaluating after each checkpoint the training saves
    (every ``save_checkpoints_steps``, or when training ends); returns (the last evaluation's
    metrics, None), as TF's local mode does. (In one process evaluation waits for its
    checkpoint, so ``start_delay_secs`` and ``throttle_secs`` have nothing to pace.)

    A TF_CONFIG that names a cluster (ps, workers, an evaluator) is refused: running those
    roles is not built yet.
    """
    cluster = json.loads(os.environ.get("TF_CONFIG") or "{}").get("cluster")
    if cluster:
        raise errors.UnimplementedError(None, None, "train_and_evaluate with a TF_CONFIG cluster (distributed "
                                        "roles) is not supported yet; run it without TF_CONFIG, in one process")
    every = estimator.config.save_checkpoints_steps
    metrics = None
    while True:
        latest = estimator.latest_checkpoint()
        done = 0
        if latest:
            from ..train import saver as saver_lib  # noqa: PLC0415

            done = int(saver_lib.load_variable(latest, "global_step"))
        if train_spec.max_steps is not None and done >= train_spec.max_steps:
            break
        target = train_spec.max_steps if every is None or train_spec.max_steps is None else \
            min(train_spec.max_steps, done + every)
        estimator.train(train_spec.input_fn, hooks=list(train_spec.hooks), max_steps=target)
        metrics = estimator.evaluate(eval_spec.input_fn, steps=eval_spec.steps, hooks=list(eval_spec.hooks),
                                     name=eval_spec.name)
        if train_spec.max_steps is None or estimator.latest_checkpoint() == latest:
            break  # (the input ran out, or nothing new was trained)
    if metrics is None:
        metrics = estimator.evaluate(eval_spec.input_fn, steps=eval_spec.steps, hooks=list(eval_spec.hooks),
                                     name=eval_spec.name)
    return metrics, None
