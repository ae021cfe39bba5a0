"""The client side of ``tf.Session("grpc://host:port")``: steps run by a server's master."""

from __future__ import annotations

import logging
import time

from ..framework import dtypes, errors, ops, wire
from ..framework.device_spec import DeviceSpec
from ..framework.ops import Operation
from ..ops import session_ops
from ..ops.op_util import make_tensor
from ..runtime.session import BaseSession, check_outside_functions
from ..protos import distflow_pb2 as pb
from .cluster_spec import ClusterSpec
from .master import SESSION_NOT_FOUND
from .rpc import Channels, error_from_rpc
from .server import local_master
from .task import Parked
from .tls import why_unreachable
from .transport import TensorClient


_log = logging.getLogger("distflow")
WAIT_LOG_S = 10.0  # how often a session waiting for its master says so


class _RemoteMaster:
    """A master in another process: every call is a gRPC call, feeds and fetches are protos."""

    def __init__(self, address: str):
        self.address = address
        self._channels = Channels()

    def call(self, method: str, request, timeout=None):
        try:
            return self._channels.call(self.address, "distflow.Master", method, request, timeout=timeout,
                                       wait_for_ready=method == "CreateSession")
        except Exception as e:  # grpc.RpcError
            raise error_from_rpc(e, f"the master at {self.address}") from None

    def run_step(self, handle: str, feed_names: tuple, feeds: list, fetch: tuple, target: tuple,
                 timeout_in_ms: int, metadata: dict | None = None) -> tuple[int, list]:
        asked = metadata or {}
        request = pb.RunStepRequest(session_handle=handle, accept_parked=True, timeout_in_ms=timeout_in_ms,
                                    fetch=fetch, target=target, trace=bool(asked.get("trace")),
                                    output_partition_graphs=bool(asked.get("graphs")))
        for name, value in zip(feed_names, feeds):
            wire.fill_tensor_proto(request.feed.add(name=name).tensor, value)
        response = self.call("RunStep", request, timeout=timeout_in_ms / 1000.0 + 5.0 if timeout_in_ms else None)
        if metadata is not None:
            if response.HasField("step_stats"):
                metadata["step_stats"] = response.step_stats
            metadata["partition_graphs"] = list(response.partition_graph)
        return response.step_id, [Parked(t.name, t.task, t.data_address) if t.parked else
                                  wire.tensor_from_proto(t.tensor, writable=True) for t in response.tensor]

    def close(self) -> None:
        self._channels.close()


class _InProcessMaster:
    """The master of a server in this process: direct calls, arrays in and out, no protos."""

    def __init__(self, address: str):
        self.address = address

    def _master(self):
        master = local_master(self.address)
        if master is None:
            raise errors.UnavailableError(None, None, f"the master at {self.address} is unavailable: "
                                          "its server in this process was stopped")
        return master

    def call(self, method: str, request, timeout=None):
        return getattr(self._master(), method)(request)

    def run_step(self, handle: str, feed_names: tuple, feeds: list, fetch: tuple, target: tuple,
                 timeout_in_ms: int, metadata: dict | None = None) -> tuple[int, list]:
        return self._master().run_step(handle, feed_names, feeds, fetch, target, timeout_in_ms, accept_parked=True,
                                       metadata=metadata)

    def close(self) -> None:
        pass


