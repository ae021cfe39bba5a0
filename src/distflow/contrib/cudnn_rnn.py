"""``tf.contrib.cudnn_rnn``: the RNN layers TF 1.x ran through cuDNN (``CudnnLSTM``, ``CudnnGRU``,
``CudnnRNNTanh``, ``CudnnRNNRelu``), the cells that read their weights
(``CudnnCompatibleLSTMCell``, ``CudnnCompatibleGRUCell``), and the saveables that write those
weights under the cells' names.

A layer keeps all its weights in one variable, ``<layer>/opaque_kernel``, a vector: for each
layer and direction in turn, cuDNN's canonical weight matrices ([num_units, input width],
the input's first, then the recurrent ones, one per gate) and then its biases (one input and
one recurrent bias per gate). That is cuDNN's own layout for one layer in one direction;
for several, move weights between TensorFlow and distflow by the canonical names below, not
by the opaque vector. The equations are cuDNN's (gates i, f, c, o for an LSTM, no forget
bias; a GRU's reset gate applied after the recurrent product, ``c = tanh(W_c x + b_Wc +
r * (R_c h + b_Rc))``), computed as cuDNN computes them: the inputs' products for every step
in one product, then a loop over time of the recurrent ones (``tf.nn.dynamic_rnn``), so a
layer runs on any device and trains by ``tf.gradients``.

``layer(inputs, initial_state=None, sequence_lengths=None, time_major=True, training=True)``
takes [time, batch, depth] (or [batch, time, depth]) and returns the outputs [time, batch,
num_dirs * num_units] and the final states, ``(h, c)`` for an LSTM, ``(h,)`` otherwise, each
[num_layers * num_dirs, batch, num_units] (layer by layer, forward before backward). With
``sequence_lengths``, the outputs past each sequence's end are zeros and its states are those
of its last step. ``dropout`` applies to each layer's outputs but the last's in training
(``training`` a bool, or a boolean tensor).

The layer also adds a saveable to the ``SAVEABLE_OBJECTS`` collection, so that a Saver writes
the weights as the compatible cells name them: ``<layer>/rnn/multi_rnn_cell/cell_<i>/
cudnn_compatible_lstm_cell/kernel`` and ``bias`` (a ``MultiRNNCell`` of
``CudnnCompatibleLSTMCell`` under ``dynamic_rnn``), ``.../stack_bidirectional_rnn/cell_<i>/
bidirectional_rnn/fw|bw/...`` when bidirectional, ``cudnn_compatible_gru_cell/gates/...`` and
``candidate/input_projection|hidden_projection/...`` for a GRU, ``basic_rnn_cell/...`` for
the simple RNNs; restoring them writes the opaque vector (a cell's one bias split evenly
between cuDNN's two, as TF splits it). Not built: ``input_mode="skip_input"``.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, ops
from ..layers import base, core
from ..layers.rnn import dynamic_rnn
from ..layers.rnn_cell import GRUCell, RNNCell, _input_depth
from ..ops import array_ops, init_ops, manip_ops, math_ops, nn_ops, sequence_ops, slicing_ops, state_ops
from ..ops import variable_scope as vs
from ..ops.math_ops import sigmoid, tanh
from .rnn import LSTMBlockCell

CUDNN_RNN_UNIDIRECTION = "unidirectional"
CUDNN_RNN_BIDIRECTION = "bidirectional"
CUDNN_LSTM = "lstm"
CUDNN_GRU = "gru"
CUDNN_RNN_RELU = "rnn_relu"
CUDNN_RNN_TANH = "rnn_tanh"
CUDNN_INPUT_LINEAR_MODE = "linear_input"
CUDNN_INPUT_SKIP_MODE = "skip_input"
CUDNN_INPUT_AUTO_MODE = "auto_select"
CUDNN_LSTM_PARAMS_PER_LAYER = 8
CUDNN_GRU_PARAMS_PER_LAYER = 6
CUDNN_RNN_TANH_PARAMS_PER_LAYER = 2
CUDNN_RNN_RELU_PARAMS_PER_LAYER = 2

_GATES = {CUDNN_LSTM: 4, CUDNN_GRU: 3, CUDNN_RNN_TANH: 1, CUDNN_RNN_RELU: 1}


# -- the cells that read a layer's canonical weights ----------------------------------------------

class CudnnCompatibleLSTMCell(LSTMBlockCell):
    """An LSTMBlockCell with no forget bias, named ``cudnn_compatible_lstm_cell``: it computes
    what CudnnLSTM computes, from the weights its saveable writes."""

    def __init__(self, num_units, reuse=None):
        super().__init__(num_units, forget_bias=0, cell_clip=None, use_peephole=False, reuse=reuse,
                         name="cudnn_compatible_lstm_cell")


class CudnnCompatibleGRUCell(GRUCell):
    """cuDNN's GRU as a cell (``cudnn_compatible_gru_cell``): the reset gate multiplies the
    recurrent product, ``c = tanh(W_x x + b_x + r * (W_h h + b_h))`` (``candidate/
    input_projection`` and ``candidate/hidden_projection``), where GRUCell's multiplies the
    state before its product."""

    _default_name = "cudnn_compatible_gru_cell"

    def __init__(self, num_units, reuse=None, kernel_initializer=None):
        super().__init__(num_units, reuse=reuse, kernel_initializer=kernel_initializer,
                         name="cudnn_compatible_gru_cell")

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        n = self._num_units
        with vs.variable_scope("gates"):
            self._gate_kernel = self._weight("kernel", [depth + n, 2 * n], self._kernel_initializer)
            self._gate_bias = self._weight("bias", [2 * n], init_ops.constant_initializer(1.0))
        with vs.variable_scope("candidate"):
            with vs.variable_scope("input_projection"):
                self._input_kernel = self._weight("kernel", [depth, n], self._kernel_initializer)
                self._input_bias = self._weight("bias", [n], init_ops.zeros_initializer())
            with vs.variable_scope("hidden_projection"):
                self._hidden_kernel = self._weight("kernel", [n, n], self._kernel_initializer)
                self._hidden_bias = self._weight("bias", [n], init_ops.zeros_initializer())

    def call(self, inputs, state):
        value = sigmoid(nn_ops.bias_add(math_ops.matmul(slicing_ops.concat([inputs, state], 1), self._gate_kernel),
                                        self._gate_bias))
        r, u = slicing_ops.split(value, 2, axis=1)
        candidate = nn_ops.bias_add(math_ops.matmul(inputs, self._input_kernel), self._input_bias)
        candidate += r * nn_ops.bias_add(math_ops.matmul(state, self._hidden_kernel), self._hidden_bias)
        candidate = self._activation(candidate)
        new_h = (1 - u) * candidate + u * state
        return new_h, new_h


# -- the layout of the opaque vector --------------------------------------------------------------

class _Layout:
    """Where each canonical weight and bias of each (layer, direction) lies in the opaque vector."""

    def __init__(self, rnn_mode, num_layers, num_units, input_size, num_dirs):
        self.gates, self.num_layers, self.num_units, self.num_dirs = _GATES[rnn_mode], num_layers, num_units, num_dirs
        self.input_size = input_size
        self.blocks = {}  # (layer, direction) -> ([(offset, shape)] of 2*gates weights, [(offset, n)] of biases)
        offset = 0
        for layer in range(num_layers):
            width = input_size if layer == 0 else num_units * num_dirs
            for direction in range(num_dirs):
                weights = []
                for k in range(2 * self.gates):
                    shape = (num_units, width if k < self.gates else num_units)
                    weights.append((offset, shape))
                    offset += shape[0] * shape[1]
                biases = []
                for _ in range(2 * self.gates):
                    biases.append((offset, num_units))
                    offset += num_units
                self.blocks[(layer, direction)] = (weights, biases)
        self.size = offset

    def weight_shapes(self):
        return [shape for layer in range(self.num_layers) for d in range(self.num_dirs)
                for _, shape in self.blocks[(layer, d)][0]]

    def bias_shapes(self):
        return [(n,) for layer in range(self.num_layers) for d in range(self.num_dirs)
                for _, n in self.blocks[(layer, d)][1]]

    def weights(self, opaque, layer, direction):
        """The (layer, direction)'s canonical weights and biases as tensors sliced from ``opaque``."""
        weights, biases = self.blocks[(layer, direction)]
        w = [array_ops.reshape(slicing_ops.slice(opaque, [o], [s[0] * s[1]]), list(s)) for o, s in weights]
        b = [slicing_ops.slice(opaque, [o], [n]) for o, n in biases]
        return w, b


