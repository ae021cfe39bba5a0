"""Variables: the VariableV2 op, assignments and initialization.

A variable's storage is a resource in the resource manager of the device that
owns it, keyed by (container, shared name): it outlives a step, and every graph
that names the same variable on the same device sees the same storage. The
VariableV2 op outputs a *reference* to that storage; Assign/AssignAdd/AssignSub
take the reference, every other op sees the value (the runtime reads it).
"""

from __future__ import annotations

import contextlib
import enum
import inspect
import threading
import weakref

import numpy as np

from ..framework import dtypes, errors, ops
from ..framework.ops import GraphKeys
from ..framework.registry import not_differentiable, register_op
from ..framework.tensor_shape import TensorShape, as_shape
from . import array_ops, control_flow_ops, math_ops, slicing_ops
from .op_util import make_tensor


class VariableStorage:
    """The value of one variable on its device; ``value`` is None until initialized."""

    __slots__ = ("name", "dtype", "shape", "value", "lock")

    def __init__(self, name: str, dtype: dtypes.DType, shape: TensorShape):
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.value: np.ndarray | None = None
        self.lock = threading.Lock()

    def read(self) -> np.ndarray:
        value = self.value
        if value is None:
            raise errors.FailedPreconditionError(
                None, None, f"Attempting to use uninitialized value {self.name}; run its "
                "initializer (for example tf.global_variables_initializer()) first")
        return value

    def __repr__(self):
        return f"<VariableStorage {self.name} {self.dtype.name} {self.shape}>"


_UNLOCKED = contextlib.nullcontext()


def locked(var: VariableStorage, use_locking: bool):
    """What holds the variable's lock for an update (``with locked(var, use_locking):``)
    when ``use_locking`` asks for it; otherwise a context that does nothing."""
    return var.lock if use_locking else _UNLOCKED


# ---------------------------------------------------------------------------
# VariableV2


@register_op("VariableV2", shape=lambda op: op._attr("shape"),
             dtype=lambda op: op._attr("dtype")._as_ref, stateful=True)
def _variable_kernel(ctx, *, shape, dtype, container, shared_name):
    name = shared_name or ctx.op_name
    return ctx.resource_mgr.lookup_or_create(container, name,
                                             lambda: VariableStorage(name, dtype, shape))


not_differentiable("VariableV2")


def variable_op_v2(shape, dtype, name="Variable", container="", shared_name="") -> ops.Tensor:
    return make_tensor("VariableV2", [], {"shape": as_shape(shape), "dtype": dtypes.as_dtype(dtype).base_dtype,
                                          "container": container, "shared_name": shared_name}, name)


# ---------------------------------------------------------------------------
# Assign, AssignAdd, AssignSub, IsVariableInitialized


def _assign_shape(op):
    ref, value = op.inputs
    if not op._attr("validate_shape"):
        return value.shape
    if not ref.shape.is_compatible_with(value.shape):
        raise ValueError(f"Shapes {ref.shape} and {value.shape} are incompatible (assigning to "
                         f"variable '{ref.op.name}')")
    return ref.shape.merge_with(value.shape)


def _ref_dtype(op):
    return op.inputs[0].dtype._as_ref


@register_op("Assign", shape=_assign_shape, dtype=_ref_dtype, stateful=True, ref_inputs=(0,))
def _assign_kernel(xp, ref, value, *, validate_shape, use_locking):
    if validate_shape and ref.shape.is_fully_defined() and tuple(ref.shape.as_list()) != value.shape:
        raise errors.InvalidArgumentError(
            None, None, f"Assign requires shapes of both tensors to match. lhs shape= "
            f"{ref.shape.as_list()} rhs shape= {list(value.shape)}")
    new = xp.array(value, dtype=ref.dtype.as_numpy_dtype, copy=True)  # never alias the input
    with locked(ref, use_locking):
        ref.value = new
    return ref


def _update(ref: VariableStorage, delta, ufunc) -> VariableStorage:
    current = ref.read()
    if current.shape != np.shape(delta):
        raise errors.InvalidArgumentError(
            None, None, f"Update of variable '{ref.name}' requires shapes to match: variable "
            f"shape {list(current.shape)}, update shape {list(np.shape(delta))}")
    ufunc(current, delta, out=current)
    return ref


