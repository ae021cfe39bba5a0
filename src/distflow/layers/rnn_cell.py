"""Recurrent cells (``tf.nn.rnn_cell``, ``tf.contrib.rnn``): TF 1.x's equations, variable names and state.

A cell is an object called as ``output, new_state = cell(inputs, state)``. Its
variables are made on the first call, under the variable scope current then (plus the
cell's own name, e.g. ``rnn/basic_lstm_cell/kernel``), and every later call uses the
same ones: a cell called at every step of a loop (``tf.nn.dynamic_rnn``, whose loop body
makes the first call) or of a Python loop (``tf.nn.static_rnn``) shares its weights.
"""

from __future__ import annotations

import contextlib

import collections

from ..framework import dtypes, ops
from ..framework import nest
from ..framework.tensor_shape import TensorShape
from ..ops import array_ops, init_ops, math_ops, nn_ops, slicing_ops, variable_scope as vs
from ..ops.math_ops import sigmoid, tanh


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """An LSTM's state: the cell ``c`` and the output ``h``."""

    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


def _size_list(size) -> list:
    return [int(s) for s in nest.flatten(size)]


def _size_dims(size) -> list:
    """A state or output size (an int, or a TensorShape for cells whose state is an image)
    as the dimensions after the batch's."""
    return TensorShape(size).as_list() if isinstance(size, TensorShape) else [int(size)]


def _zeros(size, batch_size, dtype):
    """Zeros of ``[batch_size] + size``, the batch size an int or a scalar tensor."""
    dims = _size_dims(size)
    shape = array_ops.stack([batch_size] + dims) if isinstance(batch_size, ops.Tensor) else [batch_size] + dims
    return array_ops.zeros(shape, dtype=dtype)


class RNNCell:
    """Base of the cells: ``state_size``, ``output_size``, ``zero_state`` and the call."""

    _default_name = "rnn_cell"

    def __init__(self, trainable=True, name=None, dtype=None, reuse=None, **kwargs):
        self._name = name
        self._reuse = reuse
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self.trainable = trainable
        self._scope = None
        self.built = False
        self._variables: list = []

    @property
    def state_size(self):
        raise NotImplementedError

    @property
    def output_size(self):
        raise NotImplementedError

    @property
    def variables(self) -> list:
        return list(self._variables)

    weights = trainable_variables = trainable_weights = variables

    def zero_state(self, batch_size, dtype):
        """Zeros of the state's structure, each ``[batch_size, size]``."""
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return nest.map_structure(lambda size: _zeros(size, batch_size, dtype), self.state_size)

    def __call__(self, inputs, state, scope=None):
        if not self.built:
            first = self._build_input(inputs)
            with self._building(scope, first, first.shape):
                return self.call(inputs, state)
        with ops.name_scope(self._scope.name.rpartition("/")[2]):  # (its variables are made: no scope needed)
            return self.call(inputs, state)

    def _build_input(self, inputs):
        """The input whose shape ``build`` gets: the first of a nested input."""
        return nest.flatten(inputs)[0]

    @contextlib.contextmanager
    def _building(self, scope, first, inputs_shape):
        """The cell's variable scope, its variables made in it for inputs like ``first`` (of
        ``inputs_shape``): they take the inputs' dtype, as TF's."""
        default = self._name or self._default_name
        with vs.variable_scope(scope, default_name=default if scope is None else None, reuse=self._reuse) as found:
            self._scope = found
            before = {id(v) for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)}
            if self._dtype is None and getattr(first, "dtype", None) is not None and first.dtype.base_dtype.is_floating:
                self._dtype = first.dtype.base_dtype
            self.build(inputs_shape)
            self.built = True
            try:
                yield found
            finally:  # (with those a wrapped cell makes on its first call, inside this one's)
                self._variables = [v for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)
                                   if id(v) not in before]

    def build(self, inputs_shape: TensorShape) -> None:
        """Makes the cell's variables (in the cell's variable scope)."""

    def call(self, inputs, state):
        raise NotImplementedError

    def _weight(self, name, shape, initializer=None):
        return vs.get_variable(name, shape, dtype=self._dtype or dtypes.float32, initializer=initializer,
                               trainable=self.trainable)


