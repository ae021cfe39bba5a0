"""``tf.contrib.nn``: variants of ``tf.nn``'s ops that TF 1.x kept in contrib.

``nth_element``, ``alpha_dropout`` (SELU networks' dropout), ``scaled_softplus``, the
sampled softmax losses for one true class (``sampled_sparse_softmax_loss``) and with TF's
adaptive rank resampling (``rank_sampled_softmax_loss``), the cross-entropies with their
arguments in the old order (``deprecated_flipped_*``), and ``conv1d_transpose``.
"""

from __future__ import annotations

import numbers

from .._namespace import missing
from ..framework import dtypes, ops
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, math_ops, nn_impl, nn_ops, random_ops, segment_ops, slicing_ops
from ..ops.candidate_sampling_ops import _sampled_logits, learned_unigram_candidate_sampler, sampled_softmax_loss
from ..ops import convolution_ops
from ..ops.nn_impl import nth_element  # noqa: F401
from ..ops.op_util import constant_value

__getattr__ = missing("tf.contrib.nn")

_SELU_ALPHA_PRIME = -1.7580993408473766  # (-scale * alpha of SELU: where a dropped unit goes)


def conv1d_transpose(value, filter, output_shape, stride, padding="SAME", data_format="NWC",  # noqa: A002
                     name=None):
    """TF 1.x contrib's conv1d_transpose (``stride`` an int): ``tf.nn.conv1d_transpose``."""
    return convolution_ops.conv1d_transpose(value, filter, output_shape, stride, padding=padding,
                                            data_format=data_format, name=name)


def alpha_dropout(x, keep_prob, noise_shape=None, seed=None, name=None):
    """Dropout that keeps a SELU network's activations at zero mean and unit variance:
    dropped units are set to SELU's negative saturation value, then an affine map restores
    the mean and variance (Klambauer et al., 2017)."""
    with ops.name_scope(name, "alpha_dropout", [x]):
        x = ops.convert_to_tensor(x, name="x")
        if isinstance(keep_prob, numbers.Real) and not 0 < keep_prob <= 1:
            raise ValueError(f"keep_prob must be a scalar tensor or a float in the range (0, 1], got {keep_prob:g}")
        keep_prob = ops.convert_to_tensor(keep_prob, dtype=x.dtype.base_dtype, name="keep_prob")
        if not keep_prob.shape.is_compatible_with(TensorShape([])):
            raise ValueError(f"alpha_dropout: keep_prob must be a scalar, got shape {keep_prob.shape}")
        if constant_value(keep_prob) == 1:
            return x
        shape = noise_shape if noise_shape is not None else array_ops.shape(x)
        uniform = random_ops.random_uniform(shape, seed=seed, dtype=x.dtype.base_dtype)
        kept = math_ops.cast(math_ops.greater_equal(uniform, 1 - keep_prob), x.dtype.base_dtype)
        x = x * kept + _SELU_ALPHA_PRIME * (1 - kept)
        a = (keep_prob + keep_prob * (1 - keep_prob) * _SELU_ALPHA_PRIME ** 2) ** -0.5
        return a * x - a * _SELU_ALPHA_PRIME * (1 - keep_prob)


def scaled_softplus(x, alpha, clip=None, name=None):
    """``alpha * log(1 + exp(x / alpha))``, at most ``clip`` if given: a smooth ReLU (ReLU6
    with ``clip=6``) as ``alpha`` goes to 0."""
    with ops.name_scope(name, "scaled_softplus", [x, alpha] + ([clip] if clip is not None else [])):
        x = ops.convert_to_tensor(x, name="x")
        alpha = ops.convert_to_tensor(alpha, dtype=x.dtype.base_dtype, name="alpha")
        y = alpha * nn_impl.softplus(x / alpha)
        if clip is not None:
            y = math_ops.minimum(y, ops.convert_to_tensor(clip, dtype=x.dtype.base_dtype, name="clip"))
        return y


