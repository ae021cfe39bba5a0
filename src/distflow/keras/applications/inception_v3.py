"""``tf.keras.applications.inception_v3``: Inception V3 (Szegedy et al., 2015), as Keras builds
it: a stem of five convolutions and two poolings, then the mixed blocks ``mixed0`` to
``mixed10`` (35x35, 17x17 with factorized 7x7 convolutions, and 8x8 with split 3x3 ones,
joined by the two grid reductions ``mixed3`` and ``mixed8``). Every convolution is followed by
batch normalization without a scale and a ReLU, and the layers are made in Keras's order,
so their generic names (``conv2d_12``, ``batch_normalization_12`` ...) are Keras's and its
weight files load into it."""

from __future__ import annotations

from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
                classes=1000):
    """Inception V3, for inputs of at least 75x75 (299x299 with ImageNet's classifier)."""
    from .. import layers  # noqa: PLC0415
    from ..engine.training import Model  # noqa: PLC0415

    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 299, 75, include_top, weights)
    img_input = imagenet_utils.model_input(input_tensor, input_shape)

    def conv(x, filters, rows, cols, padding="same", strides=(1, 1)):
        x = layers.Conv2D(filters, (rows, cols), strides=strides, padding=padding, use_bias=False)(x)
        x = layers.BatchNormalization(scale=False)(x)
        return layers.Activation("relu")(x)

    def chain(x, *specs):  # convolutions one after another: (filters, rows, cols[, padding, strides])
        for spec in specs:
            x = conv(x, *spec)
        return x

    def average_pool(x, filters):
        return conv(layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x), filters, 1, 1)

    x = chain(img_input, (32, 3, 3, "valid", (2, 2)), (32, 3, 3, "valid"), (64, 3, 3))
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = chain(x, (80, 1, 1, "valid"), (192, 3, 3, "valid"))
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for i, pool_filters in enumerate((32, 64, 64)):  # 35x35: mixed0, mixed1, mixed2
        x = layers.concatenate([conv(x, 64, 1, 1), chain(x, (48, 1, 1), (64, 5, 5)),
                                chain(x, (64, 1, 1), (96, 3, 3), (96, 3, 3)), average_pool(x, pool_filters)],
                               name=f"mixed{i}")
    x = layers.concatenate([conv(x, 384, 3, 3, "valid", (2, 2)),  # to 17x17
                            chain(x, (64, 1, 1), (96, 3, 3), (96, 3, 3, "valid", (2, 2))),
                            layers.MaxPooling2D((3, 3), strides=(2, 2))(x)], name="mixed3")
    for i, width in enumerate((128, 160, 160, 192)):  # 17x17: mixed4 to mixed7
        x = layers.concatenate([conv(x, 192, 1, 1), chain(x, (width, 1, 1), (width, 1, 7), (192, 7, 1)),
                                chain(x, (width, 1, 1), (width, 7, 1), (width, 1, 7), (width, 7, 1), (192, 1, 7)),
                                average_pool(x, 192)], name=f"mixed{4 + i}")
    x = layers.concatenate([chain(x, (192, 1, 1), (320, 3, 3, "valid", (2, 2))),  # to 8x8
                            chain(x, (192, 1, 1), (192, 1, 7), (192, 7, 1), (192, 3, 3, "valid", (2, 2))),
                            layers.MaxPooling2D((3, 3), strides=(2, 2))(x)], name="mixed8")
    for i in range(2):  # 8x8: mixed9, mixed10
        branch1x1 = conv(x, 320, 1, 1)
        branch3x3 = conv(x, 384, 1, 1)
        branch3x3 = layers.concatenate([conv(branch3x3, 384, 1, 3), conv(branch3x3, 384, 3, 1)], name=f"mixed9_{i}")
        double = chain(x, (448, 1, 1), (384, 3, 3))
        double = layers.concatenate([conv(double, 384, 1, 3), conv(double, 384, 3, 1)])
        x = layers.concatenate([branch1x1, branch3x3, double, average_pool(x, 192)], name=f"mixed{9 + i}")
    x = imagenet_utils.classifier_or_pool(x, include_top, pooling, classes)
    fname = f"inception_v3_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return imagenet_utils.load_weights(Model(img_input, x, name="inception_v3"), weights, fname, "inception_v3/")


def preprocess_input(x, data_format=None):
    """RGB images scaled to [-1, 1] (the "tf" mode Inception V3 was trained in)."""
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