@register_op("AssignAdd", shape=lambda op: op.inputs[0].shape, dtype=_ref_dtype, stateful=True,
             ref_inputs=(0,))
def _assign_add_kernel(xp, ref, value, *, use_locking):
    with locked(ref, use_locking):
        return _update(ref, value, xp.add)


@register_op("AssignSub", shape=lambda op: op.inputs[0].shape, dtype=_ref_dtype, stateful=True,
             ref_inputs=(0,))
def _assign_sub_kernel(xp, ref, value, *, use_locking):
    with locked(ref, use_locking):
        return _update(ref, value, xp.subtract)


@register_op("CountUpTo", shape=lambda op: TensorShape([]), dtype=lambda op: op.inputs[0].dtype.base_dtype,
             stateful=True, ref_inputs=(0,))
def _count_up_to_kernel(xp, ref, *, limit):
    with ref.lock:
        current = ref.read()
        if current >= limit:
            raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
        before = current.copy()
        current += 1
        return before


not_differentiable("CountUpTo")


def count_up_to(ref, limit, name=None) -> ops.Tensor:
    """Increments the scalar integer variable ``ref`` and returns its value before.

    Raises OutOfRangeError when it already reached ``limit`` (the value stays).
    """
    ref = variable_ref(ref)
    if ref.dtype.base_dtype not in (dtypes.int32, dtypes.int64) or ref.shape.ndims not in (None, 0):
        raise ValueError(f"count_up_to needs a scalar int32 or int64 variable, got {ref.dtype.name} "
                         f"{ref.shape} for '{ref.name}'")
    return make_tensor("CountUpTo", [ref], {"limit": int(limit)}, name or "CountUpTo")


@register_op("IsVariableInitialized", shape=lambda op: TensorShape([]),
             dtype=lambda op: dtypes.bool, ref_inputs=(0,))
def _is_initialized_kernel(xp, ref):
    return np.array(ref.value is not None)


@register_op("InitializedValueOrDefault", shape=lambda op: op.inputs[0].shape,
             dtype=lambda op: op.inputs[0].dtype.base_dtype, ref_inputs=(0,))
def _initialized_value_kernel(xp, ref, default):
    """distflow's stand-in for TF's cond(is_initialized, read, initial_value)."""
    value = ref.value
    return default if value is None else value


for _t in ("Assign", "AssignAdd", "AssignSub", "IsVariableInitialized", "InitializedValueOrDefault"):
    not_differentiable(_t)


def variable_ref(ref) -> ops.Tensor:
    if isinstance(ref, ImportedResourceVariable):
        raise TypeError(f"'{ref.name}' is a resource variable (TensorFlow's, imported): tf.assign and its kin take "
                        "reference variables; use its own assign methods")
    if isinstance(ref, Variable):
        return ref._variable
    if isinstance(ref, ops.Tensor) and ref.dtype.is_ref_dtype:
        return ref
    raise TypeError(f"Expected a variable (a ref tensor), got {ref!r}. Assignments need the "
                    "variable itself, not a value read from it.")


def _value_for(ref: ops.Tensor, value, op_type: str) -> ops.Tensor:
    try:
        return ops.convert_to_tensor(value, dtype=ref.dtype.base_dtype)
    except ValueError as e:
        raise TypeError(f"{op_type} to variable '{ref.op.name}' ({ref.dtype.base_dtype.name}) "
                        f"got a value of another dtype: {e}") from None


def assign(ref, value, validate_shape=None, use_locking=None, name=None) -> ops.Tensor:
    """Stores ``value`` in the variable (or in the slice ``v[...]`` of one); the result refers
    to the updated variable."""
    if isinstance(ref, _VariableSlice):
        return ref.assign(value, name=name)
    ref = variable_ref(ref)
    value = _value_for(ref, value, "Assign")
    attrs = {"validate_shape": True if validate_shape is None else bool(validate_shape),
             "use_locking": True if use_locking is None else bool(use_locking)}
    return make_tensor("Assign", [ref, value], attrs, name or "Assign")


