"""More of ``tf.nn``: top-k and in-top-k, softplus, sigmoid and weighted cross-entropy,
xw_plus_b, l2_normalize, local response normalization and embedding lookup."""

from __future__ import annotations

import collections

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, clip_ops, math_ops, reduction_ops, segment_ops, slicing_ops
from .nn_ops import float_input, same_shape, batch_normalization, bias_add, elu, moments, relu
from .op_util import constant_value, make_op, make_tensor
from .partitioned_variables import PartitionedVariable
from .sparse_ops import sparse_reshape
from .special_math_ops import div_no_nan

# ---------------------------------------------------------------------------
# NthElement


def _nth_element_shape(op):
    x, n = op.inputs
    n_value = constant_value(n)
    if x.shape.ndims is None:
        return TensorShape(None)
    dims = x.shape.as_list()
    if not dims:
        raise ValueError(f"NthElement: input must be at least rank 1 but is rank 0 (shape {x.shape})")
    if n_value is not None and dims[-1] is not None and int(n_value) >= dims[-1]:
        raise ValueError(f"NthElement: input must have last dimension > n = {int(n_value)} but is {dims[-1]} "
                         f"(shape {x.shape})")
    return TensorShape(dims[:-1])


@register_op("NthElement", shape=_nth_element_shape, dtype=lambda op: op.inputs[0].dtype.base_dtype)
def _nth_element_kernel(xp, x, n, *, reverse=False):
    n = int(n)
    if x.ndim < 1:
        raise errors.InvalidArgumentError(None, None, f"Input must be >= 1-D, got shape {list(x.shape)}")
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"Need n >= 0, got {n}")
    if n >= x.shape[-1]:
        raise errors.InvalidArgumentError(None, None, f"Input must have at least n+1 columns, got {x.shape[-1]} "
                                                      f"for n = {n}")
    k = x.shape[-1] - 1 - n if reverse else n
    return xp.partition(x, k, axis=-1)[..., k]


@register_gradient("NthElement")
def _nth_element_grad(op, grad):
    # The gradient goes to the entries equal to the chosen value, shared equally among them.
    x, value = op.inputs[0], op.outputs[0]
    hits = math_ops.cast(math_ops.equal(x, array_ops.expand_dims(value, -1)), grad.dtype.base_dtype)
    share = hits / reduction_ops.reduce_sum(hits, -1, keepdims=True)
    return share * array_ops.expand_dims(grad, -1), None


def nth_element(input, n, reverse=False, name=None):  # noqa: A002
    """The ``n``-th smallest value (from 0; the ``n``-th largest with ``reverse``) of the last
    axis: ``tf.contrib.nn.nth_element``."""
    x = ops.convert_to_tensor(input)
    n = ops.convert_to_tensor(n, dtype=dtypes.int32)
    if n.shape.ndims not in (None, 0):
        raise ValueError(f"nth_element: n must be a scalar but has rank {n.shape.ndims}")
    n_value = constant_value(n)
    if n_value is not None and int(n_value) < 0:
        raise ValueError(f"nth_element: n must be non-negative but is {int(n_value)}")
    return make_tensor("NthElement", [x, n], {"reverse": bool(reverse)}, name or "NthElement")


# ---------------------------------------------------------------------------
# TopKV2, InTopKV2


def _top_k_shape(op):
    x, k = op.inputs
    k_value = constant_value(k)
    if x.shape.ndims is None:
        return [TensorShape(None)] * 2
    dims = x.shape.as_list()
    if not dims:
        raise ValueError(f"input must be at least 1-D (top_k of its last dimension), got shape {x.shape}")
    if k_value is not None and int(k_value) < 0:
        raise ValueError(f"Need k >= 0, got {int(k_value)}")
    if k_value is not None and dims[-1] is not None and int(k_value) > dims[-1]:
        raise ValueError(f"input must have last dimension >= k = {int(k_value)} but is {dims[-1]} (shape {x.shape})")
    shape = TensorShape(dims[:-1] + [None if k_value is None else int(k_value)])
    return [shape, shape]


@register_op("TopKV2", shape=_top_k_shape, list_output=True,
             dtype=lambda op: [op.inputs[0].dtype.base_dtype, dtypes.int32])
