"""Behaviours TensorFlow 1.x's own tests expect, each of which distflow once got wrong."""

import os
import threading

import numpy as np
import pytest

import distflow as tf


def test_a_variable_constraint_is_applied_after_each_update():
    w = tf.Variable([3.0, -3.0], constraint=lambda v: tf.clip_by_value(v, -1.0, 1.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(w.initializer)
        sess.run(train)
        assert sess.run(w).tolist() == [1.0, -1.0]


def test_the_train_op_lands_in_train_op_and_optimizer_variables_follow_the_graph():
    opt = tf.train.AdamOptimizer()
    w = tf.Variable(1.0)
    train = opt.minimize(tf.square(w))
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [train]
    assert len(opt.variables()) == 4  # m, v, beta1_power, beta2_power
    with tf.Graph().as_default():
        assert opt.variables() == []  # another graph: none of this optimizer's variables are there


def test_request_stop_with_an_error_after_join_raises_it():
    coord = tf.train.Coordinator()
    coord.request_stop()
    coord.join()
    with pytest.raises(ValueError, match="late"):
        coord.request_stop(ValueError("late"))
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "input ran out"))  # a clean stop: not raised


def test_colocated_gradients_put_their_sums_with_the_forward_op():
    with tf.device("/gpu:1"):
        x = tf.Variable(1.0)
        y = x * x + x * 3.0  # x's gradient is a sum of two paths
    grad = tf.gradients(y, x, colocate_gradients_with_ops=True)[0]
    assert grad.op.type == "AddN"
    assert grad.op.colocation_groups() == x.op.colocation_groups() == [b"loc:@Variable"]
    assert tf.gradients(y, x)[0].op.colocation_groups() != [b"loc:@Variable"]  # only when asked


def test_an_int32_global_step_works_with_accumulators_and_sync_replicas():
    step = tf.Variable(3, dtype=tf.int32, name="global_step", trainable=False)
    acc = tf.ConditionalAccumulator(tf.float32, shape=[])
    set_step = acc.set_global_step(step)
    apply_grad = acc.apply_grad(tf.constant(1.0), local_step=step)
    with tf.Session() as sess:
        sess.run(step.initializer)
        sess.run([set_step, apply_grad])
        assert sess.run(acc.num_accumulated()) == 1
    w = tf.Variable(1.0)
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=1)
    opt.minimize(tf.square(w), global_step=step)


def test_dequeue_many_larger_than_the_capacity_takes_elements_as_they_come():
    q = tf.FIFOQueue(2, tf.int32, shapes=[()])
    enqueue = q.enqueue_many([list(range(7))])
    take = q.dequeue_many(7)
    with tf.Session() as sess:
        t = threading.Thread(target=lambda: sess.run(enqueue))
        t.start()
        assert sess.run(take).tolist() == list(range(7))
        t.join(10)


def test_global_step_checks_and_lookup_by_name():
    assert tf.train.get_global_step() is None
    tf.Variable(0.5, name="global_step")
    with pytest.raises(TypeError, match="integer"):
        tf.train.get_global_step()
    with tf.Graph().as_default():
        tf.Variable([0, 0], name="global_step")
        with pytest.raises(TypeError, match="scalar"):
            tf.train.get_global_step()
    with tf.Graph().as_default():
        step = tf.Variable(0, name="global_step")
        assert tf.train.get_global_step().name == step.name


def test_re_entering_a_session_and_feeding_int_to_a_string_are_errors():
    sess = tf.Session()
    p = tf.placeholder(tf.string)
    with sess:
        with pytest.raises(RuntimeError, match="re-entrant"):
            with sess:
                pass
        with pytest.raises(TypeError, match="string"):
            sess.run(p, {p: 3})


# -- the two public TF 1.x programs that failed, and other defects TF's own tests found ------


def test_random_ops_take_a_ref_variables_dtype():
    v = tf.Variable(tf.zeros([3]))
    assert v.dtype == tf.float32_ref
    samples = [tf.random_uniform([3], dtype=v.dtype), tf.random_normal([3], dtype=v.dtype),
               tf.truncated_normal([3], dtype=v.dtype)]
    assert all(s.dtype == tf.float32 for s in samples)
    with tf.Session() as sess:
        assert all(x.dtype == np.float32 for x in sess.run(samples))


def test_softmax_cross_entropy_casts_float64_labels_to_the_logits_dtype():
    logits = tf.constant(np.log([[0.2, 0.8], [0.5, 0.5]]).astype(np.float32))
    labels = np.array([[0.0, 1.0], [1.0, 0.0]])  # float64 one-hot, as numpy makes them
    for fn in (tf.nn.softmax_cross_entropy_with_logits, tf.nn.softmax_cross_entropy_with_logits_v2):
        loss = fn(labels=labels, logits=logits)
        assert loss.dtype == tf.float32
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(loss), -np.log([0.8, 0.5]), rtol=1e-6)


def test_assert_with_a_condition_false_when_built_fails_when_it_runs():
    check = tf.Assert(False, ["the data"])  # TF builds it; only running it fails
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="the data"):
            sess.run(check)


def test_scalar_mul_of_indexed_slices_scales_their_values_and_stays_sparse():
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([3]), tf.constant([5, 2]))
    scaled = tf.scalar_mul(2, slices)
    assert isinstance(scaled, tf.IndexedSlices)
    with tf.Session() as sess:
        values, indices = sess.run([scaled.values, scaled.indices])
    assert values.tolist() == [[2.0, 4.0]] and indices.tolist() == [3]


def test_indexed_slices_without_dense_shape_have_an_unknown_shape():
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]))
    assert slices.shape.ndims is None
    assert tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant([4, 1])).shape.as_list() == [4, 1]


def test_square_of_complex_numbers_and_its_gradient():
    x = tf.constant(np.array([1 + 2j, -0.5 + 0.25j], np.complex64))
    y = tf.square(x)
    grad = tf.gradients(y, x, grad_ys=tf.constant(np.ones(2, np.complex64)))[0]
    with tf.Session() as sess:
        got, g = sess.run([y, grad])
    np.testing.assert_allclose(got, np.square(x_value := np.array([1 + 2j, -0.5 + 0.25j])), rtol=1e-6)
    np.testing.assert_allclose(g, 2 * np.conj(x_value), rtol=1e-6)  # TF's convention: conj(dy/dx)


def test_queue_ops_have_tf_s_v2_types_and_shapes_take_ints_as_one_dimension():
    assert tf.FIFOQueue(2, tf.float32).queue_ref.op.type == "FIFOQueueV2"
    assert tf.PaddingFIFOQueue(2, [tf.float32], shapes=[[None]]).queue_ref.op.type == "PaddingFIFOQueueV2"
    assert tf.RandomShuffleQueue(2, 0, tf.float32).queue_ref.op.type == "RandomShuffleQueueV2"
    q = tf.FIFOQueue(2, [tf.float32, tf.int32], shapes=((), (2)))
    assert [s.as_list() for s in q.shapes] == [[], [2]]
    with tf.Session() as sess:
        sess.run(q.enqueue([1.0, [2, 3]]))
        a, b = sess.run(q.dequeue())
    assert a == 1.0 and b.tolist() == [2, 3]


