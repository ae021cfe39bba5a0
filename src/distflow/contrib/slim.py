"""``tf.contrib.slim``: TF-Slim's layers, argument scopes and variables (layers.py and
framework.py), and its losses (``tf.losses``). Not here: ``slim.learning`` (its training
loop), ``slim.evaluation`` and ``slim.nets``."""

from .. import losses  # noqa: F401
from .._namespace import missing
from ..train import get_global_step, get_or_create_global_step  # noqa: F401
from .framework import (add_arg_scope, arg_scope, arg_scoped_arguments, assign_from_checkpoint_fn,  # noqa: F401
                        current_arg_scope, get_model_variables, get_trainable_variables, get_variables,
                        get_variables_by_name, get_variables_to_restore, has_arg_scope, model_variable, variable)
from .layers import (apply_regularization, avg_pool2d, avg_pool3d, batch_norm, bias_add, conv1d,  # noqa: F401
                     conv2d, conv2d_transpose, conv3d, convolution, convolution2d, convolution2d_transpose, dropout,
                     elu, embed_sequence, flatten, fully_connected, group_norm, instance_norm, l1_l2_regularizer,
                     l1_regularizer, l2_regularizer, layer_norm, linear, max_pool2d, max_pool3d, one_hot_encoding,
                     relu, relu6, repeat, separable_conv2d, separable_convolution2d, softmax, stack,
                     sum_regularizer, unit_norm, variance_scaling_initializer, xavier_initializer,
                     xavier_initializer_conv2d)

__getattr__ = missing("tf.contrib.slim")
