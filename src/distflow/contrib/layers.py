"""``tf.contrib.layers`` (and TF-Slim's layers): the layer functions, initializers and
regularizers that TF 1.x models written with contrib or slim use, with their variable
names (``fully_connected/weights``, ``Conv/biases``, ``BatchNorm/moving_mean``...) and
defaults (ReLU, Xavier weights), each taking defaults from ``arg_scope``.

A layer's variables are model variables (framework.py); ``variables_collections`` (a list,
or a dict by variable name) adds them to more collections, ``outputs_collections`` adds the
output, whose ``aliases`` end with the layer's scope. With a ``normalizer_fn`` a layer has no
biases: the normalizer's output is activated.
"""

from __future__ import annotations

import contextlib
import functools
import math
import numbers

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..layers.normalization import batch_normalization as _layers_batch_normalization
from ..ops import (array_ops, conv3d_ops, conv_ops, convolution_ops, init_ops, math_ops, nn_impl, nn_ops,
                   random_ops, reduction_ops, segment_ops, unary_ops)
from ..ops import variable_scope as vs
from ..ops.control_flow_v2 import cond
from ..train.moving_averages import assign_moving_average
from .framework import add_arg_scope, arg_scope_func_key, current_arg_scope, model_variable
from .initializers import variance_scaling_initializer, xavier_initializer, xavier_initializer_conv2d  # noqa: F401
from .layers_more import (GDN, _inner_flatten, conv2d_in_plane, convolution2d_in_plane,  # noqa: F401
                          dense_to_sparse, dense_to_sparse_tensor, gdn, images_to_sequence,
                          indicators_to_sparse_ids, legacy_fully_connected, legacy_linear, legacy_relu, maxout,
                          poincare_normalize, pool, recompute_grad, scale_gradient, sequence_to_images,
                          sparse_row_envelope, spatial_softmax)
from .rev_block import RevBlock, rev_block  # noqa: F401
from .layers_utils import collect_named_outputs, constant_value, finish_layer, get_variable_collections
from .regularizers import (apply_regularization, l1_l2_regularizer, l1_regularizer, l2_regularizer,  # noqa: F401
                           sum_regularizer)
from .summaries import (summarize_activation, summarize_activations, summarize_biases,  # noqa: F401
                        summarize_collection, summarize_tensor, summarize_tensors, summarize_variables,
                        summarize_weights)
from .layers_feature_columns import (bucketized_column, check_feature_columns,  # noqa: F401
                                     create_feature_spec_for_parsing, crossed_column, embedding_column,
                                     infer_real_valued_columns, input_from_feature_columns,
                                     joint_weighted_sum_from_feature_columns,
                                     make_place_holder_tensors_for_base_features, one_hot_column,
                                     parse_feature_columns_from_examples, real_valued_column,
                                     shared_embedding_columns, sparse_column_with_hash_bucket,
                                     sparse_column_with_integerized_feature, sparse_column_with_keys,
                                     sparse_column_with_vocabulary_file, transform_features,
                                     weighted_sparse_column, weighted_sum_from_feature_columns)
from .layers_more import bow_encoder, embedding_lookup_unique  # noqa: F401
from ..ops.nn_impl import safe_embedding_lookup_sparse  # noqa: F401
from .optimizers import OPTIMIZER_CLS_NAMES, OPTIMIZER_SUMMARIES, adaptive_clipping_fn, optimize_loss  # noqa: F401

# -- layers ----------------------------------------------------------------------------------

