"""tf.summary and event files: what distflow writes parses with TensorFlow's own schema
(TFRecord framing with CRC-32C, Event and Summary messages), from plain FileWriter use
and from monitored sessions and supervisors."""

import glob
import os
import struct

import numpy as np
import pytest

import distflow as tf
from distflow.platform.tf_record import crc32c, masked_crc32c
from tf_protos import TF


def events(logdir):
    """Every Event in logdir's event files, read with an independent record parser and TF's schema."""
    out = []
    for path in sorted(glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))):
        data = open(path, "rb").read()
        offset = 0
        while offset < len(data):
            (length,) = struct.unpack_from("<Q", data, offset)
            assert struct.unpack_from("<I", data, offset + 8)[0] == masked_crc32c(data[offset:offset + 8])
            record = data[offset + 12:offset + 12 + length]
            assert struct.unpack_from("<I", data, offset + 12 + length)[0] == masked_crc32c(record)
            out.append(TF["Event"].FromString(record))
            offset += 16 + length
    return out


def test_crc32c_check_value():
    assert crc32c(b"123456789") == 0xE3069283  # the standard check value of CRC-32C


def test_scalar_histogram_image_and_text_summaries_in_an_event_file(tmp_path):
    x = tf.placeholder(tf.float32, [None, 4])
    with tf.name_scope("layer"):
        tf.summary.scalar("mean", tf.reduce_mean(x))
        tf.summary.histogram("values", x)
        tf.summary.image("pictures", tf.reshape(x, [-1, 2, 2, 1]), max_outputs=2)
        tf.summary.text("note", tf.constant("hello"))
    merged = tf.summary.merge_all()
    writer = tf.summary.FileWriter(str(tmp_path), tf.get_default_graph())
    data = np.array([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]], np.float32)
    with tf.Session() as sess:
        for step in range(3):
            writer.add_summary(sess.run(merged, {x: data + step}), step)
    writer.add_session_log(tf.SessionLog(status=tf.SessionLog.STOP), 3)
    writer.close()
    got = events(tmp_path)
    assert got[0].file_version == "brain.Event:2"
    graph = tf.GraphDef.FromString(got[1].graph_def)
    assert [n.name for n in graph.node if n.op == "ScalarSummary"] == ["layer/mean_1"]  # "Mean" took the name, as in TF
    summaries = [e for e in got if e.HasField("summary")]
    assert [e.step for e in summaries] == [0, 1, 2]
    values = {v.tag: v for v in summaries[2].summary.value}
    # (the tag is the op's scope, "mean_1" here, as TensorFlow's: TensorFlow 2.21 writes "layer/mean_1")
    assert values["layer/mean_1"].simple_value == pytest.approx(data.mean() + 2)
    histo = values["layer/values"].histo
    assert histo.num == 8 and histo.min == 2.0 and histo.max == 9.0 and sum(histo.bucket) == 8
    assert histo.sum == pytest.approx((data + 2).sum())
    assert list(histo.bucket_limit) == sorted(histo.bucket_limit)
    image = values["layer/pictures/image/1"].image
    assert (image.height, image.width, image.colorspace) == (2, 2, 1)
    assert image.encoded_image_string.startswith(b"\x89PNG\r\n\x1a\n")
    assert values["layer/note"].tensor.string_val == [b"hello"]
    assert got[-1].session_log.status == 2 and got[-1].step == 3


