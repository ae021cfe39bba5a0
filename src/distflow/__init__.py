"""distflow: TensorFlow 1.x's dataflow-graph engine and distributed runtime, in Python.

``import distflow as tf`` gives the ``tf.compat.v1`` names that distflow supports.
"""

from .platform import memory as _memory

_memory.use_one_arena()  # (first: it holds only if set before a second heap exists)

from . import errors, nn
from .framework import dtypes
from .framework.device_spec import DeviceSpec
from .framework.importer import import_graph_def
from .framework.dtypes import (DType, as_dtype, bool, double, float16, float32, float32_ref,  # noqa: A004
                               float64, float64_ref, half, int8, int16, int32, int32_ref, int64, int64_ref,
                               string, uint8, uint16, uint32, uint64, complex64, complex128)
from .framework.ops import (Graph, GraphKeys, Operation, Tensor, add_to_collection, add_to_collections,
                            colocate_with, container, control_dependencies, convert_to_tensor, device,
                            get_collection, get_collection_ref, get_default_graph, get_default_session,
                            name_scope, reset_default_graph)
from .framework.random_seed import set_random_seed
from .framework.registry import NotDifferentiable, RegisterGradient, not_differentiable
from .framework.tensor_shape import Dimension, TensorShape
from .ops.array_ops import invert_permutation
from .ops.array_ops import (broadcast_to, constant, expand_dims, fill, identity, one_hot, ones, ones_like, pad,
                            placeholder, placeholder_with_default, rank, reshape, shape, size, squeeze, stack,
                            stop_gradient, tile, transpose, zeros, zeros_like)
from .ops.slicing_ops import concat, gather, newaxis, slice, split, strided_slice, unstack
from .ops.clip_ops import clip_by_average_norm, clip_by_global_norm, clip_by_norm, global_norm
from .ops.control_flow_ops import group, no_op, tuple, with_dependencies
from .ops.control_flow_v2 import case, cond, switch_case, while_loop
from .ops.functional_ops import foldl, foldr, map_fn, scan
from .ops.tensor_array_ops import TensorArray
from .ops.accumulator_ops import ConditionalAccumulator, ConditionalAccumulatorBase, SparseConditionalAccumulator
from .ops import collective_ops as _collective_ops  # noqa: F401 (registers the collective ops)
from .ops.data_flow_ops import FIFOQueue, PaddingFIFOQueue, QueueBase
from .ops import staging_ops as _staging_ops  # noqa: F401 (registers the staging area's ops)
from .ops.indexed_slices import IndexedSlices
from .ops.gradients_impl import AggregationMethod, UnconnectedGradients, custom_gradient, gradients, hessians
from .ops.init_ops import (constant_initializer, glorot_normal_initializer, glorot_uniform_initializer,
                           ones_initializer, orthogonal_initializer, random_normal_initializer,
                           random_uniform_initializer, truncated_normal_initializer, uniform_unit_scaling_initializer,
                           variance_scaling_initializer, zeros_initializer)
from .ops.math_ops import (abs, add, add_n, cast, ceil, clip_by_value, div, divide, equal, exp, floor, floordiv,
                           floormod, greater, greater_equal, less, less_equal, log, log1p, logical_and, logical_not,
                           logical_or, logical_xor, matmul, maximum, minimum, cos, mod, multiply, negative, not_equal,
                           pow, realdiv, reciprocal, round, rsqrt, sigmoid, sign, sin, sqrt, square,
                           squared_difference, subtract, tanh, to_float, to_int32, to_int64, truediv, where)
from .ops.reduction_ops import (argmax, argmin, reduce_all, reduce_any, reduce_max, reduce_mean, reduce_min,
                                reduce_prod, reduce_sum)
from .ops.math_ops import range_ as range  # noqa: A004
from .ops.nd_ops import gather_nd, scatter_nd
from .ops.script_ops import Print, identity_n, numpy_function, print, py_func, timestamp  # noqa: A004
from .ops.script_ops import py_func as py_function
from .ops.random_ops import (random_gamma, random_normal, random_poisson, random_shuffle, random_uniform,
                             truncated_normal)
from .ops.random_shuffle_queue import RandomShuffleQueue
from .ops.priority_queue import PriorityQueue
from .ops.state_ops import (Variable, VariableAggregation, VariableSynchronization, assign, assign_add, assign_sub, count_up_to, global_variables,
                            global_variables_initializer, initialize_all_variables, is_variable_initialized,
                            local_variables, local_variables_initializer, model_variables,
                            report_uninitialized_variables, trainable_variables, variables_initializer)
