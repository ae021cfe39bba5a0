"""``tf.contrib.rnn``'s further cells, with TF 1.x's equations and variable names.

LSTMs: the coupled input and forget gates (``CoupledInputForgetGateLSTMCell``), the
time-frequency LSTM of speech models (``TimeFreqLSTMCell``), the grouped LSTM
(``GLSTMCell``), the grid LSTMs over frequency windows (``GridLSTMCell``,
``BidirectionalGridLSTMCell``), the LSTM with layer normalization, peepholes, clipping and a projection
(``LayerNormLSTMCell``), the phased LSTM whose gates open on a learned rhythm
(``PhasedLSTMCell``) and the convolutional LSTMs (``Conv1DLSTMCell``, ``Conv2DLSTMCell``,
``Conv3DLSTMCell``). Other cells: the architecture-searched ``NASCell``, ``UGRNNCell``,
``IntersectionRNNCell`` and ``SRUCell``. Wrappers: ``AttentionCellWrapper`` (attention
over the cell's last outputs), ``HighwayWrapper`` and ``CompiledWrapper``. And the fused
interface: ``FusedRNNCell``, ``FusedRNNCellAdaptor`` and ``TimeReversedFusedRNN``.

Every cell makes its variables on its first call, under its own name as TF's (for
example ``rnn/nas_cell/kernel``); where TF's contrib split a weight into shards its names
end in ``_0``, ``_1``... (``W_0`` for one shard, as TF's).
"""

from __future__ import annotations

import collections
import math

from ..framework import dtypes, nest, ops
from ..framework.tensor_shape import TensorShape
from ..layers.rnn import dynamic_rnn, static_rnn
from ..layers.rnn_cell import LSTMStateTuple, RNNCell, _input_depth, _Linear, _ProjectedSizes, _UnitsCell, _Wrapper
from ..ops import array_ops, conv3d_ops, conv_ops, convolution_ops, init_ops, math_ops, nn_impl, nn_ops, random_ops
from ..ops import reduction_ops, slicing_ops
from ..ops import variable_scope as vs
from ..ops.manip_ops import reverse
from ..ops.math_ops import sigmoid, tanh
from ..ops.sequence_ops import reverse_sequence


def _sharded(name: str, shape: list, shards: int, dtype) -> list:
    """A [rows, ...] weight kept as ``shards`` variables ``<name>_0``, ``<name>_1``... (rows
    split as evenly as they go, the first ones a row longer), as TF's contrib cells keep them."""
    if shards > shape[0]:
        raise ValueError(f"Too many shards: shape={shape}, num_shards={shards}")
    unit, extra = divmod(shape[0], shards)
    return [vs.get_variable(f"{name}_{i}", [unit + (i < extra)] + list(shape[1:]), dtype=dtype)
            for i in range(shards)]


def _whole(parts: list):
    return parts[0] if len(parts) == 1 else slicing_ops.concat(parts, 0)


def _norm_params(part: str, size: int, gain: float, shift: float, dtype):
    """``<part>/gamma`` and ``<part>/beta`` of a layer normalization over ``size`` units."""
    with vs.variable_scope(part):
        return (vs.get_variable("gamma", [size], dtype=dtype, initializer=init_ops.constant_initializer(gain)),
                vs.get_variable("beta", [size], dtype=dtype, initializer=init_ops.constant_initializer(shift)))


def _layer_norm(x, params):
    """``x`` normalized over its last axis (epsilon 1e-12, as contrib's layer_norm), scaled and shifted."""
    gamma, beta = params
    mean, variance = nn_ops.moments(x, [1], keep_dims=True)
    return nn_ops.batch_normalization(x, mean, variance, beta, gamma, 1e-12)


def _lstm_state(state, num_units: int, state_is_tuple: bool):
    """(c, m) of an LSTM state, a tuple or the two side by side."""
    if state_is_tuple:
        return state
    return (slicing_ops.slice(state, [0, 0], [-1, num_units]), slicing_ops.slice(state, [0, num_units], [-1, -1]))


def _clip(x, clip):
    return x if clip is None else math_ops.clip_by_value(x, -clip, clip)


def _peep(gate, diag, c):
    return gate if diag is None else gate + diag * c


class _InitializerScope:
    """Variables made under the cell's ``initializer`` (where one was given), as TF's cells
    open their scope with it."""

    def _with_initializer(self):
        return vs.variable_scope(vs.get_variable_scope(), initializer=self._initializer, auxiliary_name_scope=False)


class CoupledInputForgetGateLSTMCell(_ProjectedSizes, RNNCell, _InitializerScope):
    """The LSTM whose input gate is one minus its forget gate: ``c = f c + (1 - f) tanh(j)``,
    optional peepholes (``W_F_diag``, ``W_O_diag``), a projection (``W_P``) with a clip, and
    layer normalization of j, f, o and c (then the bias ``B`` is not added). The kernel
    ``W`` is [depth + output size, 3 num_units], in ``num_unit_shards`` shards."""

    _default_name = "coupled_input_forget_gate_lstm_cell"

    def __init__(self, num_units, use_peepholes=False, initializer=None, num_proj=None, proj_clip=None,
                 num_unit_shards=1, num_proj_shards=1, forget_bias=1.0, state_is_tuple=True, activation=tanh,
                 reuse=None, layer_norm=False, norm_gain=1.0, norm_shift=0.0):
        super().__init__(reuse=reuse)
        self._num_units, self._use_peepholes, self._initializer = num_units, use_peepholes, initializer
        self._num_proj, self._proj_clip = num_proj, proj_clip
        self._num_unit_shards, self._num_proj_shards = num_unit_shards, num_proj_shards
        self._forget_bias, self._state_is_tuple, self._activation = forget_bias, state_is_tuple, activation
        self._layer_norm, self._norm_gain, self._norm_shift = layer_norm, norm_gain, norm_shift

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        n, dtype = self._num_units, self._dtype or dtypes.float32
        with self._with_initializer():
            self._w = _sharded("W", [depth + self.output_size, 3 * n], self._num_unit_shards, dtype)
            self._w_proj = (_sharded("W_P", [n, self._num_proj], self._num_proj_shards, dtype)
                            if self._num_proj is not None else None)
        self._b = self._weight("B", [3 * n], init_ops.zeros_initializer())
        self._w_f_diag = self._weight("W_F_diag", [n]) if self._use_peepholes else None
        self._w_o_diag = self._weight("W_O_diag", [n]) if self._use_peepholes else None
        self._norms = ({part: _norm_params(part, n, self._norm_gain, self._norm_shift, dtype)
                        for part in ("transform", "forget", "output", "state")} if self._layer_norm else None)

    def _norm(self, x, part):
        return _layer_norm(x, self._norms[part]) if self._layer_norm else x

    def call(self, inputs, state):
        c_prev, m_prev = _lstm_state(state, self._num_units, self._state_is_tuple)
        gates = math_ops.matmul(slicing_ops.concat([inputs, m_prev], 1), _whole(self._w))
        if not self._layer_norm:
            gates = nn_ops.bias_add(gates, self._b)
        j, f, o = (self._norm(g, part) for g, part in zip(slicing_ops.split(gates, 3, axis=1),
                                                          ("transform", "forget", "output")))
        forget = sigmoid(_peep(f + self._forget_bias, self._w_f_diag, c_prev))
        c = self._norm(forget * c_prev + (1 - forget) * self._activation(j), "state")
        m = sigmoid(_peep(o, self._w_o_diag, c)) * self._activation(c)
        if self._w_proj is not None:
            m = _clip(math_ops.matmul(m, _whole(self._w_proj)), self._proj_clip)
        return m, (LSTMStateTuple(c, m) if self._state_is_tuple else slicing_ops.concat([c, m], 1))


