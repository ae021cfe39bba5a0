"""``tf.contrib.image``: projective transforms of images (``transform``, ``rotate``,
``translate``) and the helpers that build and compose the transforms, as TF 1.x's data
augmentation used them (ops/image_transform_ops.py has the kernel); and an optical flow's
warp of an image (``dense_image_warp``, by ``interpolate_bilinear``)."""

from __future__ import annotations

import numpy as np

from .._namespace import missing
from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from ..image import convert_image_dtype
from ..ops import array_ops, manip_ops, math_ops, random_ops, slicing_ops
from ..ops.op_util import make_op
from ..ops.image_transform_ops import image_projective_transform


def _as_batch(images):
    """``images`` as [n, h, w, c], and the function that gives a result the input's rank."""
    images = ops.convert_to_tensor(images)
    rank = images.shape.ndims
    if rank == 2:
        return images[None, :, :, None], lambda t: t[0, :, :, 0]
    if rank == 3:
        return images[None], lambda t: t[0]
    if rank == 4:
        return images, lambda t: t
    raise TypeError(f"Images should have rank between 2 and 4, got {images.shape}")


def transform(images, transforms, interpolation="NEAREST", output_shape=None, name=None):
    """``images`` ([h, w], [h, w, c] or [n, h, w, c]) read through ``transforms`` ([8] or
    [n, 8]; see ops/image_transform_ops.py), each output pixel from the input point its
    transform maps it to; zero outside. ``output_shape`` [height, width] defaults to the
    input's."""
    with ops.name_scope(name, "transform"):
        batch, restore = _as_batch(images)
        if output_shape is None:
            output_shape = array_ops.shape(batch)[1:3]
        transforms = ops.convert_to_tensor(transforms, dtype=dtypes.float32)
        if transforms.shape.ndims == 1:
            transforms = transforms[None]
        elif transforms.shape.ndims != 2:
            raise ValueError(f"transforms should have rank 1 or 2, got {transforms.shape}")
        return restore(image_projective_transform(batch, transforms, output_shape, interpolation))


def angles_to_projective_transforms(angles, image_height, image_width, name=None):
    """The transforms that rotate images of that size by ``angles`` (radians, counterclockwise)
    about their centres."""
    with ops.name_scope(name, "angles_to_projective_transforms"):
        angles = ops.convert_to_tensor(angles, dtype=dtypes.float32)
        if angles.shape.ndims == 0:
            angles = angles[None]
        h, w = (math_ops.cast(v, dtypes.float32) for v in (image_height, image_width))
        cos, sin = math_ops.cos(angles), math_ops.sin(angles)
        x_offset = ((w - 1) - (cos * (w - 1) - sin * (h - 1))) / 2.0
        y_offset = ((h - 1) - (sin * (w - 1) + cos * (h - 1))) / 2.0
        zeros = array_ops.zeros_like(angles)
        return array_ops.stack([cos, -sin, x_offset, sin, cos, y_offset, zeros, zeros], axis=1)


def rotate(images, angles, interpolation="NEAREST", name=None):
    """``images`` rotated by ``angles`` (radians, counterclockwise; one, or one an image)."""
    with ops.name_scope(name, "rotate"):
        batch, restore = _as_batch(images)
        shape = array_ops.shape(batch)
        return restore(transform(batch, angles_to_projective_transforms(angles, shape[1], shape[2]), interpolation))


def translations_to_projective_transforms(translations, name=None):
    """The transforms that move images by ``translations`` ([dx, dy], or [n, 2]) pixels."""
    with ops.name_scope(name, "translations_to_projective_transforms"):
        t = ops.convert_to_tensor(translations, dtype=dtypes.float32)
        if t.shape.ndims == 1:
            t = t[None]
        ones, zeros = array_ops.ones_like(t[:, 0]), array_ops.zeros_like(t[:, 0])
        return array_ops.stack([ones, zeros, -t[:, 0], zeros, ones, -t[:, 1], zeros, zeros], axis=1)


def translate(images, translations, interpolation="NEAREST", name=None):
    """``images`` moved right by dx and down by dy pixels."""
    with ops.name_scope(name, "translate"):
        return transform(images, translations_to_projective_transforms(translations), interpolation)


def flat_transforms_to_matrices(transforms):
    """[n, 8] transforms as [n, 3, 3] matrices (the last entry 1)."""
    transforms = ops.convert_to_tensor(transforms, dtype=dtypes.float32)
    if transforms.shape.ndims not in (1, 2):
        raise ValueError(f"Transforms should be 1D or 2D, got: {transforms}")
    transforms = array_ops.reshape(transforms, [-1, 8])
    ones = array_ops.ones_like(transforms[:, :1])
    return array_ops.reshape(slicing_ops.concat([transforms, ones], 1), [-1, 3, 3])


def matrices_to_flat_transforms(transform_matrices):
    """[n, 3, 3] matrices as [n, 8] transforms (each divided by its last entry)."""
    m = ops.convert_to_tensor(transform_matrices, dtype=dtypes.float32)
    if m.shape.ndims not in (2, 3):
        raise ValueError(f"Matrices should be 2D or 3D, got: {m}")
    flat = array_ops.reshape(m, [-1, 9])
    return flat[:, :8] / flat[:, 8:9]


