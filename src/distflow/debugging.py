"""``tf.debugging``: assertions and numeric checks."""

from ._namespace import missing
from .ops.check_ops import (Assert, assert_equal, assert_greater, assert_greater_equal, assert_integer,  # noqa: F401
                            assert_less, assert_less_equal, assert_near, assert_negative, assert_non_negative,
                            assert_non_positive, assert_none_equal, assert_positive, assert_proper_iterable,
                            assert_rank, assert_rank_at_least, assert_rank_in, assert_same_float_dtype,
                            assert_scalar, assert_type, check_numerics, is_non_decreasing, is_numeric_tensor,
                            is_strictly_increasing)
from .ops.special_math_ops import is_finite, is_inf, is_nan  # noqa: F401

from .ops.check_ops import verify_tensor_all_finite as assert_all_finite  # noqa: F401

__getattr__ = missing("tf.debugging")
