"""``tf.contrib.seq2seq``: decoders for sequence-to-sequence models, as TF 1.x's NMT
tutorial wrote them, and ``sequence_loss``.

A *helper* says what the decoder reads at each step: ``TrainingHelper`` the target
sequence (teacher forcing), ``GreedyEmbeddingHelper`` the embedding of its own last
arg-max until the end token, ``SampleEmbeddingHelper`` that of a draw; the scheduled
sampling helpers the target or, with a probability, the decoder's own sample or output;
``InferenceHelper`` and ``CustomHelper`` what functions given to them say. ``BasicDecoder``
runs a cell (and an ``output_layer``) one step under a helper; ``dynamic_decode`` runs a
decoder in one ``while_loop`` until every sequence is finished (or ``maximum_iterations``),
and returns its outputs batch-major, its final state and each sequence's length.
``tile_batch`` repeats each batch entry (for a beam). The attention mechanisms and
``AttentionWrapper`` (with the monotonic mechanisms) are in attention.py,
``BeamSearchDecoder`` and ``gather_tree`` in beam_search.py. Not here: the beam search's
coverage penalty.
"""

from __future__ import annotations

import collections

from .. import (TensorArray, argmax, bool as bool_, cast, concat, cond, convert_to_tensor, equal, expand_dims, fill,
                greater, greater_equal, int32, less, less_equal, logical_not, logical_or, maximum, multinomial,
                random_uniform, reduce_all, reduce_any, reshape, shape, size, squeeze, tile, transpose, where,
                where_v2, while_loop, zeros, zeros_like)
from .._namespace import missing
from ..framework import nest
from ..framework.tensor_shape import TensorShape
from ..layers.rnn import sequence_loss  # noqa: F401
from .decoder import Decoder, embedding_and_tokens
from .attention import (AttentionWrapper, AttentionWrapperState, BahdanauAttention,  # noqa: F401
                        BahdanauMonotonicAttention, LuongAttention, LuongMonotonicAttention, monotonic_attention,
                        safe_cumprod)
from ..ops import variable_scope as vs


def _transpose_batch_time(t):
    rank = t.shape.ndims
    perm = [1, 0] + list(range(2, rank if rank is not None else 2))
    return transpose(t, perm)


class Helper:
    """What a decoder reads: ``initialize()`` -> (finished, first inputs); ``sample`` picks ids
    from the outputs; ``next_inputs`` -> (finished, next inputs, state)."""

    @property
    def batch_size(self):
        raise NotImplementedError

    @property
    def sample_ids_shape(self):
        return TensorShape([])

    @property
    def sample_ids_dtype(self):
        return int32


class TrainingHelper(Helper):
    """Reads ``inputs`` ([batch, time, depth], or time-major) step by step, for
    ``sequence_length`` steps each."""

    def __init__(self, inputs, sequence_length, time_major=False, name=None):
        inputs = convert_to_tensor(inputs)
        self._inputs = inputs if time_major else _transpose_batch_time(inputs)
        self._sequence_length = cast(convert_to_tensor(sequence_length), int32)  # (the loop counts in int32)
        if self._sequence_length.shape.ndims != 1:
            raise ValueError(f"Expected sequence_length to be a vector, but received shape: "
                             f"{self._sequence_length.shape}")
        self._input_ta = TensorArray(self._inputs.dtype, size=shape(self._inputs)[0],
                                     element_shape=self._inputs.shape[1:]).unstack(self._inputs)
        self._zero_inputs = zeros_like(self._inputs[0])
        self._batch_size = shape(self._sequence_length)[0]

    @property
    def inputs(self):
        return self._inputs

    @property
    def sequence_length(self):
        return self._sequence_length

    @property
    def batch_size(self):
        return self._batch_size

    def _read(self, time, finished):
        inputs = cond(reduce_all(finished), lambda: self._zero_inputs, lambda: self._input_ta.read(time))
        inputs.set_shape(self._inputs.shape[1:])
        return inputs

    def initialize(self, name=None):
        finished = less_equal(self._sequence_length, 0)
        return finished, self._read(0, finished)

    def sample(self, time, outputs, state, name=None):
        return cast(argmax(outputs, -1), int32)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        next_time = time + 1
        finished = greater_equal(next_time, self._sequence_length)
        return finished, self._read(next_time, finished), state


