"""tf.distribute strategies in graph mode, as TensorFlow 1.14-1.15 has them, built on collective ops.

A strategy runs a *replica function* once per device (``experimental_run_v2``): under the
device, a name scope ``replica_<i>/`` for replicas after the first, and a replica context.
Variables made in the strategy's scope are MirroredVariables, one component per device;
a replica after the first gets the first replica's variables back when it makes "the
same" one (by name, with TF's ``_<n>`` suffixes taken off, in order), so that a model
function written for one device builds one set of variables.

An optimizer's ``apply_gradients`` in a replica context all-reduces the gradients, all of
them packed into one tensor per dtype, with a collective all-reduce among every replica
of the group, and applies them to the replica's own components; so every component sees
the same update and they stay equal. The gradients are averaged (TF 1.x scales a mean
loss by 1/replicas and sums); a loss that tf.losses reduced with ``Reduction.SUM`` has
them summed. A global step made outside the scope is incremented once per step.

``MirroredStrategy`` is the devices of one process (in-graph); ``MultiWorkerMirroredStrategy``
(``CollectiveAllReduceStrategy``) is each worker's devices in a group spanning the workers
of TF_CONFIG's cluster (between-graph: every worker runs the same program, its session on
its own task's server). Its variables start from worker 0's initial values, broadcast when
the initializer runs (on every worker at once, as the all-reduces are).
``ParameterServerStrategy`` keeps one copy of each variable on the ps tasks: a worker's
replicas average their gradients among themselves (a group of this task's devices, formed
without the leader) and the first applies them, while the workers step asynchronously.
``CentralStorageStrategy`` does the same with every variable on one device of the process.

Replica functions run in threads, one at a time in replica order, as TensorFlow's do
(mirrored_run.py), so that they can meet in ``ReplicaContext.merge_call``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import weakref

from ..framework import distribute_context, dtypes, nest, ops
from ..framework.device_spec import DeviceSpec
from ..framework.ops import GraphKeys
from ..ops import array_ops, collective_ops, control_flow_ops, math_ops, reduction_ops, slicing_ops
from ..ops.indexed_slices import IndexedSlices, to_dense
from ..ops.state_ops import Variable, VariableSynchronization, variable_creator_scope
from . import mirrored_run, values as values_lib
from .cross_device_ops import CrossDeviceOps
from .reduce_util import ReduceOp, reduce_op_name as _reduce_op

_CROSS_REPLICA_INSTANCES = 1 << 20  # instance keys of strategy.reduce start here; replica functions' below
_INIT_INSTANCES = 1 << 21  # instance keys of the initial values' broadcasts
_group_keys = itertools.count(1, 2)  # each strategy: its replicas' group, and its workers' group


def _canonical(name) -> str:
    """A variable's name without TF's uniquifying suffixes ("dense_1/kernel" -> "dense/kernel")."""
    if name is None:
        return "Variable"
    return re.sub(r"_\d+$", "", re.sub(r"_\d+/", "/", str(name)))


class ReplicaContext:
    """What a replica function sees: ``tf.distribute.get_replica_context()``."""

    def __init__(self, strategy: "Strategy", local_index: int, replica_id: int):
        self.strategy = strategy
        self.local_index = local_index  # among this process's replicas
        self._replica_id = replica_id  # among the group's

    @property
    def num_replicas_in_sync(self) -> int:
        return self.strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        return array_ops.constant(self._replica_id, dtypes.int32, name="replica_id_in_sync_group")

    @property
    def devices(self) -> tuple:
        return (self.strategy.extended.worker_devices[self.local_index],)

    def all_reduce(self, reduce_op, value):
        """``value`` (a tensor, or a structure of them) reduced over every replica of the group."""
        op = _reduce_op(reduce_op)
        return nest.map_structure(lambda t: self.strategy._all_reduce(self, t, op), value)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Waits until every replica has called it, then calls ``merge_fn(strategy, *args,
        **kwargs)`` once in the cross-replica context, with each argument that differs between
        replicas as a PerReplica value; returns this replica's part of its result."""
        thread = mirrored_run.current_replica_thread(self)
        if thread is None:
            raise RuntimeError("ReplicaContext.merge_call must be called in this replica's function, while "
                               "experimental_run_v2 runs it")
        return thread.merge_call(merge_fn, tuple(args), dict(kwargs or {}))


class _DefaultReplicaContext(ReplicaContext):
    """The replica context outside every strategy: one replica."""

    def __init__(self):
        super().__init__(None, 0, 0)

    @property
    def num_replicas_in_sync(self) -> int:
        return 1

    @property
    def devices(self) -> tuple:
        return ("",)

    def all_reduce(self, reduce_op, value):
        _reduce_op(reduce_op)
        return nest.map_structure(array_ops.identity, value)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        return merge_fn(get_strategy(), *args, **(kwargs or {}))


