"""``tf.keras.applications``: ImageNet models as TF 1.x's Keras builds them, for transfer
learning: VGG16, VGG19, MobileNet, MobileNetV2, Xception, InceptionV3 and DenseNet121/169/201,
each with ``preprocess_input`` and
``decode_predictions`` in its module. ``weights='imagenet'`` reads Keras's weight files from
its cache (imagenet_utils.py: distflow never downloads); ``weights=None`` starts fresh, and
a path loads that file."""

from . import densenet, imagenet_utils, inception_v3, mobilenet, mobilenet_v2, vgg16, vgg19, xception  # noqa: F401
from .densenet import DenseNet121, DenseNet169, DenseNet201  # noqa: F401
from .inception_v3 import InceptionV3  # noqa: F401
from .mobilenet import MobileNet  # noqa: F401
from .mobilenet_v2 import MobileNetV2  # noqa: F401
from .vgg16 import VGG16  # noqa: F401
from .vgg19 import VGG19  # noqa: F401
from .xception import Xception  # noqa: F401
