"""``tf.image``: the image functions of TF 1.x's input pipelines (flips, rotations, crops,
brightness, contrast, saturation, hue and gamma, standardization, resizing, PNG and BMP
decoding: ops/image_ops.py), on [height, width, channels] or batched NHWC tensors, and
non-maximum suppression and crop-and-resize for detection models."""

from __future__ import annotations

import numpy as np

from ._namespace import missing
from .framework import dtypes
from .framework import ops
from .framework.registry import not_differentiable, register_op
from .framework.tensor_shape import TensorShape
from .ops import array_ops, manip_ops, math_ops, random_ops, reduction_ops, slicing_ops
from .ops.image_ops import (crop_and_resize, decode_bmp, decode_image, decode_jpeg, decode_png,  # noqa: F401
                            encode_png, hsv_to_rgb, non_max_suppression, rgb_to_hsv)
from .ops.random_ops import random_crop  # noqa: F401
from .ops.op_util import constant_value, make_tensor


class ResizeMethod:
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def _batched(image):
    image = ops.convert_to_tensor(image)
    if image.shape.ndims == 3:
        return array_ops.expand_dims(image, 0), True
    return image, False


def _unbatched(image, squeeze):
    return array_ops.squeeze(image, [0]) if squeeze else image


def flip_left_right(image):
    """The image mirrored along its width axis."""
    image = ops.convert_to_tensor(image)
    return manip_ops.reverse(image, [image.shape.ndims - 2])


def flip_up_down(image):
    """The image mirrored along its height axis."""
    image = ops.convert_to_tensor(image)
    return manip_ops.reverse(image, [image.shape.ndims - 3])


def _random_flip(image, flip, seed):
    image = ops.convert_to_tensor(image)
    coin = math_ops.less(random_ops.random_uniform([], seed=seed), 0.5)
    flipped = flip(image)
    return math_ops.where(array_ops.fill(array_ops.shape(image), coin), flipped, image)


def random_flip_left_right(image, seed=None):
    """The image mirrored left-right with probability 1/2."""
    return _random_flip(image, flip_left_right, seed)


def random_flip_up_down(image, seed=None):
    return _random_flip(image, flip_up_down, seed)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Integers map to [0, 1] floats (and back, scaled by the integer type's maximum)."""
    image = ops.convert_to_tensor(image)
    dtype = dtypes.as_dtype(dtype)
    if image.dtype.base_dtype == dtype:
        return array_ops.identity(image, name=name)
    with ops.name_scope(name, "convert_image", [image]):
        if image.dtype.is_integer and dtype.is_floating:
            scale = 1.0 / np.iinfo(image.dtype.base_dtype.as_numpy_dtype).max
            return math_ops.cast(image, dtype) * scale
        if image.dtype.is_floating and dtype.is_integer:
            scale = np.iinfo(dtype.as_numpy_dtype).max + 0.5
            return math_ops.cast(image * scale, dtype)
        return math_ops.cast(image, dtype)


def adjust_brightness(image, delta):
    image = ops.convert_to_tensor(image)
    return image + math_ops.cast(delta, image.dtype.base_dtype)


def random_brightness(image, max_delta, seed=None):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, random_ops.random_uniform([], -max_delta, max_delta, seed=seed))


def adjust_contrast(images, contrast_factor):
    """(x - mean) * factor + mean, the mean taken per image and channel."""
    images = ops.convert_to_tensor(images)
    mean = reduction_ops.reduce_mean(images, [-3, -2], keepdims=True)
    return (images - mean) * math_ops.cast(contrast_factor, images.dtype.base_dtype) + mean


def random_contrast(image, lower, upper, seed=None):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, random_ops.random_uniform([], lower, upper, seed=seed))


def per_image_standardization(image):
    """(x - mean) / max(stddev, 1 / sqrt(number of entries)), per image."""
    image = math_ops.cast(ops.convert_to_tensor(image), dtypes.float32)
    axes = [-3, -2, -1]
    n = math_ops.cast(reduction_ops.reduce_prod(array_ops.shape(image)[-3:]), dtypes.float32)
    mean = reduction_ops.reduce_mean(image, axes, keepdims=True)
    std = math_ops.sqrt(reduction_ops.reduce_mean(math_ops.square(image - mean), axes, keepdims=True))
    return (image - mean) / math_ops.maximum(std, math_ops.rsqrt(n))


def rgb_to_grayscale(images, name=None):
    """The luma (0.2989 R + 0.587 G + 0.114 B) with one channel kept."""
    images = ops.convert_to_tensor(images)
    weights = array_ops.constant([0.2989, 0.5870, 0.1140], dtype=images.dtype.base_dtype)
    return reduction_ops.reduce_sum(images * weights, -1, keepdims=True)