# -- the layers -------------------------------------------------------------------------------------

class _StepCell(RNNCell):
    """One (layer, direction)'s recurrence over inputs already multiplied by the input weights
    (and their biases added): [batch, gates * num_units] a step."""

    def __init__(self, rnn_mode, num_units, recurrent_kernel, recurrent_bias):
        super().__init__(name="cudnn_step")
        self._mode, self._num_units = rnn_mode, num_units
        self._kernel, self._bias = recurrent_kernel, recurrent_bias

    @property
    def state_size(self):
        return (self._num_units, self._num_units) if self._mode == CUDNN_LSTM else self._num_units

    @property
    def output_size(self):
        return self._num_units

    def call(self, projected, state):
        h = state[0] if self._mode == CUDNN_LSTM else state
        recurrent = nn_ops.bias_add(math_ops.matmul(h, self._kernel), self._bias)
        if self._mode == CUDNN_LSTM:
            c = state[1]
            i, f, g, o = slicing_ops.split(projected + recurrent, 4, axis=1)
            new_c = sigmoid(f) * c + sigmoid(i) * tanh(g)
            new_h = sigmoid(o) * tanh(new_c)
            return new_h, (new_h, new_c)
        if self._mode == CUDNN_GRU:
            x_r, x_u, x_c = slicing_ops.split(projected, 3, axis=1)
            h_r, h_u, h_c = slicing_ops.split(recurrent, 3, axis=1)
            r, u = sigmoid(x_r + h_r), sigmoid(x_u + h_u)
            new_h = (1 - u) * tanh(x_c + r * h_c) + u * h
            return new_h, new_h
        pre = projected + recurrent
        new_h = tanh(pre) if self._mode == CUDNN_RNN_TANH else nn_ops.relu(pre)
        return new_h, new_h


