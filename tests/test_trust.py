"""Who may use a cluster and where it listens: the token on gRPC and the data port, binding where told."""

import socket
import struct

import grpc
import pytest

import distflow as tf
from cluster_util import LocalCluster
from distflow.distributed import auth
from distflow.distributed.rpc import Channels
from distflow.distributed.transport import NAK, TensorClient, hello_frame
from distflow.protos import distflow_pb2 as pb

TOKEN = "s3cret-token-of-the-cluster"


@pytest.fixture(scope="module")
def cluster():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(auth.TOKEN_ENV, TOKEN)  # (the servers' environment)
        c = LocalCluster({"ps": 1, "worker": 1})
    yield c
    c.close()


def _graph():
    g = tf.Graph()
    with g.as_default(), tf.device("/job:ps/task:0"):
        v = tf.Variable([1.0, 2.0], name="guarded")
    return g, v


def test_a_client_with_the_token_runs_steps(cluster, monkeypatch):
    monkeypatch.setenv(auth.TOKEN_ENV, TOKEN)
    g, v = _graph()
    with tf.Session(cluster.target("worker", 0), graph=g) as sess:
        sess.run(v.initializer)
        assert sess.run(v).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("token", [None, "not-the-token"])
def test_a_client_without_the_token_can_neither_read_nor_change_anything(cluster, monkeypatch, token):
    monkeypatch.delenv(auth.TOKEN_ENV, raising=False)
    if token:
        monkeypatch.setenv(auth.TOKEN_ENV, token)
    g, v = _graph()
    with pytest.raises(tf.errors.UnauthenticatedError, match="requires a token"):
        with tf.Session(cluster.target("worker", 0), graph=g) as sess:
            sess.run(v.initializer)
    # nothing ran: the token's holder still finds the task serving, its state intact
    monkeypatch.setenv(auth.TOKEN_ENV, TOKEN)
    channels = Channels()
    try:
        status = channels.call(cluster.address("ps", 0), "distflow.Worker", "GetStatus", pb.GetStatusRequest(),
                               timeout=10)
    finally:
        channels.close()
    assert status.task == "/job:ps/replica:0/task:0"


@pytest.mark.parametrize("method,request_", [("Shutdown", pb.ShutdownRequest()),
                                             ("ResetContainers", pb.ResetContainersRequest()),
                                             ("GetStatus", pb.GetStatusRequest())])
def test_raw_grpc_calls_without_the_token_are_unauthenticated_and_do_nothing(cluster, monkeypatch, method,
                                                                             request_):
    with grpc.insecure_channel(cluster.address("ps", 0)) as channel:
        call = channel.unary_unary(f"/distflow.Worker/{method}", request_serializer=type(request_).SerializeToString,
                                   response_deserializer=lambda b: b)
        with pytest.raises(grpc.RpcError) as caught:
            call(request_, timeout=10)
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as caught:  # a wrong token, and garbage that is never parsed
            channel.unary_unary(f"/distflow.Worker/{method}")(b"\xff" * 64, timeout=10,
                                                              metadata=((auth.METADATA_KEY, "wrong"),))
        assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert cluster.procs[("ps", 0)].poll() is None  # Shutdown did not stop it


def _ps_data_port(cluster, monkeypatch) -> int:
    """The ps's data port, asked with the token; the test goes on without one."""
    monkeypatch.setenv(auth.TOKEN_ENV, TOKEN)
    channels = Channels()
    try:
        return channels.call(cluster.address("ps", 0), "distflow.Worker", "GetStatus", pb.GetStatusRequest(),
                             timeout=10).data_port
    finally:
        channels.close()
        monkeypatch.delenv(auth.TOKEN_ENV)


def test_the_data_port_refuses_a_connection_without_the_token(cluster, monkeypatch):
    port = _ps_data_port(cluster, monkeypatch)
    run_graph = pb.RunGraphRequest(graph_handle="anything").SerializeToString()
    with pytest.raises(tf.errors.UnauthenticatedError, match="needs the cluster's token"):
        TensorClient().call("127.0.0.1", port, run_graph, 5.0, "ps")
    for hello in (hello_frame(b"wrong"), hello_frame(None)):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(hello + struct.pack("<4sQII", b"DFC1", len(run_graph), 0, 0) + run_graph)
            assert s.recv(1) == NAK
            try:
                assert s.recv(100) == b""  # and closed (or reset): the call never ran
            except ConnectionResetError:
                pass
    for junk in (struct.pack("<4sI", b"DFA1", 1 << 30), b"GET / HTTP/1.0\r\n\r\n"):  # a huge or no hello
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(junk)
            s.settimeout(5)
            try:
                assert s.recv(100) == b""
            except ConnectionResetError:
                pass
    monkeypatch.setenv(auth.TOKEN_ENV, TOKEN)
    with pytest.raises(tf.errors.AbortedError, match="not registered"):  # with the token, the call is served
        TensorClient().call("127.0.0.1", port, run_graph, 5.0, "ps")


