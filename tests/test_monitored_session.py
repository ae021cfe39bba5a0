"""Hooks, SessionManager, MonitoredSession and MonitoredTrainingSession in one process."""

import logging
import threading
import time

import numpy as np
import pytest

import distflow as tf
from distflow.runtime.executor import waiting_kernels
from thread_util import wait_until


def counter_model():
    step = tf.train.get_or_create_global_step()
    v = tf.Variable(0.0, name="v")
    train = tf.group(tf.assign_add(v, 1.0), tf.assign_add(step, 1))
    return step, v, train


class RecordingHook(tf.train.SessionRunHook):
    def __init__(self, fetch=None):
        self.calls, self.fetch, self.values = [], fetch, []

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")

    def before_run(self, run_context):
        self.calls.append("before_run")
        return tf.train.SessionRunArgs(self.fetch) if self.fetch is not None else None

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        self.values.append(run_values.results)

    def end(self, session):
        self.calls.append("end")


def test_hook_calls_in_order_with_their_fetches():
    step, v, train = counter_model()
    hook = RecordingHook(fetch=v)
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        assert sess.run(train) is None
        sess.run(train)
    assert hook.calls == ["begin", "after_create_session", "before_run", "after_run", "before_run", "after_run",
                          "end"]
    assert hook.values == [1.0, 2.0]


def test_stop_at_step_and_final_ops():
    step, v, train = counter_model()
    final = tf.train.FinalOpsHook(v * 10)
    runs = 0
    with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=5), final]) as sess:
        while not sess.should_stop():
            sess.run(train)
            runs += 1
    assert runs == 5
    assert final.final_ops_values == 50.0
    with pytest.raises(ValueError, match="One of num_steps or last_step"):
        tf.train.StopAtStepHook()


def test_training_restores_from_its_checkpoints_and_saves_at_the_end(tmp_path):
    step, v, train = counter_model()
    for expected_start in (0, 3):
        with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), log_step_count_steps=0,
                                               hooks=[tf.train.StopAtStepHook(num_steps=3)]) as sess:
            assert sess.run(step) == expected_start
            while not sess.should_stop():
                sess.run(train)
        tf.get_default_graph()._unsafe_unfinalize()
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-6")


def test_checkpoint_saver_hook_every_n_steps(tmp_path):
    step, v, train = counter_model()
    hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2)
    with tf.train.SingularMonitoredSession(hooks=[hook, tf.train.StopAtStepHook(last_step=5)]) as sess:
        while not sess.should_stop():
            sess.run(train)
    state = tf.train.get_checkpoint_state(str(tmp_path))
    steps = sorted(int(p.rsplit("-", 1)[1]) for p in state.all_model_checkpoint_paths)
    assert steps == [0, 2, 4, 5]  # when the session is created, every 2 steps, and at the end


def test_nan_hook_fails_or_stops():
    loss = tf.placeholder(tf.float32, [])
    with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss)]) as sess:
        with pytest.raises(tf.train.NanLossDuringTrainingError):
            sess.run(loss, {loss: np.nan})
    tf.get_default_graph()._unsafe_unfinalize()
    with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss, fail_on_nan_loss=False)]) as sess:
        sess.run(loss, {loss: 1.0})
        assert not sess.should_stop()
        sess.run(loss, {loss: np.nan})
        assert sess.should_stop()


def test_logging_tensor_hook(caplog):
    step, v, train = counter_model()
    with caplog.at_level(logging.INFO, logger="distflow"):
        with tf.train.MonitoredSession(hooks=[tf.train.LoggingTensorHook({"value": v}, every_n_iter=2)]) as sess:
            for _ in range(4):
                sess.run(train)
    assert [r.getMessage() for r in caplog.records if r.getMessage().startswith("value")] == \
        ["value = 1.0", "value = 3.0"]


