"""Layers that merge a list of tensors: Add, Subtract, Multiply, Average, Maximum, Minimum,
Concatenate and Dot, with their functional forms (``add([a, b])``)."""

from __future__ import annotations

from ... import add_n, concat, matmul, maximum, minimum, nn, reduce_sum
from ..engine.base_layer import Layer


class _Merge(Layer):
    def _merge(self, inputs):
        raise NotImplementedError

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"A merge layer should be called on a list of at least 2 inputs. Got {inputs!r}")
        return self._merge(list(inputs))


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

    def _merge(self, inputs):
        return concat(inputs, self.axis)

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
