"""The distributed runtime over real server processes on 127.0.0.1."""

import threading
import time

import grpc
import numpy as np
import pytest

import distflow as tf
from cluster_util import LocalCluster
from thread_util import run_in_thread, run_until_blocked, wait_until
from distflow.protos import distflow_pb2 as pb
from distflow.distributed.rpc import MASTER_METHODS, WORKER_METHODS


@pytest.fixture(scope="module")
def cluster():
    c = LocalCluster({"ps": 1, "worker": 2})
    yield c
    c.close()


def test_step_across_tasks_and_fetch_structures(cluster):
    with tf.device(tf.train.replica_device_setter(cluster=cluster.spec, worker_device="/job:worker/task:0")):
        v = tf.Variable([1.0, 2.0], name="step_v")
        x = tf.placeholder(tf.float32, [2])
        y = v * x + 1.0
    with tf.Session(cluster.target("worker", 0)) as sess:
        sess.run(v.initializer)
        out = sess.run({"y": y, "both": [v, x]}, {x: [3.0, 4.0]})
        assert out["y"].tolist() == [4.0, 9.0]
        assert out["both"][0].tolist() == [1.0, 2.0] and out["both"][1].tolist() == [3.0, 4.0]
        out["y"] += 1  # fetched arrays are the caller's, and writable


def test_a_partial_run_across_tasks_carries_a_parts_values_to_the_next(cluster):
    with tf.device("/job:ps/task:0"):
        draws = tf.Variable(0, name="partial_draws")
        drawn = tf.assign_add(draws, 1)
        a, b = tf.placeholder(tf.float32, []), tf.placeholder(tf.float32, [])
        noise = tf.random_uniform([])
    with tf.device("/job:worker/task:1"):
        r1 = a + noise + tf.cast(drawn, tf.float32)
        r2 = r1 * b
    with tf.Session(cluster.target("worker", 0)) as sess:
        sess.run(draws.initializer)
        h = sess.partial_run_setup([r1, r2, noise], [a, b])
        first, drawn_noise = sess.partial_run(h, [r1, noise], {a: 1.0})
        assert first == pytest.approx(2.0 + drawn_noise)
        assert sess.partial_run(h, r2, {b: 3.0}) == pytest.approx(first * 3.0)
        assert sess.run(draws) == 1


def test_a_traced_remote_step_brings_back_every_tasks_kernel_times_and_partitions(cluster):
    with tf.device("/job:ps/task:0"):
        x = tf.placeholder(tf.float32, [2], name="traced_x")
        doubled = tf.multiply(x, 2.0, name="traced_doubled")
    with tf.device("/job:worker/task:1"):
        total = tf.reduce_sum(doubled, name="traced_total")
    full = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
    meta = tf.RunMetadata()
    with tf.Session(cluster.target("worker", 0)) as sess:
        assert sess.run(total, {x: [1.0, 2.0]}, options=full, run_metadata=meta) == 6.0
        devices = [d.device for d in meta.step_stats.dev_stats]
        assert "/job:ps/replica:0/task:0/device:CPU:0" in devices
        assert "/job:worker/replica:0/task:1/device:CPU:0" in devices
        ran = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
        assert {"traced_doubled", "traced_total"} <= ran
        nodes = {n.name: n.device for g in meta.partition_graphs for n in g.node}
        assert nodes["traced_doubled"].startswith("/job:ps/") and nodes["traced_total"].startswith("/job:worker/")
        sess.run(total, {x: [1.0, 2.0]}, run_metadata=meta)  # (no options: nothing asked, nothing filled)
        assert not meta.HasField("step_stats") and not meta.partition_graphs


