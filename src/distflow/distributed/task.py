"""One interface for calling a task of the cluster, whether it is in this process or not.

The master registers graphs on tasks and runs steps on them; a worker pulls tensors
from the tasks that send them. Both go through a ``TaskDirectory``, which holds, for
every task of the cluster, how to call it:

- ``LocalTask``: the worker of this process's own server, called directly. Feeds and
  results are NumPy arrays; nothing is serialized and nothing crosses a socket.
- ``RemoteTask``: a worker in another process. Control calls (GetStatus,
  RegisterGraph, AbortStep, ...) go over gRPC; a step's RunGraph goes as one frame on
  the data path (transport.py), which gRPC in Python would slow by about 0.6 ms each way.

The directory also keeps the one piece of learned state about a task: its data port,
which it tells in GetStatus. A call that finds the task gone (UNAVAILABLE) or restarted
(ABORTED: it no longer knows a graph handle) forgets the port and marks the task stale,
so that the next caller asks it again.
"""

from __future__ import annotations

import functools
import threading
from typing import NamedTuple

from ..framework import errors, wire
from ..framework.device_spec import DeviceSpec
from ..protos import distflow_pb2 as pb
from ..runtime.executor import waiting_for
from .rpc import Channels, error_from_rpc
from .transport import PortRefused, TensorClient


class RemoteDevice:
    """A device of some task, as the task reports it: a name, a type and, for a real GPU, the
    physical device. The master places ops on a real GPU only where they have a GPU kernel
    (and an op with no device type there, as TF does); on a simulated one, any op."""

    ordinal = backend = None
    memory = "host"

    def __init__(self, name: str, device_type: str, physical_device_desc: str = ""):
        self.name = name
        self.spec = DeviceSpec.from_string(name)
        self.device_type = device_type
        self.index = self.spec.device_index
        self.physical_device_desc = physical_device_desc
        real_gpu = device_type == "GPU" and bool(physical_device_desc)
        self.kernel_type = "GPU" if real_gpu else "CPU"
        self.simulated = device_type == "GPU" and not real_gpu


class Parked(NamedTuple):
    """A fetched tensor that ``task`` holds for the client: pull it from ``data_address``."""

    name: str
    task: str
    data_address: str


class RunGraphCall(NamedTuple):
    """One task's share of one step: run ``graph_handle`` with these feeds, return these fetches."""

    graph_handle: str
    step_id: int
    feed_names: tuple[str, ...]
    feeds: list
    fetch_names: tuple[str, ...]
    timeout_in_ms: int = 0
    park_large: bool = False  # outputs of PARK_BYTES or more stay on the task for the client to pull
    metadata: dict | None = None  # asks for "trace" and "graphs"; gets "step_stats" and "partition_graphs"


@functools.lru_cache(maxsize=4096)  # asked for every tensor a step receives from another task
def task_name_of(device: str) -> str:
    """"/job:J/replica:0/task:T" of a device name."""
    spec = DeviceSpec.from_string(device)
    return f"/job:{spec.job}/replica:0/task:{spec.task or 0}"


class Task:
    """A task of the cluster, as callers see it: the worker service's methods, with arrays."""

    def __init__(self, name: str, address: str):
        self.name = name
        self.address = address  # host:port of its gRPC server

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name}, {self.address})"

    def status(self, timeout: float) -> list[RemoteDevice]:
        """The task's devices (the directory learns its data port from the same answer)."""
        raise NotImplementedError

    def register_graph(self, graph_def: pb.GraphDef) -> str:
        """Registers this task's partitions of a step; the handle to run them by."""
        raise NotImplementedError

    def deregister_graph(self, graph_handle: str) -> None:
        raise NotImplementedError

    def run_graph(self, call: RunGraphCall) -> list:
        """Runs one step's partitions there: the fetched values, arrays or (remote only) Parked."""
        raise NotImplementedError

    def abort_step(self, step_id: int, error: errors.OpError) -> None:
        raise NotImplementedError

    def reset_containers(self, containers: list[str]) -> None:
        raise NotImplementedError

    def waiting_for(self, timeout: float) -> list[str]:
        """What the task's waiting kernels wait for (a diagnostic)."""
        raise NotImplementedError

    def complete_group(self, request: pb.CompleteGroupRequest, timeout: float) -> pb.CompleteGroupResponse:
        """Asks this task, a collective group's leader, for the group: it answers once every
        member has asked."""
        raise NotImplementedError


