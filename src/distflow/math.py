"""``tf.math``: the elementwise and reduction math ops under their TF 1.13+ names."""

from ._namespace import missing
from .ops.manip_ops import cumprod, cumsum  # noqa: F401
from .ops.math_ops import (abs, add, add_n, ceil, cos, divide, equal, exp, floor, floordiv, floormod, greater,  # noqa: F401,A004
                           greater_equal, less, less_equal, log, log1p, logical_and, logical_not, logical_or,
                           logical_xor, maximum, minimum, multiply, negative, not_equal, pow, reciprocal, round,
                           rsqrt, sigmoid, sign, sin, sqrt, square, squared_difference, subtract, tanh, truediv)
from .ops.reduction_ops import (argmax, argmin, reduce_all, reduce_any, reduce_max, reduce_mean, reduce_min,  # noqa: F401,A004
                                reduce_prod, reduce_sum)
from .ops.math_ops import floormod as mod  # noqa: F401
from .ops.math_ops import realdiv  # noqa: F401
from .ops.special_functions import digamma, lbeta, lgamma  # noqa: F401
from .ops.complex_ops import angle, conj  # noqa: F401
from .ops.special_functions import betainc, igamma, igammac, polygamma, zeta  # noqa: F401
from .ops.special_functions import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, erfinv, ndtri  # noqa: F401
from .ops.complex_ops import imag_part as imag  # noqa: F401
from .ops.complex_ops import real_part as real  # noqa: F401
from .ops.nn_impl import l2_normalize, softplus, softsign, top_k as top_k  # noqa: F401
from .ops.nn_impl import in_top_k  # noqa: F401
from .ops.segment_ops import (bincount, confusion_matrix, count_nonzero, reduce_logsumexp,  # noqa: F401
                              segment_max, segment_mean, segment_min, segment_prod, segment_sum, unsorted_segment_max,
                              unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod,
                              unsorted_segment_sqrt_n, unsorted_segment_sum)
from .ops.special_math_ops import (acos, acosh, asin, asinh, atan, atan2, atanh, cosh, div_no_nan, erf,  # noqa: F401
                                   erfc, expm1, is_finite, is_inf, is_nan, rint, sinh, tan, truncatediv,
                                   truncatemod)
from .ops.nn_impl import log_sigmoid  # noqa: F401

from .ops.array_ops import invert_permutation  # noqa: F401
from .ops.check_ops import is_non_decreasing, is_strictly_increasing  # noqa: F401
from .ops.indexed_slices import scalar_mul  # noqa: F401
from .ops.math_extra import (cumulative_logsumexp, multiply_no_nan, polyval, reciprocal_no_nan,  # noqa: F401
                             reduce_euclidean_norm, reduce_std, reduce_variance, xdivy, xlog1py, xlogy)
from .ops.math_ops import accumulate_n  # noqa: F401
from .ops.nn_impl import zero_fraction  # noqa: F401
from .ops.nn_ops import log_softmax, softmax  # noqa: F401
from .ops.special_math_ops import div_no_nan as divide_no_nan  # noqa: F401

__getattr__ = missing("tf.math")
