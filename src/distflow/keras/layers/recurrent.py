"""Recurrent layers: SimpleRNN, LSTM and GRU (Keras's weight layout and defaults as TF 1.15's
``tf.keras.layers``), the generic ``RNN`` over a cell or a stack of them (``StackedRNNCells``),
``Bidirectional`` and ``TimeDistributed``.

The loop is one ``while_loop`` over the time steps, so sequences of unknown length run too.
A mask (from ``Embedding(mask_zero=True)``) keeps the state and the output of a masked step
as they were, wherever the padding is.
"""

from __future__ import annotations

import numpy as np

from ... import (TensorArray, Variable, assign, cast, concat, expand_dims, identity, matmul, ones_like, reshape,
                 reverse, stack, transpose, while_loop, zeros, nn)
from ... import shape as shape_of
from ...framework import ops
from ...framework.tensor_shape import TensorShape
from .. import activations, backend as K
from ..engine.base_layer import Layer, deserialize, history, snake_case


def _weight_args(cell, kind: str) -> dict:
    return {"initializer": getattr(cell, f"{kind}_initializer"), "regularizer": getattr(cell, f"{kind}_regularizer"),
            "constraint": getattr(cell, f"{kind}_constraint")}


class _Cell(Layer):
    """A cell: ``step(inputs, states, dropout masks) -> (output, states)`` for one time step."""

    gates = 1

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self._set_weight_options(
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint)
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))

    @property
    def state_size(self) -> list:
        return [self.units]

    def cell_config(self) -> dict:
        """The cell's arguments, as its config and its RNN layer's config hold them."""
        config = {"units": self.units, **self._options_config(
            "activation", "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
            "bias_initializer", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
            "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout")}
        if isinstance(self, LSTMCell):
            config.update(unit_forget_bias=self.unit_forget_bias, implementation=1)
        elif isinstance(self, GRUCell):
            config.update(reset_after=self.reset_after, implementation=1)
        else:
            config.pop("recurrent_activation")
        return config

    def get_config(self):
        return {**super().get_config(), **self.cell_config()}

    def make_weights(self, owner: Layer, input_dim: int) -> None:
        n = self.gates * self.units
        self.kernel = owner.add_weight("kernel", (input_dim, n), **_weight_args(self, "kernel"))
        self.recurrent_kernel = owner.add_weight("recurrent_kernel", (self.units, n), **_weight_args(self, "recurrent"))
        self.bias = None
        if self.use_bias:
            self.bias = owner.add_weight("bias", self._bias_shape(n), **self._bias_args())

    def _bias_shape(self, n: int) -> tuple:
        """The bias's shape for ``n`` gate units (one bias; cells with two say so)."""
        return (n,)

    def _bias_args(self) -> dict:
        return _weight_args(self, "bias")

    def project(self, x, x_mask=None):
        """``x @ kernel + bias`` for every time step at once (``x``: [time, batch, features])."""
        if x_mask is not None:
            x = x * x_mask
        dynamic = shape_of(x)
        flat = reshape(x, stack([-1, dynamic[2]]))
        out = matmul(flat, self.kernel)
        if self.use_bias:
            out = out + self._input_bias()
        return reshape(out, stack([dynamic[0], dynamic[1], self.gates * self.units]))

    def _input_bias(self):
        """The bias added to the input's product (where a cell has two, that one)."""
        return self.bias

    @property
    def projected_size(self) -> int:
        """The width of ``project``'s result (what ``step`` takes for one time step)."""
        return self.gates * self.units

    def project_step(self, x):
        """``x @ kernel + bias`` for one time step (``x``: [batch, features]): a stacked
        cell's input, the cell below's output, is known only as the loop runs."""
        out = matmul(x, self.kernel)
        return out + self._input_bias() if self.use_bias else out

    def prepare(self) -> None:
        """What every step reads, made once before the loop."""


