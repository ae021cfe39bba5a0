"""The protocol buffer varint, for the modules that read or write wire bytes by hand (a
GraphDef joined from its nodes' bytes, RunMetadata, a checkpoint's table, the layout of
Example records)."""

from __future__ import annotations


def encode(value: int) -> bytes:
    """``value`` as a varint: seven bits a byte, low first; a negative int64 as its 64-bit
    two's complement, as protocol buffers write it."""
    value &= (1 << 64) - 1
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode(data, pos: int, end: int | None = None) -> tuple[int, int]:
    """The varint at ``data[pos]`` (read no further than ``end``) and the position after it;
    ValueError where it runs past ``end`` or past ten bytes."""
    end = len(data) if end is None else end
    value = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise ValueError("a number runs past its end")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
