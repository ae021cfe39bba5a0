"""The raw-TCP tensor data path (distributed/transport.py), one server and one client.

Tasks in real processes use it in test_distributed.py and test_cluster.py; here its
frames are checked directly: several tensors in one request, an error for one of
them, hostile requests; large tensors through shared memory between tasks of one host.
"""

import contextlib
import os
import socket
import struct
import threading
import time

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle
from distflow.distributed import shm
from distflow.distributed.transport import ACK, MAGIC, MAX_KEYS, TensorClient, TensorServer, hello_frame

VALUES = {
    "x:0": np.arange(5.0),
    "big:0": np.arange(300 * 400, dtype=np.float32).reshape(300, 400),  # > one small frame
    "words:0": np.array([b"ab", b"c"], dtype=object),
    "scalar:0": np.int64(7),
    "^train": None,  # (a control edge's token)
}


def _handler(step_id, key, timeout):
    if key[2] not in VALUES:
        raise tf.errors.NotFoundError(None, None, f"step {step_id} sends no {key[2]}")
    return VALUES[key[2]]


@pytest.fixture
def server():
    s = TensorServer("127.0.0.1", _handler)
    yield s
    s.close()


def _key(name):
    return ("/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0", name)


def test_one_request_brings_several_tensors_in_order_with_an_error_for_one(server):
    client = TensorClient()
    names = ["x:0", "missing:0", "big:0", "^train", "words:0", "scalar:0"]
    stream = client.open_stream("127.0.0.1", server.port, 3, [_key(n) for n in names], 5.0, "the test peer")
    assert_oracle(stream.get(_key("big:0")), VALUES["big:0"])  # read past two, which wait for their reader
    assert_oracle(stream.get(_key("x:0")), VALUES["x:0"])
    with pytest.raises(tf.errors.NotFoundError, match="step 3 sends no missing:0"):
        stream.get(_key("missing:0"))
    assert_oracle(stream.get(_key("words:0")), VALUES["words:0"])
    assert_oracle(stream.get(_key("scalar:0")), np.asarray(VALUES["scalar:0"]))
    assert stream.get(_key("^train")) is None  # (a header alone, no payload)
    # every key read: the connection went back to the pool and serves the next request
    assert_oracle(client.fetch("127.0.0.1", server.port, 4, _key("big:0"), 5.0, "the test peer"), VALUES["big:0"])
    client.close()


def test_an_aborted_stream_wakes_its_reader_and_fails_what_is_left():

    release = threading.Event()

    def slow_handler(step_id, key, timeout):
        release.wait(10)
        return _handler(step_id, key, timeout)

    slow = TensorServer("127.0.0.1", slow_handler)
    try:
        stream = TensorClient().open_stream("127.0.0.1", slow.port, 1, [_key("x:0"), _key("big:0")], 30.0, "peer")
        failures = []
        reader = threading.Thread(target=lambda: failures.append(pytest.raises(tf.errors.CancelledError,
                                                                                  stream.get, _key("x:0"))))
        reader.start()
        stream.abort(tf.errors.CancelledError(None, None, "step 1 was cancelled"))
        reader.join(10)
        assert not reader.is_alive() and failures
        with pytest.raises(tf.errors.CancelledError, match="step 1 was cancelled"):
            stream.get(_key("big:0"))
    finally:
        release.set()
        slow.close()


def test_hostile_requests_close_their_connection_and_the_server_keeps_serving(server):
    too_many = "\n".join(";".join(_key(f"t{i}:0")) for i in range(MAX_KEYS + 1)).encode()
    requests = [
        struct.pack("<4sQII", MAGIC, 1, 0, len(too_many)) + too_many,
        struct.pack("<4sQII", MAGIC, 1, 0, 5000) + b"k" * 5000,  # one key longer than MAX_KEY
        struct.pack("<4sQII", MAGIC, 1, 0, 0xFFFFFFFF),  # keys longer than any request may be
        struct.pack("<4sQII", MAGIC, 1, 0, 4) + b"\xff\xfe\xfd\xfc",  # not UTF-8
    ]
    for request in requests:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
            s.sendall(hello_frame(None) + request)
            assert s.recv(1) == ACK
            s.settimeout(5)
            try:
                assert s.recv(4096) == b""  # closed without an answer
            except ConnectionResetError:
                pass
    bad_key = ("only", "two")
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad rendezvous key"):
        TensorClient().fetch("127.0.0.1", server.port, 1, bad_key, 5.0, "the test peer")
    assert_oracle(TensorClient().fetch("127.0.0.1", server.port, 1, _key("x:0"), 5.0, "the test peer"),
                  VALUES["x:0"])


