"""``tf.contrib.legacy_seq2seq``: the per-step sequence losses of TF 1.x's PTB tutorial."""

from .._namespace import missing
from ..layers.rnn import legacy_sequence_loss as sequence_loss  # noqa: F401
from ..layers.rnn import sequence_loss_by_example  # noqa: F401

__getattr__ = missing("tf.contrib.legacy_seq2seq")