class LocalTask(Task):
    """The worker of this process's server: direct calls, arrays in and out (a feed is not copied)."""

    def __init__(self, worker, address: str, directory: "TaskDirectory"):
        super().__init__(worker.task_name, address)
        self.worker = worker
        self._directory = directory

    def status(self, timeout: float) -> list[RemoteDevice]:
        return [RemoteDevice(d.name, d.device_type, d.physical_device_desc) for d in self.worker.device_mgr.devices]

    def register_graph(self, graph_def: pb.GraphDef) -> str:
        return self.worker.RegisterGraph(pb.RegisterGraphRequest(graph_def=graph_def)).graph_handle

    def deregister_graph(self, graph_handle: str) -> None:
        self.worker.DeregisterGraph(pb.DeregisterGraphRequest(graph_handle=graph_handle))

    def run_graph(self, call: RunGraphCall) -> list:
        return self.worker.run_graph(call.graph_handle, call.step_id, call.feed_names, call.feeds,
                                     call.fetch_names, call.timeout_in_ms, metadata=call.metadata)

    def abort_step(self, step_id: int, error: errors.OpError) -> None:
        self.worker.abort_step(step_id, error)

    def reset_containers(self, containers: list[str]) -> None:
        self.worker.ResetContainers(pb.ResetContainersRequest(container=containers))

    def waiting_for(self, timeout: float) -> list[str]:
        return waiting_for()

    def complete_group(self, request: pb.CompleteGroupRequest, timeout: float) -> pb.CompleteGroupResponse:
        return self.worker.CompleteGroup(request)


class RemoteTask(Task):
    """A worker in another process: control calls on gRPC, RunGraph on the data path."""

    def __init__(self, name: str, address: str, directory: "TaskDirectory"):
        super().__init__(name, address)
        self._directory = directory
        self.peer = f"task {name} ({address})"  # how errors name it

    def _grpc(self, method: str, request, timeout: float | None):
        try:
            return self._directory.channels.call(self.address, "distflow.Worker", method, request, timeout=timeout)
        except Exception as e:  # grpc.RpcError
            error = error_from_rpc(e, self.peer)
        self._directory.failed(self.name, error)
        raise error

    def status(self, timeout: float) -> list[RemoteDevice]:
        status = self._grpc("GetStatus", pb.GetStatusRequest(), timeout)
        self._directory.learned_port(self.name, status.data_port)
        return [RemoteDevice(d.name, d.device_type, d.physical_device_desc) for d in status.device_attributes]

    def register_graph(self, graph_def: pb.GraphDef) -> str:
        return self._grpc("RegisterGraph", pb.RegisterGraphRequest(graph_def=graph_def), 60.0).graph_handle

    def deregister_graph(self, graph_handle: str) -> None:
        self._grpc("DeregisterGraph", pb.DeregisterGraphRequest(graph_handle=graph_handle), 5.0)

    def run_graph(self, call: RunGraphCall) -> list:
        asked = call.metadata or {}
        request = pb.RunGraphRequest(graph_handle=call.graph_handle, step_id=call.step_id,
                                     recv_key=call.fetch_names, timeout_in_ms=call.timeout_in_ms,
                                     park_large=call.park_large, trace=bool(asked.get("trace")),
                                     output_partition_graphs=bool(asked.get("graphs")))
        for name, value in zip(call.feed_names, call.feeds):
            wire.fill_tensor_proto(request.send.add(name=name).tensor, value)
        # The call outlives the step's deadline a little, so that the task's own error (which
        # names the op that timed out) arrives rather than a bare deadline of the call.
        timeout = call.timeout_in_ms / 1000.0 + 5.0 if call.timeout_in_ms else None
        payload = request.SerializeToString()

        def call_at(host: str, port: int):
            return f"{host}:{port}", self._directory.data.call(host, port, payload, timeout, self.peer)

        try:
            data_address, answer = self._directory.on_data_port(self.name, call_at)
        except errors.OpError as e:
            error = e if self.name in e.message else type(e)(
                e.node_def, e.op, f"{e.message} (from task {self.name})", device=e.device)
            self._directory.failed(self.name, error)
            raise error from None
        response = pb.RunGraphResponse.FromString(answer)
        if call.metadata is not None:
            if response.HasField("step_stats"):
                call.metadata["step_stats"] = response.step_stats
            call.metadata["partition_graphs"] = list(response.partition_graph)
        return [Parked(out.name, self.name, data_address) if out.parked
                else wire.tensor_from_proto(out.tensor, writable=True) for out in response.recv]

    def abort_step(self, step_id: int, error: errors.OpError) -> None:
        status = pb.Status(code=error.error_code, message=error.message)
        self._grpc("AbortStep", pb.AbortStepRequest(step_id=step_id, status=status), 2.0)

    def reset_containers(self, containers: list[str]) -> None:
        self._grpc("ResetContainers", pb.ResetContainersRequest(container=containers), 30.0)

    def waiting_for(self, timeout: float) -> list[str]:
        return list(self._grpc("GetStatus", pb.GetStatusRequest(), timeout).waiting_for)

    def complete_group(self, request: pb.CompleteGroupRequest, timeout: float) -> pb.CompleteGroupResponse:
        return self._grpc("CompleteGroup", request, timeout)


