"""``tf.contrib.framework``: argument scopes and model variables, as TF-Slim programs use them.

``arg_scope([fns], **kwargs)`` gives every call of those functions (each decorated with
``add_arg_scope``) within the block these keyword arguments by default; a call's own
arguments win, and scopes nest, the inner adding to or overriding the outer. A *model
variable* is a variable of the model (in MODEL_VARIABLES besides GLOBAL_VARIABLES), as the
contrib layers make theirs. ``nest`` and the checkpoint readers (``load_checkpoint``,
``list_variables``, ``load_variable``) are tf.nest's and tf.train's, as TF 1.x had them here too.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import re

import numpy as np

from .. import nest  # noqa: F401 - contrib's name for tf.nest
from .._namespace import missing
from ..framework import dtypes, ops
from ..framework.device_spec import DeviceSpec
from ..framework.ops import GraphKeys
from ..ops import array_ops, control_flow_ops, math_ops, state_ops
from ..ops import variable_scope as vs
from ..framework.ops import get_name_scope  # noqa: F401
from ..framework.tensor_util import is_tensor  # noqa: F401
from ..ops.check_ops import (assert_same_float_dtype, assert_scalar, is_non_decreasing,  # noqa: F401
                             is_numeric_tensor, is_strictly_increasing)
from ..ops.manip_ops import argsort, sort  # noqa: F401
from ..ops.sparse_ops import convert_to_tensor_or_sparse_tensor  # noqa: F401
from ..train.saver import NewCheckpointReader, Saver, list_variables, load_variable  # noqa: F401
from ..train.training_extras import init_from_checkpoint  # noqa: F401
from .checkpoint_remap import (load_and_remap_matrix_initializer, load_embedding_initializer,  # noqa: F401
                               load_linear_multiclass_bias_initializer, load_variable_slot_initializer)
from .framework_utils import (assert_scalar_int, deprecated, deprecated_arg_values, deprecated_args,  # noqa: F401
                              get_graph_from_inputs, get_placeholders, prepend_name_scope, print_op, reduce_sum_n,
                              remove_squeezable_dimensions, strip_name_scope, with_same_shape, with_shape)
from ..train.training_extras import load_checkpoint  # noqa: F401
from ..train.training_util import (assert_global_step, create_global_step, get_global_step,  # noqa: F401
                                   get_or_create_global_step)

_stack: list[dict] = [{}]  # the arg scopes entered, innermost last (one for the process, as TF's)


def _key(fn) -> str:
    """The key of ``fn``'s defaults in an arg scope: the decorated function's ``str`` (as TF's,
    so each function, even one redefined under the same name, has its own)."""
    return getattr(fn, "_key_op", str(fn))


def arg_scope_func_key(op) -> str:
    """The key under which an arg scope (the dict ``arg_scope`` yields) holds ``op``'s defaults."""
    return _key(op)


def current_arg_scope() -> dict:
    return _stack[-1]


def has_arg_scope(fn) -> bool:
    return hasattr(fn, "_arg_scope_target")


def arg_scoped_arguments(fn) -> tuple:
    """The arguments of ``fn`` (decorated with ``add_arg_scope``) that have defaults, which an
    ``arg_scope`` may set."""
    parameters = inspect.signature(fn._arg_scope_target).parameters.values()
    return tuple(p.name for p in parameters if p.default is not inspect.Parameter.empty)


def add_arg_scope(fn):
    """``fn`` taking its default keyword arguments from the enclosing ``arg_scope``s."""
    key = _key(fn)

    @functools.wraps(fn)
    def scoped(*args, **kwargs):
        arguments = dict(_stack[-1].get(key, {}))
        arguments.update(kwargs)
        return fn(*args, **arguments)

    scoped._arg_scope_target = fn
    scoped._key_op = key
    return scoped


