"""``tf.keras.applications.mobilenet``: MobileNet (Howard et al., 2017), as TF 1.x's Keras
builds it: a 3x3 convolution, then 13 blocks of a depthwise 3x3 convolution and a pointwise
1x1 one, each followed by batch normalization and ReLU6, with ``alpha`` thinning every layer
and ``depth_multiplier`` the depthwise ones. Layer names are Keras's (``conv1``,
``conv_dw_1``, ``conv_pw_1_bn`` ...), so the weight files Keras wrote load into it."""

from __future__ import annotations

import logging

from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401

_log = logging.getLogger("distflow")


def relu6(x):
    """``min(max(x, 0), 6)``: TF 1.x's Keras named it here, and programs load saved MobileNets
    with ``custom_objects={'relu6': mobilenet.relu6, 'DepthwiseConv2D': mobilenet.DepthwiseConv2D}``."""
    from .. import backend as K  # noqa: PLC0415 (as the layers below are, when first used)
    return K.relu(x, max_value=6)


def __getattr__(name):
    if name == "DepthwiseConv2D":  # (the layer, where TF 1.x's Keras also exported it)
        from ..layers import DepthwiseConv2D  # noqa: PLC0415
        return DepthwiseConv2D
    raise AttributeError(f"module 'tf.keras.applications.mobilenet' has no attribute {name!r}")
_BLOCKS = ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1), (512, 1), (512, 1),
           (512, 1), (1024, 2), (1024, 1))  # (pointwise filters, stride) of blocks 1 to 13


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3, include_top=True,  # noqa: N802
              weights="imagenet", input_tensor=None, pooling=None, classes=1000):
    """MobileNet at width ``alpha`` (ImageNet weights for 0.25, 0.50, 0.75 and 1.0, at 128, 160,
    192 or 224 pixels)."""
    from .. import layers  # noqa: PLC0415
    from ..engine.training import Model  # noqa: PLC0415

    imagenet_utils.check_weights(weights, include_top, classes)
    rows = input_shape[0] if input_shape and input_shape[0] == input_shape[1] else None
    default_size = rows if rows in (128, 160, 192, 224) else 224
    input_shape = imagenet_utils.obtain_input_shape(input_shape, default_size, 32, include_top, weights)
    rows = input_shape[0]
    if weights == "imagenet":
        if depth_multiplier != 1:
            raise ValueError("If imagenet weights are being loaded, depth multiplier must be 1")
        if alpha not in (0.25, 0.50, 0.75, 1.0):
            raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.25`, `0.50`, `0.75` or "
                             "`1.0` only.")
        if rows != input_shape[1] or rows not in (128, 160, 192, 224):
            rows = 224
            _log.warning("`input_shape` is undefined or non-square, or `rows` is not in [128, 160, 192, 224]. "
                         "Weights for input shape (224, 224) will be loaded as the default.")
    img_input = imagenet_utils.model_input(input_tensor, input_shape)

    x = layers.ZeroPadding2D(padding=((0, 1), (0, 1)), name="conv1_pad")(img_input)
    x = layers.Conv2D(int(32 * alpha), (3, 3), padding="valid", use_bias=False, strides=(2, 2), name="conv1")(x)
    x = layers.BatchNormalization(name="conv1_bn")(x)
    x = layers.ReLU(6.0, name="conv1_relu")(x)
    for block, (filters, stride) in enumerate(_BLOCKS, start=1):
        if stride == 2:
            x = layers.ZeroPadding2D(padding=((0, 1), (0, 1)), name=f"conv_pad_{block}")(x)
        x = layers.DepthwiseConv2D((3, 3), padding="same" if stride == 1 else "valid", depth_multiplier=depth_multiplier,
                                   strides=(stride, stride), use_bias=False, name=f"conv_dw_{block}")(x)
        x = layers.BatchNormalization(name=f"conv_dw_{block}_bn")(x)
        x = layers.ReLU(6.0, name=f"conv_dw_{block}_relu")(x)
        x = layers.Conv2D(int(filters * alpha), (1, 1), padding="same", use_bias=False, strides=(1, 1),
                          name=f"conv_pw_{block}")(x)
        x = layers.BatchNormalization(name=f"conv_pw_{block}_bn")(x)
        x = layers.ReLU(6.0, name=f"conv_pw_{block}_relu")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Reshape((1, 1, int(1024 * alpha)), name="reshape_1")(x)
        x = layers.Dropout(dropout, name="dropout")(x)
        x = layers.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(x)
        x = layers.Reshape((classes,), name="reshape_2")(x)
        x = layers.Activation("softmax", name="act_softmax")(x)
    else:
        x = imagenet_utils.pool(x, pooling)
    alpha_text = {1.0: "1_0", 0.75: "7_5", 0.50: "5_0", 0.25: "2_5"}.get(alpha)
    fname = f"mobilenet_{alpha_text}_{rows}_tf{'' if include_top else '_no_top'}.h5"
    return imagenet_utils.load_weights(Model(img_input, x, name=f"mobilenet_{alpha:0.2f}_{rows}"), weights, fname,
                                       "mobilenet_v1/")


def preprocess_input(x, data_format=None):
    """RGB images scaled to [-1, 1] (the "tf" mode MobileNet was trained in)."""
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
