"""Run-time checks: ``tf.Assert`` and the ``tf.assert_*`` family, ``check_numerics``.

An assertion is an op that fails its step with InvalidArgumentError naming the
assertion and showing the data; run it (or put it in ``control_dependencies``) to check.
A ``tf.assert_*`` check that the graph can decide when it is built (static shapes,
constants) fails at once, as in TF 1.x; ``tf.Assert`` itself always waits for its step.
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from . import array_ops, control_flow_ops, math_ops, reduction_ops
from .op_util import constant_value, make_op, make_tensor


def _shown(value, summarize):
    flat = np.asarray(value).reshape(-1)
    text = " ".join(str(v.decode() if isinstance(v, bytes) else v) for v in flat[:summarize])
    return f"[{text}{'...' if flat.size > summarize else ''}]" if np.ndim(value) else text


@register_op("Assert", shape=lambda op: [], stateful=True)
def _assert_kernel(xp, condition, *data, summarize=3, _assertion=""):  # (TF ignores "_" attrs)
    if not bool(np.all(condition)):
        shown = " ".join(_shown(d, summarize) for d in data)
        raise errors.InvalidArgumentError(None, None, f"assertion failed: {shown}".rstrip()
                                                      + (f" ({_assertion})" if _assertion else ""))


not_differentiable("Assert")


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """An op that fails with InvalidArgumentError (showing ``data``) when ``condition`` is
    false when it runs; a condition that is false already when the graph is built fails
    only then too, as in TF 1.x (the ``tf.assert_*`` functions decide such cases at once)."""
    return _assert(condition, data, summarize, name, name or "")


def _assert(condition, data, summarize, name, assertion: str):
    """The Assert op, named "<name or Assert>/Assert" as TF names it; ``assertion`` is what its
    error calls it."""
    with ops.name_scope(name, "Assert", [condition, data]):
        condition = ops.convert_to_tensor(condition, dtype=dtypes.bool)
        tensors = [ops.convert_to_tensor(d) for d in data]
        return make_op("Assert", [condition] + tensors, {"summarize": summarize or 3, "_assertion": assertion},
                       "Assert")


_NUMPY = {math_ops.equal: np.equal, math_ops.not_equal: np.not_equal, math_ops.less: np.less,
          math_ops.less_equal: np.less_equal, math_ops.greater: np.greater, math_ops.greater_equal: np.greater_equal}


def _binary_assert(default, compare, describe, x, y, data, summarize, message, name, sign=False, text=None):
    with ops.name_scope(name, default, [x, y]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        static_x, static_y = constant_value(x), constant_value(y)
        compared = compare(x, y)  # (shapes that do not broadcast: the comparison's ValueError, at once)
        condition_text = text or (f"Condition x {describe} did not hold" if sign else
                                  f"Condition x {describe} y did not hold")
        if compare in _NUMPY and static_x is not None and static_y is not None:
            if not np.all(_NUMPY[compare](static_x, static_y)):  # decided now, as TF 1.x does
                raise errors.InvalidArgumentError(None, None, f"assertion failed: {message or ''} {condition_text} "
                                                              f"element-wise: x = {static_x}"
                                                              + ("" if sign else f", y = {static_y}"))
        if data is None:  # (x against zero: TF's message names x alone)
            data = [f"{condition_text} element-wise:", "x (" + x.name + ") = ", x]
            if not sign:
                data += ["y (" + y.name + ") = ", y]
        if message:
            data = [message] + list(data)
        condition = reduction_ops.reduce_all(compared)
        return _assert(condition, data, summarize, "Assert", scope.rstrip("/"))


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert("assert_equal", math_ops.equal, "==", x, y, data, summarize, message, name)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert("assert_none_equal", math_ops.not_equal, "!=", x, y, data, summarize, message, name)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert("assert_less", math_ops.less, "<", x, y, data, summarize, message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert("assert_less_equal", math_ops.less_equal, "<=", x, y, data, summarize, message, name)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert("assert_greater", math_ops.greater, ">", x, y, data, summarize, message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary_assert("assert_greater_equal", math_ops.greater_equal, ">=", x, y, data, summarize, message,
                          name)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """|x - y| <= atol + rtol * |y| everywhere (defaults scaled to the dtype's precision)."""
    x = ops.convert_to_tensor(x)
    eps = float(np.finfo(x.dtype.as_numpy_dtype).eps) if x.dtype.is_floating else 0.0
    rtol = 10 * eps if rtol is None else rtol
    atol = 10 * eps if atol is None else atol
    return _binary_assert("assert_near", lambda a, b: math_ops.less_equal(math_ops.abs(a - b),
                                                                          atol + rtol * math_ops.abs(b)),
                          "~=", x, y, data, summarize, message, name,
                          text=f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}:")


def _sign_assert(default, compare, describe, x, data, summarize, message, name):
    x = ops.convert_to_tensor(x)
    return _binary_assert(default, compare, describe, x, array_ops.zeros_like(x), data, summarize, message, name,
                          sign=True)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert("assert_positive", math_ops.greater, "> 0", x, data, summarize, message, name)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert("assert_negative", math_ops.less, "< 0", x, data, summarize, message, name)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert("assert_non_negative", math_ops.greater_equal, ">= 0", x, data, summarize, message, name)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert("assert_non_positive", math_ops.less_equal, "<= 0", x, data, summarize, message, name)


def _rank_of(rank, what: str = "rank"):
    """(the rank as a tensor, its value where known): an int32 scalar, as TF's assert_rank takes it."""
    if isinstance(rank, ops.Tensor):
        if rank.dtype.base_dtype != dtypes.int32:
            raise TypeError(f"{what} must be of type <dtype: 'int32'>, got {rank.dtype.base_dtype.name} "
                            f"('{rank.name}')")
        if rank.shape.ndims not in (None, 0):
            raise ValueError(f"Rank must be a scalar, got shape {rank.shape} ('{rank.name}')")
        value = constant_value(rank)
        return rank, None if value is None else int(value)
    value = np.asarray(rank)
    if value.ndim != 0:
        raise ValueError(f"Rank must be a scalar, got {rank!r}")
    if value.dtype.kind not in "iu":
        raise TypeError(f"{what} must be of type <dtype: 'int32'>, got {rank!r}")
    return ops.convert_to_tensor(int(value), dtype=dtypes.int32), int(value)


def _rank_assert(default, compare, describe, x, rank, data, summarize, message, name):
    """The rank of ``x`` checked now where it and ``rank`` are known, else when the step runs."""
    with ops.name_scope(name, default, [x, rank]) as scope:
        x = ops.convert_to_tensor(x)
        rank_t, known = _rank_of(rank)
        if x.shape.ndims is not None and known is not None:
            if not compare(x.shape.ndims, known):
                raise ValueError(f"{message or ''}Tensor {x.name} must have rank {describe}{known}. Received rank "
                                 f"{x.shape.ndims}, shape {x.shape}".strip())
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        if data is None:
            data = [f"Tensor {x.name} must have rank {describe}", rank_t, "Received shape: ", array_ops.shape(x)]
        if message:
            data = [message] + list(data)
        condition = {"": math_ops.equal, "at least ": math_ops.greater_equal}[describe](array_ops.rank(x), rank_t)
        with ops.control_dependencies(_scalar_checks([rank_t])):
            return _assert(condition, data, summarize, "Assert", scope.rstrip("/"))


def _scalar_checks(ranks) -> list:
    """Run-time checks that rank tensors whose shape is not known are scalars, as TF's."""
    return [_assert(math_ops.equal(array_ops.rank(r), 0), ["Rank must be a scalar, got", r], None,
                    "rank_is_scalar", "Rank must be a scalar") for r in ranks if r.shape.ndims is None]


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """``x`` has rank ``rank``: checked now when both are known, else when the step runs."""
    return _rank_assert("assert_rank", int.__eq__, "", x, rank, data, summarize, message, name)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """``x`` has rank ``rank`` or more: checked now when both are known, else when the step runs."""
    return _rank_assert("assert_rank_at_least", int.__ge__, "at least ", x, rank, data, summarize, message, name)


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """``x``'s rank is one of ``ranks``: checked now when known, else when the step runs."""
    with ops.name_scope(name, "assert_rank_in", [x] + list(ranks)) as scope:
        x = ops.convert_to_tensor(x)
        pairs = [_rank_of(r, "ranks") for r in ranks]
        known = [v for _, v in pairs]
        if x.shape.ndims is not None and None not in known:
            if x.shape.ndims not in known:
                raise ValueError(f"{message or ''}Tensor {x.name} must have rank in {known}. Received rank "
                                 f"{x.shape.ndims}, shape {x.shape}".strip())
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        with ops.control_dependencies(_scalar_checks([t for t, _ in pairs])):
            ranks_t = array_ops.stack([array_ops.reshape(t, []) if t.shape.ndims is None else t for t, _ in pairs])
        if data is None:
            data = [f"Tensor {x.name} must have rank in", ranks_t, "Received shape: ", array_ops.shape(x)]
        if message:
            data = [message] + list(data)
        condition = reduction_ops.reduce_any(math_ops.equal(array_ops.rank(x), ranks_t))
        return _assert(condition, data, summarize, "Assert", scope.rstrip("/"))


def assert_scalar(tensor, name=None, message=None):
    with ops.name_scope(name, "assert_scalar", [tensor]):
        tensor = ops.convert_to_tensor(tensor)
    if tensor.shape.ndims != 0:
        raise ValueError(f"{message or ''}Expected scalar shape for {tensor.name}, saw shape: {tensor.shape}.".strip())
    return tensor


def assert_type(tensor, tf_type, message=None, name=None):
    tensor = ops.convert_to_tensor(tensor)
    if tensor.dtype.base_dtype != dtypes.as_dtype(tf_type):
        raise TypeError(f"{message or ''}{tensor.name} must be of type {dtypes.as_dtype(tf_type).name}; got "
                        f"{tensor.dtype.base_dtype.name}".strip())
    return control_flow_ops.no_op(name=name or "assert_type")


def assert_integer(x, message=None, name=None):
    x = ops.convert_to_tensor(x)
    if not x.dtype.base_dtype.is_integer:
        raise TypeError(f"{message or ''}Expected integer type for {x.name}, got {x.dtype.base_dtype.name}".strip())
    return control_flow_ops.no_op(name=name or "assert_integer")


def assert_same_float_dtype(tensors=None, dtype=None):
    """The one floating dtype of ``tensors`` (and ``dtype``); ValueError if they differ."""
    found = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
    for t in tensors or []:
        d = ops.convert_to_tensor(t).dtype.base_dtype
        if found is not None and d != found:
            raise ValueError(f"Expected {found.name}, got {d.name} for tensor {getattr(t, 'name', t)}.")
        found = d
    found = found or dtypes.float32
    if not found.is_floating:
        raise ValueError(f"Expected floating point type, got {found.name}.")
    return found


def assert_proper_iterable(values):
    if isinstance(values, (ops.Tensor, np.ndarray, str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument 'values' to be a \"proper\" iterable.  Found: {type(values)}")


def assert_variables_initialized(var_list=None):
    """A tensor of the variables' ranks (all variables by default; None when there are none),
    which reads each variable, so that running it fails with FailedPreconditionError, naming
    the variable, while one is uninitialized (as TF's)."""
    if var_list is None:
        var_list = ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) + \
            ops.get_collection(ops.GraphKeys.LOCAL_VARIABLES)
    if not var_list:
        return None
    ranks = []
    for var in var_list:
        with ops.colocate_with(var.op):
            ranks.append(make_tensor("Rank", [var.value()], None, "Rank"))  # (the op, never folded: it reads var)
    return ranks[0] if len(ranks) == 1 else array_ops.stack(ranks)


def is_numeric_tensor(tensor) -> bool:
    return isinstance(tensor, ops.Tensor) and (tensor.dtype.is_floating or tensor.dtype.is_integer)


def is_non_decreasing(x, name=None):
    with ops.name_scope(name, "is_non_decreasing", [x]):
        flat = array_ops.reshape(ops.convert_to_tensor(x), [-1])
        return reduction_ops.reduce_all(math_ops.less_equal(flat[:-1], flat[1:]))


def is_strictly_increasing(x, name=None):
    with ops.name_scope(name, "is_strictly_increasing", [x]):
        flat = array_ops.reshape(ops.convert_to_tensor(x), [-1])
        return reduction_ops.reduce_all(math_ops.less(flat[:-1], flat[1:]))


@register_op("CheckNumerics", shape=lambda op: op.inputs[0].shape, may_alias=True)
def _check_numerics_kernel(xp, tensor, *, message):
    if not np.all(np.isfinite(tensor)):
        kind = "NaN" if np.any(np.isnan(tensor)) else "Inf"
        raise errors.InvalidArgumentError(None, None, f"{message} : Tensor had {kind} values")
    return tensor


@register_gradient("CheckNumerics")
def _check_numerics_grad(op, g):
    return (check_numerics(g, f"Not a number (NaN) or infinity (Inf) values detected in gradient. "
                              f"{op._attr('message')}"),)


def check_numerics(tensor, message, name=None):
    """``tensor``, failing the step with InvalidArgumentError if it holds a NaN or an Inf."""
    tensor = ops.convert_to_tensor(tensor)
    return make_tensor("CheckNumerics", [tensor], {"message": str(message)}, name or "CheckNumerics")


def verify_tensor_all_finite(t, msg, name=None, x=None, message=None):
    return check_numerics(t if x is None else x, msg if message is None else message, name)


def add_check_numerics_ops():
    """One op that checks every floating tensor of the default graph for NaN and Inf."""
    graph = ops.get_default_graph()
    checks = []
    for op in graph.get_operations():
        for output in op.outputs:
            if output.dtype.base_dtype.is_floating and not output.dtype.is_ref_dtype:
                with ops.control_dependencies(checks[-1:]):
                    checks.append(check_numerics(output, f"{op.name}:{output.value_index}"))
    return control_flow_ops.group(*checks)
