"""Session.run: fetch structures, feeds, errors, lifecycle and plan caching."""

import collections
import threading

import numpy as np
import pytest

import distflow as tf


def test_fetch_structures():
    a = tf.constant(1.0, name="a")
    b = tf.constant([2, 3], name="b")
    op = tf.no_op(name="nop")
    Pair = collections.namedtuple("Pair", "x y")
    with tf.Session() as sess:
        assert sess.run(a) == 1.0 and isinstance(sess.run(a), np.float32)
        assert sess.run("a:0") == 1.0
        assert sess.run(op) is None and sess.run("nop") is None
        out = sess.run({"a": a, "nested": [b, (a, op)], "pair": Pair(a, b)})
        assert out["a"] == 1.0
        assert out["nested"][0].tolist() == [2, 3]
        assert out["nested"][1] == (1.0, None)
        assert isinstance(out["pair"], Pair) and out["pair"].y.tolist() == [2, 3]
        assert sess.run([a, a]) == [1.0, 1.0]
        with pytest.raises(TypeError, match="None"):
            sess.run(None)
        with pytest.raises(ValueError, match="nope"):  # as TF: a name not in the graph
            sess.run("nope:0")


def test_feeds_by_tensor_and_name_and_feeding_intermediates():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = x * 2.0
    z = y + 1.0
    with tf.Session() as sess:
        assert sess.run(y, {x: [1, 2]}).tolist() == [2.0, 4.0]
        assert sess.run(y, {"x:0": np.array([3.0, 4.0])}).tolist() == [6.0, 8.0]
        assert sess.run(z, {y: [10.0, 20.0]}).tolist() == [11.0, 21.0]  # x need not be fed
        assert sess.run(x, {x: [5.0, 6.0]}).tolist() == [5.0, 6.0]


def test_feed_errors():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    i = tf.placeholder(tf.int32, [2], name="i")
    with tf.Session() as sess:
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor 'x:0', which has shape '\(\?, 3\)'"):
            sess.run(x, {x: [1.0, 2.0, 3.0]})
        with pytest.raises(ValueError, match="dtype float64 for Tensor 'i:0' of dtype int32"):
            sess.run(i, {i: [1.5, 2.5]})
        with pytest.raises(ValueError, match="Cannot feed"):
            sess.run(i, {i: ["a", "b"]})
        with pytest.raises(TypeError, match="cannot be a tf.Tensor"):
            sess.run(i, {i: tf.constant([1, 2])})
        assert sess.run(i, {i: np.array([1, 2], np.int64)}).dtype == np.int32
        # numbers held in an object array (np.array(rows, dtype=object)) are fed as numbers
        assert sess.run(i, {i: np.array([np.int64(1), 2], dtype=object)}).tolist() == [1, 2]
        with pytest.raises(ValueError, match="dtype float64 for Tensor 'i:0'"):
            sess.run(i, {i: np.array([1.5, 2], dtype=object)})
        rows = np.empty(2, dtype=object)
        rows[0], rows[1] = np.zeros(3), np.zeros(3)
        with pytest.raises(ValueError, match="stack them first"):
            sess.run(x, {x: rows})


def test_missing_feed_names_the_placeholder():
    x = tf.placeholder(tf.float32, [None, 3], name="inputs")
    y = tf.reduce_sum(x)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"must feed a value for placeholder tensor 'inputs' with dtype float32 and shape \[\?, 3\]"):
            sess.run(y)


def test_uninitialized_variable_is_failed_precondition_naming_it():
    v = tf.Variable([1.0, 2.0], name="weights")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value weights") as info:
            sess.run(v * 2.0)
        assert "device:CPU:0" in str(info.value)
        assert info.value.op is not None
        with pytest.raises(tf.errors.FailedPreconditionError, match="weights"):
            sess.run(v)


