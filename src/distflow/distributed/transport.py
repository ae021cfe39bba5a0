"""The tensor data path between workers: raw bytes over plain TCP sockets.

gRPC in Python copies a tensor's bytes about six times on each side; this path
copies them once into the socket and once out of it (``sendall`` of the array's own
memory, ``recv_into`` a fresh array). The control plane stays on gRPC: a worker
advertises its data port in GetStatus, and a receiver asks the sender, in one request,
for every tensor of a step that one of its partitions receives from that sender, in the
order the partition needs them; they come back one response each, in that order, on
the same connection. (One request instead of one per tensor: on a 2-core VM each
extra serving and receiving thread woken per step cost 0.1-0.7 ms.) Asking in the
partition's order cannot deadlock: a receiver's partition runs in one global
topological order, so what it needs first never waits on what it needs later.

Frames (little-endian):
  request:  "DFT1" | step_id u64 | timeout_ms u32 | keys_len u32 | keys (utf-8, "\n" between keys)
  response: "DFT1" | code u8 | msg_len u32 | dtype u32 | ndim u8 | nbytes u64 |
            msg | dims (ndim x i64) | payload
A numeric tensor's payload is its bytes; a string tensor's is a serialized TensorProto.
Every length is bounded; a malformed frame closes that connection and nothing else.
Nothing is ever unpickled.
"""

from __future__ import annotations

import logging
import socket
import struct
import threading

import numpy as np

from ..framework import dtypes, errors
from . import wire
from .protos import distflow_pb2 as pb

MAGIC = b"DFT1"
_REQUEST = struct.Struct("<4sQII")
_RESPONSE = struct.Struct("<4sBIIBQ")
MAX_KEY = 4096
MAX_KEYS = 1024  # tensors in one request
MAX_MESSAGE = 65536
MAX_RANK = 32
_SMALL_BYTES = 65536
_log = logging.getLogger("distflow")


class FrameError(Exception):
    """A peer sent bytes that are not a frame: the connection is closed."""


_WAIT_ALL = getattr(socket, "MSG_WAITALL", 0)


def _fill(sock: socket.socket, view: memoryview) -> None:
    """Reads exactly len(view) bytes into ``view``.

    On a blocking socket MSG_WAITALL makes this one system call, and one release of the
    GIL, for a whole tensor; reading it piecemeal (what a socket with a Python timeout
    does, waiting in poll() before every piece) let six concurrent receives of a 2.7 MB
    step run at a quarter of loopback speed.
    """
    got, n = 0, len(view)
    while got < n:
        k = sock.recv_into(view[got:], n - got, _WAIT_ALL)
        if not k:
            raise ConnectionError("connection closed by the peer")
        got += k


def _recv_exact(sock: socket.socket, n: int) -> bytearray:
    buf = bytearray(n)
    _fill(sock, memoryview(buf))
    return buf


def _recv_into(sock: socket.socket, arr: np.ndarray) -> None:
    if arr.nbytes:
        _fill(sock, memoryview(arr).cast("B"))


