"""Python in the graph: ``tf.py_func`` (a Python function as an op), ``tf.Print`` and
``tf.print`` (print while the step runs), ``tf.timestamp`` (the host's clock when the op
runs) and ``tf.identity_n``."""

from __future__ import annotations

import itertools
import sys
import threading
import time

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.registry import not_differentiable, register_gradient, register_op
from ..framework.tensor_shape import TensorShape
from ..platform import placement
from .op_util import make_op, make_tensor

# ---------------------------------------------------------------------------
# PyFunc: the function lives in this process's registry; the op holds its token, so the
# graph stays plain data (a graph holding it cannot run in another process, as in TF).

_functions: dict[str, object] = {}
_tokens = itertools.count()
_functions_lock = threading.Lock()

# Python exceptions raised by a py_func, as TensorFlow maps them.
_EXCEPTION_CLASSES = [
    (StopIteration, errors.OutOfRangeError),
    (IndexError, errors.OutOfRangeError),
    (MemoryError, errors.ResourceExhaustedError),
    (NotImplementedError, errors.UnimplementedError),
    ((TypeError, ValueError), errors.InvalidArgumentError),
]


def _py_func_dtypes(op):
    return list(op._attr("Tout"))


@register_op("PyFunc", shape=lambda op: [TensorShape(None)] * len(op._attr("Tout")),
             dtype=_py_func_dtypes, stateful=True, list_output=True, may_alias=True)
def _py_func_kernel(xp, *inputs, token, Tout):  # noqa: N803 - TF's attr name
    func = _functions.get(token)
    if func is None:
        raise errors.InvalidArgumentError(None, None, f"py_func '{token}' is not registered in this process "
                                                      "(a graph holding a py_func runs only where it was built)")
    try:
        # (a scalar as NumPy's scalar, a string's as bytes, as TF hands them: a dict key, say)
        args = [x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x for x in inputs]
        with placement.released():  # (user code: a process it starts must not inherit a held core)
            result = func(*args)
    except errors.OpError:
        raise
    except Exception as e:  # noqa: BLE001 - mapped to TF's class below
        for python_cls, tf_cls in _EXCEPTION_CLASSES:
            if isinstance(e, python_cls):
                raise tf_cls(None, None, f"{type(e).__name__}: {e}") from e
        raise errors.UnknownError(None, None, f"{type(e).__name__}: {e}") from e
    if result is None and not Tout:
        return ()  # (a function run for its effect)
    if not isinstance(result, (list, tuple)):
        result = [result]
    result = list(result)
    if len(result) != len(Tout):
        raise errors.InvalidArgumentError(None, None, f"py_func returned {len(result)} values, "
                                                      f"but Tout has {len(Tout)}")
    out = []
    for i, (value, dtype) in enumerate(zip(result, Tout)):
        if dtype == dtypes.string:  # (each element as bytes: a str as its UTF-8, as TF converts them)
            arr = np.array(value, dtype=object)
            flat = arr.reshape(-1)
            for j, item in enumerate(flat):
                if isinstance(item, str):
                    flat[j] = item.encode()
                elif isinstance(item, np.bytes_):
                    flat[j] = bytes(item)
                elif not isinstance(item, bytes):
                    raise errors.InvalidArgumentError(None, None, f"py_func's output {i} should be strings, got an "
                                                                  f"element of type {type(item).__name__}")
        else:
            arr = np.asarray(value)
            want = dtype.as_numpy_dtype
            if arr.dtype != want:
                if not np.can_cast(arr.dtype, want, casting="same_kind") and arr.size:
                    raise errors.InvalidArgumentError(None, None, f"py_func's output {i} should be "
                                                                  f"{dtype.name}, got {arr.dtype}")
                arr = arr.astype(want)
        out.append(arr)
    return tuple(out)


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TF's argument name
    """Wraps the Python function ``func`` (NumPy arrays in, NumPy arrays out) as an op.

    Returns a Tensor when ``Tout`` is one dtype, a list when it is a list (the op itself
    when that list is empty). The outputs' shapes are unknown (``set_shape`` them); the op
    has no gradient (as in TF 1.x), and it runs only in the process that built it. Exceptions become TF's classes:
    ``StopIteration`` OutOfRangeError, ``ValueError``/``TypeError`` InvalidArgumentError.
    """
    single = not isinstance(Tout, (list, tuple))
    tout = [dtypes.as_dtype(t) for t in ([Tout] if single else Tout)]
    with _functions_lock:
        token = f"pyfunc_{next(_tokens)}"
        _functions[token] = func
    inputs = [ops.convert_to_tensor(x) for x in (inp if isinstance(inp, (list, tuple)) else [inp])]
    op = make_op("PyFunc", inputs, {"token": token, "Tout": tout}, name or "PyFunc")
    if not stateful:
        op._set_attr("_stateless", True)
    if not single and not tout:
        return op  # (nothing to return but the op to run, as TF's)
    return op.outputs[0] if single else list(op.outputs)


numpy_function = py_func

# ---------------------------------------------------------------------------
# Print: passes its first input through and prints the others while the step runs.