from .ops.variable_scope import AUTO_REUSE, VariableScope, get_variable, get_variable_scope, variable_scope
from .framework.ops import register_tensor_conversion_function
from .framework.random_seed import get_seed
from .framework.registry import not_differentiable as no_gradient
from .framework.tensor_util import dimension_at_index, dimension_value, is_tensor, make_ndarray, make_tensor_proto
from .ops.check_ops import (Assert, assert_equal, assert_greater, assert_greater_equal, assert_integer,
                            assert_less, assert_less_equal, assert_near, assert_negative, assert_non_negative,
                            assert_non_positive, assert_none_equal, assert_positive, assert_proper_iterable,
                            assert_rank, assert_rank_at_least, assert_rank_in, assert_same_float_dtype,
                            assert_scalar, assert_type, assert_variables_initialized, check_numerics,
                            is_non_decreasing, is_numeric_tensor, is_strictly_increasing, verify_tensor_all_finite)
from .ops.conv_ops import conv2d_backprop_filter as conv2d_backprop_filter_v2
from .ops.conv_ops import conv2d_backprop_input as conv2d_backprop_input_v2
from .ops.linalg_ops import (cholesky, cholesky_solve, matrix_determinant, matrix_inverse, matrix_solve,
                             matrix_solve_ls, matrix_square_root, matrix_triangular_solve, qr, self_adjoint_eig,
                             self_adjoint_eigvals, svd)
from .ops.manip_ops import (argsort, boolean_mask, cumprod, cumsum, depth_to_space, diag, diag_part,
                            ensure_shape, eye, lin_space, linspace, matrix_band_part, matrix_diag, matrix_diag_part,
                            matrix_set_diag, matrix_transpose, meshgrid, parallel_stack, repeat, reverse,
                            reverse_v2, roll, sequence_mask, shape_n, sort, space_to_depth, trace, unravel_index)
from .ops.deprecated_aliases import (all_variables, arg_max, arg_min, floor_div, initialize_all_tables,
                                    initialize_local_variables, initialize_variables, op_scope, to_double,
                                    variable_op_scope)
from .ops.indexed_slices import convert_to_tensor_or_indexed_slices, scalar_mul
from .ops.manip_ops import batch_gather
from .ops.math_ops import saturate_cast, sparse_matmul, where_v2
from .ops.op_util import get_static_value
from .ops.state_ops import moving_average_variables, tables_initializer, variable_creator_scope
from .ops.variable_scope import get_local_variable, no_regularizer
from .ops.partitioned_variables import (PartitionedVariable, fixed_size_partitioner, min_max_variable_partitioner,
                                        variable_axis_size_partitioner)
from .ops.variable_scope import create_partitioned_variables
from .ops.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature, SparseFeature, VarLenFeature,
                               parse_example, parse_single_example, parse_single_sequence_example)
from .ops.array_ops import broadcast_dynamic_shape, broadcast_static_shape, guarantee_const
from .ops.file_ops import matching_files, read_file, write_file
from .ops.gradients_impl import grad_pass_through, recompute_grad
from .ops.histogram_ops import histogram_fixed_width, histogram_fixed_width_bins, searchsorted
from .ops.math_ops import accumulate_n
from .ops.random_ops import multinomial, random_crop
from .ops.sequence_ops import reverse_sequence
from .ops.session_ops import delete_session_tensor, get_session_handle, get_session_tensor
from .ops.special_functions import digamma, lbeta, lgamma
from .ops.template import make_template
from .ops.tensor_serialization_ops import parse_tensor, serialize_tensor
from .ops.io_readers import (FixedLengthRecordReader, IdentityReader, ReaderBase, TextLineReader, TFRecordReader,
                             WholeFileReader, decode_csv, decode_raw)
from .ops.complex_ops import angle, conj, fft, fft2d, fft3d, ifft, ifft2d, ifft3d, to_complex64, to_complex128
from .ops.complex_ops import complex_ as complex  # noqa: A004 - TensorFlow's name
from .ops.complex_ops import imag_part as imag
from .ops.complex_ops import real_part as real
from .ops.bitcast_ops import bitcast
from .ops.check_ops import add_check_numerics_ops
from .ops.convolution_ops import extract_image_patches, extract_volume_patches
from .ops.sequence_ops import edit_distance
from .ops.parsing_ops import decode_compressed, decode_json_example
from .ops.scatter_ops import batch_scatter_update
from .ops.fake_quant_ops import (fake_quant_with_min_max_args, fake_quant_with_min_max_args_gradient,
                                 fake_quant_with_min_max_vars, fake_quant_with_min_max_vars_gradient,
                                 fake_quant_with_min_max_vars_per_channel,
                                 fake_quant_with_min_max_vars_per_channel_gradient)
from .ops.special_functions import betainc, igamma, igammac, polygamma, zeta
from .ops.space_batch_ops import (batch_to_space, batch_to_space_nd, required_space_to_batch_paddings,
                                  space_to_batch, space_to_batch_nd)
