"""Matrix functions of ``tf.linalg`` (batched over leading axes): determinant, inverse,
solve, Cholesky, QR, SVD and symmetric eigendecomposition, by NumPy's LAPACK."""

from __future__ import annotations

import collections

import functools

import numpy as np

from ..framework import errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from . import array_ops, math_ops
from .manip_ops import matrix_band_part, matrix_diag, matrix_diag_part, matrix_set_diag, matrix_transpose
from .op_util import make_op, make_tensor


def _square(op_type, x):
    x = ops.convert_to_tensor(x)
    dims = x.shape.as_list() if x.shape.ndims is not None else None
    if dims is not None and (len(dims) < 2 or (dims[-1] is not None and dims[-2] is not None and
                                                dims[-1] != dims[-2])):
        raise ValueError(f"{op_type} needs square (batched) matrices, got shape {x.shape}")
    return x


def _linalg_errors(fn):
    """LAPACK's LinAlgError (a singular or indefinite input) as InvalidArgumentError."""

    @functools.wraps(fn)
    def kernel(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except np.linalg.LinAlgError as e:
            raise errors.InvalidArgumentError(None, None, f"{e} (the matrix is singular or not positive "
                                                          "definite)") from None

    return kernel


@register_op("MatrixDeterminant", shape=lambda op: op.inputs[0].shape[:-2])
def _determinant_kernel(xp, x):
    return np.asarray(np.linalg.det(x), dtype=x.dtype)


@register_gradient("MatrixDeterminant")
def _determinant_grad(op, g):
    x, det = op.inputs[0], op.outputs[0]
    scale = array_ops.expand_dims(array_ops.expand_dims(g * det, -1), -1)
    return (scale * matrix_transpose(matrix_inverse(x)),)


def matrix_determinant(input, name=None):  # noqa: A002
    return make_tensor("MatrixDeterminant", [_square("MatrixDeterminant", input)], None, name or "MatrixDeterminant")


@register_op("LogMatrixDeterminant", list_output=True, shape=lambda op: [op.inputs[0].shape[:-2]] * 2,
             dtype=lambda op: [op.inputs[0].dtype.base_dtype] * 2)
def _log_determinant_kernel(xp, x):
    # (by LU: no overflow of the determinant itself; the sign of a complex matrix's is complex)
    sign, log_abs = np.linalg.slogdet(x)
    return np.asarray(sign, dtype=x.dtype), np.asarray(log_abs, dtype=x.dtype)


@register_gradient("LogMatrixDeterminant")
def _log_determinant_grad(op, _sign_grad, g):
    # d log|det A| = Re tr(A^-1 dA): the gradient is A^-H (A^-T for a real matrix)
    scale = array_ops.expand_dims(array_ops.expand_dims(g, -1), -1)
    return (scale * matrix_inverse(op.inputs[0], adjoint=True),)


def log_matrix_determinant(input, name=None):  # noqa: A002
    """(the sign of each determinant, the log of its absolute value), computed without forming
    the determinant (which overflows for large matrices)."""
    sign, log_abs = make_op("LogMatrixDeterminant", [_square("LogMatrixDeterminant", input)], None,
                            name or "LogMatrixDeterminant").outputs
    return sign, log_abs


def _adjoint_of(a, adjoint: bool):
    """``a`` or, with ``adjoint``, its conjugate transpose (the transpose of a real matrix)."""
    if not adjoint:
        return a
    a = np.swapaxes(a, -1, -2)
    return a.conj() if np.iscomplexobj(a) else a


@register_op("MatrixInverse", shape=lambda op: op.inputs[0].shape)
@_linalg_errors
def _inverse_kernel(xp, x, *, adjoint=False):
    return np.linalg.inv(_adjoint_of(x, adjoint)).astype(x.dtype)


@register_gradient("MatrixInverse")
def _inverse_grad(op, g):
    inv = op.outputs[0]  # Y = A^-1, or (A^H)^-1 with adjoint
    if op._attr("adjoint"):
        return (-math_ops.matmul(inv, math_ops.matmul(g, inv, adjoint_a=True)),)
    return (-math_ops.matmul(inv, math_ops.matmul(g, inv, adjoint_b=True), adjoint_a=True),)


def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002
    return make_tensor("MatrixInverse", [_square("MatrixInverse", input)], {"adjoint": bool(adjoint)},
                       name or "MatrixInverse")


@register_op("MatrixSolve", shape=lambda op: op.inputs[1].shape)
@_linalg_errors
def _solve_kernel(xp, a, b, *, adjoint=False):
    return np.linalg.solve(_adjoint_of(a, adjoint), b).astype(b.dtype)


@register_gradient("MatrixSolve")
def _solve_grad(op, g):
    a = op.inputs[0]
    x = op.outputs[0]
    gb = matrix_solve(a, g, adjoint=not op._attr("adjoint"))
    if op._attr("adjoint"):
        return -math_ops.matmul(x, gb, adjoint_b=True), gb
    return -math_ops.matmul(gb, x, adjoint_b=True), gb


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """X with ``matrix @ X = rhs`` (``adjoint``: the conjugate transpose of matrix)."""
    a = _square("MatrixSolve", matrix)
    b = ops.convert_to_tensor(rhs, dtype=a.dtype.base_dtype)
    return make_tensor("MatrixSolve", [a, b], {"adjoint": bool(adjoint)}, name or "MatrixSolve")


@register_op("MatrixTriangularSolve", shape=lambda op: op.inputs[1].shape)
@_linalg_errors
def _triangular_solve_kernel(xp, a, b, *, lower=True, adjoint=False):
    a = np.tril(a) if lower else np.triu(a)
    return np.linalg.solve(_adjoint_of(a, adjoint), b).astype(b.dtype)


@register_gradient("MatrixTriangularSolve")
def _triangular_solve_grad(op, g):
    a, x = op.inputs[0], op.outputs[0]
    lower, adjoint = op._attr("lower"), op._attr("adjoint")
    gb = matrix_triangular_solve(a, g, lower=lower, adjoint=not adjoint)
    ga = -math_ops.matmul(x, gb, adjoint_b=True) if adjoint else -math_ops.matmul(gb, x, adjoint_b=True)
    return (matrix_band_part(ga, -1, 0) if lower else matrix_band_part(ga, 0, -1)), gb


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    a = _square("MatrixTriangularSolve", matrix)
    b = ops.convert_to_tensor(rhs, dtype=a.dtype.base_dtype)
    return make_tensor("MatrixTriangularSolve", [a, b], {"lower": bool(lower), "adjoint": bool(adjoint)},
                       name or "MatrixTriangularSolve")


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares solution of ``matrix @ X = rhs`` (with an optional L2 penalty) by
    the normal equations, as TensorFlow's fast path: (AᵀA + λI)⁻¹Aᵀb for a matrix with at
    least as many rows as columns, and for a wider one the minimum-norm Aᵀ(AAᵀ + λI)⁻¹b."""
    with ops.name_scope(name, "matrix_solve_ls", [matrix, rhs]):
        a = ops.convert_to_tensor(matrix)
        b = ops.convert_to_tensor(rhs, dtype=a.dtype.base_dtype)
        rows, cols = (a.shape[-2].value, a.shape[-1].value) if a.shape.ndims is not None else (None, None)
        if rows is None or cols is None:
            raise ValueError(f"matrix_solve_ls needs the matrix's last two dimensions known, got {a.shape}")
        wide = rows < cols
        gram = math_ops.matmul(a, a, transpose_b=wide, transpose_a=not wide)
        if l2_regularizer:
            n = min(rows, cols)
            gram = gram + math_ops.cast(l2_regularizer, a.dtype.base_dtype) * array_ops.constant(
                np.eye(n), dtype=a.dtype.base_dtype)
        if wide:
            return math_ops.matmul(a, matrix_solve(gram, b), transpose_a=True)
        return matrix_solve(gram, math_ops.matmul(a, b, transpose_a=True))


@register_op("Cholesky", shape=lambda op: op.inputs[0].shape)
@_linalg_errors
def _cholesky_kernel(xp, x):
    return np.linalg.cholesky(x).astype(x.dtype)


def _adjoint(x):
    return matrix_transpose(x, conjugate=x.dtype.base_dtype.is_complex)


def _identity_like(x):
    """Identity matrices of ``x``'s (batched, square) shape, for any shape known at run time."""
    zeros = array_ops.zeros_like(x)
    return matrix_set_diag(zeros, array_ops.ones_like(matrix_diag_part(zeros)))


def _lower_half_diagonal(x):
    """The lower triangle of ``x`` with its diagonal halved."""
    return matrix_set_diag(matrix_band_part(x, -1, 0), 0.5 * matrix_diag_part(x))


@register_gradient("Cholesky")
def _cholesky_grad(op, g):
    # A = L L^H. With Phi the lower triangle with the diagonal halved, the gradient is the
    # Hermitian part of L^-H Phi(L^H G) L^-1 (Murray, "Differentiation of the Cholesky
    # decomposition", 2016); built of graph ops, so that it is differentiable in turn.
    chol = op.outputs[0]
    chol_inv = matrix_triangular_solve(chol, _identity_like(chol), lower=True)
    middle = _lower_half_diagonal(math_ops.matmul(chol, g, adjoint_a=True))
    s = math_ops.matmul(math_ops.matmul(chol_inv, middle, adjoint_a=True), chol_inv)
    return (0.5 * (s + _adjoint(s)),)


def cholesky(input, name=None):  # noqa: A002
    """The lower-triangular L with L @ L^T = input (symmetric positive definite)."""
    return make_tensor("Cholesky", [_square("Cholesky", input)], None, name or "Cholesky")


def cholesky_solve(chol, rhs, name=None):
    """Solves A X = rhs given chol = cholesky(A)."""
    with ops.name_scope(name, "cholesky_solve", [chol, rhs]):
        y = matrix_triangular_solve(chol, rhs, lower=True, adjoint=False)
        return matrix_triangular_solve(chol, y, lower=True, adjoint=True)


def _qr_shapes(op) -> list:
    """q: [..., M, K] and r: [..., K, N], K = min(M, N), or M with full_matrices (TF's shapes)."""
    shape = op.inputs[0].shape
    if shape.ndims is None:
        return [TensorShape(None)] * 2
    if shape.ndims < 2:
        raise ValueError(f"Qr: the input must have rank at least 2, got shape {shape}")
    *batch, m, n = shape.as_list()
    k = m if op._attr("full_matrices") else (None if m is None or n is None else min(m, n))
    return [TensorShape(batch + [m, k]), TensorShape(batch + [k, n])]


@register_op("Qr", list_output=True, shape=_qr_shapes, dtype=lambda op: [op.inputs[0].dtype.base_dtype] * 2)
def _qr_kernel(xp, x, *, full_matrices=False):
    q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return q.astype(x.dtype), r.astype(x.dtype)


def _real_only(op, what):
    if op.inputs[0].dtype.base_dtype.is_complex:
        raise NotImplementedError(f"{op.type} ({op.name}): the gradient of {what} of complex matrices is not "
                                  "supported by distflow")


def _solve_right_upper(x, r):
    """X R^-H for an upper-triangular R."""
    return _adjoint(matrix_triangular_solve(r, _adjoint(x), lower=False))


@register_gradient("Qr")
def _qr_grad(op, dq, dr):
    # The reduced QR of an M x N matrix with M >= N (the formula TensorFlow uses, after
    # Walter and Lehmann): with L = tril(Q^T dQ - dQ^T Q + R dR^T - dR R^T),
    # dA = Q (dR + L R^-T) + (dQ - Q Q^T dQ) R^-T.
    _real_only(op, "QR")
    q, r = op.outputs
    a = op.inputs[0]
    if a.shape.ndims is not None and a.shape[-2].value is not None and a.shape[-1].value is not None and (
            a.shape[-2].value < a.shape[-1].value or (op._attr("full_matrices") and
                                                      a.shape[-2].value != a.shape[-1].value)):
        raise NotImplementedError(f"Qr ({op.name}): the QR gradient needs at least as many rows as columns "
                                  f"(and square matrices with full_matrices), got shape {a.shape}")
    qdq = math_ops.matmul(q, dq, adjoint_a=True)
    rdr = math_ops.matmul(r, dr, adjoint_b=True)
    tril = matrix_band_part(qdq - _adjoint(qdq) + rdr - _adjoint(rdr), -1, 0)
    grad_a = math_ops.matmul(q, dr + _solve_right_upper(tril, r))
    grad_b = _solve_right_upper(dq - math_ops.matmul(q, qdq), r)
    return (grad_a + grad_b,)


Qr = collections.namedtuple("Qr", ["q", "r"])


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """TF's named pair (q, r)."""
    return Qr(*make_op("Qr", [ops.convert_to_tensor(input)], {"full_matrices": bool(full_matrices)},
                       name or "Qr").outputs)


def _svd_shapes(op) -> list:
    """s: [..., K], u: [..., M, K], v: [..., N, K] (K = min(M, N); M and N with
    full_matrices); u and v are empty without compute_uv (TF's shapes)."""
    shape = op.inputs[0].shape
    if shape.ndims is None:
        return [TensorShape(None)] * 3
    *batch, m, n = shape.as_list()
    k = None if m is None or n is None else min(m, n)
    if not op._attr("compute_uv"):
        return [TensorShape(batch + [k]), TensorShape([0]), TensorShape([0])]
    full = op._attr("full_matrices")
    return [TensorShape(batch + [k]), TensorShape(batch + [m, m if full else k]),
            TensorShape(batch + [n, n if full else k])]


@register_op("Svd", list_output=True, shape=_svd_shapes,
             dtype=lambda op: [op.inputs[0].dtype.base_dtype] * 3)
def _svd_kernel(xp, x, *, compute_uv=True, full_matrices=False):
    if not compute_uv:  # (TF's outputs: u and v empty)
        s = np.linalg.svd(x, compute_uv=False)
        return s.astype(x.dtype), np.zeros([0], x.dtype), np.zeros([0], x.dtype)
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return s.astype(x.dtype), u.astype(x.dtype), np.swapaxes(vh, -1, -2).astype(x.dtype)


def _off_diagonal_reciprocal(d):
    """F with F_ij = 1 / (d_j - d_i) off the diagonal and 0 on it (equal d_i give infinities,
    as in TensorFlow: the gradient of repeated eigen- or singular values is not defined)."""
    diff = array_ops.expand_dims(d, -2) - array_ops.expand_dims(d, -1)
    eye = _identity_like(diff)
    return (1.0 - eye) * math_ops.reciprocal(diff + eye)


@register_gradient("Svd")
def _svd_grad(op, ds, du, dv):
    # Thin SVD A = U S V^T of an M x N matrix with M >= N (the transpose otherwise):
    # dA = U [diag(dS) + (F o (U^T dU - dU^T U)) S + S (F o (V^T dV - dV^T V))] V^T
    #      + (I - U U^T) dU S^-1 V^T + U S^-1 dV^T (I - V V^T), F_ij = 1 / (s_j^2 - s_i^2)
    # (Townsend, "Differentiating the singular value decomposition", 2016).
    _real_only(op, "SVD")
    a = op.inputs[0]
    s, u, v = op.outputs
    shape = a.shape
    if shape.ndims is None or shape[-2].value is None or shape[-1].value is None:
        raise NotImplementedError(f"Svd ({op.name}): the SVD gradient needs the matrix size known, got {shape}")
    m, n = shape[-2].value, shape[-1].value
    if op._attr("full_matrices") and m != n:
        raise NotImplementedError(f"Svd ({op.name}): the SVD gradient with full_matrices needs square matrices, "
                                  f"got shape {shape}")
    if not op._attr("compute_uv"):  # the op computed no vectors: take them again
        _, u, v = svd(a, full_matrices=False, compute_uv=True)
        du = dv = None
    if m < n:  # A^T = V S U^T
        u, v, du, dv = v, u, dv, du
    s_mat = matrix_diag(s)
    grad = matrix_diag(ds)
    if du is not None or dv is not None:
        du = array_ops.zeros_like(u) if du is None else du
        dv = array_ops.zeros_like(v) if dv is None else dv
        f = _off_diagonal_reciprocal(math_ops.square(s))
        utdu = math_ops.matmul(u, du, transpose_a=True)
        vtdv = math_ops.matmul(v, dv, transpose_a=True)
        grad = (grad + math_ops.matmul(f * (utdu - matrix_transpose(utdu)), s_mat)
                + math_ops.matmul(s_mat, f * (vtdv - matrix_transpose(vtdv))))
        s_inv = matrix_diag(math_ops.reciprocal(s))
        grad_a = math_ops.matmul(math_ops.matmul(u, grad), v, transpose_b=True)
        if m != n:  # the parts outside the span of the thin factors
            grad_a += math_ops.matmul(math_ops.matmul(du - math_ops.matmul(u, utdu), s_inv), v, transpose_b=True)
            grad_a += math_ops.matmul(u, math_ops.matmul(s_inv, dv - math_ops.matmul(v, vtdv), transpose_b=True))
    else:
        grad_a = math_ops.matmul(math_ops.matmul(u, grad), v, transpose_b=True)
    return (matrix_transpose(grad_a) if m < n else grad_a,)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values (descending), and with ``compute_uv`` u and v with tensor = u diag(s) v^T."""
    s, u, v = make_op("Svd", [ops.convert_to_tensor(tensor)], {"compute_uv": bool(compute_uv),
                                                               "full_matrices": bool(full_matrices)},
                      name or "Svd").outputs
    return (s, u, v) if compute_uv else s


def _eigh_shapes(op) -> list:
    shape = op.inputs[0].shape
    if shape.ndims is None:
        return [TensorShape(None)] * 2
    e = shape[:-1]
    return [e, shape if op._attr("compute_v") else TensorShape([0])]


@register_op("SelfAdjointEigV2", list_output=True, shape=_eigh_shapes,
             dtype=lambda op: [op.inputs[0].dtype.base_dtype] * 2)
def _eigh_kernel(xp, x, *, compute_v=True):
    if not compute_v:
        return np.linalg.eigvalsh(x).astype(x.dtype), np.zeros([0], x.dtype)
    e, v = np.linalg.eigh(x)
    return e.astype(x.dtype), v.astype(x.dtype)


@register_gradient("SelfAdjointEigV2")
def _eigh_grad(op, de, dv):
    # A = V diag(e) V^T: dA = V (diag(de) + F o (V^T dV)) V^T with F_ij = 1 / (e_j - e_i), taken
    # onto the lower triangle that the kernel reads (the diagonal once, the others from both sides).
    _real_only(op, "an eigendecomposition")
    e, v = op.outputs
    if not op._attr("compute_v"):
        e, v = self_adjoint_eig(op.inputs[0])
        dv = None
    inner = matrix_diag(de)
    if dv is not None:
        inner = inner + _off_diagonal_reciprocal(e) * math_ops.matmul(v, dv, transpose_a=True)
    grad = math_ops.matmul(math_ops.matmul(v, inner), v, transpose_b=True)
    return (_lower_half_diagonal(grad + matrix_transpose(grad)),)


def self_adjoint_eig(tensor, name=None):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices."""
    return tuple(make_op("SelfAdjointEigV2", [_square("SelfAdjointEigV2", tensor)], {"compute_v": True},
                         name or "SelfAdjointEigV2").outputs)


def self_adjoint_eigvals(tensor, name=None):
    return make_op("SelfAdjointEigV2", [_square("SelfAdjointEigV2", tensor)], {"compute_v": False},
                   name or "SelfAdjointEigV2").outputs[0]


def _sqrtm(a: np.ndarray) -> np.ndarray:
    """The principal square root of each matrix of ``a`` (Denman-Beavers iteration, in
    float64): defined when no eigenvalue is on the closed negative real axis."""
    y = a.astype(np.float64 if a.dtype.kind == "f" else np.complex128)
    z = np.broadcast_to(np.eye(a.shape[-1], dtype=y.dtype), y.shape).copy()
    for _ in range(100):
        y_next = 0.5 * (y + np.linalg.inv(z))
        z = 0.5 * (z + np.linalg.inv(y))
        done = np.max(np.abs(y_next - y)) <= 1e-14 * max(1.0, float(np.max(np.abs(y_next))))
        y = y_next
        if done:
            break
    if not np.all(np.isfinite(y)):
        raise np.linalg.LinAlgError("the matrix has no principal square root (an eigenvalue on the negative axis)")
    return y.astype(a.dtype)


@register_op("MatrixSquareRoot", shape=lambda op: op.inputs[0].shape)
@_linalg_errors
def _matrix_square_root_kernel(xp, x):
    return _sqrtm(np.asarray(x))


@register_op("MatrixSquareRootGrad", shape=lambda op: op.inputs[0].shape)
@_linalg_errors
def _matrix_square_root_grad_kernel(xp, root, g):
    # X^2 = A, so X dX + dX X = dA; the gradient of A is the Y with X^T Y + Y X^T = G, solved in
    # the eigenbasis of X^T (X^T = U D U^-1: (U^-1 Y U)_ij = (U^-1 G U)_ij / (d_i + d_j)).
    root, g = np.asarray(root), np.asarray(g)
    d, u = np.linalg.eig(np.swapaxes(root, -1, -2))
    u_inv = np.linalg.inv(u)
    inner = (u_inv @ g @ u) / (d[..., :, None] + d[..., None, :])
    y = u @ inner @ u_inv
    return (y.real if root.dtype.kind == "f" else y).astype(root.dtype)


not_differentiable("MatrixSquareRootGrad")


@register_gradient("MatrixSquareRoot")
def _matrix_square_root_grad(op, g):
    return (make_tensor("MatrixSquareRootGrad", [op.outputs[0], g], None, "MatrixSquareRootGrad"),)


def matrix_square_root(input, name=None):  # noqa: A002
    """The principal square root of each (square) matrix: X with X @ X = input, for any
    matrix without eigenvalues on the closed negative real axis (TF's MatrixSquareRoot)."""
    return make_tensor("MatrixSquareRoot", [_square("MatrixSquareRoot", input)], None, name or "MatrixSquareRoot")