def test_elastic_averaging_between_two_workers_meets_at_a_center_on_the_ps(cluster):
    """Each worker's graph: its own w (on its task) pulled toward its own target, and the
    center on the ps; the init barrier holds each worker until both copied the center."""
    workers = []
    for task, target in ((0, 0.0), (1, 10.0)):
        graph = tf.Graph()
        with graph.as_default():
            device = f"/job:worker/task:{task}"
            getter = tf.contrib.opt.ElasticAverageCustomGetter(device)
            with tf.device(tf.train.replica_device_setter(cluster=cluster.spec, worker_device=device)):
                with tf.variable_scope("", custom_getter=getter):
                    w = tf.get_variable("easgd_w", initializer=5.0)
                step = tf.train.get_or_create_global_step()
                easgd = tf.contrib.opt.ElasticAverageOptimizer(
                    tf.train.GradientDescentOptimizer(0.5), num_worker=2, ea_custom_getter=getter,
                    communication_period=1, moving_rate=0.2)
                train = easgd.minimize(0.5 * (w - target) ** 2, global_step=step)
                center = graph.get_tensor_by_name("global_center_variable/easgd_w:0")
                assert center.op.device.startswith("/job:ps") and w.op.device == device
                workers.append((tf.Session(cluster.target("worker", task), graph=graph), w, center, step, train,
                                easgd.get_init_op(task), tf.global_variables_initializer(),
                                tf.local_variables_initializer()))
    try:
        workers[0][0].run(workers[0][6])  # (the chief initializes the center and the step)
        for sess, *_, local_init in workers:
            sess.run(local_init)
        started = [run_in_thread(lambda sess=sess, init=init: sess.run(init))
                   for sess, _, _, _, _, init, _, _ in workers]
        for thread, out in started:
            thread.join(30)
            assert not thread.is_alive() and "error" not in out, out
        for _ in range(3):
            for sess, _, _, _, train, *_ in workers:
                sess.run(train)
        low, high = (sess.run(w) for sess, w, *_ in workers)
        middle = workers[0][0].run(workers[0][2])
        assert low < middle < high and low < 5.0 < high, (low, middle, high)
        assert workers[1][0].run(workers[1][3]) == 6  # (one exchange a step, each worker's)
    finally:
        for sess, *_ in workers:
            sess.close()


def test_separately_built_graphs_share_a_variable_on_the_ps(cluster):
    g1 = tf.Graph()
    with g1.as_default(), tf.device("/job:ps/task:0"):
        a = tf.Variable(tf.zeros([3]), name="shared_w")
        bump = tf.assign_add(a, tf.ones([3]))
    g2 = tf.Graph()
    with g2.as_default(), tf.device("/job:ps/task:0"):
        b = tf.Variable(tf.zeros([3]), name="shared_w")
    with tf.Session(cluster.target("worker", 0), graph=g1) as s1:
        s1.run(a.initializer)
        s1.run(bump)
        s1.run(bump)
    with tf.Session(cluster.target("worker", 1), graph=g2) as s2:
        assert s2.run(b).tolist() == [2.0, 2.0, 2.0]


def test_concurrent_locked_increments_are_never_lost(cluster):
    n = 40
    graphs = []
    for i in range(2):
        g = tf.Graph()
        with g.as_default(), tf.device(tf.train.replica_device_setter(
                cluster=cluster.spec, worker_device=f"/job:worker/task:{i}")):
            counter = tf.Variable(0, dtype=tf.int64, name="counter")
            inc = tf.assign_add(counter, tf.constant(1, tf.int64), use_locking=True)
        graphs.append((g, counter, inc))
    with tf.Session(cluster.target("worker", 0), graph=graphs[0][0]) as sess:
        sess.run(graphs[0][1].initializer)

    def work(i):
        g, _, inc = graphs[i]
        with tf.Session(cluster.target("worker", i), graph=g) as sess:
            for _ in range(n):
                sess.run(inc.op)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    with tf.Session(cluster.target("worker", 0), graph=graphs[0][0]) as sess:
        assert sess.run(graphs[0][1]) == 2 * n


