"""``tf.nn``'s candidate samplers (log-uniform, uniform, learned and fixed unigram, all) with
``compute_accidental_hits``, and the losses built on them: ``nce_loss`` and
``sampled_softmax_loss``."""

from __future__ import annotations

import math

import numpy as np

from ..framework import dtypes, ops
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, math_ops, nn_impl, nn_ops, reduction_ops, slicing_ops
from .op_util import make_op
from .random_ops import seeded_generator, seed_attrs


# ---------------------------------------------------------------------------
# Candidate samplers


def _expected_counts(probs, num_tries, unique):
    if unique:
        return -np.expm1(num_tries * np.log1p(-np.minimum(probs, 1 - 1e-12)))
    return probs * num_tries


def _log_uniform_probs(classes, range_max):
    classes = np.asarray(classes, dtype=np.float64)
    return (np.log(classes + 2.0) - np.log(classes + 1.0)) / math.log(range_max + 1.0)


@register_op("CandidateSampler", list_output=True,
             shape=lambda op: [TensorShape([op._attr("num_sampled")]), op.inputs[0].shape,
                               TensorShape([op._attr("num_sampled")])],
             dtype=lambda op: [dtypes.int64, dtypes.float32, dtypes.float32], stateful=True)
def _candidate_sampler_kernel(ctx, true_classes, *, kind, num_sampled, unique, range_max, seed, seed2, unigrams):
    gen = seeded_generator(ctx, seed, seed2)
    if kind == "all":
        ones = np.ones(num_sampled, np.float32)
        return np.arange(num_sampled, dtype=np.int64), np.ones(np.shape(true_classes), np.float32), ones
    if kind == "log_uniform":
        probs = _log_uniform_probs(np.arange(range_max), range_max)
    elif kind == "fixed_unigram":
        probs = np.asarray(unigrams, np.float64) / np.sum(unigrams)
    elif kind == "learned_unigram":  # every class starts at weight 1, +1 each time it is a true class
        counts = ctx.state.setdefault("counts", np.ones(range_max))
        np.add.at(counts, np.clip(np.asarray(true_classes).reshape(-1), 0, range_max - 1), 1.0)
        probs = counts / counts.sum()
    else:
        probs = np.full(range_max, 1.0 / range_max)
    if unique:
        if num_sampled > range_max:
            raise ValueError(f"num_sampled ({num_sampled}) must be <= range_max ({range_max}) with unique")
        picked, tries = [], 0
        seen = set()
        while len(picked) < num_sampled:
            draw = int(gen.choice(range_max, p=probs))
            tries += 1
            if draw not in seen:
                seen.add(draw)
                picked.append(draw)
        sampled = np.array(picked, dtype=np.int64)
    else:
        sampled = gen.choice(range_max, size=num_sampled, p=probs).astype(np.int64)
        tries = num_sampled
    true_probs = probs[np.clip(np.asarray(true_classes), 0, range_max - 1)]
    return (sampled, _expected_counts(true_probs, tries, unique).astype(np.float32),
            _expected_counts(probs[sampled], tries, unique).astype(np.float32))


not_differentiable("CandidateSampler")