class GreedyEmbeddingHelper(Helper):
    """Reads the embedding of ``start_tokens`` first, then of each step's arg-max; a sequence
    is finished once it emits ``end_token``."""

    def __init__(self, embedding, start_tokens, end_token):
        self._embedding_fn, self._start_tokens, self._end_token = embedding_and_tokens(embedding, start_tokens,
                                                                                       end_token)
        self._batch_size = shape(self._start_tokens)[0]
        self._start_inputs = self._embedding_fn(self._start_tokens)

    @property
    def batch_size(self):
        return self._batch_size

    def initialize(self, name=None):
        return fill(expand_dims(self._batch_size, 0), False), self._start_inputs

    def sample(self, time, outputs, state, name=None):
        return cast(argmax(outputs, -1), int32)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished = equal(sample_ids, self._end_token)
        inputs = cond(reduce_all(finished), lambda: self._start_inputs, lambda: self._embedding_fn(sample_ids))
        return finished, inputs, state


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """``GreedyEmbeddingHelper`` drawing each step's id from the outputs' softmax (divided by
    ``softmax_temperature``) instead of taking its arg-max."""

    def __init__(self, embedding, start_tokens, end_token, softmax_temperature=None, seed=None):
        super().__init__(embedding, start_tokens, end_token)
        self._temperature, self._seed = softmax_temperature, seed

    def sample(self, time, outputs, state, name=None):
        logits = outputs if self._temperature is None else outputs / self._temperature
        return cast(squeeze(multinomial(logits, 1, seed=self._seed), [1]), int32)


class CustomHelper(Helper):
    """A helper of three functions: ``initialize_fn()`` -> (finished, next inputs),
    ``sample_fn(time, outputs, state)`` -> sample ids, ``next_inputs_fn(time, outputs, state,
    sample_ids)`` -> (finished, next inputs, next state)."""

    def __init__(self, initialize_fn, sample_fn, next_inputs_fn, sample_ids_shape=None, sample_ids_dtype=None):
        self._initialize_fn, self._sample_fn, self._next_inputs_fn = initialize_fn, sample_fn, next_inputs_fn
        self._batch_size = None
        self._sample_ids_shape = TensorShape(sample_ids_shape or [])
        self._sample_ids_dtype = sample_ids_dtype or int32

    @property
    def batch_size(self):
        if self._batch_size is None:
            raise ValueError("batch_size accessed before initialize was called")
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return self._sample_ids_shape

    @property
    def sample_ids_dtype(self):
        return self._sample_ids_dtype

    def initialize(self, name=None):
        finished, next_inputs = self._initialize_fn()
        if self._batch_size is None:
            self._batch_size = size(finished)
        return finished, next_inputs

    def sample(self, time, outputs, state, name=None):
        return self._sample_fn(time=time, outputs=outputs, state=state)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        return self._next_inputs_fn(time=time, outputs=outputs, state=state, sample_ids=sample_ids)


class InferenceHelper(Helper):
    """Reads ``start_inputs``, then ``next_inputs_fn`` of each step's ``sample_fn(outputs)``
    (the samples themselves by default); a sequence is finished where ``end_fn(samples)`` is
    true. For outputs that are not ids (a regression decoder)."""

    def __init__(self, sample_fn, sample_shape, sample_dtype, start_inputs, end_fn, next_inputs_fn=None):
        self._sample_fn, self._end_fn, self._next_inputs_fn = sample_fn, end_fn, next_inputs_fn
        self._sample_shape, self._sample_dtype = TensorShape(sample_shape), sample_dtype
        self._start_inputs = convert_to_tensor(start_inputs, name="start_inputs")
        self._batch_size = shape(self._start_inputs)[0]

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return self._sample_shape

    @property
    def sample_ids_dtype(self):
        return self._sample_dtype

    def initialize(self, name=None):
        return fill(expand_dims(self._batch_size, 0), False), self._start_inputs

    def sample(self, time, outputs, state, name=None):
        return self._sample_fn(outputs)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished = self._end_fn(sample_ids)
        next_inputs = sample_ids if self._next_inputs_fn is None else self._next_inputs_fn(sample_ids)
        return finished, next_inputs, state


def _sampling_probability(probability):
    probability = convert_to_tensor(probability, name="sampling_probability")
    if probability.shape.ndims not in (0, 1):
        raise ValueError(f"sampling_probability must be either a scalar or a vector. saw shape: {probability.shape}")
    return probability


def _rows(mask, chosen, other):
    """``chosen`` where the [batch] ``mask`` is true, else ``other``, row by row."""
    return where_v2(reshape(mask, concat([shape(mask), fill(expand_dims(other.shape.ndims - 1, 0), 1)], 0)),
                    chosen, other)