class StrategyExtended:
    """``strategy.extended``: the devices and what each worker should do."""

    def __init__(self, strategy: "Strategy", devices: list[str], is_chief: bool, between_graph: bool):
        self._strategy = strategy
        self._devices = tuple(devices)
        self._is_chief = is_chief
        self.experimental_between_graph = between_graph
        self.experimental_should_init = True
        self.experimental_require_static_shapes = False

    @property
    def worker_devices(self) -> tuple:
        return self._devices

    @property
    def parameter_devices(self) -> tuple:
        return self._devices

    @property
    def should_checkpoint(self) -> bool:
        return self._is_chief

    @property
    def should_save_summary(self) -> bool:
        return self._is_chief

    def call_for_each_replica(self, fn, args=(), kwargs=None):
        return self._strategy.experimental_run_v2(fn, args, kwargs)

    def reduce_to(self, reduce_op, value, destinations=None):
        """``value`` (PerReplica, or the same on every replica) reduced over every replica of the
        group, put where ``destinations`` (a variable, a distributed value, a device or a list of
        them) lives: a Mirrored value for several devices, a tensor for one."""
        each = self._strategy._reduce_each(_reduce_op(reduce_op), value)
        distributed = isinstance(destinations, (values_lib.DistributedValues, values_lib.MirroredVariable))
        if destinations is None or (distributed and len(values_lib.local_results(destinations)) == len(each)):
            return values_lib.Mirrored(each) if len(each) > 1 else each[0]
        return CrossDeviceOps().broadcast(each[0], destinations)

    def batch_reduce_to(self, reduce_op, value_destination_pairs):
        """:meth:`reduce_to` of each ``(value, destinations)`` pair."""
        return [self.reduce_to(reduce_op, v, d) for v, d in value_destination_pairs]

    def broadcast_to(self, tensor, destinations):
        """``tensor`` on each device of ``destinations`` (a Mirrored value for several)."""
        return CrossDeviceOps().broadcast(tensor, destinations)

    def update(self, var, fn, args=(), kwargs=None, group=True):
        """Calls ``fn(copy, *args, **kwargs)`` for each copy of ``var`` (one per device for a
        mirrored variable), under the copy's device, with the copy's own part of each
        distributed argument. ``group``: one op that runs them all; otherwise what ``fn``
        returned, a tuple of the copies' results where there are several."""
        copies = var.components if isinstance(var, values_lib.MirroredVariable) else (var,)
        results = []
        for i, copy in enumerate(copies):
            with ops.device(copy.device), ops.name_scope(f"update_{i}"):
                results.append(fn(copy, *_part_of_copy(i, tuple(args)), **_part_of_copy(i, dict(kwargs or {}))))
        if group:
            return self._strategy.group(results)
        return results[0] if len(results) == 1 else nest.map_structure(lambda *xs: tuple(xs), *results)

    def read_var(self, var):
        """The value of ``var`` (its first copy) in the cross-replica context."""
        return array_ops.identity(var)


class InputReplicationMode:
    """How an input function's pipelines are laid out: one per worker (the only mode)."""

    PER_WORKER = "PER_WORKER"


