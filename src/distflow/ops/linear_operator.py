"""``tf.linalg.LinearOperator`` and its TF 1.5 family: matrices (or batches of them) known by
their structure, so that products, solves and determinants cost what the structure allows.

- ``LinearOperatorFullMatrix(matrix)``: any matrix;
- ``LinearOperatorDiag(diag)``: products and solves elementwise, the determinant a product;
- ``LinearOperatorIdentity(num_rows, batch_shape)`` and
  ``LinearOperatorScaledIdentity(num_rows, multiplier)``: nothing stored but the sizes;
- ``LinearOperatorLowerTriangular(tril)``: triangular solves (the upper triangle is ignored);
- the operators made of others, ``LinearOperatorComposition`` and
  ``LinearOperatorLowRankUpdate``, are in linear_operator_composite.py.

Every operator has ``matmul(x, adjoint, adjoint_arg)``, ``solve``, ``determinant``,
``log_abs_determinant``, ``trace``, ``to_dense``, ``diag_part``, ``add_to_tensor``, its shape
(static and as a tensor) and the hints ``is_non_singular``, ``is_self_adjoint``,
``is_positive_definite`` and ``is_square``, which are checked against each other as TF
checks them. The base class computes what a subclass leaves out from ``to_dense()``.
"""

from __future__ import annotations

import types

import numpy as np

from ..framework import dtypes, ops
from ..framework.tensor_shape import TensorShape
from . import (array_ops, check_ops, complex_ops, control_flow_ops, linalg_ops as _dense_linalg, manip_ops,
               math_extra, math_ops, reduction_ops, slicing_ops, unary_ops)

# (the dense matrix functions used here)
_la = types.SimpleNamespace(
    eye=manip_ops.eye, adjoint=math_extra.adjoint, slogdet=math_extra.slogdet, matrix_diag=manip_ops.matrix_diag,
    matrix_diag_part=manip_ops.matrix_diag_part, matrix_set_diag=manip_ops.matrix_set_diag,
    matrix_band_part=manip_ops.matrix_band_part, matrix_solve=_dense_linalg.matrix_solve,
    matrix_determinant=_dense_linalg.matrix_determinant,
    matrix_triangular_solve=_dense_linalg.matrix_triangular_solve, svd=_dense_linalg.svd,
    cholesky=_dense_linalg.cholesky)


