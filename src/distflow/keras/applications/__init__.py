"""``tf.keras.applications``: ImageNet models as TF 1.x's Keras builds them, for transfer
learning: VGG16, VGG19, MobileNet, MobileNetV2, Xception, InceptionV3, DenseNet121/169/201,
ResNet50 (TF 1.x's, and ``resnet``'s later form), ResNet101/152 and their V2, InceptionResNetV2,
each with ``preprocess_input`` and
``decode_predictions`` in its module. ``weights='imagenet'`` reads Keras's weight files from
its cache (imagenet_utils.py: distflow never downloads); ``weights=None`` starts fresh, and
a path loads that file."""

from . import (densenet, imagenet_utils, inception_resnet_v2, inception_v3, mobilenet, mobilenet_v2,  # noqa: F401
               resnet, resnet50, resnet_v2, vgg16, vgg19, xception)
from .densenet import DenseNet121, DenseNet169, DenseNet201  # noqa: F401
from .inception_resnet_v2 import InceptionResNetV2  # noqa: F401
from .inception_v3 import InceptionV3  # noqa: F401
from .mobilenet import MobileNet  # noqa: F401
from .mobilenet_v2 import MobileNetV2  # noqa: F401
from .resnet import ResNet101, ResNet152, ResNet50V2, ResNet101V2, ResNet152V2  # noqa: F401
from .resnet50 import ResNet50  # noqa: F401 - (TF 1.x's: resnet50.py; resnet.ResNet50 is TensorFlow 2's)
from .vgg16 import VGG16  # noqa: F401
from .vgg19 import VGG19  # noqa: F401
from .xception import Xception  # noqa: F401
