"""TF 1.x's queue-based input pipelines as TensorFlow runs them: what batching returns,
the names of a queue's ops, the fill summaries, and the readers' keys and batched reads
(the expected values are TensorFlow 2.21's, run side by side)."""

import os

import numpy as np
import pytest

import distflow as tf


def _drain(sess, fetch, limit=20):
    got = []
    try:
        for _ in range(limit):
            got.append(sess.run(fetch))
    except tf.errors.OutOfRangeError:
        got.append("end")
    return got


class _Runners:
    def __init__(self, sess):
        self.sess = sess

    def __enter__(self):
        self.coord = tf.train.Coordinator()
        self.threads = tf.train.start_queue_runners(sess=self.sess, coord=self.coord)
        return self

    def __exit__(self, *exc):
        self.coord.request_stop()
        self.coord.join(self.threads, stop_grace_period_secs=10)


def test_a_list_of_one_tensor_batches_to_one_tensor_and_a_dict_of_one_to_a_dict():
    x = tf.train.range_input_producer(4, num_epochs=1, shuffle=False).dequeue()
    single = tf.train.batch([x], 2)
    assert isinstance(single, tf.Tensor) and single.shape.as_list() == [2]
    pair = tf.train.batch((x, x * 10), 2)
    assert isinstance(pair, list) and len(pair) == 2
    keyed = tf.train.batch({"only": x}, 2)
    assert set(keyed) == {"only"}
    joined = tf.train.batch_join([[x], [x + 100]], 2)
    assert isinstance(joined, tf.Tensor)


def test_queue_ops_and_producer_queues_are_named_as_tensorflow_names_them():
    q = tf.FIFOQueue(3, tf.int32, shapes=[])
    names = [q.enqueue(1).name, q.enqueue_many([[1]]).name, q.dequeue().op.name, q.dequeue_many(2).op.name,
             q.dequeue_up_to(2).op.name, q.close().name, q.size().op.name, q.is_closed().op.name]
    assert names == ["fifo_queue_enqueue", "fifo_queue_EnqueueMany", "fifo_queue_Dequeue", "fifo_queue_DequeueMany",
                     "fifo_queue_DequeueUpTo", "fifo_queue_Close", "fifo_queue_Size", "fifo_queue_IsClosed"]
    tf.train.range_input_producer(3)
    tf.train.string_input_producer(["a"], name="files")
    queues = [r.queue.name for r in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]
    assert queues == ["input_producer", "files"]


def test_producers_and_batching_write_how_full_their_queues_are():
    x = tf.train.range_input_producer(6, capacity=8).dequeue()
    tf.train.batch([x], 2, capacity=4)
    tf.train.shuffle_batch([x], 2, capacity=10, min_after_dequeue=3)
    names = [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]
    assert names == ["input_producer/fraction_of_8_full:0", "batch/fraction_of_4_full:0",
                     "shuffle_batch/fraction_over_3_of_7_full:0"]


def test_a_fill_summary_is_the_fraction_of_the_queue_held():
    tf.train.input_producer(tf.constant([1, 2, 3, 4, 5]), shuffle=False, capacity=8, summary_name="fill")
    (runner,) = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
    (summary,) = tf.get_collection(tf.GraphKeys.SUMMARIES)
    with tf.Session() as sess:
        sess.run(runner.enqueue_ops[0])  # (by hand: five elements in a queue of eight)
        value = tf.Summary.FromString(sess.run(summary)).value[0]
    assert value.tag == "input_producer/fill" and value.simple_value == 5 / 8


def test_read_up_to_goes_across_files_and_gives_the_last_records_before_the_end(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"1\n2\n3\n")
    b.write_bytes(b"4\n")
    queue = tf.train.string_input_producer([str(a), str(b)], num_epochs=1, shuffle=False)
    reader = tf.TextLineReader()
    keys, values = reader.read_up_to(queue, 3)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with _Runners(sess):
            got = [v if isinstance(v, str) else v[1].tolist() for v in _drain(sess, [keys, values])]
            done = sess.run([reader.num_records_produced(), reader.num_work_units_completed()])
    assert got == [[b"1", b"2", b"3"], [b"4"], "end"]
    assert done == [4, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_records"):
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            with _Runners(sess):
                sess.run(reader.read_up_to(queue, 0))


def test_tfrecord_keys_are_byte_offsets(tmp_path):
    path = str(tmp_path / "r.tfrecord")
    with tf.python_io.TFRecordWriter(path) as writer:
        for record in (b"rec0", b"", b"longer record"):
            writer.write(record)
    queue = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
    key, value = tf.TFRecordReader().read(queue)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with _Runners(sess):
            got = _drain(sess, [key, value])
    # each record: 8 bytes of length, 4 of its CRC, the data, 4 of the data's CRC
    assert [(os.path.basename(k.decode()), v) for k, v in got[:-1]] == \
        [("r.tfrecord:0", b"rec0"), ("r.tfrecord:20", b""), ("r.tfrecord:36", b"longer record")]
    assert got[-1] == "end"


def test_a_queue_runner_shows_its_close_and_cancel_ops():
    q = tf.FIFOQueue(2, tf.int32, shapes=[])
    runner = tf.train.QueueRunner(q, [q.enqueue(tf.constant(1))])
    assert runner.close_op.type == "QueueClose" and runner.cancel_op.type == "QueueClose"
    assert runner.cancel_op.get_attr("cancel_pending_enqueues") is True
    assert runner.queue_closed_exception_types == (tf.errors.OutOfRangeError,)
    assert np.asarray(runner.close_op.get_attr("cancel_pending_enqueues")) == np.asarray(False)
