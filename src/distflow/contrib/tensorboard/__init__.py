"""``tf.contrib.tensorboard``: the embedding projector's configuration (``plugins.projector``),
loaded when first used (its messages are built from their descriptor then)."""

import importlib

from ..._namespace import missing

_missing = missing("tf.contrib.tensorboard")


def __getattr__(name):
    if name == "plugins":
        return importlib.import_module(".plugins", __name__)
    return _missing(name)
