"""Connectionist temporal classification: ``tf.nn.ctc_loss``, ``tf.nn.ctc_greedy_decoder`` and
``tf.nn.ctc_beam_search_decoder``.

``CTCLoss`` (TensorFlow's op) takes time-major logits ``[max_time, batch, classes]`` (the
last class is the blank), a batch's label sequences as a SparseTensor's indices and values,
and each example's length. For each example it runs the forward (alpha) and backward (beta)
recursions over the label sequence with a blank between labels and at both ends, in log
space, and gives the loss ``-log p(labels | logits)`` and its gradient with respect to the
logits (softmax minus the posterior of each class at each step; zero past the example's
length), which the op's gradient scales by the loss's incoming gradient, as TensorFlow's.
Repeated labels are merged across a step only through a blank (``ctc_merge_repeated``, the
standard CTC and TensorFlow's default).

``CTCBeamSearchDecoder`` is TensorFlow's prefix beam search, step for step: the prefixes in
the beam carry their probabilities of ending in a blank and in their last label; each step
updates them, then grows each prefix that could still enter the beam by every label, a
full beam dropping its least probable prefix. Each step's logits are normalized by a
softmax, as TensorFlow's (since 1.11) are.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, check_ops, manip_ops, math_ops, nd_ops, reduction_ops, slicing_ops
from .math_ops import cast
from .op_util import FLOATS, make_op, only_default
from .sparse_ops import SparseTensor


def _logsumexp(*terms: np.ndarray) -> np.ndarray:
    stacked = np.stack(terms)
    top = stacked.max(axis=0)
    finite = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return finite + np.log(np.exp(stacked - finite).sum(axis=0))


def _sequences(indices: np.ndarray, values: np.ndarray, batch: int) -> list[list[int]]:
    """Each example's labels from a SparseTensor's indices ([example, position]) and values."""
    out: list[list[int]] = [[] for _ in range(batch)]
    for (b, _), v in sorted(zip(map(tuple, indices.tolist()), values.tolist())):
        if not 0 <= b < batch:
            raise errors.InvalidArgumentError(None, None, f"CTCLoss: a label's batch index {b} is outside [0, {batch})")
        out[b].append(int(v))
    return out


def _example(log_probs: np.ndarray, labels: list[int], blank: int) -> tuple[float, np.ndarray]:
    """(-log p(labels), d loss / d logits) of one example's [time, classes] log-softmax."""
    steps, classes = log_probs.shape
    ext = np.full(2 * len(labels) + 1, blank, np.int64)
    ext[1::2] = labels
    n = len(ext)
    # a label may follow the one two back (skipping the blank between) unless it repeats it
    skip = np.zeros(n, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    neg_inf = np.full(n, -np.inf)
    alpha = np.empty((steps, n))
    alpha[0] = neg_inf
    alpha[0, :2] = log_probs[0, ext[:2]]
    for t in range(1, steps):
        prev = alpha[t - 1]
        one = np.concatenate([[-np.inf], prev[:-1]])
        two = np.where(skip, np.concatenate([[-np.inf, -np.inf], prev[:-2]]), -np.inf)
        alpha[t] = _logsumexp(prev, one, two) + log_probs[t, ext]
    beta = np.empty((steps, n))
    beta[-1] = neg_inf
    beta[-1, -2:] = log_probs[-1, ext[-2:]]
    skip_back = np.zeros(n, bool)  # (from s to s + 2)
    skip_back[:-2] = skip[2:]
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1]
        one = np.concatenate([nxt[1:], [-np.inf]])
        two = np.where(skip_back, np.concatenate([nxt[2:], [-np.inf, -np.inf]]), -np.inf)
        beta[t] = _logsumexp(nxt, one, two) + log_probs[t, ext]
    log_p = float(_logsumexp(alpha[-1, -1], alpha[-1, -2] if n > 1 else -np.inf))
    if not np.isfinite(log_p):
        return np.inf, np.zeros((steps, classes))
    posterior = alpha + beta - log_probs[:, ext]  # (each path through (t, s) counted once)
    occupancy = np.zeros((steps, classes))
    for s in range(n):
        occupancy[:, ext[s]] += np.exp(posterior[:, s] - log_p)
    return -log_p, np.exp(log_probs) - occupancy