def _top_k_kernel(xp, x, k, *, sorted=True):  # noqa: A002 - TF's attr name
    k = int(k)
    if k < 0:
        raise errors.InvalidArgumentError(None, None, f"Need k >= 0, got {k}")
    if x.ndim < 1 or k > x.shape[-1]:
        raise errors.InvalidArgumentError(None, None, f"input must have last dimension >= k = {k} but is "
                                                      f"{x.shape[-1] if x.ndim else 'a scalar'} (shape "
                                                      f"{list(x.shape)})")
    # A stable sort of the negated values: equal values keep their index order, as in TF,
    # where NaN counts as the largest value.
    keys = -x
    if x.dtype.kind == "f" and (xp is not np or np.isnan(x).any()):  # (no wait for a device's answer)
        keys = xp.where(xp.isnan(x), -np.inf, keys)
    order = xp.argsort(keys, axis=-1, kind="stable")[..., :k]
    if xp is np:  # (rows picked by one fancy index: take_along_axis costs some 5 us more)
        rows = x.reshape(-1, x.shape[-1])
        picked = rows[np.arange(len(rows))[:, None], order.reshape(len(rows), k)].reshape(order.shape)
        return picked, order.astype(np.int32)
    return xp.take_along_axis(x, order, axis=-1), order.astype(np.int32)


@register_gradient("TopKV2")
def _top_k_grad(op, grad, _indices_grad):
    x = op.inputs[0]
    # Scatter each row's k gradients back to the positions they came from.
    depth = array_ops.shape(x)[-1]
    one_hot = array_ops.one_hot(op.outputs[1], depth, dtype=grad.dtype.base_dtype)
    return reduction_ops.reduce_sum(one_hot * array_ops.expand_dims(grad, -1), axis=-2), None


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002
    """The ``k`` largest entries of the last axis and their indices (ties: lower index first),
    as TF's named pair (``values``, ``indices``)."""
    x = ops.convert_to_tensor(input)
    op = make_op("TopKV2", [x, ops.convert_to_tensor(k, dtype=dtypes.int32)], {"sorted": bool(sorted)},
                 name or "TopKV2")
    return TopKV2(op.outputs[0], op.outputs[1])


@register_op("InTopKV2", shape=lambda op: op.inputs[1].shape, dtype=lambda op: dtypes.bool)
def _in_top_k_kernel(xp, predictions, targets, k):
    k = int(k)
    n, classes = predictions.shape
    valid = (targets >= 0) & (targets < classes)
    target_pred = predictions[np.arange(n), np.where(valid, targets, 0)]
    # A target is in the top k when fewer than k classes score strictly higher: classes tied
    # at the boundary all count as in, as in TensorFlow. A row with a non-finite score says
    # nothing (False), as TF's kernel.
    higher = (predictions > target_pred[:, None]).sum(axis=1)
    return valid & np.isfinite(predictions).all(axis=1) & (higher < k)


not_differentiable("InTopKV2")


def in_top_k(predictions, targets, k, name=None) -> ops.Tensor:
    """Whether each ``targets[i]`` is among the ``k`` highest ``predictions[i]`` (bool, [batch])."""
    predictions = ops.convert_to_tensor(predictions)
    if predictions.dtype.base_dtype != dtypes.float32:
        raise TypeError(f"in_top_k expects float32 predictions, got {predictions.dtype.name}")
    targets = ops.convert_to_tensor(targets)
    if targets.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"in_top_k expects int32 or int64 targets, got {targets.dtype.name}")
    if predictions.shape.ndims not in (None, 2):
        raise ValueError(f"predictions must be 2-D, got shape {predictions.shape}")
    if targets.shape.ndims not in (None, 1):
        raise ValueError(f"targets must be 1-D, got shape {targets.shape}")
    return make_tensor("InTopKV2", [predictions, targets, ops.convert_to_tensor(k, dtype=targets.dtype)],
                       None, name or "InTopKV2")


# ---------------------------------------------------------------------------
# Softplus, Softsign