def test_a_peer_that_never_answers_times_out_naming_the_tensor_and_peer():
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        with pytest.raises(tf.errors.DeadlineExceededError, match="timed out receiving 'big:0' from the test peer"):
            TensorClient().fetch("127.0.0.1", silent.getsockname()[1], 1, _key("big:0"), 0.3, "the test peer")


# -- shared memory between tasks of one host (shm.py) ------------------------------------------

def _segments():
    import os

    return sorted(n for n in os.listdir("/dev/shm") if n.startswith(f"distflow-{os.getpid()}-"))


@pytest.mark.skipif(not shm.available(), reason="no /dev/shm")
def test_large_tensors_on_loopback_travel_through_shared_memory_and_leave_no_segment(server, monkeypatch):
    written = []
    write = shm.SegmentWriter.write
    monkeypatch.setattr(shm.SegmentWriter, "write", lambda self, arr: written.append(arr.nbytes) or write(self, arr))
    huge = np.random.default_rng(0).standard_normal((1024, 700)).astype(np.float32)  # grows the segment
    VALUES["huge:0"] = huge
    try:
        client = TensorClient()
        names = ["big:0", "x:0", "huge:0", "big:0"]
        stream = client.open_stream("127.0.0.1", server.port, 1, [_key(n) for n in names[:3]], 5.0, "peer")
        assert_oracle(stream.get(_key("huge:0")), huge)  # two shared tensors in a row: each acknowledged
        assert_oracle(stream.get(_key("big:0")), VALUES["big:0"])
        assert_oracle(stream.get(_key("x:0")), VALUES["x:0"])
        assert_oracle(client.fetch("127.0.0.1", server.port, 2, _key("big:0"), 5.0, "peer"), VALUES["big:0"])
        # small tensors stay inline on the socket; each large one went through the segment
        assert written == [VALUES["big:0"].nbytes, huge.nbytes, VALUES["big:0"].nbytes]
        assert _segments() == []  # unlinked once the receiver had mapped it
        client.close()
    finally:
        del VALUES["huge:0"]


@pytest.mark.skipif(not shm.available(), reason="no /dev/shm")
def test_tensors_used_where_they_lie_are_answered_after_use_with_two_in_flight(monkeypatch):
    """``get(key, use)``: a tensor in shared memory reaches ``use`` as a read-only view of the
    sender's segment, answered only once ``use`` returns; meanwhile the sender writes the
    next tensor into the segment's other slot, never into the one being read."""
    values = {f"t{i}:0": np.full((400, 500), float(i), np.float32) for i in range(5)}
    offsets, in_use = [], set()
    write = shm.SegmentWriter.write

    def logged(self, arr):
        name, offset = write(self, arr)
        assert offset not in in_use  # (never the slot the receiver is reading)
        offsets.append(offset)
        return name, offset

    monkeypatch.setattr(shm.SegmentWriter, "write", logged)
    server = TensorServer("127.0.0.1", lambda step_id, key, timeout: values[key[2]])
    client = TensorClient()
    try:
        keys = [_key(name) for name in values]
        stream = client.open_stream("127.0.0.1", server.port, 1, keys, 5.0, "peer")
        slot = values["t0:0"].nbytes
        for i, key in enumerate(keys):
            def use(view, i=i):
                assert not view.flags.writeable
                in_use.add(i % 2 * slot)
                if 0 < i < len(keys) - 1:
                    # (the first tensor of a new segment is alone in flight; after it, the
                    # sender has the next one in the other slot before this one is answered)
                    deadline = time.monotonic() + 10
                    while len(offsets) < i + 2 and time.monotonic() < deadline:
                        time.sleep(0.001)
                    assert len(offsets) == i + 2
                total = float(view.sum())
                in_use.clear()
                return total

            assert stream.get(key, use) == values[key[2]].sum()
        assert offsets == [i % 2 * slot for i in range(len(keys))]
        assert len(client._idle[("127.0.0.1", server.port)]) == 1  # back in the pool after the last answer
        assert_oracle(client.fetch("127.0.0.1", server.port, 2, _key("t3:0"), 5.0, "peer"), values["t3:0"])
        assert _segments() == []
    finally:
        client.close()
        server.close()


