"""Graph, Operation and Tensor: the dataflow graph that user code builds.

Nothing here runs a kernel. A Graph owns Operations; an Operation has input
Tensors (outputs of other operations), control inputs, a device string and attrs;
its outputs are Tensors with a dtype and a static shape inferred when it is built.
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Callable, Iterable

from . import dtypes as _dtypes
from . import registry
from .device_spec import DeviceSpec, canonical_name, merge_device
from .tensor_shape import TensorShape, as_shape

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class GraphKeys:
    """Standard names of graph collections."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES


# ---------------------------------------------------------------------------
# Tensor


class Tensor:
    """One output of an Operation: a symbolic handle, with a dtype and a static shape."""

    # Make NumPy defer to our operators in `ndarray + tensor`.
    __array_priority__ = 100

    # ("aliases", "alias": the names contrib's layers give an output they collect, as TF's tensors take them)
    # (``__dict__``: a program may set attributes of its own on a tensor, as TF 1.x's allowed:
    # TFLearn's layers hang their variables and scope on their outputs)
    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_consumers", "alias", "aliases", "__weakref__",
                 "__dict__")

    def __init__(self, op: "Operation", value_index: int, dtype: _dtypes.DType, shape: TensorShape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._shape = shape
        self._consumers: list[Operation] = []

    @property
    def op(self) -> "Operation":
        return self._op

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def graph(self) -> "Graph":
        return self._op._graph

    @property
    def name(self) -> str:
        return f"{self._op._name}:{self._value_index}"

    @property
    def device(self) -> str:
        return self._op.device

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def _shape_as_list(self):
        """The static shape as a list (None for an unknown rank): TF's private helper, which
        code written against TF's internals (its gradient checker, say) calls."""
        return self._shape.as_list() if self._shape.ndims is not None else None

    def set_shape(self, shape) -> None:
        """Refines the static shape; an incompatible shape is a ValueError."""
        self._shape = self._shape.merge_with(as_shape(shape))

    def consumers(self) -> list["Operation"]:
        return list(self._consumers)

    def eval(self, feed_dict=None, session=None):
        """Runs this tensor in ``session`` (default: the default session)."""
        return _run_using_default_session(self, feed_dict, self.graph, session)

    def _as_node_def_input(self) -> str:
        return self._op._name if self._value_index == 0 else self.name

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):  # what print() shows in TF 1.x: Tensor("Const:0", shape=(), dtype=float32)
        shape = f", shape={self._shape}" if self._shape.ndims is not None else ""
        device = f", device={self.device}" if self.device else ""
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name}{device})'


    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise TypeError("Using a tf.Tensor as a Python `bool` is not allowed. Use `if t is not "
                        "None:` to test for presence, or tf.cond / a fetched value to branch on it.")

    def __iter__(self):
        raise TypeError(f"Tensor '{self.name}' is not iterable in graph mode; use tf.unstack "
                        "or index it with t[i].")

    def __len__(self):
        raise TypeError(f"len is not well defined for symbolic Tensor '{self.name}'; use tf.shape")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(f"Cannot convert symbolic Tensor '{self.name}' to a NumPy array; "
                        "run it in a Session to get its value.")

    @classmethod
    def _override_operator(cls, operator: str, func: Callable) -> None:
        """Installs ``func`` as ``Tensor.<operator>`` (math_ops and array_ops call this)."""
        setattr(cls, operator, func)


# ---------------------------------------------------------------------------
# Operation


