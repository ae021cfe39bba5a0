"""The client side of ``tf.Session("grpc://host:port")``: steps run by a server's master."""

from __future__ import annotations

from ..framework import errors, wire
from ..framework.ops import Operation
from ..runtime.session import BaseSession, register_remote_session
from ..protos import distflow_pb2 as pb
from .rpc import Channels, error_from_rpc
from .master import Parked
from .server import local_master
from .transport import TensorClient


class GrpcSession(BaseSession):
    """A session whose graph lives on a master; only new nodes are sent before each step."""

    def __init__(self, target: str, graph=None, config=None):
        super().__init__(target, graph, config)
        if not target.startswith("grpc://"):
            raise errors.InvalidArgumentError(None, None, f"Session target {target!r}: expected grpc://host:port")
        self._address = target[len("grpc://"):]
        self._channels = Channels()
        self._transport = TensorClient()
        self._handle: str | None = None
        self._sent = 0  # how many of the graph's ops the master has

    def _call(self, method: str, request, timeout=None):
        master = local_master(self._address)
        if master is not None:  # a server of this process: call its master directly
            return getattr(master, method)(request)
        try:
            return self._channels.call(self._address, "distflow.Master", method, request, timeout=timeout,
                                       wait_for_ready=method == "CreateSession")
        except Exception as e:  # grpc.RpcError
            raise error_from_rpc(e, f"the master at {self._address}") from None

    def _sync_graph(self) -> None:
        ops_now = self._graph.get_operations()
        if self._handle is not None and len(ops_now) == self._sent:
            return
        delta = wire.graph_to_proto(ops_now[self._sent:])
        if self._handle is None:
            options = pb.SessionOptions(device_filters=list(self._config.device_filters),
                                        allow_soft_placement=self._config.allow_soft_placement,
                                        isolate_session_state=bool(self._config.isolate_session_state))
            response = self._call("CreateSession", pb.CreateSessionRequest(graph_def=delta, options=options),
                                  timeout=120.0)
            self._handle = response.session_handle
        else:
            self._call("ExtendSession", pb.ExtendSessionRequest(session_handle=self._handle, graph_def=delta))
        self._sent = len(ops_now)

    def _run_step(self, elements: tuple, feed_tensors: tuple, feed_values: list, timeout) -> list:
        self._sync_graph()
        timeout_in_ms = 0 if timeout is None else max(1, int(timeout * 1000))
        master = local_master(self._address)
        if master is not None:  # a server of this process: arrays straight to its master, no protos
            fetch = tuple(el.name for el in elements if not isinstance(el, Operation))
            target = tuple(el.name for el in elements if isinstance(el, Operation))
            step_id, values = master.run_step(self._handle, tuple(t.name for t in feed_tensors), feed_values,
                                              fetch, target, timeout_in_ms, accept_parked=True)
            values = iter([self._parked(step_id, v, timeout) if isinstance(v, Parked) else v for v in values])
            return [None if isinstance(el, Operation) else next(values) for el in elements]
        request = pb.RunStepRequest(session_handle=self._handle, accept_parked=True, timeout_in_ms=timeout_in_ms)
        for t, value in zip(feed_tensors, feed_values):
            wire.fill_tensor_proto(request.feed.add(name=t.name).tensor, value)
        positions = []
        for el in elements:
            if isinstance(el, Operation):
                request.target.append(el.name)
                positions.append(None)
            else:
                positions.append(len(request.fetch))
                request.fetch.append(el.name)
        response = self._call("RunStep", request, timeout=None if timeout is None else timeout + 5.0)
        values = [self._parked(response.step_id, t, timeout) if t.parked else
                  wire.tensor_from_proto(t.tensor, writable=True) for t in response.tensor]
        return [None if p is None else values[p] for p in positions]

    def _parked(self, step_id: int, named, timeout):
        """A large fetched tensor, straight from the task that holds it (one copy each way)."""
        host, _, port = named.data_address.rpartition(":")
        return self._transport.fetch(host, int(port), step_id, (named.task, "client", named.name), timeout,
                                     f"task {named.task} ({named.data_address})")

    def list_devices(self) -> list:
        from ..runtime.session import _DeviceAttributes  # noqa: PLC0415

        response = self._call("ListDevices", pb.ListDevicesRequest(session_handle=self._handle or ""))
        return [_DeviceAttributes(d.name, d.device_type) for d in response.remote_device]

    def close(self) -> None:
        if not self._closed and self._handle is not None:
            try:
                self._call("CloseSession", pb.CloseSessionRequest(session_handle=self._handle), timeout=10.0)
            except errors.OpError:
                pass  # the master is gone: nothing to release
        if not self._closed:
            self._channels.close()
            self._transport.close()
        super().close()


def _factory(target, graph, config):
    return GrpcSession(target, graph, config)


def _reset(target, containers=None, config=None):
    if not target.startswith("grpc://"):
        raise errors.InvalidArgumentError(None, None, f"Session.reset target {target!r}: expected grpc://host:port")
    channels = Channels()
    try:
        channels.call(target[len("grpc://"):], "distflow.Master", "Reset",
                      pb.ResetRequest(container=list(containers or [])), timeout=60.0)
    except Exception as e:  # grpc.RpcError
        raise error_from_rpc(e, f"the master at {target}") from None
    finally:
        channels.close()


_factory.reset = _reset
register_remote_session(_factory)
