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
A numeric tensor's payload is its bytes; a string tensor's is a serialized TensorProto;
a control edge's token (no value) is dtype 0 (DT_INVALID) with no dims and no payload.
Between tasks of one host (a loopback address) the request says "DFS1" instead, and a
large tensor's response says "DFS1" too, carries "<segment name>:<offset>" of the sender's
shared-memory segment as its msg and no payload; the receiver copies the tensor out of the
segment, or uses it where it lies (``TensorStream.get``'s ``use``), and then answers one
byte, ACK (shm.py); or NAK if it cannot map the segment (another user's process, another
/dev/shm), and the sender sends that tensor and all later ones of the connection on the
socket. A sender has at most two tensors of a segment unanswered, and receivers answer in
the order the tensors came.

The same connections carry a step's RunGraph calls, which gRPC in Python would add
about 0.6 ms to each way (measured on a 2-core VM: a third of a small step's latency):
  call:   "DFC1" | nbytes u64 | 0 u32 | 0 u32 | a serialized RunGraphRequest
  answer: a response frame with magic "DFC1": code 0 and nbytes of serialized
          RunGraphResponse, or the error's code and message.
While a call runs, the server watches its connection (epoll, on Linux): a caller that
goes away (its process died) gets its step aborted here, as a gRPC context would.
Every connection starts with the client's hello, which carries the cluster's token
(auth.py; empty when the client has none):
  hello:  "DFA1" | token_len u32 | token        answer: ACK, or NAK and the server closes
A server with a token reads the hello, at most MAX_TOKEN bytes of it, before anything
else, and refuses a missing or wrong token. Until its hello is accepted a connection
costs one descriptor and no thread (the server reads hellos, and does TLS handshakes,
without blocking, on one thread); it must be accepted within HELLO_TIMEOUT_S of its
accept, the whole of it, however its bytes trickle in; and such connections have their
own budget, so that they cannot crowd out the cluster's own (TensorServer).
Every length is bounded; a malformed frame closes that connection and nothing else.
Nothing is ever unpickled. A connection holds a server thread only while it is busy
(TensorServer says how idle ones wait, and when they are closed).
"""

from __future__ import annotations

import errno
import functools
import logging
import math
import select
import selectors
import socket
import ssl
import struct
import threading
import time

import numpy as np

from ..framework import dtypes, errors, wire
from ..protos import distflow_pb2 as pb
from . import shm
from .auth import MAX_TOKEN, TOKEN_ENV, TOKEN_FILE_ENV, configured_token, matches
from .tls import configured_tls

MAGIC = b"DFT1"
HELLO_MAGIC = b"DFA1"
_HELLO = struct.Struct("<4sI")
HELLO_TIMEOUT_S = 10.0
SHM_MAGIC = b"DFS1"
CALL_MAGIC = b"DFC1"
MAX_CALL_BYTES = 1 << 34  # a sanity bound on a declared call size (a RunGraph with its feeds)
ACK, NAK = b"\x06", b"\x15"
_REQUEST = struct.Struct("<4sQII")
_RESPONSE = struct.Struct("<4sBIIBQ")
MAX_KEY = 4096
MAX_KEYS = 1024  # tensors in one request
MAX_MESSAGE = 65536
MAX_RANK = 32
_SMALL_BYTES = 65536
# How a server holds connections (TensorServer): a busy one keeps its thread while its
# requests come within LINGER_S of each other; an idle one waits in a selector, and is
# closed after IDLE_TIMEOUT_S (clients stop reusing theirs after half of that).
LINGER_S = 2.0
IDLE_TIMEOUT_S = 600.0
PARKING_POLL_S = 1.0
FRAME_TIMEOUT_S = 60.0  # for the whole of a request's header and keys, from its first bytes
# A call's payload may take longer, in proportion to its size: FRAME_TIMEOUT_S plus one
# second for every MIN_CALL_BYTES_PER_S bytes.
MIN_CALL_BYTES_PER_S = 1 << 20
MAX_CONNECTIONS_PER_PEER = 512  # accepted (greeted) connections of one peer host
# Connections whose hello is not yet accepted, from all peers together. Past this, the
# oldest of them is closed to make room: a client of the cluster sends its hello with
# its first request, so it is through long before a silent connection is the oldest.
MAX_UNGREETED = 64
_OUT_OF_RESOURCES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
_log = logging.getLogger("distflow")


class FrameError(Exception):
    """A peer sent bytes that are not a frame: the connection is closed."""


class PortRefused(errors.UnavailableError):
    """Nothing listens on a data port any more (its task restarted, on a new port, or is
    gone). Nothing was sent, so asking the task for its port again and retrying is safe."""


_WAIT_ALL = getattr(socket, "MSG_WAITALL", 0)
# How a receive that SO_RCVTIMEO ended shows: BlockingIOError on a plain socket,
# SSLWantReadError on a TLS one.
_TIMED_OUT = (socket.timeout, BlockingIOError, ssl.SSLWantReadError)


def _fill(sock: socket.socket, view: memoryview, deadline: float | None = None) -> None:
    """Reads exactly len(view) bytes into ``view``; with ``deadline`` (``time.monotonic()``),
    all of them by then, however they trickle in (socket.timeout past it).

    On a blocking socket MSG_WAITALL makes this one system call, and one release of the
    GIL, for a whole tensor; reading it piecemeal (what a socket with a Python timeout
    does, waiting in poll() before every piece) let six concurrent receives of a 2.7 MB
    step run at a quarter of loopback speed. The socket's receive timeout bounds each
    call; a deadline lowers it, for what is left, only when less time than that is left.
    """
    got, n = 0, len(view)
    flags = 0 if isinstance(sock, ssl.SSLSocket) else _WAIT_ALL  # (TLS reads a record at a time)
    lowered = False
    try:
        while got < n:
            if deadline is not None and got:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise socket.timeout(f"{n - got} of {n} bytes had not come by the deadline")
                if left < FRAME_TIMEOUT_S:
                    _set_receive_timeout(sock, left)
                    lowered = True
            k = sock.recv_into(view[got:], n - got, flags)
            if not k:
                raise ConnectionError("connection closed by the peer")
            got += k
    finally:
        if lowered:
            _set_receive_timeout(sock, FRAME_TIMEOUT_S)


def _recv_exact(sock: socket.socket, n: int, deadline: float | None = None) -> bytearray:
    buf = bytearray(n)
    _fill(sock, memoryview(buf), deadline)
    return buf


_CHUNK = 1 << 22


def _recv_as_it_comes(sock: socket.socket, n: int, deadline: float | None = None) -> bytes:
    """``n`` bytes from a peer not yet trusted with memory: above 4 MB, taken a chunk at a
    time as they arrive, so a header that declares more than its sender sends (16 GiB in
    20 bytes) costs at most one chunk, not the declared size up front."""
    if n <= _CHUNK:
        return bytes(_recv_exact(sock, n, deadline))
    parts, got = [], 0
    while got < n:
        chunk = _recv_exact(sock, min(n - got, _CHUNK), deadline)
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _recv_into(sock: socket.socket, arr: np.ndarray) -> None:
    if arr.nbytes:
        _fill(sock, memoryview(arr).cast("B"))


def hello_frame(token: bytes | None) -> bytes:
    """The first frame of every data connection: the client's token (empty when none)."""
    token = token or b""
    return _HELLO.pack(HELLO_MAGIC, len(token)) + token


def _peer_of(conn: socket.socket) -> str:
    try:
        host, port = conn.getpeername()[:2]
        return f"{host}:{port}"
    except OSError:
        return "a peer that left"


class _ServerConnection:
    """A connection a TensorServer serves: its socket, and what it knows of it so far."""

    __slots__ = ("sock", "peer_host", "segment", "greeted", "idle_since", "deadline", "hello", "handshaking",
                 "wants_write")

    def __init__(self, sock: socket.socket, peer_host: str):
        self.sock = sock
        self.peer_host = peer_host
        self.segment: "shm.SegmentWriter | None" = None  # made once the hello is accepted
        self.greeted = False
        self.idle_since = time.monotonic()
        self.deadline = self.idle_since + HELLO_TIMEOUT_S  # (while parked: closed past it)
        self.hello = bytearray()  # the hello's bytes so far
        self.handshaking = False  # a TLS handshake is under way
        self.wants_write = False  # (the handshake waits to write, not to read)


class TensorServer:
    """Serves ``handler(step_id, key, timeout) -> array`` on a TCP port of ``host``, and
    calls: ``call_handler(payload: bytes, caller) -> bytes``, which may raise OpError;
    ``caller.add_callback(fn)`` has ``fn`` called if the caller goes away meanwhile.
    ``sent(step_id, key)``, if given, is called once a key asked for has left: its value
    or error written to the socket, or given up because the connection failed first.

    What a connection costs, and for how long:

    - Until its hello is accepted (the token checked; a TLS handshake first, with TLS) it
      is **ungreeted**: it has no thread (one thread reads every hello without blocking),
      must finish its hello within HELLO_TIMEOUT_S of being accepted, and counts against
      MAX_UNGREETED, shared by all peers; one more closes the oldest. So silent or
      dripping connections, which anybody who can reach the port can open, cost a bounded
      number of descriptors, no thread, and never hold a place that the cluster's own
      connections need.
    - Once greeted, a connection has a thread only while it is busy: one that has sent
      nothing for LINGER_S waits in a selector (``_Parking``), and gets a thread again
      when its next request arrives; one idle for IDLE_TIMEOUT_S is closed (clients drop
      theirs before then). A request's header and keys must arrive whole within
      FRAME_TIMEOUT_S of their first bytes. A peer host may hold at most
      MAX_CONNECTIONS_PER_PEER greeted connections; its next one is closed once greeted.

    When the process runs out of file descriptors, accepting closes the oldest ungreeted
    connection if there is one, and otherwise backs off and goes on.
    """

    def __init__(self, host: str, handler, call_handler=None, token: bytes | None = None,
                 tls: "ssl.SSLContext | None" = None, sent=None):
        self._handler = handler
        self._call_handler = call_handler
        self._sent = sent or (lambda step_id, key: None)
        self._token = token
        self._tls = tls  # a server-side context: every connection starts with a TLS handshake
        if shm.available():
            shm.sweep_orphans()
        self._watchdog = _Watchdog()
        self._sock = socket.create_server((host, 0))
        self.port = self._sock.getsockname()[1]
        self._closed = False
        self._lock = threading.Lock()
        self._per_peer: dict[str, int] = {}  # greeted connections by peer host
        self._ungreeted: dict[_ServerConnection, None] = {}  # in the order they were accepted
        self._max_ungreeted = _ungreeted_budget()
        self._parking = _Parking(self._activate, self._drop, f"distflow-data-idle-{self.port}")
        threading.Thread(target=self._accept, daemon=True, name=f"distflow-data-{self.port}").start()

    def connections(self) -> dict[str, int]:
        """The open connections whose hello was accepted, by peer host."""
        with self._lock:
            return dict(self._per_peer)

    def ungreeted(self) -> int:
        """How many open connections have not (yet) had their hello accepted."""
        with self._lock:
            return len(self._ungreeted)

    def _accept(self) -> None:
        backoff, last_warning = 0.0, 0.0
        while not self._closed:
            try:
                sock, address = self._sock.accept()
            except OSError as e:
                if self._closed:
                    return
                if e.errno in _OUT_OF_RESOURCES:
                    if self._close_oldest_ungreeted():
                        continue  # (a descriptor is free again)
                    # Out of file descriptors (or memory): the pending connection stays queued
                    # and the socket readable, so wait a little rather than spin; keep accepting.
                    backoff = min(1.0, backoff * 2 or 0.01)
                    if time.monotonic() - last_warning > 10.0:
                        last_warning = time.monotonic()
                        _log.warning("data port %d cannot accept connections: %s (%d open); retrying",
                                     self.port, e.strerror, sum(self.connections().values()) + self.ungreeted())
                    time.sleep(backoff)
                continue  # (a connection reset before it was accepted, say)
            backoff = 0.0
            conn = _ServerConnection(sock, address[0])
            with self._lock:
                self._ungreeted[conn] = None
                crowded = len(self._ungreeted) > self._max_ungreeted
            if crowded:
                self._close_oldest_ungreeted()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setblocking(False)  # (until its hello is accepted: read as it comes, by the parking thread)
            if self._tls is not None:
                try:
                    conn.sock = self._tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
                except (ssl.SSLError, OSError):
                    self._drop(conn)
                    continue
                conn.handshaking = True
            self._parking.park(conn)

    def _close_oldest_ungreeted(self) -> bool:
        """Closes the connection that has waited longest for its hello to be accepted; False if none waits."""
        with self._lock:
            oldest = next(iter(self._ungreeted), None)
            if oldest is not None:
                del self._ungreeted[oldest]
        if oldest is None:
            return False
        if self._parking.take(oldest):  # (otherwise the parking thread is reading it, and closes it)
            _close(oldest.sock)
        return True

    def _activate(self, conn: _ServerConnection) -> None:
        """A parked connection has bytes to read: its hello goes on here; a greeted one gets
        a thread until it is idle again."""
        if self._closed:
            self._drop(conn)
            return
        if not conn.greeted:
            self._greet(conn)
            return
        threading.Thread(target=self._serve, args=(conn,), daemon=True, name=f"distflow-data-{self.port}-conn").start()

    def _drop(self, conn: _ServerConnection) -> None:
        _close(conn.sock)
        if conn.segment is not None:
            conn.segment.close()
        with self._lock:
            if not conn.greeted:
                self._ungreeted.pop(conn, None)
                return
            left = self._per_peer.get(conn.peer_host, 1) - 1
            if left > 0:
                self._per_peer[conn.peer_host] = left
            else:
                self._per_peer.pop(conn.peer_host, None)

    def _greet(self, conn: _ServerConnection) -> None:
        """Goes on with ``conn``'s TLS handshake and hello as far as its bytes allow, without
        blocking (on the parking thread): parks it again for more, refuses it (NAK for a
        wrong token), or accepts it (ACK) and serves it."""
        with self._lock:
            if conn not in self._ungreeted:  # closed to make room meanwhile
                _close(conn.sock)
                return
        if time.monotonic() > conn.deadline:  # (bytes that keep trickling in do not extend it)
            self._drop(conn)
            return
        try:
            accepted = self._read_hello(conn)
        except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError) as e:
            conn.wants_write = isinstance(e, ssl.SSLWantWriteError)
            with self._lock:
                still_waiting = conn in self._ungreeted
            if still_waiting:
                self._parking.park(conn)
            else:
                _close(conn.sock)
            return
        except (ConnectionError, FrameError, ssl.SSLError, OSError, struct.error) as e:
            if isinstance(e, ssl.SSLError):
                _log.warning("refused a data connection from %s: TLS: %s", conn.peer_host,
                             getattr(e, "reason", None) or e)
            elif isinstance(e, FrameError):
                _log.warning("refused a data connection from %s: %s", conn.peer_host, e)
            self._drop(conn)
            return
        if not accepted:
            self._drop(conn)
            return
        with self._lock:
            if conn not in self._ungreeted:  # closed to make room meanwhile
                _close(conn.sock)
                return
            del self._ungreeted[conn]
            count = self._per_peer.get(conn.peer_host, 0)
            if count < MAX_CONNECTIONS_PER_PEER:
                self._per_peer[conn.peer_host] = count + 1
                conn.greeted = True
        if not conn.greeted:
            _close(conn.sock)
            _log.warning("data port %d: %s holds %d connections, the most one peer may; closed a new one",
                         self.port, conn.peer_host, count)
            return
        conn.sock.setblocking(True)
        conn.segment = shm.SegmentWriter() if shm.available() else None
        try:
            conn.sock.sendall(ACK)
        except OSError:
            self._drop(conn)
            return
        self._activate(conn)

    def _read_hello(self, conn: _ServerConnection) -> bool:
        """Reads what has come of the hello (raising BlockingIOError or SSLWant*Error when it
        must wait for more); True once it is whole and its token is the server's (or the
        server has none). A wrong token is answered NAK, and False."""
        sock = conn.sock
        if conn.handshaking:
            sock.do_handshake()
            conn.handshaking = False
        while True:
            need = _HELLO.size - len(conn.hello)
            if need <= 0:
                magic, length = _HELLO.unpack_from(conn.hello)
                if magic != HELLO_MAGIC or length > MAX_TOKEN:
                    raise FrameError(f"bad hello frame (magic {bytes(magic)!r}, a token of {length} bytes)")
                need = _HELLO.size + length - len(conn.hello)
                if need <= 0:
                    break
            chunk = sock.recv(need)  # (never past the hello: what follows is the first request)
            if not chunk:
                raise ConnectionError("connection closed by the peer")
            conn.hello += chunk
        given = bytes(conn.hello[_HELLO.size:]) or None
        if not matches(self._token, given):
            try:
                sock.send(NAK)
            except OSError:
                pass
            _log.warning("refused a data connection from %s: %s token", conn.peer_host,
                         "no" if given is None else "a wrong")
            return False
        return True

    def _serve(self, conn: _ServerConnection) -> None:
        """Serves ``conn``'s requests while they keep coming; parks it when they pause."""
        sock = conn.sock
        try:
            _set_receive_timeout(sock, FRAME_TIMEOUT_S)  # (a request, once begun, comes whole)
            while True:
                if not _readable(sock, LINGER_S):
                    conn.idle_since = time.monotonic()
                    conn.deadline = conn.idle_since + IDLE_TIMEOUT_S
                    self._parking.park(conn)
                    conn = None  # (the parking owns it now)
                    return
                segment = conn.segment
                if segment is not None and segment.pending:
                    # (the receiver answers a shared-memory tensor when it is done with it)
                    try:
                        _await_ack(sock, segment)
                    except ConnectionError:
                        return
                    continue
                deadline = time.monotonic() + FRAME_TIMEOUT_S  # (its first bytes are here)
                try:
                    head = _recv_exact(sock, _REQUEST.size, deadline)
                except ConnectionError:
                    return
                magic, step_id, timeout_ms, keys_len = _REQUEST.unpack(head)
                if magic == CALL_MAGIC:
                    self._serve_call(sock, step_id, deadline)
                    continue
                if magic not in (MAGIC, SHM_MAGIC) or keys_len > MAX_KEY * MAX_KEYS:
                    raise FrameError(f"bad request frame (magic {bytes(magic)!r}, keys of {keys_len} bytes)")
                try:
                    keys = _recv_exact(sock, keys_len, deadline).decode().split("\n")
                except UnicodeDecodeError:
                    raise FrameError("the keys are not UTF-8") from None
                if len(keys) > MAX_KEYS or max(map(len, keys)) > MAX_KEY:
                    raise FrameError(f"bad request frame ({len(keys)} keys, longest {max(map(len, keys))} bytes)")
                keys = [tuple(key.split(";")) for key in keys]
                served = 0
                try:
                    for key in keys:
                        self._serve_one(sock, step_id, key, timeout_ms, segment if magic == SHM_MAGIC else None)
                        served += 1
                        self._sent(step_id, key)
                finally:
                    for key in keys[served:]:  # (undeliverable: the connection failed)
                        self._sent(step_id, key)
        except _TIMED_OUT as e:
            _log.warning("closing a data connection from %s: a request did not come whole within %g s (%s)",
                         conn.peer_host if conn is not None else "a peer", FRAME_TIMEOUT_S, e or "timed out")
        except (FrameError, OSError, struct.error) as e:
            _log.warning("closing a data connection: %s", e)
        finally:
            if conn is not None:
                self._drop(conn)

    def _serve_one(self, conn: socket.socket, step_id: int, key: tuple, timeout_ms: int,
                   segment: "shm.SegmentWriter | None") -> None:
        """Sends the value of ``key``, or an error frame saying why there is none."""
        try:
            if len(key) != 3 or not all(key):
                raise errors.InvalidArgumentError(None, None, f"bad rendezvous key {';'.join(key)!r}")
            value = self._handler(step_id, key, timeout_ms / 1000.0 if timeout_ms else None)
        except errors.OpError as e:
            _settle(conn, segment)
            self._send_error(conn, e.error_code, e.message)
            return
        except Exception as e:  # noqa: BLE001 - reported to the receiver, never fatal here
            _settle(conn, segment)
            self._send_error(conn, errors.INTERNAL, f"{type(e).__name__}: {e}")
            return
        self._send_value(conn, value, segment)

    def _serve_call(self, conn: socket.socket, nbytes: int, deadline: float) -> None:
        """Runs one call and answers it; a failed call is an error frame, never fatal here."""
        if nbytes > min(MAX_CALL_BYTES, wire.MAX_MESSAGE_BYTES) or self._call_handler is None:
            raise FrameError(f"a call of {nbytes} bytes, more than this server reads (DISTFLOW_MAX_MESSAGE_BYTES="
                             f"{wire.MAX_MESSAGE_BYTES})" if self._call_handler else "this server takes no calls")
        payload = _recv_as_it_comes(conn, nbytes, deadline + nbytes / MIN_CALL_BYTES_PER_S)
        caller = _Caller(self._watchdog, conn)
        try:
            answer = self._call_handler(payload, caller)
        except errors.OpError as e:
            self._send_error(conn, e.error_code, e.message, CALL_MAGIC)
            return
        except Exception as e:  # noqa: BLE001 - reported to the caller, never fatal here
            self._send_error(conn, errors.INTERNAL, f"{type(e).__name__}: {e}", CALL_MAGIC)
            return
        finally:
            caller.done()
        conn.sendall(_RESPONSE.pack(CALL_MAGIC, 0, 0, 0, 0, len(answer)) + answer)

    @staticmethod
    def _send_error(conn: socket.socket, code: int, message: str, magic: bytes = MAGIC) -> None:
        msg = message.encode()[:MAX_MESSAGE]
        conn.sendall(_RESPONSE.pack(magic, code, len(msg), 0, 0, 0) + msg)

    @staticmethod
    def _send_value(conn: socket.socket, value, segment: "shm.SegmentWriter | None" = None) -> None:
        _settle(conn, segment)
        if value is None:  # (a control edge's token: a header and nothing else)
            conn.sendall(_RESPONSE.pack(MAGIC, 0, 0, pb.DT_INVALID, 0, 0))
            return
        arr = np.asarray(value)
        if arr.dtype.kind in "USO":
            payload = wire.tensor_to_proto(arr).SerializeToString()
            conn.sendall(_RESPONSE.pack(MAGIC, 0, 0, pb.DT_STRING, 0, len(payload)) + payload)
            return
        if not arr.flags.c_contiguous:  # (np.ascontiguousarray would make a scalar 1-D)
            arr = arr.copy()
        if arr.dtype.byteorder == ">":
            arr = arr.astype(arr.dtype.newbyteorder("<"))
        dtype = _enum_of(arr.dtype)
        dims = struct.pack(f"<{arr.ndim}q", *arr.shape)
        if segment is not None and segment.usable and arr.nbytes >= shm.MIN_BYTES:
            while segment.usable and segment.must_await(arr.nbytes):  # (a free slot)
                _await_ack(conn, segment)
            if segment.usable:
                name, offset = segment.write(arr)
                where = f"{name}:{offset}".encode()
                conn.sendall(_RESPONSE.pack(SHM_MAGIC, 0, len(where), dtype, arr.ndim, arr.nbytes) + where + dims)
                return
        TensorServer._send_inline(conn, arr, dtype, dims)

    @staticmethod
    def _send_inline(conn: socket.socket, arr: np.ndarray, dtype: int, dims: bytes) -> None:
        head = _RESPONSE.pack(MAGIC, 0, 0, dtype, arr.ndim, arr.nbytes) + dims
        if arr.nbytes <= _SMALL_BYTES:  # one system call for a small tensor
            conn.sendall(head + arr.tobytes())
            return
        body = memoryview(arr).cast("B")
        if isinstance(conn, ssl.SSLSocket):
            conn.sendall(head)
            conn.sendall(body)
            return
        # header and payload in one system call, and no packet of the header alone
        sent = conn.sendmsg([head, body])
        if sent < len(head):
            conn.sendall(head[sent:])
            sent = len(head)
        if sent - len(head) < len(body):
            conn.sendall(body[sent - len(head):])

    def close(self) -> None:
        self._closed = True
        self._watchdog.close()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # (wakes the accepting thread)
        except OSError:
            pass
        _close(self._sock)
        for conn in self._parking.close():
            self._drop(conn)


class _Parking:
    """The connections that wait without a thread (for their next request, or for more of
    their hello): one selector and one thread per server. ``activate(conn)`` is called
    when a parked connection has bytes to read (or, with ``conn.wants_write``, room to
    write), ``expire(conn)`` when it is still parked past ``conn.deadline``; either way it
    is no longer parked."""

    def __init__(self, activate, expire, name: str):
        self._activate, self._expire = activate, expire
        self._selector = selectors.DefaultSelector()
        self._lock = threading.Lock()
        self._closed = False
        self._thread_name = name
        self._thread: threading.Thread | None = None

    def park(self, conn: _ServerConnection) -> None:
        events = selectors.EVENT_WRITE if conn.wants_write else selectors.EVENT_READ
        with self._lock:
            if not self._closed:
                self._selector.register(conn.sock, events, conn)
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, daemon=True, name=self._thread_name)
                    self._thread.start()
                return
        _close(conn.sock)

    def take(self, conn: _ServerConnection) -> bool:
        """Unparks ``conn`` for the caller (True), or False if it is not parked now."""
        with self._lock:
            if self._closed:
                return False
            try:
                self._selector.unregister(conn.sock)
            except (KeyError, ValueError):
                return False
            return True

    def _run(self) -> None:
        last_sweep = time.monotonic()
        while True:
            # (a short wait: selectors other than epoll see connections parked meanwhile only then)
            try:
                events = self._selector.select(PARKING_POLL_S)
            except (OSError, ValueError):  # closed
                return
            ready = []
            with self._lock:
                if self._closed:
                    return
                for key, _ in events:
                    # (a connection taken by another thread since the select returned, and maybe
                    # closed, is not this thread's any more: unregistering it again raised, and
                    # ended the thread, and the server parked nothing more)
                    if self._selector.get_map().get(key.fd) is not key:
                        continue
                    self._selector.unregister(key.fd)
                    ready.append(key.data)
                now = time.monotonic()
                stale = []
                if now - last_sweep > PARKING_POLL_S:
                    last_sweep = now
                    for key in list(self._selector.get_map().values()):
                        if now > key.data.deadline:
                            self._selector.unregister(key.fd)
                            stale.append(key.data)
            for conn in ready:
                self._activate(conn)
            for conn in stale:
                self._expire(conn)

    def close(self) -> list:
        """Stops parking; the connections that were parked, for the caller to close."""
        with self._lock:
            self._closed = True
            conns = [key.data for key in self._selector.get_map().values()]
            self._selector.close()
        return conns


