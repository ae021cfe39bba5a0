"""``tf.layers``: dense, conv2d, max_pooling2d, flatten and dropout, with TF 1.x's variable names."""

from .core import dense, dropout, flatten  # noqa: F401
from .convolutional import average_pooling2d, conv2d, conv2d_transpose, max_pooling2d  # noqa: F401
from .normalization import batch_normalization  # noqa: F401

from .._namespace import missing  # noqa: E402

__getattr__ = missing("tf.layers")
