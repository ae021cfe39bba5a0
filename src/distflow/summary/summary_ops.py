"""Summary ops: each evaluates to a serialized Summary protocol buffer (a string scalar),
as TensorFlow's do, so ``FileWriter.add_summary(sess.run(merged), step)`` works unchanged.

A summary's tag is its op's name scope (``layer1/weights``; ``loss_1`` where an op named
``loss`` took the name), with ``family`` as TF 1.x places it; image and audio summaries of
more than one item tag each ``<tag>/image/<i>``. Histograms have TensorFlow's buckets, and
float images TensorFlow's scaling, so TensorBoard shows what it would show for TensorFlow.
Every summary op lands in the SUMMARIES collection (or ``collections``), which ``merge_all``
merges.
"""

from __future__ import annotations

import contextlib
import logging
import re
import struct
import zlib

import numpy as np
from google.protobuf import json_format
from google.protobuf.message import DecodeError

from ..framework import dtypes
from ..framework import errors
from ..framework import ops
from ..framework import wire
from ..framework.ops import GraphKeys
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from ..ops.audio_ops import wav_bytes
from ..ops.op_util import make_tensor
from ..protos import distflow_pb2 as pb


def _tag_of(value) -> str:
    tag = value.item() if hasattr(value, "item") else value
    return tag.decode() if isinstance(tag, bytes) else str(tag)


def _serialized(summary: pb.Summary) -> np.ndarray:
    return np.array(summary.SerializeToString(), dtype=object)


def _string_scalar(op):
    return TensorShape([])


# ---------------------------------------------------------------------------
# Scalars


@register_op("ScalarSummary", shape=_string_scalar, dtype=lambda op: dtypes.string)
def _scalar_summary_kernel(xp, tags, values):
    tags, values = np.asarray(tags), np.asarray(values)
    if tags.shape != values.shape:
        raise errors.InvalidArgumentError(None, None, f"tags and values are not the same shape: {list(tags.shape)} "
                                                      f"!= {list(values.shape)}")
    summary = pb.Summary()
    for tag, value in zip(tags.reshape(-1), values.reshape(-1)):
        summary.value.add(tag=_tag_of(tag), simple_value=float(value))
    return _serialized(summary)


# ---------------------------------------------------------------------------
# Histograms, with TensorFlow's default buckets (1e-12 * 1.1^k each side of zero)


def _default_bucket_limits() -> np.ndarray:
    positive = []
    v = 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1
    positive.append(np.finfo(np.float64).max)
    negative = [-x for x in reversed(positive)]
    return np.array(negative + [0.0] + positive)


_LIMITS = _default_bucket_limits()
_ZERO_BUCKET = int(np.searchsorted(_LIMITS, 0.0, side="right"))


def histogram_proto(values) -> pb.HistogramProto:
    """A HistogramProto of ``values`` as TensorFlow builds it: each run of empty buckets
    collapsed into one (its last limit, count 0), the one up to DBL_MAX included; no values
    give min DBL_MAX, max -DBL_MAX and that one empty bucket. The sums are added up one
    value at a time, in order, in doubles, as TensorFlow's are.

    The values are taken ``_HISTOGRAM_CHUNK`` at a time (the temporaries stay in cache), and
    each value's bucket is found from its logarithm, then checked against the limits
    themselves: 10M float32 values 575-625 to 195 ms (a binary search of the 1,549 limits
    took 42 ns a value; TensorFlow's histogram 393 ms). Zeros, most of a sparse gradient
    made dense, are counted without either."""
    values = np.asarray(values).reshape(-1)
    if values.dtype not in (np.float32, np.float64):
        values = values.astype(np.float64)
    histo = pb.HistogramProto()
    largest = float(np.finfo(np.float64).max)
    histo.min, histo.max = (float(values.min()), float(values.max())) if values.size else (largest, -largest)
    histo.num = float(values.size)
    counts = np.zeros(len(_LIMITS), np.int64)
    total = squares = 0.0
    running = np.empty(_HISTOGRAM_CHUNK + 1, np.float64)
    for begin in range(0, values.size, _HISTOGRAM_CHUNK):
        chunk = values[begin:begin + _HISTOGRAM_CHUNK]
        nonzero = chunk[chunk != 0]
        counts[_ZERO_BUCKET] += chunk.size - nonzero.size
        if not nonzero.size:
            continue
        sums = running[:nonzero.size + 1]
        with np.errstate(over="ignore", invalid="ignore"):  # (past DBL_MAX: inf, as TensorFlow's doubles)
            sums[0] = total
            sums[1:] = nonzero
            total = float(np.cumsum(sums, out=sums)[-1])
            sums[0] = squares
            np.square(nonzero, out=sums[1:], dtype=np.float64)
            squares = float(np.cumsum(sums, out=sums)[-1])
        counts += np.bincount(_bucket_indices(nonzero), minlength=len(_LIMITS))[:len(_LIMITS)]
    histo.sum, histo.sum_squares = total, squares
    previous_empty = False
    for i, count in enumerate(counts.tolist()):
        if count:
            if previous_empty and i > 0:
                histo.bucket_limit.append(float(_LIMITS[i - 1]))
                histo.bucket.append(0.0)
            histo.bucket_limit.append(float(_LIMITS[i]))
            histo.bucket.append(float(count))
            previous_empty = False
        else:
            previous_empty = True
    if previous_empty:
        histo.bucket_limit.append(float(_LIMITS[-1]))
        histo.bucket.append(0.0)
    return histo