def _ungreeted_budget() -> int:
    """MAX_UNGREETED, or less where the process may open few files: at most an eighth of them."""
    try:
        import resource  # noqa: PLC0415 - POSIX only

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return MAX_UNGREETED
    if soft == resource.RLIM_INFINITY:
        return MAX_UNGREETED
    return max(4, min(MAX_UNGREETED, soft // 8))


class _Caller:
    """What a call handler gets to learn that its caller went away (cf. a gRPC context)."""

    __slots__ = ("_watchdog", "_conn", "_watched")

    def __init__(self, watchdog: "_Watchdog", conn: socket.socket):
        self._watchdog, self._conn, self._watched = watchdog, conn, False

    def add_callback(self, callback) -> None:
        self._watched = self._watchdog.watch(self._conn, callback)

    def done(self) -> None:
        if self._watched:
            self._watchdog.unwatch(self._conn)


class _Watchdog:
    """Calls a callback when the peer of a watched connection hangs up; one thread per
    server, started with the first watch. Where there is no epoll (not Linux), nothing
    is watched: a step whose caller died ends by its deadline or by AbortStep."""

    _EVENTS = getattr(select, "EPOLLRDHUP", 0) | getattr(select, "EPOLLHUP", 0) | getattr(select, "EPOLLERR", 0)

    def __init__(self):
        self._epoll = None
        self._callbacks: dict[int, object] = {}
        self._lock = threading.Lock()
        self._closed = False

    def watch(self, conn: socket.socket, callback) -> bool:
        with self._lock:
            if self._closed or not hasattr(select, "epoll"):
                return False
            if self._epoll is None:
                self._epoll = select.epoll()
                threading.Thread(target=self._run, args=(self._epoll,), daemon=True, name="distflow-watchdog").start()
            fd = conn.fileno()
            self._callbacks[fd] = callback
            self._epoll.register(fd, self._EVENTS)
        return True

    def unwatch(self, conn: socket.socket) -> None:
        with self._lock:
            fd = conn.fileno()
            if self._callbacks.pop(fd, None) is not None and not self._closed:
                self._epoll.unregister(fd)

    def _run(self, epoll) -> None:
        while not self._closed:
            try:
                events = epoll.poll(1.0)
            except (OSError, ValueError):  # closed
                return
            for fd, _ in events:
                with self._lock:
                    callback = self._callbacks.pop(fd, None)
                    if callback is not None:
                        epoll.unregister(fd)
                if callback is not None:
                    try:
                        callback()
                    except Exception:  # noqa: BLE001 - a watchdog never dies of a callback
                        _log.exception("a caller-gone callback failed")

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._callbacks.clear()
            if self._epoll is not None:
                self._epoll.close()


def _settle(conn: socket.socket, segment: "shm.SegmentWriter | None") -> None:
    """Before a frame goes out: the answer to a tensor of a segment the receiver has not yet
    mapped (if it is a NAK, that tensor goes again on the socket, ahead of the frame)."""
    if segment is not None and segment.must_await():
        _await_ack(conn, segment)


def _await_ack(conn: socket.socket, segment: "shm.SegmentWriter") -> None:
    """Waits for the receiver's answer to the oldest shared-memory tensor in flight: ACK,
    or NAK when it could not map the segment (another user, another /dev/shm): then the
    tensor goes again on the socket, and so does every later one on this connection."""
    _set_receive_timeout(conn, None)  # (it comes when the receiver gets to that tensor)
    try:
        answer = _recv_exact(conn, 1)
    finally:
        _set_receive_timeout(conn, FRAME_TIMEOUT_S)
    dtype, shape, offset = segment.answered()
    if answer == NAK:  # the copy in the segment, as it was when it was offered
        if segment.pending:  # (only one is in flight until the receiver has mapped the segment)
            raise FrameError("a NAK for a shared-memory tensor of a segment the receiver had mapped")
        arr = segment.written(dtype, shape, offset)
        TensorServer._send_inline(conn, arr, _enum_of(dtype), struct.pack(f"<{len(shape)}q", *shape))
        del arr  # (a view of the segment: the mapping cannot close while it lives)
        segment.close()
        segment.usable = False
        return
    if answer != ACK:
        raise FrameError("expected the receiver's acknowledgement of a shared-memory tensor")
    segment.mapped_by_receiver()


@functools.lru_cache(maxsize=None)
def _enum_of(dtype: np.dtype) -> int:
    """The DataType number of a NumPy dtype (asked for every tensor sent)."""
    return dtypes.as_dtype(dtype).as_datatype_enum


@functools.lru_cache(maxsize=64)  # (the numbers come from peers; a bad one raises TypeError, never cached)
def _numpy_dtype_of(enum: int) -> np.dtype:
    """The NumPy dtype of a DataType number (asked for every tensor received)."""
    return np.dtype(dtypes.as_dtype(int(enum)).as_numpy_dtype)


def _readable(sock: socket.socket, timeout: float) -> bool:
    """Whether ``sock`` has bytes (or its peer's goodbye) to read within ``timeout`` seconds."""
    if isinstance(sock, ssl.SSLSocket) and sock.pending():
        return True  # (decrypted already, so the descriptor need not be readable)
    if not hasattr(select, "poll"):
        return bool(select.select([sock], [], [], timeout)[0])
    poller = select.poll()  # (select() cannot take descriptors past 1023)
    poller.register(sock, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(timeout * 1000.0))


def _set_receive_timeout(sock: socket.socket, timeout: float | None) -> None:
    """Bounds each receive on ``sock`` by ``timeout`` seconds (None: no bound); sends keep theirs."""
    seconds = timeout or 0.0
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                    struct.pack("ll", int(seconds), int((seconds % 1) * 1e6)))


def _set_timeout(sock: socket.socket, timeout: float | None) -> None:
    """Keeps ``sock`` blocking (see _fill) and bounds each send and receive by ``timeout``."""
    sock.settimeout(None)
    seconds = max(0.0, timeout or 0.0)
    if timeout is not None and seconds == 0.0:
        seconds = 1e-6  # already past the deadline: fail at once rather than never
    tv = struct.pack("ll", int(seconds), int((seconds % 1) * 1e6))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)


