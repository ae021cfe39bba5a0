"""Simulated quantization for quantization-aware training (``tf.fake_quant_*``).

Values are clamped to a range nudged so that zero is exactly representable, then rounded
to one of 2^num_bits levels (2^num_bits - 1 with ``narrow_range``) and mapped back to
float, as TensorFlow's FakeQuant kernels do. The gradient is the straight-through estimate:
it passes where the input lay inside the nudged range; below it goes to ``min``, above it to
``max``. Per-channel variants take ``min``/``max`` vectors over the last dimension.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, ops
from ..framework.registry import register_gradient, register_op
from .op_util import make_op, make_tensor


def _nudged(lo, hi, num_bits, narrow_range):
    quant_min = 1.0 if narrow_range else 0.0
    quant_max = float(2 ** num_bits - 1)
    lo, hi = np.asarray(lo, np.float32), np.asarray(hi, np.float32)
    scale = (hi - lo) / np.float32(quant_max - quant_min)
    zero_point = quant_min - lo / scale
    nudged_zero = np.where(zero_point < quant_min, quant_min,
                           np.where(zero_point > quant_max, quant_max, np.sign(zero_point) *
                                    np.floor(np.abs(zero_point) + 0.5)))
    return (quant_min - nudged_zero) * scale, (quant_max - nudged_zero) * scale, scale


def _quantized(x, lo, hi, num_bits, narrow_range, divide=False):
    if np.any(np.asarray(lo) > np.asarray(hi)):
        from ..framework import errors  # noqa: PLC0415

        raise errors.InvalidArgumentError(None, None, f"FakeQuant: min {lo} must be <= max {hi}")
    nudged_min, nudged_max, scale = _nudged(lo, hi, num_bits, narrow_range)
    clamped = np.clip(x, nudged_min, nudged_max)
    # (as TF's kernels round ties: the per-channel one divides by the step, the others multiply
    # by its float32 inverse, so -1.2 at +-6 rounds up there)
    steps = (clamped - nudged_min) / scale if divide else (clamped - nudged_min) * (np.float32(1.0) / scale)
    return (np.floor(steps + np.float32(0.5)) * scale + nudged_min).astype(x.dtype)


def _straight_through(grad, x, lo, hi, num_bits, narrow_range):
    """(for the input, for min, for max): the gradient passes where x lay in the nudged range;
    below it goes to min, above it to max (summed over all but the channels)."""
    nudged_min, nudged_max, _ = _nudged(lo, hi, num_bits, narrow_range)
    below, above = x < nudged_min, x > nudged_max
    axes = tuple(range(x.ndim - np.ndim(lo)))
    d_min = np.sum(np.where(below, grad, 0), axis=axes) if axes else np.where(below, grad, 0)
    d_max = np.sum(np.where(above, grad, 0), axis=axes) if axes else np.where(above, grad, 0)
    return (np.where(below | above, 0, grad).astype(grad.dtype), np.asarray(d_min, grad.dtype).reshape(np.shape(lo)),
            np.asarray(d_max, grad.dtype).reshape(np.shape(hi)))


# TF's op types: the range as attributes (Args), or as tensors (Vars: a scalar each; PerChannel:
# a vector over the last dimension), each with its gradient op, so that a graph exported for
# TensorFlow's tools (the TFLite converter reads these) holds the ops they know.
@register_op("FakeQuantWithMinMaxArgs", shape=lambda op: op.inputs[0].shape)
def _fake_quant_args_kernel(xp, x, *, min, max, num_bits, narrow_range):  # noqa: A002 - TF's attr names
    return _quantized(x, np.float32(min), np.float32(max), num_bits, narrow_range)


@register_op("FakeQuantWithMinMaxArgsGradient", shape=lambda op: op.inputs[1].shape)
def _fake_quant_args_grad_kernel(xp, grad, x, *, min, max, num_bits, narrow_range):  # noqa: A002
    return _straight_through(grad, x, np.float32(min), np.float32(max), num_bits, narrow_range)[0]


def _vars_kernel(xp, x, lo, hi, *, num_bits, narrow_range):
    return _quantized(x, lo, hi, num_bits, narrow_range, divide=np.ndim(lo) > 0)


def _vars_grad_kernel(xp, grad, x, lo, hi, *, num_bits, narrow_range):
    return _straight_through(grad, x, lo, hi, num_bits, narrow_range)


for _type in ("FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel"):
    register_op(_type, shape=lambda op: op.inputs[0].shape)(_vars_kernel)
    register_op(_type + "Gradient", list_output=True,
                shape=lambda op: [op.inputs[1].shape, op.inputs[2].shape, op.inputs[3].shape],
                dtype=lambda op: [op.inputs[0].dtype.base_dtype] * 3)(_vars_grad_kernel)


@register_gradient("FakeQuantWithMinMaxArgs")
def _fake_quant_args_grad(op, grad):
    return (make_tensor("FakeQuantWithMinMaxArgsGradient", [grad, op.inputs[0]],
                        {k: op._attr(k) for k in ("min", "max", "num_bits", "narrow_range")}),)


@register_gradient("FakeQuantWithMinMaxVars")
@register_gradient("FakeQuantWithMinMaxVarsPerChannel")
def _fake_quant_vars_grad(op, grad):
    x, lo, hi = op.inputs
    return tuple(make_op(op.type + "Gradient", [grad, x, lo, hi], _attrs_of(op)).outputs)


def _attrs_of(op):
    return {"num_bits": op._attr("num_bits"), "narrow_range": op._attr("narrow_range")}


def _check_bits(num_bits):
    if not 2 <= num_bits <= 16:
        raise ValueError(f"num_bits must be between 2 and 16, got {num_bits}")
    return int(num_bits)


def _floats(*values):
    return [ops.convert_to_tensor(v, dtype=dtypes.float32) for v in values]


def _bits(num_bits, narrow_range) -> dict:
    return {"num_bits": _check_bits(num_bits), "narrow_range": bool(narrow_range)}


def _range(lo, hi, num_bits, narrow_range) -> dict:
    return {"min": float(lo), "max": float(hi), **_bits(num_bits, narrow_range)}


def fake_quant_with_min_max_args(inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False, name=None):  # noqa: A002
    """``inputs`` quantized to the fixed range [min, max] and back."""
    return make_tensor("FakeQuantWithMinMaxArgs", _floats(inputs), _range(min, max, num_bits, narrow_range),
                       name or "FakeQuantWithMinMaxArgs")


def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6.0, max=6.0, num_bits=8,  # noqa: A002
                                          narrow_range=False, name=None):
    return make_tensor("FakeQuantWithMinMaxArgsGradient", _floats(gradients, inputs),
                       _range(min, max, num_bits, narrow_range), name or "FakeQuantWithMinMaxArgsGradient")


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None):  # noqa: A002
    """``inputs`` quantized to the range held by the scalar tensors (variables) ``min``, ``max``."""
    return make_tensor("FakeQuantWithMinMaxVars", _floats(inputs, min, max), _bits(num_bits, narrow_range),
                       name or "FakeQuantWithMinMaxVars")


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                          name=None):
    """(gradient for inputs, for min, for max)."""
    return tuple(make_op("FakeQuantWithMinMaxVarsGradient", _floats(gradients, inputs, min, max),
                         _bits(num_bits, narrow_range), name or "FakeQuantWithMinMaxVarsGradient").outputs)


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                             name=None):
    """Per-channel ranges: ``min`` and ``max`` are vectors over the last dimension of ``inputs``."""
    return make_tensor("FakeQuantWithMinMaxVarsPerChannel", _floats(inputs, min, max), _bits(num_bits, narrow_range),
                       name or "FakeQuantWithMinMaxVarsPerChannel")


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                                                      narrow_range=False, name=None):
    return tuple(make_op("FakeQuantWithMinMaxVarsPerChannelGradient", _floats(gradients, inputs, min, max),
                         _bits(num_bits, narrow_range), name or "FakeQuantWithMinMaxVarsPerChannelGradient").outputs)


# ---------------------------------------------------------------------------
# Quantize and dequantize in one op: a symmetric range that keeps zero exact


@register_op("QuantizeAndDequantizeV2", shape=lambda op: op.inputs[0].shape)
def _quantize_and_dequantize_kernel(xp, x, input_min, input_max, *, signed_input, num_bits, range_given,
                                    round_mode, narrow_range, axis):
    """TF's QuantizeAndDequantizeV2: the scale that maps the range (given, or the input's own
    min and max, per slice along ``axis`` when it is not -1) to the integers of ``num_bits``
    bits on the side that limits it, zero kept exact; values rounded at that scale."""
    from ..framework import errors  # noqa: PLC0415

    if axis == -1:
        lo, hi = (np.asarray(input_min), np.asarray(input_max)) if range_given else (x.min(), x.max())
        shape = ()
    else:
        moved = np.moveaxis(x, axis, -1).reshape(-1, x.shape[axis])
        lo, hi = (np.asarray(input_min), np.asarray(input_max)) if range_given else (moved.min(0), moved.max(0))
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
    lo, hi = np.asarray(lo, np.float64).reshape(shape), np.asarray(hi, np.float64).reshape(shape)
    if range_given and np.any(lo > hi):
        raise errors.InvalidArgumentError(None, None, f"QuantizeAndDequantizeV2: input_min {lo.ravel().tolist()} "
                                          f"must be <= input_max {hi.ravel().tolist()}")
    half = 2.0 ** (num_bits - 1)
    q_min = (-half + 1 if narrow_range else -half) if signed_input else 0.0
    q_max = half - 1 if signed_input else 2.0 ** num_bits - 1
    big = np.finfo(np.float64).max
    with np.errstate(divide="ignore", invalid="ignore"):
        from_min = np.where(q_min * lo > 0, q_min / lo, big)
        from_max = np.where(q_max * hi > 0, q_max / hi, big)
        by_min = from_min < from_max
        scale = np.where(by_min, from_min, from_max)
        inverse = np.where(by_min, lo / q_min, hi / q_max)
    lo, hi = np.where(by_min, lo, q_min * inverse), np.where(by_min, q_max * inverse, hi)
    value = np.clip(x, lo, hi) if range_given else x.astype(np.float64)
    scaled = value * scale
    rounded = np.rint(scaled) if round_mode == "HALF_TO_EVEN" else np.floor(scaled + 0.5)
    return (rounded * inverse).astype(x.dtype)


@register_gradient("QuantizeAndDequantizeV2")
def _quantize_and_dequantize_grad(op, grad):
    return grad, None, None  # (straight through, as TF's gradient of this op)


def quantize_and_dequantize(input, input_min, input_max, signed_input=True, num_bits=8, range_given=False,  # noqa: A002
                            round_mode="HALF_TO_EVEN", name=None, narrow_range=False, axis=None):
    """Quantizes ``input`` to ``num_bits`` integers and back (TF's QuantizeAndDequantizeV2)."""
    if round_mode not in ("HALF_TO_EVEN", "HALF_UP"):
        raise ValueError(f"round_mode must be 'HALF_TO_EVEN' or 'HALF_UP', got {round_mode!r}")
    if not (1 <= num_bits <= 63) or (signed_input and num_bits < 2):
        raise ValueError(f"num_bits must be between {2 if signed_input else 1} and 63, got {num_bits}")
    with ops.name_scope(name, "QuantizeAndDequantizeV2", [input]) as scope:
        x = ops.convert_to_tensor(input, name="input")
        if not x.dtype.is_floating:
            raise TypeError(f"quantize_and_dequantize needs a floating-point input, got {x.dtype.name}")
        axis = -1 if axis is None else int(axis)
        if axis < -1 or (x.shape.ndims is not None and axis >= x.shape.ndims):
            raise ValueError(f"axis {axis} is out of range for an input of shape {x.shape}")
        lo = ops.convert_to_tensor(input_min, dtype=x.dtype, name="input_min")
        hi = ops.convert_to_tensor(input_max, dtype=x.dtype, name="input_max")
        for bound in (lo, hi):
            want = 0 if axis == -1 else 1
            if bound.shape.ndims is not None and bound.shape.ndims != want:
                raise ValueError(f"quantize_and_dequantize: {bound.op.name.rsplit('/', 1)[-1]} must be "
                                 f"{'a scalar' if want == 0 else 'a vector (one per slice along axis)'}, got "
                                 f"shape {bound.shape}")
        return make_tensor("QuantizeAndDequantizeV2", [x, lo, hi],
                           {"signed_input": bool(signed_input), "num_bits": int(num_bits),
                            "range_given": bool(range_given), "round_mode": round_mode,
                            "narrow_range": bool(narrow_range), "axis": axis}, scope)
