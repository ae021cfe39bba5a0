"""Layers that merge a list of tensors: Add, Subtract, Multiply, Average, Maximum, Minimum,
Concatenate and Dot, with their functional forms (``add([a, b])``)."""

from __future__ import annotations

from ... import add_n, cast, concat, expand_dims, matmul, maximum, minimum, nn, ones_like, reduce_all, reduce_sum
from ... import broadcast_to, stack
from ... import shape as shape_of
from ...framework import dtypes
from ...framework.tensor_shape import TensorShape
from ..engine.base_layer import Layer


class _Merge(Layer):
    """Merges a list of tensors; the output is masked where any input is (Keras's rule)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _merge(self, inputs):
        raise NotImplementedError

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"A merge layer should be called on a list of at least 2 inputs. Got {inputs!r}")
        return self._merge(list(inputs))

    def compute_mask(self, inputs, mask=None):
        if mask is None or all(m is None for m in mask):
            return None
        masks = [cast(m, dtypes.bool) for m in mask if m is not None]
        return masks[0] if len(masks) == 1 else reduce_all(stack(masks), axis=0)


class Add(_Merge):
    def _merge(self, inputs):
        return add_n(inputs)


class Subtract(_Merge):
    def _merge(self, inputs):
        if len(inputs) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs")
        return inputs[0] - inputs[1]


class Multiply(_Merge):
    def _merge(self, inputs):
        out = inputs[0]
        for t in inputs[1:]:
            out = out * t
        return out


class Average(_Merge):
    def _merge(self, inputs):
        return add_n(inputs) / float(len(inputs))


class Maximum(_Merge):
    def _merge(self, inputs):
        out = inputs[0]
        for t in inputs[1:]:
            out = maximum(out, t)
        return out


class Minimum(_Merge):
    def _merge(self, inputs):
        out = inputs[0]
        for t in inputs[1:]:
            out = minimum(out, t)
        return out


class Concatenate(_Merge):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape):
        shapes = [TensorShape(s) for s in input_shape] if isinstance(input_shape, (list, tuple)) else []
        if len(shapes) >= 2 and all(s.ndims is not None for s in shapes):
            rest = set()
            for s in shapes:
                dims = s.as_list()
                del dims[self.axis % len(dims)]
                rest.add(tuple(dims[1:]))  # (the batch aside)
            known = {r for r in rest if None not in r}
            if len({len(r) for r in rest}) > 1 or len(known) > 1:
                raise ValueError("A `Concatenate` layer requires inputs with matching shapes except for the concat "
                                 f"axis. Got inputs shapes: {[s.as_list() for s in shapes]}")
        self.built = True

    def _merge(self, inputs):
        return concat(inputs, self.axis)

    def compute_mask(self, inputs, mask=None):
        """Each input's mask (all True where it has none; a step's, for each of its features)
        joined along the axis, then reduced over the last axis, as Keras's."""
        if mask is None or all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask):
            if m is None:
                masks.append(cast(ones_like(x), dtypes.bool))
            elif m.shape.ndims < x.shape.ndims:  # (a step's mask for each of its features)
                masks.append(broadcast_to(expand_dims(cast(m, dtypes.bool), -1), shape_of(x)))
            else:
                masks.append(cast(m, dtypes.bool))
        return reduce_all(concat(masks, self.axis), axis=-1)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class Dot(_Merge):
    """Dot products of pairs of samples along ``axes`` (2-D inputs: one value per sample)."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        self.axes, self.normalize = axes, normalize

    def get_config(self):
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}

    def _merge(self, inputs):
        a, b = inputs
        axes = self.axes if isinstance(self.axes, (list, tuple)) else [self.axes, self.axes]
        axes = [ax % t.shape.ndims for ax, t in zip(axes, (a, b))]
        if self.normalize:
            a, b = nn.l2_normalize(a, axes[0]), nn.l2_normalize(b, axes[1])
        if a.shape.ndims == 2 and b.shape.ndims == 2:
            return reduce_sum(a * b, axis=1, keepdims=True)
        return matmul(a, b, transpose_a=axes[0] == 1, transpose_b=axes[1] == 2)


def add(inputs, **kwargs):
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    return Average(**kwargs)(inputs)


def maximum_(inputs, **kwargs):
    return Maximum(**kwargs)(inputs)


def minimum_(inputs, **kwargs):
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes, normalize=False, **kwargs):
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