class TaskDirectory:
    """The tasks of a cluster by name, each with the one way to call it, and their data ports."""

    def __init__(self, cluster, channels: Channels | None = None):
        self.cluster = cluster
        self.channels = channels or Channels()
        self.data = TensorClient()  # RunGraph calls and tensor streams go on the tasks' data paths
        self._tasks: dict[str, Task] = {}
        self._ports: dict[str, int] = {}
        self._stale: set[str] = set()  # tasks that failed a call since they were last asked
        self._local: LocalTask | None = None
        self._lock = threading.Lock()

    def add_local(self, worker) -> None:
        """Makes ``worker`` (this process's own) the task called under its name."""
        address = self.cluster.task_address(worker.job, worker.task)
        with self._lock:
            self._local = self._tasks[worker.task_name] = LocalTask(worker, address, self)
            self._ports[worker.task_name] = worker.transport.port

    def is_local(self, name: str) -> bool:
        return self._local is not None and self._local.name == name

    def task(self, name: str) -> Task:
        """The task named "/job:J/replica:0/task:T" (InvalidArgumentError if the cluster has none)."""
        task = self._tasks.get(name)
        if task is None:
            spec = DeviceSpec.from_string(name)
            try:
                address = self.cluster.task_address(spec.job, spec.task or 0)
            except ValueError:
                raise errors.InvalidArgumentError(None, None, f"no task {name} in the cluster") from None
            with self._lock:
                task = self._tasks.setdefault(name, RemoteTask(name, address, self))
        return task

    def of_device(self, device: str) -> Task:
        """The task that holds ``device``."""
        return self.task(task_name_of(device))

    def names(self, device_filters=(), keep=None) -> list[str]:
        """Every task of the cluster that ``device_filters`` lets a session use (``keep`` always)."""
        out = []
        for job in sorted(self.cluster.jobs):
            for index in self.cluster.task_indices(job):
                name = f"/job:{job}/replica:0/task:{index}"
                if not device_filters or name == keep or any(_matches(name, f) for f in device_filters):
                    out.append(name)
        return out

    # -- what is learned about a task, and forgotten when it fails -------------------
    def learned_port(self, name: str, port: int) -> None:
        with self._lock:
            self._ports[name] = port
            self._stale.discard(name)

    def failed(self, name: str, error: errors.OpError) -> None:
        """A call to ``name`` failed: if the task is gone or restarted, ask it again next time."""
        if isinstance(error, (errors.UnavailableError, errors.AbortedError)) and not self.is_local(name):
            with self._lock:
                self._ports.pop(name, None)
                self._stale.add(name)
            if isinstance(error, errors.UnavailableError):  # (reached again the moment it is back)
                self.channels.renew(self.task(name).address)

    def is_stale(self, name: str) -> bool:
        return name in self._stale

    def data_endpoint(self, name: str, timeout: float) -> tuple[str, int]:
        """(host, port) of a task's data path; asks the task for its port if it is not known."""
        port = self._ports.get(name)
        task = self.task(name)
        if port is None:
            task.status(timeout)
            port = self._ports[name]
        return task.address.rpartition(":")[0], port

    def on_data_port(self, name: str, fn):
        """``fn(host, port)`` on the task's data port. If nothing listens there any more (the
        task restarted, on a new port), once more after asking the task for its port."""
        try:
            return fn(*self.data_endpoint(name, timeout=10.0))
        except PortRefused:
            with self._lock:
                self._ports.pop(name, None)
            return fn(*self.data_endpoint(name, timeout=10.0))

    def data_address(self, name: str) -> str:
        host, port = self.data_endpoint(name, timeout=10.0)
        return f"{host}:{port}"

    def close(self) -> None:
        self.data.close()


def _matches(task_name: str, device_filter: str) -> bool:
    want = DeviceSpec.from_string(device_filter)
    have = DeviceSpec.from_string(task_name)
    return (want.job in (None, have.job)) and (want.task is None or want.task == have.task)