class TimeFreqLSTMCell(RNNCell, _InitializerScope):
    """The time-frequency LSTM (Sainath and Li, 2016): windows of ``feature_size`` inputs,
    ``frequency_skip`` apart, each run by one LSTM (kernel ``W`` in ``num_unit_shards``
    shards, bias ``B``, peepholes ``W_F_diag``, ``W_I_diag``, ``W_O_diag``) that also reads
    the previous window's output. The state is each window's (c, m) side by side and the
    output each window's m: until the first call fixes the number of windows,
    ``state_size`` and ``output_size`` are those of one window, as TF's."""

    _default_name = "time_freq_lstm_cell"

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_unit_shards=1,
                 forget_bias=1.0, feature_size=None, frequency_skip=1, reuse=None):
        super().__init__(reuse=reuse)
        self._num_units, self._use_peepholes, self._cell_clip = num_units, use_peepholes, cell_clip
        self._initializer, self._num_unit_shards, self._forget_bias = initializer, num_unit_shards, forget_bias
        self._feature_size, self._frequency_skip = feature_size, frequency_skip
        self._windows = 1

    @property
    def state_size(self):
        return 2 * self._num_units * self._windows

    @property
    def output_size(self):
        return self._num_units * self._windows

    def build(self, inputs_shape):
        depth = inputs_shape.with_rank(2)[-1].value
        if depth is None:
            raise ValueError("Cannot infer input_size from static shape inference.")
        if self._feature_size is None or not 0 < self._feature_size <= depth:
            raise ValueError(f"TimeFreqLSTMCell: feature_size must be in [1, {depth}] (the input's depth), "
                             f"got {self._feature_size}")
        self._windows = (depth - self._feature_size) // self._frequency_skip + 1
        n, dtype = self._num_units, self._dtype or dtypes.float32
        with self._with_initializer():
            self._w = _sharded("W", [self._feature_size + 2 * n, 4 * n], self._num_unit_shards, dtype)
            self._b = self._weight("B", [4 * n], init_ops.zeros_initializer())
            self._diags = ([self._weight(f"W_{g}_diag", [n]) for g in "FIO"] if self._use_peepholes
                           else [None] * 3)

    def call(self, inputs, state):
        n, w_f, w_i, w_o = self._num_units, *self._diags
        kernel = _whole(self._w)
        m_freq = array_ops.zeros(array_ops.stack([array_ops.shape(inputs)[0], n]), dtype=inputs.dtype)
        outputs, states = [], []
        for k in range(self._windows):
            window = slicing_ops.slice(inputs, [0, k * self._frequency_skip], [-1, self._feature_size])
            c_prev = slicing_ops.slice(state, [0, 2 * k * n], [-1, n])
            m_prev = slicing_ops.slice(state, [0, (2 * k + 1) * n], [-1, n])
            gates = nn_ops.bias_add(math_ops.matmul(slicing_ops.concat([window, m_prev, m_freq], 1), kernel),
                                    self._b)
            i, j, f, o = slicing_ops.split(gates, 4, axis=1)
            c = (sigmoid(_peep(f + self._forget_bias, w_f, c_prev)) * c_prev
                 + sigmoid(_peep(i, w_i, c_prev)) * tanh(j))
            c = _clip(c, self._cell_clip)
            m_freq = sigmoid(_peep(o, w_o, c)) * tanh(c)
            outputs.append(m_freq)
            states += [c, m_freq]
        return slicing_ops.concat(outputs, 1), slicing_ops.concat(states, 1)


def _grid_state_type(name: str, prefixes, blocks):
    """The namedtuple of a grid LSTM's state: ``<prefix>_f<window>_b<block>_c`` and ``_m``."""
    fields = [f"{prefix}_f{k:02d}_b{b:02d}_{part}" for prefix in prefixes for b, count in enumerate(blocks)
              for k in range(count) for part in "cm"]
    return collections.namedtuple(name, fields)


