"""``tf.layers``: dense, conv2d, max_pooling2d, flatten and dropout, with TF 1.x's variable names."""

from .core import dense, dropout, flatten  # noqa: F401
from .base import (AveragePooling1D, AveragePooling2D, AveragePooling3D, BatchNormalization, Conv1D,  # noqa: F401
                   Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose, Dense, Dropout, Flatten, InputSpec, Layer,
                   MaxPooling1D, MaxPooling2D, MaxPooling3D, SeparableConv1D, SeparableConv2D)
from .convolutional import (average_pooling1d, average_pooling2d, average_pooling3d, conv1d, conv2d,  # noqa: F401
                            conv2d_transpose, conv3d, conv3d_transpose, max_pooling1d, max_pooling2d, max_pooling3d,
                            separable_conv1d, separable_conv2d)
from .normalization import batch_normalization  # noqa: F401

from .._namespace import missing  # noqa: E402

__getattr__ = missing("tf.layers")
