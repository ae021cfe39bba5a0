"""``tf.contrib.slim``: TF-Slim's layers, argument scopes and variables (layers.py and
framework.py), its losses (``tf.contrib.losses``, as TF's slim imported them: predictions or
logits first, then labels), its ``metrics`` (``tf.contrib.metrics``), ``utils`` (end points), ``model_analyzer``, and its
training and evaluation loops, ``learning`` and ``evaluation``, and its input:
``tfexample_decoder``, ``dataset``, ``data_decoder``, ``parallel_reader``, ``prefetch_queue``
and ``dataset_data_provider``. Not here: ``slim.nets`` (TF-Slim's nets, from its model
repository, run on these layers)."""

from . import losses  # noqa: F401 - (contrib's: TF-Slim's losses take logits first)
from . import metrics  # noqa: F401 - (contrib's streaming metrics, as TF's slim.metrics)
from .._namespace import missing
from . import layers_utils as utils  # noqa: F401
from . import slim_data_input as data_provider  # noqa: F401
from . import slim_data_input as dataset_data_provider  # noqa: F401
from . import slim_data_input as parallel_reader  # noqa: F401
from . import slim_data_input as prefetch_queue  # noqa: F401
from . import slim_data_input as queues  # noqa: F401
from . import slim_dataset as data_decoder  # noqa: F401
from . import slim_dataset as dataset  # noqa: F401
from . import slim_evaluation as evaluation  # noqa: F401
from . import slim_tfexample_decoder as tfexample_decoder  # noqa: F401
from . import summaries  # noqa: F401
from . import slim_learning as learning  # noqa: F401
from . import model_analyzer  # noqa: F401
from ..train import get_global_step, get_or_create_global_step  # noqa: F401
from .framework import (VariableDeviceChooser, add_arg_scope, add_model_variable, arg_scope,  # noqa: F401
                        arg_scope_func_key, arg_scoped_arguments, assert_global_step, assert_or_get_global_step,
                        assign_from_checkpoint,
                        assign_from_checkpoint_fn, assign_from_values, assign_from_values_fn, create_global_step,
                        current_arg_scope, filter_variables, get_local_variables, get_model_variables,
                        get_trainable_variables, get_unique_variable, get_variable_full_name, get_variables,
                        get_variables_by_name, get_variables_by_suffix, get_variables_to_restore, global_variable,
                        has_arg_scope, local_variable, model_variable, variable)
from .layers import (GDN, _inner_flatten, apply_regularization, avg_pool2d, avg_pool3d, batch_norm,  # noqa: F401
                     bias_add, conv1d, conv2d, conv2d_in_plane, conv2d_transpose, conv3d, conv3d_transpose,
                     convolution, convolution1d, convolution2d, convolution2d_in_plane, convolution2d_transpose,
                     convolution3d, convolution3d_transpose,
                     dense_to_sparse, dropout, gdn, elu, embed_sequence, flatten, fully_connected, group_norm,
                     images_to_sequence, instance_norm, l1_l2_regularizer, l1_regularizer, l2_regularizer,
                     layer_norm, legacy_fully_connected, legacy_linear, legacy_relu, linear, max_pool2d,
                     max_pool3d, maxout, one_hot_encoding, poincare_normalize, pool, relu, relu6, repeat,
                     scale_gradient, separable_conv2d, separable_convolution2d, sequence_to_images, softmax,
                     spatial_softmax, stack, sum_regularizer, unit_norm, variance_scaling_initializer,
                     xavier_initializer, xavier_initializer_conv2d)

__getattr__ = missing("tf.contrib.slim")