@register_op("StridedSliceAssign", shape=lambda op: op.inputs[0].shape, dtype=_ref_dtype, stateful=True,
             ref_inputs=(0,))
def _strided_slice_assign_kernel(xp, ref, begin, end, strides, value, *, begin_mask, end_mask, ellipsis_mask,
                                 new_axis_mask, shrink_axis_mask):
    """``ref[begin:end:strides] = value`` in place (``v[1:3].assign(x)``)."""
    index = slicing_ops._python_index(begin.tolist(), end.tolist(), strides.tolist(), begin_mask, end_mask,
                                      ellipsis_mask, new_axis_mask, shrink_axis_mask)
    with ref.lock:
        current = ref.read()
        target = current[index]
        if not np.size(target):  # (an empty slice takes any value: TF checks and writes only non-empty ones)
            return ref
        if np.shape(target) != np.shape(value):
            raise errors.InvalidArgumentError(
                None, None, f"sliced l-value shape {list(np.shape(target))} does not match r-value shape "
                f"{list(np.shape(value))} in the assignment to a slice of variable '{ref.name}'")
        current[index] = value
    return ref


not_differentiable("StridedSliceAssign")


def strided_slice_assign(ref, begin, end, strides, value, begin_mask=0, end_mask=0, ellipsis_mask=0,
                         new_axis_mask=0, shrink_axis_mask=0, name=None) -> ops.Tensor:
    """Stores ``value`` in the strided slice of the variable ``ref`` (TF's StridedSliceAssign);
    the result refers to the updated variable."""
    ref = variable_ref(ref)
    value = _value_for(ref, value, "StridedSliceAssign")
    attrs = dict(zip(slicing_ops.SLICE_MASKS, (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                                               shrink_axis_mask)))
    inputs = [slicing_ops.index_tensor(v) for v in (begin, end, strides)]
    return make_tensor("StridedSliceAssign", [ref] + inputs + [value], attrs, name or "StridedSliceAssign")


class _VariableSlice(ops.Tensor):
    """``variable[...]``: the slice's value, which can also be assigned (``v[1:3].assign(x)``,
    TF's sliced assignment)."""

    __slots__ = ()

    def assign(self, value, name=None):
        op = self.op
        variable = _SLICED_FROM[self]
        masks = {m: op._attr(m) for m in slicing_ops.SLICE_MASKS}
        return strided_slice_assign(variable, *op.inputs[1:4], value, name=name, **masks)


_SLICED_FROM = weakref.WeakKeyDictionary()  # (the variable each slice was taken from)


def _variable_getitem(self, key):
    sliced = self.value()[key]
    if sliced.__class__ is ops.Tensor and sliced.op._type == "StridedSlice":
        sliced.__class__ = _VariableSlice
        _SLICED_FROM[sliced] = self
    return sliced


def assign_add(ref, value, use_locking=None, name=None) -> ops.Tensor:
    """Adds ``value`` to the variable; with ``use_locking`` no concurrent update is lost."""
    ref = variable_ref(ref)
    return make_tensor("AssignAdd", [ref, _value_for(ref, value, "AssignAdd")],
                       {"use_locking": bool(use_locking)}, name or "AssignAdd")


def assign_sub(ref, value, use_locking=None, name=None) -> ops.Tensor:
    ref = variable_ref(ref)
    return make_tensor("AssignSub", [ref, _value_for(ref, value, "AssignSub")],
                       {"use_locking": bool(use_locking)}, name or "AssignSub")


def is_variable_initialized(variable, name=None) -> ops.Tensor:
    return make_tensor("IsVariableInitialized", [variable_ref(variable)], None, name or "IsVariableInitialized")


# ---------------------------------------------------------------------------
# Variable


class _VariableMeta(type):
    """Makes ``Variable(...)`` go through the creators of ``variable_creator_scope``, as TF's
    variables do (subclasses are made as they are)."""

    def __call__(cls, *args, **kwargs):
        if cls is Variable:
            stack = getattr(ops.get_default_graph(), "_variable_creator_stack", None)
            if stack:
                kwargs = _VARIABLE_SIGNATURE.bind(None, *args, **kwargs).arguments
                kwargs.pop("self")
                return _through(list(stack), kwargs)
        return super().__call__(*args, **kwargs)


