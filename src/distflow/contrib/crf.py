"""``tf.contrib.crf``: a linear-chain conditional random field over a sequence's tag
scores (``inputs``/``potentials``: [batch, max_seq_len, num_tags]) and the scores of
moving from one tag to the next (``transition_params``: [num_tags, num_tags]), as the
sequence taggers of TF 1.x (BiLSTM-CRF) use it.

The log-likelihood is a tag sequence's score (its unary scores up to its length, plus its
transitions) less the log of the sum over every tag sequence (the forward algorithm, one
``dynamic_rnn`` step per position, so it is differentiated like any graph); decoding is
Viterbi's, in a kernel of its own (it has no gradient, as in TensorFlow).
"""

from __future__ import annotations

import numpy as np

from .._namespace import missing
from ..framework import dtypes, ops
from ..framework.registry import register_op
from ..framework.tensor_shape import TensorShape
from ..layers.rnn import dynamic_rnn
from ..layers.rnn_cell import RNNCell
from ..ops import array_ops, manip_ops, math_ops, nd_ops, reduction_ops, segment_ops, slicing_ops
from ..ops import variable_scope as vs
from ..ops.op_util import make_op


def _static_length(inputs):
    return inputs.shape[1].value if inputs.shape.ndims is not None else None


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """Each sequence's sum of its tags' scores, up to its length."""
    inputs = ops.convert_to_tensor(inputs)
    tag_indices = ops.convert_to_tensor(tag_indices)
    dims = array_ops.shape(inputs)
    batch, steps, tags = dims[0], dims[1], dims[2]
    offsets = array_ops.expand_dims(math_ops.range_(batch) * steps * tags, 1) + \
        array_ops.expand_dims(math_ops.range_(steps) * tags, 0)
    flat = array_ops.reshape(math_ops.cast(offsets, tag_indices.dtype) + tag_indices, [-1])
    scores = array_ops.reshape(slicing_ops.gather(array_ops.reshape(inputs, [-1]), flat),
                               array_ops.stack([batch, steps]))
    masks = manip_ops.sequence_mask(sequence_lengths, maxlen=array_ops.shape(tag_indices)[1], dtype=inputs.dtype)
    return reduction_ops.reduce_sum(scores * masks, 1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """Each sequence's sum of the scores of its transitions, up to its length."""
    transition_params = ops.convert_to_tensor(transition_params)
    tag_indices = ops.convert_to_tensor(tag_indices)
    num_tags = transition_params.shape[0].value
    start, end = tag_indices[:, :-1], tag_indices[:, 1:]
    scores = slicing_ops.gather(array_ops.reshape(transition_params, [-1]), start * num_tags + end)
    masks = manip_ops.sequence_mask(sequence_lengths, maxlen=array_ops.shape(tag_indices)[1],
                                    dtype=transition_params.dtype)
    return reduction_ops.reduce_sum(scores * masks[:, 1:], 1)


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """The unnormalized score of each tag sequence (0 for an empty one)."""
    inputs = ops.convert_to_tensor(inputs)
    sequence_lengths = ops.convert_to_tensor(sequence_lengths)
    if _static_length(inputs) == 1:
        scores = crf_unary_score(tag_indices, sequence_lengths, inputs)
        return math_ops.where(math_ops.less_equal(sequence_lengths, 0), array_ops.zeros_like(scores), scores)
    return crf_unary_score(tag_indices, sequence_lengths, inputs) + \
        crf_binary_score(tag_indices, sequence_lengths, transition_params)


class CrfForwardRnnCell(RNNCell):
    """One step of the forward algorithm: alphas[t] = inputs[t] + logsumexp(alphas[t-1] + transitions)."""

    def __init__(self, transition_params):
        super().__init__()
        self._transition_params = array_ops.expand_dims(ops.convert_to_tensor(transition_params), 0)
        self._num_tags = self._transition_params.shape[1].value

    @property
    def state_size(self):
        return self._num_tags

    @property
    def output_size(self):
        return self._num_tags

    def __call__(self, inputs, state, scope=None):
        scores = array_ops.expand_dims(state, 2) + self._transition_params
        alphas = inputs + segment_ops.reduce_logsumexp(scores, [1])
        return alphas, alphas


class CrfDecodeForwardRnnCell(CrfForwardRnnCell):
    """One step of Viterbi decoding: the best score of each tag so far (the state) and, as the
    output, the best previous tag of each (the backpointers, int32)."""

    def __call__(self, inputs, state, scope=None):
        scores = array_ops.expand_dims(state, 2) + self._transition_params  # [batch, previous tag, tag]
        best = math_ops.cast(reduction_ops.argmax(scores, 1), dtypes.int32)
        return best, inputs + reduction_ops.reduce_max(scores, [1])


class CrfDecodeBackwardRnnCell(RNNCell):
    """One step back along the backpointers (the inputs, [batch, num_tags]) from the tag in the
    state ([batch, 1]): the previous tag, as both output and new state."""

    def __init__(self, num_tags):
        super().__init__()
        self._num_tags = num_tags

    @property
    def state_size(self):
        return 1

    @property
    def output_size(self):
        return 1

    def __call__(self, inputs, state, scope=None):
        tag = array_ops.squeeze(state, axis=[1])
        rows = math_ops.range_(array_ops.shape(inputs)[0])
        previous = array_ops.expand_dims(nd_ops.gather_nd(inputs, array_ops.stack([rows, tag], axis=1)), -1)
        return previous, previous


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """The log of the sum of the scores of every tag sequence (0 for an empty one)."""
    inputs = ops.convert_to_tensor(inputs)
    sequence_lengths = ops.convert_to_tensor(sequence_lengths)
    first = inputs[:, 0, :]
    if _static_length(inputs) == 1:
        log_norm = segment_ops.reduce_logsumexp(first, [1])
    else:
        lengths = math_ops.maximum(array_ops.zeros_like(sequence_lengths), sequence_lengths - 1)
        _, alphas = dynamic_rnn(CrfForwardRnnCell(transition_params), inputs[:, 1:, :], sequence_length=lengths,
                                initial_state=first, dtype=inputs.dtype.base_dtype)
        log_norm = segment_ops.reduce_logsumexp(alphas, [1])
    return math_ops.where(math_ops.less_equal(sequence_lengths, 0), array_ops.zeros_like(log_norm), log_norm)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """(each tag sequence's log-likelihood, the transition scores: a new ``transitions``
    variable [num_tags, num_tags] when none is given)."""
    inputs = ops.convert_to_tensor(inputs)
    num_tags = inputs.shape[2].value
    if transition_params is None:
        transition_params = vs.get_variable("transitions", [num_tags, num_tags], dtype=inputs.dtype.base_dtype)
    sequence_scores = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    return sequence_scores - crf_log_norm(inputs, sequence_lengths, transition_params), transition_params


def viterbi_decode(score, transition_params):
    """The best tag sequence of one sequence's ``score`` ([seq_len, num_tags], NumPy) and its
    score: (list of tags, score)."""
    score = np.asarray(score)
    transition_params = np.asarray(transition_params)
    trellis = np.zeros_like(score)
    backpointers = np.zeros(score.shape, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        candidates = trellis[t - 1][:, None] + transition_params
        trellis[t] = score[t] + candidates.max(axis=0)
        backpointers[t] = candidates.argmax(axis=0)
    path = [int(trellis[-1].argmax())]
    for pointers in backpointers[:0:-1]:
        path.append(int(pointers[path[-1]]))
    return path[::-1], trellis[-1].max()


@register_op("_CrfDecode", shape=lambda op: [op.inputs[0].shape[:2], op.inputs[0].shape[:1]],
             dtype=lambda op: [dtypes.int32, op.inputs[0].dtype.base_dtype])
def _crf_decode_kernel(xp, potentials, transition_params, sequence_length):
    potentials = np.asarray(potentials)
    batch, steps, _ = potentials.shape
    tags = np.zeros((batch, steps), np.int32)
    best = np.zeros(batch, potentials.dtype)
    lengths = np.asarray(sequence_length).reshape(-1)
    for b in range(batch):
        length = max(1, min(int(lengths[b]), steps)) if steps > 1 else 1
        path, score = viterbi_decode(potentials[b, :length], transition_params)
        tags[b, :length] = path
        best[b] = score
    return tags, best


def crf_decode(potentials, transition_params, sequence_length):
    """(the best tags of each sequence, [batch, max_seq_len] int32, zeros past its length;
    their scores, [batch])."""
    potentials = ops.convert_to_tensor(potentials)
    transition_params = ops.convert_to_tensor(transition_params, dtype=potentials.dtype.base_dtype)
    sequence_length = ops.convert_to_tensor(sequence_length)
    op = make_op("_CrfDecode", [potentials, transition_params, sequence_length], None, "CrfDecode")
    tags, best = op.outputs
    tags.set_shape(TensorShape(potentials.shape[:2]))
    return tags, best


__getattr__ = missing("tf.contrib.crf")
