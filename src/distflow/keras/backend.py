"""``tf.keras.backend``: the session Keras runs its graphs in, the learning phase, and the
tensor functions Keras programs call through ``K``.

Keras in TF 1.x graph mode keeps one session per process (``get_session``), made on first
use for the default graph, and a *learning phase*: a boolean placeholder, False unless fed,
that layers such as Dropout and BatchNormalization read; ``fit`` feeds True.
"""

from __future__ import annotations

import numpy as np

from .. import (cast, clip_by_value, concat, equal, exp, get_default_graph, log,
                placeholder_with_default, reduce_max, reduce_mean, reduce_min, reduce_sum, reshape, sqrt, square,
                transpose, Variable, variables_initializer, reset_default_graph, Session, nn, gradients as _gradients,
                argmax as _argmax, matmul, stack as _stack, abs as _abs, maximum as _maximum, minimum as _minimum,
                shape as _shape, zeros as _zeros, ones as _ones, expand_dims as _expand_dims, squeeze as _squeeze,
                tile as _tile, sign as _sign, pow as _pow, one_hot as _one_hot, gather as _gather)
from .. import constant as _tf_constant, placeholder as _tf_placeholder
from ..framework import dtypes, ops

_SESSION = {"session": None, "graph": None}
_LEARNING_PHASE: dict = {}  # graph -> the learning-phase placeholder
_FIXED_PHASE: dict = {}  # graph -> 0 or 1, set by set_learning_phase
_UIDS: dict = {}  # graph -> {prefix: count}
_FLOATX = ["float32"]
_EPSILON = [1e-7]
_IMAGE_FORMAT = ["channels_last"]


# -- configuration -------------------------------------------------------------------------
def floatx() -> str:
    return _FLOATX[0]


def set_floatx(value: str) -> None:
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"Unknown floatx type: {value!r} (one of float16, float32, float64)")
    _FLOATX[0] = str(value)


def epsilon() -> float:
    return _EPSILON[0]


def set_epsilon(value: float) -> None:
    _EPSILON[0] = float(value)


def image_data_format() -> str:
    return _IMAGE_FORMAT[0]


def set_image_data_format(value: str) -> None:
    if value not in ("channels_last", "channels_first"):
        raise ValueError(f"Unknown data_format: {value!r}")
    _IMAGE_FORMAT[0] = value


def backend() -> str:
    return "tensorflow"


# -- session and graph ---------------------------------------------------------------------
def get_session(op_input_list=()):
    """The session Keras runs in: the default session if there is one, else Keras's own for
    the default graph (made on first use). Variables not yet initialized are initialized."""
    session = ops.get_default_session()
    if session is None:
        graph = get_default_graph()
        if _SESSION["session"] is None or _SESSION["graph"] is not graph or _SESSION["session"]._closed:
            _SESSION["session"], _SESSION["graph"] = Session(graph=graph), graph
        session = _SESSION["session"]
    _initialize_variables(session)
    return session


def set_session(session) -> None:
    """Makes ``session`` the one Keras uses (for its graph)."""
    _SESSION["session"], _SESSION["graph"] = session, session.graph


def clear_session() -> None:
    """Forgets Keras's session, the layer name counters and the learning phase, and starts a
    new default graph (as TF 1.x's)."""
    session = _SESSION["session"]
    if session is not None and not session._closed:
        session.close()
    _SESSION["session"] = _SESSION["graph"] = None
    reset_default_graph()
    _LEARNING_PHASE.clear()
    _FIXED_PHASE.clear()
    _UIDS.clear()


def _initialize_variables(session) -> None:
    graph = session.graph
    made = getattr(graph, "_keras_initialized", None)
    if made is None:
        made = graph._keras_initialized = set()
    with graph.as_default():
        fresh = [v for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) if id(v) not in made]
        if not fresh:
            return
        flags = session.run([_is_initialized(v) for v in fresh])
        todo = [v for v, done in zip(fresh, flags) if not done]
        if todo:
            session.run(variables_initializer(todo))
        made.update(id(v) for v in fresh)