def test_run_metadata_has_an_empty_step_stats_and_a_reused_one_is_cleared_by_each_run():
    meta = tf.RunMetadata()
    assert not meta.HasField("step_stats") and len(meta.step_stats.dev_stats) == 0
    x = tf.constant(1.0) + 1.0
    with tf.Session() as sess:
        sess.run(x, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
        assert meta.HasField("step_stats")
        sess.run(x, run_metadata=meta)
        assert not meta.HasField("step_stats")
        # a step of a constant alone calls no kernel, and still says on which device it ran
        full = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        sess.run(tf.constant(1.0), options=full, run_metadata=meta)
        assert [d.device for d in meta.step_stats.dev_stats] == ["/job:localhost/replica:0/task:0/device:CPU:0"]
        sess.make_callable(tf.constant(42.0), accept_options=True)(options=full, run_metadata=meta)
        assert len(meta.step_stats.dev_stats) == 1


def test_running_a_session_on_an_empty_graph_says_so():
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(RuntimeError, match="The Session graph is empty"):
            sess.run([])


def test_a_root_name_scope_cannot_begin_with_an_underscore_but_a_nested_one_can():
    with pytest.raises(ValueError, match="not a valid scope name"):
        with tf.name_scope("_private"):
            pass
    with tf.name_scope("outer"):
        with tf.name_scope("_inner") as scope:
            assert scope == "outer/_inner/"


def test_tf_add_names_its_op_add_and_the_plus_operator_add():
    a, b = tf.constant(1.0), tf.constant(2.0)
    assert tf.add(a, b).op.name == "Add"
    assert tf.subtract(a, b).op.name == "Sub" and tf.multiply(a, b).op.name == "Mul"
    # (names are unique regardless of case, as in TF: after "Add" comes "add_1")
    assert (a + b).op.name == "add_1" and (a - b).op.name == "sub_1" and (a * b).op.name == "mul_1"
    with tf.Graph().as_default():
        c = tf.constant(1.0)
        assert (c + c).op.name == "add" and tf.add(c, c).op.name == "Add_1"


def test_device_spec_parse_from_string_and_variable_scope_collections():
    spec = tf.DeviceSpec(job="ps", task=3)
    assert spec.parse_from_string("/job:worker/device:GPU:1") is spec
    assert (spec.job, spec.task, spec.device_type, spec.device_index) == ("worker", None, "GPU", 1)
    with tf.variable_scope("scoped") as scope:
        v = tf.get_variable("v", [1])
        local = tf.get_variable("l", [1], collections=[tf.GraphKeys.LOCAL_VARIABLES])
    tf.get_variable("elsewhere", [1])
    assert scope.global_variables() == [v] and scope.local_variables() == [local]


def test_looper_thread_loop_starts_a_thread_that_calls_its_target():
    coord = tf.train.Coordinator()
    calls = []
    thread = tf.train.LooperThread.loop(coord, None, lambda: (calls.append(1), len(calls) >= 3 and coord.request_stop()))
    coord.join([thread], stop_grace_period_secs=10)
    assert len(calls) >= 3


def test_transpose_with_conjugate_conjugates_complex_values():
    m = np.array([[1 + 1j, 2 - 3j]], np.complex64)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.transpose(m, conjugate=True)), np.conj(m.T))
        np.testing.assert_array_equal(sess.run(tf.matrix_transpose(m[None], conjugate=True)), np.conj(m.T)[None])
        np.testing.assert_array_equal(sess.run(tf.transpose(m)), m.T)


def test_colocation_groups_are_bytes():
    v = tf.Variable(1.0, name="v")
    with tf.colocate_with(v.op):
        c = tf.constant(2.0)
    assert c.op.colocation_groups() == [b"loc:@v"]


def test_string_attrs_are_bytes_as_tensorflow_gives_them():
    v = tf.Variable(1.0, name="v")
    with tf.colocate_with(v.op):
        c = tf.nn.conv2d(tf.zeros([1, 4, 4, 1]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], "SAME", name="conv")
    op = c.op
    assert op.get_attr("padding") == b"SAME"
    assert op.get_attr("_class") == [b"loc:@v"] and op.get_attr("strides") == [1, 1, 1, 1]
    assert tf.placeholder(tf.int64, name="p").op.get_attr("dtype") == tf.int64
    with pytest.raises(ValueError, match="no attr named 'nope'"):
        op.get_attr("nope")
    with tf.Session() as sess:  # (distflow's own code still reads the stored strings)
        assert sess.run(c).shape == (1, 4, 4, 1)


def test_a_learning_rate_given_as_a_function_is_called():
    w = tf.Variable(1.0)
    train = tf.train.GradientDescentOptimizer(lambda: 0.25).minimize(tf.square(w))  # dw = 2w
    with tf.Session() as sess:
        sess.run(w.initializer)
        sess.run(train)
        assert sess.run(w) == 0.5


def test_queue_checks_that_tf_makes():
    q = tf.FIFOQueue(4, tf.float32)  # no shapes
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[1.0, 2.0]]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="shape fully defined"):
            sess.run(q.dequeue_many(2))
    two = tf.FIFOQueue(10, [tf.float32, tf.float32], shapes=[[], []])
    with pytest.raises(ValueError, match="first dimensions differ"):
        two.enqueue_many([[1.0, 2.0], [1.0]])
    with pytest.raises(ValueError, match="must have names to enqueue a dictionary"):
        q.enqueue({"a": 1.0})


def test_start_queue_runners_refuses_what_is_not_a_session_and_leaves_a_monitored_one_alone():
    with pytest.raises(TypeError, match="sess must be a `tf.Session` object"):
        tf.train.start_queue_runners(sess=object())
    tf.Variable(1.0)
    with tf.train.MonitoredSession() as sess:
        assert tf.train.start_queue_runners(sess=sess) == []


def test_indexed_slices_as_grad_ys_pass_through_and_can_be_fed():
    emb = tf.Variable([[1.0], [2.0]])
    rows = tf.gather(emb, [1])
    dy = tf.IndexedSlices(tf.constant([[3.0]]), tf.constant([0]), tf.constant([1, 1]))
    assert tf.gradients(rows, rows, grad_ys=dy)[0] is dy
    fed = tf.IndexedSlices(tf.placeholder(tf.float32, [None]), tf.placeholder(tf.int64, [None]),
                           tf.placeholder(tf.int64, [1]))
    total = tf.reduce_sum(fed.values) + tf.cast(tf.reduce_sum(fed.indices), tf.float32)
    with tf.Session() as sess:
        value = tf.IndexedSlicesValue(values=np.array([1.0, 2.0]), indices=np.array([0, 2]), dense_shape=np.array([3]))
        assert sess.run(total, {fed: value}) == 5.0
        assert sess.run(total, {fed: (np.array([1.0]), np.array([4]))}) == 5.0  # (values, indices)


def test_a_sparse_placeholder_of_known_shape_takes_indices_and_values():
    sp = tf.sparse_placeholder(tf.float32, shape=[2, 3])
    with tf.Session() as sess:
        dense = sess.run(tf.sparse_tensor_to_dense(sp), {sp: (np.array([[0, 1], [1, 2]]), np.array([5.0, 6.0]))})
    assert dense.tolist() == [[0.0, 5.0, 0.0], [0.0, 0.0, 6.0]]


def test_custom_gradient_works_on_a_method():
    class Scaler:
        factor = 10.0

        @tf.custom_gradient
        def double(self, x):
            return x * 2.0, lambda dy: dy * self.factor

    x = tf.constant(1.5)
    y = Scaler().double(x)
    with tf.Session() as sess:
        assert sess.run([y, tf.gradients(y, x)[0]]) == [3.0, 10.0]


def test_step_counter_hook_tags_with_the_global_steps_name_and_warns_when_it_does_not_increase(tmp_path, caplog):
    step = tf.Variable(0, dtype=tf.int64, name="my_step", trainable=False,
                       collections=[tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.GLOBAL_STEP])
    hook = tf.train.StepCounterHook(every_n_steps=1, output_dir=str(tmp_path))
    noop = tf.no_op()
    with caplog.at_level("WARNING", logger="distflow"), \
            tf.train.MonitoredSession(hooks=[hook]) as sess:
        for _ in range(3):
            sess.run(noop)
    assert hook._summary_tag == "my_step/sec"
    assert sum("has not been increased" in r.getMessage() for r in caplog.records) == 2


def test_saver_arguments_and_empty_savers_as_tf(tmp_path):
    v = tf.Variable(1.0, name="v")
    with pytest.raises(ValueError, match="build cannot be deferred"):
        tf.train.Saver([v], defer_build=True)
    deferred = tf.train.Saver(defer_build=True)
    keep_all = tf.train.Saver(max_to_keep=None)
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(RuntimeError, match="should be called before save"):
            deferred.save(sess, str(tmp_path / "d"))
        keep_all.save(sess, str(tmp_path / "k"), global_step=1)
        assert keep_all.last_checkpoints == []  # (max_to_keep=None keeps every one and lists none)
        (tmp_path / "train").mkdir()
        assert keep_all.save(sess, str(tmp_path / "train" / "checkpoint"), global_step=1).endswith("checkpoint-1")
        with pytest.raises(ValueError, match="collides with 'save_path'"):
            keep_all.save(sess, str(tmp_path / "train" / "checkpoint"))
    with tf.Graph().as_default():
        empty = tf.train.Saver(var_list=[], allow_empty=True)
        with tf.Session() as sess:
            assert empty.save(sess, str(tmp_path / "e")) is None
        assert (tmp_path / "e.meta").exists()  # (a meta graph all the same, as TF's)


