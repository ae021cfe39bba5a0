"""``tf.layers.batch_normalization``: batch statistics while training, moving averages otherwise."""

from __future__ import annotations

from ..framework import dtypes
from ..framework import ops
from ..ops import array_ops, init_ops, math_ops, nn_ops, reduction_ops, slicing_ops, state_ops
from ..ops.variable_scope import variable_scope
from ..ops.nn_impl import fused_moving_variance
from .core import layer_variable


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=init_ops.zeros_initializer(), gamma_initializer=init_ops.ones_initializer(),
                        moving_mean_initializer=init_ops.zeros_initializer(),
                        moving_variance_initializer=init_ops.ones_initializer(), beta_regularizer=None,
                        gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, training=False,
                        trainable=True, name=None, reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None, adjustment=None):
    """Normalizes ``inputs`` over every axis but ``axis``, then scales by gamma and shifts by beta.

    With ``training`` true (a bool or a boolean tensor) the batch's mean and (biased)
    variance are used, and the moving averages' updates are added to the UPDATE_OPS
    collection (with Bessel's correction of the variance where TF 1.x's fused kernel would
    run: 4-D inputs, channels on axis 1 or 3, ``fused`` not False): run them with the train
    op, as TF 1.x requires::

        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
            train_op = optimizer.minimize(loss)

    Otherwise the moving mean and variance are used (and the updates change nothing).
    Variables: ``<name>/gamma``, ``beta`` (trainable), ``moving_mean``, ``moving_variance``
    (never partitioned, whatever the scope's partitioner); float32 for float16 inputs, which
    are normalized in float32 and cast back.

    ``adjustment(shape)`` (``shape``: the inputs' dynamic shape) gives a (scale, bias) pair,
    each broadcastable to the channels, that transforms the normalized values before gamma
    and beta while training: ``(x_hat * scale + bias) * gamma + beta``.

    With ``renorm`` (batch renormalization, Ioffe 2017, in TF 1.x's form), training corrects
    the batch's normalization by r = stddev / s and d = (mean - m) / s (clipped by
    ``renorm_clipping``'s ``rmin``, ``rmax``, ``dmax``; no gradient through them), m and s
    the averages ``renorm_mean`` and ``renorm_stddev`` kept with ``renorm_momentum`` and
    unbiased by their weights ``renorm_mean_weight`` and ``renorm_stddev_weight`` (the batch's
    own moments make up the weight they lack); the moving statistics follow the renorm ones.

    With ``virtual_batch_size`` v ("ghost" batch normalization, TF 1.x's form), the batch is
    reshaped to [v, n / v, ...] and each of the n / v ghost batches (examples i, i + n / v,
    ...) is normalized by its own moments; the moving averages follow their mean, and the
    variables have the shape ``[1, 1, ..., channels]``. The batch size must be a multiple of
    v, in inference too.
    """
    clipping = dict(renorm_clipping or {})
    if set(clipping) - {"rmin", "rmax", "dmax"}:
        raise ValueError(f"renorm_clipping {clipping} contains keys not in ['rmin', 'rmax', 'dmax']")
    inputs = ops.convert_to_tensor(inputs)
    rank = inputs.shape.ndims
    if rank is None:
        raise ValueError(f"Input has undefined rank: batch normalization needs inputs of known rank, got "
                         f"{inputs.name} of shape {inputs.shape}")
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    axes = [a % rank for a in axes]
    channels = [inputs.shape[a].value for a in axes]
    if any(c is None for c in channels):
        raise ValueError(f"Input has undefined `axis` dimension: axis {axis} of {inputs.name} (shape "
                         f"{inputs.shape}) must be known")
    param_shape = channels if len(channels) > 1 else channels[:1]
    ghost = virtual_batch_size is not None
    if ghost:
        if virtual_batch_size <= 0:
            raise ValueError(f"virtual_batch_size must be a positive integer that divides the true batch size of "
                             f"the input Tensor, got {virtual_batch_size}")
        if 0 in axes:
            raise ValueError("When using virtual_batch_size, the batch dimension must be 0 and thus axis cannot "
                             "include 0")
        original_shape, static_shape = array_ops.shape(inputs), inputs.shape
        inputs = array_ops.reshape(inputs, slicing_ops.concat([[int(virtual_batch_size), -1],
                                                               original_shape[1:]], 0))
        rank, axes, fused = rank + 1, [a + 1 for a in axes], False
        param_shape = [c if a in axes else 1 for a, c in zip(range(rank), [1, 1] + static_shape.as_list()[1:])]
    reduce_axes = [a for a in range(rank) if a not in axes and not (ghost and a == 1)]
    broadcast = [inputs.shape[a].value if a in axes else 1 for a in range(rank)]
    output_dtype = inputs.dtype.base_dtype
    if output_dtype == dtypes.float16:  # (normalized in float32, as TF's)
        inputs = math_ops.cast(inputs, dtypes.float32)
    dtype = inputs.dtype.base_dtype
    with variable_scope(name, default_name="batch_normalization", reuse=reuse) as layer_scope:
        gamma = layer_variable("gamma", param_shape, dtype, gamma_initializer, gamma_regularizer, trainable,
                               gamma_constraint) if scale else None
        beta = layer_variable("beta", param_shape, dtype, beta_initializer, beta_regularizer, trainable,
                              beta_constraint) if center else None
        partitioner = layer_scope.partitioner
        layer_scope.set_partitioner(None)
        try:
            moving_mean = layer_variable("moving_mean", param_shape, dtype, moving_mean_initializer, None, False)
            moving_variance = layer_variable("moving_variance", param_shape, dtype, moving_variance_initializer,
                                             None, False)
        finally:
            layer_scope.set_partitioner(partitioner)
        if renorm:
            renorm_vars = [layer_variable(n, shape, dtype, init_ops.zeros_initializer(), None, False)
                           for n, shape in (("renorm_mean", param_shape), ("renorm_mean_weight", []),
                                            ("renorm_stddev", param_shape), ("renorm_stddev_weight", []))]

        def shaped(t):  # (a ghost batch's moments and parameters have their shapes already)
            return t if t is None or ghost else array_ops.reshape(t, broadcast)

        def normalized(mean, variance, scale=None, offset=None):
            return nn_ops.batch_normalization(inputs, shaped(mean), shaped(variance),
                                              shaped(beta) if offset is None else shaped(offset),
                                              shaped(gamma) if scale is None else shaped(scale), epsilon)

        def restored(t):
            if ghost:
                t = array_ops.reshape(t, original_shape)
                t.set_shape(static_shape)
            return t if output_dtype == dtype else math_ops.cast(t, output_dtype)

        if training is False:
            return restored(normalized(moving_mean, moving_variance))
        if training is not True:
            training = ops.convert_to_tensor(training, dtype=dtypes.bool)
        mean, variance = nn_ops.moments(inputs, reduce_axes, keep_dims=ghost)
        batch_mean, batch_variance = mean, variance
        if ghost:  # (the moving averages follow the ghost batches' mean moments)
            mean, variance = (reduction_ops.reduce_mean(t, [1], keepdims=True) for t in (mean, variance))
        scale = offset = None
        if renorm or adjustment is not None:  # (x_hat, transformed, then gamma and beta)
            scale = None if gamma is None else gamma.value()
            offset = None if beta is None else beta.value()
        if adjustment is not None:
            adjust_scale, adjust_bias = adjustment(array_ops.shape(inputs))
            if training is not True:  # (only while training)
                adjust_scale = math_ops.where(training, adjust_scale, array_ops.ones_like(adjust_scale))
                adjust_bias = math_ops.where(training, adjust_bias, array_ops.zeros_like(adjust_bias))
            scale, offset = _composed(adjust_scale, adjust_bias, scale, offset)
        if renorm:  # (never TF's fused kernel: the moving variance follows the biased one)
            (r, d), (target_mean, target_variance) = _renorm(mean, variance, renorm_vars, clipping, renorm_momentum,
                                                             epsilon, training)
            scale, offset = _composed(r, d, scale, offset)
        else:
            target_mean, target_variance = mean, fused_moving_variance(variance, inputs, reduce_axes, axes, fused)
        if training is True:
            output = normalized(batch_mean, batch_variance, scale, offset)
            new_mean, new_variance = target_mean, target_variance
        else:
            picked = array_ops.fill(array_ops.shape(inputs), training)
            output = math_ops.where(picked, normalized(batch_mean, batch_variance, scale, offset),
                                    normalized(moving_mean, moving_variance))
            new_mean = math_ops.where(training, target_mean, moving_mean.value())
            new_variance = math_ops.where(training, target_variance, moving_variance.value())
        decay = 1.0 - momentum
        for var, value in ((moving_mean, new_mean), (moving_variance, new_variance)):
            with ops.name_scope("AssignMovingAvg"):
                update = state_ops.assign_sub(var, (var.value() - value) * decay)
            ops.add_to_collection(ops.GraphKeys.UPDATE_OPS, update)
        return restored(output)


