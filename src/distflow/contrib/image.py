"""``tf.contrib.image``: projective transforms of images (``transform``, ``rotate``,
``translate``) and the helpers that build and compose the transforms, as TF 1.x's data
augmentation used them (ops/image_transform_ops.py has the kernel)."""

from __future__ import annotations

from .._namespace import missing
from ..framework import dtypes, ops
from ..ops import array_ops, math_ops, slicing_ops
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


__getattr__ = missing("tf.contrib.image")