def test_shared_memory_can_be_turned_off(server, monkeypatch):
    monkeypatch.setenv("DISTFLOW_SHARED_MEMORY", "0")
    monkeypatch.setattr(shm.SegmentWriter, "write", lambda self, arr: pytest.fail("used shared memory"))
    client = TensorClient()
    assert_oracle(client.fetch("127.0.0.1", server.port, 1, _key("big:0"), 5.0, "peer"), VALUES["big:0"])
    client.close()


@contextlib.contextmanager
def _fake_peer(answer):
    """A data port that takes one connection, reads the hello and the request, then hands
    the connection to ``answer(conn)``: its port is yielded."""
    with socket.socket() as fake:
        fake.bind(("127.0.0.1", 0))
        fake.listen()

        def serve():
            conn, _ = fake.accept()
            with conn:
                conn.recv(65536)  # the hello and the request
                answer(conn)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        yield fake.getsockname()[1]
        thread.join(5)


@pytest.mark.parametrize("name", [b"../../etc/passwd", b"distflow-1-" + b"0" * 32])
def test_a_shared_memory_frame_naming_a_file_that_is_no_segment_of_ours_is_refused(name):
    """A hostile or confused peer cannot make the receiver map an arbitrary file: the
    receiver answers NAK and takes the tensor from the socket instead."""
    from distflow.distributed.transport import NAK, SHM_MAGIC

    value = np.arange(1 << 16, dtype=np.float32)
    answers = []

    def answer(conn):
        dims = struct.pack("<q", value.size)
        conn.sendall(ACK + struct.pack("<4sBIIBQ", SHM_MAGIC, 0, len(name), 1, 1, value.nbytes) + name + dims)
        answers.append(conn.recv(1))
        conn.sendall(struct.pack("<4sBIIBQ", MAGIC, 0, 0, 1, 1, value.nbytes) + dims + value.tobytes())

    with _fake_peer(answer) as port:
        got = TensorClient().fetch("127.0.0.1", port, 1, _key("big:0"), 5.0, "the test peer")
    assert answers == [NAK]
    assert_oracle(got, value)


def test_a_control_token_where_a_tensor_was_asked_for_is_refused():
    from distflow.protos import distflow_pb2 as pb

    def answer(conn):
        conn.sendall(ACK + struct.pack("<4sBIIBQ", MAGIC, 0, 0, pb.DT_INVALID, 0, 0))
        conn.recv(1)

    with _fake_peer(answer) as port:
        with pytest.raises(tf.errors.UnavailableError, match="sent no value for tensor 'big:0'"):
            TensorClient().fetch("127.0.0.1", port, 1, _key("big:0"), 5.0, "the test peer")


@pytest.mark.skipif(not shm.available(), reason="no /dev/shm")
def test_a_receiver_that_cannot_map_the_segment_gets_every_tensor_on_the_socket(server, monkeypatch):
    """Tasks on "localhost" that do not share /dev/shm (another user, separate containers)."""
    written = []
    write = shm.SegmentWriter.write
    monkeypatch.setattr(shm.SegmentWriter, "write", lambda self, arr: written.append(arr.nbytes) or write(self, arr))

    def unmappable(self, name, dtype, dims, nbytes):
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setattr(shm.SegmentReader, "read", unmappable)
    client = TensorClient()
    keys = [_key("big:0"), _key("x:0"), _key("big:0")]
    stream = client.open_stream("127.0.0.1", server.port, 1, keys, 5.0, "peer")
    for key in keys:
        assert_oracle(stream.get(key), VALUES[key[2]])
    assert_oracle(client.fetch("127.0.0.1", server.port, 2, _key("big:0"), 5.0, "peer"), VALUES["big:0"])
    assert written == [VALUES["big:0"].nbytes]  # offered once; after the NAK, only the socket
    assert _segments() == []
    client.close()


# -- calls (RunGraph) on the data path ------------------------------------------------------------

