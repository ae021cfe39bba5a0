"""Behaviours that TensorFlow 1.x's training tests (tensorflow/python/training) expect, each
of which distflow once got wrong: input batching of SparseTensors, moving-average and slot
names, warm starts from checkpoints, Supervisor defaults, containers, and a program's exit."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import distflow as tf
from distflow.train.moving_averages import assign_moving_average  # (batch norm's; not public in TF 1.x)


def _start(sess):
    coord = tf.train.Coordinator()
    return coord, tf.train.start_queue_runners(sess, coord)


def _stop(coord, threads):
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)


def _counter_and_sparse(limit):
    """A counter that runs out after ``limit`` and, per element, the SparseTensor [c, -c] (shape [2])."""
    zero = tf.constant(0, tf.int64)
    counter = tf.Variable(zero, collections=[tf.GraphKeys.LOCAL_VARIABLES]).count_up_to(limit)
    sparse = tf.SparseTensor(indices=tf.reshape(tf.stack([zero, zero + 1]), [2, 1]),
                             values=tf.cast(tf.stack([counter, -counter]), tf.float32), dense_shape=[2])
    return counter, sparse


def test_batch_makes_one_sparse_tensor_of_a_batch_of_sparse_elements():
    counter, sparse = _counter_and_sparse(6)
    got = tf.train.batch({"c": counter, "s": sparse, "S": "text"}, batch_size=3)
    assert got["s"].dense_shape.shape.as_list() == [2]  # (the rank, known: 1 + the element's)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord, threads = _start(sess)
        for first in (0, 3):
            c, s, text = sess.run([got["c"], got["s"], got["S"]])
            np.testing.assert_array_equal(c, np.arange(first, first + 3))
            np.testing.assert_array_equal(s.indices, [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1]])
            np.testing.assert_array_equal(s.values, np.stack([c, -c], axis=1).ravel())
            np.testing.assert_array_equal(s.dense_shape, [3, 2])
            assert list(text) == [b"text"] * 3
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(got["s"])
        _stop(coord, threads)


def test_sparse_rows_enqueued_many_at_once_come_out_rebatched():
    rows = tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 1], [3, 0]], values=[1, 2, 3, 4], dense_shape=[4, 5])
    got = tf.train.batch([rows], batch_size=2, enqueue_many=True)
    assert got.dense_shape.shape.as_list() == [2]
    with tf.Session() as sess:
        coord, threads = _start(sess)
        first, second = sess.run(got), sess.run(got)
        _stop(coord, threads)
    # (each row keeps the width of the SparseTensor it came from, as in TF)
    np.testing.assert_array_equal(first.indices, [[0, 0], [1, 2]])
    np.testing.assert_array_equal(first.values, [1, 2])
    np.testing.assert_array_equal(first.dense_shape, [2, 5])
    np.testing.assert_array_equal(second.indices, [[0, 1], [1, 0]])
    np.testing.assert_array_equal(second.values, [3, 4])


def test_shuffle_batch_join_and_maybe_batch_carry_sparse_tensors():
    shuffled = tf.train.shuffle_batch(list(_counter_and_sparse(40)), batch_size=4, capacity=20, min_after_dequeue=4,
                                      seed=1)
    joined = tf.train.batch_join([list(_counter_and_sparse(40)), list(_counter_and_sparse(40))], batch_size=4)
    counter, sparse = _counter_and_sparse(40)
    kept = tf.train.maybe_batch([counter, sparse], tf.equal(counter % 2, 0), batch_size=2)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord, threads = _start(sess)
        for c, s in (sess.run(shuffled), sess.run(joined)):
            np.testing.assert_array_equal(s.values, np.stack([c, -c], axis=1).ravel())
            np.testing.assert_array_equal(s.dense_shape, [4, 2])
        c, s = sess.run(kept)
        assert (c % 2 == 0).all()
        np.testing.assert_array_equal(s.values, np.stack([c, -c], axis=1).ravel())
        _stop(coord, threads)


def test_one_keep_decision_for_a_whole_batch_of_rows():
    rows = tf.constant([[1], [2], [3], [4]])
    flag = tf.placeholder_with_default(True, [])
    got = tf.train.maybe_batch([rows], flag, batch_size=4, enqueue_many=True)
    with tf.Session() as sess:
        coord, threads = _start(sess)
        np.testing.assert_array_equal(sess.run(got), [[1], [2], [3], [4]])
        _stop(coord, threads)


def test_batching_errors_say_what_is_wrong():
    with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
        tf.train.batch([tf.placeholder(tf.int64)], batch_size=2)
    with pytest.raises(ValueError, match="`keep_input` cannot be a vector"):
        tf.train.maybe_batch([tf.zeros(5)], keep_input=tf.constant([True, False]), batch_size=1)
    with pytest.raises(ValueError, match="must be 0 or 1 dimensions"):
        tf.train.maybe_batch([tf.zeros(5)], keep_input=tf.constant([[True]]), batch_size=1, enqueue_many=True)
    with pytest.raises(ValueError, match="must have the same keys"):
        tf.train.batch_join([{"c": 12, "s": 123}, {"cool": -12, "s": 99}], batch_size=8)


def test_enqueue_many_of_rows_of_unknown_count_is_accepted():
    a, b = tf.placeholder(tf.float32, [None]), tf.placeholder(tf.int32, [None, 2])
    q = tf.FIFOQueue(10, [tf.float32, tf.int32], shapes=[[], [2]])
    enqueue = q.enqueue_many([a, b])
    with tf.Session() as sess:
        sess.run(enqueue, {a: [1.0, 2.0], b: [[1, 2], [3, 4]]})
        assert sess.run(q.size()) == 2


def test_an_empty_file_list_known_only_when_it_runs_fails_the_producer():
    names = tf.Variable(np.zeros([0], dtype=object), dtype=tf.string, validate_shape=False)
    queue = tf.train.string_input_producer(tf.identity(names.value()))
    with tf.Session() as sess:
        sess.run(names.initializer)
        coord, threads = _start(sess)
        with pytest.raises(tf.errors.OutOfRangeError):  # (not a dequeue that waits for ever)
            sess.run(queue.dequeue(), options=tf.RunOptions(timeout_in_ms=60000))
        coord.request_stop()
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-empty string_tensor"):
            coord.join(threads, stop_grace_period_secs=10)


def test_moving_averages_are_named_in_the_variable_scope_of_apply():
    with tf.variable_scope("scope1"):
        v0 = tf.Variable(10.0, name="v0")
        v1 = tf.Variable(30.0, name="v1")
        v2 = tf.Variable(20.0, name="v2", trainable=False)
        total = v0 + v1
    with tf.variable_scope("scope2"):
        ema = tf.train.ExponentialMovingAverage(0.25, zero_debias=True, name="foo")
        assert ema.average_name(v0) == "scope2/scope1/v0/foo"
        ema.apply([v0, v1, total])
        restore = ema.variables_to_restore()
    assert ema.average(v0).op.name == "scope2/scope1/v0/foo"
    assert ema.average(total).op.name == "scope2/scope1/add/foo"
    assert sorted(restore) == ["scope1/v2", "scope2/scope1/add/foo", "scope2/scope1/v0/foo", "scope2/scope1/v1/foo",
                               "scope2/scope2/scope1/add/foo/biased", "scope2/scope2/scope1/add/foo/local_step"]
    assert restore["scope2/scope1/v0/foo"] is v0 and restore["scope1/v2"] is v2
    assert tf.moving_average_variables() == [v0, v1]  # (Variables only, not the tensor)


def test_assign_moving_average_twice_makes_a_second_pair_of_debias_variables():
    with tf.variable_scope("scope1") as outer:
        with tf.variable_scope("scope2"):
            var = tf.Variable(1.0, name="Var")
            first = assign_moving_average(var, 0.0, 0.99)
            second = assign_moving_average(var, 0.0, 0.99)
    assert [v.name for v in outer.global_variables()] == [
        "scope1/scope2/Var:0", "scope1/scope2/scope1/scope2/Var/biased:0",
        "scope1/scope2/scope1/scope2/Var/local_step:0", "scope1/scope2/scope1/scope2/Var/biased_1:0",
        "scope1/scope2/scope1/scope2/Var/local_step_1:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(first)
        assert sess.run(second) == pytest.approx(0.0)  # (debiased: the average of the values, 0)


def test_optimizer_slots_live_in_the_variable_scope_of_minimize():
    with tf.variable_scope("model"):
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    loss = tf.reduce_sum(w * w)
    with tf.variable_scope("train"):
        tf.train.AdamOptimizer().minimize(loss)
    with tf.name_scope("ns"):
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    # (as TF: slots under the variable scope, Adam's beta powers under the name scope)
    assert sorted(v.op.name for v in tf.global_variables()) == [
        "model/w", "model/w/Momentum", "train/beta1_power", "train/beta2_power", "train/model/w/Adam",
        "train/model/w/Adam_1"]


def test_piecewise_constant_widens_int_boundaries_and_refuses_float_ones_for_an_int_step():
    step = tf.Variable(2, dtype=tf.int64)
    rate = tf.train.piecewise_constant(step, [1, 2, 3], [0.4, 0.5, 0.6, 0.7])
    with tf.Session() as sess:
        sess.run(step.initializer)
        assert sess.run(rate) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="must have the same dtype as x"):
        tf.train.piecewise_constant(tf.Variable(0), [-1.0, 1.5], [1, 2, 3])


@pytest.fixture
def checkpoint(tmp_path):
    """A checkpoint of var1 [1, 10], var2 [10, 10] and useful_scope/var4 [9, 9]; their values."""
    with tf.Graph().as_default():
        made = [tf.get_variable("var1", [1, 10]), tf.get_variable("var2", [10, 10])]
        with tf.variable_scope("useful_scope"):
            made.append(tf.get_variable("var4", [9, 9]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(made)
            tf.train.Saver().save(sess, str(tmp_path / "model"), global_step=0)
    return str(tmp_path), values


def test_init_from_checkpoint_maps_the_root_to_a_scope_and_back(checkpoint):
    where, (v1, v2, v4) = checkpoint
    for source, target, scope in (("/", "some_scope/", "some_scope"), ("/", "/", None)):
        with tf.Graph().as_default():
            with tf.variable_scope(scope or tf.get_variable_scope()):
                mine = [tf.get_variable("var1", [1, 10]), tf.get_variable("var2", [10, 10])]
                with tf.variable_scope("useful_scope"):
                    mine.append(tf.get_variable("var4", [9, 9]))
            tf.train.init_from_checkpoint(where, {source: target})
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for got, want in zip(sess.run(mine), (v1, v2, v4)):
                    np.testing.assert_array_equal(got, want)


def test_init_from_checkpoint_refuses_what_it_cannot_map(checkpoint):
    where, _ = checkpoint
    with tf.Graph().as_default():
        with tf.variable_scope("some_scope"):
            tf.get_variable("my1", [10, 10])
            tf.get_variable("my2", [9, 9])
        with pytest.raises(ValueError, match="Tensor no_var is not found"):
            tf.train.init_from_checkpoint(where, {"no_var": "some_scope/my1"})
        with pytest.raises(ValueError, match="no variable named 'some_scope/no_var'"):
            tf.train.init_from_checkpoint(where, {"var2": "some_scope/no_var"})
        with pytest.raises(ValueError, match=r"Shape of variable some_scope/my1 \(\[10, 10\]\) doesn't match"):
            tf.train.init_from_checkpoint(where, {"var1": "some_scope/my1"})
        with pytest.raises(ValueError, match="Tensor useful_scope/my1 .* is not found"):
            tf.train.init_from_checkpoint(where, {"useful_scope/": "some_scope/"})
        with pytest.raises(ValueError, match="should map to scope only"):
            tf.train.init_from_checkpoint(where, {"useful_scope": "some_scope/"})


def test_init_from_checkpoint_takes_the_parts_of_a_partitioned_variable_as_a_list(tmp_path):
    partitioner = tf.min_max_variable_partitioner(max_partitions=5, axis=0, min_slice_size=8 << 10)
    with tf.Graph().as_default():
        with tf.variable_scope("scope"):
            whole = tf.get_variable("var1", [100, 100], initializer=tf.truncated_normal_initializer(0.5),
                                    partitioner=partitioner)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = np.concatenate(sess.run(list(whole)))
            tf.train.Saver().save(sess, str(tmp_path / "model"))
    with tf.Graph().as_default():
        mine = tf.get_variable("my1", [100, 100], initializer=tf.zeros_initializer(), partitioner=partitioner)
        tf.train.init_from_checkpoint(str(tmp_path), {"scope/var1": list(mine)})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(np.concatenate(sess.run(list(mine))), want)


def test_monitored_session_and_supervisor_initialize_lookup_tables(tmp_path):
    table = tf.contrib.lookup.index_table_from_tensor(tf.constant(["a", "b", "c"]))
    ids = table.lookup(tf.constant(["b", "c", "z"]))
    with tf.train.MonitoredTrainingSession() as sess:
        np.testing.assert_array_equal(sess.run(ids), [1, 2, -1])
    with tf.Graph().as_default():
        table = tf.contrib.lookup.index_table_from_tensor(tf.constant(["a", "b"]))
        ids = table.lookup(tf.constant(["b"]))
        sv = tf.train.Supervisor(logdir=str(tmp_path), init_op=None, save_model_secs=0, save_summaries_secs=0)
        with sv.managed_session() as sess:
            np.testing.assert_array_equal(sess.run(ids), [1])


def test_a_supervisor_writes_a_new_event_file_each_managed_session(tmp_path):
    logdir = str(tmp_path)
    tf.summary.scalar("c1", tf.constant(1.0))
    summary = tf.summary.merge_all()
    sv = tf.train.Supervisor(logdir=logdir, summary_op=None)
    for _ in range(2):
        with sv.managed_session(start_standard_services=False) as sess:
            sv.summary_computed(sess, sess.run(summary))
    paths = sorted(p for p in os.listdir(logdir) if "tfevents" in p)
    assert len(paths) == 2
    for path in paths:
        events = list(tf.train.summary_iterator(os.path.join(logdir, path)))
        assert events[0].file_version == "brain.Event:2"
        assert events[1].graph_def and events[2].meta_graph_def
        assert [v.tag for v in events[3].summary.value] == ["c1"]
        assert events[4].session_log.status == tf.SessionLog.STOP


def test_a_supervisor_of_a_replica_needs_its_variables_placed(tmp_path):
    with tf.Graph().as_default():
        tf.Variable([1.0], name="v")
        with pytest.raises(ValueError, match="must have their device set"):
            tf.train.Supervisor(logdir=str(tmp_path), is_chief=False)
    with tf.Graph().as_default(), tf.device("/job:ps"):
        tf.Variable([1.0], name="v")
        tf.train.Supervisor(logdir=str(tmp_path), is_chief=False)


def test_basic_train_loop_starts_again_after_an_aborted_error(tmp_path):
    calls = []

    def step(sess):
        calls.append(1)
        if len(calls) == 1:
            raise tf.errors.AbortedError(None, None, "a task restarted")
        sv.request_stop()

    sv = tf.train.Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)
    tf.train.basic_train_loop(sv, step)
    assert len(calls) == 2


def test_a_servers_default_container_is_its_job():
    server0 = tf.train.Server({"local0": ["localhost:0"]}, protocol="grpc", start=True)
    server1 = tf.train.Server({"local1": ["localhost:0"]}, protocol="grpc", start=True)
    try:
        v0, v1 = tf.Variable(1.0, name="v0"), tf.Variable(2.0, name="v0")
        s0, s1 = tf.Session(server0.target), tf.Session(server1.target)
        s0.run(v0.initializer)
        s1.run(v1.initializer)
        tf.Session.reset(server0.target, ["local0"])
        with pytest.raises(tf.errors.FailedPreconditionError):
            tf.Session(server0.target).run(v0)
        assert s1.run(v1) == 2.0  # (another job's container is kept)
    finally:
        server0.stop()
        server1.stop()


def test_a_program_ends_while_a_step_across_tasks_still_waits(tmp_path):
    script = textwrap.dedent("""
        import threading, time
        import distflow as tf
        from distflow.runtime.executor import waiting_kernels
        workers, _ = tf.test.create_local_cluster(2, 1)
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(10, tf.float32)
        with tf.device("/job:worker/task:1"):
            x = q.dequeue() + 1  # (nobody enqueues: the step waits for ever)
        sess = tf.Session(workers[0].target)
        threading.Thread(target=sess.run, args=(x,), daemon=True).start()
        for _ in range(600):  # (until the dequeue waits, 60 s at most)
            if waiting_kernels():
                print("main done", flush=True)
                break
            time.sleep(0.1)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert "main done" in done.stdout, done.stderr[-2000:]
    assert done.returncode == 0, done.stderr[-2000:]