from .ops.sparse_ops import (SparseTensor, SparseTensorValue, convert_to_tensor_or_sparse_tensor,
                             deserialize_many_sparse, deserialize_sparse, serialize_many_sparse, serialize_sparse,
                             sparse_add, sparse_concat, sparse_fill_empty_rows,
                             sparse_mask, sparse_maximum, sparse_merge, sparse_minimum, sparse_placeholder,
                             sparse_reduce_max, sparse_reduce_max_sparse, sparse_reduce_sum, sparse_reduce_sum_sparse,
                             sparse_reorder, sparse_reset_shape, sparse_reshape, sparse_retain, sparse_segment_mean,
                             sparse_segment_sqrt_n, sparse_segment_sum, sparse_slice, sparse_softmax, sparse_split,
                             sparse_tensor_dense_matmul, sparse_tensor_to_dense, sparse_to_dense, sparse_to_indicator,
                             sparse_transpose, string_split)
from .ops.string_ops import (as_string, decode_base64, encode_base64, reduce_join, regex_replace, string_join,
                             string_strip, string_to_number, substr)
from .ops.hash_ops import fingerprint, string_to_hash_bucket, string_to_hash_bucket_fast, string_to_hash_bucket_strong
from .ops.scatter_ops import (scatter_add, scatter_div, scatter_max, scatter_min, scatter_mul, scatter_nd_add,
                              scatter_nd_sub, scatter_nd_update, scatter_sub, scatter_update, tensor_scatter_add,
                              tensor_scatter_nd_add, tensor_scatter_nd_sub, tensor_scatter_nd_update,
                              tensor_scatter_sub, tensor_scatter_update)
from .ops.segment_ops import (bincount, confusion_matrix, count_nonzero, cross, dynamic_partition, dynamic_stitch,
                              einsum, norm, reduce_logsumexp, segment_max, segment_mean, segment_min, segment_prod,
                              segment_sum, setdiff1d, tensordot, unique, unique_with_counts, unsorted_segment_max,
                              unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod,
                              unsorted_segment_sqrt_n, unsorted_segment_sum)
from .ops.special_math_ops import (acos, acosh, asin, asinh, atan, atan2, atanh, cosh, div_no_nan, erf, erfc,
                                   expm1, is_finite, is_inf, is_nan, rint, sinh, tan, truncatediv,
                                   truncatemod)
from .ops.nn_impl import log_sigmoid
from .protos.distflow_pb2 import (AttrValue, Event, GraphDef, HistogramProto, LogMessage, MetaGraphDef, NodeDef,
                                  SessionLog, Summary, SummaryMetadata, TensorInfo, TensorProto, TensorShapeProto)
from .runtime.config import ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunMetadata, RunOptions
from .runtime.session import IndexedSlicesValue, InteractiveSession, Session, register_remote_session


def _grpc_sessions():
    """The gRPC session, imported when a program first makes one (a local program never loads gRPC)."""
    from .distributed import grpc_session  # noqa: PLC0415

    return grpc_session


register_remote_session("grpc://", _grpc_sessions)

from . import layers, losses, train  # noqa: E402 - these build on the names above
from . import compat, data, debugging, initializers, io, linalg, manip, math, metrics, queue, random  # noqa: E402
from . import audio, bitwise, graph_util, image, lookup, nest, python_io, resource_loader, signal, sparse, spectral  # noqa: E402
from . import quantization, sets, strings, summary, test  # noqa: E402
from . import contrib  # noqa: E402
from . import config, distribute, estimator, feature_column, saved_model  # noqa: E402
# (TF 1.14-1.15's home of the resolvers, tf.contrib.cluster_resolver's: the distribute package
# sits below the runtime that reads clusters, so the name is joined here)
distribute.cluster_resolver = contrib.cluster_resolver
from . import keras  # noqa: E402
from . import distributions, profiler  # noqa: E402
from . import version  # noqa: E402
from .framework.errors import OpError  # noqa: E402
from ._namespace import missing as _missing
from .platform import app, gfile  # noqa: E402
from .platform import flags  # noqa: E402
from .platform import tf_logging as logging  # noqa: E402

logging.show_info_on_terminal()

__version__ = version.VERSION  # (the TF 1.x API level; distflow's own release: version.DISTFLOW_VERSION)
VERSION = version.VERSION
GIT_VERSION = version.GIT_VERSION
COMPILER_VERSION = version.COMPILER_VERSION
GRAPH_DEF_VERSION = version.GRAPH_DEF_VERSION  # TF 1.15's producer version, written into GraphDefs
GRAPH_DEF_VERSION_MIN_CONSUMER = version.GRAPH_DEF_VERSION_MIN_CONSUMER
GRAPH_DEF_VERSION_MIN_PRODUCER = version.GRAPH_DEF_VERSION_MIN_PRODUCER
NoGradient = no_gradient
CXX11_ABI_FLAG = 0  # facts of a native build: distflow has none
MONOLITHIC_BUILD = 0
CXX_VERSION = ""


def get_logger():
    """The ``distflow`` logger (TF's ``tf.get_logger()`` returns its own)."""
    return logging.get_logger()


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