def test_a_feed_given_by_a_hook_and_the_caller_is_an_error():
    x = tf.placeholder(tf.float32, [])

    class Feeder(tf.train.SessionRunHook):
        def before_run(self, run_context):
            return tf.train.SessionRunArgs(None, feed_dict={x: 1.0})

    doubled = x * 2
    with tf.train.MonitoredSession(hooks=[Feeder()]) as sess:
        assert sess.run(doubled) == 2.0
        with pytest.raises(RuntimeError, match="Same tensor is fed"):
            sess.run(x, {x: 3.0})


def test_out_of_range_ends_training_cleanly():
    q = tf.FIFOQueue(2, tf.float32, shapes=[[]])
    fill = q.enqueue_many([[1.0, 2.0]])
    close = q.close()
    deq = q.dequeue()
    seen = []
    with tf.train.MonitoredSession() as sess:
        sess.run([fill])
        sess.run(close)
        while not sess.should_stop():
            seen.append(sess.run(deq))  # the third raises OutOfRangeError, which ends the with-block
    assert seen == [1.0, 2.0]


def test_close_returns_at_once_while_a_queue_runner_is_blocked():
    q = tf.FIFOQueue(1, tf.float32, shapes=[[]])
    source = tf.FIFOQueue(1, tf.float32, shapes=[[]], name="never_filled")
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(source.dequeue())]))
    before = waiting_kernels()
    sess = tf.train.MonitoredSession()
    # the runner's thread is now blocked in a dequeue that nothing will satisfy
    wait_until(lambda: waiting_kernels() > before, what="the queue runner's dequeue")
    start = time.monotonic()
    sess.close()
    assert time.monotonic() - start < 10  # bounded wait; TF 1.x waits stop_grace_period_secs (120 s) here
    assert not any(t.name.startswith("QueueRunner") and t.is_alive() for t in threading.enumerate())


def test_session_manager_waits_for_the_chief_and_says_for_what(caplog):
    v = tf.Variable(1.0, name="needed")
    manager = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables(), recovery_wait_secs=0.05)
    with caplog.at_level(logging.INFO, logger="distflow"):
        with pytest.raises(tf.errors.DeadlineExceededError, match="needed"):
            manager.wait_for_session("", max_wait_secs=0.2)
    assert any("Waiting for model to be ready" in r.getMessage() and "needed" in r.getMessage()
               for r in caplog.records)
    sess = manager.prepare_session("", init_op=tf.global_variables_initializer())
    assert sess.run(v) == 1.0


def test_coordinator_joins_threads_and_reraises_their_error():
    coord = tf.train.Coordinator()

    def work():
        with coord.stop_on_exception():
            raise ValueError("boom")

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    with pytest.raises(ValueError, match="boom"):
        coord.join(threads, stop_grace_period_secs=5)
    clean = tf.train.Coordinator()
    clean.request_stop(tf.errors.OutOfRangeError(None, None, "done"))
    clean.join([], stop_grace_period_secs=1)  # an input running out is a clean stop


def test_recoverable_errors_recreate_the_session():
    step, v, train = counter_model()
    failures = []

    class FailOnce(tf.train.SessionRunHook):
        def after_create_session(self, session, coord):
            failures.append("created")

        def before_run(self, run_context):
            if len(failures) == 1:
                failures.append("aborted")
                raise tf.errors.AbortedError(None, None, "a parameter server restarted")

    with tf.train.MonitoredSession(hooks=[FailOnce()]) as sess:
        sess.run(train)
    assert failures == ["created", "aborted", "created"]


def test_recover_session_restores_when_there_is_a_checkpoint(tmp_path):
    v = tf.Variable(5.0, name="v")
    saver = tf.train.Saver()
    manager = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables())
    sess, restored = manager.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert not restored  # nothing to restore from yet
    sess.run(tf.global_variables_initializer())
    sess.run(tf.assign(v, 7.0))
    saver.save(sess, str(tmp_path / "m"), global_step=1)
    sess.close()
    sess, restored = manager.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert restored and sess.run(v) == 7.0



