"""``tf.image``: the image functions of TF 1.x's input pipelines (flips, rotations, crops,
brightness, contrast, saturation, hue and gamma, standardization, resizing, PNG and BMP
decoding: ops/image_ops.py), on [height, width, channels] or batched NHWC tensors, and
non-maximum suppression and crop-and-resize for detection models."""

from __future__ import annotations

import functools

import numpy as np

from ._namespace import missing
from .framework import dtypes, errors
from .framework import ops
from .framework.registry import register_gradient, register_op
from .framework.tensor_shape import TensorShape, unknown_shape
from .ops import array_ops, check_ops, control_flow_v2, conv_ops, convolution_ops, manip_ops, math_ops, random_ops, reduction_ops, segment_ops, slicing_ops
from .ops.image_ops import (crop_and_resize, decode_and_crop_jpeg, decode_bmp, decode_image, decode_jpeg,  # noqa: F401
                            decode_png, encode_jpeg, extract_jpeg_shape, is_jpeg,
                            draw_bounding_boxes, extract_glimpse, encode_png, hsv_to_rgb, non_max_suppression,
                            non_max_suppression_padded, non_max_suppression_with_scores, rgb_to_hsv,
                            sample_distorted_bounding_box)
from .ops.random_ops import random_crop  # noqa: F401
from .ops.convolution_ops import extract_image_patches  # noqa: F401
from .ops.op_util import constant_value, make_tensor


class ResizeMethod:
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def _batched(image):
    """A 4-D image and whether it was 3-D (one of unknown rank is taken as 3-D, as in TF)."""
    image = ops.convert_to_tensor(image, name="image")
    if image.shape.ndims not in (None, 3, 4):
        raise ValueError(f"'image' must have either 3 or 4 dimensions. Got shape {image.shape}")
    if image.shape.ndims != 4:
        unknown = image.shape.ndims is None
        image = array_ops.expand_dims(image, 0)
        if unknown:
            image.set_shape([None] * 4)
        return image, True
    return image, False


def _unbatched(image, squeeze):
    return array_ops.squeeze(image, [0]) if squeeze else image


def _sizes(image) -> list:
    """[batch, height, width, channels] of a 4-D image: an int where the graph knows it,
    else an int32 scalar of its shape."""
    dynamic = array_ops.shape(image)
    return [d if d is not None else dynamic[i] for i, d in enumerate(image.shape.as_list())]


def _size(value):
    """An offset or size argument: an int if the graph knows it, else an int32 scalar."""
    if isinstance(value, (ops.Tensor, np.ndarray)):
        known = constant_value(value) if isinstance(value, ops.Tensor) else value
        if known is None:
            return math_ops.cast(value, dtypes.int32)
        value = known
    return int(value)


def _static(value):
    return value if isinstance(value, int) else None


def _require(condition, message: str, asserts: list) -> None:
    """A size condition: a ValueError now if the graph already knows it fails, else an Assert
    that fails the step (InvalidArgumentError) when it does."""
    if isinstance(condition, (bool, np.bool_)):
        if not condition:
            raise ValueError(message)
    else:
        asserts.append(check_ops.Assert(condition, [message]))


def _ge(a, b):
    """a >= b: a bool for two ints, else a bool tensor."""
    return a >= b if isinstance(a, int) and isinstance(b, int) else math_ops.greater_equal(a, b)


def _gt(a, b):
    return a > b if isinstance(a, int) and isinstance(b, int) else math_ops.greater(a, b)


def _checked(image, asserts: list):
    """``image``, after the step has checked ``asserts``."""
    if not asserts:
        return image
    with ops.control_dependencies(asserts):
        return array_ops.identity(image)


def _nonempty(sizes: list, asserts: list) -> None:
    """TF's check that an image has no zero-length dimension (known now or when it runs)."""
    for d in sizes[1:]:
        _require(_gt(d, 0), "all dims of 'image.shape' must be > 0.", asserts)


def _flip(image, axis: int, scope: str):
    with ops.name_scope(None, scope, [image]):
        image = ops.convert_to_tensor(image, name="image")
        if image.shape.ndims not in (None, 3, 4):
            raise ValueError(f"'image' must have either 3 or 4 dimensions. Got shape {image.shape}")
        return manip_ops.reverse(image, [axis])


def flip_left_right(image):
    """The image mirrored along its width axis (3-D, or a batch)."""
    return _flip(image, -2, "flip_left_right")


def flip_up_down(image):
    """The image mirrored along its height axis (3-D, or a batch)."""
    return _flip(image, -3, "flip_up_down")


