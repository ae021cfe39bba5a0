"""``tf.keras.utils``: ``to_categorical``, ``normalize``, ``Progbar``, ``Sequence``,
``multi_gpu_model``, ``plot_model``, the enqueuers, ``HDF5Matrix`` and friends."""

from __future__ import annotations

import numpy as np

from .. import backend
from ..object_registry import (CustomObjectScope, custom_object_scope, deserialize_keras_object,  # noqa: F401
                               get_custom_objects, serialize_keras_object)
from .data_utils import GeneratorEnqueuer, OrderedEnqueuer, SequenceEnqueuer, get_source_inputs  # noqa: F401
from .generic_utils import Progbar  # noqa: F401
from .io_utils import HDF5Matrix  # noqa: F401
from .multi_gpu_utils import multi_gpu_model  # noqa: F401
from .vis_utils import model_to_dot, plot_model  # noqa: F401


def to_categorical(y, num_classes=None, dtype="float32"):
    """Class indices (any shape) as one-hot rows: shape ``y.shape + (num_classes,)``, a trailing
    axis of 1 dropped first."""
    y = np.asarray(y, dtype="int")
    shape = y.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    y = y.ravel()
    if num_classes is None:
        num_classes = int(np.max(y)) + 1
    out = np.zeros((y.shape[0], num_classes), dtype=dtype)
    out[np.arange(y.shape[0]), y] = 1
    return out.reshape(shape + (num_classes,))


def normalize(x, axis=-1, order=2):
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def convert_kernel(kernel):
    """A convolution kernel with its spatial axes (all but the last two) reversed: a Theano
    kernel as TensorFlow's, and back."""
    kernel = np.asarray(kernel)
    return np.copy(kernel[(slice(None, None, -1),) * (kernel.ndim - 2) + (slice(None), slice(None))])


_CONVOLUTIONS = ("Conv1D", "Conv2D", "Conv3D", "Conv2DTranspose")


def convert_all_kernels_in_model(model) -> None:
    """``convert_kernel`` on the kernel of each convolution layer of ``model``, in place."""
    pairs = [(layer.kernel, convert_kernel(backend.get_value(layer.kernel))) for layer in model.layers
             if type(layer).__name__ in _CONVOLUTIONS]
    backend.batch_set_value(pairs)


class Sequence:
    """A dataset of batches for ``fit``: ``__len__`` batches, ``__getitem__(i)`` the i-th."""

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def on_epoch_end(self):
        pass


def get_file(*args, **kwargs):
    raise NotImplementedError("tf.keras.utils.get_file downloads files; distflow never reaches the network. "
                              "Download the file yourself and pass its path.")

