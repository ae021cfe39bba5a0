"""``tf.contrib.layers``' regularizers: L1, L2, their sum, and ``apply_regularization``."""

from __future__ import annotations

import numbers

from ..framework import ops
from ..framework.ops import GraphKeys
from ..ops import math_ops, nn_ops, reduction_ops, unary_ops


def _check_scale(scale) -> bool:
    """Whether the regularizer does anything (a scale of 0 disables it)."""
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale}")
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale}")
        return scale != 0.0
    return True


def _regularizer(scale, scope, default_name: str, penalty):
    """``scale * penalty(weights)``, under ``scope``; a scale of 0 gives a regularizer of None."""
    if not _check_scale(scale):
        return lambda _: None

    def regularizer(weights):
        with ops.name_scope(scope, default_name, [weights]) as name:
            factor = ops.convert_to_tensor(scale, weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(factor, penalty(weights), name=name)

    return regularizer


def l1_regularizer(scale, scope=None):
    """``scale * sum(|w|)``."""
    return _regularizer(scale, scope, "l1_regularizer", lambda w: reduction_ops.reduce_sum(unary_ops.abs(w)))


def l2_regularizer(scale, scope=None):
    """``scale * sum(w ** 2) / 2`` (``tf.nn.l2_loss``)."""
    return _regularizer(scale, scope, "l2_regularizer", nn_ops.l2_loss)


def sum_regularizer(regularizer_list, scope=None):
    """The sum of the regularizers' penalties (None if all give None)."""
    regularizers = [r for r in regularizer_list if r is not None]
    if not regularizers:
        return None

    def summed(weights):
        with ops.name_scope(scope, "sum_regularizer", [weights]) as name:
            penalties = [p for p in (r(weights) for r in regularizers) if p is not None]
            return math_ops.add_n(penalties, name=name) if penalties else None

    return summed


def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """``l1_regularizer(scale_l1) + l2_regularizer(scale_l2)``, named ``scope`` (default
    'l1_l2_regularizer'); when a scale is 0, the other alone, under that name."""
    scope = scope or "l1_l2_regularizer"
    if _check_scale(scale_l1) and _check_scale(scale_l2):
        return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)
    return l2_regularizer(scale_l2, scope) if _check_scale(scale_l2) else l1_regularizer(scale_l1, scope)


def apply_regularization(regularizer, weights_list=None):
    """The sum of ``regularizer``'s penalties of ``weights_list`` (the WEIGHTS collection by
    default), added to REGULARIZATION_LOSSES."""
    weights_list = list(weights_list) if weights_list else ops.get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with ops.name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [ops.convert_to_tensor(0.0) if p is None else p for p in penalties]
        for p in penalties:
            if p.shape.ndims not in (None, 0):
                raise ValueError(f"regularizer must return a scalar Tensor instead of a Tensor with rank "
                                 f"{p.shape.ndims}.")
        total = math_ops.add_n(penalties, name=scope)
        ops.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, total)
        return total