class _Linear:
    """``concat(args) kernel + bias``, its ``kernel`` [depth, output_size] and ``bias`` made
    once in the variable scope current then (TF's core_rnn_cell ``_Linear``, the building
    block of contrib's cells and legacy_seq2seq's attention)."""

    def __init__(self, depth: int, output_size: int, build_bias: bool, dtype=dtypes.float32, bias_initializer=None,
                 kernel_initializer=None):
        self._kernel = vs.get_variable("kernel", [depth, output_size], dtype=dtype, initializer=kernel_initializer)
        self._bias = (vs.get_variable("bias", [output_size], dtype=dtype,
                                      initializer=bias_initializer or init_ops.zeros_initializer())
                      if build_bias else None)

    @staticmethod
    def depth(args) -> int:
        """The total last dimension of ``args`` (2-D tensors, each of known depth)."""
        depth = 0
        for a in args:
            size = a.shape[-1].value if a.shape.ndims == 2 else None
            if size is None:
                raise ValueError(f"linear is expecting 2D arguments with a known last dimension, got {a.shape}")
            depth += size
        return depth

    def __call__(self, args, add_bias=True):
        args = list(args) if isinstance(args, (list, tuple)) else [args]
        out = math_ops.matmul(args[0] if len(args) == 1 else slicing_ops.concat(args, 1), self._kernel)
        return out if self._bias is None or not add_bias else nn_ops.bias_add(out, self._bias)


def _input_depth(shape: TensorShape, cell: str) -> int:
    depth = shape[-1].value if shape.ndims else None
    if depth is None:
        raise ValueError(f"{cell}: the inputs' last dimension must be known, got shape {shape}")
    return depth


