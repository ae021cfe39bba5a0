"""TF-Slim's tfexample_decoder (as TF-Slim's datasets and the object detection API read their
TFRecords): Example and SequenceExample records decoded into items, against the values put in."""

import numpy as np
import pytest

import distflow as tf
from distflow.contrib import slim

decoder_lib = slim.tfexample_decoder


def _floats(values):
    return tf.train.Feature(float_list=tf.train.FloatList(value=list(np.ravel(values))))


def _ints(values):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=list(np.ravel(values))))


def _bytes(values):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=list(values)))


def _example(**features):
    return tf.train.Example(features=tf.train.Features(feature={k.replace("__", "/"): v for k, v in
                                                                features.items()})).SerializeToString()


def test_tensors_boxes_sparse_ids_and_a_lookup_decode_from_an_example():
    depth = np.arange(6, dtype=np.float32).reshape(2, 3, 1)
    boxes = np.array([[0.1, 0.2, 0.5, 0.6], [0.3, 0.1, 0.9, 0.4]], np.float32)
    record = _example(depth=_floats(depth), height=_ints([2]), width=_ints([3]),
                      bbox__ymin=_floats(boxes[:, 0]), bbox__xmin=_floats(boxes[:, 1]),
                      bbox__ymax=_floats(boxes[:, 2]), bbox__xmax=_floats(boxes[:, 3]),
                      ids=_ints([1, 4]), weights=_floats([2.0, 0.5]), names=_bytes([b"cat", b"dog", b"emu"]))
    table = tf.contrib.lookup.index_table_from_tensor(tf.constant(["dog", "cat"]), default_value=-1)
    keys_to_features = {
        "depth": tf.VarLenFeature(tf.float32), "height": tf.FixedLenFeature([1], tf.int64),
        "width": tf.FixedLenFeature([1], tf.int64), "ids": tf.VarLenFeature(tf.int64),
        "weights": tf.VarLenFeature(tf.float32), "names": tf.VarLenFeature(tf.string),
        "missing": tf.FixedLenFeature([2], tf.float32, default_value=tf.fill([2], 7.0)),
        **{f"bbox/{side}": tf.VarLenFeature(tf.float32) for side in ("ymin", "xmin", "ymax", "xmax")}}
    handlers = {
        "depth": decoder_lib.Tensor("depth", shape_keys=["height", "width"]),
        "boxes": decoder_lib.BoundingBox(prefix="bbox/"),
        "labels": decoder_lib.SparseTensor("ids", "weights", shape=[5], densify=True),
        "names": decoder_lib.LookupTensor("names", table),
        "missing": decoder_lib.Tensor("missing"),
        "count": decoder_lib.ItemHandlerCallback(["ids"], lambda t: tf.size(t["ids"].values))}
    decoder = decoder_lib.TFExampleDecoder(keys_to_features, handlers)
    assert decoder.list_items() == list(handlers)
    items = decoder.decode(tf.constant(record), ["depth", "boxes", "labels", "names", "missing", "count"])
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        got = sess.run(items)
    np.testing.assert_array_equal(got[0], depth.reshape(2, 3))
    np.testing.assert_allclose(got[1], boxes)
    np.testing.assert_array_equal(got[2], [0, 2.0, 0, 0, 0.5])
    assert got[3].tolist() == [1, 0, -1] and got[4].tolist() == [7.0, 7.0] and got[5] == 2


