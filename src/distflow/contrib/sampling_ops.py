"""``tf.contrib.training.rejection_sample`` and ``stratified_sample``: queue-based batches that
keep each example with a probability, by a function of it or so that classes come out in
given proportions (TF 1.x's class-rebalancing input pipelines)."""

from __future__ import annotations

from ..data.experimental import acceptance_probabilities
from ..framework import dtypes, ops
from ..ops import (array_ops, check_ops, math_ops, random_ops, reduction_ops, script_ops, slicing_ops,
                   state_ops, variable_scope as vs)
from ..ops.control_flow_ops import with_dependencies
from ..ops.control_flow_v2 import cond
from ..train.input import batch
from ..train.training_extras import maybe_batch


def _as_list(batched):
    return batched if isinstance(batched, list) else [batched]


def rejection_sample(tensors, accept_prob_fn, batch_size, queue_threads=1, enqueue_many=False, prebatch_capacity=16,
                     prebatch_threads=1, runtime_checks=False, name=None):
    """Batches of ``tensors`` (one example, or with ``enqueue_many`` a batch of them) where
    each example is kept with probability ``accept_prob_fn(example's tensors)``."""
    with vs.variable_scope(name, "rejection_sample", tensors):
        examples = [ops.convert_to_tensor(t) for t in tensors]
        if enqueue_many:  # (one example at a time through a queue)
            examples = [array_ops.squeeze(x, [0]) for x in _as_list(
                batch(examples, 1, num_threads=prebatch_threads, capacity=prebatch_capacity, enqueue_many=True))]
        probability = accept_prob_fn(examples)
        if runtime_checks:
            probability = array_ops.identity(with_dependencies(
                [check_ops.assert_less_equal(0.0, probability), check_ops.assert_less_equal(probability, 1.0)],
                probability), name="prob_with_checks")
        kept = maybe_batch(examples, keep_input=random_ops.random_uniform([]) < probability, batch_size=batch_size,
                           num_threads=queue_threads)
        return _as_list(kept)


def stratified_sample(tensors, labels, target_probs, batch_size, init_probs=None, enqueue_many=False,
                      queue_capacity=16, threads_per_queue=1, name=None):
    """``(batch of tensors, batch of labels)`` whose classes (``labels``: int, per example)
    come out in the proportions ``target_probs``, examples of over-represented classes being
    dropped. The classes' shares in the input are ``init_probs``, or counted as examples come
    (from 10 per class)."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"stratified_sample: tensors must be a list of tensors, got {tensors!r}")
    with ops.name_scope(name, "stratified_sample", list(tensors) + [labels]):
        examples = [ops.convert_to_tensor(t) for t in tensors]
        labels = ops.convert_to_tensor(labels)
        target = ops.convert_to_tensor(target_probs, dtype=dtypes.float32)
        if not enqueue_many:
            examples = [array_ops.expand_dims(t, 0) for t in examples]
            labels = array_ops.expand_dims(labels, 0)
        if init_probs is None:
            if not target.shape.is_fully_defined():
                raise ValueError(f"stratified_sample: target_probs must have a known shape to estimate the input's "
                                 f"class shares, got {target.shape}")
            initial = _estimated_shares(labels, target.shape.num_elements())
        else:
            initial = ops.convert_to_tensor(init_probs, dtype=dtypes.float32)
        examples, labels, (initial, target) = _checked(examples, labels, [initial, target])
        valid = check_ops.Assert(
            reduction_ops.reduce_all(math_ops.logical_or(math_ops.not_equal(initial, 0),
                                                         math_ops.equal(target, 0))),
            ["All classes with zero initial probability must also have zero target probability: ", initial, target])
        accept = acceptance_probabilities(with_dependencies([valid], initial), target)
        rejected = reduction_ops.reduce_sum((1 - accept) * initial)
        accept = cond(math_ops.less(rejected, 0.5), lambda: accept,
                      lambda: script_ops.Print(accept, [accept], "Proportion of examples rejected by sampler is high.",
                                               first_n=10))
        singles = _as_list(batch(examples + [labels], 1, num_threads=threads_per_queue, capacity=queue_capacity,
                                 enqueue_many=True))
        values = [array_ops.squeeze(x, [0]) for x in singles[:-1]]
        label = array_ops.squeeze(singles[-1], [0])
        kept = _as_list(maybe_batch(values + [label], random_ops.random_uniform([]) < slicing_ops.gather(accept, label),
                                    batch_size, num_threads=threads_per_queue))
        return kept[:-1], kept[-1]


def _checked(examples, labels, distributions):
    """The inputs, checked now where their shapes tell (a ValueError) and when they run: labels
    [batch] of ints in [0, classes), examples [batch, ...], distributions of one length,
    non-negative and summing to 1."""
    checked = []
    for probs in distributions:
        if not probs.shape.is_fully_defined() or probs.shape.ndims != 1:
            raise ValueError(f"stratified_sample: class probabilities must be a vector of known length, got shape "
                             f"{probs.shape}")
        total = reduction_ops.reduce_sum(probs)
        checked.append(with_dependencies([check_ops.assert_non_negative(probs),
                                          check_ops.assert_less(total, 1.0 + 1e-6),
                                          check_ops.assert_less(1.0 - 1e-6, total)], probs))
    classes = checked[0].shape.num_elements()
    if any(p.shape.num_elements() != classes for p in checked):
        raise ValueError("Probability parameters must have the same length.")
    if not labels.dtype.is_integer:
        raise ValueError(f"stratified_sample: labels must be integers, got {labels.dtype.name}")
    if labels.shape.ndims != 1:
        raise ValueError(f"stratified_sample: labels must have only a batch dimension, got shape {labels.shape}")
    for t in examples:
        if t.shape.ndims is not None and t.shape.ndims < 1:
            raise ValueError(f"stratified_sample: each tensor must have a batch dimension, got shape {t.shape}")
        if t.shape.ndims is not None:
            t.shape[0].assert_is_compatible_with(labels.shape[0])
    labels = with_dependencies([check_ops.assert_positive(array_ops.shape(labels)[0]),
                                check_ops.assert_non_negative(labels),
                                check_ops.assert_less(labels, math_ops.cast(classes, labels.dtype))], labels)
    return examples, labels, checked


def _estimated_shares(labels, num_classes, smoothing_constant=10):
    """The classes' shares among the labels seen so far, counted in a variable from
    ``smoothing_constant`` each."""
    counts = state_ops.Variable(ops.convert_to_tensor([smoothing_constant] * num_classes, dtype=dtypes.int64),
                                trainable=False, name="class_count")
    counts = state_ops.assign_add(counts, reduction_ops.reduce_sum(
        array_ops.one_hot(labels, num_classes, dtype=dtypes.int64), 0))
    return math_ops.cast(counts, dtypes.float32) / math_ops.cast(reduction_ops.reduce_sum(counts), dtypes.float32)
