"""``tf.contrib.rnn``: TF 1.x's recurrent cells and ``static_rnn``."""

from .._namespace import missing
from ..layers.rnn import bidirectional_dynamic_rnn, static_bidirectional_rnn, static_rnn  # noqa: F401
from ..layers.rnn_cell import (BasicLSTMCell, BasicRNNCell, DropoutWrapper, GRUCell, LSTMCell,  # noqa: F401
                               LSTMStateTuple, MultiRNNCell, ResidualWrapper, RNNCell)

__getattr__ = missing("tf.contrib.rnn")