@register_op("Softplus", shape=same_shape)
def _softplus_kernel(xp, x):
    # max(x, 0) + log1p(exp(-|x|)): no overflow, within 3 ulp of float64's, and every pass
    # vectorised, where NumPy's logaddexp is not (8x32x32x64 float32: 10.6 against 0.76 ms).
    flat = x.reshape(-1)  # (a scalar as an array of one: NumPy's ufuncs make a 0-d one a scalar)
    out = xp.abs(flat)
    xp.negative(out, out=out)
    xp.exp(out, out=out)
    xp.log1p(out, out=out)
    out += xp.maximum(flat, 0)
    return out.reshape(x.shape)


@register_op("SoftplusGrad", shape=same_shape)
def _softplus_grad_kernel(xp, grad, x):
    return (grad / (1 + xp.exp(-x))).astype(grad.dtype, copy=False)


@register_gradient("Softplus")
def _softplus_grad(op, grad):
    return (make_tensor("SoftplusGrad", [grad, op.inputs[0]], None, "SoftplusGrad"),)


@register_gradient("SoftplusGrad")
def _softplus_grad_grad(op, grad):
    g, x = op.inputs
    s = math_ops.sigmoid(x)
    return grad * s, grad * g * s * (1 - s)


def softplus(features, name=None) -> ops.Tensor:
    """log(1 + exp(features)), computed without overflow."""
    return make_tensor("Softplus", [float_input("Softplus", features)], None, name or "Softplus")


def softsign(features, name=None) -> ops.Tensor:
    """features / (1 + |features|)."""
    with ops.name_scope(name, "Softsign", [features]):
        x = float_input("Softsign", features)
        return x / (1 + math_ops.abs(x))


# ---------------------------------------------------------------------------
# Composite losses and layers


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None) -> ops.Tensor:
    """Element-wise logistic loss: max(x, 0) - x * z + log(1 + exp(-|x|))."""
    _named_only("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = float_input("sigmoid_cross_entropy_with_logits", logits)
        labels = ops.convert_to_tensor(labels, dtype=logits.dtype.base_dtype)
        _same_static_shape(labels, logits)
        # Selected, not max/abs: at logits == 0 the gradient is then sigmoid(0) - labels, as in TF.
        zeros = array_ops.zeros_like(logits)
        positive = math_ops.greater_equal(logits, zeros)
        relu_logits = math_ops.where(positive, logits, zeros)
        neg_abs_logits = math_ops.where(positive, -logits, logits)
        return math_ops.add(relu_logits - logits * labels, math_ops.log1p(math_ops.exp(neg_abs_logits)), name=scope)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None, targets=None):
    """Logistic loss with the positive term weighted: (1 - z) x + (1 + (q - 1) z) log(1 + exp(-x))."""
    labels = targets if labels is None else labels
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = float_input("weighted_cross_entropy_with_logits", logits)
        labels = ops.convert_to_tensor(labels, dtype=logits.dtype.base_dtype)
        _same_static_shape(labels, logits)
        log_weight = 1 + (pos_weight - 1) * labels
        return math_ops.add((1 - labels) * logits,
                            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits))) + relu(-logits)),
                            name=scope)


def _named_only(fn: str, sentinel, labels, logits) -> None:
    if sentinel is not None:
        raise ValueError(f"Only call `{fn}` with named arguments (labels=..., logits=..., ...)")
    if labels is None or logits is None:
        raise ValueError(f"{fn} needs both labels and logits")


def _same_static_shape(labels, logits) -> None:
    if not labels.shape.is_compatible_with(logits.shape):
        raise ValueError(f"logits and labels must have the same shape ({logits.shape} vs {labels.shape})")


def xw_plus_b(x, weights, biases, name=None) -> ops.Tensor:
    """matmul(x, weights) + biases."""
    with ops.name_scope(name, "xw_plus_b", [x, weights, biases]):
        return bias_add(math_ops.matmul(x, weights), biases)


