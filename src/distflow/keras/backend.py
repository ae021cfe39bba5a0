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
from .. import (Print, SparseTensor, TensorArray, argmin as _argmin, assign, assign_add, assign_sub,
                cos as _cos, foldl as _foldl, foldr as _foldr, gather_nd, greater as _greater,
                greater_equal as _greater_equal, less as _less, less_equal as _less_equal, not_equal as _not_equal,
                round as _round, map_fn as _map_fn, pad as _pad, random_normal_initializer,
                random_uniform as _random_uniform, random_uniform_initializer, reduce_prod, repeat as _repeat,
                reverse as _reverse, sequence_mask, sin as _sin, sparse_placeholder, sparse_tensor_to_dense,
                sparse_to_dense, stop_gradient as _stop_gradient, truncated_normal as _truncated_normal, where,
                where_v2, while_loop, zeros_like as _zeros_like)
from ..framework import dtypes, ops
from ..framework.tensor_shape import TensorShape
from ..ops.conv3d_ops import conv3d as _conv3d
from ..ops.convolution_ops import conv1d as _conv1d, separable_conv2d as _separable_conv2d
from ..train.moving_averages import assign_moving_average

_SESSION = {"session": None, "graph": None}
_LEARNING_PHASE: dict = {}  # graph -> the learning-phase placeholder
_FIXED_PHASE: dict = {}  # graph -> 0 or 1, set by set_learning_phase
_UIDS: dict = {}  # graph -> {prefix: count}
_FLOATX = ["float32"]
_EPSILON = [1e-7]
_IMAGE_FORMAT = ["channels_last"]
_MANUAL_INIT = [False]  # manual_variable_initialization


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
    if not _MANUAL_INIT[0]:
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
        fresh = [v for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) +
                 ops.get_collection(ops.GraphKeys.METRIC_VARIABLES) if id(v) not in made]
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
    """A variable holding ``value``; a SciPy sparse matrix gives a constant SparseTensor."""
    dtype = dtype or floatx()
    if hasattr(value, "tocoo"):
        coo = value.tocoo()
        return SparseTensor(np.stack([coo.row, coo.col], 1).astype(np.int64),
                            coo.data.astype(dtypes.as_dtype(dtype).as_numpy_dtype), coo.shape)
    value = np.asarray(value, dtype=dtypes.as_dtype(dtype).as_numpy_dtype)
    return Variable(value, dtype=dtype, name=name or "Variable", constraint=constraint)


def constant_(value, dtype=None, shape=None, name=None):
    return _tf_constant(value, dtype=dtype or floatx(), shape=shape, name=name)