class _CudnnRNN(base.Layer):
    """The layers' common part (the module's text)."""

    _rnn_mode = None
    _saveable_cls = None
    _opens_own_scope = True

    def __init__(self, num_layers, num_units, input_mode=CUDNN_INPUT_LINEAR_MODE, direction=CUDNN_RNN_UNIDIRECTION,
                 dropout=0.0, seed=None, dtype=dtypes.float32, kernel_initializer=None, bias_initializer=None,
                 name=None):
        super().__init__(dtype=dtype, name=name)
        if direction not in (CUDNN_RNN_UNIDIRECTION, CUDNN_RNN_BIDIRECTION):
            raise ValueError(f"Invalid direction: {direction}, expecting {CUDNN_RNN_UNIDIRECTION} or "
                             f"{CUDNN_RNN_BIDIRECTION}")
        if input_mode not in (CUDNN_INPUT_LINEAR_MODE, CUDNN_INPUT_SKIP_MODE, CUDNN_INPUT_AUTO_MODE):
            raise ValueError(f"Invalid input_mode: {input_mode}, expecting one of {CUDNN_INPUT_LINEAR_MODE}, "
                             f"{CUDNN_INPUT_SKIP_MODE}, {CUDNN_INPUT_AUTO_MODE}")
        if input_mode == CUDNN_INPUT_SKIP_MODE:
            raise NotImplementedError("input_mode='skip_input' is not built in distflow; use 'linear_input'")
        self._num_layers, self._num_units = int(num_layers), int(num_units)
        self._input_mode, self._direction = input_mode, direction
        self._dropout, self._seed = float(dropout), seed
        self._plain_dtype = dtypes.as_dtype(dtype)
        self._kernel_initializer = kernel_initializer or init_ops.glorot_uniform_initializer()
        self._bias_initializer = bias_initializer or init_ops.constant_initializer(0.0)
        self._layout = None
        self._opaque = None
        self._saveable = None

    @property
    def num_layers(self):
        return self._num_layers

    @property
    def num_units(self):
        return self._num_units

    @property
    def input_mode(self):
        return self._input_mode

    @property
    def direction(self):
        return self._direction

    @property
    def rnn_mode(self):
        return self._rnn_mode

    @property
    def num_dirs(self):
        return 2 if self._direction == CUDNN_RNN_BIDIRECTION else 1

    @property
    def input_size(self):
        if self._layout is None:
            raise ValueError("The layer is not built yet: its input size is known once it is called")
        return self._layout.input_size

    @property
    def canonical_weight_shapes(self):
        if self._layout is None:
            raise RuntimeError("Must build the layer before querying its canonical weight shapes")
        return self._layout.weight_shapes()

    @property
    def canonical_bias_shapes(self):
        if self._layout is None:
            raise RuntimeError("Must build the layer before querying its canonical bias shapes")
        return self._layout.bias_shapes()

    @property
    def saveable(self):
        return self._saveable

    def state_shape(self, batch_size):
        shape = [self._num_layers * self.num_dirs, batch_size, self._num_units]
        return (shape, shape) if self._rnn_mode == CUDNN_LSTM else (shape,)

    def _build(self, input_size):
        self._layout = _Layout(self._rnn_mode, self._num_layers, self._num_units, input_size, self.num_dirs)
        pieces = []  # (in the opaque vector's order: each layer and direction's weights, then its biases)
        for weights, biases in self._layout.blocks.values():
            pieces += [array_ops.reshape(self._kernel_initializer(list(shape), dtype=self._plain_dtype), [-1])
                       for _, shape in weights]
            pieces += [array_ops.reshape(self._bias_initializer([n], dtype=self._plain_dtype), [-1])
                       for _, n in biases]
        initial = slicing_ops.concat(pieces, 0)
        self._opaque = vs.get_variable("opaque_kernel", dtype=self._plain_dtype, initializer=initial,
                                       validate_shape=True)
        self._saveable = self._saveable_cls(self._opaque, self._layout, vs.get_variable_scope().name,
                                            self._direction)
        ops.add_to_collection(ops.GraphKeys.SAVEABLE_OBJECTS, self._saveable)

    def call(self, inputs, *args, reuse=None, scope=None, **kwargs):
        names = ("initial_state", "sequence_lengths", "time_major", "training")
        options = dict(zip(names, args))
        options.update(kwargs)
        unknown = set(options) - set(names)
        if unknown:
            raise TypeError(f"{type(self).__name__}() got unexpected arguments {sorted(unknown)}")
        with vs.variable_scope(self.name if scope is None else scope, reuse=reuse):
            inputs = ops.convert_to_tensor(inputs, dtype=self._plain_dtype)
            if inputs.shape.ndims is not None and inputs.shape.ndims != 3:
                raise ValueError(f"{type(self).__name__}: the inputs must be 3-D ([time, batch, depth], or [batch, "
                                 f"time, depth] with time_major=False), got shape {inputs.shape}")
            if self._opaque is None:
                self._build(_input_depth(inputs.shape, type(self).__name__))
            return self._run(inputs, options.get("initial_state"), options.get("sequence_lengths"),
                             options.get("time_major", True), options.get("training", True))

    def _run(self, inputs, initial_state, sequence_lengths, time_major, training):
        if not time_major:
            inputs = array_ops.transpose(inputs, [1, 0, 2])
        batch = array_ops.shape(inputs)[1]
        n_states = 2 if self._rnn_mode == CUDNN_LSTM else 1
        if initial_state is None:
            zeros = array_ops.zeros(array_ops.stack([self._num_layers * self.num_dirs, batch, self._num_units]),
                                    dtype=self._plain_dtype)
            initial_state = (zeros,) * n_states
        initial_state = tuple(initial_state)
        if len(initial_state) != n_states:
            raise ValueError(f"{type(self).__name__}: initial_state must be a tuple of {n_states} tensors "
                             f"{'(h, c)' if n_states == 2 else '(h,)'}, got {len(initial_state)}")
        starts = [slicing_ops.unstack(ops.convert_to_tensor(s, dtype=self._plain_dtype), self._num_layers * self.num_dirs)
                  for s in initial_state]
        if sequence_lengths is not None:
            sequence_lengths = math_ops.cast(sequence_lengths, dtypes.int32)
        finals = [[] for _ in range(n_states)]
        layer_input = inputs
        for layer in range(self._num_layers):
            outputs = []
            for direction in range(self.num_dirs):
                index = layer * self.num_dirs + direction
                start = tuple(s[index] for s in starts)
                with ops.name_scope(f"layer_{layer}{'_bw' if direction else ''}"):
                    out, state = self._direction_pass(layer_input, layer, direction, start, sequence_lengths)
                outputs.append(out)
                for k in range(n_states):
                    finals[k].append(state[k])
            layer_input = outputs[0] if len(outputs) == 1 else slicing_ops.concat(outputs, 2)
            if self._dropout > 0 and layer + 1 < self._num_layers and training is not False:
                layer_input = core.dropout(layer_input, rate=self._dropout, seed=self._seed, training=training)
        outputs = layer_input if time_major else array_ops.transpose(layer_input, [1, 0, 2])
        return outputs, tuple(array_ops.stack(f) for f in finals)

    def _direction_pass(self, inputs, layer, direction, start, sequence_lengths):
        n, gates = self._num_units, _GATES[self._rnn_mode]
        w, b = self._layout.weights(self._opaque, layer, direction)
        input_kernel = array_ops.transpose(slicing_ops.concat(w[:gates], 0))  # [width, gates * n]
        recurrent_kernel = array_ops.transpose(slicing_ops.concat(w[gates:], 0))  # [n, gates * n]
        input_bias, recurrent_bias = slicing_ops.concat(b[:gates], 0), slicing_ops.concat(b[gates:], 0)
        if direction:
            inputs = (manip_ops.reverse(inputs, [0]) if sequence_lengths is None else
                      sequence_ops.reverse_sequence(inputs, sequence_lengths, seq_axis=0, batch_axis=1))
        shape = array_ops.shape(inputs)
        flat = array_ops.reshape(inputs, [-1, inputs.shape[-1].value])
        projected = array_ops.reshape(nn_ops.bias_add(math_ops.matmul(flat, input_kernel), input_bias),
                                      array_ops.stack([shape[0], shape[1], gates * n]))
        cell = _StepCell(self._rnn_mode, n, recurrent_kernel, recurrent_bias)
        state = start if self._rnn_mode == CUDNN_LSTM else start[0]
        outputs, final = dynamic_rnn(cell, projected, sequence_length=sequence_lengths, initial_state=state,
                                     time_major=True, scope=f"cudnn_{self._rnn_mode}_{layer}_{direction}")
        if direction:
            outputs = (manip_ops.reverse(outputs, [0]) if sequence_lengths is None else
                       sequence_ops.reverse_sequence(outputs, sequence_lengths, seq_axis=0, batch_axis=1))
        return outputs, (final if self._rnn_mode == CUDNN_LSTM else (final,))


