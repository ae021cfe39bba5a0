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

from .. import nest  # noqa: F401 - contrib's name for tf.nest
from .._namespace import missing
from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..ops import variable_scope as vs
from ..train.saver import list_variables, load_variable  # noqa: F401 - contrib's names too
from ..train.training_extras import load_checkpoint  # noqa: F401
from ..train.training_util import get_global_step, get_or_create_global_step  # noqa: F401

_stack: list[dict] = [{}]  # the arg scopes entered, innermost last (one for the process, as TF's)


def _key(fn) -> tuple:
    fn = getattr(fn, "_arg_scope_target", fn)
    return fn.__module__, fn.__name__


def current_arg_scope() -> dict:
    return _stack[-1]


def has_arg_scope(fn) -> bool:
    return hasattr(fn, "_arg_scope_target")


def arg_scoped_arguments(fn) -> list:
    """The arguments ``fn`` (decorated with ``add_arg_scope``) takes."""
    return list(inspect.signature(fn._arg_scope_target).parameters)


def add_arg_scope(fn):
    """``fn`` taking its default keyword arguments from the enclosing ``arg_scope``s."""
    @functools.wraps(fn)
    def scoped(*args, **kwargs):
        arguments = dict(_stack[-1].get(_key(fn), {}))
        arguments.update(kwargs)
        return fn(*args, **arguments)

    scoped._arg_scope_target = fn
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


def _collections(collections) -> list:
    return [GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES] + [c for c in (collections or [])
                                                                      if c not in (GraphKeys.GLOBAL_VARIABLES,
                                                                                   GraphKeys.MODEL_VARIABLES)]


@add_arg_scope
def variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True, collections=None,
             caching_device=None, device=None, partitioner=None, custom_getter=None, use_resource=None):
    """``get_variable`` in GLOBAL_VARIABLES and ``collections``, on ``device`` if given."""
    collections = [GraphKeys.GLOBAL_VARIABLES] + [c for c in (collections or []) if c != GraphKeys.GLOBAL_VARIABLES]
    with ops.device(device or ""):
        return vs.get_variable(name, shape=shape, dtype=dtype or dtypes.float32, initializer=initializer,
                               regularizer=regularizer, trainable=trainable, collections=collections,
                               caching_device=caching_device, partitioner=partitioner, custom_getter=custom_getter,
                               use_resource=use_resource)


@add_arg_scope
def model_variable(name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None, trainable=True,
                   collections=None, caching_device=None, device=None, partitioner=None, custom_getter=None,
                   use_resource=None):
    """A variable of the model: in MODEL_VARIABLES as well as GLOBAL_VARIABLES."""
    return variable(name, shape, dtype, initializer, regularizer, trainable, _collections(collections),
                    caching_device, device, partitioner, custom_getter, use_resource)


def get_variables(scope=None, suffix=None, collection=GraphKeys.GLOBAL_VARIABLES) -> list:
    """The variables of ``collection`` under ``scope`` (a name or a VariableScope), ending in ``suffix``."""
    if isinstance(scope, vs.VariableScope):
        scope = scope.name
    found = ops.get_collection(collection, scope)
    return [v for v in found if suffix is None or v.op.name.endswith(suffix)]


def get_model_variables(scope=None, suffix=None) -> list:
    return get_variables(scope, suffix, GraphKeys.MODEL_VARIABLES)


def get_trainable_variables(scope=None, suffix=None) -> list:
    return get_variables(scope, suffix, GraphKeys.TRAINABLE_VARIABLES)


def get_variables_by_name(given_name, scope=None) -> list:
    return [v for v in get_variables(scope) if v.op.name.split("/")[-1] == given_name]


def get_variables_to_restore(include=None, exclude=None) -> list:
    """The global variables under the scopes of ``include`` (all by default), less those
    under the scopes of ``exclude``."""
    variables = [v for scope in (include or [None]) for v in get_variables(scope)]
    excluded = {id(v) for scope in (exclude or []) for v in get_variables(scope)}
    seen, out = set(), []
    for v in variables:
        if id(v) not in excluded and id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def assign_from_checkpoint_fn(model_path, var_list, ignore_missing_vars=False, reshape_variables=False):
    """A function of a session that restores ``var_list`` (a list, or a dict of checkpoint
    name -> variable) from the checkpoint ``model_path``; with ``ignore_missing_vars`` those
    the checkpoint lacks are left out (with a warning)."""
    from ..train.saver import Saver, list_variables  # noqa: PLC0415

    if isinstance(var_list, dict):
        named = dict(var_list)
    else:
        named = {v.op.name: v for v in var_list}
    if ignore_missing_vars:
        present = {name for name, _ in list_variables(model_path)}
        missing = sorted(set(named) - present)
        if missing:
            import logging  # noqa: PLC0415

            logging.getLogger("distflow").warning("Variables not in checkpoint %s: %s", model_path, missing)
        named = {k: v for k, v in named.items() if k in present}
    if not named:
        return None
    saver = Saver(named, reshape=reshape_variables)

    def restore(session):
        saver.restore(session, model_path)

    return restore


__getattr__ = missing("tf.contrib.framework")