def placeholder_(shape=None, ndim=None, dtype=None, sparse=False, name=None):
    if shape is None and ndim is not None:
        shape = (None,) * ndim
    if sparse:
        return sparse_placeholder(dtype or floatx(), shape=shape, name=name)
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
        setter = getattr(var, "_keras_assign", None)
        if setter is None:
            with var.graph.as_default():
                ph = _tf_placeholder(var.dtype.base_dtype, shape=None)
                setter = var._keras_assign = (ph, var.assign(ph))
        feeds[setter[0]] = value
        fetches.append(setter[1])
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
    """Whether ``x`` came out of a Keras layer or Input (a variable or sparse tensor did not)."""
    if isinstance(x, (Variable, SparseTensor)):
        return False
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
    """``K.function(inputs, outputs, updates)``: a callable that runs ``outputs`` with
    ``inputs`` fed from a list of values, then the updates: ops, or ``(variable, new value)``
    pairs, run after the outputs are computed. Of the session's arguments, ``feed_dict``
    (more feeds, read at each call), ``fetches`` (more to run, their values not returned),
    ``options`` and ``run_metadata`` are accepted."""

    _SESSION_ARGS = ("feed_dict", "fetches", "options", "run_metadata")

    def __init__(self, inputs, outputs, updates=None, name=None, **session_kwargs):
        unknown = sorted(set(session_kwargs) - set(self._SESSION_ARGS))
        if unknown:
            raise ValueError(f"Invalid argument {unknown[0]!r} passed to K.function (of the session's arguments, "
                             f"{', '.join(self._SESSION_ARGS)} are accepted)")
        if not isinstance(inputs, (list, tuple)):
            raise TypeError(f"K.function: inputs should be a list or tuple, got {type(inputs).__name__}")
        self.inputs = list(inputs)
        self._single = not isinstance(outputs, (list, tuple))
        self.outputs = [outputs] if self._single else list(outputs)
        self.name = name
        with ops.control_dependencies([o for o in self.outputs if isinstance(o, (ops.Tensor, ops.Operation))]):
            self.updates = [assign(*u) if isinstance(u, (list, tuple)) else u for u in updates or []]
        self.feed_dict = session_kwargs.get("feed_dict") or {}
        self.fetches = list(session_kwargs.get("fetches") or [])
        self._run_args = {k: session_kwargs[k] for k in ("options", "run_metadata") if k in session_kwargs}

    def __call__(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        if len(inputs) != len(self.inputs):
            raise ValueError(f"K.function: {len(self.inputs)} inputs were declared, {len(inputs)} values given")
        feeds = dict(self.feed_dict)
        for tensor, value in zip(self.inputs, inputs):
            if isinstance(tensor, int):
                continue
            feeds[tensor] = value
        out = get_session().run(self.outputs + self.updates + self.fetches, feeds, **self._run_args)
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
    if x.shape.ndims is not None and x.shape.ndims < 2:
        raise ValueError(f"Cannot apply softmax to a tensor that is 1D (shape {x.shape}): it needs a batch axis")
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


def cumprod(x, axis=0):
    from .. import cumprod as cumulative  # noqa: PLC0415
    return cumulative(x, axis=axis)


def local_conv1d(inputs, kernel, kernel_size, strides, data_format=None):
    """A 1-D convolution with weights of their own at each output step: ``kernel`` is
    [output steps, kernel_size * channels, filters] (TF's layout: for channels_first the
    patch is flattened channel-major)."""
    return _local_conv(inputs, kernel, tuple(kernel_size), tuple(strides), (int_shape(kernel)[0],), data_format)


def local_conv2d(inputs, kernel, kernel_size, strides, output_shape, data_format=None):
    """The 2-D form of :func:`local_conv1d`: ``kernel`` is [rows * cols of the output,
    kernel rows * kernel cols * channels, filters]."""
    return _local_conv(inputs, kernel, tuple(kernel_size), tuple(strides), tuple(output_shape), data_format)


def _local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format):
    import itertools  # noqa: PLC0415

    data_format = data_format or image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Unknown data_format: {data_format}")
    first = data_format == "channels_first"
    features, filters = int_shape(kernel)[1], int_shape(kernel)[-1]
    rows = []
    for position in itertools.product(*(range(n) for n in output_shape)):
        window = tuple(slice(p * s, p * s + k) for p, s, k in zip(position, strides, kernel_size))
        patch = inputs[(slice(None), slice(None)) + window] if first else inputs[(slice(None),) + window]
        rows.append(reshape(patch, [1, -1, features]))
    out = matmul(concat(rows, 0), kernel)  # [positions, batch, filters]
    out = reshape(out, list(output_shape) + [-1, filters])
    n = len(output_shape)
    order = [n, n + 1] + list(range(n)) if first else [n] + list(range(n)) + [n + 1]
    return transpose(out, order)


def learning_phase_scope(value):
    """A context in which the learning phase is ``value`` (0 or 1), as
    ``set_learning_phase(value)`` sets it; the phase before comes back after."""
    import contextlib  # noqa: PLC0415

    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")

    @contextlib.contextmanager
    def scope():
        graph = get_default_graph()
        before = _FIXED_PHASE.get(graph)
        _FIXED_PHASE[graph] = int(value)
        try:
            yield value
        finally:
            if before is None:
                _FIXED_PHASE.pop(graph, None)
            else:
                _FIXED_PHASE[graph] = before

    return scope()


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


def argmin(x, axis=-1):
    return _argmin(x, axis)


def prod(x, axis=None, keepdims=False):
    return reduce_prod(x, axis, keepdims=keepdims)