_HISTOGRAM_CHUNK = 1 << 16
_SIDE = _ZERO_BUCKET - 1  # limits each side of zero
_PADDED = np.concatenate(([-np.inf], _LIMITS, [np.inf]))  # (_PADDED[i] <= v < _PADDED[i + 1]: bucket i)


def _bucket_indices(nonzero: np.ndarray) -> np.ndarray:
    """``np.searchsorted(_LIMITS, nonzero, side="right")``, clipped to the last bucket, for
    nonzero finite values. A positive value's count of limits 1e-12 * 1.1^k below it is
    about 1 + log(v / 1e-12) / log(1.1), a negative one's mirrored: computed in float32,
    whose error (1e-4 of a bucket at most, float32's rounding of v, of its logarithm and of
    the two steps after) puts it within one of the count, and values past float32's range
    or beyond the last limit are clipped to one past it; then moved up or down one where
    the exact limits say so."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        k = np.abs(nonzero).astype(np.float32)
        np.log(k, out=k)
        k -= _LOG_SMALLEST
        k *= _PER_LOG
        np.floor(k, out=k)
        k += 1
    np.clip(k, 0, _SIDE, out=k)
    below = k.astype(np.int32)
    index = np.where(nonzero > 0, _ZERO_BUCKET + below, _SIDE - below)
    index += nonzero >= _PADDED[index + 1]
    index -= nonzero < _PADDED[index]
    return np.minimum(index, len(_LIMITS) - 1, out=index)


_LOG_SMALLEST = np.float32(np.log(1.0e-12))
_PER_LOG = np.float32(1 / np.log(1.1))


@register_op("HistogramSummary", shape=_string_scalar, dtype=lambda op: dtypes.string)
def _histogram_summary_kernel(xp, tag, values):
    values = np.asarray(values)
    if values.size and not np.all(np.isfinite(values)):
        raise errors.InvalidArgumentError(None, None, f"Nan in summary histogram for: {_tag_of(tag)}")
    summary = pb.Summary()
    summary.value.add(tag=_tag_of(tag), histo=histogram_proto(values))
    return _serialized(summary)


# ---------------------------------------------------------------------------
# Images (PNG, written here: no imaging dependency)


def encode_png(image: np.ndarray) -> bytes:
    """An [height, width, channels] uint8 image (1, 3 or 4 channels) as PNG bytes."""
    height, width, channels = image.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + image[row].tobytes() for row in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def _float_image_to_uint8(image: np.ndarray) -> np.ndarray:
    """One float image as TensorFlow's image summary shows it, from its own finite range: a
    non-negative one scaled so that its largest value is 255, one with negative values so
    that the largest magnitude is 127 away from 128; in float32, truncated; pixels with a
    non-finite value red."""
    values = image.astype(np.float32)
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    if low < 0:
        bound = max(abs(low), abs(high))
        scale, offset = (np.float32(127.0 / bound) if bound > 0 else np.float32(0)), np.float32(128.0)
    else:
        scale, offset = (np.float32(255.0 / high) if high > 0 else np.float32(0)), np.float32(0)
    bad = ~np.isfinite(values).all(axis=-1)  # (a pixel with a non-finite channel shows TF's bad color, red)
    values = np.where(np.isfinite(values), values, 0).astype(np.float32)
    out = np.clip(values * scale + offset, 0, 255).astype(np.uint8)
    out[bad] = np.array([255, 0, 0, 255], np.uint8)[:out.shape[-1]]
    return out


@register_op("ImageSummary", shape=_string_scalar, dtype=lambda op: dtypes.string)
def _image_summary_kernel(xp, tag, images, *, max_images):
    images = np.asarray(images)
    if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
        raise errors.InvalidArgumentError(None, None, f"images must be [batch, height, width, 1|3|4], got "
                                                      f"{list(images.shape)}")
    if images.dtype != np.uint8:
        images = np.stack([_float_image_to_uint8(image) for image in images]) if len(images) else \
            images.astype(np.uint8)
    base = _tag_of(tag)
    summary = pb.Summary()
    count = min(max_images, images.shape[0])
    for i in range(count):
        name = f"{base}/image" if max_images == 1 else f"{base}/image/{i}"  # (TF's rule: by max_outputs)
        h, w, c = images[i].shape
        summary.value.add(tag=name, image=pb.Summary.Image(height=h, width=w, colorspace=c,
                                                           encoded_image_string=encode_png(images[i])))
    return _serialized(summary)


# ---------------------------------------------------------------------------
# Tensor summaries (text)


@register_op("TensorSummaryV2", shape=_string_scalar, dtype=lambda op: dtypes.string)
def _tensor_summary_kernel(xp, tag, tensor, serialized_summary_metadata):
    summary = pb.Summary()
    value = summary.value.add(tag=_tag_of(tag))
    metadata = np.asarray(serialized_summary_metadata, dtype=object).reshape(-1)
    try:
        value.metadata.ParseFromString(metadata[0] if metadata.size else b"")
    except DecodeError:
        raise errors.InvalidArgumentError(None, None, "TensorSummaryV2: serialized_summary_metadata is not a "
                                                      "SummaryMetadata") from None
    value.tensor.CopyFrom(wire.tensor_to_proto(tensor))
    value.tensor.tensor_shape.SetInParent()  # (written even for a scalar, as TensorFlow writes it)
    return _serialized(summary)


# ---------------------------------------------------------------------------
# Merging


@register_op("MergeSummary", shape=_string_scalar, dtype=lambda op: dtypes.string)
def _merge_summary_kernel(xp, *inputs):
    merged = pb.Summary()
    seen = set()
    for data in inputs:
        part = pb.Summary.FromString(data.item() if hasattr(data, "item") else data)
        for value in part.value:
            if value.tag in seen and not value.HasField("tensor"):
                raise errors.InvalidArgumentError(None, None, f"Duplicate tag {value.tag} found in summary inputs")
            seen.add(value.tag)
            merged.value.add().CopyFrom(value)
    return _serialized(merged)


for _t in ("ScalarSummary", "HistogramSummary", "ImageSummary", "TensorSummaryV2", "MergeSummary"):
    not_differentiable(_t)


# ---------------------------------------------------------------------------
# The tf.summary functions


_log = logging.getLogger("distflow")
_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w.]")


def _clean_tag(name):
    """A summary name with each character a name scope cannot hold as '_' and no leading '/'
    (``var.name``, "W1:0", becomes "W1_0"), as TF 1.x cleans it (it says so at INFO)."""
    if name is None:
        return name
    cleaned = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    if cleaned != name:
        _log.info("Summary name %s is illegal; using %s instead.", name, cleaned)
    return cleaned


@contextlib.contextmanager
def _summary_scope(name: str, family, values):
    """TF 1.x's summary scope: the op's name scope is [family/]name under the current one
    (made unique as any), and the tag is that scope, with ``family/`` in front again:
    ``fam/outer/fam/loss``, and ``loss_1`` for a second ``loss``. Yields (tag, scope)."""
    name, family = _clean_tag(name), _clean_tag(family)
    base = f"{family}/{name}" if family else name
    with ops.name_scope(base, None, values) as scope:
        tag = scope.rstrip("/")
        yield (f"{family}/{tag}" if family else tag), scope


def _collect(op_output, collections) -> None:
    for key in (collections if collections is not None else [GraphKeys.SUMMARIES]):
        ops.add_to_collection(key, op_output)


def scalar(name, tensor, collections=None, family=None):
    """A Summary with one simple value: ``tensor`` (a real scalar)."""
    tensor = ops.convert_to_tensor(tensor)
    if tensor.shape.ndims not in (None, 0):
        raise ValueError(f"tf.summary.scalar needs a scalar, got shape {tensor.shape} for '{name}'")
    with _summary_scope(name, family, [tensor]) as (tag, scope):
        out = make_tensor("ScalarSummary", [ops.convert_to_tensor(tag, dtype=dtypes.string), tensor], None,
                          scope)
    _collect(out, collections)
    return out


def histogram(name, values, collections=None, family=None):
    """A Summary with the histogram of ``values`` (any shape)."""
    values = ops.convert_to_tensor(values)
    with _summary_scope(name, family, [values]) as (tag, scope):
        out = make_tensor("HistogramSummary", [ops.convert_to_tensor(tag, dtype=dtypes.string), values], None,
                          scope)
    _collect(out, collections)
    return out


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """A Summary with up to ``max_outputs`` PNG images of a [batch, height, width, channels] tensor."""
    tensor = ops.convert_to_tensor(tensor)
    with _summary_scope(name, family, [tensor]) as (tag, scope):
        out = make_tensor("ImageSummary", [ops.convert_to_tensor(tag, dtype=dtypes.string), tensor],
                          {"max_images": int(max_outputs)}, scope)
    _collect(out, collections)
    return out


def text(name, tensor, collections=None):
    """A Summary of a string tensor for TensorBoard's text dashboard."""
    tensor = ops.convert_to_tensor(tensor, dtype=dtypes.string)
    with _summary_scope(name, None, [tensor]) as (tag, scope):
        metadata = pb.SummaryMetadata()
        metadata.plugin_data.plugin_name = "text"
        out = make_tensor("TensorSummaryV2", [ops.convert_to_tensor(tag, dtype=dtypes.string), tensor,
                                              ops.convert_to_tensor(metadata.SerializeToString(), dtypes.string)],
                          None, scope)
    _collect(out, collections)
    return out


