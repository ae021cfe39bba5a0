"""``tf.keras.applications.inception_resnet_v2``: Inception-ResNet v2 (Szegedy et al., 2016) as
Keras builds it: an Inception stem, then 10 "block35", 20 "block17" and 10 "block8" residual
Inception blocks (each adds its branches' 1x1 projection, scaled, to its input), joined by
reduction blocks. Keras's layer names (``mixed_5b``, ``block35_1_conv``, ``conv_7b``; the
stem's and branches' layers named by Keras's count), so that Keras's weight files load.
"""

from __future__ import annotations

from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401


def _conv_bn(x, filters, kernel_size, strides=1, padding="same", activation="relu", use_bias=False, name=None):
    """A convolution, then (without a bias) a batch normalization without scale, then ``activation``."""
    from .. import layers  # noqa: PLC0415

    x = layers.Conv2D(filters, kernel_size, strides=strides, padding=padding, use_bias=use_bias, name=name)(x)
    if not use_bias:
        x = layers.BatchNormalization(scale=False, name=None if name is None else name + "_bn")(x)
    if activation is not None:
        x = layers.Activation(activation, name=None if name is None else name + "_ac")(x)
    return x


def scaled_residual(inputs, scale):
    """The block's input plus its residual branch times ``scale`` (a Lambda layer's function)."""
    return inputs[0] + inputs[1] * scale


_BRANCHES = {  # (each branch: its convolutions' filters and kernel sizes)
    "block35": [[(32, 1)], [(32, 1), (32, 3)], [(32, 1), (48, 3), (64, 3)]],
    "block17": [[(192, 1)], [(128, 1), (160, (1, 7)), (192, (7, 1))]],
    "block8": [[(192, 1)], [(192, 1), (224, (1, 3)), (256, (3, 1))]],
}


def _residual_block(x, scale, block_type, block_idx, activation="relu"):
    from .. import layers  # noqa: PLC0415

    name = f"{block_type}_{block_idx}"
    branches = []
    for convs in _BRANCHES[block_type]:
        branch = x
        for filters, kernel in convs:
            branch = _conv_bn(branch, filters, kernel)
        branches.append(branch)
    mixed = layers.Concatenate(name=name + "_mixed")(branches)
    up = _conv_bn(mixed, int(x.shape[-1]), 1, activation=None, use_bias=True, name=name + "_conv")
    x = layers.Lambda(scaled_residual, output_shape=tuple(x.shape.as_list()[1:]), arguments={"scale": scale},
                      name=name)([x, up])
    return layers.Activation(activation, name=name + "_ac")(x) if activation is not None else x


def _reduction(x, convs, name):
    """Strided branches (``convs``: per branch, its (filters, kernel, strides, padding)) and a
    strided max pooling, concatenated."""
    from .. import layers  # noqa: PLC0415

    branches = []
    for branch_convs in convs:
        branch = x
        for filters, kernel, strides, padding in branch_convs:
            branch = _conv_bn(branch, filters, kernel, strides=strides, padding=padding)
        branches.append(branch)
    branches.append(layers.MaxPooling2D(3, strides=2, padding="valid")(x))
    return layers.Concatenate(name=name)(branches)


def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802
                      pooling=None, classes=1000):
    from .. import layers  # noqa: PLC0415
    from ..engine.training import Model  # noqa: PLC0415

    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 299, 75, include_top, weights)
    img_input = imagenet_utils.model_input(input_tensor, input_shape)
    x = _conv_bn(img_input, 32, 3, strides=2, padding="valid")
    x = _conv_bn(x, 32, 3, padding="valid")
    x = _conv_bn(x, 64, 3)
    x = layers.MaxPooling2D(3, strides=2)(x)
    x = _conv_bn(x, 80, 1, padding="valid")
    x = _conv_bn(x, 192, 3, padding="valid")
    x = layers.MaxPooling2D(3, strides=2)(x)
    branch_0 = _conv_bn(x, 96, 1)
    branch_1 = _conv_bn(_conv_bn(x, 48, 1), 64, 5)
    branch_2 = _conv_bn(_conv_bn(_conv_bn(x, 64, 1), 96, 3), 96, 3)
    branch_pool = _conv_bn(layers.AveragePooling2D(3, strides=1, padding="same")(x), 64, 1)
    x = layers.Concatenate(name="mixed_5b")([branch_0, branch_1, branch_2, branch_pool])
    for i in range(1, 11):
        x = _residual_block(x, 0.17, "block35", i)
    x = _reduction(x, [[(384, 3, 2, "valid")], [(256, 1, 1, "same"), (256, 3, 1, "same"), (384, 3, 2, "valid")]],
                   "mixed_6a")
    for i in range(1, 21):
        x = _residual_block(x, 0.1, "block17", i)
    x = _reduction(x, [[(256, 1, 1, "same"), (384, 3, 2, "valid")], [(256, 1, 1, "same"), (288, 3, 2, "valid")],
                       [(256, 1, 1, "same"), (288, 3, 1, "same"), (320, 3, 2, "valid")]], "mixed_7a")
    for i in range(1, 10):
        x = _residual_block(x, 0.2, "block8", i)
    x = _residual_block(x, 1.0, "block8", 10, activation=None)
    x = _conv_bn(x, 1536, 1, name="conv_7b")
    x = imagenet_utils.classifier_or_pool(x, include_top, pooling, classes)
    fname = f"inception_resnet_v2_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return imagenet_utils.load_weights(Model(img_input, x, name="inception_resnet_v2"), weights, fname,
                                       "inception_resnet_v2/")


def preprocess_input(x, data_format=None):
    """Images scaled to [-1, 1] (the "tf" mode the model was trained in)."""
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
