"""Neural-network ops (``tf.nn``): activations, softmax and losses, bias_add, dropout,
moments and batch normalization. Convolution and pooling live in conv_ops.py."""

from __future__ import annotations

import numbers

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, intra_op, math_ops, random_ops, reduction_ops, slicing_ops
from .math_ops import writable_like
from .op_util import FLOATS, NUMBERS, make_op, make_tensor



def float_input(op_type: str, x) -> ops.Tensor:
    x = ops.convert_to_tensor(x)
    if x.dtype.base_dtype not in FLOATS:
        raise TypeError(f"'{op_type}' needs a floating-point input, got {x.dtype.name} for '{x.name}'")
    return x


def real_input(op_type: str, x) -> ops.Tensor:
    """``x`` as a tensor of a real number type (floats and integers, as TF's Relu takes)."""
    x = ops.convert_to_tensor(x)
    if x.dtype.base_dtype not in NUMBERS:
        raise TypeError(f"'{op_type}' needs a real-number input, got {x.dtype.name} for '{x.name}'")
    return x


def same_shape(op):
    return op.inputs[0].shape


# ---------------------------------------------------------------------------
# Relu, Relu6, Elu, LeakyRelu


@register_op("Relu", shape=same_shape, inplace_input=0)
def _relu_kernel(xp, x, *, inplace=False):
    if intra_op.pieces(xp.ndim(x) and xp.shape(x)[0], getattr(x, "nbytes", 0)) == 1:
        return _max_zero(xp, x, writable_like(x) if inplace else None)
    out = (writable_like(x) if inplace else None)
    out = xp.empty_like(x) if out is None else out
    intra_op.run_split(x.shape[0], x.nbytes, lambda a, b: _max_zero(xp, x[a:b], out[a:b]))
    return out


_ZERO_ROW = 4096
_zero_rows: dict = {}


def _max_zero(xp, x, out=None):
    """``maximum(x, 0)``. NumPy's loop for a float array against a scalar is not vectorized
    (0.31 ns an element on the 2-core AVX-512 VM, 349 us for 1.12M floats); against an
    array of zeros it is, so a contiguous array is taken as rows of ``_ZERO_ROW`` elements
    against one row of zeros (147 us), the rest against the first zeros of that row."""
    if xp is not np or x.dtype.kind != "f" or x.size < 1024:
        return xp.maximum(x, 0, out=out)
    out = np.empty_like(x) if out is None else out
    src, dst = (x, out) if x.flags.c_contiguous else (x.T, out.T)  # (a Fortran-ordered one, as its transpose)
    if not (src.flags.c_contiguous and dst.flags.c_contiguous):
        return np.maximum(x, 0, out=out)
    zeros = _zero_rows.get(x.dtype)
    if zeros is None:
        zeros = _zero_rows[x.dtype] = np.zeros(_ZERO_ROW, x.dtype)
        zeros.flags.writeable = False
    src, dst = src.reshape(-1), dst.reshape(-1)
    whole = src.size - src.size % _ZERO_ROW
    if whole:
        np.maximum(src[:whole].reshape(-1, _ZERO_ROW), zeros, out=dst[:whole].reshape(-1, _ZERO_ROW))
    if whole < src.size:
        np.maximum(src[whole:], zeros[:src.size - whole], out=dst[whole:])
    return out


@register_op("ReluGrad", shape=same_shape, inplace_input=0)
def _relu_grad_kernel(xp, grad, y, *, inplace=False):
    if xp.shape(grad) != xp.shape(y) or intra_op.pieces(xp.ndim(grad) and xp.shape(grad)[0],
                                                        getattr(grad, "nbytes", 0)) == 1:
        return xp.multiply(grad, y > 0, out=writable_like(grad, y) if inplace else None)
    out = (writable_like(grad, y) if inplace else None)
    out = xp.empty_like(grad) if out is None else out
    intra_op.run_split(grad.shape[0], grad.nbytes, lambda a, b: xp.multiply(grad[a:b], y[a:b] > 0, out=out[a:b]))
    return out


@register_gradient("Relu")
def _relu_grad(op, grad):
    return (make_tensor("ReluGrad", [grad, op.outputs[0]], None, "ReluGrad"),)


@register_gradient("ReluGrad")
def _relu_grad_grad(op, grad):
    return make_tensor("ReluGrad", [grad, op.inputs[1]], None, "ReluGrad"), None


