"""``tf.contrib.resampler``: ``resampler(data, warp)``, the bilinear sampler of spatial
transformer networks. ``warp`` [batch, ..., 2] holds (x, y) points in ``data`` [batch,
height, width, channels]; each output is the four neighbours of its point weighted
bilinearly, a neighbour outside the image counting as zero (as TF's kernel). Built of
gathers and arithmetic: the gradient reaches both inputs (zero for a point on a grid line
where the weights have a kink, as TF's is there)."""

from __future__ import annotations

from .._namespace import missing
from ..framework import dtypes, ops
from ..ops import array_ops, math_ops, slicing_ops


def resampler(data, warp, name="resampler"):
    with ops.name_scope(name, "resampler", [data, warp]):
        data = ops.convert_to_tensor(data, name="data")
        warp = ops.convert_to_tensor(warp, name="warp")
        if data.shape.ndims is not None and data.shape.ndims != 4:
            raise ValueError(f"resampler: data must be [batch, height, width, channels], got shape {data.shape}")
        if warp.shape.ndims is not None and warp.shape.ndims < 2 or warp.shape[-1].value not in (None, 2):
            raise ValueError(f"resampler: warp must be [batch, ..., 2] (x, y), got shape {warp.shape}")
        shape = array_ops.shape(data)
        batch, height, width, channels = shape[0], shape[1], shape[2], shape[3]
        points = array_ops.reshape(warp, [batch, -1, 2])
        x, y = points[:, :, 0], points[:, :, 1]
        x0, y0 = math_ops.floor(x), math_ops.floor(y)
        wx, wy = array_ops.expand_dims(x - x0, 2), array_ops.expand_dims(y - y0, 2)
        flat = array_ops.reshape(data, [-1, channels])
        offsets = array_ops.reshape(math_ops.range_(batch) * height * width, [-1, 1])

        def at(cols, rows):
            """The data at integer points, zero where they are outside the image."""
            inside = math_ops.logical_and(
                math_ops.logical_and(cols >= 0, cols < math_ops.cast(width, cols.dtype)),
                math_ops.logical_and(rows >= 0, rows < math_ops.cast(height, rows.dtype)))
            c = math_ops.cast(math_ops.minimum(math_ops.maximum(cols, 0.0), math_ops.cast(width - 1, cols.dtype)),
                              dtypes.int32)
            r = math_ops.cast(math_ops.minimum(math_ops.maximum(rows, 0.0), math_ops.cast(height - 1, rows.dtype)),
                              dtypes.int32)
            values = slicing_ops.gather(flat, offsets + r * width + c)
            return values * array_ops.expand_dims(math_ops.cast(inside, data.dtype), 2)

        wx, wy = math_ops.cast(wx, data.dtype), math_ops.cast(wy, data.dtype)
        out = ((1 - wy) * ((1 - wx) * at(x0, y0) + wx * at(x0 + 1, y0))
               + wy * ((1 - wx) * at(x0, y0 + 1) + wx * at(x0 + 1, y0 + 1)))
        return array_ops.reshape(out, slicing_ops.concat([array_ops.shape(warp)[:-1], [channels]], 0))


__getattr__ = missing("tf.contrib.resampler")
