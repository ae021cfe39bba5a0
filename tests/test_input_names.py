"""The names of TF 1.x's file input pipelines and preprocessing: queue-fed readers (as the
CIFAR-10 tutorial uses them), decode_raw and decode_csv, string ops, bitwise ops and tf.image."""

import base64
import struct

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle, evaluate


def _read_all(reader, filenames, n, num_epochs=1):
    queue = tf.train.string_input_producer(filenames, num_epochs=num_epochs, shuffle=False)
    key, value = reader.read(queue)
    out = []
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord=coord)
        for _ in range(n):
            out.append(sess.run([key, value]))
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(value)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    return out


def test_fixed_length_records_decode_like_cifar(tmp_path):
    # Each record: one label byte, then a 2x2x3 uint8 image, after a 4-byte header.
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(5, 12), dtype=np.uint8)
    labels = np.arange(5, dtype=np.uint8)
    path = tmp_path / "data.bin"
    path.write_bytes(b"HEAD" + b"".join(bytes([labels[i]]) + images[i].tobytes() for i in range(5)) + b"FT")
    reader = tf.FixedLengthRecordReader(record_bytes=13, header_bytes=4, footer_bytes=2)
    records = _read_all(reader, [str(path)], 5)
    assert [k for k, _ in records] == [f"{path}:{i}".encode() for i in range(5)]
    raw = [v for _, v in records]
    decoded = evaluate(tf.decode_raw(np.array(raw, dtype=object), tf.uint8))
    assert decoded.dtype == np.uint8 and decoded.shape == (5, 13)
    assert_oracle(decoded[:, 0], labels)
    assert_oracle(decoded[:, 1:], images)


def test_fixed_length_records_may_overlap_by_hop_bytes_and_a_dropped_writer_keeps_its_records(tmp_path):
    path = tmp_path / "frames.bin"
    path.write_bytes(b"HH" + b"0123456789" + b"F")  # (records of 4 bytes starting every 3)
    records = _read_all(tf.FixedLengthRecordReader(record_bytes=4, header_bytes=2, footer_bytes=1, hop_bytes=3),
                        [str(path)], 3)
    assert [v for _, v in records] == [b"0123", b"3456", b"6789"]
    with pytest.raises(ValueError, match="record_bytes must be positive"):
        tf.FixedLengthRecordReader(record_bytes=0)
    record_path = str(tmp_path / "dropped.tfrecord")

    def write_and_drop():
        writer = tf.python_io.TFRecordWriter(record_path)
        for payload in (b"kept", b"too"):
            writer.write(payload)  # (never closed: a writer dropped writes what it holds, as TF's)

    write_and_drop()
    assert list(tf.python_io.tf_record_iterator(record_path)) == [b"kept", b"too"]


