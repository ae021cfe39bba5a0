"""``tf.contrib.estimator.RNNClassifier`` (TF 1.13-1.15): a recurrent network over sequence
feature columns, its last relevant output to the logits (``RNNEstimator``, the same model
with a head of one's choice, is in estimator_heads.py).

The model: ``sequence_input_layer`` of the sequence columns (with the context columns'
``input_layer`` beside every step), a ``dynamic_rnn`` of the cell (``cell_type`` basic_rnn,
lstm or gru, one layer per ``num_units`` entry, or ``rnn_cell_fn(mode)``) that stops at each
example's length, each example's output at its last step, and a dense layer to the logits.
Variables live under ``rnn/`` as TF's (``rnn/sequence_input_layer/...``, ``rnn/logits/...``).
"""

from __future__ import annotations

from .. import nn
from ..estimator.canned import _Canned, _head, _optimizer, _train_op_fn
from ..feature_column import feature_column as fc
from ..layers import core as core_layers
from ..losses import Reduction
from ..ops import array_ops, init_ops, math_ops
from ..ops import variable_scope as vs
from ..ops.nd_ops import gather_nd
from . import feature_column as seq_fc

USE_DEFAULT = object()
_CELLS = {"basic_rnn": nn.rnn_cell.BasicRNNCell, "lstm": nn.rnn_cell.BasicLSTMCell, "gru": nn.rnn_cell.GRUCell}
_DEFAULT_LEARNING_RATE = 0.05  # (TF's, for a named optimizer)


def _cell_fn(num_units, cell_type):
    if cell_type is USE_DEFAULT:
        cell_type = "basic_rnn"
    if isinstance(cell_type, str):
        if cell_type not in _CELLS:
            raise ValueError(f"cell_type must be one of {sorted(_CELLS)} or a cell class, got {cell_type!r}")
        cell_type = _CELLS[cell_type]

    def rnn_cell_fn(mode):
        cells = [cell_type(units) for units in num_units]
        return cells[0] if len(cells) == 1 else nn.rnn_cell.MultiRNNCell(cells)

    return rnn_cell_fn


def _last_outputs(outputs, lengths):
    """Each example's output at its last step ([batch, steps, units] -> [batch, units]; an
    example of no step gets its first, as TF's)."""
    batch = array_ops.shape(outputs)[0]
    last = math_ops.maximum(math_ops.cast(lengths, batch.dtype) - 1, 0)
    return gather_nd(outputs, array_ops.stack([math_ops.range_(0, batch), last], axis=1))


def _rnn_model_fn(head, sequence_feature_columns, context_feature_columns, rnn_cell_fn, optimizer,
                  input_layer_partitioner):
    def model_fn(features, labels, mode):
        with vs.variable_scope("rnn"):
            with vs.variable_scope("sequence_input_layer", partitioner=input_layer_partitioner):
                sequence_input, lengths = seq_fc.sequence_input_layer(features, sequence_feature_columns)
                if context_feature_columns:
                    context = fc.input_layer(features, context_feature_columns)
                    sequence_input = seq_fc.concatenate_context_input(context, sequence_input)
            outputs, _ = nn.dynamic_rnn(rnn_cell_fn(mode), sequence_input, sequence_length=lengths,
                                        dtype=sequence_input.dtype)
            with vs.variable_scope("logits"):
                logits = core_layers.dense(_last_outputs(outputs, lengths), head.logits_dimension,
                                           kernel_initializer=init_ops.glorot_uniform_initializer())
        return head.spec(features, mode, logits, labels,
                         _train_op_fn([(_optimizer(optimizer, _DEFAULT_LEARNING_RATE), "rnn")]))

    return model_fn


def _checked(sequence_feature_columns, num_units, rnn_cell_fn, cell_type):
    columns = list(sequence_feature_columns or [])
    if not columns:
        raise ValueError("sequence_feature_columns must be a non-empty list of sequence columns")
    if rnn_cell_fn is not None:
        if num_units is not None or cell_type is not USE_DEFAULT:
            raise ValueError("num_units and cell_type must not be specified when using rnn_cell_fn")
        return columns, rnn_cell_fn
    if not num_units:
        raise ValueError("num_units (a list of layer widths) must be given when rnn_cell_fn is not")
    return columns, _cell_fn(list(num_units), cell_type)


class RNNClassifier(_Canned):
    """A recurrent-network classifier of sequences (``tf.contrib.estimator.RNNClassifier``)."""

    def __init__(self, sequence_feature_columns, context_feature_columns=None, num_units=None, cell_type=USE_DEFAULT,
                 rnn_cell_fn=None, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Adagrad", loss_reduction=Reduction.SUM_OVER_BATCH_SIZE, input_layer_partitioner=None,
                 config=None):
        columns, cell_fn = _checked(sequence_feature_columns, num_units, rnn_cell_fn, cell_type)
        head = _head(n_classes, label_vocabulary, weight_column, loss_reduction)
        super().__init__(_rnn_model_fn(head, columns, context_feature_columns, cell_fn, optimizer,
                                       input_layer_partitioner), model_dir, config, None)