def cast_to_floatx(x):
    """``x`` as a NumPy array of the float type Keras uses (``floatx()``)."""
    return np.asarray(x, dtype=floatx())


def eye(size, dtype=None, name=None):
    """A variable holding the ``size`` x ``size`` identity matrix."""
    return variable(np.eye(size), dtype, name)


def reverse(x, axes):
    return _reverse(x, [axes] if isinstance(axes, int) else list(axes))


def stop_gradient(variables):
    """``tf.stop_gradient`` of a tensor, or of each tensor of a list."""
    if isinstance(variables, (list, tuple)):
        return [_stop_gradient(v) for v in variables]
    return _stop_gradient(variables)


def is_sparse(tensor) -> bool:
    return isinstance(tensor, SparseTensor)


def to_dense(tensor):
    return sparse_tensor_to_dense(tensor) if is_sparse(tensor) else tensor


def is_placeholder(x) -> bool:
    op = getattr(x, "op", None)
    return op is not None and op.type in ("Placeholder", "PlaceholderWithDefault")


def print_tensor(x, message=""):
    """``x``, printing its value with ``message`` each time it is computed."""
    return Print(x, [x], message)


def map_fn(fn, elems, name=None, dtype=None):
    return _map_fn(fn, elems, name=name, dtype=dtype)


def foldl(fn, elems, initializer=None, name=None):
    return _foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn, elems, initializer=None, name=None):
    return _foldr(fn, elems, initializer=initializer, name=name)


def in_top_k(predictions, targets, k):
    return nn.in_top_k(predictions, targets, k)


# -- variables updated in place (update, update_add and update_sub: tf.assign's, below) -------
def moving_average_update(x, value, momentum):
    """``x = momentum * x + (1 - momentum) * value`` (no zero-debiasing, as Keras's batch
    normalization keeps its moving statistics)."""
    return assign_moving_average(x, value, momentum, zero_debias=False)


def manual_variable_initialization(value) -> None:
    """With True, Keras leaves the initialization of variables to the program: ``get_session``
    no longer initializes the ones not yet initialized."""
    _MANUAL_INIT[0] = bool(value)


# -- random ----------------------------------------------------------------------------------
def _seed(seed):
    return np.random.randint(10_000_000) if seed is None else seed


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return _truncated_normal(shape, mean, stddev, dtype or floatx(), seed=_seed(seed))


def random_binomial(shape, p=0.0, dtype=None, seed=None):
    """1 with probability ``p``, else 0, independently at each place of ``shape``."""
    dtype = dtype or floatx()
    draw = _random_uniform(shape, dtype=dtype, seed=_seed(seed))
    return where(_less_equal(draw, p), _ones(shape, dtype=dtype), _zeros(shape, dtype=dtype))


def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    """A variable initialized from a normal distribution of ``mean`` and standard deviation ``scale``."""
    dtype = dtype or floatx()
    value = random_normal_initializer(mean, scale, seed=_seed(seed), dtype=dtype)(shape)
    return Variable(value, dtype=dtype, name=name or "Variable")


def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    """A variable initialized from a uniform distribution over [``low``, ``high``)."""
    dtype = dtype or floatx()
    value = random_uniform_initializer(low, high, seed=_seed(seed), dtype=dtype)(shape)
    return Variable(value, dtype=dtype, name=name or "Variable")


# -- shapes: repeating, resizing, padding ----------------------------------------------------
def repeat(x, n):
    """[batch, dim] -> [batch, n, dim]: each sample's vector ``n`` times."""
    if x.shape.ndims != 2:
        raise ValueError(f"repeat expects a 2-D tensor [batch, dim], got shape {x.shape}")
    return _tile(_expand_dims(x, 1), [1, n, 1])


def repeat_elements(x, rep, axis):
    """Each slice of ``x`` along ``axis`` ``rep`` times in a row (as ``np.repeat``)."""
    return _repeat(x, rep, axis=axis)


def _check_format(data_format):
    data_format = data_format or image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Unknown data_format: {data_format!r} (channels_first or channels_last)")
    return data_format