class InputContext:
    """What an input function learns of where its pipeline runs (``tf.distribute.InputContext``):
    how many pipelines there are (one per worker), which one this is, and how many replicas
    train in sync, so that it can shard its data and size its batches."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    num_input_pipelines = property(lambda self: self._num_input_pipelines)
    input_pipeline_id = property(lambda self: self._input_pipeline_id)
    num_replicas_in_sync = property(lambda self: self._num_replicas_in_sync)

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync}")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self):
        return (f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, total: "
                f"{self._num_input_pipelines})")


class Strategy:
    """A way to run a model on several devices or machines (``tf.distribute.Strategy``)."""

    def __init__(self, devices: list[str], num_workers: int = 1, worker_index: int = 0, is_chief: bool = True):
        if not devices:
            raise ValueError("a strategy needs at least one device")
        self._devices = [DeviceSpec.from_string(d).to_string() if d else d for d in devices]
        if len(set(self._devices)) != len(self._devices):
            raise ValueError(f"a strategy's devices must be different, got {devices}")
        self._num_workers = num_workers
        self._worker_index = worker_index
        self.extended = StrategyExtended(self, self._devices, is_chief, between_graph=num_workers > 1)
        self._group_key = next(_group_keys)
        self._graph_states: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> _GraphState
        self._shared: dict[str, list] = {}  # canonical name -> variables the first replica made, in order
        self._taken: dict[tuple[int, str], int] = {}
        self._task_local = False  # (its groups are the devices of this task alone)

    # -- what users call -----------------------------------------------------------------
    @property
    def num_replicas_in_sync(self) -> int:
        return len(self._devices) * self._num_workers

    @contextlib.contextmanager
    def scope(self):
        """Variables made within are mirrored on the strategy's devices; the code within is in
        the strategy's cross-replica context."""
        outer = distribute_context.current()
        if outer is not None and outer.strategy is not self:
            raise ValueError(f"Mixing different tf.distribute.Strategy objects: {outer.strategy!r} is in use")
        if outer is not None:  # (already in this strategy's scope, or one of its replicas)
            yield self
            return
        with distribute_context.entered(distribute_context.Context(self, None)), \
                variable_creator_scope(self._make_variable):
            yield self

    def experimental_run_v2(self, fn, args=(), kwargs=None):
        """Calls ``fn(*args, **kwargs)`` once per replica, each with its own values of any
        PerReplica argument; returns what they returned (PerReplica where they differ)."""
        kwargs = kwargs or {}
        with self.scope():
            if distribute_context.replica_context() is not None:
                raise RuntimeError("experimental_run_v2 was called inside a replica function")
            self._shared, self._taken = {}, {}
            replicas = [ReplicaContext(self, i, self._worker_index * len(self._devices) + i)
                        for i in range(len(self._devices))]
            results = mirrored_run.call_for_each_replica(self, replicas, self._devices, fn, args, kwargs)
        return values_lib.regroup(results)

    run = experimental_run_v2  # (TF 2.2's name for it)

    def reduce(self, reduce_op, value, axis=None):
        """``value`` (PerReplica, or the same on every replica) reduced over every replica of
        the group, and over ``axis`` too if given, into one tensor."""
        return self._reduce_each(_reduce_op(reduce_op), value, axis)[0]

    def _reduce_each(self, op: str, value, axis=None) -> list:
        """:meth:`reduce`'s result, a copy on each of this process's devices."""
        parts = list(values_lib.local_results(value))
        parts = [ops.convert_to_tensor(p) for p in parts]
        if len(parts) != len(self._devices):
            parts = parts * len(self._devices) if len(parts) == 1 else parts
        counts = None
        if axis is not None:
            counts = [math_ops.cast(array_ops.shape(p)[axis], p.dtype) for p in parts]
            parts = [reduction_ops.reduce_sum(p, axis=axis) for p in parts]
        totals = self._sum_over_group(parts)
        if op != ReduceOp.MEAN:
            return totals
        if counts is not None:
            counts = [c[0] for c in self._sum_over_group([array_ops.reshape(c, [1]) for c in counts])]
        else:
            counts = [math_ops.cast(self.num_replicas_in_sync, t.dtype) for t in totals]
        means = []
        for total, count, device in zip(totals, counts, self._devices):
            with ops.device(device):
                means.append(total / count)
        return means

    def experimental_local_results(self, value) -> tuple:
        return values_lib.local_results(value)

    unwrap = experimental_local_results

    def group(self, value, name=None):
        flat = [v for x in nest.flatten(value) for v in values_lib.local_results(x)]
        return control_flow_ops.group(*[v.op if hasattr(v, "op") else v for v in flat], name=name)

    def experimental_distribute_dataset(self, dataset):
        """The dataset's batches split among the replicas (and, with several workers, its
        batches dealt out among the workers, one in ``num_workers`` each)."""
        return DistributedDataset(self, dataset)

    def make_dataset_iterator(self, dataset):
        return self.experimental_distribute_dataset(dataset).make_initializable_iterator()

    def experimental_distribute_datasets_from_function(self, dataset_fn):
        """``dataset_fn(InputContext)``'s dataset, called once for this worker's pipeline: a
        dataset of per-replica batches (the function shards and sizes them by the context),
        whose elements go to the replicas in turn."""
        return DistributedDataset(self, dataset_fn(self._input_context()), per_replica=True)

    def make_input_fn_iterator(self, input_fn, replication_mode=InputReplicationMode.PER_WORKER):
        """An initializable iterator over ``input_fn(InputContext)``'s dataset, as
        :meth:`experimental_distribute_datasets_from_function` distributes it."""
        if replication_mode != InputReplicationMode.PER_WORKER:
            raise ValueError(f"Only InputReplicationMode.PER_WORKER is supported, got {replication_mode!r}")
        return self.experimental_distribute_datasets_from_function(input_fn).make_initializable_iterator()

    def _input_context(self) -> "InputContext":
        return InputContext(self._num_workers, self._worker_index, self.num_replicas_in_sync)

    def _split_batch(self, batch):
        """Each replica's share of ``batch`` (a structure of tensors), as PerReplica values."""
        return split_batch(self._devices, batch)

    def configure(self, session_config=None, cluster_spec=None, task_type=None, task_id=None):
        """Accepted: the strategy's cluster comes from its constructor (TF_CONFIG)."""

    def update_config_proto(self, config_proto):
        return config_proto

    def __repr__(self):
        return f"<{type(self).__name__} on {list(self._devices)}" + (
            f", worker {self._worker_index} of {self._num_workers}>" if self._num_workers > 1 else ">")

    # -- variables -----------------------------------------------------------------------
    def _make_variable(self, next_creator, **kwargs):
        replica = distribute_context.replica_context()
        if replica is not None and replica.strategy is self and replica.local_index > 0:
            return self._variable_of_first_replica(replica.local_index, kwargs.get("name"))
        if kwargs.get("synchronization") == VariableSynchronization.ON_READ:
            variable = self._synced_on_read(next_creator, kwargs)
        else:
            variable = self._mirrored(next_creator, kwargs)
        if replica is not None and replica.strategy is self:
            self._shared.setdefault(_canonical(kwargs.get("name")), []).append(variable)
        return variable

    def _variable_of_first_replica(self, index: int, name):
        key = _canonical(name)
        taken = self._taken.get((index, key), 0)
        made = self._shared.get(key, [])
        if taken >= len(made):
            raise RuntimeError(f"replica {index} made variable {name!r}, which the first replica did not make: a "
                               "replica function must make the same variables on every replica")
        self._taken[(index, key)] = taken + 1
        return made[taken]

    def _mirrored(self, next_creator, kwargs) -> values_lib.MirroredVariable:
        collections = kwargs.get("collections")
        collections = list(collections) if collections is not None else [GraphKeys.GLOBAL_VARIABLES]
        trainable = kwargs.get("trainable")
        trainable = True if trainable is None else trainable
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        components = self._copies(next_creator, kwargs, lambda i, made: (
            self._from_worker_0(kwargs) if i == 0 and self._num_workers > 1 else
            _identity_of(made[0]) if i > 0 else None))
        graph = ops.get_default_graph()
        for key in (GraphKeys.TRAINABLE_VARIABLES, GraphKeys.GLOBAL_VARIABLES):  # (a trainable one joins one itself)
            listed = graph.get_collection_ref(key)
            listed[:] = [v for v in listed if not any(v is c for c in components)]
        variable = values_lib.MirroredVariable(self, components)
        graph.add_to_collections(collections, variable)
        return variable

    def _synced_on_read(self, next_creator, kwargs) -> values_lib.SyncOnReadVariable:
        """A component on each replica's device, updated by that replica alone and combined on
        read (a metric's totals: every strategy keeps them on the replicas' own devices)."""
        collections = kwargs.get("collections")
        collections = list(collections) if collections is not None else [GraphKeys.GLOBAL_VARIABLES]
        components = self._copies(next_creator, kwargs)
        variable = values_lib.SyncOnReadVariable(self, components, components[0].aggregation)
        ops.get_default_graph().add_to_collections(collections, variable)
        return variable

    def _copies(self, next_creator, kwargs, initial_of=None) -> list[Variable]:
        """A copy of the variable ``kwargs`` describe on each of the strategy's devices, in no
        collection, each after the first named ``<first>/replica_<i>``; ``initial_of(i, made)``
        gives copy ``i``'s initial value where it is not None."""
        components: list[Variable] = []
        graph = ops.get_default_graph()
        with graph.colocate_with(None, ignore_existing=True):  # (slots are made colocated with their variable)
            for i, device in enumerate(self._devices):
                args = dict(kwargs, collections=[])
                if i > 0:
                    args["name"] = f"{components[0].op.name}/replica_{i}"
                initial = initial_of(i, components) if initial_of is not None else None
                if initial is not None:
                    args["initial_value"] = initial
                with graph.device(device):
                    components.append(next_creator(**args))
        return components

    def _from_worker_0(self, kwargs):
        """An initial value that is worker 0's on every worker (a collective broadcast)."""
        initial, dtype, shape = kwargs.get("initial_value"), kwargs.get("dtype"), kwargs.get("shape")
        instance = next(self._graph_state().init_instances)

        def broadcast():
            value = Variable._initial_tensor(initial, None if dtype is None else dtypes.as_dtype(dtype), shape)
            if not value.shape.is_fully_defined():
                raise ValueError(f"MultiWorkerMirroredStrategy: variable {kwargs.get('name')!r} needs a fully "
                                 f"defined shape to broadcast its initial value, got {value.shape}")
            if self._worker_index == 0:
                return collective_ops.broadcast_send(value, value.shape, value.dtype, self._num_workers,
                                                     self._group_key + 1, instance)
            return collective_ops.broadcast_recv(value.shape, value.dtype, self._num_workers, self._group_key + 1,
                                                 instance)

        return broadcast

    # -- collectives -----------------------------------------------------------------------
    def _graph_state(self) -> "_GraphState":
        graph = ops.get_default_graph()
        state = self._graph_states.get(graph)
        if state is None:
            state = self._graph_states[graph] = _GraphState()
        return state

    def _ordered(self, replica: ReplicaContext, make):
        """Makes a collective of this replica after its previous one, so that every replica's
        collectives run in one order (a device runs its ops one at a time)."""
        last = self._graph_state().last_collective
        previous = last.get(replica.local_index)
        with ops.control_dependencies([previous] if previous is not None else []):
            out = make()
        last[replica.local_index] = out.op
        return out

    def _next_instance(self, replica: ReplicaContext) -> int:
        instances = self._graph_state().instances
        instances[replica.local_index] = k = instances.get(replica.local_index, 0) + 1
        return k

    def _all_reduce(self, replica: ReplicaContext, value, op: str):
        value = ops.convert_to_tensor(value)
        n = self.num_replicas_in_sync
        if n == 1:
            return array_ops.identity(value)
        instance = self._next_instance(replica)
        return self._ordered(replica, lambda: collective_ops.all_reduce(
            value, n, self._group_key, instance, "Add", "Div" if op == ReduceOp.MEAN else "Id",
            _task_local_group=self._task_local))

    def _sum_over_group(self, parts: list) -> list:
        """The sum of every replica's part, a copy on each of this process's devices: one
        all-reduce instance among the group, each copy read once all local members have run
        (so that fetching one copy runs them all)."""
        n = self.num_replicas_in_sync
        if n == 1:
            return [array_ops.identity(parts[0])]
        instance = next(self._graph_state().cross_instances)
        reduced = []
        for part, device in zip(parts, self._devices):
            with ops.device(device):
                reduced.append(collective_ops.all_reduce(part, n, self._group_key, instance,
                                                         _task_local_group=self._task_local))
        copies = []
        with ops.control_dependencies([r.op for r in reduced]):
            for r, device in zip(reduced, self._devices):
                with ops.device(device):
                    copies.append(array_ops.identity(r))
        return copies

    def _aggregate_gradients(self, replica: ReplicaContext, grads_and_vars: list) -> list:
        """The gradients averaged (or summed, after a SUM loss) over every replica of the group.

        They are packed into buckets in the reverse of the variables' order, about the order
        in which backpropagation makes them (:func:`gradient_buckets`), and each bucket's
        all-reduce starts as soon as its gradients exist: the ring carries the last layers'
        gradients while the first layers' are computed. Every bucket is started before any
        is waited for, so members never wait on each other."""
        if self.num_replicas_in_sync == 1:
            return list(grads_and_vars)
        op = get_loss_reduction()
        pairs = [(to_dense(g) if isinstance(g, IndexedSlices) else g, v) for g, v in grads_and_vars]
        live = [(i, ops.convert_to_tensor(g)) for i, (g, _) in enumerate(pairs) if g is not None]
        out = list(pairs)
        n = self.num_replicas_in_sync
        with ops.name_scope("allreduce"):
            started = []
            for bucket in gradient_buckets(live):
                flat = [array_ops.reshape(g, [-1]) for _, g in bucket]
                packed = slicing_ops.concat(flat, 0) if len(flat) > 1 else flat[0]
                instance = self._next_instance(replica)
                handle = self._ordered(replica, lambda: collective_ops.all_reduce_start(
                    packed, n, self._group_key, instance, "Add", "Div" if op == ReduceOp.MEAN else "Id",
                    _task_local_group=self._task_local))
                started.append((bucket, packed, handle))
            with ops.control_dependencies([started[-1][2].op]):
                for bucket, packed, handle in started:
                    reduced = collective_ops.all_reduce_done(handle, packed)
                    sizes = [array_ops.size(g) for _, g in bucket]
                    pieces = slicing_ops.split(reduced, array_ops.stack(sizes), num=len(bucket)) \
                        if len(bucket) > 1 else [reduced]
                    for (i, g), piece in zip(bucket, pieces):
                        out[i] = (array_ops.reshape(piece, array_ops.shape(g)), pairs[i][1])
        return out

    def _increments_global_step(self, replica: ReplicaContext, global_step) -> bool:
        """A mirrored global step is incremented on every replica (each its component), any
        other once, by the first replica of the process."""
        return isinstance(global_step, values_lib.MirroredVariable) or replica.local_index == 0

    def _applies_updates(self, replica: ReplicaContext) -> bool:
        """Whether this replica applies its (aggregated) gradients: every replica updates its
        own copies of mirrored variables."""
        return True


