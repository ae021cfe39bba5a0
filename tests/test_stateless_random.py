"""Stateless random ops: numbers that are a function of a shape and a two-integer seed."""

import numpy as np
import pytest

import distflow as tf


def draws(seed_value):
    tf.reset_default_graph()
    seed = tf.placeholder(tf.int64, [2])
    ops = [tf.random.stateless_uniform([2000], seed), tf.random.stateless_normal([2000], seed, mean=3.0, stddev=2.0),
           tf.random.stateless_truncated_normal([2000], seed),
           tf.random.stateless_uniform([2000], seed, minval=-3, maxval=4, dtype=tf.int32),
           tf.random.stateless_categorical(tf.log([[0.2, 0.0, 0.8]]), 2000, seed)]
    with tf.Session() as sess:
        return sess.run(ops, {seed: seed_value})


def test_the_same_seed_gives_the_same_numbers_in_any_graph_or_session_and_another_seed_others():
    first, again, other = draws([1, 2]), draws([1, 2]), draws([2, 1])
    for a, b, c in zip(first, again, other):
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)


def test_the_draws_follow_their_distributions():
    uniform, normal, truncated, ints, classes = draws([7, 11])
    assert uniform.dtype == np.float32 and 0 <= uniform.min() and uniform.max() < 1
    assert abs(uniform.mean() - 0.5) < 0.02 and abs(normal.mean() - 3.0) < 0.15 and abs(normal.std() - 2.0) < 0.1
    assert np.abs(truncated).max() <= 2.0 and 0.8 < truncated.std() < 0.9  # (a normal cut at 2: 0.88)
    assert ints.dtype == np.int32 and set(ints.tolist()) == set(range(-3, 4))
    assert classes.shape == (1, 2000) and 1 not in classes and abs((classes == 2).mean() - 0.8) < 0.03


def test_contrib_stateless_takes_tf_1s_arguments_and_the_seed_must_be_two_integers():
    a = tf.contrib.stateless.stateless_random_normal([3], [5, 6], tf.float64)
    b = tf.contrib.stateless.stateless_multinomial([[0.0, 0.0]], 4, [5, 6])
    assert a.dtype == tf.float64 and b.shape.as_list() == [1, None]
    with pytest.raises(ValueError, match=r"seed must have shape \[2\], got \(3,\)"):
        tf.random.stateless_uniform([3], [1, 2, 3])
    with pytest.raises(TypeError, match="seed must be int32 or int64, got float32"):
        tf.random.stateless_uniform([3], [1.0, 2.0])
    seed = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"seed must have shape \[2\], not \[1\]"):
            sess.run(tf.random.stateless_normal([2], seed), {seed: [4]})
