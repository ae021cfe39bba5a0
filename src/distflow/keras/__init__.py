"""``tf.keras`` in graph mode, as TF 1.10-1.15 had it: layers build graph ops and variables,
``Model.fit`` runs batches through Keras's session (``tf.keras.backend.get_session()``)."""

from . import activations, backend, callbacks, constraints, initializers, losses, metrics  # noqa: F401
from . import optimizers, regularizers, utils  # noqa: F401
from . import layers, models  # noqa: F401
from . import applications, datasets, estimator, experimental, preprocessing, wrappers  # noqa: F401
from .engine.input_layer import Input  # noqa: F401
from .engine.sequential import Sequential  # noqa: F401
from .engine.training import Model  # noqa: F401
from .._namespace import missing

__version__ = "2.2.4-tf"

__getattr__ = missing("tf.keras")