@register_op("CTCLoss", shape=lambda op: [TensorShape([op.inputs[0].shape[1].value if op.inputs[0].shape.ndims else None]),
                                          op.inputs[0].shape])
def _ctc_loss_kernel(xp, inputs, labels_indices, labels_values, sequence_length, *,
                     preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                     ignore_longer_outputs_than_inputs=False):
    steps, batch, classes = inputs.shape
    lengths = np.asarray(sequence_length).reshape(-1)
    if lengths.shape != (batch,):
        raise errors.InvalidArgumentError(None, None, f"CTCLoss: sequence_length has {lengths.size} entries for a "
                                          f"batch of {batch}")
    blank = classes - 1
    loss = np.zeros(batch, inputs.dtype)
    grad = np.zeros(inputs.shape, inputs.dtype)
    x = np.asarray(inputs, np.float64)
    for b, labels in enumerate(_sequences(np.asarray(labels_indices), np.asarray(labels_values), batch)):
        length = int(lengths[b])
        if not 0 <= length <= steps:
            raise errors.InvalidArgumentError(None, None, f"CTCLoss: sequence_length({b}) = {length} is outside "
                                              f"[0, {steps}]")
        if not labels:
            raise errors.InvalidArgumentError(None, None, f"CTCLoss: labels length is zero in batch {b}")
        if any(not 0 <= v < blank for v in labels):
            raise errors.InvalidArgumentError(None, None, f"CTCLoss: labels of example {b} {labels} must be in "
                                              f"[0, {blank}) (class {blank} is the blank)")
        if preprocess_collapse_repeated:
            labels = [v for i, v in enumerate(labels) if i == 0 or v != labels[i - 1]]
        needed = len(labels) + sum(a == b_ for a, b_ in zip(labels, labels[1:]))
        if needed > length:
            if ignore_longer_outputs_than_inputs:
                continue
            raise errors.InvalidArgumentError(
                None, None, f"Not enough time for target transition sequence (required: {needed}, available: "
                f"{length}), batch {b}: you can turn this error into a warning by using the flag "
                "ignore_longer_outputs_than_inputs")
        if length == 0:
            continue
        logits = x[:length, b]
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss[b], grad[:length, b] = _example(log_probs, labels, blank)
    return loss, grad


@register_gradient("CTCLoss")
def _ctc_loss_grad(op, grad_loss, _grad_gradient):
    return array_ops.expand_dims(array_ops.expand_dims(grad_loss, 0), -1) * op.outputs[1], None, None, None


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
             ignore_longer_outputs_than_inputs=False, time_major=True, logits=None):
    """The negative log probability of each example's ``labels`` (an int32 SparseTensor,
    [batch, max_label_length]) under ``inputs``: logits [max_time, batch, classes] (batch
    first with ``time_major=False``), the last class the blank; [batch]."""
    inputs = logits if inputs is None else inputs
    if not isinstance(labels, SparseTensor):
        raise TypeError("Expected labels (first argument) to be a SparseTensor")
    only_default("ctc_loss", "ctc_merge_repeated", ctc_merge_repeated, True)
    inputs = ops.convert_to_tensor(inputs)
    if inputs.dtype.base_dtype not in FLOATS:
        raise TypeError(f"ctc_loss needs floating logits, got {inputs.dtype.name}")
    if inputs.shape.ndims not in (None, 3):
        raise ValueError(f"ctc_loss: inputs must be 3-D [max_time, batch, classes], got shape {inputs.shape}")
    if not time_major:
        inputs = array_ops.transpose(inputs, [1, 0, 2])
    op = make_op("CTCLoss", [inputs, labels.indices, _int32(labels.values),
                             _int32(ops.convert_to_tensor(sequence_length))],
                 {"preprocess_collapse_repeated": bool(preprocess_collapse_repeated),
                  "ctc_merge_repeated": True,
                  "ignore_longer_outputs_than_inputs": bool(ignore_longer_outputs_than_inputs)}, "CTCLoss")
    return op.outputs[0]