@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Within the block, each function of ``list_ops_or_scope`` gets ``kwargs`` by default; or,
    given a scope (the dict a previous ``arg_scope`` yielded), that scope again."""
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("When attempting to re-use a scope by supplying a dictionary, kwargs must be empty.")
        scope = list_ops_or_scope
    else:
        if not isinstance(list_ops_or_scope, (list, tuple)):
            raise TypeError("list_ops_or_scope must either be a list/tuple or reused scope (i.e. dict)")
        scope = {key: dict(value) for key, value in _stack[-1].items()}
        for fn in list_ops_or_scope:
            if not has_arg_scope(fn):
                raise ValueError(f"{getattr(fn, '__name__', fn)} is not decorated with @add_arg_scope")
            scope[_key(fn)] = {**scope.get(_key(fn), {}), **kwargs}
    _stack.append(scope)
    try:
        yield scope
    finally:
        _stack.pop()


def assert_or_get_global_step(graph=None, global_step_tensor=None):
    """``global_step_tensor`` checked to be a global step, or the graph's global step when None."""
    if global_step_tensor is None:
        return get_global_step(graph)
    assert_global_step(global_step_tensor)
    return global_step_tensor


class VariableDeviceChooser:
    """A device function placing each variable on the next of ``num_tasks`` tasks of
    ``job_name`` in turn (on ``device_type:device_index``; no job when ``num_tasks`` is 0)."""

    def __init__(self, num_tasks=0, job_name="ps", device_type="CPU", device_index=0, replica=None):
        self._num_tasks, self._job_name = num_tasks, job_name
        self._device_type, self._device_index, self._replica = device_type, device_index, replica
        self._next_task_id = 0

    def __call__(self, op) -> str:
        spec = DeviceSpec(replica=self._replica, device_type=self._device_type, device_index=self._device_index)
        if self._num_tasks > 0:
            spec.job, spec.task = self._job_name, self._next_task_id
            self._next_task_id = (self._next_task_id + 1) % self._num_tasks
        return spec.to_string()


def local_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A variable of ``initial_value`` in LOCAL_VARIABLES only (not trained, not saved)."""
    return state_ops.Variable(initial_value, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                              validate_shape=validate_shape, name=name)


def global_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A variable of ``initial_value`` in GLOBAL_VARIABLES only (saved, not trained)."""
    return state_ops.Variable(initial_value, trainable=False, collections=[GraphKeys.GLOBAL_VARIABLES],
                              validate_shape=validate_shape, name=name)


@add_arg_scope
def variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True, collections=None,
             caching_device=None, device=None, partitioner=None, custom_getter=None, use_resource=None):
    """``get_variable`` in ``collections`` (GLOBAL_VARIABLES when None), on ``device`` if given.

    A ``custom_getter`` is called instead of ``get_variable``, with the same arguments and the
    scope's ``reuse`` (as TF-Slim calls it; tf.get_variable's custom getters take the getter first).
    """
    collections = list(dict.fromkeys(collections if collections is not None else [GraphKeys.GLOBAL_VARIABLES]))
    getter = vs.get_variable
    if custom_getter is not None:
        getter = functools.partial(custom_getter, reuse=vs.get_variable_scope().reuse)
    with ops.device(device) if device is not None else contextlib.nullcontext():
        return getter(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                      trainable=trainable, collections=collections, caching_device=caching_device,
                      partitioner=partitioner, use_resource=use_resource)


@add_arg_scope
def model_variable(name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None, trainable=True,
                   collections=None, caching_device=None, device=None, partitioner=None, custom_getter=None,
                   use_resource=None):
    """A variable of the model: in MODEL_VARIABLES and GLOBAL_VARIABLES, and ``collections``."""
    collections = list(collections or []) + [GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES]
    return variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                    trainable=trainable, collections=collections, caching_device=caching_device, device=device,
                    partitioner=partitioner, custom_getter=custom_getter, use_resource=use_resource)


def add_model_variable(var) -> None:
    """Adds ``var`` to MODEL_VARIABLES (once)."""
    if var not in ops.get_collection(GraphKeys.MODEL_VARIABLES):
        ops.add_to_collection(GraphKeys.MODEL_VARIABLES, var)