def _random_flip(image, flip, seed, scope):
    with ops.name_scope(None, scope, [image]) as name:
        image = ops.convert_to_tensor(image, name="image")
        coin = math_ops.less(random_ops.random_uniform([], seed=seed), 0.5)
        flipped = flip(image)
        return math_ops.where(array_ops.fill(array_ops.shape(image), coin), flipped, image, name=name)


def random_flip_left_right(image, seed=None):
    """The image mirrored left-right with probability 1/2."""
    return _random_flip(image, flip_left_right, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """The image mirrored upside down with probability 1/2."""
    return _random_flip(image, flip_up_down, seed, "random_flip_up_down")


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Integers map to [0, 1] floats (and back, scaled by the integer type's maximum)."""
    image = ops.convert_to_tensor(image)
    dtype = dtypes.as_dtype(dtype)
    if image.dtype.base_dtype == dtype:
        return array_ops.identity(image, name=name)
    with ops.name_scope(name, "convert_image", [image]):
        if image.dtype.is_integer and dtype.is_integer:
            # (scaled by a power of two: the types' ranges, 2^bits, divide each other)
            span_in = int(np.iinfo(image.dtype.base_dtype.as_numpy_dtype).max) + 1
            span_out = int(np.iinfo(dtype.as_numpy_dtype).max) + 1
            if span_in > span_out:
                return math_ops.cast(math_ops.floordiv(image, span_in // span_out), dtype)
            return math_ops.cast(image, dtype) * (span_out // span_in)
        if image.dtype.is_integer and dtype.is_floating:
            scale = 1.0 / np.iinfo(image.dtype.base_dtype.as_numpy_dtype).max
            return math_ops.cast(image, dtype) * scale
        if image.dtype.is_floating and dtype.is_integer:
            scale = np.iinfo(dtype.as_numpy_dtype).max + 0.5
            if saturate:
                return math_ops.saturate_cast(image * scale, dtype)
            return math_ops.cast(image * scale, dtype)
        return math_ops.cast(image, dtype)


def _as_float(image, adjust):
    """``adjust`` applied in floating point, as TensorFlow's colour adjustments are: integer
    (and float64) images go to float32 in [0, 1] and come back saturated to their dtype."""
    image = ops.convert_to_tensor(image)
    dtype = image.dtype.base_dtype
    if dtype in (dtypes.float16, dtypes.float32):
        return adjust(image)
    return convert_image_dtype(adjust(convert_image_dtype(image, dtypes.float32)), dtype, saturate=True)


def adjust_brightness(image, delta):
    """``image + delta``, computed in float32 for integer images (in [0, 1] units)."""
    return _as_float(image, lambda x: x + math_ops.cast(delta, x.dtype.base_dtype))


def random_brightness(image, max_delta, seed=None):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, random_ops.random_uniform([], -max_delta, max_delta, seed=seed))


def adjust_contrast(images, contrast_factor):
    """(x - mean) * factor + mean, the mean taken per image and channel."""
    def adjust(x):
        mean = reduction_ops.reduce_mean(x, [-3, -2], keepdims=True)
        return (x - mean) * math_ops.cast(contrast_factor, x.dtype.base_dtype) + mean
    return _as_float(images, adjust)


def random_contrast(image, lower, upper, seed=None):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, random_ops.random_uniform([], lower, upper, seed=seed))


def per_image_standardization(image):
    """(x - mean) / max(stddev, 1 / sqrt(number of entries)), per image."""
    with ops.name_scope(None, "per_image_standardization", [image]) as scope:
        image = math_ops.cast(ops.convert_to_tensor(image, name="image"), dtypes.float32)
        axes = [-3, -2, -1]
        n = math_ops.cast(reduction_ops.reduce_prod(array_ops.shape(image)[-3:]), dtypes.float32)
        mean = reduction_ops.reduce_mean(image, axes, keepdims=True)
        std = math_ops.sqrt(reduction_ops.reduce_mean(math_ops.square(image - mean), axes, keepdims=True))
        return math_ops.divide(image - mean, math_ops.maximum(std, math_ops.rsqrt(n)), name=scope)


def rgb_to_grayscale(images, name=None):
    """The luma (0.2989 R + 0.587 G + 0.114 B) with one channel kept; an integer image is
    weighed in float32 and comes back in its own dtype, as TF's."""
    with ops.name_scope(name, "rgb_to_grayscale", [images]) as scope:
        images = ops.convert_to_tensor(images, name="images")
        dtype = images.dtype.base_dtype
        floats = images if dtype.is_floating else convert_image_dtype(images, dtypes.float32)
        weights = array_ops.constant([0.2989, 0.5870, 0.1140], dtype=floats.dtype.base_dtype)
        gray = reduction_ops.reduce_sum(floats * weights, -1, keepdims=True)
        return convert_image_dtype(gray, dtype, name=scope)


def grayscale_to_rgb(images, name=None):
    """The one channel of a grayscale image repeated into three."""
    with ops.name_scope(name, "grayscale_to_rgb", [images]) as scope:
        images = ops.convert_to_tensor(images, name="images")
        if images.shape.ndims is not None and (images.shape.ndims < 2 or images.shape[-1].value not in (None, 1)):
            raise ValueError(f"grayscale_to_rgb: the last dimension must be 1 (one channel), got shape {images.shape}")
        return slicing_ops.concat([images, images, images], -1, name=scope)


def _bounding_box(image, offset_height, offset_width, target_height, target_width, stop: str):
    """What cropping and padding start from: the 4-D image, whether it was 3-D, its sizes,
    the offsets and targets (ints or scalars), and the checks of the image and the offsets
    (TF's messages, ending in ``stop``)."""
    image, squeeze = _batched(image)
    sizes = _sizes(image)
    box = tuple(_size(v) for v in (offset_height, offset_width, target_height, target_width))
    asserts: list = []
    _nonempty(sizes, asserts)
    _require(_ge(box[0], 0), f"offset_height must be >= 0{stop}", asserts)
    _require(_ge(box[1], 0), f"offset_width must be >= 0{stop}", asserts)
    return image, squeeze, sizes, box, asserts


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height`` x ``target_width`` window of the image (3-D, or a batch) whose top
    left corner is at the offsets. Sizes may be tensors and the image's may be unknown: what
    the graph knows is checked now (ValueError), the rest when the step runs."""
    with ops.name_scope(None, "crop_to_bounding_box", [image]):
        image, squeeze, (batch, height, width, depth), (oh, ow, th, tw), asserts = _bounding_box(
            image, offset_height, offset_width, target_height, target_width, ".")
        _require(_gt(th, 0), "target_height must be > 0.", asserts)
        _require(_gt(tw, 0), "target_width must be > 0.", asserts)
        _require(_ge(height, th + oh), "height must be >= target + offset.", asserts)
        _require(_ge(width, tw + ow), "width must be >= target + offset.", asserts)
        image = _checked(image, asserts)
        cropped = slicing_ops.slice(image, array_ops.stack([0, oh, ow, 0]), array_ops.stack([-1, th, tw, -1]))
        cropped.set_shape([_static(batch), _static(th), _static(tw), _static(depth)])
        return _unbatched(cropped, squeeze)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The image (3-D, or a batch) with zeros around it: ``offset_height`` rows above and
    ``offset_width`` columns to its left, up to ``target_height`` x ``target_width``. Sizes
    may be tensors and the image's may be unknown (checked when the step runs)."""
    with ops.name_scope(None, "pad_to_bounding_box", [image]):
        image, squeeze, (batch, height, width, depth), (oh, ow, th, tw), asserts = _bounding_box(
            image, offset_height, offset_width, target_height, target_width, "")
        after_h, after_w = th - oh - height, tw - ow - width
        _require(_ge(after_h, 0), "height must be <= target - offset", asserts)
        _require(_ge(after_w, 0), "width must be <= target - offset", asserts)
        image = _checked(image, asserts)
        paddings = array_ops.reshape(array_ops.stack([0, 0, oh, after_h, ow, after_w, 0, 0]), [4, 2])
        padded = array_ops.pad(image, paddings)
        padded.set_shape([_static(batch), _static(th), _static(tw), _static(depth)])
        return _unbatched(padded, squeeze)


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """The image (3-D, or a batch) centre-cropped where it is larger than the target and
    zero-padded around where it is smaller; its size may be known only when the step runs."""
    with ops.name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image, squeeze = _batched(image)
        _, height, width, _ = sizes = _sizes(image)
        th, tw = _size(target_height), _size(target_width)
        asserts: list = []
        _nonempty(sizes, asserts)
        _require(_gt(th, 0), "target_height must be > 0.", asserts)
        _require(_gt(tw, 0), "target_width must be > 0.", asserts)
        image = _checked(image, asserts)

        def largest(a, b):
            return max(a, b) if isinstance(a, int) and isinstance(b, int) else math_ops.maximum(a, b)

        def smallest(a, b):
            return min(a, b) if isinstance(a, int) and isinstance(b, int) else math_ops.minimum(a, b)

        diff_h, diff_w = th - height, tw - width
        cropped = crop_to_bounding_box(image, largest(-diff_h // 2, 0), largest(-diff_w // 2, 0),
                                       smallest(th, height), smallest(tw, width))
        resized = pad_to_bounding_box(cropped, largest(diff_h // 2, 0), largest(diff_w // 2, 0), th, tw)
        return _unbatched(resized, squeeze)


resize_with_crop_or_pad = resize_image_with_crop_or_pad


def central_crop(image, central_fraction):
    """The central ``central_fraction`` of the image's height and width (3-D, or a batch);
    the image itself for 1. Offsets are truncated and the size is what they leave, as TF's."""
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    with ops.name_scope(None, "central_crop", [image]):
        image = ops.convert_to_tensor(image, name="image")
        if central_fraction == 1.0:
            return image
        batched, squeeze = _batched(image)
        _, height, width, _ = _sizes(batched)

        def offset(size):
            if isinstance(size, int):
                return int((size - size * central_fraction) / 2)
            size = math_ops.cast(size, dtypes.float64)
            return math_ops.cast((size - size * central_fraction) / 2, dtypes.int32)

        top, left = offset(height), offset(width)
        return _unbatched(crop_to_bounding_box(batched, top, left, height - 2 * top, width - 2 * left), squeeze)


_BICUBIC_TABLE = 1024  # (TensorFlow's legacy bicubic weights come from a table of this many steps)


def _cubic(distance, a):
    """Keys' cubic convolution kernel at |distance| <= 2."""
    d = np.abs(distance)
    return np.where(d <= 1, ((a + 2) * d - (a + 3)) * d * d + 1, ((a * d - 5 * a) * d + 8 * a) * d - 4 * a)


@functools.lru_cache(maxsize=256)
def _resize_weights(size: int, new_size: int, method: int, align_corners: bool, half_pixel: bool) -> np.ndarray:
    """The [new_size, size] matrix that resizes one axis: a resize is this matrix applied
    along the height and then the width (every method of tf.image is separable), and its
    gradient is the transposed matrices applied the same way.

    Sampling follows TensorFlow: output pixel i reads the input at i * scale (scale = size /
    new_size, or (size - 1) / (new_size - 1) with ``align_corners``), or at (i + 0.5) * scale
    - 0.5 with half-pixel centers."""
    scale = (size - 1) / (new_size - 1) if align_corners and new_size > 1 else size / new_size
    out = np.arange(new_size, dtype=np.float64)
    weights = np.zeros((new_size, size))
    rows = np.arange(new_size)
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        # (TensorFlow rounds halves up: C's roundf, the coordinates being non-negative)
        if half_pixel:
            src = np.floor((out + 0.5) * scale)
        else:
            src = np.floor(out * scale + 0.5) if align_corners else np.floor(out * scale)
        weights[rows, np.clip(src.astype(np.int64), 0, size - 1)] = 1.0
    elif method == ResizeMethod.BILINEAR:
        src = (out + 0.5) * scale - 0.5 if half_pixel else out * scale
        low = np.floor(src)
        frac = src - low
        low = low.astype(np.int64)
        np.add.at(weights, (rows, np.clip(low, 0, size - 1)), 1.0 - frac)
        np.add.at(weights, (rows, np.clip(low + 1, 0, size - 1)), frac)
    elif method == ResizeMethod.BICUBIC:
        src = (out + 0.5) * scale - 0.5 if half_pixel else out * scale
        low = np.floor(src)
        frac = src - low
        frac = np.floor(frac * _BICUBIC_TABLE + 0.5) / _BICUBIC_TABLE  # (distances at the table's steps)
        for tap in (-1, 0, 1, 2):
            index = low.astype(np.int64) + tap
            w = _cubic(frac - tap, -0.5 if half_pixel else -0.75)  # (Keys' a; the legacy kernel's -0.75)
            if half_pixel:  # (taps outside the image drop out, and the rest are renormalized)
                w = np.where((index >= 0) & (index < size), w, 0.0)
            np.add.at(weights, (rows, np.clip(index, 0, size - 1)), w)
        if half_pixel:
            weights /= weights.sum(1, keepdims=True)
    elif method == ResizeMethod.AREA:
        for i in range(new_size):
            start, stop = i * scale, (i + 1) * scale
            for v in range(int(np.floor(start)), int(np.ceil(stop))):
                weights[i, min(v, size - 1)] += (min(v + 1.0, stop) - max(float(v), start)) / scale
    else:
        raise ValueError(f"unknown resize method {method}")
    return weights


def _resize_matrices(shape, new_h, new_w, method, align_corners, half_pixel):
    return (_resize_weights(int(shape[1]), new_h, method, align_corners, half_pixel),
            _resize_weights(int(shape[2]), new_w, method, align_corners, half_pixel))


def _resize_shape(op):
    size = constant_value(op.inputs[1])
    height_width = [int(v) for v in size] if size is not None else [None, None]
    return TensorShape([op.inputs[0].shape[0], *height_width, op.inputs[0].shape[3]])


def _resize_dtype(op):
    dtype = op.inputs[0].dtype.base_dtype
    if op._attr("method") == ResizeMethod.NEAREST_NEIGHBOR or dtype == dtypes.float64:
        return dtype
    return dtypes.float32


@register_op("ResizeImage", shape=_resize_shape, dtype=_resize_dtype)
def _resize_kernel(xp, images, size, *, method, align_corners, half_pixel_centers=False):
    new_h, new_w = (int(v) for v in size)
    if new_h <= 0 or new_w <= 0:
        raise errors.InvalidArgumentError(None, None, f"ResizeImage: size must be positive, got {[new_h, new_w]}")
    rows, cols = _resize_matrices(images.shape, new_h, new_w, method, align_corners, half_pixel_centers)
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        return images[:, rows.argmax(1)][:, :, cols.argmax(1)]
    images = images.astype(np.float64 if images.dtype == np.float64 else np.float32)
    out = np.einsum("iy,nyxc->nixc", rows.astype(images.dtype), images, optimize=True)
    return np.einsum("jx,nixc->nijc", cols.astype(images.dtype), out, optimize=True)


@register_op("ResizeImageGrad", shape=lambda op: op.inputs[1].shape, dtype=lambda op: op.inputs[1].dtype.base_dtype)
def _resize_grad_kernel(xp, grad, original, *, method, align_corners, half_pixel_centers=False):
    """The gradient of ResizeImage: ``grad`` through the transposed interpolation matrices."""
    rows, cols = _resize_matrices(original.shape, grad.shape[1], grad.shape[2], method, align_corners,
                                  half_pixel_centers)
    g = np.einsum("iy,nijc->nyjc", rows, grad.astype(np.float64), optimize=True)
    return np.einsum("jx,nyjc->nyxc", cols, g, optimize=True).astype(original.dtype)


@register_op("ResizeNearestNeighborGrad", shape=lambda op: unknown_shape())
def _resize_nearest_grad_kernel(xp, grads, size, *, align_corners=False, half_pixel_centers=False):
    """TensorFlow's gradient op of a nearest-neighbour resize (in its training graphs): each
    pixel's gradient goes to the pixel of an image of ``size`` it was read from."""
    h, w = (int(v) for v in size)
    rows, cols = _resize_matrices((grads.shape[0], h, w), grads.shape[1], grads.shape[2],
                                  ResizeMethod.NEAREST_NEIGHBOR, align_corners, half_pixel_centers)
    g = np.einsum("iy,nijc->nyjc", rows, grads.astype(np.float64), optimize=True)
    return np.einsum("jx,nyjc->nyxc", cols, g, optimize=True).astype(grads.dtype)


@register_gradient("ResizeImage")
def _resize_grad(op, grad):
    images = op.inputs[0]
    if not images.dtype.base_dtype.is_floating:
        return None, None
    attrs = {"method": op._attr("method"), "align_corners": op._attr("align_corners")}
    if op._attrs.get("half_pixel_centers"):
        attrs["half_pixel_centers"] = True
    return make_tensor("ResizeImageGrad", [grad, images], attrs, "ResizeImageGrad"), None


@register_gradient("ResizeImageGrad")
def _resize_grad_grad(op, grad):
    attrs = op._attrs
    return (make_tensor("ResizeImage", [grad, array_ops.shape(op.inputs[0])[1:3]],
                        {k: attrs[k] for k in ("method", "align_corners", "half_pixel_centers") if k in attrs},
                        "ResizeImage"), None)


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False, preserve_aspect_ratio=False,
                  name=None, half_pixel_centers=False):
    """Resized to ``size`` [new_height, new_width] by bilinear, nearest-neighbour, bicubic or
    area interpolation, as TF 1.x's kernels sample; nearest neighbour keeps the input's
    dtype, the others give float32 (float64 for float64 images, where TensorFlow gives
    float32). Differentiable with respect to the images."""
    if method not in (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR, ResizeMethod.BICUBIC, ResizeMethod.AREA):
        raise ValueError(f"resize_images: unknown method {method!r}")
    if align_corners and half_pixel_centers:
        raise ValueError("resize: align_corners and half_pixel_centers cannot both be True")
    with ops.name_scope(name, "resize_images", [images, size]):
        images, squeeze = _batched(images)
        if preserve_aspect_ratio:
            size = _aspect_preserving_size(images, size)
        size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
        if not size.shape.is_compatible_with([2]):
            raise ValueError(f"'size' must be a 1-D Tensor of 2 elements: new_height, new_width; got shape "
                             f"{size.shape}")
        known = constant_value(size)
        if known is not None and list(known) == images.shape.as_list()[1:3]:
            return _unbatched(images, squeeze)  # (the same size: the images themselves, in their dtype, as TF)
        attrs = {"method": int(method), "align_corners": bool(align_corners)}
        if half_pixel_centers:
            attrs["half_pixel_centers"] = True
        out = make_tensor("ResizeImage", [images, size], attrs, "ResizeImage")
        return _unbatched(out, squeeze)


def _aspect_preserving_size(images, size):
    """The largest size within ``size`` with the images' height-to-width ratio (static sizes)."""
    h, w = images.shape[1].value, images.shape[2].value
    target = constant_value(ops.convert_to_tensor(size))
    if h is None or w is None or target is None:
        raise ValueError("resize_images(preserve_aspect_ratio=True) needs the image's and the target's sizes known")
    factor = min(float(target[0]) / h, float(target[1]) / w)
    return [max(1, int(round(h * factor))), max(1, int(round(w * factor)))]


resize = resize_images


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return resize_images(images, size, ResizeMethod.BILINEAR, align_corners, name=name,
                         half_pixel_centers=half_pixel_centers)


def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return resize_images(images, size, ResizeMethod.NEAREST_NEIGHBOR, align_corners, name=name,
                         half_pixel_centers=half_pixel_centers)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return resize_images(images, size, ResizeMethod.BICUBIC, align_corners, name=name,
                         half_pixel_centers=half_pixel_centers)


def resize_area(images, size, align_corners=False, name=None):
    return resize_images(images, size, ResizeMethod.AREA, align_corners, name=name)


def resize_image_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, align_corners=False):
    """Resized to fit within the target keeping its aspect ratio, then zero-padded (centred)
    to exactly [target_height, target_width]."""
    image, squeeze = _batched(image)
    h, w = image.shape[1].value, image.shape[2].value
    if h is None or w is None:
        raise ValueError("resize_image_with_pad needs the image's height and width known")
    ratio = max(w / target_width, h / target_height)
    # (TensorFlow floors the resized size, and the padding from the unfloored one)
    new_h, new_w = int(np.floor(h / ratio)), int(np.floor(w / ratio))
    top, left = (max(0, int(np.floor((target - size / ratio) / 2))) for target, size in ((target_height, h),
                                                                                       (target_width, w)))
    resized = resize_images(image, [new_h, new_w], method, align_corners)
    padded = pad_to_bounding_box(resized, top, left, target_height, target_width)
    return _unbatched(padded, squeeze)


def _in_hsv(image, adjust):
    """``image`` (any dtype) converted to float HSV, ``adjust``-ed, and back."""
    image = ops.convert_to_tensor(image)
    dtype = image.dtype.base_dtype
    hsv = rgb_to_hsv(convert_image_dtype(image, dtypes.float32))
    hue, saturation, value = slicing_ops.unstack(hsv, axis=-1)
    hue, saturation = adjust(hue, saturation)
    return convert_image_dtype(hsv_to_rgb(array_ops.stack([hue, saturation, value], -1)), dtype)


def adjust_hue(image, delta, name=None):
    """The hue turned by ``delta`` (a fraction of the colour circle, in [-1, 1])."""
    return _in_hsv(image, lambda h, s: (math_ops.floormod(h + (delta + 1.0), 1.0), s))


def adjust_saturation(image, saturation_factor, name=None):
    """The saturation times ``saturation_factor``, kept in [0, 1]."""
    from .ops.math_ops import clip_by_value  # noqa: PLC0415

    return _in_hsv(image, lambda h, s: (h, clip_by_value(s * saturation_factor, 0.0, 1.0)))


def random_hue(image, max_delta, seed=None):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, random_ops.random_uniform([], -max_delta, max_delta, seed=seed))


def random_saturation(image, lower, upper, seed=None):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_saturation(image, random_ops.random_uniform([], lower, upper, seed=seed))


def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` on the image as floats in [0, 1], in its own dtype."""
    if isinstance(gamma, (int, float)) and gamma < 0:
        raise ValueError("Gamma should be a non-negative real number.")
    image = ops.convert_to_tensor(image)
    dtype = image.dtype.base_dtype
    floats = image if dtype in (dtypes.float16, dtypes.float32) else convert_image_dtype(image, dtypes.float32)
    return convert_image_dtype(gain * math_ops.pow(floats, ops.convert_to_tensor(gamma, floats.dtype)), dtype,
                               saturate=True)


def transpose_image(image):
    """Height and width swapped (3-D, or a batch)."""
    with ops.name_scope(None, "transpose_image", [image]):
        image = ops.convert_to_tensor(image, name="image")
        if image.shape.ndims not in (3, 4):
            raise ValueError(f"'image' must have either 3 or 4 dimensions. Got shape {image.shape}")
        return array_ops.transpose(image, [1, 0, 2] if image.shape.ndims == 3 else [0, 2, 1, 3])


transpose = transpose_image


def rot90(image, k=1, name=None):
    """The image turned ``k`` quarter turns counter-clockwise (``k`` may be a tensor)."""
    with ops.name_scope(name, "rot90", [image, k]):
        image = ops.convert_to_tensor(image, name="image")
        if image.shape.ndims not in (3, 4):
            raise ValueError(f"'image' must have either 3 or 4 dimensions. Got shape {image.shape}")
        h = image.shape.ndims - 3  # (the height axis)
        turns = [lambda: image, lambda: transpose_image(manip_ops.reverse(image, [h + 1])),
                 lambda: manip_ops.reverse(image, [h, h + 1]),
                 lambda: manip_ops.reverse(transpose_image(image), [h + 1])]
        known = constant_value(k) if isinstance(k, ops.Tensor) else k
        if known is not None:
            return turns[int(known) % 4]()
        k = math_ops.floormod(math_ops.cast(k, dtypes.int32), 4)
        out = turns[3]()
        for i in (2, 1, 0):  # (a chain of conds: each turn has its own shape)
            out = control_flow_v2.cond(math_ops.equal(k, i), turns[i], functools.partial(lambda o: o, out))
        return out


def total_variation(images, name=None):
    """The sum of the absolute differences of neighbouring pixels (per image when batched)."""
    images = ops.convert_to_tensor(images)
    axes = [-3, -2, -1]
    down = images[..., 1:, :, :] - images[..., :-1, :, :]
    right = images[..., :, 1:, :] - images[..., :, :-1, :]
    return reduction_ops.reduce_sum(math_ops.abs(down), axes) + reduction_ops.reduce_sum(math_ops.abs(right), axes)


def image_gradients(image):
    """(dy, dx): each pixel's difference with the one below and the one to its right (zero at
    the last row and column), of a batch [batch, height, width, channels]."""
    image = ops.convert_to_tensor(image)
    if image.shape.ndims != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {image.shape}.")
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = array_ops.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = array_ops.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


def psnr(a, b, max_val, name=None):
    """The peak signal-to-noise ratio (dB) of each image of ``a`` against ``b``."""
    a = convert_image_dtype(ops.convert_to_tensor(a), dtypes.float32)
    b = convert_image_dtype(ops.convert_to_tensor(b), dtypes.float32)
    mse = reduction_ops.reduce_mean(math_ops.square(a - b), [-3, -2, -1])
    log10 = math_ops.log(ops.convert_to_tensor(10.0))
    peak = math_ops.cast(ops.convert_to_tensor(max_val), dtypes.float32)
    return 20.0 * math_ops.log(peak) / log10 - 10.0 * math_ops.log(mse) / log10


# (the colour spaces' matrices, applied as ``pixel @ matrix``: NTSC's YIQ and the YUV of
# analogue television, each with its inverse)
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1.0, 1.0, 1.0], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1.0, 1.0, 1.0], [0.0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0.0]]


def _recolour(images, matrix):
    images = ops.convert_to_tensor(images)
    if images.shape.ndims is not None and images.shape[-1].value not in (None, 3):
        raise ValueError(f"a colour conversion needs 3 channels, got shape {images.shape}")
    kernel = array_ops.constant(np.array(matrix), dtype=images.dtype.base_dtype)
    return segment_ops.tensordot(images, kernel, [[-1], [0]])


def rgb_to_yiq(images):
    return _recolour(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    return _recolour(images, _YIQ_TO_RGB)


def rgb_to_yuv(images):
    return _recolour(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    return _recolour(images, _YUV_TO_RGB)


def sobel_edges(image):
    """The Sobel filters' responses, [batch, height, width, channels, 2]: the vertical
    gradient (dy) first, then the horizontal one (dx), the image mirrored at its edges."""
    image = ops.convert_to_tensor(image)
    dy = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    channels = image.shape[-1].value
    if image.shape.ndims != 4 or channels is None:
        raise ValueError(f"sobel_edges needs a 4-D image with its channels known, got shape {image.shape}")
    kernels = np.stack([dy, dy.T], -1)[:, :, None, :]  # [3, 3, 1, 2]
    kernel = array_ops.constant(np.tile(kernels, [1, 1, channels, 1]), dtype=image.dtype.base_dtype)
    padded = array_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], "REFLECT")
    out = convolution_ops.depthwise_conv2d(padded, kernel, [1, 1, 1, 1], "VALID")
    shape = array_ops.shape(image)
    return array_ops.reshape(out, slicing_ops.concat([shape, [2]], 0))


def _gaussian_window(size: int, sigma: float) -> np.ndarray:
    coordinates = np.arange(size) - (size - 1) / 2.0
    g = np.exp(-0.5 * (coordinates[:, None] ** 2 + coordinates[None, :] ** 2) / sigma ** 2)
    return g / g.sum()


def _ssim_parts(img1, img2, max_val, filter_size, filter_sigma, k1, k2):
    """Per image and channel: the mean of luminance * contrast-structure over the windows
    (a Gaussian window, VALID), and the mean contrast-structure."""
    channels = img1.shape[-1].value
    h, w = img1.shape[-3].value, img1.shape[-2].value
    if (h is not None and h < filter_size) or (w is not None and w < filter_size):
        raise ValueError(f"ssim: the images ({h}x{w}) are smaller than the {filter_size}x{filter_size} window")
    window = np.tile(_gaussian_window(filter_size, filter_sigma)[:, :, None, None], [1, 1, channels, 1])
    kernel = array_ops.constant(window, dtype=img1.dtype.base_dtype)

    def mean(x):
        return convolution_ops.depthwise_conv2d(x, kernel, [1, 1, 1, 1], "VALID")

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mean1, mean2 = mean(img1), mean(img2)
    luminance = (2.0 * mean1 * mean2 + c1) / (math_ops.square(mean1) + math_ops.square(mean2) + c1)
    cs = ((2.0 * mean(img1 * img2) - 2.0 * mean1 * mean2 + c2)
          / (mean(math_ops.square(img1) + math_ops.square(img2)) - math_ops.square(mean1) - math_ops.square(mean2)
             + c2))
    return reduction_ops.reduce_mean(luminance * cs, [-3, -2]), reduction_ops.reduce_mean(cs, [-3, -2])


def _ssim_inputs(img1, img2, max_val):
    """(float32 batches of both images, ``max_val`` in their units, whether a batch axis was
    added): integer images are compared as [0, 1] floats, ``max_val`` scaled alike."""
    img1, img2 = ops.convert_to_tensor(img1), ops.convert_to_tensor(img2)
    if img1.dtype.base_dtype.is_integer:
        max_val = float(max_val) / np.iinfo(img1.dtype.base_dtype.as_numpy_dtype).max
    img1, img2 = (convert_image_dtype(x, dtypes.float32) for x in (img1, img2))
    batched = img1.shape.ndims == 3
    if batched:
        img1, img2 = array_ops.expand_dims(img1, 0), array_ops.expand_dims(img2, 0)
    return img1, img2, max_val, batched


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
    """The structural similarity of each image of ``img1`` to ``img2`` (Wang et al. 2004),
    averaged over the channels, with an 11x11 Gaussian window of sigma 1.5 by default.
    Integer images are compared as [0, 1] floats (``max_val`` scaled alike)."""
    with ops.name_scope(None, "SSIM", [img1, img2]):
        img1, img2, max_val, batched = _ssim_inputs(img1, img2, max_val)
        per_channel, _ = _ssim_parts(img1, img2, float(max_val), filter_size, filter_sigma, k1, k2)
        out = reduction_ops.reduce_mean(per_channel, [-1])
        return array_ops.squeeze(out, [0]) if batched else out


_MS_SSIM_POWERS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)  # (Wang et al. 2003's weights of the five scales)


def ssim_multiscale(img1, img2, max_val, power_factors=_MS_SSIM_POWERS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03):
    """The multi-scale structural similarity: the contrast-structure term at each scale but the
    last and the whole SSIM at the last, each raised to its power factor and multiplied, the
    images halved between scales (2x2 averages, an odd edge padded by its mirror first)."""
    with ops.name_scope(None, "MS-SSIM", [img1, img2]):
        img1, img2, max_val, batched = _ssim_inputs(img1, img2, max_val)
        terms = []
        for k in range(len(power_factors)):
            if k:
                img1, img2 = (_halved(x) for x in (img1, img2))
            ssim_per_channel, cs = _ssim_parts(img1, img2, float(max_val), filter_size, filter_sigma, k1, k2)
            terms.append(ssim_per_channel if k == len(power_factors) - 1 else cs)
        stacked = math_ops.maximum(array_ops.stack(terms, -1), 0.0)  # (negative terms count as 0, as TF's)
        powers = array_ops.constant(np.asarray(power_factors, np.float32))
        per_channel = reduction_ops.reduce_prod(math_ops.pow(stacked, powers), -1)
        out = reduction_ops.reduce_mean(per_channel, -1)
        return array_ops.squeeze(out, [0]) if batched else out


def _halved(images):
    """2x2 averages of [batch, height, width, channels] images, an odd height or width padded
    with a mirror of its last row or column first (TensorFlow's downscaling between scales)."""
    h, w = images.shape[1].value, images.shape[2].value
    if h is None or w is None:
        raise ValueError("ssim_multiscale needs the images' height and width known")
    images = array_ops.pad(images, [[0, 0], [0, h % 2], [0, w % 2], [0, 0]], "SYMMETRIC")
    return conv_ops.avg_pool(images, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")


__getattr__ = missing("tf.image")