class _UnitsCell(RNNCell):
    """A cell whose state and output are one [batch, num_units] tensor."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kwargs)
        self._num_units = num_units
        self._activation = activation or tanh

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units


class _ProjectedSizes:
    """The sizes of an LSTM whose output may be projected: the state (c of num_units, m of
    num_proj or num_units), side by side unless ``_state_is_tuple``, and the output m."""

    _state_is_tuple = True

    @property
    def state_size(self):
        out = self._num_proj or self._num_units
        return LSTMStateTuple(self._num_units, out) if self._state_is_tuple else self._num_units + out

    @property
    def output_size(self):
        return self._num_proj or self._num_units


class BasicRNNCell(_UnitsCell):
    """``h = activation(W [x, h] + b)`` (tanh by default)."""

    _default_name = "basic_rnn_cell"

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        self._kernel = self._weight("kernel", [depth + self._num_units, self._num_units])
        self._bias = self._weight("bias", [self._num_units], init_ops.zeros_initializer())

    def call(self, inputs, state):
        h = self._activation(nn_ops.bias_add(math_ops.matmul(slicing_ops.concat([inputs, state], 1), self._kernel),
                                             self._bias))
        return h, h


class BasicLSTMCell(RNNCell):
    """The LSTM of TF 1.x's BasicLSTMCell: one product for the four gates (i, j, f, o),
    ``c = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)``, ``h = tanh(c) * sigmoid(o)``."""

    _default_name = "basic_lstm_cell"

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, reuse=reuse, **kwargs)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or tanh

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        self._kernel = self._weight("kernel", [depth + self._num_units, 4 * self._num_units])
        self._bias = self._weight("bias", [4 * self._num_units], init_ops.zeros_initializer())

    def _split_state(self, state):
        if self._state_is_tuple:
            return state
        return slicing_ops.split(state, 2, axis=1)

    def call(self, inputs, state):
        c, h = self._split_state(state)
        gates = nn_ops.bias_add(math_ops.matmul(slicing_ops.concat([inputs, h], 1), self._kernel), self._bias)
        i, j, f, o = slicing_ops.split(gates, 4, axis=1)
        new_c = c * sigmoid(f + self._forget_bias) + sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * sigmoid(o)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else slicing_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(_ProjectedSizes, BasicLSTMCell):
    """TF 1.x's LSTMCell: BasicLSTMCell's equations plus optional peepholes (``w_f_diag``,
    ``w_i_diag``, ``w_o_diag``), a clip of the cell state, and a projection of the output."""

    _default_name = "lstm_cell"

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(num_units, forget_bias=forget_bias, state_is_tuple=state_is_tuple, activation=activation,
                         reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        h_depth = self._num_proj or self._num_units
        self._kernel = self._weight("kernel", [depth + h_depth, 4 * self._num_units], self._initializer)
        self._bias = self._weight("bias", [4 * self._num_units], init_ops.zeros_initializer())
        if self._use_peepholes:
            self._w_f_diag = self._weight("w_f_diag", [self._num_units], self._initializer)
            self._w_i_diag = self._weight("w_i_diag", [self._num_units], self._initializer)
            self._w_o_diag = self._weight("w_o_diag", [self._num_units], self._initializer)
        if self._num_proj is not None:
            with vs.variable_scope("projection"):
                self._proj_kernel = self._weight("kernel", [self._num_units, self._num_proj], self._initializer)

    def _split_state(self, state):
        if self._state_is_tuple:
            return state
        return (slicing_ops.slice(state, [0, 0], [-1, self._num_units]),
                slicing_ops.slice(state, [0, self._num_units], [-1, -1]))

    def call(self, inputs, state):
        c, h = self._split_state(state)
        gates = nn_ops.bias_add(math_ops.matmul(slicing_ops.concat([inputs, h], 1), self._kernel), self._bias)
        i, j, f, o = slicing_ops.split(gates, 4, axis=1)
        if self._use_peepholes:
            new_c = (c * sigmoid(f + self._forget_bias + self._w_f_diag * c)
                     + sigmoid(i + self._w_i_diag * c) * self._activation(j))
        else:
            new_c = c * sigmoid(f + self._forget_bias) + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            new_c = math_ops.clip_by_value(new_c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            new_h = sigmoid(o + self._w_o_diag * new_c) * self._activation(new_c)
        else:
            new_h = sigmoid(o) * self._activation(new_c)
        if self._num_proj is not None:
            new_h = math_ops.matmul(new_h, self._proj_kernel)
            if self._proj_clip is not None:
                new_h = math_ops.clip_by_value(new_h, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else slicing_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class GRUCell(_UnitsCell):
    """TF 1.x's GRUCell: ``r, u = sigmoid(W_g [x, h] + b_g)`` (b_g starts at 1),
    ``c = tanh(W_c [x, r * h] + b_c)``, ``h = u * h + (1 - u) * c``."""

    _default_name = "gru_cell"

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None, **kwargs):
        super().__init__(num_units, activation=activation, reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    def build(self, inputs_shape):
        depth = _input_depth(inputs_shape, type(self).__name__)
        n = self._num_units
        with vs.variable_scope("gates"):
            self._gate_kernel = self._weight("kernel", [depth + n, 2 * n], self._kernel_initializer)
            self._gate_bias = self._weight("bias", [2 * n],
                                           self._bias_initializer or init_ops.constant_initializer(1.0))
        with vs.variable_scope("candidate"):
            self._candidate_kernel = self._weight("kernel", [depth + n, n], self._kernel_initializer)
            self._candidate_bias = self._weight("bias", [n], self._bias_initializer or init_ops.zeros_initializer())

    def call(self, inputs, state):
        value = sigmoid(nn_ops.bias_add(math_ops.matmul(slicing_ops.concat([inputs, state], 1), self._gate_kernel),
                                        self._gate_bias))
        r, u = slicing_ops.split(value, 2, axis=1)
        candidate = self._activation(nn_ops.bias_add(
            math_ops.matmul(slicing_ops.concat([inputs, r * state], 1), self._candidate_kernel), self._candidate_bias))
        new_h = u * state + (1 - u) * candidate
        return new_h, new_h


class MultiRNNCell(RNNCell):
    """Cells stacked: each one's output is the next one's input; the state is a tuple of theirs."""

    _default_name = "multi_rnn_cell"

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple

    @property
    def state_size(self):
        sizes = tuple(cell.state_size for cell in self._cells)
        return sizes if self._state_is_tuple else sum(sum(_size_list(s)) for s in sizes)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        if self._state_is_tuple:
            return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
        return super().zero_state(batch_size, dtype)

    def call(self, inputs, state):
        if self._state_is_tuple and (not nest.is_nested(state) or len(state) != len(self._cells)):
            raise ValueError(f"Expected state to be a tuple of length {len(self._cells)}, but received: {state}")
        out, new_states, start = inputs, [], 0
        for k, cell in enumerate(self._cells):
            with vs.variable_scope(f"cell_{k}"):
                if self._state_is_tuple:
                    cell_state = state[k]
                else:
                    size = sum(_size_list(cell.state_size))
                    cell_state = slicing_ops.slice(state, [0, start], [-1, size])
                    start += size
                out, new_state = cell(out, cell_state)
                new_states.append(new_state)
        if self._state_is_tuple:
            return out, tuple(new_states)
        return out, slicing_ops.concat(new_states, 1)

    @property
    def variables(self) -> list:
        return [v for cell in self._cells for v in cell.variables]


class _Wrapper(RNNCell):
    """A cell around another: the same state, output and variables."""

    def __init__(self, cell):
        super().__init__()
        self._cell = cell

    @property
    def state_size(self):
        return self._cell.state_size

    @property
    def output_size(self):
        return self._cell.output_size

    def zero_state(self, batch_size, dtype):
        return self._cell.zero_state(batch_size, dtype)

    @property
    def variables(self) -> list:
        return self._cell.variables


class DropoutWrapper(_Wrapper):
    """Dropout on a cell's inputs, outputs and (``state_keep_prob``) new state, with a new
    mask at every call (``variational_recurrent=False``, TF 1.x's default)."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        super().__init__(cell)
        if variational_recurrent:
            raise NotImplementedError("DropoutWrapper(variational_recurrent=True) is not supported in distflow")
        self._input_keep_prob = input_keep_prob
        self._output_keep_prob = output_keep_prob
        self._state_keep_prob = state_keep_prob
        self._seed = seed

    @property
    def wrapped_cell(self):
        return self._cell

    def _dropout(self, values, keep_prob):
        if isinstance(keep_prob, (int, float)) and keep_prob == 1.0:
            return values
        return nest.map_structure(lambda v: nn_ops.dropout(v, keep_prob=keep_prob, seed=self._seed), values)

    def __call__(self, inputs, state, scope=None):
        inputs = self._dropout(inputs, self._input_keep_prob)
        output, new_state = self._cell(inputs, state, scope=scope)
        if not (isinstance(self._state_keep_prob, (int, float)) and self._state_keep_prob == 1.0):
            # (as TF 1.x by default: an LSTM's memory c is left alone, its output h dropped)
            if isinstance(new_state, LSTMStateTuple):
                new_state = LSTMStateTuple(new_state.c, self._dropout(new_state.h, self._state_keep_prob))
            else:
                new_state = self._dropout(new_state, self._state_keep_prob)
        return self._dropout(output, self._output_keep_prob), new_state


class DeviceWrapper(_Wrapper):
    """A cell whose ops (and zero state) are placed on ``device``: a layer of a stacked RNN per
    GPU, as TF 1.x's NMT tutorial put them."""

    def __init__(self, cell, device):
        super().__init__(cell)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with ops.device(self._device):
            return self._cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        with ops.device(self._device):
            return self._cell(inputs, state, scope=scope)


class ResidualWrapper(_Wrapper):
    """A cell whose output is its input plus the wrapped cell's output."""

    def __init__(self, cell, residual_fn=None):
        super().__init__(cell)
        self._residual_fn = residual_fn or (lambda i, o: nest.map_structure(math_ops.add, i, o))

    def __call__(self, inputs, state, scope=None):
        output, new_state = self._cell(inputs, state, scope=scope)
        return self._residual_fn(inputs, output), new_state