def compose_transforms(*transforms):
    """One transform that does each of ``transforms`` in turn (the first one's output read
    through the second, and so on, as matrices multiplied left to right)."""
    if not transforms:
        raise ValueError("compose_transforms needs at least one transform")
    with ops.name_scope("compose_transforms"):
        composed = flat_transforms_to_matrices(transforms[0])
        for t in transforms[1:]:
            composed = math_ops.matmul(composed, flat_transforms_to_matrices(t))
        return matrices_to_flat_transforms(composed)


# RGB to YIQ (the rows give Y, I and Q)
_RGB_TO_YIQ = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.322], [0.211, -0.523, 0.312]])


def adjust_hsv_in_yiq(image, delta_hue=0, scale_saturation=1, scale_value=1, name=None):
    """An RGB image (or images: the last axis is the 3 colours) with its hue rotated by
    ``delta_hue`` radians about the luminance axis of YIQ space, its chrominance (I, Q) scaled
    by ``scale_saturation`` and all of Y, I, Q by ``scale_value``; in the image's dtype."""
    with ops.name_scope(name, "adjust_hsv_in_yiq", [image]):
        image = ops.convert_to_tensor(image, name="image")
        original = image.dtype.base_dtype
        rgb = convert_image_dtype(image, dtypes.float32)
        delta = ops.convert_to_tensor(delta_hue, dtype=dtypes.float32)
        chroma = ops.convert_to_tensor(scale_saturation, dtype=dtypes.float32) * ops.convert_to_tensor(
            scale_value, dtype=dtypes.float32)
        cos, sin = math_ops.cos(delta) * chroma, math_ops.sin(delta) * chroma
        value = ops.convert_to_tensor(scale_value, dtype=dtypes.float32)
        zero = array_ops.zeros([], dtypes.float32)
        in_yiq = array_ops.stack([array_ops.stack([value, zero, zero]), array_ops.stack([zero, cos, -sin]),
                                  array_ops.stack([zero, sin, cos])])
        to_yiq = ops.convert_to_tensor(_RGB_TO_YIQ, dtype=dtypes.float32)
        from_yiq = ops.convert_to_tensor(np.linalg.inv(_RGB_TO_YIQ), dtype=dtypes.float32)
        transform = math_ops.matmul(from_yiq, math_ops.matmul(in_yiq, to_yiq))
        flat = math_ops.matmul(array_ops.reshape(rgb, [-1, 3]), transform, transpose_b=True)
        return convert_image_dtype(array_ops.reshape(flat, array_ops.shape(rgb)), original)


def random_hsv_in_yiq(image, max_delta_hue=0, lower_saturation=1, upper_saturation=1, lower_value=1,
                      upper_value=1, seed=None):
    """``adjust_hsv_in_yiq`` with a hue rotation drawn from [-max_delta_hue, max_delta_hue] and
    the saturation and value scales from their [lower, upper] ranges."""
    if max_delta_hue < 0:
        raise ValueError("max_delta must be non-negative.")
    if lower_saturation < 0:
        raise ValueError("lower_saturation must be non-negative.")
    if lower_value < 0:
        raise ValueError("lower_value must be non-negative.")
    if lower_saturation > upper_saturation:
        raise ValueError("lower_saturation must be < upper_saturation.")
    if lower_value > upper_value:
        raise ValueError("lower_value must be < upper_value.")
    def draw(low, high, offset):
        if low == high:
            return low
        return random_ops.random_uniform([], low, high, seed=None if seed is None else seed + offset)

    return adjust_hsv_in_yiq(image, draw(-max_delta_hue, max_delta_hue, 0),
                             draw(lower_saturation, upper_saturation, 1), draw(lower_value, upper_value, 2))


def _match_shapes(op):
    rows_and_columns = op.inputs[0].shape.with_rank(2)
    return [TensorShape([rows_and_columns[0]]), TensorShape([rows_and_columns[1]])]


@register_op("BipartiteMatch", list_output=True, shape=_match_shapes, dtype=lambda op: [dtypes.int32, dtypes.int32],
             stateful=True)
def _bipartite_match_kernel(xp, distance_mat, num_valid_rows, *, top_k=-1):
    distance_mat = np.asarray(distance_mat)
    if distance_mat.ndim != 2:
        raise errors.InvalidArgumentError(None, None, f"distance_mat should be 2-dimensional, but got shape "
                                                      f"{list(distance_mat.shape)}")
    if np.size(num_valid_rows) != 1:
        raise errors.InvalidArgumentError(None, None, f"num_valid_rows argument should be a tensor with 1 element, "
                                                      f"but got {np.size(num_valid_rows)}")
    rows, columns = distance_mat.shape
    valid = float(np.reshape(num_valid_rows, []))
    valid = rows if valid < 0 else int(valid + 0.1)
    if valid > rows:
        raise errors.InvalidArgumentError(None, None, f"There should be at least {valid} rows in distance_mat, but "
                                                      f"only got {rows} rows.")
    limit = top_k if top_k > 0 else valid * columns
    row_match, column_match = np.full(rows, -1, np.int32), np.full(columns, -1, np.int32)
    order = np.argsort(distance_mat[:valid].reshape(-1), kind="stable")  # (ties: the first row, then column)
    matched = 0
    for flat in order:
        r, c = divmod(int(flat), columns)
        if row_match[r] == -1 and column_match[c] == -1:
            row_match[r], column_match[c] = c, r
            matched += 1
            if matched >= limit:
                break
    return row_match, column_match


