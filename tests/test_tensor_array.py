"""tf.TensorArray and the loops built on it (map_fn, scan, foldl, foldr), with gradients."""

import numpy as np
import pytest

import distflow as tf
from gradcheck import check_gradients


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_write_read_stack_size():
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, [1.0, 2.0]).write(2, [5.0, 6.0]).write(1, [3.0, 4.0])
    assert ta.element_shape.as_list() == [2]
    stacked, second, size = run([ta.stack(), ta.read(1), ta.size()])
    assert stacked.tolist() == [[1, 2], [3, 4], [5, 6]] and second.tolist() == [3, 4] and size == 3


def test_unstack_gather_scatter_concat_split():
    value = np.arange(12, dtype=np.float32).reshape(4, 3)
    ta = tf.TensorArray(tf.float32, size=4).unstack(value)
    gathered = ta.gather([3, 1])
    scattered = tf.TensorArray(tf.float32, size=3).scatter([2, 0, 1], value[:3])
    split = tf.TensorArray(tf.float32, size=2).split(np.arange(5, dtype=np.float32), [2, 3])
    g, s, c, parts = run([gathered, scattered.stack(), ta.concat(), split.read(1)])
    assert g.tolist() == value[[3, 1]].tolist()
    assert s.tolist() == value[[1, 2, 0]].tolist()
    assert c.tolist() == value.reshape(-1).tolist() and parts.tolist() == [2, 3, 4]


def test_reading_an_unwritten_element_or_writing_out_of_range_fails_the_step():
    ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="not yet been written"):
            sess.run(ta.read(1))
        with pytest.raises(tf.errors.InvalidArgumentError, match="size 2"):
            sess.run(ta.write(5, 2.0).stack())


def test_dynamic_size_grows():
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    ta = ta.write(0, 7).write(3, 9).write(1, 8).write(2, 0)
    assert run(ta.stack()).tolist() == [7, 8, 0, 9]


def test_dtype_and_shape_errors():
    ta = tf.TensorArray(tf.float32, size=2)
    with pytest.raises(TypeError, match="float32"):
        ta.write(0, tf.constant(1))
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        ta.write(0, [1.0, 2.0]).write(1, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="Size must be provided"):
        tf.TensorArray(tf.float32)


def test_tensor_array_as_a_loop_variable():
    n = 5
    ta = tf.TensorArray(tf.float32, size=n)

    def body(i, ta):
        return i + 1, ta.write(i, tf.cast(i * i, tf.float32))

    _, ta = tf.while_loop(lambda i, ta: i < n, body, [tf.constant(0), ta])
    assert isinstance(ta, tf.TensorArray)
    assert run(ta.stack()).tolist() == [0, 1, 4, 9, 16]


def test_map_fn_scan_and_folds():
    x = np.arange(12, dtype=np.float64).reshape(4, 3) / 7.0
    squares = tf.map_fn(lambda r: r * r, x)
    pairs = tf.map_fn(lambda r: (r[0], tf.cast(r[1] > 0.5, tf.int32)), x, dtype=(tf.float64, tf.int32))
    running = tf.scan(lambda a, r: a + r, x)
    running_reverse = tf.scan(lambda a, r: a + r, x, initializer=tf.zeros([3], tf.float64), reverse=True)
    product = tf.foldl(lambda a, r: a * r, x + 1.0)
    from_right = tf.foldr(lambda a, r: a * 2.0 + r, x, initializer=tf.zeros([3], tf.float64))
    got = run([squares, pairs, running, running_reverse, product, from_right])
    assert np.allclose(got[0], x * x)
    assert np.allclose(got[1][0], x[:, 0]) and got[1][1].tolist() == (x[:, 1] > 0.5).astype(int).tolist()
    assert np.allclose(got[2], np.cumsum(x, 0)) and np.allclose(got[3], np.cumsum(x[::-1], 0)[::-1])
    assert np.allclose(got[4], np.prod(x + 1.0, 0))
    expected = np.zeros(3)
    for row in x[::-1]:
        expected = expected * 2.0 + row
    assert np.allclose(got[5], expected)
    assert squares.shape.as_list() == [4, 3]


def test_map_fn_over_a_batch_of_unknown_length():
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.map_fn(lambda r: tf.reduce_sum(r), x)
    with tf.Session() as sess:
        assert sess.run(y, {x: np.ones((5, 2))}).tolist() == [2.0] * 5
        assert sess.run(y, {x: np.ones((0, 2))}).tolist() == []


def test_map_fn_errors():
    with pytest.raises(TypeError, match="fn must be callable"):
        tf.map_fn(1, [1.0])
    with pytest.raises(ValueError, match="scalars"):
        tf.map_fn(lambda v: v, tf.constant(1.0))


@pytest.mark.parametrize("which", ["map", "scan", "foldl", "foldr"])
def test_gradients_through_the_functional_loops(which):
    def build(x, w):
        if which == "map":
            return tf.map_fn(lambda r: tf.sin(r) * w, x)
        if which == "scan":
            return tf.scan(lambda a, r: tf.tanh(a * w + r), x)
        if which == "foldl":
            return tf.foldl(lambda a, r: a * r + w, x)
        return tf.foldr(lambda a, r: a * w - tf.sin(r), x, initializer=tf.ones([3], tf.float64))

    rng = np.random.default_rng(3)
    check_gradients(build, [rng.uniform(0.2, 1.0, (4, 3)), rng.uniform(0.5, 1.5, (3,))])


def test_gradient_through_tensor_array_reads_writes_and_stack():
    def build(x):
        ta = tf.TensorArray(tf.float64, size=3).unstack(x)
        out = tf.TensorArray(tf.float64, size=3)
        out = out.write(0, ta.read(2) * ta.read(0)).write(1, ta.read(1) ** 2).write(2, tf.exp(ta.read(0)))
        return out.stack() + tf.reduce_sum(ta.gather([0, 2]))

    check_gradients(build, [np.array([[0.3, 0.4], [0.5, -0.6], [0.7, 0.9]])])


def test_split_and_concat_gradients_against_central_differences():
    values = np.random.default_rng(5).standard_normal((5, 3))

    def through_split_and_concat(v):
        ta = tf.TensorArray(tf.float64, size=2, infer_shape=False).split(v, [2, 3])
        return ta.concat() * ta.concat()

    def read_one_part(v):
        return tf.TensorArray(tf.float64, size=2, infer_shape=False).split(v, [2, 3]).read(1) ** 2

    def concat_of_rows(v):
        return tf.TensorArray(tf.float64, size=5).unstack(v).concat() ** 3

    for fn in (through_split_and_concat, read_one_part, concat_of_rows):
        check_gradients(fn, [values])
