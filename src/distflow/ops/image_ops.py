"""Image kernels of ``tf.image`` beyond flips and resizing: HSV conversion, non-maximum
suppression, crop-and-resize, and the PNG (and BMP) codecs, written with NumPy and zlib.

JPEG and GIF are not decoded: that needs an image codec library, which distflow does not
depend on; ``decode_image`` names the format it found.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, jpeg, math_ops
from .string_ops import substr
from .op_util import constant_value, make_op, make_tensor


def _rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    value = np.maximum(np.maximum(r, g), b)
    minimum = np.minimum(np.minimum(r, g), b)
    span = value - minimum
    with np.errstate(divide="ignore", invalid="ignore"):
        saturation = np.where(value > 0, span / np.where(value > 0, value, 1), 0)
        norm = 1.0 / (6.0 * np.where(span > 0, span, 1))
    hue = np.where(r == value, norm * (g - b), np.where(g == value, norm * (b - r) + 2.0 / 6.0,
                                                           norm * (r - g) + 4.0 / 6.0))
    hue = np.where(span > 0, hue, 0.0)
    hue = np.where(hue < 0, hue + 1.0, hue)
    return np.stack([hue, saturation, value], -1).astype(rgb.dtype)


def _hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    c = s * v
    m = v - c
    dh = h * 6.0
    category = np.floor(dh).astype(np.int64)
    x = c * (1.0 - np.abs(np.fmod(dh, 2.0) - 1.0))
    zero = np.zeros_like(c)
    table = [(c, x, zero), (x, c, zero), (zero, c, x), (zero, x, c), (x, zero, c), (c, zero, x)]
    out = [np.select([category == k for k in range(6)], [row[i] for row in table], 0.0) + m for i in range(3)]
    return np.stack(out, -1).astype(hsv.dtype)


@register_op("RGBToHSV", shape=lambda op: op.inputs[0].shape)
def _rgb_to_hsv_kernel(xp, images):
    return _rgb_to_hsv(np.asarray(images))


@register_op("HSVToRGB", shape=lambda op: op.inputs[0].shape)
def _hsv_to_rgb_kernel(xp, images):
    return _hsv_to_rgb(np.asarray(images))


not_differentiable("RGBToHSV")
not_differentiable("HSVToRGB")


def rgb_to_hsv(images, name=None):
    """Hue, saturation and value in [0, 1] of RGB floats in [0, 1] (the last axis)."""
    return make_tensor("RGBToHSV", [ops.convert_to_tensor(images)], None, name or "RGBToHSV")


def hsv_to_rgb(images, name=None):
    return make_tensor("HSVToRGB", [ops.convert_to_tensor(images)], None, name or "HSVToRGB")


# -- non-maximum suppression ---------------------------------------------------------------

def _iou(boxes, i, j) -> float:
    y1i, x1i, y2i, x2i = boxes[i]
    y1j, x1j, y2j, x2j = boxes[j]
    ymin_i, xmin_i, ymax_i, xmax_i = min(y1i, y2i), min(x1i, x2i), max(y1i, y2i), max(x1i, x2i)
    ymin_j, xmin_j, ymax_j, xmax_j = min(y1j, y2j), min(x1j, x2j), max(y1j, y2j), max(x1j, x2j)
    area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i)
    area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j)
    if area_i <= 0 or area_j <= 0:
        return 0.0
    inter = max(min(ymax_i, ymax_j) - max(ymin_i, ymin_j), 0.0) * max(min(xmax_i, xmax_j) - max(xmin_i, xmin_j), 0.0)
    return inter / (area_i + area_j - inter)


@register_op("NonMaxSuppressionV3", shape=lambda op: TensorShape([None]), dtype=lambda op: dtypes.int32)
def _nms_kernel(xp, boxes, scores, max_output_size, iou_threshold, score_threshold):
    boxes, scores = np.asarray(boxes, np.float64), np.asarray(scores, np.float64)
    if boxes.ndim != 2 or boxes.shape[1] != 4 or scores.shape != (boxes.shape[0],):
        raise errors.InvalidArgumentError(None, None, f"NonMaxSuppression: boxes must be [num_boxes, 4] and scores "
                                          f"[num_boxes], got {list(boxes.shape)} and {list(scores.shape)}")
    threshold = float(iou_threshold)
    if not 0.0 <= threshold <= 1.0:
        raise errors.InvalidArgumentError(None, None, "iou_threshold must be in [0, 1]")
    order = [int(i) for i in np.argsort(-scores, kind="stable") if scores[i] > float(score_threshold)]
    selected: list[int] = []
    for i in order:
        if len(selected) >= int(max_output_size):
            break
        if all(_iou(boxes, i, j) <= threshold for j in selected):
            selected.append(i)
    return np.asarray(selected, np.int32)


not_differentiable("NonMaxSuppressionV3")


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """The indices of at most ``max_output_size`` boxes ([y1, x1, y2, x2]), best score first,
    none overlapping a kept one by more than ``iou_threshold`` (intersection over union),
    none scoring ``score_threshold`` or less."""
    boxes = ops.convert_to_tensor(boxes, dtype=dtypes.float32)
    scores = ops.convert_to_tensor(scores, dtype=dtypes.float32)
    return make_tensor("NonMaxSuppressionV3", [boxes, scores, ops.convert_to_tensor(max_output_size, dtypes.int32),
                                               ops.convert_to_tensor(iou_threshold, dtypes.float32),
                                               ops.convert_to_tensor(score_threshold, dtypes.float32)],
                       None, name or "NonMaxSuppressionV3")


def _checked_boxes(boxes, scores, iou_threshold, what):
    boxes, scores = np.asarray(boxes, np.float64), np.asarray(scores, np.float64)
    if boxes.ndim != 2 or boxes.shape[1] != 4 or scores.shape != (boxes.shape[0],):
        raise errors.InvalidArgumentError(None, None, f"{what}: boxes must be [num_boxes, 4] and scores "
                                          f"[num_boxes], got {list(boxes.shape)} and {list(scores.shape)}")
    if not 0.0 <= float(iou_threshold) <= 1.0:
        raise errors.InvalidArgumentError(None, None, f"{what}: iou_threshold must be in [0, 1]")
    return boxes, scores


def _soft_nms(boxes, scores, max_output, iou_threshold, score_threshold, sigma):
    """TensorFlow's NonMaxSuppressionV5: candidates by score (ties by index). Without
    ``sigma``, a candidate overlapping a selected box by more than ``iou_threshold`` is
    dropped; with it (Soft-NMS), its score decays by exp(-0.5 iou^2 / sigma) for each box
    selected since it was last looked at, and it is queued again until nothing decays it
    (then selected) or its score falls to ``score_threshold``. In float32, as TF's."""
    import heapq  # noqa: PLC0415

    soft = sigma > 0
    scale = np.float32(-0.5 / sigma) if soft else np.float32(0.0)
    queue = [(-np.float32(score), i, 0) for i, score in enumerate(scores) if score > score_threshold]
    heapq.heapify(queue)
    selected, selected_scores = [], []
    while len(selected) < max_output and queue:
        negative, index, begin = heapq.heappop(queue)
        score = original = -negative
        suppressed = False
        for j in range(len(selected) - 1, begin - 1, -1):
            iou = np.float32(_iou(boxes, index, selected[j]))
            if not soft and iou > iou_threshold:  # (hard suppression: dropped for good)
                suppressed = True
                break
            score = np.float32(score * np.exp(scale * iou * iou))
            if score <= score_threshold:
                break
        if suppressed:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(float(score))
        elif score > score_threshold:
            heapq.heappush(queue, (-score, index, len(selected)))
    return selected, selected_scores


