"""Persistent tensors: tf.get_session_handle, tf.get_session_tensor and tf.delete_session_tensor
in a local session (the remote ones are in test_distributed.py)."""

import gc

import numpy as np
import pytest

import distflow as tf
from distflow.ops.session_ops import TensorHandle


def _store_size(sess):
    return len(sess._device_mgr.session_tensors)


def test_a_handle_keeps_a_value_for_later_steps_fed_as_its_string_or_itself():
    a, b = tf.constant(10), tf.constant(5)
    c = a * b
    with tf.Session() as sess:
        h = sess.run(tf.get_session_handle(c))
        assert isinstance(h, TensorHandle) and h.dtype == tf.int32
        assert h.handle.split(";")[-1] == "/job:localhost/replica:0/task:0/device:CPU:0"
        assert str(h) == h.handle
        assert h.eval() == 50
        f, x = tf.get_session_tensor(h.handle, tf.int32)
        y = x * 10
        assert sess.run(y, feed_dict={f: h.handle}) == 500
        assert sess.run(y, feed_dict={f: h}) == 500
        handle, value = sess.run([tf.get_session_handle(c), a * c])
        assert handle.eval() == 50 and value == 500


def test_a_loop_of_steps_passes_its_state_by_handle_and_collected_handles_are_deleted():
    with tf.Session() as sess:
        h = sess.run(tf.get_session_handle(tf.constant(0)))
        f, x = tf.get_session_tensor(h.handle, tf.int32)
        step = tf.get_session_handle(x + 1)
        below = tf.less(x, 100)
        while True:
            more, h = sess.run([below, step], feed_dict={f: h.handle})
            if not more:
                break
        assert h.eval() == 101
        gc.collect()
        assert _store_size(sess) == 1  # (only the live handle's tensor is kept)


def test_a_handle_fed_in_place_of_any_tensor_feeds_its_value():
    a, b = tf.constant(10.0), tf.constant(5.0)
    c = a * b
    d = a / b
    e = c - d
    twice = tf.identity(c)
    with tf.Session() as sess:
        h_c, h_d = sess.run([tf.get_session_handle(c), tf.get_session_handle(d)])
        assert sess.run(c * c, feed_dict={c: h_c}) == 2500.0
        assert sess.run(e, feed_dict={c: h_c, d: h_d}) == 48.0
        assert sess.run(e, feed_dict={c: h_d, d: h_c}) == -48.0
        assert sess.run([c, twice], feed_dict={c: h_c, twice: 60.0}) == [50.0, 60.0]
        assert sess.run([c, twice], feed_dict={c: 60.0, twice: h_c}) == [60.0, 50.0]
        run = sess.make_callable(e, [c, d])
        assert run(h_d, h_c) == -48.0


def test_a_handle_keeps_the_value_it_had_not_its_variables_later_updates():
    v = tf.Variable(12.0)
    increment = tf.assign_add(v, 2.0)
    b = v + 5.0
    with tf.Session() as sess:
        sess.run(v.initializer)
        h = sess.run(tf.get_session_handle(v.read_value()))
        assert sess.run(b, feed_dict={v: h}) == 17.0
        sess.run(increment)
        assert sess.run(b, feed_dict={v: h}) == 17.0  # (TF 1.x's handle kept the variable's buffer: 19)
        assert h.eval() == 12.0


def test_handles_of_several_devices_are_read_where_they_are_and_moved_where_they_are_fed():
    with tf.Session() as sess:
        with tf.device("/gpu:0"):
            h_a = sess.run(tf.get_session_handle(tf.constant([1.0, 2.0])))
        with tf.device("/cpu:0"):
            h_b = sess.run(tf.get_session_handle(tf.constant([2.0, 3.0])))
        assert h_a.handle.endswith("/device:GPU:0") and h_b.handle.endswith("/device:CPU:0")
        p_a, t_a = tf.get_session_tensor(h_a.handle, tf.float32)
        p_b, t_b = tf.get_session_tensor(h_b.handle, tf.float32)
        assert t_a.device.endswith("GPU:0") and t_b.device.endswith("CPU:0")
        h_c = sess.run(tf.get_session_handle(t_a + t_b), feed_dict={p_a: h_a, p_b: h_b})
        np.testing.assert_array_equal(h_c.eval(), [3.0, 5.0])
        # a CPU handle fed to the reader placed on the GPU: its tensor is moved there
        np.testing.assert_array_equal(sess.run(t_a, feed_dict={p_a: h_b}), [2.0, 3.0])


def test_delete_raw_handles_and_errors_that_name_the_handle():
    c = tf.constant(7) * 2
    with tf.Session() as sess:
        h = sess.run(tf.get_session_handle(c))
        raw = h.get_raw_handle()
        gc.collect()
        f, x = tf.get_session_tensor(raw, tf.int32)
        assert sess.run(x, feed_dict={f: raw}) == 14  # (a raw handle is not collected with its object)
        with pytest.raises(tf.errors.InvalidArgumentError, match="is float32, and the op reads int32"):
            sess.run(x, feed_dict={f: sess.run(tf.get_session_handle(tf.constant(1.5)))})
        holder, deleter = tf.delete_session_tensor(raw)
        sess.run(deleter, feed_dict={holder: raw})
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"handle '{raw}' is not in the session store"):
            sess.run(x, feed_dict={f: raw})
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in the session store"):
            sess.run(deleter, feed_dict={holder: raw})
        h = sess.run(tf.get_session_handle(c))
        h.delete()
        with pytest.raises(TypeError, match="may have already been deleted"):
            h.eval()
        with pytest.raises(TypeError, match="must be of type Tensor"):
            tf.get_session_handle(3)
        with pytest.raises(ValueError, match="is not a tensor handle"):
            tf.get_session_tensor("nonsense", tf.int32)


def test_closing_the_session_lets_its_tensors_go_and_another_session_cannot_read_them():
    c = tf.constant(3) + 1
    sess = tf.Session()
    h, kept = sess.run([tf.get_session_handle(c), tf.get_session_handle(c)])
    raw = h.get_raw_handle()
    f, x = tf.get_session_tensor(raw, tf.int32)
    with tf.Session() as other:
        with pytest.raises(tf.errors.InvalidArgumentError, match="not in the session store"):
            other.run(x, feed_dict={f: raw})
    store = sess._device_mgr.session_tensors
    assert len(store) == 2
    sess.close()
    assert len(store) == 0
    with pytest.raises(RuntimeError, match="closed Session"):
        kept.eval()
    del kept
    gc.collect()  # (a handle collected after its session closed: nothing to do, no error)