def relu_layer(x, weights, biases, name=None) -> ops.Tensor:
    """relu(matmul(x, weights) + biases)."""
    with ops.name_scope(name, "relu_layer", [x, weights, biases]):
        return relu(xw_plus_b(x, weights, biases))


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None) -> ops.Tensor:
    """x / sqrt(max(sum(x ** 2, axis), epsilon))."""
    axis = dim if axis is None else axis
    with ops.name_scope(name, "l2_normalize", [x]):
        x = ops.convert_to_tensor(x)
        square_sum = reduction_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        return math_ops.multiply(x, math_ops.rsqrt(math_ops.maximum(square_sum, epsilon)))


def zero_fraction(value, name=None) -> ops.Tensor:
    """The fraction of zeros in ``value`` (float32 scalar)."""
    with ops.name_scope(name, "zero_fraction", [value]):
        value = ops.convert_to_tensor(value)
        zero = math_ops.cast(math_ops.equal(value, array_ops.zeros_like(value)), dtypes.float32)
        return reduction_ops.reduce_mean(zero)


# ---------------------------------------------------------------------------
# LRN (local response normalization across the last axis)


def _window_sum(xp, x, radius: int):
    """Sum over [d - radius, d + radius] of the last axis, clipped at the edges: a product
    with the band matrix of ones, which BLAS runs on all its threads (1.9 ms for
    32x32x32x64 float32, where a float64 running sum and its differences took 28 ms)."""
    d = x.shape[-1]
    band = np.abs(np.arange(d)[:, None] - np.arange(d)[None, :]) <= radius
    if x.dtype in (np.float32, np.float64):
        return (x.reshape(-1, d) @ band.astype(x.dtype)).reshape(x.shape)
    return (x.astype(np.float32).reshape(-1, d) @ band.astype(np.float32)).reshape(x.shape).astype(x.dtype)


@register_op("LRN", shape=same_shape)
def _lrn_kernel(xp, x, *, depth_radius, bias, alpha, beta):
    norm = bias + alpha * _window_sum(xp, x * x, depth_radius)
    return (x * norm ** -beta).astype(x.dtype, copy=False)


@register_op("LRNGrad", shape=same_shape)
def _lrn_grad_kernel(xp, grad, x, y, *, depth_radius, bias, alpha, beta):
    # y = x N^-beta with N = bias + alpha * window_sum(x^2); the windows are symmetric, so
    # dx = g N^-beta - 2 alpha beta x window_sum(g y / N).
    norm = bias + alpha * _window_sum(xp, x * x, depth_radius)
    dx = grad * norm ** -beta - 2 * alpha * beta * x * _window_sum(xp, grad * y / norm, depth_radius)
    return dx.astype(grad.dtype, copy=False)


not_differentiable("LRNGrad")


@register_gradient("LRN")
def _lrn_grad(op, grad):
    attrs = {k: op._attr(k) for k in ("depth_radius", "bias", "alpha", "beta")}
    return (make_tensor("LRNGrad", [grad, op.inputs[0], op.outputs[0]], attrs, "LRNGrad"),)


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):  # noqa: A002
    """input / (bias + alpha * sum of squares over a window of the last axis) ** beta."""
    x = float_input("LRN", input)
    if x.shape.ndims not in (None, 4):
        raise ValueError(f"LRN needs a 4-D input, got shape {x.shape}")
    attrs = {"depth_radius": int(depth_radius), "bias": float(bias), "alpha": float(alpha), "beta": float(beta)}
    return make_tensor("LRN", [x], attrs, name or "LRN")


lrn = local_response_normalization


# ---------------------------------------------------------------------------
# embedding_lookup


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None) -> ops.Tensor:
    """Rows of ``params`` (one tensor or variable, or a list of shards of one, or a
    PartitionedVariable: its parts) for ``ids``.

    With several shards, ``partition_strategy`` says which shard holds id ``i``: "mod"
    (shard ``i % n``, row ``i // n``) or "div" (contiguous blocks, the first
    ``vocabulary % n`` shards one row longer), as in TensorFlow.
    """
    if isinstance(params, (list, tuple, PartitionedVariable)):
        params = list(params)
    else:
        params = [params]
    if not params:
        raise ValueError("Need at least one param")
    params = [p if isinstance(p, ops.Tensor) or hasattr(p, "_as_graph_element") else ops.convert_to_tensor(p)
              for p in params]  # (arrays as constants; variables as they are, for their sparse gradients)
    with ops.name_scope(name, "embedding_lookup", params + [ids]):
        ids = ops.convert_to_tensor(ids)
        if ids.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"embedding_lookup ids must be int32 or int64, got {ids.dtype.name}")
        if len(params) == 1:
            return _clip_rows(slicing_ops.gather(params[0], ids), ids, max_norm)
        return _sharded_lookup(params, ids, partition_strategy, max_norm)