def _int32(t):
    return t if t.dtype.base_dtype == dtypes.int32 else cast(t, dtypes.int32)


@register_op("CTCGreedyDecoder", shape=lambda op: [TensorShape([None, 2]), TensorShape([None]), TensorShape([2]),
                                                   TensorShape([op.inputs[0].shape[1].value
                                                                if op.inputs[0].shape.ndims else None, 1])],
             dtype=lambda op: [dtypes.int64, dtypes.int64, dtypes.int64, op.inputs[0].dtype.base_dtype])
def _ctc_greedy_decoder_kernel(xp, inputs, sequence_length, *, merge_repeated=True):
    steps, batch, classes = inputs.shape
    blank = classes - 1
    lengths = np.asarray(sequence_length).reshape(-1)
    indices, values, longest = [], [], 0
    score = np.zeros((batch, 1), inputs.dtype)
    for b in range(batch):
        length = int(lengths[b])
        best = np.asarray(inputs[:length, b]).argmax(axis=1)
        score[b, 0] = -np.asarray(inputs[:length, b]).max(axis=1).sum() if length else 0
        decoded, last = [], None
        for c in best.tolist():
            if c != blank and not (merge_repeated and c == last):
                decoded.append(c)
            last = c
        indices += [[b, i] for i in range(len(decoded))]
        values += decoded
        longest = max(longest, len(decoded))
    return (np.array(indices, np.int64).reshape(-1, 2), np.array(values, np.int64), np.array([batch, longest], np.int64),
            score)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """The best class at each step, repeats merged (``merge_repeated``) and blanks removed:
    ([a SparseTensor of the decoded labels, [batch, longest]], [batch, 1] the negative sum of
    each step's largest logit)."""
    inputs = ops.convert_to_tensor(inputs)
    op = make_op("CTCGreedyDecoder", [inputs, _int32(ops.convert_to_tensor(sequence_length))],
                 {"merge_repeated": bool(merge_repeated)}, "CTCGreedyDecoder")
    return [SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])], op.outputs[3]


class _Beam:
    """A prefix in the beam search's tree: its probabilities (log) at the last step (``old_*``)
    and this one (``new_*``), ending in a blank or in its label."""

    __slots__ = ("parent", "label", "children", "old_total", "old_blank", "old_label", "new_total", "new_blank",
                 "new_label")

    def __init__(self, parent, label):
        self.parent, self.label, self.children = parent, label, {}
        self.old_total = self.old_blank = self.old_label = -np.inf
        self.new_total = self.new_blank = self.new_label = -np.inf

    def child(self, label: int) -> "_Beam":
        c = self.children.get(label)
        if c is None:
            c = self.children[label] = _Beam(self, label)
        return c

    def labels(self, merge_repeated: bool) -> list:
        out, previous, c = [], -1, self
        while c.parent is not None:
            if not merge_repeated or c.label != previous:
                out.append(c.label)
            previous, c = c.label, c.parent
        return out[::-1]


def _log_add(a: float, b: float) -> float:
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    return a + math.log1p(math.exp(b - a)) if a > b else b + math.log1p(math.exp(a - b))


