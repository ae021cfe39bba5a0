"""``tf.quantization``: simulated quantization in float (quantization-aware training).

The quantized dtypes (qint8, quint8, ...) and the ops that compute in them (``quantize``,
``dequantize``, ``quantized_concat``) are not implemented: docs/compat.md lists them.
"""

from ._namespace import missing
from .ops.fake_quant_ops import (fake_quant_with_min_max_args, fake_quant_with_min_max_args_gradient,  # noqa: F401
                                 fake_quant_with_min_max_vars, fake_quant_with_min_max_vars_gradient,
                                 fake_quant_with_min_max_vars_per_channel,
                                 fake_quant_with_min_max_vars_per_channel_gradient, quantize_and_dequantize)

__getattr__ = missing("tf.quantization")
