"""TensorFlow's decorator helpers at their internal paths (``tensorflow.python.util.tf_decorator``
and ``tf_contextlib``), which libraries written on TF 1.x (TFLearn's and TF-Slim's
``arg_scope``) imported: a decorated function keeps the name, docstring and signature of
the one it wraps, and names it as ``__wrapped__``."""

from __future__ import annotations

import contextlib
import functools


def make_decorator(target, decorator_func, decorator_name=None, decorator_doc="", decorator_argspec=None):
    """``decorator_func`` made to look like ``target`` (TF's ``tf_decorator.make_decorator``)."""
    functools.update_wrapper(decorator_func, target)
    decorator_func.__wrapped__ = target
    if decorator_doc:
        decorator_func.__doc__ = decorator_doc
    return decorator_func


def unwrap(maybe_decorated):
    """(the decorators around the innermost function, outermost first; that function)"""
    decorators, target = [], maybe_decorated
    while hasattr(target, "__wrapped__"):
        decorators.append(target)
        target = target.__wrapped__
    return decorators, target


def contextmanager(target):
    """``contextlib.contextmanager``, keeping ``target``'s name and signature (``tf_contextlib``'s)."""
    return make_decorator(target, contextlib.contextmanager(target))
