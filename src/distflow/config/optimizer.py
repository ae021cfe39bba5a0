"""``tf.config.optimizer``: XLA's JIT and Grappler's options. distflow compiles every step
with its own rewrites (runtime/rewrites/) and has neither, so these are kept and read back
but change nothing: a program that sets them runs as written."""

from __future__ import annotations

_options = {"jit": False, "experimental": {}}


def get_jit() -> bool:
    return _options["jit"]


def set_jit(enabled) -> None:
    _options["jit"] = bool(enabled)


def get_experimental_options() -> dict:
    return dict(_options["experimental"])


def set_experimental_options(options: dict) -> None:
    if not isinstance(options, dict):
        raise TypeError(f"set_experimental_options needs a dict of option -> value, got {options!r}")
    _options["experimental"].update(options)
