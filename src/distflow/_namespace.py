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
        error = AttributeError(_explain(namespace, name))
        # With ``obj`` set and no ``name``, Python adds no "Did you mean ...?" guess of its
        # own: the message makes its guesses from TF 1.x's names, and only for typos.
        error.obj = namespace
        raise error

    return __getattr__


def _explain(namespace: str, name: str) -> str:
    """What to say of ``namespace.name``: a TF 1.x name distflow lacks (and its status in
    docs/compat.md), or a name TF 1.x never had (and the closest real ones)."""
    import difflib  # noqa: PLC0415 - only on the error path
    import sys  # noqa: PLC0415

    from .tools import compat  # noqa: PLC0415

    short = namespace[len("tf."):] if namespace.startswith("tf.") else "tf"
    tf_names = compat._api().get(short)
    if tf_names is None:  # (a namespace the list does not cover: its row in the table of namespaces)
        top = "tf." + short.split(".")[0]
        row = dict(compat.namespaces()).get(top)
        if row is None:
            return (f"distflow does not implement TensorFlow 1.x's '{namespace}.{name}' (see {COMPAT_DOC} for the "
                    "names distflow supports and how they differ)")
        if len(row) > 300:  # (a long list of parts, tf.contrib's: the first words say enough)
            row = row.split(":", 1)[0] + f"; the `{top}` row there lists the parts distflow has"
        return (f"distflow does not implement TensorFlow 1.x's '{namespace}.{name}': {COMPAT_DOC} lists "
                f"`{top}` as {row}")
    if name in tf_names:
        reason = compat.OUT_OF_SCOPE.get(short, {}).get(name)
        status = f"out of scope ({reason})" if reason else "not supported"
        return (f"distflow does not implement TensorFlow 1.x's '{namespace}.{name}': {COMPAT_DOC} lists it, "
                f"under `{namespace}`, as {status}")
    module = sys.modules.get("distflow" if short == "tf" else f"distflow.{short}")
    here = [n for n in tf_names if module is not None and n in vars(module)]
    close = difflib.get_close_matches(name, here, n=3, cutoff=0.6)
    guess = f"; did you mean {' or '.join(f'{namespace}.{c}' for c in close)}?" if close else ""
    return f"TensorFlow 1.x has no '{namespace}.{name}'{guess}"