class Operation:
    """A node of the graph: a type, inputs, control inputs, attrs and a device."""

    __slots__ = ("_graph", "_name", "_type", "_inputs", "_control_inputs", "_outputs",
                 "_attrs", "_device", "_assigned_device", "_id", "_reg", "_ctx", "_node_def", "__weakref__",
                 "__dict__")

    def __init__(self, graph: "Graph", name: str, op_type: str, inputs: list[Tensor],
                 attrs: dict, reg: registry.OpRegistration):
        self._graph = graph
        self._name = name
        self._type = op_type
        self._inputs = tuple(inputs)
        self._control_inputs: list[Operation] = []
        self._outputs: tuple[Tensor, ...] = ()
        self._attrs = attrs
        self._device = ""
        self._assigned_device = ""  # where a local session placed it last (what pictures of the graph show)
        self._id = -1
        self._reg = reg
        self._ctx = None  # the control-flow function (a cond branch, a loop body) it belongs to
        self._node_def = None  # (what it was serialized from, its NodeDef's bytes): wire.py's

    # -- read access ---------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def type(self) -> str:
        return self._type

    @property
    def graph(self) -> "Graph":
        return self._graph

    @property
    def inputs(self) -> tuple[Tensor, ...]:
        return self._inputs

    @property
    def outputs(self) -> tuple[Tensor, ...]:
        return self._outputs

    @property
    def control_inputs(self) -> list["Operation"]:
        return list(self._control_inputs)

    @property
    def device(self) -> str:
        return self._device

    @property
    def is_stateful(self) -> bool:
        return self._reg.stateful

    @property
    def attrs(self) -> dict:
        return dict(self._attrs)

    def get_attr(self, name: str):
        """The value of attr ``name``, strings as bytes as TF gives them (``b"SAME"``,
        ``[b"loc:@v"]``); distflow's own code reads the stored value (``_attr``)."""
        value = self._attr(name)
        if isinstance(value, str):
            return value.encode()
        if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
            return [v.encode() for v in value]
        return value

    def _attr(self, name: str):
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self._name}' ({self._type}) has no attr named "
                             f"'{name}'; it has {sorted(self._attrs)}") from None

    def values(self) -> tuple[Tensor, ...]:
        return self._outputs

    def colocation_groups(self) -> list[bytes]:
        """The colocation group names, as bytes (as TF's): its ``_class`` attr, or ``[b"loc:@<own name>"]``."""
        return [g.encode() for g in self._colocation_group_names()]

    def _colocation_group_names(self) -> list[str]:
        groups = [g for g in self._attrs.get("_class", ()) if g.startswith("loc:@")]
        return groups or [f"loc:@{self._name}"]

    @property
    def node_def(self):
        """This op as TensorFlow's NodeDef protocol buffer."""
        from . import wire  # noqa: PLC0415 - protobuf is loaded when a program asks for protos

        return wire.node_to_proto(self)

    def run(self, feed_dict=None, session=None) -> None:
        """Runs this operation in ``session`` (default: the default session)."""
        _run_using_default_session(self, feed_dict, self._graph, session)

    # -- mutation (framework-internal, as in TF) --------------------------------
    def _set_device(self, device) -> None:
        self._device = canonical_name(device)

    def _set_attr(self, name: str, value) -> None:
        self._attrs[name] = value

    def _add_control_input(self, op: "Operation") -> None:
        if not isinstance(op, Operation):
            raise TypeError(f"A control input must be an Operation, got {op!r}")
        if op not in self._control_inputs:
            self._control_inputs.append(op)

    def _replace_input(self, index: int, tensor: "Tensor") -> None:
        """Reads ``tensor`` at input ``index`` instead (a control-flow function being built
        re-points its reads)."""
        old = self._inputs[index]
        self._inputs = self._inputs[:index] + (tensor,) + self._inputs[index + 1:]
        old._consumers.remove(self)
        tensor._consumers.append(self)

    def _add_control_inputs(self, ops: Iterable["Operation"]) -> None:
        for op in ops:
            self._add_control_input(op)

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"

    __str__ = __repr__

    def __hash__(self):
        return id(self)


# ---------------------------------------------------------------------------
# Graph