class SimpleRNNCell(_Cell):
    def __init__(self, units, activation="tanh", implementation=1, **kwargs):
        super().__init__(units, activation=activation, **kwargs)  # (one implementation: as Keras, it is ignored)

    def step(self, xz, states, h_mask=None):
        h = states[0] if h_mask is None else states[0] * h_mask
        h = self.activation(xz + matmul(h, self.recurrent_kernel))
        return h, [h]


class LSTMCell(_Cell):
    """Gates in Keras's order: input, forget, cell, output; ``unit_forget_bias`` starts the
    forget gate's bias at one."""

    gates = 4

    def __init__(self, units, unit_forget_bias=True, implementation=1, **kwargs):
        super().__init__(units, **kwargs)
        self.unit_forget_bias = unit_forget_bias

    @property
    def state_size(self) -> list:
        return [self.units, self.units]

    def _bias_args(self) -> dict:
        args = _weight_args(self, "bias")
        if self.unit_forget_bias:
            base, u = self.bias_initializer, self.units

            def initializer(shape, dtype=None, partition_info=None):
                return concat([base((u,), dtype=dtype), K.ones((u,), dtype=dtype), base((2 * u,), dtype=dtype)], 0)

            args["initializer"] = initializer
        return args

    def step(self, xz, states, h_mask=None):
        h, c = states
        u = self.units
        z = xz + matmul(h if h_mask is None else h * h_mask, self.recurrent_kernel)
        i = self.recurrent_activation(z[:, :u])
        f = self.recurrent_activation(z[:, u:2 * u])
        c = f * c + i * self.activation(z[:, 2 * u:3 * u])
        h = self.recurrent_activation(z[:, 3 * u:]) * self.activation(c)
        return h, [h, c]


class PeepholeLSTMCell(LSTMCell):
    """``tf.keras.experimental.PeepholeLSTMCell``: an LSTM cell whose gates also see the cell
    state (Gers and Schmidhuber): the input and forget gates the state before the step, the
    output gate the state after it, each through a vector of weights of its own."""

    def make_weights(self, owner: Layer, input_dim: int) -> None:
        super().make_weights(owner, input_dim)
        args = _weight_args(self, "kernel")
        self.input_gate_peephole_weights, self.forget_gate_peephole_weights, self.output_gate_peephole_weights = (
            owner.add_weight(f"{gate}_gate_peephole_weights", (self.units,), **args)
            for gate in ("input", "forget", "output"))

    def step(self, xz, states, h_mask=None):
        h, c = states
        u = self.units
        z = xz + matmul(h if h_mask is None else h * h_mask, self.recurrent_kernel)
        i = self.recurrent_activation(z[:, :u] + self.input_gate_peephole_weights * c)
        f = self.recurrent_activation(z[:, u:2 * u] + self.forget_gate_peephole_weights * c)
        c = f * c + i * self.activation(z[:, 2 * u:3 * u])
        h = self.recurrent_activation(z[:, 3 * u:] + self.output_gate_peephole_weights * c) * self.activation(c)
        return h, [h, c]


class GRUCell(_Cell):
    """Gates in Keras's order: update, reset, candidate. With ``reset_after=False`` (TF 1.x's
    default) the reset gate applies before the recurrent product; with ``reset_after=True``
    (cuDNN's form) after it, and the recurrent product has a bias of its own: the bias is
    [2, 3 * units], the input's row and the recurrent one's."""

    gates = 3

    def __init__(self, units, reset_after=False, implementation=1, **kwargs):
        super().__init__(units, **kwargs)
        self.reset_after = bool(reset_after)

    def _bias_shape(self, n: int) -> tuple:
        return (2, n) if self.reset_after else (n,)

    def _input_bias(self):
        return self.bias[0] if self.reset_after else self.bias

    def _recurrent_bias(self):
        return self.bias[1]

    def prepare(self) -> None:
        u = self.units
        self._gates_kernel = self.recurrent_kernel[:, :2 * u]
        self._candidate_kernel = self.recurrent_kernel[:, 2 * u:]

    def step(self, xz, states, h_mask=None):
        h = states[0]
        u = self.units
        hm = h if h_mask is None else h * h_mask
        if self.reset_after:
            hz = matmul(hm, self.recurrent_kernel)
            if self.use_bias:
                hz = hz + self._recurrent_bias()
            z = self.recurrent_activation(xz[:, :u] + hz[:, :u])
            r = self.recurrent_activation(xz[:, u:2 * u] + hz[:, u:2 * u])
            candidate = self.activation(xz[:, 2 * u:] + r * hz[:, 2 * u:])
        else:
            hz = matmul(hm, self._gates_kernel)
            z = self.recurrent_activation(xz[:, :u] + hz[:, :u])
            r = self.recurrent_activation(xz[:, u:2 * u] + hz[:, u:])
            candidate = self.activation(xz[:, 2 * u:] + matmul(r * hm, self._candidate_kernel))
        h = z * h + (1.0 - z) * candidate
        return h, [h]


