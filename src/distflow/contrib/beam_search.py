"""``tf.contrib.seq2seq.BeamSearchDecoder`` and ``gather_tree``: beam search as TF 1.x's NMT
inference ran it.

The decoder keeps ``beam_width`` hypotheses a sequence. Each step scores every extension
of every live hypothesis (its log probability so far plus the step's log-softmax; a
finished hypothesis can only be extended by ``end_token``, at no cost), divides by the
length penalty ``((5 + length) / 6) ** length_penalty_weight`` (when the weight is not 0),
adds to finished hypotheses the coverage penalty of Wu et al. (2016) (when
``coverage_penalty_weight`` is not 0: the weight times the sum over the source of
``log(min(attention received so far, 1))``, the attention being that of the cell's
AttentionWrapperState, averaged over its mechanisms and accumulated in the state's
``accumulated_attention_probs``), and keeps the best ``beam_width`` of them (``top_k`` over
beams and words together), gathering the cell states of their parents. At the start only
the first beam is live. Its outputs are each step's scores, words and parents; ``finalize``
follows the parents back (``gather_tree``) into ``predicted_ids`` [batch, time, beam], best
beam first.
"""

from __future__ import annotations

import collections

import numpy as np

from .. import (TensorArray, cast, concat, cond, convert_to_tensor, expand_dims, fill, gather, int32,
                int64, log, logical_not, logical_or, equal, minimum, nn, one_hot, ones_like, range as range_,
                reduce_all, reduce_max, reduce_mean, reduce_sum, reshape, shape, stack, tile, where, zeros)
from ..framework import dtypes, errors, nest
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from ..ops.op_util import make_tensor
from .attention import AttentionWrapperState
from .decoder import Decoder, embedding_and_tokens


class BeamSearchDecoderState(collections.namedtuple(
        "BeamSearchDecoderState", ("cell_state", "log_probs", "finished", "lengths", "accumulated_attention_probs"))):
    pass


class BeamSearchDecoderOutput(collections.namedtuple("BeamSearchDecoderOutput",
                                                     ("scores", "predicted_ids", "parent_ids"))):
    pass


class FinalBeamSearchDecoderOutput(collections.namedtuple("FinalBeamDecoderOutput",
                                                          ["predicted_ids", "beam_search_decoder_output"])):
    pass


@register_op("GatherTree", shape=lambda op: op.inputs[0].shape)
def _gather_tree_kernel(xp, step_ids, parent_ids, max_sequence_lengths, end_token):
    step_ids, parent_ids = np.asarray(step_ids), np.asarray(parent_ids)
    max_time, batch, beam = step_ids.shape
    end = int(end_token)
    beams = np.full(step_ids.shape, end, step_ids.dtype)
    lengths = np.asarray(max_sequence_lengths).reshape(-1)
    for b in range(batch):
        length = min(max_time, int(lengths[b]))
        if length <= 0:
            continue
        for k in range(beam):
            beams[length - 1, b, k] = step_ids[length - 1, b, k]
            parent = parent_ids[length - 1, b, k]
            for level in range(length - 2, -1, -1):
                if parent < 0 or parent >= beam:
                    beams[level, b, k] = -1
                    break
                beams[level, b, k] = step_ids[level, b, parent]
                parent = parent_ids[level, b, parent]
            done = False
            for t in range(length):  # (after an end token, only end tokens)
                if done:
                    beams[t, b, k] = end
                elif beams[t, b, k] == end:
                    done = True
    return beams


not_differentiable("GatherTree")


def gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token, name=None):
    """The beams' full id sequences, [max_time, batch, beam], from each step's ids and parent
    beams: each followed back from its last step (``max_sequence_lengths`` per batch entry)."""
    step_ids = convert_to_tensor(step_ids)
    if step_ids.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise errors.InvalidArgumentError(None, None, f"gather_tree needs int32 or int64 ids, got {step_ids.dtype}")
    def same(t):
        t = convert_to_tensor(t)
        return t if t.dtype.base_dtype == step_ids.dtype.base_dtype else cast(t, step_ids.dtype.base_dtype)

    return make_tensor("GatherTree", [step_ids, same(parent_ids), same(max_sequence_lengths), same(end_token)], None,
                       name or "GatherTree")


