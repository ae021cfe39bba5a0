"""A Python function over dataset elements, traced once into a graph of its own.

``Dataset.map(fn)`` calls ``fn`` on placeholders shaped like the elements; the ops it
builds form a small graph that a private session runs for each element. A tensor of the
program's graph that the function reads (a constant, a placeholder, a variable's value) is
*captured*: it becomes an input of the dataset, evaluated when its iterator is
initialized (as TF 1.x's captured inputs are), and fed to the function with each element.
Lookup tables are copied into the function's graph instead (ops/lookup_ops.py).
"""

from __future__ import annotations

import numpy as np

from ..framework import dtypes
from ..framework import errors
from ..framework import ops
from ..framework.registry import get_registration
from ..ops import array_ops
from ..runtime.config import ConfigProto
from ..runtime.session import Session
from . import structure


# (resource variables' updates, which take the variable's handle)
_VARIABLE_WRITERS = {"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "ResourceScatterAdd",
                     "ResourceScatterSub", "ResourceScatterUpdate"}


class CapturingGraph(ops.Graph):
    """A function's graph: a tensor of another graph that its ops read becomes a placeholder
    here, fed with that tensor's value (``captured``, in order). (Keras probes a layer's
    output shape in one too: the layer's weights live in the model's graph.)"""

    _captures = True

    def __init__(self, refuse_updates: bool = False):
        super().__init__()
        self.captured: list = []  # (the other graph's tensor, its placeholder here)
        self._refuse_updates = refuse_updates  # (a dataset function's graph: it runs, and cannot write them)

    def _capture(self, tensor, index, op_type):
        if self._refuse_updates and op_type is not None and (tensor.dtype.is_ref_dtype
                                                             or tensor.dtype.base_dtype == dtypes.resource):
            reg = get_registration(op_type)
            if reg.stateful and index in reg.ref_inputs or op_type in _VARIABLE_WRITERS:
                raise ValueError(f"A dataset function updates the variable '{tensor.op.name}' ({op_type}): distflow's "
                                 "dataset functions read a variable's value, taken when the iterator is "
                                 "initialized, and cannot change it; update it outside the input pipeline")
        for outer, inner in self.captured:
            if outer is tensor:
                return inner
        with self.as_default(), self.control_dependencies(None), self.name_scope(None):
            inner = array_ops.placeholder(tensor.dtype.base_dtype, tensor.shape,
                                          name=f"capture_{len(self.captured)}")
        self.captured.append((tensor, inner))
        return inner


class TracedFunction:
    """With ``returns_dataset`` the function returns a Dataset (flat_map, interleave): the
    graph computes the values that dataset reads, and :meth:`iterate` runs it."""

    def __init__(self, func, input_spec: structure.Spec, what: str, returns_dataset: bool = False):
        if not callable(func):
            raise TypeError(f"{what} expects a callable, got {func!r}")
        outer = ops.get_default_graph()
        self._graph = CapturingGraph(refuse_updates=True)
        self._graph.seed = outer.seed
        self._what = what
        with self._graph.as_default():
            self._placeholders = [array_ops.placeholder(leaf.dtype, leaf.shape, name=f"arg{i}")
                                  for i, leaf in enumerate(input_spec.leaves())]
            args = input_spec.pack(self._placeholders)
            result = func(*args) if input_spec.is_tuple() else func(args)
            if returns_dataset:
                if not (hasattr(result, "_iterate") and hasattr(result, "element_spec")):  # (a Dataset)
                    raise TypeError(f"{what}: the function must return a Dataset, got {result!r}")
                self._dataset = result
                self._outputs, self.output_spec = result._all_inputs(), result.element_spec
            else:
                if isinstance(result, list):  # TF 1.x treats a returned list as a tuple of components
                    result = tuple(result)
                self._outputs, self.output_spec = structure.to_tensors(result)
            # A tensor of the program's graph that the result holds as it is (no op here reads
            # it: a padding value of a padded_batch, say) is captured too.
            self._outputs = [self._graph._capture(t, None, None) if isinstance(t, ops.Tensor)
                             and t.graph is not self._graph else t for t in self._outputs]
        self._graph.finalize()

    @property
    def captured(self) -> list:
        """The tensors of other graphs the function reads: inputs of the dataset that owns it,
        whose values it is given with each element."""
        return [outer for outer, _ in self._graph.captured]

    def __call__(self, element: tuple, state, captured=()) -> tuple:
        key = ("function", id(self))
        run = state.stages.get(key)
        if run is None:
            sess = Session(graph=self._graph, config=ConfigProto(device_count={"GPU": 0}))
            tables = self._graph.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
            if tables:  # (copies of the program's lookup tables: filled before the first call)
                sess.run(tables)
            # (a callable: the fetches and feeds resolved once, not per element)
            run = sess.make_callable(self._outputs, self._placeholders + [inner for _, inner in self._graph.captured])
            run.close = sess.close  # (what the iterator's RunState closes when it is done)
            state.stages[key] = run
        try:
            values = run(*element, *captured)
        except errors.OpError as e:
            raise type(e)(e.node_def, e.op, f"in the function given to {self._what}: {e.message}") from None
        # (a string comes back as bytes: an object array, as every string tensor's value)
        return tuple([v if v.__class__ is np.ndarray else np.asarray(v, dtype=object) if isinstance(v, bytes)
                      else np.asarray(v) for v in values])

    def iterate(self, element: tuple, state, captured=()):
        """The elements of the dataset the function returns for ``element``."""
        return self._dataset._iterate(list(self(element, state, captured)), state)