def test_a_queue_on_the_ps_is_shared_and_its_blocked_ops_end_with_their_step(cluster):
    graphs = []
    for i in range(2):
        g = tf.Graph()
        with g.as_default(), tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(-1, tf.float32, shapes=[[]], shared_name="ps_queue")
            graphs.append((g, q.enqueue(tf.constant(float(i + 1))), q.dequeue()))
    (g0, enq0, deq0), (g1, enq1, deq1) = graphs
    with tf.Session(cluster.target("worker", 0), graph=g0) as s0, \
            tf.Session(cluster.target("worker", 1), graph=g1) as s1:
        s0.run(enq0)
        assert s1.run(deq1) == 1.0  # another worker's graph, the same queue on the ps
        with pytest.raises(tf.errors.DeadlineExceededError, match="ps_queue"):
            s1.run(deq1, options=tf.RunOptions(timeout_in_ms=300))
        before = cluster.waiting_kernels("ps")
        t, out = run_in_thread(lambda: s0.run(deq0))
        wait_until(lambda: cluster.waiting_kernels("ps") > before, what="the dequeue waiting on the ps")
    t.join(10)  # closing s0 cancelled the dequeue blocked on the ps
    assert not t.is_alive() and isinstance(out["error"], (tf.errors.CancelledError, tf.errors.AbortedError))
    with tf.Session(cluster.target("worker", 1), graph=g1) as s1:
        s1.run(enq1)
        assert s1.run(deq1) == 2.0  # the ps kept serving, and the cancelled dequeue took nothing


def test_large_tensor_through_the_cluster(cluster):
    big = np.arange(8 * 1024 * 1024, dtype=np.float32)  # 32 MB: far past gRPC's 4 MB default
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(tf.zeros([big.size]), name="big")
        x = tf.placeholder(tf.float32, [big.size])
        load = tf.assign(v, x)
    with tf.device("/job:worker/task:1"):
        total = tf.reduce_sum(v * 2.0)
    with tf.Session(cluster.target("worker", 0)) as sess:
        sess.run(load, {x: big})
        back = sess.run(v)
        np.testing.assert_array_equal(back, big)
        assert np.isclose(sess.run(total), 2 * big.astype(np.float64).sum(), rtol=1e-5)


def test_errors_name_the_op_and_task(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable([1.0], name="never_initialized")
    with tf.device("/job:worker/task:1"):
        y = v * 2.0
    with tf.Session(cluster.target("worker", 0)) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="never_initialized") as info:
            sess.run(y)
    assert "/job:ps/replica:0/task:0" in str(info.value)


def test_session_reset_clears_containers(cluster):
    with tf.device("/job:ps/task:0"):
        with tf.container("experiment"):
            v = tf.Variable(5.0, name="in_container")
        w = tf.Variable(7.0, name="in_default")
    target = cluster.target("worker", 0)
    with tf.Session(target) as sess:
        sess.run([v.initializer, w.initializer])
    tf.Session.reset(target, ["experiment"])
    with tf.Session(target) as sess:
        assert sess.run(w) == 7.0
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(v)


def test_session_reset_of_a_target_nobody_answers_times_out_and_an_unknown_kind_is_not_found():
    # (TF's own session test: a reset waits for the master until the operation timeout)
    with pytest.raises(tf.errors.DeadlineExceededError):
        tf.Session.reset("grpc://localhost:0", ["test0"], config=tf.ConfigProto(operation_timeout_in_ms=5))
    with pytest.raises(tf.errors.NotFoundError, match="No session factory"):
        tf.Session.reset("nonexistent", ["test0"])


@pytest.mark.parametrize("service,methods", [("distflow.Master", MASTER_METHODS), ("distflow.Worker", WORKER_METHODS)])
def test_garbage_and_malformed_requests_get_errors_and_the_server_keeps_serving(cluster, service, methods):
    channel = grpc.insecure_channel(cluster.address("worker", 1))
    try:
        for method, (request_cls, _) in methods.items():
            if method == "Shutdown":
                continue
            raw = channel.unary_unary(f"/{service}/{method}")
            for payload in (b"\xff\xfe garbage \x00\x01", b"\x0a\xff\xff\xff\xff\x0f"):
                with pytest.raises(grpc.RpcError) as info:
                    raw(payload, timeout=10)
                assert info.value.code() != grpc.StatusCode.UNAVAILABLE
        hostile = [
            ("distflow.Master", "RunStep", pb.RunStepRequest(session_handle="nope", fetch=["x:0"])),
            ("distflow.Master", "CreateSession", pb.CreateSessionRequest(graph_def=pb.GraphDef(
                node=[pb.NodeDef(name="a", op="NoSuchOp")]))),
            ("distflow.Master", "CreateSession", pb.CreateSessionRequest(graph_def=pb.GraphDef(
                node=[pb.NodeDef(name="a", op="Identity", input=["a"])]))),
            ("distflow.Worker", "RunGraph", pb.RunGraphRequest(graph_handle="missing")),
            ("distflow.Worker", "RegisterGraph", pb.RegisterGraphRequest(graph_def=pb.GraphDef(
                node=[pb.NodeDef(name="c", op="Const", device="/job:worker/replica:0/task:1/device:CPU:0")]))),
        ]
        for svc, method, request in hostile:
            if svc != service:
                continue
            call = channel.unary_unary(f"/{svc}/{method}", request_serializer=type(request).SerializeToString)
            with pytest.raises(grpc.RpcError) as info:
                call(request, timeout=10)
            assert info.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.ABORTED,
                                         grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.NOT_FOUND)
    finally:
        channel.close()
    with tf.Session(cluster.target("worker", 1)) as sess:  # still serving
        assert sess.run(tf.constant(3.0) * 2.0) == 6.0