def test_ops_made_after_an_import_do_not_take_the_imported_names():
    source = tf.Graph()
    with source.as_default():
        images = tf.constant(1.2, tf.float32, shape=[4, 3])
        w = tf.Variable(tf.ones([3, 2]), name="w")
        tf.add_to_collection("logits", tf.matmul(images, w))
    with tf.Graph().as_default() as graph:
        tf.train.import_meta_graph(tf.train.export_meta_graph(graph=source))
        assert tf.constant(3.0).op.name == "Const_1"  # (the imported constant is "Const")
        loss = tf.reduce_mean(tf.get_collection("logits")[0])  # (its axes: another Const)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        names = [op.name for op in graph.get_operations()]
        assert len(names) == len(set(names))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)  # (the weights' gradient once multiplied the wrong "Const")
            np.testing.assert_allclose(sess.run(graph.get_tensor_by_name("w:0")), 1 - 0.5 * 4 * 1.2 / 8, rtol=1e-6)


def test_a_savers_dict_may_give_the_parts_of_a_partitioned_variable(tmp_path):
    v = tf.get_variable("v", [4, 3], partitioner=tf.fixed_size_partitioner(2))
    for var_list in ({"v": list(v)}, {"v": [v]}):
        saver = tf.train.Saver(var_list)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(v.as_tensor())
            saver.save(sess, str(tmp_path / "model"))
            sess.run(tf.global_variables_initializer())
            saver.restore(sess, str(tmp_path / "model"))
            np.testing.assert_array_equal(sess.run(v.as_tensor()), want)
    with pytest.raises(ValueError, match="must be the parts of one partitioned variable"):
        tf.train.Saver({"w": [tf.Variable(1.0)]})