class StackedRNNCells(Layer):
    """Cells run one above the other at each time step: each one's output is the input of
    the next, and the last one's is the stack's (``RNN([cell, cell])`` makes one). Weights
    are under each cell's name (``rnn/lstm_cell/kernel``, ``rnn/lstm_cell_1/kernel``), as
    Keras names them; cells written by hand may be stacked too. Dropout inside the stack is
    not supported (an error says so)."""

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        self.cells = list(cells)
        if not self.cells:
            raise ValueError("StackedRNNCells needs a list of recurrent cells, got none")
        for cell in self.cells:
            if getattr(cell, "dropout", 0) or getattr(cell, "recurrent_dropout", 0):
                raise NotImplementedError(f"StackedRNNCells: {cell.name} has dropout={cell.dropout}, "
                                          f"recurrent_dropout={cell.recurrent_dropout}; distflow's stacked cells take "
                                          "none (stack recurrent layers with return_sequences=True instead)")
        self._steps = [cell if isinstance(cell, _Cell) else _UserCell(cell) for cell in self.cells]
        self.dropout = self.recurrent_dropout = 0.0

    def _tracked_layers(self) -> list:
        return [cell for cell in self.cells if isinstance(cell, Layer)]

    @property
    def units(self) -> int:
        return self._steps[-1].units

    @property
    def state_size(self) -> list:
        return [size for cell in self._steps for size in cell.state_size]

    @property
    def projected_size(self) -> int:
        return self._steps[0].projected_size

    def make_weights(self, owner: Layer, input_dim: int) -> None:
        # (each cell's weights its own, so that the layer lists them cell by cell, as Keras)
        for cell, steps in zip(self.cells, self._steps):
            with ops.name_scope(getattr(cell, "name", None) or snake_case(type(cell).__name__)):
                steps.make_weights(cell, input_dim)
            input_dim = steps.units

    def prepare(self) -> None:
        for cell in self._steps:
            cell.prepare()

    def project(self, x, x_mask=None):
        return self._steps[0].project(x, x_mask)

    def step(self, xz, states, h_mask=None):
        out, new_states, at = None, [], 0
        for i, cell in enumerate(self._steps):
            n = len(cell.state_size)
            given = xz if i == 0 else cell.project_step(out) if isinstance(cell, _Cell) else out
            out, cell_states = cell.step(given, states[at:at + n])
            new_states += cell_states
            at += n
        return out, new_states

    def get_config(self):
        return {**super().get_config(), "cells": [_cell_spec(cell) for cell in self.cells]}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cells = [deserialize(spec, custom_objects) for spec in config.pop("cells")]
        return cls(cells, **config)


def _cell_spec(cell) -> dict:
    """``{"class_name", "config"}`` of a cell; one written by hand needs a get_config (and, to be
    loaded, its class in custom_objects)."""
    if not hasattr(cell, "get_config"):
        raise NotImplementedError(f"the recurrent cell {type(cell).__name__} has no get_config, so the config of an "
                                  "RNN layer over it cannot be written: give it one, or save the weights alone "
                                  "(save_weights)")
    return {"class_name": type(cell).__name__, "config": cell.get_config()}


