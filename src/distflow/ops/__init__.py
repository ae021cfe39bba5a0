"""Op families: each file registers its ops (shape, kernel, gradient) and constructors.

The core array and math ops keep their gradients in array_grad.py and math_grad.py, as
TensorFlow does: a gradient is built from ops of many files, which the forward files
must not import (they are what those files are built on). Importing this package
registers them.
"""

from . import (array_grad, array_ops, control_flow_ops, control_flow_v2, conv_ops, function_ops,  # noqa: F401
               functional_ops, gradients_impl, init_ops, list_ops, math_grad, math_ops, nn_ops, random_ops,
               resource_variable_ops, stack_ops, state_ops, tensor_array_ops, tensor_array_v3, tf_graph_ops,
               training_ops, variable_scope)
