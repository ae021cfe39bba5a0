"""``tf.contrib.deprecated``: the summary functions of TF 0.12 (``tf.scalar_summary`` and its
kin), which TF 1.0 kept here for programs not yet moved to ``tf.summary``.

They differ from ``tf.summary``'s in what TF 0.12 did: a tag is used as given (no name
scope is put before it), ``scalar_summary`` takes a tensor of tags with one value each, and
the op's name is ``name`` (or the function's), not the tag.
"""

from __future__ import annotations

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..ops.op_util import make_tensor
from ..summary import summary_ops


def _summary(op_type, name, inputs, attrs, collections):
    with ops.name_scope(name, op_type, inputs) as scope:
        out = make_tensor(op_type, inputs, attrs, scope)
    for key in collections or [GraphKeys.SUMMARIES]:
        ops.add_to_collection(key, out)
    return out


def _tags(tags):
    return ops.convert_to_tensor(tags, dtype=dtypes.string)


def scalar_summary(tags, values, collections=None, name=None):
    """One simple value per tag: ``tags`` and ``values`` of the same shape (a scalar each, or
    a vector of tags with their values)."""
    return _summary("ScalarSummary", name, [_tags(tags), ops.convert_to_tensor(values)], None, collections)


def histogram_summary(tag, values, collections=None, name=None):
    """The histogram of ``values`` (any shape) under ``tag``."""
    return _summary("HistogramSummary", name, [_tags(tag), ops.convert_to_tensor(values)], None, collections)


def image_summary(tag, tensor, max_images=3, collections=None, name=None):
    """Up to ``max_images`` PNG images of a [batch, height, width, channels] tensor, tagged
    ``tag/image/0``, ``tag/image/1``, ... as TF's."""
    return _summary("ImageSummary", name, [_tags(tag), ops.convert_to_tensor(tensor)],
                    {"max_images": int(max_images)}, collections)


def audio_summary(tag, tensor, sample_rate, max_outputs=3, collections=None, name=None):
    """Up to ``max_outputs`` WAV clips of a [batch, frames(, channels)] float tensor."""
    return _summary("AudioSummaryV2", name, [_tags(tag), ops.convert_to_tensor(tensor, dtype=dtypes.float32),
                                             ops.convert_to_tensor(sample_rate, dtype=dtypes.float32)],
                    {"max_outputs": int(max_outputs)}, collections)


def merge_summary(inputs, collections=None, name=None):
    """One Summary with the values of all of ``inputs``."""
    return summary_ops.merge(inputs, collections, name)


def merge_all_summaries(key=GraphKeys.SUMMARIES):
    """The merge of every summary in the collection ``key``, or None if there is none."""
    return summary_ops.merge_all(key)