# -- the saveables ---------------------------------------------------------------------------------

class _CanonicalPart:
    """One canonical weight or bias a Saver writes (``value``) and reads back (``restore_ops``:
    into the opaque vector's slices)."""

    def __init__(self, saveable, shape, value, restore):
        self._saveable, self._shape, self._value, self._restore = saveable, shape, value, restore
        self.dtype = saveable._opaque.dtype.base_dtype
        self.device = saveable._opaque.device

    def value(self):
        return self._value()

    def restore_ops(self, value) -> list:
        return self._restore(array_ops.reshape(value, self._shape))  # (a restored tensor's shape is not known)


class CudnnOpaqueParamsSaveable:
    """Writes a cuDNN layer's weights as its compatible cells name them (the module's text)."""

    _cell_name = None

    def __init__(self, opaque_params, layout: _Layout, scope: str, direction=CUDNN_RNN_UNIDIRECTION):
        self._opaque, self._layout, self._scope = opaque_params, layout, scope
        self._direction = direction

    def _prefix(self, layer, direction):
        scope = f"{self._scope}/" if self._scope else ""
        if self._direction == CUDNN_RNN_UNIDIRECTION:
            return f"{scope}rnn/multi_rnn_cell/cell_{layer}/{self._cell_name}"
        way = "bw" if direction else "fw"
        return f"{scope}stack_bidirectional_rnn/cell_{layer}/bidirectional_rnn/{way}/{self._cell_name}"

    def saveable_parts(self) -> dict:
        parts = {}
        for layer in range(self._layout.num_layers):
            for direction in range(self._layout.num_dirs):
                prefix = self._prefix(layer, direction)
                for suffix, shape, to_tf, from_tf in self._canonical(layer, direction):
                    parts[f"{prefix}/{suffix}"] = _CanonicalPart(self, shape, to_tf, from_tf)
        return parts

    def _assign(self, pieces) -> list:
        """Assignments of (offset, flat tensor) pieces into the opaque vector."""
        return [state_ops.assign(self._opaque[offset:offset + int(np.prod(flat.shape.as_list()))],
                                 array_ops.reshape(flat, [-1])).op for offset, flat in pieces]

    def _canonical(self, layer, direction):
        """(name suffix, shape, the value's maker, the restore-op maker) of each canonical tensor."""
        raise NotImplementedError


