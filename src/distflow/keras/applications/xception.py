"""``tf.keras.applications.xception``: Xception (Chollet, 2017), as Keras builds it: an entry
flow of two convolutions and three strided blocks of separable convolutions with 1x1
shortcuts, eight middle blocks of three separable convolutions with identity shortcuts, and
an exit flow; Keras's layer names (``block1_conv1``, ``block5_sepconv2_bn`` ...), and the
generic names of the shortcuts' layers (``conv2d``, ``batch_normalization``, ``add`` ...)
made in Keras's order, so Keras's weight files load into it."""

from __future__ import annotations

from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
             classes=1000):
    """Xception, for inputs of at least 71x71 (299x299 with ImageNet's classifier)."""
    from .. import layers  # noqa: PLC0415
    from ..engine.training import Model  # noqa: PLC0415

    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 299, 71, include_top, weights)
    img_input = imagenet_utils.model_input(input_tensor, input_shape)

    def separable(x, filters, name, relu_first=None):
        if relu_first:
            x = layers.Activation("relu", name=relu_first)(x)
        x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
        return layers.BatchNormalization(name=name + "_bn")(x)

    def shortcut(x, filters):
        x = layers.Conv2D(filters, (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
        return layers.BatchNormalization()(x)

    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = layers.BatchNormalization(name="block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = layers.BatchNormalization(name="block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)
    for block, filters in ((2, 128), (3, 256), (4, 728)):  # the entry flow
        residual = shortcut(x, filters)
        x = separable(x, filters, f"block{block}_sepconv1", f"block{block}_sepconv1_act" if block > 2 else None)
        x = separable(x, filters, f"block{block}_sepconv2", f"block{block}_sepconv2_act")
        x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{block}_pool")(x)
        x = layers.add([x, residual])
    for block in range(5, 13):  # the middle flow
        residual = x
        for i in (1, 2, 3):
            x = separable(x, 728, f"block{block}_sepconv{i}", f"block{block}_sepconv{i}_act")
        x = layers.add([x, residual])
    residual = shortcut(x, 1024)  # the exit flow
    x = separable(x, 728, "block13_sepconv1", "block13_sepconv1_act")
    x = separable(x, 1024, "block13_sepconv2", "block13_sepconv2_act")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name="block13_pool")(x)
    x = layers.add([x, residual])
    x = separable(x, 1536, "block14_sepconv1")
    x = layers.Activation("relu", name="block14_sepconv1_act")(x)
    x = separable(x, 2048, "block14_sepconv2")
    x = layers.Activation("relu", name="block14_sepconv2_act")(x)
    x = imagenet_utils.classifier_or_pool(x, include_top, pooling, classes)
    fname = f"xception_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return imagenet_utils.load_weights(Model(img_input, x, name="xception"), weights, fname, "xception/")


def preprocess_input(x, data_format=None):
    """RGB images scaled to [-1, 1] (the "tf" mode Xception was trained in)."""
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
