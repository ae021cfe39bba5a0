"""The smaller layer functions of ``tf.contrib.layers`` (and TF-Slim): ``pool``, ``maxout``,
``spatial_softmax``, ``conv2d_in_plane``, ``images_to_sequence`` and ``sequence_to_images``,
``scale_gradient``, ``dense_to_sparse`` and ``dense_to_sparse_tensor``,
``indicators_to_sparse_ids``, ``sparse_row_envelope``, ``poincare_normalize``, ``gdn`` (generalized divisive
normalization), and the pre-1.0 ``legacy_fully_connected`` (with ``legacy_linear`` and
``legacy_relu``).
"""

from __future__ import annotations

import contextlib
import functools
import inspect

import numpy as np

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..ops import (array_ops, check_ops, convolution_ops, init_ops, manip_ops, math_ops, nd_ops, nn_impl, nn_ops,
                   reduction_ops, segment_ops, slicing_ops)
from ..ops import variable_scope as vs
from ..ops.gradients_impl import custom_gradient, recompute
from ..layers.base import _layer_class
from ..ops.sparse_ops import SparseTensor, sparse_reshape
from .framework import add_arg_scope, arg_scope, current_arg_scope, model_variable
from .initializers import xavier_initializer
from .layers_utils import (collect_named_outputs, finish_layer, get_variable_collections, last_dimension,
                           n_positive_integers, two_element_tuple)

_DATA_FORMATS = ("NCHW", "NHWC")