class _GraphState:
    """How far a strategy's collectives have got in one graph: their instance keys, and each
    replica's last one (they run in order). Each graph counts from the start, so a strategy
    that builds several graphs (an Estimator builds one for each ``train`` and ``evaluate``)
    keys each graph's collectives alike on every worker, whatever other graphs a worker
    built in between."""

    def __init__(self):
        self.instances: dict[int, int] = {}  # local replica -> collectives made in its replica functions
        self.cross_instances = itertools.count(_CROSS_REPLICA_INSTANCES)
        self.init_instances = itertools.count(_INIT_INSTANCES)
        self.last_collective: dict = {}  # local replica -> its last collective's op


def _part_of_copy(index: int, structure):
    """The structure with each distributed value replaced by its ``index``-th part (a mirrored
    variable by its ``index``-th copy), for the update of that copy."""
    def part(v):
        if isinstance(v, values_lib.MirroredVariable):
            return v.components[index]
        if isinstance(v, values_lib.DistributedValues):
            return v.values[index] if index < len(v.values) else v.values[0]
        return v

    return nest.map_structure(part, structure)


FIRST_BUCKET_BYTES = 1 << 20  # small, so that the ring starts early in the backward pass
BUCKET_BYTES = 4 << 20  # large enough that each all-reduce's fixed cost is small beside its bytes


