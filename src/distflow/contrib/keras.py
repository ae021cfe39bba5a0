"""``tf.contrib.keras``: TF 1.2-1.3's home of Keras before it became ``tf.keras``; the same
modules (``tf.contrib.keras.layers`` is ``tf.keras.layers``)."""

from ..keras import (Input, Model, Sequential, activations, applications, backend, callbacks,  # noqa: F401
                     constraints, datasets, initializers, layers, losses, metrics, models, optimizers, preprocessing,
                     regularizers, utils, wrappers)
