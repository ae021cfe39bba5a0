"""``tf.make_template``: a function whose variables are made by its first call and shared by the others."""

from __future__ import annotations

import functools

from .variable_scope import variable_scope


class Template:
    """A function whose variables are created on the first call and shared by the later ones."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None, custom_getter=None):
        self._name = name
        self._func = func
        self._scope = None
        self._calls = 0
        self._unique_name = unique_name  # (the scope's name as given, not made unique: TF's unique_name_)
        self._custom_getter = custom_getter
        if create_scope_now:
            with self._first_scope() as scope:
                self._scope = scope

    def _first_scope(self):
        if self._unique_name is not None:
            return variable_scope(self._unique_name, custom_getter=self._custom_getter)
        return variable_scope(None, default_name=self._name, custom_getter=self._custom_getter)

    def __call__(self, *args, **kwargs):
        if self._calls == 0:
            scope_ctx = self._first_scope() if self._scope is None else variable_scope(self._scope)
            with scope_ctx as scope:
                self._scope = scope
                result = self._func(*args, **kwargs)
        else:
            with variable_scope(self._scope, reuse=True):
                result = self._func(*args, **kwargs)
        self._calls += 1
        return result

    @property
    def variable_scope(self):
        return self._scope

    @property
    def variable_scope_name(self) -> str:
        return self._scope.name if self._scope is not None else ""


def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None, **kwargs):
    """``func_`` wrapped so that every call shares the variables the first call made (get_variable)."""
    return Template(name_, functools.partial(func_, **kwargs) if kwargs else func_, create_scope_now_, unique_name_,
                    custom_getter_)