def gradient_buckets(grads: list) -> list[list]:
    """``grads`` (``(index, tensor)`` pairs in the variables' order) in buckets to all-reduce
    together: taken in reverse order, one dtype to a bucket, each closed once it holds
    FIRST_BUCKET_BYTES (the first) or BUCKET_BYTES. A tensor of unknown size fills a bucket."""
    buckets, open_ = [], {}  # dtype -> (bucket, bytes)
    for i, g in reversed(grads):
        dtype = g.dtype.base_dtype
        bucket, size = open_.pop(dtype, ([], 0))
        bucket.append((i, g))
        count = g.shape.num_elements() if g.shape.is_fully_defined() else None
        size = BUCKET_BYTES if count is None else size + count * dtype.size
        if size >= (FIRST_BUCKET_BYTES if not buckets else BUCKET_BYTES):
            buckets.append(bucket)
        else:
            open_[dtype] = (bucket, size)
    buckets.extend(bucket for bucket, _ in open_.values())
    return buckets


def _identity_of(primary: Variable):
    def initial_value():
        return array_ops.identity(primary.initial_value)

    return initial_value


class DistributedDataset:
    """A dataset whose batches a strategy splits among its replicas; or, ``per_replica``, a
    dataset of the replicas' own batches (an input function's), whose consecutive elements
    go to the replicas in turn, one each per step."""

    def __init__(self, strategy: Strategy, dataset, per_replica: bool = False):
        self._strategy = strategy
        if strategy._num_workers > 1 and not per_replica:  # (an input function shards its own)
            dataset = dataset.shard(strategy._num_workers, strategy._worker_index)
        self._dataset = dataset
        self._per_replica = per_replica

    def make_one_shot_iterator(self):
        return DistributedIterator(self._strategy, self._dataset.make_one_shot_iterator(), self._per_replica)

    def make_initializable_iterator(self):
        return DistributedIterator(self._strategy, self._dataset.make_initializable_iterator(), self._per_replica)

    def __iter__(self):
        raise RuntimeError("iterating a distributed dataset needs eager execution; in a graph use "
                           "make_initializable_iterator() or make_one_shot_iterator()")