@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                    weights_initializer=xavier_initializer(), weights_regularizer=None,
                    biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                    variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """``activation_fn(inputs @ weights + biases)`` over the last axis of ``inputs``."""
    if not isinstance(num_outputs, numbers.Integral):
        raise ValueError(f"num_outputs should be int or long, got {num_outputs}.")
    with vs.variable_scope(scope, "fully_connected", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        depth = inputs.shape[-1].value if rank else None
        if depth is None:
            raise ValueError(f"fully_connected: the last dimension of the inputs must be known, got {inputs.shape}")
        dtype = inputs.dtype.base_dtype
        weights = model_variable("weights", [depth, int(num_outputs)], dtype, weights_initializer,
                                 weights_regularizer, trainable, get_variable_collections(variables_collections,
                                                                                       "weights"))
        if rank == 2:
            outputs = math_ops.matmul(inputs, weights)
        else:
            outputs = segment_ops.tensordot(inputs, weights, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape[:-1].concatenate([int(num_outputs)]))
        outputs = finish_layer(outputs, int(num_outputs), activation_fn, normalizer_fn, normalizer_params,
                          biases_initializer, biases_regularizer, variables_collections, trainable, dtype)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


def _tuple(value, n: int, name: str) -> list:
    if isinstance(value, numbers.Integral):
        return [int(value)] * n
    value = [int(v) for v in value]
    if len(value) != n:
        raise ValueError(f"{name} must be an int or a list of {n} ints, got {value}")
    return value


@add_arg_scope
def convolution(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None, rate=1,
                activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                weights_initializer=xavier_initializer(), weights_regularizer=None,
                biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                variables_collections=None, outputs_collections=None, trainable=True, scope=None, conv_dims=None):
    """An n-D convolution (n from ``inputs``' rank, or ``conv_dims``): weights
    ``[*kernel_size, in, num_outputs]``, then biases (or the normalizer) and the activation."""
    with vs.variable_scope(scope, "Conv", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        if rank is None:
            raise ValueError(f"convolution: the rank of the inputs must be known, got {inputs.shape}")
        n = rank - 2
        if conv_dims is not None and conv_dims != n:
            raise ValueError(f"Convolution expects input with rank {conv_dims + 2}, got {rank} ({inputs.shape})")
        if n not in (1, 2, 3):
            raise ValueError(f"Convolution not supported for input with rank {rank}")
        channels_first = data_format is not None and data_format.startswith("NC")
        channels = inputs.shape[1 if channels_first else -1].value
        if channels is None:
            raise ValueError(f"convolution: the channel dimension of the inputs must be known, got {inputs.shape}")
        dtype = inputs.dtype.base_dtype
        kernel = _tuple(kernel_size, n, "kernel_size")
        weights = model_variable("weights", kernel + [channels, int(num_outputs)], dtype, weights_initializer,
                                 weights_regularizer, trainable,
                                 get_variable_collections(variables_collections, "weights"))
        strides, rates = _tuple(stride, n, "stride"), _tuple(rate, n, "rate")
        outputs = convolution_ops.convolution(inputs, weights, padding, strides=strides, dilation_rate=rates,
                                     data_format=data_format)
        outputs = finish_layer(outputs, int(num_outputs), activation_fn, normalizer_fn, normalizer_params,
                          biases_initializer, biases_regularizer, variables_collections, trainable, dtype,
                          "NCHW" if channels_first and n == 2 else None)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def convolution1d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None, rate=1, **kwargs):
    return convolution(inputs, num_outputs, kernel_size, stride, padding, data_format, rate, conv_dims=1, **kwargs)


@add_arg_scope
def convolution2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None, rate=1, **kwargs):
    return convolution(inputs, num_outputs, kernel_size, stride, padding, data_format, rate, conv_dims=2, **kwargs)


@add_arg_scope
def convolution3d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None, rate=1, **kwargs):
    return convolution(inputs, num_outputs, kernel_size, stride, padding, data_format, rate, conv_dims=3, **kwargs)


conv1d, conv2d, conv3d = convolution1d, convolution2d, convolution3d


