"""The LinearOperators made of others: ``LinearOperatorComposition([A1, A2, ...])``, the
product ``A1 A2 ...`` applied right to left, and ``LinearOperatorLowRankUpdate(base, u,
diag_update, v)``, ``base + U D V^H``, solved by Woodbury's identity and its determinant by
the matrix determinant lemma (linear_operator.py has the protocol)."""

from __future__ import annotations

from ..framework import ops
from ..framework.tensor_shape import TensorShape
from . import array_ops, math_ops, slicing_ops
from .linear_operator import LinearOperator, LinearOperatorDiag, _la, _maybe_adjoint


class LinearOperatorComposition(LinearOperator):
    """``operators[0] operators[1] ...``: applied right to left."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        operators = list(operators)
        if not operators:
            raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
        dtype = operators[0].dtype
        for op in operators:
            if op.dtype != dtype:
                raise TypeError(f"Expected all operators to have the same dtype.  Found {op.dtype.name} in "
                                f"{op.name} and {dtype.name} in {operators[0].name}.")
        if all(op.is_non_singular for op in operators):
            if is_non_singular is False:
                raise ValueError("The composition of non-singular operators is always non-singular.")
            is_non_singular = True
        self._operators = operators
        super().__init__(dtype, [p for op in operators for p in op.graph_parents], is_non_singular,
                         is_self_adjoint, is_positive_definite, is_square,
                         name or "_o_".join(op.name for op in operators))

    operators = property(lambda self: list(self._operators))

    def _shape(self):
        shape = self._operators[0].shape
        batch = shape[:-2]
        for op in self._operators[1:]:
            batch = _broadcast_static(batch, op.batch_shape)
        return batch.concatenate([shape[-2], self._operators[-1].shape[-1]])

    def _shape_tensor(self):
        batch = self._operators[0].batch_shape_tensor()
        for op in self._operators[1:]:
            batch = array_ops.broadcast_dynamic_shape(batch, op.batch_shape_tensor())
        return slicing_ops.concat([batch, self._operators[0].shape_tensor()[-2:-1],
                                   self._operators[-1].shape_tensor()[-1:]], 0)

    def _matmul(self, x, adjoint, adjoint_arg):
        # A1 A2 ... x, or (A1 A2 ...)^H x = ... A2^H A1^H x
        order = self._operators if adjoint else self._operators[::-1]
        out = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            out = op.matmul(out, adjoint=adjoint)
        return out

    def _solve(self, rhs, adjoint, adjoint_arg):
        order = self._operators[::-1] if adjoint else self._operators
        out = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            out = op.solve(out, adjoint=adjoint)
        return out

    def _determinant(self):
        result = self._operators[0].determinant()
        for op in self._operators[1:]:
            result = result * op.determinant()
        return result

    def _log_abs_determinant(self):
        result = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            result = result + op.log_abs_determinant()
        return result


def _broadcast_static(a: TensorShape, b: TensorShape) -> TensorShape:
    if a.ndims is None or b.ndims is None:
        return TensorShape(None)
    a_dims, b_dims = [d.value for d in a.dims], [d.value for d in b.dims]
    n = max(len(a_dims), len(b_dims))
    a_dims, b_dims = [1] * (n - len(a_dims)) + a_dims, [1] * (n - len(b_dims)) + b_dims
    out = []
    for x, y in zip(a_dims, b_dims):
        if x == 1:
            out.append(y)
        elif y == 1 or y is None or x == y:
            out.append(x)
        elif x is None:
            out.append(y)
        else:
            raise ValueError(f"Incompatible batch shapes {a} and {b}")
    return TensorShape(out)


class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + U D V^H``: ``u`` and ``v`` ``[..., N, K]`` (``v`` is ``u`` when not
    given), ``D`` the diagonal ``diag_update`` (the identity when not given)."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        if is_square is False:
            raise ValueError("A LinearOperatorLowRankUpdate is always square.")
        self._use_cholesky = (base_operator.is_positive_definite and v is None and
                              (diag_update is None or is_diag_update_positive))
        if self._use_cholesky:  # (a sum of positive-definite operators: positive definite)
            if is_positive_definite is False or is_non_singular is False:
                raise ValueError("The update is positive definite: the operator cannot be singular or not positive "
                                 "definite.")
            is_positive_definite = is_non_singular = True
            is_self_adjoint = True if is_self_adjoint is None else is_self_adjoint
        with ops.name_scope(name, values=[u, diag_update, v]):
            self._u = ops.convert_to_tensor(u, name="u")
            self._v = self._u if v is None else ops.convert_to_tensor(v, name="v")
            self._diag = None if diag_update is None else ops.convert_to_tensor(diag_update, name="diag_update")
            for t, what in ((self._u, "u"), (self._v, "v")):
                if t.dtype.base_dtype != base_operator.dtype:
                    raise TypeError(f"Expected {what} to have dtype {base_operator.dtype.name}, got "
                                    f"{t.dtype.base_dtype.name}")
            self._base = base_operator
            self._diag_operator = LinearOperatorDiag(self._diag, is_positive_definite=is_diag_update_positive) \
                if self._diag is not None else None
        super().__init__(base_operator.dtype, base_operator.graph_parents + [self._u, self._v], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name)

    base_operator = property(lambda self: self._base)
    u = property(lambda self: self._u)
    v = property(lambda self: self._v)
    diag_update = property(lambda self: self._diag)
    diag_operator = property(lambda self: self._diag_operator)

    def _shape(self):
        return self._base.shape

    def _shape_tensor(self):
        return self._base.shape_tensor()

    def _d(self, x, adjoint=False):
        return x if self._diag_operator is None else self._diag_operator.matmul(x, adjoint=adjoint)

    def _matmul(self, x, adjoint, adjoint_arg):
        # (L + U D V^H) x, or (L^H + V D^H U^H) x
        left, right = (self._v, self._u) if adjoint else (self._u, self._v)
        x = _maybe_adjoint(x, adjoint_arg)
        low_rank = math_ops.matmul(left, self._d(math_ops.matmul(right, x, adjoint_a=True), adjoint))
        return self._base.matmul(x, adjoint=adjoint) + low_rank

    def _capacitance(self, adjoint=False):
        """C = D^-1 + V^H L^-1 U (with L^H and the roles of U and V swapped for the adjoint)."""
        left, right = (self._v, self._u) if adjoint else (self._u, self._v)
        inner = math_ops.matmul(right, self._base.solve(left, adjoint=adjoint), adjoint_a=True)
        if self._diag_operator is None:
            return inner + _la.eye(array_ops.shape(inner)[-1], dtype=self.dtype)
        return self._diag_operator.solve(_la.eye(array_ops.shape(inner)[-1], dtype=self.dtype),
                                         adjoint=adjoint) + inner

    def _solve(self, rhs, adjoint, adjoint_arg):
        # Woodbury: A^-1 b = L^-1 b - L^-1 U C^-1 V^H L^-1 b
        left, right = (self._v, self._u) if adjoint else (self._u, self._v)
        rhs = _maybe_adjoint(rhs, adjoint_arg)
        base_solved = self._base.solve(rhs, adjoint=adjoint)
        correction = _la.matrix_solve(self._capacitance(adjoint),
                                             math_ops.matmul(right, base_solved, adjoint_a=True))
        return base_solved - self._base.solve(math_ops.matmul(left, correction), adjoint=adjoint)

    def _determinant(self):
        # the matrix determinant lemma: det(L + U D V^H) = det(C) det(D) det(L)
        det = _la.matrix_determinant(self._capacitance()) * self._base.determinant()
        return det if self._diag_operator is None else det * self._diag_operator.determinant()

    def _log_abs_determinant(self):
        result = _la.slogdet(self._capacitance())[1] + self._base.log_abs_determinant()
        return result if self._diag_operator is None else result + self._diag_operator.log_abs_determinant()