class DistributedIterator:
    """``get_next()``: each replica's share of the next batch, or (``per_replica``) each
    replica's next element, taken in the replicas' order (PerReplica)."""

    def __init__(self, strategy: Strategy, iterator, per_replica: bool = False):
        self._strategy = strategy
        self._iterator = iterator
        self._per_replica = per_replica

    @property
    def initializer(self):
        return self._iterator.initializer

    def initialize(self) -> list:
        return [self._iterator.initializer]

    def get_next(self, name=None):
        if not self._per_replica:
            return self._strategy._split_batch(self._iterator.get_next())
        elements = []
        for _ in self._strategy._devices:
            with ops.control_dependencies([nest.flatten(elements[-1])[0].op] if elements else []):
                elements.append(self._iterator.get_next())
        return values_lib.regroup(elements)


def split_batch(devices, batch):
    """Every tensor of ``batch`` (a structure) cut along axis 0 into one share per device, as
    PerReplica values (shares differ by at most one row)."""
    n = len(devices)
    if n == 1:
        return batch

    def split(t):
        t = ops.convert_to_tensor(t)
        known = t.shape.ndims is not None and t.shape.as_list()[0] is not None
        size = t.shape.as_list()[0] if known else array_ops.shape(t)[0]
        parts = []
        for i, device in enumerate(devices):
            with ops.device(device):
                part = t[(size * i) // n:(size * (i + 1)) // n]
                if not known and t.shape.ndims is not None:
                    part.set_shape([None] + t.shape.as_list()[1:])
                parts.append(part)
        return values_lib.PerReplica(parts)

    return nest.map_structure(split, batch)


class MirroredStrategy(Strategy):
    """Synchronous training on the devices of one process: a replica per device, variables
    mirrored, gradients all-reduced among the devices (``tf.distribute.MirroredStrategy``).

    ``devices`` default to the process's real GPUs, or its CPU when it has none (as TF: its
    simulated GPUs are used only when named)."""

    def __init__(self, devices=None, cross_device_ops=None):
        if cross_device_ops is not None and not isinstance(cross_device_ops, CrossDeviceOps):
            raise ValueError(f"cross_device_ops must be a tf.distribute.CrossDeviceOps (NcclAllReduce, "
                             f"HierarchicalCopyAllReduce, ReductionToOneDevice), got {cross_device_ops!r}")
        if devices is None:
            devices = _default_devices()
        super().__init__(list(devices))
        # (kept as asked; the gradients' all-reduce is the collective one whatever it is:
        # cross_device_ops.py)
        self.extended._cross_device_ops = cross_device_ops


class OneDeviceStrategy(Strategy):
    """Everything on one device (``tf.distribute.OneDeviceStrategy``)."""

    def __init__(self, device):
        super().__init__([device])


class _OneCopyStrategy(Strategy):
    """A strategy whose variables are not mirrored: each has one copy, on the device
    ``_variable_device()`` says when it is made, and the first replica applies the
    replicas' averaged gradients to it."""

    def _variable_device(self) -> str:
        raise NotImplementedError

    def _mirrored(self, next_creator, kwargs):
        graph = ops.get_default_graph()
        with graph.colocate_with(None, ignore_existing=True), graph.device(self._variable_device()):
            return next_creator(**kwargs)

    def _applies_updates(self, replica: ReplicaContext) -> bool:
        return replica.local_index == 0


class ParameterServerStrategy(_OneCopyStrategy):
    """Variables on the ps tasks of TF_CONFIG's cluster, a replica per device of this worker,
    workers stepping on their own (``tf.distribute.experimental.ParameterServerStrategy``).

    Variables made in the scope go to the ps tasks in turn, one copy each. A worker's
    replicas average their gradients with a collective all-reduce among themselves, and
    the first applies them to the ps variables, once a step; the other workers do the same
    at their own pace (asynchronous, as between-graph training with a ps). Only the chief
    initializes the variables (``extended.experimental_should_init``); the others wait."""

    def __init__(self, num_gpus_per_worker=None, cluster_resolver=None):
        config = json.loads(os.environ.get("TF_CONFIG") or "{}")
        cluster = config.get("cluster") or {}
        if cluster_resolver is not None:
            cluster = cluster_resolver.cluster_spec().as_dict()
        task = config.get("task") or {}
        task_type, task_id = task.get("type"), int(task.get("index", 0))
        if not cluster.get("ps") or task_type not in ("chief", "worker"):
            raise ValueError("ParameterServerStrategy needs TF_CONFIG with ps tasks, run on a chief or worker task; "
                             f"got cluster {cluster} and task {task}")
        self._ps = [f"/job:ps/replica:0/task:{i}/device:CPU:0" for i in range(len(cluster["ps"]))]
        self._next_ps = itertools.count()
        workers = [(job, i) for job in ("chief", "worker") for i in range(len(cluster.get(job, [])))]
        index = workers.index((task_type, task_id))
        super().__init__(_default_devices(num_gpus_per_worker, job=task_type, task=task_id),
                         is_chief=task_type == "chief" or ("chief" not in cluster and task_id == 0))
        self._worker_index = index  # (the local group's key is this worker's own)
        self._group_key += 2 * index
        self.extended.experimental_between_graph = True
        self.extended.experimental_should_init = self.extended._is_chief
        self._task_local = True
        self.cluster, self.task_type, self.task_id = cluster, task_type, task_id

    def update_config_proto(self, config_proto):
        """The session config with device filters for the ps tasks and this worker alone (as TF's):
        a worker then needs no other worker, so one that finished or failed stops nobody."""
        from ..runtime.config import ConfigProto  # noqa: PLC0415

        config = config_proto if config_proto is not None else ConfigProto()
        config.device_filters = ["/job:ps", f"/job:{self.task_type}/task:{self.task_id}"]
        return config

    @property
    def num_replicas_in_sync(self) -> int:
        return len(self._devices)

    def _variable_device(self) -> str:
        return self._ps[next(self._next_ps) % len(self._ps)]  # (the ps tasks in turn)


class CentralStorageStrategy(_OneCopyStrategy):
    """Each variable once, on ``parameter_device``, and a replica per compute device, as
    in-graph replication with the variables on the CPU
    (``tf.distribute.experimental.CentralStorageStrategy``).

    ``compute_devices`` default to the process's GPUs, or its CPU; ``parameter_device`` to
    the CPU, or to the one compute device where there is one. The replicas average their
    gradients with a collective all-reduce among themselves, and the first applies them
    once a step."""

    def __init__(self, compute_devices=None, parameter_device=None):
        devices = list(compute_devices) if compute_devices is not None else _default_devices()
        super().__init__(devices)
        if parameter_device is None:
            parameter_device = self._devices[0] if len(self._devices) == 1 else "/device:CPU:0"
        self._parameter_device = parameter_device
        self._task_local = True

    def _variable_device(self) -> str:
        return self._parameter_device


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training over the workers of TF_CONFIG's cluster (and the chief, if it has
    one), all-reducing with collective ops, no ps (``tf.distribute.experimental.
    MultiWorkerMirroredStrategy``; ``CollectiveAllReduceStrategy`` in tf.contrib).

    Every worker runs the same program; its session runs on its own task's server
    (``tf.train.Server(cluster, task_type, task_index)`` and ``tf.Session(server.target)``),
    with this task's devices. Without TF_CONFIG it is one worker."""

    def __init__(self, communication=None, num_gpus_per_worker=None, cluster_spec=None, task_type=None,
                 task_id=None):
        tf_config = json.loads(os.environ.get("TF_CONFIG") or "{}")
        cluster = cluster_spec if cluster_spec is not None else tf_config.get("cluster") or {}
        if hasattr(cluster, "as_dict"):
            cluster = cluster.as_dict()
        task = tf_config.get("task") or {}
        task_type = task_type or task.get("type")
        task_id = int(task_id if task_id is not None else task.get("index", 0))
        members = [(job, i) for job in ("chief", "worker") for i in range(len(cluster.get(job, [])))]
        if not members or task_type in (None, "evaluator"):  # (an evaluator evaluates alone, as in TF)
            super().__init__(_default_devices(num_gpus_per_worker))
            return
        if (task_type, task_id) not in members:
            raise ValueError(f"MultiWorkerMirroredStrategy: task {task_type}:{task_id} is not a chief or worker of "
                             f"the cluster {cluster}")
        local = _default_devices(num_gpus_per_worker, job=task_type, task=task_id)
        index = members.index((task_type, task_id))
        super().__init__(local, num_workers=len(members), worker_index=index, is_chief=index == 0)
        self.cluster = cluster
        self.task_type, self.task_id = task_type, task_id