def test_tensor_shape_helpers_of_tf1():
    from distflow.framework import tensor_shape

    assert str(tensor_shape.unknown_shape(ndims=2)) == "(?, ?)"
    assert tensor_shape.vector(7).as_list() == [7] and tensor_shape.matrix(3, 8).as_list() == [3, 8]
    with pytest.raises(ValueError, match="not fully defined"):
        tf.TensorShape([1, None]).assert_is_fully_defined()
    tf.TensorShape([1, 2]).assert_is_fully_defined()
    got = tf.TensorShape([1, 2, 3]).most_specific_compatible_shape(tf.TensorShape([1, 5, 3]))
    assert got.as_list() == [1, None, 3]
    assert tf.TensorShape([1]).most_specific_compatible_shape([1, 2]).ndims is None
    proto = tf.TensorShape([1, None, 3]).as_proto()
    assert [d.size for d in proto.dim] == [1, -1, 3] and not proto.unknown_rank
    assert tf.TensorShape(None).as_proto().unknown_rank
    assert tf.TensorShape(proto).as_list() == [1, None, 3]
    assert tensor_shape.Dimension(12) == "12" and not tensor_shape.Dimension(12) == "_"
    assert (tensor_shape.Dimension(None) == "13") is None
    assert tf.TensorShape([3, 4, 7]) == ["3", "4", "7"] and tf.TensorShape([3, 4, 7]) != "347"