def get_variables(scope=None, suffix=None, collection=GraphKeys.GLOBAL_VARIABLES) -> list:
    """The variables of ``collection`` whose names match ``scope`` (a regular expression matched
    at the start, or a VariableScope) and, after it, ``suffix`` (matched before the ':')."""
    if isinstance(scope, vs.VariableScope):
        scope = scope.name
    if suffix is not None:
        scope = (scope or "") + ".*" + (suffix if ":" in suffix else suffix + ":")
    return ops.get_collection(collection, scope)


def get_model_variables(scope=None, suffix=None) -> list:
    return get_variables(scope, suffix, GraphKeys.MODEL_VARIABLES)


def get_local_variables(scope=None, suffix=None) -> list:
    return get_variables(scope, suffix, GraphKeys.LOCAL_VARIABLES)


def get_trainable_variables(scope=None, suffix=None) -> list:
    return get_variables(scope, suffix, GraphKeys.TRAINABLE_VARIABLES)


def get_variables_by_suffix(suffix, scope=None) -> list:
    return get_variables(scope=scope, suffix=suffix)


def get_variables_by_name(given_name, scope=None) -> list:
    """The global variables whose last name component is ``given_name``."""
    return get_variables(scope=scope, suffix=f"/{given_name}:|^{given_name}:")


def get_unique_variable(var_op_name):
    """The global variable named exactly ``var_op_name``.

    Raises:
      ValueError: no variable matches, or none is named exactly so.
    """
    candidates = get_variables(scope=var_op_name)
    if not candidates:
        raise ValueError(f"Couldn't find variable {var_op_name}")
    for candidate in candidates:
        if candidate.op.name == var_op_name:
            return candidate
    raise ValueError(f"Variable {var_op_name} does not uniquely identify a variable")


def get_variables_to_restore(include=None, exclude=None) -> list:
    """The global variables under the scopes of ``include`` (all by default), less those
    under the scopes of ``exclude`` (each a list or tuple of scope names)."""
    for name, scopes in (("include", include), ("exclude", exclude)):
        if scopes is not None and not isinstance(scopes, (list, tuple)):
            raise TypeError(f"{name} is provided but is not a list or a tuple.")
    variables = get_variables() if include is None else [v for scope in include for v in get_variables(scope)]
    excluded = {id(v) for scope in (exclude or []) for v in get_variables(scope)}
    return [v for v in variables if id(v) not in excluded]


def get_variable_full_name(var) -> str:
    """The name ``var`` has in a checkpoint: its partitioned variable's name for a part."""
    info = getattr(var, "_save_slice_info", None)
    return info.full_name if info else var.op.name


def filter_variables(var_list, include_patterns=None, exclude_patterns=None, reg_search=True) -> list:
    """The variables of ``var_list`` whose names match one of ``include_patterns`` (all when None)
    and none of ``exclude_patterns`` (regular expressions: searched, or matched at the start
    when ``reg_search`` is False)."""
    found = re.search if reg_search else re.match
    included = [v for v in var_list if include_patterns is None or any(found(p, v.name) for p in include_patterns)]
    return [v for v in included if not any(found(p, v.name) for p in exclude_patterns or [])]


def _global_variable_named(var_name: str):
    candidates = ops.get_collection(GraphKeys.GLOBAL_VARIABLES, var_name)
    if not candidates:
        raise ValueError(f"Variable {var_name} wasn't found")
    if len(candidates) == 1:
        return candidates[0]
    for v in candidates:
        if v.op.name == var_name:
            return v
    raise ValueError(f"Variable {var_name} doesn't uniquely identify a variable")


def _assign_by_placeholder(var):
    value = array_ops.placeholder(var.dtype.base_dtype, var.get_shape(), name="placeholder/" + var.op.name)
    return var.assign(value), value


def zero_initializer(ref, use_locking=True, name="zero_initializer"):
    """Initializes the variable ``ref`` with zeros of its shape (its initializer's stand-in
    where the initial value is large); the step fails if ``ref`` is already initialized."""
    from ..ops import check_ops  # noqa: PLC0415

    shape = ref.get_shape()
    if not shape.is_fully_defined():
        raise ValueError(f"zero_initializer needs the shape of {ref.name} known, got {shape}")
    with ops.name_scope(name, "zero_initializer", [ref]):
        fresh = check_ops.Assert(math_ops.logical_not(state_ops.is_variable_initialized(ref)),
                                 [f"{ref.op.name}: input is already initialized"])
        with ops.control_dependencies([fresh]):
            return state_ops.assign(ref, array_ops.zeros(shape.as_list(), ref.dtype.base_dtype),
                                    use_locking=use_locking)