def _through(creators: list, kwargs: dict):
    """Calls the innermost creator, whose ``next_creator`` calls the one outside it, and so on
    down to the plain constructor."""
    if not creators:
        return type.__call__(Variable, **kwargs)
    creator = creators[-1]
    return creator(lambda **kw: _through(creators[:-1], kw), **kwargs)


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Within it, ``tf.Variable(...)`` (and so ``get_variable`` and the layers) calls
    ``variable_creator(next_creator, **kwargs)``, with Variable's keyword arguments; the
    creator may change them, call ``next_creator(**kwargs)`` to make the variable, or
    return a variable of its own. Scopes nest: the innermost creator is called first.
    The scope belongs to the default graph."""
    graph = ops.get_default_graph()
    stack = graph.__dict__.setdefault("_variable_creator_stack", [])
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack.remove(variable_creator)


class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies agree (``tf.VariableSynchronization``): ``ON_WRITE``
    (every update goes to every copy: a MirroredVariable, the default for trained
    variables), or ``ON_READ`` (each replica updates its own copy, and a read combines them
    as ``aggregation`` says: a metric's running totals)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How the copies of a variable synchronized on read are combined (``tf.VariableAggregation``)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3  # (TF 1.x's older name of the same)


class Variable(metaclass=_VariableMeta):
    """``tf.Variable``: a VariableV2 op with its initializer and its read.

    ``initial_value`` may be a Python or NumPy value, a Tensor, a callable taking no
    arguments, or an initializer object (then pass ``shape`` and ``dtype``).
    """

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None, synchronization=None,
                 aggregation=None, shape=None):
        synchronization, aggregation, trainable = _synchronization_checked(synchronization, aggregation, trainable,
                                                                           name)
        self._synchronization, self._aggregation = synchronization, aggregation
        if variable_def is not None:  # (the variable whose ops a VariableDef names, as TF)
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self.__dict__.update(Variable.from_proto(variable_def, import_scope).__dict__)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        self._trainable = trainable
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        self._constraint = constraint
        dtype = None if dtype is None else dtypes.as_dtype(dtype)
        graph = ops.get_default_graph()
        with graph.control_dependencies(None), graph.name_scope(name or "Variable") as scope:
            if callable(initial_value) and not isinstance(initial_value, ops.Tensor):
                with graph.name_scope("Initializer"), graph._colocate_with_name(scope[:-1]):
                    self._initial_value = self._initial_tensor(initial_value, dtype, shape)
            else:
                self._initial_value = self._initial_tensor(initial_value, dtype, shape)
            self._initial_value = _guard_uninitialized_reads(self._initial_value)
            var_shape = self._initial_value.shape if validate_shape else TensorShape(None)
            if shape is not None:
                var_shape = as_shape(shape)
            self._variable = variable_op_v2(var_shape, self._initial_value.dtype, name=scope)
            with graph.colocate_with(self._variable.op):
                self._initializer_op = assign(self._variable, self._initial_value,
                                              validate_shape=validate_shape).op
                if caching_device is None:
                    self._snapshot = array_ops.identity(self._variable, name="read")
            if caching_device is not None:
                with graph.device(caching_device):
                    self._snapshot = array_ops.identity(self._variable, name="read")
        self._caching_device = caching_device
        graph.add_to_collections(collections, self)

    # -- meta graphs ----------------------------------------------------------------
    def to_proto(self, export_scope=None):
        """This variable as TensorFlow's VariableDef (names of its ops, relative to ``export_scope``)."""
        from ..protos import distflow_pb2  # noqa: PLC0415 - protobuf only for programs that export

        def strip(name):
            return name[len(export_scope) + 1:] if export_scope and name.startswith(export_scope + "/") else name

        return distflow_pb2.VariableDef(
            variable_name=strip(self._variable.name), initializer_name=strip(self._initializer_op.name),
            snapshot_name=strip(self._snapshot.name), initial_value_name=strip(self._initial_value.name),
            trainable=self._trainable, is_resource=False)

    @classmethod
    def from_proto(cls, variable_def, import_scope=None) -> "Variable":
        """The Variable whose ops a VariableDef names in the default graph (after an import)."""
        graph = ops.get_default_graph()

        def full(name):
            return f"{import_scope}/{name}" if import_scope else name

        var = (ImportedResourceVariable if variable_def.is_resource else cls).__new__(
            ImportedResourceVariable if variable_def.is_resource else cls)
        var._variable = graph.as_graph_element(full(variable_def.variable_name))
        var._initializer_op = graph.as_graph_element(full(variable_def.initializer_name))
        var._snapshot = graph.as_graph_element(full(variable_def.snapshot_name))
        var._initial_value = (graph.as_graph_element(full(variable_def.initial_value_name))
                              if variable_def.initial_value_name else var._snapshot)
        var._trainable = variable_def.trainable
        var._synchronization, var._aggregation = VariableSynchronization.AUTO, VariableAggregation.NONE
        var._constraint = None
        var._caching_device = None
        return var

    @staticmethod
    def _initial_tensor(initial_value, dtype, shape) -> ops.Tensor:
        if callable(initial_value) and not isinstance(initial_value, ops.Tensor):
            if shape is not None and _takes_shape(initial_value):
                initial_value = initial_value(as_shape(shape).as_list(), dtype=dtype or dtypes.float32)
            else:
                initial_value = initial_value()
        return ops.convert_to_tensor(initial_value, dtype=dtype, name="initial_value")

    # -- graph elements ---------------------------------------------------------------
    def _as_graph_element(self) -> ops.Tensor:
        return self._variable

    def _ref(self) -> ops.Tensor:
        return self._variable

    def value(self) -> ops.Tensor:
        """The variable's value (its 'read' tensor)."""
        return self._snapshot

    def read_value(self) -> ops.Tensor:
        """A fresh read of the variable (an Identity of it)."""
        return array_ops.identity(self._variable, name="read")

    def initialized_value(self) -> ops.Tensor:
        """The value if initialized, else the initial value: for initializing other variables."""
        with self.graph.control_dependencies(None):
            return make_tensor("InitializedValueOrDefault", [self._variable, self._initial_value],
                               None, "InitializedValueOrDefault")

    @property
    def name(self) -> str:
        return self._variable.name

    @property
    def op(self) -> ops.Operation:
        return self._variable.op

    @property
    def graph(self) -> ops.Graph:
        return self._variable.graph

    @property
    def device(self) -> str:
        return self._variable.device

    @property
    def dtype(self) -> dtypes.DType:
        return self._variable.dtype

    @property
    def shape(self) -> TensorShape:
        return self._variable.shape

    def get_shape(self) -> TensorShape:
        return self._variable.shape

    @property
    def initializer(self) -> ops.Operation:
        return self._initializer_op

    @property
    def initial_value(self) -> ops.Tensor:
        return self._initial_value

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self) -> VariableSynchronization:
        return getattr(self, "_synchronization", VariableSynchronization.AUTO)

    @property
    def aggregation(self) -> VariableAggregation:
        return getattr(self, "_aggregation", VariableAggregation.NONE)

    # -- updates -------------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        out = assign(self._variable, value, use_locking=use_locking, name=name)
        return out if read_value else out.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        out = assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return out if read_value else out.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        out = assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return out if read_value else out.op

    def count_up_to(self, limit):
        """Increments this scalar integer variable until ``limit`` (then OutOfRangeError)."""
        return count_up_to(self._variable, limit)

    def eval(self, session=None):
        return self._variable.eval(session=session)

    def load(self, value, session=None) -> None:
        """Assigns ``value`` by feeding the initial value (no new ops)."""
        session = session or ops.get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session "
                             "should be established")
        session.run(self._initializer_op, {self._initial_value: value})

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __hash__(self):
        return id(self)

    def __iter__(self):
        raise TypeError(f"Variable '{self.name}' is not iterable.")

    # No __bool__: a variable is true, as TF 1.x's reference variables (`step = step or
    # tf.train.get_global_step()` works); a resource variable's truth is its value's, refused.