def tensor_summary(name, tensor, summary_description=None, collections=None, summary_metadata=None,
                   family=None, display_name=None):
    """A Summary holding ``tensor`` itself, with ``summary_metadata`` (a SummaryMetadata: plugin
    name and content, display name) and ``summary_description`` / ``display_name`` set in it."""
    tensor = ops.convert_to_tensor(tensor)
    metadata = pb.SummaryMetadata()
    if summary_metadata is not None:
        metadata.CopyFrom(summary_metadata)
    if summary_description is not None:
        metadata.summary_description = str(summary_description)
    if display_name is not None:
        metadata.display_name = display_name
    with _summary_scope(name, family, [tensor]) as (tag, scope):
        out = make_tensor("TensorSummaryV2", [ops.convert_to_tensor(tag, dtype=dtypes.string), tensor,
                                              ops.convert_to_tensor(metadata.SerializeToString(), dtypes.string)],
                          None, scope)
    _collect(out, collections)
    return out


def merge(inputs, collections=None, name=None):
    """One Summary holding the values of all of ``inputs`` (serialized Summary tensors). As
    TF 1.x's, it is made in a name scope of its ``name`` (default "Merge") and named ``name``
    there: ``merge(..., name="summary_op")`` is "summary_op/summary_op"."""
    inputs = [ops.convert_to_tensor(i, dtype=dtypes.string) for i in inputs]
    with ops.name_scope(name, "Merge", inputs):
        out = make_tensor("MergeSummary", inputs, None, name or "MergeSummary")
    for key in collections or []:
        ops.add_to_collection(key, out)
    return out


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """The merge of every summary op in collection ``key``, or None if there is none."""
    summaries = ops.get_collection(key, scope)
    if not summaries:
        return None
    return merge(summaries, name=name)


