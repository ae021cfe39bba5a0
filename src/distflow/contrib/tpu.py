"""``tf.contrib.tpu``: the TPUEstimator names that TF 1.x programs (BERT's scripts among them)
run on CPUs and GPUs with ``use_tpu=False`` (estimator/tpu.py), and ``CrossShardOptimizer``.

distflow has no TPUs; nothing here runs on one.
"""

from __future__ import annotations

import logging

from .._namespace import missing
from ..estimator.tpu import (InputPipelineConfig, RunConfig, TPUConfig, TPUEstimator,  # noqa: F401
                             TPUEstimatorSpec)
from ..train.optimizer import Optimizer

_log = logging.getLogger("distflow")


class CrossShardOptimizer(Optimizer):
    """``opt`` with its gradients summed (or averaged, ``reduction=MEAN``) across TPU shards.
    Outside a TPU computation there is one shard, as TF 1.x assumed there too: the gradients
    are ``opt``'s own."""

    def __init__(self, opt, reduction="weighted_mean", name="CrossShardOptimizer", group_assignment=None):
        if not isinstance(opt, Optimizer):
            raise TypeError(f"CrossShardOptimizer wraps an Optimizer, got {type(opt).__name__}")
        if reduction not in ("sum", "weighted_mean", "mean"):
            raise ValueError(f"Unsupported reduction: {reduction!r}; use tf.losses.Reduction.SUM or MEAN")
        super().__init__(opt._use_locking, name)
        self._opt = opt
        _log.warning("CrossShardOptimizer outside a TPU computation: one shard, so the gradients are the "
                     "wrapped optimizer's own")

    def compute_gradients(self, loss, var_list=None, **kwargs) -> list:
        return self._opt.compute_gradients(loss, var_list=var_list, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._opt.apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, var, name):
        return self._opt.get_slot(var, name)

    def get_slot_names(self):
        return self._opt.get_slot_names()

    def variables(self) -> list:
        return self._opt.variables()


__getattr__ = missing("tf.contrib.tpu")