def test_two_monitored_training_sessions_in_one_graph_without_a_global_step():
    w = tf.Variable(1.0)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w - 3))
    with tf.train.MonitoredTrainingSession() as sess:  # no summary dir: no step counter, no global step needed
        sess.run(train)
    assert not tf.get_default_graph().finalized
    with tf.train.MonitoredTrainingSession() as sess:
        assert sess.run(w) == 1.0  # a new session initializes again


def test_step_fn_request_stop_ends_training_and_aborted_recreates_the_session():
    counter = tf.Variable(0, name="counter")
    bump = tf.assign_add(counter, 1)
    calls = []

    def flaky(step_context):
        calls.append(step_context.session)
        if len(calls) == 1:
            raise tf.errors.AbortedError(None, None, "the parameter server restarted")
        return step_context.run_with_hooks(bump)

    with tf.train.MonitoredSession() as sess:
        assert sess.run_step_fn(flaky) == 1
        assert calls[0] is not calls[1]  # the second call got a new session

        def stop(step_context):
            step_context.request_stop()

        assert sess.run_step_fn(stop) is None
        assert sess.should_stop()


def test_errors_reported_through_the_coordinator_recreate_the_session():
    v = tf.Variable(0)
    bump = tf.assign_add(v, 1)

    class AbortOnce(tf.train.SessionRunHook):
        fired = False

        def after_create_session(self, session, coord):
            if not AbortOnce.fired:
                AbortOnce.fired = True
                coord.request_stop(tf.errors.AbortedError(None, None, "a queue runner saw its ps restart"))

    with tf.train.MonitoredSession(hooks=[AbortOnce()]) as sess:
        assert sess.run(bump) == 1  # the reported error made a new session, whose variables start again


def test_a_saver_of_another_graph_restores_by_op_names_as_tfs_does(tmp_path):
    # (TF's own session manager test: the manager of graph 1 prepares a session with graph 2's saver)
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0, 3.0], name="v")
        manager = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables())
        saver = tf.train.Saver({"v": v})
        sess = manager.prepare_session("", init_op=tf.global_variables_initializer(), saver=saver,
                                       checkpoint_dir=str(tmp_path))
        saver.save(sess, str(tmp_path / "prepare_session_checkpoint"))
    with tf.Graph().as_default():
        tf.Variable([6.0, 7.0, 8.0], name="v")
        other = tf.train.Saver({"v": tf.get_default_graph().get_tensor_by_name("v:0")})
        sess = manager.prepare_session("", init_op=None, saver=other, checkpoint_dir=str(tmp_path),
                                       wait_for_checkpoint=True, max_wait_secs=2)
        assert sess.run(sess.graph.get_tensor_by_name("v:0")).tolist() == [1.0, 2.0, 3.0]


def test_logging_tensor_hook_reads_ops_by_name_and_counts_each_run_anew(caplog):
    step, v, train = counter_model()
    tf.identity(tf.range(3) * 10, name="scaled")
    tf.split(tf.zeros([4]), 2, name="halves")
    hook = tf.train.LoggingTensorHook({"scaled": "scaled", "step": step.name}, every_n_iter=2)
    caplog.set_level(logging.INFO, logger="distflow")
    for _ in range(2):  # (a hook handed to two sessions in turn, as Estimator.train does)
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(3):
                sess.run(train)
    logged = [r.getMessage().split(", step")[0] for r in caplog.records if "scaled = " in r.getMessage()]
    # (the op's name is its output 0; the timer starts again with each session: iterations 0
    # and 2 of each)
    assert logged == ["scaled = [ 0 10 20]"] * 4
    with pytest.raises(ValueError, match="halves is ambiguous"):
        with tf.train.MonitoredSession(hooks=[tf.train.LoggingTensorHook(["halves"], every_n_iter=1)]):
            pass
