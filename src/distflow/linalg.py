"""``tf.linalg``: matrix functions."""

from ._namespace import missing
from .ops.linalg_ops import (cholesky, cholesky_solve, matrix_solve_ls as lstsq, matrix_square_root as sqrtm,  # noqa: F401
                             qr, svd)
from .ops.linalg_ops import matrix_determinant as det  # noqa: F401
from .ops.linalg_ops import matrix_inverse as inv  # noqa: F401
from .ops.linalg_ops import matrix_solve as solve  # noqa: F401
from .ops.linalg_ops import matrix_triangular_solve as triangular_solve  # noqa: F401
from .ops.linalg_ops import self_adjoint_eig as eigh  # noqa: F401
from .ops.linalg_ops import self_adjoint_eigvals as eigvalsh  # noqa: F401
from .ops.manip_ops import eye, matrix_band_part as band_part, trace  # noqa: F401
from .ops.manip_ops import matrix_diag as diag, matrix_diag_part as diag_part, matrix_set_diag as set_diag  # noqa: F401
from .ops.manip_ops import matrix_transpose as transpose  # noqa: F401
from .ops.math_ops import matmul  # noqa: F401
from .ops.nn_impl import l2_normalize  # noqa: F401
from .ops.segment_ops import cross, einsum, norm, tensordot  # noqa: F401

from .ops.clip_ops import global_norm  # noqa: F401
from .ops.manip_ops import diag as tensor_diag, diag_part as tensor_diag_part, matrix_transpose  # noqa: F401
from .ops.math_extra import adjoint, logdet, matrix_rank, matvec, normalize, pinv, slogdet  # noqa: F401

from .ops.matrix_functions import expm, lu, lu_matrix_inverse, lu_reconstruct, lu_solve  # noqa: F401
from .ops.linear_operator import (LinearOperator, LinearOperatorDiag, LinearOperatorFullMatrix,  # noqa: F401
                                  LinearOperatorIdentity, LinearOperatorLowerTriangular, LinearOperatorScaledIdentity)
from .ops.linear_operator_composite import LinearOperatorComposition, LinearOperatorLowRankUpdate  # noqa: F401

__getattr__ = missing("tf.linalg")