def test_monitored_session_argument_checks_and_a_close_inside_its_with_block():
    tf.Variable(1.0)
    with pytest.raises(RuntimeError, match="Session is already closed"):
        with tf.train.MonitoredSession() as sess:
            sess.close()
    with tf.train.MonitoredSession() as sess:
        with pytest.raises(ValueError, match="`step_fn` may either have one `step_context` argument"):
            sess.run_step_fn(lambda step_context, extra: None)
        assert sess.run_step_fn(lambda step_context: 7) == 7
    with pytest.raises(TypeError, match="copy_from_scaffold is not a Scaffold instance"):
        tf.train.Scaffold(copy_from_scaffold=1)


def test_a_second_interactive_session_at_once_is_logged(caplog):
    tf.constant(1.0)
    with caplog.at_level("ERROR", logger="distflow"):
        first = tf.InteractiveSession()
        second = tf.InteractiveSession()
        second.close()
        first.close()
        third = tf.InteractiveSession()  # (the others are closed: no error)
        third.close()
    assert sum("An interactive session is already active" in r.getMessage() for r in caplog.records) == 1


def test_queue_runner_threads_have_tfs_names():
    q = tf.FIFOQueue(2, tf.float32, shapes=[[]], name="q")
    runner = tf.train.QueueRunner(q, [q.enqueue(1.0, name="put")])
    with tf.Session() as sess:
        threads = runner.create_threads(sess, coord=tf.train.Coordinator())
    assert [t.name for t in threads] == ["QueueRunnerThread-q-put", "QueueRunnerThread-q-close_on_stop"]


def test_as_string_honours_its_formatting_options():
    with tf.Session() as sess:
        got = sess.run([tf.as_string(1.5), tf.as_string(3.14159, precision=2), tf.as_string(12345.678, scientific=True),
                        tf.as_string(0.0001, shortest=True), tf.as_string(7, width=4, fill="0"),
                        tf.as_string(7, width=3), tf.as_string(True)])
    assert got == [b"1.500000", b"3.14", b"1.234568e+04", b"0.0001", b"0007", b"  7", b"true"]
    assert got == [(b"%f" % 1.5), b"%.2f" % 3.14159, b"%e" % 12345.678, b"%g" % 0.0001, b"%04d" % 7, b"%3d" % 7, b"true"]
    with pytest.raises(ValueError, match="both scientific and shortest"):
        tf.as_string(1.0, scientific=True, shortest=True)


def test_profiler_hook_writes_a_chrome_trace_of_a_step_every_n_steps(tmp_path):
    import json

    step = tf.train.get_or_create_global_step()
    v = tf.Variable(1.0)
    train = tf.group(v.assign_add(1.0), step.assign_add(1))
    with tf.train.MonitoredSession(hooks=[tf.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path))]) as sess:
        for _ in range(5):
            sess.run(train)
    traces = sorted(p.name for p in tmp_path.glob("timeline-*.json"))
    assert traces == ["timeline-1.json", "timeline-3.json", "timeline-5.json"]  # (the steps TF's hook writes)
    events = json.loads((tmp_path / "timeline-3.json").read_text())["traceEvents"]
    assert any(e["ph"] == "M" and "CPU:0" in e["args"]["name"] for e in events)
    kernels = {e["args"]["name"] for e in events if e["ph"] == "X"}
    assert "AssignAdd" in {e["name"] for e in events if e["ph"] == "X"} and kernels


def test_final_ops_that_read_an_exhausted_input_are_logged(caplog):
    dataset = tf.data.Dataset.range(1).make_one_shot_iterator().get_next()
    hook = tf.train.FinalOpsHook(dataset)
    with caplog.at_level("WARNING", logger="distflow"):
        with pytest.raises(tf.errors.OutOfRangeError):
            with tf.train.MonitoredSession(hooks=[hook]) as sess:
                sess.run(dataset)
                sess.run(dataset)  # (exhausted: the session ends, and the hook's final op reads again)
    assert any("FinalOpsHook" in r.getMessage() for r in caplog.records)


def test_summary_saver_hook_writes_each_summary_of_a_list(tmp_path):
    step = tf.train.get_or_create_global_step()
    a, b = tf.summary.scalar("a", 1.0), tf.summary.scalar("b", 2.0)
    bump = step.assign_add(1)
    hook = tf.train.SummarySaverHook(save_steps=1, output_dir=str(tmp_path), summary_op=[a, b])
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        sess.run(bump)
    tags = {v.tag for e in tf.train.summary_iterator(str(next(tmp_path.glob("events*")))) for v in e.summary.value}
    assert {"a", "b"} <= tags


class _StopCoordinatorAtCall(tf.train.SessionRunHook):
    """On its ``n``-th after_run, stops the coordinator with ``error`` (as a queue runner
    thread that failed would); with ``then_fail``, the step itself then fails as a step
    stuck on a queue that thread fed would (CancelledError)."""

    def __init__(self, n, error=None, then_fail=False):
        self._n, self._then_fail = n, then_fail
        self._error = error or tf.errors.AbortedError(None, None, "Aborted at N")

    def after_create_session(self, session, coord):
        self._coord = coord

    def after_run(self, run_context, run_values):
        self._n -= 1
        if self._n == 0:
            self._coord.request_stop(self._error)
            if self._then_fail:
                raise tf.errors.CancelledError(None, None, "Session got garbage-collected.")


class _CountingCreator(tf.train.ChiefSessionCreator):
    created = 0

    def create_session(self):
        self.created += 1
        return super().create_session()


@pytest.mark.parametrize("how", ["run", "run_step_fn"])
@pytest.mark.parametrize("what", ["aborted", "aborted, then the step fails", "a fatal error"])
def test_a_coordinator_stopped_by_a_preemption_error_recovers_and_by_another_stops(how, what):
    value = tf.placeholder(tf.int32, [])
    out = tf.identity(value)
    creator = _CountingCreator()
    fatal = tf.errors.UnknownError(None, None, "Some fatal exception inside the coordinator.")
    hook = _StopCoordinatorAtCall(2, fatal if what == "a fatal error" else None, then_fail="fails" in what)
    sess = tf.train.MonitoredSession(creator, [hook])

    def step(v):
        if how == "run":
            return sess.run(out, {value: v})
        return sess.run_step_fn(lambda step_context: step_context.run_with_hooks(out, feed_dict={value: v}))

    assert creator.created == 1 and not sess.should_stop()
    assert step(51) == 51 and not sess.should_stop()
    assert step(42) == 42  # the coordinator is stopped during this call
    if what == "a fatal error":
        assert sess.should_stop() and creator.created == 1  # not recreated: training ends
        with pytest.raises(tf.errors.UnknownError):
            sess.close()
    else:
        assert not sess.should_stop() and creator.created == 2  # recreated, and training goes on
        assert step(7) == 7
        sess.close()