_TRANSPOSE_FORMATS = {2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def _convolution_transpose(n, inputs, num_outputs, kernel_size, stride, padding, data_format, activation_fn,
                           normalizer_fn, normalizer_params, weights_initializer, weights_regularizer,
                           biases_initializer, biases_regularizer, reuse, variables_collections, outputs_collections,
                           trainable, scope):
    """The transpose of an ``n``-D convolution (see convolution2d_transpose)."""
    if data_format not in _TRANSPOSE_FORMATS[n]:
        raise ValueError(f"data_format has to be either {' or '.join(_TRANSPOSE_FORMATS[n][::-1])}.")
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    padding = padding.upper()  # (any case, as TF's layers take it)
    first = data_format.startswith("NC")
    with vs.variable_scope(scope, f"Conv{n}d_transpose", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        channels = inputs.shape[1 if first else -1].value
        dtype = inputs.dtype.base_dtype
        kernel = _tuple(kernel_size, n, "kernel_size")
        strides = _tuple(stride, n, "stride")
        weights = model_variable("weights", [*kernel, int(num_outputs), channels], dtype, weights_initializer,
                                 weights_regularizer, trainable,
                                 get_variable_collections(variables_collections, "weights"))
        dims = array_ops.shape(inputs)
        axes = list(range(2, 2 + n)) if first else list(range(1, 1 + n))

        def size(d, k, s):
            return d * s if padding == "SAME" else d * s + max(k - s, 0)

        spatial = [size(dims[a], k, st) for a, k, st in zip(axes, kernel, strides)]
        out_shape = array_ops.stack([dims[0], int(num_outputs), *spatial] if first else
                                    [dims[0], *spatial, int(num_outputs)])
        full_strides = [1, 1, *strides] if first else [1, *strides, 1]
        transpose = conv_ops.conv2d_transpose if n == 2 else conv3d_ops.conv3d_transpose
        outputs = transpose(inputs, weights, out_shape, full_strides, padding, data_format=data_format)
        static = [None if inputs.shape[a].value is None else size(inputs.shape[a].value, k, st)
                  for a, k, st in zip(axes, kernel, strides)]
        outputs.set_shape([inputs.shape[0].value, int(num_outputs), *static] if first else
                          [inputs.shape[0].value, *static, int(num_outputs)])
        outputs = finish_layer(outputs, int(num_outputs), activation_fn, normalizer_fn, normalizer_params,
                               biases_initializer, biases_regularizer, variables_collections, trainable, dtype,
                               "NCHW" if first else None)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def convolution2d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format="NHWC",
                            activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                            weights_initializer=xavier_initializer(), weights_regularizer=None,
                            biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                            variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """The transpose of a 2-D convolution: weights ``[kh, kw, num_outputs, in]``; the output is
    ``stride`` times the input (``SAME``), plus the kernel's overhang (``VALID``)."""
    return _convolution_transpose(2, inputs, num_outputs, kernel_size, stride, padding, data_format, activation_fn,
                                  normalizer_fn, normalizer_params, weights_initializer, weights_regularizer,
                                  biases_initializer, biases_regularizer, reuse, variables_collections,
                                  outputs_collections, trainable, scope)


@add_arg_scope
def convolution3d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format="NDHWC",
                            activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                            weights_initializer=xavier_initializer(), weights_regularizer=None,
                            biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                            variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """The transpose of a 3-D convolution: weights ``[kd, kh, kw, num_outputs, in]`` (see
    convolution2d_transpose)."""
    return _convolution_transpose(3, inputs, num_outputs, kernel_size, stride, padding, data_format, activation_fn,
                                  normalizer_fn, normalizer_params, weights_initializer, weights_regularizer,
                                  biases_initializer, biases_regularizer, reuse, variables_collections,
                                  outputs_collections, trainable, scope)


conv2d_transpose = convolution2d_transpose
conv3d_transpose = convolution3d_transpose


def _pool(kind, inputs, kernel_size, stride, padding, data_format, outputs_collections, scope, default):
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with ops.name_scope(scope, default, [inputs]) as sc:
        kh, kw = _tuple(kernel_size, 2, "kernel_size")
        sh, sw = _tuple(stride, 2, "stride")
        shape = [1, 1, kh, kw] if data_format == "NCHW" else [1, kh, kw, 1]
        strides = [1, 1, sh, sw] if data_format == "NCHW" else [1, sh, sw, 1]
        outputs = kind(inputs, shape, strides, padding, data_format=data_format)
        return collect_named_outputs(outputs_collections, sc, outputs)


@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC", outputs_collections=None,
               scope=None):
    return _pool(conv_ops.max_pool, inputs, kernel_size, stride, padding, data_format, outputs_collections, scope,
                 "MaxPool2D")


@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC", outputs_collections=None,
               scope=None):
    return _pool(conv_ops.avg_pool, inputs, kernel_size, stride, padding, data_format, outputs_collections, scope,
                 "AvgPool2D")