def _is_initialized(v):
    from .. import is_variable_initialized  # noqa: PLC0415 (a graph op per variable, made once)
    return is_variable_initialized(v)


def get_uid(prefix: str = "") -> int:
    """1, 2, ... for each ``prefix`` in the default graph (Keras's layer names: dense, dense_1, ...)."""
    counts = _UIDS.setdefault(get_default_graph(), {})
    counts[prefix] = counts.get(prefix, 0) + 1
    return counts[prefix]


def reset_uids() -> None:
    _UIDS.pop(get_default_graph(), None)


def unique_name(prefix: str) -> str:
    uid = get_uid(prefix)
    return prefix if uid == 1 else f"{prefix}_{uid - 1}"


def learning_phase():
    """The learning phase of the default graph: 0 or 1 if set with ``set_learning_phase``,
    else a boolean placeholder that is False unless fed (``fit`` feeds True)."""
    graph = get_default_graph()
    if graph in _FIXED_PHASE:
        return _FIXED_PHASE[graph]
    phase = _LEARNING_PHASE.get(graph)
    if phase is None:
        with ops.name_scope(""):
            phase = _LEARNING_PHASE[graph] = placeholder_with_default(False, shape=[], name="keras_learning_phase")
    return phase


def set_learning_phase(value) -> None:
    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _FIXED_PHASE[get_default_graph()] = int(value)


def _phase_placeholder(graph):
    """The learning-phase placeholder of ``graph`` if one was made (what ``fit`` feeds)."""
    return _LEARNING_PHASE.get(graph)


# -- variables and values ------------------------------------------------------------------
def variable(value, dtype=None, name=None, constraint=None):
    dtype = dtype or floatx()
    value = np.asarray(value, dtype=dtypes.as_dtype(dtype).as_numpy_dtype)
    return Variable(value, dtype=dtype, name=name or "Variable", constraint=constraint)


def constant_(value, dtype=None, shape=None, name=None):
    return _tf_constant(value, dtype=dtype or floatx(), shape=shape, name=name)


def placeholder_(shape=None, ndim=None, dtype=None, sparse=False, name=None):
    if shape is None and ndim is not None:
        shape = (None,) * ndim
    return _tf_placeholder(dtype or floatx(), shape=shape, name=name)


def get_value(x):
    return get_session().run(x)


def batch_get_value(tensors) -> list:
    return get_session().run(list(tensors)) if tensors else []


def set_value(x, value) -> None:
    batch_set_value([(x, value)])


def batch_set_value(tuples) -> None:
    """Assigns each ``(variable, value)`` through one placeholder per variable, made once."""
    tuples = list(tuples)
    if not tuples:
        return
    session = get_session()
    fetches, feeds = [], {}
    for var, value in tuples:
        value = np.asarray(value, dtype=var.dtype.base_dtype.as_numpy_dtype)
        assign = getattr(var, "_keras_assign", None)
        if assign is None:
            with var.graph.as_default():
                ph = _tf_placeholder(var.dtype.base_dtype, shape=None)
                assign = var._keras_assign = (ph, var.assign(ph))
        feeds[assign[0]] = value
        fetches.append(assign[1])
    session.run(fetches, feeds)


def int_shape(x):
    shape = x.shape
    return None if shape.ndims is None else tuple(shape.as_list())


def ndim(x):
    return x.shape.ndims


def dtype(x) -> str:
    return x.dtype.base_dtype.name


def eval(x):  # noqa: A001 - Keras's name
    return get_value(x)


def count_params(x) -> int:
    return int(np.prod(x.shape.as_list()))


def is_keras_tensor(x) -> bool:
    """Whether ``x`` came out of a Keras layer or Input."""
    if not isinstance(x, ops.Tensor):
        raise ValueError(f"Unexpectedly found an instance of type `{type(x)}`. Expected a symbolic tensor instance.")
    return x in _history_table(x.graph)