class ImportedResourceVariable(Variable):
    """A resource variable of a graph TensorFlow wrote (a VariableDef with ``is_resource``),
    as import_meta_graph finds it: its handle is a VarHandleOp's ``resource`` tensor, its
    value a ReadVariableOp, its updates AssignVariableOp and its kin (resource_variable_ops.py);
    ``tf.gradients`` with respect to it sums the gradients of all its reads, and distflow's
    optimizers update it with the ``Resource`` twins of their ops, their slots being distflow's
    reference variables."""

    def __bool__(self):
        return bool(self._snapshot)  # (a TypeError, as TF's resource variables)

    def _as_graph_element(self) -> ops.Tensor:
        return self._snapshot

    def _ref(self) -> ops.Tensor:
        return self._variable  # (its handle: what tf.gradients differentiates with respect to)

    def _handle_op(self, op_type: str, inputs=(), attrs=None, name=None) -> ops.Operation:
        return self.graph.create_op(op_type, [self._variable, *inputs], attrs or {}, name=name or op_type)

    def value(self) -> ops.Tensor:
        return self._snapshot

    def read_value(self) -> ops.Tensor:
        return self._handle_op("ReadVariableOp", attrs={"dtype": self.dtype}, name="Read").outputs[0]

    def initialized_value(self) -> ops.Tensor:
        raise NotImplementedError(f"initialized_value of '{self.name}', a resource variable TensorFlow wrote: "
                                  "run its initializer first, then read it")

    @property
    def dtype(self) -> dtypes.DType:
        return self._variable.op._attr("dtype")

    @property
    def shape(self) -> TensorShape:
        return as_shape(self._variable.op._attr("shape"))

    def get_shape(self) -> TensorShape:
        return self.shape

    def _updated(self, op_type: str, value, name, read_value):
        value = ops.convert_to_tensor(value, dtype=self.dtype)
        update = self._handle_op(op_type, [value], {"dtype": self.dtype}, name)
        if not read_value:
            return update
        with self.graph.control_dependencies([update]):
            return self.read_value()

    def assign(self, value, use_locking=False, name=None, read_value=True):
        return self._updated("AssignVariableOp", value, name, read_value)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        return self._updated("AssignAddVariableOp", delta, name, read_value)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        return self._updated("AssignSubVariableOp", delta, name, read_value)

    def count_up_to(self, limit):
        raise NotImplementedError(f"count_up_to of '{self.name}', a resource variable TensorFlow wrote")

    def eval(self, session=None):
        return self._snapshot.eval(session=session)