@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """``inputs`` as ``[batch, everything else]``."""
    with ops.name_scope(scope, "Flatten", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        if inputs.shape.ndims is not None and inputs.shape.ndims < 1:
            raise ValueError(f"Inputs must have a least 1 dimension, got {inputs.shape}")
        if inputs.shape.ndims == 1:  # (a batch of scalars: [batch, 1], as TF 1.15)
            inputs = array_ops.expand_dims(inputs, 1)
        rest = inputs.shape[1:].num_elements() if inputs.shape.ndims is not None else None
        outputs = array_ops.reshape(inputs, [-1, rest] if rest is not None else
                                    array_ops.stack([array_ops.shape(inputs)[0], -1]))
        if inputs.shape.ndims is not None:
            outputs.set_shape([inputs.shape[0].value, rest])
        return collect_named_outputs(outputs_collections, sc, outputs)


@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True, outputs_collections=None, scope=None,
            seed=None):
    """``tf.nn.dropout`` while ``is_training`` (a bool or a boolean tensor), the inputs otherwise."""
    with ops.name_scope(scope, "Dropout", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        if is_training is False:
            outputs = array_ops.identity(inputs)
        else:
            dropped = nn_ops.dropout(inputs, rate=1.0 - keep_prob, noise_shape=noise_shape, seed=seed)
            outputs = dropped if is_training is True else cond(
                ops.convert_to_tensor(is_training, dtypes.bool), lambda: dropped, lambda: inputs)
        return collect_named_outputs(outputs_collections, sc, outputs)


@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001, activation_fn=None,
               param_initializers=None, param_regularizers=None, updates_collections=GraphKeys.UPDATE_OPS,
               is_training=True, reuse=None, variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC", zero_debias_moving_mean=False, scope=None,
               renorm=False, renorm_clipping=None, renorm_decay=0.99, adjustment=None):
    """Batch normalization over every axis but the channels' (``tf.layers.batch_normalization``
    with contrib's defaults: decay 0.999, no gamma unless ``scale``). The moving averages'
    updates go to ``updates_collections``; with None the output waits for them (updated
    in place, as TF's). Every variable made in its scope is a model variable.

    ``batch_weights`` (one per example) weighs the batch's moments; with
    ``zero_debias_moving_mean`` the moving mean is debiased (``moving_mean/biased`` and
    ``local_step``: see ``assign_moving_average``).
    """
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    inputs = ops.convert_to_tensor(inputs)
    rank = inputs.shape.ndims
    if rank is None:
        raise ValueError(f"Inputs {inputs.name} has undefined rank.")
    axis = 1 if data_format == "NCHW" and rank > 2 else rank - 1
    if inputs.shape[axis].value is None:
        raise ValueError(f"Inputs {inputs.name} has undefined channels dimension {inputs.shape}.")
    initializers = dict(param_initializers or {})
    regularizers = dict(param_regularizers or {})
    updates = ops.get_collection_ref(GraphKeys.UPDATE_OPS)
    before = len(updates)
    with vs.variable_scope(scope, "BatchNorm", [inputs], reuse=reuse, custom_getter=_model_variable_getter) as sc:
        # (TF 1.x ran its fused kernel, and so Bessel's correction, for 2-D inputs too: contrib's own path)
        fused_2d = rank == 2 and fused is not False and not renorm and adjustment is None
        if batch_weights is not None or zero_debias_moving_mean or fused_2d:
            if renorm or adjustment is not None:
                raise ValueError("batch_norm: renorm and adjustment cannot be combined with batch_weights or "
                                 "zero_debias_moving_mean")
            outputs = _weighted_batch_norm(inputs, axis, decay, center, scale, epsilon, initializers, regularizers,
                                           is_training, trainable, batch_weights, zero_debias_moving_mean, fused)
        else:
            outputs = _layers_batch_normalization(
                inputs, axis=axis, momentum=decay, epsilon=epsilon, center=center, scale=scale,
                beta_initializer=initializers.get("beta", init_ops.zeros_initializer()),
                gamma_initializer=initializers.get("gamma", init_ops.ones_initializer()),
                moving_mean_initializer=initializers.get("moving_mean", init_ops.zeros_initializer()),
                moving_variance_initializer=initializers.get("moving_variance", init_ops.ones_initializer()),
                beta_regularizer=regularizers.get("beta"), gamma_regularizer=regularizers.get("gamma"),
                training=is_training, trainable=trainable, name=sc, reuse=reuse, renorm=renorm,
                renorm_clipping=renorm_clipping, renorm_momentum=renorm_decay, fused=fused, adjustment=adjustment)
        made = updates[before:]
        if updates_collections != GraphKeys.UPDATE_OPS:
            del updates[before:]
            if updates_collections is None:
                with ops.control_dependencies(made):
                    outputs = array_ops.identity(outputs)
            else:
                for update in made:
                    ops.add_to_collections(updates_collections, update)
        for name in ("beta", "gamma", "moving_mean", "moving_variance"):
            collections = get_variable_collections(variables_collections, name)
            if collections:
                for v in ops.get_collection(GraphKeys.GLOBAL_VARIABLES, sc.name + "/"):
                    if v.op.name == f"{sc.name}/{name}":
                        ops.add_to_collections(collections, v)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


def _model_variable_getter(getter, name, *args, collections=None, **kwargs):
    """A custom getter that makes each variable a model variable too, on the device that an
    enclosing ``arg_scope([model_variable], device=...)`` names (TF's batch_norm made its
    variables with ``model_variable``: TF-Slim's clones put them on the parameter device so)."""
    collections = list(collections if collections is not None else [GraphKeys.GLOBAL_VARIABLES])
    if GraphKeys.MODEL_VARIABLES not in collections:
        collections.append(GraphKeys.MODEL_VARIABLES)
    device = current_arg_scope().get(arg_scope_func_key(model_variable), {}).get("device")
    with ops.device(device) if device is not None else contextlib.nullcontext():
        return getter(name, *args, collections=collections, **kwargs)


