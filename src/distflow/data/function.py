"""A Python function over dataset elements, traced once into a graph of its own.

``Dataset.map(fn)`` calls ``fn`` on placeholders shaped like the elements; the ops it
builds form a small graph that a private session runs for each element. The function
must build its result from its arguments (and constants, and lookup tables, of which the
graph gets copies: ops/lookup_ops.py): a tensor of the program's own graph cannot be used
inside it, and the error says so.
"""

from __future__ import annotations

import numpy as np

from ..framework import errors
from ..framework import ops
from ..ops import array_ops
from ..runtime.config import ConfigProto
from ..runtime.session import Session
from . import structure


class TracedFunction:
    """With ``returns_dataset`` the function returns a Dataset (flat_map, interleave): the
    graph computes the values that dataset reads, and :meth:`iterate` runs it."""

    def __init__(self, func, input_spec: structure.Spec, what: str, returns_dataset: bool = False):
        if not callable(func):
            raise TypeError(f"{what} expects a callable, got {func!r}")
        outer = ops.get_default_graph()
        self._graph = ops.Graph()
        self._graph.seed = outer.seed
        self._what = what
        with self._graph.as_default():
            self._placeholders = [array_ops.placeholder(leaf.dtype, leaf.shape, name=f"arg{i}")
                                  for i, leaf in enumerate(input_spec.leaves())]
            args = input_spec.pack(self._placeholders)
            try:
                result = func(*args) if input_spec.is_tuple() else func(args)
            except ValueError as e:
                if "different graph" in str(e):
                    raise ValueError(f"{what}: the function uses a tensor of the program's graph; in distflow "
                                     f"a dataset function must build its result from its arguments and "
                                     f"constants ({e})") from None
                raise
            if returns_dataset:
                if not (hasattr(result, "_iterate") and hasattr(result, "element_spec")):  # (a Dataset)
                    raise TypeError(f"{what}: the function must return a Dataset, got {result!r}")
                self._dataset = result
                self._outputs, self.output_spec = result._all_inputs(), result.element_spec
            else:
                if isinstance(result, list):  # TF 1.x treats a returned list as a tuple of components
                    result = tuple(result)
                self._outputs, self.output_spec = structure.to_tensors(result)
        self._graph.finalize()

    def __call__(self, element: tuple, state) -> tuple:
        key = ("function", id(self))
        sess = state.stages.get(key)
        if sess is None:
            sess = state.stages[key] = Session(graph=self._graph, config=ConfigProto(device_count={"GPU": 0}))
            tables = self._graph.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
            if tables:  # (copies of the program's lookup tables: filled before the first call)
                sess.run(tables)
        try:
            values = sess.run(self._outputs, dict(zip(self._placeholders, element)))
        except errors.OpError as e:
            raise type(e)(e.node_def, e.op, f"in the function given to {self._what}: {e.message}") from None
        return tuple(np.asarray(v) if not isinstance(v, np.ndarray) else v for v in values)

    def iterate(self, element: tuple, state):
        """The elements of the dataset the function returns for ``element``."""
        return self._dataset._iterate(list(self(element, state)), state)
