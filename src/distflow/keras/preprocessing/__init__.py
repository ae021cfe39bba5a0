"""``tf.keras.preprocessing``: padding sequences, turning texts into word indices, and
augmenting images."""

from . import image, sequence, text  # noqa: F401
