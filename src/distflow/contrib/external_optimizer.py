"""``tf.contrib.opt.ScipyOptimizerInterface``: a graph's loss minimized by SciPy's
``scipy.optimize.minimize`` (L-BFGS-B unless ``method`` says otherwise), as TF 1.x programs
used it for style transfer and Gaussian processes.

The variables are packed into one float64 vector. SciPy asks for the loss and its gradient
at a point; each question is one ``session.run`` of the loss and the packed gradients, with
the point fed to the variables themselves (a variable's value can be fed, as in TF). The
variables change only at the end, when the point SciPy found is assigned to them.
``equalities`` and ``inequalities`` (tensors that must be ``== 0`` and ``>= 0``) become
SciPy's constraints with their gradients, ``var_to_bounds`` its per-element bounds.

SciPy is not a dependency of distflow: ``minimize`` imports it, and says so if it is missing.
"""

from __future__ import annotations

import logging

import numpy as np

from ..framework import ops
from ..ops import array_ops, gradients_impl, slicing_ops, state_ops

_log = logging.getLogger("distflow")


def _flat_gradients(tensor, var_list) -> list:
    """d tensor / d var for each variable, zeros where the tensor does not depend on it."""
    grads = gradients_impl.gradients(tensor, var_list)
    return [array_ops.zeros_like(v) if g is None else ops.convert_to_tensor(g) for v, g in zip(var_list, grads)]


def _pack(tensors):
    """The tensors' elements, one after the other, as one vector."""
    flat = [array_ops.reshape(t, [-1]) for t in tensors]
    return flat[0] if len(flat) == 1 else slicing_ops.concat(flat, 0)


class ExternalOptimizerInterface:
    """The graph side of an optimizer that runs outside TensorFlow (the module's text);
    subclasses define ``_minimize``."""

    def __init__(self, loss, var_list=None, equalities=None, inequalities=None, var_to_bounds=None,
                 **optimizer_kwargs):
        self._loss = loss
        self._equalities = list(equalities or [])
        self._inequalities = list(inequalities or [])
        self._vars = list(state_ops.trainable_variables() if var_list is None else var_list)
        if not self._vars:
            raise ValueError("No variables to optimize.")
        self._var_shapes = []
        for var in self._vars:
            shape = var.shape
            if not shape.is_fully_defined():
                raise ValueError(f"Variable '{var.op.name}' needs a fully defined shape to be optimized "
                                 f"externally, got {shape}")
            self._var_shapes.append(tuple(shape.as_list()))
        self._packed_bounds = None
        if var_to_bounds is not None:
            lows, highs = [], []
            for var, shape in zip(self._vars, self._var_shapes):
                low, high = var_to_bounds.get(var, (-np.inf, np.inf))
                lows.extend(np.broadcast_to(np.asarray(low, np.float64), shape).ravel().tolist())
                highs.extend(np.broadcast_to(np.asarray(high, np.float64), shape).ravel().tolist())
            self._packed_bounds = list(zip(lows, highs))
        self._update_placeholders = [array_ops.placeholder(var.dtype.base_dtype) for var in self._vars]
        self._var_updates = [state_ops.assign(var, array_ops.reshape(p, shape))
                             for var, p, shape in zip(self._vars, self._update_placeholders, self._var_shapes)]
        self.optimizer_kwargs = optimizer_kwargs
        self._packed_var = _pack([v.value() if hasattr(v, "value") else v for v in self._vars])
        self._packed_loss_grad = _pack(_flat_gradients(loss, self._vars))
        self._packed_equality_grads = [_pack(_flat_gradients(t, self._vars)) for t in self._equalities]
        self._packed_inequality_grads = [_pack(_flat_gradients(t, self._vars)) for t in self._inequalities]
        ends = np.cumsum([int(np.prod(shape, dtype=np.int64)) for shape in self._var_shapes]).tolist()
        self._packing_slices = [slice(start, end) for start, end in zip([0] + ends[:-1], ends)]

    def minimize(self, session=None, feed_dict=None, fetches=None, step_callback=None, loss_callback=None,
                 **run_kwargs) -> None:
        """Minimizes the loss from the variables' values now, and assigns the result to them.

        ``fetches`` are run with the loss at each evaluation and handed to ``loss_callback``;
        ``step_callback(x)`` gets the packed variables after each of the optimizer's steps.
        """
        session = session or ops.get_default_session()
        if session is None:
            raise ValueError("minimize needs a session: pass one, or call it within `with sess.as_default()`")
        feed_dict = dict(feed_dict or {})
        fetches = list(fetches or [])
        loss_grad = self._evaluator([self._loss, self._packed_loss_grad], session, feed_dict, fetches,
                                    loss_callback, run_kwargs)
        equality_funcs = [self._evaluator([t], session, feed_dict, [], None, run_kwargs, first=True)
                          for t in self._equalities]
        equality_grad_funcs = [self._evaluator([t], session, feed_dict, [], None, run_kwargs, first=True)
                               for t in self._packed_equality_grads]
        inequality_funcs = [self._evaluator([t], session, feed_dict, [], None, run_kwargs, first=True)
                            for t in self._inequalities]
        inequality_grad_funcs = [self._evaluator([t], session, feed_dict, [], None, run_kwargs, first=True)
                                 for t in self._packed_inequality_grads]
        initial = session.run(self._packed_var, feed_dict=feed_dict, **run_kwargs)
        found = self._minimize(initial_val=np.asarray(initial, np.float64), loss_grad_func=loss_grad,
                               equality_funcs=equality_funcs, equality_grad_funcs=equality_grad_funcs,
                               inequality_funcs=inequality_funcs, inequality_grad_funcs=inequality_grad_funcs,
                               packed_bounds=self._packed_bounds, step_callback=step_callback or (lambda xk: None),
                               optimizer_kwargs=self.optimizer_kwargs)
        values = [np.asarray(found)[s] for s in self._packing_slices]
        session.run(self._var_updates, feed_dict=dict(zip(self._update_placeholders, values)), **run_kwargs)

    def _evaluator(self, tensors, session, feed_dict, fetches, callback, run_kwargs, first=False):
        """``f(x)``: ``tensors`` evaluated with the variables at the packed point ``x``."""
        def evaluate(x):
            x = np.asarray(x)
            feeds = {var: x[s].reshape(shape).astype(var.dtype.base_dtype.as_numpy_dtype)
                     for var, s, shape in zip(self._vars, self._packing_slices, self._var_shapes)}
            feeds.update(feed_dict)
            values = session.run(list(tensors) + fetches, feed_dict=feeds, **run_kwargs)
            if callable(callback):
                callback(*values[len(tensors):])
            return values[0] if first else values[:len(tensors)]
        return evaluate

    def _minimize(self, initial_val, loss_grad_func, equality_funcs, equality_grad_funcs, inequality_funcs,
                  inequality_grad_funcs, packed_bounds, step_callback, optimizer_kwargs):
        raise NotImplementedError("an external optimizer defines _minimize")


