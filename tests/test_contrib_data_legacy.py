"""TF 1.3's tf.contrib.data Dataset API (map with num_threads and output_buffer_size, the
transformations that were methods, the readers), read_batch_features, and rejection_resample."""

import numpy as np
import pytest

import distflow as tf

cdata = tf.contrib.data


def _all(tensor_or_structure, **kwargs):
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(tensor_or_structure, **kwargs))
            except tf.errors.OutOfRangeError:
                return out


def test_a_tf_1_3_pipeline_chains_contrib_datasets():
    with tf.Graph().as_default():
        dataset = cdata.Dataset.range(12).map(lambda x: x * 2, num_threads=4, output_buffer_size=5)
        dataset = dataset.filter(lambda x: x < 20).batch(4).unbatch().group_by_window(
            lambda x: x % 4, lambda key, window: window.batch(5), 5)
        assert isinstance(dataset, cdata.Dataset) and dataset.output_types == tf.int64
        batches = _all(dataset.make_one_shot_iterator().get_next())
        assert sorted(map(list, batches)) == [[0, 4, 8, 12, 16], [2, 6, 10, 14, 18]]
        pairs = cdata.Dataset.zip((cdata.Dataset.from_tensor_slices([1, 2]), cdata.Dataset.range(2)))
        assert _all(pairs.make_one_shot_iterator().get_next()) == [(1, 0), (2, 1)]
        sparse = cdata.Dataset.from_tensor_slices(np.array([[1, 0], [2, 3]])).map(
            lambda row: tf.boolean_mask(row, row > 0)).dense_to_sparse_batch(2, [2])
        value = _all(sparse.make_one_shot_iterator().get_next())[0]
        assert value.values.tolist() == [1, 2, 3] and value.dense_shape.tolist() == [2, 2]
        checked = cdata.Dataset.from_tensor_slices([1.0, 0.0, 2.0]).map(
            lambda x: tf.check_numerics(1.0 / x, "inf")).ignore_errors()
        assert _all(checked.make_one_shot_iterator().get_next()) == [1.0, 0.5]


def _write_examples(path, rows):
    with tf.python_io.TFRecordWriter(str(path)) as writer:
        for age, words in rows:
            example = tf.train.Example(features=tf.train.Features(feature={
                "age": tf.train.Feature(int64_list=tf.train.Int64List(value=[age])),
                "kws": tf.train.Feature(bytes_list=tf.train.BytesList(value=[w.encode() for w in words]))}))
            writer.write(example.SerializeToString())


def test_read_batch_features_and_the_contrib_readers(tmp_path):
    _write_examples(tmp_path / "a.tfrecord", [(1, ["code", "art"]), (2, ["sports"])])
    _write_examples(tmp_path / "b.tfrecord", [(3, [])])
    features = {"age": tf.FixedLenFeature([], tf.int64), "kws": tf.VarLenFeature(tf.string)}
    with tf.Graph().as_default():
        batch = cdata.read_batch_features(str(tmp_path / "*.tfrecord"), 3, features, cdata.TFRecordDataset,
                                          randomize_input=False, num_epochs=1)
        got = _all(batch)
        assert len(got) == 1 and got[0]["age"].tolist() == [1, 2, 3]
        assert got[0]["kws"].values.tolist() == [b"code", b"art", b"sports"]
        with pytest.raises(ValueError, match="No files match"):
            cdata.read_batch_features(str(tmp_path / "*.none"), 3, features, cdata.TFRecordDataset)
        lines = tmp_path / "lines.txt"
        lines.write_text("x\ny\n")
        text = cdata.TextLineDataset(str(lines)).map(lambda line: tf.string_join([line, "!"]))
        assert isinstance(text, cdata.Dataset) and _all(text.make_one_shot_iterator().get_next()) == [b"x!", b"y!"]


@pytest.mark.parametrize("initial_known", [True, False])
def test_rejection_resample_moves_the_class_shares_towards_the_target(initial_known):
    classes = np.random.default_rng(5).integers(0, 4, 8000)
    target = [0.7, 0.1, 0.1, 0.1]
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices(classes).map(lambda c: (c, tf.as_string(c))).apply(
            tf.data.experimental.rejection_resample(lambda c, _: c, target,
                                                    [0.25] * 4 if initial_known else None, seed=7))
        returned = _all(dataset.make_one_shot_iterator().get_next())
    assert all(str(c).encode() == text for c, (_, text) in returned)  # (each class with its own element)
    shares = np.bincount([c for c, _ in returned], minlength=4) / len(returned)
    assert len(returned) > 8000 * 0.25 and np.allclose(shares, target, atol=0.03)