class AbstractRNNCell(Layer):
    """The base of a recurrent cell written by hand: ``state_size``, ``output_size`` and
    ``call(inputs, states) -> (output, new_states)`` for one time step."""

    @property
    def state_size(self):
        raise NotImplementedError("an RNN cell defines state_size")

    @property
    def output_size(self):
        raise NotImplementedError("an RNN cell defines output_size")

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        return [zeros(stack([batch_size, size]), dtype=dtype) for size in _sizes(self.state_size)]


def _sizes(state_size) -> list:
    """A cell's ``state_size`` (an int, or a list or tuple of them) as a list of ints."""
    if isinstance(state_size, (list, tuple)):
        return [int(TensorShape(s)[-1].value if not isinstance(s, int) else s) for s in state_size]
    return [int(state_size)]


class _UserCell:
    """A cell written by hand (any layer with ``state_size`` and ``call(inputs, states)``),
    driven as RNN drives its own cells: no projection before the loop, ``call`` at each step.
    Its weights are its own, built under the RNN layer's name (``rnn/kernel``, as TF 1.15)."""

    dropout = recurrent_dropout = 0.0

    def __init__(self, cell):
        if not hasattr(cell, "state_size") or not callable(getattr(cell, "call", None)):
            raise ValueError(f"RNN needs a cell with state_size and call(inputs, states), got {cell!r}")
        self.cell = cell
        self.projected_size = None
        self.constants = None  # (the call's ``constants``, passed to the cell at each step)
        self.constant_shapes = None

    @property
    def state_size(self) -> list:
        return _sizes(self.cell.state_size)

    @property
    def units(self) -> int:
        size = getattr(self.cell, "output_size", None)
        try:
            return int(size) if size is not None else self.state_size[0]
        except NotImplementedError:
            return self.state_size[0]

    def make_weights(self, owner: Layer, input_dim: int) -> None:
        self.projected_size = input_dim
        if not getattr(self.cell, "built", False):
            shape = TensorShape([None, input_dim])
            if callable(getattr(self.cell, "build", None)):  # (a cell that is not a Layer may have none)
                self.cell.build([shape] + self.constant_shapes if self.constant_shapes else shape)
            self.cell.built = True

    def prepare(self) -> None:
        pass

    def project(self, x, x_mask=None):
        return x

    def step(self, x, states, h_mask=None):
        if self.constants is not None:
            out, new_states = self.cell.call(x, states, constants=self.constants)
        else:
            out, new_states = self.cell.call(x, states)  # (a list, as Keras passes its cells)
        return out, list(new_states) if isinstance(new_states, (list, tuple)) else [new_states]


def _states_as_inputs(inputs, kwargs: dict):
    """``initial_state`` given as the outputs of other Keras layers (an encoder's final states
    given to a decoder) joins the inputs, ``[inputs, *states]``, as Keras joins them: the call
    then connects those layers into the model, which trains their weights too."""
    states = kwargs.get("initial_state")
    if states is None or isinstance(inputs, (list, tuple)):
        return inputs, kwargs
    states = list(states) if isinstance(states, (list, tuple)) else [states]
    if not states or not all(history(s) is not None for s in states):
        return inputs, kwargs
    kwargs = {k: v for k, v in kwargs.items() if k != "initial_state"}
    return [inputs] + states, kwargs