class ScheduledEmbeddingTrainingHelper(TrainingHelper):
    """Scheduled sampling (Bengio et al., 2015): a ``TrainingHelper`` that reads, for each
    sequence with probability ``sampling_probability``, the embedding of an id drawn from the
    decoder's output logits instead of the next target (sample id -1 where it reads the
    target)."""

    def __init__(self, inputs, sequence_length, embedding, sampling_probability, time_major=False, seed=None,
                 scheduling_seed=None, name=None):
        self._embedding_fn = embedding if callable(embedding) else embedding_and_tokens(embedding, [0], 0)[0]
        self._sampling_probability = _sampling_probability(sampling_probability)
        self._seed, self._scheduling_seed = seed, scheduling_seed
        super().__init__(inputs, sequence_length, time_major=time_major)

    def sample(self, time, outputs, state, name=None):
        chosen = less(random_uniform(expand_dims(self.batch_size, 0), seed=self._scheduling_seed,
                                     dtype=self._sampling_probability.dtype), self._sampling_probability)
        drawn = cast(squeeze(multinomial(outputs, 1, seed=self._seed), [1]), int32)
        ids = where(chosen, drawn, fill(expand_dims(self.batch_size, 0), -1))
        ids.set_shape(self._sequence_length.shape)
        return ids

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished, base, state = super().next_inputs(time, outputs, state, sample_ids)

        def sampled():
            return _rows(greater(sample_ids, -1), self._embedding_fn(maximum(sample_ids, 0)), base)

        next_inputs = cond(reduce_all(finished), lambda: base, sampled)
        next_inputs.set_shape(base.shape)
        return finished, next_inputs, state


class ScheduledOutputTrainingHelper(TrainingHelper):
    """Scheduled sampling of outputs: a ``TrainingHelper`` that reads, for each sequence with
    probability ``sampling_probability``, the decoder's own last output (through
    ``next_inputs_fn`` if given, with ``auxiliary_inputs`` appended) instead of the next
    target (boolean sample ids: where it did)."""

    def __init__(self, inputs, sequence_length, sampling_probability, time_major=False, seed=None,
                 next_inputs_fn=None, auxiliary_inputs=None, name=None):
        self._sampling_probability = _sampling_probability(sampling_probability)
        self._seed, self._next_inputs_fn = seed, next_inputs_fn
        self._auxiliary = None
        if auxiliary_inputs is not None:
            auxiliary_inputs = convert_to_tensor(auxiliary_inputs)
            inputs = concat([convert_to_tensor(inputs), auxiliary_inputs], -1)
            steps = auxiliary_inputs if time_major else _transpose_batch_time(auxiliary_inputs)
            self._auxiliary = TensorArray(steps.dtype, size=shape(steps)[0],
                                          element_shape=steps.shape[1:]).unstack(steps)
        super().__init__(inputs, sequence_length, time_major=time_major)

    @property
    def sample_ids_dtype(self):
        return bool_

    def sample(self, time, outputs, state, name=None):
        chosen = less(random_uniform(expand_dims(self.batch_size, 0), seed=self._seed,
                                     dtype=self._sampling_probability.dtype), self._sampling_probability)
        chosen.set_shape(self._sequence_length.shape)
        return chosen

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        finished, base, state = super().next_inputs(time, outputs, state, sample_ids)
        sample_ids = cast(sample_ids, bool_)

        def sampled():
            own = outputs if self._next_inputs_fn is None else self._next_inputs_fn(outputs)
            if self._auxiliary is not None:
                own = concat([own, self._auxiliary.read(time + 1)], -1)
            return _rows(sample_ids, own, base)

        skip = logical_or(reduce_all(finished), logical_not(reduce_any(sample_ids)))
        next_inputs = cond(skip, lambda: base, sampled)
        next_inputs.set_shape(base.shape)
        return finished, next_inputs, state


class BasicDecoderOutput(collections.namedtuple("BasicDecoderOutput", ("rnn_output", "sample_id"))):
    pass


class BasicDecoder(Decoder):
    def __init__(self, cell, helper, initial_state, output_layer=None):
        if not isinstance(helper, Helper):
            raise TypeError(f"helper must be a Helper, received: {type(helper)}")
        self._cell, self._helper, self._initial_state = cell, helper, initial_state
        self._output_layer = output_layer

    @property
    def batch_size(self):
        return self._helper.batch_size

    def _rnn_output_size(self):
        if self._output_layer is None:
            return self._cell.output_size
        units = getattr(self._output_layer, "units", None)
        return units if units is not None else self._output_layer._kwargs["units"]

    @property
    def output_size(self):
        return BasicDecoderOutput(rnn_output=self._rnn_output_size(), sample_id=self._helper.sample_ids_shape)

    @property
    def output_dtype(self):
        dtype = nest.flatten(self._initial_state)[0].dtype
        return BasicDecoderOutput(nest.map_structure(lambda _: dtype, self._rnn_output_size()),
                                  self._helper.sample_ids_dtype)

    def initialize(self, name=None):
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time, inputs, state, name=None):
        cell_outputs, cell_state = self._cell(inputs, state)
        if self._output_layer is not None:
            cell_outputs = self._output_layer(cell_outputs)
        sample_ids = self._helper.sample(time, cell_outputs, cell_state)
        finished, next_inputs, next_state = self._helper.next_inputs(time, cell_outputs, cell_state, sample_ids)
        return BasicDecoderOutput(cell_outputs, sample_ids), next_state, next_inputs, finished