class GridLSTMCell(RNNCell, _InitializerScope):
    """The grid LSTM (Kalchbrenner et al., 2016) over frequency windows, as speech models ran
    it: in each window (``feature_size`` inputs, ``frequency_skip`` apart; blocks of
    ``num_frequency_blocks`` windows from ``start_freqindex_list`` to
    ``end_freqindex_list``), a time LSTM and a frequency LSTM both read the window, the
    window's last output in time and the previous window's frequency output. Each block's
    kernels ``W_f_<block>``/``W_t_<block>`` (shards ``_0``...) and biases ``B_f``/``B_t``;
    ``share_time_frequency_weights`` uses the frequency ones for both;
    ``couple_input_forget_gates`` makes f = 1 - i; peepholes ``W_<gate>_diag_<freq|time><f|t>_<block>``.
    The state is each window's time (c, m); the output each window's time and frequency m."""

    _default_name = "grid_lstm_cell"

    def __init__(self, num_units, use_peepholes=False, share_time_frequency_weights=False, cell_clip=None,
                 initializer=None, num_unit_shards=1, forget_bias=1.0, feature_size=None, frequency_skip=None,
                 num_frequency_blocks=None, start_freqindex_list=None, end_freqindex_list=None,
                 couple_input_forget_gates=False, state_is_tuple=True, reuse=None):
        super().__init__(reuse=reuse)
        if num_frequency_blocks is None:
            raise ValueError("Must specify num_frequency_blocks")
        self._num_units, self._use_peepholes, self._shared = num_units, use_peepholes, share_time_frequency_weights
        self._cell_clip, self._initializer, self._num_unit_shards = cell_clip, initializer, num_unit_shards
        self._forget_bias, self._feature_size, self._frequency_skip = forget_bias, feature_size, frequency_skip
        self._blocks = [int(b) for b in num_frequency_blocks]
        self._starts_list, self._ends_list = start_freqindex_list, end_freqindex_list
        self._coupled, self._state_is_tuple = couple_input_forget_gates, state_is_tuple
        self._state_tuple_type = _grid_state_type("GridLSTMStateTuple", ["state"], self._blocks)

    @property
    def state_tuple_type(self):
        return self._state_tuple_type if self._state_is_tuple else None

    @property
    def state_size(self):
        sizes = [self._num_units] * (2 * sum(self._blocks) * self._directions)
        return self._state_tuple_type(*sizes) if self._state_is_tuple else sum(sizes)

    @property
    def output_size(self):
        return 2 * self._num_units * sum(self._blocks) * self._directions

    _directions = 1

    def _window_starts(self, depth: int) -> list:
        """Each block's windows' first input index (TF's checks and messages)."""
        if not self._starts_list:
            if len(self._blocks) != 1:
                raise ValueError(f"Length of num_frequency_blocks is not 1, but instead is {len(self._blocks)}")
            spans = [(0, depth)]
        else:
            if len(self._starts_list) != len(self._ends_list or []):
                raise ValueError(f"Length of start and end freqindex_list does not match "
                                 f"{len(self._starts_list)} {len(self._ends_list or [])}")
            if len(self._blocks) != len(self._starts_list):
                raise ValueError(f"Length of num_frequency_blocks is not equal to start_freqindex_list "
                                 f"{len(self._blocks)} {len(self._starts_list)}")
            spans = list(zip(self._starts_list, self._ends_list))
        starts = []
        for (lo, hi), wanted in zip(spans, self._blocks):
            count = int((hi - lo - self._feature_size) / self._frequency_skip) + 1
            if count != wanted:
                raise ValueError(f"Invalid num_frequency_blocks, requires {wanted} but gets {count}, please check "
                                 f"the input size and filter config are correct.")
            starts.append([lo + k * self._frequency_skip for k in range(count)])
        return starts

    def build(self, inputs_shape):
        depth = inputs_shape.with_rank(2)[-1].value
        if depth is None:
            raise ValueError("Cannot infer input_size from static shape inference.")
        self._starts = self._window_starts(depth)
        with self._with_initializer():
            self._build_weights()

    def _build_weights(self):
        self._weights = self._make_weights()

    def _make_weights(self) -> list:
        """Each block's kernels, biases and peepholes, in the scope current."""
        n, gates, dtype = self._num_units, 3 if self._coupled else 4, self._dtype or dtypes.float32
        made = []
        for b in range(len(self._blocks)):
            shape = [self._feature_size + 2 * n, gates * n]
            block = {"freq": (_sharded(f"W_f_{b}", shape, self._num_unit_shards, dtype),
                              self._weight(f"B_f_{b}", [gates * n], init_ops.zeros_initializer()))}
            block["time"] = block["freq"] if self._shared else (
                _sharded(f"W_t_{b}", shape, self._num_unit_shards, dtype),
                self._weight(f"B_t_{b}", [gates * n], init_ops.zeros_initializer()))
            diags = {}
            if self._use_peepholes:
                for kind in ("freq",) if self._shared else ("freq", "time"):
                    for gate in "IO" if self._coupled else "FIO":
                        for source in "ft":
                            diags[kind, gate, source] = self._weight(f"W_{gate}_diag_{kind}{source}_{b}", [n])
                if self._shared:
                    diags.update({("time",) + key[1:]: v for key, v in list(diags.items())})
            block["diags"] = diags
            made.append(block)
        return made

    def _windows(self, inputs, offset=0) -> list:
        """Each block's window tensors, the windows shifted by ``offset`` over zero padding."""
        if offset:
            inputs = array_ops.pad(inputs, [[0, 0], [0, offset]] if offset > 0 else [[0, 0], [-offset, 0]])
        shift = max(offset, 0)
        return [[slicing_ops.slice(inputs, [0, start + shift], [-1, self._feature_size]) for start in block]
                for block in self._starts]

    def _gates(self, weights, kind, cell_in, c_freq, c_time):
        """One of the two LSTMs' gates before the output: (i, j, f gate values, o pre-activation)."""
        kernel, bias = weights[kind]
        diags = weights["diags"]
        gates = slicing_ops.split(nn_ops.bias_add(math_ops.matmul(cell_in, _whole(kernel)), bias),
                                  3 if self._coupled else 4, axis=1)
        i, j, o = (gates[0], gates[1], gates[2]) if self._coupled else (gates[0], gates[1], gates[3])

        def peep(x, gate):
            for source, c in (("f", c_freq), ("t", c_time)):
                if (kind, gate, source) in diags:
                    x = x + diags[kind, gate, source] * c
            return x

        i = sigmoid(peep(i, "I"))
        f = 1.0 - i if self._coupled else sigmoid(peep(gates[2] + self._forget_bias, "F"))
        return i, tanh(j), f, o

    def _output(self, weights, kind, o, c_freq, c_time, c):
        diags = weights["diags"]
        for source, prev in (("f", c_freq), ("t", c_time)):
            if (kind, "O", source) in diags:
                o = o + diags[kind, "O", source] * prev
        return sigmoid(o) * tanh(c)

    def _compute(self, windows, block: int, first: int, state, weights, prefix: str):
        """One block's windows in turn: (outputs, states), each window's [m_time, m_freq] and
        [c_time, m_time]. ``first`` is the block's first window among all (a state's offset)."""
        n = self._num_units
        batch = array_ops.shape(windows[0])[0]
        m_freq = c_freq = array_ops.zeros(array_ops.stack([batch, n]), dtype=windows[0].dtype)
        outputs, states = [], []
        for k, window in enumerate(windows):
            if self._state_is_tuple:
                name = f"{prefix}_f{k:02d}_b{block:02d}"
                c_time, m_time = getattr(state, name + "_c"), getattr(state, name + "_m")
            else:
                c_time = slicing_ops.slice(state, [0, 2 * (first + k) * n], [-1, n])
                m_time = slicing_ops.slice(state, [0, (2 * (first + k) + 1) * n], [-1, n])
            cell_in = slicing_ops.concat([window, m_time, m_freq], 1)
            i, j, f, o_freq = self._gates(weights, "freq", cell_in, c_freq, c_time)
            new_c_freq = _clip(f * c_freq + i * j, self._cell_clip)
            i, j, f, o_time = self._gates(weights, "time", cell_in, c_freq, c_time)
            new_c_time = _clip(f * c_time + i * j, self._cell_clip)
            m_freq = self._output(weights, "freq", o_freq, new_c_freq, new_c_time, new_c_freq)
            m_time = self._output(weights, "time", o_time, new_c_freq, new_c_time, new_c_time)
            c_freq = new_c_freq
            outputs += [m_time, m_freq]
            states += [new_c_time, m_time]
        return outputs, states

    def _direction(self, blocks, state, weights, prefix):
        outputs, states, first = [], [], 0
        for b, windows in enumerate(blocks):
            out, st = self._compute(windows, b, first, state, weights[b], prefix)
            outputs += out
            states += st
            first += len(windows)
        return outputs, states

    def call(self, inputs, state):
        outputs, states = self._direction(self._windows(inputs), state, self._weights, "state")
        new_state = self._state_tuple_type(*states) if self._state_is_tuple else slicing_ops.concat(states, 1)
        return slicing_ops.concat(outputs, 1), new_state