def test_seeds_wrap_at_two_to_the_31_as_in_tf():
    from distflow.framework import random_seed

    with tf.Graph().as_default():
        tf.set_random_seed(2**31 - 1)
        assert random_seed.get_seed(0) == (0, 2**31 - 1)  # (wrapped to (0, 0), which means "random")
        tf.set_random_seed(1)
        assert random_seed.get_seed(2**31 + 4) == (1, 5)


def test_static_values_of_what_the_graph_alone_determines():
    values = np.random.rand(3, 4)
    got = tf.get_static_value(tf.concat([values[:1], values[1:]], 0))
    np.testing.assert_array_equal(got, values)
    assert tf.get_static_value(tf.concat([values, tf.placeholder(tf.float64)], 0)) is None
    np.testing.assert_array_equal(tf.get_static_value(tf.fill([3], tf.constant(-1.0))), [-1.0, -1.0, -1.0])
    np.testing.assert_array_equal(tf.get_static_value(tf.range(1, 7, 2)), [1, 3, 5])
    assert tf.get_static_value(tf.equal(tf.constant(1), tf.constant(1))) == True  # noqa: E712 - a NumPy bool
    assert tf.get_static_value(tf.not_equal(tf.constant([[0, 1]]), tf.constant([[0], [1]]))).tolist() == \
        [[False, True], [True, False]]
    assert tf.get_static_value(tf.Variable([1.0, 2.0])) is None  # (a variable's value is the session's)
    partial = tf.contrib.util.constant_value(tf.stack([values, tf.placeholder(tf.float64)]), partial=True)
    np.testing.assert_array_equal(partial[0], values)
    assert partial[1] is None
    assert tf.contrib.util.constant_value(tf.stack([values, tf.placeholder(tf.float64)], axis=1), partial=True) is None
    used = tf.contrib.util.ops_used_by_graph_def(tf.get_default_graph().as_graph_def())
    assert used == sorted(set(used)) and {"ConcatV2", "Const", "Fill", "Pack", "Range"} <= set(used)