def test_server_api_errors():
    with pytest.raises(ValueError, match="job_name"):
        tf.train.Server({"ps": ["127.0.0.1:0"], "worker": ["127.0.0.1:0"]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="host:port"):
        tf.train.Server({"local": ["localhost"]})
    server = tf.train.Server.create_local_server()
    try:
        assert server.target.startswith("grpc://localhost:")
        port = server.target.rsplit(":", 1)[1]
        with pytest.raises(tf.errors.UnknownError, match="in use"):
            tf.train.Server({"local": [f"localhost:{port}"]})
        with tf.Session(server.target) as sess:
            assert sess.run(tf.constant([1, 2]) + 1).tolist() == [2, 3]
    finally:
        server.stop()
    done = threading.Event()
    threading.Thread(target=lambda: (server.join(), done.set()), daemon=True).start()
    assert done.wait(10)  # join() returns once the server is stopped


def test_killed_ps_gives_unavailable_naming_it():
    c = LocalCluster({"ps": 1, "worker": 1})
    try:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="lost")
        with tf.Session(c.target("worker", 0)) as sess:
            sess.run(v.initializer)
            c.kill("ps", 0)
            start = time.monotonic()
            with pytest.raises(tf.errors.UnavailableError, match=r"/job:ps/replica:0/task:0"):
                sess.run(v)
            assert time.monotonic() - start < 60
        with tf.Session(c.target("worker", 0)) as sess:  # the worker survives
            assert sess.run(tf.constant(2.0)) == 2.0
    finally:
        c.close()


def test_device_filters_and_placement_errors(cluster):
    with tf.device("/job:worker/task:1"):
        a = tf.constant(2.0) * 3.0
    with tf.device("/job:worker/task:7"):
        b = tf.constant(1.0, name="nowhere")
    only_me = tf.ConfigProto(device_filters=["/job:worker/task:0"])
    with tf.Session(cluster.target("worker", 0), config=only_me) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="worker/task:1"):
            sess.run(a)  # task 1 is filtered out: its devices are not the session's
    with tf.Session(cluster.target("worker", 0)) as sess:
        assert sess.run(a) == 6.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="'nowhere'"):
            sess.run(b)
    soft = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(cluster.target("worker", 0), config=soft) as sess:
        assert sess.run(b) == 1.0


def test_a_peer_dying_mid_step_fails_the_step_naming_it():
    """The ps is killed while a worker runs steps back to back: the running step fails."""
    c = LocalCluster({"ps": 1, "worker": 1})
    try:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(tf.zeros([1000]), name="mid_step")
            bump = tf.assign_add(v, tf.ones([1000]))
        with tf.device("/job:worker/task:0"):
            total = tf.reduce_sum(bump * 2.0)
        failures, training = [], threading.Event()

        def train():
            with tf.Session(c.target("worker", 0)) as sess:
                sess.run(v.initializer)
                try:
                    for step in range(100000):
                        sess.run(total)
                        if step == 20:
                            training.set()
                except tf.errors.OpError as e:
                    failures.append(e)
        t = threading.Thread(target=train)
        t.start()
        assert training.wait(60)
        c.kill("ps", 0)
        t.join(60)
        assert not t.is_alive()
        assert failures and isinstance(failures[0], (tf.errors.UnavailableError, tf.errors.AbortedError))
        assert "/job:ps/replica:0/task:0" in str(failures[0])
        with tf.Session(c.target("worker", 0)) as sess:
            assert sess.run(tf.constant(5.0)) == 5.0
    finally:
        c.close()


