"""``tf.variable_scope`` and ``tf.get_variable``: variables named by scope and shared by reuse."""

from __future__ import annotations

import contextlib
import functools
import inspect

from ..framework import dtypes, ops
from ..framework.ops import GraphKeys
from ..framework.tensor_shape import as_shape
from . import init_ops
from .partitioned_variables import PartitionInfo, PartitionedVariable, SaveSliceInfo, check_partitions, part_shapes
from .state_ops import Variable, VariableSynchronization


class _ReuseMode:
    def __repr__(self):
        return "tf.AUTO_REUSE"


AUTO_REUSE = _ReuseMode()


class VariableScope:
    """A scope's name, reuse mode and defaults for the variables created in it."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None,
                 dtype=dtypes.float32, original_name_scope="", custom_getter=None, constraint=None,
                 partitioner=None):
        self._name = name
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._dtype = dtypes.as_dtype(dtype)
        self._original_name_scope = original_name_scope
        self._custom_getter = custom_getter
        self._constraint = constraint
        self._partitioner = partitioner

    @property
    def custom_getter(self):
        return self._custom_getter

    @property
    def constraint(self):
        return self._constraint

    @property
    def partitioner(self):
        return self._partitioner

    def set_custom_getter(self, custom_getter) -> None:
        self._custom_getter = custom_getter

    def set_partitioner(self, partitioner) -> None:
        self._partitioner = partitioner

    @property
    def name(self) -> str:
        return self._name

    @property
    def original_name_scope(self) -> str:
        return self._original_name_scope

    @property
    def reuse(self):
        return self._reuse

    @property
    def initializer(self):
        return self._initializer

    @property
    def regularizer(self):
        return self._regularizer

    @property
    def dtype(self):
        return self._dtype

    def reuse_variables(self) -> None:
        self._reuse = True

    def _collection(self, key: str) -> list:
        scope = self._name + "/" if self._name else None  # (TF: the names under this scope)
        return ops.get_collection(key, scope)

    def get_collection(self, name) -> list:
        """The collection's items named under this scope."""
        return self._collection(name)

    def global_variables(self) -> list:
        """The global variables created under this scope."""
        return self._collection(ops.GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self) -> list:
        return self._collection(ops.GraphKeys.LOCAL_VARIABLES)

    def trainable_variables(self) -> list:
        return self._collection(ops.GraphKeys.TRAINABLE_VARIABLES)

    def set_initializer(self, initializer) -> None:
        self._initializer = initializer

    def set_regularizer(self, regularizer) -> None:
        self._regularizer = regularizer

    def set_caching_device(self, caching_device) -> None:
        self._caching_device = caching_device

    def set_dtype(self, dtype) -> None:
        self._dtype = dtypes.as_dtype(dtype)

    def get_variable(self, name, shape=None, dtype=None, initializer=None, regularizer=None,
                     reuse=None, trainable=True, collections=None, caching_device=None, partitioner=None,
                     validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                     synchronization=None, aggregation=None):
        """As ``tf.get_variable``, with this scope's defaults for what is not given.

        A custom getter (this scope's, and ``custom_getter``, which is called first and
        gets this scope's as its ``getter``) is called as TF 1.x calls it:
        ``custom_getter(getter, name, *args, **kwargs)``.
        """
        full_name = f"{self._name}/{name}" if self._name and name else (name or self._name)
        reuse = self._reuse if reuse is None else reuse
        partitioner = partitioner if partitioner is not None else self._partitioner

        def true_getter(name, shape=None, dtype=None, initializer=None, regularizer=None, reuse=None,
                        trainable=True, collections=None, caching_device=None, partitioner=None,
                        validate_shape=True, use_resource=None, constraint=None, synchronization=None,
                        aggregation=None, **unused):
            store = variable_store()
            scalar = shape is not None and as_shape(shape).ndims == 0  # (a scalar is never partitioned)
            if partitioner is None and reuse is True and name in store.partitioned:
                partitioner = _FOUND  # (reused without its partitioner, as TF allows)
            if partitioner is not None and not scalar:
                return store.get_partitioned_variable(
                    name, partitioner, shape, dtype, initializer, regularizer, reuse, trainable, collections,
                    caching_device, default_dtype=self._dtype, validate_shape=validate_shape, constraint=constraint)
            return store.get_variable(
                name, shape, dtype, initializer, regularizer, reuse, trainable, collections, caching_device,
                default_dtype=self._dtype, validate_shape=validate_shape, constraint=constraint,
                synchronization=synchronization, aggregation=aggregation)

        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Input custom_getter is not callable: {custom_getter!r}")
        getter = true_getter
        if self._custom_getter is not None:
            getter = functools.partial(self._custom_getter, true_getter)
        if custom_getter is not None:
            getter = functools.partial(custom_getter, getter)
        # (the getters run outside any name scope, as TF's: a variable's name is its variable scope's,
        # and so are the names of what a custom getter makes)
        with ops.get_default_graph().name_scope(None):
            return getter(full_name, shape=shape, dtype=dtype,
                          initializer=self._initializer if initializer is None else initializer,
                          regularizer=regularizer or self._regularizer, reuse=reuse, trainable=trainable,
                          collections=collections, caching_device=caching_device or self._caching_device,
                          partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
                          constraint=constraint if constraint is not None else self._constraint,
                          synchronization=synchronization, aggregation=aggregation)