class _Leaves:
    """The beam: at most ``width`` prefixes, the least probable dropped first (TensorFlow's
    top-n list). A min-heap by the probability each had when it came in, which does not
    change while it is in (a prefix is only ever reset on its way out)."""

    def __init__(self, width: int):
        self.width, self.heap, self.count = width, [], 0

    def __len__(self):
        return len(self.heap)

    def bottom(self) -> _Beam:
        return self.heap[0][2]

    def push(self, beam: _Beam) -> None:
        self.count += 1
        item = (beam.new_total, self.count, beam)
        if len(self.heap) < self.width:
            heapq.heappush(self.heap, item)
        elif beam.new_total > self.heap[0][0]:
            heapq.heapreplace(self.heap, item)

    def extract(self) -> list:
        """Every prefix, the most probable first; the beam is left empty."""
        beams = [b for _, _, b in sorted(self.heap, key=lambda item: (-item[0], item[1]))]
        self.heap = []
        return beams


def _beam_search(logits: np.ndarray, beam_width: int, top_paths: int, merge_repeated: bool):
    """TensorFlow's CTC beam search over one example's ``[time, classes]`` logits (the last
    class is the blank): the ``top_paths`` most probable label sequences and their log
    probabilities (each step's logits normalized by a softmax)."""
    blank = logits.shape[1] - 1
    root = _Beam(None, -1)
    root.new_total = root.new_blank = 0.0
    leaves = _Leaves(beam_width)
    leaves.push(root)
    for step in logits:
        step = step.astype(np.float64) - float(step.max())
        scores = step - math.log(float(np.exp(step).sum()))  # (log softmax)
        row = scores.tolist()
        branches = leaves.extract()
        for b in branches:
            b.old_total, b.old_blank, b.old_label = b.new_total, b.new_blank, b.new_label
        for b in branches:  # the prefixes in the beam, one step on
            if b.parent is not None:
                if b.parent.new_total != -np.inf:
                    previous = b.parent.old_blank if b.label == b.parent.label else b.parent.old_total
                    b.new_label = _log_add(b.new_label, previous)
                b.new_label += row[b.label]
            b.new_blank = b.old_total + row[blank]
            b.new_total = _log_add(b.new_blank, b.new_label)
            leaves.push(b)
        for b in branches:  # and each grown by one label
            if not (b.old_total > -np.inf and (len(leaves) < beam_width or b.old_total > leaves.bottom().new_total)):
                continue
            labels = range(blank)
            if len(leaves) == beam_width:
                # Only a child above the beam's least probable can enter it (and the beam's
                # least only rises); the others change nothing but a child that exists, which
                # is reset: those labels are all that need to be gone through, in order.
                grown = scores[:blank] + b.old_total
                if 0 <= b.label < blank:
                    grown[b.label] = scores[b.label] + b.old_blank
                labels = sorted(set(np.flatnonzero(grown > leaves.bottom().new_total).tolist()) | set(b.children))
            for label in labels:
                c = b.child(label)
                if c.new_total != -np.inf:
                    continue
                c.new_blank = -np.inf
                c.new_label = c.new_total = row[label] + (b.old_blank if label == b.label else b.old_total)
                if c.new_total > -np.inf and (len(leaves) < beam_width or c.new_total > leaves.bottom().new_total):
                    if len(leaves) == beam_width:
                        bottom = leaves.bottom()
                        bottom.new_total = bottom.new_blank = bottom.new_label = -np.inf
                    leaves.push(c)
                else:
                    c.old_total = c.old_blank = c.old_label = -np.inf
                    c.new_total = c.new_blank = c.new_label = -np.inf
    best = leaves.extract()
    if top_paths > len(best):
        raise errors.InvalidArgumentError(None, None, f"CTCBeamSearchDecoder: fewer prefixes in the beam ({len(best)}) "
                                          f"than top_paths ({top_paths}) requested")
    return [b.labels(merge_repeated) for b in best[:top_paths]], [b.new_total for b in best[:top_paths]]


def _beam_search_shapes(op):
    n = op.get_attr("top_paths")
    batch = op.inputs[0].shape[1].value if op.inputs[0].shape.ndims else None
    return [TensorShape([None, 2])] * n + [TensorShape([None])] * n + [TensorShape([2])] * n + \
        [TensorShape([batch, n])]


