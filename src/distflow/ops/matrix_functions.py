"""``tf.linalg.expm`` and the LU factorization (``lu``, ``lu_solve``, ``lu_reconstruct``,
``lu_matrix_inverse``).

expm is Higham's scaling and squaring with the degree-13 Padé approximant (SIAM J. Matrix
Anal. Appl. 26, 2005), in float64; its gradient is the adjoint of the Fréchet derivative,
the upper-right block of expm([[A^H, G], [0, A^H]]) (Najfeld and Havel, 1995). LU is
Doolittle's elimination with partial pivoting, as LAPACK's getrf pivots."""

from __future__ import annotations

import math

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from . import array_ops, linalg_ops, manip_ops, math_ops, slicing_ops
from .linalg_ops import _square
from .op_util import FLOATS, check_dtype, make_op, make_tensor

_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
           10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0,
           1.0)
_THETA13 = 5.371920351148152  # (the 1-norm up to which the approximant is exact to double precision)


def _expm(a: np.ndarray) -> np.ndarray:
    """exp of one square float64 or complex matrix."""
    n = a.shape[-1]
    norm = np.abs(a).sum(axis=0).max() if n else 0.0
    s = max(0, int(math.ceil(math.log2(norm / _THETA13)))) if norm > _THETA13 else 0
    a = a / 2.0 ** s
    b = _PADE13
    eye = np.eye(n, dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


@register_op("MatrixExponential", shape=lambda op: op.inputs[0].shape)
def _expm_kernel(xp, x):
    if x.size == 0:
        return x.copy()
    wide = np.complex128 if x.dtype.kind == "c" else np.float64
    flat = x.reshape((-1,) + x.shape[-2:]).astype(wide)
    out = np.stack([_expm(m) for m in flat])
    return out.reshape(x.shape).astype(x.dtype)


@register_gradient("MatrixExponential")
def _expm_grad(op, grad):
    a = op.inputs[0]
    adjoint = _adjoint(a)
    n = array_ops.shape(a)[-1]
    top = slicing_ops.concat([adjoint, grad], -1)
    bottom = slicing_ops.concat([array_ops.zeros_like(grad), adjoint], -1)
    block = make_tensor("MatrixExponential", [slicing_ops.concat([top, bottom], -2)], None, "MatrixExponential")
    return (block[..., :n, n:],)


def _adjoint(a):
    """The conjugate transpose of the last two axes."""
    return manip_ops.matrix_transpose(a, conjugate=a.dtype.base_dtype.is_complex)


def expm(input, name=None):  # noqa: A002
    """The matrix exponential of each square matrix of ``input`` ([..., n, n])."""
    x = _square("MatrixExponential", input)
    return make_tensor("MatrixExponential", [x], None, name or "MatrixExponential")


# ---------------------------------------------------------------------------
# LU


def _lu(a: np.ndarray):
    """(L and U packed in one matrix, the row permutation) of one square matrix: rows
    ``perm`` of ``a`` are L @ U, L unit lower triangular."""
    a = a.copy()
    n = a.shape[0]
    perm = np.arange(n)
    for k in range(n - 1):
        pivot = k + int(np.argmax(np.abs(a[k:, k])))
        if pivot != k:
            a[[k, pivot]] = a[[pivot, k]]
            perm[[k, pivot]] = perm[[pivot, k]]
        if a[k, k] != 0:
            a[k + 1:, k] /= a[k, k]
            a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a, perm


@register_op("Lu", list_output=True, shape=lambda op: [op.inputs[0].shape, op.inputs[0].shape[:-1]],
             dtype=lambda op: [op.inputs[0].dtype.base_dtype, op._attr("output_idx_type")])
def _lu_kernel(xp, x, *, output_idx_type=dtypes.int32):
    flat = x.reshape((-1,) + x.shape[-2:])
    parts = [_lu(m) for m in flat]
    lu = np.stack([p[0] for p in parts]) if parts else flat.copy()
    perm = np.stack([p[1] for p in parts]) if parts else np.zeros(flat.shape[:-1], np.int64)
    if parts and not np.all(np.isfinite(lu)):
        raise errors.InvalidArgumentError(None, None, "Lu: the factorization produced non-finite values")
    return lu.reshape(x.shape), perm.reshape(x.shape[:-1]).astype(output_idx_type.as_numpy_dtype)


not_differentiable("Lu")


def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002
    """(lower_upper, perm): the LU factorization with partial pivoting of each square matrix
    of ``input``; rows ``perm`` of the matrix are L @ U, with L the unit lower triangle of
    ``lower_upper`` and U its upper triangle."""
    x = _square("Lu", input)
    check_dtype("Lu", x, FLOATS + (dtypes.complex64, dtypes.complex128), "input")
    op = make_op("Lu", [x], {"output_idx_type": dtypes.as_dtype(output_idx_type)}, name or "Lu")
    return op.outputs[0], op.outputs[1]


def _size(lower_upper) -> int:
    n = lower_upper.shape[-1].value if lower_upper.shape.ndims else None
    if n is None:
        raise ValueError(f"the LU factors' size must be known, got shape {lower_upper.shape}")
    return n


def _factors(lower_upper):
    eye = manip_ops.eye(_size(lower_upper), dtype=lower_upper.dtype.base_dtype)
    lower = manip_ops.matrix_band_part(lower_upper, -1, 0) - manip_ops.matrix_band_part(lower_upper, 0, 0) + eye
    return lower, manip_ops.matrix_band_part(lower_upper, 0, -1)


def _rows(x, perm):
    """The rows ``perm`` of each matrix of ``x`` (perm [..., n])."""
    if perm.shape.ndims == 1:
        return slicing_ops.gather(x, perm, axis=-2)
    return slicing_ops.gather(x, perm, axis=perm.shape.ndims - 1, batch_dims=perm.shape.ndims - 1)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrix whose ``lu`` is (lower_upper, perm)."""
    with ops.name_scope(name, "lu_reconstruct", [lower_upper, perm]):
        lower_upper, perm = ops.convert_to_tensor(lower_upper), ops.convert_to_tensor(perm)
        lower, upper = _factors(lower_upper)
        product = math_ops.matmul(lower, upper)
        inverse = _inverse_permutation(perm)
        return _rows(product, inverse)


def _inverse_permutation(perm):
    return math_ops.cast(manip_ops.argsort(perm, axis=-1), perm.dtype.base_dtype)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """The X with A @ X = rhs, A given by its ``lu``."""
    with ops.name_scope(name, "lu_solve", [lower_upper, perm, rhs]):
        lower_upper, perm = ops.convert_to_tensor(lower_upper), ops.convert_to_tensor(perm)
        rhs = ops.convert_to_tensor(rhs, dtype=lower_upper.dtype.base_dtype)
        lower, upper = _factors(lower_upper)
        permuted = _rows(rhs, perm)
        return linalg_ops.matrix_triangular_solve(
            upper, linalg_ops.matrix_triangular_solve(lower, permuted, lower=True), lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of the matrix given by its ``lu``."""
    with ops.name_scope(name, "lu_matrix_inverse", [lower_upper, perm]):
        lower_upper = ops.convert_to_tensor(lower_upper)
        if not lower_upper.shape[:-2].is_fully_defined():
            raise ValueError(f"lu_matrix_inverse needs the batch shape known, got {lower_upper.shape}")
        eye = manip_ops.eye(_size(lower_upper), batch_shape=lower_upper.shape[:-2].as_list(),
                            dtype=lower_upper.dtype.base_dtype)
        return lu_solve(lower_upper, perm, eye)