def test_centered_rmsprop_applies_a_sparse_gradient_to_its_rows_only():
    init = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    emb = tf.Variable(init)
    loss = tf.reduce_sum(tf.gather(emb, [1]) * tf.constant([[0.5, -1.0]]))
    opt = tf.train.RMSPropOptimizer(0.1, decay=0.9, momentum=0.5, epsilon=1e-6, centered=True)
    train = opt.minimize(loss)
    assert [o.type for o in tf.get_default_graph().get_operations() if "RMSProp" in o.type] == \
        ["SparseApplyCenteredRMSProp"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        sess.run(train)
        got, ms = sess.run([emb, opt.get_slot(emb, "rms")])
    # NumPy, the obvious way, for row 1 (two steps); rows 0 and 2 and their slots are untouched
    g = np.array([0.5, -1.0])
    w, mg, rms, mom = init[1].astype(np.float64), np.zeros(2), np.ones(2), np.zeros(2)
    for _ in range(2):
        mg = 0.9 * mg + 0.1 * g
        rms = 0.9 * rms + 0.1 * g * g
        mom = 0.5 * mom + 0.1 * g / np.sqrt(rms - mg * mg + 1e-6)
        w = w - mom
    np.testing.assert_allclose(got[1], w, rtol=1e-5)
    np.testing.assert_array_equal(got[[0, 2]], init[[0, 2]])
    np.testing.assert_array_equal(ms[[0, 2]], np.ones((2, 2)))


def test_import_meta_graph_imports_into_the_current_name_scope_and_takes_input_map(tmp_path):
    with tf.Graph().as_default():
        x = tf.Variable(3.0, name="x")
        x * 2.0
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(x.initializer)
            saver.save(sess, str(tmp_path / "m"))
    meta = str(tmp_path / "m.meta")
    with tf.Graph().as_default() as g:
        with tf.name_scope("outer"):
            restorer = tf.train.import_meta_graph(meta)
        assert g.get_operation_by_name("outer/x").type == "VariableV2"
        with tf.Session() as sess:
            restorer.restore(sess, str(tmp_path / "m"))
            assert sess.run("outer/x:0") == 3.0
    with tf.Graph().as_default():
        c = tf.constant(10.0, name="c")
        tf.train.import_meta_graph(meta, input_map={"x/read:0": c})
        with tf.Session() as sess:
            assert sess.run("mul:0") == 20.0
        with pytest.raises(TypeError, match="imput_map"):
            tf.train.import_meta_graph(meta, imput_map={})  # a misspelling is not dropped


# -- arguments that were accepted and ignored ------------------------------------------------


def test_get_variable_and_variable_scopes_honour_constraints_custom_getters_and_partitioners():
    clip = lambda v: tf.clip_by_value(v, -1.0, 1.0)  # noqa: E731
    w = tf.get_variable("w", initializer=tf.constant(3.0), constraint=clip)
    with tf.variable_scope("scoped", constraint=clip):
        u = tf.get_variable("u", initializer=tf.constant(-3.0))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(tf.square(w) + tf.square(u))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run([w, u]) == [1.0, -1.0]  # (it read 0.99 when get_variable dropped the constraint)
    calls = []

    def outer(getter, name, *args, **kwargs):
        calls.append(("outer", name))
        return getter(name, *args, **kwargs)

    def inner(getter, name, *args, **kwargs):
        calls.append(("inner", name))
        return getter(name, *args, **kwargs)

    with tf.variable_scope("a", custom_getter=outer):
        with tf.variable_scope("b", custom_getter=inner):
            v = tf.get_variable("v", [1])
    assert v.op.name == "a/b/v" and calls == [("inner", "a/b/v"), ("outer", "a/b/v")]
    with tf.variable_scope("p", partitioner=lambda shape, dtype: [2, 1]):
        pv = tf.get_variable("pv", [4, 1])  # (the scope's partitioner: two parts)
    assert isinstance(pv, tf.PartitionedVariable) and [p.op.name for p in pv] == ["p/pv/part_0", "p/pv/part_1"]
    with pytest.raises(TypeError, match="unexpected keyword"):
        tf.get_variable("x", [1], initialiser=None)


def test_make_template_takes_unique_name_and_custom_getter():
    seen = []

    def getter(getter, name, *args, **kwargs):
        seen.append(name)
        return getter(name, *args, **kwargs)

    scale = tf.make_template("scale", lambda x: x * tf.get_variable("k", [1]), unique_name_="exactly",
                             custom_getter_=getter)
    scale(1.0)
    scale(2.0)
    assert [v.op.name for v in tf.global_variables()] == ["exactly/k"] and seen == ["exactly/k", "exactly/k"]


def test_layers_honour_constraints_and_activity_regularizers():
    x = tf.constant(np.ones((2, 5, 5, 3), np.float32))
    small = lambda v: tf.clip_by_value(v, -0.01, 0.01)  # noqa: E731
    y = tf.layers.conv2d(x, 4, 3, kernel_constraint=small, activity_regularizer=lambda a: tf.reduce_sum(a) * 0.0)
    z = tf.layers.dense(tf.reshape(y, [2, -1]), 3, kernel_constraint=small, activity_regularizer=tf.reduce_sum)
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 2
    train = tf.train.GradientDescentOptimizer(1.0).minimize(tf.reduce_sum(tf.square(z - 5.0)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        kernels = sess.run([v for v in tf.trainable_variables() if "kernel" in v.op.name])
    assert all(np.abs(k).max() <= 0.01 + 1e-7 for k in kernels)


def _dilated_conv(x, w, rate, padding):
    """NHWC x, HWIO w, stride 1: the definition, in NumPy."""
    kh, kw = w.shape[:2]
    eh, ew = (kh - 1) * rate[0] + 1, (kw - 1) * rate[1] + 1
    if padding == "SAME":
        x = np.pad(x, ((0, 0), ((eh - 1) // 2, eh - 1 - (eh - 1) // 2), ((ew - 1) // 2, ew - 1 - (ew - 1) // 2), (0, 0)))
    h, wd = x.shape[1] - eh + 1, x.shape[2] - ew + 1
    out = np.zeros((x.shape[0], h, wd, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            out += x[:, i * rate[0]:i * rate[0] + h, j * rate[1]:j * rate[1] + wd, :] @ w[i, j]
    return out


def test_dilations_and_layouts_of_the_generic_convolution_and_pooling_functions():
    rng = np.random.RandomState(0)
    x, w = rng.rand(1, 7, 7, 2), rng.rand(3, 3, 2, 3)
    x1, w1 = rng.rand(2, 9, 2), rng.rand(3, 2, 4)
    with tf.Session() as sess:
        for padding in ("VALID", "SAME"):
            np.testing.assert_allclose(sess.run(tf.nn.convolution(x, w, padding, dilation_rate=[2, 2])),
                                       _dilated_conv(x, w, (2, 2), padding), rtol=1e-6)
        conv1d = sess.run(tf.nn.conv1d(x1, w1, 1, "VALID", dilations=2))
        np.testing.assert_allclose(conv1d, _dilated_conv(x1[:, None], w1[None], (1, 2), "VALID")[:, 0], rtol=1e-6)
        ncw = sess.run(tf.nn.conv1d(np.transpose(x1, (0, 2, 1)), w1, 1, "VALID", data_format="NCW", dilations=2))
        np.testing.assert_allclose(ncw, np.transpose(conv1d, (0, 2, 1)), rtol=1e-6)
        pooled = sess.run(tf.nn.max_pool1d(np.transpose(x1, (0, 2, 1)), 2, 2, "VALID", data_format="NCW"))
        np.testing.assert_allclose(pooled, np.transpose(x1[:, :8].reshape(2, 4, 2, 2).max(axis=2), (0, 2, 1)))
        dilated_max = sess.run(tf.nn.pool(x, [2, 2], "MAX", "VALID", dilation_rate=[2, 2]))
        np.testing.assert_allclose(dilated_max, np.maximum.reduce(
            [x[:, a * 2:a * 2 + 5, b * 2:b * 2 + 5] for a in range(2) for b in range(2)]))
        np.testing.assert_allclose(sess.run(tf.nn.max_pool_v2(x1, 3, 3, "VALID")), x1.reshape(2, 3, 3, 2).max(axis=2))
        # the gradients of a dilated conv2d, as public functions
        xt, wt = tf.constant(x), tf.constant(w)
        y = tf.nn.conv2d(xt, wt, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1])
        dy = tf.ones_like(y)
        gx, gw = tf.gradients(y, [xt, wt], dy)
        bi = tf.nn.conv2d_backprop_input([1, 7, 7, 2], wt, dy, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1])
        bf = tf.nn.conv2d_backprop_filter(xt, [3, 3, 2, 3], dy, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1])
        a, b, c, d = sess.run([gx, bi, gw, bf])
    np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(c, d, rtol=1e-6)


def test_matrix_square_root_of_a_matrix_that_is_not_symmetric_and_its_gradient():
    from gradcheck import check_gradients

    m = np.array([[4.0, 1.0], [0.0, 9.0]])
    with tf.Session() as sess:
        root = sess.run(tf.linalg.sqrtm(m))
    np.testing.assert_allclose(root @ root, m, rtol=1e-12)
    np.testing.assert_allclose(root, [[2.0, 0.2], [0.0, 3.0]], rtol=1e-12)  # (it gave [[4, 0], [0, 9]])
    a = np.array([[5.0, 2.0, 0.5], [1.0, 6.0, 0.3], [0.2, 0.4, 4.0]])
    check_gradients(tf.linalg.sqrtm, [np.stack([a, a.T + np.eye(3)])])


def test_mean_per_class_accuracy_is_the_mean_and_its_update_the_per_class_values():
    labels, predictions = tf.constant([0, 0, 1, 1]), tf.constant([0, 1, 1, 1])
    value, update = tf.metrics.mean_per_class_accuracy(labels, predictions, 2)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(update).tolist() == [0.5, 1.0]
        assert sess.run(value) == 0.75


def test_substr_in_utf8_characters():
    with tf.Session() as sess:
        assert sess.run(tf.strings.substr(tf.constant("héllo"), 1, 2, unit="UTF8_CHAR")).decode() == "él"
        assert sess.run(tf.strings.substr(tf.constant("héllo"), 1, 2)) == "héllo".encode()[1:3]


def test_decode_csv_select_cols():
    with tf.Session() as sess:
        a, c = sess.run(tf.decode_csv(["1,2,3", "4,5,6"], [[0], [0]], select_cols=[0, 2]))
    assert a.tolist() == [1, 4] and c.tolist() == [3, 6]


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_compressed_tfrecord_and_fixed_length_files_are_read_and_written(tmp_path, kind):
    path = str(tmp_path / "records")
    options = tf.python_io.TFRecordOptions(getattr(tf.python_io.TFRecordCompressionType, kind))
    with tf.python_io.TFRecordWriter(path, options=options) as writer:
        for r in (b"one", b"two", b"three"):
            writer.write(r)
    assert list(tf.python_io.tf_record_iterator(path, options=options)) == [b"one", b"two", b"three"]
    with pytest.raises(tf.errors.DataLossError):
        list(tf.python_io.tf_record_iterator(path))  # (read as a plain file, it is damage, said so)
    dataset = tf.data.TFRecordDataset([path], compression_type=kind).make_one_shot_iterator().get_next()
    queue = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
    _, value = tf.TFRecordReader(options=options).read(queue)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert [sess.run(dataset) for _ in range(3)] == [b"one", b"two", b"three"]
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert [sess.run(value) for _ in range(3)] == [b"one", b"two", b"three"]
        coord.request_stop()
        coord.join(threads)


def test_graph_options_infer_shapes_puts_output_shapes_in_the_sessions_graph_def():
    (tf.constant([1.0, 2.0]) * 2.0)
    config = tf.ConfigProto(graph_options=tf.GraphOptions(infer_shapes=True))
    with tf.Session(config=config) as sess:
        shapes = {n.name: n.attr["_output_shapes"] for n in sess.graph_def.node if "_output_shapes" in n.attr}
    assert set(shapes) == {"Const", "Const_1", "mul"}
    with tf.Session() as sess:
        assert not any("_output_shapes" in n.attr for n in sess.graph_def.node)


def test_tf_io_names_are_the_top_level_ops_and_read_back_what_they_wrote(tmp_path):
    for name in ("read_file", "write_file", "matching_files", "parse_example", "decode_csv", "serialize_tensor",
                 "FixedLenFeature", "FIFOQueue"):
        assert getattr(tf.io, name) is getattr(tf, name)
    assert tf.io.TFRecordWriter is tf.python_io.TFRecordWriter
    path = str(tmp_path / "blob.bin")
    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(tf.io.write_file(path, tf.constant(b"\x00payload")))
        found = tf.io.matching_files(str(tmp_path / "*.bin"))
        assert sess.run(tf.io.read_file(path)) == b"\x00payload"
        assert list(sess.run(found)) == [path.encode()]
        assert sess.run(tf.timestamp()) > 1.6e9
        with pytest.raises(tf.errors.NotFoundError, match="missing.bin"):
            sess.run(tf.read_file(str(tmp_path / "missing.bin")))
    assert tf.io.decode_jpeg is tf.image.decode_jpeg
    with pytest.raises(AttributeError, match="tf.io.decode_proto"):
        tf.io.decode_proto  # noqa: B018


def test_convert_to_tensor_or_indexed_slices_keeps_indexed_slices():
    with tf.Graph().as_default():
        slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
        assert tf.convert_to_tensor_or_indexed_slices(slices) is slices
        assert tf.convert_to_tensor_or_indexed_slices(slices, dtype=tf.float32) is slices
        with pytest.raises(ValueError, match="int32 for IndexedSlices with dtype float32"):
            tf.convert_to_tensor_or_indexed_slices(slices, dtype=tf.int32)
        assert isinstance(tf.convert_to_tensor_or_indexed_slices([1, 2]), tf.Tensor)


def test_wait_for_session_gives_up_with_deadline_exceeded_when_the_model_never_becomes_ready():
    """As TF's: a local variable initialized from a global one still initializes (from the
    global's initial value), and the wait ends in DeadlineExceededError naming what is missing."""
    with tf.Graph().as_default() as graph:
        v = tf.Variable(1, name="v")
        w = tf.Variable(v, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="w")
        manager = tf.train.SessionManager(graph=graph, ready_op=tf.report_uninitialized_variables(),
                                          ready_for_local_init_op=None, local_init_op=w.initializer,
                                          recovery_wait_secs=0.05)
        with pytest.raises(tf.errors.DeadlineExceededError, match="Session was not ready after waiting.*: .*v"):
            manager.wait_for_session("", max_wait_secs=0.2)


def test_a_session_cluster_def_must_be_the_servers_own_cluster():
    """TF propagates a session's ConfigProto.cluster_def to running servers; distflow runs a
    session whose cluster_def is the server's own and refuses another by name (compat.md)."""
    server, other = tf.train.Server.create_local_server(), tf.train.Server.create_local_server()
    try:
        own = tf.train.ClusterSpec({"localhost": [server.target[len("grpc://"):]]})
        with tf.Graph().as_default():
            c = tf.constant(17)
            for named in (own, own.as_cluster_def()):
                with tf.Session(server.target, config=tf.ConfigProto(cluster_def=named)) as sess:
                    assert sess.run(c) == 17
            cluster = tf.train.ClusterDef()
            job = cluster.job.add(name="worker")
            job.tasks[0], job.tasks[1] = server.target[len("grpc://"):], other.target[len("grpc://"):]
            with tf.Session(server.target, config=tf.ConfigProto(cluster_def=cluster)) as sess:
                with pytest.raises(tf.errors.UnimplementedError, match="cluster_def names the cluster .*'worker'.* "
                                                                      "serves the cluster .*'localhost'"):
                    sess.run(c)
    finally:  # (a server left running in this process would be the next one's neighbour)
        server.stop()
        other.stop()


def test_import_meta_graph_of_a_bad_or_missing_file_is_an_io_error(tmp_path):
    """As TF's saver test: a text .meta, a file overwritten with another message, a deleted file."""
    filename = str(tmp_path / "metafile")
    with tf.Graph().as_default():
        tf.Variable(10.0, name="v0")
        tf.train.export_meta_graph(filename, as_text=False)
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(filename)
        saver.export_meta_graph(filename, as_text=True)
    with tf.Graph().as_default():
        tf.train.import_meta_graph(filename)
        tf.train.write_graph(saver.as_saver_def(), str(tmp_path), "metafile")
    with tf.Graph().as_default():
        with pytest.raises(IOError, match="Cannot parse file"):
            tf.train.import_meta_graph(filename)
        os.remove(filename)
        with pytest.raises(IOError, match="does not exist"):
            tf.train.import_meta_graph(filename)


def test_switch_case_runs_the_indexed_branch_and_its_default():
    index = tf.placeholder(tf.int32, [])
    branches = [lambda: tf.constant(10), lambda: tf.constant(11), lambda: tf.constant(12)]
    listed = tf.switch_case(index, branches)
    paired = tf.switch_case(index, {0: branches[0], 1: branches[1]}, default=lambda: tf.constant(-1))
    with tf.Session() as sess:
        # (without a default, an index with no branch runs the last one, as TensorFlow's)
        assert [sess.run(listed, {index: i}) for i in (0, 1, 2, 7, -1)] == [10, 11, 12, 12, 12]
        assert [sess.run(paired, {index: i}) for i in (0, 1, 2)] == [10, 11, -1]
    with pytest.raises(ValueError, match="contiguous range"):
        tf.switch_case(index, {0: branches[0], 2: branches[1]})
    with pytest.raises(TypeError, match="int32"):
        tf.switch_case(tf.constant(1, tf.int64), branches)


def test_sparse_matmul_is_the_float32_product_and_differentiates_as_matmul():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((5, 4)).astype(np.float32)
    a[:, 1] = 0.0
    x, y = tf.constant(a), tf.constant(b)
    product = tf.sparse_matmul(x, y, transpose_b=True, a_is_sparse=True)
    reference = tf.matmul(x, y, transpose_b=True)
    grads = tf.gradients(tf.reduce_sum(tf.square(product)), [x, y])
    reference_grads = tf.gradients(tf.reduce_sum(tf.square(reference)), [x, y])
    assert product.op.type == "SparseMatMul" and product.dtype == tf.float32 and product.shape.as_list() == [3, 5]
    with tf.Session() as sess:
        got, want, g, rg = sess.run([product, reference, grads, reference_grads])
    np.testing.assert_allclose(got, a @ b.T, rtol=1e-5)
    np.testing.assert_array_equal(got, want)
    for x_grad, want_grad in zip(g, rg):
        np.testing.assert_allclose(x_grad, want_grad, rtol=1e-6)


# -- found by TensorFlow's NMT tutorial's own tests (tensorflow/nmt), run with `import distflow as tf`


def test_padded_batch_pads_with_a_value_known_only_when_the_iterator_runs():
    table = tf.contrib.lookup.index_table_from_tensor(tf.constant(["a", "b", "eos"]))
    eos_id = tf.cast(table.lookup(tf.constant("eos")), tf.int32)  # (2, once the table is filled)
    words = tf.data.Dataset.from_tensor_slices(tf.constant(["a b b", "b", "a a", "b a b a"]))
    ids = words.map(lambda line: tf.cast(table.lookup(tf.string_split([line]).values), tf.int32))
    direct = ids.padded_batch(2, padded_shapes=[None], padding_values=eos_id)
    # the same inside group_by_window's reduce function: the pad is captured from the program's graph
    bucketed = ids.apply(tf.contrib.data.group_by_window(
        key_func=lambda x: tf.to_int64(0), window_size=4,
        reduce_func=lambda key, window: window.padded_batch(4, padded_shapes=[None], padding_values=eos_id)))
    first = direct.make_initializable_iterator()
    second = bucketed.make_initializable_iterator()
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        sess.run([first.initializer, second.initializer])
        assert sess.run(first.get_next()).tolist() == [[0, 1, 1], [1, 2, 2]]
        assert sess.run(second.get_next()).tolist() == [[0, 1, 1, 2], [1, 2, 2, 2], [0, 0, 2, 2], [1, 0, 1, 0]]
    with pytest.raises(TypeError, match="padding value"):
        ids.padded_batch(2, padded_shapes=[None], padding_values=tf.cast(eos_id, tf.int64))


def test_a_slice_of_a_dimension_of_unknown_size_has_unknown_size():
    x = tf.placeholder(tf.int32, [None])
    assert [x[:3].shape.as_list(), x[2:5].shape.as_list(), x[-2:].shape.as_list()] == [[None]] * 3
    assert x[0:0].shape.as_list() == [0] and tf.placeholder(tf.int32, [7])[:3].shape.as_list() == [3]
    lines = tf.data.Dataset.from_tensor_slices(tf.constant(["f e a g", "c c a", "d"]))
    clipped = lines.map(lambda line: tf.string_split([line]).values[:3])
    with tf.Session() as sess:
        it = clipped.make_one_shot_iterator().get_next()
        assert [sess.run(it).tolist() for _ in range(3)] == [[b"f", b"e", b"a"], [b"c", b"c", b"a"], [b"d"]]


def test_hparams_take_none_and_other_values_as_tensorflows():
    hparams = tf.contrib.training.HParams(src=None, learning_rate=0.1, unit_type=tf.nn.rnn_cell.LSTMCell)
    hparams.set_hparam("src", "en")
    assert hparams.src == "en" and hparams.unit_type is tf.nn.rnn_cell.LSTMCell
    with pytest.raises(ValueError, match="Could not cast"):
        hparams.set_hparam("unit_type", "lstm")


def test_gfile_writes_bytes_as_they_are_in_text_mode(tmp_path):
    png = b"\x89PNG\r\n\x1a\n\x00"
    with tf.gfile.GFile(str(tmp_path / "a.png"), mode="w") as f:
        f.write(png)
    with tf.gfile.GFile(str(tmp_path / "b.txt"), mode="w") as f:
        f.write("text ")
        f.write(b"and bytes")
    assert (tmp_path / "a.png").read_bytes() == png
    assert (tmp_path / "b.txt").read_text() == "text and bytes"


def test_a_device_wrapper_places_its_cell():
    cell = tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.GRUCell(3), "/gpu:1")
    state = cell.zero_state(2, tf.float32)
    output, _ = cell(tf.zeros([2, 4]), state)
    assert output.device == state.device == "/device:GPU:1"
    assert tf.contrib.rnn.DeviceWrapper is tf.nn.rnn_cell.DeviceWrapper
    assert tf.contrib.learn.ModeKeys.INFER == "infer"
    assert tf.contrib.framework.nest.flatten([1, (2, [3])]) == [1, 2, 3]


def test_normed_bahdanau_attention_builds_its_variables():
    memory = tf.constant(np.random.RandomState(0).randn(2, 5, 4).astype(np.float32))
    mechanism = tf.contrib.seq2seq.BahdanauAttention(4, memory, normalize=True)
    cell = tf.contrib.seq2seq.AttentionWrapper(tf.nn.rnn_cell.GRUCell(4), mechanism, attention_layer_size=4)
    output, _ = cell(tf.zeros([2, 3]), cell.zero_state(2, tf.float32))
    names = sorted(v.op.name.rsplit("/", 1)[-1] for v in tf.global_variables())
    assert {"attention_b", "attention_g", "attention_v"} <= set(names)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(output).shape == (2, 4)


def test_a_beam_of_one_over_an_attention_cell_decodes_as_greedy_decoding():
    """An AttentionWrapper's state holds a scalar (its time): the beam search passes it along
    instead of splitting it into beams."""
    seq2seq = tf.contrib.seq2seq
    tf.set_random_seed(7)
    rng = np.random.RandomState(3)
    embedding = tf.constant(rng.randn(7, 3).astype(np.float32))
    memory = tf.constant(rng.randn(2, 5, 4).astype(np.float32))
    start, end = tf.constant([1, 2]), 6

    def decoder_cell(memory, reuse):
        with tf.variable_scope("decoder", reuse=reuse):
            mechanism = seq2seq.LuongAttention(4, memory)
            return seq2seq.AttentionWrapper(tf.nn.rnn_cell.GRUCell(4), mechanism, attention_layer_size=4)

    projection = tf.layers.Dense(7, name="projection")
    cell = decoder_cell(memory, None)
    greedy = seq2seq.BasicDecoder(cell, seq2seq.GreedyEmbeddingHelper(embedding, start, end),
                                  cell.zero_state(2, tf.float32), output_layer=projection)
    with tf.variable_scope("decoder"):
        greedy_out, _, _ = seq2seq.dynamic_decode(greedy, maximum_iterations=6)
    ids = {}
    for width in (1, 3):
        cell = decoder_cell(seq2seq.tile_batch(memory, width), True)
        beam = seq2seq.BeamSearchDecoder(cell, embedding, start, end, cell.zero_state(2 * width, tf.float32),
                                         width, output_layer=projection)
        with tf.variable_scope("decoder", reuse=True):
            out, _, _ = seq2seq.dynamic_decode(beam, maximum_iterations=6)
        ids[width] = out.predicted_ids
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        want, one, three = sess.run([greedy_out.sample_id, ids[1], ids[3]])
    for row in range(2):  # (up to the end token: what a decoder emits after it is not defined)
        greedy_ids = want[row].tolist()
        upto = greedy_ids.index(end) + 1 if end in greedy_ids else len(greedy_ids)
        assert one[row, :upto, 0].tolist() == greedy_ids[:upto]
    assert three.shape[0] == 2 and three.shape[2] == 3


# -- found by running Kipf and Welling's graph convolutional networks (tkipf/gcn), TF 1.x code


def test_a_sparse_placeholders_shape_may_be_a_tensor_and_sparse_dropout_keeps_what_its_mask_says():
    x = tf.sparse_placeholder(tf.float32, shape=tf.constant([3, 4], dtype=tf.int64))
    nonzero = tf.placeholder(tf.int32)  # (no shape: the mask's rank is known only when the step runs)
    mask = tf.cast(tf.floor(0.5 + tf.random_uniform(nonzero, seed=1)), dtype=tf.bool)
    kept = tf.sparse_retain(x, mask)
    value = tf.SparseTensorValue(indices=[[0, 1], [1, 2], [2, 3]], values=[1.0, 2.0, 3.0], dense_shape=[3, 4])
    with tf.Session() as sess:
        got_mask, got = sess.run([mask, kept], {x: value, nonzero: 3})
    assert got.dense_shape.tolist() == [3, 4]
    assert got.values.tolist() == [v for v, keep in zip([1.0, 2.0, 3.0], got_mask) if keep]
    assert got.indices.tolist() == [i for i, keep in zip([[0, 1], [1, 2], [2, 3]], got_mask) if keep]
    with pytest.raises(ValueError, match="rank"):
        tf.sparse_retain(x, tf.constant([[True]]))


def test_a_summary_named_after_a_variable_has_its_name_cleaned_as_tensorflows():
    # (aymericdamien's TensorFlow-Examples: tf.summary.histogram(var.name, var))
    w = tf.Variable(tf.zeros([2]), name="W1")
    summary = tf.summary.histogram(w.name, w)
    scalar = tf.summary.scalar("loss/a b:c", tf.constant(1.0), family="/fam")
    assert summary.op.name == "W1_0"
    with tf.Session() as sess:
        sess.run(w.initializer)
        tags = [v.tag for v in tf.Summary.FromString(sess.run(tf.summary.merge([summary, scalar]))).value]
    assert tags == ["W1_0", "fam/fam/loss/a_b_c"]


def test_a_vocabulary_processor_numbers_words_by_appearance_trims_and_saves_as_json(tmp_path):
    # (the CNN text classifiers of 2016: VocabularyProcessor(max_len).fit_transform(texts))
    from distflow.contrib.learn import preprocessing
    texts = ["the cat sat", "the dog sat down", "a cat"]
    processor = preprocessing.VocabularyProcessor(3)
    ids = np.array(list(processor.fit_transform(texts)))
    assert ids.tolist() == [[1, 2, 3], [1, 4, 3], [6, 2, 0]]  # "down" is cut, padding is 0
    assert len(processor.vocabulary_) == 7
    assert list(processor.reverse([[1, 4, 3]])) == ["the dog sat"]
    assert next(processor.transform(["the bird"])).tolist() == [1, 0, 0]  # frozen: unknown word -> 0

    trimmed = preprocessing.VocabularyProcessor(4, min_frequency=1)
    assert np.array(list(trimmed.fit_transform(texts))).tolist() == [[3, 1, 2, 0], [3, 0, 2, 0], [0, 1, 0, 0]]

    path = str(tmp_path / "vocab")
    trimmed.save(path)
    restored = preprocessing.VocabularyProcessor.restore(path)
    assert restored.max_document_length == 4
    assert next(restored.transform(["sat the cat"])).tolist() == [2, 3, 1, 0]
    (tmp_path / "pickled").write_bytes(b"\x80\x04\x95...")
    with pytest.raises(ValueError, match="pickles"):
        preprocessing.VocabularyProcessor.restore(str(tmp_path / "pickled"))


def test_a_variable_is_true_as_tf_1s_and_a_tensor_still_refuses():
    # (`global_step = global_step or tf.train.get_or_create_global_step()`, as TF 1.x code writes it)
    v = tf.Variable(0, name="step")
    assert (v or None) is v
    with pytest.raises(TypeError, match="as a Python `bool`"):
        bool(v.value())


def test_assigning_to_an_empty_slice_of_a_variable_takes_any_value():
    # (TF checks the value's shape against the slice's, and writes, only for a non-empty slice)
    v = tf.Variable(np.arange(16.0).reshape(4, 4))
    empty = v[8:10, 8:10].assign([[]])
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(empty), np.arange(16.0).reshape(4, 4))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"sliced l-value shape \[2, 2\]"):
            sess.run(v[0:2, 0:2].assign([[1.0, 2.0]]))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
def test_bias_add_takes_integer_tensors_as_tf(dtype):
    value = np.arange(24).reshape(2, 3, 4).astype(dtype)
    bias = np.array([1, -2, 3, 4], dtype)
    with tf.Session() as sess:
        nhwc, nchw = sess.run([tf.nn.bias_add(value, bias), tf.nn.bias_add(value, bias[:3], data_format="NCHW")])
    assert nhwc.dtype == dtype and np.array_equal(nhwc, value + bias)
    assert np.array_equal(nchw, value + bias[:3].reshape(1, 3, 1))


def test_contrib_conv1d_transpose_takes_tf_1s_stride_argument():
    rng = np.random.default_rng(0)
    x, f = rng.standard_normal((2, 5, 3)), rng.standard_normal((3, 4, 3))
    with tf.Session() as sess:
        old, new = sess.run([tf.contrib.nn.conv1d_transpose(x, f, [2, 10, 4], stride=2, padding="SAME"),
                             tf.nn.conv1d_transpose(x, f, [2, 10, 4], strides=2, padding="SAME")])
    np.testing.assert_array_equal(old, new)


def test_argmax_and_argmin_of_an_empty_axis_or_a_wrong_one_fail_the_step_naming_the_op():
    x, axis = tf.placeholder(tf.float32), tf.placeholder(tf.int32, [])
    with tf.Session() as sess:
        assert sess.run(tf.argmax(x, axis), {x: [[1, 3], [4, 2]], axis: 1}).tolist() == [1, 0]
        for op, value, a, message in ((tf.argmin, np.zeros(0), 0, r"ArgMin: Reduction axis 0 is empty in shape \[0\]"),
                                      (tf.argmax, np.zeros((2, 0)), -1, r"ArgMax: Reduction axis -1 is empty"),
                                      (tf.argmax, np.zeros((2, 3)), 2, r"range \[-2, 2\), but got 2"),
                                      (tf.argmin, 5.0, 0, r"range \[0, 0\), but got 0")):
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(op(x, axis), {x: value, axis: a})


def test_write_file_makes_the_directories_it_writes_into(tmp_path):
    path = tmp_path / "a" / "b" / "file.txt"
    blocked = tmp_path / "plain"
    blocked.write_text("")
    with tf.Session() as sess:
        sess.run(tf.write_file(str(path), "contents"))
        assert path.read_bytes() == b"contents"
        assert sess.run(tf.read_file(str(path))) == b"contents"
        with pytest.raises(tf.errors.FailedPreconditionError, match="Not a directory"):
            sess.run(tf.write_file(str(blocked / "file.txt"), "x"))


def test_depth_to_space_runs_on_images_of_any_size_and_has_its_gradient():
    # (a sub-pixel convolution's upscaling, on images whose size the graph does not fix)
    rng = np.random.default_rng(0)
    images = tf.placeholder(tf.float64, [None, None, None, 8])
    up = tf.depth_to_space(images, 2)
    assert up.shape.as_list() == [None, None, None, 2]
    assert tf.space_to_depth(tf.placeholder(tf.float32), 2).shape.ndims == 4
    value = rng.standard_normal((2, 3, 5, 8))
    n, h, w, c = value.shape
    expected = value.reshape(n, h, w, 2, 2, 2).transpose(0, 1, 3, 2, 4, 5).reshape(n, 2 * h, 2 * w, 2)
    weights = rng.standard_normal(expected.shape)
    loss = tf.reduce_sum(up * weights)
    nchw = tf.depth_to_space(tf.transpose(images, [0, 3, 1, 2]), 2, data_format="NCHW")
    with tf.Session() as sess:
        got, grad, got_nchw = sess.run([up, tf.gradients(loss, images)[0], nchw], {images: value})
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(got_nchw, expected.transpose(0, 3, 1, 2))
        eps, numeric = 1e-6, np.zeros(6)
        for k, i in enumerate([(0, 0, 0, 0), (1, 2, 4, 7), (0, 1, 3, 5), (1, 0, 2, 1), (0, 2, 0, 6), (1, 1, 1, 3)]):
            d = np.zeros_like(value)
            d[i] = eps
            numeric[k] = (sess.run(loss, {images: value + d}) - sess.run(loss, {images: value - d})) / (2 * eps)
            assert grad[i] == pytest.approx(numeric[k], rel=1e-6, abs=1e-9)
        with pytest.raises(tf.errors.InvalidArgumentError, match="SpaceToDepth: Image width 5 and height 3"):
            sess.run(tf.space_to_depth(images, 2), {images: value})
    with pytest.raises(ValueError, match="input depth 8 is not divisible by block_size \\* block_size = 9"):
        tf.depth_to_space(images, 3)


def test_a_gather_along_an_axis_known_only_when_the_step_runs_has_a_known_rank():
    params = tf.constant([[0, 1, 2]])
    axis = tf.placeholder(tf.int32, [])
    gathered = tf.gather(params, tf.constant([[0, 0], [0, 0]]), axis=axis)
    assert gathered.shape.as_list() == [None, None, None]
    assert tf.gather(params, tf.placeholder(tf.int32), axis=axis).shape.ndims is None
    with tf.Session() as sess:
        assert sess.run(gathered, {axis: 1}).shape == (1, 2, 2)
        assert sess.run(gathered, {axis: 0}).shape == (2, 2, 3)


def test_the_contrib_homes_of_keras_linalg_and_distributions_are_the_modules_they_became():
    from distflow.contrib.keras import layers, models
    assert layers is tf.keras.layers and models.Sequential is tf.keras.Sequential
    assert tf.contrib.linalg.LinearOperatorDiag is tf.linalg.LinearOperatorDiag
    assert tf.contrib.distributions.Normal is tf.distributions.Normal


def test_tf_0_12s_summary_functions_use_their_tags_as_given():
    with tf.name_scope("train"):
        tf.contrib.deprecated.scalar_summary(["loss", "accuracy"], tf.constant([0.5, 0.75]))
        tf.contrib.deprecated.histogram_summary("weights", tf.constant([1.0, 2.0, 3.0]), name="hist")
        tf.contrib.deprecated.image_summary("digits", tf.zeros([2, 4, 4, 1]), max_images=2)
        tf.contrib.deprecated.audio_summary("sound", tf.zeros([1, 8]), 8000, collections=["audio"])
    merged = tf.contrib.deprecated.merge_all_summaries()
    assert [t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)] == [
        "train/ScalarSummary", "train/hist", "train/ImageSummary"]
    with tf.Session() as sess:
        values = tf.Summary.FromString(sess.run(merged)).value
        sound = tf.Summary.FromString(sess.run(tf.contrib.deprecated.merge_summary(tf.get_collection("audio"))))
    assert [(v.tag, v.WhichOneof("value")) for v in values] == [
        ("loss", "simple_value"), ("accuracy", "simple_value"), ("weights", "histo"), ("digits/image/0", "image"),
        ("digits/image/1", "image")]
    assert values[1].simple_value == 0.75 and values[2].histo.num == 3
    assert [v.tag for v in sound.value] == ["sound/audio/0"]  # (max_outputs > 1: numbered, as TF)


def test_softmax_along_an_axis_the_input_lacks_says_which_and_tile_keeps_the_rank_of_its_multiples():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Dimension \(100\) must be in the range \[-1, 1\)"):
        tf.nn.softmax([1.0, 2.0, 3.0, 4.0], dim=100)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Dimension \(-3\) must be in the range \[-2, 2\)"):
        tf.nn.log_softmax([[1.0, 2.0]], axis=-3)
    tiled = tf.tile(tf.placeholder(tf.float32), [1, 2, 3, 4])
    assert tiled.shape.as_list() == [None, None, None, None]
    with tf.Session() as sess:
        assert sess.run(tiled, {tiled.op.inputs[0]: np.zeros((1, 1, 1, 1))}).shape == (1, 2, 3, 4)


@pytest.mark.parametrize("axes", [1, [[1, 2], [1, 0]], [[-2], [1]]])
def test_tensordot_of_inputs_whose_rank_is_known_only_at_run_time(axes):
    rng = np.random.default_rng(0)
    a_value, b_value = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 3, 5))
    a, b = tf.placeholder(tf.float64), tf.placeholder(tf.float64)
    known_a, known_b = tf.constant(a_value), tf.constant(b_value)
    dynamic, static = tf.tensordot(a, b, axes), tf.tensordot(known_a, known_b, axes)
    assert dynamic.shape.ndims is None
    grads = tf.gradients(tf.reduce_sum(tf.sin(dynamic)), [a, b])
    want_grads = tf.gradients(tf.reduce_sum(tf.sin(static)), [known_a, known_b])
    numpy_axes = axes if isinstance(axes, int) else [[x % 3 for x in axes[0]], [x % 3 for x in axes[1]]]
    with tf.Session() as sess:
        got, got_grads, want = sess.run([dynamic, grads, want_grads], {a: a_value, b: b_value})
    np.testing.assert_allclose(got, np.tensordot(a_value, b_value, numpy_axes), rtol=1e-12)
    for g, w in zip(got_grads, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_decode_base64_says_whether_a_character_or_the_length_is_wrong():
    encoded = tf.placeholder(tf.string)
    decoded = tf.decode_base64(encoded)
    with tf.Session() as sess:
        assert sess.run(decoded, {encoded: "ZGlzdGZsb3c"}) == b"distflow"  # (padding may be left off)
        with pytest.raises(tf.errors.InvalidArgumentError, match="length: 9, 1 modulo 4"):
            sess.run(decoded, {encoded: "ZGlzdGZsb"})
        for bad in ("ZGl+", "ZGl/", "ZG?z"):  # (not web-safe, or not base64 at all)
            with pytest.raises(tf.errors.InvalidArgumentError, match="invalid character"):
                sess.run(decoded, {encoded: bad})


def test_softmax_cross_entropy_takes_labels_of_another_rank_with_as_many_rows():
    # (TF 1.x made matrices of logits and labels: a tutorial's labels=[one_hot] of shape [1, n, k] worked)
    rng = np.random.RandomState(2)
    logits_value, labels_value = rng.randn(5, 7), np.eye(7)[rng.randint(0, 7, 5)]
    logits = tf.constant(logits_value)
    labels = tf.placeholder(tf.float64, [None, 7])
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=tf.stop_gradient([labels]))
    also = tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=tf.reshape(labels, [5, 1, 7]))
    grad = tf.gradients(tf.reduce_sum(loss), logits)[0]
    shifted = logits_value - logits_value.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    with tf.Session() as sess:
        got, got_also, got_grad = sess.run([loss, also, grad], {labels: labels_value})
        np.testing.assert_allclose(got, -(labels_value * log_p).sum(axis=1), rtol=1e-12)
        np.testing.assert_allclose(got_also, got, rtol=1e-12)
        np.testing.assert_allclose(got_grad, np.exp(log_p) - labels_value, rtol=1e-12)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Reshape"):
            sess.run(loss, {labels: labels_value[:3]})  # (fewer rows than the logits: refused when run)
    with pytest.raises(ValueError, match="must have the same shape"):
        tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=tf.zeros([1, 5, 6], tf.float64))