def assign_from_values(var_names_to_values):
    """``(assign_op, feed_dict)`` that sets each named global variable to its NumPy value.

    Raises:
      ValueError: a name finds no variable, or no single one.
    """
    assigns, feed_dict = [], {}
    for var_name, value in var_names_to_values.items():
        var = _global_variable_named(var_name)
        assign, placeholder = _assign_by_placeholder(var)
        assigns.append(assign)
        feed_dict[placeholder] = np.asarray(value).reshape(var.get_shape().as_list())
    return control_flow_ops.group(*assigns), feed_dict


def assign_from_values_fn(var_names_to_values):
    """A function of a session that runs ``assign_from_values``' assignment."""
    assign_op, feed_dict = assign_from_values(var_names_to_values)

    def callback(session):
        return session.run(assign_op, feed_dict)

    return callback


def assign_from_checkpoint(model_path, var_list, ignore_missing_vars=False):
    """``(assign_op, feed_dict)`` that sets the variables of ``var_list`` (a list, or a dict of
    checkpoint name -> variable or list of variables) to their values in the checkpoint
    ``model_path``; a part of a partitioned variable gets its slice.

    Raises:
      ValueError: a variable is missing from the checkpoint (unless ``ignore_missing_vars``), or
        its shape differs from the checkpoint's.
    """
    grouped: dict[str, list] = {}
    if isinstance(var_list, (list, tuple)):
        for var in var_list:
            grouped.setdefault(get_variable_full_name(var), []).append(var)
    else:
        grouped = {name: list(v) if isinstance(v, (list, tuple)) else [v] for name, v in var_list.items()}
    reader = NewCheckpointReader(model_path)
    assigns, feed_dict = [], {}
    for ckpt_name, variables in grouped.items():
        if not reader.has_tensor(ckpt_name):
            if not ignore_missing_vars:
                raise ValueError(f"Checkpoint is missing variable [{ckpt_name}]")
            logging.getLogger("distflow").warning("Checkpoint is missing variable [%s]", ckpt_name)
            continue
        value = reader.get_tensor(ckpt_name)
        for var in variables:
            assign, placeholder = _assign_by_placeholder(var)
            assigns.append(assign)
            info = getattr(var, "_save_slice_info", None)
            if info:
                value_of_var = value[tuple(slice(start, start + size)
                                           for start, size in zip(info.var_offset, info.var_shape))]
            else:
                if var.get_shape().as_list() != list(value.shape):
                    raise ValueError(f"Total size of new array must be unchanged for {ckpt_name} lh_shape: "
                                     f"[{value.shape}], rh_shape: [{var.get_shape()}]")
                value_of_var = value
            feed_dict[placeholder] = value_of_var
    return control_flow_ops.group(*assigns), feed_dict


def assign_from_checkpoint_fn(model_path, var_list, ignore_missing_vars=False, reshape_variables=False):
    """A function of a session that restores ``var_list`` (a list, or a dict of checkpoint
    name -> variable) from the checkpoint ``model_path``; with ``ignore_missing_vars`` those
    the checkpoint lacks are left out (with a warning)."""
    if not var_list:
        raise ValueError("var_list cannot be empty")
    if isinstance(var_list, dict):
        named = dict(var_list)
    else:
        named = {v.op.name: v for v in var_list}
    if ignore_missing_vars:
        present = {name for name, _ in list_variables(model_path)}
        missing = sorted(set(named) - present)
        if missing:
            logging.getLogger("distflow").warning("Variables not in checkpoint %s: %s", model_path, missing)
        named = {k: v for k, v in named.items() if k in present}
    if not named:
        logging.getLogger("distflow").warning("No Variables to restore")
        return None
    saver = Saver(named, reshape=reshape_variables)

    def restore(session):
        saver.restore(session, model_path)

    return restore


__getattr__ = missing("tf.contrib.framework")