class LinearOperator:
    """A linear operator from ``domain_dimension`` to ``range_dimension`` (a batch of them)."""

    def __init__(self, dtype, graph_parents=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("An operator is positive-definite but is set to be singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular operator is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint operator is always square.")
            is_square = True
        self._dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
        self._graph_parents = list(graph_parents or [])
        self._is_non_singular, self._is_self_adjoint = is_non_singular, is_self_adjoint
        self._is_positive_definite, self._is_square = is_positive_definite, is_square
        self._name = name or type(self).__name__

    # --- hints and shapes ----------------------------------------------------------------

    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)
    graph_parents = property(lambda self: list(self._graph_parents))
    is_non_singular = property(lambda self: self._is_non_singular)
    is_self_adjoint = property(lambda self: self._is_self_adjoint)
    is_positive_definite = property(lambda self: self._is_positive_definite)

    @property
    def is_square(self):
        known = self.shape[-2:]
        if known.is_fully_defined():
            return known[0].value == known[1].value
        return self._is_square

    @property
    def shape(self) -> TensorShape:
        return self._shape()

    def shape_tensor(self, name="shape_tensor"):
        with self._scope(name):
            if self.shape.is_fully_defined():
                return ops.convert_to_tensor(self.shape.as_list(), dtype=dtypes.int32)
            return self._shape_tensor()

    @property
    def batch_shape(self) -> TensorShape:
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._scope(name):
            return self.shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        return self.shape.ndims

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        with self._scope(name):
            return array_ops.size(self.shape_tensor())

    @property
    def domain_dimension(self):
        return self.shape[-1] if self.shape.ndims is not None else TensorShape(None)

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        with self._scope(name):
            return self.shape_tensor()[-1]

    @property
    def range_dimension(self):
        return self.shape[-2] if self.shape.ndims is not None else TensorShape(None)

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        with self._scope(name):
            return self.shape_tensor()[-2]

    # --- the operations --------------------------------------------------------------------

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``self x`` (``self^H`` with ``adjoint``; ``x^H`` with ``adjoint_arg``)."""
        with self._scope(name):
            x = self._checked_arg(x, "x")
            self._check_dimensions(x, -2 if adjoint else -1, -1 if adjoint_arg else -2)
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``self X = rhs`` (``self^H X`` with ``adjoint``)."""
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to not be "
                                      "square.")
        with self._scope(name):
            rhs = self._checked_arg(rhs, "rhs")
            self._check_dimensions(rhs, -1 if adjoint else -2, -1 if adjoint_arg else -2)
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def determinant(self, name="det"):
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is expected to not be "
                                      "square.")
        with self._scope(name):
            return self._determinant()

    def log_abs_determinant(self, name="log_abs_det"):
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is expected to not be "
                                      "square.")
        with self._scope(name):
            return self._log_abs_determinant()

    def trace(self, name="trace"):
        """The sum of the diagonal (of each operator of the batch)."""
        with self._scope(name):
            return self._trace()

    def to_dense(self, name="to_dense"):
        with self._scope(name):
            return self._to_dense()

    def diag_part(self, name="diag_part"):
        with self._scope(name):
            return self._diag_part()

    def add_to_tensor(self, x, name="add_to_tensor"):
        """``self + x`` as a dense tensor."""
        with self._scope(name):
            return self._add_to_tensor(self._checked_arg(x, "x"))

    def assert_non_singular(self, name="assert_non_singular"):
        with self._scope(name):
            return self._assert_non_singular()

    def assert_positive_definite(self, name="assert_positive_definite"):
        with self._scope(name):
            return self._assert_positive_definite()

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        with self._scope(name):
            dense = self.to_dense()
            return check_ops.assert_equal(dense, _la.adjoint(dense),
                                          message="Matrix was not equal to its adjoint.")

    # --- what subclasses may give more cheaply ------------------------------------------------

    def _shape(self) -> TensorShape:
        raise NotImplementedError

    def _shape_tensor(self):
        raise NotImplementedError

    def _matmul(self, x, adjoint, adjoint_arg):
        raise NotImplementedError

    def _to_dense(self):
        eye = _la.eye(self.domain_dimension_tensor(), batch_shape=self.batch_shape_tensor(), dtype=self.dtype)
        return self.matmul(eye)

    def _solve(self, rhs, adjoint, adjoint_arg):
        rhs = _la.adjoint(rhs) if adjoint_arg else rhs
        return _la.matrix_solve(self.to_dense(), rhs, adjoint=adjoint)

    def _determinant(self):
        return _la.matrix_determinant(self.to_dense())

    def _log_abs_determinant(self):
        return _la.slogdet(self.to_dense())[1]

    def _diag_part(self):
        return _la.matrix_diag_part(self.to_dense())

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def _trace(self):
        return reduction_ops.reduce_sum(self.diag_part(), axis=-1)

    def _assert_non_singular(self):
        # (a singular value relative to the largest below the precision of the dtype)
        singular = _la.svd(self.to_dense(), compute_uv=False)
        cond = reduction_ops.reduce_max(singular, axis=-1) / reduction_ops.reduce_min(singular, axis=-1)
        limit = 100.0 * self.dtype.real_dtype.as_numpy_dtype(1.0 / _eps(self.dtype))
        return check_ops.assert_less(cond, ops.convert_to_tensor(limit, dtype=cond.dtype),
                                     message="Singular matrix up to precision epsilon.")

    def _assert_positive_definite(self):
        return check_ops.assert_positive(_la.matrix_diag_part(_la.cholesky(self._self_adjoint_part())),
                                         message="Matrix was not positive definite.")

    def _self_adjoint_part(self):
        dense = self.to_dense()
        return 0.5 * (dense + _la.adjoint(dense))

    # --- helpers -----------------------------------------------------------------------------

    def _scope(self, name):
        return ops.name_scope(f"{self.name}/{name}" if self.name else name)

    def _check_dimensions(self, x, own: int, its: int) -> None:
        if self.shape.ndims is not None and x.shape.ndims is not None:
            self.shape[own].assert_is_compatible_with(x.shape[its])

    def _checked_arg(self, x, what):
        x = ops.convert_to_tensor(x, name=what)
        if self.dtype is not None and x.dtype.base_dtype != self.dtype:
            raise TypeError(f"{self.name}: expected {what} of dtype {self.dtype.name}, got {x.dtype.name}")
        return x


