"""Op families: each file registers its ops (shape, kernel, gradient) and constructors."""

from . import (array_ops, control_flow_ops, conv_ops, gradients_impl, init_ops, math_ops,  # noqa: F401
               nn_ops, random_ops, state_ops, training_ops, variable_scope)