class _ControlDependenciesController:
    __slots__ = ("graph", "control_inputs", "new_ops")

    def __init__(self, graph: "Graph", control_inputs):
        self.graph = graph
        self.control_inputs = control_inputs  # None clears the enclosing ones
        self.new_ops: set[int] = set()


class _ScopeState:
    """A graph's name, device, colocation and control-dependency scopes (shared by all threads)."""

    def __init__(self):
        self.name_stack = ""
        self.device_function_stack: list = []
        self.colocation_stack: list = []
        self.control_dependencies_stack: list = []
        self.gradient_override_map: dict = {}
        self.function_context = None  # the cond branch or loop function being built, if any


_SCOPE_FIELDS = ("name_stack", "device_function_stack", "colocation_stack", "control_dependencies_stack",
                 "gradient_override_map", "function_context")


class _ThreadLocalScopeState(threading.local, _ScopeState):
    """The same, one per thread: what ``Graph.switch_to_thread_local()`` turns them into."""


def _scope_attr(name: str):
    return property(lambda self: getattr(self._scopes, name), lambda self, value: setattr(self._scopes, name, value))


class Graph:
    """A TensorFlow computation: a set of Operations and the Tensors between them."""

    _name_stack = _scope_attr("name_stack")
    _device_function_stack = _scope_attr("device_function_stack")
    _colocation_stack = _scope_attr("colocation_stack")
    _control_dependencies_stack = _scope_attr("control_dependencies_stack")
    _gradient_override_map = _scope_attr("gradient_override_map")
    _function_context = _scope_attr("function_context")

    def __init__(self):
        self._lock = threading.RLock()
        self._nodes_by_name: dict[str, Operation] = {}
        self._nodes: list[Operation] = []
        self._names_in_use: dict[str, int] = {}
        self._scopes = _ScopeState()
        self._collections: dict[str, list] = {}
        self._finalized = False
        self._seed = None
        self._container = ""
        self._version = 0
        self._unfeedable: set = set()  # (marked by prevent_feeding and prevent_fetching)
        self._unfetchable: set = set()
        self._holds_session_handles = False  # (a tf.get_session_handle op: ops/session_ops.py)

    # -- default graph ------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self):
        """Makes this the default graph of the current thread inside the ``with``."""
        _default_graph_stack.push(self)
        try:
            yield self
        finally:
            _default_graph_stack.pop(self)

    # -- properties --------------------------------------------------------------
    @property
    def finalized(self) -> bool:
        return self._finalized

    def finalize(self) -> None:
        """Makes the graph read-only: adding an op afterwards is a RuntimeError."""
        self._finalized = True

    def _unsafe_unfinalize(self) -> None:
        self._finalized = False

    # -- what a step may feed and fetch ---------------------------------------------
    def prevent_feeding(self, tensor) -> None:
        """Marks ``tensor`` as one a step may not be fed."""
        self._unfeedable.add(tensor)

    def is_feedable(self, tensor) -> bool:
        """Whether a step may feed ``tensor``: not if marked so, nor if it is made in a cond
        branch or a loop body (it exists only while that runs)."""
        return tensor not in self._unfeedable and tensor.op._ctx is None

    def prevent_fetching(self, op) -> None:
        """Marks ``op`` (and its outputs) as one a step may not fetch."""
        self._unfetchable.add(op)

    def is_fetchable(self, tensor_or_op) -> bool:
        """Whether a step may fetch ``tensor_or_op``: not if its op is marked so, nor if it is
        made in a cond branch or a loop body."""
        op = tensor_or_op if isinstance(tensor_or_op, Operation) else tensor_or_op.op
        return op not in self._unfetchable and op._ctx is None

    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    @property
    def version(self) -> int:
        return self._version

    @property
    def _last_id(self) -> int:
        return self._version

    # -- building ------------------------------------------------------------------
    def create_op(self, op_type: str, inputs: list[Tensor], attrs: dict | None = None,
                  name: str | None = None, control_inputs: Iterable[Operation] = ()) -> Operation:
        """Adds an op of a registered type; its output dtypes and shapes are inferred.

        Raises:
          RuntimeError: the graph is finalized.
          ValueError: the inputs' static shapes are incompatible.
          TypeError: an input is not a Tensor of this graph.
        """
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        reg = registry.get_registration(op_type)
        attrs = dict(attrs or {})
        inputs = list(inputs)
        for i, t in enumerate(inputs):
            if not isinstance(t, Tensor):
                raise TypeError(f"Input {i} of op '{op_type}' must be a Tensor, got {t!r}")
            if t.graph is not self:
                t = inputs[i] = self._capture(t, i, op_type)
            if t.op._ctx is not None and t.op._ctx is not self._function_context:
                t.op._ctx.check_readable_from(self._function_context, t, name or op_type)
        if isinstance(name, bytes):
            name = name.decode()
        with self._lock:
            if name and name.endswith("/"):  # a name scope's own name, or an imported op's: taken as it is
                name = name[:-1]
                self._names_in_use.setdefault(name.lower(), 1)  # (so that no later op takes it too)
            else:
                name = self.unique_name(name or op_type)
            op = Operation(self, name, op_type, inputs, attrs, reg)
            op._ctx = self._function_context
            if self._container and "container" in reg.attr_names and not attrs.get("container"):
                attrs["container"] = self._container
            op._outputs = self._infer_outputs(op)
            override = self._gradient_override_map.get(op_type) if self._gradient_override_map else None
            if override is not None:
                attrs["_gradient_op_type"] = override
            self._apply_device_functions(op)
            self._apply_colocation(op)
            control = list(control_inputs) + self._control_dependencies_for_inputs(
                {t.op for t in inputs})
            op._add_control_inputs(control)
            for t in inputs:
                t._consumers.append(op)
            self._version += 1
            op._id = self._version
            self._nodes_by_name[name] = op
            self._nodes.append(op)
            for controller in self._control_dependencies_stack:
                controller.new_ops.add(id(op))
        return op

    def _infer_outputs(self, op: Operation) -> tuple[Tensor, ...]:
        reg = op._reg
        try:
            shapes = reg.shape_fn(op)
            if isinstance(shapes, (TensorShape, type(None))) or (
                    isinstance(shapes, (list, tuple)) and shapes and not isinstance(shapes[0], TensorShape)):
                shapes = [as_shape(shapes)]
            shapes = [as_shape(s) for s in shapes]
            if reg.dtype_fn is None:
                out_dtypes = [op._inputs[0].dtype.base_dtype] * len(shapes) if shapes else []
            else:
                out_dtypes = reg.dtype_fn(op)
                if isinstance(out_dtypes, _dtypes.DType):
                    out_dtypes = [out_dtypes]
        except ValueError as e:
            in_shapes = ", ".join(_shape_str(t.shape) for t in op._inputs)
            raise ValueError(f"{e} for '{op._name}' (op: '{op._type}') with input shapes: "
                             f"{in_shapes}.") from None
        if len(out_dtypes) != len(shapes):  # (attrs that disagree, a GraphDef's mutated ones say: bad input)
            raise ValueError(f"Op '{op._name}' ({op._type}): its attributes give {len(shapes)} output shapes but "
                             f"{len(out_dtypes)} output types")
        return tuple(Tensor(op, i, d, s) for i, (d, s) in enumerate(zip(out_dtypes, shapes)))

    def _apply_device_functions(self, op: Operation) -> None:
        for (fn,) in reversed(self._device_function_stack):
            if fn is None:
                break
            op._set_device(_device_string(fn(op)))

    def _apply_colocation(self, op: Operation) -> None:
        if not self._colocation_stack:
            return
        groups: set[str] = set()
        device_set = False
        for colocation_op in reversed(self._colocation_stack):
            if isinstance(colocation_op, str):  # (an op still to be made: see _colocate_with_name)
                groups.add(f"loc:@{colocation_op}")
                continue
            groups.update(colocation_op._colocation_group_names())
            if colocation_op.device and not device_set:
                op._set_device(colocation_op.device)
                device_set = True
        op._set_attr("_class", sorted(groups))

    def _control_dependencies_for_inputs(self, input_ops: set) -> list[Operation]:
        out: list[Operation] = []
        for controller in self._control_dependencies_stack:
            if any(id(op) in controller.new_ops for op in input_ops):
                continue  # an input already carries this block's dependencies
            out.extend(c for c in controller.control_inputs if c not in input_ops)
        return out

    # -- naming ------------------------------------------------------------------------
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name`` under the current name scope, suffixed ``_1``, ``_2``... if taken."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while key in self._names_in_use:
                key = f"{base}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[key] = 1
            name = f"{name}_{i - 1}"
        return name

    def get_name_scope(self) -> str:
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name: str | None):
        """Pushes a name scope; yields its prefix ending in '/' ("" at the root).

        A name that ends in '/' re-enters that exact scope; None or "" resets to the root.
        """
        if name:
            # (as TF: a scope at the root must be a valid op name, so it cannot begin with '_',
            # '-', '\\' or '/'; nested ones may)
            if not (_VALID_SCOPE_NAME if self._name_stack else _VALID_OP_NAME).match(name):
                raise ValueError(f"'{name}' is not a valid scope name")
            if name.endswith("/"):
                new_stack = name[:-1]
            else:
                new_stack = self.unique_name(name)
        else:
            new_stack = ""
        old = self._name_stack
        self._name_stack = new_stack
        try:
            yield "" if not new_stack else new_stack + "/"
        finally:
            self._name_stack = old

    # -- device and colocation scopes --------------------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Scopes the device of new ops. A device string merges with the enclosing scope's (the
        fields it names win, the others come from outside, as in TF 1.x); a function chooses each
        op's device; None clears the scope."""
        if device_name_or_function is None:
            fn = None
        elif callable(device_name_or_function):
            fn = device_name_or_function
        else:
            spec = device_name_or_function
            if isinstance(spec, str) and not spec:
                yield
                return
            merge = merge_device(spec)

            def fn(op, _merge=merge):
                return _merge(op.device)
        entry = [fn]  # a fresh object: the exit below checks that this scope is the innermost one
        self._device_function_stack.append(entry)
        try:
            yield
        finally:
            if not self._device_function_stack or self._device_function_stack[-1] is not entry:
                raise RuntimeError("Exiting device scope without proper scope nesting: device scopes must be "
                                   "exited in the reverse order of entering them")
            self._device_function_stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing: bool = False):
        """New ops go on the device of ``op`` and join its colocation group."""
        if op is None and not ignore_existing:
            raise ValueError("colocate_with(None) is only valid with ignore_existing=True")
        target = None if op is None else _as_operation(self, op)
        saved_devices = self._device_function_stack
        saved_colocation = self._colocation_stack
        self._device_function_stack = []
        if ignore_existing:
            self._colocation_stack = []
        if target is not None:
            self._colocation_stack = self._colocation_stack + [target]
        try:
            yield
        finally:
            self._device_function_stack = saved_devices
            self._colocation_stack = saved_colocation

    @contextlib.contextmanager
    def _colocate_with_name(self, name: str):
        """New ops join the colocation group of the op that will be named ``name``, and no device
        scope applies to them: where a variable's initial value is built, before the variable
        (as TF 1.x builds it), so that it runs where the variable is placed."""
        saved_devices = self._device_function_stack
        saved_colocation = self._colocation_stack
        self._device_function_stack = []
        self._colocation_stack = saved_colocation + [name]
        try:
            yield
        finally:
            self._device_function_stack = saved_devices
            self._colocation_stack = saved_colocation

    @contextlib.contextmanager
    def container(self, container_name: str):
        """Stateful ops created inside keep their resources in ``container_name``."""
        old = self._container
        self._container = container_name
        try:
            yield self._container
        finally:
            self._container = old

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run only after every op in ``control_inputs``; None clears."""
        if control_inputs is None:
            # as in TF 1.x, this also leaves any cond branch or loop being built: what is
            # created here (a variable and its initializer) belongs to the graph itself
            saved = self._control_dependencies_stack, self._function_context
            self._control_dependencies_stack, self._function_context = [], None
            try:
                yield
            finally:
                self._control_dependencies_stack, self._function_context = saved
            return
        ops = []
        for c in control_inputs:
            op = _as_operation(self, c)
            if op not in ops:
                ops.append(op)
        controller = _ControlDependenciesController(self, ops)
        self._control_dependencies_stack.append(controller)
        try:
            yield
        finally:
            self._control_dependencies_stack.pop()

    # -- lookup ------------------------------------------------------------------------------
    def get_operations(self) -> list[Operation]:
        return list(self._nodes)

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings, got {name!r}")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings, got {name!r}")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor: bool = True, allow_operation: bool = True):
        """Resolves a Tensor, Operation, Variable or name ('op' / 'op:0') in this graph."""
        conv = getattr(obj, "_as_graph_element", None)
        if conv is not None and not isinstance(obj, (Tensor, Operation)):
            obj = conv()
        if isinstance(obj, bytes):
            obj = obj.decode()
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                op_name, _, index = obj.rpartition(":")
                try:
                    index = int(index)
                except ValueError:
                    raise ValueError(f"The name '{obj}' looks like a Tensor name, but its output "
                                     f"index '{index}' is not an integer.") from None
                op = self._nodes_by_name.get(op_name)
                if op is None:
                    raise KeyError(f"The name '{obj}' refers to a Tensor which does not exist. "
                                   f"The operation, '{op_name}', does not exist in the graph.")
                if not 0 <= index < len(op._outputs):
                    raise KeyError(f"The name '{obj}' refers to a Tensor which does not exist. "
                                   f"The operation, '{op_name}', exists but only has "
                                   f"{len(op._outputs)} outputs.")
                return op._outputs[index]
            if ":" in obj:
                raise ValueError(f"Name '{obj}' appears to refer to a Tensor, not an Operation.")
            if not allow_operation:
                raise ValueError(f"The name '{obj}' looks like an (invalid) Operation name, not "
                                 "a Tensor. Tensor names must be of the form '<op_name>:<output_index>'.")
            op = self._nodes_by_name.get(obj)
            if op is None:
                raise KeyError(f"The name '{obj}' refers to an Operation not in the graph.")
            return op
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        kinds = " or ".join(k for k, ok in (("Tensor", allow_tensor), ("Operation", allow_operation)) if ok)
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {kinds}.")

    def as_graph_def(self, from_version=None, add_shapes: bool = False):
        """The graph as TensorFlow's GraphDef protocol buffer (``SerializeToString()``, text format).

        ``from_version`` keeps only the ops added after that ``graph.version``;
        ``add_shapes`` adds each op's static output shapes as the ``_output_shapes`` attr.
        """
        from . import wire  # noqa: PLC0415

        nodes = self._nodes if from_version is None else [op for op in self._nodes if op._id > from_version]
        return wire.graph_to_proto(nodes, add_shapes=add_shapes)

    @property
    def graph_def_versions(self):
        from . import wire  # noqa: PLC0415

        return wire.graph_to_proto([]).versions

    # -- collections ---------------------------------------------------------------------------
    def add_to_collection(self, name: str, value) -> None:
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value) -> None:
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name: str) -> list:
        return self._collections.setdefault(name, [])

    def get_collection(self, name: str, scope: str | None = None) -> list:
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        pattern = re.compile(scope)
        return [item for item in items
                if getattr(item, "name", None) is not None and pattern.match(item.name)]

    @property
    def collections(self) -> list[str]:
        """The names of the collections this graph holds."""
        return list(self._collections)

    def switch_to_thread_local(self) -> None:
        """From now on, each thread has its own name, device, colocation and control scopes.

        Threads that build parts of one graph at once (one tower per thread) then do not
        see each other's ``with tf.device(...)`` or ``name_scope`` blocks.
        """
        if not isinstance(self._scopes, _ThreadLocalScopeState):
            self._scopes = _ThreadLocalScopeState()

    _captures = False  # (a graph whose ops may read other graphs' tensors: it builds them itself)

    def _capture(self, tensor: Tensor, index: int, op_type: str) -> Tensor:
        """What an op of this graph reads for ``tensor``, a tensor of another graph: an error
        here; a graph that traces a function (a dataset's) captures it instead."""
        raise ValueError(f"Input {index} of op '{op_type}' ('{tensor.name}') is from a different "
                         "graph; build all ops of a computation in one graph.")

    # Stacks that modules above keep on the graph (variable_scope's scopes, state_ops's creators).
    _BUILDING_STACKS = ("_variable_scope_stack", "_variable_creator_stack")

    def _building_state(self, fork: bool = False) -> tuple:
        """What code being built now sees of this graph: its name, device, colocation and
        control-dependency scopes and the variable scope and creator stacks. Code that builds
        in turns (tf.distribute's replica functions, one thread each, one running at a time)
        takes it when a turn ends and gives it back with :meth:`_set_building_state`. With
        ``fork`` the stacks are copies, to start another builder from."""
        take = (lambda v: type(v)(v) if isinstance(v, (list, dict)) else v) if fork else (lambda v: v)
        scopes = {name: take(getattr(self._scopes, name)) for name in _SCOPE_FIELDS}
        stacks = {name: take(self.__dict__.get(name)) for name in self._BUILDING_STACKS}
        return scopes, stacks

    def _set_building_state(self, state: tuple) -> None:
        scopes, stacks = state
        for name, value in scopes.items():
            setattr(self._scopes, name, value)
        for name, value in stacks.items():
            if value is None:
                self.__dict__.pop(name, None)
            else:
                self.__dict__[name] = value

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict):
        """Ops of the given types built in this block use another type's registered gradient.

        ``with g.gradient_override_map({"Square": "CustomSquare"}):`` makes the Square ops
        built inside differentiate with the gradient registered as "CustomSquare".
        """
        for key, value in op_type_map.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map = {**saved, **op_type_map}
        try:
            yield
        finally:
            self._gradient_override_map = saved

    def get_all_collection_keys(self) -> list[str]:
        return [k for k, v in self._collections.items() if isinstance(v, list)]

    def clear_collection(self, name: str) -> None:
        self._collections.pop(name, None)