def test_waiting_for_a_checkpoint_stops_at_max_wait_secs(tmp_path, monkeypatch):
    from distflow.train import session_manager

    pauses, sleep = [], session_manager.time.sleep

    def recorded(seconds):  # (the session manager's waits are recorded, not slept; others sleep)
        if sys._getframe(1).f_globals.get("__name__") == session_manager.__name__:
            pauses.append(seconds)
        else:
            sleep(seconds)

    monkeypatch.setattr(session_manager.time, "sleep", recorded)
    v = tf.Variable([1.0], name="v")
    manager = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables(), recovery_wait_secs=30)
    with pytest.raises(RuntimeError, match="no init_op or init_fn or local_init_op was given"):
        manager.prepare_session("", init_op=None, saver=tf.train.Saver({"v": v}), checkpoint_dir=str(tmp_path),
                                wait_for_checkpoint=True, max_wait_secs=2)
    assert pauses == [2]  # (not one pause of recovery_wait_secs, 30 s, for a wait of at most 2)


def test_a_variable_can_be_fed_for_one_step():
    learning_rate = tf.Variable(0.1, name="learning_rate")
    w = tf.Variable(1.0)
    train = tf.train.GradientDescentOptimizer(learning_rate).minimize(tf.square(w))
    is_training = tf.Variable(True)
    branch = tf.cond(is_training, lambda: tf.constant(1), lambda: tf.constant(2))
    scaled = learning_rate.read_value() * 10
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([branch, scaled], {is_training: False, learning_rate: 0.5}) == [2, 5.0]
        assert sess.run([branch, scaled]) == [1, pytest.approx(1.0)]  # (the variables themselves are unchanged)
        sess.run(train, {learning_rate: 0.25})
        assert sess.run(w) == pytest.approx(0.5)  # (1 - 0.25 * 2)
        assert sess.run(learning_rate) == pytest.approx(0.1)
        call = sess.make_callable(branch, [is_training])
        assert (call(False), call(True)) == (2, 1)