def resize_images(x, height_factor, width_factor, data_format=None, interpolation="nearest"):
    """Images made ``height_factor`` times taller and ``width_factor`` times wider, each pixel
    repeated (nearest) or interpolated (bilinear)."""
    first = _check_format(data_format) == "channels_first"
    axes = (2, 3) if first else (1, 2)
    if interpolation == "nearest":
        return _repeat(_repeat(x, height_factor, axis=axes[0]), width_factor, axis=axes[1])
    if interpolation != "bilinear":
        raise ValueError(f"interpolation should be one of 'nearest' or 'bilinear', got {interpolation!r}")
    from .. import image  # noqa: PLC0415
    if first:
        x = transpose(x, [0, 2, 3, 1])
    size = _shape(x)[1:3] * np.array([height_factor, width_factor], np.int32)
    out = image.resize_bilinear(x, size, half_pixel_centers=True)
    return transpose(out, [0, 3, 1, 2]) if first else out


def resize_volumes(x, depth_factor, height_factor, width_factor, data_format=None):
    """Volumes repeated ``depth_factor``, ``height_factor`` and ``width_factor`` times along
    their three spatial axes."""
    first = _check_format(data_format) == "channels_first"
    for axis, factor in zip((2, 3, 4) if first else (1, 2, 3), (depth_factor, height_factor, width_factor)):
        x = _repeat(x, factor, axis=axis)
    return x


def _pads(padding, n: int, name: str) -> list:
    pads = [tuple(p) for p in padding]
    if len(pads) != n or [len(p) for p in pads] != [2] * n:
        raise ValueError(f"{name}: padding should be {n} pairs (before, after), got {padding!r}")
    return [list(p) for p in pads]


def temporal_padding(x, padding=(1, 1)):
    """[batch, steps, features] with ``padding[0]`` zero steps before and ``padding[1]`` after."""
    if len(padding) != 2:
        raise ValueError(f"temporal_padding: padding should be a pair (before, after), got {padding!r}")
    return _pad(x, [[0, 0], list(padding), [0, 0]])


def _spatial_padding(x, padding, data_format, n: int, name: str):
    pads = _pads(padding, n, name)
    if _check_format(data_format) == "channels_first":
        return _pad(x, [[0, 0], [0, 0]] + pads)
    return _pad(x, [[0, 0]] + pads + [[0, 0]])


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    """Images with zero rows and columns added: ``padding`` is ((top, bottom), (left, right))."""
    return _spatial_padding(x, padding, data_format, 2, "spatial_2d_padding")


def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    """Volumes with zeros added on each side of their three spatial axes."""
    return _spatial_padding(x, padding, data_format, 3, "spatial_3d_padding")


# -- convolutions, pooling, bias, normalization ----------------------------------------------
def _tuple(value, n: int):
    return (value,) * n if isinstance(value, int) else tuple(value)


def _conv_padding(padding: str) -> str:
    if padding not in ("same", "valid"):
        raise ValueError(f"Unknown padding: {padding!r} (same or valid)")
    return padding.upper()


def _last(x, first: bool, rank: int):
    """Channels-first ``x`` with its channels moved last (kernels of 3-D data are channels-last)."""
    return transpose(x, [0] + list(range(2, rank + 2)) + [1]) if first else x


def _back(x, first: bool, rank: int):
    return transpose(x, [0, rank + 1] + list(range(1, rank + 1))) if first else x


def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """1-D convolution of [batch, steps, channels] (or channels first); ``padding`` may also be
    ``"causal"``: left-padded, so that no output sees a later step."""
    first = _check_format(data_format) == "channels_first"
    strides, dilation_rate = _tuple(strides, 1)[0], _tuple(dilation_rate, 1)[0]
    if padding == "causal":
        width = ops.convert_to_tensor(kernel).shape[0].value
        left = dilation_rate * (width - 1)
        x = _pad(x, [[0, 0], [0, 0], [left, 0]] if first else [[0, 0], [left, 0], [0, 0]])
        padding = "valid"
    return _conv1d(x, kernel, stride=strides, padding=_conv_padding(padding),
                   data_format="NCW" if first else "NWC", dilations=dilation_rate)