def test_slims_losses_are_contribs_taking_logits_first():
    slim = tf.contrib.slim
    logits = tf.Variable([[2.0, 0.0, -1.0]])
    loss = slim.losses.softmax_cross_entropy(logits, tf.constant([[0.0, 1.0, 0.0]]))
    grad = tf.gradients(loss, logits)[0]
    with tf.Session() as sess:
        sess.run(logits.initializer)
        p = np.exp([2.0, 0.0, -1.0]) / np.exp([2.0, 0.0, -1.0]).sum()
        np.testing.assert_allclose(sess.run(loss), -np.log(p[1]), rtol=1e-6)
        np.testing.assert_allclose(sess.run(grad), [p - [0, 1, 0]], rtol=1e-5, atol=1e-7)
    assert tf.get_collection(tf.GraphKeys.LOSSES) == [loss]


def test_a_model_built_again_in_the_root_scope_reused_names_its_parts_as_the_first_build():
    """TF-Slim's model_deploy builds each clone in variable_scope(get_variable_scope(),
    reuse=i > 0): the default layer names of the second build must be the first's."""
    slim = tf.contrib.slim
    outputs = []
    for i in range(2):
        with tf.name_scope(f"clone_{i}"), tf.variable_scope(tf.get_variable_scope(), reuse=True if i else None):
            net = slim.fully_connected(tf.ones([2, 3]), 4)
            outputs.append(slim.batch_norm(net))
    assert [v.op.name for v in tf.trainable_variables()] == [
        "fully_connected/weights", "fully_connected/biases", "BatchNorm/beta"]
    with tf.variable_scope("outer") as outer:
        slim.fully_connected(tf.ones([2, 3]), 4)
    for _ in range(2):
        with tf.variable_scope(outer, reuse=True):
            slim.fully_connected(tf.ones([2, 3]), 4)  # (reuses outer/fully_connected each time)
    assert [v.op.name for v in tf.trainable_variables()][3:] == [
        "outer/fully_connected/weights", "outer/fully_connected/biases"]
    with tf.Graph().as_default():
        slim.fully_connected(tf.ones([2, 3]), 4)
        with tf.variable_scope(tf.get_variable_scope()):
            slim.fully_connected(tf.ones([2, 3]), 4)  # (the names made before the re-entry go on in it)
        assert [v.op.name for v in tf.trainable_variables()] == [
            "fully_connected/weights", "fully_connected/biases", "fully_connected_1/weights",
            "fully_connected_1/biases"]


def test_slim_batch_norm_puts_its_variables_where_an_arg_scope_of_model_variable_says():
    slim = tf.contrib.slim
    with slim.arg_scope([slim.model_variable, slim.variable], device="/job:ps/task:0/device:CPU:0"):
        with tf.device("/device:GPU:0"):
            net = slim.batch_norm(slim.fully_connected(tf.ones([2, 3]), 4), scale=True)
    assert {v.device for v in tf.global_variables()} == {"/job:ps/task:0/device:CPU:0"}
    assert net.device == "/device:GPU:0"


def test_merged_summaries_are_named_in_a_scope_of_their_name():
    a = tf.summary.scalar("a", 1.0)
    assert tf.summary.merge([a], name="summary_op").op.name == "summary_op/summary_op"
    assert tf.summary.merge([a]).op.name == "Merge/MergeSummary"
