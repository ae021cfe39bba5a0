"""Smaller TF 1.x ops: edit distance between sparse sequences, decompression and JSON
examples, bitcasts, image patches, batched scatter updates and graph-wide numeric checks."""

from __future__ import annotations

import gzip
import zlib

import numpy as np
from google.protobuf import json_format

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from ..protos import distflow_pb2 as pb
from . import array_ops
from .check_ops import check_numerics
from .control_flow_ops import group
from .conv_ops import conv_output_size
from .math_ops import cast, range_
from .op_util import make_tensor
from .scatter_ops import scatter_nd_update
from .sparse_ops import as_sparse_tensor

# ---------------------------------------------------------------------------
# Edit distance


def _levenshtein(a, b) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _sequences(indices, values):
    """{leading index tuple: [values in the order of the last coordinate]}."""
    groups: dict = {}
    order = np.lexsort(indices.T[::-1]) if len(indices) else []
    for i in order:
        groups.setdefault(tuple(int(v) for v in indices[i, :-1]), []).append(values[i])
    return groups


@register_op("EditDistance", shape=lambda op: TensorShape(None), dtype=lambda op: dtypes.float32)
def _edit_distance_kernel(xp, h_ind, h_val, h_shape, t_ind, t_val, t_shape, *, normalize):
    out_shape = np.maximum(h_shape[:-1], t_shape[:-1]).astype(int)
    hyp, truth = _sequences(h_ind, h_val), _sequences(t_ind, t_val)
    out = np.zeros(out_shape, np.float32)
    for index in np.ndindex(*out_shape):
        a, b = hyp.get(index, []), truth.get(index, [])
        distance = float(_levenshtein(a, b))
        if normalize:
            distance = distance / len(b) if b else (np.inf if a else 0.0)
        out[index] = distance
    return out


not_differentiable("EditDistance")


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences of two SparseTensors (grouped by all but
    their last coordinate), divided by the truth's length when ``normalize``."""
    h, t = as_sparse_tensor(hypothesis), as_sparse_tensor(truth)
    if h.dtype.base_dtype != t.dtype.base_dtype:
        raise TypeError(f"edit_distance: hypothesis is {h.dtype.name} but truth is {t.dtype.name}")
    return make_tensor("EditDistance", [h.indices, h.values, h.dense_shape, t.indices, t.values, t.dense_shape],
                       {"normalize": bool(normalize)}, name)


# ---------------------------------------------------------------------------
# Decoding


def _map_bytes(fn, data):
    flat = np.asarray(data, dtype=object)
    out = np.empty(flat.shape, dtype=object)
    for i, v in np.ndenumerate(flat):
        out[i] = fn(v if isinstance(v, bytes) else str(v).encode())
    return out


@register_op("DecodeCompressed", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.string)
def _decode_compressed_kernel(xp, data, *, compression_type):
    def decode(b: bytes) -> bytes:
        try:
            if compression_type == "ZLIB":
                return zlib.decompress(b)
            if compression_type == "GZIP":
                return gzip.decompress(b)
            return b
        except (zlib.error, OSError, EOFError) as e:
            raise errors.DataLossError(None, None, f"DecodeCompressed ({compression_type}): {e}") from None
    return _map_bytes(decode, data)


not_differentiable("DecodeCompressed")


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002
    """Each string decompressed: ``compression_type`` is "", "ZLIB" or "GZIP"."""
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise ValueError(f"compression_type must be '', 'ZLIB' or 'GZIP', got {compression_type!r}")
    return make_tensor("DecodeCompressed", [ops.convert_to_tensor(bytes, dtype=dtypes.string)],
                       {"compression_type": compression_type}, name or "DecodeCompressed")