def _composed(scale, offset, then_scale, then_offset):
    """``x * scale + offset`` followed by ``* then_scale + then_offset`` (either may be None) as
    one (scale, offset)."""
    if then_scale is not None:
        scale, offset = scale * then_scale, offset * then_scale
    if then_offset is not None:
        offset = offset + then_offset
    return scale, offset


def _renorm(mean, variance, variables, clipping, momentum, epsilon, training):
    """Batch renormalization's corrections (r, d) for this batch, and the renorm averages'
    unbiased (mean, variance) after it updates them (not when ``training`` is a false tensor)."""
    renorm_mean, mean_weight, renorm_stddev, stddev_weight = variables
    stddev = math_ops.sqrt(variance + epsilon)
    mixed_mean = renorm_mean.value() + (1.0 - mean_weight.value()) * mean
    mixed_stddev = renorm_stddev.value() + (1.0 - stddev_weight.value()) * stddev
    r, d = stddev / mixed_stddev, (mean - mixed_mean) / mixed_stddev
    if "rmin" in clipping:
        r = math_ops.maximum(r, clipping["rmin"])
    if "rmax" in clipping:
        r = math_ops.minimum(r, clipping["rmax"])
    if "dmax" in clipping:
        d = math_ops.minimum(math_ops.maximum(d, -clipping["dmax"]), clipping["dmax"])
    rate = 1.0 - momentum
    if training is not True:
        r = math_ops.where(training, r, array_ops.ones_like(r))
        d = math_ops.where(training, d, array_ops.zeros_like(d))
        rate = rate * math_ops.cast(training, mean.dtype.base_dtype)
    r, d = array_ops.stop_gradient(r), array_ops.stop_gradient(d)
    with ops.control_dependencies([r, d]):  # (the corrections read the averages before this batch's update)
        updated = [state_ops.assign_sub(var, (var.value() - value) * rate)
                   for var, value in ((renorm_mean, mean), (mean_weight, 1.0), (renorm_stddev, stddev),
                                      (stddev_weight, 1.0))]
    new_stddev = updated[2] / updated[3]
    return (r, d), (updated[0] / updated[1], math_ops.square(new_stddev) - epsilon)
