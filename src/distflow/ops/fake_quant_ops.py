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


@register_op("FakeQuant", shape=lambda op: op.inputs[0].shape)
def _fake_quant_kernel(xp, x, lo, hi, *, num_bits, narrow_range):
    if np.any(np.asarray(lo) > np.asarray(hi)):
        from ..framework import errors  # noqa: PLC0415

        raise errors.InvalidArgumentError(None, None, f"FakeQuant: min {lo} must be <= max {hi}")
    nudged_min, nudged_max, scale = _nudged(lo, hi, num_bits, narrow_range)
    clamped = np.clip(x, nudged_min, nudged_max)
    return (np.floor((clamped - nudged_min) / scale + 0.5) * scale + nudged_min).astype(x.dtype)


@register_op("FakeQuantGrad", list_output=True, shape=lambda op: [op.inputs[1].shape, op.inputs[2].shape,
                                                                   op.inputs[3].shape],
             dtype=lambda op: [op.inputs[0].dtype.base_dtype] * 3)
def _fake_quant_grad_kernel(xp, grad, x, lo, hi, *, num_bits, narrow_range):
    nudged_min, nudged_max, _ = _nudged(lo, hi, num_bits, narrow_range)
    below, above = x < nudged_min, x > nudged_max
    axes = tuple(range(x.ndim - np.ndim(lo)))
    d_min = np.sum(np.where(below, grad, 0), axis=axes) if axes else np.where(below, grad, 0)
    d_max = np.sum(np.where(above, grad, 0), axis=axes) if axes else np.where(above, grad, 0)
    return (np.where(below | above, 0, grad).astype(grad.dtype), np.asarray(d_min, grad.dtype).reshape(np.shape(lo)),
            np.asarray(d_max, grad.dtype).reshape(np.shape(hi)))


@register_gradient("FakeQuant")
def _fake_quant_grad(op, grad):
    x, lo, hi = op.inputs
    return tuple(make_op("FakeQuantGrad", [grad, x, lo, hi], _attrs_of(op)).outputs)


def _attrs_of(op):
    return {"num_bits": op._attr("num_bits"), "narrow_range": op._attr("narrow_range")}


def _check_bits(num_bits):
    if not 2 <= num_bits <= 16:
        raise ValueError(f"num_bits must be between 2 and 16, got {num_bits}")
    return int(num_bits)


def _fake_quant(inputs, lo, hi, num_bits, narrow_range, name):
    x = ops.convert_to_tensor(inputs, dtype=dtypes.float32)
    return make_tensor("FakeQuant", [x, ops.convert_to_tensor(lo, dtype=dtypes.float32),
                                     ops.convert_to_tensor(hi, dtype=dtypes.float32)],
                       {"num_bits": _check_bits(num_bits), "narrow_range": bool(narrow_range)}, name)


def _fake_quant_gradients(gradients, inputs, lo, hi, num_bits, narrow_range, name):
    return make_op("FakeQuantGrad", [ops.convert_to_tensor(gradients, dtype=dtypes.float32),
                                     ops.convert_to_tensor(inputs, dtype=dtypes.float32),
                                     ops.convert_to_tensor(lo, dtype=dtypes.float32),
                                     ops.convert_to_tensor(hi, dtype=dtypes.float32)],
                   {"num_bits": _check_bits(num_bits), "narrow_range": bool(narrow_range)}, name).outputs


def fake_quant_with_min_max_args(inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False, name=None):  # noqa: A002
    """``inputs`` quantized to the fixed range [min, max] and back."""
    return _fake_quant(inputs, min, max, num_bits, narrow_range, name or "FakeQuantWithMinMaxArgs")


def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6.0, max=6.0, num_bits=8,  # noqa: A002
                                          narrow_range=False, name=None):
    return _fake_quant_gradients(gradients, inputs, min, max, num_bits, narrow_range,
                                 name or "FakeQuantWithMinMaxArgsGradient")[0]


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None):  # noqa: A002
    """``inputs`` quantized to the range held by the scalar tensors (variables) ``min``, ``max``."""
    return _fake_quant(inputs, min, max, num_bits, narrow_range, name or "FakeQuantWithMinMaxVars")


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                          name=None):
    """(gradient for inputs, for min, for max)."""
    return tuple(_fake_quant_gradients(gradients, inputs, min, max, num_bits, narrow_range,
                                       name or "FakeQuantWithMinMaxVarsGradient"))


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                             name=None):
    """Per-channel ranges: ``min`` and ``max`` are vectors over the last dimension of ``inputs``."""
    return _fake_quant(inputs, min, max, num_bits, narrow_range, name or "FakeQuantWithMinMaxVarsPerChannel")


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                                                      narrow_range=False, name=None):
    return tuple(_fake_quant_gradients(gradients, inputs, min, max, num_bits, narrow_range,
                                       name or "FakeQuantWithMinMaxVarsPerChannelGradient"))