def _sharded_lookup(params, ids, partition_strategy, max_norm):
    """TF's lookup in shards: the ids split by shard (dynamic_partition), each shard's rows
    gathered (so each shard's gradient has only its own rows), and stitched back in order."""
    n = len(params)
    flat_ids = array_ops.reshape(ids, [-1])
    dtype = flat_ids.dtype.base_dtype
    if partition_strategy == "mod":
        shard_of = flat_ids % n
        new_ids = flat_ids // n
    elif partition_strategy == "div":  # (the first `total % n` shards one row longer; sizes known or not)
        total = math_ops.add_n([math_ops.cast(array_ops.shape(p)[0], dtype) for p in params])
        per_shard, extras = total // n, total % n
        shard_of = math_ops.maximum(flat_ids // (per_shard + 1), (flat_ids - extras) // per_shard)
        new_ids = math_ops.where(math_ops.less(shard_of, extras), flat_ids % (per_shard + 1),
                                 (flat_ids - extras) % per_shard)
    else:
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}")
    shard_of = math_ops.cast(shard_of, dtypes.int32)
    shard_ids = segment_ops.dynamic_partition(new_ids, shard_of, n)
    positions = segment_ops.dynamic_partition(math_ops.range_(array_ops.size(flat_ids)), shard_of, n)
    rows = [_clip_rows(slicing_ops.gather(shard, shard_ids[i]), shard_ids[i], max_norm)
            for i, shard in enumerate(params)]
    stitched = segment_ops.dynamic_stitch(positions, rows)
    element_shape = params[0].shape[1:]
    for shard in params[1:]:
        element_shape = element_shape.merge_with(shard.shape[1:])
    if element_shape.is_fully_defined():
        result = array_ops.reshape(stitched, slicing_ops.concat([array_ops.shape(ids), element_shape.as_list()], 0))
    else:
        result = array_ops.reshape(stitched, slicing_ops.concat([array_ops.shape(ids),
                                                                 array_ops.shape(params[0])[1:]], 0))
    result.set_shape(ids.shape.concatenate(element_shape))
    return result


def _clip_rows(rows, ids, max_norm):
    """``rows`` (gathered for ``ids``) each clipped to ``max_norm`` over its embedding's axes
    (all but the ids'; none for scalar embeddings)."""
    if max_norm is None:
        return rows
    ids_rank, rows_rank = ids.shape.ndims, rows.shape.ndims
    if ids_rank is not None and rows_rank is not None:
        axes = list(range(ids_rank, rows_rank))
    else:
        axes = math_ops.range_(array_ops.rank(ids), array_ops.rank(rows))
    return clip_ops.clip_by_norm(rows, max_norm, axes=axes)


# ---------------------------------------------------------------------------
# Activations and statistics built from the basic ops


def selu(features, name=None) -> ops.Tensor:
    """scale * elu(x, alpha) with TF's constants (self-normalizing networks)."""
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    with ops.name_scope(name, "Selu", [features]):
        x = float_input("Selu", features)
        return scale * math_ops.where(math_ops.greater_equal(x, 0), x, alpha * elu(x))  # (slope scale at 0, as TF)


def swish(features, beta=1.0, name=None) -> ops.Tensor:
    """x * sigmoid(beta * x) (also called SiLU)."""
    with ops.name_scope(name, "swish", [features]):
        x = float_input("swish", features)
        return x * math_ops.sigmoid(beta * x)


silu = swish


