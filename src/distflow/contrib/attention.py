"""``tf.contrib.seq2seq``'s attention: ``LuongAttention`` (multiplicative) and
``BahdanauAttention`` (additive) over an encoder's memory, and ``AttentionWrapper``, a cell
that attends after each step of the cell it wraps (TF 1.x's NMT decoder).

A mechanism keeps the memory (entries past ``memory_sequence_length`` zeroed, and masked
out of the scores) and its keys (the memory through a dense ``memory_layer``); called with a
query it gives the alignments (a softmax over the memory). The wrapper feeds the cell its
input with the previous attention (``cell_input_fn``), then attends with the cell's output:
the context (the alignment-weighted memory), through ``attention_layer`` with the output
if ``attention_layer_size`` is given, is the attention it outputs and carries. Given several
mechanisms, each attends on its own and their attentions are concatenated.

The monotonic mechanisms (``BahdanauMonotonicAttention``, ``LuongMonotonicAttention``; Raffel
et al., 2017) attend left to right: each memory entry's score (plus a learned bias) is the
probability of stopping there, and ``monotonic_attention`` turns those and the previous
step's alignments into the expected alignments of a scan that starts where the last one
stopped.
"""

from __future__ import annotations

import collections
import functools

import numpy as np

from .. import (TensorArray, cast, clip_by_value, concat, convert_to_tensor, cumprod, cumsum, exp, expand_dims, float32,
                get_variable, int32, log, matmul, name_scope, nn, one_hot, ones, random_normal, reduce_sum, reshape,
                rsqrt, scan, sequence_mask, shape, sigmoid, squeeze, stack, tanh, transpose, variable_scope, where,
                zeros, zeros_initializer, zeros_like)
from ..framework import dtypes
from ..framework.tensor_shape import TensorShape
from ..layers import Dense
from ..layers.rnn_cell import RNNCell


def _masked_memory(memory, lengths):
    memory = convert_to_tensor(memory)
    if lengths is None:
        return memory
    mask = sequence_mask(lengths, maxlen=shape(memory)[1], dtype=memory.dtype)
    return memory * expand_dims(mask, 2)


class _BaseAttentionMechanism:
    def __init__(self, memory, memory_sequence_length, memory_layer, query_layer, probability_fn,
                 score_mask_value, name):
        self._name = name
        self._memory_sequence_length = memory_sequence_length
        self._values = _masked_memory(memory, memory_sequence_length)
        self._memory_layer, self._query_layer = memory_layer, query_layer
        self._keys = memory_layer(self._values) if memory_layer is not None else self._values
        self._probability_fn = probability_fn or (lambda score, _state: nn.softmax(score))
        self._score_mask_value = score_mask_value
        self._batch_size = self._values.shape[0].value or shape(self._values)[0]  # (static where known, as TF's)
        self._alignments_size = self._keys.shape[1].value or shape(self._keys)[1]

    values = property(lambda self: self._values)
    keys = property(lambda self: self._keys)
    memory_layer = property(lambda self: self._memory_layer)
    query_layer = property(lambda self: self._query_layer)
    batch_size = property(lambda self: self._batch_size)
    alignments_size = property(lambda self: self._alignments_size)

    @property
    def state_size(self):
        return self._alignments_size

    def initial_alignments(self, batch_size, dtype):
        return zeros(concat([expand_dims(batch_size, 0) if not isinstance(batch_size, int) else [batch_size],
                             expand_dims(self._alignments_size, 0)], 0), dtype=dtype)

    initial_state = initial_alignments

    def _alignments(self, score, state):
        if self._memory_sequence_length is not None:
            mask = sequence_mask(self._memory_sequence_length, maxlen=shape(score)[1])
            fill = float("-inf") if self._score_mask_value is None else self._score_mask_value
            score = where(mask, score, zeros_like(score) + fill)
        return self._probability_fn(score, state)

    _score_bias_init = None  # (a monotonic mechanism's: its scores' learned bias starts there)

    def __call__(self, query, state):
        with variable_scope(None, self._scope_name, [query]):
            score = self._score(query)
            if self._score_bias_init is not None:
                score = score + get_variable("attention_score_bias", dtype=score.dtype,
                                             initializer=float(self._score_bias_init))
        alignments = self._alignments(score, state)
        return alignments, alignments


