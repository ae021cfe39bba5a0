"""``ImageProjectiveTransformV2``: each output pixel of an image read from the input point a
projective transform maps it to (tf.contrib.image's ``transform``, ``rotate`` and
``translate``).

A transform ``[a0, a1, a2, b0, b1, b2, c0, c1]`` maps the output point (x, y) (column, row)
to the input point ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1;
the pixel there is read by rounding ("NEAREST", halves away from zero) or from its four
neighbours ("BILINEAR"); points outside the image (and k = 0) read zero, as TensorFlow's
kernel does. The gradient with respect to the images is the kernel's exact adjoint (each
output's gradient added into the input pixels it read, with their weights), where
TensorFlow's transformed the gradient by the inverse transform, which is not the adjoint
of a bilinear read; there is none with respect to the transforms, as in TensorFlow.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from .op_util import make_tensor


def _shape(op):
    images, output_shape = op.inputs[0].shape, op.inputs[2]
    if images.ndims is None:
        return TensorShape([None] * 4)
    size = output_shape.op._attr("value") if output_shape.op.type == "Const" else None
    spatial = [int(v) for v in np.asarray(size).tolist()] if size is not None else [None, None]
    return TensorShape([images[0].value, *spatial, images[3].value])


def _taps(transforms: np.ndarray, out_h: int, out_w: int, in_h: int, in_w: int, interpolation: str):
    """For each image and output pixel: the input pixels read (flat indices into one image,
    -1 where outside) and their weights, [n, out_h * out_w, taps]."""
    y, x = np.meshgrid(np.arange(out_h, dtype=np.float64), np.arange(out_w, dtype=np.float64), indexing="ij")
    x, y = x.ravel()[None, :], y.ravel()[None, :]
    t = transforms.astype(np.float64)
    k = t[:, 6:7] * x + t[:, 7:8] * y + 1.0
    valid = k != 0
    k = np.where(valid, k, 1.0)
    in_x = (t[:, 0:1] * x + t[:, 1:2] * y + t[:, 2:3]) / k
    in_y = (t[:, 3:4] * x + t[:, 4:5] * y + t[:, 5:6]) / k

    def index(rows, cols):
        inside = valid & (rows >= 0) & (rows < in_h) & (cols >= 0) & (cols < in_w)
        return np.where(inside, rows * in_w + cols, -1).astype(np.int64)

    if interpolation == "NEAREST":  # (std::round: halves away from zero)
        rows = np.sign(in_y) * np.floor(np.abs(in_y) + 0.5)
        cols = np.sign(in_x) * np.floor(np.abs(in_x) + 0.5)
        return index(rows, cols)[..., None], np.ones(rows.shape + (1,))
    y0, x0 = np.floor(in_y), np.floor(in_x)
    dy, dx = in_y - y0, in_x - x0
    taps = np.stack([index(y0, x0), index(y0, x0 + 1), index(y0 + 1, x0), index(y0 + 1, x0 + 1)], -1)
    weights = np.stack([(1 - dy) * (1 - dx), (1 - dy) * dx, dy * (1 - dx), dy * dx], -1)
    return taps, weights


def _check(images, transforms, output_shape, interpolation, op_name):
    if images.ndim != 4:
        raise errors.InvalidArgumentError(None, None, f"{op_name}: images must be 4-D, got shape {list(images.shape)}")
    if transforms.ndim != 2 or transforms.shape[1] != 8 or transforms.shape[0] not in (1, images.shape[0]):
        raise errors.InvalidArgumentError(None, None, f"{op_name}: transforms must be [1, 8] or [batch, 8] for "
                                          f"{images.shape[0]} images, got {list(transforms.shape)}")
    if interpolation not in ("NEAREST", "BILINEAR"):
        raise errors.InvalidArgumentError(None, None, f"{op_name}: interpolation must be NEAREST or BILINEAR, got "
                                          f"{interpolation!r}")
    out_h, out_w = (int(v) for v in np.asarray(output_shape).reshape(-1))
    return np.broadcast_to(transforms, (images.shape[0], 8)), out_h, out_w


@register_op("ImageProjectiveTransformV2", shape=_shape, dtype=lambda op: op._attr("dtype"))
def _transform_kernel(images, transforms, output_shape, *, interpolation, dtype=None, fill_mode="CONSTANT"):
    transforms, out_h, out_w = _check(images, transforms, output_shape, interpolation, "ImageProjectiveTransformV2")
    n, in_h, in_w, c = images.shape
    taps, weights = _taps(transforms, out_h, out_w, in_h, in_w, interpolation)
    flat = images.reshape(n, in_h * in_w, c).astype(np.float64)
    flat = np.concatenate([flat, np.zeros((n, 1, c))], 1)  # (index -1: the fill value, zero)
    read = np.take_along_axis(flat[:, :, None, :], taps[..., None] % (in_h * in_w + 1), 1)
    out = (read * weights[..., None]).sum(2).reshape(n, out_h, out_w, c)
    if np.issubdtype(images.dtype, np.integer):
        return np.trunc(out).astype(images.dtype)  # (TF's static_cast to T)
    return out.astype(images.dtype)


@register_op("_ImageProjectiveTransformGrad", shape=lambda op: op.inputs[1].shape,
             dtype=lambda op: op.inputs[0].dtype.base_dtype)
def _transform_grad_kernel(grad, images, transforms, *, interpolation):
    n, in_h, in_w, c = images.shape
    transforms, out_h, out_w = _check(images, transforms, grad.shape[1:3], interpolation,
                                      "ImageProjectiveTransformV2's gradient")
    taps, weights = _taps(transforms, out_h, out_w, in_h, in_w, interpolation)
    contrib = grad.reshape(n, out_h * out_w, 1, c).astype(np.float64) * weights[..., None]
    out = np.zeros((n, in_h * in_w + 1, c))
    rows = np.broadcast_to(np.arange(n)[:, None, None], taps.shape)
    np.add.at(out, (rows, taps % (in_h * in_w + 1)), contrib)
    return out[:, :-1].reshape(n, in_h, in_w, c).astype(grad.dtype)


@register_gradient("ImageProjectiveTransformV2")
def _transform_grad(op, grad):
    if not op.inputs[0].dtype.base_dtype.is_floating:
        return None, None, None
    return (make_tensor("_ImageProjectiveTransformGrad", [grad, op.inputs[0], op.inputs[1]],
                        {"interpolation": op._attr("interpolation")}), None, None)


def image_projective_transform(images, transforms, output_shape, interpolation="NEAREST", name=None):
    """The op over NHWC ``images`` with [n or 1, 8] ``transforms`` and an [height, width] ``output_shape``."""
    images = ops.convert_to_tensor(images)
    transforms = ops.convert_to_tensor(transforms, dtype=dtypes.float32)
    output_shape = ops.convert_to_tensor(output_shape, dtype=dtypes.int32)
    return make_tensor("ImageProjectiveTransformV2", [images, transforms, output_shape],
                       {"interpolation": interpolation.upper(), "dtype": images.dtype.base_dtype},
                       name or "ImageProjectiveTransformV2")
