"""``tf.contrib.rnn``: TF 1.x's recurrent cells and ``static_rnn``, and contrib's own cells
with their variable names: the block LSTM and GRU cells (one op each in TensorFlow, the
same arithmetic as LSTMCell and GRUCell), the fused LSTM over a whole sequence, the LSTM
with layer normalization and recurrent dropout, the stacked bidirectional RNNs, and the
wrappers that embed a cell's inputs or project its inputs or outputs (what
``tf.contrib.legacy_seq2seq`` builds its models with). The research cells (grid, phased,
convolutional, NAS... LSTMs and RNNs) and the fused-cell adaptors are in rnn_cells.py."""

from __future__ import annotations

import math

from .._namespace import missing
from ..framework import dtypes, ops
from ..framework.tensor_shape import TensorShape
from ..layers.rnn import (bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn,  # noqa: F401
                          static_state_saving_rnn)
from ..layers.rnn_cell import (BasicLSTMCell, BasicRNNCell, DeviceWrapper, DropoutWrapper, GRUCell, LSTMCell,  # noqa: F401
                               LSTMStateTuple, MultiRNNCell, ResidualWrapper, RNNCell, _input_depth, _Wrapper)
from ..ops import array_ops, init_ops, manip_ops, math_ops, nn_impl, nn_ops, slicing_ops
from ..ops import variable_scope as vs
from ..ops.math_ops import sigmoid, tanh
from .rnn_cells import (AttentionCellWrapper, BidirectionalGridLSTMCell, CompiledWrapper,  # noqa: F401
                        Conv1DLSTMCell, Conv2DLSTMCell, Conv3DLSTMCell, ConvLSTMCell, CoupledInputForgetGateLSTMCell,
                        FusedRNNCell, FusedRNNCellAdaptor, GLSTMCell, GridLSTMCell, HighwayWrapper,
                        IndRNNCell, IndyGRUCell, IndyLSTMCell, IntersectionRNNCell, LayerNormLSTMCell, NASCell,
                        PhasedLSTMCell, SRUCell, TimeFreqLSTMCell,
                        TimeReversedFusedRNN, UGRNNCell, _layer_norm, _norm_params)


class LSTMBlockCell(LSTMCell):
    """``LSTMBlockCell(num_units, forget_bias=1.0, cell_clip=None, use_peephole=False)``:
    TensorFlow ran it as one op; the arithmetic and the variables (``lstm_cell/kernel``,
    ``bias``, the peepholes' ``w_i_diag``, ``w_f_diag``, ``w_o_diag``) are LSTMCell's, the
    cell clipped before the output gate reads it."""

    _default_name = "lstm_cell"

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False, dtype=None, reuse=None,
                 name="lstm_cell"):
        super().__init__(num_units, use_peepholes=use_peephole, cell_clip=cell_clip if cell_clip not in (None, -1)
                         else None, forget_bias=forget_bias, reuse=reuse, name=name, dtype=dtype)


class LSTMBlockWrapper:
    """The base of LSTMs that run a whole time-major sequence in one call: a subclass gives
    ``num_units`` and ``_call_cell(inputs, initial_cell_state, initial_output, dtype,
    sequence_length)`` -> (cell states, outputs), each [time, batch, num_units];
    ``cell(inputs, initial_state=None, dtype=None, sequence_length=None)`` then zeroes the
    outputs past each sequence's length and returns them with ``LSTMStateTuple(c, h)`` of each
    sequence's last step (the initial state for an empty one)."""

    @property
    def num_units(self) -> int:
        raise NotImplementedError

    def _call_cell(self, inputs, initial_cell_state, initial_output, dtype, sequence_length):
        raise NotImplementedError

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        return self.call(inputs, initial_state, dtype, sequence_length)

    def call(self, inputs, initial_state=None, dtype=None, sequence_length=None):
        as_list = isinstance(inputs, list)
        inputs = array_ops.stack(inputs) if as_list else ops.convert_to_tensor(inputs)
        shape = inputs.shape.with_rank(3)
        if shape[2].value is None:
            raise ValueError(f"Expecting inputs_shape[2] to be set: {shape}")
        dims = array_ops.shape(inputs)
        time_len = shape[0].value if shape[0].value is not None else dims[0]
        batch = shape[1].value if shape[1].value is not None else dims[1]
        if initial_state is None:
            if dtype is None:
                raise ValueError("Either initial_state or dtype needs to be specified")
            zeros = array_ops.zeros(array_ops.stack([batch, self.num_units]), dtype=dtype)
            initial_state = (zeros, zeros)
        elif len(initial_state) != 2:
            raise ValueError("Expecting initial_state to be a tuple with length 2 or None")
        dtype = dtype or initial_state[0].dtype
        c0, h0 = initial_state
        if sequence_length is not None:
            sequence_length = ops.convert_to_tensor(sequence_length)
        states, outputs = self._call_cell(inputs, c0, h0, dtype, sequence_length)
        if sequence_length is None:
            final = LSTMStateTuple(states[-1], outputs[-1])
        else:
            mask = array_ops.transpose(manip_ops.sequence_mask(sequence_length, time_len, dtype=dtype), [1, 0])
            outputs = outputs * array_ops.expand_dims(mask, -1)
            # (the state at step length - 1: with the initial state in front, at index length)
            final = LSTMStateTuple(*[self._at_length(slicing_ops.concat([array_ops.expand_dims(first, 0), every], 0),
                                                     sequence_length, batch)
                                     for first, every in ((c0, states), (h0, outputs))])
        return (slicing_ops.unstack(outputs) if as_list else outputs), final

    def _at_length(self, data, lengths, batch):
        rows = math_ops.cast(lengths, dtypes.int32) * batch + math_ops.range_(batch)
        return slicing_ops.gather(array_ops.reshape(data, [-1, self.num_units]), rows)