def _echo_call(payload, caller):
    if payload == b"fail":
        raise tf.errors.FailedPreconditionError(None, None, "the call failed there")
    if payload == b"crash":
        raise RuntimeError("a bug in the handler")
    return payload[::-1]


def test_calls_answer_raise_the_remote_error_and_share_connections_with_tensors():
    server = TensorServer("127.0.0.1", _handler, _echo_call)
    client = TensorClient()
    try:
        assert client.call("127.0.0.1", server.port, b"abc", 5.0, "peer") == b"cba"
        with pytest.raises(tf.errors.FailedPreconditionError, match="the call failed there"):
            client.call("127.0.0.1", server.port, b"fail", 5.0, "peer")
        with pytest.raises(tf.errors.InternalError, match="RuntimeError: a bug in the handler"):
            client.call("127.0.0.1", server.port, b"crash", 5.0, "peer")
        assert_oracle(client.fetch("127.0.0.1", server.port, 1, _key("big:0"), 5.0, "peer"), VALUES["big:0"])
        big = bytes(range(256)) * 40000
        assert client.call("127.0.0.1", server.port, big, 5.0, "peer") == big[::-1]
        assert len(client._idle[("127.0.0.1", server.port)]) == 1  # one connection did all of it
    finally:
        client.close()
        server.close()


def test_a_server_without_calls_and_a_call_too_large_close_only_that_connection(server):
    with pytest.raises(tf.errors.UnavailableError, match="peer is unavailable"):
        TensorClient().call("127.0.0.1", server.port, b"abc", 5.0, "peer")  # server takes no calls
    from distflow.distributed.transport import CALL_MAGIC, MAX_CALL_BYTES

    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        s.sendall(hello_frame(None) + struct.pack("<4sQII", CALL_MAGIC, MAX_CALL_BYTES + 1, 0, 0))
        assert s.recv(1) == ACK
        try:
            assert s.recv(4096) == b""
        except ConnectionResetError:
            pass
    assert_oracle(TensorClient().fetch("127.0.0.1", server.port, 1, _key("x:0"), 5.0, "peer"), VALUES["x:0"])


@pytest.mark.skipif(not hasattr(__import__("select"), "epoll"), reason="the watchdog needs epoll (Linux)")
def test_a_caller_that_goes_away_mid_call_is_noticed():

    gone, release, called = threading.Event(), threading.Event(), threading.Event()

    def slow_call(payload, caller):
        caller.add_callback(gone.set)
        called.set()
        release.wait(10)
        return b"late"

    server = TensorServer("127.0.0.1", _handler, slow_call)
    try:
        s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        s.sendall(hello_frame(None) + struct.pack("<4sQII", b"DFC1", 1, 0, 0) + b"x")
        assert called.wait(5)
        assert not gone.wait(0.2)  # a caller that waits is not gone
        s.close()
        assert gone.wait(5)
    finally:
        release.set()
        server.close()


@pytest.mark.skipif(not shm.available(), reason="no /dev/shm")
def test_a_starting_server_sweeps_the_segments_of_dead_senders():
    import os
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    left = f"/dev/shm/distflow-{dead}-{'a' * 32}"
    ours = f"/dev/shm/distflow-{os.getpid()}-{'b' * 32}"  # a live sender's: kept
    other = "/dev/shm/distflow-not-a-segment"
    for path in (left, ours, other):
        with open(path, "wb") as f:
            f.write(b"x")
    try:
        server = TensorServer("127.0.0.1", _handler)
        server.close()
        assert not os.path.exists(left)
        assert os.path.exists(ours) and os.path.exists(other)
    finally:
        for path in (left, ours, other):
            if os.path.exists(path):
                os.unlink(path)


def _connect(port: int, hello: bool = True) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if hello:
        s.sendall(hello_frame(None))
        assert s.recv(1) == ACK
    return s