@register_op("CTCBeamSearchDecoder", shape=_beam_search_shapes,
             dtype=lambda op: [dtypes.int64] * (3 * op.get_attr("top_paths")) + [op.inputs[0].dtype.base_dtype])
def _ctc_beam_search_decoder_kernel(xp, inputs, sequence_length, *, beam_width, top_paths, merge_repeated=True):
    steps, batch, _ = inputs.shape
    lengths = np.asarray(sequence_length).reshape(-1)
    paths = [[] for _ in range(top_paths)]
    log_probs = np.zeros((batch, top_paths), inputs.dtype)
    for b in range(batch):
        length = int(lengths[b])
        if not 0 <= length <= steps:
            raise errors.InvalidArgumentError(None, None, f"CTCBeamSearchDecoder: sequence_length[{b}] = {length} is "
                                              f"not within [0, max_time = {steps}]")
        best, probs = _beam_search(np.asarray(inputs[:length, b]), beam_width, top_paths, merge_repeated)
        for p in range(top_paths):
            paths[p].append(best[p])
            log_probs[b, p] = probs[p]
    indices, values, shapes = [], [], []
    for decoded in paths:
        indices.append(np.array([[b, i] for b, seq in enumerate(decoded) for i in range(len(seq))],
                                np.int64).reshape(-1, 2))
        values.append(np.array([v for seq in decoded for v in seq], np.int64))
        shapes.append(np.array([batch, max((len(seq) for seq in decoded), default=0)], np.int64))
    return (*indices, *values, *shapes, log_probs)


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1, merge_repeated=True):
    """TensorFlow's CTC beam search over time-major logits ``[max_time, batch, classes]`` (the
    last class is the blank): ([``top_paths`` SparseTensors of decoded labels, the most
    probable first], [batch, top_paths] their log probabilities). With ``merge_repeated``
    (TF 1.x's default), equal labels next to each other in a beam are emitted once, as
    TensorFlow does."""
    inputs = ops.convert_to_tensor(inputs)
    if inputs.dtype.base_dtype not in FLOATS:
        raise TypeError(f"ctc_beam_search_decoder needs floating logits, got {inputs.dtype.name}")
    if beam_width < 1 or top_paths < 1 or top_paths > beam_width:
        raise ValueError(f"ctc_beam_search_decoder needs 1 <= top_paths <= beam_width, got top_paths={top_paths}, "
                         f"beam_width={beam_width}")
    op = make_op("CTCBeamSearchDecoder", [inputs, _int32(ops.convert_to_tensor(sequence_length))],
                 {"beam_width": int(beam_width), "top_paths": int(top_paths),
                  "merge_repeated": bool(merge_repeated)}, "CTCBeamSearchDecoder")
    n = int(top_paths)
    out = op.outputs
    return [SparseTensor(out[i], out[n + i], out[2 * n + i]) for i in range(n)], out[3 * n]


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """:func:`ctc_beam_search_decoder` without merging repeated labels (TensorFlow 2's)."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths, merge_repeated=False)


# ---------------------------------------------------------------------------
# TF 1.14+'s dense-label helpers and ctc_loss_v2


def collapse_repeated(labels, seq_length, name=None):
    """Each row of ``labels`` ([batch, max length], ``seq_length`` long) with runs of a
    repeated label merged into one, left-aligned and padded with 0; and the new lengths."""
    with ops.name_scope(name, "collapse_repeated_labels", [labels, seq_length]):
        labels = ops.convert_to_tensor(labels)
        seq_length = ops.convert_to_tensor(seq_length)
        width = array_ops.shape(labels)[1]
        changed = math_ops.not_equal(labels[:, 1:], labels[:, :-1])
        first = math_ops.cast(array_ops.ones_like(labels[:, :1]), dtypes.bool)
        kept = math_ops.logical_and(slicing_ops.concat([first, changed], 1),
                                    manip_ops.sequence_mask(seq_length, maxlen=width))
        new_length = reduction_ops.reduce_sum(cast(kept, dtypes.int32), 1)
        slots = manip_ops.sequence_mask(new_length, maxlen=reduction_ops.reduce_max(new_length))
        values = manip_ops.boolean_mask(array_ops.reshape(labels, [-1]), array_ops.reshape(kept, [-1]))
        positions = math_ops.where(array_ops.reshape(slots, [-1]))
        flat = nd_ops.scatter_nd(positions, values, cast(array_ops.shape(array_ops.reshape(slots, [-1])),
                                                             dtypes.int64))
        return array_ops.reshape(flat, array_ops.shape(slots)), new_length


def ctc_unique_labels(labels, name=None):
    """For each row of ``labels``: its distinct labels in order of first appearance (padded
    with 0 to the row's length) and, for each label, its index among them."""
    with ops.name_scope(name, "ctc_unique_labels", [labels]):
        labels = ops.convert_to_tensor(labels)
        op = make_op("CTCUniqueLabels", [labels], None, "CTCUniqueLabels")
        return op.outputs[0], op.outputs[1]


@register_op("CTCUniqueLabels", list_output=True, shape=lambda op: [op.inputs[0].shape, op.inputs[0].shape],
             dtype=lambda op: [dtypes.int64, dtypes.int32])
def _ctc_unique_labels_kernel(xp, labels):
    labels = np.asarray(labels)
    if labels.ndim != 2:
        raise errors.InvalidArgumentError(None, None, f"ctc_unique_labels: labels must be [batch, length], got "
                                                      f"shape {list(labels.shape)}")
    unique = np.zeros(labels.shape, np.int64)  # (int64, as TensorFlow's)
    index = np.zeros(labels.shape, np.int32)
    for row in range(labels.shape[0]):
        seen: dict = {}
        for k, label in enumerate(labels[row]):
            index[row, k] = seen.setdefault(label, len(seen))
        unique[row, :len(seen)] = list(seen)
    return unique, index


not_differentiable("CTCUniqueLabels")


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
                name=None):
    """``ctc_loss`` as TF 1.14+ takes it: ``labels`` dense ([batch, max label length], each
    ``label_length`` long) or a SparseTensor, ``logit_length`` frames of ``logits``, and the
    blank at ``blank_index`` (0 by default; negative counts from the end)."""
    if unique is not None:
        raise NotImplementedError("ctc_loss_v2(unique=...) is not supported by distflow; its loss is the same")
    with ops.name_scope(name, "ctc_loss_dense", [labels, logits, label_length, logit_length]):
        logits = ops.convert_to_tensor(logits)
        classes = logits.shape[-1].value
        blank = 0 if blank_index is None else int(blank_index)
        if blank < 0:
            if classes is None:
                raise ValueError("ctc_loss_v2: a negative blank_index needs the number of classes known")
            blank += classes
        if isinstance(labels, SparseTensor):
            indices, values, dense_shape = labels.indices, _int32(labels.values), labels.dense_shape
        else:
            labels = _int32(ops.convert_to_tensor(labels))
            present = manip_ops.sequence_mask(label_length, maxlen=array_ops.shape(labels)[1])
            indices = math_ops.where(present)
            values = manip_ops.boolean_mask(labels, present)
            dense_shape = cast(array_ops.shape(labels), dtypes.int64)
        # (a label may not be the blank: TensorFlow would read it as another class)
        with ops.control_dependencies([check_ops.assert_none_equal(
                values, array_ops.fill(array_ops.shape(values), blank),
                message=f"ctc_loss_v2: a label equals the blank index {blank}")]):
            values = array_ops.identity(values)
        if classes is None or blank != classes - 1:
            # (ctc_loss's blank is the last class: the classes after the blank move down one)
            logits = slicing_ops.concat([logits[..., :blank], logits[..., blank + 1:], logits[..., blank:blank + 1]],
                                        -1)
            values = values - cast(math_ops.greater(values, blank), dtypes.int32)
        return ctc_loss(SparseTensor(indices, values, dense_shape), logits, logit_length, time_major=logits_time_major)
