"""TF-Slim's queue-based input (parallel_reader, prefetch_queue, dataset_data_provider, queues)
reading TFRecord files written here, and a step that ends where TF's concurrent executor ends it."""

import numpy as np
import pytest

import distflow as tf
from distflow.contrib import slim


def _write_records(tmp_path, files=2, per_file=5):
    paths = []
    for f in range(files):
        path = str(tmp_path / f"data-{f}.tfrecord")
        with tf.python_io.TFRecordWriter(path) as writer:
            for i in range(per_file):
                label = f * per_file + i
                example = tf.train.Example(features=tf.train.Features(feature={
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=[label, 2.0 * label]))}))
                writer.write(example.SerializeToString())
        paths.append(path)
    return paths


def test_a_dataset_data_provider_reads_every_record_with_parallel_readers(tmp_path):
    _write_records(tmp_path)
    decoder = slim.tfexample_decoder.TFExampleDecoder(
        {"label": tf.FixedLenFeature([], tf.int64), "x": tf.FixedLenFeature([2], tf.float32)},
        {"label": slim.tfexample_decoder.Tensor("label"), "x": slim.tfexample_decoder.Tensor("x")})
    dataset = slim.dataset.Dataset(data_sources=str(tmp_path / "data-*.tfrecord"), reader=tf.TFRecordReader,
                                   decoder=decoder, num_samples=10, items_to_descriptions={}, num_classes=10)
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, num_readers=2, shuffle=False, num_epochs=1)
    assert provider.num_samples() == 10 and dataset.num_classes == 10
    label, x, key = provider.get(["label", "x", "record_key"])
    with pytest.raises(ValueError, match=r"Item \[nope\] is invalid"):
        provider.get(["nope"])
    seen = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with slim.queues.QueueRunners(sess):
            while True:
                try:
                    got_label, got_x, got_key = sess.run([label, x, key])
                except tf.errors.OutOfRangeError:
                    break
                assert got_x.tolist() == [got_label, 2.0 * got_label] and b"data-" in got_key
                seen.append(int(got_label))
    assert sorted(seen) == list(range(10))  # (each record once: one epoch)
    with pytest.raises(ValueError, match="No data files found"):
        slim.parallel_reader.get_data_files(str(tmp_path / "none-*"))


def test_a_prefetch_queue_of_a_dict_and_a_single_pass_read(tmp_path):
    paths = _write_records(tmp_path, files=1, per_file=3)
    key, value = slim.parallel_reader.single_pass_read(paths, tf.TFRecordReader)
    parsed = tf.parse_single_example(value, {"label": tf.FixedLenFeature([], tf.int64)})
    queue = slim.prefetch_queue.prefetch_queue({"label": parsed["label"], "key": key}, capacity=4)
    got = queue.dequeue()
    assert sorted(got) == ["key", "label"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord=coord)
        labels = [int(sess.run(got)["label"]) for _ in range(3)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(got)
        coord.request_stop()
        coord.join(threads)
    assert labels == [0, 1, 2]


def test_a_failing_op_ends_the_step_before_a_sibling_dequeue_waits():
    # tf.train.batch of a queue's dequeue and a counter: once the counter passes its limit, the
    # enqueue fails with OutOfRange (TF cancels the dequeue that waits on the empty queue)
    pieces = tf.PaddingFIFOQueue(capacity=5, dtypes=[tf.int32], shapes=[[None]])
    counter = tf.Variable(tf.constant(0, tf.int64)).count_up_to(2)
    batch = tf.train.batch([pieces.dequeue(), counter], batch_size=2, dynamic_pad=True)
    options = tf.RunOptions(timeout_in_ms=20000)  # (a regression fails, not hangs)
    with tf.Session() as sess:
        sess.run([pieces.enqueue([[1]]), pieces.enqueue([[2, 3]])])
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord=coord)
        values, counts = sess.run(batch, options=options)
        np.testing.assert_array_equal(values, [[1, 0], [2, 3]])
        assert sorted(counts.tolist()) == [0, 1]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(batch, options=options)
        coord.request_stop()
        coord.join(threads)
