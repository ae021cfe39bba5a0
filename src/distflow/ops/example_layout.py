"""A batch of tf.train.Example records that share one wire layout, parsed as whole arrays.

Records written by one program from features of fixed sizes (an image's bytes, a label, a
vector of floats) are usually the same bytes apart from the values: the same tags, lengths
and keys at the same offsets. One record is walked field by field here (the protobuf wire
format, by hand); every other record of the batch is then checked against it in a few
array operations (its structural bytes equal, and in each varint value the continuation
bits equal, so that the protobuf parse would walk it the same way), and each feature's
values are read from the same offsets in all records at once: floats as a view of the
bytes, varints summed seven bits at a time, byte strings sliced.

The walk accepts only the plain form that serializers write: an Example with one
``features`` field, map entries of one key then one value, distinct keys, a Feature with
one list or none, and the lists' own value fields (packed or not). Anything else (unknown
or repeated fields, which protobuf would merge) makes ``layout`` return None, as does a
batch whose records are not all of one layout: the caller parses those record by record.
"""

from __future__ import annotations

import numpy as np

from ..framework import varint

BYTES, FLOATS, INT64S = "bytes_list", "float_list", "int64_list"
_KIND_OF_FIELD = {1: BYTES, 2: FLOATS, 3: INT64S}
_LEN, _VARINT, _FIXED32 = 2, 0, 5


class _Irregular(Exception):
    """The record is not of the plain form the walk reads."""


class Feature:
    """Where one feature's values lie in a record: its list's kind and, per value, its offset
    and length in bytes (a float's length is 4, a varint's its own)."""

    __slots__ = ("kind", "offsets", "lengths")

    def __init__(self, kind):
        self.kind = kind
        self.offsets: list[int] = []
        self.lengths: list[int] = []