@register_op("NonMaxSuppressionV5", list_output=True, shape=lambda op: [TensorShape([None]), TensorShape([None]),
                                                                        TensorShape([])],
             dtype=lambda op: [dtypes.int32, dtypes.float32, dtypes.int32])
def _nms_v5_kernel(xp, boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, *,
                   pad_to_max_output_size=False):
    boxes, scores = _checked_boxes(boxes, scores, iou_threshold, "NonMaxSuppressionV5")
    if float(soft_nms_sigma) < 0:
        raise errors.InvalidArgumentError(None, None, "NonMaxSuppressionV5: soft_nms_sigma must be >= 0")
    limit = int(max_output_size)
    selected, kept = _soft_nms(boxes, scores, limit, float(iou_threshold), float(score_threshold),
                               float(soft_nms_sigma))
    valid = len(selected)
    if pad_to_max_output_size:
        selected, kept = selected + [0] * (limit - valid), kept + [0.0] * (limit - valid)
    return np.asarray(selected, np.int32), np.asarray(kept, np.float32), np.int32(valid)


not_differentiable("NonMaxSuppressionV5")


def _nms_v5(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, pad, name):
    inputs = [ops.convert_to_tensor(boxes, dtypes.float32), ops.convert_to_tensor(scores, dtypes.float32),
              ops.convert_to_tensor(max_output_size, dtypes.int32), ops.convert_to_tensor(iou_threshold, dtypes.float32),
              ops.convert_to_tensor(score_threshold, dtypes.float32),
              ops.convert_to_tensor(soft_nms_sigma, dtypes.float32)]
    return make_op("NonMaxSuppressionV5", inputs, {"pad_to_max_output_size": bool(pad)},
                   name or "NonMaxSuppressionV5").outputs


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None):
    """(selected indices, how many are valid): ``non_max_suppression``, with the indices
    padded with 0 to ``max_output_size`` when ``pad_to_max_output_size``."""
    indices, _, valid = _nms_v5(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0,
                                pad_to_max_output_size, name)
    return indices, valid


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                                    soft_nms_sigma=0.0, name=None):
    """(selected indices, their scores): with ``soft_nms_sigma`` > 0, Soft-NMS (Bodla et al.):
    overlapping boxes' scores decay by a Gaussian of their overlap instead of dropping."""
    indices, kept, _ = _nms_v5(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, False,
                               name)
    return indices, kept


