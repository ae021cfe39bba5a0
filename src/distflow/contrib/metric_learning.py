"""``tf.contrib.losses.metric_learning``: losses that pull the embeddings of one class
together and push those of different classes apart, as TF 1.x's (FaceNet's semi-hard
triplets, lifted structure, N-pairs, the contrastive loss), built of graph ops (their
gradients are the ops')."""

from __future__ import annotations

from ..framework import dtypes, ops
from ..ops import array_ops, manip_ops, math_ops, nn_ops, reduction_ops, script_ops


def pairwise_distance(feature, squared=False):
    """The [n, n] Euclidean distances between the rows of ``feature`` (their squares with
    ``squared``): from the norms and one product, negatives of rounding set to 0, the
    diagonal exactly 0 (a square root's gradient at 0 is kept finite)."""
    feature = ops.convert_to_tensor(feature, name="feature")
    norms = reduction_ops.reduce_sum(math_ops.square(feature), axis=[1], keepdims=True)
    squares = norms + array_ops.transpose(norms) - 2.0 * math_ops.matmul(feature, feature, transpose_b=True)
    squares = math_ops.maximum(squares, 0.0)
    zero = math_ops.cast(math_ops.less_equal(squares, 0.0), feature.dtype)
    distances = squares if squared else math_ops.sqrt(squares + zero * 1e-16)
    distances = distances * (1.0 - zero)
    off_diagonal = array_ops.ones_like(distances) - manip_ops.diag(array_ops.ones([array_ops.shape(feature)[0]],
                                                                                    dtype=feature.dtype))
    return distances * off_diagonal


def contrastive_loss(labels, embeddings_anchor, embeddings_positive, margin=1.0):
    """Mean over pairs of d^2 for pairs labelled 1 and max(margin - d, 0)^2 for pairs labelled 0."""
    distances = math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(embeddings_anchor - embeddings_positive), 1))
    same = math_ops.cast(labels, distances.dtype)
    return reduction_ops.reduce_mean(same * math_ops.square(distances) + (1.0 - same) * math_ops.square(
        math_ops.maximum(margin - distances, 0.0)), name="contrastive_loss")


def masked_maximum(data, mask, dim=1):
    """The largest of ``data``'s values where ``mask`` is 1 along ``dim`` (kept); with no such
    value, the smallest of all."""
    lowest = reduction_ops.reduce_min(data, dim, keepdims=True)
    return reduction_ops.reduce_max((data - lowest) * mask, dim, keepdims=True) + lowest


def masked_minimum(data, mask, dim=1):
    """The smallest of ``data``'s values where ``mask`` is 1 along ``dim`` (kept); with no such
    value, the largest of all."""
    highest = reduction_ops.reduce_max(data, dim, keepdims=True)
    return reduction_ops.reduce_min((data - highest) * mask, dim, keepdims=True) + highest


def _same_label(labels):
    labels = ops.convert_to_tensor(labels)
    if labels.shape.ndims is not None and labels.shape.ndims != 1:
        raise ValueError(f"labels must be a vector ([batch_size]), got shape {labels.shape}")
    column = array_ops.reshape(labels, [-1, 1])
    return math_ops.equal(column, array_ops.transpose(column)), array_ops.size(labels)