def _eps(dtype) -> float:
    return float(np.finfo(dtype.real_dtype.as_numpy_dtype).eps)


def _maybe_adjoint(x, adjoint: bool):
    return _la.adjoint(x) if adjoint else x


def _conj(x, adjoint: bool):
    return complex_ops.conj(x) if adjoint and x.dtype.is_complex else x


class LinearOperatorFullMatrix(LinearOperator):
    """A matrix (``[..., M, N]``) as an operator."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        with ops.name_scope(name, values=[matrix]):
            self._matrix = ops.convert_to_tensor(matrix, name="matrix")
            if self._matrix.shape.ndims is not None and self._matrix.shape.ndims < 2:
                raise ValueError(f"Argument matrix must have at least 2 dimensions. Found: {self._matrix}")
            _check_dtype(self._matrix, "matrix")
        super().__init__(self._matrix.dtype, [self._matrix], is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name)

    def _shape(self):
        return self._matrix.shape

    def _shape_tensor(self):
        return array_ops.shape(self._matrix)

    def _matmul(self, x, adjoint, adjoint_arg):
        return math_ops.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """The square diagonal matrix of ``diag`` (``[..., N]``: a batch of them)."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=True,
                 name="LinearOperatorDiag"):
        with ops.name_scope(name, values=[diag]):
            self._diag = ops.convert_to_tensor(diag, name="diag")
            if self._diag.shape.ndims is not None and self._diag.shape.ndims < 1:
                raise ValueError(f"Argument diag must have at least 1 dimension.  Found: {self._diag}")
            _check_dtype(self._diag, "diag")
            if not self._diag.dtype.is_complex and is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            if not self._diag.dtype.is_complex:
                is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, [self._diag], is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name)

    diag = property(lambda self: self._diag)

    def _shape(self):
        return self._diag.shape.concatenate(self._diag.shape[-1:])

    def _shape_tensor(self):
        d = array_ops.shape(self._diag)
        return slicing_ops.concat([d, d[-1:]], 0)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _maybe_adjoint(x, adjoint_arg)
        return array_ops.expand_dims(_conj(self._diag, adjoint), -1) * x

    def _solve(self, rhs, adjoint, adjoint_arg):
        rhs = _maybe_adjoint(rhs, adjoint_arg)
        return rhs / array_ops.expand_dims(_conj(self._diag, adjoint), -1)

    def _determinant(self):
        return reduction_ops.reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        return _sum_log_abs(self._diag, self.dtype)

    def _to_dense(self):
        return _la.matrix_diag(self._diag)

    def _diag_part(self):
        return self._diag * array_ops.ones_like(self._diag)

    def _add_to_tensor(self, x):
        return _la.matrix_set_diag(x, _la.matrix_diag_part(x) + self._diag)

    def _assert_non_singular(self):
        return check_ops.assert_positive(unary_ops.abs(self._diag), message="Singular operator: Diagonal "
                                                                            "contained zero values.")

    def _assert_positive_definite(self):
        return check_ops.assert_positive(complex_ops.real_part(self._diag),
                                         message="Diagonal operator had non-positive real part, thus was not "
                                                 "positive definite.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        with self._scope(name):
            return _assert_real(self._diag, "Diagonal operator had non-zero imaginary part.  Thus was not "
                                            "self-adjoint.")


def _sum_log_abs(diag, dtype):
    """The log of the absolute determinant of a triangular matrix, in the operator's dtype (as
    slogdet gives it: complex for a complex matrix)."""
    return math_ops.cast(reduction_ops.reduce_sum(unary_ops.log(unary_ops.abs(diag)), axis=-1), dtype)


def _check_dtype(t, what):
    allowed = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)
    if t.dtype.base_dtype not in allowed:
        raise TypeError(f"Argument {what} must have dtype in {[d.name for d in allowed]}.  Found: "
                        f"{t.dtype.base_dtype.name}")


