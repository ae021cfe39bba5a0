"""``tf.compat``: ``tf.compat.v1`` is distflow itself, and the bytes/text helpers.

``import distflow.compat.v1 as tf`` and ``tf.compat.v1.X`` both give distflow's names, so
programs written for TensorFlow 1.13-1.15 (or for TF 2 running in v1 mode) run unchanged.
"""

from __future__ import annotations

import numbers
import sys

import numpy as _np

from .. import _namespace

v1 = sys.modules[__name__.rsplit(".", 1)[0]]
sys.modules[__name__ + ".v1"] = v1

integral_types = (numbers.Integral, _np.integer)
real_types = (numbers.Real, _np.integer, _np.floating)
complex_types = (numbers.Complex, _np.number)
bytes_or_text_types = (bytes, str)


def as_bytes(bytes_or_text, encoding: str = "utf-8") -> bytes:
    """``bytes`` as they are, ``str`` encoded; anything else is a TypeError."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding: str = "utf-8") -> str:
    """``str`` as it is, ``bytes`` decoded; anything else is a TypeError."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text
as_str_any = lambda value: as_str(value) if isinstance(value, bytes) else str(value)  # noqa: E731


def path_to_str(path) -> str:
    import os  # noqa: PLC0415

    return os.fspath(path) if hasattr(path, "__fspath__") else path


V2_REFUSED = ("tf.compat.v2 is TensorFlow 2's API (eager execution, tf.function), which distflow does not "
              "provide: distflow is TensorFlow 1.x's graph API (tf.compat.v1). A TF 1.x program that took "
              "tf.distribute, tf.io or tf.data from tf.compat.v2 finds them under the same names in distflow.")
_missing = _namespace.missing("tf.compat")


def __getattr__(name):
    if name == "v2":
        raise AttributeError(V2_REFUSED)
    return _missing(name)