def test_summary_ops_land_in_collections_and_merge_rejects_duplicates():
    a = tf.summary.scalar("a", 1.0)
    b = tf.summary.scalar("b", 2.0, collections=["mine"])
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == [a] and tf.get_collection("mine") == [b]
    with tf.Session() as sess:
        merged = tf.Summary.FromString(sess.run(tf.summary.merge([a, b])))
        assert [v.tag for v in merged.value] == ["a", "b"]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Duplicate tag"):
            sess.run(tf.summary.merge([a, a]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Nan in summary histogram"):
            sess.run(tf.summary.histogram("h", [np.nan]))
    with pytest.raises(ValueError, match="scalar"):
        tf.summary.scalar("bad", [1.0, 2.0])


def test_monitored_training_session_writes_summaries_and_steps_per_second(tmp_path):
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0)
    loss = tf.square(w - 3.0)
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path), save_summaries_steps=10,
                                           log_step_count_steps=20) as sess:
        for _ in range(45):
            sess.run(train)
    got = events(tmp_path)
    assert any(e.graph_def for e in got)
    losses = [(e.step, v.simple_value) for e in got for v in e.summary.value if v.tag == "loss"]
    assert len(losses) == 5 and losses[0][1] == pytest.approx(4.0) and losses[-1][1] < 0.01
    assert any(v.tag == "global_step/sec" for e in got for v in e.summary.value)


def test_supervisor_writes_graph_and_summaries_on_the_chief(tmp_path):
    step = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0)
    loss = tf.square(w - 3.0)
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_summaries_secs=3600, save_model_secs=3600)
    with sv.managed_session() as sess:
        for _ in range(5):
            sess.run(train)
        sv.summary_computed(sess, sess.run(sv.summary_op))
    assert os.path.exists(tmp_path / "graph.pbtxt")
    got = events(tmp_path)
    assert got[1].graph_def and got[2].meta_graph_def  # (as TF's Supervisor writes them)
    assert got[3].session_log.status == 1  # START
    tagged = [(e.step, v.tag) for e in got for v in e.summary.value]
    assert (0, "loss") in tagged and (5, "loss") in tagged


def test_tf_record_round_trip_and_damage_is_data_loss(tmp_path):
    path = str(tmp_path / "records")
    with tf.python_io.TFRecordWriter(path) as writer:
        for record in [b"one", b"", b"three" * 100]:
            writer.write(record)
    assert list(tf.python_io.tf_record_iterator(path)) == [b"one", b"", b"three" * 100]
    data = bytearray(open(path, "rb").read())
    data[14] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises(tf.errors.DataLossError):
        list(tf.python_io.tf_record_iterator(path))


def test_summaries_tag_bucket_and_scale_as_tensorflow():
    with tf.name_scope("outer"):
        family = tf.summary.scalar("v", 1.0, family="fam")
    first, second = tf.summary.scalar("loss", 1.0), tf.summary.scalar("loss", 2.0)
    histogram = tf.summary.histogram("h", tf.constant([1.0, 1.0, 2.0]))
    empty = tf.summary.histogram("empty", tf.zeros([0]))
    pixels = np.array([[[[0.2], [-0.4]], [[1.0], [np.inf]]], [[[0.1], [0.3]], [[0.6], [0.0]]]], np.float32)
    images = tf.summary.image("img", pixels, max_outputs=2)
    single = tf.summary.image("one", pixels, max_outputs=1)
    text = tf.summary.text("t", tf.constant("hello"))
    with tf.Session() as sess:
        got = [tf.Summary.FromString(v) for v in sess.run([family, first, second, histogram, empty, images, single,
                                                            text])]
    # (TensorFlow 2.21's tags for the same calls)
    assert [g.value[0].tag for g in got[:3]] == ["fam/outer/fam/v", "loss", "loss_1"]
    histo = got[3].value[0].histo
    limits = list(histo.bucket_limit)
    # (runs of empty buckets collapse into their last limit, the last run's reaching DBL_MAX)
    assert list(histo.bucket) == [0.0, 2.0, 0.0, 1.0, 0.0] and limits[-1] == np.finfo(np.float64).max
    assert limits[1] >= 1.0 > limits[0] and limits[3] >= 2.0 > limits[2]
    nothing = got[4].value[0].histo
    assert (nothing.min, nothing.max, list(nothing.bucket)) == (np.finfo(np.float64).max,
                                                                -np.finfo(np.float64).max, [0.0])
    assert [v.tag for v in got[5].value] == ["img/image/0", "img/image/1"] and got[6].value[0].tag == "one/image"
    decoded = [tf.image.decode_png(v.image.encoded_image_string) for v in got[5].value]
    with tf.Session() as sess:
        first_image, second_image = sess.run(decoded)
    # each image from its own finite range: negatives put 0 at 128 (127 / 1.0 a unit), else 255 / max; truncated
    # (and a non-finite pixel red: 255 in a gray image; TensorFlow 2.21's pixels for the same images)
    assert first_image[..., 0].tolist() == [[153, 77], [255, 255]]
    assert second_image[..., 0].tolist() == [[42, 127], [254, 0]]
    assert got[7].value[0].tensor.HasField("tensor_shape")


