"""Attention over a sequence (TF 1.13-1.15's ``tf.keras.layers.Attention``, Luong's
dot-product attention, and ``AdditiveAttention``, Bahdanau's).

Called on ``[query, value]`` or ``[query, value, key]`` (the key defaults to the value): the
query is [batch, Tq, dim], the value and key [batch, Tv, dim]. Each query step's scores over
the key steps become a softmax distribution; the output, [batch, Tq, dim], is that
distribution's mix of the value steps. A value mask ([batch, Tv], True where a step is real)
keeps padded steps out of the distribution; ``causal=True`` keeps step i from seeing steps
after i (self-attention in a decoder). A query mask zeroes the output at padded query steps
and is the output's mask.
"""

from __future__ import annotations

from ... import cast, expand_dims, logical_not, matmul, nn, ones, reduce_sum, tanh
from ... import linalg
from ... import shape as shape_of
from ...framework import dtypes
from ..engine.base_layer import Layer

_MASKED = 1e9  # (subtracted from a masked step's score: it gets no weight)


class BaseDenseAttention(Layer):
    """Attention whose scores subclasses compute (``_calculate_scores(query, key)``)."""

    def __init__(self, causal=False, **kwargs):
        super().__init__(**kwargs)
        self.causal = causal
        self.supports_masking = True

    def _calculate_scores(self, query, key):
        raise NotImplementedError

    def call(self, inputs, mask=None):
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError(f"{type(self).__name__} layer must be called on a list of inputs, namely [query, value] "
                             f"or [query, value, key]. Given: {inputs!r}")
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) == 3 else value
        query_mask, value_mask = None, None
        if mask is not None:
            extra_key_mask = isinstance(mask, (list, tuple)) and len(mask) == 3 and mask[2] is not None
            if not isinstance(mask, (list, tuple)) or len(mask) not in (2, 3) or extra_key_mask:
                raise ValueError(f"{type(self).__name__} layer mask must be a list of length 2, namely [query_mask, "
                                 f"value_mask]. Given: {mask!r}")
            query_mask, value_mask = mask[0], mask[1]
        scores = self._calculate_scores(query, key)  # [batch, Tq, Tv]
        if value_mask is not None:
            scores -= _MASKED * cast(expand_dims(logical_not(cast(value_mask, dtypes.bool)), -2), scores.dtype)
        if self.causal:
            tq, tv = shape_of(scores)[-2], shape_of(scores)[-1]
            # (ones on and below the diagonal: query step i sees key steps 0..i)
            lower = linalg.band_part(ones([tq, tv], dtype=scores.dtype), -1, 0)
            scores -= _MASKED * (1.0 - expand_dims(lower, 0))
        result = matmul(nn.softmax(scores), value)
        if query_mask is not None:
            result *= cast(expand_dims(query_mask, -1), result.dtype)
        return result

    def compute_mask(self, inputs, mask=None):
        if mask is None or mask[0] is None:
            return None
        return cast(mask[0], dtypes.bool)

    def compute_output_shape(self, input_shape):
        return input_shape[0]

    def get_config(self) -> dict:
        return {**super().get_config(), "causal": self.causal}


class Attention(BaseDenseAttention):
    """Dot-product attention: the scores are query . key, times a learned scalar with
    ``use_scale``."""

    def __init__(self, use_scale=False, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape) -> None:
        self.scale = self.add_weight("scale", shape=(), initializer="ones") if self.use_scale else None

    def _calculate_scores(self, query, key):
        scores = matmul(query, key, transpose_b=True)
        return scores * self.scale if self.scale is not None else scores

    def get_config(self) -> dict:
        return {**super().get_config(), "use_scale": self.use_scale}


class AdditiveAttention(BaseDenseAttention):
    """Additive attention: the scores are sum(scale * tanh(query + key)) over the features,
    ``scale`` a learned vector with ``use_scale`` (else ones)."""

    def __init__(self, use_scale=True, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape) -> None:
        dim = input_shape[0][-1]
        dim = getattr(dim, "value", dim)
        if self.use_scale and dim is None:
            raise ValueError("AdditiveAttention(use_scale=True) needs the query's last dimension to be known")
        self.scale = self.add_weight("scale", shape=(dim,), initializer="glorot_uniform") if self.use_scale else None

    def _calculate_scores(self, query, key):
        summed = tanh(expand_dims(query, -2) + expand_dims(key, -3))  # [batch, Tq, Tv, dim]
        return reduce_sum(summed * self.scale if self.scale is not None else summed, axis=-1)

    def get_config(self) -> dict:
        return {**super().get_config(), "use_scale": self.use_scale}