class LuongAttention(_BaseAttentionMechanism):
    """Scores ``query . key`` (times a learned ``attention_g`` with ``scale``)."""

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False, probability_fn=None,
                 score_mask_value=None, dtype=None, custom_key_value_fn=None, name="LuongAttention"):
        if custom_key_value_fn is not None:
            raise NotImplementedError("LuongAttention(custom_key_value_fn=...) is not supported")
        dtype = dtype or float32
        super().__init__(memory, memory_sequence_length,
                         Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype), None,
                         probability_fn, score_mask_value, name)
        self._num_units, self._scale = num_units, scale

    _scope_name = "luong_attention"

    def _score(self, query):
        score = squeeze(matmul(expand_dims(query, 1), self._keys, transpose_b=True), [1])
        if self._scale:
            score = get_variable("attention_g", dtype=score.dtype, initializer=1.0) * score
        return score


class BahdanauAttention(_BaseAttentionMechanism):
    """Scores ``v . tanh(keys + query_layer(query))`` (``normalize``: v weight-normalized)."""

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False, probability_fn=None,
                 score_mask_value=None, dtype=None, custom_key_value_fn=None, name="BahdanauAttention"):
        if custom_key_value_fn is not None:
            raise NotImplementedError("BahdanauAttention(custom_key_value_fn=...) is not supported")
        dtype = dtype or float32
        super().__init__(memory, memory_sequence_length,
                         Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
                         Dense(num_units, name="query_layer", use_bias=False, dtype=dtype),
                         probability_fn, score_mask_value, name)
        self._num_units, self._normalize = num_units, normalize

    _scope_name = "bahdanau_attention"

    def _score(self, query):
        processed = expand_dims(self._query_layer(query), 1)
        dtype = processed.dtype
        v = get_variable("attention_v", [self._num_units], dtype=dtype)
        if not self._normalize:
            return reduce_sum(v * tanh(self._keys + processed), [2])
        g = get_variable("attention_g", dtype=dtype, initializer=float((1.0 / self._num_units) ** 0.5))
        b = get_variable("attention_b", [self._num_units], dtype=dtype, initializer=zeros_initializer())
        normed_v = g * v * rsqrt(reduce_sum(v * v))
        return reduce_sum(normed_v * tanh(self._keys + processed + b), [2])


def safe_cumprod(x, *args, **kwargs):
    """``cumprod(x, ...)`` computed as ``exp(cumsum(log x, ...))`` with x clipped to [tiny, 1]:
    a long product of probabilities does not underflow to zero (the arguments are cumsum's:
    ``axis``, ``exclusive``, ``reverse``)."""
    with name_scope(None, "SafeCumprod", [x]):
        x = convert_to_tensor(x, name="x")
        tiny = np.finfo(x.dtype.as_numpy_dtype).tiny
        return exp(cumsum(log(clip_by_value(x, tiny, 1.0)), *args, **kwargs))


def monotonic_attention(p_choose_i, previous_attention, mode):
    """The expected alignments of a left-to-right scan over the memory that starts where the
    previous one (``previous_attention``, [batch, memory]) stopped and stops at entry i with
    probability ``p_choose_i`` (Raffel et al., 2017). ``mode``: "recursive" (the recurrence,
    one step a memory entry), "parallel" (its closed form through cumulative products: one
    pass, less exact where probabilities are near 0 or 1) or "hard" (0/1 choices: the first
    chosen entry at or after the last one)."""
    p = convert_to_tensor(p_choose_i, name="p_choose_i")
    previous = convert_to_tensor(previous_attention, name="previous_attention")
    if mode == "recursive":
        # q[i] = (1 - p[i-1]) q[i-1] + previous[i], attention[i] = p[i] q[i]
        batch = p.shape[0].value or shape(p)[0]
        carried = concat([ones(stack([batch, 1]), dtype=p.dtype), 1 - p[:, :-1]], 1)
        q = scan(lambda acc, step: reshape(step[0] * acc + step[1], stack([batch])),
                 [transpose(carried), transpose(previous)], initializer=zeros(stack([batch]), dtype=p.dtype))
        return p * transpose(q)
    if mode == "parallel":
        not_before = safe_cumprod(1 - p, axis=1, exclusive=True)
        return p * not_before * cumsum(previous / clip_by_value(not_before, 1e-10, 1.0), axis=1)
    if mode == "hard":
        p = p * cumsum(previous, axis=1)  # (no entry before the last chosen one)
        return p * cumprod(1 - p, axis=1, exclusive=True)
    raise ValueError("mode must be 'recursive', 'parallel', or 'hard'.")