def _split_gates(tensor, n, axis):
    return slicing_ops.split(tensor, n, axis=axis)


class CudnnLSTMSaveable(CudnnOpaqueParamsSaveable):
    """``kernel`` [width + units, 4 units] (gates i, c, f, o, TF's order) and ``bias`` (cuDNN's two
    biases of a gate summed)."""

    _cell_name = "cudnn_compatible_lstm_cell"

    def _canonical(self, layer, direction):
        weights, biases = self._layout.blocks[(layer, direction)]
        width = weights[0][1][1]
        tf_order = (0, 2, 1, 3)  # (TF's i, c, f, o of cuDNN's i, f, c, o)

        def kernel():
            w, _ = self._layout.weights(self._opaque, layer, direction)
            stitched = [slicing_ops.concat([w[g], w[4 + g]], 1) for g in tf_order]  # [units, width + units]
            return array_ops.transpose(slicing_ops.concat(stitched, 0))

        def restore_kernel(value):
            gates = _split_gates(array_ops.transpose(value), 4, 0)
            pieces = []
            for tf_index, g in enumerate(tf_order):
                w_in, w_rec = slicing_ops.split(gates[tf_index], [width, self._layout.num_units], axis=1)
                pieces += [(weights[g][0], w_in), (weights[4 + g][0], w_rec)]
            return self._assign(pieces)

        def bias():
            _, b = self._layout.weights(self._opaque, layer, direction)
            return slicing_ops.concat([b[g] + b[4 + g] for g in tf_order], 0)

        def restore_bias(value):
            gates = _split_gates(value, 4, 0)
            pieces = []
            for tf_index, g in enumerate(tf_order):
                half = gates[tf_index] * 0.5
                pieces += [(biases[g][0], half), (biases[4 + g][0], half)]
            return self._assign(pieces)

        n = self._layout.num_units
        return [("kernel", [width + n, 4 * n], kernel, restore_kernel), ("bias", [4 * n], bias, restore_bias)]