def test_contribs_index_tables_take_their_vocabulary_as_mapping():
    ids = tf.contrib.lookup.index_table_from_tensor(mapping=tf.constant(["a", "b"])).lookup(tf.constant(["b", "z"]))
    words = tf.contrib.lookup.index_to_string_table_from_tensor(mapping=["a", "b"]).lookup(tf.constant([1, 5],
                                                                                                    tf.int64))
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        assert sess.run(ids).tolist() == [1, -1]
        assert sess.run(words).tolist() == [b"b", b"UNK"]


def test_zero_initializer_initializes_with_zeros_once():
    for dtype in (tf.int32, tf.float64):
        v = tf.Variable(tf.ones([2, 3], dtype))
        zero = tf.contrib.framework.zero_initializer(v)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value"):
                sess.run(v)
            np.testing.assert_array_equal(sess.run(zero), np.zeros([2, 3]))
            with pytest.raises(tf.errors.InvalidArgumentError, match="input is already initialized"):
                sess.run(zero)


def test_hparams_refuse_values_and_defaults_of_types_they_cannot_take():
    hparams = tf.contrib.training.HParams(int_=1, str_="str", bool_=True, float_=1.1, list_int=[1, 2], none=None)
    for name, value in (("str_", 2.2), ("int_", False), ("bool_", 1), ("int_", 2.2), ("int_", 2.0),
                        ("list_int", [2, 3.3]), ("int_", "2")):
        with pytest.raises(ValueError, match="Could not cast hparam"):
            hparams.set_hparam(name, value)
    hparams.set_hparam("float_", 1)  # (an int where a float was: cast)
    assert hparams.float_ == 1.0 and isinstance(hparams.float_, float)
    hparams.set_hparam("none", "1")  # (a hyperparameter first None takes anything)
    assert hparams.parse("int_=3,float_=2").int_ == 3 and hparams.float_ == 2.0  # (parse reads strings)
    assert hparams.get("int_", 7) == 3 and hparams.get("missing", 5) == 5 and hparams.get("list_int", [1]) == [1, 2]
    for name, default in (("int_", 2.0), ("float_", False), ("str_", [1, 2]), ("bool_", "relu"),
                          ("list_int", 1)):
        with pytest.raises(ValueError, match="is incompatible with default"):
            hparams.get(name, default)


