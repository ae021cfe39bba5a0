"""``tf.make_template``: a function whose variables are made by its first call and shared by the others."""

from __future__ import annotations

import functools

from ..framework import ops
from .variable_scope import variable_scope


class Template:
    """A function whose variables are created on the first call and shared by the later ones.

    As TF's: the first call's ops go to the template's name scope ("foo/"), each later call's to
    a fresh one ("foo_1/"), all of them with the variables of the scope "foo"; a later call
    that would create a trainable variable is a ValueError (a ``tf.Variable`` where
    ``tf.get_variable`` was meant).
    """

    def __init__(self, name, func, create_scope_now=False, unique_name=None, custom_getter=None):
        if name is None:
            raise ValueError("name cannot be None.")
        self._name = name
        self._func = func
        self._scope = None
        self._variables_created = False
        self._unique_name = unique_name  # (the scope's name as given, not made unique: TF's unique_name_)
        self._custom_getter = custom_getter
        if create_scope_now:  # (the variable scope only: the first call opens the name scope)
            with self._first_scope(auxiliary_name_scope=False) as scope:
                self._scope = scope

    def _first_scope(self, auxiliary_name_scope=True):
        if self._unique_name is not None:
            return variable_scope(self._unique_name, custom_getter=self._custom_getter,
                                  auxiliary_name_scope=auxiliary_name_scope)
        return variable_scope(None, default_name=self._name, custom_getter=self._custom_getter,
                              auxiliary_name_scope=auxiliary_name_scope)

    def __call__(self, *args, **kwargs):
        if self._variables_created:
            trainable = ops.get_collection_ref(ops.GraphKeys.TRAINABLE_VARIABLES)
            before = len(trainable)  # (anywhere in the graph: a tf.Variable is named by the name scope)
            with variable_scope(self._scope, reuse=True):
                result = self._func(*args, **kwargs)
            if len(trainable) != before:
                raise ValueError(f"Trainable variable created when calling the template '{self._scope.name}' "
                                 "after the first time, perhaps you used tf.Variable when you meant "
                                 f"tf.get_variable: {[v.name for v in trainable[before:]]}")
            return result
        scope_ctx = self._first_scope() if self._scope is None else variable_scope(self._scope)
        with scope_ctx as scope:
            self._scope = scope
            result = self._func(*args, **kwargs)
        self._variables_created = True  # (only once a first call succeeded)
        return result

    @property
    def name(self) -> str:
        return self._name

    @property
    def func(self):
        return self._func

    @property
    def variable_scope(self):
        return self._scope

    @property
    def variable_scope_name(self) -> str:
        return self._scope.name if self._scope is not None else ""

    def _collection(self, key) -> list:
        if self._scope is None:
            return []
        return ops.get_collection(key, self._scope.name + "/")

    @property
    def variables(self) -> list:
        """The variables the template made: global and local."""
        return self.global_variables + self.local_variables

    @property
    def trainable_variables(self) -> list:
        return self._collection(ops.GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self) -> list:
        trainable = set(id(v) for v in self.trainable_variables)
        return [v for v in self.global_variables if id(v) not in trainable]

    @property
    def global_variables(self) -> list:
        return self._collection(ops.GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self) -> list:
        return self._collection(ops.GraphKeys.LOCAL_VARIABLES)

    weights = variables
    trainable_weights = trainable_variables
    non_trainable_weights = non_trainable_variables


def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None, **kwargs):
    """``func_`` wrapped so that every call shares the variables the first call made (get_variable)."""
    return Template(name_, functools.partial(func_, **kwargs) if kwargs else func_, create_scope_now_, unique_name_,
                    custom_getter_)
