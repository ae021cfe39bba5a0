"""TensorFlow's internal module paths, which TF 1.x programs imported public names from:
``from distflow.python.ops import math_ops``, ``from distflow.python.framework import ops``,
``from distflow.python.client import device_lib``, ``import distflow.python.platform.gfile``.

Each ``distflow.python.<path>`` is a module made when it is first imported, whose names are
looked up where distflow keeps the same TF names: first a public namespace chosen by the
path (``ops.*`` looks through ``tf``, ``tf.nn``, ``tf.math``, ...; ``platform.gfile`` is
``tf.gfile``; ``keras.layers`` is ``tf.keras.layers``), then distflow's own module of the
same path (``distflow.ops.array_ops``, ``distflow.framework.tensor_util``). A name found in
neither is an AttributeError that names TensorFlow's module. TensorFlow's generated raw-op
modules (``gen_*_ops``) and its private helpers are not here: a program that reaches into
them is reaching past TF 1.x's API.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

_PREFIX = __name__ + "."

# The public namespaces a TF module path's names are looked up in, by the path's first part
# (or the whole path, where it names one namespace).
_OPS = ["", "nn", "nn.rnn_cell", "math", "linalg", "image", "sparse", "strings", "random", "losses", "metrics",
        "summary", "initializers", "io", "train", "lookup", "bitwise", "signal", "sets", "debugging", "data"]
_SEARCH = {
    "ops": _OPS,
    "ops.nn": ["nn"] + _OPS, "ops.nn_ops": ["nn"] + _OPS, "ops.nn_impl": ["nn"] + _OPS,
    "ops.math_ops": ["math"] + _OPS, "ops.linalg_ops": ["linalg"] + _OPS, "ops.image_ops": ["image"] + _OPS,
    "ops.rnn": ["nn"] + _OPS, "ops.rnn_cell": ["nn.rnn_cell"] + _OPS, "ops.rnn_cell_impl": ["nn.rnn_cell"] + _OPS,
    "ops.random_ops": ["random"] + _OPS, "ops.sparse_ops": ["sparse"] + _OPS, "ops.string_ops": ["strings"] + _OPS,
    "ops.lookup_ops": ["lookup"] + _OPS, "ops.losses": ["losses"] + _OPS, "ops.metrics": ["metrics"] + _OPS,
    "ops.control_flow_ops": [""],  # (then distflow's own modules: switch and merge, not tf.sparse.merge)
    "framework": ["", "graph_util", "errors", "contrib.util", "contrib.framework"],
    "training": ["train", ""],
    "summary": ["summary"],
    "layers": ["layers", "contrib.layers", "contrib.framework"],
    "data": ["data", "data.experimental"],
    "feature_column": ["feature_column"],
    "client": [""],
    "lib.io.tf_record": ["python_io"],
    "lib.io": ["python_io", "io"],
    "platform.gfile": ["gfile"],
    "platform.tf_logging": ["logging"],
    "platform.flags": ["app.flags", "flags"],
    "platform.app": ["app"],
    "platform.test": ["test"],
    "platform.resource_loader": ["resource_loader"],
    "util.nest": ["nest"],
    "eager.context": [""],
}
# Paths whose names are a namespace's under it: keras.layers is tf.keras.layers.
_UNDER = {"keras": "keras", "estimator": "estimator", "saved_model": "saved_model", "distribute": "distribute"}
# distflow's own module for a TF path where it is not at the same place.
_OWN = {"training": "train", "client.timeline": "runtime.timeline", "client.session": "runtime.session",
        "layers.utils": "contrib.layers_utils", "client.device_lib": "python._device_lib",
        "tools.inspect_checkpoint": "python._inspect_checkpoint", "util.tf_decorator": "python._tf_util",
        "util.tf_contextlib": "python._tf_util", "ops.control_flow_ops": "ops.control_flow_v1"}


class AliasModule(types.ModuleType):
    """One TF module path: its names looked up in distflow (module docstring)."""

    def __init__(self, name: str, path: str):
        super().__init__(name)
        self.__path__ = []  # (a package too: a deeper path may be imported from it)
        self._tf_path = path

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if name.islower() and self._tf_path in _PACKAGES:  # (ops.variable_scope: the module, not the function)
            return importlib.import_module(f"{self.__name__}.{name}")
        for source in _sources(self._tf_path):
            try:
                value = getattr(source, name)
            except AttributeError:
                continue
            if isinstance(value, types.ModuleType):  # (framework.ops: TF's module of that path, not distflow's)
                break
            setattr(self, name, value)  # (found once: a program's later reads are plain attribute reads)
            return value
        if name.islower() and _is_package(self._tf_path):  # (ops.math_ops: a module of TF's, made as this one is)
            return importlib.import_module(f"{self.__name__}.{name}")
        raise AttributeError(f"distflow has no '{name}' for TensorFlow's tensorflow.python.{self._tf_path} (it "
                             f"looks in the public namespaces and in distflow's own module of that path; see "
                             f"docs/compat.md)")

    def __dir__(self):
        return sorted({n for source in _sources(self._tf_path) for n in dir(source) if not n.startswith("_")})


# TF's packages under tensorflow.python, whose lowercase names are modules of theirs (TF defines
# nothing else in them); keras, estimator and data are packages throughout, whose lowercase
# names are modules where distflow has no function of that name (keras.utils.to_categorical).
_PACKAGES = {"ops", "ops.losses", "ops.linalg", "framework", "platform", "client", "training", "tools",
             "saved_model", "util", "lib", "lib.io", "layers", "eager", "summary", "feature_column", "debug",
             "distribute", "profiler", "compiler"}


def _is_package(path: str) -> bool:
    return path in _PACKAGES or path.split(".")[0] in ("keras", "estimator", "data")


def _namespace(dotted: str):
    import distflow  # noqa: PLC0415 - the package, loaded by the time a name is looked up

    obj = distflow
    for part in filter(None, dotted.split(".")):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _sources(path: str) -> list:
    parts = path.split(".")
    names = None
    for length in range(len(parts), 0, -1):  # (the longest path the table names)
        names = _SEARCH.get(".".join(parts[:length]))
        if names is not None:
            break
    found = []
    if parts[0] in _UNDER:  # (keras.layers: tf.keras.layers, then tf.keras)
        for length in range(len(parts), 0, -1):
            found.append(_namespace(".".join([_UNDER[parts[0]]] + parts[1:length])))
    found += [_namespace(n) for n in (names if names is not None else _OPS)]
    own = [_OWN.get(path), _OWN.get(parts[0], parts[0]) + "." + ".".join(parts[1:]) if parts[1:] else None]
    if path in _OWN and _OWN[path].startswith("python."):  # (a module of TF's tools, written here)
        found.insert(0, importlib.import_module("distflow." + _OWN[path]))
    for name in filter(None, own):
        try:
            found.append(importlib.import_module("distflow." + name))
        except ImportError:
            pass
    return [s for s in found if s is not None]


class PrefixFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes every module under ``prefix`` (but those whose first part starts with an
    underscore: the package's own files, and those ``accept`` refuses) as ``make(full name,
    the path after the prefix)``. It is the last finder asked, so a real module wins."""

    def __init__(self, prefix: str, make, accept=None):
        self.prefix, self.make, self.accept = prefix, make, accept

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(self.prefix) or fullname[len(self.prefix):].startswith("_"):
            return None
        if self.accept is not None and not self.accept(fullname[len(self.prefix):]):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return self.make(spec.name, spec.name[len(self.prefix):])

    def exec_module(self, module):
        pass

    @classmethod
    def install(cls, prefix: str, make, accept=None) -> None:
        if not any(isinstance(f, cls) and f.prefix == prefix for f in sys.meta_path):
            sys.meta_path.append(cls(prefix, make, accept))


PrefixFinder.install(_PREFIX, AliasModule)


def __getattr__(name: str):  # (``from distflow.python import debug``: the module of that path)
    if name.startswith("__"):
        raise AttributeError(name)
    return importlib.import_module(_PREFIX + name)
