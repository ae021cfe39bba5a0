"""Session.partial_run_setup / partial_run: a step taken in parts, each op run once (the remote
case is in test_distributed.py)."""

import numpy as np
import pytest

import distflow as tf


def test_parts_feed_and_fetch_in_turn_and_what_ran_is_not_run_again():
    a, b, c = (tf.placeholder(tf.float32, []) for _ in range(3))
    noise = tf.random_uniform([])  # (drawn once for the whole partial run)
    r1 = a + b + noise
    r2 = r1 * c + noise
    counter = tf.Variable(0)
    counted = tf.assign_add(counter, 1)  # (an update a later fetch reads: it runs once)
    r3 = tf.cast(counted, tf.float32) + r2
    with tf.Session() as sess:
        sess.run(counter.initializer)
        h = sess.partial_run_setup([r1, r2, r3, noise, counted], [a, b, c])
        first = sess.partial_run(h, {"r1": r1, "noise": noise}, feed_dict={a: 1.0, b: 2.0})
        assert first["r1"] == pytest.approx(3.0 + first["noise"])
        assert sess.partial_run(h, counted) == 1
        second = sess.partial_run(h, r2, feed_dict={c: 10.0})
        assert second == pytest.approx(first["r1"] * 10.0 + first["noise"], rel=1e-6)
        assert sess.partial_run(h, r3) == pytest.approx(1.0 + second, rel=1e-6)
        assert sess.run(counter) == 1  # (the update the last part read ran in the second part only)
        with pytest.raises(tf.errors.InvalidArgumentError, match="is not the handle of an unfinished partial run"):
            sess.partial_run(h, r1)  # (every fetch fetched: the run has ended)
        # two runs at once, and a run's fetches in any order
        h1 = sess.partial_run_setup([r1], [a, b, c])
        h2 = sess.partial_run_setup([r1, r2], [a, b, c])
        assert sess.partial_run(h1, r1, {a: 1.0, b: 2.0}) == pytest.approx(3.0, abs=1.0)
        out = sess.partial_run(h2, [r1], {a: 10.0, b: 9.0, c: 2.0})
        assert sess.partial_run(h2, r2) == pytest.approx(out[0] * 2.0, abs=1.0)


def test_partial_runs_say_what_was_not_set_up_or_already_done():
    a, b, c = (tf.placeholder(tf.float32, [], name=n) for n in "abc")
    r1 = tf.add(a, b, name="r1")
    r2 = tf.multiply(r1, c, name="r2")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="at least one target to fetch or execute"):
            sess.partial_run_setup([], [a])
        h = sess.partial_run_setup([r1, r2], [a, b])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"The feed c:0 was not specified in partial_run"):
            sess.partial_run(h, r1, {a: 1.0, b: 2.0, c: 3.0})
        with pytest.raises(tf.errors.InvalidArgumentError, match="You must feed a value for placeholder tensor 'b'"):
            sess.partial_run(h, r1, {a: 1.0})
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        assert sess.partial_run(h, r1, {a: 1.0, b: 2.0}) == 3.0
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"The feed a:0 has already been fed"):
            sess.partial_run(h, r2, {a: 1.0, c: 3.0})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"The fetch r1:0 has already been fetched"):
            sess.partial_run(h, r1, {c: 3.0})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"The fetch r2:0 was not specified"):
            sess.partial_run(sess.partial_run_setup([r1], [a, b]), r2)
        assert sess.partial_run(h, r2, {c: 3.0}) == 9.0


def test_a_later_fetch_that_waits_on_an_earlier_parts_op_by_a_control_dependency_is_refused():
    v = tf.Variable(1.0)
    bump = tf.assign_add(v, 1.0, name="bump")
    with tf.control_dependencies([bump]):
        after = tf.identity(tf.constant(5.0), name="after")
    with tf.Session() as sess:
        sess.run(v.initializer)
        h = sess.partial_run_setup([bump, after])
        assert sess.partial_run(h, bump) == 2.0
        with pytest.raises(tf.errors.UnimplementedError, match=r"would run again ops an earlier part ran \(bump\)"):
            sess.partial_run(h, after)
        assert sess.run(v) == 2.0  # (the update ran once)
    with tf.Session() as sess:
        sess.close()
        with pytest.raises(RuntimeError, match="closed Session"):
            sess.partial_run_setup([bump])


def test_many_parts_chain_a_product():
    inputs = [tf.placeholder(tf.float32, []) for _ in range(30)]
    x, outputs = tf.constant(2.0), []
    for p in inputs:
        x = x * p
        outputs.append(x)
    with tf.Session() as sess:
        h = sess.partial_run_setup(outputs, inputs)
        got = [sess.partial_run(h, out, {p: 1.5}) for p, out in zip(inputs, outputs)]
    np.testing.assert_allclose(got, 2.0 * 1.5 ** np.arange(1, 31), rtol=1e-5)
