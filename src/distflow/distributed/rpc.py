"""gRPC plumbing: method tables, status mapping, channels with unlimited message sizes.

Services are registered with generic handlers (no generated stubs): each method is a
function ``request message -> response message``. A distflow OpError becomes a gRPC
status with the same canonical code; a request that does not parse, or whose content
the method cannot use, is INVALID_ARGUMENT naming the message; anything else is INTERNAL.
The server keeps serving.
"""

from __future__ import annotations

import threading

import grpc

from ..framework import errors
from ..protos import distflow_pb2 as pb
from .auth import call_metadata, configured_token
from .tls import configured_tls

# (service, method, request class, response class)
MASTER_METHODS = {
    "CreateSession": (pb.CreateSessionRequest, pb.CreateSessionResponse),
    "ExtendSession": (pb.ExtendSessionRequest, pb.ExtendSessionResponse),
    "RunStep": (pb.RunStepRequest, pb.RunStepResponse),
    "CloseSession": (pb.CloseSessionRequest, pb.CloseSessionResponse),
    "ListDevices": (pb.ListDevicesRequest, pb.ListDevicesResponse),
    "Reset": (pb.ResetRequest, pb.ResetResponse),
}
WORKER_METHODS = {
    "GetStatus": (pb.GetStatusRequest, pb.GetStatusResponse),
    "RegisterGraph": (pb.RegisterGraphRequest, pb.RegisterGraphResponse),
    "DeregisterGraph": (pb.DeregisterGraphRequest, pb.DeregisterGraphResponse),
    "RunGraph": (pb.RunGraphRequest, pb.RunGraphResponse),
    "AbortStep": (pb.AbortStepRequest, pb.AbortStepResponse),
    "ResetContainers": (pb.ResetContainersRequest, pb.ResetContainersResponse),
    "Shutdown": (pb.ShutdownRequest, pb.ShutdownResponse),
    "CompleteGroup": (pb.CompleteGroupRequest, pb.CompleteGroupResponse),
}
SERVICES = {"distflow.Master": MASTER_METHODS, "distflow.Worker": WORKER_METHODS}

# Messages are unbounded (TF 1.x's 4 MB default broke large variables and feeds).
# Reconnecting is tried at least every second: gRPC's default backoff grows with an outage
# (to 2 minutes), so a task that came back after 30 s was reached only 11 s later.
CHANNEL_OPTIONS = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1),
                   ("grpc.initial_reconnect_backoff_ms", 100), ("grpc.min_reconnect_backoff_ms", 100),
                   ("grpc.max_reconnect_backoff_ms", 1000)]

_CODES = {getattr(errors, name): getattr(grpc.StatusCode, name) for name in (
    "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
    "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
    "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED")}
_FROM_GRPC = {v: k for k, v in _CODES.items()}


# The methods that run a step, or wait for other tasks' steps: each holds a server thread
# for as long as it waits, which may be for good (a dequeue, a sync token, a collective
# group whose members never come). Every other method answers at once.
STEP_METHODS = frozenset({"RunStep", "RunGraph", "CompleteGroup"})


class StepCallLimit:
    """At most ``limit`` step calls at once on one server, so that the rest of its gRPC
    threads always answer the other methods (status, sessions, Shutdown): callers that
    leave steps blocked cannot wedge the control plane. A step call over the limit is
    RESOURCE_EXHAUSTED at once rather than queued behind the blocked ones."""

    def __init__(self, limit: int, where: str):
        self.limit = limit
        self._where = where
        self._free = threading.BoundedSemaphore(limit)

    def enter(self, context) -> None:
        if not self._free.acquire(blocking=False):
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                          f"{self._where} is running {self.limit} steps for its callers already, the most it runs "
                          "at once; try again when one has ended")

    def leave(self) -> None:
        self._free.release()


def generic_handler(service: str, methods: dict, impl, steps: StepCallLimit | None = None) -> grpc.GenericRpcHandler:
    handlers = {}
    for name, (request_cls, response_cls) in methods.items():
        # (requests arrive as bytes and are parsed in the handler: a message that does not
        # parse is INVALID_ARGUMENT naming its type, where gRPC's own parsing says INTERNAL)
        handle = _guard(getattr(impl, name), request_cls, response_cls)
        if steps is not None and name in STEP_METHODS:
            handle = _limited(handle, steps)
        handlers[name] = grpc.unary_unary_rpc_method_handler(handle, response_serializer=response_cls.SerializeToString)
    return grpc.method_handlers_generic_handler(service, handlers)


