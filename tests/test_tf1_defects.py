"""Behaviours TensorFlow 1.x's own tests expect, each of which distflow once got wrong."""

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
    assert grad.op.colocation_groups() == x.op.colocation_groups() == ["loc:@Variable"]
    assert tf.gradients(y, x)[0].op.colocation_groups() != ["loc:@Variable"]  # only when asked


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