class BidirectionalGridLSTMCell(GridLSTMCell):
    """GridLSTMCell run over the windows forwards (variables under ``fwd/``) and backwards
    (``bwd/``, its windows shifted by ``backward_slice_offset``): the state is both
    directions' (``fwd_state_...``, ``bwd_state_...``), the output both side by side."""

    _default_name = "bidirectional_grid_lstm_cell"
    _directions = 2

    def __init__(self, num_units, use_peepholes=False, share_time_frequency_weights=False, cell_clip=None,
                 initializer=None, num_unit_shards=1, forget_bias=1.0, feature_size=None, frequency_skip=None,
                 num_frequency_blocks=None, start_freqindex_list=None, end_freqindex_list=None,
                 couple_input_forget_gates=False, backward_slice_offset=0, reuse=None):
        super().__init__(num_units, use_peepholes, share_time_frequency_weights, cell_clip, initializer,
                         num_unit_shards, forget_bias, feature_size, frequency_skip, num_frequency_blocks,
                         start_freqindex_list, end_freqindex_list, couple_input_forget_gates, True, reuse)
        self._backward_slice_offset = int(backward_slice_offset)
        self._state_tuple_type = _grid_state_type("BidirectionalGridLSTMStateTuple", ["fwd_state", "bwd_state"],
                                                  self._blocks)

    def _build_weights(self):
        with vs.variable_scope("fwd"):
            self._weights = self._make_weights()
        with vs.variable_scope("bwd"):
            self._bwd_weights = self._make_weights()

    def call(self, inputs, state):
        forward = self._windows(inputs)
        backward = self._windows(inputs, self._backward_slice_offset) if self._backward_slice_offset else forward
        with ops.name_scope("fwd"):
            fwd_out, fwd_states = self._direction(forward, state, self._weights, "fwd_state")
        with ops.name_scope("bwd"):
            bwd_out, bwd_states = self._direction([block[::-1] for block in backward], state, self._bwd_weights,
                                                  "bwd_state")
        return slicing_ops.concat(fwd_out + bwd_out, 1), self._state_tuple_type(*(fwd_states + bwd_states))


class AttentionCellWrapper(RNNCell):
    """A cell that attends over its own last ``attn_length`` outputs (Bahdanau et al.): the
    input is mixed with the last attention (``kernel``, ``bias``), the wrapped cell runs, its
    new state queries the window (``attention/attn_w``, ``attn_v``, ``kernel``, ``bias``),
    and the output is the cell's output and the attention projected to ``attn_size``
    (``attn_output_projection/``). The state is (cell state, attention, window)."""

    _default_name = "attention_cell_wrapper"

    def __init__(self, cell, attn_length, attn_size=None, attn_vec_size=None, input_size=None, state_is_tuple=True,
                 reuse=None):
        super().__init__(reuse=reuse)
        if not callable(cell) or not hasattr(cell, "state_size"):
            raise TypeError("The parameter cell is not RNNCell.")
        if nest.is_nested(cell.state_size) and not state_is_tuple:
            raise ValueError(f"Cell returns tuple of states, but the flag state_is_tuple is not set. "
                             f"State size is: {cell.state_size}")
        if attn_length <= 0:
            raise ValueError(f"attn_length should be greater than zero, got {attn_length}")
        self._cell, self._attn_length, self._state_is_tuple = cell, attn_length, state_is_tuple
        self._attn_size = cell.output_size if attn_size is None else attn_size
        self._attn_vec_size = self._attn_size if attn_vec_size is None else attn_vec_size
        self._input_size = input_size

    @property
    def state_size(self):
        size = (self._cell.state_size, self._attn_size, self._attn_size * self._attn_length)
        return size if self._state_is_tuple else sum(size)

    @property
    def output_size(self):
        return self._attn_size

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        dtype, size, vec = self._dtype or dtypes.float32, self._attn_size, self._attn_vec_size
        self._mix = _Linear(depth + size, self._input_size or depth, True, dtype)
        with vs.variable_scope("attention"):
            self._attn_w = vs.get_variable("attn_w", [1, 1, size, vec], dtype=dtype)
            self._attn_v = vs.get_variable("attn_v", [vec], dtype=dtype)
            self._query = _Linear(sum(nest.flatten(self._cell.state_size)), vec, True, dtype)
        with vs.variable_scope("attn_output_projection"):
            self._project = _Linear(self._cell.output_size + size, size, True, dtype)

    def call(self, inputs, state):
        length, size = self._attn_length, self._attn_size
        if self._state_is_tuple:
            state, attns, window = state
        else:
            cell_size = self._cell.state_size
            attns = slicing_ops.slice(state, [0, cell_size], [-1, size])
            window = slicing_ops.slice(state, [0, cell_size + size], [-1, size * length])
            state = slicing_ops.slice(state, [0, 0], [-1, cell_size])
        window = array_ops.reshape(window, [-1, length, size])
        cell_output, new_state = self._cell(self._mix([inputs, attns]), state)
        query = slicing_ops.concat(nest.flatten(new_state), 1) if self._state_is_tuple else new_state
        with ops.name_scope("attention"):
            hidden = array_ops.reshape(window, [-1, length, 1, size])
            features = conv_ops.conv2d(hidden, self._attn_w, [1, 1, 1, 1], "SAME")
            y = array_ops.reshape(self._query(query), [-1, 1, 1, self._attn_vec_size])
            scores = reduction_ops.reduce_sum(self._attn_v * tanh(features + y), [2, 3])
            weights = array_ops.reshape(nn_ops.softmax(scores), [-1, length, 1, 1])
            new_attns = array_ops.reshape(reduction_ops.reduce_sum(weights * hidden, [1, 2]), [-1, size])
        output = self._project([cell_output, new_attns])
        new_window = slicing_ops.concat([slicing_ops.slice(window, [0, 1, 0], [-1, -1, -1]),
                                         array_ops.expand_dims(output, 1)], 1)
        new_state = (new_state, new_attns, array_ops.reshape(new_window, [-1, length * size]))
        return output, (new_state if self._state_is_tuple else slicing_ops.concat(list(new_state), 1))


class HighwayWrapper(_Wrapper):
    """A cell whose output is a highway mix of its input and the wrapped cell's output:
    ``x carry + y transform``, ``carry = sigmoid(x carry_w + carry_b)`` (``carry_b`` starting
    at ``carry_bias_init``) and ``transform`` its complement, or with
    ``couple_carry_transform_gates=False`` a gate of its own (``transform_w``,
    ``transform_b``). The gates are made in the variable scope of the first call."""

    def __init__(self, cell, couple_carry_transform_gates=True, carry_bias_init=1.0):
        super().__init__(cell)
        self._coupled, self._carry_bias_init = couple_carry_transform_gates, carry_bias_init
        self._gates = None
        self._own: list = []

    def _make_gates(self, inputs):
        gates, leaves = [], nest.flatten(inputs)
        before = {id(v) for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)}
        for k, x in enumerate(leaves):
            depth, dtype, suffix = x.shape.with_rank(2)[1].value, x.dtype.base_dtype, f"_{k}" if k else ""
            carry = (vs.get_variable("carry_w" + suffix, [depth, depth], dtype=dtype),
                     vs.get_variable("carry_b" + suffix, [depth], dtype=dtype,
                                     initializer=init_ops.constant_initializer(self._carry_bias_init)))
            transform = None if self._coupled else (
                vs.get_variable("transform_w" + suffix, [depth, depth], dtype=dtype),
                vs.get_variable("transform_b" + suffix, [depth], dtype=dtype,
                                initializer=init_ops.constant_initializer(-self._carry_bias_init)))
            gates.append((carry, transform))
        self._own = [v for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) if id(v) not in before]
        return gates

    @property
    def variables(self) -> list:
        return self._cell.variables + self._own

    def __call__(self, inputs, state, scope=None):
        outputs, new_state = self._cell(inputs, state, scope=scope)
        nest.assert_same_structure(inputs, outputs)
        for x, y in zip(nest.flatten(inputs), nest.flatten(outputs)):
            x.shape.assert_is_compatible_with(y.shape)
        if self._gates is None:
            self._gates = self._make_gates(inputs)
        mixed = []
        for x, y, (carry, transform) in zip(nest.flatten(inputs), nest.flatten(outputs), self._gates):
            carry_gate = sigmoid(nn_impl.xw_plus_b(x, *carry))
            transform_gate = 1 - carry_gate if transform is None else sigmoid(nn_impl.xw_plus_b(x, *transform))
            mixed.append(x * carry_gate + y * transform_gate)
        return nest.pack_sequence_as(outputs, mixed), new_state


