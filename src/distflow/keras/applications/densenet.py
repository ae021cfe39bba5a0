"""``tf.keras.applications.densenet``: DenseNet (Huang et al., 2016), as Keras builds it: a 7x7
convolution and a pooling, then four dense blocks (each layer a batch normalization, ReLU
and 1x1 convolution to 128 channels, then the same with a 3x3 convolution to 32, its output
concatenated to its input), joined by transitions that halve the channels and the size.
DenseNet121, 169 and 201 differ in their blocks' lengths. Keras's layer names
(``conv1/conv``, ``conv2_block1_0_bn``, ``pool2_conv`` ...)."""

from __future__ import annotations

from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401

_NAMES = {(6, 12, 24, 16): "densenet121", (6, 12, 32, 32): "densenet169", (6, 12, 48, 32): "densenet201"}


def DenseNet(blocks, include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802
             pooling=None, classes=1000):
    """A DenseNet whose dense blocks have ``blocks`` layers (four numbers)."""
    from .. import layers  # noqa: PLC0415
    from ..engine.training import Model  # noqa: PLC0415

    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, include_top, weights)
    img_input = imagenet_utils.model_input(input_tensor, input_shape)

    def bn_relu(x, name):
        x = layers.BatchNormalization(epsilon=1.001e-5, name=name + "_bn" if name else "bn")(x)
        return layers.Activation("relu", name=name + "_relu" if name else "relu")(x)

    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1/conv")(x)
    x = layers.BatchNormalization(epsilon=1.001e-5, name="conv1/bn")(x)
    x = layers.Activation("relu", name="conv1/relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks, start=2):
        for i in range(1, count + 1):  # the dense block
            name = f"conv{stage}_block{i}"
            grown = layers.Conv2D(128, 1, use_bias=False, name=name + "_1_conv")(bn_relu(x, name + "_0"))
            grown = layers.Conv2D(32, 3, padding="same", use_bias=False, name=name + "_2_conv")(
                bn_relu(grown, name + "_1"))
            x = layers.Concatenate(name=name + "_concat")([x, grown])
        if stage < 5:  # the transition
            name = f"pool{stage}"
            x = bn_relu(x, name)
            x = layers.Conv2D(int(x.shape[-1]) // 2, 1, use_bias=False, name=name + "_conv")(x)
            x = layers.AveragePooling2D(2, strides=2, name=name + "_pool")(x)
    x = bn_relu(x, "")
    x = imagenet_utils.classifier_or_pool(x, include_top, pooling, classes, pool_names=("avg_pool", "max_pool"))
    name = _NAMES.get(tuple(blocks), "densenet")
    fname = f"{name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return imagenet_utils.load_weights(Model(img_input, x, name=name), weights, fname, "densenet/")


def DenseNet121(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
                classes=1000):
    return DenseNet((6, 12, 24, 16), include_top, weights, input_tensor, input_shape, pooling, classes)


def DenseNet169(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
                classes=1000):
    return DenseNet((6, 12, 32, 32), include_top, weights, input_tensor, input_shape, pooling, classes)


def DenseNet201(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
                classes=1000):
    return DenseNet((6, 12, 48, 32), include_top, weights, input_tensor, input_shape, pooling, classes)


def preprocess_input(x, data_format=None):
    """RGB images scaled to [0, 1], less ImageNet's means, over its deviations (the "torch" mode
    DenseNet was trained in)."""
    return imagenet_utils.preprocess_input(x, data_format, mode="torch")
