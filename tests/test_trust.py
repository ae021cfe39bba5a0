"""Who may use a cluster and where it listens: the token on gRPC and the data port, binding where told."""

import os
import socket
import struct

import grpc
import numpy as np
import pytest

import distflow as tf
from cluster_util import LocalCluster
from thread_util import run_in_thread, wait_until
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


def _queue_graph(name: str):
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(-1, tf.float32, shapes=[[]], shared_name=name)
        return g, q.enqueue(7.0), q.dequeue()


def test_steps_left_blocked_cannot_wedge_the_control_plane_and_end_when_their_caller_leaves():
    from distflow.distributed.server import RPC_STEP_CALLS
    from distflow.runtime.executor import waiting_kernels

    server = tf.train.Server({"worker": ["127.0.0.1:0"]}, job_name="worker", task_index=0)
    address = server.target[len("grpc://"):]
    g, put, take = _queue_graph("flooded")
    try:
        flood = grpc.insecure_channel(address)
        create = flood.unary_unary("/distflow.Master/CreateSession", response_deserializer=pb.CreateSessionResponse.FromString)
        handle = create(pb.CreateSessionRequest(graph_def=g.as_graph_def()).SerializeToString(), timeout=30).session_handle
        run = flood.unary_unary("/distflow.Master/RunStep")
        step = pb.RunStepRequest(session_handle=handle, fetch=[take.name]).SerializeToString()
        before = waiting_kernels()
        calls = [run.future(step) for _ in range(RPC_STEP_CALLS + 20)]  # no deadline: each would wait for good
        wait_until(lambda: waiting_kernels() == before + RPC_STEP_CALLS, what="the limit of blocked steps")
        wait_until(lambda: sum(c.done() for c in calls) == 20, what="the calls over the limit to be refused")
        refused = [c for c in calls if c.done()]
        assert all(c.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for c in refused)
        assert "steps for its callers already" in refused[0].details()
        # the calls that answer at once still do: status, a new session, a step with a deadline
        channels = Channels()
        try:
            status = channels.call(address, "distflow.Worker", "GetStatus", pb.GetStatusRequest(), timeout=10)
            assert status.waiting_kernels == before + RPC_STEP_CALLS
            channels.call(address, "distflow.Master", "CreateSession",
                          pb.CreateSessionRequest(graph_def=g.as_graph_def()), timeout=10)
        finally:
            channels.close()
        # the caller goes away: every step it left blocked is cancelled and takes nothing
        flood.close()
        wait_until(lambda: waiting_kernels() == before, what="the cancelled steps to end")
        with tf.Session(server.target, graph=g) as sess:
            sess.run(put)
            assert sess.run(take, options=tf.RunOptions(timeout_in_ms=10000)) == 7.0
    finally:
        server.stop()


CLIENT = r'''
import sys
import distflow as tf
q = tf.FIFOQueue(-1, tf.float32, shapes=[[]], shared_name="dead_client")
with tf.Session(sys.argv[1]) as sess:
    sess.run(q.dequeue())
'''