class _BaseIdentity(LinearOperator):
    """What the identity and the scaled identity share: ``num_rows`` and a batch shape."""

    def _init_sizes(self, num_rows, batch_shape=None, assert_proper_shapes=False):
        self._num_rows = _size_argument(num_rows, "num_rows", 0, assert_proper_shapes)
        self._num_rows_static = _static_int(self._num_rows)
        self._batch_shape_arg = None if batch_shape is None else \
            _size_argument(batch_shape, "batch_shape", 1, assert_proper_shapes)

    def _eye(self, batch_shape=None):
        return _la.eye(self._num_rows, batch_shape=batch_shape, dtype=self.dtype)


def _size_argument(value, what: str, rank: int, assert_proper_shapes: bool):
    """``value`` (a number of rows, or a batch shape) as an int32 tensor, checked now where it
    is known, and, with ``assert_proper_shapes``, when it runs where it is not."""
    if not isinstance(value, ops.Tensor) and np.asarray(value).size and np.asarray(value).dtype.kind not in "iu":
        raise TypeError(f"Argument {what} must be integer type.  Found: {value}")
    if isinstance(value, ops.Tensor) and not value.dtype.is_integer:
        raise TypeError(f"Argument {what} must be integer type.  Found: {value}")
    tensor = ops.convert_to_tensor(value, dtype=dtypes.int32, name=what)
    noun = "0-D Tensor" if rank == 0 else "1-D Tensor"
    if tensor.shape.ndims is not None and tensor.shape.ndims != rank:
        raise ValueError(f"Argument {what} must be a {noun}.  Found: {tensor}")
    static = _static_list(tensor) if rank else _static_int(tensor)
    if static is not None and min([static] if rank == 0 else static or [0]) < 0:
        raise ValueError(f"Argument {what} must be non-negative.  Found: {static}")
    if static is None and assert_proper_shapes:
        checks = [check_ops.assert_rank(tensor, rank, message=f"Argument {what} must be a {noun}."),
                  check_ops.assert_non_negative(tensor, message=f"Argument {what} must be non-negative.")]
        with ops.control_dependencies(checks):
            tensor = array_ops.identity(tensor)
    return tensor


def _static_int(t):
    from .op_util import constant_value  # noqa: PLC0415

    value = constant_value(t)
    return None if value is None else int(value)