def sampled_sparse_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, sampled_values=None,
                                remove_accidental_hits=True, partition_strategy="mod",
                                name="sampled_sparse_softmax_loss"):
    """``sampled_softmax_loss`` for one true class per example (``labels`` [batch, 1]), as
    a sparse softmax cross-entropy over the true logit and the sampled ones."""
    with ops.name_scope(name, "sampled_sparse_softmax_loss", [weights, biases, labels, inputs]):
        logits, _ = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, 1, sampled_values,
                                    True, remove_accidental_hits, partition_strategy)
        # (the true logit is column 0)
        zeros = array_ops.zeros(array_ops.shape(logits)[:1], dtype=dtypes.int64)
        return nn_ops.sparse_softmax_cross_entropy_with_logits(labels=zeros, logits=logits)


def rank_sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_resampled, num_classes, num_true,
                              sampled_values, resampling_temperature, remove_accidental_hits, partition_strategy,
                              name=None):
    """``sampled_softmax_loss`` over the ``num_resampled`` of ``num_sampled`` candidates
    whose classes score highest over the whole batch (``log sum_j exp(logit_ij / T)``, with
    ``T`` the ``resampling_temperature``): TF's adaptive rank resampling."""
    if num_sampled > num_classes:
        raise ValueError(f"num_sampled ({num_sampled}) cannot be greater than num_classes ({num_classes})")
    if num_sampled <= num_resampled:
        raise ValueError(f"num_resampled ({num_resampled}) must be less than num_sampled ({num_sampled})")
    if partition_strategy not in ("div", "mod"):
        raise ValueError(f"unsupported partition_strategy ({partition_strategy})")
    with ops.name_scope(name, "rank_sampled_softmax_loss",
                        [weights, biases, labels, inputs, resampling_temperature]) as scope:
        if not sampled_values:
            sampled_values = learned_unigram_candidate_sampler(labels, num_true, num_sampled, True, num_classes)
        sampled, true_expected, sampled_expected = (array_ops.stop_gradient(v) for v in sampled_values)
        sampled = math_ops.cast(sampled, dtypes.int64)
        scaled_inputs = ops.convert_to_tensor(inputs) / resampling_temperature
        embeddings = nn_impl.embedding_lookup(weights, sampled, partition_strategy=partition_strategy)
        scores = segment_ops.reduce_logsumexp(math_ops.matmul(embeddings, scaled_inputs, transpose_b=True), axis=1)
        scores += array_ops.reshape(nn_impl.embedding_lookup(biases, sampled, partition_strategy=partition_strategy),
                                    [-1]) / resampling_temperature
        _, chosen = nn_impl.top_k(scores, k=num_resampled, sorted=False)
        resampled = (slicing_ops.gather(sampled, chosen), true_expected, slicing_ops.gather(sampled_expected, chosen))
        return sampled_softmax_loss(weights, biases, labels, inputs, num_resampled, num_classes, num_true,
                                    resampled, remove_accidental_hits, partition_strategy, name=scope)


def deprecated_flipped_softmax_cross_entropy_with_logits(logits, labels, dim=-1, name=None):
    """``tf.nn.softmax_cross_entropy_with_logits`` with TF 0.x's argument order (logits first)."""
    return nn_ops.softmax_cross_entropy_with_logits(labels=labels, logits=logits, dim=dim, name=name)


def deprecated_flipped_sparse_softmax_cross_entropy_with_logits(logits, labels, name=None):
    """``tf.nn.sparse_softmax_cross_entropy_with_logits`` with TF 0.x's argument order."""
    return nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name=name)


def deprecated_flipped_sigmoid_cross_entropy_with_logits(logits, targets, name=None):
    """``tf.nn.sigmoid_cross_entropy_with_logits`` with TF 0.x's arguments (logits, targets)."""
    return nn_impl.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits, name=name)
