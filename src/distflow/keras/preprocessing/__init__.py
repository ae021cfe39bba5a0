"""``tf.keras.preprocessing``: padding sequences and turning texts into word indices."""

from . import sequence, text  # noqa: F401