def test_text_lines_tfrecords_whole_files_across_several_files(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("x,y\n1,2\n3,4\n")
    b.write_text("x,y\n5,6\n")
    lines = _read_all(tf.TextLineReader(skip_header_lines=1), [str(a), str(b)], 3)
    assert [v for _, v in lines] == [b"1,2", b"3,4", b"5,6"]
    assert lines[0][0] == f"{a}:2".encode()

    record_path = str(tmp_path / "r.tfrecord")
    with tf.python_io.TFRecordWriter(record_path) as writer:
        for payload in (b"one", b"two"):
            writer.write(payload)
    assert [v for _, v in _read_all(tf.TFRecordReader(), [record_path], 2)] == [b"one", b"two"]

    whole = _read_all(tf.WholeFileReader(), [str(a), str(b)], 2)
    assert whole == [[str(a).encode(), a.read_bytes()], [str(b).encode(), b.read_bytes()]]


def test_reader_counts_records_and_names_missing_files(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("a\nb\nc\n")
    reader = tf.TextLineReader()
    queue = tf.FIFOQueue(4, tf.string)
    key, value = reader.read(queue)
    with tf.Session() as sess:
        sess.run(queue.enqueue_many([[str(path), str(tmp_path / "absent.txt")]]))
        assert [sess.run(value) for _ in range(3)] == [b"a", b"b", b"c"]
        assert sess.run(reader.num_records_produced()) == 3
        with pytest.raises(tf.errors.NotFoundError, match="absent.txt"):
            sess.run(value)
        sess.run(reader.reset())
        assert sess.run(reader.num_records_produced()) == 0


def test_decode_raw_byte_order_and_size_mismatch():
    big = struct.pack(">2i", 1, -2)
    assert evaluate(tf.decode_raw(big, tf.int32, little_endian=False)).tolist() == [1, -2]
    assert evaluate(tf.decode_raw(struct.pack("<2f", 1.5, 2.5), tf.float32)).tolist() == [1.5, 2.5]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="same size"):
            sess.run(tf.decode_raw(np.array([b"ab", b"abcd"], dtype=object), tf.uint8))


def test_decode_csv_types_defaults_and_errors():
    records = np.array([b"1,2.5,cat", b",0.5,", b"7,,dog"], dtype=object)
    ints, floats, words = evaluate(tf.decode_csv(records, [[-1], [0.0], ["none"]]))
    assert ints.tolist() == [1, -1, 7] and ints.dtype == np.int32
    assert floats.tolist() == [2.5, 0.5, 0.0] and floats.dtype == np.float32
    assert words.tolist() == [b"cat", b"none", b"dog"]
    semis = evaluate(tf.decode_csv(b"3;x", [[0], [""]], field_delim=";"))
    assert semis[0] == 3 and semis[1] == b"x"
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields but have 3"):
            sess.run(tf.decode_csv(b"1,2,3", [[0], [0]]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Field 0 is required"):
            sess.run(tf.decode_csv(b",2", [tf.constant([], tf.int32), [0]]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="not a valid int32"):
            sess.run(tf.decode_csv(b"x,2", [[0], [0]]))


def test_string_ops_match_python():
    words = np.array([b"  Hello ", b"world"], dtype=object)
    assert evaluate(tf.string_strip(words)).tolist() == [b"Hello", b"world"]
    assert evaluate(tf.strings.length(words)).tolist() == [8, 5]
    assert evaluate(tf.strings.length("héllo", unit="UTF8_CHAR")) == 5
    assert evaluate(tf.string_join([words, "!"], separator="-")).tolist() == [b"  Hello -!", b"world-!"]
    assert evaluate(tf.substr(b"distflow", 4, 4)) == b"flow"
    assert evaluate(tf.regex_replace(b"a1b22c", r"\d+", "#")) == b"a#b#c"
    assert evaluate(tf.regex_replace(b"a1b22c", r"\d+", "#", replace_global=False)) == b"a#b22c"
    assert evaluate(tf.string_to_number(np.array([b"1.5", b"-2"], dtype=object))).tolist() == [1.5, -2.0]
    assert evaluate(tf.strings.to_number(b"12", out_type=tf.int32)) == 12
    assert evaluate(tf.as_string(np.array([3, 14]))).tolist() == [b"3", b"14"]
    assert evaluate(tf.as_string(3.14159, precision=2)) == b"3.14"
    encoded = evaluate(tf.encode_base64(b"distflow?"))
    assert encoded == base64.urlsafe_b64encode(b"distflow?").rstrip(b"=")
    assert evaluate(tf.decode_base64(encoded)) == b"distflow?"
    grid = np.array([[b"a", b"b"], [b"c", b"d"]], dtype=object)
    assert evaluate(tf.reduce_join(grid, axis=1)).tolist() == [b"ab", b"cd"]
    assert evaluate(tf.reduce_join(grid, axis=0, separator=",")).tolist() == [b"a,c", b"b,d"]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="abc"):
            sess.run(tf.string_to_number(b"abc"))


def test_bitwise_ops_match_numpy_and_refuse_floats():
    x, y = np.array([12, 5, -3], np.int32), np.array([10, 3, 1], np.int32)
    assert_oracle(evaluate(tf.bitwise.bitwise_and(x, y)), x & y)
    assert_oracle(evaluate(tf.bitwise.bitwise_or(x, y)), x | y)
    assert_oracle(evaluate(tf.bitwise.bitwise_xor(x, y)), x ^ y)
    assert_oracle(evaluate(tf.bitwise.left_shift(x, y)), x << y)
    assert_oracle(evaluate(tf.bitwise.right_shift(x, y)), x >> y)
    assert_oracle(evaluate(tf.bitwise.invert(np.array([0, 255], np.uint8))), np.array([255, 0], np.uint8))
    with pytest.raises(TypeError, match="BitwiseAnd.*integer"):
        tf.bitwise.bitwise_and(1.0, 2.0)


def test_image_flips_crops_and_dtype_conversion():
    image = np.arange(2 * 3 * 2, dtype=np.uint8).reshape(2, 3, 2)
    assert_oracle(evaluate(tf.image.flip_left_right(image)), image[:, ::-1])
    assert_oracle(evaluate(tf.image.flip_up_down(image)), image[::-1])
    flips = {evaluate(tf.image.random_flip_left_right(image)).tobytes() for _ in range(20)}
    assert flips == {image.tobytes(), image[:, ::-1].tobytes()}
    as_float = evaluate(tf.image.convert_image_dtype(image, tf.float32))
    assert_oracle(as_float, image.astype(np.float32) / 255.0)
    assert_oracle(evaluate(tf.image.convert_image_dtype(as_float, tf.uint8)), image)
    padded = evaluate(tf.image.pad_to_bounding_box(image, 1, 0, 4, 4))
    assert padded.shape == (4, 4, 2) and (padded[0] == 0).all() and (padded[1:3, :3] == image).all()
    assert_oracle(evaluate(tf.image.crop_to_bounding_box(image, 1, 1, 1, 2)), image[1:2, 1:3])
    assert_oracle(evaluate(tf.image.resize_image_with_crop_or_pad(image, 1, 5))[:, 1:4], image[:1])
    # (TensorFlow truncates the offset, int((10 - 5) / 2) = 2, and keeps the rest: 6 of 10)
    assert evaluate(tf.image.central_crop(np.zeros((10, 10, 3)), 0.5)).shape == (6, 6, 3)


def test_image_colour_adjustments():
    image = np.random.default_rng(1).uniform(0, 1, size=(4, 5, 3))
    mean = image.mean(axis=(0, 1), keepdims=True)
    assert_oracle(evaluate(tf.image.adjust_contrast(image, 2.0)), (image - mean) * 2.0 + mean, rtol=1e-12)
    assert_oracle(evaluate(tf.image.adjust_brightness(image, 0.25)), image + 0.25)
    standard = evaluate(tf.image.per_image_standardization(image))
    want = (image - image.mean()) / max(image.std(), 1 / np.sqrt(image.size))
    assert_oracle(standard, want.astype(np.float32), rtol=1e-5, atol=1e-6)
    grey = evaluate(tf.image.rgb_to_grayscale(image))
    assert_oracle(grey, (image @ np.array([0.2989, 0.587, 0.114]))[..., None], rtol=1e-12)
    bright = evaluate(tf.image.random_brightness(image, 0.1, seed=3)) - image
    assert np.allclose(bright, bright.flat[0]) and abs(bright.flat[0]) <= 0.1
    with pytest.raises(ValueError, match="upper must be > lower"):
        tf.image.random_contrast(image, 0.5, 0.2)


def test_resize_bilinear_and_nearest_against_numpy():
    image = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    # Legacy (TF 1.x) scaling: output pixel i samples input coordinate i * in / out.
    half = evaluate(tf.image.resize_images(image, [2, 2]))
    assert_oracle(half[0, :, :, 0], image[0, ::2, ::2, 0])
    double = evaluate(tf.image.resize_bilinear(image[:, :2, :2], [4, 4]))[0, :, :, 0]
    corner = image[0, :2, :2, 0]
    want = np.empty((4, 4), np.float32)
    for i in range(4):
        for j in range(4):
            y, x = min(i / 2, 1), min(j / 2, 1)
            y0, x0 = int(y), int(x)
            y1, x1 = min(y0 + 1, 1), min(x0 + 1, 1)
            top = corner[y0, x0] * (1 - (x - x0)) + corner[y0, x1] * (x - x0)
            bottom = corner[y1, x0] * (1 - (x - x0)) + corner[y1, x1] * (x - x0)
            want[i, j] = top * (1 - (y - y0)) + bottom * (y - y0)
    assert_oracle(double, want, rtol=1e-6)
    aligned = evaluate(tf.image.resize_bilinear(image, [7, 7], align_corners=True))[0, :, :, 0]
    assert aligned[0, 0] == 0 and aligned[-1, -1] == 15 and aligned[0, 2] == pytest.approx(1.0)
    labels = np.arange(4, dtype=np.int32).reshape(2, 2, 1)
    nearest = evaluate(tf.image.resize_nearest_neighbor(labels[None], [4, 4]))
    assert nearest.dtype == np.int32
    assert_oracle(nearest[0, :, :, 0], np.repeat(np.repeat(labels[:, :, 0], 2, 0), 2, 1))
    assert tf.image.resize_images(tf.placeholder(tf.float32, [None, 8, 8, 3]), [4, 6]).shape.as_list() == [None, 4, 6, 3]


def test_padding_fifo_queue_pads_each_batch_to_its_longest_element():
    queue = tf.PaddingFIFOQueue(10, [tf.int32, tf.string], shapes=[[None], [None]])
    ids = tf.placeholder(tf.int32, [None])
    words = tf.placeholder(tf.string, [None])
    enqueue = queue.enqueue([ids, words])
    batch_ids, batch_words = queue.dequeue_many(2)
    assert batch_ids.shape.as_list() == [2, None]
    with tf.Session() as sess:
        sess.run(enqueue, {ids: [1, 2, 3], words: ["a"]})
        sess.run(enqueue, {ids: [4], words: ["b", "c"]})
        got_ids, got_words = sess.run([batch_ids, batch_words])
    assert got_ids.tolist() == [[1, 2, 3], [4, 0, 0]]
    assert got_words.tolist() == [[b"a", b""], [b"b", b"c"]]
    with pytest.raises(ValueError, match="rank known"):
        tf.PaddingFIFOQueue(2, [tf.int32], shapes=[None])


def test_batch_with_dynamic_pad_pads_variable_length_sequences():
    lengths = tf.train.range_input_producer(4, shuffle=False).dequeue() + 1
    sequence = tf.range(lengths)
    padded = tf.train.batch([sequence, lengths], batch_size=2, dynamic_pad=True)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord=coord)
        first, second = sess.run(padded), sess.run(padded)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    assert first[0].tolist() == [[0, 0], [0, 1]] and first[1].tolist() == [1, 2]
    assert second[0].tolist() == [[0, 1, 2, 0], [0, 1, 2, 3]]