def _guard_uninitialized_reads(initial_value: ops.Tensor) -> ops.Tensor:
    """``initial_value`` with every read of another variable made safe to initialize at once.

    ``tf.Variable(w * 3)`` reads ``w``. As in TF 1.x, the reads in the initial value's
    subgraph are rewritten to ``w.initialized_value()`` (w's value once initialized, its
    initial value before), so ``global_variables_initializer()`` works in any order. Ops
    on the path from such a read are copied with the new input; the original ops stay.
    """
    graph = initial_value.graph
    found: dict = {}

    def variable_of(op: ops.Operation):
        # (the graph's variables by op, looked up only where the initial value reads a
        # VariableV2: most initial values read none, and a scan per variable made a model of
        # many variables quadratic to build)
        if op.type != "VariableV2":
            return None
        if not found:
            for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES):
                for v in graph.get_collection(key):
                    if isinstance(v, Variable):
                        found[v.op] = v
            found[None] = None  # (looked up once)
        return found.get(op)

    memo: dict = {}

    def rewritten(op: ops.Operation):
        if op in memo:
            return memo[op]
        memo[op] = None  # a cycle (none in a valid graph) leaves the op as it is
        result = None
        if variable_of(op) is not None:
            result = [variable_of(op).initialized_value()]
        elif op.type == "Identity" and op.inputs and variable_of(op.inputs[0].op) is not None:
            result = [variable_of(op.inputs[0].op).initialized_value()]
        elif not op.is_stateful:
            new_inputs = []
            changed = False
            ref_inputs = op._reg.ref_inputs
            for i, t in enumerate(op.inputs):
                outputs = None if i in ref_inputs else rewritten(t.op)
                new_inputs.append(t if outputs is None else outputs[t.value_index])
                changed |= outputs is not None
            if changed:
                clone = graph.create_op(op.type, new_inputs, op.attrs, name=op.name.rsplit("/", 1)[-1],
                                        control_inputs=op.control_inputs)
                result = list(clone.outputs)
        memo[op] = result
        return result

    outputs = rewritten(initial_value.op)
    return initial_value if outputs is None else outputs[initial_value.value_index]


