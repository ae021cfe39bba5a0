"""Where a step's threads run (platform/placement.py): the thread running a step holds its
core, and helper threads keep off it."""

import os
import threading

import numpy as np
import pytest

import distflow as tf
from distflow.ops import blas
from distflow.platform import placement

multicore = pytest.mark.skipif(not placement.enabled(), reason="needs Linux and a process that may use 2+ cores")


def test_library_threads_are_the_unnamed_native_ones(tmp_path):
    tasks = tmp_path / "task"
    tasks.mkdir()
    (tmp_path / "comm").write_text("python\n")
    python_thread = threading.get_native_id()
    for tid, name in ((python_thread, "python"), (999_991, "python"), (999_992, "grpc_global_tim"),
                      (999_993, "cuda-EvtHandlr")):
        (tasks / str(tid)).mkdir()
        (tasks / str(tid) / "comm").write_text(name + "\n")
    assert placement.library_threads(str(tasks)) == {999_991}
    assert placement.library_threads(str(tmp_path / "gone")) == set()


class _Helper:
    """A registered helper thread that reports its affinity when asked."""

    def __init__(self):
        self.ask, self.answer = threading.Event(), []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        placement.add_helper()
        self.done.set()
        while self.ask.wait(10):
            self.ask.clear()
            self.answer.append(os.sched_getaffinity(0))
            self.done.set()

    def affinity(self):
        self.done.clear()
        self.ask.set()
        assert self.done.wait(10)
        return self.answer[-1]


@multicore
def test_a_step_holds_its_core_and_helpers_keep_off_it(monkeypatch):
    monkeypatch.delenv(placement.ENV, raising=False)
    allowed = os.sched_getaffinity(0)
    helper = _Helper()
    assert helper.done.wait(10)
    with placement.step_core(2):
        held = os.sched_getaffinity(0)
        assert len(held) == 1 and held <= allowed
        assert helper.affinity() == allowed - held
        with placement.step_core(2):  # a step inside a step: the outer one holds the core
            assert os.sched_getaffinity(0) == held
        assert os.sched_getaffinity(0) == held
    assert os.sched_getaffinity(0) == allowed

    # two threads running steps at once hold two different cores
    inside, release = threading.Barrier(2, timeout=10), threading.Event()
    seen = []

    def other():
        with placement.step_core(2):
            seen.append(os.sched_getaffinity(0))
            inside.wait()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    with placement.step_core(2):
        mine = os.sched_getaffinity(0)
        inside.wait()
        release.set()
    t.join(10)
    assert len(seen[0]) == 1 and seen[0] != mine


@multicore
def test_nothing_is_held_for_one_thread_or_when_turned_off(monkeypatch):
    allowed = os.sched_getaffinity(0)
    with placement.step_core(1):
        assert os.sched_getaffinity(0) == allowed
    monkeypatch.setenv(placement.ENV, "0")
    with placement.step_core(4):
        assert os.sched_getaffinity(0) == allowed


@multicore
def test_a_session_holds_the_core_for_long_steps_only(monkeypatch):
    monkeypatch.setattr(blas, "intra_op_threads", lambda: 2)  # (a busy machine would cap it at 1)
    monkeypatch.delenv(placement.ENV, raising=False)
    allowed = os.sched_getaffinity(0)
    seen = []

    def look(x):
        seen.append(placement.held_core() is not None)
        assert os.sched_getaffinity(0) == allowed  # (a py_func runs with the cores given back)
        threading.Event().wait(0.005)  # (the step lasts at least 5 ms, longer than placement.MIN_STEP_S)
        return x

    x = tf.placeholder(tf.float32, [2])
    feed = {x: np.ones(2, np.float32)}
    with tf.Session() as sess:
        step = tf.py_func(look, [x], tf.float32)
        for _ in range(3):
            sess.run(step, feed)
        # (the first run is not held: how long a step takes is not known before it ran)
        assert seen == [False, True, True]
        monkeypatch.setattr(placement, "MIN_STEP_S", 3600.0)  # now every step counts as short
        seen.clear()
        for _ in range(3):
            sess.run(step, feed)
        assert seen == [True, False, False]  # (the first still held: its last run was long)
    assert os.sched_getaffinity(0) == allowed


@multicore
def test_a_loop_that_only_computes_holds_the_core_and_one_that_may_wait_does_not(monkeypatch):
    """A while loop is called with the step's rendezvous (for its cancellation and deadline),
    but it waits for nothing unless an op in its body may: an LSTM's step holds its core; a
    loop that dequeues in its body does not."""
    monkeypatch.setattr(blas, "intra_op_threads", lambda: 2)
    monkeypatch.delenv(placement.ENV, raising=False)
    seen = []

    def look(x):
        seen.append(placement.held_core() is not None)
        threading.Event().wait(0.005)
        return x

    queue = tf.FIFOQueue(10, tf.float32, shapes=[[]])
    computes = tf.while_loop(lambda i, x: i < 2, lambda i, x: (i + 1, tf.py_func(look, [x], tf.float32)),
                             [tf.constant(0), tf.constant(1.0)])[1]
    waits = tf.while_loop(lambda i, x: i < 2,
                          lambda i, x: (i + 1, tf.py_func(look, [x + queue.dequeue()], tf.float32)),
                          [tf.constant(0), tf.constant(1.0)])[1]
    with tf.Session() as sess:
        sess.run(queue.enqueue_many([np.ones(8, np.float32)]))
        for fetch, want in ((computes, [False, False, True, True]), (waits, [False] * 4)):
            seen.clear()
            sess.run(fetch)
            sess.run(fetch)  # (its first run was long: this one holds the core, where it may)
            assert seen == want, fetch
