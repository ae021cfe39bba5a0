"""What the ImageNet models of ``tf.keras.applications`` share: their input checks, their
pre-trained weights read from Keras's cache, ``preprocess_input`` and ``decode_predictions``.

distflow never reaches the network. ``weights='imagenet'`` reads the file Keras would have
downloaded from Keras's cache (``~/.keras/models``, or ``$KERAS_HOME/models``), where an
earlier Keras or TensorFlow install put it; a file that is not there is an error that says
where to put it and where Keras fetched it from.
"""

from __future__ import annotations

import json
import logging
import os

import numpy as np

from ..datasets import cache_path

_log = logging.getLogger("distflow")
WEIGHTS_ORIGIN = "https://storage.googleapis.com/tensorflow/keras-applications/"
CLASS_INDEX_ORIGIN = "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"


def cached_file(fname: str, origin: str) -> str:
    """The path of ``fname`` in Keras's cache of models; FileNotFoundError if it is not there."""
    path = cache_path(fname, "models")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{fname} is not in Keras's cache ({path}), and distflow does not download: fetch "
                                f"{origin} and save it there")
    return path


def load_weights(model, weights, fname: str | None, folder: str = ""):
    """``model`` with ``weights``: ImageNet's (``fname``, from Keras's cache; Keras fetched it
    from ``folder`` of its store), a file's (a path), or its fresh ones (None)."""
    if weights == "imagenet":
        model.load_weights(cached_file(fname, f"{WEIGHTS_ORIGIN}{folder}{fname}"))
    elif weights is not None:
        model.load_weights(weights)
    return model


def check_weights(weights, include_top: bool, classes: int) -> None:
    """Keras's checks of ``weights`` and ``classes``."""
    if not (weights in {"imagenet", None} or os.path.exists(weights)):
        raise ValueError("The `weights` argument should be either `None` (random initialization), `imagenet` "
                         "(pre-training on ImageNet), or the path to the weights file to be loaded.")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be 1000')


def obtain_input_shape(input_shape, default_size: int, min_size: int, require_flatten: bool, weights) -> tuple:
    """The model's input shape (channels last), as Keras decides it: the default size for
    ImageNet weights with the classifier on top, the given shape checked otherwise."""
    from .. import backend  # noqa: PLC0415

    if backend.image_data_format() != "channels_last":
        raise NotImplementedError("tf.keras.applications builds channels_last models only in distflow")
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        if input_shape[-1] not in {1, 3}:
            _log.warning("This model usually expects 1 or 3 input channels. However, it was passed an input_shape "
                         "with %s input channels.", input_shape[-1])
        default_shape = (default_size, default_size, input_shape[-1])
    else:
        default_shape = (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError(f"When setting `include_top=True` and loading `imagenet` weights, `input_shape` should "
                             f"be {default_shape}.")
        return default_shape
    if input_shape:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        if input_shape[-1] != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; got `input_shape={input_shape}`")
        if any(d is not None and d < min_size for d in input_shape[:2]):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; got `input_shape={input_shape}`")
    else:
        input_shape = default_shape if require_flatten else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(f"If `include_top` is True, you should specify a static `input_shape`. Got "
                         f"`input_shape={input_shape}`")
    return input_shape


def model_input(input_tensor, input_shape):
    """The model's input layer's tensor: ``input_tensor`` if it is a Keras tensor, a new Input
    (on ``input_tensor`` where one is given) otherwise."""
    from .. import backend  # noqa: PLC0415
    from ..engine.input_layer import Input  # noqa: PLC0415

    if input_tensor is None:
        return Input(shape=input_shape)
    if backend.is_keras_tensor(input_tensor):
        return input_tensor
    return Input(tensor=input_tensor, shape=input_shape)


def classifier_or_pool(x, include_top: bool, pooling, classes: int, pool_names=(None, None)):
    """ImageNet's classifier on the feature map (``avg_pool``, then ``predictions``), or the map
    pooled for ``include_top=False`` (see :func:`pool`)."""
    from .. import layers  # noqa: PLC0415

    if not include_top:
        return pool(x, pooling, pool_names)
    x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
    return layers.Dense(classes, activation="softmax", name="predictions")(x)


def pool(x, pooling, names=(None, None)):
    """The feature map pooled for ``include_top=False``: None, "avg" or "max" (the pooling
    layer named ``names[0]`` or ``names[1]``, or by Keras's count)."""
    from .. import layers  # noqa: PLC0415

    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=names[0])(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=names[1])(x)
    if pooling is not None:
        raise ValueError(f"pooling must be None, 'avg' or 'max', got {pooling!r}")
    return x


def preprocess_input(x, data_format=None, mode="caffe"):
    """An image batch (RGB, 0-255) as a model's training saw its input: ``mode="caffe"`` (VGG,
    ResNet50: RGB to BGR, ImageNet's channel means subtracted), ``"tf"`` (MobileNet, Inception:
    scaled to [-1, 1]) or ``"torch"`` (scaled to [0, 1], then ImageNet's means and deviations).
    A NumPy array comes back as floats; a tensor as a tensor."""
    from ... import constant, reverse  # noqa: PLC0415

    if (data_format or "channels_last") != "channels_last":
        raise NotImplementedError("preprocess_input: channels_last images only in distflow")
    if mode not in ("caffe", "tf", "torch"):
        raise ValueError(f"mode must be 'caffe', 'tf' or 'torch', got {mode!r}")
    tensor = hasattr(x, "op")
    if not tensor:
        x = np.array(x, dtype=np.float32 if np.asarray(x).dtype.kind != "f" else np.asarray(x).dtype, copy=True)
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
        x = x / 255.0
    else:
        x = reverse(x, [-1]) if tensor else x[..., ::-1]
        mean, std = np.array([103.939, 116.779, 123.68]), None
    if tensor:
        x = x - constant(mean, dtype=x.dtype)
        return x / constant(std, dtype=x.dtype) if std is not None else x
    x = x - mean.astype(x.dtype)
    return x / std.astype(x.dtype) if std is not None else x


def decode_predictions(preds, top: int = 5):
    """Each row of ImageNet class probabilities as its ``top`` (class id, name, probability)
    tuples, from ``imagenet_class_index.json`` in Keras's cache."""
    preds = np.asarray(preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError(f"`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape "
                         f"(samples, 1000)). Found array with shape: {preds.shape}")
    with open(cached_file("imagenet_class_index.json", CLASS_INDEX_ORIGIN), encoding="utf-8") as f:
        index = json.load(f)
    out = []
    for row in preds:
        best = row.argsort()[-top:][::-1]
        out.append([tuple(index[str(i)]) + (row[i],) for i in best])
    return out