class _Connection:
    """A pooled client connection: its socket, and its mapping of the sender's segment."""

    __slots__ = ("sock", "address", "segment", "shared", "hello", "greeted", "idle_since", "unbounded")

    def __init__(self, sock: socket.socket, address: tuple, shared: bool, hello: bytes):
        self.sock = sock
        self.unbounded = False  # its sends and receives have no timeout (set_timeout(None))
        self.address = address
        self.segment = shm.SegmentReader()
        self.shared = shared  # asks for large tensors in shared memory
        self.hello = hello  # sent with the first frame, in the same packet
        self.greeted = False  # the server's answer to the hello is read
        self.idle_since = 0.0  # when it last went back to the pool

    def set_timeout(self, timeout: float | None) -> None:
        """_set_timeout, skipped when the connection is already unbounded and stays so."""
        if timeout is None and self.unbounded:
            return
        _set_timeout(self.sock, timeout)
        self.unbounded = timeout is None

    def send(self, frame: bytes) -> None:
        if self.hello:
            frame, self.hello = self.hello + frame, b""
        self.sock.sendall(frame)

    def read_greeting(self) -> None:
        """Reads the server's answer to the hello, before the connection's first response."""
        if self.greeted:
            return
        answer = _recv_exact(self.sock, 1)
        if answer != ACK:
            host, port = self.address
            raise errors.UnauthenticatedError(
                None, None, f"the data port at {host}:{port} refused the connection: it needs the cluster's token "
                f"(set {TOKEN_ENV} or {TOKEN_FILE_ENV} as for its servers)")
        self.greeted = True

    def refused_or_close(self) -> None:
        """Closes a connection that failed; if it failed because the server refused its
        hello (it closes at once, so a long first send breaks off), raises that instead."""
        try:
            if not self.greeted:
                self.set_timeout(1.0)
                self.read_greeting()
        except OSError:
            pass
        finally:
            self.close()

    def close(self) -> None:
        _close(self.sock)
        self.segment.close()