def test_data_port_survives_garbage_and_bad_calls_and_serves_tensors(cluster):
    import socket

    from distflow.distributed.rpc import Channels

    channels = Channels()
    status = channels.call(cluster.address("ps", 0), "distflow.Worker", "GetStatus", pb.GetStatusRequest(), timeout=10)
    channels.close()
    from distflow.distributed.transport import hello_frame

    for junk in (b"GET / HTTP/1.0\r\n\r\n", b"DFT1" + b"\xff" * 20, b"\x00" * 3,
                 hello_frame(None) + b"DFT1" + b"\xff" * 20, hello_frame(None) + b"\x00" * 3):
        with socket.create_connection(("127.0.0.1", status.data_port), timeout=5) as s:
            s.settimeout(5)
            try:
                s.sendall(junk)
                s.shutdown(socket.SHUT_WR)
                while s.recv(4096):  # the server answers or closes the connection
                    pass
            except OSError:  # it may close (reset) the connection as soon as it reads the junk
                pass
    # RunGraph calls on the data path: a payload that does not parse, then one for no graph
    from distflow.distributed.transport import TensorClient

    client = TensorClient()
    with pytest.raises(tf.errors.InvalidArgumentError, match="RunGraph call that does not parse"):
        client.call("127.0.0.1", status.data_port, b"\x0a\xff\xff\xff\xff\x0f", 5.0, "ps")
    with pytest.raises(tf.errors.AbortedError, match="is not registered"):
        client.call("127.0.0.1", status.data_port, pb.RunGraphRequest(graph_handle="nope").SerializeToString(), 5.0,
                    "ps")
    client.close()
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(tf.ones([1000]), name="after_garbage")
    with tf.device("/job:worker/task:1"):
        total = tf.reduce_sum(v)
    with tf.Session(cluster.target("worker", 0)) as sess:
        sess.run(v.initializer)
        assert sess.run(total) == 1000.0


def test_waiting_for_a_task_that_is_not_up_logs_it_and_gives_up_naming_it(caplog):
    from distflow.tools.launcher import free_ports

    ps_port, worker_port = free_ports(2)
    spec = {"ps": [f"127.0.0.1:{ps_port}"], "worker": [f"127.0.0.1:{worker_port}"]}
    worker = tf.train.Server(spec, job_name="worker", task_index=0,
                             config=tf.ConfigProto(connect_timeout_in_ms=1500))
    try:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="late")
        with caplog.at_level("WARNING", logger="distflow"), tf.Session(worker.target) as sess:
            start = time.monotonic()
            with pytest.raises(tf.errors.UnavailableError, match=r"/job:ps/replica:0/task:0 .*did not answer"):
                sess.run(v.initializer)
            assert time.monotonic() - start < 30
        assert any("waiting for task /job:ps/replica:0/task:0" in r.getMessage() for r in caplog.records)
    finally:
        worker.stop()


def test_a_task_that_comes_up_late_is_waited_for():
    from distflow.tools.launcher import free_ports

    ps_port, worker_port = free_ports(2)
    spec = {"ps": [f"127.0.0.1:{ps_port}"], "worker": [f"127.0.0.1:{worker_port}"]}
    worker = tf.train.Server(spec, job_name="worker", task_index=0)
    servers = [worker]
    timer = threading.Timer(1.0, lambda: servers.append(tf.train.Server(spec, job_name="ps", task_index=0)))
    timer.start()
    try:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(4.0, name="patient")
        with tf.Session(worker.target) as sess:
            sess.run(v.initializer)
            assert sess.run(v) == 4.0
    finally:
        timer.join(10)
        for s in servers:
            s.stop()


def test_the_servers_config_is_the_default_for_its_sessions():
    server = tf.train.Server.create_local_server(config=tf.ConfigProto(allow_soft_placement=True))
    try:
        with tf.device("/gpu:99"):  # no such device on this server: soft placement moves it
            x = tf.constant(3.0) * 2.0
        with tf.Session(server.target) as sess:
            assert sess.run(x) == 6.0
    finally:
        server.stop()