def _weighted_batch_norm(inputs, axis, decay, center, scale, epsilon, initializers, regularizers, is_training,
                         trainable, batch_weights, zero_debias_moving_mean, fused):
    """contrib's own batch normalization (TF's "legacy" one): the batch's moments weighted by
    ``batch_weights``, the moving mean optionally debiased. Its updates go to UPDATE_OPS.
    Unweighted 2-D or 4-D inputs ran TF's fused kernel unless ``fused`` is False: the moving
    variance follows the batch variance with Bessel's correction there."""
    rank = inputs.shape.ndims
    channels = inputs.shape[axis].value
    dtype = inputs.dtype.base_dtype
    moments_axes = [a for a in range(rank) if a != axis]

    def param(name, default, regularizer=None, trainable_param=trainable):
        return vs.get_variable(name, [channels], dtype, initializer=initializers.get(name, default),
                               regularizer=regularizer, trainable=trainable_param)

    beta = param("beta", init_ops.zeros_initializer(), regularizers.get("beta")) if center else None
    gamma = param("gamma", init_ops.ones_initializer(), regularizers.get("gamma")) if scale else None
    scope = vs.get_variable_scope()
    partitioner = scope.partitioner
    scope.set_partitioner(None)  # (the moving statistics are never partitioned)
    try:
        moving_mean = param("moving_mean", init_ops.zeros_initializer(), trainable_param=False)
        moving_variance = param("moving_variance", init_ops.ones_initializer(), trainable_param=False)
    finally:
        scope.set_partitioner(partitioner)
    training = constant_value(is_training)
    if training is False:
        mean, variance = moving_mean.value(), moving_variance.value()
    else:
        if batch_weights is None:
            mean, variance = nn_ops.moments(inputs, moments_axes)
        else:
            weights = ops.convert_to_tensor(batch_weights, dtype=dtype)
            weights = array_ops.reshape(weights, [-1] + [1] * (rank - 1))
            mean, variance = nn_impl.weighted_moments(inputs, moments_axes, weights)
            mean, variance = array_ops.reshape(mean, [-1]), array_ops.reshape(variance, [-1])
        target_variance = nn_impl.fused_moving_variance(variance, inputs, moments_axes, [axis],
                                                        fused if batch_weights is None else False, (2, 4))

        def updated():
            return (assign_moving_average(moving_mean, mean, decay, zero_debias=zero_debias_moving_mean),
                    assign_moving_average(moving_variance, target_variance, decay, zero_debias=False))

        def moving():
            return moving_mean.value(), moving_variance.value()

        if training is None:  # (a boolean tensor: when it is false, no update runs)
            is_training = ops.convert_to_tensor(is_training, dtype=dtypes.bool)
            update_mean, update_variance = cond(is_training, updated, moving)
            mean, variance = cond(is_training, lambda: (mean, variance), moving)
        else:
            update_mean, update_variance = updated()
        ops.add_to_collection(GraphKeys.UPDATE_OPS, update_mean)
        ops.add_to_collection(GraphKeys.UPDATE_OPS, update_variance)
    broadcast = [channels if a == axis else 1 for a in range(rank)]

    def shaped(t):
        return None if t is None else array_ops.reshape(t, broadcast)

    outputs = nn_ops.batch_normalization(inputs, shaped(mean), shaped(variance), shaped(beta), shaped(gamma), epsilon)
    outputs.set_shape(inputs.shape)
    return outputs