class TensorServer:
    """Serves ``handler(step_id, key, timeout) -> array`` on a TCP port of ``host``."""

    def __init__(self, host: str, handler):
        self._handler = handler
        self._sock = socket.create_server((host, 0))
        self.port = self._sock.getsockname()[1]
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name=f"distflow-data-{self.port}").start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            while True:
                try:
                    head = _recv_exact(conn, _REQUEST.size)
                except ConnectionError:
                    return
                magic, step_id, timeout_ms, keys_len = _REQUEST.unpack(head)
                if magic != MAGIC or keys_len > MAX_KEY * MAX_KEYS:
                    raise FrameError(f"bad request frame (magic {bytes(magic)!r}, keys of {keys_len} bytes)")
                try:
                    keys = _recv_exact(conn, keys_len).decode().split("\n")
                except UnicodeDecodeError:
                    raise FrameError("the keys are not UTF-8") from None
                if len(keys) > MAX_KEYS or max(map(len, keys)) > MAX_KEY:
                    raise FrameError(f"bad request frame ({len(keys)} keys, longest {max(map(len, keys))} bytes)")
                for key in keys:
                    self._serve_one(conn, step_id, tuple(key.split(";")), timeout_ms)
        except (FrameError, OSError, struct.error) as e:
            _log.warning("closing a data connection: %s", e)
        finally:
            conn.close()

    def _serve_one(self, conn: socket.socket, step_id: int, key: tuple, timeout_ms: int) -> None:
        """Sends the value of ``key``, or an error frame saying why there is none."""
        try:
            if len(key) != 3 or not all(key):
                raise errors.InvalidArgumentError(None, None, f"bad rendezvous key {';'.join(key)!r}")
            value = self._handler(step_id, key, timeout_ms / 1000.0 if timeout_ms else None)
        except errors.OpError as e:
            self._send_error(conn, e.error_code, e.message)
            return
        except Exception as e:  # noqa: BLE001 - reported to the receiver, never fatal here
            self._send_error(conn, errors.INTERNAL, f"{type(e).__name__}: {e}")
            return
        self._send_value(conn, value)

    @staticmethod
    def _send_error(conn: socket.socket, code: int, message: str) -> None:
        msg = message.encode()[:MAX_MESSAGE]
        conn.sendall(_RESPONSE.pack(MAGIC, code, len(msg), 0, 0, 0) + msg)

    @staticmethod
    def _send_value(conn: socket.socket, value) -> None:
        arr = np.asarray(value)
        if arr.dtype.kind in "USO":
            payload = wire.tensor_to_proto(arr).SerializeToString()
            conn.sendall(_RESPONSE.pack(MAGIC, 0, 0, pb.DT_STRING, 0, len(payload)) + payload)
            return
        if not arr.flags.c_contiguous:  # (np.ascontiguousarray would make a scalar 1-D)
            arr = arr.copy()
        if arr.dtype.byteorder == ">":
            arr = arr.astype(arr.dtype.newbyteorder("<"))
        dtype = dtypes.as_dtype(arr.dtype)
        head = _RESPONSE.pack(MAGIC, 0, 0, dtype.as_datatype_enum, arr.ndim, arr.nbytes) \
            + struct.pack(f"<{arr.ndim}q", *arr.shape)
        if arr.nbytes <= _SMALL_BYTES:  # one system call for a small tensor
            conn.sendall(head + arr.tobytes())
            return
        conn.sendall(head)
        conn.sendall(memoryview(arr).cast("B"))

    def close(self) -> None:
        self._closed = True
        try:
            self._sock.close()
        except OSError:
            pass


def _set_timeout(sock: socket.socket, timeout: float | None) -> None:
    """Keeps ``sock`` blocking (see _fill) and bounds each send and receive by ``timeout``."""
    sock.settimeout(None)
    seconds = max(0.0, timeout or 0.0)
    if timeout is not None and seconds == 0.0:
        seconds = 1e-6  # already past the deadline: fail at once rather than never
    tv = struct.pack("ll", int(seconds), int((seconds % 1) * 1e6))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)


