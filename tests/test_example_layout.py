"""Records that share one wire layout are parsed as whole arrays (ops/example_layout.py): the
record-by-record parse through the protobuf library is the oracle, for records of the plain
form, for records that only look alike, and for the forms the walk leaves to the protobuf
parse (repeated and unknown fields, unpacked lists)."""

import numpy as np
import pytest

import distflow as tf
from distflow.ops import example_layout


def example(**features) -> bytes:
    def feature(value):
        if isinstance(value, bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))
        value = np.asarray(value)
        if value.dtype.kind == "f":
            return tf.train.Feature(float_list=tf.train.FloatList(value=value.reshape(-1).tolist()))
        if value.dtype.kind in "iu":
            return tf.train.Feature(int64_list=tf.train.Int64List(value=value.reshape(-1).tolist()))
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=[bytes(v) for v in value.reshape(-1)]))

    return tf.train.Example(features=tf.train.Features(
        feature={k: (v if isinstance(v, tf.train.Feature) else feature(v)) for k, v in features.items()})
    ).SerializeToString()


def parse(records, features, monkeypatch, one_layout: bool):
    """The parsed batch (each SparseTensor as its value), with the array path allowed or not,
    and whether it was taken."""
    taken = []
    original = example_layout.layout

    def spy(batch):
        found = original(batch) if one_layout else None
        taken.append(found is not None)
        return found

    monkeypatch.setattr(example_layout, "layout", spy)
    parsed = tf.parse_example(tf.constant(np.array(records, dtype=object)), features)
    with tf.Session() as sess:
        got = sess.run(parsed)
    monkeypatch.setattr(example_layout, "layout", original)
    return got, any(taken)


def assert_same(got, want):
    assert set(got) == set(want)
    for key in want:
        a, b = got[key], want[key]
        if isinstance(b, tf.SparseTensorValue):
            for part in ("indices", "values", "dense_shape"):
                np.testing.assert_array_equal(getattr(a, part), getattr(b, part))
                assert getattr(a, part).dtype == getattr(b, part).dtype
        else:
            assert a.dtype == b.dtype and a.shape == b.shape, key
            np.testing.assert_array_equal(a, b)


def both_ways(records, features, monkeypatch) -> bool:
    """Parses both ways, checks they agree; whether the array path was taken."""
    fast, taken = parse(records, features, monkeypatch, True)
    slow, _ = parse(records, features, monkeypatch, False)
    assert_same(fast, slow)
    return taken


MNIST = {"image_raw": tf.FixedLenFeature([], tf.string), "label": tf.FixedLenFeature([], tf.int64),
         "mean": tf.FixedLenFeature([2, 2], tf.float32)}


def test_records_of_one_layout_are_read_as_arrays(monkeypatch):
    rng = np.random.default_rng(0)
    records = [example(image_raw=rng.integers(0, 256, 784, dtype=np.uint8).tobytes(), label=int(rng.integers(10)),
                       mean=rng.standard_normal(4).astype(np.float32)) for _ in range(64)]
    assert both_ways(records, MNIST, monkeypatch)
    # varints of every length, negative ones (ten bytes), and sparse lists of one count
    values = np.array([[0, 1, -1], [127, 128, 2 ** 62], [-2 ** 63, 2 ** 63 - 1, 300]])
    records = [example(ids=v, words=np.array([b"ab", b"c"], dtype=object), w=np.float32([1.5, -2])) for v in
               np.broadcast_to(values[0], (8, 3))]
    spec = {"ids": tf.VarLenFeature(tf.int64), "words": tf.VarLenFeature(tf.string),
            "w": tf.FixedLenFeature([2], tf.float32), "absent": tf.FixedLenFeature([3], tf.int64, [7, 8, 9]),
            "none": tf.VarLenFeature(tf.float32)}
    assert both_ways(records, spec, monkeypatch)
    records = [example(ids=v, words=np.array([b"ab", b"c"], dtype=object), w=np.float32([1.5, -2]))
               for v in np.repeat(values, 3, axis=0)]
    assert both_ways(records, spec, monkeypatch) is False  # (the varints' lengths differ: not one layout)
    same_lengths = [example(ids=v) for v in ([1, 200], [200, 1]) * 4]  # (one size, continuation bits elsewhere)
    assert both_ways(same_lengths, {"ids": tf.FixedLenFeature([2], tf.int64)}, monkeypatch) is False