class LinearOperatorIdentity(_BaseIdentity):
    """The ``num_rows`` x ``num_rows`` identity (a batch of ``batch_shape`` of them)."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorIdentity"):
        if not is_self_adjoint or not is_non_singular or not is_positive_definite or not is_square:
            raise ValueError("An identity operator is always non-singular, self-adjoint, positive definite and "
                             "square.")
        with ops.name_scope(name, values=[num_rows]):
            self._init_sizes(num_rows, batch_shape, assert_proper_shapes)
        super().__init__(dtype or dtypes.float32, None, True, True, True, True, name)

    def _shape(self):
        batch = TensorShape([]) if self._batch_shape_arg is None else \
            TensorShape(_static_list(self._batch_shape_arg))
        return batch.concatenate([self._num_rows_static, self._num_rows_static])

    def _shape_tensor(self):
        rows = array_ops.reshape(self._num_rows, [1])
        batch = ops.convert_to_tensor([], dtype=dtypes.int32) if self._batch_shape_arg is None else \
            self._batch_shape_arg
        return slicing_ops.concat([batch, rows, rows], 0)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _maybe_adjoint(x, adjoint_arg)
        if self._batch_shape_arg is None:
            return x
        # (a batch of identities broadcasts x to its batch shape)
        return x * array_ops.ones(slicing_ops.concat([self._batch_shape_arg, [1, 1]], 0), dtype=x.dtype)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _determinant(self):
        return array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return array_ops.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _to_dense(self):
        return self._eye(self._batch_shape_arg)

    def _diag_part(self):
        return array_ops.ones(self.shape_tensor()[:-1], dtype=self.dtype)

    def _add_to_tensor(self, x):
        return x + self._eye()

    def _assert_non_singular(self):
        return control_flow_ops.no_op()

    _assert_positive_definite = _assert_non_singular


def _static_list(t):
    from .op_util import constant_value  # noqa: PLC0415

    value = constant_value(t)
    return None if value is None else [int(v) for v in value]


class LinearOperatorScaledIdentity(_BaseIdentity):
    """``multiplier`` times the ``num_rows`` x ``num_rows`` identity (``multiplier``'s shape is
    the batch shape)."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorScaledIdentity"):
        if is_square is False:
            raise ValueError("A ScaledIdentity operator is always square.")
        with ops.name_scope(name, values=[multiplier, num_rows]):
            self._multiplier = ops.convert_to_tensor(multiplier, name="multiplier")
            _check_dtype(self._multiplier, "multiplier")
            self._init_sizes(num_rows, None, assert_proper_shapes)
        super().__init__(self._multiplier.dtype, [self._multiplier], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name)

    multiplier = property(lambda self: self._multiplier)

    def _shape(self):
        return self._multiplier.shape.concatenate([self._num_rows_static, self._num_rows_static])

    def _shape_tensor(self):
        rows = array_ops.reshape(self._num_rows, [1])
        return slicing_ops.concat([array_ops.shape(self._multiplier), rows, rows], 0)

    def _scale(self, adjoint):
        return array_ops.expand_dims(array_ops.expand_dims(_conj(self._multiplier, adjoint), -1), -1)

    def _matmul(self, x, adjoint, adjoint_arg):
        return self._scale(adjoint) * _maybe_adjoint(x, adjoint_arg)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return _maybe_adjoint(rhs, adjoint_arg) / self._scale(adjoint)

    def _determinant(self):
        return self._multiplier ** math_ops.cast(self._num_rows, self.dtype)

    def _log_abs_determinant(self):
        rows = math_ops.cast(self._num_rows, self.dtype.real_dtype)
        return math_ops.cast(rows * unary_ops.log(unary_ops.abs(self._multiplier)), self.dtype)

    def _to_dense(self):
        return self._scale(False) * self._eye()

    def _diag_part(self):
        return array_ops.expand_dims(self._multiplier, -1) * array_ops.ones(self.shape_tensor()[:-1],
                                                                            dtype=self.dtype)

    def _add_to_tensor(self, x):
        return x + self._to_dense()

    def _assert_non_singular(self):
        return check_ops.assert_positive(unary_ops.abs(self._multiplier), message="LinearOperator was singular")

    def _assert_positive_definite(self):
        return check_ops.assert_positive(complex_ops.real_part(self._multiplier),
                                         message="LinearOperator was not positive definite.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        with self._scope(name):
            return _assert_real(self._multiplier, "LinearOperator was not self-adjoint")


def _assert_real(t, message):
    if not t.dtype.is_complex:
        return control_flow_ops.no_op()
    imaginary = complex_ops.imag_part(t)
    return check_ops.assert_equal(imaginary, array_ops.zeros_like(imaginary), message=message)


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of ``tril`` (``[..., N, N]``; its upper triangle is not read)."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        with ops.name_scope(name, values=[tril]):
            tril = ops.convert_to_tensor(tril, name="tril")
            if tril.shape.ndims is not None and tril.shape.ndims < 2:
                raise ValueError(f"Argument tril must have at least 2 dimensions.  Found: {tril}")
            _check_dtype(tril, "tril")
            self._tril = _la.matrix_band_part(tril, -1, 0)
            self._diag = _la.matrix_diag_part(self._tril)
        super().__init__(tril.dtype, [tril], is_non_singular, is_self_adjoint, is_positive_definite, True, name)

    def _shape(self):
        return self._tril.shape

    def _shape_tensor(self):
        return array_ops.shape(self._tril)

    def _matmul(self, x, adjoint, adjoint_arg):
        return math_ops.matmul(self._tril, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint, adjoint_arg):
        return _la.matrix_triangular_solve(self._tril, _maybe_adjoint(rhs, adjoint_arg), lower=True,
                                                  adjoint=adjoint)

    def _determinant(self):
        return reduction_ops.reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        return _sum_log_abs(self._diag, self.dtype)

    def _to_dense(self):
        return self._tril

    def _diag_part(self):
        return self._diag

    def _assert_non_singular(self):
        return check_ops.assert_positive(unary_ops.abs(self._diag), message="Singular operator: Diagonal "
                                                                            "contained zero values.")
