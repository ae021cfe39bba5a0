"""``tf.keras.applications.resnet50``: ResNet50 as TF 1.x's Keras builds it under this name (and
as ``tf.keras.applications.ResNet50``), the original Keras model: each stage a convolution
block (its shortcut a strided 1x1 convolution) and identity blocks, with the layer names of
Keras's first weight files (``conv1``, ``bn_conv1``, ``res2a_branch2a``, ``bn2a_branch1``,
``fc1000``) and batch normalizations of Keras's default epsilon. ``resnet.ResNet50`` is the
later form (resnet.py: ``conv1_conv``, ``conv2_block1_1_conv`` ...), which TensorFlow 2's
``ResNet50`` builds; the two have the same parameters in a different order.
"""

from __future__ import annotations

from . import imagenet_utils
from .imagenet_utils import decode_predictions  # noqa: F401
from .resnet import preprocess_input  # noqa: F401 - ("caffe": BGR, less ImageNet's mean pixel)


def _block(x, filters, stage, block, strides=None):
    """An identity block, or with ``strides`` a convolution block (its shortcut projected)."""
    from .. import layers  # noqa: PLC0415

    conv, bn = f"res{stage}{block}_branch", f"bn{stage}{block}_branch"
    f1, f2, f3 = filters
    shortcut = x
    x = layers.Conv2D(f1, 1, strides=strides or 1, kernel_initializer="he_normal", name=conv + "2a")(x)
    x = layers.Activation("relu")(layers.BatchNormalization(name=bn + "2a")(x))
    x = layers.Conv2D(f2, 3, padding="same", kernel_initializer="he_normal", name=conv + "2b")(x)
    x = layers.Activation("relu")(layers.BatchNormalization(name=bn + "2b")(x))
    x = layers.Conv2D(f3, 1, kernel_initializer="he_normal", name=conv + "2c")(x)
    x = layers.BatchNormalization(name=bn + "2c")(x)
    if strides is not None:
        shortcut = layers.Conv2D(f3, 1, strides=strides, kernel_initializer="he_normal", name=conv + "1")(shortcut)
        shortcut = layers.BatchNormalization(name=bn + "1")(shortcut)
    return layers.Activation("relu")(layers.add([x, shortcut]))


def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,  # noqa: N802
             classes=1000):
    from .. import layers  # noqa: PLC0415
    from ..engine.training import Model  # noqa: PLC0415

    imagenet_utils.check_weights(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(input_shape, 224, 32, include_top, weights)
    img_input = imagenet_utils.model_input(input_tensor, input_shape)
    x = layers.ZeroPadding2D(padding=(3, 3), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, kernel_initializer="he_normal", name="conv1")(x)
    x = layers.Activation("relu")(layers.BatchNormalization(name="bn_conv1")(x))
    x = layers.ZeroPadding2D(padding=(1, 1), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2)(x)
    for stage, (filters, blocks) in enumerate(zip(([64, 64, 256], [128, 128, 512], [256, 256, 1024],
                                                   [512, 512, 2048]), (3, 4, 6, 3)), start=2):
        x = _block(x, filters, stage, "a", strides=1 if stage == 2 else 2)
        for block in "bcdef"[:blocks - 1]:
            x = _block(x, filters, stage, block)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = layers.Dense(classes, activation="softmax", name="fc1000")(x)
    else:
        x = imagenet_utils.pool(x, pooling)
    fname = f"resnet50_weights_tf_dim_ordering_tf_kernels{'' if include_top else '_notop'}.h5"
    return imagenet_utils.load_weights(Model(img_input, x, name="resnet50"), weights, fname, "resnet/")