class NASCell(_ProjectedSizes, RNNCell):
    """The recurrent cell found by Neural Architecture Search (Zoph and Le, 2017): eight
    projections of the input (``kernel``) and of the last output (``recurrent_kernel``,
    plus ``bias`` with ``use_biases``) combined in a fixed tree; an optional projection
    (``projection_weights``)."""

    _default_name = "nas_cell"

    def __init__(self, num_units, num_proj=None, use_biases=False, reuse=None):
        super().__init__(reuse=reuse)
        self._num_units, self._num_proj, self._use_biases = num_units, num_proj, use_biases

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        n = self._num_units
        self._recurrent_kernel = self._weight("recurrent_kernel", [self.output_size, 8 * n])
        self._kernel = self._weight("kernel", [depth, 8 * n])
        self._bias = self._weight("bias", [8 * n], init_ops.zeros_initializer()) if self._use_biases else None
        self._projection = (self._weight("projection_weights", [n, self._num_proj])
                            if self._num_proj is not None else None)

    def call(self, inputs, state):
        c_prev, m_prev = state
        recurrent = math_ops.matmul(m_prev, self._recurrent_kernel)
        if self._bias is not None:
            recurrent = nn_ops.bias_add(recurrent, self._bias)
        r = slicing_ops.split(recurrent, 8, axis=1)
        x = slicing_ops.split(math_ops.matmul(inputs, self._kernel), 8, axis=1)
        relu = nn_ops.relu
        first = (sigmoid(x[0] + r[0]), relu(x[1] + r[1]), sigmoid(x[2] + r[2]), relu(x[3] * r[3]),
                 tanh(x[4] + r[4]), sigmoid(x[5] + r[5]), tanh(x[6] + r[6]), sigmoid(x[7] + r[7]))
        second = (tanh(first[0] * first[1]), tanh(first[2] + first[3]), tanh(first[4] * first[5]),
                  sigmoid(first[6] + first[7]))
        new_c = tanh(second[0] + c_prev) * second[1]
        new_m = tanh(new_c * tanh(second[2] + second[3]))
        if self._projection is not None:
            new_m = math_ops.matmul(new_m, self._projection)
        return new_m, LSTMStateTuple(new_c, new_m)


class UGRNNCell(_UnitsCell, _InitializerScope):
    """The update-gate RNN (Collins et al., 2017): ``g = sigmoid(gate + forget_bias)``,
    ``h = g h + (1 - g) activation(candidate)``, both from one ``kernel`` and ``bias``."""

    _default_name = "ugrnn_cell"

    def __init__(self, num_units, initializer=None, forget_bias=1.0, activation=tanh, reuse=None):
        super().__init__(num_units, activation, reuse=reuse)
        self._initializer, self._forget_bias = initializer, forget_bias

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        with self._with_initializer():
            self._linear = _Linear(depth + self._num_units, 2 * self._num_units, True, self._dtype or dtypes.float32)

    def call(self, inputs, state):
        gate, candidate = slicing_ops.split(self._linear([inputs, state]), 2, axis=1)
        g = sigmoid(gate + self._forget_bias)
        new_state = g * state + (1.0 - g) * self._activation(candidate)
        return new_state, new_state


class IntersectionRNNCell(_UnitsCell, _InitializerScope):
    """The intersection RNN (Collins et al., 2017): a state passed on in time and an output
    passed on in depth, each a gated mix (``kernel``, ``bias``); the output is
    ``y_activation`` (ReLU) of its candidate. Inputs of another depth than ``num_units`` need
    ``num_in_proj`` (a projection to num_units, ``in_projection/``)."""

    _default_name = "intersection_rnn_cell"

    def __init__(self, num_units, num_in_proj=None, initializer=None, forget_bias=1.0, y_activation=nn_ops.relu,
                 reuse=None):
        super().__init__(num_units, reuse=reuse)
        self._num_in_proj, self._initializer = num_in_proj, initializer
        self._forget_bias, self._y_activation = forget_bias, y_activation

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        n, dtype = self._num_units, self._dtype or dtypes.float32
        self._in_projection = None
        with self._with_initializer():
            if depth != n:
                if not self._num_in_proj:
                    raise ValueError("Must have input size == output size for Intersection RNN. To fix, "
                                     "num_in_proj should be set to num_units at cell init.")
                with vs.variable_scope("in_projection"):
                    self._in_projection = _Linear(depth, n, True, dtype)
            self._linear = _Linear(2 * n, 4 * n, True, dtype)

    def call(self, inputs, state):
        if self._in_projection is not None:
            with ops.name_scope("in_projection"):
                inputs = self._in_projection(inputs)
        gh, h, gy, y = slicing_ops.split(self._linear([inputs, state]), 4, axis=1)
        gh, gy = sigmoid(gh + self._forget_bias), sigmoid(gy + self._forget_bias)
        new_state = gh * state + (1.0 - gh) * tanh(h)
        return gy * inputs + (1.0 - gy) * self._y_activation(y), new_state


