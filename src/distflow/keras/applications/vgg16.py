"""``tf.keras.applications.vgg16``: VGG16 (Simonyan and Zisserman, 2014), as Keras builds it
(``block1_conv1`` ... ``block5_pool``, then ``flatten``, ``fc1``, ``fc2``, ``predictions``)."""

from __future__ import annotations

from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401

_FILES = {True: "vgg16_weights_tf_dim_ordering_tf_kernels.h5",
          False: "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5"}


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
          classes=1000):
    """VGG16: five blocks of 3x3 convolutions (2, 2, 3, 3, 3 of them) each ending in a 2x2 max
    pooling, and on top two dense layers of 4096 and the classifier."""
    return vgg("vgg16", (2, 2, 3, 3, 3), _FILES, include_top, weights, input_tensor, input_shape, pooling, classes)


def vgg(name, convs, files, include_top, weights, input_tensor, input_shape, pooling, classes):
    """The VGG network with ``convs[i]`` convolutions in block ``i + 1``."""
    from .. import layers  # noqa: PLC0415
    from ..engine.training import Model  # noqa: PLC0415

    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, include_top, weights)
    img_input = imagenet_utils.model_input(input_tensor, input_shape)
    x = img_input
    for block, (count, filters) in enumerate(zip(convs, (64, 128, 256, 512, 512)), start=1):
        for i in range(1, count + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same", name=f"block{block}_conv{i}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        x = layers.Dense(classes, activation="softmax", name="predictions")(x)
    else:
        x = imagenet_utils.pool(x, pooling)
    return imagenet_utils.load_weights(Model(img_input, x, name=name), weights, files[bool(include_top)])


def preprocess_input(x, data_format=None):
    """RGB images to BGR less ImageNet's channel means (the "caffe" mode VGG was trained in)."""
    return imagenet_utils.preprocess_input(x, data_format, mode="caffe")
