"""A map before a batch, run once a batch (data/vectorize.py): every pipeline here is run
both ways, the function rewritten for the batch and element by element (the rewrite taken
away), and the batches must be equal, dtype, shape and values; the rewrite is checked to
have been made, or refused where the function has an op it must run per element."""

import numpy as np
import pytest

import distflow as tf

rng = np.random.RandomState(5)


def the_batch(ds):
    """The pipeline's batch stage (the last)."""
    while not hasattr(ds, "_batched_fn"):
        ds = ds._input
    return ds


def batches(make, per_element: bool, initializer_feeds=None):
    with tf.Graph().as_default():
        ds = make()
        vectorized = the_batch(ds)._batched_fn is not None
        if per_element:
            the_batch(ds)._batched_fn = None
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        out = []
        with tf.Session() as sess:
            sess.run(it.initializer, initializer_feeds)
            while True:
                try:
                    out.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    break
    return out, vectorized


def check_both_ways(make, vectorized=True, initializer_feeds=None):
    got, made = batches(make, False, initializer_feeds)
    want, _ = batches(make, True, initializer_feeds)
    assert made == vectorized
    assert len(got) == len(want) and got
    for g, w in zip(got, want):
        flat_g, flat_w = tf.nest.flatten(g), tf.nest.flatten(w)
        assert len(flat_g) == len(flat_w)
        for a, b in zip(flat_g, flat_w):
            a, b = np.asarray(a), np.asarray(b)
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)
    return got


def example(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=rng.rand(6).astype(np.float32))),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 3])),
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"e%d" % i]))})).SerializeToString()


RECORDS = [example(i) for i in range(23)]
SPEC = {"x": tf.FixedLenFeature([2, 3], tf.float32), "label": tf.FixedLenFeature([], tf.int64),
        "name": tf.FixedLenFeature([], tf.string), "missing": tf.FixedLenFeature([2], tf.int64, default_value=[7, 8])}