class Layout:
    """One record's wire layout: its features by key, and which of its bytes every record of
    the layout must share."""

    def __init__(self, record: bytes):
        self.size = len(record)
        self.template = np.frombuffer(record, np.uint8)
        self.opaque = np.zeros(self.size, bool)  # value bytes: any content
        self.varint = np.zeros(self.size, bool)  # varint value bytes: their continuation bits shared
        self.features: dict[str, Feature] = {}
        self._walk(record)
        self.structural = np.flatnonzero(~self.opaque)
        self.varint_positions = np.flatnonzero(self.varint)

    # -- the walk --------------------------------------------------------------------------

    @staticmethod
    def _varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
        try:
            return varint.decode(buf, pos, end)
        except ValueError:
            raise _Irregular from None

    def _field(self, buf: bytes, pos: int, end: int) -> tuple[int, int, int]:
        """(field number, wire type, position after the tag)."""
        tag, pos = self._varint(buf, pos, end)
        return tag >> 3, tag & 7, pos

    def _length(self, buf: bytes, pos: int, end: int) -> tuple[int, int]:
        """(start, end) of a length-delimited field's payload whose length is at ``pos``."""
        size, pos = self._varint(buf, pos, end)
        if pos + size > end:
            raise _Irregular
        return pos, pos + size

    def _walk(self, buf: bytes) -> None:
        pos, end, seen = 0, len(buf), False
        while pos < end:
            number, wire, pos = self._field(buf, pos, end)
            if number != 1 or wire != _LEN or seen:  # (Example.features, once)
                raise _Irregular
            start, pos = self._length(buf, pos, end)
            self._features(buf, start, pos)
            seen = True

    def _features(self, buf: bytes, pos: int, end: int) -> None:
        while pos < end:
            number, wire, pos = self._field(buf, pos, end)
            if number != 1 or wire != _LEN:  # (Features.feature: map entries)
                raise _Irregular
            start, pos = self._length(buf, pos, end)
            self._entry(buf, start, pos)

    def _entry(self, buf: bytes, pos: int, end: int) -> None:
        number, wire, pos = self._field(buf, pos, end)
        if number != 1 or wire != _LEN:  # (the key, first)
            raise _Irregular
        key_start, pos = self._length(buf, pos, end)
        try:
            key = buf[key_start:pos].decode()
        except UnicodeDecodeError:
            raise _Irregular from None
        if key in self.features or pos >= end:
            raise _Irregular
        number, wire, pos = self._field(buf, pos, end)
        if number != 2 or wire != _LEN:  # (then the Feature, last)
            raise _Irregular
        start, pos = self._length(buf, pos, end)
        if pos != end:
            raise _Irregular
        self.features[key] = self._feature(buf, start, pos)

    def _feature(self, buf: bytes, pos: int, end: int) -> Feature:
        if pos == end:
            return Feature(None)  # (a Feature with no list: missing, as TF reads it)
        number, wire, pos = self._field(buf, pos, end)
        if number not in _KIND_OF_FIELD or wire != _LEN:
            raise _Irregular
        start, pos = self._length(buf, pos, end)
        if pos != end:
            raise _Irregular
        feature = Feature(_KIND_OF_FIELD[number])
        self._list(buf, start, pos, feature)
        return feature

    def _list(self, buf: bytes, pos: int, end: int, feature: Feature) -> None:
        while pos < end:
            number, wire, pos = self._field(buf, pos, end)
            if number != 1:
                raise _Irregular
            if feature.kind == BYTES and wire == _LEN:
                start, pos = self._length(buf, pos, end)
                self._value(feature, start, pos - start, varint=False)
            elif feature.kind == FLOATS and wire == _LEN:  # (packed)
                start, pos = self._length(buf, pos, end)
                if (pos - start) % 4:
                    raise _Irregular
                for at in range(start, pos, 4):
                    self._value(feature, at, 4, varint=False)
            elif feature.kind == FLOATS and wire == _FIXED32:
                if pos + 4 > end:
                    raise _Irregular
                self._value(feature, pos, 4, varint=False)
                pos += 4
            elif feature.kind == INT64S and wire == _LEN:  # (packed)
                at, pos = self._length(buf, pos, end)
                while at < pos:
                    _, after = self._varint(buf, at, pos)
                    self._value(feature, at, after - at, varint=True)
                    at = after
            elif feature.kind == INT64S and wire == _VARINT:
                _, after = self._varint(buf, pos, end)
                self._value(feature, pos, after - pos, varint=True)
                pos = after
            else:
                raise _Irregular

    def _value(self, feature: Feature, offset: int, length: int, varint: bool) -> None:
        feature.offsets.append(offset)
        feature.lengths.append(length)
        self.opaque[offset:offset + length] = True
        if varint:
            self.varint[offset:offset + length] = True

    # -- a batch ------------------------------------------------------------------------------

    def matches(self, batch: np.ndarray) -> bool:
        """Whether every row of ``batch`` (records of this size, as uint8 rows) parses as the
        template does: the same structural bytes, the same continuation bits in its varints."""
        s, v = self.structural, self.varint_positions
        if s.size and not (batch[:, s] == self.template[s]).all():
            return False
        return not v.size or not ((batch[:, v] ^ self.template[v]) & 0x80).any()

    def values(self, key: str, batch: np.ndarray, records) -> np.ndarray:
        """The feature's values in every record: [records, values] of float32, int64 or bytes."""
        feature = self.features[key]
        offsets = np.asarray(feature.offsets, np.intp)
        n, count = batch.shape[0], len(feature.offsets)
        if feature.kind == FLOATS:
            if count and offsets[-1] - offsets[0] == 4 * (count - 1):  # (one packed run: a slice)
                raw = np.ascontiguousarray(batch[:, offsets[0]:offsets[0] + 4 * count])
            else:
                raw = np.ascontiguousarray(batch[:, (offsets[:, None] + np.arange(4)).reshape(-1)])
            return raw.view("<f4").astype(np.float32).reshape(n, count)
        if feature.kind == INT64S:
            lengths = np.asarray(feature.lengths, np.intp)
            total = np.zeros((n, count), np.uint64)
            for t in range(int(lengths.max(initial=0))):
                have = np.flatnonzero(lengths > t)
                seven = (batch[:, offsets[have] + t] & 0x7F).astype(np.uint64)
                total[:, have] |= seven << np.uint64(7 * t)
            return total.view(np.int64)
        out = np.empty((n, count), dtype=object)
        for j, (offset, length) in enumerate(zip(feature.offsets, feature.lengths)):
            out[:, j] = [record[offset:offset + length] for record in records]
        return out


def layout(records) -> tuple[Layout, np.ndarray] | None:
    """The layout all of ``records`` (bytes) share and their bytes as [records, size] uint8,
    or None where they do not share one (or a record is not of the plain form)."""
    if not len(records) or not all(r.__class__ is bytes for r in records):
        return None
    size = len(records[0])
    if size == 0 or any(len(r) != size for r in records):
        return None
    try:
        found = Layout(records[0])
    except _Irregular:
        return None
    batch = np.frombuffer(b"".join(records), np.uint8).reshape(len(records), size)
    return (found, batch) if found.matches(batch) else None