def _shape_str(shape: TensorShape) -> str:
    dims = shape.as_tuple()
    if dims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _device_string(value) -> str:
    if value is None:
        return ""
    if isinstance(value, DeviceSpec):
        return value.to_string()
    return canonical_name(value)


def _as_operation(graph: Graph, obj) -> Operation:
    element = graph.as_graph_element(obj, allow_tensor=True, allow_operation=True)
    return element.op if isinstance(element, Tensor) else element


# ---------------------------------------------------------------------------
# The default graph and session (thread-local stacks, as in TF)


class _DefaultStack(threading.local):
    def __init__(self):
        self.stack: list = []

    def push(self, obj) -> None:
        self.stack.append(obj)

    def pop(self, obj) -> None:
        if not self.stack or self.stack[-1] is not obj:
            raise AssertionError("Nesting violated for default stack of "
                                 f"{type(obj).__name__} objects")
        self.stack.pop()

    def top(self):
        return self.stack[-1] if self.stack else None


_default_graph_stack = _DefaultStack()
_global_default_graph: Graph | None = None
_default_session_stack = _DefaultStack()


def get_default_graph() -> Graph:
    global _global_default_graph
    graph = _default_graph_stack.top()
    if graph is not None:
        return graph
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph() -> None:
    """Clears the global default graph (not allowed inside a ``with g.as_default()``)."""
    global _global_default_graph
    if _default_graph_stack.stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If "
                             "you need a cleared graph, exit the nesting and create a new graph.")
    _global_default_graph = Graph()