def relu(features, name=None) -> ops.Tensor:
    return make_tensor("Relu", [real_input("Relu", features)], None, name or "Relu")


@register_op("Relu6", shape=same_shape)
def _relu6_kernel(xp, x):
    return xp.clip(x, 0, 6)


@register_op("Relu6Grad", shape=same_shape)
def _relu6_grad_kernel(xp, grad, x):
    return grad * ((x > 0) & (x < 6))


@register_gradient("Relu6")
def _relu6_grad(op, grad):
    return (make_tensor("Relu6Grad", [grad, op.inputs[0]], None, "Relu6Grad"),)


@register_gradient("Relu6Grad")
def _relu6_grad_grad(op, grad):
    return make_tensor("Relu6Grad", [grad, op.inputs[1]], None, "Relu6Grad"), None


def relu6(features, name=None) -> ops.Tensor:
    return make_tensor("Relu6", [real_input("Relu6", features)], None, name or "Relu6")


@register_op("Elu", shape=same_shape)
def _elu_kernel(xp, x):
    # exp(x) - 1 for x < 0, as TensorFlow's kernel computes it: NumPy's exp is vectorised
    # where its expm1 is not on every machine (32x32x32x64 float32, in pieces: 5.4 against
    # 9.3 ms). The two sides are added, not picked: exp(min(x, 0)) - 1 is 0 where x > 0 and
    # max(x, 0) is 0 elsewhere, so the sum is exact, and NumPy's where mispredicts a branch
    # an element on a mask half set (8x32x32x64: 1.31 against 0.71 ms).
    def elu(part):
        out = xp.exp(xp.minimum(part, 0))
        out -= 1
        out += xp.maximum(part, 0)
        return out

    if x.ndim == 0:  # (as an array of one: NumPy's ufuncs make a 0-d array a scalar)
        return elu(x.reshape(1)).reshape(())
    return _by_rows(xp, x, elu)


@register_op("EluGrad", shape=same_shape)
def _elu_grad_kernel(xp, grad, y):
    # grad * (y + 1) where y < 0, grad where y > 0: grad * (min(y, 0) + 1), exactly, with
    # no branch an element (8x32x32x64: 1.9 against 0.26 ms).
    scale = xp.minimum(y.reshape(-1), 0)  # (a scalar as an array of one, as in the Elu kernel)
    scale += 1
    scale *= grad.reshape(-1)
    return scale.reshape(y.shape)


@register_gradient("Elu")
def _elu_grad(op, grad):
    return (make_tensor("EluGrad", [grad, op.outputs[0]], None, "EluGrad"),)


@register_gradient("EluGrad")
def _elu_grad_grad(op, grad):
    g, y = op.inputs
    negative = math_ops.less(y, 0)
    return (make_tensor("EluGrad", [grad, y], None, "EluGrad"),
            math_ops.where(negative, grad * g, array_ops.zeros_like(g)))


def elu(features, name=None) -> ops.Tensor:
    return make_tensor("Elu", [float_input("Elu", features)], None, name or "Elu")


@register_op("LeakyRelu", shape=same_shape)
def _leaky_relu_kernel(xp, x, *, alpha):
    # x where x > 0, else x * alpha: the larger of the two for alpha <= 1, the smaller above
    # (no branch an element, as in the Elu kernel).
    return xp.maximum(x, x * alpha) if alpha <= 1 else xp.minimum(x, x * alpha)


@register_op("LeakyReluGrad", shape=same_shape)
def _leaky_relu_grad_kernel(xp, grad, x, *, alpha):
    return math_ops.blend(xp, x > 0, grad, grad * alpha)


@register_gradient("LeakyRelu")
def _leaky_relu_grad(op, grad):
    return (make_tensor("LeakyReluGrad", [grad, op.inputs[0]], {"alpha": op._attr("alpha")}, "LeakyReluGrad"),)


@register_gradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op, grad):
    return (make_tensor("LeakyReluGrad", [grad, op.inputs[1]], {"alpha": op._attr("alpha")}, "LeakyReluGrad"),
            None)


def leaky_relu(features, alpha=0.2, name=None) -> ops.Tensor:
    return make_tensor("LeakyRelu", [float_input("LeakyRelu", features)], {"alpha": float(alpha)},
                       name or "LeakyRelu")


sigmoid = math_ops.sigmoid
tanh = math_ops.tanh

