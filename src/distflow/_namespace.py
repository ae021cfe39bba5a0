"""What a TensorFlow 1.x name that distflow lacks gives: an AttributeError that says so.

Each public namespace module ends with ``__getattr__ = missing("tf.nn")``; Python calls
it only for names the module does not define, so ``tf.nn.ctc_loss`` says that distflow
does not implement it instead of suggesting a similar name.
"""

from __future__ import annotations

COMPAT_DOC = "docs/compat.md"


def missing(namespace: str):
    def __getattr__(name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(f"module {namespace!r} has no attribute {name!r}")
        error = AttributeError(f"distflow does not implement TensorFlow 1.x's '{namespace}.{name}' "
                               f"(see {COMPAT_DOC} for the names distflow supports and how they differ)")
        # With ``obj`` set and no ``name``, Python adds no "Did you mean ...?" guess: a
        # similar-looking name (tf.round for tf.cond) is not what the program wanted.
        error.obj = namespace
        raise error

    return __getattr__