def test_kernel_errors_are_wrapped_with_node_and_device():
    x = tf.placeholder(tf.int32, [None])
    with tf.device("/cpu:0"):
        y = tf.reshape(x, [2, 2], name="to_square")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(y, {x: [1, 2, 3]})
    message = str(info.value)
    assert "to_square" in message and "Reshape" in message and "/device:CPU:0" in message
    assert info.value.op is y.op


def test_closed_session():
    sess = tf.Session()
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(tf.constant(1))


def test_context_manager_sets_default_session_and_eval():
    a = tf.constant([1, 2])
    v = tf.Variable(3.0)
    with pytest.raises(ValueError, match="No default session"):
        a.eval()
    with tf.Session() as sess:
        assert tf.get_default_session() is sess
        v.initializer.run()
        assert a.eval().tolist() == [1, 2]
        assert v.eval() == 3.0
        x = tf.placeholder(tf.float32)
        assert (x * 2).eval({x: 4.0}) == 8.0
    assert tf.get_default_session() is None


def test_interactive_session():
    a = tf.constant(5)
    sess = tf.InteractiveSession()
    try:
        assert a.eval() == 5
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_session_for_another_graph():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(2)
    with tf.Session(graph=g) as sess:
        assert sess.run(c) == 2
        assert sess.graph is g
    with tf.Graph().as_default():
        tf.constant(1)
        with tf.Session() as sess:
            with pytest.raises(ValueError, match="not an element of this graph"):
                sess.run(c)
    with tf.Graph().as_default(), tf.Session() as sess:  # (nothing in its graph: TF says so first)
        with pytest.raises(RuntimeError, match="The Session graph is empty"):
            sess.run(c)


def test_plans_are_compiled_once_per_signature():
    x = tf.placeholder(tf.float32, [])
    y = x + 1.0
    with tf.Session() as sess:
        for i in range(5):
            assert sess.run(y, {x: i}) == i + 1
        assert len(sess._steps) == 1
        sess.run([y, x], {x: 1.0})
        assert len(sess._steps) == 2


def test_fetched_values_do_not_alias_variables():
    v = tf.Variable([1.0, 2.0])
    inc = tf.assign_add(v, [1.0, 1.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        before = sess.run(v)
        read = sess.run(v.value())
        sess.run(inc)
        assert before.tolist() == [1.0, 2.0] and read.tolist() == [1.0, 2.0]
        assert sess.run(inc).tolist() == [3.0, 4.0]


def test_concurrent_runs_in_one_session():
    x = tf.placeholder(tf.float32, [])
    y = x * 2.0
    results = {}
    with tf.Session() as sess:
        def work(i):
            results[i] = [sess.run(y, {x: float(i)}) for _ in range(50)]
        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert all(results[i] == [2.0 * i] * 50 for i in range(4))


def test_strings_flow_through():
    s = tf.placeholder(tf.string, [None])
    with tf.Session() as sess:
        out = sess.run(tf.identity(s), {s: ["a", "bc"]})
    assert out.tolist() == [b"a", b"bc"]


def test_list_devices():
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2, "GPU": 1})) as sess:
        names = [d.name for d in sess.list_devices()]
    assert names == ["/job:localhost/replica:0/task:0/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:1",
                     "/job:localhost/replica:0/task:0/device:GPU:0"]


def test_intra_op_parallelism_threads_sets_blas_threads():
    from distflow.ops import blas

    before = blas.get_threads()
    if before is None:
        pytest.skip("NumPy's BLAS is not a bundled OpenBLAS")
    try:
        with tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=1)):
            assert blas.get_threads() == 1
    finally:
        blas.set_threads(before)
    assert blas.get_threads() == before