def _limited(handle, steps: StepCallLimit):
    def limited(data, context):
        steps.enter(context)
        try:
            return handle(data, context)
        finally:
            steps.leave()

    return limited


# What a handler raises on a request whose content it cannot use (a dtype enum out of
# range, bytes that are not UTF-8, a wrong type in a field): the caller's error.
_BAD_REQUEST = (ValueError, TypeError, KeyError, IndexError, UnicodeDecodeError, OverflowError)


def _guard(fn, request_cls, response_cls):
    takes_context = getattr(fn, "takes_rpc_context", False)
    kind = request_cls.__name__

    def handle(data, context):
        try:
            request = request_cls.FromString(data)
        except Exception as e:  # noqa: BLE001 - protobuf's DecodeError and whatever its parser raises
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"malformed {kind}: {e}")
        try:
            return fn(request, context) if takes_context else fn(request)
        except errors.OpError as e:
            context.abort(_CODES.get(e.error_code, grpc.StatusCode.UNKNOWN), e.message)
        except _BAD_REQUEST as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"cannot use this {kind}: {type(e).__name__}: {e}")
        except Exception as e:  # noqa: BLE001 - a server never dies of a request
            context.abort(grpc.StatusCode.INTERNAL, f"{type(e).__name__}: {e}")
        return response_cls()

    return handle


def takes_rpc_context(method):
    """Marks a service method that wants the gRPC context too (to learn when its caller goes away)."""
    method.takes_rpc_context = True
    return method


def error_from_rpc(e: grpc.RpcError, what: str) -> errors.OpError:
    """A failed call as the OpError of its code, naming the peer."""
    code = e.code() if hasattr(e, "code") else grpc.StatusCode.UNKNOWN
    cls = errors.exception_type_from_error_code(_FROM_GRPC.get(code, errors.UNKNOWN))
    details = e.details() if hasattr(e, "details") else str(e)
    if code == grpc.StatusCode.UNAVAILABLE:
        return cls(None, None, f"{what} is unavailable: {details}")
    return cls(None, None, details if what in (details or "") else f"{details} (from {what})")


class Channels:
    """One channel per address; ``call(address, service, method, request, timeout)``.

    Every call carries ``token``, by default this process's (auth.py), if it has one;
    channels are TLS when this process has a TLS CA (tls.py)."""

    def __init__(self, token: bytes | None = None):
        self._channels: dict[str, grpc.Channel] = {}
        self._calls: dict[tuple, object] = {}
        self._lock = threading.Lock()
        self._metadata = call_metadata(token if token is not None else configured_token())
        tls = configured_tls()
        self._credentials = tls.channel_credentials() if tls is not None and tls.connects else None

    def call(self, address: str, service: str, method: str, request, timeout: float | None = None,
             wait_for_ready: bool = False):
        return self._stub(address, service, method, request)(request, timeout=timeout, wait_for_ready=wait_for_ready,
                                                             metadata=self._metadata)

    def future(self, address: str, service: str, method: str, request, timeout: float | None = None):
        """Starts the call and returns at once; ``.result()`` waits for the response."""
        return self._stub(address, service, method, request).future(request, timeout=timeout,
                                                                    metadata=self._metadata)

    def _stub(self, address: str, service: str, method: str, request):
        key = (address, service, method)
        stub = self._calls.get(key)
        if stub is None:
            with self._lock:
                channel = self._channels.get(address)
                if channel is None:
                    channel = self._channels[address] = (
                        grpc.insecure_channel(address, options=CHANNEL_OPTIONS) if self._credentials is None
                        else grpc.secure_channel(address, self._credentials, options=CHANNEL_OPTIONS))
                response_cls = SERVICES[service][method][1]
                stub = self._calls[key] = channel.unary_unary(
                    f"/{service}/{method}", request_serializer=type(request).SerializeToString,
                    response_deserializer=response_cls.FromString)
        return stub

    def renew(self, address: str) -> None:
        """The next call to ``address`` takes a new channel, which connects at once: a channel
        whose peer was down waits out its reconnect backoff before it tries again. Calls in
        flight keep the old one, which closes when the last of them lets go of it."""
        with self._lock:
            self._channels.pop(address, None)
            for key in [k for k in self._calls if k[0] == address]:
                del self._calls[key]

    def close(self) -> None:
        with self._lock:
            for channel in self._channels.values():
                channel.close()
            self._channels.clear()
            self._calls.clear()