# ---------------------------------------------------------------------------
# Softmax, LogSoftmax


def _softmax_of(xp, x):
    e = xp.exp(x - x.max(axis=-1, keepdims=True))
    e /= e.sum(axis=-1, keepdims=True)
    return e


def _log_softmax_of(xp, x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=-1, keepdims=True))


def _by_rows(xp, x, fn):
    """``fn(rows)`` of ``x``'s rows (its last axis), by pieces of rows at once on the cores
    BLAS may use when ``x`` is large (softmax of 32768 x 64 float32: 3.5 against 6.0 ms)."""
    if xp is not np or x.ndim == 0 or x.nbytes < intra_op.MIN_BYTES:
        return fn(x)
    rows = x.reshape(-1, x.shape[-1])
    out = np.empty(rows.shape, dtype=x.dtype)

    def piece(a, b):
        out[a:b] = fn(rows[a:b])

    intra_op.run_split(rows.shape[0], x.nbytes, piece)
    return out.reshape(x.shape)


@register_op("Softmax", shape=same_shape)
def _softmax_kernel(xp, logits):
    return _by_rows(xp, logits, lambda rows: _softmax_of(xp, rows))


@register_op("LogSoftmax", shape=same_shape)
def _log_softmax_kernel(xp, logits):
    return _by_rows(xp, logits, lambda rows: _log_softmax_of(xp, rows))


@register_gradient("Softmax")
def _softmax_grad(op, grad):
    y = op.outputs[0]
    return ((grad - reduction_ops.reduce_sum(grad * y, -1, keepdims=True)) * y,)


@register_gradient("LogSoftmax")
def _log_softmax_grad(op, grad):
    return (grad - reduction_ops.reduce_sum(grad, -1, keepdims=True) * math_ops.exp(op.outputs[0]),)


def _last_axis(op_type, logits, axis, name, dim=None):
    logits = float_input(op_type, logits)
    axis = dim if axis is None else axis
    r = logits.shape.ndims
    if axis is not None and r is not None and not -r <= axis < r:
        raise errors.InvalidArgumentError(None, None, f"Dimension ({axis}) must be in the range [{-r}, {r}) where {r} "
                                                      f"is the number of dimensions in the input ('{op_type}')")
    if axis is None or axis == -1 or (r is not None and axis == r - 1):
        return make_tensor(op_type, [logits], None, name or op_type)
    moved = _swap_last(logits, axis)
    return _swap_last(make_tensor(op_type, [moved], None), axis, name=name)


def _swap_last(x, axis, name=None):
    """``x`` with ``axis`` and the last swapped (its own inverse); a rank known only when the
    step runs gives the permutation then."""
    r = x.shape.ndims
    if r is not None:
        perm = list(range(r))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        return array_ops.transpose(x, perm, name=name or "transpose")
    rank = array_ops.rank(x)
    at, last = math_ops.floormod(axis, rank), rank - 1
    dims = math_ops.range_(rank)
    perm = math_ops.where(math_ops.equal(dims, at), array_ops.fill(array_ops.reshape(rank, [1]), last),
                          math_ops.where(math_ops.equal(dims, last), array_ops.fill(array_ops.reshape(rank, [1]), at),
                                         dims))
    return array_ops.transpose(x, perm, name=name or "transpose")


def _move_last(x, axis):
    """``x`` with ``axis`` moved to the end, the other axes in their order (what a reduction
    over ``axis`` then leaves is in the order the caller knows)."""
    r = x.shape.ndims
    if r is not None:
        axis %= r
        return array_ops.transpose(x, [d for d in range(r) if d != axis] + [axis])
    rank = array_ops.rank(x)
    at = math_ops.floormod(axis, rank)
    return array_ops.transpose(x, slicing_ops.concat([math_ops.range_(at), math_ops.range_(at + 1, rank),
                                                      array_ops.reshape(at, [1])], 0))


def softmax(logits, axis=None, name=None, dim=None) -> ops.Tensor:
    return _last_axis("Softmax", logits, axis, name, dim)


def log_softmax(logits, axis=None, name=None, dim=None) -> ops.Tensor:
    return _last_axis("LogSoftmax", logits, axis, name, dim)


# ---------------------------------------------------------------------------
# Cross-entropy losses (fused: the forward pass also yields the gradient)


def _xent_shape(op):
    logits = op.inputs[0].shape
    batch = TensorShape(None) if logits.ndims is None else logits[:-1]
    return [batch, logits]