class TensorClient:
    """Fetches tensors from TensorServers, keeping idle connections per address."""

    def __init__(self):
        self._idle: dict[tuple[str, int], list[socket.socket]] = {}
        self._lock = threading.Lock()

    def fetch(self, host: str, port: int, step_id: int, key: tuple, timeout: float | None, peer: str):
        """The tensor ``key`` of step ``step_id``; errors name ``peer``."""
        return self.open_stream(host, port, step_id, [key], timeout, peer).get(key)

    def open_stream(self, host: str, port: int, step_id: int, keys: list[tuple], timeout: float | None,
                    peer: str) -> "TensorStream":
        """Asks for ``keys`` of step ``step_id`` now; their values are read later, in that
        order, by whoever needs them (TensorStream.get), with no thread in between."""
        address = (host, port)
        with self._lock:
            pool = self._idle.get(address)
            sock = pool.pop() if pool else None
        try:
            if sock is None:
                sock = socket.create_connection(address, timeout=10.0)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            _set_timeout(sock, timeout)
            keys_bytes = "\n".join(";".join(key) for key in keys).encode()
            sock.sendall(_REQUEST.pack(MAGIC, step_id, int((timeout or 0) * 1000), len(keys_bytes)) + keys_bytes)
        except OSError as e:
            _close(sock)
            raise errors.UnavailableError(None, None, f"{peer} is unavailable: {e}") from None
        return TensorStream(self, address, sock, keys, peer)

    @staticmethod
    def _receive(sock: socket.socket, peer: str):
        """One response frame: (value, None), or (None, the error the sender reported)."""
        magic, code, msg_len, dtype_enum, ndim, nbytes = _RESPONSE.unpack(_recv_exact(sock, _RESPONSE.size))
        if magic != MAGIC or msg_len > MAX_MESSAGE or ndim > MAX_RANK or nbytes > wire.MAX_TENSOR_BYTES:
            raise FrameError(f"bad response frame from {peer}")
        if code:
            message = _recv_exact(sock, msg_len).decode(errors="replace")
            return None, errors.exception_type_from_error_code(code)(None, None, message)
        dims = struct.unpack(f"<{ndim}q", _recv_exact(sock, 8 * ndim)) if ndim else ()
        if dtype_enum == pb.DT_STRING:
            return wire.tensor_from_proto(pb.TensorProto.FromString(bytes(_recv_exact(sock, nbytes)))), None
        dtype = np.dtype(dtypes.as_dtype(int(dtype_enum)).as_numpy_dtype)
        if int(np.prod(dims, dtype=np.int64)) * dtype.itemsize != nbytes or min(dims, default=0) < 0:
            raise FrameError(f"inconsistent tensor frame from {peer}")
        value = np.empty(dims, dtype=dtype)
        _recv_into(sock, value)
        return value, None

    def _release(self, address, sock) -> None:
        with self._lock:
            self._idle.setdefault(address, []).append(sock)

    def close(self) -> None:
        with self._lock:
            for pool in self._idle.values():
                for sock in pool:
                    _close(sock)
            self._idle.clear()


class TensorStream:
    """The tensors of one step that one sender sends one receiving partition, in order.

    The partition's own thread reads each when it needs it (``get``), straight from the
    socket: no receiving thread, no hand-off. ``abort`` (from any thread) wakes a reader
    blocked here and fails what is left.
    """

    def __init__(self, client: TensorClient, address, sock: socket.socket, keys: list[tuple], peer: str):
        self._client, self._address, self._sock, self._peer = client, address, sock, peer
        self._keys = keys
        self._next = 0
        self._early: dict = {}  # read on the way to a later key
        self._error: BaseException | None = None
        self._lock = threading.Lock()

    def get(self, key: tuple):
        """The value of ``key`` (one of this stream's), reading up to it; raises its error."""
        with self._lock:
            if key in self._early:
                value, error = self._early.pop(key)
            else:
                value, error = self._read_until(key)
        if error is not None:
            raise error
        return value

    def _read_until(self, key: tuple):
        while self._error is None and self._next < len(self._keys):
            k = self._keys[self._next]
            try:
                got = TensorClient._receive(self._sock, self._peer)
            except (socket.timeout, BlockingIOError):  # BlockingIOError: SO_RCVTIMEO ran out
                self._fail(errors.DeadlineExceededError(None, None, f"timed out receiving '{k[2]}' from {self._peer}"))
                break
            except (OSError, ConnectionError, FrameError, struct.error, TypeError) as e:
                self._fail(errors.UnavailableError(None, None, f"{self._peer} is unavailable: {e}"))
                break
            self._next += 1
            if self._next == len(self._keys):
                self._client._release(self._address, self._sock)
            if k == key:
                return got
            self._early[k] = got
        if self._error is not None:
            _close(self._sock)
            return None, self._error
        raise KeyError(f"{key} is not a tensor of this stream")

    def _fail(self, error: BaseException) -> None:
        if self._error is None:  # (an abort that woke the reader keeps its own reason)
            self._error = error

    def abort(self, error: BaseException) -> None:
        """Fails every value not yet read with ``error``, waking a reader blocked on the socket."""
        if self._error is None and self._next < len(self._keys):
            self._error = error
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _close(sock) -> None:
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass
