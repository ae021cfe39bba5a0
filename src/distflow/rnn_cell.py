"""``tf.nn.rnn_cell``: recurrent cells (also ``tf.contrib.rnn``'s)."""

from ._namespace import missing
from .layers.rnn_cell import (BasicLSTMCell, BasicRNNCell, DeviceWrapper, DropoutWrapper, GRUCell, LSTMCell,  # noqa: F401
                              LSTMStateTuple, MultiRNNCell, ResidualWrapper, RNNCell)

__getattr__ = missing("tf.nn.rnn_cell")