class PhasedLSTMCell(RNNCell):
    """The phased LSTM (Neil et al., 2016) for events at irregular times: inputs are
    ``(time, x)`` with time [batch, 1]. An LSTM (``mask_gates/``, ``new_input/``,
    ``output_gate/``, each ``kernel`` and ``bias``; peepholes read c) whose update is let
    through by a time gate: open for the first ``ratio_on`` of each unit's ``period``
    (rising, then falling), leaking ``leak`` when closed. ``period`` starts at
    ``exp(U(log period_init_min, log period_init_max))``, ``phase`` at ``U(0, period)``."""

    _default_name = "phased_lstm_cell"

    def __init__(self, num_units, use_peepholes=False, leak=0.001, ratio_on=0.1, trainable_ratio_on=True,
                 period_init_min=1.0, period_init_max=1000.0, reuse=None):
        super().__init__(reuse=reuse)
        self._num_units, self._use_peepholes, self._leak = num_units, use_peepholes, leak
        self._ratio_on, self._trainable_ratio_on = ratio_on, trainable_ratio_on
        self._period_init_min, self._period_init_max = period_init_min, period_init_max

    @property
    def state_size(self):
        return LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def _build_input(self, inputs):
        if not isinstance(inputs, (tuple, list)) or len(inputs) != 2:
            raise ValueError(f"PhasedLSTMCell: inputs must be a pair (time [batch, 1], features), got {inputs}")
        return ops.convert_to_tensor(inputs[1])

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        n, dtype = self._num_units, self._dtype or dtypes.float32
        peep = n if self._use_peepholes else 0
        for scope, size, out in (("mask_gates", depth + n + peep, 2 * n), ("new_input", depth + n, n),
                                 ("output_gate", depth + n + peep, n)):
            with vs.variable_scope(scope):
                setattr(self, "_" + scope, _Linear(size, out, True, dtype))
        low, high = math.log(self._period_init_min), math.log(self._period_init_max)

        def period_init(shape, dtype=dtype, partition_info=None):
            return math_ops.exp(random_ops.random_uniform(shape, low, high, dtype))

        self._period = self._weight("period", [n], period_init)
        start = self._period.initial_value

        def phase_init(shape, dtype=dtype, partition_info=None):
            return random_ops.random_uniform(shape, 0.0, 1.0, dtype) * start

        self._phase = self._weight("phase", [n], phase_init)
        self._ratio = vs.get_variable("ratio_on", [n], dtype=dtype, trainable=self._trainable_ratio_on,
                                      initializer=init_ops.constant_initializer(self._ratio_on))

    def call(self, inputs, state):
        c_prev, h_prev = state
        time, x = inputs
        time = ops.convert_to_tensor(time)
        peep = [c_prev] if self._use_peepholes else []
        input_gate, forget_gate = slicing_ops.split(sigmoid(self._mask_gates([x, h_prev] + peep)), 2, axis=1)
        new_c = c_prev * forget_gate + input_gate * tanh(self._new_input([x, h_prev]))
        peep = [new_c] if self._use_peepholes else []
        new_h = tanh(new_c) * sigmoid(self._output_gate([x, h_prev] + peep))
        # the fraction of its period each unit is into, in the time's precision; the modulo
        # passes the time's gradient through
        period = math_ops.cast(self._period, time.dtype)
        shifted = time - math_ops.cast(self._phase, time.dtype)
        wrapped = array_ops.stop_gradient(math_ops.floormod(shifted, period) - shifted) + shifted
        cycle = math_ops.cast(wrapped / period, new_c.dtype)
        rising = 2 * cycle / self._ratio
        k = math_ops.where(cycle < 0.5 * self._ratio, rising,
                           math_ops.where(cycle < self._ratio, 2 - rising, self._leak * cycle))
        new_c = k * new_c + (1 - k) * c_prev
        new_h = k * new_h + (1 - k) * h_prev
        return new_h, LSTMStateTuple(new_c, new_h)


class ConvLSTMCell(RNNCell):
    """The convolutional LSTM (Shi et al., 2015): the four gates are a ``SAME`` convolution
    (``kernel`` of ``kernel_shape`` + [in + out channels, 4 out channels], ``biases``) of
    the input and the last output, over ``conv_ndims`` spatial dimensions. ``input_shape``
    is an input's shape without the batch; the state is (c, h), each of the input's spatial
    shape with ``output_channels``. With ``skip_connection`` the output is h and the input
    side by side (the state keeps h alone: TF's kept the wider output and then failed on
    its second step)."""

    _default_name = "conv_lstm_cell"

    def __init__(self, conv_ndims, input_shape, output_channels, kernel_shape, use_bias=True, skip_connection=False,
                 forget_bias=1.0, initializers=None, name="conv_lstm_cell"):
        super().__init__(name=name)
        if conv_ndims not in (1, 2, 3) or conv_ndims != len(input_shape) - 1:
            raise ValueError(f"Invalid input_shape {input_shape} for conv_ndims={conv_ndims}.")
        if len(kernel_shape) != conv_ndims:
            raise ValueError(f"kernel_shape {kernel_shape} must have {conv_ndims} dimensions")
        self._conv_ndims, self._input_shape = conv_ndims, list(input_shape)
        self._output_channels, self._kernel_shape = output_channels, list(kernel_shape)
        self._use_bias, self._skip_connection, self._forget_bias = use_bias, skip_connection, forget_bias
        self._initializer = initializers

    @property
    def state_size(self):
        shape = TensorShape(self._input_shape[:-1] + [self._output_channels])
        return LSTMStateTuple(shape, shape)

    @property
    def output_size(self):
        channels = self._output_channels + (self._input_shape[-1] if self._skip_connection else 0)
        return TensorShape(self._input_shape[:-1] + [channels])

    def build(self, inputs_shape):
        inputs_shape = inputs_shape.with_rank(self._conv_ndims + 2)
        channels = inputs_shape[-1].value
        if channels is None:
            raise ValueError(f"{type(self).__name__}: the inputs' channels must be known, got shape {inputs_shape}")
        out = self._output_channels
        self._kernel = self._weight("kernel", self._kernel_shape + [channels + out, 4 * out], self._initializer)
        self._biases = self._weight("biases", [4 * out], init_ops.zeros_initializer()) if self._use_bias else None

    def _conv(self, x):
        if self._conv_ndims == 1:
            return convolution_ops.conv1d(x, self._kernel, 1, "SAME")
        if self._conv_ndims == 2:
            return conv_ops.conv2d(x, self._kernel, [1, 1, 1, 1], "SAME")
        return conv3d_ops.conv3d(x, self._kernel, [1] * 5, "SAME")

    def call(self, inputs, state):
        cell, hidden = state
        gates = self._conv(slicing_ops.concat([inputs, hidden], -1))
        if self._biases is not None:
            gates = gates + self._biases
        input_gate, new_input, forget_gate, output_gate = slicing_ops.split(gates, 4, axis=-1)
        new_cell = sigmoid(forget_gate + self._forget_bias) * cell + sigmoid(input_gate) * tanh(new_input)
        h = tanh(new_cell) * sigmoid(output_gate)
        output = slicing_ops.concat([h, inputs], -1) if self._skip_connection else h
        return output, LSTMStateTuple(new_cell, h)


class Conv1DLSTMCell(ConvLSTMCell):
    """ConvLSTMCell over one spatial dimension (inputs [batch, width, channels])."""

    def __init__(self, name="conv_lstm_cell", **kwargs):
        super().__init__(conv_ndims=1, name=name, **kwargs)


class Conv2DLSTMCell(ConvLSTMCell):
    """ConvLSTMCell over images (inputs [batch, height, width, channels])."""

    def __init__(self, name="conv_lstm_cell", **kwargs):
        super().__init__(conv_ndims=2, name=name, **kwargs)


class Conv3DLSTMCell(ConvLSTMCell):
    """ConvLSTMCell over volumes (inputs [batch, depth, height, width, channels])."""

    def __init__(self, name="conv_lstm_cell", **kwargs):
        super().__init__(conv_ndims=3, name=name, **kwargs)


