"""Reversible residual blocks: ``tf.contrib.layers.rev_block`` and ``RevBlock``.

A reversible layer maps a pair (x1, x2) to

    y1 = x1 + f(x2),    y2 = x2 + g(y1)

and its inputs can be computed back from its outputs:

    x2 = y2 - g(y1),    x1 = y1 - f(x2).

So a block of such layers needs to keep no activation for its gradient. Its gradient
starts from the block's outputs and, from the top layer down, computes each layer's
inputs back, calls g and f again on them and differentiates those calls: the memory of
one layer's activations whatever the number of layers, for one more forward pass.

Each layer's f and g get variables of their own, under ``<block>/revlayer_<i>/f`` and
``.../g`` (TF's names). f and g must keep the shape of what they are given, and take
whatever else they read as side inputs (``f_side_input``: f is then called as
``f(x, side_inputs)``), which get their gradients; a tensor they close over gets none.
"""

from __future__ import annotations

import contextlib

from ..framework import ops
from ..ops import array_ops, math_ops
from ..ops import variable_scope as vs
from ..ops.gradients_impl import custom_gradient, gradients, variables_read


def _per_layer(fns, num_layers: int, what: str) -> list:
    if isinstance(fns, (list, tuple)):
        if len(fns) != num_layers:
            raise ValueError(f"RevBlock: {what} is a list of {len(fns)} functions; it needs one per layer "
                             f"(num_layers={num_layers})")
        return list(fns)
    return [fns] * num_layers


def _plus(a, b):
    """a + b where None stands for zero."""
    if a is None:
        return b
    return a if b is None else math_ops.add(a, b)


