"""Symbolic differentiation: ``tf.gradients`` builds the backward pass as graph ops.

The gradient of every op comes from its block's registered gradient function
(``grad(op, *out_grads) -> tuple``, one entry per input), so the result is itself a
graph: it runs on any device, partitions like the forward pass, and can be
differentiated again.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools

import numpy as np

from ..framework import dtypes, ops
from ..framework.registry import get_gradient_function, register_gradient
from . import array_ops, control_flow_ops, math_ops, script_ops, slicing_ops, variable_scope
from .indexed_slices import IndexedSlices, concat_slices, to_dense


def _as_list(x) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def differentiable(t: ops.Tensor) -> bool:
    """Whether gradients flow through ``t``: floating, complex, a TensorArray's list, or the
    handle of a resource variable (the gradient of its reads, as TensorFlow's)."""
    dtype = t.dtype.base_dtype
    return dtype.is_floating or dtype.is_complex or dtype == dtypes.variant or (
        dtype == dtypes.resource and t.op.type == "VarHandleOp")


class AggregationMethod:
    """How the gradients of one tensor from several paths are summed (distflow always uses AddN)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients:
    """What ``gradients`` returns for an x that the ys do not depend on."""

    NONE = "none"
    ZERO = "zero"


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE) -> list:
    """The symbolic derivatives of ``sum(ys)`` with respect to each of ``xs``.

    Args:
      ys, xs: a Tensor or list of Tensors (Variables are accepted for ``xs``).
      grad_ys: the gradients flowing into ``ys`` (default: ones of ys' shape).
      colocate_gradients_with_ops: build each gradient op on its forward op's device
        (what multi-tower training needs).
      stop_gradients: Tensors treated as constants.
      aggregation_method: accepted (one of ``AggregationMethod``); sums are always AddN.
      unconnected_gradients: "none" (None for an x the ys do not depend on) or "zero"
        (zeros of its shape).

    Returns:
      One Tensor per x, or None where ys do not depend on it. Contributions of
      several paths are summed.

    Raises:
      LookupError: an op on a path from xs to ys has no registered gradient.
    """
    unconnected_gradients = getattr(unconnected_gradients, "value", unconnected_gradients)
    if unconnected_gradients not in (UnconnectedGradients.NONE, UnconnectedGradients.ZERO):
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")
    if aggregation_method not in (None, AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                                  AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        raise ValueError(f"Invalid aggregation_method specified {aggregation_method}.")
    ys = [ops.convert_to_tensor(y) for y in _as_list(ys)]
    xs = [ops.convert_to_tensor(x, as_ref=True) for x in _as_list(xs)]
    graph = ys[0].graph
    stop_ops = {ops.convert_to_tensor(t).op for t in _as_list(stop_gradients or [])}
    grad_ys = _as_list(grad_ys) if grad_ys is not None else [None] * len(ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"grad_ys has {len(grad_ys)} entries, but ys has {len(ys)}")

    with graph.as_default(), ops.name_scope(name):
        between = _ops_between(xs, ys, stop_ops)
        pending = _pending_counts(between)
        out_grads: dict[ops.Tensor, list] = {}
        for y, gy in zip(ys, grad_ys):
            if gy is None:
                if y.dtype.is_complex:  # (which of the conventions for a complex derivative: the caller says)
                    raise TypeError(f"Gradients of complex tensors ({y.name}) must set grad_ys (y.dtype = "
                                    f"tf.{y.dtype.base_dtype.name})")
                with graph.colocate_with(y.op) if colocate_gradients_with_ops else contextlib.nullcontext():
                    gy = array_ops.ones_like(y, name=f"grad_ys_{ys.index(y)}")
            elif not isinstance(gy, IndexedSlices):  # (IndexedSlices pass through, as in TF)
                gy = ops.convert_to_tensor(gy, dtype=y.dtype.base_dtype)
            out_grads.setdefault(y, []).append(gy)
        ready = [op for op in between if pending.get(op, 0) == 0]
        ready.sort(key=lambda op: op._id)
        done: set = set()
        while ready:
            op = ready.pop()
            if op in done:
                continue
            done.add(op)
            with _colocated(op, colocate_gradients_with_ops):  # the sum of its gradients too
                grads = [_aggregate(out_grads.get(t)) for t in op.outputs]
            for t, g in zip(op.outputs, grads):
                if t in out_grads:
                    out_grads[t] = [g] if g is not None else []
            if any(g is not None for g in grads) and op not in stop_ops:
                in_grads = _call_gradient(op, grads, colocate_gradients_with_ops)
                for t, g in zip(op.inputs, in_grads):
                    if g is not None and differentiable(t):
                        out_grads.setdefault(t, []).append(g)
            for t in op.inputs:
                producer = t.op
                if producer in pending:
                    pending[producer] -= 1
                    if pending[producer] == 0:
                        ready.append(producer)
            ready.sort(key=lambda o: o._id)
        result = []
        for x in xs:
            with _colocated(x.op, colocate_gradients_with_ops):
                g = _aggregate(out_grads.get(x))
                if g is None and unconnected_gradients == UnconnectedGradients.ZERO:
                    g = array_ops.zeros_like(x)
            result.append(g)
        return result


def _colocated(op, colocate: bool):
    return op.graph.colocate_with(op, ignore_existing=True) if colocate else contextlib.nullcontext()


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None) -> list:
    """For each x, the matrix of second derivatives of sum(ys), shaped ``x.shape + x.shape``.

    Built as one gradient per entry of the first gradient (like TF's while-loop version,
    unrolled: x must have a fully defined shape).
    """
    xs = _as_list(xs)
    out = []
    with ops.name_scope(name):
        for i, x in enumerate(xs):
            x_tensor = ops.convert_to_tensor(x)
            if not x_tensor.shape.is_fully_defined():
                raise ValueError(f"hessians needs a fully defined shape for '{x_tensor.name}', got {x_tensor.shape}")
            shape = x_tensor.shape.as_list()
            n = int(np.prod(shape)) if shape else 1
            first = gradients(ys, x, colocate_gradients_with_ops=colocate_gradients_with_ops)[0]
            if first is None:
                out.append(None)
                continue
            flat = array_ops.reshape(first, [n])
            rows = []
            for j in range(n):
                second = gradients(flat[j], x, colocate_gradients_with_ops=colocate_gradients_with_ops,
                                   unconnected_gradients=UnconnectedGradients.ZERO)[0]
                rows.append(array_ops.reshape(second, [n]))
            out.append(array_ops.reshape(slicing_ops.stack(rows), shape + shape))
    return out


def _ops_between(xs, ys, stop_ops) -> list:
    """Ops that lie on a path from some x to some y."""
    reached = set()
    stack = [x.op for x in xs]
    while stack:
        op = stack.pop()
        if op in reached:
            continue
        reached.add(op)
        for t in op.outputs:
            stack.extend(c for c in t.consumers() if c not in reached)
    between = set()
    stack = [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op in between or op not in reached:
            continue
        between.add(op)
        if op in stop_ops:
            continue
        stack.extend(t.op for t in op.inputs)
    return sorted(between, key=lambda o: o._id)


def _pending_counts(between: list) -> dict:
    """For each op, how many consumers in ``between`` must send it gradients first."""
    member = set(between)
    pending = {op: 0 for op in between}
    for op in between:
        for t in op.inputs:
            if t.op in member:
                pending[t.op] += 1
    return pending


def _aggregate(grads):
    """The sum of one tensor's gradients: IndexedSlices stay sparse among themselves (concatenated)."""
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    if all(isinstance(g, IndexedSlices) for g in grads):
        return concat_slices(grads)
    return math_ops.add_n([ops.convert_to_tensor(g) for g in grads])


# Ops whose gradient function passes an IndexedSlices through unchanged; the others get it dense.
_SPARSE_PASS_THROUGH = frozenset({"Identity", "StopGradient", "Print", "EnsureShape", "CheckNumerics"})


def _call_gradient(op: ops.Operation, grads: list, colocate: bool) -> list:
    fn = get_gradient_function(op._attrs.get("_gradient_op_type", op.type))
    if fn is None:
        return [None] * len(op.inputs)
    grads = [g if g is not None else array_ops.zeros_like(t) for g, t in zip(grads, op.outputs)]
    if op.type in _SPARSE_PASS_THROUGH and isinstance(grads[0], IndexedSlices):
        return [grads[0]] + [None] * (len(op.inputs) - 1)
    grads = [to_dense(g) if isinstance(g, IndexedSlices) else g for g in grads]
    scope = op.name + "_grad"
    with ops.name_scope(scope), _colocated(op, colocate):
        in_grads = fn(op, *grads)
    in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
    if len(in_grads) != len(op.inputs):
        raise ValueError(f"Gradient function for '{op.type}' returned {len(in_grads)} gradients, "
                         f"expected {len(op.inputs)} (one per input of '{op.name}')")
    return in_grads


_custom_gradient_ids = itertools.count()


def custom_gradient(f):
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``tf.gradients`` through y then calls
    ``grad_fn(*dy)`` for the gradients of x (one per input of f, None for none). It works
    on functions and on methods (``self`` is bound, not taken for a tensor), as TF's.

    As in TF 1.x graph mode, the inputs and outputs pass through one IdentityN op whose
    gradient is ``grad_fn``. Trainable variables that ``f`` reads (created in it or before)
    are differentiated through it too: ``grad_fn`` must then take a keyword argument
    ``variables`` and return ``(input_grads, variable_grads)``, one gradient per variable
    in the list it was given. (TF 1.x asks that variables created in ``f`` be resource
    variables; distflow's variables all qualify.)
    """
    return _CustomGradientFunction(f)


class _CustomGradientFunction:
    """What ``custom_gradient`` returns: callable, and a descriptor, so that it binds ``self``."""

    def __init__(self, f, bound=None):
        self._f, self._bound = f, bound
        functools.update_wrapper(self, f)

    def __get__(self, instance, owner=None):
        return self if instance is None else _CustomGradientFunction(self._f, instance)

    def __call__(self, *args, **kwargs):
        f = self._f if self._bound is None else functools.partial(self._f, self._bound)
        return _with_custom_gradient(f, args, kwargs)


def variables_read(graph: ops.Graph, since: int, exclude) -> list:
    """The trainable variables that ops added to ``graph`` after version ``since`` read
    (their value or their handle), in the order first read; none of ``exclude`` (tensors)."""
    by_tensor = {}
    for v in graph.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES):
        for t in (v.value(), v._ref()):
            by_tensor.setdefault(t, v)
    excluded = set(exclude)
    added = list(itertools.takewhile(lambda op: op._id > since, reversed(graph.get_operations())))
    found: dict = {}
    for op in reversed(added):
        for t in op.inputs:
            v = by_tensor.get(t)
            if v is not None and t not in excluded:
                found.setdefault(id(v), v)
    return list(found.values())


def _takes_variables(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)


def _with_custom_gradient(f, args, kwargs):
    if kwargs:
        raise ValueError("The custom_gradient decorator only supports positional tensor arguments")
    xs = [ops.convert_to_tensor(a) for a in args]
    graph = xs[0].graph if xs else ops.get_default_graph()
    since = graph.version
    result, grad_fn = f(*xs)
    flat = list(result) if isinstance(result, (list, tuple)) else [result]
    ys = [ops.convert_to_tensor(y) for y in flat]
    variables = variables_read(graph, since, xs)
    if variables and not _takes_variables(grad_fn):
        raise TypeError(f"If using @custom_gradient with a function that uses variables, then grad_fn must accept "
                        f"a keyword argument 'variables': {getattr(f, '__name__', f)} reads "
                        f"{', '.join(repr(v.op.name) for v in variables)}")
    name = f"CustomGradient-{next(_custom_gradient_ids)}"

    def grad(op, *grads):
        dys = list(grads[len(xs):len(xs) + len(ys)])
        if variables:
            in_grads, var_grads = grad_fn(*dys, variables=variables)
            var_grads = list(var_grads) if isinstance(var_grads, (list, tuple)) else [var_grads]
            if len(var_grads) != len(variables):
                raise ValueError(f"Must return gradient for each variable from @custom_gradient grad_fn: got "
                                 f"{len(var_grads)} for the {len(variables)} variables it was given")
        else:
            in_grads, var_grads = grad_fn(*dys), []
        in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
        if len(in_grads) != len(xs):
            raise ValueError(f"custom_gradient function returned {len(in_grads)} gradients, expected "
                             f"{len(xs)} (one per input)")
        return in_grads + [None] * len(ys) + var_grads

    register_gradient(name)(grad)
    with graph.gradient_override_map({"IdentityN": name}):
        outs = script_ops.identity_n(xs + ys + [v.value() for v in variables])
    outs = outs[len(xs):len(xs) + len(ys)]
    if isinstance(result, (list, tuple)):
        return type(result)(outs)
    return outs[0]


def recompute_grad(f):
    """``f`` whose activations are not kept for the backward pass: the gradient runs ``f``
    again (once the gradients of its outputs are there) and differentiates that copy, as
    TF 1.x's ``tf.recompute_grad`` in graph mode. Memory for compute. ``f`` takes tensors
    positionally; the variables it reads get their gradients too, so it must read the same
    variables when called again (``tf.get_variable`` under a reusing scope, or variables
    made outside it)."""

    @functools.wraps(f)
    def wrapped(*args):
        scope = variable_scope.get_variable_scope()
        return recompute(f, args, lambda: variable_scope.variable_scope(scope, reuse=True))

    return wrapped


def recompute(f, args, again=None, f_again=None, tupled=False):
    """``custom_gradient`` of ``f(*args)`` whose gradient calls ``f_again`` (by default
    ``f``) on the same inputs once the outputs' gradients are there, inside the context
    ``again()`` makes (a reusing variable scope, say), and differentiates that call;
    ``tupled``: the gradients all come out together (``tf.tuple``)."""

    @custom_gradient
    def inner(*xs):
        result = f(*xs)

        def grad(*dys, variables=None):
            variables = list(variables or [])
            graph = ops.get_default_graph()
            known = set(map(id, graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)))
            with ops.control_dependencies([d for d in dys if d is not None]):
                fresh = [array_ops.stop_gradient(x) for x in xs]  # (differentiated from here, not further)
                with again() if again else contextlib.nullcontext():
                    outs = (f_again or f)(*fresh)
            made = [v.op.name for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) if id(v) not in known]
            if made:
                raise ValueError(f"recompute_grad: calling {getattr(f, '__name__', f)} again for its gradient made "
                                 f"new variables ({', '.join(made)}) where it should use the ones of its first call: "
                                 "create them with tf.get_variable (its scope is reused) or outside the function")
            outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
            grads = gradients(outs, fresh + variables, grad_ys=list(dys))
            if tupled:
                grads = control_flow_ops.tuple(grads)
            return grads[:len(fresh)], grads[len(fresh):]

        return result, grad

    return inner(*args)


def grad_pass_through(f):
    """``f`` in the forward pass, the identity in the backward one."""

    @functools.wraps(f)
    def wrapped(x):
        x = ops.convert_to_tensor(x)
        y = ops.convert_to_tensor(f(x))
        return x + array_ops.stop_gradient(y - x)

    return wrapped