def test_partitions_running_at_once_share_blas_threads(monkeypatch):
    from distflow.ops import blas

    before = blas.get_threads()
    if before is None:
        pytest.skip("NumPy's BLAS is not a bundled OpenBLAS")
    # (an earlier test's session may have started the load watch: here it sees an idle
    # machine, so that its cap cannot change the counts this test checks)
    monkeypatch.setattr(blas, "others_runnable", lambda: 0)
    monkeypatch.setattr(blas, "_load_cap", None)
    try:
        blas.set_threads(4)
        with blas.shared_by(2):
            assert blas.get_threads() == 2
            with blas.shared_by(3):  # another step's partitions at the same time
                assert blas.get_threads() == 1
            assert blas.get_threads() == 2
        assert blas.get_threads() == 4
        with blas.shared_by(1):  # one partition keeps them all
            assert blas.get_threads() == 4
        with blas.shared_by(4) as share:  # partitions that finish leave their threads to the others
            assert blas.get_threads() == 1
            share.one_done()
            share.one_done()
            assert blas.get_threads() == 2
            for _ in range(3):  # (more than it had: the extra one is ignored)
                share.one_done()
            assert blas.get_threads() == 4
        assert blas.get_threads() == 4
    finally:
        blas.set_threads(before)


def test_session_argument_errors_are_tensorflows():
    with pytest.raises(tf.errors.NotFoundError, match="INVALID"):
        tf.Session("INVALID")
    with pytest.raises(TypeError, match="string"):
        tf.Session(1)
    with pytest.raises(tf.errors.NotFoundError):
        tf.Session.reset("x")
    with pytest.raises(NotImplementedError, match="symbolic Tensor"):
        np.array(tf.constant(1.0))


@pytest.mark.parametrize("make", [lambda: tf.ConfigProto(log_device_placment=True),
                                  lambda: tf.RunOptions(timeout_in_mss=5),
                                  lambda: tf.OptimizerOptions(opt_levl=0),
                                  lambda: tf.GraphOptions(optimizer_option=None),
                                  lambda: tf.GPUOptions(allow_grwth=True)])
def test_a_misspelled_option_is_an_error_not_ignored(make):
    with pytest.raises(ValueError, match="has no .* field"):
        make()
    tf.ConfigProto(rpc_options=None, placement_period=3)  # TF's own fields are accepted


def test_bytes_names_and_a_defaultdict_of_fetches():
    import collections

    a = tf.constant(2.0, name=b"e")
    with tf.Session() as sess:
        assert sess.run(b"e:0") == 2.0
        out = sess.run(collections.defaultdict(list, {"x": a}))
        assert isinstance(out, collections.defaultdict) and out["x"] == 2.0 and out["missing"] == []


def test_feeding_an_integer_out_of_range_is_an_error_not_a_wrap():
    p = tf.placeholder(tf.int32)
    u = tf.placeholder(tf.uint8)
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="out of its range"):
            sess.run(p, {p: np.iinfo(np.int64).max})
        with pytest.raises(ValueError, match="out of its range"):
            sess.run(u, {u: [1, -1]})
        assert sess.run(p, {p: np.int64(7)}) == 7


def test_a_list_holding_tensors_is_packed():
    a = tf.constant(1)
    b = tf.constant([1.0, 2.0])
    with tf.Session() as sess:
        assert sess.run(tf.reduce_sum([a, 2])) == 3
        assert sess.run(tf.convert_to_tensor([[b, [3.0, 4.0]], [b, b]])).shape == (2, 2, 2)
    assert tf.convert_to_tensor([a, 2]).op.type == "Pack"


def test_interactive_session_on_a_server_becomes_the_default():
    server = tf.train.Server.create_local_server()
    try:
        sess = tf.InteractiveSession(server.target)
        try:
            c = tf.constant(3.0) * 2
            assert c.eval() == 6.0
            assert tf.get_default_session() is sess
        finally:
            sess.close()
        assert tf.get_default_session() is None
    finally:
        server.stop()


def test_a_session_says_which_argument_is_of_the_wrong_type():
    for kwargs, message in [({"config": 37}, "config must be a tf.ConfigProto, but got int"),
                            ({"graph": 37}, "graph must be a tf.Graph, but got int")]:
        with pytest.raises(TypeError, match=message):
            tf.Session(**kwargs)
    with pytest.raises(TypeError, match="target must be a string"):
        tf.Session(37)
