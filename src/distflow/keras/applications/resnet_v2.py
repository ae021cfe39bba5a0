"""``tf.keras.applications.resnet_v2``: the pre-activation ResNets (resnet.py), whose images are
scaled to [-1, 1] (the "tf" mode they were trained in)."""

from . import imagenet_utils
from .resnet import ResNet50V2, ResNet101V2, ResNet152V2, decode_predictions  # noqa: F401


def preprocess_input(x, data_format=None):
    return imagenet_utils.preprocess_input(x, data_format, mode="tf")