def _history_table(graph=None):
    """Which Keras layer call made each tensor of ``graph`` (the default graph if None)."""
    graph = graph or get_default_graph()
    table = getattr(graph, "_keras_history", None)
    if table is None:
        table = graph._keras_history = {}
    return table


def _unconditional_table(graph=None) -> set:
    """The ids of ``graph``'s Keras updates and losses that no layer call made (they run
    whatever a model is fed)."""
    graph = graph or get_default_graph()
    table = getattr(graph, "_keras_unconditional", None)
    if table is None:
        table = graph._keras_unconditional = set()
    return table


def _made_in_calls(graph=None) -> list:
    """The Keras updates and losses that layer calls of ``graph`` made, in order, as
    ("update" or "loss", tensor): the slice a call made is its node's (``Node.made``)."""
    graph = graph or get_default_graph()
    log = getattr(graph, "_keras_made_in_calls", None)
    if log is None:
        log = graph._keras_made_in_calls = []
    return log


def _mask_table():
    """Keras masks of the default graph's tensors (``Embedding(mask_zero=True)`` makes them)."""
    graph = get_default_graph()
    table = getattr(graph, "_keras_masks", None)
    if table is None:
        table = graph._keras_masks = {}
    return table


# -- functions -------------------------------------------------------------------------------
class Function:
    """``K.function(inputs, outputs, updates)``: a callable that runs ``outputs`` (and the
    updates) with ``inputs`` fed from a list of values."""

    def __init__(self, inputs, outputs, updates=None, name=None, **session_kwargs):
        self.inputs = list(inputs)
        self._single = not isinstance(outputs, (list, tuple))
        self.outputs = [outputs] if self._single else list(outputs)
        self.updates = list(updates or [])
        self.fetches = session_kwargs.pop("fetches", [])

    def __call__(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        feeds = {}
        for tensor, value in zip(self.inputs, inputs):
            if isinstance(tensor, int):
                continue
            feeds[tensor] = value
        out = get_session().run(self.outputs + self.updates + list(self.fetches), feeds)
        return out[0] if self._single else out[:len(self.outputs)]


def function(inputs, outputs, updates=None, name=None, **kwargs) -> Function:
    return Function(inputs, outputs, updates, name, **kwargs)


def gradients(loss, variables):
    return _gradients(loss, variables, colocate_gradients_with_ops=True)


def mean(x, axis=None, keepdims=False):
    return reduce_mean(_to_float(x), axis, keepdims=keepdims)


def sum(x, axis=None, keepdims=False):  # noqa: A001
    return reduce_sum(x, axis, keepdims=keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001
    return reduce_max(x, axis, keepdims=keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    return reduce_min(x, axis, keepdims=keepdims)


def _to_float(x):
    return cast(x, floatx()) if x.dtype.base_dtype in (dtypes.bool,) or x.dtype.is_integer else x


def argmax(x, axis=-1):
    return _argmax(x, axis)


def dot(x, y):
    if x.shape.ndims == 2 and y.shape.ndims == 2:
        return matmul(x, y)
    from .. import tensordot  # noqa: PLC0415
    return tensordot(x, y, [[x.shape.ndims - 1], [y.shape.ndims - 2]])


def batch_dot(x, y, axes=None):
    """Per-sample dot products of ``x`` and ``y`` over ``axes`` (x's axis, y's axis; one int
    for both): the result has x's other axes, then y's, after the batch; [batch, 1] where
    nothing else is left. By default x's last axis meets y's second-to-last (its last for
    2-D y), as a batched matmul."""
    x, y = ops.convert_to_tensor(x), ops.convert_to_tensor(y)
    x_rank, y_rank = x.shape.ndims, y.shape.ndims
    if x_rank is None or y_rank is None or x_rank < 2 or y_rank < 2:
        raise ValueError(f"batch_dot needs inputs of rank 2 or more, got shapes {x.shape} and {y.shape}")
    if axes is None:
        axes = (x_rank - 1, y_rank - 1 if y_rank == 2 else y_rank - 2)
    elif isinstance(axes, int):
        axes = (axes, axes)
    ax, ay = axes[0] % x_rank, axes[1] % y_rank
    if ax == 0 or ay == 0:
        raise ValueError(f"batch_dot cannot contract the batch axis, got axes {axes}")
    if x.shape[ax].value is not None and y.shape[ay].value is not None and x.shape[ax].value != y.shape[ay].value:
        raise ValueError(f"batch_dot: axis {ax} of x ({x.shape}) and axis {ay} of y ({y.shape}) differ in size")
    # (x with the contracted axis last, y with it first after the batch; both flattened to 3-D)
    x = transpose(x, [i for i in range(x_rank) if i != ax] + [ax])
    y = transpose(y, [0, ay] + [i for i in range(1, y_rank) if i != ay])
    x_shape, y_shape = _shape(x), _shape(y)
    out = matmul(reshape(x, concat([x_shape[:1], [-1], x_shape[-1:]], 0)),
                 reshape(y, concat([y_shape[:2], [-1]], 0)))
    out = reshape(out, concat([x_shape[:-1], y_shape[2:]], 0))
    return _expand_dims(out, 1) if x_rank + y_rank == 4 else out


def clip(x, min_value, max_value):
    return clip_by_value(x, min_value, max_value)


def softmax(x, axis=-1):
    return nn.softmax(x, axis=axis)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Keras's categorical cross-entropy: with probabilities (not logits), they are
    normalized to sum to one and clipped to [epsilon, 1 - epsilon]."""
    if from_logits:
        return nn.softmax_cross_entropy_with_logits_v2(labels=target, logits=output, axis=axis)
    output = output / reduce_sum(output, axis, keepdims=True)
    output = clip_by_value(output, epsilon(), 1.0 - epsilon())
    return -reduce_sum(cast(target, output.dtype) * log(output), axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    target = cast(reshape(target, [-1]), dtypes.int64)
    if not from_logits:
        output = clip_by_value(output, epsilon(), 1.0 - epsilon())
        output = log(output)
    logits_shape = _shape(output)
    flat = reshape(output, [-1, logits_shape[-1]])
    losses = nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=flat)
    return reshape(losses, logits_shape[:-1]) if output.shape.ndims and output.shape.ndims > 2 else losses


def binary_crossentropy(target, output, from_logits=False):
    if not from_logits:
        output = clip_by_value(output, epsilon(), 1.0 - epsilon())
        output = log(output / (1.0 - output))
    return nn.sigmoid_cross_entropy_with_logits(labels=cast(target, output.dtype), logits=output)


def concatenate(tensors, axis=-1):
    return concat(list(tensors), axis)


def stack(x, axis=0):
    return _stack(x, axis=axis)


def flatten(x):
    return reshape(x, [-1])


def batch_flatten(x):
    return reshape(x, [-1, int(np.prod(x.shape.as_list()[1:]))]) if x.shape[1:].is_fully_defined() else \
        reshape(x, _stack([_shape(x)[0], -1]))


def permute_dimensions(x, pattern):
    return transpose(x, list(pattern))


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """Keras's relu: ``x`` where ``x >= threshold``, else ``alpha * (x - threshold)``; at most
    ``max_value``."""
    if threshold:
        from .. import greater_equal, where  # noqa: PLC0415
        out = where(greater_equal(x, threshold), x, alpha * (x - threshold))
    else:
        out = nn.relu(x) if alpha == 0.0 else nn.leaky_relu(x, alpha)
    return out if max_value is None else _minimum(out, max_value)


def sigmoid(x):
    return nn.sigmoid(x)


def hard_sigmoid(x):
    return clip_by_value(0.2 * x + 0.5, 0.0, 1.0)


def tanh(x):
    return nn.tanh(x)


def dropout(x, level, noise_shape=None, seed=None):
    return nn.dropout(x, rate=level, noise_shape=noise_shape, seed=seed)


def in_train_phase(x, alt, training=None):
    """``x`` in training, ``alt`` otherwise (``training`` defaults to the learning phase)."""
    from .. import cond  # noqa: PLC0415
    training = learning_phase() if training is None else training
    if isinstance(training, ops.Tensor):
        return cond(training, x if callable(x) else (lambda: x), alt if callable(alt) else (lambda: alt))
    chosen = x if training else alt  # (a fixed phase: True/1 or False/0)
    return chosen() if callable(chosen) else chosen


def in_test_phase(x, alt, training=None):
    return in_train_phase(alt, x, training)


def l2_normalize(x, axis=None):
    return nn.l2_normalize(x, axis)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    from .. import random_normal as normal  # noqa: PLC0415
    return normal(shape, mean, stddev, dtype or floatx(), seed=seed)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    from .. import random_uniform as uniform  # noqa: PLC0415
    return uniform(shape, minval, maxval, dtype or floatx(), seed=seed)


def zeros_like(x, dtype=None, name=None):
    from .. import zeros_like as like  # noqa: PLC0415
    return like(x, dtype=dtype, name=name)


def ones_like(x, dtype=None, name=None):
    from .. import ones_like as like  # noqa: PLC0415
    return like(x, dtype=dtype, name=name)


def var(x, axis=None, keepdims=False):
    m = reduce_mean(x, axis, keepdims=True)
    return reduce_mean(square(x - m), axis, keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    return sqrt(var(x, axis, keepdims))


def any(x, axis=None, keepdims=False):  # noqa: A001
    from .. import reduce_any  # noqa: PLC0415
    return reduce_any(cast(x, "bool"), axis, keepdims=keepdims)


def all(x, axis=None, keepdims=False):  # noqa: A001
    from .. import reduce_all  # noqa: PLC0415
    return reduce_all(cast(x, "bool"), axis, keepdims=keepdims)


def switch(condition, then_expression, else_expression):
    """``then_expression`` where ``condition`` holds, else ``else_expression`` (elementwise for
    a tensor condition; a scalar condition picks one, as ``tf.cond``)."""
    from .. import cond, where  # noqa: PLC0415
    if condition.shape.ndims == 0:
        pick = (lambda e: e if callable(e) else (lambda: e))
        return cond(condition, pick(then_expression), pick(else_expression))
    return where(condition, then_expression, else_expression)


def cumsum(x, axis=0):
    from .. import cumsum as cumulative  # noqa: PLC0415
    return cumulative(x, axis=axis)


def arange(start, stop=None, step=1, dtype="int32"):
    from .. import range as span  # noqa: PLC0415
    return span(start, stop, step, dtype=dtype) if stop is not None else span(start, dtype=dtype)


def softplus(x):
    return nn.softplus(x)


def softsign(x):
    return nn.softsign(x)


def elu(x, alpha=1.0):
    out = nn.elu(x)
    return out if alpha == 1.0 else _maximum(x, 0.0) + alpha * _minimum(out, 0.0)


def round(x):  # noqa: A001
    from .. import round as rounded  # noqa: PLC0415
    return rounded(x)


def greater(x, y):
    from .. import greater as op  # noqa: PLC0415
    return op(x, y)


def less(x, y):
    from .. import less as op  # noqa: PLC0415
    return op(x, y)


def not_equal(x, y):
    from .. import not_equal as op  # noqa: PLC0415
    return op(x, y)


abs = _abs  # noqa: A001
sqrt = sqrt
square = square
exp = exp
log = log
equal = equal
cast = cast
reshape = reshape
transpose = transpose
maximum = _maximum
minimum = _minimum
shape = _shape
zeros = _zeros
ones = _ones
expand_dims = _expand_dims
squeeze = _squeeze
tile = _tile
sign = _sign
pow = _pow  # noqa: A001
one_hot = _one_hot
gather = _gather
constant = constant_
placeholder = placeholder_


def _warn(message: str) -> None:
    from ..platform import tf_logging  # noqa: PLC0415
    tf_logging.warning(message)