def test_queue_runners_travel_with_a_meta_graph(tmp_path):
    path = str(tmp_path / "model.meta")
    with tf.Graph().as_default():
        (value,) = tf.train.slice_input_producer([tf.range(10)], shuffle=False)
        batched = tf.train.batch([value], batch_size=4)
        tf.add_to_collection("batch", batched)
        tf.train.export_meta_graph(path)
    with tf.Graph().as_default():
        tf.train.import_meta_graph(path, import_scope="imported")
        runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        assert len(runners) == 2 and all(r.name.startswith("imported/") for r in runners)
        batch = tf.get_collection("batch")[0]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord, threads = _start(sess)
            assert sess.run(batch).tolist() == [0, 1, 2, 3]
            _stop(coord, threads)
    proto = runners[0].to_proto()
    assert proto.queue_name.startswith("imported/") and list(proto.queue_closed_exception_types) == [11]
    assert runners[0].to_proto(export_scope="elsewhere") is None


def test_moving_averages_first_applied_inside_a_cond_branch_as_batch_norm_was_written():
    # (a much-copied TF 1.x batch norm: ema.apply inside tf.cond's training branch; TF made
    # the shadow variables outside the branch, so the graph's initializer could set them)
    x, training = tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.bool, [])
    mean, var = tf.nn.moments(x, [0])
    ema = tf.train.ExponentialMovingAverage(decay=0.5)

    def update():
        with tf.control_dependencies([ema.apply([mean, var])]):
            return tf.identity(mean), tf.identity(var)

    m, v = tf.cond(training, update, lambda: (ema.average(mean), ema.average(var)))
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([m, v], {x: data, training: True})
        np.testing.assert_allclose(got[0], data.mean(0))
        np.testing.assert_allclose(got[1], data.var(0))
        got = sess.run([m, v], {x: data * 0, training: False})  # (the averages: half of each)
        np.testing.assert_allclose(got[0], data.mean(0) / 2)
        np.testing.assert_allclose(got[1], data.var(0) / 2)
