"""Variables, assignments, initialization and seeded random ops."""

import threading

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle


def test_initial_values_of_every_kind():
    a = tf.Variable(1.5)
    b = tf.Variable(np.arange(3, dtype=np.int64))
    c = tf.Variable(tf.ones([2, 2]) * 3.0)
    d = tf.Variable(tf.zeros_initializer(), shape=[2, 3], dtype=tf.float64)
    e = tf.Variable(lambda: tf.constant([7, 8]))
    f = tf.Variable(tf.constant_initializer([1.0, 2.0]), shape=[2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run([a, b, c, d, e, f])
    assert_oracle(out[0], np.float32(1.5))
    assert_oracle(out[1], np.arange(3, dtype=np.int64))
    assert_oracle(out[2], np.full((2, 2), 3.0, np.float32))
    assert_oracle(out[3], np.zeros((2, 3)))
    assert_oracle(out[4], np.array([7, 8], np.int32))
    assert_oracle(out[5], np.array([1.0, 2.0], np.float32))
    assert e.initial_value.op.name.startswith("Variable_4/Initializer/")
    assert a.dtype == tf.float32_ref and a.dtype.base_dtype == tf.float32


def test_get_variable_gives_initializers_partition_info_where_they_take_it():
    def tf1_style(shape, dtype, partition_info):  # (as TF 1.x programs wrote them: it is required)
        assert partition_info is None
        return tf.fill(shape, 2.0)

    def keras_style(shape, dtype=None):
        return tf.ones(shape, dtype)

    with tf.Graph().as_default():
        a = tf.get_variable("a", [2], initializer=tf1_style)
        b = tf.get_variable("b", [3], initializer=keras_style)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_a, got_b = sess.run([a, b])
    assert_oracle(got_a, np.full(2, 2.0, np.float32))
    assert_oracle(got_b, np.ones(3, np.float32))


def test_variable_api():
    v = tf.Variable([1.0, 2.0], name="v")
    assert v.shape.as_list() == [2] and v.get_shape().as_list() == [2]
    assert v.dtype.base_dtype == tf.float32 and v.dtype.is_ref_dtype
    assert v.trainable and v.device == ""
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v.assign([5.0, 6.0])).tolist() == [5.0, 6.0]
        assert sess.run(v.assign_add([1.0, 1.0])).tolist() == [6.0, 7.0]
        assert sess.run(v.assign_sub([2.0, 2.0])).tolist() == [4.0, 5.0]
        assert sess.run(v.read_value()).tolist() == [4.0, 5.0]
        assert sess.run(v + 1.0).tolist() == [5.0, 6.0]
        assert sess.run(v[1]) == 5.0
        v.load([9.0, 9.0], sess)
        assert sess.run(v).tolist() == [9.0, 9.0]
        assert sess.run(tf.assign(v, [1.0, 1.0])).tolist() == [1.0, 1.0]
        assert sess.run(v.assign([3.0, 3.0], read_value=False)) is None


def test_assign_without_shape_validation_changes_shape():
    v = tf.Variable([1.0, 2.0], validate_shape=False)
    grow = tf.assign(v, [1.0, 2.0, 3.0], validate_shape=False)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(grow).tolist() == [1.0, 2.0, 3.0]


def test_assign_dtype_mismatch_is_a_type_error():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(TypeError, match="Assign to variable 'Variable' \\(float32\\)"):
        tf.assign(v, tf.constant([1, 2]))


def test_variables_persist_across_runs_but_not_sessions():
    v = tf.Variable(0)
    inc = tf.assign_add(v, 1)
    with tf.Session() as sess:
        sess.run(v.initializer)
        for _ in range(3):
            sess.run(inc)
        assert sess.run(v) == 3
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(v)


def test_initialized_value_and_dependent_initialization():
    w = tf.Variable(tf.random_normal([3], seed=1), name="w")
    w2 = tf.Variable(w.initialized_value() * 2.0, name="w2")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([w, w2])
    np.testing.assert_allclose(b, 2 * a)


def test_report_uninitialized_and_partial_initializers():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    c = tf.Variable(3.0, name="c")
    report = tf.report_uninitialized_variables()
    with tf.Session() as sess:
        assert sess.run(report).tolist() == [b"a", b"b", b"c"]
        sess.run(tf.variables_initializer([a, c]))
        assert sess.run(report).tolist() == [b"b"]
        assert sess.run(tf.is_variable_initialized(b)) == False  # noqa: E712 - numpy bool
        sess.run(tf.global_variables_initializer())
        assert sess.run(report).tolist() == []
        assert sess.run(tf.variables_initializer([])) is None


def test_locked_increments_from_concurrent_runs_are_never_lost():
    counter = tf.Variable(0, dtype=tf.int64)
    inc = tf.assign_add(counter, tf.constant(1, tf.int64), use_locking=True)
    n_threads, n_incs = 4, 250
    with tf.Session() as sess:
        sess.run(counter.initializer)

        def work():
            for _ in range(n_incs):
                sess.run(inc.op)
        threads = [threading.Thread(target=work) for _ in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sess.run(counter) == n_threads * n_incs


def test_update_shape_mismatch_at_run_time():
    v = tf.Variable(tf.zeros([2]), validate_shape=False)
    delta = tf.placeholder(tf.float32)
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="requires shapes to match"):
            sess.run(tf.assign_add(v, delta), {delta: [1.0, 2.0, 3.0]})


# -- random ops ---------------------------------------------------------------------------


def _random_graph():
    return [tf.random_normal([4]), tf.truncated_normal([4]), tf.random_uniform([4], -1, 1),
            tf.random_uniform([3], 0, 10, dtype=tf.int32)]


def _draws(graph_seed=None, runs=2):
    tf.reset_default_graph()
    if graph_seed is not None:
        tf.set_random_seed(graph_seed)
    fetches = _random_graph()
    with tf.Session() as sess:
        return [sess.run(fetches) for _ in range(runs)]


def test_graph_seed_makes_sessions_reproducible():
    first, second = _draws(7), _draws(7)
    for a, b in zip(first, second):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    assert not np.array_equal(first[0][0], first[1][0])  # successive runs draw new numbers
    assert not np.array_equal(first[0][0], _draws(8)[0][0])


def test_op_seed_alone_is_reproducible_and_no_seed_is_not():
    def draw(seed):
        tf.reset_default_graph()
        with tf.Session() as sess:
            return sess.run(tf.random_normal([5], seed=seed))
    np.testing.assert_array_equal(draw(3), draw(3))
    assert not np.array_equal(draw(3), draw(4))
    assert not np.array_equal(draw(None), draw(None))


def test_random_distributions():
    tf.set_random_seed(0)
    n = tf.random_normal([20000], mean=2.0, stddev=3.0, dtype=tf.float64)
    t = tf.truncated_normal([20000], stddev=2.0)
    u = tf.random_uniform([20000], minval=-2.0, maxval=5.0)
    i = tf.random_uniform([20000], minval=3, maxval=7, dtype=tf.int64)
    with tf.Session() as sess:
        n_, t_, u_, i_ = sess.run([n, t, u, i])
    assert n_.dtype == np.float64 and abs(n_.mean() - 2.0) < 0.1 and abs(n_.std() - 3.0) < 0.1
    assert t_.dtype == np.float32 and np.abs(t_).max() <= 4.0
    assert u_.min() >= -2.0 and u_.max() < 5.0
    assert i_.dtype == np.int64 and set(np.unique(i_)) == {3, 4, 5, 6}


def test_initializers():
    tf.set_random_seed(1)
    shape = [200, 300]
    glorot = tf.glorot_uniform_initializer()(shape)
    limit = np.sqrt(6.0 / (200 + 300))
    scaled = tf.variance_scaling_initializer(scale=2.0, mode="fan_in", distribution="untruncated_normal")(shape)
    with tf.Session() as sess:
        g, s = sess.run([glorot, scaled])
    assert g.shape == (200, 300) and np.abs(g).max() <= limit
    assert abs(s.std() - np.sqrt(2.0 / 200)) < 0.01
    with pytest.raises(ValueError, match="mode"):
        tf.variance_scaling_initializer(mode="fan_middle")


def test_variable_creator_scope_sees_every_variable_and_may_change_or_replace_it():
    made = []

    def renaming(next_creator, **kwargs):
        made.append(kwargs["name"])
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    def outer(next_creator, **kwargs):
        made.append("outer")
        return next_creator(**kwargs)

    with tf.Graph().as_default():
        with tf.variable_creator_scope(outer), tf.variable_creator_scope(renaming):
            v = tf.Variable(1.0, name="v")  # the innermost creator first, then the outer one
            w = tf.get_variable("w", [2], initializer=tf.zeros_initializer())
            y = tf.layers.dense(tf.zeros([1, 3]), 4, name="d")
        assert made == ["v", "outer", "w", "outer", "d/kernel", "outer", "d/bias", "outer"]
        assert not tf.trainable_variables() and len(tf.global_variables()) == 4
        u = tf.Variable(2.0, name="u")  # outside the scopes: as always
        assert u in tf.trainable_variables()

        shared = tf.Variable(7.0, name="shared")
        with tf.variable_creator_scope(lambda next_creator, **kwargs: shared):
            assert tf.Variable(0.0) is shared
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(v) == 1.0 and sess.run(y).shape == (1, 4) and sess.run(shared) == 7.0


def test_get_variable_beside_a_tf_variable_of_its_name_is_named_apart_as_in_tf():
    # (a lecture's program made both; TF 1.x named the second op 'scalar_1' and shared it
    # under 'scalar')
    with tf.Graph().as_default():
        s = tf.Variable(2, name="scalar")
        t = tf.get_variable("scalar", initializer=tf.constant(5))
        assert (s.name, t.name) == ("scalar:0", "scalar_1:0")
        with tf.variable_scope("", reuse=True):
            assert tf.get_variable("scalar", dtype=tf.int32) is t
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run([s, t]) == [2, 5]