def crelu(features, name=None, axis=-1) -> ops.Tensor:
    """relu of x and of -x, concatenated along ``axis``."""
    with ops.name_scope(name, "CRelu", [features]):
        x = float_input("CRelu", features)
        return relu(slicing_ops.concat([x, -x], axis))


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None) -> ops.Tensor:
    """exp(log_input) - log_input * targets (plus Stirling's term for targets > 1 when full)."""
    with ops.name_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = float_input("log_poisson_loss", log_input)
        targets = ops.convert_to_tensor(targets, dtype=log_input.dtype.base_dtype)
        loss = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            safe = math_ops.maximum(targets, 1)
            stirling = safe * math_ops.log(safe) - safe + 0.5 * math_ops.log(2 * np.pi * safe)
            loss = loss + math_ops.where(math_ops.greater(targets, 1), stirling, array_ops.zeros_like(targets))
        return loss


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """(count, sum of x, sum of x^2, shift) over ``axes``: what normalize_moments turns into moments."""
    keep = bool(keep_dims if keep_dims is not None else keepdims)
    with ops.name_scope(name, "sufficient_statistics", [x, shift]):
        x = ops.convert_to_tensor(x)
        counts = math_ops.cast(reduction_ops.reduce_prod(slicing_ops.gather(array_ops.shape(x), list(axes))),
                               x.dtype.base_dtype)
        shifted = x if shift is None else x - shift
        return (counts, reduction_ops.reduce_sum(shifted, axes, keepdims=keep),
                reduction_ops.reduce_sum(math_ops.square(shifted), axes, keepdims=keep), shift)


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics."""
    with ops.name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = 1.0 / counts
        shifted_mean = mean_ss * divisor
        mean = shifted_mean if shift is None else shifted_mean + shift
        variance = variance_ss * divisor - math_ops.square(shifted_mean)
        return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """The mean and variance of ``x`` over ``axes``, each entry weighted by ``frequency_weights``."""
    keep = bool(keep_dims if keep_dims is not None else keepdims)
    with ops.name_scope(name, "weighted_moments", [x, frequency_weights]):
        x = ops.convert_to_tensor(x)
        dtype = x.dtype.base_dtype
        if dtype == dtypes.float16:  # (in float32, as TF: float16's range is too small for the sums)
            x = math_ops.cast(x, dtypes.float32)
        w = math_ops.cast(frequency_weights, x.dtype.base_dtype) * array_ops.ones_like(x)
        total = reduction_ops.reduce_sum(w, axes, keepdims=True)
        mean = reduction_ops.reduce_sum(w * x, axes, keepdims=True) / total
        variance = reduction_ops.reduce_sum(w * math_ops.square(x - mean), axes, keepdims=True) / total
        if not keep:
            mean = array_ops.squeeze(mean, list(axes))
            variance = array_ops.squeeze(variance, list(axes))
        return math_ops.cast(mean, dtype), math_ops.cast(variance, dtype)


def fused_moving_variance(variance, inputs, axes, channel_axes, fused, fused_ranks=(4,)):
    """The variance a batch normalization layer folds into its moving variance: TF 1.x's
    layers run the fused kernel where they can (``fused`` None or True, 4-D inputs, the
    channels on axis 1 or 3; contrib's own batch norm also 2-D ones, ``fused_ranks``), and
    it gives the batch variance Bessel's correction there, n / (n - 1) for the n values per
    channel; elsewhere the biased variance."""
    rank = inputs.shape.ndims
    if fused is False or rank not in fused_ranks or len(channel_axes) != 1 or \
            (rank == 4 and channel_axes[0] % rank not in (1, 3)):
        return variance
    dtype = variance.dtype.base_dtype
    count = math_ops.cast(reduction_ops.reduce_prod(slicing_ops.gather(array_ops.shape(inputs), list(axes))), dtype)
    return variance * count / math_ops.maximum(count - 1.0, 1.0)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None, exponential_avg_factor=1.0):
    """(y, mean, variance) normalizing 4-D ``x`` per channel. Training, it normalizes by the
    batch's moments and returns the batch mean and its variance with Bessel's correction
    (n / (n - 1)), as TensorFlow's kernel returns them for the moving averages; with an
    ``exponential_avg_factor`` f other than 1 it returns the moving averages themselves,
    ``(1 - f) * mean + f * batch_mean`` (and so the variance). Otherwise it normalizes by
    the given ``mean`` and ``variance`` and returns them.

    A float16 ``x`` takes float32 ``scale``, ``offset``, ``mean`` and ``variance`` (as TF's
    FusedBatchNormV2): it is normalized in float32, ``y`` is float16 and the moments float32."""
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"fused_batch_norm: data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    with ops.name_scope(name, "FusedBatchNorm", [x, scale, offset]):
        x = float_input("FusedBatchNorm", x)
        if x.shape.ndims not in (None, 4):
            raise ValueError(f"fused_batch_norm: x must be 4-D, got shape {x.shape}")
        x_dtype = x.dtype.base_dtype
        if x_dtype == dtypes.float16:  # (the parameters and moments in float32)
            x = math_ops.cast(x, dtypes.float32)
            scale, offset = (_float32_parameter(v) for v in (scale, offset))
            mean, variance = (None if v is None else _float32_parameter(v) for v in (mean, variance))
        dtype = x.dtype.base_dtype
        scale, offset = (ops.convert_to_tensor(v, dtype=dtype) for v in (scale, offset))
        channels_first = data_format == "NCHW"
        if channels_first:
            x = array_ops.transpose(x, [0, 2, 3, 1])
        if is_training:
            batch_mean, batch_variance = moments(x, [0, 1, 2])
            count = math_ops.cast(array_ops.size(x) // array_ops.size(batch_mean), dtype)
            unbiased = batch_variance * count / math_ops.maximum(count - 1, 1)
            f = exponential_avg_factor
            if f == 1.0:
                mean, variance = batch_mean, unbiased
            elif mean is None or variance is None:
                raise ValueError(f"fused_batch_norm needs mean and variance (the moving averages) when "
                                 f"exponential_avg_factor is {f}, not 1")
            else:
                mean, variance = ((1.0 - f) * ops.convert_to_tensor(old, dtype=dtype) + f * new
                                  for old, new in ((mean, batch_mean), (variance, unbiased)))
        elif mean is None or variance is None:
            raise ValueError("fused_batch_norm needs mean and variance when is_training is False")
        else:
            mean, variance = (ops.convert_to_tensor(v, dtype=dtype) for v in (mean, variance))
            batch_mean, batch_variance = mean, variance
        y = batch_normalization(x, batch_mean, batch_variance, offset, scale, epsilon)
        if x_dtype != dtype:
            y = math_ops.cast(y, x_dtype)
        return (array_ops.transpose(y, [0, 3, 1, 2]) if channels_first else y), mean, variance


def _float32_parameter(value):
    """A parameter of a float16 batch norm, float32 (a float16 one is widened)."""
    value = ops.convert_to_tensor(value, preferred_dtype=dtypes.float32)
    return math_ops.cast(value, dtypes.float32) if value.dtype.base_dtype == dtypes.float16 else \
        ops.convert_to_tensor(value, dtype=dtypes.float32)


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None, combiner="mean",
                            max_norm=None):
    """One combined embedding per row of the SparseTensor ``sp_ids`` ([batch, ids per row]):
    the rows' embeddings, weighted by ``sp_weights`` (or 1), combined by "sum", "mean" (divided
    by the weights' sum) or "sqrtn" (divided by the root of their sum of squares)."""
    if combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")
    with ops.name_scope(name, "embedding_lookup_sparse"):
        segment_ids = math_ops.cast(slicing_ops.gather(array_ops.transpose(sp_ids.indices), 0), dtypes.int32)
        unique_ids, position = segment_ops.unique(sp_ids.values)
        rows = slicing_ops.gather(embedding_lookup(params, unique_ids, partition_strategy, max_norm=max_norm),
                                  position)
        weights = None if sp_weights is None else math_ops.cast(sp_weights.values, rows.dtype.base_dtype)
        return _combined(rows, weights, combiner, lambda data: segment_ops.segment_sum(data, segment_ids))


def _combined(embedded, weights, combiner, segment_sum):
    """The rows of ``embedded`` times ``weights`` (None: each 1), summed per segment by
    ``segment_sum``; for "mean" divided by the weights' sum, for "sqrtn" by the root of the sum
    of their squares (0 where a segment has none)."""
    if weights is not None:
        embedded = embedded * _per_row(weights, embedded)
    total = segment_sum(embedded)
    if combiner == "sum":
        return total
    if weights is None:
        weights = array_ops.ones(array_ops.shape(embedded)[:1], embedded.dtype.base_dtype)
    norm = segment_sum(weights if combiner == "mean" else math_ops.square(weights))
    return div_no_nan(total, _per_row(norm if combiner == "mean" else math_ops.sqrt(norm), total))


def _per_row(values, like):
    """A vector of one value per row of ``like``, shaped to broadcast over the rest of each row
    (embeddings of any rank: [n, 1] for [n, d], [n, 1, 1] for [n, d1, d2])."""
    rank = like.shape.ndims
    if rank is not None:
        return array_ops.reshape(values, [-1] + [1] * (rank - 1))
    ones = array_ops.ones(array_ops.reshape(array_ops.rank(like) - 1, [1]), dtypes.int32)
    return array_ops.reshape(values, slicing_ops.concat([[-1], ones], 0))


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, name=None, partition_strategy="div", max_norm=None):
    """``embedding_lookup_sparse`` that drops negative ids (and non-positive weights), gives rows
    with no ids the ``default_id`` embedding (zeros when None), and keeps the batch's shape."""
    if combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")
    with ops.name_scope(name, "embedding_lookup"):
        if sparse_ids.dense_shape.shape.ndims == 1 and sparse_ids.dense_shape.shape[0].value == 2:
            # ([batch, k] ids are looked up as they are, with no reshapes)
            return _rows_of_kept_ids(embedding_weights, sparse_ids, sparse_weights, combiner, default_id,
                                     partition_strategy, max_norm)
        rank = array_ops.size(sparse_ids.dense_shape)
        outer = slicing_ops.slice(sparse_ids.dense_shape, [0], [rank - 1])
        flat_shape = array_ops.stack([reduction_ops.reduce_prod(outer), sparse_ids.dense_shape[rank - 1]])
        sparse_ids = sparse_reshape(sparse_ids, flat_shape)
        if sparse_weights is not None:
            sparse_weights = sparse_reshape(sparse_weights, flat_shape)
        result = _rows_of_kept_ids(embedding_weights, sparse_ids, sparse_weights, combiner, default_id,
                                   partition_strategy, max_norm)
        return array_ops.reshape(result, slicing_ops.concat([math_ops.cast(outer, dtypes.int32),
                                                             array_ops.shape(result)[1:]], 0))