@register_op("SoftmaxCrossEntropyWithLogits", shape=_xent_shape)
def _softmax_xent_kernel(xp, logits, labels):
    log_p = _log_softmax_of(xp, logits)
    loss = -(labels * log_p).sum(axis=-1)
    backprop = xp.exp(log_p) - labels
    return loss, backprop


def _is_zero_fill(grad, output) -> bool:
    """Whether ``grad`` is the zeros the gradient machinery gave an output nothing used."""
    return grad.op.type == "ZerosLike" and grad.op.inputs[0] is output


def _through_backprop(op, grad_backprop):
    """The gradient of the logits from the one that reached the op's second output (the
    softmax minus the labels: a gradient of the gradient), through the softmax's Jacobian."""
    softmax = make_tensor("Softmax", [op.inputs[0]])
    return (grad_backprop - reduction_ops.reduce_sum(grad_backprop * softmax, -1, keepdims=True)) * softmax


@register_gradient("SoftmaxCrossEntropyWithLogits")
def _softmax_xent_grad(op, grad_loss, grad_backprop):
    g = array_ops.expand_dims(grad_loss, -1)
    logits_grad = g * op.outputs[1]
    labels_grad = g * -log_softmax(op.inputs[0])
    if not _is_zero_fill(grad_backprop, op.outputs[1]):  # (second derivatives)
        logits_grad += _through_backprop(op, grad_backprop)
        labels_grad -= grad_backprop
    return logits_grad, labels_grad


def _sparse_xent_shape(op):
    logits = op.inputs[0].shape
    batch = TensorShape(None) if logits.ndims is None else logits[:-1]
    if not batch.is_compatible_with(op.inputs[1].shape):
        raise ValueError(f"labels shape {op.inputs[1].shape} must equal logits shape {logits} "
                         "without its last dimension")
    return [batch, logits]


@register_op("SparseSoftmaxCrossEntropyWithLogits", shape=_sparse_xent_shape)
def _sparse_softmax_xent_kernel(xp, logits, labels):
    n = logits.shape[-1]
    if labels.size and (labels.min() < 0 or labels.max() >= n):
        bad = labels[(labels < 0) | (labels >= n)].reshape(-1)[0]
        raise errors.InvalidArgumentError(
            None, None, f"Received a label value of {bad} which is outside the valid range of [0, {n}).")
    flat, cols = logits.reshape(-1, n), labels.reshape(-1)
    loss = xp.empty(cols.shape, dtype=logits.dtype)
    backprop = xp.empty(flat.shape, dtype=logits.dtype)

    def rows_from(a, b):
        # One exp over the logits, the softmax by a division, and the log only where the
        # labels are: a full log-softmax and a second exp cost 1.8x as much (1120 x 1000).
        shifted = xp.subtract(flat[a:b], flat[a:b].max(axis=-1, keepdims=True), out=backprop[a:b])
        picked = shifted[xp.arange(b - a), cols[a:b]]  # (plain fancy indexing: take_along_axis costs ~20 us)
        xp.exp(shifted, out=shifted)
        total = shifted.sum(axis=-1, keepdims=True)
        shifted /= total
        xp.subtract(xp.log(total.reshape(-1)), picked, out=loss[a:b])
        shifted[xp.arange(b - a), cols[a:b]] -= 1

    # (rows in pieces on the cores BLAS may use: 1.3 against 2.3 ms for 1120 x 1000 on two)
    intra_op.run_split(flat.shape[0], flat.nbytes, rows_from)
    return loss.reshape(labels.shape), backprop.reshape(logits.shape)


@register_gradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent_grad(op, grad_loss, grad_backprop):
    logits_grad = array_ops.expand_dims(grad_loss, -1) * op.outputs[1]
    if not _is_zero_fill(grad_backprop, op.outputs[1]):  # (second derivatives)
        logits_grad += _through_backprop(op, grad_backprop)
    return logits_grad, None