def test_a_client_killed_while_its_step_waits_has_the_step_cancelled_before_it_takes_anything():
    import os
    import subprocess
    import sys

    from cluster_util import ROOT

    c = LocalCluster({"ps": 1})
    client = None
    try:
        before = c.waiting_kernels("ps")
        client = subprocess.Popen([sys.executable, "-c", CLIENT, c.target("ps")],
                                  env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")))
        wait_until(lambda: c.waiting_kernels("ps") > before, what="the client's dequeue waiting on the ps")
        client.kill()
        client.wait(10)
        wait_until(lambda: c.waiting_kernels("ps") == before, what="the dead client's step to be cancelled")
        g, put, take = _queue_graph("dead_client")
        with tf.Session(c.target("ps"), graph=g) as sess:
            sess.run(put)
            assert sess.run(take, options=tf.RunOptions(timeout_in_ms=10000)) == 7.0
    finally:
        if client is not None and client.poll() is None:
            client.kill()
        c.close()


def test_a_tensor_filled_from_one_value_costs_no_memory_however_large_it_says_it_is():
    import resource

    from distflow.framework import wire

    huge = pb.TensorProto(dtype=pb.DT_FLOAT, float_val=[0.5])  # 2**31 floats: 8 GiB if filled in
    huge.tensor_shape.dim.add(size=2**31)
    g = tf.Graph()
    with g.as_default():
        small = tf.constant(3.0, name="small")
    graph_def = g.as_graph_def()
    node = graph_def.node.add(name="huge", op="Const")
    node.attr["dtype"].type = pb.DT_FLOAT
    node.attr["value"].tensor.CopyFrom(huge)
    server = tf.train.Server({"worker": ["127.0.0.1:0"]}, job_name="worker", task_index=0)
    try:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with grpc.insecure_channel(server.target[len("grpc://"):]) as channel:
            create = channel.unary_unary("/distflow.Master/CreateSession",
                                         response_deserializer=pb.CreateSessionResponse.FromString)
            for _ in range(8):  # each a session the client never closes
                create(pb.CreateSessionRequest(graph_def=graph_def).SerializeToString(), timeout=30)
        grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        assert grown_kb < 200_000, f"the server grew by {grown_kb} KB"
        with tf.Session(server.target, graph=g) as sess:  # and serves
            assert sess.run(small) == 3.0
    finally:
        server.stop()
    # such a tensor is sent as the one value it is, and read back as it was
    splat = np.broadcast_to(np.float32(0.5), (1000, 1000))
    proto = wire.tensor_to_proto(splat)
    assert proto.ByteSize() < 32 and list(proto.float_val) == [0.5]
    np.testing.assert_array_equal(wire.tensor_from_proto(proto), splat)
    assert wire.tensor_from_proto(proto, writable=True).flags.writeable


def test_the_largest_declared_tensor_is_configurable_and_checked_before_allocating(monkeypatch):
    from distflow.framework import wire

    monkeypatch.setenv("DISTFLOW_MAX_TENSOR_BYTES", "oops")
    with pytest.raises(ValueError, match="DISTFLOW_MAX_TENSOR_BYTES='oops': expected a whole number"):
        wire.positive_int_from_env("DISTFLOW_MAX_TENSOR_BYTES", 1)
    monkeypatch.setattr(wire, "MAX_TENSOR_BYTES", 1 << 20)
    proto = pb.TensorProto(dtype=pb.DT_FLOAT, float_val=[1.0])
    proto.tensor_shape.dim.add(size=(1 << 18) + 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[262145\] is too large"):
        wire.tensor_from_proto(proto)
    proto.tensor_shape.dim[0].size = 2**32  # with another dimension, a product that wraps in int64
    proto.tensor_shape.dim.add(size=2**32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="too large"):
        wire.tensor_from_proto(proto)


def _fast_housekeeping(monkeypatch):
    from distflow.distributed import server as server_module
    from distflow.distributed import worker as worker_module

    monkeypatch.setattr(server_module, "HOUSEKEEPING_S", 0.05)
    monkeypatch.setattr(worker_module, "STALE_STEP_SECONDS", 0.3)
    monkeypatch.setattr(worker_module, "FAILED_STEP_SECONDS", 0.3)


def test_requests_for_steps_that_never_run_here_leave_nothing_behind(monkeypatch):
    import gc
    import tracemalloc

    from distflow.distributed.task import TaskDirectory

    _fast_housekeeping(monkeypatch)
    server = tf.train.Server({"worker": ["127.0.0.1:0"]}, job_name="worker", task_index=0)
    worker = server._worker
    client = TaskDirectory(server.cluster_spec).data
    port = worker.transport.port
    key = ("/job:worker/replica:0/task:0/device:CPU:0", "/job:ps/replica:0/task:0/device:CPU:0", "t:0")
    try:
        def ask(step_id, timeout):
            with pytest.raises((tf.errors.DeadlineExceededError, tf.errors.AbortedError)) as caught:
                client.fetch("127.0.0.1", port, step_id, key, timeout, "the worker")
            return caught.value

        tracemalloc.start()
        for i in range(300):  # (the first ones warm connections and caches up)
            ask(i + 1, 0.001)
        gc.collect()  # (failed requests' exceptions are cycles, freed by the collector)
        before = tracemalloc.take_snapshot()
        for i in range(300):
            ask(1000 + i, 0.001)
        gc.collect()
        grown = sum(d.size_diff for d in tracemalloc.take_snapshot().compare_to(before, "filename"))
        tracemalloc.stop()
        assert not worker._steps, f"{len(worker._steps)} steps left behind"
        assert grown < 300 * 100, f"{grown / 300:.0f} bytes left per request"
        # one with no deadline waits for its step, and fails once the step has not begun for a while
        error = ask(99999, None)
        assert isinstance(error, tf.errors.AbortedError) and "never ran on /job:worker" in error.message
        wait_until(lambda: not worker._steps and not worker._failed, what="the step's memory to go")
        # a step that ran here and sent a tensor nobody came for lets it go after a while too
        rdv = worker._step(5)
        rdv.claimed = True
        rdv.send(key, np.zeros(1 << 20))
        rdv.since, rdv.finished = rdv.since - 100.0, True
        wait_until(lambda: not worker._steps, what="the untaken tensor to be let go")
    finally:
        server.stop()


def test_unclosed_sessions_of_gone_clients_are_closed_and_a_live_client_gets_a_new_one(monkeypatch):
    _fast_housekeeping(monkeypatch)
    monkeypatch.setenv("DISTFLOW_SESSION_GC_SECONDS", "0.5")
    server = tf.train.Server({"worker": ["127.0.0.1:0"]}, job_name="worker", task_index=0)
    master = server._master
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(-1, tf.float32, shapes=[[]], shared_name="gc_queue")
        put, take, take_two = q.enqueue(7.0), q.dequeue(), q.dequeue_many(2)
    try:
        with grpc.insecure_channel(server.target[len("grpc://"):]) as channel:
            create = channel.unary_unary("/distflow.Master/CreateSession")
            for _ in range(50):  # clients that never close their sessions
                create(pb.CreateSessionRequest(graph_def=g.as_graph_def()).SerializeToString(), timeout=30)
        sess = tf.Session(server.target, graph=g)
        sess.run(put)
        blocked, out = run_in_thread(lambda: sess.run(take_two))  # a session with a step running is not idle
        wait_until(lambda: len(master._sessions) == 1, what="the unused sessions to be closed")
        sess.run(put)
        blocked.join(10)
        assert out["value"].tolist() == [7.0, 7.0]
        wait_until(lambda: not master._sessions, what="the live client's session to be closed once unused")
        sess.run(put)  # the client makes a new session, and its queue is still there
        assert sess.run(take) == 7.0
        sess.close()
    finally:
        server.stop()
    monkeypatch.setenv("DISTFLOW_SESSION_GC_SECONDS", "soon")
    with pytest.raises(ValueError, match="DISTFLOW_SESSION_GC_SECONDS='soon': expected a number of seconds"):
        tf.train.Server({"worker": ["127.0.0.1:0"]}, job_name="worker", task_index=0)


def test_the_largest_request_a_server_reads_is_configurable(monkeypatch):
    from distflow.framework import wire
    from distflow.distributed.transport import TensorClient

    monkeypatch.setattr(wire, "MAX_MESSAGE_BYTES", 1 << 20)
    server = tf.train.Server({"worker": ["127.0.0.1:0"]}, job_name="worker", task_index=0)
    try:
        g = tf.Graph()
        with g.as_default():
            tf.constant(np.zeros(1 << 19, np.float32))  # a 2 MB graph
        with grpc.insecure_channel(server.target[len("grpc://"):]) as channel:
            with pytest.raises(grpc.RpcError) as caught:
                channel.unary_unary("/distflow.Master/CreateSession")(
                    pb.CreateSessionRequest(graph_def=g.as_graph_def()).SerializeToString(), timeout=30)
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        port = server._worker.transport.port
        with pytest.raises(tf.errors.UnavailableError):
            TensorClient().call("127.0.0.1", port, b"\x00" * (2 << 20), 10.0, "the worker")
        with pytest.raises(tf.errors.AbortedError, match="not registered"):  # a small one is served
            TensorClient().call("127.0.0.1", port, pb.RunGraphRequest(graph_handle="x").SerializeToString(), 10.0,
                                "the worker")
    finally:
        server.stop()


def test_a_master_holds_a_bounded_number_of_sessions_of_bounded_size(monkeypatch):
    from distflow.distributed import master as master_module

    monkeypatch.setattr(master_module, "MAX_SESSIONS", 3)
    monkeypatch.setattr(master_module, "MAX_GRAPH_BYTES", 4000)
    server = tf.train.Server({"worker": ["127.0.0.1:0"]}, job_name="worker", task_index=0)
    try:
        sessions = [tf.Session(server.target) for _ in range(3)]
        for s in sessions:
            s.run(tf.constant(1.0))
        with pytest.raises(tf.errors.ResourceExhaustedError, match="holds 3 sessions, the most it holds"):
            tf.Session(server.target).run(tf.constant(1.0))
        sessions.pop().close()
        with tf.Session(server.target) as sess:  # room again
            assert sess.run(tf.constant(2.0)) == 2.0
            with pytest.raises(tf.errors.ResourceExhaustedError, match="more than the 4000 a session may hold"):
                sess.run(tf.constant(np.zeros(2000, np.float32)))  # the graph grows by 8 KB
        for s in sessions:
            s.close()
    finally:
        server.stop()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to count open files")
def test_unauthenticated_connections_cannot_exhaust_a_tasks_file_descriptors(monkeypatch, tmp_path):
    """400 silent connections to each port of a ps that may open 256 files: it keeps
    descriptors for what its cluster needs. A health call answers, and a new session
    whose step crosses to the worker (a new data connection from the ps) trains and
    saves a checkpoint on the ps (a new file). (The tasks' gRPC channels are made before
    the flood: a new gRPC connection waits while silent ones hold the port's slots.)"""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(auth.TOKEN_ENV, TOKEN)
        c = LocalCluster({"ps": 1, "worker": 1}, open_files=256)
    monkeypatch.setenv(auth.TOKEN_ENV, TOKEN)
    channels = Channels()
    flood = []
    try:
        ps = c.address("ps")
        warm = tf.Graph()
        with warm.as_default():
            with tf.device("/job:ps/task:0"):
                w = tf.Variable(1.0, name="w")
            with tf.device("/job:worker/task:0"):
                twice = w * 2.0
        with tf.Session(c.target("worker"), graph=warm) as sess:  # (the worker's channel to the ps)
            sess.run(w.initializer)
            assert sess.run(twice) == 2.0
        data_port = channels.call(ps, "distflow.Worker", "GetStatus", pb.GetStatusRequest(), timeout=10).data_port
        for port in (data_port, int(ps.rsplit(":", 1)[1])):
            for _ in range(400):
                try:
                    flood.append(socket.create_connection(("127.0.0.1", port), timeout=5))
                except OSError:
                    pass  # (refused or timed out: its backlog is full)
        assert channels.call(ps, "distflow.Worker", "GetStatus", pb.GetStatusRequest(), timeout=10).data_port
        pid = c.procs[("ps", 0)].pid
        assert len(os.listdir(f"/proc/{pid}/fd")) < 256 - 64  # (room left for sessions and files)
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:0"):
                v = tf.Variable(np.zeros(1000, np.float32), name="v")
            with tf.device("/job:worker/task:0"):
                update = v.assign_add(tf.ones([1000]) * 2.0)
            saver = tf.train.Saver(sharded=True)  # (written by the ps)
        with tf.Session(c.target("worker"), graph=g) as sess:
            sess.run(v.initializer, options=tf.RunOptions(timeout_in_ms=20000))
            sess.run(update, options=tf.RunOptions(timeout_in_ms=20000))
            path = saver.save(sess, str(tmp_path / "model.ckpt"))
            np.testing.assert_array_equal(sess.run(v), np.full(1000, 2.0, np.float32))
        assert tf.train.load_variable(path, "v").tolist() == [2.0] * 1000
        assert c.procs[("ps", 0)].poll() is None
    finally:
        for s in flood:
            s.close()
        channels.close()
        c.close()


def test_a_step_with_nothing_to_run_returns_nothing_locally_and_remotely():
    server = tf.train.Server.create_local_server()
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.float32, name="p")
        tf.constant(1.0)
    try:
        with tf.Session(server.target, graph=g) as sess:
            assert sess.run([]) == [] and sess.run({}) == {}
            assert sess.run([p], {p: 3.0}) == [3.0]  # (fed and fetched: nothing runs either)
        channels = Channels()
        try:  # the raw call: no fetch, no target
            create = pb.CreateSessionRequest(graph_def=g.as_graph_def())
            address = server.target[len("grpc://"):]
            handle = channels.call(address, "distflow.Master", "CreateSession", create, timeout=10).session_handle
            response = channels.call(address, "distflow.Master", "RunStep", pb.RunStepRequest(session_handle=handle),
                                     timeout=10)
            assert len(response.tensor) == 0
        finally:
            channels.close()
    finally:
        server.stop()


def _resident_mb(pid: int) -> float:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc to read a process's memory")
def test_a_ps_gives_back_the_memory_of_large_feeds_and_of_workers_that_left():
    from distflow.distributed import shm

    # (the servers sweep every 0.5 s instead of 5: what is given back is the same, sooner)
    c = LocalCluster({"ps": 1, "worker": 1}, env={"DISTFLOW_HOUSEKEEPING_S": "0.5"})
    try:
        ps_pid, worker_pid = c.procs[("ps", 0)].pid, c.procs[("worker", 0)].pid
        g = tf.Graph()
        with g.as_default():
            p = tf.placeholder(tf.float32, [None])
            with tf.device("/job:ps/task:0"):
                total = tf.reduce_sum(p)
        with tf.Session(c.target("ps"), graph=g) as sess:
            sess.run(total, {p: np.ones(4, np.float32)})
            before = _resident_mb(ps_pid)
            for _ in range(3):  # 64 MB feeds, each through gRPC
                assert sess.run(total, {p: np.ones(16 << 20, np.float32)}) == 16 << 20
        wait_until(lambda: _resident_mb(ps_pid) - before < 32, what="the ps to give back the feeds' memory")
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:worker/task:0"):
                big = tf.ones([16 << 20])
            with tf.device("/job:ps/task:0"):
                total = tf.reduce_sum(big)
        with tf.Session(c.target("ps"), graph=g) as sess:
            assert sess.run(total) == 16 << 20  # 64 MB from the worker (shared memory, on this host)
        c.kill("worker", 0)

        def mapped_from_worker():
            with open(f"/proc/{ps_pid}/maps") as f:
                return [line for line in f if f"distflow-{worker_pid}-" in line]

        if shm.available():
            wait_until(lambda: not mapped_from_worker(), what="the ps to unmap the segment of the worker that left")
        wait_until(lambda: _resident_mb(ps_pid) - before < 32, what="the ps to give back the worker's tensor")
    finally:
        c.close()


def test_a_server_without_a_token_that_others_can_reach_warns_that_anyone_may_run_graphs(monkeypatch, caplog):
    monkeypatch.delenv(auth.TOKEN_ENV, raising=False)
    monkeypatch.delenv(auth.TOKEN_FILE_ENV, raising=False)
    with caplog.at_level("INFO", logger="distflow"):
        open_server = tf.train.Server({"w": ["0.0.0.0:0"]}, job_name="w", task_index=0)
        open_server.stop()
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("no token" in m and "anyone who can reach" in m and "DISTFLOW_TOKEN" in m for m in warnings), warnings
    caplog.clear()
    with caplog.at_level("INFO", logger="distflow"):
        local = tf.train.Server.create_local_server()  # (loopback only: said, but not as a warning)
        local.stop()
    assert not [r for r in caplog.records if r.levelname == "WARNING" and "no token" in r.getMessage()]
    assert any("no token" in r.getMessage() for r in caplog.records)


def test_a_session_waiting_for_its_master_says_so_and_why(monkeypatch, caplog):
    from distflow.distributed import grpc_session

    monkeypatch.setattr(grpc_session, "WAIT_LOG_S", 0.2)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # (closed again: nothing listens there)
    sess = tf.Session(f"grpc://127.0.0.1:{port}", config=tf.ConfigProto(connect_timeout_in_ms=1000))
    with caplog.at_level("WARNING", logger="distflow"):
        with pytest.raises(tf.errors.UnavailableError, match="nothing listens"):
            sess.run(tf.constant(1))
    waits = [r.getMessage() for r in caplog.records if "waiting for the master" in r.getMessage()]
    assert waits and "nothing listens" in waits[0]


@pytest.mark.parametrize("to", ["process", "another thread"])
def test_ctrl_c_on_a_server_started_by_hand_stops_it_without_a_traceback(to):
    """The kernel hands a process's SIGINT to any of its threads; one that lands on a thread
    other than the main one (gRPC's, say) must stop the server too."""
    import signal
    import subprocess
    import sys

    from cluster_util import ROOT
    from distflow.tools.launcher import free_ports

    port = free_ports(1)[0]
    # (it says "serving" once its main thread is inside join, so the Ctrl-C lands there)
    # (Python's own SIGINT handler, as a process in a terminal's foreground has: run as a
    # background job, the suite and the processes it starts inherit SIGINT ignored)
    program = ("import faulthandler, signal, sys, threading, time\n"
               "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
               "faulthandler.register(signal.SIGUSR1, all_threads=True)\n"
               "import distflow as tf\n"
               f"server = tf.train.Server({{'ps': ['127.0.0.1:{port}']}}, job_name='ps', task_index=0)\n"
               "def tell():\n"
               "    while True:\n"
               "        frame, codes = sys._current_frames().get(threading.main_thread().ident), []\n"
               "        while frame is not None:\n"
               "            codes.append(frame.f_code)\n"
               "            frame = frame.f_back\n"
               "        if tf.train.Server.join.__code__ in codes:\n"
               "            print('serving', flush=True)\n"
               + ("            signal.pthread_kill(threading.get_ident(), signal.SIGINT)\n" if to == "another thread" else "")
               + "            return\n"
               "        time.sleep(0.01)\n"
               "threading.Thread(target=tell, daemon=True).start()\n"
               "server.join()\n")
    proc = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")))
    try:
        assert proc.stdout.readline().strip() == "serving"
        if to == "process":
            proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # (every thread's stack, to say where it hangs)
            proc.send_signal(signal.SIGUSR1)
            try:
                proc.communicate(timeout=2)
            except subprocess.TimeoutExpired as e:
                proc.kill()
                raise AssertionError(f"still running 30 s after the Ctrl-C:\n{e.stderr}") from None
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "Traceback" not in err and "stopped (Ctrl-C)" in err, err