def test_the_token_comes_from_the_environment_or_a_file_and_is_checked(tmp_path, monkeypatch):
    monkeypatch.delenv(auth.TOKEN_ENV, raising=False)
    monkeypatch.delenv(auth.TOKEN_FILE_ENV, raising=False)
    assert auth.configured_token() is None
    path = tmp_path / "token"
    path.write_text("from-a-file\nsecond line ignored\n")
    monkeypatch.setenv(auth.TOKEN_FILE_ENV, str(path))
    assert auth.configured_token() == b"from-a-file"
    monkeypatch.setenv(auth.TOKEN_ENV, "from-the-variable")  # the variable wins
    assert auth.configured_token() == b"from-the-variable"
    for bad in ("", "has space", "x" * 2000, "caf\u00e9"):
        monkeypatch.setenv(auth.TOKEN_ENV, bad)
        with pytest.raises(ValueError, match="printable ASCII"):
            auth.configured_token()
    monkeypatch.delenv(auth.TOKEN_ENV)
    monkeypatch.setenv(auth.TOKEN_FILE_ENV, str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="Cannot read the distflow token"):
        auth.configured_token()
    assert auth.matches(None, None) and auth.matches(b"a", b"a")
    assert not auth.matches(b"a", None) and not auth.matches(b"a", b"b")


# -- binding where told, and targets that cannot work ------------------------------------------


def test_a_localhost_task_whose_ipv4_port_is_taken_fails_instead_of_binding_ipv6_only():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(tf.errors.UnknownError, match=f"127.0.0.1:{port} is in use"):
            tf.train.Server({"worker": [f"localhost:{port}"]}, job_name="worker", task_index=0)


def test_bad_ports_and_shared_addresses_are_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="port from 1 to 65535"):
        tf.train.Server({"worker": ["127.0.0.1:70000"]}, job_name="worker", task_index=0)
    with pytest.raises(ValueError, match="given to both /job:ps/task:0 and /job:worker/task:0"):
        tf.train.ClusterSpec({"ps": ["10.0.0.1:2222"], "worker": ["10.0.0.1:2222"]})
    tf.train.ClusterSpec({"worker": ["127.0.0.1:0", "127.0.0.1:0"]})  # "any free port" twice is fine
    for target in ("grpc://127.0.0.1", "grpc://host:port", "grpc://:2222", "grpc://h:0"):
        with pytest.raises(ValueError, match="grpc://host:port"):
            tf.Session(target)


def test_a_session_to_an_address_where_nothing_listens_fails_within_the_connect_timeout():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # (closed again: nothing listens there)
    sess = tf.Session(f"grpc://127.0.0.1:{port}", config=tf.ConfigProto(connect_timeout_in_ms=500))
    with pytest.raises(tf.errors.UnavailableError, match=f"127.0.0.1:{port} did not answer within 0.5 s"):
        sess.run(tf.constant(1))


def test_a_call_header_that_declares_16_gib_costs_no_memory_up_front():
    import resource

    from distflow.distributed.transport import CALL_MAGIC, MAX_CALL_BYTES, TensorServer

    server = TensorServer("127.0.0.1", lambda *a: None, lambda payload, caller: b"")
    try:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for _ in range(4):
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
                s.sendall(hello_frame(None) + struct.pack("<4sQII", CALL_MAGIC, MAX_CALL_BYTES, 0, 0) + b"x" * 10)
                assert s.recv(1) == b"\x06"  # the hello's ACK; then it waits for bytes that never come
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:  # and it still serves
            s.sendall(hello_frame(None) + struct.pack("<4sQII", CALL_MAGIC, 3, 0, 0) + b"abc")
            assert s.recv(1) == b"\x06" and s.recv(4) == b"DFC1"
        grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        assert grown_kb < 200_000, f"the process grew by {grown_kb} KB"
    finally:
        server.close()


def test_a_large_first_call_to_a_port_that_refuses_the_hello_says_so(cluster, monkeypatch):
    port = _ps_data_port(cluster, monkeypatch)
    for _ in range(3):
        with pytest.raises(tf.errors.UnauthenticatedError, match="needs the cluster's token"):
            TensorClient().call("127.0.0.1", port, b"\x00" * (64 << 20), 10.0, "ps")  # refused mid-send


def test_mutated_graph_requests_are_invalid_argument_never_internal():
    import random

    server = tf.train.Server({"worker": ["127.0.0.1:0"]}, job_name="worker", task_index=0)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(tf.ones([3, 2]), name="w")
        tf.cond(tf.reduce_sum(x) > 0, lambda: tf.matmul(x, w), lambda: -tf.matmul(x, w))
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
    base = pb.CreateSessionRequest(graph_def=g.as_graph_def()).SerializeToString()
    rng = random.Random(0)
    codes = set()
    try:
        with grpc.insecure_channel(server.target[len("grpc://"):]) as channel:
            create = channel.unary_unary("/distflow.Master/CreateSession")
            for _ in range(400):
                data = bytearray(base)
                for _ in range(rng.randint(1, 4)):
                    data[rng.randrange(len(data))] = rng.randrange(256)
                try:
                    create(bytes(data), timeout=10)
                    codes.add("OK")
                except grpc.RpcError as e:
                    codes.add(e.code().name)
                    assert e.code() != grpc.StatusCode.INTERNAL, e.details()
            assert "INVALID_ARGUMENT" in codes
        with tf.Session(server.target, graph=g) as sess:  # and it still serves
            sess.run(w.initializer)
    finally:
        server.stop()