not_differentiable("BipartiteMatch")


def bipartite_match(distance_mat, num_valid_rows, top_k=-1, name="bipartite_match"):
    """A greedy matching of rows to columns by the smallest distances (``distance_mat``
    [rows, columns]; the first ``num_valid_rows`` rows, all if negative; at most ``top_k``
    pairs if positive): ``(each row's column or -1, each column's row or -1)``, int32, as the
    object detection models match anchors to boxes."""
    distance_mat = ops.convert_to_tensor(distance_mat, dtype=dtypes.float32, name="distance_mat")
    num_valid_rows = ops.convert_to_tensor(num_valid_rows, dtype=dtypes.float32, name="num_valid_rows")
    op = make_op("BipartiteMatch", [distance_mat, num_valid_rows], {"top_k": int(top_k)}, name)
    return op.outputs[0], op.outputs[1]


def interpolate_bilinear(grid, query_points, name="interpolate_bilinear", indexing="ij"):
    """Values of ``grid`` [batch, height, width, channels] at ``query_points`` [batch, n, 2]
    (row and column, or with ``indexing="xy"`` column and row), each between its four
    neighbours; points outside the grid take its edge (the neighbours are clamped to it).
    Built of gathers and arithmetic, so its gradient reaches both inputs."""
    if indexing not in ("ij", "xy"):
        raise ValueError("Indexing mode must be 'ij' or 'xy'")
    with ops.name_scope(name):
        grid = ops.convert_to_tensor(grid)
        query_points = ops.convert_to_tensor(query_points)
        if grid.shape.ndims is not None and grid.shape.ndims != 4:
            raise ValueError(f"Grid must be 4 dimensional. Received size: {grid.shape}")
        if query_points.shape.ndims is not None and query_points.shape.ndims != 3:
            raise ValueError(f"Query points must be 3 dimensional. Received size: {query_points.shape}")
        shape = array_ops.shape(grid)
        batch, height, width, channels = shape[0], shape[1], shape[2], shape[3]
        queries = array_ops.shape(query_points)[1]
        coordinates = slicing_ops.unstack(query_points, axis=2)
        if indexing == "xy":
            coordinates = coordinates[::-1]
        floors, ceils, alphas = [], [], []
        for coordinate, size in zip(coordinates, (height, width)):
            # (the lower neighbour within [0, size - 2], so that the upper one is on the grid too)
            floor = math_ops.minimum(math_ops.maximum(0.0, math_ops.floor(coordinate)),
                                     math_ops.cast(size - 2, query_points.dtype))
            lower = math_ops.cast(floor, dtypes.int32)
            floors.append(lower)
            ceils.append(lower + 1)
            alpha = math_ops.minimum(math_ops.maximum(0.0, math_ops.cast(coordinate - floor, grid.dtype)), 1.0)
            alphas.append(array_ops.expand_dims(alpha, 2))
        flat = array_ops.reshape(grid, [-1, channels])
        offsets = array_ops.reshape(math_ops.range_(batch) * height * width, [-1, 1])

        def at(rows, cols):
            return array_ops.reshape(slicing_ops.gather(flat, offsets + rows * width + cols), [batch, queries, channels])

        top_left, top_right = at(floors[0], floors[1]), at(floors[0], ceils[1])
        bottom_left, bottom_right = at(ceils[0], floors[1]), at(ceils[0], ceils[1])
        top = alphas[1] * (top_right - top_left) + top_left
        bottom = alphas[1] * (bottom_right - bottom_left) + bottom_left
        return alphas[0] * (bottom - top) + top


def dense_image_warp(image, flow, name="dense_image_warp"):
    """``image`` [batch, height, width, channels] warped by ``flow`` [batch, height, width, 2]:
    the output at (i, j) is the image at (i - flow[..., 0], j - flow[..., 1]), bilinearly
    interpolated (``interpolate_bilinear``); height and width must be at least 2."""
    with ops.name_scope(name):
        image = ops.convert_to_tensor(image)
        flow = ops.convert_to_tensor(flow)
        shape = array_ops.shape(image)
        batch, height, width, channels = shape[0], shape[1], shape[2], shape[3]
        cols, rows = manip_ops.meshgrid(math_ops.range_(width), math_ops.range_(height))
        grid = math_ops.cast(array_ops.stack([rows, cols], axis=2), flow.dtype)
        points = array_ops.reshape(array_ops.expand_dims(grid, 0) - flow, [batch, height * width, 2])
        return array_ops.reshape(interpolate_bilinear(image, points), [batch, height, width, channels])


__getattr__ = missing("tf.contrib.image")