def test_stopping_a_server_cancels_a_step_blocked_on_it():
    server = tf.train.Server.create_local_server()
    q = tf.FIFOQueue(1, tf.float32)
    dequeue = q.dequeue()
    sess = tf.Session(server.target)
    t, out = run_until_blocked(lambda: sess.run(dequeue))
    server.stop()
    t.join(10)
    assert not t.is_alive() and isinstance(out["error"], tf.errors.CancelledError)
    assert "shutting down" in str(out["error"])


def test_sharded_checkpoint_written_by_each_ps_task(tmp_path):
    cluster = LocalCluster({"ps": 2, "worker": 1})
    try:
        with tf.device(tf.train.replica_device_setter(cluster=cluster.spec, worker_device="/job:worker/task:0")):
            a = tf.Variable([1.0, 2.0], name="a")  # round robin: ps 0
            b = tf.Variable([3.0], name="b")  # ps 1
        assert a.device.startswith("/job:ps/task:0") and b.device.startswith("/job:ps/task:1")
        saver = tf.train.Saver(sharded=True)
        with tf.Session(cluster.target("worker", 0)) as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=7)
            sess.run([tf.assign(a, [0.0, 0.0]), tf.assign(b, [0.0])])
            saver.restore(sess, path)
            assert sess.run(a).tolist() == [1.0, 2.0] and sess.run(b).tolist() == [3.0]
        assert sorted(p.name for p in tmp_path.iterdir()) == [
            "checkpoint", "model.ckpt-7.data-00000-of-00002", "model.ckpt-7.data-00001-of-00002", "model.ckpt-7.index",
                "model.ckpt-7.meta"]
        assert tf.train.list_variables(path) == [("a", [2]), ("b", [1])]
    finally:
        cluster.close()


def test_a_step_whose_caller_was_killed_ends_on_the_ps_and_takes_nothing():
    """A worker's master blocked in a dequeue on the ps is killed: its dequeue on the ps is
    cancelled (the ps notices the caller hang up), so it cannot take the next item."""
    c = LocalCluster({"ps": 1, "worker": 2})
    try:
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(10, tf.float32, shapes=[[]], shared_name="killed_caller_q")
            item = q.dequeue()
            put = q.enqueue(7.0)
        only = lambda i: tf.ConfigProto(device_filters=["/job:ps", f"/job:worker/task:{i}"])  # noqa: E731
        doomed = tf.Session(c.target("worker", 1), config=only(1))
        before = c.waiting_kernels("ps")
        t, out = run_in_thread(lambda: doomed.run(item))
        wait_until(lambda: c.waiting_kernels("ps") > before, what="the dequeue waiting on the ps")
        assert t.is_alive()
        c.kill("worker", 1)
        t.join(30)
        assert not t.is_alive() and isinstance(out.get("error"), tf.errors.UnavailableError)
        with tf.Session(c.target("worker", 0), config=only(0)) as sess:
            sess.run(put)
            got = sess.run(item, options=tf.RunOptions(timeout_in_ms=20000))
        assert got == 7.0
    finally:
        c.close()


def test_a_servers_default_operation_timeout_applies_to_its_sessions():
    config = tf.ConfigProto(operation_timeout_in_ms=200)
    server = tf.train.Server.create_local_server(config=config)
    try:
        q = tf.FIFOQueue(1, tf.float32, shared_name="never_filled")
        with tf.Session(server.target) as sess:
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(q.dequeue())
    finally:
        server.stop()


def test_isolate_session_state_keeps_each_sessions_variables_apart():
    server = tf.train.Server.create_local_server()
    try:
        v = tf.Variable(1.0, name="v")
        isolated = tf.ConfigProto(isolate_session_state=True)
        with tf.Session(server.target, config=isolated) as first, \
                tf.Session(server.target, config=isolated) as second, tf.Session(server.target) as shared:
            first.run(v.initializer)
            first.run(tf.assign(v, 5.0))
            with pytest.raises(tf.errors.FailedPreconditionError):
                second.run(v)  # not initialized in the second session's own container
            second.run(v.initializer)
            assert first.run(v) == 5.0 and second.run(v) == 1.0
            with pytest.raises(tf.errors.FailedPreconditionError):
                shared.run(v)  # nor in the shared one
    finally:
        server.stop()