class RevBlock:
    """A block of ``num_layers`` reversible residual layers (see the module's text).
    ``forward(x1, x2)`` and ``backward(y1, y2)`` (its inverse) make the block's variables
    on their first call and use them on every later one, from any scope. With
    ``use_efficient_backprop`` (the default), the gradient of ``forward`` recomputes the
    activations from the outputs instead of keeping them."""

    def __init__(self, f, g, num_layers=1, f_side_input=None, g_side_input=None, use_efficient_backprop=True,
                 name="revblock", _reuse=None, **kwargs):
        del kwargs  # (a Layer's trainable, dtype: variables are f's and g's own)
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"RevBlock: num_layers must be a positive int, got {num_layers!r}")
        self.f, self.g = _per_layer(f, num_layers, "f"), _per_layer(g, num_layers, "g")
        self.num_layers = num_layers
        self.f_side_input = list(f_side_input or [])
        self.g_side_input = list(g_side_input or [])
        self._use_efficient_backprop = use_efficient_backprop
        self.name, self._reuse, self._scope = name, _reuse, None
        self._variables: list = []

    # -- scopes and variables -------------------------------------------------------------
    @contextlib.contextmanager
    def _block_scope(self):
        """The block's variable scope: made on the first call, entered again (reusing) after."""
        if self._scope is None:
            with vs.variable_scope(None, default_name=self.name, reuse=self._reuse) as scope:
                self._scope = scope
                yield
        else:
            with vs.variable_scope(self._scope, reuse=True):
                yield

    def _call(self, fns, i: int, part: str, x, side):
        with vs.variable_scope(f"revlayer_{i}/{part}"):
            graph = ops.get_default_graph()
            since = graph.version
            out = fns[i](x, side) if side else fns[i](x)
            for v in variables_read(graph, since, ()):
                if all(v is not known for known in self._variables):
                    self._variables.append(v)
            return out

    @property
    def variables(self) -> list:
        """The variables of the block's f and g, once it has been called."""
        return list(self._variables)

    trainable_variables = trainable_weights = weights = variables

    # -- the passes ---------------------------------------------------------------------
    def __call__(self, inputs, forward=True):
        a, b = inputs
        return self.forward(a, b) if forward else self.backward(a, b)

    apply = __call__

    def _layers(self, x1, x2, f_side, g_side):
        for i in range(self.num_layers):
            x1 = math_ops.add(x1, self._call(self.f, i, "f", x2, f_side))
            x2 = math_ops.add(x2, self._call(self.g, i, "g", x1, g_side))
        return x1, x2

    def forward(self, x1, x2):
        """The block's outputs (y1, y2) for inputs (x1, x2)."""
        x1, x2 = ops.convert_to_tensor(x1), ops.convert_to_tensor(x2)
        with self._block_scope():
            if not self._use_efficient_backprop:
                return self._layers(x1, x2, self.f_side_input, self.g_side_input)
            return self._efficient_forward(x1, x2)

    def backward(self, y1, y2):
        """The inverse: the inputs (x1, x2) that give outputs (y1, y2)."""
        y1, y2 = ops.convert_to_tensor(y1), ops.convert_to_tensor(y2)
        with self._block_scope():
            for i in reversed(range(self.num_layers)):
                y2 = math_ops.subtract(y2, self._call(self.g, i, "g", y1, self.g_side_input))
                y1 = math_ops.subtract(y1, self._call(self.f, i, "f", y2, self.f_side_input))
            return y1, y2

    def _efficient_forward(self, x1, x2):
        n_f = len(self.f_side_input)

        @custom_gradient
        def block(x1, x2, *side):
            y1, y2 = self._layers(x1, x2, list(side[:n_f]), list(side[n_f:]))

            def grad(dy1, dy2, variables=None):
                with vs.variable_scope(self._scope, reuse=True):
                    return self._gradients(y1, y2, dy1, dy2, list(side[:n_f]), list(side[n_f:]), variables or [])

            return (y1, y2), grad

        return block(x1, x2, *self.f_side_input, *self.g_side_input)

    def _called_again(self, fns, i: int, part: str, x, side, dy):
        """Layer ``i``'s ``part`` (f or g) called again on ``x`` and differentiated from
        ``dy``: its value, the gradients of ``x`` and of each side input, and the variables
        it read, each with its gradient."""
        graph = ops.get_default_graph()
        since = graph.version
        out = self._call(fns, i, part, x, side)
        read = variables_read(graph, since, ())
        grads = gradients(out, [x, *side, *read], grad_ys=dy)
        return out, grads[0], grads[1:len(side) + 1], list(zip(read, grads[len(side) + 1:]))

    def _gradients(self, y1, y2, dy1, dy2, f_side, g_side, variables):
        """The gradients of (x1, x2, the side inputs) and of ``variables``, from the top layer
        down, each layer's inputs computed back from its outputs."""
        side_grads = [None] * (len(f_side) + len(g_side))
        var_grads: dict = {}
        # Each layer is differentiated from the values computed back, not through them.
        with ops.control_dependencies([dy1, dy2]):
            y1, y2 = array_ops.stop_gradient(y1), array_ops.stop_gradient(y2)
        for i in reversed(range(self.num_layers)):
            # y2 = x2 + g(y1): g's gradients, and y1's through g
            gy1, dy1_of_g, g_side_grads, g_var_grads = self._called_again(self.g, i, "g", y1, g_side, dy2)
            dy1 = _plus(dy1, dy1_of_g)
            x2 = array_ops.stop_gradient(math_ops.subtract(y2, gy1))
            # y1 = x1 + f(x2): f's gradients, and x2's through f
            fx2, dx2_of_f, f_side_grads, f_var_grads = self._called_again(self.f, i, "f", x2, f_side, dy1)
            dy2 = _plus(dy2, dx2_of_f)
            x1 = array_ops.stop_gradient(math_ops.subtract(y1, fx2))
            for k, grad in enumerate(f_side_grads + g_side_grads):
                side_grads[k] = _plus(side_grads[k], grad)
            for v, grad in f_var_grads + g_var_grads:
                var_grads[id(v)] = _plus(var_grads.get(id(v)), grad)
            y1, y2 = x1, x2
        return [dy1, dy2, *side_grads], [var_grads.get(id(v)) for v in variables]


def rev_block(x1, x2, f, g, num_layers=1, f_side_input=None, g_side_input=None, is_training=True):
    """``num_layers`` reversible residual layers over (x1, x2): the block's outputs (y1, y2).
    ``is_training`` recomputes the activations for the gradient instead of keeping them;
    False runs the layers plainly (the same variables, from a reusing scope)."""
    block = RevBlock(f, g, num_layers=num_layers, f_side_input=f_side_input, g_side_input=g_side_input,
                     use_efficient_backprop=is_training, _reuse=vs.get_variable_scope().reuse)
    return block.forward(x1, x2)