def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    """2-D convolution of images (channels last or first) with a [h, w, in, out] kernel."""
    first = _check_format(data_format) == "channels_first"
    strides, dilation_rate = _tuple(strides, 2), _tuple(dilation_rate, 2)
    return nn.conv2d(x, kernel, (1, 1) + strides if first else (1,) + strides + (1,), _conv_padding(padding),
                     data_format="NCHW" if first else "NHWC",
                     dilations=(1, 1) + dilation_rate if first else (1,) + dilation_rate + (1,))


def conv2d_transpose(x, kernel, output_shape, strides=(1, 1), padding="valid", data_format=None):
    """The transpose (gradient) of conv2d: images of ``output_shape`` (its batch may be None:
    that of ``x``) from ``x``, with a [h, w, out, in] kernel."""
    first = _check_format(data_format) == "channels_first"
    output_shape = list(output_shape)
    if first:
        output_shape = [output_shape[0], output_shape[2], output_shape[3], output_shape[1]]
    if output_shape[0] is None:
        output_shape = _stack([_shape(x)[0]] + output_shape[1:])
    out = nn.conv2d_transpose(_last(x, first, 2), kernel, output_shape, (1,) + _tuple(strides, 2) + (1,),
                              padding=_conv_padding(padding))
    return _back(out, first, 2)


def conv3d(x, kernel, strides=(1, 1, 1), padding="valid", data_format=None, dilation_rate=(1, 1, 1)):
    """3-D convolution of volumes with a [d, h, w, in, out] kernel."""
    first = _check_format(data_format) == "channels_first"
    out = _conv3d(_last(x, first, 3), kernel, (1,) + _tuple(strides, 3) + (1,), _conv_padding(padding),
                  dilations=(1,) + _tuple(dilation_rate, 3) + (1,))
    return _back(out, first, 3)


def separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    """A depthwise convolution (each channel by its own filters), then a 1x1 pointwise one."""
    first = _check_format(data_format) == "channels_first"
    out = _separable_conv2d(_last(x, first, 2), depthwise_kernel, pointwise_kernel, (1,) + _tuple(strides, 2) + (1,),
                            _conv_padding(padding), rate=_tuple(dilation_rate, 2))
    return _back(out, first, 2)


def _pool(x, pool_size, strides, padding, data_format, pool_mode, rank: int):
    if pool_mode not in ("max", "avg"):
        raise ValueError(f"Invalid pool_mode: {pool_mode!r} (max or avg)")
    first = _check_format(data_format) == "channels_first"
    out = nn.pool(_last(x, first, rank), _tuple(pool_size, rank), "MAX" if pool_mode == "max" else "AVG",
                  _conv_padding(padding), strides=_tuple(strides, rank))
    return _back(out, first, rank)


def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    """Max or average pooling of images (``pool_mode`` "max" or "avg")."""
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 2)


def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None, pool_mode="max"):
    """Max or average pooling of volumes (``pool_mode`` "max" or "avg")."""
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 3)


def bias_add(x, bias, data_format=None):
    """``x`` plus ``bias``: a bias of one value per channel, or one of x's shape without its batch."""
    first = _check_format(data_format) == "channels_first"
    x = ops.convert_to_tensor(x)
    bias = ops.convert_to_tensor(bias, dtype=x.dtype.base_dtype)
    rank, bias_rank = x.shape.ndims, bias.shape.ndims
    if bias_rank not in (1, rank - 1):
        raise ValueError(f"Unexpected bias dimensions {bias_rank}, expect to be 1 or {rank - 1} dimensions")
    if rank <= 2 or not first:
        return nn.bias_add(x, bias) if bias_rank == 1 else x + _expand_dims(bias, 0)
    if bias_rank == 1:  # one value per channel, broadcast over the spatial axes
        return x + reshape(bias, [1, -1] + [1] * (rank - 2))
    # (a channels-last bias of x's spatial shape; Keras lays it out so)
    return x + _expand_dims(transpose(bias, [rank - 2] + list(range(rank - 2))), 0)


