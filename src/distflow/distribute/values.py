"""Values with one component per replica: PerReplica, Mirrored, MirroredVariable and
SyncOnReadVariable.

A *PerReplica* value is what a replica function returned, one (possibly different) value
per replica of this process. A *Mirrored* value is the same on every replica. A
*MirroredVariable* is a variable with one component per device, kept equal by applying
the same update on each; it is a ``tf.Variable``, and which component it is depends on
where it is used: in a replica function, that replica's; elsewhere, the first (the
*primary*). Only the MirroredVariable is in the graph's collections, under the primary's
name, so a checkpoint holds one copy, restored into every component.
"""

from __future__ import annotations

from ..framework import distribute_context, ops
from ..framework import nest
from ..ops import array_ops, control_flow_ops, math_ops
from ..ops.state_ops import Variable, VariableAggregation


class DistributedValues:
    """One value per replica of this process (``values``, in replica order)."""

    def __init__(self, values):
        self.values = tuple(values)

    def _current(self):
        replica = distribute_context.replica_context()
        if replica is None:
            return self.values[0]
        return self.values[replica.local_index]

    @property
    def primary(self):
        return self.values[0]

    def __repr__(self):
        inner = ", ".join(f"{i}: {v!r}" for i, v in enumerate(self.values))
        return f"{type(self).__name__}:{{{inner}}}"


class PerReplica(DistributedValues):
    """What each replica computed."""


class Mirrored(DistributedValues):
    """The same value on every replica."""


def _as_tensor(value, dtype=None, name=None, as_ref=False):
    return ops.convert_to_tensor(value._current(), dtype=dtype, name=name, as_ref=as_ref)


ops.register_tensor_conversion_function(DistributedValues, _as_tensor)


class MirroredVariable(Variable):
    """A variable with one component per device of its strategy (see the module's notes)."""

    def __init__(self, strategy, components: list):
        primary = components[0]
        self._strategy = strategy
        self._components = list(components)
        self._trainable = primary._trainable
        self._constraint = primary._constraint
        self._caching_device = primary._caching_device
        self._initial_value = primary._initial_value
        with ops.name_scope(None):
            self._initializer_op = control_flow_ops.group(*[c.initializer for c in components],
                                                         name=primary.op.name + "/mirrored_initializer")

    def _component(self) -> Variable:
        replica = distribute_context.replica_context()
        if replica is not None and replica.strategy is self._strategy:
            return self._components[replica.local_index]
        return self._components[0]

    # What Variable's methods use, resolved to the component of where they are used.
    @property
    def _variable(self):
        return self._component()._variable

    @property
    def _snapshot(self):
        return self._component()._snapshot

    @property
    def components(self) -> tuple:
        return tuple(self._components)

    def __repr__(self):
        return f"<MirroredVariable '{self._components[0].name}' on {len(self._components)} devices>"


class SyncOnReadVariable(MirroredVariable):
    """A variable synchronized on read (``synchronization=ON_READ``: a metric's running totals
    under a strategy). Each replica updates its own component, so the replicas never wait
    for each other. Its value, in a replica function or outside, combines the components as
    ``aggregation`` says (their sum, their mean, or the first's), so a metric's value built in
    the first replica's function counts every replica's examples. A fresh read in a replica
    function (``read_value``, what a metric's update op returns, as TF's replica-local read)
    is that replica's own component: a replica's step never waits on another replica's
    device, which would deadlock with the collectives that every replica runs in turn."""

    def __init__(self, strategy, components: list, aggregation):
        super().__init__(strategy, components)
        self._aggregation = aggregation

    def _combined(self, reads: list) -> ops.Tensor:
        if self._aggregation in (VariableAggregation.ONLY_FIRST_REPLICA, VariableAggregation.NONE) or \
                len(reads) == 1:
            return array_ops.identity(reads[0])
        total = math_ops.add_n(reads)
        if self._aggregation == VariableAggregation.MEAN:
            total = total / math_ops.cast(len(reads), total.dtype)
        return total

    def value(self) -> ops.Tensor:
        with ops.device(self._components[0].device):
            return self._combined([c.value() for c in self._components])

    def read_value(self) -> ops.Tensor:
        replica = distribute_context.replica_context()
        if replica is not None and replica.strategy is self._strategy:
            return self._components[replica.local_index].read_value()
        with ops.device(self._components[0].device):
            return self._combined([c.read_value() for c in self._components])

    def restore_values(self, value) -> list:
        """(component, value) pairs that restore a saved ``value`` (a checkpoint holds the
        combined value): a sum's share on each copy, so that the copies add up to it again;
        the value itself on each copy otherwise (as TensorFlow restores them)."""
        if self._aggregation == VariableAggregation.SUM and len(self._components) > 1:
            value = math_ops.cast(value / len(self._components), self.dtype.base_dtype)
        return [(c, value) for c in self._components]

    def __repr__(self):
        return f"<SyncOnReadVariable '{self._components[0].name}' on {len(self._components)} devices>"


def select_replica(index: int, structure):
    """The structure with every DistributedValues replaced by its ``index``-th value."""
    return nest.map_structure(lambda v: v.values[index] if isinstance(v, DistributedValues) and
                              not isinstance(v, MirroredVariable) else v, structure)


def regroup(per_replica_results: list):
    """One structure from the replicas' results: where every replica returned the same
    object (a MirroredVariable, a constant made outside) it is kept; otherwise a PerReplica."""
    if len(per_replica_results) == 1:
        return per_replica_results[0]
    first = per_replica_results[0]
    if first is None:
        return None
    flat = [nest.flatten(r) for r in per_replica_results]
    for f in flat[1:]:
        if len(f) != len(flat[0]):
            raise ValueError("the replica function returned structures of different shapes on different replicas")
    merged = []
    for leaves in zip(*flat):
        if all(leaf is leaves[0] for leaf in leaves):
            merged.append(leaves[0])
        else:
            merged.append(PerReplica(leaves))
    return nest.pack_sequence_as(first, merged)


def local_results(value) -> tuple:
    if isinstance(value, MirroredVariable):
        return value.components
    if isinstance(value, DistributedValues):
        return value.values
    return (value,)


def identity_on(value, device: str):
    with ops.device(device):
        return array_ops.identity(value)