class ScipyOptimizerInterface(ExternalOptimizerInterface):
    """``scipy.optimize.minimize`` over the graph's variables (the module's text); its keyword
    arguments (``method``, ``options``, ``tol``...) go to SciPy."""

    _DEFAULT_METHOD = "L-BFGS-B"

    def _minimize(self, initial_val, loss_grad_func, equality_funcs, equality_grad_funcs, inequality_funcs,
                  inequality_grad_funcs, packed_bounds, step_callback, optimizer_kwargs):
        try:
            import scipy.optimize  # noqa: PLC0415 - an optional library, needed only here
        except ImportError as e:
            raise ImportError("ScipyOptimizerInterface needs SciPy (pip install scipy)") from e

        def loss_and_gradient(x):
            loss, gradient = loss_grad_func(x)
            return float(loss), np.asarray(gradient, np.float64)  # (L-BFGS-B's Fortran takes doubles)

        kwargs = dict(optimizer_kwargs)
        method = kwargs.pop("method", self._DEFAULT_METHOD)
        constraints = [{"type": "eq", "fun": f, "jac": g} for f, g in zip(equality_funcs, equality_grad_funcs)]
        constraints += [{"type": "ineq", "fun": f, "jac": g} for f, g in zip(inequality_funcs, inequality_grad_funcs)]
        fixed = {"jac": True, "callback": step_callback, "method": method, "constraints": constraints,
                 "bounds": packed_bounds}
        for name in fixed:
            if name == "bounds" and name in kwargs:
                raise ValueError("Bounds must be set using the var_to_bounds argument")
            if name in kwargs:
                raise ValueError(f"Optimizer keyword arg '{name}' is set automatically and cannot be injected "
                                 "manually")
        if not constraints:
            del fixed["constraints"]  # (methods without constraints warn when handed an empty list)
        result = scipy.optimize.minimize(loss_and_gradient, initial_val, **fixed, **kwargs)
        lines, args = ["Optimization terminated with:", "  Message: %s", "  Objective function value: %f"], \
            [result.message, result.fun]
        counts = (("nit", "  Number of iterations: %d"), ("nfev", "  Number of functions evaluations: %d"))
        for attribute, line in counts:
            if hasattr(result, attribute):
                lines.append(line)
                args.append(getattr(result, attribute))
        _log.info("\n".join(lines), *args)
        return result["x"]