class LSTMBlockFusedCell(LSTMBlockWrapper):
    """An LSTM over a whole time-major sequence in one call (TensorFlow's BlockLSTM):
    ``cell(inputs, initial_state=None, dtype=None, sequence_length=None)`` with inputs
    [time, batch, depth] (or a list of [batch, depth]) returns the outputs (zero past each
    sequence's length) and ``LSTMStateTuple(c, h)`` of each sequence's last step. Variables
    ``<name>/kernel``, ``bias`` and with ``use_peephole`` the diagonals, as LSTMBlockCell's."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False, reuse=None, dtype=None,
                 name="lstm_fused_cell"):
        self._cell = LSTMBlockCell(num_units, forget_bias=forget_bias, cell_clip=cell_clip,
                                   use_peephole=use_peephole, dtype=dtype, reuse=reuse, name=name)

    @property
    def num_units(self) -> int:
        return self._cell._num_units

    @property
    def variables(self) -> list:
        return self._cell.variables

    trainable_variables = weights = trainable_weights = variables

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        as_list = isinstance(inputs, list)
        inputs = array_ops.stack(inputs) if as_list else ops.convert_to_tensor(inputs)
        shape = inputs.shape.with_rank(3)
        if shape[2].value is None:
            raise ValueError(f"Expecting inputs_shape[2] to be set: {shape}")
        if initial_state is None and dtype is None:
            raise ValueError("Either initial_state or dtype needs to be specified")
        if initial_state is not None and len(initial_state) != 2:
            raise ValueError("Expecting initial_state to be a tuple with length 2 or None")
        cell = self._cell
        if not cell.built:  # (its variables directly under the cell's name, as TensorFlow's layer makes them)
            with cell._building(scope, inputs, TensorShape([None, shape[2].value])):
                pass
        state = None if initial_state is None else LSTMStateTuple(*initial_state)
        with ops.name_scope(cell._scope.name.rpartition("/")[2] + "/"):
            outputs, final = dynamic_rnn(cell, inputs, sequence_length=sequence_length, initial_state=state,
                                         dtype=dtype, time_major=True, scope=cell._scope)
        return (slicing_ops.unstack(outputs) if as_list else outputs), final


class GRUBlockCell(GRUCell):
    """``GRUBlockCell(num_units)``: GRUCell's arithmetic (one op in TensorFlow) with the block
    cell's variable names: the gates' kernel ``w_c`` and bias ``b_ru``, the candidate's
    kernel ``w_ru`` and bias ``b_c`` (TensorFlow named the two kernels so)."""

    _default_name = "gru_cell"

    def __init__(self, num_units=None, cell_size=None, reuse=None, name="gru_cell"):
        if (cell_size is None) == (num_units is None):
            raise ValueError("Exactly one of num_units or cell_size must be provided.")
        super().__init__(num_units if num_units is not None else cell_size, reuse=reuse, name=name)

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        n = self._num_units
        self._gate_kernel = self._weight("w_c", [depth + n, 2 * n])
        self._gate_bias = self._weight("b_ru", [2 * n], init_ops.constant_initializer(1.0))
        self._candidate_kernel = self._weight("w_ru", [depth + n, n])
        self._candidate_bias = self._weight("b_c", [n], init_ops.constant_initializer(0.0))


class GRUBlockCellV2(GRUBlockCell):
    """GRUBlockCell with GRUCell's variable names (``gates/kernel``, ``candidate/bias``...)."""

    def build(self, inputs_shape):
        GRUCell.build(self, inputs_shape)