def test_idle_connections_wait_without_a_thread_and_are_served_when_they_speak(server, monkeypatch):

    from distflow.distributed import transport
    from thread_util import wait_until

    monkeypatch.setattr(transport, "LINGER_S", 0.05)
    before = threading.active_count()
    idle = [_connect(server.port, hello=i % 2 == 0) for i in range(300)]  # half never even say hello
    try:
        wait_until(lambda: server.connections().get("127.0.0.1") == 150, what="150 greeted connections open")
        assert server.ungreeted() <= transport.MAX_UNGREETED  # (the oldest silent ones were closed)
        wait_until(lambda: threading.active_count() <= before + 3, what="the idle connections to give up their threads")
        # any of them is served when it sends a request
        s = idle[10]
        keys = ";".join(_key("x:0")).encode()
        s.sendall(struct.pack("<4sQII", MAGIC, 1, 0, len(keys)) + keys)
        s.settimeout(5)
        head = s.recv(4)
        assert head == MAGIC
    finally:
        for s in idle:
            s.close()
    wait_until(lambda: not server.connections(), what="the closed connections to be dropped")


def test_a_peer_over_its_connection_limit_is_refused_and_others_are_not(server, monkeypatch):
    from distflow.distributed import transport
    from thread_util import wait_until

    monkeypatch.setattr(transport, "MAX_CONNECTIONS_PER_PEER", 20)
    held = [_connect(server.port) for _ in range(20)]
    try:
        extra = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        extra.sendall(hello_frame(None))
        try:
            assert extra.recv(1) == b""  # closed unanswered
        except ConnectionResetError:
            pass
        extra.close()
        assert server.connections() == {"127.0.0.1": 20}
        held.pop().close()
        wait_until(lambda: server.connections() == {"127.0.0.1": 19}, what="a closed connection to be counted")
        assert_oracle(TensorClient().fetch("127.0.0.1", server.port, 1, _key("x:0"), 5.0, "the test peer"),
                      VALUES["x:0"])
    finally:
        for s in held:
            s.close()


def test_idle_and_stalled_connections_are_closed_and_clients_reconnect_unnoticed(server, monkeypatch):
    from distflow.distributed import transport
    from thread_util import wait_until

    monkeypatch.setattr(transport, "LINGER_S", 0.05)
    monkeypatch.setattr(transport, "PARKING_POLL_S", 0.05)
    monkeypatch.setattr(transport, "IDLE_TIMEOUT_S", 0.5)
    monkeypatch.setattr(transport, "FRAME_TIMEOUT_S", 0.3)
    client = TensorClient()
    assert_oracle(client.fetch("127.0.0.1", server.port, 1, _key("x:0"), 5.0, "the test peer"), VALUES["x:0"])
    stalled = _connect(server.port)
    stalled.sendall(struct.pack("<4sQII", MAGIC, 1, 0, 10)[:9])  # half a request, then nothing
    try:
        wait_until(lambda: not server.connections(), what="the idle and the stalled connection to be closed")
        # the client's pooled connection was closed by the server: it takes a new one
        assert_oracle(client.fetch("127.0.0.1", server.port, 2, _key("big:0"), 5.0, "the test peer"),
                      VALUES["big:0"])
    finally:
        stalled.close()
        client.close()


SERVER_WITH_FEW_FILES = r'''
import resource, sys, time
import numpy as np
from distflow.distributed.transport import TensorServer
server = TensorServer("127.0.0.1", lambda step, key, timeout: np.arange(3.0))
import os
open_now = len(os.listdir("/proc/self/fd"))
resource.setrlimit(resource.RLIMIT_NOFILE, (open_now + 20, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
print(server.port, flush=True)
sys.stdin.read()
'''


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to count open files")
def test_a_server_out_of_file_descriptors_keeps_accepting_once_some_are_free():
    import subprocess
    import sys

    from thread_util import wait_until

    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.dirname(__file__)), "src"))
    proc = subprocess.Popen([sys.executable, "-c", SERVER_WITH_FEW_FILES], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env, text=True)
    try:
        port = int(proc.stdout.readline())
        flood = []  # greeted connections, one at a time, until the server has no file left for one
        for _ in range(60):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            flood.append(s)
            s.sendall(hello_frame(None))
            try:
                if s.recv(1) == ACK:
                    continue
            except OSError:
                pass
            break  # (not accepted: it waits in the backlog)
        client = TensorClient()
        assert not _fetches(client, port)  # (it cannot take another connection now)
        for s in flood:
            s.close()
        wait_until(lambda: _fetches(client, port), timeout=30, what="the server to serve again")
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait(10)


