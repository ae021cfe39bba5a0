"""``tf.keras.applications``: ImageNet models as TF 1.x's Keras builds them, for transfer
learning: VGG16, VGG19, MobileNet and MobileNetV2, each with ``preprocess_input`` and
``decode_predictions`` in its module. ``weights='imagenet'`` reads Keras's weight files from
its cache (imagenet_utils.py: distflow never downloads); ``weights=None`` starts fresh, and
a path loads that file."""

from . import imagenet_utils, mobilenet, mobilenet_v2, vgg16, vgg19  # noqa: F401
from .mobilenet import MobileNet  # noqa: F401
from .mobilenet_v2 import MobileNetV2  # noqa: F401
from .vgg16 import VGG16  # noqa: F401
from .vgg19 import VGG19  # noqa: F401
