"""The worker service: runs this task's partitions of a step, and serves their tensors.

The master registers, once per step signature, a GraphDef holding this task's
partitions (every node with a full device name, _Send/_Recv at the cut edges). A
step is one RunGraph: every partition runs at once; a _Recv whose sender is on
another task opens a stream to that task's data port (transport.py), found through
the cluster's TaskDirectory (task.py), and takes the tensor from it.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import NamedTuple

import numpy as np
from google.protobuf.message import DecodeError

from ..framework import errors
from ..framework import ops, wire
from ..framework.device_spec import DeviceSpec
from ..ops import blas
from ..runtime import allocator
from ..runtime.device import DeviceMgr
from ..runtime.executor import (PartitionPlan, Rendezvous, log_compiled, run_partitions, value_of,
                                waiting_for, waiting_kernels)
from ..runtime.collectives import Collectives
from ..runtime.functions import function_ops
from ..runtime.partition import Node, rendezvous_key
from ..protos import distflow_pb2 as pb
from .collective_board import GroupLeader, WorkerBoard, configured_leader, resolver
from .rpc import takes_rpc_context
from .task import TaskDirectory
from .transport import TensorServer


PARK_BYTES = 1 << 16  # outputs this large go to the client over the data path
PARK_SECONDS = 300.0  # how long a parked output waits for its client
# How long a step that peers asked for tensors of may wait for its RunGraph to begin here,
# and how long a finished step keeps tensors that it sent and nobody took; then sweep()
# reclaims them (a peer that failed, a request for a step that never existed).
STALE_STEP_SECONDS = 60.0
FAILED_STEP_SECONDS = 60.0  # how long a failed step is remembered, so late receivers fail at once


class _StepPlan(NamedTuple):
    """How this task runs a registered graph for one set of feeds and fetches."""

    partitions: list[PartitionPlan]  # one per device
    remote_keys: list[list[tuple]]  # per partition: the keys its _Recvs take from other tasks, in order


class _RegisteredGraph:
    def __init__(self, graph: ops.Graph, partitions: dict[str, list]):
        self.graph = graph
        self.partitions = partitions  # device name -> ops in the master's order
        self.plans: dict[tuple, _StepPlan] = {}
        self.lock = threading.Lock()


class _StepRendezvous(Rendezvous):
    """A step's rendezvous on one worker: tensors from other tasks come over the data path."""

    __slots__ = ("worker", "step_id", "finished", "claimed", "since", "streams", "_left", "_left_cond")

    def __init__(self, worker: "Worker", step_id: int, deadline=None):
        super().__init__(deadline)
        self.worker = worker
        self.step_id = step_id
        self.finished = False
        self.claimed = False  # a RunGraph of this step has begun here (not only peers asking for its tensors)
        self.since = time.monotonic()  # made, or finished once finished
        self.streams: dict = {}  # remote key -> the TensorStream it comes on
        self._left: set = set()  # keys the data port has sent to another task (or given up on)
        self._left_cond = threading.Condition(self._lock)

    def prefetch(self, keys_by_partition) -> None:
        """Asks the other tasks for every tensor this step will receive from them, at once:
        one request per partition and sending task, keys in the order the partition needs
        them. The partition reads each from the socket when it gets to it."""
        for keys in keys_by_partition:
            self.streams.update(self.worker.open_streams(keys, self.step_id, self._deadline))

    def recv(self, key, timeout=None):
        src = key[0]
        if self.worker.is_local(src):
            return super().recv(key, timeout)
        stream = self.streams.pop(key, None)
        if stream is None:
            stream = self.worker.open_streams([key], self.step_id, self._deadline)[key]
        return stream.get(key)

    def recv_sent(self, key, timeout=None):
        """A tensor that this task sends in the step, for another task: never from elsewhere.
        It leaves in host memory."""
        return self.worker.device_mgr.to_host(super().recv(key, timeout))

    def mark_left(self, key) -> None:
        """The data port is done with ``key``: its value went out to the task that asked, or
        cannot (that connection failed)."""
        with self._lock:
            self._left.add(key)
            self._left_cond.notify_all()

    def wait_left(self, keys, what: str) -> None:
        """Waits until every one of ``keys``, sent here for other tasks, has left this task
        (:meth:`mark_left`), within the step's deadline; an aborted step stops the wait with
        its error."""
        with self._lock:
            while True:
                if self._error is not None:
                    raise self._cancelled()
                if self._left.issuperset(keys):
                    return
                remaining = None if self._deadline is None else self._deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    missing = sorted(set(keys) - self._left)
                    raise errors.DeadlineExceededError(
                        None, None, f"{what}: {len(missing)} tensors sent for {missing[0][1]} were not taken "
                        f"in time (the first: '{missing[0][2]}')")
                self._left_cond.wait(remaining)

    def abort(self, error: BaseException) -> None:
        super().abort(error)
        with self._lock:
            self._left_cond.notify_all()
        for stream in set(self.streams.values()):
            stream.abort(self._cancelled())