def test_raw_and_png_images_and_a_backup_for_an_empty_item():
    pixels = np.random.RandomState(0).randint(0, 255, size=(4, 5, 3)).astype(np.uint8)
    with tf.Session() as sess:
        png = sess.run(tf.image.encode_png(pixels))
        assert sess.run(tf.image.is_jpeg(png)) == False  # noqa: E712 - (a NumPy bool)
    raw = _example(image__encoded=_bytes([pixels.tobytes()]), image__format=_bytes([b"raw"]))
    encoded = _example(image__encoded=_bytes([png]), image__format=_bytes([b"png"]), fallback=_floats([1, 2]))
    keys_to_features = {"image/encoded": tf.FixedLenFeature((), tf.string),
                        "image/format": tf.FixedLenFeature((), tf.string, default_value="raw"),
                        "primary": tf.VarLenFeature(tf.float32), "fallback": tf.VarLenFeature(tf.float32)}
    handlers = {"image": decoder_lib.Image(shape=None),
                "raw": decoder_lib.Image(shape=[4, 5, 3]),
                "values": decoder_lib.BackupHandler(decoder_lib.Tensor("primary"), decoder_lib.Tensor("fallback"))}
    decoder = decoder_lib.TFExampleDecoder(keys_to_features, handlers)
    from_raw = decoder.decode(tf.constant(raw), ["raw"])[0]
    from_png = decoder.decode(tf.constant(encoded), ["image", "values"])
    assert from_png[0].shape.as_list() == [None, None, 3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(from_raw), pixels)
        got_png, values = sess.run(from_png)
    np.testing.assert_array_equal(got_png, pixels)
    assert values.tolist() == [1.0, 2.0]  # (no "primary": the backup's)


def test_a_fixed_length_sequence_feature_of_an_example_is_padded_across_the_batch():
    records = [_example(xs=_floats([1, 2, 3, 4])), _example(xs=_floats([5, 6])), _example()]
    parsed = tf.parse_example(tf.constant(records),
                              {"xs": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True,
                                                                default_value=-1.0)})
    assert parsed["xs"].shape.as_list() == [3, None, 2]  # (three records: TF 2.21 gives (3, None, 2) too)
    with tf.Session() as sess:
        got = sess.run(parsed["xs"])
    np.testing.assert_array_equal(got, [[[1, 2], [3, 4]], [[5, 6], [-1, -1]], [[-1, -1], [-1, -1]]])
    with pytest.raises(ValueError, match="allow_missing=True"):
        tf.parse_example(tf.constant(records), {"xs": tf.FixedLenSequenceFeature([2], tf.float32)})


def test_boxes_and_their_counts_decode_from_a_sequence_example():
    frames = [[(0.1, 0.2, 0.3, 0.4)], [(0.5, 0.5, 0.6, 0.6), (0.0, 0.1, 0.2, 0.3)]]

    def frame_list(side):
        return tf.train.FeatureList(feature=[_floats([box[side] for box in boxes]) for boxes in frames])

    record = tf.train.SequenceExample(
        context=tf.train.Features(feature={"clip": _ints([3])}),
        feature_lists=tf.train.FeatureLists(feature_list={
            f"bbox/{name}": frame_list(i) for i, name in enumerate(("ymin", "xmin", "ymax", "xmax"))})
    ).SerializeToString()
    decoder = decoder_lib.TFSequenceExampleDecoder(
        {"clip": tf.FixedLenFeature([], tf.int64)},
        {f"bbox/{name}": tf.VarLenFeature(tf.float32) for name in ("ymin", "xmin", "ymax", "xmax")},
        {"boxes": decoder_lib.BoundingBoxSequence(prefix="bbox/"), "clip": decoder_lib.Tensor("clip"),
         "num_boxes": decoder_lib.NumBoxesSequence([f"bbox/{name}" for name in ("ymin", "xmax")])})
    with tf.Session() as sess:
        boxes, clip, num_boxes = sess.run(decoder.decode(tf.constant(record)))
    np.testing.assert_allclose(boxes, [[[0.1, 0.2, 0.3, 0.4], [-1, -1, -1, -1]],
                                       [[0.5, 0.5, 0.6, 0.6], [0.0, 0.1, 0.2, 0.3]]])
    assert clip == 3 and num_boxes.tolist() == [1, 2]
    with pytest.raises(ValueError, match="not unique"):
        decoder_lib.TFSequenceExampleDecoder({"a": tf.FixedLenFeature([], tf.int64)},
                                             {"a": tf.VarLenFeature(tf.float32)}, {})


def test_the_shape_of_a_sparse_tensor_is_its_dense_shape():
    sparse = tf.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [3, 5])
    with tf.Session() as sess:
        assert sess.run(tf.shape(sparse)).tolist() == [3, 5]
        assert sess.run(tf.shape(sparse, out_type=tf.int64)).dtype == np.int64
