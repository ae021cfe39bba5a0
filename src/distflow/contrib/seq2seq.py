"""``tf.contrib.seq2seq``: ``sequence_loss`` only."""

from .._namespace import missing
from ..layers.rnn import sequence_loss  # noqa: F401

__getattr__ = missing("tf.contrib.seq2seq")