CollectiveAllReduceStrategy = MultiWorkerMirroredStrategy


def _default_devices(num_gpus=None, job=None, task=None) -> list[str]:
    """The real GPUs of this process (``num_gpus`` of them, if given), else its CPU."""
    prefix = f"/job:{job}/replica:0/task:{task}" if job is not None else ""
    if num_gpus is None:
        num_gpus = _real_gpu_count()
    if num_gpus:
        return [f"{prefix}/device:GPU:{i}" for i in range(num_gpus)]
    return [f"{prefix}/device:CPU:0"]


def _real_gpu_count() -> int:
    from ..runtime import gpu  # noqa: PLC0415 - asks CuPy only when a strategy picks its devices

    backend = gpu.find_backend()
    return 0 if backend is None else len(gpu.physical_gpus(backend, None, None))


# -- the module-level functions of tf.distribute ----------------------------------------------

class _DefaultStrategy(Strategy):
    """The strategy in use outside every other: one replica, where the code is placed."""

    def __init__(self):
        super().__init__([""])

    @contextlib.contextmanager
    def scope(self):
        yield self

    def experimental_run_v2(self, fn, args=(), kwargs=None):
        with distribute_context.entered(distribute_context.Context(self, _DEFAULT_REPLICA)):
            return fn(*args, **(kwargs or {}))

    run = experimental_run_v2

    def reduce(self, reduce_op, value, axis=None):
        op = _reduce_op(reduce_op)
        value = ops.convert_to_tensor(value)
        if axis is None:
            return value
        return reduction_ops.reduce_mean(value, axis) if op == ReduceOp.MEAN else reduction_ops.reduce_sum(value, axis)

    def _aggregate_gradients(self, replica, grads_and_vars):
        return list(grads_and_vars)

    def _increments_global_step(self, replica, global_step) -> bool:
        return True