class RNN(Layer):
    """Runs ``cell`` over the time axis of ``[batch, time, features]`` inputs (a list of
    cells: ``StackedRNNCells`` of them)."""

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 unroll=False, time_major=False, **kwargs):
        super().__init__(**kwargs)
        if time_major:
            raise NotImplementedError("time_major recurrent layers are not supported")
        self.stateful = bool(stateful)
        self.states = None  # (stateful: a variable per state, [batch, size], that each call reads and sets)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        self.cell = cell
        # what the loop drives: distflow's own cells themselves, a cell written by hand adapted
        self._steps = cell if isinstance(cell, (_Cell, StackedRNNCells)) else _UserCell(cell)
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards
        self.supports_masking = True

    @property
    def units(self) -> int:
        return self._steps.units

    def __call__(self, inputs, *args, **kwargs):
        constants = kwargs.get("constants")
        if constants is not None:  # (Keras's cells with constants: a cell written by hand, built with their shapes)
            if not isinstance(self._steps, _UserCell):
                raise ValueError(f"{self.name}: constants are passed to a cell written by hand that takes them "
                                 f"(call(inputs, states, constants)); {type(self.cell).__name__} takes none")
            constants = [ops.convert_to_tensor(c) for c in (constants if isinstance(constants, (list, tuple))
                                                            else [constants])]
            kwargs["constants"] = constants
            if not self.built:
                self._steps.constant_shapes = [c.shape for c in constants]
        inputs, kwargs = _states_as_inputs(inputs, kwargs)
        return super().__call__(inputs, *args, **kwargs)

    def _tracked_layers(self) -> list:
        tracked = isinstance(self._steps, (_UserCell, StackedRNNCells)) and isinstance(self.cell, Layer)
        return [self.cell] if tracked else []  # (a cell that is not a Layer has no weights or losses of its own)

    def build(self, input_shape):
        shape = TensorShape(input_shape[0] if isinstance(input_shape, list) else input_shape)
        if shape.ndims != 3 or shape[-1].value is None:
            raise ValueError(f"Input 0 of layer {self.name} is incompatible with the layer: expected ndim=3 with a "
                             f"defined last dimension, found shape {shape}")
        self._steps.make_weights(self, shape[-1].value)
        if self.stateful:
            batch = shape[0].value
            if batch is None:
                raise ValueError(f"{self.name}: a stateful RNN needs to know its batch size: give the first layer of "
                                 "a Sequential model a `batch_input_shape`, or the Input of a functional model a "
                                 "`batch_shape`")
            with ops.name_scope(None), ops.name_scope(f"{self.name}_states"):
                self.states = [Variable(np.zeros((batch, size), self.dtype), trainable=False, name=f"state_{i}")
                               for i, size in enumerate(self._steps.state_size)]
        self.built = True

    def reset_states(self, states=None) -> None:
        """Sets a stateful layer's states to zeros, or to ``states`` (one array per state)."""
        if not self.stateful:
            raise AttributeError(f"Layer {self.name} must be stateful to reset its states.")
        if states is None:
            values = [np.zeros(v.shape.as_list(), self.dtype) for v in self.states]
        else:
            values = [np.asarray(s) for s in (states if isinstance(states, (list, tuple)) else [states])]
            if len(values) != len(self.states):
                raise ValueError(f"Layer {self.name} expects {len(self.states)} states, but it received "
                                 f"{len(values)} state values")
            for v, value in zip(self.states, values):
                if tuple(v.shape.as_list()) != value.shape:
                    raise ValueError(f"State of layer {self.name} should have shape {tuple(v.shape.as_list())}, "
                                     f"found shape {value.shape}")
        K.batch_set_value(list(zip(self.states, values)))

    def _dropout_mask(self, like, rate, training):
        if not rate:
            return None
        ones = ones_like(like)
        return K.in_train_phase(lambda: nn.dropout(ones, rate=rate), lambda: ones, training)

    def call(self, inputs, mask=None, training=None, initial_state=None, constants=None):
        if isinstance(inputs, (list, tuple)):
            inputs, initial_state = inputs[0], list(inputs[1:]) or initial_state
        if isinstance(mask, (list, tuple)):  # (the sequence's mask; the states have none)
            mask = mask[0]
        x = transpose(inputs, [1, 0, 2])  # time-major
        if self.go_backwards:
            x = reverse(x, [0])
        steps, batch = shape_of(x)[0], shape_of(x)[1]
        cell = self._steps
        # (a stateful layer probed in a scratch graph for its output shape keeps its states as they are)
        stateful = self.stateful and self.states is not None and self.states[0].graph is ops.get_default_graph()
        if initial_state is not None:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        elif stateful:  # (where the last call left them)
            states = [identity(v) for v in self.states]
        else:
            states = [zeros(stack([batch, size]), dtype=inputs.dtype) for size in cell.state_size]
        x_mask = self._dropout_mask(x[0], cell.dropout, training)
        h_mask = self._dropout_mask(states[0], cell.recurrent_dropout, training)
        if constants is not None:
            cell.constants = list(constants)
        cell.prepare()
        projected = cell.project(x, x_mask)
        xs = TensorArray(x.dtype, size=steps).unstack(projected)
        masks = None
        if mask is not None:
            m = transpose(cast(mask, inputs.dtype), [1, 0])
            masks = TensorArray(inputs.dtype, size=steps).unstack(reverse(m, [0]) if self.go_backwards else m)
        outputs = TensorArray(inputs.dtype, size=steps)
        last = zeros(stack([batch, cell.units]), dtype=inputs.dtype)

        def body(t, outputs, last, *states):
            step_in = xs.read(t)
            step_in.set_shape(TensorShape([x.shape[1].value, cell.projected_size]))
            out, new_states = cell.step(step_in, list(states), h_mask)
            if masks is not None:
                keep = expand_dims(masks.read(t), 1)
                out = keep * out + (1.0 - keep) * last
                new_states = [keep * n + (1.0 - keep) * s for n, s in zip(new_states, states)]
            return (t + 1, outputs.write(t, out), out) + tuple(new_states)

        with ops.name_scope("while"):
            result = while_loop(lambda t, *_: t < steps, body,
                                [ops.convert_to_tensor(0), outputs, last] + states)
        final, finals = result[2], list(result[3:])
        final.set_shape(TensorShape([inputs.shape[0].value, cell.units]))
        for s, size in zip(finals, cell.state_size):
            s.set_shape(TensorShape([inputs.shape[0].value, size]))
        if self.return_sequences:
            # (with go_backwards, in the order the steps ran, last input first, as Keras returns it)
            out = transpose(result[1].stack(), [1, 0, 2])
            out.set_shape(TensorShape([inputs.shape[0].value, inputs.shape[1].value, cell.units]))
        else:
            out = final
        if stateful:  # (each run that computes the output leaves the states for the next, predict's too)
            with ops.control_dependencies([assign(v, state) for v, state in zip(self.states, finals)]):
                out, finals = identity(out), [identity(state) for state in finals]
        return [out] + finals if self.return_state else out

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        return mask if self.return_sequences and not self.return_state else None

    def get_config(self):
        """LSTM, GRU and SimpleRNN hold their cell's arguments; an RNN over any other cell holds
        the cell's config, as Keras writes them."""
        config = {**super().get_config(), "return_sequences": self.return_sequences,
                  "return_state": self.return_state, "go_backwards": self.go_backwards, "stateful": self.stateful,
                  "unroll": False}
        if hasattr(self, "_init_kwargs"):
            return {**config, **self.cell.cell_config()}
        return {**config, "cell": _cell_spec(self.cell)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if "cell" in config:
            return cls(deserialize(config.pop("cell"), custom_objects), **config)
        return cls(**config)


def _rnn_class(name: str, cell_class, cell_defaults: dict):
    cell_keys = ("activation", "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
                 "bias_initializer", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
                 "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout",
                 "unit_forget_bias", "implementation", "reset_after")

    def __init__(self, units, **kwargs):
        cell_kwargs = {**cell_defaults, **{k: kwargs.pop(k) for k in list(kwargs) if k in cell_keys}}
        self._init_kwargs = {"units": units, **cell_kwargs, **{k: v for k, v in kwargs.items() if k != "name"}}
        RNN.__init__(self, cell_class(units, **cell_kwargs), **kwargs)

    return type(name, (RNN,), {"__init__": __init__, "__doc__": f"``{cell_class.__name__}`` run over time."})


SimpleRNN = _rnn_class("SimpleRNN", SimpleRNNCell, {})
LSTM = _rnn_class("LSTM", LSTMCell, {})
GRU = _rnn_class("GRU", GRUCell, {})


class _CuDNNLSTMCell(LSTMCell):
    """cuDNN's LSTM: sigmoid gates, and two biases of 4 * units each (the input's and the
    recurrent product's, summed), one weight of 8 * units as Keras's CuDNNLSTM holds it."""

    def __init__(self, units, **kwargs):
        super().__init__(units, activation="tanh", recurrent_activation="sigmoid", **kwargs)

    def _bias_args(self) -> dict:
        args = _weight_args(self, "bias")
        base, u = self.bias_initializer, self.units
        if self.unit_forget_bias:  # (Keras's: the recurrent half's forget gate starts at one)
            def initializer(shape, dtype=None, partition_info=None):
                return concat([base((5 * u,), dtype=dtype), K.ones((u,), dtype=dtype), base((2 * u,), dtype=dtype)], 0)

            args["initializer"] = initializer
        return args

    def _bias_shape(self, n: int) -> tuple:
        return (2 * n,)

    def _input_bias(self):
        n = 4 * self.units
        return self.bias[:n] + self.bias[n:]


class _CuDNNGRUCell(GRUCell):
    """cuDNN's GRU: sigmoid gates, the reset gate after the recurrent product, its two biases
    one weight of 6 * units (GRU(reset_after=True)'s [2, 3 * units], flat)."""

    def __init__(self, units, **kwargs):
        super().__init__(units, activation="tanh", recurrent_activation="sigmoid", reset_after=True, **kwargs)

    def _bias_shape(self, n: int) -> tuple:
        return (2 * n,)

    def _input_bias(self):
        return self.bias[:3 * self.units]

    def _recurrent_bias(self):
        return self.bias[3 * self.units:]


def _cudnn_class(name: str, cell_class, extra: tuple):
    """Keras's CuDNNLSTM or CuDNNGRU: the cell run over time, with only cuDNN's options.
    TensorFlow runs these on a GPU only; distflow's run on any device."""
    options = ("kernel_initializer", "recurrent_initializer", "bias_initializer", "kernel_regularizer",
               "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint",
               "bias_constraint") + extra

    def __init__(self, units, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 **kwargs):
        cell_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in options}
        RNN.__init__(self, cell_class(units, **cell_kwargs), return_sequences=return_sequences,
                     return_state=return_state, go_backwards=go_backwards, stateful=stateful, **kwargs)

    def get_config(self):
        config = Layer.get_config(self)
        config.update(units=self.cell.units, return_sequences=self.return_sequences, return_state=self.return_state,
                      go_backwards=self.go_backwards, stateful=self.stateful, **self.cell._options_config(*options))
        return config

    return type(name, (RNN,), {"__init__": __init__, "get_config": get_config,
                               "__doc__": f"Keras's ``{name}`` (cuDNN's recurrence), on any device."})