@add_arg_scope
def layer_norm(inputs, center=True, scale=True, activation_fn=None, reuse=None, variables_collections=None,
               outputs_collections=None, trainable=True, begin_norm_axis=1, begin_params_axis=-1, scope=None):
    """Normalizes over the axes from ``begin_norm_axis`` on (epsilon 1e-12; 1e-3 for float16,
    whose variances underflow), then scales by gamma and shifts by beta, of the shape of the
    axes from ``begin_params_axis`` on."""
    with vs.variable_scope(scope, "LayerNorm", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        if rank is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        if begin_norm_axis >= rank or begin_params_axis >= rank or begin_norm_axis < -rank or \
                begin_params_axis < -rank:
            raise ValueError(f"begin_params_axis ({begin_params_axis}) and begin_norm_axis ({begin_norm_axis}) "
                             f"must be < rank(inputs) ({rank})")
        begin_norm_axis %= rank
        begin_params_axis %= rank
        params_shape = inputs.shape[begin_params_axis:]
        if not params_shape.is_fully_defined():
            raise ValueError(f"Inputs {inputs.name}: shape[{begin_params_axis}:] is not fully defined: "
                             f"{inputs.shape}")
        dtype = inputs.dtype.base_dtype
        beta = model_variable("beta", params_shape.as_list(), dtype, init_ops.zeros_initializer(), None, trainable,
                              get_variable_collections(variables_collections, "beta")) if center else None
        gamma = model_variable("gamma", params_shape.as_list(), dtype, init_ops.ones_initializer(), None,
                               trainable, get_variable_collections(variables_collections, "gamma")) if scale else None
        mean, variance = nn_ops.moments(inputs, list(range(begin_norm_axis, rank)), keep_dims=True)
        epsilon = 1e-3 if dtype == dtypes.float16 else 1e-12
        outputs = nn_ops.batch_normalization(inputs, mean, variance, beta, gamma, epsilon)
        outputs.set_shape(inputs.shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0, outputs_collections=None, scope=None):
    with ops.name_scope(scope, "OneHotEncoding", [labels, num_classes]) as sc:
        labels = ops.convert_to_tensor(labels)
        if labels.dtype == dtypes.int32:
            labels = math_ops.cast(labels, dtypes.int64)
        outputs = array_ops.one_hot(labels, num_classes, on_value=on_value, off_value=off_value)
        return collect_named_outputs(outputs_collections, sc, outputs)


def embed_sequence(ids, vocab_size=None, embed_dim=None, unique=False, initializer=None, regularizer=None,
                   trainable=True, scope=None, reuse=None):
    """Each id's row of an ``[vocab_size, embed_dim]`` embedding (``EmbedSequence/embeddings``);
    ``unique`` (looking each distinct id up once in TensorFlow) gives the same rows."""
    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError("Must specify vocab size and embedding dimension when not reusing. Got "
                         f"vocab_size={vocab_size} and embed_dim={embed_dim}")
    with vs.variable_scope(scope, "EmbedSequence", values=[ids], reuse=reuse):
        shape = [vocab_size, embed_dim] if vocab_size and embed_dim else None
        embeddings = model_variable("embeddings", shape=shape, initializer=initializer, regularizer=regularizer,
                                    trainable=trainable)
        return nn_impl.embedding_lookup(embeddings, ids)


def _layer_name(layer) -> str:
    if hasattr(layer, "__name__"):
        return layer.__name__
    if hasattr(layer, "func"):
        return layer.func.__name__
    return "repeat"


def repeat(inputs, repetitions, layer, *args, **kwargs):
    """``layer`` applied ``repetitions`` times, the i-th under scope ``<scope>_<i>``."""
    scope = kwargs.pop("scope", None)
    with vs.variable_scope(scope, "Repeat", [inputs]):
        outputs = ops.convert_to_tensor(inputs)
        scope = scope or _layer_name(layer)
        for i in range(repetitions):
            kwargs["scope"] = f"{scope}_{i + 1}"
            outputs = layer(outputs, *args, **kwargs)
        return outputs


def stack(inputs, layer, stack_args, **kwargs):
    """``layer`` applied once per entry of ``stack_args`` (its arguments), in turn."""
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")
    with vs.variable_scope(scope, "Stack", [inputs]):
        outputs = ops.convert_to_tensor(inputs)
        scope = scope or _layer_name(layer)
        for i, args in enumerate(stack_args):
            kwargs["scope"] = f"{scope}_{i + 1}"
            outputs = layer(outputs, *(args if isinstance(args, (list, tuple)) else [args]), **kwargs)
        return outputs


@add_arg_scope
def separable_convolution2d(inputs, num_outputs, kernel_size, depth_multiplier=1, stride=1, padding="SAME",
                            data_format="NHWC", rate=1, activation_fn=nn_ops.relu, normalizer_fn=None,
                            normalizer_params=None, weights_initializer=xavier_initializer(),
                            pointwise_initializer=None, weights_regularizer=None,
                            biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None, reuse=None,
                            variables_collections=None, outputs_collections=None, trainable=True, scope=None):
    """A depthwise convolution (``depthwise_weights`` [kh, kw, in, depth_multiplier]), then,
    unless ``num_outputs`` is None, a 1x1 convolution (``pointwise_weights`` [1, 1, in *
    depth_multiplier, num_outputs]); then biases (or the normalizer) and the activation, as
    TF-Slim's MobileNet and Xception use it."""
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with vs.variable_scope(scope, "SeparableConv2d", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        first = data_format == "NCHW"
        channels = inputs.shape[1 if first else -1].value if inputs.shape.ndims == 4 else None
        if channels is None:
            raise ValueError(f"separable_conv2d needs 4-D inputs with known channels, got {inputs.shape}")
        dtype = inputs.dtype.base_dtype
        kh, kw = _tuple(kernel_size, 2, "kernel_size")
        sh, sw = _tuple(stride, 2, "stride")
        weights_collections = get_variable_collections(variables_collections, "weights")
        depthwise = model_variable("depthwise_weights", [kh, kw, channels, depth_multiplier], dtype,
                                   weights_initializer, weights_regularizer, trainable, weights_collections)
        strides = [1, 1, sh, sw] if first else [1, sh, sw, 1]
        rates = _tuple(rate, 2, "rate")
        if num_outputs is None:
            outputs = convolution_ops.depthwise_conv2d(inputs, depthwise, strides, padding, rate=rates,
                                                       data_format=data_format)
            num_outputs = channels * depth_multiplier
        else:
            pointwise = model_variable("pointwise_weights", [1, 1, channels * depth_multiplier, int(num_outputs)],
                                       dtype, pointwise_initializer or weights_initializer, weights_regularizer,
                                       trainable, weights_collections)
            outputs = convolution_ops.separable_conv2d(inputs, depthwise, pointwise, strides, padding, rate=rates,
                                                       data_format=data_format)
        outputs = finish_layer(outputs, int(num_outputs), activation_fn, normalizer_fn, normalizer_params,
                          biases_initializer, biases_regularizer, variables_collections, trainable, dtype,
                          "NCHW" if first else None)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


separable_conv2d = separable_convolution2d


def _norm_params(shape, dtype, center, scale, param_initializers, variables_collections, trainable):
    """``beta`` and ``gamma`` (None where not wanted) of ``shape``, as model variables."""
    initializers = param_initializers or {}
    beta = model_variable("beta", shape, dtype, initializers.get("beta", init_ops.zeros_initializer()), None,
                          trainable, get_variable_collections(variables_collections, "beta")) if center else None
    gamma = model_variable("gamma", shape, dtype, initializers.get("gamma", init_ops.ones_initializer()), None,
                           trainable, get_variable_collections(variables_collections, "gamma")) if scale else None
    return beta, gamma


@add_arg_scope
def instance_norm(inputs, center=True, scale=True, epsilon=1e-6, activation_fn=None, param_initializers=None,
                  reuse=None, variables_collections=None, outputs_collections=None, trainable=True,
                  data_format="NHWC", scope=None):
    """Each example's channels normalized over their own spatial positions (Ulyanov et al.),
    then shifted by ``InstanceNorm/beta`` and scaled by ``gamma`` (one per channel)."""
    inputs = ops.convert_to_tensor(inputs)
    rank = inputs.shape.ndims
    if rank is None:
        raise ValueError(f"Inputs {inputs.name} has undefined rank.")
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with vs.variable_scope(scope, "InstanceNorm", [inputs], reuse=reuse) as sc:
        axis = 1 if data_format == "NCHW" else rank - 1
        channels = inputs.shape[axis].value
        if channels is None:
            raise ValueError(f"Inputs {inputs.name} has undefined channels dimension {inputs.shape}.")
        beta, gamma = _norm_params([channels], inputs.dtype.base_dtype, center, scale, param_initializers,
                                   variables_collections, trainable)
        broadcast = [1, channels] + [1] * (rank - 2) if axis == 1 else None
        if broadcast is not None:
            beta, gamma = (None if p is None else array_ops.reshape(p, broadcast) for p in (beta, gamma))
        mean, variance = nn_ops.moments(inputs, [a for a in range(1, rank) if a != axis], keep_dims=True)
        outputs = nn_ops.batch_normalization(inputs, mean, variance, beta, gamma, epsilon, name="instancenorm")
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def group_norm(inputs, groups=32, channels_axis=-1, reduction_axes=(-3, -2), center=True, scale=True, epsilon=1e-6,
               activation_fn=None, param_initializers=None, reuse=None, variables_collections=None,
               outputs_collections=None, trainable=True, scope=None, mean_close_to_zero=False):
    """The channels (``channels_axis``) split into ``groups``, each example's group normalized
    over its channels and ``reduction_axes`` (Wu and He), then ``GroupNorm/beta`` and
    ``gamma`` per channel. (``mean_close_to_zero`` chose TF's faster moments for inputs of
    mean near 0; here the moments are the same either way.)"""
    inputs = ops.convert_to_tensor(inputs)
    rank = inputs.shape.ndims
    if rank is None:
        raise ValueError(f"Inputs {inputs.name} has undefined rank.")
    if channels_axis > rank - 1:
        raise ValueError("Axis is out of bounds.")
    channels_axis %= rank
    channels = inputs.shape[channels_axis].value
    if channels is None:
        raise ValueError(f"Inputs {inputs.name} has undefined channel dimension: {channels_axis}.")
    reduction_axes = [a % rank if a < 0 else a for a in reduction_axes]
    for a in reduction_axes:
        if a >= rank:
            raise ValueError("Axis is out of bounds.")
        if inputs.shape[a].value is None:
            raise ValueError(f"Inputs {inputs.name} has undefined dimensions {a}.")
        if a == channels_axis:
            raise ValueError("reduction_axis must be mutually exclusive with channels_axis")
    if groups > channels:
        raise ValueError(f"Invalid groups {groups} for {channels} channels.")
    if channels % groups:
        raise ValueError(f"{channels} channels is not commensurate with {groups} groups.")
    dims = array_ops.shape(inputs)
    grouped = array_ops.stack([dims[i] for i in range(channels_axis)] + [groups, channels // groups]
                              + [dims[i] for i in range(channels_axis + 1, rank)])
    x = array_ops.reshape(inputs, grouped)
    moments_axes = [channels_axis + 1] + [a + 1 if a > channels_axis else a for a in reduction_axes]
    with vs.variable_scope(scope, "GroupNorm", [inputs], reuse=reuse) as sc:
        beta, gamma = _norm_params([channels], inputs.dtype.base_dtype, center, scale, param_initializers,
                                   variables_collections, trainable)
        broadcast = [1] * channels_axis + [groups, channels // groups] + [1] * (rank - channels_axis - 1)
        mean, variance = nn_ops.moments(x, moments_axes, keep_dims=True)
        gain = math_ops.rsqrt(variance + epsilon)
        offset = -mean * gain
        if gamma is not None:
            gamma = array_ops.reshape(gamma, broadcast)
            gain, offset = gain * gamma, offset * gamma
        if beta is not None:
            offset = offset + array_ops.reshape(beta, broadcast)
        outputs = array_ops.reshape(x * gain + offset, dims)
        outputs.set_shape(inputs.shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def bias_add(inputs, activation_fn=None, initializer=init_ops.zeros_initializer(), regularizer=None, reuse=None,
             variables_collections=None, outputs_collections=None, trainable=True, data_format="NHWC", scope=None):
    """``inputs`` plus ``BiasAdd/biases`` along the channels (the last axis, or axis 1 with NCHW)."""
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with vs.variable_scope(scope, "BiasAdd", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        if rank is None:
            raise ValueError("Dims of shape must be known but is None")
        if rank == 1:
            raise ValueError("Rank of inputs is 1, must be >= 2")
        first = data_format == "NCHW" and rank > 2
        channels = inputs.shape[1 if first else -1].value
        if channels is None:
            raise ValueError("`C` dimension must be known but is None")
        biases = model_variable("biases", [channels], inputs.dtype.base_dtype, initializer, regularizer, trainable,
                                get_variable_collections(variables_collections, "biases"))
        outputs = nn_ops.bias_add(inputs, biases, data_format="NCHW" if first else None)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


elu = functools.partial(fully_connected, activation_fn=nn_ops.elu)
relu = functools.partial(fully_connected, activation_fn=nn_ops.relu)
relu6 = functools.partial(fully_connected, activation_fn=nn_ops.relu6)
linear = functools.partial(fully_connected, activation_fn=None)


@add_arg_scope
def softmax(logits, scope=None):
    """The softmax over the last axis of N-D ``logits`` (N > 1)."""
    with vs.variable_scope(scope, "softmax", [logits]):
        logits = ops.convert_to_tensor(logits)
        classes = logits.shape[-1].value if (logits.shape.ndims or 0) >= 2 else None
        if classes is None:
            raise ValueError(f"softmax needs logits of rank 2 or more with a known last dimension, got {logits.shape}")
        out = array_ops.reshape(nn_ops.softmax(array_ops.reshape(logits, [-1, classes])), array_ops.shape(logits))
        out.set_shape(logits.shape)
        return out


def unit_norm(inputs, dim, epsilon=1e-7, scope=None):
    """``inputs`` divided by its L2 norm along ``dim`` (plus ``epsilon``)."""
    with vs.variable_scope(scope, "UnitNorm", [inputs]):
        inputs = ops.convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        if rank is None:
            raise ValueError("The input rank must be known.")
        if not 0 <= dim < rank:
            raise ValueError(f"dim must be in [0, {rank}), got {dim}")
        norm = math_ops.sqrt(epsilon + reduction_ops.reduce_sum(math_ops.square(inputs), [dim], keepdims=True))
        return inputs / norm


@add_arg_scope
def max_pool3d(inputs, kernel_size, stride=2, padding="VALID", data_format="NDHWC", outputs_collections=None,
               scope=None):
    return _pool3d(conv3d_ops.max_pool3d, inputs, kernel_size, stride, padding, data_format, outputs_collections,
                   scope, "MaxPool3D")


@add_arg_scope
def avg_pool3d(inputs, kernel_size, stride=2, padding="VALID", data_format="NDHWC", outputs_collections=None,
               scope=None):
    return _pool3d(conv3d_ops.avg_pool3d, inputs, kernel_size, stride, padding, data_format, outputs_collections,
                   scope, "AvgPool3D")


def _pool3d(kind, inputs, kernel_size, stride, padding, data_format, outputs_collections, scope, default):
    if data_format not in ("NDHWC", "NCDHW"):
        raise ValueError("data_format has to be either NCDHW or NDHWC.")
    with ops.name_scope(scope, default, [inputs]) as sc:
        window, steps = _tuple(kernel_size, 3, "kernel_size"), _tuple(stride, 3, "stride")
        full = (lambda v: [1, 1, *v]) if data_format == "NCDHW" else (lambda v: [1, *v, 1])
        outputs = kind(inputs, full(window), full(steps), padding, data_format=data_format)
        return collect_named_outputs(outputs_collections, sc, outputs)