def _is_loopback(host: str) -> bool:
    return host == "localhost" or host.startswith("127.") or host == "::1"


class TensorClient:
    """Fetches tensors from TensorServers, keeping idle connections per address."""

    def __init__(self):
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._lock = threading.Lock()
        self._hello = hello_frame(configured_token())
        tls = configured_tls()
        # with this process's TLS configuration, connections are TLS and servers' names verified
        self._tls = tls.client_context() if tls is not None and tls.connects else None

    def fetch(self, host: str, port: int, step_id: int, key: tuple, timeout: float | None, peer: str):
        """The tensor ``key`` of step ``step_id``; errors name ``peer``."""
        return self.open_stream(host, port, step_id, [key], timeout, peer).get(key)

    def call(self, host: str, port: int, payload: bytes, timeout: float | None, peer: str) -> bytes:
        """Sends a call (a serialized RunGraphRequest) and waits for its answer; the error
        it raised there is raised here, and a lost connection is an UnavailableError naming ``peer``."""
        address = (host, port)
        conn = None
        try:
            conn = self._connection(address, peer)
            conn.set_timeout(timeout)
            conn.send(_REQUEST.pack(CALL_MAGIC, len(payload), 0, 0) + payload)
            conn.read_greeting()
            magic, code, msg_len, _, _, nbytes = _RESPONSE.unpack(_recv_exact(conn.sock, _RESPONSE.size))
            if magic != CALL_MAGIC or msg_len > MAX_MESSAGE or nbytes > MAX_CALL_BYTES:
                raise FrameError(f"bad answer frame from {peer}")
            message = _recv_exact(conn.sock, msg_len).decode(errors="replace") if code else ""
            answer = bytes(_recv_exact(conn.sock, nbytes))
        except _TIMED_OUT:  # (SO_RCVTIMEO ran out)
            if conn is None:  # (connecting timed out)
                raise errors.UnavailableError(None, None, f"{peer} is unavailable: connecting timed out") from None
            conn.close()
            raise errors.DeadlineExceededError(None, None, f"{peer} did not answer within {timeout} s") from None
        except (OSError, ConnectionError, FrameError, struct.error) as e:
            if conn is not None:
                conn.refused_or_close()
            raise errors.UnavailableError(None, None, f"{peer} is unavailable: {e}") from None
        self._release(address, conn)
        if code:
            raise errors.exception_type_from_error_code(code)(None, None, message)
        return answer

    def _connection(self, address, peer: str) -> "_Connection":
        """An idle connection to ``address``, or a new one (PortRefused if nothing listens there)."""
        conn = None
        while conn is None:
            with self._lock:
                pool = self._idle.get(address)
                conn = pool.pop() if pool else None
            if conn is None:
                break
            if time.monotonic() - conn.idle_since > IDLE_TIMEOUT_S / 2 or _readable(conn.sock, 0.0):
                # The server may close it soon, or has (an idle connection has nothing to
                # read but its peer's goodbye): a request sent on it could be lost.
                conn.close()
                conn = None
        if conn is None:
            try:
                sock = socket.create_connection(address, timeout=10.0)
            except ConnectionRefusedError:
                raise PortRefused(None, None, f"{peer} is unavailable: nothing listens on its data port "
                                  f"{address[0]}:{address[1]}") from None
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._tls is not None:
                try:
                    sock = self._tls.wrap_socket(sock, server_hostname=address[0])
                except (ssl.SSLError, ssl.CertificateError, OSError) as e:
                    _close(sock)
                    raise errors.UnavailableError(None, None, f"{peer}: the TLS handshake on its data port failed: "
                                                  f"{getattr(e, 'reason', None) or e}") from None
                sock.settimeout(None)
            # (the hello goes with the first request, and its answer is read before the first
            # response: no round trip of its own)
            conn = _Connection(sock, address, _is_loopback(address[0]) and shm.available(), self._hello)
        return conn

    def open_stream(self, host: str, port: int, step_id: int, keys: list[tuple], timeout: float | None,
                    peer: str) -> "TensorStream":
        """Asks for ``keys`` of step ``step_id`` now; their values are read later, in that
        order, by whoever needs them (TensorStream.get), with no thread in between."""
        address = (host, port)
        conn = None
        try:
            conn = self._connection(address, peer)
            conn.set_timeout(timeout)
            keys_bytes = "\n".join(";".join(key) for key in keys).encode()
            conn.send(_REQUEST.pack(SHM_MAGIC if conn.shared else MAGIC, step_id, int((timeout or 0) * 1000),
                                    len(keys_bytes)) + keys_bytes)
        except OSError as e:
            if conn is not None:
                conn.refused_or_close()
            raise errors.UnavailableError(None, None, f"{peer} is unavailable: {e}") from None
        return TensorStream(self, address, conn, keys, peer)

    @staticmethod
    def _receive(conn: _Connection, peer: str, borrow: bool = False):
        """One response frame: (value, None, False), or (None, the error the sender reported, False).

        With ``borrow``, a tensor in shared memory comes as a read-only view of the segment,
        not yet answered, and the third item is True: the caller answers ACK (``conn.sock``)
        once it is done with the view, and reads nothing more of the connection before."""
        conn.read_greeting()
        sock = conn.sock
        magic, code, msg_len, dtype_enum, ndim, nbytes = _RESPONSE.unpack(_recv_exact(sock, _RESPONSE.size))
        shared = magic == SHM_MAGIC and conn.shared
        if (magic != MAGIC and not shared) or msg_len > MAX_MESSAGE or ndim > MAX_RANK \
                or nbytes > wire.MAX_TENSOR_BYTES:
            raise FrameError(f"bad response frame from {peer}")
        if code:
            message = _recv_exact(sock, msg_len).decode(errors="replace")
            return None, errors.exception_type_from_error_code(code)(None, None, message), False
        where = _recv_exact(sock, msg_len).decode(errors="replace") if shared else ""
        dims = struct.unpack(f"<{ndim}q", _recv_exact(sock, 8 * ndim)) if ndim else ()
        if dtype_enum == pb.DT_INVALID and not shared and not ndim and not nbytes:
            return None, None, False  # (a control edge's token)
        if dtype_enum == pb.DT_STRING and not shared:
            return wire.tensor_from_proto(pb.TensorProto.FromString(bytes(_recv_exact(sock, nbytes)))), None, False
        dtype = _numpy_dtype_of(dtype_enum)
        if min(dims, default=0) < 0 or math.prod(dims) * dtype.itemsize != nbytes:
            raise FrameError(f"inconsistent tensor frame from {peer}")
        if shared:
            try:
                value = (conn.segment.view if borrow else conn.segment.read)(where, dtype, dims, nbytes)
            except (OSError, ValueError) as e:
                # Not ours to map (another user's, another /dev/shm, a name that is no segment):
                # the sender sends it on the socket instead, and so on for this connection.
                _log.info("the shared memory of %s cannot be read here (%s): using the socket", peer, e)
                conn.shared = False
                sock.sendall(NAK)
                return TensorClient._receive(conn, peer)
            if not borrow:
                sock.sendall(ACK)
            return value, None, borrow
        value = np.empty(dims, dtype=dtype)
        _recv_into(sock, value)
        return value, None, False

    def _release(self, address, conn: _Connection) -> None:
        conn.idle_since = time.monotonic()
        with self._lock:
            self._idle.setdefault(address, []).append(conn)

    def sweep(self) -> int:
        """Closes the idle connections whose server has closed them (a task that left or
        restarted: its socket would wait in CLOSE-WAIT, and its shared-memory segment stay
        mapped, until the next request to it), or that are too old to reuse; how many.
        (A server's housekeeping calls this every few seconds.)"""
        now = time.monotonic()
        gone = []
        with self._lock:
            for address, pool in list(self._idle.items()):
                keep = [c for c in pool if now - c.idle_since <= IDLE_TIMEOUT_S / 2 and not _readable(c.sock, 0.0)]
                gone += [c for c in pool if c not in keep]
                if keep:
                    self._idle[address] = keep
                else:
                    del self._idle[address]
        for conn in gone:
            conn.close()
        return len(gone)

    def close(self) -> None:
        with self._lock:
            for pool in self._idle.values():
                for conn in pool:
                    conn.close()
            self._idle.clear()