class CudnnGRUSaveable(CudnnOpaqueParamsSaveable):
    """``gates/kernel`` and ``gates/bias`` (reset and update; the two biases summed), and
    ``candidate/input_projection`` and ``candidate/hidden_projection`` (kernel and bias each)."""

    _cell_name = "cudnn_compatible_gru_cell"

    def _canonical(self, layer, direction):
        weights, biases = self._layout.blocks[(layer, direction)]
        width = weights[0][1][1]
        n = self._layout.num_units

        def parts():
            return self._layout.weights(self._opaque, layer, direction)

        def gates_kernel():
            w, _ = parts()
            return array_ops.transpose(slicing_ops.concat([slicing_ops.concat([w[g], w[3 + g]], 1) for g in (0, 1)],
                                                          0))

        def restore_gates_kernel(value):
            pieces = []
            for g, rows in enumerate(_split_gates(array_ops.transpose(value), 2, 0)):
                w_in, w_rec = slicing_ops.split(rows, [width, n], axis=1)
                pieces += [(weights[g][0], w_in), (weights[3 + g][0], w_rec)]
            return self._assign(pieces)

        def gates_bias():
            _, b = parts()
            return slicing_ops.concat([b[0] + b[3], b[1] + b[4]], 0)

        def restore_gates_bias(value):
            pieces = []
            for g, half in enumerate(_split_gates(value * 0.5, 2, 0)):
                pieces += [(biases[g][0], half), (biases[3 + g][0], half)]
            return self._assign(pieces)

        return [
            ("gates/kernel", [width + n, 2 * n], gates_kernel, restore_gates_kernel),
            ("gates/bias", [2 * n], gates_bias, restore_gates_bias),
            ("candidate/input_projection/kernel", [width, n], lambda: array_ops.transpose(parts()[0][2]),
             lambda value: self._assign([(weights[2][0], array_ops.transpose(value))])),
            ("candidate/input_projection/bias", [n], lambda: parts()[1][2],
             lambda value: self._assign([(biases[2][0], value)])),
            ("candidate/hidden_projection/kernel", [n, n], lambda: array_ops.transpose(parts()[0][5]),
             lambda value: self._assign([(weights[5][0], array_ops.transpose(value))])),
            ("candidate/hidden_projection/bias", [n], lambda: parts()[1][5],
             lambda value: self._assign([(biases[5][0], value)])),
        ]