def get_summary_description(node_def):
    """The SummaryDescription of a TensorSummary node (its ``description`` attr, JSON), as TF's;
    a ValueError for any other op (``tensor_summary`` makes TensorSummaryV2 nodes, whose
    description is in their metadata)."""
    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    description = pb.SummaryDescription()
    json_format.Parse(node_def.attr["description"].s.decode("utf-8") or "{}", description)
    return description


# ---------------------------------------------------------------------------
# Audio (16-bit PCM WAV, as tf.audio.encode_wav writes it)


@register_op("AudioSummaryV2", shape=_string_scalar, dtype=lambda op: dtypes.string)
def _audio_summary_kernel(xp, tag, audio, sample_rate, *, max_outputs):
    audio = np.asarray(audio, dtype=np.float64)
    if audio.ndim == 2:
        audio = audio[:, :, None]
    rate = float(sample_rate)
    base = _tag_of(tag)
    summary = pb.Summary()
    count = min(max_outputs, audio.shape[0])
    for i in range(count):
        name = f"{base}/audio" if max_outputs == 1 else f"{base}/audio/{i}"
        summary.value.add(tag=name, audio=pb.Summary.Audio(
            sample_rate=rate, num_channels=audio.shape[2], length_frames=audio.shape[1],
            encoded_audio_string=wav_bytes(audio[i], int(rate)), content_type="audio/wav"))
    return _serialized(summary)


not_differentiable("AudioSummaryV2")


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """A Summary with up to ``max_outputs`` WAV clips of a [batch, frames(, channels)] float tensor."""
    tensor = ops.convert_to_tensor(tensor)
    with _summary_scope(name, family, [tensor]) as (tag, scope):
        out = make_tensor("AudioSummaryV2", [ops.convert_to_tensor(tag, dtype=dtypes.string), tensor,
                                             ops.convert_to_tensor(sample_rate, dtype=dtypes.float32)],
                          {"max_outputs": int(max_outputs)}, scope)
    _collect(out, collections)
    return out