class TensorStream:
    """The tensors of one step that one sender sends one receiving partition, in order.

    The partition's own thread reads each when it needs it (``get``), straight from the
    socket: no receiving thread, no hand-off. ``abort`` (from any thread) wakes a reader
    blocked here and fails what is left.
    """

    def __init__(self, client: TensorClient, address, conn: _Connection, keys: list[tuple], peer: str):
        self._client, self._address, self._conn, self._peer = client, address, conn, peer
        self._keys = keys
        self._next = 0
        self._early: dict = {}  # read on the way to a later key
        self._error: BaseException | None = None
        self._lock = threading.Lock()

    def get(self, key: tuple, use=None):
        """The value of ``key`` (one of this stream's), reading up to it; raises its error.

        With ``use``, returns ``use(value)``. A tensor in shared memory then reaches ``use``
        where it lies, with no copy: a read-only view of the sender's segment, valid only
        while ``use`` runs (it must keep no part of it), answered once ``use`` returns."""
        with self._lock:
            if key in self._early:
                (value, error), borrowed = self._early.pop(key), False
            else:
                value, error, borrowed = self._read_until(key, borrow=use is not None)
            if error is not None:
                raise error
            if use is None:
                return value
            if not borrowed:
                return use(value)
            try:
                return use(value)
            finally:
                del value
                self._answer()

    def _answer(self) -> None:
        """ACK for a tensor that was used where it lay; the connection goes back to the pool
        after the last one's."""
        try:
            self._conn.sock.sendall(ACK)
        except OSError as e:
            self._fail(errors.UnavailableError(None, None, f"{self._peer} is unavailable: {e}"))
            self._conn.close()
            return
        if self._next == len(self._keys):
            if self._error is None:
                self._client._release(self._address, self._conn)
            else:  # (aborted while the tensor was in use)
                self._conn.close()

    def _read_until(self, key: tuple, borrow: bool = False):
        while self._error is None and self._next < len(self._keys):
            k = self._keys[self._next]
            try:
                got = TensorClient._receive(self._conn, self._peer, borrow and k == key)
            except _TIMED_OUT:  # (SO_RCVTIMEO ran out)
                self._fail(errors.DeadlineExceededError(None, None, f"timed out receiving '{k[2]}' from {self._peer}"))
                break
            except (OSError, ConnectionError, FrameError, struct.error, TypeError) as e:
                self._fail(errors.UnavailableError(None, None, f"{self._peer} is unavailable: {e}"))
                break
            if got[0] is None and got[1] is None and not k[2].startswith("^"):  # (a token, not a tensor)
                self._fail(errors.UnavailableError(None, None, f"{self._peer} is unavailable: it sent no value "
                                                               f"for tensor '{k[2]}'"))
                break
            self._next += 1
            if self._next == len(self._keys) and not got[2]:  # (a borrowed one goes back once answered)
                self._client._release(self._address, self._conn)
            if k == key:
                return got
            self._early[k] = got[:2]
        if self._error is not None:
            self._conn.close()
            return None, self._error, False
        raise KeyError(f"{key} is not a tensor of this stream")

    def _fail(self, error: BaseException) -> None:
        if self._error is None:  # (an abort that woke the reader keeps its own reason)
            self._error = error

    def abort(self, error: BaseException) -> None:
        """Fails every value not yet read with ``error``, waking a reader blocked on the socket."""
        if self._error is None and self._next < len(self._keys):
            self._error = error
            try:
                self._conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _close(sock) -> None:
    if sock is not None:
        try:
            sock.close()
        except OSError:
            pass