class CudnnRNNSimpleSaveable(CudnnOpaqueParamsSaveable):
    """``basic_rnn_cell/kernel`` [width + units, units] and ``bias`` (the two summed)."""

    _cell_name = "basic_rnn_cell"

    def _canonical(self, layer, direction):
        weights, biases = self._layout.blocks[(layer, direction)]
        width = weights[0][1][1]

        def kernel():
            w, _ = self._layout.weights(self._opaque, layer, direction)
            return array_ops.transpose(slicing_ops.concat([w[0], w[1]], 1))

        def restore_kernel(value):
            w_in, w_rec = slicing_ops.split(array_ops.transpose(value), [width, self._layout.num_units], axis=1)
            return self._assign([(weights[0][0], w_in), (weights[1][0], w_rec)])

        def bias():
            _, b = self._layout.weights(self._opaque, layer, direction)
            return b[0] + b[1]

        def restore_bias(value):
            return self._assign([(biases[0][0], value * 0.5), (biases[1][0], value * 0.5)])

        n = self._layout.num_units
        return [("kernel", [width + n, n], kernel, restore_kernel), ("bias", [n], bias, restore_bias)]


CudnnRNNTanhSaveable = CudnnRNNReluSaveable = CudnnRNNSimpleSaveable


def _layer_class(class_name, rnn_mode, saveable_cls, what):
    return type(class_name, (_CudnnRNN,), {"_rnn_mode": rnn_mode, "_saveable_cls": saveable_cls,
                                           "_default_name": f"cudnn_{rnn_mode}",
                                           "__doc__": f"cuDNN's {what} as a layer (the module's text)."})


CudnnLSTM = _layer_class("CudnnLSTM", CUDNN_LSTM, CudnnLSTMSaveable, "LSTM")
CudnnGRU = _layer_class("CudnnGRU", CUDNN_GRU, CudnnGRUSaveable, "GRU")
CudnnRNNTanh = _layer_class("CudnnRNNTanh", CUDNN_RNN_TANH, CudnnRNNTanhSaveable, "simple RNN with tanh")
CudnnRNNRelu = _layer_class("CudnnRNNRelu", CUDNN_RNN_RELU, CudnnRNNReluSaveable, "simple RNN with ReLU")


__all__ = ["CudnnLSTM", "CudnnGRU", "CudnnRNNTanh", "CudnnRNNRelu", "CudnnCompatibleLSTMCell", "CudnnCompatibleGRUCell",
           "CudnnLSTMSaveable", "CudnnGRUSaveable", "CudnnRNNTanhSaveable", "CudnnRNNReluSaveable",
           "CudnnOpaqueParamsSaveable", "CUDNN_RNN_UNIDIRECTION", "CUDNN_RNN_BIDIRECTION", "CUDNN_LSTM", "CUDNN_GRU",
           "CUDNN_RNN_RELU", "CUDNN_RNN_TANH", "CUDNN_INPUT_LINEAR_MODE", "CUDNN_INPUT_SKIP_MODE",
           "CUDNN_INPUT_AUTO_MODE"]
