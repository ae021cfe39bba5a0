"""``tf.keras.wrappers``: Keras models as scikit-learn estimators."""

from . import scikit_learn  # noqa: F401
