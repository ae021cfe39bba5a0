"""TensorFlow's protocol buffer modules at TF's paths, which TF 1.x programs imported messages
from: ``from distflow.core.framework import graph_pb2``, ``summary_pb2``, ``types_pb2``,
``from distflow.core.protobuf import config_pb2, saver_pb2, meta_graph_pb2``,
``from distflow.core.util import event_pb2``, ``from distflow.core.example import example_pb2``.

Each ``distflow.core.<dir>.<name>_pb2`` is a module made when it is first imported, whose
names are distflow's messages of TensorFlow's names and wire format (``GraphDef``,
``Summary``, ``Event``, ``DT_FLOAT``...), then the session options (``ConfigProto``,
``RunOptions``, ``GPUOptions``: distflow's classes), then ``tf.train``'s (``SaverDef``,
``Example``). A name found in none of them (``RewriterConfig``: Grappler's options, which
distflow does not have) is an AttributeError that names TensorFlow's module.
"""

from __future__ import annotations

import importlib
import types

from ..python import PrefixFinder

_PREFIX = __name__ + "."


def _sources() -> list:
    import distflow  # noqa: PLC0415 - the package, loaded by the time a name is looked up
    from ..protos import distflow_pb2  # noqa: PLC0415

    return [distflow_pb2, distflow, distflow.train, distflow.summary]


class _ProtoModule(types.ModuleType):
    """One of TF's proto modules (``framework.graph_pb2``), or a directory of them."""

    def __init__(self, name: str, path: str):
        super().__init__(name)
        self.__path__ = []  # (a directory's modules are imported from it)
        self._tf_path = path

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if name.endswith("_pb2") or "." not in self._tf_path and name.islower():
            return importlib.import_module(f"{self.__name__}.{name}")
        for source in _sources():
            value = getattr(source, name, None)
            if value is not None and not isinstance(value, types.ModuleType):
                setattr(self, name, value)
                return value
        raise AttributeError(f"distflow has no '{name}' for TensorFlow's tensorflow.core.{self._tf_path} (see "
                             f"docs/compat.md)")


PrefixFinder.install(_PREFIX, _ProtoModule)


def __getattr__(name: str):  # (``from distflow.core import framework``: the directory of that path)
    if name.startswith("__"):
        raise AttributeError(name)
    return importlib.import_module(_PREFIX + name)