class LayerNormBasicLSTMCell(BasicLSTMCell):
    """The LSTM with layer normalization and recurrent dropout: the four gates' pre-activations
    (from ``kernel``, no bias) and the new cell state each normalized over their units
    (epsilon 1e-12) with a gain and a shift of their own (``input``, ``transform``,
    ``forget``, ``output`` and ``state``, each ``gamma`` and ``beta``, starting at
    ``norm_gain`` and ``norm_shift``); the candidate dropped out with ``dropout_keep_prob``.
    With ``layer_norm=False`` it has a ``bias`` and no normalization."""

    _default_name = "layer_norm_basic_lstm_cell"

    def __init__(self, num_units, forget_bias=1.0, input_size=None, activation=tanh, layer_norm=True, norm_gain=1.0,
                 norm_shift=0.0, dropout_keep_prob=1.0, dropout_prob_seed=None, reuse=None):
        super().__init__(num_units, forget_bias=forget_bias, activation=activation, reuse=reuse)
        self._layer_norm = layer_norm
        self._norm_gain, self._norm_shift = norm_gain, norm_shift
        self._keep_prob, self._seed = dropout_keep_prob, dropout_prob_seed

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        n, dtype = self._num_units, self._dtype or dtypes.float32
        self._kernel = self._weight("kernel", [depth + n, 4 * n])
        self._bias = None if self._layer_norm else self._weight("bias", [4 * n])
        self._norms = ({part: _norm_params(part, n, self._norm_gain, self._norm_shift, dtype)
                        for part in ("input", "transform", "forget", "output", "state")} if self._layer_norm else None)

    def _norm(self, x, part):
        return _layer_norm(x, self._norms[part]) if self._layer_norm else x

    def call(self, inputs, state):
        c, h = state
        gates = math_ops.matmul(slicing_ops.concat([inputs, h], 1), self._kernel)
        if self._bias is not None:
            gates = nn_ops.bias_add(gates, self._bias)
        i, j, f, o = (self._norm(g, part) for g, part in zip(slicing_ops.split(gates, 4, axis=1),
                                                              ("input", "transform", "forget", "output")))
        g = self._activation(j)
        if not isinstance(self._keep_prob, float) or self._keep_prob < 1:
            g = nn_ops.dropout(g, keep_prob=self._keep_prob, seed=self._seed)
        new_c = self._norm(c * sigmoid(f + self._forget_bias) + sigmoid(i) * g, "state")
        new_h = self._activation(new_c) * sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)


class _ProjectingWrapper(_Wrapper):
    """A wrapper whose own variables are made with the wrapped cell's, in the wrapper's scope
    (TF 1.x's core_rnn_cell wrappers: their ``kernel`` and ``bias`` beside the cell's scope)."""

    def __init__(self, cell, reuse=None):
        if not isinstance(cell, RNNCell):
            raise TypeError("The parameter cell is not RNNCell.")
        super().__init__(cell)
        self._reuse = reuse

    def __call__(self, inputs, state, scope=None):
        return RNNCell.__call__(self, inputs, state, scope)

    @property
    def variables(self) -> list:
        return list(self._variables) + [v for v in self._cell.variables if v not in self._variables]


class OutputProjectionWrapper(_ProjectingWrapper):
    """A cell whose outputs are projected to ``output_size`` (``W output + b``, then
    ``activation`` if given)."""

    _default_name = "output_projection_wrapper"

    def __init__(self, cell, output_size, activation=None, reuse=None):
        super().__init__(cell, reuse)
        if output_size < 1:
            raise ValueError(f"Parameter output_size must be > 0: {output_size}.")
        self._output_size = output_size
        self._activation = activation

    @property
    def output_size(self):
        return self._output_size

    def build(self, inputs_shape):
        self._kernel = self._weight("kernel", [int(self._cell.output_size), self._output_size])
        self._bias = self._weight("bias", [self._output_size], init_ops.zeros_initializer())

    def call(self, inputs, state):
        output, new_state = self._cell(inputs, state)
        projected = nn_ops.bias_add(math_ops.matmul(output, self._kernel), self._bias)
        return (self._activation(projected) if self._activation else projected), new_state


