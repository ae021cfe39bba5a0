"""``tf.layers``: dense, conv2d, max_pooling2d, flatten and dropout, with TF 1.x's variable names."""

from .core import dense, dropout, flatten  # noqa: F401
from .base import (AveragePooling1D, AveragePooling2D, BatchNormalization, Conv1D, Conv2D,  # noqa: F401
                   Conv2DTranspose, Dense, Dropout, Flatten, InputSpec, Layer, MaxPooling1D, MaxPooling2D)
from .convolutional import (average_pooling1d, average_pooling2d, conv1d, conv2d, conv2d_transpose,  # noqa: F401
                            max_pooling1d, max_pooling2d)
from .normalization import batch_normalization  # noqa: F401

from .._namespace import missing  # noqa: E402

__getattr__ = missing("tf.layers")
