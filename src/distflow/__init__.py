"""distflow: TensorFlow 1.x's dataflow-graph engine and distributed runtime, in Python.

``import distflow as tf`` gives the ``tf.compat.v1`` names that distflow supports.
"""

from . import errors, nn
from .framework import dtypes
from .framework.device_spec import DeviceSpec
from .framework.importer import import_graph_def
from .framework.dtypes import (DType, as_dtype, bool, double, float16, float32, float32_ref,  # noqa: A004
                               float64, float64_ref, half, int8, int16, int32, int32_ref, int64, int64_ref,
                               string, uint8)
from .framework.ops import (Graph, GraphKeys, Operation, Tensor, add_to_collection, add_to_collections,
                            colocate_with, container, control_dependencies, convert_to_tensor, device,
                            get_collection, get_collection_ref, get_default_graph, get_default_session,
                            name_scope, reset_default_graph)
from .framework.random_seed import set_random_seed
from .framework.registry import NotDifferentiable, RegisterGradient, not_differentiable
from .framework.tensor_shape import Dimension, TensorShape
from .ops.array_ops import (broadcast_to, concat, constant, expand_dims, fill, gather, identity, newaxis, one_hot, ones,
                            ones_like, pad, placeholder, placeholder_with_default, rank, reshape, shape,
                            size, slice, split, squeeze, stack, stop_gradient, strided_slice, tile,
                            transpose, unstack, zeros, zeros_like)
from .ops.clip_ops import clip_by_average_norm, clip_by_global_norm, clip_by_norm, global_norm
from .ops.control_flow_ops import group, no_op, tuple, with_dependencies
from .ops.data_flow_ops import ConditionalAccumulator, FIFOQueue, QueueBase
from .ops.gradients_impl import AggregationMethod, UnconnectedGradients, custom_gradient, gradients, hessians
from .ops.init_ops import (constant_initializer, glorot_normal_initializer, glorot_uniform_initializer,
                           ones_initializer, random_normal_initializer, random_uniform_initializer,
                           truncated_normal_initializer, variance_scaling_initializer, zeros_initializer)
from .ops.math_ops import (abs, add, add_n, argmax, argmin, cast, ceil, clip_by_value, div, divide, equal,
                           exp, floor, floordiv, floormod, greater, greater_equal, less, less_equal, log,
                           log1p, logical_and, logical_not, logical_or, logical_xor, matmul, maximum, minimum,
                           cos, mod, multiply, negative, not_equal, pow, realdiv, reciprocal, reduce_all, reduce_any,
                           reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum, round, rsqrt,
                           sigmoid, sign, sin, sqrt, square, squared_difference, subtract, tanh, to_float,
                           to_int32, to_int64, truediv, where)
from .ops.math_ops import range_ as range  # noqa: A004
from .ops.nd_ops import gather_nd, scatter_nd
from .ops.script_ops import Print, identity_n, numpy_function, print, py_func  # noqa: A004
from .ops.random_ops import random_normal, random_shuffle, random_uniform, truncated_normal
from .ops.random_shuffle_queue import RandomShuffleQueue
from .ops.state_ops import (Variable, assign, assign_add, assign_sub, count_up_to, global_variables,
                            global_variables_initializer, initialize_all_variables, is_variable_initialized,
                            local_variables, local_variables_initializer, model_variables,
                            report_uninitialized_variables, trainable_variables, variables_initializer)
from .ops.variable_scope import AUTO_REUSE, VariableScope, get_variable, get_variable_scope, variable_scope
from .protos.distflow_pb2 import AttrValue, GraphDef, MetaGraphDef, NodeDef, TensorProto, TensorShapeProto
from .runtime.config import ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunMetadata, RunOptions
from .runtime.session import InteractiveSession, Session

from . import layers, losses, train  # noqa: E402 - these build on the names above
from . import compat, data, io, metrics, random  # noqa: E402
from ._namespace import missing as _missing
from .platform import app, gfile  # noqa: E402
from .platform import flags  # noqa: E402
from .platform import tf_logging as logging  # noqa: E402

__version__ = "0.1.0"
VERSION = __version__
GRAPH_DEF_VERSION = 26  # TF 1.15's producer version, written into GraphDefs


def disable_v2_behavior() -> None:
    """Nothing to disable: distflow only has TensorFlow 1.x's behaviour (graphs and sessions)."""


def disable_eager_execution() -> None:
    """Nothing to disable: distflow always builds graphs."""


def enable_eager_execution(*args, **kwargs):
    raise NotImplementedError("distflow implements TensorFlow 1.x's graph mode only; eager execution is "
                              "not supported (see docs/compat.md)")


def executing_eagerly() -> bool:
    """Always False: distflow builds graphs and runs them with Session.run."""
    return False


__getattr__ = _missing("tf")