def _rows_of_kept_ids(params, sparse_ids, sparse_weights, combiner, default_id, partition_strategy, max_norm):
    """Per row of [batch, k] ids, the kept ids' (>= 0, of weight > 0) embeddings combined; a row
    with none is the ``default_id`` row (0 when None)."""
    keep = math_ops.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        keep = math_ops.logical_and(keep, math_ops.greater(sparse_weights.values, 0))
    kept = array_ops.reshape(math_ops.where(keep), [-1])
    rows = slicing_ops.gather(sparse_ids.indices[:, 0], kept)
    embedded = embedding_lookup(params, slicing_ops.gather(sparse_ids.values, kept), partition_strategy,
                                max_norm=max_norm)
    batch = sparse_ids.dense_shape[0]
    dtype = embedded.dtype.base_dtype
    weights = None if sparse_weights is None else math_ops.cast(slicing_ops.gather(sparse_weights.values, kept), dtype)
    result = _combined(embedded, weights, combiner, lambda data: segment_ops.unsorted_segment_sum(data, rows, batch))
    if default_id is None:
        return result
    ids_a_row = segment_ops.unsorted_segment_sum(array_ops.ones(array_ops.shape(rows), dtype), rows, batch)
    empty = math_ops.equal(ids_a_row, 0)
    default = embedding_lookup(params, ops.convert_to_tensor([default_id], dtype=sparse_ids.values.dtype.base_dtype),
                               partition_strategy, max_norm=max_norm)
    return result + array_ops.expand_dims(math_ops.cast(empty, dtype), 1) * default


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), without overflow."""
    with ops.name_scope(name, "LogSigmoid", [x]):
        return -softplus(-ops.convert_to_tensor(x))