class _ScopeCounts(dict):
    """How often each variable scope name was opened, with every name indexed under each of
    its prefixes, so that the names below a scope are found without looking at all of them
    (a model of many scopes, as NASNet's, was quadratic to build)."""

    def __init__(self):
        super().__init__()
        self._below: dict[str, set] = {}

    @staticmethod
    def _prefixes(key: str):
        end = key.rfind("/")
        while end > 0:
            yield key[:end]
            end = key.rfind("/", 0, end)

    def __setitem__(self, key, value) -> None:
        if key not in self:
            for prefix in self._prefixes(key):
                self._below.setdefault(prefix, set()).add(key)
        super().__setitem__(key, value)

    def pop(self, key, *default):
        if key in self:
            for prefix in self._prefixes(key):
                self._below[prefix].discard(key)
        return super().pop(key, *default)

    def update(self, other=(), **kwargs) -> None:
        for key, value in dict(other, **kwargs).items():
            self[key] = value

    def under(self, name: str) -> list:
        """The names below ``name`` (``name/...``)."""
        return list(self._below.get(name, ()))


class _VariableStore:
    """The variables created by get_variable in one graph, by full name."""

    def __init__(self):
        self.variables: dict[str, Variable] = {}
        self.partitioned: dict[str, PartitionedVariable] = {}
        self.scope_counts = _ScopeCounts()

    def get_partitioned_variable(self, name, partitioner, shape, dtype, initializer, regularizer, reuse, trainable,
                                 collections, caching_device, default_dtype=dtypes.float32, validate_shape=True,
                                 constraint=None) -> PartitionedVariable:
        """The variable ``name`` in parts, as ``partitioner(shape=, dtype=)`` cuts it
        (ops/partitioned_variables.py): made, or found again with ``reuse``. An initial value
        (a tensor, an array) in place of an initializer gives each part its slice of it."""
        value = None
        if initializer is not None and not (callable(initializer) and not isinstance(initializer, (ops.Tensor,
                                                                                                  Variable))):
            with ops.get_default_graph().name_scope(None):
                value = ops.convert_to_tensor(initializer)
            dtype = value.dtype.base_dtype  # (as TF's: a value's dtype is the variable's)
            shape = value.shape if shape is None else shape
        dtype = dtypes.as_dtype(default_dtype if dtype is None else dtype)
        found = self.partitioned.get(name)
        if found is not None:
            _check_reuse(found, shape, reuse, f"Partitioned variable with name {name} already exists.",
                         f"Trying to reuse partitioned variable {name}")
            if partitioner is not _FOUND:
                partitions = list(partitioner(shape=found.shape, dtype=found.dtype))
                if partitions != found._get_partitions():
                    raise ValueError(f"Trying to reuse partitioned variable {name}, but specified partitions "
                                     f"{partitions} and found partitions {found._get_partitions()}.")
            return found
        if name in self.variables:
            raise ValueError(f"A partitioner was given for {name}, which already exists unpartitioned")
        if reuse is True:
            raise ValueError(f"PartitionedVariable {name} does not exist, or was not created with "
                             "tf.get_variable(). Did you mean to set reuse=None in VarScope?")
        if shape is None or not as_shape(shape).is_fully_defined():
            raise ValueError(f"Shape of a new partitioned variable ({name}) must be fully defined, but instead "
                             f"was {as_shape(shape) if shape is not None else None}.")
        full_shape = as_shape(shape).as_list()
        partitions = check_partitions(name, full_shape, partitioner(shape=as_shape(shape), dtype=dtype))
        if value is not None and not value.shape.is_compatible_with(full_shape):
            raise ValueError(f"The initial value of partitioned variable {name} has shape {value.shape}, "
                             f"not {as_shape(full_shape)}")
        parts = []
        for i, (offset, part_shape) in enumerate(part_shapes(full_shape, partitions)):
            part_initializer = initializer if value is None else functools.partial(
                _value_slice, value, list(offset))
            part = self.get_variable(f"{name}/part_{i}", part_shape, dtype, part_initializer, regularizer, reuse,
                                     trainable, collections, caching_device, default_dtype=default_dtype,
                                     validate_shape=validate_shape, constraint=constraint,
                                     partition_info=PartitionInfo(full_shape, list(offset)))
            part._save_slice_info = SaveSliceInfo(name, full_shape, offset, part_shape)
            parts.append(part)
        found = self.partitioned[name] = PartitionedVariable(name, full_shape, dtype, parts, partitions)
        return found

    def get_variable(self, name, shape, dtype, initializer, regularizer, reuse, trainable,
                     collections, caching_device, default_dtype=dtypes.float32, validate_shape=True,
                     constraint=None, synchronization=None, aggregation=None, partition_info=None) -> Variable:
        explicit_dtype = dtype is not None
        dtype = dtypes.as_dtype(default_dtype if dtype is None else dtype)
        found = self.variables.get(name)
        if found is not None:
            _check_reuse(found, shape, reuse, f"Variable {name} already exists, disallowed.",
                         f"Trying to share variable {name}")
            if dtype != found.dtype.base_dtype:
                raise ValueError(f"Trying to share variable {name}, but specified dtype {dtype.name} "
                                 f"and found dtype {found.dtype.base_dtype.name}.")
            return found
        if reuse is True:
            raise ValueError(f"Variable {name} does not exist, or was not created with tf.get_variable(). "
                             "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")
        if initializer is None:
            initializer = init_ops.glorot_uniform_initializer() if dtype.is_floating else init_ops.zeros_initializer()
        if isinstance(initializer, type):  # an initializer class, as in initializer=tf.zeros_initializer
            initializer = initializer()
        if callable(initializer) and isinstance(initializer, (ops.Tensor, Variable)):
            initializer = ops.convert_to_tensor(initializer)
        from_value = not callable(initializer) or isinstance(initializer, ops.Tensor)
        if from_value and shape is not None:
            raise ValueError(f"If initializer is a constant, do not specify shape (variable {name}).")
        if shape is None and not from_value:
            raise ValueError(f"Shape of a new variable ({name}) must be fully defined, but instead was None.")
        if shape is not None and not as_shape(shape).is_fully_defined() and validate_shape:
            raise ValueError(f"Shape of a new variable ({name}) must be fully defined, but instead was "
                             f"{as_shape(shape)}.")
        graph = ops.get_default_graph()
        # Variable names depend on the variable scope only, not on the name scope.
        with graph.name_scope(None):
            if not from_value:
                init_shape = as_shape(shape).as_list()

                def initial_value():
                    # (partition_info too where the initializer takes it, as TF calls it: for a part
                    # of a partitioned variable, what it is of the whole)
                    if _takes_partition_info(initializer):
                        return initializer(init_shape, dtype=dtype, partition_info=partition_info)
                    return initializer(init_shape, dtype=dtype)
                var = Variable(initial_value, name=name, trainable=trainable, collections=collections,
                               dtype=dtype, caching_device=caching_device, validate_shape=validate_shape,
                               constraint=constraint, synchronization=synchronization, aggregation=aggregation)
            else:
                # A constant initializer keeps its own dtype unless one was asked for, as in TF; a
                # tensor of another dtype is TF's error (a Python or NumPy value is converted).
                if explicit_dtype and isinstance(initializer, ops.Tensor) and initializer.dtype.base_dtype != dtype:
                    raise ValueError(f"Initializer type '{initializer.dtype.base_dtype.name}' and explicit dtype "
                                     f"'{dtype.name}' don't match.")
                var = Variable(initializer, name=name, trainable=trainable, collections=collections,
                               dtype=dtype if explicit_dtype else None, caching_device=caching_device,
                               validate_shape=validate_shape, constraint=constraint,
                               synchronization=synchronization, aggregation=aggregation)
        # (where the graph already has an op of that name, such as a tf.Variable's, the new
        # variable's op is named apart, 'name_1', and the store holds it under 'name', as TF's)
        self.variables[name] = var
        if regularizer is not None:
            with graph.name_scope(name + "/Regularizer/"):
                loss = regularizer(var)
            if loss is not None:
                graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return var