@pytest.mark.parametrize("drop", [False, True])
def test_parse_single_example_then_arithmetic_runs_once_a_batch(tmp_path, drop):
    path = str(tmp_path / "r.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for r in RECORDS:
            w.write(r)

    def parse(record):
        f = tf.parse_single_example(record, SPEC)
        scaled = tf.transpose(f["x"] * 2.0 - 1.0, [1, 0])
        return {"x": scaled, "flat": tf.reshape(f["x"], [6]), "label": tf.one_hot(f["label"], 3),
                "name": f["name"], "missing": tf.cast(f["missing"], tf.float32) + tf.cast(f["label"], tf.float32)}

    got = check_both_ways(lambda: tf.data.TFRecordDataset(path).map(parse).batch(10, drop_remainder=drop))
    assert [len(b["label"]) for b in got] == ([10, 10] if drop else [10, 10, 3])
    assert got[0]["x"].shape == (10, 3, 2) and got[0]["name"][1] == b"e1"


def test_elementwise_ops_line_up_elements_of_other_ranks_and_constants():
    a = rng.rand(9).astype(np.float32)
    b = rng.rand(9, 3).astype(np.float32)
    c = rng.rand(4, 3).astype(np.float32)

    def f(x, y):
        z = x + y  # ([] + [3]: the scalar's batch gets a unit dimension)
        w = tf.maximum(z * c, 0.5)  # ([3] * [4, 3]: a constant of a higher rank)
        return tf.stack([z, y], axis=-1), tf.concat([w, w], 0), tf.expand_dims(x, 0), tf.squeeze(tf.reshape(y, [1, 3]))

    check_both_ways(lambda: tf.data.Dataset.from_tensor_slices((a, b)).map(f).batch(4))
    check_both_ways(lambda: tf.data.Dataset.from_tensor_slices(b).map(
        lambda y: (tf.stack([y, y], 0), tf.one_hot(tf.cast(y * 3, tf.int32), 3, axis=0), tf.identity(y))).batch(4))


def test_slices_and_gathers_keep_the_batch_dimension_whole():
    x = rng.rand(7, 4, 5).astype(np.float32)

    def f(v):
        return (v[1:3, ::2], v[..., 0], v[:, tf.newaxis, 1], v[-1], v[::-1, 2:], tf.slice(v, [1, 0], [2, -1]),
                tf.gather(v, [2, 0], axis=1), tf.gather(v, [3, 1]), tf.strided_slice(v, [0, 1], [4, 5], [2, 2]))

    got = check_both_ways(lambda: tf.data.Dataset.from_tensor_slices(x).map(f).batch(3))
    np.testing.assert_array_equal(got[0][0], x[:3, 1:3, ::2])
    np.testing.assert_array_equal(got[0][6], x[:3][:, :, [2, 0]])


@pytest.mark.parametrize("scale_first", [True, False])
def test_decode_raw_of_strings_and_captured_tensors_fed_at_initialization(scale_first):
    strings = [rng.randint(0, 255, 8, dtype=np.uint8).tobytes() for _ in range(7)]

    def make():
        scale = tf.placeholder(tf.float32, [], name="scale")
        offset = tf.constant(np.arange(8, dtype=np.float32))

        def f(s):  # (the captures read in either order: the map passes them in the function's)
            values = tf.cast(tf.decode_raw(s, tf.uint8), tf.float32)
            return values * scale + offset if scale_first else offset + values * scale
        return tf.data.Dataset.from_tensor_slices(strings).map(f).batch(3)

    got = check_both_ways(make, initializer_feeds={"scale:0": 2.0})
    np.testing.assert_array_equal(got[0][1], np.frombuffer(strings[1], np.uint8).astype(np.float32) * 2 + np.arange(8))


def test_functions_with_ops_run_per_element_are_not_rewritten():
    x = np.arange(6, dtype=np.float32)
    check_both_ways(lambda: tf.data.Dataset.from_tensor_slices(x).map(
        lambda v: v + tf.random_uniform([])).batch(4).map(lambda v: tf.ones_like(v)), vectorized=False)
    with tf.Graph().as_default():  # (a random draw per element: not rewritten)
        ds = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v + tf.random_uniform([], seed=1)).batch(6)
        assert ds._batched_fn is None
        with tf.Session() as sess:
            drawn = sess.run(ds.make_one_shot_iterator().get_next()) - x
        assert len(set(drawn.tolist())) == 6
    check_both_ways(lambda: tf.data.Dataset.from_tensor_slices(x).map(
        lambda v: tf.py_func(lambda a: a * 2, [v], tf.float32)).batch(4), vectorized=False)
    check_both_ways(lambda: tf.data.Dataset.from_tensor_slices(x).map(
        lambda v: (v, tf.constant(1.0))).batch(4), vectorized=False)  # (an output not of the element)
    check_both_ways(lambda: tf.data.Dataset.from_tensor_slices(x).map(
        lambda v: tf.reduce_sum(tf.stack([v, v]))).batch(4), vectorized=False)  # (no batched form)


def test_a_batch_the_rewrite_cannot_compute_is_mapped_element_by_element():
    # (strings of two lengths: decode_raw of the batch fails, each element's does not, and
    # batching them is the per-element error)
    strings = [b"ab", b"cd", b"efgh", b"ij"]
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(strings).map(lambda s: tf.decode_raw(s, tf.uint8)).batch(2)
        assert ds._batched_fn is not None
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert sess.run(nxt).tolist() == [[97, 98], [99, 100]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot batch tensors with different shapes"):
                sess.run(nxt)


def test_errors_of_one_element_drop_only_it_under_ignore_errors():
    strings = [b"1", b"2", b"x", b"4", b"5", b"y", b"z", b"8"]
    got = check_both_ways(lambda: tf.data.Dataset.from_tensor_slices(strings).map(
        lambda s: tf.string_to_number(s) * 2).batch(2).apply(tf.data.experimental.ignore_errors()))
    assert [b.tolist() for b in got] == [[2, 4], [8, 10], [16]]
    with tf.Graph().as_default():  # (without ignore_errors the error names the function)
        nxt = tf.data.Dataset.from_tensor_slices(strings).map(
            lambda s: tf.string_to_number(s)).batch(4).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset.map"):
                sess.run(nxt)


def test_a_map_and_batch_inside_a_dataset_function():
    def inner(x):  # (built while flat_map traces its function: captures of that graph)
        return tf.data.Dataset.range(4).map(lambda y: y * x + 1).batch(3)

    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(1, 3).flat_map(inner)
        got = []
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            while True:
                try:
                    got.append(sess.run(nxt).tolist())
                except tf.errors.OutOfRangeError:
                    break
    assert got == [[1, 2, 3], [4], [1, 3, 5], [7]]