class GrpcSession(BaseSession):
    """A session whose graph lives on a master; only new nodes are sent before each step.

    The master is called directly when its server is in this process, over gRPC otherwise;
    the choice is made once, when the session is created.
    """

    def __init__(self, target: str, graph=None, config=None):
        super().__init__(target, graph, config)
        if not target.startswith("grpc://"):
            raise errors.InvalidArgumentError(None, None, f"Session target {target!r}: expected grpc://host:port")
        address = target[len("grpc://"):]
        self._master = _InProcessMaster(address) if local_master(address) is not None else _RemoteMaster(address)
        self._transport = TensorClient()
        self._handle: str | None = None
        self._sent = 0  # how many of the graph's ops the master has
        # persistent tensors this session made and has not deleted, those whose TensorHandles
        # were collected (deleted before the next step), and the session that reads and
        # deletes them, with a graph of its own (this one's is the program's)
        self._kept: set[str] = set()
        self._dead: list[str] = []
        self._moved: list[str] = []  # (copies made for this step's feeds: deleted after it)
        self._handles_session: GrpcSession | None = None

    def _call(self, method: str, request, timeout=None):
        return self._master.call(method, request, timeout)

    def _create_session(self, request, wait: float):
        """CreateSession, waiting up to ``wait`` seconds for the master to answer, and saying
        every WAIT_LOG_S that it waits (and why it cannot reach it), as a task waiting for
        another does."""
        start = time.monotonic()
        while True:
            left = wait - (time.monotonic() - start)
            try:
                return self._call("CreateSession", request, timeout=max(0.001, min(left, WAIT_LOG_S)))
            except errors.DeadlineExceededError:
                waited = time.monotonic() - start
                why = why_unreachable(self._master.address)
                if waited >= wait - 1e-3:
                    raise errors.UnavailableError(
                        None, None, f"the master at {self._master.address} did not answer within {wait:g} s: "
                        + (why or "it is there but did not answer (busy?)")) from None
                _log.warning("waiting for the master at %s: %.1f s so far, giving up after %g s (%s)",
                             self._master.address, waited, wait, why or "it is there but does not answer yet")

    def _sync_graph(self, timeout: float | None = None) -> None:
        ops_now = self._graph.get_operations()
        if self._handle is not None and len(ops_now) == self._sent:
            return
        delta = wire.graph_to_proto(ops_now[self._sent:])
        if self._handle is None:
            options = pb.SessionOptions(device_filters=list(self._config.device_filters),
                                        allow_soft_placement=self._config.allow_soft_placement,
                                        isolate_session_state=bool(self._config.isolate_session_state))
            named = getattr(self._config, "cluster_def", None)
            named = ClusterSpec(named) if named is not None else None
            if named:
                options.cluster_def.CopyFrom(named.as_cluster_def())
            # A master not up yet is waited for, but only as long as the config's connect
            # timeout (or the step's, if shorter): a target where nothing listens fails then.
            wait = self._config.connect_timeout_in_ms / 1000.0
            wait = min(wait, timeout) if timeout is not None else wait
            response = self._create_session(pb.CreateSessionRequest(graph_def=delta, options=options), wait)
            self._handle = response.session_handle
        else:
            self._call("ExtendSession", pb.ExtendSessionRequest(session_handle=self._handle, graph_def=delta))
        self._sent = len(ops_now)

    def _run_step(self, elements: tuple, feed_tensors: tuple, feed_values: list, timeout, trace=None,
                  metadata=None) -> list:
        """The step on the cluster; ``metadata`` (a dict asking for "trace" and "graphs") gets
        every task's kernel times and partitions ("step_stats", "partition_graphs")."""
        check_outside_functions(elements, feed_tensors)
        timeout_in_ms = 0 if timeout is None else max(1, int(timeout * 1000))
        fetch = tuple(el.name for el in elements if not isinstance(el, Operation))
        target = tuple(el.name for el in elements if isinstance(el, Operation))
        feed_names = tuple(t.name for t in feed_tensors)

        if self._dead:
            self._delete_dead_handles()

        def run():
            self._sync_graph(timeout)
            return self._master.run_step(self._handle, feed_names, feed_values, fetch, target, timeout_in_ms,
                                         metadata)

        try:
            step_id, values = run()
        except errors.AbortedError as e:
            if SESSION_NOT_FOUND not in e.message:
                raise
            # The master closed this session (unused too long) or restarted; nothing of the
            # step ran. A new session with the whole graph runs it (variables live on their
            # tasks, not in the session, unless isolate_session_state kept them there).
            self._handle, self._sent = None, 0
            step_id, values = run()
        finally:
            if self._moved:
                self._dead.extend(self._moved)
                self._moved = []
        values = iter([self._parked(step_id, v, timeout) if isinstance(v, Parked) else v for v in values])
        out = [None if isinstance(el, Operation) else next(values) for el in elements]
        for el, value in zip(elements, out):
            if isinstance(el, ops.Tensor) and el.op.type in session_ops.HANDLE_OPS:
                self._kept.add(session_ops.handle_text(value))
        return out

    def _fill_run_metadata(self, run_metadata, elements, feed_tensors, trace, metadata=None) -> None:
        """What the tasks sent back: the step's partition graphs and, traced, its step_stats."""
        metadata = metadata or {}
        run_metadata.partition_graphs = metadata.get("partition_graphs", [])
        if "step_stats" in metadata:
            run_metadata.step_stats = metadata["step_stats"]

    def _parked(self, step_id: int, named, timeout):
        """A large fetched tensor, straight from the task that holds it (one copy each way)."""
        host, _, port = named.data_address.rpartition(":")
        return self._transport.fetch(host, int(port), step_id, (named.task, "client", named.name), timeout,
                                     f"task {named.task} ({named.data_address})")

    def list_devices(self) -> list:
        from ..runtime.session import DeviceAttributes  # noqa: PLC0415

        response = self._call("ListDevices", pb.ListDevicesRequest(session_handle=self._handle or ""))
        return [DeviceAttributes(d.name, d.device_type) for d in response.remote_device]

    # -- persistent tensors: they live on the tasks that made them -----------------------
    def _handles(self) -> "GrpcSession":
        if self._handles_session is None:
            self._handles_session = GrpcSession(self._target, ops.Graph(), self._config)
            self._handle_ops: dict = {}
        return self._handles_session

    def _handle_op(self, kind: str, handle: str, dtype=None):
        """(placeholder, op) of the handles session that reads (``dtype``) or deletes the
        tensors of ``handle``'s device, made once."""
        session = self._handles()
        device = session_ops.handle_device(handle)
        key = (kind, device, dtype)
        found = self._handle_ops.get(key)
        if found is None:
            with session.graph.as_default():
                if kind == "read":
                    found = session_ops.get_session_tensor(handle, dtype)
                else:
                    found = session_ops.delete_session_tensor(handle)
            self._handle_ops[key] = found
        return found

    def _handle_for(self, handle: str, dtype, device: str) -> str:
        """``handle`` as fed to a reader on ``device``: a reader reads its own task's tensors,
        so one of another task's is first copied to ``device`` (for this step only)."""
        held_by = session_ops.handle_device(handle)
        if not device or _task(device) == _task(held_by):
            return handle
        key = ("move", held_by, device, dtype)
        found = self._handle_ops.get(key) if self._handles_session is not None else None
        if found is None:
            holder, reader = self._handle_op("read", handle, dtype)
            with self._handles().graph.as_default(), ops.device(device):
                mover = make_tensor("GetSessionHandle", [reader], {"T": dtype})  # (on device: not with reader)
                found = self._handle_ops[key] = (holder, mover)
        holder, mover = found
        moved = session_ops.handle_text(self._handles()._run_step((mover,), (holder,), [handle], None)[0])
        self._moved.append(moved)
        return moved

    def _session_tensor_value(self, handle: str, dtype):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        holder, reader = self._handle_op("read", handle, dtypes.as_dtype(dtype))
        return self._handles().run(reader, {holder: handle})

    def _delete_session_tensor(self, handle: str) -> None:
        if self._closed:
            return
        self._kept.discard(handle)
        holder, deleter = self._handle_op("delete", handle)
        self._handles().run(deleter, {holder: handle})

    def _register_dead_handle(self, handle: str) -> None:
        """A TensorHandle was garbage collected: its tensor is deleted before the next step
        (not here: a finalizer runs at any time, in any thread)."""
        if not self._closed:
            self._dead.append(handle)

    def _delete_dead_handles(self) -> None:
        dead, self._dead = self._dead, []
        for handle in dead:
            try:
                self._delete_session_tensor(handle)
            except errors.OpError as e:  # (gone already: the task restarted)
                _log.debug("could not delete the persistent tensor %s: %s", handle, e)

    def close(self) -> None:
        if not self._closed and self._kept:
            self._dead = list(self._kept)  # (what the session kept goes with it, as a local one's)
            try:
                self._delete_dead_handles()
            except errors.OpError:
                pass  # the master is gone: nothing to release
        if self._handles_session is not None:
            self._handles_session.close()
        if not self._closed and self._handle is not None:
            try:
                self._call("CloseSession", pb.CloseSessionRequest(session_handle=self._handle), timeout=10.0)
            except errors.OpError:
                pass  # the master is gone: nothing to release
        if not self._closed:
            self._master.close()
            self._transport.close()
        super().close()


def _task(device: str) -> tuple:
    spec = DeviceSpec.from_string(device)
    return spec.job, spec.task or 0


def new_session(target: str, graph=None, config=None) -> GrpcSession:
    return GrpcSession(target, graph, config)


def reset(target, containers=None, config=None):
    if not target.startswith("grpc://"):
        raise errors.InvalidArgumentError(None, None, f"Session.reset target {target!r}: expected grpc://host:port")
    timeout_ms = getattr(config, "operation_timeout_in_ms", 0) or 60000
    channels = Channels()
    try:  # (waits for the master to come up until the deadline, then DEADLINE_EXCEEDED)
        channels.call(target[len("grpc://"):], "distflow.Master", "Reset",
                      pb.ResetRequest(container=list(containers or [])), timeout=timeout_ms / 1000,
                      wait_for_ready=True)
    except Exception as e:  # grpc.RpcError
        raise error_from_rpc(e, f"the master at {target}") from None
    finally:
        channels.close()
