"""tf.strings.split, regex_full_match, format, unsorted_segment_join and ngrams against
Python's own string functions (and the texts TensorFlow 2.21 formats, where so marked)."""

import re

import numpy as np
import pytest

import distflow as tf

TEXTS = [b"hello world", b"  a b  ", b"", b"x,y,,z"]


def _run(*fetches):
    with tf.Session() as sess:
        return sess.run(list(fetches))


def _rows(sparse):
    rows = [[] for _ in range(sparse.dense_shape[0])]
    for (row, col), value in zip(sparse.indices, sparse.values):
        assert col == len(rows[row])
        rows[row].append(value)
    return rows


@pytest.mark.parametrize("sep,maxsplit", [(None, -1), (",", -1), (" ", 1), (",,", -1), (None, 1)])
def test_strings_split_is_pythons_split(sep, maxsplit):
    got = _run(tf.strings.split(TEXTS, sep, maxsplit=maxsplit))[0]
    want = [t.split(None if sep is None else sep.encode(), maxsplit) for t in TEXTS]
    assert _rows(got) == want and got.dense_shape.tolist() == [4, max(map(len, want))]


def test_string_split_gives_an_empty_string_no_pieces():
    got = _run(tf.string_split(TEXTS, ",", skip_empty=False))[0]
    assert _rows(got) == [[b"hello world"], [b"  a b  "], [], [b"x", b"y", b"", b"z"]]


def test_regex_full_match_and_unsorted_segment_join():
    tokens = np.array([[b"a", b"b", b"c"], [b"d", b"e", b"f"]])
    matched, joined, by_rows, by_cells = _run(
        tf.strings.regex_full_match(TEXTS, ".*o.*"), tf.strings.unsorted_segment_join(TEXTS, [0, 1, 0, 1], 3, "|"),
        tf.strings.unsorted_segment_join(tokens, [1, 0], 2),
        tf.strings.unsorted_segment_join(tokens, [[0, 0, 1], [1, 1, 0]], 2, separator="."))
    assert matched.tolist() == [re.fullmatch(rb".*o.*", t) is not None for t in TEXTS]
    assert joined.tolist() == [b"hello world|", b"  a b  |x,y,,z", b""]
    assert by_rows.tolist() == [[b"d", b"e", b"f"], [b"a", b"b", b"c"]]
    assert by_cells.tolist() == [b"a.b.f", b"c.d.e"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment id -1"):
        _run(tf.strings.unsorted_segment_join(tokens, [1, -1], 2))


def test_strings_format_summarizes_as_tensorflow():
    got = _run(tf.strings.format("{} and {}", [tf.constant([1, 0, 3]), tf.constant([[0.5, -1.25], [2.0, 3.0]])]),
               tf.strings.format("{}", tf.constant(np.arange(12))), tf.strings.format("v {}", tf.constant(["a", "b"])),
               tf.strings.format("{}", tf.constant(np.arange(24).reshape(2, 3, 4))),
               tf.strings.format("{} {}", [tf.constant(True), tf.constant(0.1)]),
               tf.strings.format("<>", [tf.constant([1, 2, 3, 4, 5, 6, 7])], placeholder="<>", summarize=-1),
               tf.strings.format("{}", tf.constant([0.79918, 1.26261365, 0.751964867, -0.993761, 1e20, 1.5e-7, 100.0])),
               tf.strings.format("{}", tf.constant([0.1, 1 / 3, 2.0, 1e100], tf.float64)),
               tf.strings.format("{}", tf.constant([np.nan, np.inf, -np.inf])))
    # (TensorFlow 2.21's texts for the same tensors)
    assert got == [b"[1 0 3] and [[0.5 -1.25]\n [2 3]]", b"[0 1 2 ... 9 10 11]", b'v ["a" "b"]',
                   b"[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  [20 21 22 23]]]",
                   b"1 0.1", b"[1 2 3 4 5 6 7]", b"[0.79918 1.26261365 0.751964867 ... 1e+20 1.5e-07 100]",
                   b"[0.1 0.33333333333333331 2 1e+100]", b"[nan inf -inf]"]
    with pytest.raises(ValueError, match="placeholders"):
        tf.strings.format("{}", [tf.constant(1), tf.constant(2)])


def _ngrams(tokens, width, sep=b" ", left=b"", right=b"", pad=None):
    pad = 0 if not (left or right) else (width - 1 if pad is None else pad)
    padded = [left] * pad + list(tokens) + [right] * pad
    return [sep.join(padded[i:i + width]) for i in range(len(padded) - width + 1)]


def test_ngrams_of_each_row():
    tokens = np.array([[b"a", b"b", b"c"], [b"d", b"e", b"f"]])
    got = _run(tf.strings.ngrams(tokens, [1, 2], separator="_"), tf.strings.ngrams(tokens, 3, pad_values=("<", ">")),
               tf.strings.ngrams(tokens, 2, pad_values="#", padding_width=1), tf.strings.ngrams(tokens, 4),
               tf.strings.ngrams(tokens, 4, preserve_short_sequences=True))
    assert got[0].tolist() == [_ngrams(r, 1, b"_") + _ngrams(r, 2, b"_") for r in tokens]
    assert got[1].tolist() == [_ngrams(r, 3, left=b"<", right=b">") for r in tokens]
    assert got[2].tolist() == [_ngrams(r, 2, left=b"#", right=b"#", pad=1) for r in tokens]
    assert got[3].shape == (2, 0)
    assert got[4].tolist() == [[b"a b c"], [b"d e f"]]