def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    """``gamma * (x - mean) / sqrt(var + epsilon) + beta``; statistics of one value per
    channel apply along ``axis`` (beta and gamma may be None)."""
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"batch_normalization: axis should be an int, got {axis!r} (epsilon comes after axis)")
    rank = x.shape.ndims
    stats = [None if t is None else ops.convert_to_tensor(t, dtype=x.dtype) for t in (mean, var, beta, gamma)]
    if rank is not None and axis % rank != rank - 1:
        spread = [1] * rank
        spread[axis % rank] = -1
        stats = [t if t is None or t.shape.ndims != 1 else reshape(t, spread) for t in stats]
    return nn.batch_normalization(x, *stats, epsilon)


def normalize_batch_in_training(x, gamma, beta, reduction_axes, epsilon=1e-3):
    """``x`` normalized by its mean and variance over ``reduction_axes``, scaled by ``gamma``
    and shifted by ``beta`` (either may be None); returns (normalized, mean, variance), the
    statistics without the reduced axes."""
    rank = x.shape.ndims
    reduction_axes = sorted(a % rank for a in reduction_axes)
    mean, variance = nn.moments(x, reduction_axes, keep_dims=False)
    if reduction_axes == list(range(rank - 1)):
        return nn.batch_normalization(x, mean, variance, beta, gamma, epsilon), mean, variance
    dims = _shape(x)
    target = _stack([1 if a in reduction_axes else dims[a] for a in range(rank)])
    spread = [None if t is None else reshape(t, target) for t in (mean, variance, beta, gamma)]
    return nn.batch_normalization(x, *spread, epsilon), mean, variance


# -- loops -----------------------------------------------------------------------------------
def rnn(step_function, inputs, initial_states, go_backwards=False, mask=None, constants=None, unroll=False,
        input_length=None):
    """Runs ``step_function(input_t, states + constants) -> (output_t, new_states)`` over the
    time axis (1) of ``inputs`` [samples, time, ...]. Where ``mask`` [samples, time] is False,
    a sample's output and states stay as they were (its output starts as zeros). Returns
    ``(last_output, outputs [samples, time, ...], new_states)``; with ``go_backwards`` the
    steps run last to first and ``outputs`` is in the order they ran. ``unroll`` builds one
    copy of the step per time step (the time axis must be known); otherwise one
    ``while_loop`` runs them, for any length."""
    rank = inputs.shape.ndims
    if rank is None or rank < 3:
        raise ValueError(f"rnn: inputs should be at least 3-D [samples, time, ...], got shape {inputs.shape}")
    constants = list(constants or [])
    initial_states = list(initial_states)
    time_major = [1, 0] + list(range(2, rank))
    inputs = transpose(inputs, time_major)
    if mask is not None:
        if mask.shape.ndims != 2:
            raise ValueError(f"rnn: mask should be [samples, time], got shape {mask.shape}")
        if not initial_states:
            raise ValueError("rnn: a mask needs at least one state")
        mask = transpose(cast(mask, dtypes.bool), [1, 0])
    if go_backwards:
        inputs = _reverse(inputs, [0])
        mask = None if mask is None else _reverse(mask, [0])
    if unroll:
        return _rnn_unrolled(step_function, inputs, initial_states, mask, constants)
    return _rnn_loop(step_function, inputs, initial_states, mask, constants)


def _keep(mask_t, new, old):
    """``new`` for the samples whose ``mask_t`` is True, else ``old`` ([samples] mask)."""
    rank = new.shape.ndims
    keep = reshape(mask_t, [-1] + [1] * (rank - 1)) if rank and rank > 1 else mask_t
    return where_v2(keep, new, old)  # (the mask broadcast over each sample's values)


def _rnn_unrolled(step_function, inputs, states, mask, constants):
    steps = inputs.shape[0].value
    if steps is None:
        raise ValueError("rnn: unrolling needs a fixed number of time steps")
    outputs, last = [], None
    for t in range(steps):
        output, new_states = step_function(inputs[t], states + constants)
        if mask is not None:
            last = _zeros_like(output) if last is None else last
            output = _keep(mask[t], output, last)
            new_states = [_keep(mask[t], n, s) for n, s in zip(new_states, states)]
        outputs.append(output)
        last, states = output, list(new_states)
    return outputs[-1], transpose(_stack(outputs), [1, 0] + list(range(2, outputs[-1].shape.ndims + 1))), states