def grayscale_to_rgb(images, name=None):
    images = ops.convert_to_tensor(images)
    return slicing_ops.concat([images, images, images], -1)


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    image, squeeze = _batched(image)
    out = image[:, offset_height:offset_height + target_height, offset_width:offset_width + target_width, :]
    return _unbatched(out, squeeze)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    image, squeeze = _batched(image)
    h, w = image.shape[1].value, image.shape[2].value
    if h is None or w is None:
        raise ValueError("pad_to_bounding_box needs the image's height and width known")
    pads = [[0, 0], [offset_height, target_height - h - offset_height], [offset_width, target_width - w - offset_width],
            [0, 0]]
    return _unbatched(array_ops.pad(image, pads), squeeze)


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Centre-crops or zero-pads to the target size."""
    image, squeeze = _batched(image)
    h, w = image.shape[1].value, image.shape[2].value
    if h is None or w is None:
        raise ValueError("resize_image_with_crop_or_pad needs the image's height and width known")
    crop_h, crop_w = max(h - target_height, 0), max(w - target_width, 0)
    image = crop_to_bounding_box(image, crop_h // 2, crop_w // 2, min(h, target_height), min(w, target_width))
    h, w = min(h, target_height), min(w, target_width)
    image = pad_to_bounding_box(image, (target_height - h) // 2, (target_width - w) // 2, target_height, target_width)
    return _unbatched(image, squeeze)


resize_with_crop_or_pad = resize_image_with_crop_or_pad


def central_crop(image, central_fraction):
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    image = ops.convert_to_tensor(image)
    h, w = image.shape[-3].value, image.shape[-2].value
    ch, cw = int(h * central_fraction), int(w * central_fraction)
    return crop_to_bounding_box(image, (h - ch) // 2, (w - cw) // 2, ch, cw)


def _source_coordinates(size, new_size, align_corners):
    """Where each output pixel samples the input (TF 1.x's legacy scaling: scale = in / out)."""
    if align_corners and new_size > 1:
        return np.linspace(0, size - 1, new_size)
    return np.arange(new_size) * size / new_size


@register_op("ResizeImage", shape=lambda op: TensorShape([op.inputs[0].shape[0], *(
    [int(v) for v in constant_value(op.inputs[1])] if constant_value(op.inputs[1]) is not None else [None, None]),
    op.inputs[0].shape[3]]), dtype=lambda op: (
    op.inputs[0].dtype.base_dtype if op._attr("method") == ResizeMethod.NEAREST_NEIGHBOR else dtypes.float32))
def _resize_kernel(xp, images, size, *, method, align_corners):
    n, h, w, c = images.shape
    new_h, new_w = (int(v) for v in size)
    ys = _source_coordinates(h, new_h, align_corners)
    xs = _source_coordinates(w, new_w, align_corners)
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        yi = np.clip(np.floor(ys + (0.5 if align_corners else 0)).astype(int), 0, h - 1)
        xi = np.clip(np.floor(xs + (0.5 if align_corners else 0)).astype(int), 0, w - 1)
        return images[:, yi][:, :, xi]
    images = images.astype(np.float32)
    ys, xs = np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    wy, wx = (ys - y0)[None, :, None, None], (xs - x0)[None, None, :, None]
    top = images[:, y0][:, :, x0] * (1 - wx) + images[:, y0][:, :, x1] * wx
    bottom = images[:, y1][:, :, x0] * (1 - wx) + images[:, y1][:, :, x1] * wx
    return (top * (1 - wy) + bottom * wy).astype(np.float32)


not_differentiable("ResizeImage")


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False, preserve_aspect_ratio=False,
                  name=None):
    """Resized to ``size`` [new_height, new_width]: bilinear gives float32, nearest neighbour keeps
    the input's dtype (as in TF 1.x)."""
    if method not in (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR):
        raise NotImplementedError("resize_images supports BILINEAR and NEAREST_NEIGHBOR in distflow")
    if preserve_aspect_ratio:
        raise NotImplementedError("resize_images(preserve_aspect_ratio=True) is not supported by distflow")
    images, squeeze = _batched(images)
    out = make_tensor("ResizeImage", [images, ops.convert_to_tensor(size, dtype=dtypes.int32)],
                      {"method": int(method), "align_corners": bool(align_corners)}, name or "ResizeImage")
    return _unbatched(out, squeeze)


resize = resize_images


def _no_half_pixel_centers(half_pixel_centers):
    if half_pixel_centers:
        raise NotImplementedError("half_pixel_centers=True is not supported by distflow's resize ops")


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    _no_half_pixel_centers(half_pixel_centers)
    return resize_images(images, size, ResizeMethod.BILINEAR, align_corners, name=name)


def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    _no_half_pixel_centers(half_pixel_centers)
    return resize_images(images, size, ResizeMethod.NEAREST_NEIGHBOR, align_corners, name=name)


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
    """Height and width swapped."""
    image = ops.convert_to_tensor(image)
    return array_ops.transpose(image, [1, 0, 2] if image.shape.ndims == 3 else [0, 2, 1, 3])


transpose = transpose_image


def rot90(image, k=1, name=None):
    """The image turned ``k`` quarter turns counter-clockwise."""
    image = ops.convert_to_tensor(image)
    h = image.shape.ndims - 3  # (the height axis)
    k = int(k) % 4
    if k == 0:
        return image
    if k == 1:
        return transpose_image(manip_ops.reverse(image, [h + 1]))
    if k == 2:
        return manip_ops.reverse(image, [h, h + 1])
    return manip_ops.reverse(transpose_image(image), [h + 1])


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


__getattr__ = missing("tf.image")