@register_op("DecodeJSONExample", shape=lambda op: op.inputs[0].shape, dtype=lambda op: dtypes.string)
def _decode_json_example_kernel(xp, json_examples):
    def decode(b: bytes) -> bytes:
        try:
            return json_format.Parse(b.decode(), pb.Example()).SerializeToString()
        except (json_format.ParseError, UnicodeDecodeError) as e:
            raise errors.InvalidArgumentError(None, None, f"Error while parsing JSON: {e}") from None
    return _map_bytes(decode, json_examples)


not_differentiable("DecodeJSONExample")


def decode_json_example(json_examples, name=None):
    """tf.train.Example messages written as JSON, converted to their binary serialization."""
    return make_tensor("DecodeJSONExample", [ops.convert_to_tensor(json_examples, dtype=dtypes.string)], None,
                       name or "DecodeJSONExample")


# ---------------------------------------------------------------------------
# Bitcast


def _bitcast_shape(op):
    shape = op.inputs[0].shape
    src, dst = op.inputs[0].dtype.base_dtype.size, op.get_attr("type").size
    if shape.ndims is None or src == dst:
        return shape
    dims = shape.as_list()
    return TensorShape(dims + [src // dst]) if src > dst else TensorShape(dims[:-1])


@register_op("Bitcast", shape=_bitcast_shape, dtype=lambda op: op.get_attr("type"))
def _bitcast_kernel(xp, x, *, type):  # noqa: A002
    target = np.dtype(type.as_numpy_dtype)
    if x.dtype.itemsize > target.itemsize:
        return np.ascontiguousarray(x).view(target).reshape(x.shape + (x.dtype.itemsize // target.itemsize,))
    if x.dtype.itemsize < target.itemsize:
        if not x.ndim or x.shape[-1] != target.itemsize // x.dtype.itemsize:
            raise errors.InvalidArgumentError(None, None, f"Bitcast: the last dimension of shape {list(x.shape)} must "
                                                          f"be {target.itemsize // x.dtype.itemsize} to make "
                                                          f"{type.name}")
        return np.ascontiguousarray(x).view(target).reshape(x.shape[:-1])
    return np.ascontiguousarray(x).view(target)


not_differentiable("Bitcast")


def bitcast(input, type, name=None):  # noqa: A002
    """The same bytes read as ``type``: a wider type eats the last dimension, a narrower adds one."""
    x = ops.convert_to_tensor(input)
    target = dtypes.as_dtype(type)
    if target == dtypes.string or x.dtype.base_dtype == dtypes.string:
        raise TypeError("bitcast works on numeric tensors, not strings")
    return make_tensor("Bitcast", [x], {"type": target}, name or "Bitcast")


# ---------------------------------------------------------------------------
# Image patches


def _patch_geometry(shape, ksizes, strides, rates, padding):
    _, h, w, _ = shape
    eh, ew = (ksizes[1] - 1) * rates[1] + 1, (ksizes[2] - 1) * rates[2] + 1
    (oh, top), (ow, left) = conv_output_size(h, eh, strides[1], padding), conv_output_size(w, ew, strides[2], padding)
    return eh, ew, oh, ow, top, left


def _patch_index(shape, ksizes, strides, rates, padding):
    """For each output [oh, ow, kh, kw]: the input row and column it reads (-1 where padding)."""
    _, h, w, _ = shape
    eh, ew, oh, ow, top, left = _patch_geometry(shape, ksizes, strides, rates, padding)
    rows = (np.arange(oh)[:, None] * strides[1] - top + np.arange(ksizes[1])[None, :] * rates[1])
    cols = (np.arange(ow)[:, None] * strides[2] - left + np.arange(ksizes[2])[None, :] * rates[2])
    valid = (rows[:, None, :, None] >= 0) & (rows[:, None, :, None] < h) & \
        (cols[None, :, None, :] >= 0) & (cols[None, :, None, :] < w)
    return rows, cols, valid, oh, ow


@register_op("ExtractImagePatches", shape=lambda op: TensorShape(None))
def _extract_patches_kernel(xp, images, *, ksizes, strides, rates, padding):
    rows, cols, valid, oh, ow = _patch_index(images.shape, ksizes, strides, rates, padding)
    n, h, w, c = images.shape
    r = np.clip(rows, 0, h - 1)[:, None, :, None]
    q = np.clip(cols, 0, w - 1)[None, :, None, :]
    patches = images[:, r, q, :] * valid[None, ..., None]  # [n, oh, ow, kh, kw, c]
    return patches.reshape(n, oh, ow, -1).astype(images.dtype)


@register_op("ExtractImagePatchesGrad", shape=lambda op: op.inputs[0].shape)
def _extract_patches_grad_kernel(xp, images, grad, *, ksizes, strides, rates, padding):
    rows, cols, valid, oh, ow = _patch_index(images.shape, ksizes, strides, rates, padding)
    n, h, w, c = images.shape
    g = grad.reshape(n, oh, ow, ksizes[1], ksizes[2], c) * valid[None, ..., None]
    out = np.zeros_like(images)
    r = np.broadcast_to(np.clip(rows, 0, h - 1)[:, None, :, None], valid.shape)
    q = np.broadcast_to(np.clip(cols, 0, w - 1)[None, :, None, :], valid.shape)
    np.add.at(out, (slice(None), r, q), g)
    return out


@register_gradient("ExtractImagePatches")
def _extract_patches_grad(op, grad):
    attrs = {a: op.get_attr(a) for a in ("ksizes", "strides", "rates", "padding")}
    return (make_tensor("ExtractImagePatchesGrad", [op.inputs[0], grad], attrs),)


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None):
    """Each [ksize_rows, ksize_cols] patch (taps ``rates`` apart) flattened into the depth of
    one output pixel: [batch, out_rows, out_cols, ksize_rows * ksize_cols * depth]."""
    images = ops.convert_to_tensor(images)
    ksizes = [int(v) for v in (ksizes if ksizes is not None else sizes)]
    attrs = {"ksizes": ksizes, "strides": [int(v) for v in strides], "rates": [int(v) for v in rates],
             "padding": padding.upper()}
    for key in ("ksizes", "strides", "rates"):
        if len(attrs[key]) != 4 or attrs[key][0] != 1 or attrs[key][3] != 1:
            raise ValueError(f"extract_image_patches: {key} must be [1, rows, cols, 1], got {attrs[key]}")
    out = make_tensor("ExtractImagePatches", [images], attrs, name or "ExtractImagePatches")
    if images.shape.ndims == 4 and None not in images.shape.as_list()[1:]:
        _, _, oh, ow, _, _ = _patch_geometry(images.shape.as_list(), ksizes, attrs["strides"], attrs["rates"],
                                             attrs["padding"])
        out.set_shape([images.shape[0].value, oh, ow, ksizes[1] * ksizes[2] * images.shape[3].value])
    return out


# ---------------------------------------------------------------------------
# Batched scatter, numeric checks


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[b, indices[b, k]] = updates[b, k]`` for a [batch, n, ...] variable and [batch, k] indices."""
    with ops.name_scope(name, "BatchScatterUpdate", [ref, indices, updates]):
        indices = ops.convert_to_tensor(indices)
        batch = array_ops.shape(indices)[0]
        rows = array_ops.tile(array_ops.expand_dims(cast(range_(batch), indices.dtype.base_dtype), 1),
                              array_ops.stack([1, array_ops.shape(indices)[1]]))
        return scatter_nd_update(ref, array_ops.stack([rows, indices], axis=-1), updates, use_locking=use_locking)


def add_check_numerics_ops():
    """One op that checks every floating tensor of the default graph for NaN and Inf."""
    graph = ops.get_default_graph()
    checks = []
    for op in graph.get_operations():
        for output in op.outputs:
            if output.dtype.base_dtype.is_floating and not output.dtype.is_ref_dtype:
                with ops.control_dependencies(checks[-1:]):
                    checks.append(check_numerics(output, f"{op.name}:{output.value_index}"))
    return group(*checks)

