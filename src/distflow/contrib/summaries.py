"""Summaries of a model's tensors: ``tf.contrib.layers``' ``summarize_*`` (a scalar of a scalar
tensor, else a histogram; an activation also gets the fraction of its inputs below zero, and of
a Relu6's above six) and ``tf.contrib.slim.summaries``' ``add_*_summary`` (named after the
tensor's op, under an optional prefix; ``print_summary`` prints the value as it is computed and
adds the print to the SUMMARIES collection instead)."""

from __future__ import annotations

import functools
import re

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..ops import math_ops, reduction_ops
from ..ops.nn_impl import zero_fraction
from ..ops.script_ops import Print
from ..summary import summary_ops as summary

# -- tf.contrib.layers ---------------------------------------------------------------------------


def _scalar(tensor, tag=None):
    tensor.shape.assert_has_rank(0)
    return summary.scalar(tag or f"{tensor.op.name}_summary", tensor)


def _histogram(tensor, tag=None):
    return summary.histogram(tag or f"{tensor.op.name}_summary", tensor)


def summarize_activation(op):
    """A histogram of the activation ``op`` (a tensor), and for a Relu, Relu6 or Softplus the
    fraction of its inputs below zero (``<op>/zeros``), and for a Relu6 above six (``/sixes``)."""
    kind, inputs = op.op.type, op.op.inputs
    if kind in ("Relu", "Softplus", "Relu6"):
        below = math_ops.less(inputs[0], math_ops.cast(0.0, inputs[0].dtype))
        _scalar(reduction_ops.reduce_mean(math_ops.cast(below, dtypes.float32)), f"{op.op.name}/zeros")
    if kind == "Relu6":
        above = math_ops.greater(inputs[0], math_ops.cast(6.0, inputs[0].dtype))
        _scalar(reduction_ops.reduce_mean(math_ops.cast(above, dtypes.float32)), f"{op.op.name}/sixes")
    return _histogram(op, f"{op.op.name}/activation")


def summarize_tensor(tensor, tag=None):
    """A scalar summary of a scalar tensor, a histogram of another; None for strings and bools."""
    if tensor.dtype.base_dtype in (dtypes.string, dtypes.bool):
        return None
    return _scalar(tensor, tag) if tensor.shape.ndims == 0 else _histogram(tensor, tag)


def summarize_tensors(tensors, summarizer=summarize_tensor):
    return [summarizer(tensor) for tensor in tensors]


def summarize_collection(collection, name_filter=None, summarizer=summarize_tensor):
    """``summarizer`` of each tensor of ``collection`` whose op name matches ``name_filter``."""
    tensors = [t for t in ops.get_collection(collection) if name_filter is None or re.match(name_filter, t.op.name)]
    return summarize_tensors(tensors, summarizer)


summarize_variables = functools.partial(summarize_collection, GraphKeys.GLOBAL_VARIABLES)
summarize_weights = functools.partial(summarize_collection, GraphKeys.WEIGHTS)
summarize_biases = functools.partial(summarize_collection, GraphKeys.BIASES)


def summarize_activations(name_filter=None, summarizer=summarize_activation):
    """``summarize_activation`` of each tensor of the ACTIVATIONS collection."""
    return summarize_collection(GraphKeys.ACTIVATIONS, name_filter, summarizer)


# -- tf.contrib.slim.summaries -------------------------------------------------------------------

def _summary_name(tensor, name=None, prefix=None, postfix=None) -> str:
    name = name or tensor.op.name
    if prefix:
        name = f"{prefix}/{name}"
    return f"{name}/{postfix}" if postfix else name


def _printed(op, tensor, name, print_summary):
    if print_summary:
        op = Print(op, [tensor], name)
        ops.add_to_collection(GraphKeys.SUMMARIES, op)
    return op


def add_histogram_summary(tensor, name=None, prefix=None):
    return summary.histogram(_summary_name(tensor, name, prefix), tensor)


def add_image_summary(tensor, name=None, prefix=None, print_summary=False):
    name = _summary_name(tensor, name, prefix)
    op = summary.image(name=name, tensor=tensor, collections=[] if print_summary else None)
    return _printed(op, tensor, name, print_summary)


def add_scalar_summary(tensor, name=None, prefix=None, print_summary=False):
    name = _summary_name(tensor, name, prefix)
    op = summary.scalar(name=name, tensor=tensor, collections=[] if print_summary else None)
    return _printed(op, tensor, name, print_summary)


def add_zero_fraction_summary(tensor, name=None, prefix=None, print_summary=False):
    """The fraction of ``tensor``'s values that are zero (``<name>/Fraction_of_Zero_Values``)."""
    name = _summary_name(tensor, name, prefix, "Fraction_of_Zero_Values")
    return add_scalar_summary(zero_fraction(tensor), name, print_summary=print_summary)


def add_histogram_summaries(tensors, prefix=None):
    return [add_histogram_summary(t, prefix=prefix) for t in tensors]


def add_image_summaries(tensors, prefix=None):
    return [add_image_summary(t, prefix=prefix) for t in tensors]


def add_scalar_summaries(tensors, prefix=None, print_summary=False):
    return [add_scalar_summary(t, prefix=prefix, print_summary=print_summary) for t in tensors]


def add_zero_fraction_summaries(tensors, prefix=None):
    return [add_zero_fraction_summary(t, prefix=prefix) for t in tensors]