def _sampler(kind, true_classes, num_true, num_sampled, unique, range_max, seed, name, unigrams=()):
    true_classes = ops.convert_to_tensor(true_classes, dtype=dtypes.int64)
    attrs = {"kind": kind, "num_sampled": int(num_sampled), "unique": bool(unique), "range_max": int(range_max),
             "unigrams": [float(u) for u in unigrams], **seed_attrs(seed)}
    return tuple(make_op("CandidateSampler", [true_classes], attrs, name or f"{kind}_candidate_sampler").outputs)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Classes drawn from the Zipfian P(k) = log((k + 2) / (k + 1)) / log(range_max + 1).

    Returns (sampled_candidates, true_expected_count, sampled_expected_count), as TF.
    """
    return _sampler("log_uniform", true_classes, num_true, num_sampled, unique, range_max, seed, name)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    return _sampler("uniform", true_classes, num_true, num_sampled, unique, range_max, seed, name)


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class in [0, num_sampled) as the candidates (for evaluating a sampled loss exactly)."""
    return _sampler("all", true_classes, num_true, num_sampled, True, num_sampled, seed, name)


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Classes drawn in proportion to 1 + how often each has been a true class so far."""
    return _sampler("learned_unigram", true_classes, num_true, num_sampled, unique, range_max, seed, name)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None):
    """Classes drawn in proportion to ``unigrams`` (or the counts in the last CSV column of
    ``vocab_file``) raised to ``distortion``; the first ``num_reserved_ids`` ids are never drawn."""
    if vocab_file:
        with open(vocab_file) as f:
            unigrams = [float(line.rstrip("\n").split(",")[-1]) for line in f if line.strip()]
    weights = [0.0] * int(num_reserved_ids) + [float(u) ** distortion for u in unigrams]
    if len(weights) != range_max:
        raise ValueError(f"fixed_unigram_candidate_sampler: {len(weights)} weights (num_reserved_ids plus unigrams) "
                         f"for range_max {range_max}")
    if num_shards > 1:
        weights = [w if i % num_shards == shard else 0.0 for i, w in enumerate(weights)]
    return _sampler("fixed_unigram", true_classes, num_true, num_sampled, unique, range_max, seed, name, weights)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """(row indices, column ids, -FLT_MAX weights) for each sampled candidate equal to a true class."""
    with ops.name_scope(name, "ComputeAccidentalHits", [true_classes, sampled_candidates]):
        true_classes = ops.convert_to_tensor(true_classes, dtype=dtypes.int64)
        sampled = ops.convert_to_tensor(sampled_candidates, dtype=dtypes.int64)
        hits = reduction_ops.reduce_any(math_ops.equal(array_ops.expand_dims(true_classes, 2),
                                                  array_ops.reshape(sampled, [1, 1, -1])), axis=1)
        where = math_ops.where(hits)
        indices = math_ops.cast(where[:, 0], dtypes.int32)
        ids = math_ops.cast(where[:, 1], dtypes.int64)
        weights = array_ops.fill(array_ops.shape(indices), np.float32(-np.finfo(np.float32).max))
        return indices, ids, weights


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                    subtract_log_q, remove_accidental_hits, partition_strategy, seed=None):
    labels = math_ops.cast(ops.convert_to_tensor(labels), dtypes.int64)
    if labels.shape.ndims == 1:
        labels = array_ops.expand_dims(labels, -1)
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed=seed)
    sampled, true_expected, sampled_expected = (array_ops.stop_gradient(v) for v in sampled_values)
    sampled = math_ops.cast(sampled, dtypes.int64)  # (a sampler's int32 ids too, as TF)
    inputs = ops.convert_to_tensor(inputs)
    flat_labels = array_ops.reshape(labels, [-1])
    all_ids = slicing_ops.concat([flat_labels, sampled], 0)
    all_w = nn_impl.embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
    all_b = nn_impl.embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
    n_true = array_ops.size(flat_labels)
    true_w = all_w[:n_true]
    sampled_w = all_w[n_true:]
    dim = array_ops.shape(true_w)[1:2]
    true_w = array_ops.reshape(true_w, slicing_ops.concat([[-1, num_true], dim], 0))
    true_logits = reduction_ops.reduce_sum(array_ops.expand_dims(inputs, 1) * true_w, -1) + \
        array_ops.reshape(all_b[:n_true], [-1, num_true])
    sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True) + all_b[n_true:]
    if remove_accidental_hits:  # a sampled "negative" that is a true class must not be pushed down
        hit = reduction_ops.reduce_any(math_ops.equal(array_ops.expand_dims(labels, 2),
                                                 array_ops.reshape(sampled, [1, 1, -1])), axis=1)
        sampled_logits = math_ops.where(hit, sampled_logits - 1e9 * array_ops.ones_like(sampled_logits),
                                        sampled_logits)
    if subtract_log_q:
        true_logits -= math_ops.log(true_expected)
        sampled_logits -= math_ops.log(sampled_expected)
    logits = slicing_ops.concat([true_logits, sampled_logits], 1)
    targets = slicing_ops.concat([array_ops.ones_like(true_logits) / num_true, array_ops.zeros_like(sampled_logits)], 1)
    return logits, targets


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, partition_strategy="mod", name="nce_loss"):
    """Noise-contrastive estimation loss per example (word2vec's), with log-uniform negatives by default."""
    with ops.name_scope(name, "nce_loss", [weights, biases, labels, inputs]):
        logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                          sampled_values, True, remove_accidental_hits, partition_strategy)
        losses = nn_impl.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
        return reduction_ops.reduce_sum(losses, 1)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
                         remove_accidental_hits=True, partition_strategy="mod", name="sampled_softmax_loss", seed=None):
    """Softmax cross-entropy over the true class and ``num_sampled`` sampled ones, per example."""
    with ops.name_scope(name, "sampled_softmax_loss", [weights, biases, labels, inputs]):
        logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                          sampled_values, True, remove_accidental_hits, partition_strategy, seed)
        return nn_ops.softmax_cross_entropy_with_logits_v2(labels=array_ops.stop_gradient(targets), logits=logits)
