"""The math, linear algebra, random and initializer functions that TF 1.13-1.15 added under
``tf.math``, ``tf.linalg``, ``tf.random`` and ``tf.initializers``, built from the ops (so
their gradients are the ops')."""

from __future__ import annotations


from ..framework import dtypes, ops
from . import array_ops, init_ops, linalg_ops, manip_ops, math_ops, random_ops, reduction_ops


def _pair(x, y):
    x = ops.convert_to_tensor(x)
    return x, ops.convert_to_tensor(y, dtype=x.dtype.base_dtype)


def multiply_no_nan(x, y, name=None):
    """x * y, or 0 where y is 0 (even if x is inf or nan)."""
    x, y = _pair(x, y)
    zero = array_ops.zeros_like(x * y)
    return math_ops.where(math_ops.equal(y + zero, 0), zero, x * y)


def reciprocal_no_nan(x, name=None):
    """1 / x, or 0 where x is 0."""
    x = ops.convert_to_tensor(x)
    safe = math_ops.where(math_ops.equal(x, 0), array_ops.ones_like(x), x)
    return math_ops.where(math_ops.equal(x, 0), array_ops.zeros_like(x), 1.0 / safe)


def xdivy(x, y, name=None):
    """x / y, or 0 where x is 0."""
    x, y = _pair(x, y)
    safe = math_ops.where(math_ops.equal(x + array_ops.zeros_like(y), 0), array_ops.ones_like(x * y), y + 0 * x)
    return math_ops.where(math_ops.equal(x + array_ops.zeros_like(y), 0), array_ops.zeros_like(x * y), x / safe)


def _x_times(x, y, fn):
    x, y = _pair(x, y)
    zero = math_ops.equal(x + array_ops.zeros_like(y), 0)
    safe = math_ops.where(zero, array_ops.ones_like(x * y), y + 0 * x)
    return math_ops.where(zero, array_ops.zeros_like(x * y), x * fn(safe))


def xlogy(x, y, name=None):
    """x * log(y), or 0 where x is 0."""
    return _x_times(x, y, math_ops.log)


def xlog1py(x, y, name=None):
    """x * log1p(y), or 0 where x is 0."""
    return _x_times(x, y, math_ops.log1p)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    x = ops.convert_to_tensor(input_tensor)
    mean = reduction_ops.reduce_mean(x, axis, keepdims=True)
    return reduction_ops.reduce_mean(math_ops.square(x - mean), axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    return math_ops.sqrt(reduce_variance(input_tensor, axis, keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    return math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(ops.convert_to_tensor(input_tensor)), axis,
                                                  keepdims=keepdims))


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """log(cumsum(exp(x))), computed stably (the largest value taken out first)."""
    x = ops.convert_to_tensor(x)
    top = array_ops.stop_gradient(reduction_ops.reduce_max(x, axis, keepdims=True))
    return math_ops.log(manip_ops.cumsum(math_ops.exp(x - top), axis, exclusive=exclusive, reverse=reverse)) + top


def polyval(coeffs, x, name=None):
    """The polynomial with ``coeffs`` (highest degree first) at ``x``, by Horner's rule."""
    x = ops.convert_to_tensor(x)
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")
    if not coeffs:
        return array_ops.zeros_like(x)
    out = ops.convert_to_tensor(coeffs[0], dtype=x.dtype.base_dtype) + 0 * x
    for c in coeffs[1:]:
        out = c + out * x
    return out


# -- linear algebra -----------------------------------------------------------------------

def adjoint(matrix, name=None):
    """The conjugate transpose of the last two axes."""
    from .complex_ops import conj  # noqa: PLC0415

    return manip_ops.matrix_transpose(conj(ops.convert_to_tensor(matrix)))


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """a @ b for a matrix (or batch) ``a`` and a vector (or batch) ``b``."""
    out = math_ops.matmul(a, array_ops.expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)
    return array_ops.squeeze(out, [-1])


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TF's name
    """(tensor / its norm, the norm), the norm kept in the reduced axes."""
    from .segment_ops import norm  # noqa: PLC0415

    tensor = ops.convert_to_tensor(tensor)
    size = norm(tensor, ord=ord, axis=axis, keepdims=True)
    return tensor / size, size


def slogdet(input, name=None):  # noqa: A002 - TF's name
    """(the sign of each determinant, the log of its absolute value)."""
    return linalg_ops.log_matrix_determinant(input, name=name)


def logdet(matrix, name=None):
    """The log determinant of a Hermitian positive-definite matrix (by its Cholesky factor)."""
    chol = linalg_ops.cholesky(matrix)
    return 2.0 * reduction_ops.reduce_sum(math_ops.log(manip_ops.matrix_diag_part(chol)), -1)


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse (from the SVD, singular values below ``rcond`` times the
    largest taken as 0; ``rcond`` defaults to 10 * max(rows, cols) * eps)."""
    a = ops.convert_to_tensor(a)
    s, u, v = linalg_ops.svd(a, full_matrices=False)
    if rcond is None:
        rows, cols = a.shape[-2].value, a.shape[-1].value
        rcond = 10.0 * max(rows or 1, cols or 1) * float(_eps(a.dtype))
    cutoff = rcond * reduction_ops.reduce_max(s, -1, keepdims=True)
    inverse = math_ops.where(s > cutoff, 1.0 / math_ops.where(s > cutoff, s, array_ops.ones_like(s)),
                             array_ops.zeros_like(s))
    return math_ops.matmul(v * array_ops.expand_dims(inverse, -2), u, adjoint_b=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """How many singular values exceed ``tol`` (default: eps * max(rows, cols) * the largest)."""
    a = ops.convert_to_tensor(a)
    s = linalg_ops.svd(a, compute_uv=False)
    if tol is None:
        rows, cols = a.shape[-2].value, a.shape[-1].value
        tol = float(_eps(a.dtype)) * max(rows or 1, cols or 1) * reduction_ops.reduce_max(s, -1, keepdims=True)
    return reduction_ops.reduce_sum(math_ops.cast(s > tol, dtypes.int32), -1)


def _eps(dtype):
    import numpy as np  # noqa: PLC0415

    return np.finfo(dtypes.as_dtype(dtype).base_dtype.as_numpy_dtype).eps


# -- random -------------------------------------------------------------------------------

def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``num_samples`` class draws per row of ``logits`` (``tf.random.categorical``)."""
    return random_ops.multinomial(logits, num_samples, seed=seed, output_dtype=dtype or dtypes.int64)


# -- initializers (Keras's variance scaling presets, as tf.initializers) --------------------

def he_normal(seed=None):
    return init_ops.variance_scaling_initializer(2.0, "fan_in", "truncated_normal", seed=seed)


def he_uniform(seed=None):
    return init_ops.variance_scaling_initializer(2.0, "fan_in", "uniform", seed=seed)


def lecun_normal(seed=None):
    return init_ops.variance_scaling_initializer(1.0, "fan_in", "truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    return init_ops.variance_scaling_initializer(1.0, "fan_in", "uniform", seed=seed)