_PartitionInfo = PartitionInfo  # (TF's name, which initializers written for TF 1.x import)


def _FOUND(**unused):  # noqa: N802 - a marker: the partitioned variable reused, its partitioner not given
    raise AssertionError("the partitioner of a variable reused without one is never called")


def _takes_partition_info(initializer) -> bool:
    try:
        return "partition_info" in inspect.signature(initializer).parameters
    except (TypeError, ValueError):  # (a builtin or a C callable: called as (shape, dtype))
        return False


def _value_slice(value, offset, shape, dtype=None, partition_info=None):
    """A partition's initial value: its slice of the whole variable's initial value."""
    from .slicing_ops import slice as slice_  # noqa: PLC0415 - (slicing_ops imports variables' modules)

    return slice_(value, offset, shape)


def _check_reuse(found, shape, reuse, exists: str, sharing: str) -> None:
    """That a variable found again may be: asked for with ``reuse``, and with a shape that fits."""
    if reuse is False or reuse is None:
        raise ValueError(f"{exists} Did you mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
    if shape is not None and not as_shape(shape).is_compatible_with(found.shape):
        raise ValueError(f"{sharing}, but specified shape {as_shape(shape)} and found shape {found.shape}.")


def variable_store() -> _VariableStore:
    graph = ops.get_default_graph()
    store = getattr(graph, "_variable_store", None)
    if store is None:
        store = graph._variable_store = _VariableStore()
    return store


def _scope_stack() -> list:
    graph = ops.get_default_graph()
    stack = getattr(graph, "_variable_scope_stack", None)
    if stack is None:
        stack = graph._variable_scope_stack = [VariableScope(False)]
    return stack


def get_variable_scope() -> VariableScope:
    return _scope_stack()[-1]


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                 collections=None, caching_device=None, partitioner=None, validate_shape=True,
                 use_resource=None, custom_getter=None, constraint=None, reuse=None, synchronization=None,
                 aggregation=None, **unused) -> Variable:
    """Gets the variable ``<scope>/<name>``, or creates it (see variable_scope for reuse).

    ``constraint`` is applied after each optimizer update; ``custom_getter`` is called as
    ``custom_getter(getter, name, *args, **kwargs)``; a ``partitioner`` is an
    UnimplementedError (partitioned variables are not supported)."""
    if unused:
        raise TypeError(f"get_variable() got unexpected keyword arguments {sorted(unused)}")
    if trainable is None:  # (a variable synchronized on read, a metric's total, is not trained)
        trainable = synchronization != VariableSynchronization.ON_READ
    return get_variable_scope().get_variable(
        name, shape, dtype, initializer, regularizer, reuse, trainable,
        collections, caching_device, partitioner=partitioner, validate_shape=validate_shape,
        use_resource=use_resource, custom_getter=custom_getter, constraint=constraint,
        synchronization=synchronization, aggregation=aggregation)