# (TensorFlow's default colors for draw_bounding_boxes, RGBA)
_BOX_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1],
                        [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


@register_op("DrawBoundingBoxesV2", shape=lambda op: op.inputs[0].shape)
def _draw_boxes_kernel(xp, images, boxes, colors):
    images = np.array(images, copy=True)
    boxes = np.asarray(boxes, np.float32)
    colors = np.asarray(colors, np.float32)
    if colors.size == 0:
        colors = _BOX_COLORS
    batch, height, width, depth = images.shape
    if depth == 1:  # (TensorFlow draws every box of a gray image white)
        colors = colors.copy()
        colors[:, 0] = 1.0
    if boxes.ndim != 3 or boxes.shape[0] != batch or boxes.shape[2] != 4:
        raise errors.InvalidArgumentError(None, None, f"DrawBoundingBoxes: boxes must be [batch, num_boxes, 4], got "
                                          f"{list(boxes.shape)} for {batch} images")
    if colors.ndim != 2 or colors.shape[1] < depth:
        raise errors.InvalidArgumentError(None, None, f"DrawBoundingBoxes: colors must be [num_colors, >= {depth}], "
                                          f"got {list(colors.shape)}")
    for b in range(batch):
        for k, (y1, x1, y2, x2) in enumerate(boxes[b]):
            color = colors[k % len(colors), :depth].astype(images.dtype)
            # (TensorFlow's: the box scaled to the pixel grid and truncated, drawn where it falls inside)
            top, bottom = int(y1 * (height - 1)), int(y2 * (height - 1))
            left, right = int(x1 * (width - 1)), int(x2 * (width - 1))
            if top > bottom or left > right:
                continue
            if top >= height or left >= width or bottom < 0 or right < 0:
                continue
            top_c, bottom_c = max(top, 0), min(bottom, height - 1)
            left_c, right_c = max(left, 0), min(right, width - 1)
            if 0 <= top < height:
                images[b, top, left_c:right_c + 1] = color
            if 0 <= bottom < height:
                images[b, bottom, left_c:right_c + 1] = color
            if 0 <= left < width:
                images[b, top_c:bottom_c + 1, left] = color
            if 0 <= right < width:
                images[b, top_c:bottom_c + 1, right] = color
    return images


not_differentiable("DrawBoundingBoxesV2")


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """The float ``images`` [batch, height, width, depth] with each box of ``boxes`` [batch,
    num_boxes, 4] (y1, x1, y2, x2 in [0, 1]) outlined, one pixel wide, in ``colors`` (TF's
    ten by default) taken in turn."""
    images = ops.convert_to_tensor(images)
    if not images.dtype.is_floating:
        raise TypeError(f"draw_bounding_boxes needs float images, got {images.dtype.name}")
    colors = np.zeros((0, 4), np.float32) if colors is None else colors
    return make_tensor("DrawBoundingBoxesV2", [images, ops.convert_to_tensor(boxes, dtypes.float32),
                                               ops.convert_to_tensor(colors, dtypes.float32)], None,
                       name or "DrawBoundingBoxesV2")


def _random_crop_window(rng, aspect, min_area, max_area, height, width):
    """TensorFlow's GenerateRandomCrop: a window of ``aspect`` (width / height) whose area is
    in [min_area, max_area], placed uniformly, as (y, x, h, w); or None."""
    low = int(round(np.sqrt(min_area / aspect)))
    high = int(round(np.sqrt(max_area / aspect)))
    if high * aspect > width:
        high = int((width + 0.5 - 1e-7) / aspect)
    high = min(high, height)
    low = min(low, high)
    h = low + int(rng.integers(high - low + 1)) if low < high else low
    w = int(round(h * aspect))
    if w * h < min_area:
        h += 1
        w = int(round(h * aspect))
    if w * h > max_area:
        h -= 1
        w = int(round(h * aspect))
    if w * h < min_area or w * h > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    return int(rng.integers(height - h + 1)), int(rng.integers(width - w + 1)), h, w


def _covers(window, boxes, fraction):
    """Whether ``window`` (y, x, h, w) holds at least ``fraction`` of some box's area."""
    y, x, h, w = window
    for top, left, bottom, right in boxes:
        area = (bottom - top) * (right - left)
        if area <= 0:
            continue
        inter = max(0.0, min(y + h, bottom) - max(y, top)) * max(0.0, min(x + w, right) - max(x, left))
        if inter / area >= fraction:
            return True
    return False


@register_op("SampleDistortedBoundingBoxV2", list_output=True,
             shape=lambda op: [TensorShape([3]), TensorShape([3]), TensorShape([1, 1, 4])],
             dtype=lambda op: [op.inputs[0].dtype.base_dtype, op.inputs[0].dtype.base_dtype, dtypes.float32],
             stateful=True)
def _sample_distorted_box_kernel(ctx, image_size, bounding_boxes, min_object_covered, *, seed, seed2,
                                 aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes):
    from .random_ops import seeded_generator  # noqa: PLC0415

    size = np.asarray(image_size).reshape(-1)
    if size.shape != (3,):
        raise errors.InvalidArgumentError(None, None, f"SampleDistortedBoundingBox: image_size must be [height, "
                                          f"width, channels], got {size.tolist()}")
    height, width = int(size[0]), int(size[1])
    boxes = np.asarray(bounding_boxes, np.float64).reshape(-1, 4)
    if not len(boxes):
        if not use_image_if_no_bounding_boxes:
            raise errors.InvalidArgumentError(None, None, "SampleDistortedBoundingBox: no bounding boxes given; "
                                              "pass use_image_if_no_bounding_boxes=True to use the whole image")
        boxes = np.array([[0.0, 0.0, 1.0, 1.0]])
    if ((boxes < 0) | (boxes > 1)).any():
        raise errors.InvalidArgumentError(None, None, "SampleDistortedBoundingBox: the boxes must be in [0, 1]")
    pixels = boxes * [height, width, height, width]
    rng = seeded_generator(ctx, seed, seed2)
    covered = float(min_object_covered)
    window = None
    for _ in range(max_attempts):
        aspect = rng.random() * (aspect_ratio_range[1] - aspect_ratio_range[0]) + aspect_ratio_range[0]
        candidate = _random_crop_window(rng, aspect, area_range[0] * height * width, area_range[1] * height * width,
                                        height, width)
        if candidate is not None and _covers(candidate, pixels, covered):
            window = candidate
            break
    y, x, h, w = window if window is not None else (0, 0, height, width)  # (no attempt fit: the whole image)
    dtype = size.dtype
    return (np.array([y, x, 0], dtype), np.array([h, w, -1], dtype),
            np.array([[[y / height, x / width, (y + h) / height, (x + w) / width]]], np.float32))


not_differentiable("SampleDistortedBoundingBoxV2")


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """(begin, size, bbox): a random crop of an image of ``image_size`` [height, width,
    channels] that covers at least ``min_object_covered`` of one of ``bounding_boxes`` ([1,
    N, 4], [y1, x1, y2, x2] in [0, 1]), with an aspect ratio and a share of the image's area
    drawn from the given ranges, as TensorFlow samples it (a distortion for training, as in
    Inception's preprocessing): ``tf.slice(image, begin, size)`` crops."""
    from .random_ops import seed_attrs  # noqa: PLC0415

    image_size = ops.convert_to_tensor(image_size)
    attrs = {**seed_attrs(seed),
             "aspect_ratio_range": [float(v) for v in (aspect_ratio_range or (0.75, 1.33))],
             "area_range": [float(v) for v in (area_range or (0.05, 1.0))],
             "max_attempts": int(max_attempts or 100),
             "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes)}
    outputs = make_op("SampleDistortedBoundingBoxV2", [image_size, ops.convert_to_tensor(bounding_boxes, dtypes.float32),
                                                       ops.convert_to_tensor(min_object_covered, dtypes.float32)],
                      attrs, name or "SampleDistortedBoundingBoxV2").outputs
    return outputs[0], outputs[1], outputs[2]


# -- crop and resize ----------------------------------------------------------------------

def _box_points(box, size, crop):
    """The sampling coordinates of one box along one axis (TF's: corners at the box's edges)."""
    lo, hi = box
    if crop > 1:
        return lo * (size - 1) + np.arange(crop) * ((hi - lo) * (size - 1) / (crop - 1))
    return np.array([0.5 * (lo + hi) * (size - 1)])


def _box_point_derivatives(size, crop):
    """d point / d lo and d point / d hi of ``_box_points``."""
    if crop > 1:
        t = np.arange(crop) / (crop - 1)
        return (size - 1) * (1 - t), (size - 1) * t
    return np.array([0.5 * (size - 1)]), np.array([0.5 * (size - 1)])


def _crop_boxes(boxes, box_ind, batch, height, width, crop_h, crop_w):
    """For each box: its image, sampling rows and columns, and which of them are inside."""
    for n, ((y1, x1, y2, x2), b) in enumerate(zip(boxes, box_ind)):
        if not 0 <= b < batch:
            raise errors.InvalidArgumentError(None, None, f"CropAndResize: box_ind[{n}] = {b} is not in [0, {batch})")
        ys, xs = _box_points((y1, y2), height, crop_h), _box_points((x1, x2), width, crop_w)
        inside = ((ys >= 0) & (ys <= height - 1))[:, None] & ((xs >= 0) & (xs <= width - 1))[None, :]
        yield n, b, ys, xs, inside


def _bilinear_corners(ys, xs, height, width):
    """The four neighbours (rows top/bottom, columns left/right) and the fractions dy, dx."""
    top, left = np.clip(np.floor(ys).astype(int), 0, height - 1), np.clip(np.floor(xs).astype(int), 0, width - 1)
    bottom, right = np.clip(np.ceil(ys).astype(int), 0, height - 1), np.clip(np.ceil(xs).astype(int), 0, width - 1)
    return top, bottom, left, right, (ys - np.floor(ys))[:, None, None], (xs - np.floor(xs))[None, :, None]


def _nearest(ys, xs, height, width):
    return np.clip(np.round(ys), 0, height - 1).astype(int), np.clip(np.round(xs), 0, width - 1).astype(int)


def _crop_shape(op):
    boxes, image = op.inputs[1].shape, op.inputs[0].shape
    return TensorShape([boxes[0].value if boxes.ndims else None, None, None,
                        image[-1].value if image.ndims else None])


@register_op("CropAndResize", shape=_crop_shape, dtype=lambda op: dtypes.float32)
def _crop_and_resize_kernel(xp, image, boxes, box_ind, crop_size, *, method="bilinear", extrapolation_value=0.0):
    image = np.asarray(image, np.float32)
    boxes, box_ind, (crop_h, crop_w) = np.asarray(boxes, np.float64), np.asarray(box_ind), np.asarray(crop_size)
    batch, height, width, depth = image.shape
    out = np.full((len(boxes), crop_h, crop_w, depth), extrapolation_value, np.float32)
    for n, b, ys, xs, inside in _crop_boxes(boxes, box_ind, batch, height, width, crop_h, crop_w):
        src = image[b]
        if method == "nearest":
            yi, xi = _nearest(ys, xs, height, width)
            values = src[yi][:, xi]
        else:
            top, bottom, left, right, dy, dx = _bilinear_corners(ys, xs, height, width)
            upper = src[top][:, left] + (src[top][:, right] - src[top][:, left]) * dx
            lower = src[bottom][:, left] + (src[bottom][:, right] - src[bottom][:, left]) * dx
            values = upper + (lower - upper) * dy
        out[n] = np.where(inside[:, :, None], values, extrapolation_value)
    return out


@register_op("CropAndResizeGradImage", shape=lambda op: TensorShape(None), dtype=lambda op: op._attr("T"))
def _crop_and_resize_grad_image_kernel(xp, grads, boxes, box_ind, image_size, *, T, method="bilinear"):  # noqa: N803
    """The adjoint of CropAndResize's sampling: each output's gradient goes back to the pixels
    it was read from, with the weights it was read with."""
    grads, boxes, box_ind = np.asarray(grads, np.float64), np.asarray(boxes, np.float64), np.asarray(box_ind)
    batch, height, width, depth = (int(v) for v in image_size)
    out = np.zeros((batch, height, width, depth), np.float64)
    crop_h, crop_w = grads.shape[1:3]
    for n, b, ys, xs, inside in _crop_boxes(boxes, box_ind, batch, height, width, crop_h, crop_w):
        g = np.where(inside[:, :, None], grads[n], 0.0)
        rows, cols = np.meshgrid(np.arange(crop_h), np.arange(crop_w), indexing="ij")
        if method == "nearest":
            yi, xi = _nearest(ys, xs, height, width)
            np.add.at(out[b], (yi[rows], xi[cols]), g)
            continue
        top, bottom, left, right, dy, dx = _bilinear_corners(ys, xs, height, width)
        for y, x, weight in ((top, left, (1 - dy) * (1 - dx)), (top, right, (1 - dy) * dx),
                             (bottom, left, dy * (1 - dx)), (bottom, right, dy * dx)):
            np.add.at(out[b], (y[rows], x[cols]), g * weight)
    return out.astype(T.as_numpy_dtype)


@register_op("CropAndResizeGradBoxes", shape=lambda op: op.inputs[2].shape, dtype=lambda op: dtypes.float32)
def _crop_and_resize_grad_boxes_kernel(xp, grads, image, boxes, box_ind, *, method="bilinear"):
    """The gradient of the boxes' corners: through the bilinear weights (TF's, for either method)."""
    grads, image = np.asarray(grads, np.float64), np.asarray(image, np.float64)
    boxes, box_ind = np.asarray(boxes, np.float64), np.asarray(box_ind)
    batch, height, width, _ = image.shape
    crop_h, crop_w = grads.shape[1:3]
    out = np.zeros(boxes.shape, np.float64)
    dy_lo, dy_hi = _box_point_derivatives(height, crop_h)
    dx_lo, dx_hi = _box_point_derivatives(width, crop_w)
    for n, b, ys, xs, inside in _crop_boxes(boxes, box_ind, batch, height, width, crop_h, crop_w):
        src = image[b]
        top, bottom, left, right, dy, dx = _bilinear_corners(ys, xs, height, width)
        tl, tr, bl, br = src[top][:, left], src[top][:, right], src[bottom][:, left], src[bottom][:, right]
        g = np.where(inside[:, :, None], grads[n], 0.0)
        d_row = (g * ((bl - tl) * (1 - dx) + (br - tr) * dx)).sum(axis=2)  # d out / d ys, per point
        d_col = (g * ((tr - tl) * (1 - dy) + (br - bl) * dy)).sum(axis=2)
        out[n] = [d_row.sum(axis=1) @ dy_lo, d_col.sum(axis=0) @ dx_lo,
                  d_row.sum(axis=1) @ dy_hi, d_col.sum(axis=0) @ dx_hi]
    return out.astype(np.float32)


not_differentiable("CropAndResizeGradImage")
not_differentiable("CropAndResizeGradBoxes")


@register_gradient("CropAndResize")
def _crop_and_resize_grad(op, grad):
    image, boxes, box_ind, _ = op.inputs
    attrs = {"method": op._attr("method")}
    grad_image = make_tensor("CropAndResizeGradImage", [grad, boxes, box_ind, array_ops.shape(image)],
                             {**attrs, "T": image.dtype.base_dtype}, "CropAndResizeGradImage")
    grad_boxes = make_tensor("CropAndResizeGradBoxes", [grad, image, boxes, box_ind], attrs, "CropAndResizeGradBoxes")
    return grad_image, grad_boxes, None, None


def _glimpse_shape(op):
    image, size = op.inputs[0].shape, constant_value(op.inputs[1])
    rows, cols = (None, None) if size is None else (int(size[0]), int(size[1]))
    if image.ndims is None:
        return TensorShape([None, rows, cols, None])
    return TensorShape([image[0].value, rows, cols, image[3].value])


@register_op("ExtractGlimpse", shape=_glimpse_shape, stateful=True)
def _extract_glimpse_kernel(xp, image, size, offsets, *, centered=True, normalized=True, uniform_noise=True,
                            noise="uniform"):
    """Each image's window of ``size`` at its offset (a centre, y then x); where the window
    leaves the image, noise: uniform between the image's smallest and largest value of the
    channel, Gaussian with the channel's mean and deviation, or zeros. The window's corner is
    the centre less half the size, truncated toward zero, as TensorFlow's kernel places it."""
    batch, height, width, channels = image.shape
    rows, cols = int(size[0]), int(size[1])
    if offsets.shape != (batch, 2):
        raise errors.InvalidArgumentError(None, None, f"ExtractGlimpse: offsets must be [{batch}, 2] for "
                                                      f"{batch} images, got shape {list(offsets.shape)}")
    kind = "uniform" if uniform_noise else noise
    out = np.empty((batch, rows, cols, channels), image.dtype)
    rng = np.random.default_rng()
    for b in range(batch):
        y, x = float(offsets[b, 0]), float(offsets[b, 1])
        if normalized:
            y, x = y * height, x * width
        if centered:
            y, x = y / 2.0 + height / 2.0, x / 2.0 + width / 2.0
        top, left = int(y - rows / 2.0), int(x - cols / 2.0)  # (truncated toward zero, as TF's)
        picture = image[b].reshape(-1, channels)
        if kind == "uniform":
            fill = rng.uniform(picture.min(0), picture.max(0), (rows, cols, channels))
        elif kind == "gaussian":
            fill = rng.normal(picture.mean(0), picture.std(0), (rows, cols, channels))
        else:
            fill = np.zeros((rows, cols, channels))
        out[b] = fill
        y0, y1 = max(top, 0), min(top + rows, height)
        x0, x1 = max(left, 0), min(left + cols, width)
        if y0 < y1 and x0 < x1:
            out[b, y0 - top:y1 - top, x0 - left:x1 - left] = image[b, y0:y1, x0:x1]
    return out


def extract_glimpse(input, size, offsets, centered=True, normalized=True, uniform_noise=True, name=None):  # noqa: A002
    """``tf.image.extract_glimpse``: a window of ``size`` ([rows, cols]) from each image of
    ``input`` ([batch, height, width, channels], float32), centred at its row of ``offsets``
    ([batch, 2]: y, x): from -1 to 1 across the image when ``centered`` and ``normalized``, from
    0 to 1 when only ``normalized``, in pixels otherwise. Where the window leaves the image it
    holds noise (uniform, or Gaussian with ``uniform_noise=False``); TF's noise stream differs."""
    image = ops.convert_to_tensor(input, dtype=dtypes.float32)
    size = ops.convert_to_tensor(size, dtype=dtypes.int32)
    offsets = ops.convert_to_tensor(offsets, dtype=dtypes.float32)
    if image.shape.ndims not in (None, 4):
        raise ValueError(f"extract_glimpse: input must be 4-D [batch, height, width, channels], got {image.shape}")
    if offsets.shape.ndims not in (None, 2) or (offsets.shape.ndims == 2 and offsets.shape[1].value not in (None, 2)):
        raise ValueError(f"extract_glimpse: offsets must be [batch, 2], got {offsets.shape}")
    attrs = {"centered": bool(centered), "normalized": bool(normalized), "uniform_noise": bool(uniform_noise),
             "noise": "uniform"}
    return make_tensor("ExtractGlimpse", [image, size, offsets], attrs, name or "ExtractGlimpse")


def crop_and_resize(image, boxes, box_ind, crop_size, method="bilinear", extrapolation_value=0.0, name=None):
    """For each box ([y1, x1, y2, x2], normalized) of image ``box_ind[i]``, its crop resized to
    ``crop_size`` (bilinear or nearest); points outside the image get ``extrapolation_value``."""
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be 'bilinear' or 'nearest', got {method!r}")
    return make_tensor("CropAndResize", [ops.convert_to_tensor(image), ops.convert_to_tensor(boxes, dtypes.float32),
                                         ops.convert_to_tensor(box_ind, dtypes.int32),
                                         ops.convert_to_tensor(crop_size, dtypes.int32)],
                       {"method": method, "extrapolation_value": float(extrapolation_value)}, name or "CropAndResize")


# -- PNG and BMP --------------------------------------------------------------------------

_PNG = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # colour type -> samples per pixel


def _unfilter(raw: bytes, height: int, row_bytes: int, bpp: int) -> np.ndarray:
    data = np.frombuffer(raw, np.uint8)
    if data.size != height * (row_bytes + 1):
        raise errors.InvalidArgumentError(None, None, "DecodePng: the image data is truncated")
    rows = data.reshape(height, row_bytes + 1)
    out = np.zeros((height, row_bytes), np.uint8)
    previous = np.zeros(row_bytes, np.uint8)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int64)
        if kind == 0:
            current = line
        elif kind == 1:  # Sub: a running sum along each byte of the pixel
            current = np.cumsum(np.concatenate([line, np.zeros((-row_bytes) % bpp, np.int64)]).reshape(-1, bpp),
                                axis=0).reshape(-1)[:row_bytes]
        elif kind == 2:
            current = line + previous
        elif kind in (3, 4):
            current = np.zeros(row_bytes, np.int64)
            up = previous.astype(np.int64)
            for x in range(row_bytes):
                left = current[x - bpp] if x >= bpp else 0
                if kind == 3:
                    current[x] = (line[x] + (left + up[x]) // 2) & 0xFF
                else:
                    upper_left = up[x - bpp] if x >= bpp else 0
                    p = left + up[x] - upper_left
                    pa, pb, pc = abs(p - left), abs(p - up[x]), abs(p - upper_left)
                    guess = left if pa <= pb and pa <= pc else (up[x] if pb <= pc else upper_left)
                    current[x] = (line[x] + guess) & 0xFF
        else:
            raise errors.InvalidArgumentError(None, None, f"DecodePng: unknown row filter {kind}")
        out[y] = previous = (current & 0xFF).astype(np.uint8)
    return out


def _decode_png(data: bytes, channels: int, dtype) -> np.ndarray:
    if not data.startswith(_PNG):
        raise errors.InvalidArgumentError(None, None, "DecodePng: the contents are not a PNG image")
    pos, header, palette, alpha, idat = 8, None, None, None, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            alpha = np.frombuffer(body, np.uint8)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise errors.InvalidArgumentError(None, None, "DecodePng: no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    if interlace:
        raise errors.UnimplementedError(None, None, "DecodePng: interlaced (Adam7) PNG images are not supported")
    samples = _CHANNELS[colour]
    bits = depth * samples
    row_bytes = (width * bits + 7) // 8
    rows = _unfilter(zlib.decompress(b"".join(idat)), height, row_bytes, max(1, bits // 8))
    if depth == 16:
        pixels = rows.view(">u2").astype(np.uint16).reshape(height, width, samples)
    elif depth == 8:
        pixels = rows.reshape(height, width, samples)
    else:  # (1, 2 or 4 bits a sample: gray or palette)
        unpacked = np.unpackbits(rows, axis=1).reshape(height, -1, depth)
        values = (unpacked * (1 << np.arange(depth - 1, -1, -1))).sum(-1)[:, :width]
        pixels = values.astype(np.uint8)[:, :, None]
        if colour == 0:
            pixels = (pixels * (255 // ((1 << depth) - 1))).astype(np.uint8)
    if colour == 3:
        index = pixels[:, :, 0]
        rgb = palette[index]
        pixels = rgb if alpha is None else np.concatenate(
            [rgb, np.concatenate([alpha, np.full(256, 255, np.uint8)])[index][:, :, None]], -1)
    have = pixels.shape[-1]
    want = channels or have
    if want != have:
        gray_like = have in (1, 2)
        color = pixels[..., :1 if gray_like else 3]
        alpha_plane = pixels[..., -1:] if have in (2, 4) else None
        if want in (1, 2):
            if not gray_like:
                weights = np.array([0.2989, 0.587, 0.114])
                color = np.round(color.astype(np.float64) @ weights).astype(pixels.dtype)[..., None]
        elif gray_like:
            color = np.repeat(color, 3, -1)
        if want in (2, 4):
            if alpha_plane is None:
                alpha_plane = np.full(color.shape[:2] + (1,), np.iinfo(pixels.dtype).max, pixels.dtype)
            color = np.concatenate([color, alpha_plane], -1)
        pixels = color
    out_dtype = dtypes.as_dtype(dtype).as_numpy_dtype
    if pixels.dtype != out_dtype:
        pixels = (pixels.astype(np.uint32) * 257).astype(np.uint16) if out_dtype == np.uint16 else \
            (pixels.astype(np.uint32) // 257).astype(np.uint8)
    return pixels


def _decode_bmp(data: bytes, channels: int) -> np.ndarray:
    if data[:2] != b"BM":
        raise errors.InvalidArgumentError(None, None, "DecodeBmp: the contents are not a BMP image")
    offset = struct.unpack("<I", data[10:14])[0]
    width, height, _, bits, compression = struct.unpack("<iiHHI", data[18:34])
    if compression not in (0, 3) or bits not in (24, 32):
        raise errors.UnimplementedError(None, None, f"DecodeBmp: {bits}-bit BMP images with compression "
                                        f"{compression} are not supported (24- and 32-bit uncompressed are)")
    samples = bits // 8
    stride = (width * samples + 3) & ~3
    rows = np.frombuffer(data, np.uint8, count=abs(height) * stride, offset=offset).reshape(abs(height), stride)
    pixels = rows[:, :width * samples].reshape(abs(height), width, samples)[..., [2, 1, 0] + ([3] if samples == 4
                                                                                              else [])]
    if height > 0:
        pixels = pixels[::-1]
    if channels == 3 and samples == 4:
        pixels = pixels[..., :3]
    return np.ascontiguousarray(pixels)


def _format_of(data: bytes) -> str:
    if data.startswith(_PNG):
        return "png"
    if data[:2] == b"BM":
        return "bmp"
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:4] in (b"GIF8",):
        return "GIF"
    return "unknown"


def _image_shape(op):
    channels = op.get_attr("channels")
    return TensorShape([None, None, channels or None])


@register_op("DecodeImage", shape=_image_shape, dtype=lambda op: dtypes.as_dtype(op.get_attr("dtype")))
def _decode_image_kernel(xp, contents, *, channels=0, dtype=dtypes.uint8, formats="png,bmp,jpeg"):
    data = bytes(np.asarray(contents).item()) if not isinstance(contents, bytes) else contents
    return _decoded(data, channels, dtype, formats.split(","))


def _decoded(data: bytes, channels: int, dtype, formats, ratio=1, fancy_upscaling=True,
             try_recover_truncated=False) -> np.ndarray:
    kind = _format_of(data)
    if kind not in formats:
        if kind == "GIF":
            raise errors.UnimplementedError(None, None, "decoding a GIF image needs an image codec that distflow "
                                            "does not have (PNG, BMP and JPEG are decoded); convert the images")
        raise errors.InvalidArgumentError(None, None, f"the contents are not a {' or '.join(formats)} image")
    if kind == "jpeg":
        if channels not in (0, 1, 3):
            raise errors.InvalidArgumentError(None, None, f"DecodeJpeg: channels must be 0, 1 or 3 for a JPEG image, "
                                              f"got {channels}")
        pixels = jpeg.decode(data, channels, ratio, fancy_upscaling, try_recover_truncated)
        if dtypes.as_dtype(dtype).as_numpy_dtype == np.uint16:
            pixels = pixels.astype(np.uint16) * 257
    elif kind == "png":
        pixels = _decode_png(data, channels, dtype)
    else:
        pixels = _decode_bmp(data, channels)
    return pixels.astype(dtypes.as_dtype(dtype).as_numpy_dtype, copy=False)


@register_op("DecodeJpeg", shape=_image_shape, dtype=lambda op: dtypes.uint8)
def _decode_jpeg_kernel(xp, contents, *, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                        acceptable_fraction=1.0, dct_method=""):
    """TF 1.x's DecodeJpeg, which decoded PNG and BMP images too (TF's one image kernel)."""
    data = bytes(np.asarray(contents).item()) if not isinstance(contents, bytes) else contents
    return _decoded(data, channels, dtypes.uint8, ("jpeg", "png", "bmp"), ratio, fancy_upscaling,
                    try_recover_truncated)


def _crop_window(crop_window) -> tuple:
    y, x, h, w = (int(v) for v in np.asarray(crop_window).reshape(-1))
    return y, x, h, w


@register_op("DecodeAndCropJpeg", shape=lambda op: TensorShape([None, None, op.get_attr("channels") or None]),
             dtype=lambda op: dtypes.uint8)
def _decode_and_crop_jpeg_kernel(xp, contents, crop_window, *, channels=0, ratio=1, fancy_upscaling=True,
                                 try_recover_truncated=False, acceptable_fraction=1.0, dct_method=""):
    data = bytes(np.asarray(contents).item()) if not isinstance(contents, bytes) else contents
    pixels = _decoded(data, channels, dtypes.uint8, ("jpeg", "png", "bmp"), ratio, fancy_upscaling,
                      try_recover_truncated)
    y, x, h, w = _crop_window(crop_window)
    if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > pixels.shape[0] or x + w > pixels.shape[1]:
        raise errors.InvalidArgumentError(None, None, f"DecodeAndCropJpeg: the crop window [{y}, {x}, {h}, {w}] "
                                          f"(y, x, height, width) is not inside the image of "
                                          f"{pixels.shape[0]}x{pixels.shape[1]} pixels")
    return np.ascontiguousarray(pixels[y:y + h, x:x + w])


@register_op("ExtractJpegShape", shape=lambda op: TensorShape([3]), dtype=lambda op: op.get_attr("output_type"))
def _extract_jpeg_shape_kernel(xp, contents, *, output_type=dtypes.int32):
    data = bytes(np.asarray(contents).item()) if not isinstance(contents, bytes) else contents
    if _format_of(data) != "jpeg":
        raise errors.InvalidArgumentError(None, None, "ExtractJpegShape: the contents are not a JPEG image")
    return np.array(jpeg.jpeg_shape(data), dtypes.as_dtype(output_type).as_numpy_dtype)


for _op_type in ("DecodeImage", "DecodeJpeg", "DecodeAndCropJpeg", "ExtractJpegShape"):
    not_differentiable(_op_type)


def _decode(contents, channels, dtype, formats, name):
    if channels not in (None, 0, 1, 2, 3, 4):
        raise ValueError(f"channels must be 0, 1, 2, 3 or 4, got {channels}")
    return make_tensor("DecodeImage", [ops.convert_to_tensor(contents, dtypes.string)],
                       {"channels": int(channels or 0), "dtype": dtypes.as_dtype(dtype), "formats": formats}, name)


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """A PNG image (every colour type; 1- to 16-bit; not interlaced) as [height, width, channels]."""
    return _decode(contents, channels, dtype, "png", name or "DecodePng")


def decode_bmp(contents, channels=0, name=None):
    return _decode(contents, channels, dtypes.uint8, "bmp", name or "DecodeBmp")


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    """A PNG, BMP or JPEG image, by its first bytes (a GIF one is an error that says so)."""
    return _decode(contents, channels, dtype, "png,bmp,jpeg", name or "decode_image")


def is_jpeg(contents, name=None):
    """Whether ``contents`` (a scalar string) begins as a JPEG image does (bytes FF D8 FF)."""
    with ops.name_scope(name, "is_jpeg", [contents]):
        return math_ops.equal(substr(contents, 0, 3), b"\xff\xd8\xff", name="is_jpeg")


def _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method):
    if channels not in (0, 1, 3):
        raise ValueError(f"channels must be 0, 1 or 3 for a JPEG image, got {channels}")
    if ratio not in (1, 2, 4, 8):
        raise ValueError(f"ratio must be 1, 2, 4 or 8, got {ratio}")
    return {"channels": int(channels), "ratio": int(ratio), "fancy_upscaling": bool(fancy_upscaling),
            "try_recover_truncated": bool(try_recover_truncated), "acceptable_fraction": float(acceptable_fraction),
            "dct_method": dct_method or ""}


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """A JPEG image as uint8 [height, width, channels] (ops/jpeg.py: baseline and progressive;
    a pixel may differ from libjpeg's by a level or two, its IDCT being fixed point). As TF
    1.x's, it decodes PNG and BMP images too. ``dct_method`` is accepted and not used."""
    attrs = _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method)
    return make_tensor("DecodeJpeg", [ops.convert_to_tensor(contents, dtypes.string)], attrs, name or "DecodeJpeg")


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """``decode_jpeg`` then the window ``crop_window`` = [y, x, height, width] of it."""
    attrs = _jpeg_attrs(channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method)
    return make_tensor("DecodeAndCropJpeg", [ops.convert_to_tensor(contents, dtypes.string),
                                             ops.convert_to_tensor(crop_window, dtypes.int32)], attrs,
                       name or "DecodeAndCropJpeg")


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    """[height, width, channels] of a JPEG image, from its header."""
    return make_tensor("ExtractJpegShape", [ops.convert_to_tensor(contents, dtypes.string)],
                       {"output_type": dtypes.as_dtype(output_type)}, name or "ExtractJpegShape")


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


@register_op("EncodePng", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.string)
def _encode_png_kernel(xp, image, *, compression=-1):
    image = np.asarray(image)
    if image.ndim != 3 or image.shape[-1] not in (1, 2, 3, 4):
        raise errors.InvalidArgumentError(None, None, f"EncodePng: image must be [height, width, 1 to 4 channels], got "
                                          f"{list(image.shape)}")
    height, width, samples = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    rows = image.astype(">u2" if depth == 16 else np.uint8).reshape(height, -1).view(np.uint8)
    raw = np.concatenate([np.zeros((height, 1), np.uint8), rows], 1).tobytes()
    colour = {1: 0, 2: 4, 3: 2, 4: 6}[samples]
    return np.asarray(_PNG + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0))
                      + _png_chunk(b"IDAT", zlib.compress(raw, compression if compression >= 0 else 6))
                      + _png_chunk(b"IEND", b""), dtype=object)


not_differentiable("EncodePng")


@register_op("EncodeJpeg", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.string)
def _encode_jpeg_kernel(xp, image, *, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002
                        chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                        xmp_metadata=""):
    image = np.asarray(image)
    want = {"grayscale": 1, "rgb": 3}.get(format)
    if image.ndim == 3 and want is not None and image.shape[-1] != want:
        raise errors.InvalidArgumentError(None, None, f"EncodeJpeg: format '{format}' needs {want} channel(s), got "
                                          f"an image of shape {list(image.shape)}")
    data = jpeg.encode(image, quality, chroma_downsampling, density_unit, x_density, y_density,
                       xmp_metadata.encode() if isinstance(xmp_metadata, str) else xmp_metadata)
    return np.asarray(data, dtype=object)


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002 - TF's name
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata="",
                name=None):
    """A uint8 image [height, width, 1 or 3] as the bytes of a baseline JPEG file (ops/jpeg.py:
    libjpeg's quality-scaled tables and colour conversion; ``progressive`` and
    ``optimize_size`` are accepted and a baseline file with the standard Huffman tables is
    written)."""
    image = ops.convert_to_tensor(image)
    if image.dtype.base_dtype != dtypes.uint8:
        raise TypeError(f"encode_jpeg needs a uint8 image, got {image.dtype.name}")
    if format not in ("", "grayscale", "rgb"):
        raise ValueError(f"format must be '', 'grayscale' or 'rgb', got {format!r}")
    if not 0 <= int(quality) <= 100:
        raise ValueError(f"quality must be in [0, 100], got {quality}")
    if density_unit not in ("in", "cm"):
        raise ValueError(f"density_unit must be 'in' or 'cm', got {density_unit!r}")
    attrs = {"format": format, "quality": int(quality), "progressive": bool(progressive),
             "optimize_size": bool(optimize_size), "chroma_downsampling": bool(chroma_downsampling),
             "density_unit": density_unit, "x_density": int(x_density), "y_density": int(y_density),
             "xmp_metadata": xmp_metadata}
    return make_op("EncodeJpeg", [image], attrs, name or "EncodeJpeg").outputs[0]


not_differentiable("EncodeJpeg")


def encode_png(image, compression=-1, name=None):
    """A uint8 or uint16 image [height, width, channels] as the bytes of a PNG file."""
    image = ops.convert_to_tensor(image)
    if image.dtype.base_dtype not in (dtypes.uint8, dtypes.uint16):
        raise TypeError(f"encode_png needs a uint8 or uint16 image, got {image.dtype.name}")
    return make_op("EncodePng", [image], {"compression": int(compression)}, name or "EncodePng").outputs[0]