def triplet_semihard_loss(labels, embeddings, margin=1.0):
    """FaceNet's triplet loss over every anchor and positive of the batch (same label, not
    the same example), each with its semi-hard negative: the closest negative farther than
    the positive, or the farthest negative where none is. The mean over those pairs of
    ``max(margin + d(a, p)^2 - d(a, n)^2, 0)``."""
    distances = pairwise_distance(embeddings, squared=True)
    adjacency, batch = _same_label(labels)
    negative = math_ops.logical_not(adjacency)
    # row a * batch + p holds d(a, n) for every n; a negative farther than the positive is kept
    tiled = array_ops.tile(distances, [batch, 1])
    farther = math_ops.logical_and(array_ops.tile(negative, [batch, 1]),
                                   math_ops.greater(tiled, array_ops.reshape(array_ops.transpose(distances), [-1, 1])))
    has_farther = array_ops.transpose(array_ops.reshape(
        math_ops.greater(reduction_ops.reduce_sum(math_ops.cast(farther, dtypes.float32), 1, keepdims=True), 0.0),
        [batch, batch]))
    negative = math_ops.cast(negative, distances.dtype)
    outside = array_ops.transpose(array_ops.reshape(masked_minimum(tiled, math_ops.cast(farther, distances.dtype)),
                                                    [batch, batch]))
    inside = array_ops.tile(masked_maximum(distances, negative), [1, batch])
    semi_hard = math_ops.where(has_farther, outside, inside)
    losses = margin + distances - semi_hard
    positives = math_ops.cast(adjacency, distances.dtype) - manip_ops.diag(array_ops.ones([batch], distances.dtype))
    return math_ops.truediv(reduction_ops.reduce_sum(math_ops.maximum(losses * positives, 0.0)),
                            reduction_ops.reduce_sum(positives), name="triplet_semihard_loss")


def lifted_struct_loss(labels, embeddings, margin=1.0):
    """The lifted structured loss (Oh Song et al.): for each positive pair, the log-sum-exp of
    the margins to both members' negatives plus their distance, squared where positive;
    ``1/4`` of the sum over the pairs, over the number of pairs."""
    distances = pairwise_distance(embeddings)
    adjacency, batch = _same_label(labels)
    diff = margin - distances
    mask = math_ops.cast(math_ops.logical_not(adjacency), distances.dtype)
    lowest = reduction_ops.reduce_min(diff, 1, keepdims=True)
    negative_max = reduction_ops.reduce_max((diff - lowest) * mask, 1, keepdims=True) + lowest
    largest = math_ops.maximum(negative_max, array_ops.transpose(negative_max))  # (a stable log-sum-exp)
    exps = reduction_ops.reduce_sum(
        math_ops.exp(array_ops.tile(diff, [batch, 1]) - array_ops.reshape(array_ops.transpose(largest), [-1, 1]))
        * array_ops.tile(mask, [batch, 1]), 1, keepdims=True)
    exps = array_ops.reshape(exps, [batch, batch])
    losses = largest + math_ops.log(exps + array_ops.transpose(exps)) + distances
    positives = math_ops.cast(adjacency, distances.dtype) - manip_ops.diag(array_ops.ones([batch], distances.dtype))
    pairs = reduction_ops.reduce_sum(positives) / 2.0
    return math_ops.truediv(0.25 * reduction_ops.reduce_sum(math_ops.square(math_ops.maximum(losses * positives, 0.0))),
                            pairs, name="liftedstruct_loss")


def npairs_loss(labels, embeddings_anchor, embeddings_positive, reg_lambda=0.002, print_losses=False):
    """N-pairs (Sohn): softmax cross-entropy of each anchor's similarities to all positives
    against its own class's positives (spread evenly), plus ``reg_lambda / 4`` of both
    embeddings' mean squared norms; ``print_losses`` prints both parts each time it runs."""
    reg = reduction_ops.reduce_mean(reduction_ops.reduce_sum(math_ops.square(embeddings_anchor), 1)) + \
        reduction_ops.reduce_mean(reduction_ops.reduce_sum(math_ops.square(embeddings_positive), 1))
    l2loss = math_ops.multiply(0.25 * reg_lambda, reg, name="l2loss")
    similarity = math_ops.matmul(embeddings_anchor, embeddings_positive, transpose_b=True)
    adjacency, _ = _same_label(labels)
    targets = math_ops.cast(adjacency, similarity.dtype)
    targets = targets / reduction_ops.reduce_sum(targets, 1, keepdims=True)
    xent = reduction_ops.reduce_mean(nn_ops.softmax_cross_entropy_with_logits(logits=similarity, labels=targets),
                                     name="xentropy")
    if print_losses:
        xent = script_ops.Print(xent, ["cross entropy:", xent, "l2loss:", l2loss])
    return l2loss + xent