@add_arg_scope
def pool(inputs, kernel_size, pooling_type, padding="VALID", data_format=None, dilation_rate=1, stride=1,
         outputs_collections=None, scope=None):
    """``tf.nn.pool`` of any number of spatial dimensions ('MAX' or 'AVG'), each size given as
    one int or one per spatial dimension."""
    with ops.name_scope(scope, f"{pooling_type.lower()}_pool", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        if rank is None:
            raise ValueError("Rank of inputs must be known")
        if rank < 3:
            raise ValueError("Rank of inputs must be >= 3")
        n = rank - 2
        outputs = convolution_ops.pool(inputs, n_positive_integers(n, kernel_size), pooling_type, padding,
                              dilation_rate=n_positive_integers(n, dilation_rate),
                              strides=n_positive_integers(n, stride), name=sc, data_format=data_format)
        return collect_named_outputs(outputs_collections, sc, outputs)


@add_arg_scope
def maxout(inputs, num_units, axis=-1, scope=None):
    """The maximum over each of ``num_units`` equal groups of the features on ``axis``
    (Goodfellow et al.): that axis becomes ``num_units`` long."""
    with vs.variable_scope(scope, "MaxOut", [inputs]):
        inputs = ops.convert_to_tensor(inputs)
        shape = inputs.shape.as_list()
        channels = shape[axis]
        if channels is None or channels % num_units:
            raise ValueError(f"number of features({channels}) is not a multiple of num_units({num_units})")
        shape[axis] = num_units
        shape.append(channels // num_units)
        dynamic = array_ops.shape(inputs)
        shape = [dynamic[i] if d is None else d for i, d in enumerate(shape)]
        grouped = array_ops.reshape(inputs, array_ops.stack(shape) if any(isinstance(d, ops.Tensor) for d in shape)
                                    else shape)
        return reduction_ops.reduce_max(grouped, -1, keepdims=False)


@add_arg_scope
def spatial_softmax(features, temperature=None, name=None, variables_collections=None, trainable=True,
                    data_format="NHWC"):
    """Each channel's expected (x, y) position under the softmax of its activations over the
    image, coordinates from -1 to 1 (Levine et al.'s keypoints): ``[batch, 2 * channels]``,
    the x of channel c at 2c. The softmax's ``temperature`` is a model variable (1 by
    default), trained unless ``trainable`` is False."""
    with vs.variable_scope(name, "spatial_softmax"):
        shape = array_ops.shape(features)
        if data_format == "NHWC":
            height, width, channels = shape[1], shape[2], features.shape[3].value
        elif data_format == "NCHW":
            channels, height, width = features.shape[1].value, shape[2], shape[3]
        else:
            raise ValueError("data_format has to be either NCHW or NHWC.")
        if channels is None:
            raise ValueError("The num_channels dimension of the inputs to `spatial_softmax` should be defined. "
                             "Found `None`.")
        with ops.name_scope("spatial_softmax_op", "spatial_softmax_op", [features]):
            pos_x, pos_y = manip_ops.meshgrid(manip_ops.lin_space(-1.0, 1.0, num=height),
                                              manip_ops.lin_space(-1.0, 1.0, num=width), indexing="ij")
            pos_x = array_ops.reshape(pos_x, [height * width])
            pos_y = array_ops.reshape(pos_y, [height * width])
            initializer = init_ops.ones_initializer() if temperature is None else \
                init_ops.constant_initializer(temperature)
            collections = get_variable_collections(variables_collections, "temperature") if trainable else None
            temperature = model_variable("temperature", shape=(), dtype=dtypes.float32, initializer=initializer,
                                         collections=collections, trainable=trainable)
            if data_format == "NHWC":
                features = array_ops.transpose(features, [0, 3, 1, 2])
            features = array_ops.reshape(features, array_ops.stack([-1, height * width]))
            attention = nn_ops.softmax(features / temperature)
            expected_x = reduction_ops.reduce_sum(pos_x * attention, [1], keepdims=True)
            expected_y = reduction_ops.reduce_sum(pos_y * attention, [1], keepdims=True)
            keypoints = array_ops.reshape(slicing_ops.concat([expected_x, expected_y], 1), [-1, channels * 2])
            keypoints.set_shape([None, channels * 2])
    return keypoints


@add_arg_scope
def convolution2d_in_plane(inputs, kernel_size, stride=1, padding="SAME", activation_fn=nn_ops.relu,
                           normalizer_fn=None, normalizer_params=None, weights_initializer=xavier_initializer(),
                           weights_regularizer=None, biases_initializer=init_ops.zeros_initializer(),
                           biases_regularizer=None, reuse=None, variables_collections=None,
                           outputs_collections=None, trainable=True, scope=None):
    """One ``[kernel_h, kernel_w]`` filter convolved with every channel on its own (a depthwise
    convolution whose filters are all the same), then biases per channel (or the normalizer)
    and the activation."""
    with vs.variable_scope(scope, "ConvInPlane", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        dtype = inputs.dtype.base_dtype
        kernel_h, kernel_w = two_element_tuple(kernel_size)
        stride_h, stride_w = two_element_tuple(stride)
        channels = last_dimension(inputs.shape, min_rank=4)
        weights = model_variable("weights", [kernel_h, kernel_w, 1, 1], dtype, weights_initializer,
                                 weights_regularizer, trainable, get_variable_collections(variables_collections,
                                                                                       "weights"))
        depthwise = array_ops.tile(weights, [1, 1, channels, 1])
        outputs = convolution_ops.depthwise_conv2d(inputs, depthwise, [1, stride_h, stride_w, 1], padding)
        outputs = finish_layer(outputs, channels, activation_fn, normalizer_fn, normalizer_params, biases_initializer,
                          biases_regularizer, variables_collections, trainable, dtype)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


conv2d_in_plane = convolution2d_in_plane


@add_arg_scope
def images_to_sequence(inputs, data_format="NHWC", outputs_collections=None, scope=None):
    """Images ``[batch, height, width, depth]`` as sequences along their width:
    ``[width, batch * height, depth]`` (the image rows, one per batch entry)."""
    if data_format not in _DATA_FORMATS:
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with ops.name_scope(scope, "ImagesToSequence", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        if data_format == "NCHW":
            inputs = array_ops.transpose(inputs, [0, 2, 3, 1])
        batch, height, width, depth = inputs.shape.as_list()
        shape = array_ops.shape(inputs)
        transposed = array_ops.transpose(inputs, [2, 0, 1, 3])
        rows = batch * height if batch is not None and height is not None else shape[0] * shape[1]
        outputs = array_ops.reshape(transposed, array_ops.stack([width, rows, depth]))
        outputs.set_shape([width, rows if isinstance(rows, int) else None, depth])
        return collect_named_outputs(outputs_collections, sc, outputs)


@add_arg_scope
def sequence_to_images(inputs, height, output_data_format="channels_last", outputs_collections=None, scope=None):
    """The inverse of ``images_to_sequence``: ``[width, batch * height, depth]`` back to
    ``[batch, height, width, depth]`` (or channels first)."""
    with ops.name_scope(scope, "SequenceToImages", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        width, rows, depth = inputs.shape.as_list()
        batch = -1 if rows is None else rows // height
        reshaped = array_ops.reshape(inputs, [width, batch, height, depth])
        perm = [1, 3, 2, 0] if output_data_format == "channels_first" else [1, 2, 0, 3]
        outputs = array_ops.transpose(reshaped, perm)
        return collect_named_outputs(outputs_collections, sc, outputs)


@custom_gradient
def scale_gradient(inputs, gradient_multiplier):
    """``inputs`` unchanged; its gradient multiplied by ``gradient_multiplier``."""
    def grad(dy):
        return [dy * gradient_multiplier, None]

    return array_ops.identity(inputs), grad


def recompute_grad(fn, use_data_dep=None, tupleize_grads=False):
    """``fn`` whose activations are not kept for the backward pass (TF 1.x contrib's): its
    gradient calls ``fn`` again, in the variable scope it was first called in (reusing its
    variables) and under the same ``arg_scope``, once the gradients of its outputs are
    there. ``fn`` takes tensors positionally, and ``is_recomputing`` if its signature has
    it (False, then True). Every trainable variable ``fn`` reads gets its gradient (TF's
    gave one only to variables ``fn`` created). ``use_data_dep`` (TPUs' way of ordering
    the second call) changes nothing here: control dependencies order it;
    ``tupleize_grads`` makes the gradients come out together."""
    del use_data_dep
    takes_flag = "is_recomputing" in inspect.signature(fn).parameters

    @functools.wraps(fn)
    def wrapped(*args):
        for a in args:
            if not isinstance(a, ops.Tensor):
                raise ValueError(f"All inputs to function must be Tensors, got {type(a).__name__}")
        scope, scoped_args = vs.get_variable_scope(), current_arg_scope()

        @contextlib.contextmanager
        def again():
            with arg_scope(scoped_args), vs.variable_scope(scope, reuse=True):
                yield

        first = functools.partial(fn, is_recomputing=False) if takes_flag else fn
        second = functools.partial(fn, is_recomputing=True) if takes_flag else fn
        return recompute(first, args, again, second, tupled=tupleize_grads)

    return wrapped


@add_arg_scope
def dense_to_sparse(tensor, eos_token=0, outputs_collections=None, scope=None):
    """The entries of ``tensor`` that are not ``eos_token``, as a SparseTensor of its shape."""
    with vs.variable_scope(scope, "dense_to_sparse", [tensor]) as sc:
        tensor = ops.convert_to_tensor(tensor)
        indices = math_ops.where(math_ops.not_equal(tensor, ops.convert_to_tensor(eos_token, tensor.dtype)))
        values = nd_ops.gather_nd(tensor, indices)
        outputs = SparseTensor(indices, values, array_ops.shape(tensor, out_type=dtypes.int64))
        return collect_named_outputs(outputs_collections, sc.name, outputs)


def poincare_normalize(x, axis=1, epsilon=1e-5, name=None):
    """``x`` scaled into the open unit ball along ``axis``: vectors of norm 1 - epsilon or more
    get norm 1 - epsilon, shorter ones are kept."""
    with ops.name_scope(name, "poincare_normalize", [x]) as name:
        x = ops.convert_to_tensor(x, name="x")
        inverse_norm = math_ops.rsqrt(reduction_ops.reduce_sum(math_ops.square(x), axis, keepdims=True))
        inverse_norm = math_ops.minimum((1.0 - epsilon) * inverse_norm, 1.0)
        return math_ops.multiply(x, inverse_norm, name=name)


def legacy_fully_connected(x, num_output_units, activation_fn=None, weight_init=xavier_initializer(),
                           bias_init=init_ops.zeros_initializer(), name=None,
                           weight_collections=(GraphKeys.WEIGHTS,), bias_collections=(GraphKeys.BIASES,),
                           output_collections=(GraphKeys.ACTIVATIONS,), trainable=True, weight_regularizer=None,
                           bias_regularizer=None):
    """TF 1.0's ``fully_connected``: ``x @ weights + bias`` over the last axis of ``x`` (rank 2
    or more, its last dimension known), variables ``weights`` and ``bias`` in
    ``weight_collections`` and ``bias_collections`` too, the output in ``output_collections``."""
    with vs.variable_scope(name, "fully_connected", [x]):
        x = ops.convert_to_tensor(x)
        dims = x.shape.dims
        if dims is None:
            raise ValueError("dims of x must be known but is None")
        if len(dims) < 2:
            raise ValueError(f"rank of x must be at least 2 not: {len(dims)}")
        num_inputs = dims[-1].value
        if num_inputs is None:
            raise ValueError("last dimension of x must be known but is None")
        dtype = x.dtype.base_dtype
        weights = vs.get_variable("weights", [num_inputs, num_output_units], dtype, initializer=weight_init,
                                  regularizer=weight_regularizer, trainable=trainable,
                                  collections=_with_globals(weight_collections))
        flat = x if len(dims) == 2 else array_ops.reshape(x, [-1, num_inputs])
        y = math_ops.matmul(flat, weights)
        if bias_init is not None:
            bias = vs.get_variable("bias", [num_output_units], dtype, initializer=bias_init,
                                   regularizer=bias_regularizer, trainable=trainable,
                                   collections=_with_globals(bias_collections))
            y = nn_ops.bias_add(y, bias)
        if len(dims) > 2:
            shape = slicing_ops.unstack(array_ops.shape(x))
            shape[-1] = num_output_units
            y = array_ops.reshape(y, array_ops.stack(shape))
            y.set_shape(x.shape[:-1].concatenate([num_output_units]))
        if activation_fn is not None:
            y = activation_fn(y)
        ops.add_to_collections(list(output_collections or []), y)
        return y


def _with_globals(collections) -> list:
    return list(dict.fromkeys(list(collections or []) + [GraphKeys.GLOBAL_VARIABLES]))


legacy_linear = functools.partial(legacy_fully_connected, activation_fn=None)
legacy_relu = functools.partial(legacy_fully_connected, activation_fn=nn_ops.relu)


@add_arg_scope
def _inner_flatten(inputs, new_rank, output_collections=None, scope=None):
    """``inputs`` (a Tensor or SparseTensor) with its innermost dimensions flattened into one,
    to rank ``new_rank`` (an error at run time if ``inputs`` has a smaller rank)."""
    with ops.name_scope(scope, "InnerFlatten", [inputs, new_rank]) as sc:
        if isinstance(inputs, SparseTensor):
            flattened = _sparse_inner_flatten(inputs, new_rank)
        else:
            flattened = _dense_inner_flatten(ops.convert_to_tensor(inputs), new_rank)
    return collect_named_outputs(output_collections, sc, flattened)


def _sparse_inner_flatten(inputs, new_rank):
    rank = inputs.dense_shape.shape[0].value
    if rank < new_rank:
        raise ValueError(f"Inputs has rank less than new_rank. {inputs} must have rank at least {new_rank}. "
                         f"Received rank {rank}, shape {inputs.get_shape()}")
    outer = inputs.dense_shape[:new_rank - 1]
    inner = inputs.dense_shape[new_rank - 1:]
    return sparse_reshape(inputs, slicing_ops.concat([outer, [reduction_ops.reduce_prod(inner)]], 0))


def _dense_inner_flatten(inputs, new_rank):
    check = check_ops.assert_rank_at_least(inputs, new_rank, message="inputs has rank less than new_rank")
    with ops.control_dependencies([check]):
        outer = slicing_ops.strided_slice(array_ops.shape(inputs), [0], [new_rank - 1])
        reshaped = array_ops.reshape(inputs, slicing_ops.concat([outer, [-1]], 0))
    if isinstance(new_rank, int) and inputs.shape.ndims is not None:
        dims = inputs.shape.as_list()
        inner = dims[new_rank - 1:]
        flat = None if any(d is None for d in inner) else functools.reduce(lambda a, b: a * b, inner, 1)
        reshaped.set_shape(dims[:new_rank - 1] + [flat])
    return reshaped


@custom_gradient
def _gdn_lower_bound(inputs, bound):
    """``max(inputs, bound)`` whose gradient passes where the input is at or above the bound, or
    where it would push the input up (GDN's reparametrization keeps its parameters trainable)."""
    def grad(dy):
        passes = math_ops.logical_or(math_ops.greater_equal(inputs, bound), math_ops.less(dy, 0))
        return [math_ops.cast(passes, dy.dtype) * dy, None]

    return math_ops.maximum(inputs, bound), grad


def gdn(inputs, inverse=False, beta_min=1e-6, gamma_init=0.1, reparam_offset=2 ** -18, data_format="channels_last",
        activity_regularizer=None, trainable=True, name=None, reuse=None):
    """Generalized divisive normalization (Ballé et al.): each channel i divided by
    ``sqrt(beta_i + sum_j gamma_ji * x_j ** 2)`` (multiplied, with ``inverse``: IGDN), over
    inputs of rank 3 to 5. beta and gamma are kept as ``reparam_beta`` and ``reparam_gamma``,
    their square roots bounded below (beta by ``beta_min``, gamma by 0); gamma starts at
    ``gamma_init`` times the identity, beta at 1."""
    axis = {"channels_first": 1, "channels_last": -1}.get(data_format)
    if axis is None:
        raise ValueError(f"Unsupported `data_format` for GDN layer: {data_format}.")
    inputs = ops.convert_to_tensor(inputs)
    rank = inputs.shape.ndims
    if rank is None or not 3 <= rank <= 5:
        raise ValueError(f"GDN takes inputs of rank 3 to 5, got {inputs.shape}")
    channels = inputs.shape[axis].value
    if channels is None:
        raise ValueError("The channel dimension of the inputs to `GDN` must be defined.")
    dtype = inputs.dtype.base_dtype
    pedestal = reparam_offset ** 2
    with vs.variable_scope(name, "gdn", [inputs], reuse=reuse):
        beta_var = vs.get_variable("reparam_beta", [channels], dtype, trainable=trainable,
                                   initializer=init_ops.constant_initializer((1.0 + pedestal) ** 0.5))
        eye = np.eye(channels) * gamma_init + pedestal
        gamma_var = vs.get_variable("reparam_gamma", [channels, channels], dtype, trainable=trainable,
                                    initializer=init_ops.constant_initializer(np.sqrt(eye)))
        bound = functools.partial(ops.convert_to_tensor, dtype=dtype)
        beta = math_ops.square(_gdn_lower_bound(beta_var.value(), bound((beta_min + pedestal) ** 0.5))) - pedestal
        gamma = math_ops.square(_gdn_lower_bound(gamma_var.value(), bound(reparam_offset))) - pedestal
        axis %= rank
        norm = segment_ops.tensordot(math_ops.square(inputs), gamma, [[axis], [0]])  # (channels last)
        norm = math_ops.sqrt(norm + beta)
        if axis != rank - 1:
            norm = array_ops.transpose(norm, [0, rank - 1] + list(range(1, rank - 1)))
        outputs = inputs * norm if inverse else inputs / norm
        outputs.set_shape(inputs.shape)
        if activity_regularizer is not None:
            penalty = activity_regularizer(outputs)
            if penalty is not None:
                ops.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, penalty)
        return outputs


GDN = _layer_class("GDN", gdn, "gdn", [])
GDN.__doc__ = "``tf.contrib.layers.GDN``: the layer object of ``gdn``."


def _ignore_value(dtype, ignore_value):
    if ignore_value is None:
        ignore_value = "" if dtype == dtypes.string else dtype.as_numpy_dtype()
    return math_ops.cast(ignore_value, dtype, name="ignore_value")


def dense_to_sparse_tensor(dense_tensor, ignore_value=None):
    """The entries of ``dense_tensor`` other than ``ignore_value`` (by default "" or 0) as a
    SparseTensor of its shape."""
    with ops.name_scope("DenseToSparseTensor"):
        dense_tensor = ops.convert_to_tensor(dense_tensor)
        indices = math_ops.where(math_ops.not_equal(dense_tensor, _ignore_value(dense_tensor.dtype, ignore_value)),
                                 name="indices")
        return SparseTensor(indices, nd_ops.gather_nd(dense_tensor, indices, name="values"),
                            array_ops.shape(dense_tensor, out_type=dtypes.int64, name="dense_shape"))


def indicators_to_sparse_ids(indicators, ignore_value=None, dtype=dtypes.int64):
    """Indicators ([..., num_classes], ``ignore_value`` where a class is absent) as the sparse
    ids of the classes present, in order along the last dimension: [..., most present]."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_integer:
        raise ValueError(f"Invalid dtype {dtype} not integer.")
    with ops.name_scope(None, "indicators_to_sparse_ids", (indicators, ignore_value)):
        indicators = ops.convert_to_tensor(indicators, name="indicators")
        missing = math_ops.equal(indicators, _ignore_value(indicators.dtype, ignore_value), name="missing")
        zeros = array_ops.zeros_like(indicators, dtype=dtypes.int64, name="zeros")
        present = math_ops.where(missing, zeros, array_ops.ones_like(indicators, dtype=dtypes.int64))
        positions = math_ops.where(missing, zeros, manip_ops.cumsum(present, axis=-1))  # (1, 2, ... where present)
        most = array_ops.reshape(reduction_ops.reduce_max(positions), [1], name="result_last_dim")
        by_position = dense_to_sparse_tensor(positions, ignore_value=0)
        indices = slicing_ops.concat([by_position.indices[:, :-1], array_ops.reshape(by_position.values - 1, [-1, 1])],
                                     1, name="indices")
        ids = math_ops.cast(by_position.indices[:, -1], dtype, name="values")
        shape = slicing_ops.concat([by_position.dense_shape[:-1], most], 0, name="dense_shape")
        return SparseTensor(indices, ids, shape)


def sparse_row_envelope(sparse_input, row_axis=0, col_axis=1, name=None):
    """For each row of ``sparse_input``, one more than its last column holding a value (0 for
    an empty row): the length each row would need, as an int64 vector."""
    if not (isinstance(row_axis, int) and isinstance(col_axis, int)):
        raise ValueError("`row_axis` and `col_axis` must be integers.")
    if row_axis == col_axis:
        raise ValueError("Row and column can not be the same axis.")
    with ops.name_scope(name, "sparse_row_envelope", [sparse_input]):
        indices = sparse_input.indices
        rows = math_ops.cast(sparse_input.dense_shape[row_axis], dtypes.int32)
        envelope = segment_ops.unsorted_segment_max(indices[:, col_axis] + 1, indices[:, row_axis], rows)
        return math_ops.maximum(envelope, array_ops.zeros_like(envelope))  # (an empty row's max is the lowest int)


def embedding_lookup_unique(params, ids, name=None):
    """``embedding_lookup`` of each distinct id once (the rows then gathered for every id):
    ids of any shape [i1, i2, ...] give [i1, i2, ..., embedding dims...]."""
    with ops.name_scope(name, "EmbeddingLookupUnique", [params, ids]):
        ids = ops.convert_to_tensor(ids)
        shape = array_ops.shape(ids)
        unique_ids, where = segment_ops.unique(array_ops.reshape(ids, [-1]))
        rows = nn_impl.embedding_lookup(params, unique_ids)
        embedded = array_ops.reshape(slicing_ops.gather(rows, where),
                                     slicing_ops.concat([shape, array_ops.shape(rows)[1:]], 0))
        embedded.set_shape(ids.shape.concatenate(rows.shape[1:]))
        return embedded


def bow_encoder(ids, vocab_size, embed_dim, sparse_lookup=True, initializer=None, regularizer=None, trainable=True,
                scope=None, reuse=None):
    """Each example's symbols (``ids`` [batch, length], or a SparseTensor) as the mean of their
    embeddings (the variable "embeddings" [vocab_size, embed_dim]); with ``sparse_lookup``, a
    dense id of 0 counts as padding (``dense_to_sparse_tensor``) and an empty row gets id 0's
    embedding."""
    if not vocab_size or not embed_dim:
        raise ValueError(f"Must specify vocab_size > 0 and embed_dim > 0, got {vocab_size} and {embed_dim}")
    with vs.variable_scope(scope, "bow_encoder", [ids], reuse=reuse):
        embeddings = vs.get_variable("embeddings", shape=[vocab_size, embed_dim], initializer=initializer,
                                     regularizer=regularizer, trainable=trainable)
        if sparse_lookup:
            sparse_ids = ids if isinstance(ids, SparseTensor) else dense_to_sparse_tensor(ids)
            return nn_impl.safe_embedding_lookup_sparse([embeddings], sparse_ids, combiner="mean", default_id=0)
        if isinstance(ids, SparseTensor):
            raise TypeError(f"ids are expected to be dense Tensor, got: {ids}")
        return reduction_ops.reduce_mean(nn_impl.embedding_lookup(embeddings, ids), axis=1)