def test_a_loop_and_a_cond_on_a_worker_read_variables_on_the_ps_and_train_them(cluster):
    with tf.device(tf.train.replica_device_setter(cluster=cluster.spec, worker_device="/job:worker/task:1")):
        w = tf.Variable(0.5, name="loop_w")
        x = tf.placeholder(tf.float32, [])
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * w + x), [tf.constant(0), x])
        z = tf.cond(y > 0.0, lambda: y * 2.0, lambda: -y)
        loss = tf.square(z - 1.0)
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    assert z.op.device.startswith("/job:worker/task:1") and w.device.startswith("/job:ps")

    def expected(wv, xv):
        yv = xv
        for _ in range(3):
            yv = yv * wv + xv
        zv = 2 * yv if yv > 0 else -yv
        dz_dy = 2.0 if yv > 0 else -1.0
        dy_dw = 3 * wv ** 2 * xv + 2 * wv * xv + xv  # y = x (w^3 + w^2 + w + 1)
        return zv, wv - 0.01 * 2 * (zv - 1.0) * dz_dy * dy_dw

    with tf.Session(cluster.target("worker", 1)) as sess:
        sess.run(w.initializer)
        wv = 0.5
        for _ in range(3):
            zv, wv_next = expected(wv, 0.3)
            got, _ = sess.run([z, train], {x: 0.3})
            assert np.isclose(got, zv, rtol=1e-5)
            assert np.isclose(sess.run(w), wv_next, rtol=1e-5)
            wv = wv_next


def test_a_loop_body_cannot_update_a_variable_of_another_task_and_says_why(cluster):
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(0, name="loop_count_v")
    with tf.device("/job:worker/task:0"):
        def body(i):
            with tf.control_dependencies([tf.assign_add(v, 1)]):
                return i + 1
        out = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
    with tf.Session(cluster.target("worker", 0)) as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="runs inside .*ps"):
            sess.run(out)


def test_a_deadline_ends_a_loop_running_on_another_task(cluster):
    with tf.device("/job:worker/task:1"):
        out = tf.while_loop(lambda i: tf.constant(True), lambda i: i + 1, [tf.constant(0)])
    with tf.Session(cluster.target("worker", 0)) as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(out, options=tf.RunOptions(timeout_in_ms=500))
        assert sess.run(tf.constant(7)) == 7


def test_a_persistent_tensor_stays_on_its_task_between_steps_and_goes_with_its_session(cluster):
    with tf.device("/job:ps/task:0"):
        start = tf.constant([1.0, 2.0]) * 2.0
    with tf.Session(cluster.target("worker", 0)) as sess:
        h = sess.run(tf.get_session_handle(start))
        assert h.handle.endswith("/job:ps/replica:0/task:0/device:CPU:0")
        f, x = tf.get_session_tensor(h.handle, tf.float32)
        assert x.device == "/job:ps/replica:0/task:0/device:CPU:0"
        with tf.device("/job:worker/task:1"):
            step = tf.get_session_handle(x + 1.0)
            total = tf.reduce_sum(x)
        h = sess.run(step, feed_dict={f: h})  # (a handle of another task is moved to its reader's)
        first = h.handle
        for _ in range(11):
            h = sess.run(step, feed_dict={f: h})
        assert h.handle.split(";")[-1].startswith("/job:worker/replica:0/task:1")
        old_p, old = tf.get_session_tensor(first, tf.float32)
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in the session store"):
            sess.run(old, feed_dict={old_p: first})  # (collected handles are deleted before a later step)
        np.testing.assert_array_equal(h.eval(), [14.0, 16.0])
        assert sess.run(total, feed_dict={x: h}) == 30.0  # (a handle fed in place of a tensor: its value)
        raw = h.get_raw_handle()
    with tf.Session(cluster.target("worker", 1)) as other:  # (its first session closed: the tensor went)
        f, x = tf.get_session_tensor(raw, tf.float32)
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in the session store"):
            other.run(x, feed_dict={f: raw})
