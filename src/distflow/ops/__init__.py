"""Op families: each file registers its ops (shape, kernel, gradient) and constructors."""

from . import (array_ops, control_flow_ops, gradients_impl, init_ops, math_ops, random_ops,  # noqa: F401
               state_ops)