def _zeros_of(size, dtype, batch):
    dims = TensorShape(size).as_list() if not isinstance(size, int) else [size]
    return zeros(concat([expand_dims(batch, 0), convert_to_tensor(dims, dtype=int32)], 0), dtype=dtype)


def dynamic_decode(decoder, output_time_major=False, impute_finished=False, maximum_iterations=None,
                   parallel_iterations=32, swap_memory=False, scope=None):
    """Runs ``decoder`` until every sequence is finished (or ``maximum_iterations`` steps);
    returns (outputs, final state, each sequence's length). With ``impute_finished`` a
    finished sequence's outputs are zeros and its state is kept."""
    if not isinstance(decoder, Decoder):
        raise TypeError(f"Expected decoder to be type Decoder, but saw: {type(decoder)}")
    with vs.variable_scope(scope or "decoder"):
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, dtype=int32, name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError("maximum_iterations must be a scalar")
        finished, inputs, state = decoder.initialize()
        if maximum_iterations is not None:
            finished = logical_or(finished, less_equal(maximum_iterations, 0))
        batch = decoder.batch_size
        zero_outputs = nest.map_structure(lambda size, dtype: _zeros_of(size, dtype, batch), decoder.output_size,
                                          decoder.output_dtype)
        outputs_ta = nest.map_structure(lambda dtype: TensorArray(dtype, size=0, dynamic_size=True),
                                        decoder.output_dtype)
        lengths = zeros_like(finished, dtype=int32)

        def condition(time, outputs_ta, state, inputs, finished, lengths):
            return logical_not(reduce_all(finished))

        def body(time, outputs_ta, state, inputs, finished, lengths):
            outputs, decoder_state, next_inputs, decoder_finished = decoder.step(time, inputs, state)
            next_finished = decoder_finished if decoder.tracks_own_finished else logical_or(decoder_finished,
                                                                                            finished)
            next_lengths = where(logical_not(finished), fill(shape(lengths), time + 1), lengths)
            if maximum_iterations is not None:
                next_finished = logical_or(next_finished, greater_equal(time + 1, maximum_iterations))
            nest.assert_same_structure(state, decoder_state)
            if impute_finished:  # (TF 1.x's where: a [batch] condition picks whole rows)
                emit = nest.map_structure(lambda out, zero: where(finished, zero, out), outputs, zero_outputs)
                next_state = nest.map_structure(  # (a TensorArray or a scalar goes on as it is)
                    lambda new, old: new if isinstance(new, TensorArray) or new.shape.ndims == 0 else
                    where(finished, old, new), decoder_state, state)
            else:
                emit, next_state = outputs, decoder_state
            outputs_ta = nest.map_structure(lambda ta, out: ta.write(time, out), outputs_ta, emit)
            return time + 1, outputs_ta, next_state, next_inputs, next_finished, next_lengths

        _, outputs_ta, final_state, _, _, lengths = while_loop(
            condition, body, [convert_to_tensor(0), outputs_ta, state, inputs, finished, lengths],
            parallel_iterations=parallel_iterations, swap_memory=swap_memory, maximum_iterations=maximum_iterations,
            return_same_structure=True)
        # (the loop gives the outputs' structure back as plain tuples: packed again as the decoder's)
        final_outputs = nest.pack_sequence_as(decoder.output_dtype,
                                              [ta.stack() for ta in nest.flatten(outputs_ta)])
        if hasattr(decoder, "finalize"):
            final_outputs, final_state = decoder.finalize(final_outputs, final_state, lengths)
        if not output_time_major:
            final_outputs = nest.map_structure(_transpose_batch_time, final_outputs)
        return final_outputs, final_state, lengths


def tile_batch(t, multiplier, name=None):
    """Each batch entry of ``t`` (or of each tensor of a structure) repeated ``multiplier``
    times in a row: [a, b] -> [a, a, b, b]."""
    def tiled(x):
        x = convert_to_tensor(x)
        if x.shape.ndims == 0:
            raise ValueError("t must have statically known rank")
        dims = shape(x)
        repeated = tile(expand_dims(x, 1), concat([[1, multiplier], fill(expand_dims(x.shape.ndims - 1, 0), 1)], 0))
        out = reshape(repeated, concat([expand_dims(dims[0] * multiplier, 0), dims[1:]], 0))
        batch = x.shape[0].value
        out.set_shape(TensorShape([None if batch is None else batch * multiplier]).concatenate(x.shape[1:]))
        return out

    return nest.map_structure(tiled, t)


from .beam_search import (BeamSearchDecoder, BeamSearchDecoderOutput, BeamSearchDecoderState,  # noqa: E402,F401
                          FinalBeamSearchDecoderOutput, gather_tree)

__getattr__ = missing("tf.contrib.seq2seq")