def _monotonic_probability(score, previous_alignments, sigmoid_noise, mode, seed=None):
    """Each entry's stopping probability (a sigmoid of its score, noised in training with
    ``sigmoid_noise``; "hard": score > 0) through ``monotonic_attention``."""
    if sigmoid_noise > 0:
        score = score + sigmoid_noise * random_normal(shape(score), dtype=score.dtype, seed=seed)
    p = cast(score > 0, score.dtype) if mode == "hard" else sigmoid(score)
    return monotonic_attention(p, previous_alignments, mode)


class _Monotonic:
    """What a monotonic mechanism adds to its base: the stopping probabilities, a learned
    ``attention_score_bias``, and alignments that start on the memory's first entry."""

    def _monotonic(self, sigmoid_noise, sigmoid_noise_seed, score_bias_init, mode):
        if mode not in ("recursive", "parallel", "hard"):
            raise ValueError("mode must be 'recursive', 'parallel', or 'hard'.")
        self._score_bias_init = score_bias_init
        return functools.partial(_monotonic_probability, sigmoid_noise=sigmoid_noise, mode=mode,
                                 seed=sigmoid_noise_seed)

    def initial_alignments(self, batch_size, dtype):
        return one_hot(zeros(stack([batch_size]), dtype=int32), self._alignments_size, dtype=dtype)


class BahdanauMonotonicAttention(_Monotonic, BahdanauAttention):
    """Bahdanau's additive score (plus ``attention_score_bias``) as each memory entry's
    stopping probability in a monotonic scan (``mode``: "parallel", "recursive" or "hard")."""

    _scope_name = "bahdanau_monotonic_attention"

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False, score_mask_value=None,
                 sigmoid_noise=0.0, sigmoid_noise_seed=None, score_bias_init=0.0, mode="parallel", dtype=None,
                 name="BahdanauMonotonicAttention"):
        super().__init__(num_units, memory, memory_sequence_length, normalize=normalize,
                         probability_fn=self._monotonic(sigmoid_noise, sigmoid_noise_seed, score_bias_init, mode),
                         score_mask_value=score_mask_value, dtype=dtype, name=name)


class LuongMonotonicAttention(_Monotonic, LuongAttention):
    """Luong's multiplicative score (plus ``attention_score_bias``) as each memory entry's
    stopping probability in a monotonic scan (``mode``: "parallel", "recursive" or "hard")."""

    _scope_name = "luong_monotonic_attention"

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False, score_mask_value=None,
                 sigmoid_noise=0.0, sigmoid_noise_seed=None, score_bias_init=0.0, mode="parallel", dtype=None,
                 name="LuongMonotonicAttention"):
        super().__init__(num_units, memory, memory_sequence_length, scale=scale,
                         probability_fn=self._monotonic(sigmoid_noise, sigmoid_noise_seed, score_bias_init, mode),
                         score_mask_value=score_mask_value, dtype=dtype, name=name)


class AttentionWrapperState(collections.namedtuple(
        "AttentionWrapperState", ("cell_state", "attention", "time", "alignments", "alignment_history",
                                  "attention_state"))):
    def clone(self, **kwargs):
        return self._replace(**kwargs)