def get_default_session():
    return _default_session_stack.top()


def _run_using_default_session(fetch, feed_dict, graph: Graph, session):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                             "registered. Use `with sess.as_default()` or pass an explicit "
                             "session to `eval(session=sess)`")
    if session.graph is not graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph "
                         "is different from the session's graph.")
    return session.run(fetch, feed_dict)


# ---------------------------------------------------------------------------
# Tensor conversion

_tensor_conversion_functions: list[tuple[type, Callable]] = []
_constant_factory: list[Callable] = []


def register_tensor_conversion_function(base_type, conversion_func: Callable) -> None:
    """``conversion_func(value, dtype=None, name=None, as_ref=False) -> Tensor`` for ``base_type``."""
    _tensor_conversion_functions.append((base_type, conversion_func))


def _register_constant_factory(factory: Callable) -> None:
    """array_ops installs ``constant`` here, for converting Python and NumPy values."""
    _constant_factory[:] = [factory]


def convert_to_tensor(value, dtype=None, name: str | None = None, preferred_dtype=None,
                      as_ref: bool = False) -> Tensor:
    """Converts a Tensor, Variable, NumPy array or Python value to a Tensor.

    Raises:
      ValueError: a Tensor's dtype differs from ``dtype``.
      TypeError: a value cannot be represented in ``dtype`` without loss.
    """
    dtype = None if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with "
                             f"dtype {value.dtype.name}: {value!r}")
        return value
    for base_type, fn in _tensor_conversion_functions:
        if isinstance(value, base_type):
            out = fn(value, dtype=dtype, name=name, as_ref=as_ref)
            if dtype is not None and not dtype.is_compatible_with(out.dtype):
                raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor "
                                 f"with dtype {out.dtype.name}: {out!r}")
            return out
    if isinstance(value, Operation):
        raise TypeError(f"Can't convert Operation '{value.name}' to Tensor (target dtype="
                        f"{dtype}, name={name!r}); fetch or depend on it instead.")
    if dtype is None and preferred_dtype is not None:
        try:
            return _constant_factory[0](value, dtype=preferred_dtype, name=name)
        except (TypeError, ValueError):
            pass
    return _constant_factory[0](value, dtype=dtype, name=name)


def convert_n_to_tensor(values, dtype=None, name=None) -> list[Tensor]:
    return [convert_to_tensor(v, dtype=dtype) for v in values]


# ---------------------------------------------------------------------------
# Public scope functions (tf.name_scope, tf.device, ...) on the default graph


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """``tf.name_scope(name, default_name=None, values=None)``: yields the scope prefix."""
    graph = _graph_of(values)
    if name is None and default_name is not None:
        name = default_name
    with graph.as_default(), graph.name_scope(name) as scope:
        yield scope


def _graph_of(values) -> Graph:
    for v in values or ():
        graph = getattr(v, "graph", None)
        if isinstance(graph, Graph):
            return graph
    return get_default_graph()


def device(device_name_or_function):
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing: bool = False):
    return get_default_graph().colocate_with(op, ignore_existing=ignore_existing)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def container(container_name: str):
    return get_default_graph().container(container_name)


def add_to_collection(name, value) -> None:
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value) -> None:
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None) -> list:
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key) -> list:
    return get_default_graph().get_collection_ref(key)


def get_name_scope() -> str:
    return get_default_graph().get_name_scope()