def _rnn_loop(step_function, inputs, initial_states, mask, constants):
    steps = _shape(inputs)[0]
    input_ta = TensorArray(inputs.dtype, size=steps).unstack(inputs)
    mask_ta = None if mask is None else TensorArray(dtypes.bool, size=steps).unstack(mask)
    first, _ = step_function(inputs[0], initial_states + constants)  # (the output's type and shape)
    output_ta = TensorArray(first.dtype, size=steps)
    element = inputs.shape[1:]

    def body(t, output_ta, last, *states):
        x_t = input_ta.read(t)
        x_t.set_shape(element)
        output, new_states = step_function(x_t, list(states) + constants)
        if mask_ta is not None:
            keep = mask_ta.read(t)
            output = _keep(keep, output, last)
            new_states = [_keep(keep, n, s) for n, s in zip(new_states, states)]
        for new, old in zip(new_states, states):
            new.set_shape(old.shape)
        return (t + 1, output_ta.write(t, output), output) + tuple(new_states)

    result = while_loop(lambda t, *_: t < steps, body,
                        [ops.convert_to_tensor(0), output_ta, _zeros_like(first)] + initial_states)
    last, states = result[2], list(result[3:])
    last.set_shape(first.shape)
    outputs = result[1].stack()
    outputs.set_shape(TensorShape([inputs.shape[0].value]).concatenate(first.shape))
    rank = outputs.shape.ndims
    return last, transpose(outputs, [1, 0] + list(range(2, rank))), states


# -- connectionist temporal classification ---------------------------------------------------
def ctc_label_dense_to_sparse(labels, label_lengths):
    """The first ``label_lengths[i]`` labels of each row of dense ``labels`` as a SparseTensor."""
    labels = ops.convert_to_tensor(labels)
    kept = sequence_mask(label_lengths, _shape(labels)[1])
    indices = where(kept)
    return SparseTensor(indices, gather_nd(labels, indices), cast(_shape(labels), dtypes.int64))


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """The CTC loss of each sample: ``y_true`` [samples, max label length] labels,
    ``y_pred`` [samples, time, classes] softmax outputs (the last class is the blank),
    ``input_length`` and ``label_length`` [samples, 1]. Returns [samples, 1]."""
    label_length = cast(_squeeze(label_length, -1), dtypes.int32)
    input_length = cast(_squeeze(input_length, -1), dtypes.int32)
    labels = ctc_label_dense_to_sparse(cast(y_true, dtypes.int32), label_length)
    log_probs = log(transpose(y_pred, [1, 0, 2]) + epsilon())
    return _expand_dims(nn.ctc_loss(labels, log_probs, input_length), 1)


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Decodes softmax outputs ``y_pred`` [samples, time, classes] of lengths ``input_length``
    [samples]: best paths (``greedy``) or a beam search keeping ``top_paths``. Returns
    ``([decoded [samples, longest] padded with -1, per path], log probabilities)``."""
    log_probs = log(transpose(y_pred, [1, 0, 2]) + epsilon())
    input_length = cast(input_length, dtypes.int32)
    if greedy:
        decoded, log_prob = nn.ctc_greedy_decoder(log_probs, input_length)
    else:
        decoded, log_prob = nn.ctc_beam_search_decoder(log_probs, input_length, beam_width=beam_width,
                                                       top_paths=top_paths)
    dense = [sparse_to_dense(st.indices, st.dense_shape, st.values, default_value=-1) for st in decoded]
    return dense, log_prob


name_scope = ops.name_scope


abs = _abs  # noqa: A001
round = _round  # noqa: A001
greater, greater_equal, less, less_equal, not_equal = _greater, _greater_equal, _less, _less_equal, _not_equal
sin, cos = _sin, _cos
update, update_add, update_sub = assign, assign_add, assign_sub
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