@contextlib.contextmanager
def variable_scope(name_or_scope, default_name=None, values=None, initializer=None, regularizer=None,
                   caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                   use_resource=None, constraint=None, auxiliary_name_scope=True):
    """Opens a variable scope (and a name scope) for get_variable.

    ``reuse=True`` requires existing variables, ``tf.AUTO_REUSE`` creates or reuses,
    False/None creates (and inherits True from an enclosing reusing scope).
    """
    graph = ops.get_default_graph()
    stack = _scope_stack()
    parent = stack[-1]
    if name_or_scope is None and default_name is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if not isinstance(auxiliary_name_scope, bool):
        raise TypeError(f"The auxiliary_name_scope must be `True` or `False`, while get {auxiliary_name_scope!r}")
    if custom_getter is not None and not callable(custom_getter):
        raise ValueError(f"Input custom_getter is not callable: {custom_getter!r}")
    if isinstance(name_or_scope, VariableScope):
        full_name = name_or_scope.name
        # (a new name scope named as the scope's last part, made unique where it is opened: TF's
        # "outer_1/" for ops built on re-entering "outer"; the variables keep the scope's names. A
        # layer called again reopens its first call's name scope instead, as TF's layers do.)
        if getattr(name_or_scope, "_reopens_name_scope", False):
            name_scope_name = name_or_scope.original_name_scope
        else:
            name_scope_name = full_name.split("/")[-1] if full_name else ""
        base = name_or_scope
    else:
        base = parent
        if name_or_scope is None:
            prefix = f"{parent.name}/" if parent.name else ""
            store = variable_store()
            key = prefix + default_name
            count = store.scope_counts.get(key, 0)
            store.scope_counts[key] = count + 1
            relative = default_name if count == 0 else f"{default_name}_{count}"
        else:
            relative = name_or_scope
            key = f"{parent.name}/{relative}" if parent.name else relative
            variable_store().scope_counts[key] = variable_store().scope_counts.get(key, 0) + 1
        full_name = f"{parent.name}/{relative}" if parent.name else relative
        name_scope_name = relative
    if reuse is None or reuse is False:
        reuse = parent.reuse if parent.reuse in (True, AUTO_REUSE) else (base.reuse if base is not parent else False)
    getter = base.custom_getter
    if custom_getter is not None:  # (nested: the inner one is called first, with the outer as its getter)
        getter = custom_getter if getter is None else _nested_getter(custom_getter, getter)
    scope = VariableScope(
        reuse, full_name, base.initializer if initializer is None else initializer,
        base.regularizer if regularizer is None else regularizer,
        base._caching_device if caching_device is None else caching_device,
        base.dtype if dtype is None else dtype, custom_getter=getter,
        constraint=constraint if constraint is not None else base.constraint,
        partitioner=partitioner if partitioner is not None else base.partitioner)
    if isinstance(name_or_scope, VariableScope) and not full_name:  # (the root scope: no name scope of its own)
        here = graph.get_name_scope()
        name_ctx = contextlib.nullcontext(here + "/" if here else "")
    elif auxiliary_name_scope:
        name_ctx = graph.name_scope(name_scope_name)
    else:
        name_ctx = contextlib.nullcontext(parent.original_name_scope)
    with name_ctx as opened:
        scope._original_name_scope = name_or_scope.original_name_scope if isinstance(
            name_or_scope, VariableScope) else opened or ""
        stack.append(scope)
        # The default names used below the scope ("dense", "dense_1"...) start again in a scope
        # entered anew, so that a model built again in it names its parts alike; a scope re-entered
        # as an object gives back, when it closes, the counts it found and forgets the names made
        # in it (as TF's: the names after a jump into it go on from where they were, and a model
        # built again in ``variable_scope(get_variable_scope(), reuse=True)``, as TF-Slim's clones
        # are, names its parts as the first build did). The root scope keeps its counts on entry.
        counts = variable_store().scope_counts
        reentered = isinstance(name_or_scope, VariableScope)
        if reentered and not full_name:
            found = dict(counts)
        else:
            inner = counts.under(full_name) if name_or_scope is not None else []
            found = {k: counts.pop(k) for k in inner}
        try:
            yield scope
        finally:
            stack.pop()
            if reentered:
                for k in (counts.under(full_name) if full_name else list(counts)):
                    if k not in found:
                        counts.pop(k)
                counts.update(found)


def _nested_getter(inner, outer):
    def getter(true_getter, *args, **kwargs):
        return inner(functools.partial(outer, true_getter), *args, **kwargs)

    return getter


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=False,
                       collections=None, **kwargs):
    """``get_variable`` in the LOCAL_VARIABLES collection (not saved, not trained)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape, dtype, initializer, regularizer, trainable=False,
                                       collections=collections, **kwargs)


def no_regularizer(_):
    """A regularizer that adds nothing."""
    return None


def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes.float32, trainable=True,
                                 collections=None, name=None, reuse=None) -> list:
    """The parts of a variable of ``shape`` cut as ``slicing`` says (``tf.create_partitioned_variables``)."""
    if len(slicing) != len(shape):
        raise ValueError(f"Length of slicing ({len(slicing)}) must match the rank of shape ({len(shape)})")
    with variable_scope(name, "PartitionedVariable", reuse=reuse):
        partitioned = get_variable(None, shape=shape, dtype=dtype, initializer=initializer, trainable=trainable,
                                   collections=collections, partitioner=lambda **unused: list(slicing))
    return list(partitioned)
