"""``tf.distributions.bijectors``: invertible, differentiable maps y = f(x) with the log
determinants of their Jacobians (TF 1.5's ``Bijector`` base and ``Identity``).

A subclass gives ``_forward`` and ``_inverse`` and one of ``_forward_log_det_jacobian`` or
``_inverse_log_det_jacobian``; the other is the negation of the given one at the mapped
point. ``forward`` and ``inverse`` remember the pairs they made, so that inverting a value
``forward`` returned gives back its own input (no round trip through floating point).
"""

from __future__ import annotations

from .. import convert_to_tensor, name_scope, zeros
from .._namespace import missing
from ..framework import dtypes
from ..framework.tensor_shape import TensorShape


class Bijector:
    """The base of the bijectors (see the module's notes)."""

    def __init__(self, event_ndims=None, graph_parents=None, is_constant_jacobian=False, validate_args=False,
                 dtype=None, name=None):
        self._event_ndims = event_ndims
        self._graph_parents = list(graph_parents or [])
        self._is_constant_jacobian = is_constant_jacobian
        self._validate_args = validate_args
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype)
        self._name = name or type(self).__name__.lower()
        self._from_x: dict = {}  # id(x) -> (x, y), and the reverse: what forward and inverse made
        self._from_y: dict = {}

    event_ndims = property(lambda self: self._event_ndims)
    graph_parents = property(lambda self: list(self._graph_parents))
    is_constant_jacobian = property(lambda self: self._is_constant_jacobian)
    validate_args = property(lambda self: self._validate_args)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    def forward(self, x, name="forward"):
        return self._mapped(x, name, self._from_x, self._forward, forward=True)

    def inverse(self, y, name="inverse"):
        return self._mapped(y, name, self._from_y, self._inverse, forward=False)

    def forward_log_det_jacobian(self, x, name="forward_log_det_jacobian"):
        return self._log_det(x, name, self._forward_log_det_jacobian, self._inverse_log_det_jacobian, self.forward)

    def inverse_log_det_jacobian(self, y, name="inverse_log_det_jacobian"):
        return self._log_det(y, name, self._inverse_log_det_jacobian, self._forward_log_det_jacobian, self.inverse)

    def _mapped(self, value, name, pairs: dict, fn, forward: bool):
        with name_scope(self.name), name_scope(name):
            value = self._checked(value)
            known = pairs.get(id(value))
            if known is not None and known[0] is value:
                return known[1]
            out = fn(value)
            self._remember(*((value, out) if forward else (out, value)))
            return out

    def _log_det(self, value, name, own, other, mapped):
        with name_scope(self.name), name_scope(name):
            value = self._checked(value)
            try:
                return own(value)
            except NotImplementedError:
                return -other(mapped(value))

    def forward_event_shape(self, input_shape) -> TensorShape:
        return self._forward_event_shape(TensorShape(input_shape))

    def forward_event_shape_tensor(self, input_shape, name="forward_event_shape_tensor"):
        with name_scope(self.name), name_scope(name):
            return self._forward_event_shape_tensor(convert_to_tensor(input_shape, dtype=dtypes.int32))

    def inverse_event_shape(self, output_shape) -> TensorShape:
        return self._inverse_event_shape(TensorShape(output_shape))

    def inverse_event_shape_tensor(self, output_shape, name="inverse_event_shape_tensor"):
        with name_scope(self.name), name_scope(name):
            return self._inverse_event_shape_tensor(convert_to_tensor(output_shape, dtype=dtypes.int32))

    # --- what subclasses give ---------------------------------------------------------------

    def _forward(self, x):
        raise NotImplementedError(f"forward not implemented by {type(self).__name__}")

    def _inverse(self, y):
        raise NotImplementedError(f"inverse not implemented by {type(self).__name__}")

    def _forward_log_det_jacobian(self, x):
        raise NotImplementedError

    def _inverse_log_det_jacobian(self, y):
        raise NotImplementedError(f"neither forward_log_det_jacobian nor inverse_log_det_jacobian is implemented "
                                  f"by {type(self).__name__}")

    def _forward_event_shape(self, input_shape):
        return input_shape

    def _forward_event_shape_tensor(self, input_shape):
        return input_shape

    def _inverse_event_shape(self, output_shape):
        return output_shape

    def _inverse_event_shape_tensor(self, output_shape):
        return output_shape

    # --- helpers -----------------------------------------------------------------------------

    def _checked(self, value):
        value = convert_to_tensor(value, dtype=self._dtype)
        if self._dtype is not None and value.dtype.base_dtype != self._dtype:
            raise TypeError(f"Input had dtype {value.dtype.base_dtype.name} but expected {self._dtype.name}.")
        return value

    def _remember(self, x, y) -> None:
        if len(self._from_x) > 64:  # (a bounded memory: a long-lived bijector sees many graphs)
            self._from_x.clear()
            self._from_y.clear()
        self._from_x[id(x)] = (x, y)
        self._from_y[id(y)] = (y, x)


class Identity(Bijector):
    """y = x, with a log-determinant of 0."""

    def __init__(self, validate_args=False, event_ndims=0, name="identity"):
        super().__init__(event_ndims=event_ndims, is_constant_jacobian=True, validate_args=validate_args, name=name)

    def _forward(self, x):
        return x

    def _inverse(self, y):
        return y

    def _inverse_log_det_jacobian(self, y):
        return zeros([], dtype=y.dtype.base_dtype)

    def _forward_log_det_jacobian(self, x):
        return zeros([], dtype=x.dtype.base_dtype)


__getattr__ = missing("tf.distributions.bijectors")