def _element(v) -> str:
    """One element as TF's Print shows it: a float in the fewest of 6 (15 for float64) or 9
    (17) significant digits that reads back as itself ("1", "0.1", "1e-05"), an integer as is,
    bytes as text."""
    if isinstance(v, (np.floating, float)):
        digits = (15, 17) if isinstance(v, (np.float64, float)) else (6, 9)
        text = f"{v:.{digits[0]}g}"
        return text if type(v)(text) == v or np.isnan(v) else f"{v:.{digits[1]}g}"
    if isinstance(v, bytes):
        return v.decode("utf-8", "backslashreplace")
    return str(v)


def _summarized(value: np.ndarray, summarize: int) -> str:
    """A tensor's first ``summarize`` elements as TF's Print shows them, in brackets: "[7]",
    "[1 2...]", "[[1 2][3...]...]" (a bracket for each dimension but the last; "..." where
    elements are left out)."""
    value = np.asarray(value)
    flat = value.reshape(-1)
    limit = min(summarize, flat.size) if summarize >= 0 else flat.size
    if value.ndim <= 1:
        body = " ".join(_element(v) for v in flat[:limit])
    else:
        parts, index = [], [0]

        def dim(d):
            if index[0] >= limit:
                return
            if d == value.ndim - 1:
                for i in range(value.shape[d]):
                    if index[0] >= limit:
                        if d != 0:
                            parts.append("...")
                        return
                    if i:
                        parts.append(" ")
                    parts.append(_element(flat[index[0]]))
                    index[0] += 1
                return
            for _ in range(value.shape[d]):
                opened = index[0] < limit
                if opened:
                    parts.append("[")
                dim(d + 1)
                if opened:
                    parts.append("]")

        dim(0)
        body = "".join(parts)
    return f"[{body}{'...' if flat.size > limit else ''}]"


@register_op("Print", shape=lambda op: op.inputs[0].shape, stateful=True, may_alias=True)
def _print_kernel(ctx, value, *data, message, first_n, summarize):
    with _functions_lock:  # the count is the session's, per op, as TF's kernel instance keeps it
        count = ctx.state["count"] = ctx.state.get("count", 0) + 1
    if 0 <= first_n < count:
        return value
    sys.stderr.write(message + "".join(_summarized(d, summarize) for d in data) + "\n")
    sys.stderr.flush()
    return value


@register_gradient("Print")
def _print_grad(op, grad):
    return (grad,) + (None,) * (len(op.inputs) - 1)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802 - TF's name
    """Returns ``input_``; each time it is computed, prints ``message`` and ``data`` to stderr.

    ``first_n`` limits it to the first n times; ``summarize`` is how many entries of
    each tensor to show (3 by default), as TF 1.x's Print.
    """
    input_ = ops.convert_to_tensor(input_)
    data = [ops.convert_to_tensor(d) for d in (data or [])]
    attrs = {"message": message or "", "first_n": -1 if first_n is None else int(first_n),
             "summarize": 3 if summarize is None else int(summarize)}
    return make_op("Print", [input_] + data, attrs, name or "Print").outputs[0]


@register_op("PrintV2", shape=lambda op: [], stateful=True)
def _print_v2_kernel(xp, *inputs, template, output_stream, summarize):
    parts = [_summarized(v, summarize) if isinstance(v, np.ndarray) and v.dtype != object or np.ndim(v)
             else str(v.item() if isinstance(v, np.ndarray) else v) for v in inputs]
    stream = sys.stdout if output_stream == "stdout" else sys.stderr
    stream.write(template.format(*parts) + "\n")
    stream.flush()


def print(*inputs, output_stream=sys.stderr, summarize=3, sep=" ", end=None, name=None):  # noqa: A001
    """``tf.print``: an op that prints its inputs (Python values as they are) when it runs."""
    tensors, pieces = [], []
    for value in inputs:
        if isinstance(value, ops.Tensor) or hasattr(value, "_as_graph_element"):
            tensors.append(ops.convert_to_tensor(value))
            pieces.append("{}")
        else:
            pieces.append(str(value).replace("{", "{{").replace("}", "}}"))
    stream = "stdout" if output_stream in (sys.stdout, "stdout") else "stderr"
    template = sep.join(pieces) + ("" if end is None else end.rstrip("\n"))
    return make_op("PrintV2", tensors, {"template": template, "output_stream": stream,
                                        "summarize": int(summarize)}, name or "PrintV2")


# ---------------------------------------------------------------------------
# IdentityN


@register_op("IdentityN", shape=lambda op: [t.shape for t in op.inputs],
             dtype=lambda op: [t.dtype.base_dtype for t in op.inputs], list_output=True, may_alias=True)
def _identity_n_kernel(xp, *inputs):
    return tuple(inputs)


@register_gradient("IdentityN")
def _identity_n_grad(op, *grads):
    return grads


def identity_n(input, name=None) -> list:  # noqa: A002
    """Each input passed through unchanged, as one op."""
    tensors = [ops.convert_to_tensor(x) for x in input]
    return list(make_op("IdentityN", tensors, None, name or "IdentityN").outputs)


not_differentiable("PrintV2")


@register_op("Timestamp", shape=lambda op: TensorShape([]), dtype=lambda op: dtypes.float64, stateful=True)
def _timestamp_kernel(xp):
    return np.array(time.time(), dtype=np.float64)


not_differentiable("Timestamp")


def timestamp(name=None):
    """Seconds since the epoch when the op runs (float64)."""
    return make_tensor("Timestamp", [], None, name or "Timestamp")
