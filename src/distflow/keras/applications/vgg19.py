"""``tf.keras.applications.vgg19``: VGG19, as Keras builds it (VGG16 with four convolutions in
each of the last three blocks: ``block3_conv4``, ``block4_conv4``, ``block5_conv4``)."""

from __future__ import annotations

from .imagenet_utils import decode_predictions  # noqa: F401
from .vgg16 import preprocess_input, vgg  # noqa: F401

_FILES = {True: "vgg19_weights_tf_dim_ordering_tf_kernels.h5",
          False: "vgg19_weights_tf_dim_ordering_tf_kernels_notop.h5"}


def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
          classes=1000):
    """VGG19: five blocks of 3x3 convolutions (2, 2, 4, 4, 4 of them) each ending in a 2x2 max
    pooling, and on top two dense layers of 4096 and the classifier."""
    return vgg("vgg19", (2, 2, 4, 4, 4), _FILES, include_top, weights, input_tensor, input_shape, pooling, classes)
