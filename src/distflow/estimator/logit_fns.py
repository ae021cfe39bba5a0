"""``tf.estimator.experimental``'s logit functions: the canned estimators' networks as
functions a ``model_fn`` can call (``dnn_logit_fn_builder``, ``linear_logit_fn_builder``)
and ``call_logit_fn``, which calls one with the arguments it takes."""

from __future__ import annotations

import inspect

from .. import nn
from ..framework import ops
from .canned import _linear_logits, dnn_layers


def dnn_logit_fn_builder(units, hidden_units, feature_columns, activation_fn=nn.relu, dropout=None,
                         input_layer_partitioner=None, batch_norm=False):
    """``logit_fn(features, mode)``: the DNN estimators' network (``input_from_feature_columns``,
    ``hiddenlayer_<i>``, ``logits``, in the caller's variable scope), ``units`` logits."""
    if not isinstance(units, int):
        raise ValueError(f"units must be an int. Given type: {type(units)}")

    def dnn_logit_fn(features, mode):
        return dnn_layers(features, mode, hidden_units, feature_columns, units, activation_fn, dropout, batch_norm,
                          input_layer_partitioner)

    return dnn_logit_fn


def linear_logit_fn_builder(units=1, feature_columns=(), sparse_combiner="sum"):
    """``logit_fn(features)``: the linear estimators' model (``linear/linear_model``)."""
    def linear_logit_fn(features):
        return _linear_logits(features, feature_columns, units, sparse_combiner)

    return linear_logit_fn


def call_logit_fn(logit_fn, features, mode, params, config):
    """``logit_fn`` called with those of ``features``, ``mode``, ``params`` and ``config`` it
    takes; its logits: a Tensor, or a dict of them by name."""
    given = {"features": features, "mode": mode, "params": params, "config": config}
    takes = inspect.signature(logit_fn).parameters
    if "features" not in takes:
        raise ValueError(f"logit_fn should have a features argument, given: {tuple(takes)}")
    logits = logit_fn(**{name: value for name, value in given.items() if name in takes})
    parts = logits.values() if isinstance(logits, dict) else [logits]
    if not all(isinstance(part, ops.Tensor) for part in parts) or (
            isinstance(logits, dict) and not all(isinstance(k, str) for k in logits)):
        raise ValueError(f"logit_fn should return a Tensor or a dictionary mapping strings to Tensors. "
                         f"logit_fn returned: {logits!r}")
    return logits