def softmax_cross_entropy_with_logits_v2(labels=None, logits=None, axis=-1, name=None, dim=None) -> ops.Tensor:
    """Cross-entropy of softmax(logits) against the distributions ``labels``, per example.

    Gradients flow into ``labels`` too (the v1 function stops them).
    """
    if labels is None or logits is None:
        raise ValueError("Both labels= and logits= must be given (by keyword)")
    axis = dim if dim is not None else axis
    logits = float_input("SoftmaxCrossEntropyWithLogits", logits)
    labels = ops.convert_to_tensor(labels)
    if labels.dtype.base_dtype != logits.dtype.base_dtype:  # (as TF: float64 one-hot labels of float32 logits)
        labels = math_ops.cast(labels, logits.dtype.base_dtype)
    if axis not in (-1, None) and (logits.shape.ndims is None or axis != logits.shape.ndims - 1):
        logits, labels = _move_last(logits, axis), _move_last(labels, axis)
    ranks = logits.shape.ndims, labels.shape.ndims
    if None not in ranks and ranks[0] != ranks[1] and logits.shape[-1:].is_compatible_with(labels.shape[-1:]):
        # (TF 1.x made matrices of both, their outer dimensions flattened: labels of another rank, with
        # as many rows, are taken so; a reshape that fails at run time says how many values came)
        labels = array_ops.reshape(labels, array_ops.shape(logits))
    if not logits.shape.is_compatible_with(labels.shape):
        raise ValueError(f"logits and labels must have the same shape, got {logits.shape} and {labels.shape}")
    op = make_op("SoftmaxCrossEntropyWithLogits", [logits, labels], None,
                 name or "softmax_cross_entropy_with_logits")
    return op.outputs[0]


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    """TF 1.x's version: no gradient flows into ``labels``."""
    if _sentinel is not None:
        raise ValueError("Pass labels= and logits= by keyword")
    if labels is not None:
        labels = array_ops.stop_gradient(labels)
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                axis=dim if axis is None else axis, name=name)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None) -> ops.Tensor:
    """Cross-entropy of softmax(logits) against integer class ``labels``, per example."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Pass labels= and logits= by keyword")
    logits = float_input("SparseSoftmaxCrossEntropyWithLogits", logits)
    labels = ops.convert_to_tensor(labels)
    if labels.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"labels must be int32 or int64, got {labels.dtype.name}")
    if logits.shape.ndims is not None and labels.shape.ndims is not None \
            and labels.shape.ndims != logits.shape.ndims - 1:
        raise ValueError(f"Rank mismatch: Rank of labels (received {labels.shape.ndims}) should equal rank "
                         f"of logits minus 1 (received {logits.shape.ndims}).")
    op = make_op("SparseSoftmaxCrossEntropyWithLogits", [logits, labels], None,
                 name or "SparseSoftmaxCrossEntropyWithLogits")
    return op.outputs[0]


# ---------------------------------------------------------------------------
# BiasAdd, L2Loss


def _bias_add_shape(op):
    value, bias = op.inputs
    if value.shape.ndims is not None and value.shape.ndims < 2:
        raise ValueError(f"BiasAdd: the value must be at least rank 2 but is rank {value.shape.ndims} ({value.shape})")
    if value.shape.ndims is not None and bias.shape.ndims is not None:
        if bias.shape.ndims != 1:
            raise ValueError(f"bias must be 1-D, got shape {bias.shape}")
        if not value.shape[-1].is_compatible_with(bias.shape[0]):
            raise ValueError(f"Dimensions must be equal, but are {value.shape[-1]} and {bias.shape[0]}")
    return value.shape


@register_op("BiasAdd", shape=_bias_add_shape, inplace_input=0)
def _bias_add_kernel(xp, value, bias, *, inplace=False):
    return xp.add(value, bias, out=writable_like(value, bias) if inplace else None)


@register_op("BiasAddGrad", shape=lambda op: op.inputs[0].shape[-1:] if op.inputs[0].shape.ndims else TensorShape(None))
def _bias_add_grad_kernel(xp, grad):
    return array_ops.sum_leading_axes(xp, grad, grad.ndim - 1)


@register_gradient("BiasAdd")
def _bias_add_grad(op, grad):
    return grad, make_tensor("BiasAddGrad", [grad], None, "BiasAddGrad")


@register_gradient("BiasAddGrad")
def _bias_add_grad_grad(op, grad):
    return (array_ops.broadcast_to(grad, array_ops.shape_of(op.inputs[0])),)


def bias_add(value, bias, data_format=None, name=None) -> ops.Tensor:
    """``value + bias`` along the channels: the last dimension, or the second with NCHW."""
    if data_format not in (None, "NHWC", "N...C", "NCHW", "NC..."):
        raise ValueError(f"bias_add: data_format must be NHWC or NCHW, got {data_format!r}")
    value = real_input("BiasAdd", value)  # (every real type, integers too, as TF)
    bias = ops.convert_to_tensor(bias, dtype=value.dtype.base_dtype)
    if data_format in ("NCHW", "NC..."):
        if value.shape.ndims is None or value.shape.ndims < 2:
            raise ValueError(f"bias_add with {data_format} needs a value of known rank >= 2, got {value.shape}")
        with ops.name_scope(name, "BiasAdd", [value, bias]) as scope:
            channels = array_ops.reshape(bias, [-1] + [1] * (value.shape.ndims - 2))
            return math_ops.add(value, channels, name=scope or None)
    return make_tensor("BiasAdd", [value, bias], None, name or "BiasAdd")


@register_op("L2Loss", shape=lambda op: TensorShape([]))
def _l2_loss_kernel(xp, t):
    flat = t.reshape(-1)
    return xp.dot(flat, flat) / 2


@register_gradient("L2Loss")
def _l2_loss_grad(op, grad):
    return (op.inputs[0] * grad,)


def l2_loss(t, name=None) -> ops.Tensor:
    """sum(t ** 2) / 2."""
    return make_tensor("L2Loss", [float_input("L2Loss", t)], None, name or "L2Loss")


# ---------------------------------------------------------------------------
# Composites: dropout, moments, batch_normalization


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None) -> ops.Tensor:
    """Zeroes each element with probability ``rate`` (= 1 - keep_prob), scaling the rest.

    ``keep_prob`` (TF 1.x) or ``rate`` may be a float or a scalar tensor.
    """
    if (keep_prob is None) == (rate is None):
        raise ValueError("Pass exactly one of keep_prob and rate")
    with ops.name_scope(name, "dropout", [x]) as scope:
        x = float_input("dropout", x)
        if rate is not None:
            keep = 1.0 - rate if isinstance(rate, numbers.Real) else math_ops.subtract(1.0, rate)
        else:
            keep = keep_prob
        if isinstance(keep, numbers.Real):
            if not 0 < keep <= 1:
                raise ValueError(f"keep probability must be in (0, 1], got {keep}")
            if keep == 1:
                return array_ops.identity(x, name=scope)
        keep_t = ops.convert_to_tensor(keep, dtype=x.dtype.base_dtype, name="keep_prob")
        shape = array_ops.shape_of(x) if noise_shape is None else noise_shape
        noise = random_ops.random_uniform(shape, seed=seed, dtype=x.dtype.base_dtype)
        mask = math_ops.floor(keep_t + noise)
        out = math_ops.multiply(math_ops.divide(x, keep_t), mask, name=scope)
        out.set_shape(x.shape)  # (the noise broadcasts to x: x's shape, whatever the graph knows of noise_shape)
        return out


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """Mean and variance of ``x`` over ``axes``."""
    keep = bool(keep_dims if keep_dims is not None else keepdims)
    with ops.name_scope(name, "moments", [x]):
        x = float_input("moments", x)
        dtype = x.dtype.base_dtype
        if dtype == dtypes.float16:  # (in float32, as TF: float16's range is too small for the sums)
            x = math_ops.cast(x, dtypes.float32)
        mean = reduction_ops.reduce_mean(x, axes, keepdims=True, name="mean")
        variance = reduction_ops.reduce_mean(math_ops.squared_difference(x, array_ops.stop_gradient(mean)),
                                        axes, keepdims=True, name="variance")
        if not keep:
            mean = array_ops.squeeze(mean, list(axes))
            variance = array_ops.squeeze(variance, list(axes))
        if dtype == dtypes.float16:
            mean, variance = math_ops.cast(mean, dtype), math_ops.cast(variance, dtype)
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None) -> ops.Tensor:
    """(x - mean) / sqrt(variance + epsilon) * scale + offset (offset and scale may be None)."""
    with ops.name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * scale
        shift = -mean * inv if offset is None else offset - mean * inv
        return x * inv + shift


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None, variance_epsilon=None,
                                         scale_after_normalization=None, name=None, input=None, mean=None,  # noqa: A002
                                         variance=None):
    """TF's old batch normalization: gamma is used only with ``scale_after_normalization``."""
    t = input if t is None else t
    m = mean if m is None else m
    v = variance if v is None else v
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                                      variance_epsilon, name=name)