def _gather(t, indices, batch, range_size):
    """``t[b, indices[b, k]]`` for every b and k: rows of the flattened [batch * range_size, ...]."""
    dims = shape(t)
    flat = reshape(t, concat([[-1], dims[2:]], 0))
    rows = reshape(indices + expand_dims(range_(batch) * range_size, 1), [-1])
    return reshape(gather(flat, rows), concat([[batch, -1], dims[2:]], 0))


class BeamSearchDecoder(Decoder):
    def __init__(self, cell, embedding, start_tokens, end_token, initial_state, beam_width, output_layer=None,
                 length_penalty_weight=0.0, coverage_penalty_weight=0.0, reorder_tensor_arrays=True):
        self._cell, self._output_layer = cell, output_layer
        self._embedding_fn, self._start_tokens, self._end_token = embedding_and_tokens(embedding, start_tokens,
                                                                                       end_token)
        self._batch_size = shape(self._start_tokens)[0]
        self._beam_width = int(beam_width)
        self._length_penalty_weight = float(length_penalty_weight)
        self._coverage_penalty_weight = float(coverage_penalty_weight)
        self._initial_cell_state = nest.map_structure(self._split, initial_state)
        if self._coverage_penalty_weight and self._attention_probs(self._initial_cell_state) is None:
            raise ValueError("coverage_penalty_weight must be 0.0 if no cell is attentional.")
        tokens = tile(expand_dims(self._start_tokens, 1), [1, self._beam_width])
        self._start_inputs = self._embedding_fn(tokens)

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def tracks_own_finished(self) -> bool:
        return True

    def _split(self, t):
        """[batch * beam, ...] -> [batch, beam, ...]; a scalar (an attention state's time) and a
        TensorArray pass as they are, as in TF."""
        if isinstance(t, TensorArray):
            return t
        t = convert_to_tensor(t)
        if t.shape.ndims == 0:
            return t
        out = reshape(t, concat([[self._batch_size, self._beam_width], shape(t)[1:]], 0))
        out.set_shape(TensorShape([None, self._beam_width]).concatenate(t.shape[1:]))
        return out

    def _merge(self, t):
        """[batch, beam, ...] -> [batch * beam, ...]; what has fewer dimensions passes."""
        if isinstance(t, TensorArray) or (t.shape.ndims is not None and t.shape.ndims < 2):
            return t
        out = reshape(t, concat([[-1], shape(t)[2:]], 0))
        out.set_shape(TensorShape([None]).concatenate(t.shape[2:]))
        return out

    @property
    def output_size(self):
        return BeamSearchDecoderOutput(scores=TensorShape([self._beam_width]),
                                       predicted_ids=TensorShape([self._beam_width]),
                                       parent_ids=TensorShape([self._beam_width]))

    @property
    def output_dtype(self):
        dtype = nest.flatten(self._initial_cell_state)[0].dtype.base_dtype
        return BeamSearchDecoderOutput(scores=dtype, predicted_ids=int32, parent_ids=int32)

    def initialize(self, name=None):
        dtype = nest.flatten(self._initial_cell_state)[0].dtype.base_dtype
        first = zeros([self._batch_size], dtype=int32)
        finished = one_hot(first, self._beam_width, on_value=False, off_value=True, dtype=dtypes.bool)
        log_probs = one_hot(first, self._beam_width, on_value=convert_to_tensor(0.0, dtype),
                            off_value=convert_to_tensor(-np.inf, dtype), dtype=dtype)
        attention = self._attention_probs(self._initial_cell_state) if self._coverage_penalty_weight else None
        state = BeamSearchDecoderState(cell_state=self._initial_cell_state, log_probs=log_probs, finished=finished,
                                       lengths=zeros([self._batch_size, self._beam_width], dtype=int64),
                                       accumulated_attention_probs=() if attention is None else attention)
        return finished, self._start_inputs, state

    @staticmethod
    def _attention_probs(cell_state):
        """The attention of the cell's AttentionWrapperState (or of each one in a tuple of
        states), [batch, beam, source], averaged over mechanisms and wrappers; None if none."""
        states = [cell_state] if isinstance(cell_state, AttentionWrapperState) else [
            s for s in (cell_state if isinstance(cell_state, tuple) else ()) if isinstance(s, AttentionWrapperState)]
        probs = [p for s in states for p in (s.alignments if isinstance(s.alignments, tuple) else [s.alignments])]
        if not probs:
            return None
        return probs[0] if len(probs) == 1 else reduce_mean(stack(probs, -1), -1)

    def step(self, time, inputs, state, name=None):
        cell_outputs, cell_state = self._cell(self._merge(inputs), nest.map_structure(self._merge, state.cell_state))
        cell_outputs = self._split(cell_outputs)
        cell_state = nest.map_structure(self._split, cell_state)
        if self._output_layer is not None:
            cell_outputs = self._output_layer(cell_outputs)
        output, next_state = self._search_step(cell_outputs, cell_state, state)
        finished = next_state.finished
        next_inputs = cond(reduce_all(finished), lambda: self._start_inputs,
                           lambda: self._embedding_fn(output.predicted_ids))
        return output, next_state, next_inputs, finished

    def _search_step(self, logits, cell_state, state):
        batch, beam = self._batch_size, self._beam_width
        vocab = logits.shape[-1].value
        dtype = logits.dtype.base_dtype
        step_log_probs = nn.log_softmax(logits)
        # a finished beam goes on with the end token only, at no cost
        finished_row = one_hot(self._end_token, vocab, on_value=convert_to_tensor(0.0, dtype),
                               off_value=convert_to_tensor(np.finfo(dtype.as_numpy_dtype).min, dtype), dtype=dtype)
        step_log_probs = where(tile(expand_dims(state.finished, 2), [1, 1, vocab]),
                               tile(reshape(finished_row, [1, 1, -1]), concat([shape(state.finished), [1]], 0)),
                               step_log_probs)
        total = expand_dims(state.log_probs, 2) + step_log_probs
        scores = total
        if self._length_penalty_weight:
            grows = one_hot(fill(stack([batch, beam]), self._end_token), vocab, on_value=np.int64(0),
                            off_value=np.int64(1), dtype=int64) * expand_dims(cast(logical_not(state.finished), int64),
                                                                              2)
            lengths = cast(grows + expand_dims(state.lengths, 2), dtype)
            scores = total / ((5.0 + lengths) / 6.0) ** self._length_penalty_weight
        accumulated = ()
        if self._coverage_penalty_weight:
            live = expand_dims(cast(logical_not(state.finished), dtype), 2)
            accumulated = state.accumulated_attention_probs + self._attention_probs(cell_state) * live
            received = where(equal(accumulated, 0.0), ones_like(accumulated), accumulated)  # (source padding)
            coverage = reduce_sum(log(minimum(received, 1.0)), 2) * cast(state.finished, dtype)
            scores = scores + expand_dims(coverage * self._coverage_penalty_weight, 2)
        best_scores, word_indices = nn.top_k(reshape(scores, stack([batch, -1])), k=beam)
        best_scores.set_shape([None, beam])
        word_indices.set_shape([None, beam])
        next_log_probs = _gather(reshape(total, stack([batch, -1, 1])), word_indices, batch, beam * vocab)[:, :, 0]
        word_ids = cast(word_indices % vocab, int32)
        parents = cast(word_indices // vocab, int32)
        previously_finished = _gather(expand_dims(state.finished, 2), parents, batch, beam)[:, :, 0]
        next_finished = logical_or(previously_finished, equal(word_ids, self._end_token))
        lengths = _gather(expand_dims(state.lengths, 2), parents, batch, beam)[:, :, 0] + \
            cast(logical_not(previously_finished), int64)
        next_cell_state = nest.map_structure(
            lambda t: t if isinstance(t, TensorArray) or t.shape.ndims < 2 else _gather(t, parents, batch, beam),
            cell_state)
        if self._coverage_penalty_weight:
            accumulated = _gather(accumulated, parents, batch, beam)
        next_state = BeamSearchDecoderState(cell_state=next_cell_state, log_probs=next_log_probs,
                                            finished=next_finished, lengths=lengths,
                                            accumulated_attention_probs=accumulated)
        return BeamSearchDecoderOutput(scores=best_scores, predicted_ids=word_ids, parent_ids=parents), next_state

    def finalize(self, outputs, final_state, sequence_lengths):
        """The beams followed back from their ends (outputs time-major, as dynamic_decode gives them)."""
        ids = gather_tree(outputs.predicted_ids, outputs.parent_ids, reduce_max(final_state.lengths, axis=1),
                          self._end_token)
        return FinalBeamSearchDecoderOutput(beam_search_decoder_output=outputs, predicted_ids=ids), final_state