class InputProjectionWrapper(_ProjectingWrapper):
    """A cell whose inputs are first projected to ``num_proj`` (``W input``, no bias, as TF's)."""

    _default_name = "input_projection_wrapper"

    def __init__(self, cell, num_proj, activation=None, input_size=None, reuse=None):
        super().__init__(cell, reuse)
        self._num_proj = num_proj
        self._activation = activation

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, "InputProjectionWrapper")
        self._kernel = self._weight("kernel", [depth, self._num_proj])

    def call(self, inputs, state):
        projected = math_ops.matmul(inputs, self._kernel)
        return self._cell(self._activation(projected) if self._activation else projected, state)


class EmbeddingWrapper(_ProjectingWrapper):
    """A cell whose inputs are symbol ids ([batch] or [batch, 1]), embedded first: an
    ``embedding`` variable [embedding_classes, embedding_size] on the CPU, initialized from
    ``initializer``, the variable scope's, or uniformly in [-sqrt(3), sqrt(3)] (variance 1)."""

    _default_name = "embedding_wrapper"

    def __init__(self, cell, embedding_classes, embedding_size, initializer=None, reuse=None):
        super().__init__(cell, reuse)
        if embedding_classes <= 0 or embedding_size <= 0:
            raise ValueError(f"Both embedding_classes and embedding_size must be > 0: {embedding_classes}, "
                             f"{embedding_size}.")
        self._embedding_classes, self._embedding_size = embedding_classes, embedding_size
        self._initializer = initializer

    def build(self, inputs_shape):
        initializer = self._initializer or vs.get_variable_scope().initializer or \
            init_ops.random_uniform_initializer(-math.sqrt(3), math.sqrt(3))
        with ops.device("/cpu:0"):
            self._embedding = vs.get_variable("embedding", [self._embedding_classes, self._embedding_size],
                                              dtype=self._dtype or dtypes.float32, initializer=initializer,
                                              trainable=self.trainable)

    def call(self, inputs, state):
        with ops.device("/cpu:0"):
            embedded = nn_impl.embedding_lookup(self._embedding, array_ops.reshape(inputs, [-1]))
        return self._cell(embedded, state)


def _check_stack(cells_fw, cells_bw, initial_states_fw, initial_states_bw):
    if not cells_fw:
        raise ValueError("Must specify at least one fw cell for BidirectionalRNN.")
    if not cells_bw:
        raise ValueError("Must specify at least one bw cell for BidirectionalRNN.")
    if not isinstance(cells_fw, list) or not isinstance(cells_bw, list):
        raise ValueError("cells_fw and cells_bw must be lists of RNNCells (one per layer).")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    for states in (initial_states_fw, initial_states_bw):
        if states is not None and (not isinstance(states, list) or len(states) != len(cells_fw)):
            raise ValueError("initial_states must be a list of state tensors (one per layer).")


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None, initial_states_bw=None,
                                    dtype=None, sequence_length=None, parallel_iterations=None, time_major=False,
                                    scope=None, swap_memory=False):
    """Layers of bidirectional_dynamic_rnn, each reading the previous layer's forward and
    backward outputs concatenated (variables under ``stack_bidirectional_rnn/cell_<i>/``):
    (the last layer's outputs, the forward states, the backward states)."""
    _check_stack(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw, layer = [], [], inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            with vs.variable_scope(f"cell_{i}"):
                outputs, (state_fw, state_bw) = bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, layer, sequence_length=sequence_length,
                    initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None, dtype=dtype,
                    parallel_iterations=parallel_iterations, swap_memory=swap_memory, time_major=time_major)
                layer = slicing_ops.concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return layer, tuple(states_fw), tuple(states_bw)


def stack_bidirectional_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None, initial_states_bw=None, dtype=None,
                            sequence_length=None, scope=None):
    """``stack_bidirectional_dynamic_rnn`` over a list of per-step inputs (static_bidirectional_rnn's layers)."""
    _check_stack(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    if not inputs:
        raise ValueError("inputs must not be empty")
    states_fw, states_bw, layer = [], [], inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            with vs.variable_scope(f"cell_{i}"):
                layer, state_fw, state_bw = static_bidirectional_rnn(
                    cell_fw, cell_bw, layer, initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None, dtype=dtype,
                    sequence_length=sequence_length)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return layer, tuple(states_fw), tuple(states_bw)


__getattr__ = missing("tf.contrib.rnn")
