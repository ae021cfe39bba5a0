"""tf.parse_example over batches of records, and decode_raw over batches of strings: each
against the records' own values read the obvious way (the Example protos' lists, NumPy's
frombuffer of each string)."""

import struct

import numpy as np
import pytest

import distflow as tf

rng = np.random.RandomState(3)


def example(**features):
    out = {}
    for key, values in features.items():
        if values is None:
            out[key] = tf.train.Feature()  # (a Feature of no kind: missing)
        elif isinstance(values[0], bytes):
            out[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
        elif isinstance(values[0], float):
            out[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        else:
            out[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    return tf.train.Example(features=tf.train.Features(feature=out)).SerializeToString()


def run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


SPEC = {
    "image": tf.FixedLenFeature([2, 3], tf.float32),
    "big": tf.FixedLenFeature([300], tf.float32),  # (long float lists are read packed)
    "label": tf.FixedLenFeature([], tf.int64),
    "name": tf.FixedLenFeature([], tf.string, default_value=b"?"),
    "pair": tf.FixedLenFeature([2], tf.string, default_value=[b"a", b"b"]),
    "ids": tf.FixedLenFeature([1], tf.int64, default_value=[-1]),
    "filled": tf.FixedLenFeature([3], tf.float32, default_value=[0.5, 0.25, 0.0]),
    "tags": tf.VarLenFeature(tf.string),
    "steps": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True),
}


def records(n):
    rows = []
    for i in range(n):
        row = {"image": [float(v) for v in rng.randn(6).astype(np.float32)],
               "big": [float(v) for v in rng.randn(300).astype(np.float32)],
               "label": [int(rng.randint(-5, 10**12))], "tags": [b"t%d" % j for j in range(i % 3)] or None,
               "steps": [int(v) for v in rng.randint(0, 9, size=2 * (i % 4))] or None}
        if i % 2:
            row.update(name=[b"n%d" % i], pair=[b"p%d" % i, b"q"], ids=[i], filled=[1.0, 2.0, float(i)])
        rows.append(row)
    return rows


def test_a_batch_of_records_parses_to_each_records_values_or_the_defaults():
    rows = records(7)
    got = run(tf.parse_example([example(**{k: v for k, v in r.items()}) for r in rows], SPEC))
    np.testing.assert_array_equal(got["image"], np.array([r["image"] for r in rows], np.float32).reshape(7, 2, 3))
    np.testing.assert_array_equal(got["big"], np.array([r["big"] for r in rows], np.float32))
    assert got["label"].dtype == np.int64 and got["label"].tolist() == [r["label"][0] for r in rows]
    assert got["name"].tolist() == [r.get("name", [b"?"])[0] for r in rows]
    assert got["pair"].tolist() == [r.get("pair", [b"a", b"b"]) for r in rows]
    assert got["ids"].tolist() == [r.get("ids", [-1]) for r in rows]
    assert got["filled"].tolist() == [r.get("filled", [0.5, 0.25, 0.0]) for r in rows]
    tags = got["tags"]
    want = [(i, j, t) for i, r in enumerate(rows) for j, t in enumerate(r["tags"] or [])]
    assert tags.indices.tolist() == [[i, j] for i, j, _ in want] and tags.values.tolist() == [t for *_, t in want]
    assert tags.dense_shape.tolist() == [7, 2]
    longest = max(len(r["steps"] or []) for r in rows) // 2
    want_steps = np.zeros((7, longest, 2), np.int64)
    for i, r in enumerate(rows):
        values = np.array(r["steps"] or [], np.int64).reshape(-1, 2)
        want_steps[i, :len(values)] = values
    np.testing.assert_array_equal(got["steps"], want_steps)


def test_one_record_and_no_records():
    rows = records(2)
    one = run(tf.parse_single_example(example(**rows[1]), SPEC))
    assert one["label"] == rows[1]["label"][0] and one["name"] == b"n1" and one["image"].shape == (2, 3)
    none = run(tf.parse_example(tf.constant([], tf.string), {k: v for k, v in SPEC.items() if k != "steps"}))
    assert none["image"].shape == (0, 2, 3) and none["label"].shape == (0,) and none["pair"].shape == (0, 2)


def test_a_default_of_another_size_than_the_features_is_refused_when_the_graph_is_built():
    with pytest.raises(ValueError, match="Feature 'f': its default_value has 1 elements, its shape"):
        tf.parse_example(tf.constant([], tf.string), {"f": tf.FixedLenFeature([3], tf.float32, default_value=0.5)})


@pytest.mark.parametrize("features, message", [
    ({"label": [1, 2]}, "Key: label.  Can't parse serialized Example: expected 1 values, got 2"),
    ({"label": [b"x"]}, "Feature 'label' has bytes_list, but the parser expects int64_list"),
    ({"label": None}, r"Feature: label \(data type: int64\) is required but could not be found"),
    ({}, r"Feature: label \(data type: int64\) is required but could not be found"),
    ({"label": [1], "name": [1.5]}, "Feature 'name' has float_list, but the parser expects bytes_list"),
])
def test_a_record_that_does_not_match_the_spec_names_the_feature(features, message):
    good = example(label=[3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        run(tf.parse_example([good, example(**features)], {"label": SPEC["label"], "name": SPEC["name"]}))


def test_decode_raw_reads_each_string_of_a_batch_in_the_byte_order_asked():
    values = rng.randint(-2**31, 2**31, size=(4, 3, 5)).astype(np.int64)
    little = np.array([[row.astype("<i4").tobytes() for row in batch] for batch in values], dtype=object)
    big = np.array([[row.astype(">i4").tobytes() for row in batch] for batch in values], dtype=object)
    got_little, got_big, got_bytes = run([tf.decode_raw(little, tf.int32),
                                          tf.decode_raw(big, tf.int32, little_endian=False),
                                          tf.decode_raw(little, tf.uint8)])
    np.testing.assert_array_equal(got_little, values.astype(np.int32))
    np.testing.assert_array_equal(got_big, values.astype(np.int32))
    assert got_little.dtype == np.int32 and got_bytes.shape == (4, 3, 20)
    np.testing.assert_array_equal(got_bytes[2, 1], np.frombuffer(little[2, 1], np.uint8))
    floats = run(tf.decode_raw(tf.constant([struct.pack("<3f", 1.5, -2.0, 3.25)]), tf.float32))
    assert floats.tolist() == [[1.5, -2.0, 3.25]]
    assert run(tf.decode_raw(tf.constant([], tf.string), tf.float32)).shape == (0, 0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="element 1 has size 8 != 4"):
        run(tf.decode_raw(tf.constant([b"abcd", b"abcdefgh"]), tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="length 6 that is not a multiple of 4"):
        run(tf.decode_raw(tf.constant([b"abcd", b"abcdef"]), tf.int32))