CuDNNLSTM = _cudnn_class("CuDNNLSTM", _CuDNNLSTMCell, ("unit_forget_bias",))
CuDNNGRU = _cudnn_class("CuDNNGRU", _CuDNNGRUCell, ())


class Wrapper(Layer):
    """A layer that wraps another (``self.layer``), whose weights are its own."""

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer

    def _tracked_layers(self) -> list:
        return [self.layer]

    def get_config(self):
        return {**super().get_config(), "layer": {"class_name": type(self.layer).__name__,
                                                  "config": self.layer.get_config()}}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        layer = deserialize(config.pop("layer"), custom_objects)
        return cls(layer, **config)


class Bidirectional(Wrapper):
    """A recurrent layer run forwards and (a copy of it) backwards, the outputs merged
    (``concat``, ``sum``, ``mul``, ``ave``, or None for a list)."""

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(f"Invalid merge mode. Merge mode should be one of {{'sum', 'mul', 'ave', 'concat', "
                             f"None}}, got {merge_mode!r}")
        super().__init__(layer, **kwargs)
        args = dict(getattr(layer, "_init_kwargs", {}))
        if not args and backward_layer is None:
            raise ValueError("Bidirectional needs an LSTM, GRU or SimpleRNN layer (or a backward_layer)")
        name = layer.name
        self.forward_layer = layer
        self.forward_layer.name = f"forward_{name}"
        self.backward_layer = backward_layer or type(layer)(
            **{**args, "go_backwards": not layer.go_backwards, "name": f"backward_{name}"})
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = getattr(layer, "return_state", False)
        self.supports_masking = True

    def get_config(self):
        config = super().get_config()
        inner = dict(config["layer"]["config"], name=self.forward_layer.name[len("forward_"):])
        return {**config, "layer": {**config["layer"], "config": inner}, "merge_mode": self.merge_mode}

    def _tracked_layers(self) -> list:
        return [self.forward_layer, self.backward_layer]

    def __call__(self, inputs, *args, **kwargs):
        inputs, kwargs = _states_as_inputs(inputs, kwargs)  # (the forward layer's states, then the backward's)
        return super().__call__(inputs, *args, **kwargs)

    def call(self, inputs, mask=None, training=None, initial_state=None):
        if isinstance(inputs, (list, tuple)):
            inputs, initial_state = inputs[0], list(inputs[1:]) or initial_state
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        kwargs = {"mask": mask} if mask is not None else {}
        forward_kwargs, backward_kwargs = dict(kwargs), dict(kwargs)
        if initial_state is not None:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            if len(states) % 2:
                raise ValueError(f"When passing `initial_state` to a Bidirectional RNN, the state should be a list "
                                 f"containing the states of the underlying RNNs; got {len(states)} states")
            half = len(states) // 2
            forward_kwargs["initial_state"], backward_kwargs["initial_state"] = states[:half], states[half:]
        forward = self.forward_layer(inputs, **forward_kwargs)
        backward = self.backward_layer(inputs, **backward_kwargs)
        states = []
        if self.return_state:  # ([output, *states] of each: the forward states, then the backward ones)
            states = list(forward[1:]) + list(backward[1:])
            forward, backward = forward[0], backward[0]
        if self.return_sequences:
            backward = reverse(backward, [1])
        if self.merge_mode == "concat":
            output = [concat([forward, backward], -1)]
        elif self.merge_mode == "sum":
            output = [forward + backward]
        elif self.merge_mode == "ave":
            output = [(forward + backward) / 2.0]
        elif self.merge_mode == "mul":
            output = [forward * backward]
        else:
            output = [forward, backward]
        return output + states if (self.return_state or self.merge_mode is None) else output[0]

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if not self.return_state and self.merge_mode is not None:
            return output_mask
        outputs = 1 if self.merge_mode is not None else 2
        states = 2 * len(getattr(self.forward_layer, "_steps").state_size) if self.return_state else 0
        return [output_mask] * outputs + [None] * states


class TimeDistributed(Wrapper):
    """Applies ``layer`` to every time step: ``[batch, time, ...]`` in, ``[batch, time, ...]`` out."""

    def __init__(self, layer, **kwargs):
        super().__init__(layer, **kwargs)
        self.supports_masking = True

    def call(self, inputs, training=None, mask=None):
        dynamic = shape_of(inputs)
        inner = reshape(inputs, concat([[-1], dynamic[2:]], 0))
        inner.set_shape(TensorShape([None]).concatenate(inputs.shape[2:]))
        out = self.layer(inner, training=training) if training is not None and self.layer._call_takes("training") \
            else self.layer(inner)
        outer = reshape(out, concat([dynamic[:2], shape_of(out)[1:]], 0))
        outer.set_shape(TensorShape(inputs.shape[:2]).concatenate(out.shape[1:]))
        return outer
