"""TensorFlow's module paths inside tf.contrib's parts, which TF 1.x programs imported names
from as often as from the parts themselves: ``from tensorflow.contrib.framework.python.ops
import arg_scope``, ``from tensorflow.contrib.layers.python.layers import initializers``,
``from tensorflow.contrib.learn.python.learn.datasets.mnist import read_data_sets``, ``from
tensorflow.contrib.keras.api.keras.layers import Dense``.

Each ``distflow.contrib.<part>.python.<path>`` (and, as TF 1.3-1.4's Keras had it,
``.api.<path>``) is a module made when it is first imported. Its names are looked up in the
namespaces the path walks through, deepest first (``learn.python.learn.datasets.mnist``
looks in ``tf.contrib.learn.datasets.mnist``, then ``tf.contrib.learn.datasets``, then
``tf.contrib.learn``), after distflow's own module for the few TF modules whose names the
part's namespace lacks (``layers.python.layers.utils``). The walk goes only through public
namespaces, never into the modules a part's code imports (``tf.contrib.layers`` itself
uses ``distflow.framework.ops``, which is not TF's ``contrib/layers/python/ops``). A name
found nowhere is an AttributeError that names TensorFlow's module. So that Python can import
beneath them, the parts that are single files here are marked as packages (an empty
``__path__``: no file is ever found there, only these modules).
"""

from __future__ import annotations

import importlib
import types

from ..python import AliasModule, PrefixFinder

_PREFIX = "distflow.contrib."
_ROOTS = ("python", "api")  # (a part's implementation folder; Keras's API folder of TF 1.3-1.4)

# TF's folders among those paths: their lowercase names are modules of theirs.
_PACKAGES = {
    "framework.python", "framework.python.ops", "framework.python.framework",
    "layers.python", "layers.python.layers", "layers.python.ops",
    "learn.python", "learn.python.learn", "learn.python.learn.datasets", "learn.python.learn.estimators",
    "learn.python.learn.utils", "learn.python.learn.learn_io", "learn.python.learn.preprocessing",
    "rnn.python", "rnn.python.ops", "seq2seq.python", "seq2seq.python.ops",
    "legacy_seq2seq.python", "legacy_seq2seq.python.ops",
    "slim.python", "slim.python.slim", "slim.python.slim.data",
    "training.python", "training.python.training", "metrics.python", "metrics.python.ops",
    "metrics.python.metrics", "losses.python", "losses.python.losses", "losses.python.metric_learning",
    "opt.python", "opt.python.training", "data.python", "data.python.ops", "crf.python", "crf.python.ops",
    "tpu.python", "tpu.python.tpu", "tpu.python.ops", "distribute.python", "cudnn_rnn.python",
    "cudnn_rnn.python.ops", "cudnn_rnn.python.layers", "image.python", "image.python.ops", "nn.python",
    "nn.python.ops", "factorization.python", "factorization.python.ops", "estimator.python",
    "estimator.python.estimator", "nccl.python", "nccl.python.ops", "all_reduce.python", "resampler.python",
    "resampler.python.ops", "sparsemax.python", "sparsemax.python.ops", "lookup.python",
    "keras.python", "keras.python.keras", "keras.api", "keras.api.keras",
}
# distflow's module for a TF module whose names the part's namespace does not hold.
_OWN = {"layers.python.layers.utils": "distflow.contrib.layers_utils",
        "slim.python.slim.nets": None}  # (TF-Slim's nets are not distflow's: see docs/compat.md)

# Modules a part's code imports, which are not namespaces of TF's: the walk never enters them.
_INTERNAL = {"framework", "ops", "platform", "runtime", "protos", "python"}


def _public(module) -> bool:
    parts = getattr(module, "__name__", "").split(".")
    return parts[0] == "distflow" and len(parts) > 1 and parts[1] not in _INTERNAL


def _namespace(value) -> bool:
    """A namespace of TF's: a public module, or an object standing for one
    (``tf.contrib.learn.datasets.mnist``, ``tf.contrib.learn.learn_runner``)."""
    if isinstance(value, types.ModuleType):
        return _public(value)
    return isinstance(value, types.SimpleNamespace) or str(getattr(value, "__name__", "")).startswith("tf.")


def _sources(path: str) -> list:
    parts = path.split(".")
    own = [_OWN[p] for p in (".".join(parts[:n]) for n in range(len(parts), 2, -1)) if p in _OWN]
    if own and own[0] is None:
        return []
    import distflow  # noqa: PLC0415 - loaded by the time a name is looked up

    namespace = getattr(distflow.contrib, parts[0])
    chain = [namespace]
    rest = parts[2:]
    if rest[:1] == parts[:1]:  # (learn.python.learn, slim.python.slim, keras.api.keras: the part again)
        rest = rest[1:]
    for part in rest:
        namespace = getattr(namespace, part, None)
        if not _namespace(namespace):
            break
        chain.append(namespace)
    return [importlib.import_module(m) for m in own] + chain[::-1]


class _ContribPath(AliasModule):
    """One TF module path inside a tf.contrib part: its names looked up in distflow (module
    docstring)."""

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        for source in _sources(self._tf_path):
            value = getattr(source, name, _NOTHING)
            if value is _NOTHING or (isinstance(value, types.ModuleType) and not _public(value)):
                continue
            setattr(self, name, value)  # (found once: a program's later reads are plain attribute reads)
            return value
        if name.islower() and self._tf_path in _PACKAGES:  # (framework.python.ops.variables: a module of TF's)
            return importlib.import_module(f"{self.__name__}.{name}")
        part = self._tf_path.split(".")[0]
        raise AttributeError(f"distflow has no '{name}' for TensorFlow's tensorflow.contrib.{self._tf_path} (it "
                             f"looks in tf.contrib.{part} and the namespaces under it that the path names; see "
                             f"docs/compat.md for what tf.contrib.{part} has)")

    def __dir__(self):
        return sorted({n for source in _sources(self._tf_path) for n in dir(source) if not n.startswith("_")})


_NOTHING = object()


def _accept(path: str) -> bool:
    parts = path.split(".")
    return len(parts) >= 2 and parts[1] in _ROOTS


def install(contrib) -> None:
    """Marks ``contrib``'s single-file parts as packages and makes their TF module paths
    importable."""
    for name, value in vars(contrib).items():
        if (isinstance(value, types.ModuleType) and value.__name__ == f"{contrib.__name__}.{name}"
                and not hasattr(value, "__path__")):
            value.__path__ = []
    PrefixFinder.install(_PREFIX, _ContribPath, _accept)
