"""The helpers of ``tf.contrib.framework`` besides argument scopes and variables: shape and
dtype checks (``with_shape``, ``assert_scalar_int``, ...), ``reduce_sum_n``, name-scope
helpers, TF's deprecation decorators, ``print_op`` and ``get_placeholders``."""

from __future__ import annotations

import functools
import inspect
import logging
import re

import numpy as np

from ..framework import dtypes, ops
from ..framework.tensor_util import is_tensor
from ..ops import array_ops, check_ops, control_flow_v2, math_ops, reduction_ops, script_ops
from ..ops.sparse_ops import SparseTensor
from ..ops.tensor_array_ops import TensorArray

_log = logging.getLogger("distflow")


def reduce_sum_n(tensors, name=None):
    """The sum of ``tensors``' elements, all of them together (a scalar)."""
    tensors = [ops.convert_to_tensor(t) for t in tensors or ()]
    if not tensors:
        raise ValueError("No tensors provided.")
    with ops.name_scope(name, "reduce_sum_n", tensors) as scope:
        sums = [reduction_ops.reduce_sum(t) for t in tensors]
        return sums[0] if len(sums) == 1 else math_ops.add_n(sums, name=scope)


def remove_squeezable_dimensions(predictions, labels, name=None):
    """``(predictions, labels)`` with a last dimension of 1 squeezed from whichever of the two
    has rank one more than the other (contrib's argument order: predictions first)."""
    with ops.name_scope(name, "remove_squeezable_dimensions", [predictions, labels]):
        predictions, labels = ops.convert_to_tensor(predictions), ops.convert_to_tensor(labels)
        p_rank, l_rank = predictions.shape.ndims, labels.shape.ndims
        if p_rank is not None and l_rank is not None:
            if p_rank == l_rank + 1 and predictions.shape.dims[-1].is_compatible_with(1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif l_rank == p_rank + 1 and labels.shape.dims[-1].is_compatible_with(1):
                labels = array_ops.squeeze(labels, [-1])
            return predictions, labels
        rank_diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if p_rank is None or predictions.shape.dims[-1].is_compatible_with(1):
            predictions = control_flow_v2.cond(math_ops.equal(1, rank_diff),
                                                lambda: array_ops.squeeze(predictions, [-1]), lambda: predictions)
        if l_rank is None or labels.shape.dims[-1].is_compatible_with(1):
            labels = control_flow_v2.cond(math_ops.equal(-1, rank_diff),
                                           lambda: array_ops.squeeze(labels, [-1]), lambda: labels)
        return predictions, labels


def _assert_shape(expected_shape, tensor):
    actual = array_ops.shape(tensor, name="actual")
    expected = ops.convert_to_tensor(expected_shape, dtype=dtypes.int32, name="expected")
    same_rank = math_ops.equal(array_ops.size(expected), array_ops.rank(tensor))
    # (compared only where the ranks agree: shapes of other lengths cannot be compared)
    same = control_flow_v2.cond(same_rank, lambda: reduction_ops.reduce_all(math_ops.equal(expected, actual)),
                                 lambda: ops.convert_to_tensor(False))
    return check_ops.Assert(same, [f"Wrong shape for {tensor.name} [expected] [actual].", expected, actual],
                                   name="assert_shape")


def with_shape(expected_shape, tensor):
    """``tensor``, checked to have ``expected_shape``: at once where both are known (a
    ValueError), else by an assertion when it runs (and the static shape set)."""
    if isinstance(tensor, SparseTensor):
        raise ValueError("SparseTensor not supported.")
    if is_tensor(expected_shape):
        if expected_shape.dtype.base_dtype != dtypes.int32:
            raise ValueError(f"Invalid dtype {expected_shape.dtype} for shape {expected_shape} expected of tensor "
                             f"{tensor.name}.")
    else:
        expected_shape = np.asarray(expected_shape if len(expected_shape) else [], dtype=None)
        if expected_shape.size == 0:
            expected_shape = expected_shape.astype(np.int32)
        elif expected_shape.dtype == np.int64:
            expected_shape = expected_shape.astype(np.int32)
        if expected_shape.ndim > 1:
            raise ValueError(f"Invalid rank {expected_shape.ndim} for shape {expected_shape} expected of tensor "
                             f"{tensor.name}.")
        if expected_shape.dtype != np.int32:
            raise ValueError(f"Invalid dtype {expected_shape.dtype} for shape {expected_shape} expected of tensor "
                             f"{tensor.name}.")
    actual = tensor.shape
    if not actual.is_fully_defined() or is_tensor(expected_shape):
        with ops.name_scope(f"{tensor.op.name}/", values=[tensor]):
            if not is_tensor(expected_shape) and len(expected_shape) < 1:
                return array_ops.reshape(tensor, [])
            with ops.control_dependencies([_assert_shape(expected_shape, tensor)]):
                result = array_ops.identity(tensor)
            if not is_tensor(expected_shape):
                result.set_shape(expected_shape.tolist())
            return result
    if not actual.is_compatible_with(expected_shape.tolist()):
        if len(expected_shape) < 1 and actual.is_compatible_with([1]):
            with ops.name_scope(f"{tensor.op.name}/", values=[tensor]):
                return array_ops.reshape(tensor, [])
        raise ValueError(f"Invalid shape for tensor {tensor.name}, expected {expected_shape.tolist()}, got "
                         f"{actual}.")
    return tensor


def with_same_shape(expected_tensor, tensor):
    """``with_shape`` with ``expected_tensor``'s shape (its static one where fully known)."""
    with ops.name_scope(f"{tensor.op.name}/", values=[expected_tensor, tensor]):
        shape = expected_tensor.shape
        expected = shape.as_list() if shape.is_fully_defined() else array_ops.shape(expected_tensor,
                                                                                    name="expected_shape")
        return with_shape(expected, tensor)


def assert_scalar_int(tensor, name=None):
    """``tensor``, checked to be a 0-D integer tensor (a ValueError if not)."""
    with ops.name_scope(name, "assert_scalar_int", [tensor]) as scope:
        tensor = ops.convert_to_tensor(tensor)
        if not tensor.dtype.base_dtype.is_integer:
            raise ValueError(f"Expected integer type for {tensor.name}, received type: {tensor.dtype}.")
        return check_ops.assert_scalar(tensor, name=scope)


def get_graph_from_inputs(op_input_list, graph=None):
    """The graph of the tensors and operations in ``op_input_list`` (``graph`` if given, which
    they must belong to; else the default graph if none of them names one)."""
    if not isinstance(op_input_list, (list, tuple)):
        raise TypeError("The op_input_list must be a list or tuple")
    if graph is not None and not isinstance(graph, ops.Graph):
        raise TypeError(f"Input graph needs to be a Graph: {graph}")
    found, source = graph, None
    for item in op_input_list:
        item_graph = getattr(item, "graph", None)
        if item_graph is None:
            continue
        if graph is not None and item_graph is not graph:
            raise ValueError(f"{item} is not from the passed-in graph.")
        if found is None:
            found, source = item_graph, item
        elif item_graph is not found:
            raise ValueError(f"{item} must be from the same graph as {source}.")
    return found if found is not None else ops.get_default_graph()


def prepend_name_scope(name: str, import_scope: str) -> str:
    """``name`` (an op's or a tensor's, or a "^" control input, or "loc:@" colocation) under
    ``import_scope``."""
    if not import_scope:
        return name
    return re.sub(r"([\^]|loc:@|^)(.*)", lambda m: f"{m.group(1)}{import_scope}/{m.group(2)}", str(name), count=1)


def strip_name_scope(name: str, export_scope: str) -> str:
    """``name`` without a leading ``export_scope``."""
    if not export_scope:
        return name
    scope = export_scope if export_scope.endswith("/") else export_scope + "/"
    return re.sub(r"([\^]|loc:@|\b|^)" + re.escape(scope), r"\1", str(name), count=1)


def get_placeholders(graph):
    """The outputs of ``graph``'s Placeholder ops."""
    if not isinstance(graph, ops.Graph):
        raise TypeError(f"Input graph needs to be a Graph: {graph}")
    return [op.outputs[0] for op in graph.get_operations() if op.type == "Placeholder"]


def _tensor_repr(t, print_tensor_name, print_tensor_type, print_shape, summarize_indicator_vector) -> list:
    text = []
    if print_tensor_name and hasattr(t, "name"):
        text.append(f"{t.name}:")
    if print_tensor_type and hasattr(t, "dtype"):
        text.append(str(t.dtype))
    if isinstance(t, SparseTensor):
        return [" ".join(text + ["(sparse indices, values, shape)"]), t.indices, t.values, t.dense_shape]
    if isinstance(t, TensorArray):
        return [" ".join(text + ["(TensorArray size)"]), t.size()]
    t = ops.convert_to_tensor(t)
    parts = [" ".join(text)] if text else []
    if print_shape:
        parts += ["shape:", array_ops.shape(t)]
    if summarize_indicator_vector and t.dtype.base_dtype == dtypes.bool and t.shape.ndims == 1:
        parts += ["first true in indicator:", array_ops.reshape(math_ops.cast(
            reduction_ops.reduce_min(array_ops.where(t)), dtypes.int64), [])]
    return parts + [t]


def print_op(input_, data=None, message=None, first_n=None, summarize=20, print_tensor_name=True,
             print_tensor_type=True, print_shape=True, summarize_indicator_vector=True, name=None):
    """``input_`` (a Tensor, variable, SparseTensor or TensorArray), printing its name, type,
    shape and value, and those of ``data``, whenever it is computed."""
    if input_ is None:
        raise ValueError("input_ must be of type Tensor, SparseTensor or TensorArray")
    shown = []
    for t in [input_] + list(data or []):
        shown += _tensor_repr(t, print_tensor_name, print_tensor_type, print_shape, summarize_indicator_vector)
    if isinstance(input_, SparseTensor):
        printed = script_ops.Print(ops.convert_to_tensor([]), shown, message or "", first_n, summarize, name)
        with ops.control_dependencies([printed]):
            return SparseTensor(array_ops.identity(input_.indices), array_ops.identity(input_.values),
                                array_ops.identity(input_.dense_shape))
    if isinstance(input_, TensorArray):
        printed = script_ops.Print(ops.convert_to_tensor([]), shown, message or "", first_n, summarize, name)
        with ops.control_dependencies([printed]):
            return TensorArray(dtype=input_.dtype, handle=input_.handle, flow=array_ops.identity(input_.flow))
    return script_ops.Print(input_, shown, message or "", first_n, summarize, name)


# ---------------------------------------------------------------------------
# Deprecation decorators (tensorflow.python.util.deprecation's)


def _check_deprecation(date, instructions) -> None:
    if date is not None and not re.match(r"^\d{4}-\d{2}-\d{2}$", date):
        raise ValueError(f"Date must be YYYY-MM-DD, got {date!r}.")
    if not instructions:
        raise ValueError("Don't deprecate things without conversion instructions!")


def _when(date) -> str:
    return "in a future version" if date is None else f"after {date}"


def _warner(warn_once: bool):
    warned = [False]

    def warn(message: str) -> None:
        if warn_once and warned[0]:
            return
        warned[0] = True
        _log.warning(message)

    return warn


def _noted(fn, wrapper, note: str):
    wrapper.__doc__ = f"{(fn.__doc__ or '').rstrip()}\n\n{note}".lstrip()
    return wrapper


def deprecated(date, instructions, warn_once=True):
    """Marks a function deprecated: a warning (once, by default) when it is called, and a
    note in its docstring."""
    _check_deprecation(date, instructions)

    def decorate(fn):
        warn = _warner(warn_once)
        message = (f"{fn.__module__}.{fn.__name__} (from {fn.__module__}) is deprecated and will be removed "
                   f"{_when(date)}.\nInstructions for updating:\n{instructions}")

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            warn(message)
            return fn(*args, **kwargs)

        return _noted(fn, wrapper, f"THIS FUNCTION IS DEPRECATED. It will be removed {_when(date)}.\n"
                                   f"Instructions for updating:\n{instructions}")

    return decorate


def deprecated_args(date, instructions, *deprecated_arg_names_or_tuples, **kwargs):
    """Marks arguments deprecated: a warning when a call passes one of them (a name, or a
    ``(name, value)`` pair: only when it has that value)."""
    _check_deprecation(date, instructions)
    if not deprecated_arg_names_or_tuples:
        raise ValueError("Specify which argument is deprecated.")
    warn_once = kwargs.pop("warn_once", True)
    if kwargs:
        raise TypeError(f"deprecated_args: unexpected keyword arguments {sorted(kwargs)}")
    specs = {}
    for item in deprecated_arg_names_or_tuples:
        name, value = (item[0], (True, item[1])) if isinstance(item, tuple) else (item, (False, None))
        specs[name] = value
    return _argument_warner(date, instructions, specs, warn_once)


def deprecated_arg_values(date, instructions, warn_once=True, **deprecated_kwargs):
    """Marks argument values deprecated: a warning when a call passes one of them."""
    _check_deprecation(date, instructions)
    if not deprecated_kwargs:
        raise ValueError("Specify which argument values are deprecated.")
    return _argument_warner(date, instructions, {k: (True, v) for k, v in deprecated_kwargs.items()}, warn_once)


def _argument_warner(date, instructions, specs: dict, warn_once: bool):
    def decorate(fn):
        signature = inspect.signature(fn)
        missing = [name for name in specs if name not in signature.parameters]
        if missing:
            raise ValueError(f"The following deprecated arguments are not present in the function signature: "
                             f"{missing}")
        warners = {name: _warner(warn_once) for name in specs}

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs).arguments
            for name, (by_value, value) in specs.items():
                if name in bound and (not by_value or bound[name] == value):
                    warners[name](f"Calling {fn.__module__}.{fn.__name__} (from {fn.__module__}) with {name}"
                                  f"{'=' + repr(value) if by_value else ''} is deprecated and will be removed "
                                  f"{_when(date)}.\nInstructions for updating:\n{instructions}")
            return fn(*args, **kwargs)

        return _noted(fn, wrapper, f"SOME ARGUMENTS ARE DEPRECATED: {', '.join(specs)}. They will be removed "
                                   f"{_when(date)}.\nInstructions for updating:\n{instructions}")

    return decorate