class GLSTMCell(_ProjectedSizes, RNNCell, _InitializerScope):
    """The group LSTM (Kuchaiev and Ginsburg, 2017): the input and the last output cut into
    ``number_of_groups`` slices, each group's gates a product of its own slices, biases
    ``bias_i``, ``bias_j``, ``bias_f``, ``bias_o`` and an optional projection. As TF's
    (whose checkpoints have only ``group0/kernel``), the groups share one kernel. The input's
    depth must be the output size."""

    _default_name = "glstm_cell"

    def __init__(self, num_units, initializer=None, num_proj=None, number_of_groups=1, forget_bias=1.0,
                 activation=tanh, reuse=None):
        super().__init__(reuse=reuse)
        if num_units % number_of_groups != 0:
            raise ValueError("num_units must be divisible by number_of_groups")
        if num_proj and num_proj % number_of_groups != 0:
            raise ValueError("num_proj must be divisible by number_of_groups")
        self._num_units, self._initializer, self._num_proj = num_units, initializer, num_proj
        self._groups, self._forget_bias, self._activation = number_of_groups, forget_bias, activation
        self._group_in = (num_proj or num_units) // number_of_groups
        self._group_units = num_units // number_of_groups

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        if depth != self._group_in * self._groups:
            raise ValueError(f"GLSTMCell: the inputs' depth must be the output size {self._group_in * self._groups} "
                             f"(cut into {self._groups} groups), got {depth}")
        dtype = self._dtype or dtypes.float32
        with self._with_initializer():
            with vs.variable_scope("group0"):
                self._group = _Linear(2 * self._group_in, 4 * self._group_units, False, dtype)
            self._biases = [self._weight(f"bias_{g}", [self._num_units], init_ops.zeros_initializer())
                            for g in "ijfo"]
            self._projection = None
            if self._num_proj is not None:
                with vs.variable_scope("projection"):
                    self._projection = _Linear(self._num_units, self._num_proj, False, dtype)

    def call(self, inputs, state):
        c_prev, m_prev = state
        parts = [[], [], [], []]
        size = self._group_in
        for k in range(self._groups):
            with ops.name_scope(f"group{k}"):
                x = slicing_ops.concat([slicing_ops.slice(inputs, [0, k * size], [-1, size]),
                                        slicing_ops.slice(m_prev, [0, k * size], [-1, size])], 1)
                for part, gate in zip(parts, slicing_ops.split(self._group(x), 4, axis=1)):
                    part.append(gate)
        i, j, f, o = (nn_ops.bias_add(slicing_ops.concat(part, 1), bias) for part, bias in zip(parts, self._biases))
        c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * tanh(j)
        m = sigmoid(o) * self._activation(c)
        if self._projection is not None:
            m = self._projection(m)
        return m, LSTMStateTuple(c, m)


class LayerNormLSTMCell(_ProjectedSizes, RNNCell, _InitializerScope):
    """LSTMCell with layer normalization of the four gates' pre-activations and of the new
    cell state (``input``, ``transform``, ``forget``, ``output``, ``state``, each ``gamma``
    and ``beta``; then the ``bias`` is not added), peepholes (``w_f_diag``, ``w_i_diag``,
    ``w_o_diag``), a cell clip and a projection (``projection/kernel``) with its clip."""

    _default_name = "layer_norm_lstm_cell"

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, forget_bias=1.0, activation=None, layer_norm=False, norm_gain=1.0, norm_shift=0.0,
                 reuse=None):
        super().__init__(reuse=reuse)
        self._num_units, self._use_peepholes, self._cell_clip = num_units, use_peepholes, cell_clip
        self._initializer, self._num_proj, self._proj_clip = initializer, num_proj, proj_clip
        self._forget_bias, self._activation = forget_bias, activation or tanh
        self._layer_norm, self._norm_gain, self._norm_shift = layer_norm, norm_gain, norm_shift

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        n, dtype = self._num_units, self._dtype or dtypes.float32
        with self._with_initializer():
            self._linear = _Linear(depth + self.output_size, 4 * n, True, dtype)
            self._diags = ([self._weight(f"w_{g}_diag", [n]) for g in "fio"] if self._use_peepholes
                           else [None] * 3)
            self._norms = ({part: _norm_params(part, n, self._norm_gain, self._norm_shift, dtype)
                            for part in ("input", "transform", "forget", "output", "state")}
                           if self._layer_norm else None)
            self._projection = None
            if self._num_proj is not None:
                with vs.variable_scope("projection"):
                    self._projection = _Linear(n, self._num_proj, False, dtype)

    def _norm(self, x, part):
        return _layer_norm(x, self._norms[part]) if self._layer_norm else x

    def call(self, inputs, state):
        c_prev, m_prev = state
        w_f, w_i, w_o = self._diags
        gates = self._linear([inputs, m_prev], add_bias=not self._layer_norm)
        i, j, f, o = (self._norm(g, part) for g, part in zip(slicing_ops.split(gates, 4, axis=1),
                                                             ("input", "transform", "forget", "output")))
        c = (sigmoid(_peep(f + self._forget_bias, w_f, c_prev)) * c_prev
             + sigmoid(_peep(i, w_i, c_prev)) * self._activation(j))
        c = _clip(self._norm(c, "state"), self._cell_clip)
        m = sigmoid(_peep(o, w_o, c)) * self._activation(c)
        if self._projection is not None:
            m = _clip(self._projection(m), self._proj_clip)
        return m, LSTMStateTuple(c, m)


class SRUCell(_UnitsCell):
    """The simple recurrent unit (Lei et al., 2017): one product of the input only
    (``kernel``: the candidate, the forget and reset pre-activations and a highway term),
    ``c = f c + (1 - f) candidate``, ``h = r activation(c) + (1 - r) highway``; the state
    is c. The forget and reset gates share ``bias``. The input's depth is free."""

    _default_name = "sru_cell"

    def __init__(self, num_units, activation=None, reuse=None, name=None):
        super().__init__(num_units, activation, reuse=reuse, name=name)

    def build(self, inputs_shape):
        if inputs_shape.ndims != 2 or inputs_shape[1].value is None:
            raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs_shape}")
        n = self._num_units
        self._kernel = self._weight("kernel", [inputs_shape[1].value, 4 * n])
        self._bias = self._weight("bias", [2 * n], init_ops.zeros_initializer())

    def call(self, inputs, state):
        candidate, f, r, highway = slicing_ops.split(math_ops.matmul(inputs, self._kernel), 4, axis=1)
        f, r = slicing_ops.split(sigmoid(nn_ops.bias_add(slicing_ops.concat([f, r], 1), self._bias)), 2, axis=1)
        c = f * state + (1.0 - f) * candidate
        return r * self._activation(c) + (1.0 - r) * highway, c


def _recurrent_weights():
    """The initializer of IndRNN's elementwise recurrent weights: uniform in [-1, 1], as TF."""
    return init_ops.random_uniform_initializer(minval=-1.0, maxval=1.0)


def _known_depth(inputs_shape):
    if inputs_shape.ndims != 2 or inputs_shape[1].value is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs_shape}")
    return inputs_shape[1].value