_DEFAULT_STRATEGY = _DefaultStrategy()
_DEFAULT_REPLICA = _DefaultReplicaContext()
_DEFAULT_REPLICA.strategy = _DEFAULT_STRATEGY


def get_strategy() -> Strategy:
    context = distribute_context.current()
    return _DEFAULT_STRATEGY if context is None else context.strategy


def has_strategy() -> bool:
    return get_strategy() is not _DEFAULT_STRATEGY


def get_loss_reduction():
    """How the replicas' gradients combine for the loss last built: ``ReduceOp.SUM`` after a
    loss summed over its examples (``tf.losses.Reduction.SUM``), else ``ReduceOp.MEAN``."""
    reduction = getattr(ops.get_default_graph(), "_last_loss_reduction", None)
    return ReduceOp.SUM if reduction == "weighted_sum" else ReduceOp.MEAN


def get_replica_context():
    """The replica context in a replica function; None in a strategy's cross-replica context;
    the default (one replica) outside every strategy."""
    context = distribute_context.current()
    if context is None:
        return _DEFAULT_REPLICA
    return context.replica


def get_cross_replica_context():
    context = distribute_context.current()
    if context is None:
        return _DEFAULT_STRATEGY
    return context.strategy if context.replica is None else None


def in_cross_replica_context() -> bool:
    return distribute_context.in_cross_replica_context()