class _FailedStream:
    """Stands for a stream that could not be opened: every key fails with its error."""

    def __init__(self, error: BaseException):
        self.error = error

    def get(self, key, use=None):
        raise self.error

    def abort(self, error) -> None:
        pass


# What a task answers for a graph it does not hold (it restarted since the graph was
# registered): the master then registers its steps' graphs again.
GRAPH_NOT_REGISTERED = "is not registered on"


class Worker:
    """The worker of one task: its devices (and their resources), graphs and steps."""

    def __init__(self, job: str, task: int, tasks: TaskDirectory, config=None, token: bytes | None = None,
                 tls=None):
        self.job, self.task = job, task
        self.task_name = f"/job:{job}/replica:0/task:{task}"
        self.tasks = tasks
        allocator.retain_freed_memory()
        blas.quiet_idle_threads()
        self.device_mgr = DeviceMgr(config, job=job, task=task)
        self._graphs: dict[str, _RegisteredGraph] = {}
        self._steps: dict[int, _StepRendezvous] = {}
        self._failed: dict[int, tuple[BaseException, float]] = {}  # recently failed steps
        self._parked_at: dict[int, float] = {}  # steps holding tensors for a client
        self._lock = threading.Lock()
        self._kernel_states: dict = {}
        self._local_devices: dict[str, bool] = {}
        self.on_shutdown = None
        host = tasks.cluster.task_address(job, task).rpartition(":")[0]
        self.transport = TensorServer(host, self._serve_tensor, self._serve_call, token=token, tls=tls,
                                      sent=self._tensor_left)
        # collectives: this task's members exchange through its data port; groups form at the leader
        self._group_leader = GroupLeader()
        leader = configured_leader(config, tasks.cluster)
        self.device_mgr.collectives = Collectives(WorkerBoard(self), resolver(self, leader), is_local=self.is_local)

    # -- helpers ------------------------------------------------------------------
    def is_local(self, device: str) -> bool:
        local = self._local_devices.get(device)
        if local is None:  # parsed once per device name: this is asked per received tensor
            spec = DeviceSpec.from_string(device)
            local = spec.job == self.job and (spec.task or 0) == self.task
            if len(self._local_devices) < 4096:  # names come from peers' graphs: a bounded cache
                self._local_devices[device] = local
        return local

    def _step(self, step_id: int, deadline=None) -> _StepRendezvous:
        with self._lock:
            failed = self._failed.get(step_id)
            if failed is not None:
                raise errors.AbortedError(None, None, f"step {step_id} was aborted on {self.task_name}: "
                                          f"{type(failed[0]).__name__}: {failed[0]}")
            rdv = self._steps.get(step_id)
            if rdv is None:
                rdv = self._steps[step_id] = _StepRendezvous(self, step_id, deadline)
            return rdv

    def _fail_step(self, step_id: int, error: BaseException) -> None:
        """Aborts the step here and remembers it for a while: late receivers fail at once."""
        with self._lock:
            rdv = self._steps.pop(step_id, None)
            self._failed[step_id] = (error, time.monotonic())
        if rdv is not None:
            rdv.abort(error)

    def _drop_step_if_done(self, rdv: _StepRendezvous) -> None:
        with self._lock:
            if rdv.finished and not rdv._items and self._steps.get(rdv.step_id) is rdv:
                del self._steps[rdv.step_id]
                self._parked_at.pop(rdv.step_id, None)

    def sweep(self) -> None:
        """Reclaims what steps that will never finish hold (the server calls this every few
        seconds): a step peers asked for but that never began here, tensors a finished step
        sent that nobody took, outputs parked for a client that never came, and the memory
        of failed steps."""
        now = time.monotonic()
        never_ran = []
        with self._lock:
            for step_id, rdv in list(self._steps.items()):
                if step_id in self._parked_at:
                    if now - self._parked_at[step_id] > PARK_SECONDS:
                        del self._parked_at[step_id], self._steps[step_id]
                elif now - rdv.since > STALE_STEP_SECONDS:
                    if rdv.finished:
                        del self._steps[step_id]  # what it sent, nobody took
                    elif not rdv.claimed:
                        never_ran.append(step_id)
            for step_id in [k for k, (_, t) in self._failed.items() if now - t > FAILED_STEP_SECONDS]:
                del self._failed[step_id]
        for step_id in never_ran:
            self._fail_step(step_id, errors.AbortedError(
                None, None, f"step {step_id} never ran on {self.task_name} (was its RunGraph lost?)"))

    def open_streams(self, keys, step_id: int, deadline) -> dict:
        """Asks the tasks that send ``keys`` for them, one request per task; a TensorStream per key."""
        by_task: dict[str, list] = {}
        for key in keys:
            by_task.setdefault(self.tasks.of_device(key[0]).name, []).append(key)
        streams = {}
        for name, group in by_task.items():
            stream = self._open_stream(name, group, step_id, deadline)
            streams.update(dict.fromkeys(group, stream))
        return streams

    def _open_stream(self, task_name: str, keys: list, step_id: int, deadline):
        task = self.tasks.task(task_name)
        try:
            timeout = None if deadline is None else max(0.001, deadline - time.monotonic())
            return self.tasks.on_data_port(task_name, lambda host, port: self.tasks.data.open_stream(
                host, port, step_id, keys, timeout, f"task {task_name} ({task.address})"))
        except errors.OpError as e:
            self.tasks.failed(task_name, e)  # the peer may come back (restarted) on another port
            return _FailedStream(e)

    def _serve_tensor(self, step_id: int, key: tuple, timeout):
        """What the data path serves: a tensor this task sends in step ``step_id``."""
        rdv = self._step(step_id)
        try:
            value = rdv.recv_sent(key, timeout)
        except errors.OpError:
            if rdv.claimed:
                raise
            with self._lock:  # a step that never began here leaves nothing behind
                if self._steps.get(step_id) is rdv:
                    del self._steps[step_id]
            if isinstance(rdv._error, errors.OpError):
                raise rdv._error from None  # (why it was given up: it never ran here)
            raise
        self._drop_step_if_done(rdv)
        return value_of(value)

    def _tensor_left(self, step_id: int, key: tuple) -> None:
        with self._lock:
            rdv = self._steps.get(step_id)
        if rdv is not None:
            rdv.mark_left(key)

    def _serve_call(self, payload: bytes, caller) -> bytes:
        """RunGraph over the data path (transport.py): the gRPC method's twin."""
        try:
            request = pb.RunGraphRequest.FromString(payload)
        except DecodeError as e:
            raise errors.InvalidArgumentError(None, None, f"a RunGraph call that does not parse: {e}") from None
        return self.RunGraph(request, caller).SerializeToString()

    def close(self) -> None:
        """Cancels the steps still running here (a dequeue blocked on this task, say), then
        closes the data path."""
        self.cancel_steps()
        self.transport.close()

    def cancel_steps(self) -> None:
        """Cancels the steps running here: each fails with a CancelledError that says why."""
        with self._lock:
            running = list(self._steps)
        stopped = errors.CancelledError(None, None, f"{self.task_name} is shutting down")
        for step_id in running:
            self._fail_step(step_id, stopped)

    # -- RPC methods --------------------------------------------------------------------
    def GetStatus(self, request):
        response = pb.GetStatusResponse(task=self.task_name, data_port=self.transport.port,
                                        waiting_kernels=waiting_kernels(), waiting_for=waiting_for())
        for d in self.device_mgr.devices:
            response.device_attributes.add(name=d.name, device_type=d.device_type,
                                           physical_device_desc=d.physical_device_desc)
        return response

    def RegisterGraph(self, request):
        graph = ops.Graph()
        wire.import_graph_def(request.graph_def, graph)
        partitions: dict[str, list] = {}
        inside = {inner.name for op in graph.get_operations() for inner in function_ops(op)}
        for node in request.graph_def.node:
            if node.name in inside:
                continue  # an op of a cond branch or loop: it runs inside the op that owns it
            op = graph.get_operation_by_name(node.name)
            if not self.is_local(op.device):
                raise errors.InvalidArgumentError(None, None, f"node '{node.name}' is placed on {op.device}, "
                                                  f"not on this task ({self.task_name})")
            try:
                self.device_mgr.lookup(op.device)
            except KeyError:
                raise errors.InvalidArgumentError(None, None, f"node '{node.name}': {self.task_name} has no "
                                                  f"device {op.device}") from None
            partitions.setdefault(op.device, []).append(op)
        handle = uuid.uuid4().hex
        with self._lock:
            self._graphs[handle] = _RegisteredGraph(graph, partitions)
        return pb.RegisterGraphResponse(graph_handle=handle)

    def DeregisterGraph(self, request):
        with self._lock:
            self._graphs.pop(request.graph_handle, None)
        return pb.DeregisterGraphResponse()

    def _step_plan(self, registered: _RegisteredGraph, feed_names: tuple, fetch_names: tuple) -> _StepPlan:
        """The plan for these feeds and fetches, made on first use."""
        key = (feed_names, fetch_names)
        plan = registered.plans.get(key)
        if plan is None:
            with registered.lock:
                plan = registered.plans.get(key)
                if plan is None:
                    plan = registered.plans[key] = self._make_step_plan(registered, feed_names, fetch_names)
        return plan

    def _make_step_plan(self, registered: _RegisteredGraph, feed_names: tuple, fetch_names: tuple) -> _StepPlan:
        graph = registered.graph
        feed_index = {}
        for i, name in enumerate(feed_names):
            t = _tensor(graph, name)
            feed_index[(t.op.name, t.value_index)] = i
        fetch_index: dict = {}
        for i, name in enumerate(fetch_names):
            t = _tensor(graph, name)
            fetch_index.setdefault((t.op.name, t.value_index), []).append(i)
        partitions, remote_keys = [], []
        for device, op_list in registered.partitions.items():
            nodes = [Node.from_op(op) for op in op_list]
            dev = self.device_mgr.lookup(device)
            partitions.append(PartitionPlan(device, nodes, [dev] * len(nodes), feed_index, fetch_index,
                                            self._kernel_states))
            remote_keys.append([rendezvous_key(node) for node in nodes
                                if node.type == "_Recv" and not self.is_local(node.attrs["send_device"])])
        for plan in partitions:
            rewrites = ", ".join(f"{name} x{made}" for name, made in plan.rewrites.items()) or "none"
            log_compiled(f"{plan.name} (fetches {', '.join(fetch_names)[:80] or 'none'})",
                         f"concurrent form (partitions of a task); rewrites: {rewrites}")
        return _StepPlan(partitions, remote_keys)

    @takes_rpc_context
    def RunGraph(self, request, context=None):
        """Runs this task's partitions of one step. If the caller goes away first (its
        process died, it timed out), the step is aborted here too, so that a kernel
        blocked in it (a dequeue on a ps, say) does not wait on for nobody."""
        feeds = [wire.tensor_from_proto(t.tensor) for t in request.send]
        metadata = ({"trace": request.trace, "graphs": request.output_partition_graphs}
                    if request.trace or request.output_partition_graphs else None)
        results = self.run_graph(request.graph_handle, request.step_id, tuple(t.name for t in request.send), feeds,
                                 tuple(request.recv_key), request.timeout_in_ms, context, metadata)
        response = pb.RunGraphResponse()
        if metadata is not None:
            if "step_stats" in metadata:
                response.step_stats.CopyFrom(metadata["step_stats"])
            response.partition_graph.extend(metadata.get("partition_graphs", ()))
        for name, value in zip(request.recv_key, results):
            if request.park_large and isinstance(value, np.ndarray) and value.dtype.kind not in "USO" \
                    and value.nbytes >= PARK_BYTES:
                self._park(request.step_id, name, value)
                response.recv.add(name=name, parked=True, task=self.task_name)
            else:
                wire.fill_tensor_proto(response.recv.add(name=name).tensor, value)
        return response

    def run_graph(self, graph_handle: str, step_id: int, feed_names: tuple, feeds: list, recv_keys: tuple,
                  timeout_in_ms: int = 0, context=None, metadata: dict | None = None) -> list:
        """RunGraph without protos: feeds and results as arrays (the master of this
        process calls it directly). ``context.add_callback(fn)``, if given, calls ``fn``
        when the caller goes away; the step is then aborted. ``metadata`` (a dict) asks
        with "trace" for the kernel calls' times and with "graphs" for the partitions run:
        they are added to it as "step_stats" (a StepStats) and "partition_graphs" (GraphDefs)."""
        finished = threading.Event()
        if context is not None:
            def on_rpc_done():
                if not finished.is_set():
                    self._fail_step(step_id, errors.CancelledError(
                        None, None, f"the caller of step {step_id} on {self.task_name} went away"))
            context.add_callback(on_rpc_done)
        try:
            registered = self._graphs.get(graph_handle)
            if registered is None:
                raise errors.AbortedError(None, None, f"graph handle {graph_handle!r} {GRAPH_NOT_REGISTERED} "
                                          f"{self.task_name} (was the task restarted?)")
            plan = self._step_plan(registered, feed_names, recv_keys)
            timeout = timeout_in_ms / 1000.0 if timeout_in_ms else None
            rdv = self._step(step_id, None if timeout is None else time.monotonic() + timeout)
            rdv.claimed = True
            rdv.prefetch(plan.remote_keys)
            results = [None] * len(recv_keys)
            trace = [] if metadata is not None and metadata.get("trace") else None
            try:
                error = run_partitions(plan.partitions, feeds, rdv, results, timeout, trace)
            finally:
                rdv.since, rdv.finished = time.monotonic(), True
                self._drop_step_if_done(rdv)
            if error is not None:
                self._fail_step(step_id, error)
                raise _named(error, self.task_name)
            if metadata is not None:
                devices = sorted(registered.partitions)
                if trace is not None:
                    metadata["step_stats"] = wire.step_stats(trace, devices)
                if metadata.get("graphs"):
                    metadata["partition_graphs"] = [
                        wire.partition_to_proto([Node.from_op(op) for op in registered.partitions[d]], d)
                        for d in devices]
            return [value_of(v) for v in results]
        finally:
            finished.set()

    def _park(self, step_id: int, name: str, value) -> None:
        """Leaves a fetched tensor for the client to pull over the data path."""
        with self._lock:
            rdv = self._steps.get(step_id)
            if rdv is None:  # (dropped when the step finished with nothing left in it)
                rdv = self._steps[step_id] = _StepRendezvous(self, step_id)
            rdv.finished = True  # dropped once the client has taken what is parked
            self._parked_at[step_id] = time.monotonic()
        rdv.send((self.task_name, "client", name), value)

    def AbortStep(self, request):
        self.abort_step(request.step_id, errors.AbortedError(None, None, request.status.message or "step aborted"))
        return pb.AbortStepResponse()

    def abort_step(self, step_id: int, error: errors.OpError) -> None:
        """Fails step ``step_id`` here (another task failed it): waiting kernels give up at once."""
        self._fail_step(step_id, errors.AbortedError(None, None, error.message or "step aborted"))

    def ResetContainers(self, request):
        for d in self.device_mgr.devices:
            if request.container:
                for c in request.container:
                    d.resource_mgr.cleanup(c)
            else:
                d.resource_mgr.clear()
        with self._lock:
            self._graphs.clear()
        return pb.ResetContainersResponse()

    @takes_rpc_context
    def CompleteGroup(self, request, context=None):
        """As the leader of collective groups: the group, once all its members have asked."""
        return self._group_leader.complete(request, context)

    def Shutdown(self, request):
        if self.on_shutdown is not None:
            threading.Thread(target=self.on_shutdown, daemon=True).start()
        return pb.ShutdownResponse()


def _named(error: BaseException, task_name: str) -> BaseException:
    """The error with the failing task named in its message (once)."""
    if isinstance(error, errors.OpError) and task_name not in error.message:
        return type(error)(error.node_def, error.op, f"{error.message} (on task {task_name})", device=error.device)
    return error


def _tensor(graph: ops.Graph, name: str) -> ops.Tensor:
    try:
        return graph.get_tensor_by_name(name)
    except (KeyError, ValueError) as e:
        raise errors.InvalidArgumentError(None, None, f"tensor {name!r} is not in the registered graph: {e}") from None