class IndRNNCell(_UnitsCell):
    """The independently recurrent cell (Li et al., 2018): each unit sees its own last state
    only, ``h = activation(x kernel_w + h * kernel_u + bias)`` with ``kernel_u`` a [1, units]
    vector (uniform in [-1, 1]) and ReLU by default (TF 1.11-1.15's contrib.rnn.IndRNNCell)."""

    _default_name = "ind_rnn_cell"

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None):
        super().__init__(num_units, activation or nn_ops.relu, reuse=reuse, name=name, dtype=dtype)

    def build(self, inputs_shape):
        n = self._num_units
        self._kernel_w = self._weight("kernel_w", [_known_depth(inputs_shape), n])
        self._kernel_u = self._weight("kernel_u", [1, n], _recurrent_weights())
        self._bias = self._weight("bias", [n], init_ops.zeros_initializer())

    def call(self, inputs, state):
        pre = math_ops.matmul(inputs, self._kernel_w) + state * self._kernel_u
        output = self._activation(nn_ops.bias_add(pre, self._bias))
        return output, output


class IndyGRUCell(_UnitsCell):
    """A GRU whose recurrent matrices are diagonal (a vector each, uniform in [-1, 1]):
    ``r, u = sigmoid(x gates/kernel_w + tile(h) * gates/kernel_u + gates/bias)`` (the bias 1
    by default), ``c = activation(x candidate/kernel + r h * candidate/kernel_u +
    candidate/bias)``, ``h = u h + (1 - u) c`` (TF 1.11-1.15's contrib.rnn.IndyGRUCell, with its
    variable names)."""

    _default_name = "indy_gru_cell"

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None):
        super().__init__(num_units, activation or tanh, reuse=reuse, name=name, dtype=dtype)
        self._kernel_initializer, self._bias_initializer = kernel_initializer, bias_initializer

    def build(self, inputs_shape):
        depth, n = _known_depth(inputs_shape), self._num_units
        self._gate_kernel_w = self._weight("gates/kernel_w", [depth, 2 * n], self._kernel_initializer)
        self._gate_kernel_u = self._weight("gates/kernel_u", [1, 2 * n], _recurrent_weights())
        self._gate_bias = self._weight("gates/bias", [2 * n],
                                       self._bias_initializer or init_ops.constant_initializer(1.0))
        self._candidate_kernel_w = self._weight("candidate/kernel", [depth, n], self._kernel_initializer)
        self._candidate_kernel_u = self._weight("candidate/kernel_u", [1, n], _recurrent_weights())
        self._candidate_bias = self._weight("candidate/bias", [n],
                                            self._bias_initializer or init_ops.zeros_initializer())

    def call(self, inputs, state):
        gates = math_ops.matmul(inputs, self._gate_kernel_w) + array_ops.tile(state, [1, 2]) * self._gate_kernel_u
        r, u = slicing_ops.split(sigmoid(nn_ops.bias_add(gates, self._gate_bias)), 2, axis=1)
        candidate = math_ops.matmul(inputs, self._candidate_kernel_w) + (r * state) * self._candidate_kernel_u
        c = self._activation(nn_ops.bias_add(candidate, self._candidate_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class IndyLSTMCell(_ProjectedSizes, RNNCell):
    """An LSTM whose recurrent matrices are diagonal (``kernel_u``, a [1, 4 units] vector,
    uniform in [-1, 1]): ``i, j, f, o`` of ``x kernel_w + tile(h) * kernel_u + bias``,
    ``c = c sigmoid(f + forget_bias) + sigmoid(i) activation(j)``, ``h = activation(c)
    sigmoid(o)``; the state an LSTMStateTuple (TF 1.11-1.15's contrib.rnn.IndyLSTMCell)."""

    _default_name = "indy_lstm_cell"
    _num_proj = None  # (the sizes: c and h of num_units)

    def __init__(self, num_units, forget_bias=1.0, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype, reuse=reuse)
        self._num_units, self._forget_bias = num_units, forget_bias
        self._activation = activation or tanh
        self._kernel_initializer, self._bias_initializer = kernel_initializer, bias_initializer

    def build(self, inputs_shape):
        depth, n = _known_depth(inputs_shape), self._num_units
        self._kernel_w = self._weight("kernel_w", [depth, 4 * n], self._kernel_initializer)
        self._kernel_u = self._weight("kernel_u", [1, 4 * n], _recurrent_weights())
        self._bias = self._weight("bias", [4 * n], self._bias_initializer or init_ops.zeros_initializer())

    def call(self, inputs, state):
        c, h = state
        gates = math_ops.matmul(inputs, self._kernel_w) + array_ops.tile(h, [1, 4]) * self._kernel_u
        i, j, f, o = slicing_ops.split(nn_ops.bias_add(gates, self._bias), 4, axis=1)
        new_c = c * sigmoid(f + self._forget_bias) + sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)


class CompiledWrapper(_Wrapper):
    """TF compiled the wrapped cell with XLA; distflow has no XLA, and runs the cell as it
    is (the same values). ``compile_stateful`` is accepted and has no effect."""

    def __init__(self, cell, compile_stateful=False):
        super().__init__(cell)

    def __call__(self, inputs, state, scope=None):
        return self._cell(inputs, state, scope=scope)


class FusedRNNCell:
    """A cell run over a whole time-major sequence in one call:
    ``cell(inputs, initial_state=None, dtype=None, sequence_length=None, scope=None)``
    returns (outputs, final state); inputs [time, batch, depth] or a list of [batch, depth]."""

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")


class FusedRNNCellAdaptor(FusedRNNCell):
    """An RNNCell as a FusedRNNCell: ``dynamic_rnn`` over time-major inputs with
    ``use_dynamic_rnn``, else ``static_rnn`` over the steps; outputs come back as the inputs
    came (a tensor or a list)."""

    def __init__(self, cell, use_dynamic_rnn=False):
        self._cell, self._use_dynamic_rnn = cell, use_dynamic_rnn

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        as_list = isinstance(inputs, list)
        if self._use_dynamic_rnn:
            outputs, state = dynamic_rnn(self._cell, array_ops.stack(inputs) if as_list else inputs,
                                         sequence_length=sequence_length, initial_state=initial_state, dtype=dtype,
                                         time_major=True, scope=scope)
            return (slicing_ops.unstack(outputs) if as_list else outputs), state
        outputs, state = static_rnn(self._cell, inputs if as_list else slicing_ops.unstack(inputs),
                                    initial_state=initial_state, dtype=dtype, sequence_length=sequence_length,
                                    scope=scope)
        return (outputs if as_list else array_ops.stack(outputs)), state


class TimeReversedFusedRNN(FusedRNNCell):
    """A FusedRNNCell run from each sequence's end to its start (the backward half of a
    bidirectional RNN); outputs come back in time order. With ``sequence_length`` each
    sequence is reversed within its length, a list of steps too (TF reversed a list whole)."""

    def __init__(self, cell):
        self._cell = cell

    @staticmethod
    def _reverse(t, lengths):
        as_list = isinstance(t, list)
        if as_list and lengths is None:
            return list(reversed(t))
        t = array_ops.stack(t) if as_list else ops.convert_to_tensor(t)
        t = reverse(t, [0]) if lengths is None else reverse_sequence(t, lengths, seq_axis=0, batch_axis=1)
        return slicing_ops.unstack(t) if as_list else t

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
        outputs, state = self._cell(self._reverse(inputs, sequence_length), initial_state=initial_state,
                                    dtype=dtype, sequence_length=sequence_length, scope=scope)
        return self._reverse(outputs, sequence_length), state
