"""``tf.keras.applications.mobilenet_v2``: MobileNetV2 (Sandler et al., 2018), as TF 1.x's Keras
builds it: a strided 3x3 convolution, 17 inverted residual blocks (a 1x1 expansion, a
depthwise 3x3 convolution, a linear 1x1 projection, and an identity shortcut where shapes
allow), a 1x1 convolution to 1280 channels and the classifier, with Keras's layer names
(``Conv1``, ``block_1_expand``, ``block_1_depthwise_BN``, ``Logits`` ...)."""

from __future__ import annotations

import logging

from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401

_log = logging.getLogger("distflow")
_BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6), (64, 1, 6),
           (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6),
           (320, 1, 6))  # (filters, stride, expansion) of blocks 0 to 16
_ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)


def make_divisible(v, divisor=8, min_value=None) -> int:
    """``v`` rounded to a multiple of ``divisor``, by no less than 10% (the paper's channel rule)."""
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded


def correct_pad(size, kernel_size: int = 3) -> tuple:
    """The zero padding before a strided ``kernel_size`` convolution of an input of spatial
    ``size`` that gives what 'same' padding gives on an even side."""
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    half = kernel_size // 2
    return (half - adjust[0], half), (half - adjust[1], half)


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
                pooling=None, classes=1000, **kwargs):
    """MobileNetV2 at width ``alpha`` (ImageNet weights for 0.35, 0.50, 0.75, 1.0, 1.3 and 1.4
    at 96, 128, 160, 192 or 224 pixels)."""
    from .. import layers  # noqa: PLC0415
    from ..engine.training import Model  # noqa: PLC0415

    if kwargs:
        raise TypeError(f"Unknown argument(s): {sorted(kwargs)}")
    imagenet_utils.check_weights(weights, include_top, classes)
    rows = input_shape[0] if input_shape and input_shape[0] == input_shape[1] else None
    default_size = rows if rows in (96, 128, 160, 192, 224) else 224
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32, include_top, weights)
    rows = input_shape[0]
    if weights == "imagenet":
        if alpha not in _ALPHAS:
            raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.35`, `0.50`, `0.75`, "
                             "`1.0`, `1.3` or `1.4` only.")
        if rows != input_shape[1] or rows not in (96, 128, 160, 192, 224):
            rows = 224
            _log.warning("`input_shape` is undefined or non-square, or `rows` is not in [96, 128, 160, 192, 224]. "
                         "Weights for input shape (224, 224) will be loaded as the default.")
    img_input = imagenet_utils.model_input(input_tensor, input_shape)

    def bn(name):
        return layers.BatchNormalization(epsilon=1e-3, momentum=0.999, name=name)

    x = layers.ZeroPadding2D(padding=correct_pad(input_shape[:2]), name="Conv1_pad")(img_input)
    x = layers.Conv2D(make_divisible(32 * alpha), 3, strides=(2, 2), padding="valid", use_bias=False, name="Conv1")(x)
    x = bn("bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block, (filters, stride, expansion) in enumerate(_BLOCKS):
        inputs = x
        channels = int(x.shape[-1])
        out_channels = make_divisible(int(filters * alpha))
        prefix = f"block_{block}_" if block else "expanded_conv_"
        if block:
            x = layers.Conv2D(expansion * channels, 1, padding="same", use_bias=False, name=prefix + "expand")(x)
            x = bn(prefix + "expand_BN")(x)
            x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
        if stride == 2:
            x = layers.ZeroPadding2D(padding=correct_pad(x.shape.as_list()[1:3]), name=prefix + "pad")(x)
        x = layers.DepthwiseConv2D(3, strides=stride, use_bias=False, padding="same" if stride == 1 else "valid",
                                   name=prefix + "depthwise")(x)
        x = bn(prefix + "depthwise_BN")(x)
        x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
        x = layers.Conv2D(out_channels, 1, padding="same", use_bias=False, name=prefix + "project")(x)
        x = bn(prefix + "project_BN")(x)
        if channels == out_channels and stride == 1:
            x = layers.Add(name=prefix + "add")([inputs, x])
    x = layers.Conv2D(make_divisible(1280 * alpha) if alpha > 1.0 else 1280, 1, use_bias=False, name="Conv_1")(x)
    x = bn("Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Dense(classes, activation="softmax", use_bias=True, name="Logits")(x)
    else:
        x = imagenet_utils.pool(x, pooling)
    fname = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{alpha}_{rows}{'' if include_top else '_no_top'}.h5"
    return imagenet_utils.load_weights(Model(img_input, x, name=f"mobilenetv2_{alpha:0.2f}_{rows}"), weights, fname,
                                       "mobilenet_v2/")


def preprocess_input(x, data_format=None):
    """RGB images scaled to [-1, 1] (the "tf" mode MobileNetV2 was trained in)."""
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