def _takes_shape(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "shape" in params


def _delegate(operator: str):
    tensor_method = getattr(ops.Tensor, operator)

    def method(self, *args):
        return tensor_method(self.value(), *args)

    method.__name__ = operator
    return method


for _op in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
            "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
            "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__abs__", "__lt__", "__le__",
            "__gt__", "__ge__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__invert__"):
    setattr(Variable, _op, _delegate(_op))
Variable.__getitem__ = _variable_getitem
Variable.__array_priority__ = 100
_VARIABLE_SIGNATURE = inspect.signature(Variable.__init__)


def _synchronization_checked(synchronization, aggregation, trainable, name) -> tuple:
    """``(synchronization, aggregation, trainable)`` as TF resolves them: a variable synchronized
    on read is not trained (and may not be asked to be)."""
    synchronization = VariableSynchronization.AUTO if synchronization is None else synchronization
    aggregation = VariableAggregation.NONE if aggregation is None else aggregation
    if not isinstance(synchronization, VariableSynchronization):
        raise ValueError(f"Invalid variable synchronization mode: {synchronization!r} for variable: {name}")
    if not isinstance(aggregation, VariableAggregation):
        raise ValueError(f"Invalid variable aggregation mode: {aggregation!r} for variable: {name}")
    if synchronization == VariableSynchronization.ON_READ:
        if trainable:
            raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ only for "
                             "non-trainable variables. You have specified trainable=True and "
                             "synchronization=VariableSynchronization.ON_READ.")
        trainable = False
    return synchronization, aggregation, True if trainable is None else bool(trainable)


def _variable_conversion(value: Variable, dtype=None, name=None, as_ref=False) -> ops.Tensor:
    return value._ref() if as_ref else value.value()


ops.register_tensor_conversion_function(Variable, _variable_conversion)

# ---------------------------------------------------------------------------
# Collections and initializers


def global_variables(scope=None) -> list:
    return ops.get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope=None) -> list:
    return ops.get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None) -> list:
    return ops.get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None) -> list:
    return ops.get_collection(GraphKeys.MODEL_VARIABLES, scope)


def variables_initializer(var_list, name="init") -> ops.Operation:
    """An op that runs the initializers of ``var_list`` (a no-op for an empty list)."""
    var_list = list(var_list)
    if not var_list:
        return control_flow_ops.no_op(name=name)
    return control_flow_ops.group(*[v.initializer for v in var_list], name=name)


def global_variables_initializer() -> ops.Operation:
    return variables_initializer(global_variables(), name="init")


def local_variables_initializer() -> ops.Operation:
    return variables_initializer(local_variables(), name="init")


initialize_all_variables = global_variables_initializer


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables") -> ops.Tensor:
    """A 1-D string tensor naming the variables of ``var_list`` not yet initialized."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    var_list = list(var_list)
    with ops.name_scope(name) as scope:
        if not var_list:
            return array_ops.constant(np.array([], dtype=object), dtype=dtypes.string, name=scope)
        with ops.device("/cpu:0"):
            initialized = array_ops.stack([is_variable_initialized(v) for v in var_list])
            missing = math_ops.where(math_ops.logical_not(initialized))
            names = array_ops.constant([v.op.name for v in var_list])
            return slicing_ops.gather(names, array_ops.reshape(missing, [-1]), name=scope)


def moving_average_variables(scope=None):
    return ops.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def tables_initializer(name="init_all_tables"):
    """Runs the graph's table initializers (the TABLE_INITIALIZERS collection); a NoOp without tables."""
    initializers = ops.get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return control_flow_ops.group(*initializers, name=name)
    return control_flow_ops.no_op(name=name)
