"""``tf.keras.applications.resnet`` and ``resnet_v2``: ResNet (He et al., 2015) and its
pre-activation form (2016), as Keras builds them since TF 1.14: a padded 7x7 convolution and
a pooling, then four stages of bottleneck blocks (1x1, 3x3 and 1x1 convolutions, the last
widening four times, added to the block's input or to its 1x1 projection). ResNet50, 101 and
152 differ in their stages' lengths. Keras's layer names (``conv1_conv``, ``conv2_block1_0_conv``,
``conv2_block1_add`` ... ``post_bn`` for V2), so that Keras's weight files load.
"""

from __future__ import annotations

from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401

_EPSILON = 1.001e-5


def _bn(x, name):
    from .. import layers  # noqa: PLC0415

    return layers.BatchNormalization(epsilon=_EPSILON, name=name)(x)


def _block_v1(x, filters, stride=1, conv_shortcut=True, name=None):
    """A bottleneck block, its activations after each batch normalization."""
    from .. import layers  # noqa: PLC0415

    shortcut = _bn(layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x), name + "_0_bn") \
        if conv_shortcut else x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(_bn(x, name + "_1_bn"))
    x = layers.Conv2D(filters, 3, padding="same", name=name + "_2_conv")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(_bn(x, name + "_2_bn"))
    x = _bn(layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x), name + "_3_bn")
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def _block_v2(x, filters, stride=1, conv_shortcut=False, name=None):
    """A pre-activation bottleneck block: normalized and activated before its convolutions, the
    stride in its 3x3 convolution, the shortcut a 1-pixel max pooling where it strides."""
    from .. import layers  # noqa: PLC0415

    preact = layers.Activation("relu", name=name + "_preact_relu")(_bn(x, name + "_preact_bn"))
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = layers.Activation("relu", name=name + "_1_relu")(_bn(x, name + "_1_bn"))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = layers.Conv2D(filters, 3, strides=stride, use_bias=False, name=name + "_2_conv")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(_bn(x, name + "_2_bn"))
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return layers.Add(name=name + "_out")([shortcut, x])


def _stacks(x, lengths, preact: bool):
    """The four stages (64, 128, 256 and 512 filters) of ``lengths`` blocks."""
    for stage, (filters, blocks) in enumerate(zip((64, 128, 256, 512), lengths), start=2):
        name = f"conv{stage}"
        if preact:  # (V2 strides at the end of a stage, all but the last)
            x = _block_v2(x, filters, conv_shortcut=True, name=name + "_block1")
            for i in range(2, blocks):
                x = _block_v2(x, filters, name=f"{name}_block{i}")
            x = _block_v2(x, filters, stride=1 if stage == 5 else 2, name=f"{name}_block{blocks}")
        else:
            x = _block_v1(x, filters, stride=1 if stage == 2 else 2, name=name + "_block1")
            for i in range(2, blocks + 1):
                x = _block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def ResNet(lengths, preact, model_name, include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
           input_shape=None, pooling=None, classes=1000):
    """A ResNet of four stages of ``lengths`` blocks; ``preact``: the V2 blocks."""
    from .. import layers  # noqa: PLC0415
    from ..engine.training import Model  # noqa: PLC0415

    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, include_top, weights)
    img_input = imagenet_utils.model_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, name="conv1_conv")(x)
    if not preact:
        x = layers.Activation("relu", name="conv1_relu")(_bn(x, "conv1_bn"))
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = _stacks(x, lengths, preact)
    if preact:
        x = layers.Activation("relu", name="post_relu")(_bn(x, "post_bn"))
    if include_top:  # (TF 1.x's Keras named the classifier "probs")
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = layers.Dense(classes, activation="softmax", name="probs")(x)
    else:
        x = imagenet_utils.pool(x, pooling, ("avg_pool", "max_pool"))
    fname = f"{model_name}_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return imagenet_utils.load_weights(Model(img_input, x, name=model_name), weights, fname, "resnet/")


def _variant(name: str, lengths, preact: bool, model_name: str):
    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None, classes=1000):
        return ResNet(lengths, preact, model_name, include_top, weights, input_tensor, input_shape, pooling, classes)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"{name}: stages of {lengths} {'pre-activation ' if preact else ''}bottleneck blocks."
    return build


ResNet50 = _variant("ResNet50", (3, 4, 6, 3), False, "resnet50")
ResNet101 = _variant("ResNet101", (3, 4, 23, 3), False, "resnet101")
ResNet152 = _variant("ResNet152", (3, 8, 36, 3), False, "resnet152")
ResNet50V2 = _variant("ResNet50V2", (3, 4, 6, 3), True, "resnet50v2")
ResNet101V2 = _variant("ResNet101V2", (3, 4, 23, 3), True, "resnet101v2")
ResNet152V2 = _variant("ResNet152V2", (3, 8, 36, 3), True, "resnet152v2")


def preprocess_input(x, data_format=None):
    """BGR images less ImageNet's mean pixel (the "caffe" mode ResNet was trained in)."""
    return imagenet_utils.preprocess_input(x, data_format, mode="caffe")