def _fetches(client: TensorClient, port: int) -> bool:
    try:
        return client.fetch("127.0.0.1", port, 1, _key("x:0"), 2.0, "the test peer").tolist() == [0.0, 1.0, 2.0]
    except (tf.errors.UnavailableError, tf.errors.DeadlineExceededError):
        return False


SENDER = r'''
import sys
import numpy as np
from distflow.distributed.transport import TensorServer
server = TensorServer("127.0.0.1", lambda step, key, timeout: np.ones(1 << 18, np.float32))
print(server.port, flush=True)
sys.stdin.read()
'''


@pytest.mark.skipif(not shm.available(), reason="no shared memory here")
def test_a_sender_killed_before_its_tensor_is_acknowledged_leaves_no_segment_after_the_next_server():
    import subprocess
    import sys

    from distflow.distributed.transport import SHM_MAGIC, _RESPONSE

    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.dirname(__file__)), "src"))
    sender = subprocess.Popen([sys.executable, "-c", SENDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=env, text=True)
    try:
        port = int(sender.stdout.readline())
        keys = ";".join(_key("big:0")).encode()
        with _connect(port) as s:
            s.sendall(struct.pack("<4sQII", SHM_MAGIC, 1, 0, len(keys)) + keys)
            head = b""
            while len(head) < _RESPONSE.size:
                head += s.recv(_RESPONSE.size - len(head))
            magic, _, name_len, _, _, _ = _RESPONSE.unpack(head)
            assert magic == SHM_MAGIC
            name, _, offset = s.recv(name_len).decode().rpartition(":")  # ("<segment>:<offset>")
            assert offset == "0"
            assert os.path.exists(f"/dev/shm/{name}")  # written, offered, not yet acknowledged
            sender.kill()  # the sender dies in that window; the receiver never maps it
            sender.wait(10)
        assert os.path.exists(f"/dev/shm/{name}")
        TensorServer("127.0.0.1", _handler).close()  # the next server on the host
        assert not os.path.exists(f"/dev/shm/{name}")
    finally:
        if sender.poll() is None:
            sender.kill()


def _closed_by_server(s: socket.socket) -> bool:
    """Whether the server has closed ``s`` (it reads end-of-file or a reset); never blocks."""
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_silent_connections_cannot_crowd_out_the_clusters_own(monkeypatch):
    """512 connections that never say hello, from the worker's own host: the worker's
    connections (with the token) are still accepted, and the silent ones hold at most
    MAX_UNGREETED descriptors and no thread."""
    from distflow.distributed import auth, transport
    from thread_util import wait_until

    monkeypatch.setenv(auth.TOKEN_ENV, "the-token")
    server = TensorServer("127.0.0.1", _handler, token=b"the-token")
    before = threading.active_count()
    silent = []
    try:
        for _ in range(transport.MAX_CONNECTIONS_PER_PEER + 8):
            silent.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
        wait_until(lambda: server.ungreeted() == transport.MAX_UNGREETED, what="the silent connections to be accepted")
        assert threading.active_count() <= before + 2  # (the accepting and the parking thread)
        client = TensorClient()
        for step in range(3):
            assert_oracle(client.fetch("127.0.0.1", server.port, step, _key("x:0"), 10.0, "the test peer"),
                          VALUES["x:0"])
        assert server.connections() == {"127.0.0.1": 1}
        assert server.ungreeted() <= transport.MAX_UNGREETED
        closed = sum(_closed_by_server(s) for s in silent)
        assert closed >= len(silent) - transport.MAX_UNGREETED  # the oldest made room
        client.close()
    finally:
        for s in silent:
            s.close()
        server.close()


def _drip(s: socket.socket, data: bytes, interval: float) -> int:
    """Sends ``data`` a byte every ``interval`` seconds until the server closes ``s``; how many were sent."""
    for sent in range(len(data)):
        if _closed_by_server(s):
            return sent
        s.setblocking(True)
        try:
            s.sendall(data[sent:sent + 1])
        except OSError:
            return sent
        time.sleep(interval)
    return len(data)


def test_a_hello_dripped_a_byte_at_a_time_is_closed_at_its_deadline_and_holds_no_thread(monkeypatch):
    """The hello has one deadline, from accept, for the whole of it: bytes that keep
    coming, each well within any per-read timeout, do not extend it."""
    from distflow.distributed import transport
    from thread_util import wait_until

    monkeypatch.setattr(transport, "HELLO_TIMEOUT_S", 1.0)
    monkeypatch.setattr(transport, "PARKING_POLL_S", 0.05)
    token = b"t" * 200
    server = TensorServer("127.0.0.1", _handler, token=token)
    before = threading.active_count()
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    try:
        # 207 of its 208 bytes over about 8 s: a deadline of 1 s closes it long before
        sent = _drip(s, hello_frame(token)[:-1], 0.04)
        assert threading.active_count() <= before + 2  # (no thread for it: accepting and parking only)
        assert sent < 206, "the dripping hello was held as long as bytes kept coming"
        wait_until(lambda: server.ungreeted() == 0, what="the connection to be dropped")
    finally:
        s.close()
        server.close()


def test_a_request_dripped_a_byte_at_a_time_is_closed_at_its_deadline(server, monkeypatch):
    """A request's header and keys have one deadline, from their first byte, for the whole of them."""
    from distflow.distributed import transport
    from thread_util import wait_until

    monkeypatch.setattr(transport, "FRAME_TIMEOUT_S", 1.0)
    s = _connect(server.port)
    keys = b"k" * 400
    try:
        # 419 of its 420 bytes over about 8 s: a deadline of 1 s closes it long before
        sent = _drip(s, struct.pack("<4sQII", MAGIC, 1, 0, len(keys)) + keys[:-1], 0.02)
        assert sent < 418, "the dripping request was held as long as bytes kept coming"
        wait_until(lambda: not server.connections(), what="the connection to be dropped")
    finally:
        s.close()


def _mapped_segments_of(pid: int) -> list[str]:
    with open("/proc/self/maps") as f:
        return [line for line in f if f"distflow-{pid}-" in line]


@pytest.mark.skipif(not shm.available() or not os.path.exists("/proc/self/maps"), reason="no shared memory here")
def test_connections_to_a_sender_that_left_are_closed_by_the_sweep_with_their_segment():
    """A task that left (its process ended) leaves its receivers' pooled connections in
    CLOSE-WAIT and its segment mapped; the sweep a server runs every few seconds closes both."""
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.dirname(__file__)), "src"))
    sender = subprocess.Popen([sys.executable, "-c", SENDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=env, text=True)
    client = TensorClient()
    try:
        port = int(sender.stdout.readline())
        value = client.fetch("127.0.0.1", port, 1, _key("big:0"), 10.0, "the sender")
        assert value.nbytes >= shm.MIN_BYTES and _mapped_segments_of(sender.pid)  # (it came in shared memory)
        del value
        assert client.sweep() == 0  # (alive: its connection stays pooled)
        sender.kill()
        sender.wait(10)
        from thread_util import wait_until

        wait_until(lambda: client.sweep() == 1 or not client._idle, what="the sweep to close the connection")
        assert not client._idle
        assert not _mapped_segments_of(sender.pid)
    finally:
        client.close()
        if sender.poll() is None:
            sender.kill()


def test_a_connection_taken_while_the_parking_thread_looks_does_not_stop_it():
    """A parked connection may be taken (and closed) by another thread between the parking
    thread's select and its lock: unregistering it again raised, the thread ended, and the
    server parked nothing more."""
    from thread_util import wait_until

    from distflow.distributed import transport

    class Conn:
        def __init__(self, sock):
            self.sock, self.wants_write, self.deadline = sock, False, time.monotonic() + 600

    activated, expired = [], []
    parking = transport._Parking(activated.append, expired.append, "test-parking")
    a, b = socket.socketpair()
    c, d = socket.socketpair()
    taken = Conn(a)
    select = parking._selector.select

    def select_then_take(timeout):
        events = select(timeout)
        if any(key.data is taken for key, _ in events) and parking.take(taken):
            a.close()  # (as a thread that took it would, before the parking thread sees the event)
        return events

    parking._selector.select = select_then_take
    try:
        parking.park(taken)
        b.sendall(b"x")
        wait_until(lambda: a.fileno() == -1, timeout=30, what="the connection to be taken")
        live = Conn(c)
        parking.park(live)
        d.sendall(b"y")
        wait_until(lambda: live in activated, timeout=30, what="a parked connection with bytes to be activated")
        assert taken not in activated
    finally:
        parking.close()
        for s in (b, c, d):
            s.close()