class AttentionWrapper(RNNCell):
    """A cell that attends after each step of ``cell``; with a list of mechanisms (and of
    ``attention_layer_size``), each attends on its own and their attentions are concatenated
    (the state's alignments, histories and mechanism states are then tuples, as TF's)."""

    _default_name = "attention_wrapper"

    def __init__(self, cell, attention_mechanism, attention_layer_size=None, alignment_history=False,
                 cell_input_fn=None, output_attention=True, initial_cell_state=None, name=None, attention_layer=None,
                 attention_fn=None):
        super().__init__(name=name)
        if attention_fn is not None:
            raise NotImplementedError("AttentionWrapper(attention_fn=...) is not supported")
        if attention_layer_size is not None and attention_layer is not None:
            raise ValueError("Only one of attention_layer_size and attention_layer should be set")
        self._is_multi = isinstance(attention_mechanism, (list, tuple))
        mechanisms = tuple(attention_mechanism) if self._is_multi else (attention_mechanism,)
        if not mechanisms:
            raise ValueError("attention_mechanism must contain at least one mechanism")
        sizes = _per_mechanism(attention_layer_size, len(mechanisms), "attention_layer_size")
        layers = _per_mechanism(attention_layer, len(mechanisms), "attention_layer")
        self._cell, self._mechanisms = cell, mechanisms
        self._cell_input_fn = cell_input_fn or (lambda inputs, attention: concat([inputs, attention], -1))
        dtype = mechanisms[0].values.dtype.base_dtype
        if attention_layer_size is not None:
            layers = [Dense(size, name="attention_layer", use_bias=False, dtype=dtype) for size in sizes]
        self._attention_layers = layers if (attention_layer_size is not None or attention_layer is not None) \
            else [None] * len(mechanisms)
        self._attention_sizes = [
            (getattr(layer, "units", None) or layer._kwargs["units"]) if layer is not None
            else mechanism.values.shape[-1].value for layer, mechanism in zip(self._attention_layers, mechanisms)]
        self._attention_size = sum(self._attention_sizes)
        self._alignment_history = alignment_history
        self._output_attention = output_attention
        self._initial_cell_state = initial_cell_state

    @property
    def _mechanism(self):  # (the one mechanism of a single-mechanism wrapper)
        return self._mechanisms[0]

    def _item(self, values):
        """A per-mechanism field of the state: a tuple for a list of mechanisms, else its one value."""
        values = tuple(values)
        return values if self._is_multi else values[0]

    @property
    def output_size(self):
        return self._attention_size if self._output_attention else self._cell.output_size

    @property
    def state_size(self):
        return AttentionWrapperState(
            cell_state=self._cell.state_size, time=TensorShape([]), attention=self._attention_size,
            alignments=self._item(m.alignments_size for m in self._mechanisms),
            attention_state=self._item(m.state_size for m in self._mechanisms),
            alignment_history=self._item(m.alignments_size for m in self._mechanisms) if self._alignment_history
            else ())

    def zero_state(self, batch_size, dtype):
        cell_state = self._initial_cell_state if self._initial_cell_state is not None else \
            self._cell.zero_state(batch_size, dtype)
        batch = convert_to_tensor(batch_size)
        static_batch = batch_size if isinstance(batch_size, int) else None  # (kept through a decoding loop)
        attention = zeros(concat([expand_dims(batch, 0), [self._attention_size]], 0), dtype=dtype)
        attention.set_shape([static_batch, self._attention_size])
        alignments = []
        for mechanism in self._mechanisms:
            initial = mechanism.initial_alignments(batch, dtype)
            initial.set_shape([static_batch, mechanism.values.shape[1].value])
            alignments.append(initial)
        history = self._item(TensorArray(dtype, size=0, dynamic_size=True) for _ in self._mechanisms) \
            if self._alignment_history else ()
        return AttentionWrapperState(cell_state=cell_state, attention=attention,
                                     time=convert_to_tensor(0, dtype=dtypes.int32), alignments=self._item(alignments),
                                     alignment_history=history, attention_state=self._item(alignments))

    def call(self, inputs, state):
        if not isinstance(state, AttentionWrapperState):
            raise TypeError(f"Expected state to be instance of AttentionWrapperState. Received type {type(state)}")
        cell_output, next_cell_state = self._cell(self._cell_input_fn(inputs, state.attention), state.cell_state)
        previous = state.attention_state if self._is_multi else (state.attention_state,)
        histories = (state.alignment_history if self._is_multi else (state.alignment_history,)) \
            if self._alignment_history else ()
        attentions, all_alignments, next_states, next_histories = [], [], [], []
        for i, (mechanism, layer) in enumerate(zip(self._mechanisms, self._attention_layers)):
            alignments, next_attention_state = mechanism(cell_output, previous[i])
            context = squeeze(matmul(expand_dims(alignments, 1), mechanism.values), [1])
            attentions.append(layer(concat([cell_output, context], 1)) if layer is not None else context)
            all_alignments.append(alignments)
            next_states.append(next_attention_state)
            if self._alignment_history:
                next_histories.append(histories[i].write(state.time, alignments))
        attention = concat(attentions, 1) if len(attentions) > 1 else attentions[0]
        next_state = AttentionWrapperState(
            time=state.time + 1, cell_state=next_cell_state, attention=attention,
            alignments=self._item(all_alignments), attention_state=self._item(next_states),
            alignment_history=self._item(next_histories) if self._alignment_history else ())
        return (attention if self._output_attention else cell_output), next_state


def _per_mechanism(value, n: int, what: str) -> list:
    """``value`` as a list of one per mechanism (None: Nones); a list of another length is an error."""
    if value is None:
        return [None] * n
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(values) != n:
        raise ValueError(f"If provided, {what} must contain exactly one integer per attention_mechanism, saw: "
                         f"{len(values)} vs {n}")
    return values