def test_a_histogram_of_mostly_zeros_counts_and_sums_as_one_value_at_a_time():
    from distflow.summary.summary_ops import _LIMITS, histogram_proto

    rng = np.random.RandomState(4)
    values = np.zeros(5000)
    values[rng.choice(5000, 700, replace=False)] = rng.standard_normal(700) * 10.0 ** rng.randint(-14, 3, 700)
    values[:3] = [-0.0, 1e-12, -1e-12]  # (a negative zero, and values on bucket limits)
    histo = histogram_proto(values)
    total = squares = 0.0
    for v in values:  # (TensorFlow's Histogram::Add)
        total += v
        squares += v * v
    assert histo.sum == total and histo.sum_squares == squares and histo.num == 5000
    counts = np.bincount(np.searchsorted(_LIMITS, values, side="right"), minlength=len(_LIMITS))
    got = dict(zip(histo.bucket_limit, histo.bucket))
    assert {limit: count for limit, count in zip(_LIMITS, counts) if count} == {k: v for k, v in got.items() if v}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram_buckets_are_a_search_of_the_limits_for_every_value(dtype):
    # (buckets from a logarithm, checked against the limits: on and beside every limit,
    # past float32's range, below the smallest limit and above the largest; chunks joined)
    from distflow.summary import summary_ops
    from distflow.summary.summary_ops import _LIMITS, histogram_proto

    inner = _LIMITS[1:-1]
    if dtype == np.float32:
        inner = inner[np.abs(inner) < 3e38]
    values = np.concatenate([inner, np.nextafter(inner, 0), np.nextafter(inner, np.inf),
                             np.nextafter(inner, -np.inf), [1e-300, -1e-300, 1e-13, -5e-46, 3e-45]]).astype(dtype)
    if dtype == np.float64:
        values = np.concatenate([values, [1e25, -1e25, 1e300, -1e300, np.finfo(np.float64).max, -1e-320]])
    rng = np.random.default_rng(7)
    values = np.concatenate([values, (rng.standard_normal(200_000) * 10.0 ** rng.integers(-14, 22, 200_000))
                             .astype(dtype)])
    values = values[np.isfinite(values)]
    rng.shuffle(values)
    nonzero = values[values != 0]
    want = np.minimum(np.searchsorted(_LIMITS, nonzero.astype(np.float64), side="right"), len(_LIMITS) - 1)
    np.testing.assert_array_equal(summary_ops._bucket_indices(nonzero), want)
    histo = histogram_proto(values)  # (several chunks: the counts and the running sums carried across)
    every = np.minimum(np.searchsorted(_LIMITS, values.astype(np.float64), side="right"), len(_LIMITS) - 1)
    counts = np.bincount(every, minlength=len(_LIMITS))  # (zeros too: in the bucket up to 1e-12)
    got = dict(zip(histo.bucket_limit, histo.bucket))
    assert {limit: count for limit, count in zip(_LIMITS, counts) if count} == {k: v for k, v in got.items() if v}
    wide = values.astype(np.float64)
    with np.errstate(over="ignore"):
        assert histo.sum == np.cumsum(wide)[-1] and histo.sum_squares == np.cumsum(wide * wide)[-1]
    assert (histo.min, histo.max, histo.num) == (wide.min(), wide.max(), len(values))