def test_records_that_only_look_alike_are_parsed_one_by_one(monkeypatch):
    x = entry(b"x", bytes([0x12, 6, 0x0A, 4]) + np.float32(1).tobytes())
    y = entry(b"y", bytes([0x1A, 3, 0x0A, 1, 5]))
    a, b = raw_record(x, y), raw_record(y, x)  # (the keys in another order: one size)
    spec = {"x": tf.FixedLenFeature([1], tf.float32), "y": tf.FixedLenFeature([1], tf.int64)}
    assert both_ways([a, b] * 4, spec, monkeypatch) is False
    assert both_ways([a] * 8, spec, monkeypatch)
    renamed = [example(xa=np.float32([1.0])), example(xb=np.float32([2.0]))] * 4  # (a key's bytes differ)
    assert both_ways(renamed, {"xa": tf.FixedLenFeature([1], tf.float32, [0.0])}, monkeypatch) is False
    empty = tf.train.Feature()  # (a Feature of no kind: missing)
    assert both_ways([example(x=empty)] * 8, {"x": tf.FixedLenFeature([], tf.float32, -1.0)}, monkeypatch)


def raw_record(*entries) -> bytes:
    """An Example's bytes written by hand: ``entries`` are a map entry's bytes each."""
    def ld(number, payload):
        return bytes([number << 3 | 2, len(payload)]) + payload
    return ld(1, b"".join(ld(1, e) for e in entries))


def entry(key: bytes, feature: bytes) -> bytes:
    return bytes([0x0A, len(key)]) + key + bytes([0x12, len(feature)]) + feature


def test_a_few_records_are_parsed_one_by_one(monkeypatch):
    # (walking a layout costs what parsing a few records does)
    records = [example(x=np.float32([1.0, 2.0]))] * 7
    assert both_ways(records, {"x": tf.FixedLenFeature([2], tf.float32)}, monkeypatch) is False
    assert both_ways(records * 2, {"x": tf.FixedLenFeature([2], tf.float32)}, monkeypatch)


def test_forms_the_walk_leaves_to_protobuf_give_its_values(monkeypatch):
    unpacked_floats = bytes([0x12, 10, 0x0D]) + np.float32(1.5).tobytes() + bytes([0x0D]) + np.float32(2).tobytes()
    unpacked_ints = bytes([0x1A, 4, 0x08, 0x05, 0x08, 0x07])
    records = [raw_record(entry(b"f", unpacked_floats), entry(b"i", unpacked_ints))] * 8
    spec = {"f": tf.FixedLenFeature([2], tf.float32), "i": tf.FixedLenFeature([2], tf.int64)}
    assert both_ways(records, spec, monkeypatch)  # (unpacked lists: read as such)
    got, _ = parse(records, spec, monkeypatch, True)
    assert got["f"].tolist() == [[1.5, 2.0]] * 8 and got["i"].tolist() == [[5, 7]] * 8
    ints = bytes([0x1A, 2, 0x08, 0x03])
    repeated_key = raw_record(entry(b"i", ints), entry(b"i", bytes([0x1A, 2, 0x08, 0x09])))  # (the last wins)
    two_lists = raw_record(entry(b"i", ints + bytes([0x1A, 2, 0x08, 0x04])))  # (merged: both values)
    unknown = raw_record(entry(b"i", ints)) + bytes([0x10, 0x01])  # (an unknown field after it)
    one = {"i": tf.VarLenFeature(tf.int64)}
    for record in (repeated_key, two_lists, unknown):
        assert both_ways([record] * 8, one, monkeypatch) is False
    got, _ = parse([repeated_key, two_lists], one, monkeypatch, True)
    assert got["i"].values.tolist() == [9, 3, 4]


def test_errors_name_the_feature_as_the_record_by_record_parse_does(monkeypatch):
    records = [example(x=np.float32([1.0, 2.0]))] * 8
    for spec, message in (({"x": tf.FixedLenFeature([3], tf.float32)}, "expected 3 values, got 2"),
                          ({"x": tf.FixedLenFeature([2], tf.int64)}, "float_list, but the parser expects int64_list"),
                          ({"y": tf.FixedLenFeature([1], tf.float32)}, "y .*is required")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            parse(records, spec, monkeypatch, True)


def test_empty_lists_and_strings_read_as_arrays(monkeypatch):
    empty = {"f": tf.train.Feature(float_list=tf.train.FloatList(value=[])),
             "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[])),
             "s": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"", b"xyz"])),
             "f0": tf.train.Feature(float_list=tf.train.FloatList(value=[]))}
    records = [example(**empty)] * 8
    spec = {"f": tf.VarLenFeature(tf.float32), "i": tf.VarLenFeature(tf.int64), "s": tf.VarLenFeature(tf.string),
            "f0": tf.FixedLenFeature([0], tf.float32)}
    assert both_ways(records, spec, monkeypatch)
