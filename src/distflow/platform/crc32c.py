"""CRC-32C (Castagnoli), the checksum of TFRecord files and of TensorFlow's checkpoints.

A CRC is linear over GF(2): the register after a run of bytes is the xor of what each byte
alone, followed by the bytes after it as zeros, would leave there. So an input is cut into
blocks of ``_BLOCK`` bytes, and each block's register (from zero) is the xor of one lookup
per byte position, in a table of what byte ``b`` at position ``p`` leaves: NumPy gathers
and xors every block's lookups at once. Blocks are then joined sixteen at a time, as zlib's
``crc32_combine`` joins two CRCs: the register after ``a + b`` is the register after ``a``
carried over ``len(b)`` zero bytes, xor the register after ``b``. Carrying a register over
zero bytes is a linear map of its 32 bits, applied as four lookups of 256 entries (one per
byte of the register); the map for ``2**(k+1)`` bytes is the one for ``2**k`` applied to its
own entries. A Python loop over bytes reads 5-11 MB/s; this, 300-500 MB/s.

Many short messages (a TFRecord file's records) are computed side by side the same way
(``crc32c_many``): each right-aligned in a row of a grid, leading zeros leaving a zero
register as they are, and the register's starting ones folded into the message's first
four bytes (xor-ing the register before a byte is xor-ing the byte).
"""

from __future__ import annotations

import threading

import numpy as np

_POLY = 0x82F63B78  # (reflected)
_TABLE_LIST = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TABLE_LIST.append(_c)
_TABLE = np.array(_TABLE_LIST, dtype=np.uint32)

_BLOCK = 64  # bytes a block: the position tables are 64 x 256 entries (64 KB)
_FAN = 16  # registers joined at once: a level's tables are 16 x 4 x 256 entries (64 KB)
_ROW = 1 << 16  # bytes looked up at once (the temporaries stay in cache)
_BYTEWISE = 512  # inputs shorter than this go byte by byte

_BYTES = np.arange(256, dtype=np.uint32)[None, :] << (8 * np.arange(4, dtype=np.uint32))[:, None]
_BYTE_OFFSETS = np.arange(4, dtype=np.uint16) * 256  # (a register's byte i looks up in row i)
_FAN_OFFSETS = (np.arange(_FAN, dtype=np.uint16)[:, None] * 1024 + _BYTE_OFFSETS).astype(np.uint16)

# The tables below are built on first use, under _BUILDING: threads that checked records at the
# same time once built the carry tables twice over, each appending, and every CRC after that
# was wrong (TFRecord files read as corrupt).
_BUILDING = threading.Lock()
_positions: np.ndarray | None = None  # (_BLOCK * 256,): byte b at position p, then zeros
_carries: list = []  # [k]: (4, 256): a register's byte i, carried over 2**k zero bytes
_fans: dict = {}  # log2 of a length -> (_FAN * 4 * 256,): register j of _FAN, carried over
#                   the registers after it


def _bytewise(data, crc: int = 0) -> int:
    crc ^= 0xFFFFFFFF
    table = _TABLE_LIST
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _position_table() -> np.ndarray:
    global _positions
    if _positions is None:
        with _BUILDING:
            if _positions is None:
                rows = np.empty((_BLOCK, 256), dtype=np.uint32)
                register = _TABLE  # (the block's last byte: no zeros after it)
                for position in range(_BLOCK - 1, -1, -1):
                    rows[position] = register
                    register = (register >> 8) ^ _TABLE[register & 0xFF]  # one more zero byte after
                _positions = rows.reshape(-1)
    return _positions


def _apply(table: np.ndarray, registers: np.ndarray) -> np.ndarray:
    """``registers`` carried as ``table`` (4 x 256) carries them: a lookup a byte."""
    as_bytes = np.ascontiguousarray(registers, dtype="<u4").view(np.uint8).reshape(registers.shape + (4,))
    return np.bitwise_xor.reduce(table.reshape(-1).take(np.add(as_bytes, _BYTE_OFFSETS, dtype=np.uint16)), axis=-1)


def _carry_table(k: int) -> np.ndarray:
    """The lookups that carry a register over ``2**k`` zero bytes."""
    if len(_carries) <= k:
        with _BUILDING:
            if not _carries:
                _carries.append((_BYTES >> 8) ^ _TABLE[_BYTES & 0xFF])  # one zero byte
            while len(_carries) <= k:
                _carries.append(_apply(_carries[-1], _carries[-1]))  # twice as many
    return _carries[k]


def _fan_table(log_length: int) -> np.ndarray:
    table = _fans.get(log_length)
    if table is None:
        step = _carry_table(log_length)
        rows = np.empty((_FAN, 4, 256), dtype=np.uint32)
        rows[-1] = _BYTES  # (the last register: nothing after it)
        for j in range(_FAN - 2, -1, -1):
            rows[j] = _apply(step, rows[j + 1])
        table = _fans.setdefault(log_length, rows.reshape(-1))  # (whole when it is stored)
    return table


def _carry(register: int, length: int) -> int:
    """``register`` carried over ``length`` zero bytes."""
    k = 0
    while length and register:
        if length & 1:
            t = _carry_table(k)
            register = int(t[0, register & 0xFF] ^ t[1, (register >> 8) & 0xFF]
                           ^ t[2, (register >> 16) & 0xFF] ^ t[3, register >> 24])
        length >>= 1
        k += 1
    return register


def _join(registers: np.ndarray, log_length: int) -> np.ndarray:
    """Joins the registers along the last axis, each of ``2**log_length`` bytes, in order:
    the register after all of them, from zero. ``_FAN`` of them are joined at a time, with
    front padding of zero registers where they do not divide (zero bytes before the data
    leave a zero register as it is)."""
    while registers.shape[-1] > 1:
        count = registers.shape[-1]
        fan = min(count, _FAN)  # (fewer: the last rows of the table)
        groups = -(-count // fan)
        if groups * fan != count:
            padded = np.zeros(registers.shape[:-1] + (groups * fan,), dtype=np.uint32)
            padded[..., groups * fan - count:] = registers
            registers = padded
        as_bytes = np.ascontiguousarray(registers, dtype="<u4").view(np.uint8)
        index = np.add(as_bytes.reshape(registers.shape[:-1] + (groups, fan, 4)), _FAN_OFFSETS[_FAN - fan:],
                       dtype=np.uint16)
        looked_up = _fan_table(log_length).take(index).reshape(registers.shape[:-1] + (groups, fan * 4))
        registers = np.bitwise_xor.reduce(looked_up, axis=-1)
        log_length += _FAN.bit_length() - 1
    return registers[..., 0]


def _rows(grid: np.ndarray) -> np.ndarray:
    """The register (from zero) after each row of ``grid`` (uint8, contiguous, rows x a
    multiple of ``_BLOCK``, or narrower: a row is then one block's last bytes). The blocks
    are looked up ``_ROW`` bytes at a time, so that the temporaries stay in cache."""
    rows, width = grid.shape
    table = _position_table()
    if width < _BLOCK:
        offsets = np.arange(_BLOCK - width, _BLOCK, dtype=np.uint16) * 256
        return np.bitwise_xor.reduce(table.take(np.add(grid, offsets, dtype=np.uint16)), axis=-1)
    offsets = np.arange(_BLOCK, dtype=np.uint16) * 256
    blocks = grid.reshape(-1, _BLOCK)
    registers = np.empty(len(blocks), dtype=np.uint32)
    step = _ROW // _BLOCK
    for start in range(0, len(blocks), step):
        index = np.add(blocks[start:start + step], offsets, dtype=np.uint16)
        np.bitwise_xor.reduce(table.take(index), axis=-1, out=registers[start:start + step])
    return _join(registers.reshape(rows, width // _BLOCK), _BLOCK.bit_length() - 1)


def crc32c(data, crc: int = 0) -> int:
    """The CRC-32C of ``data`` (bytes-like), continuing ``crc``."""
    view = memoryview(data).cast("B")
    n = len(view)
    if n < _BYTEWISE:
        return _bytewise(view, crc)
    end = n - n % _BLOCK
    body = np.frombuffer(view, dtype=np.uint8, count=end).reshape(1, end)
    register = _carry(crc ^ 0xFFFFFFFF, end) ^ int(_rows(body)[0])
    return _bytewise(view[end:], register ^ 0xFFFFFFFF)


def mask(crc: int) -> int:
    """A CRC-32C rotated and offset, as TFRecords and TensorFlow's checkpoints store it."""
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def masked_crc32c(data) -> int:
    return mask(crc32c(data))


def unmask(masked: int) -> int:
    rotated = (masked - 0xA282EAD8) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF


def crc32c_many(messages: list) -> list[int]:
    """The CRC-32C of each of ``messages`` (bytes), computed together: the long ones one by
    one, the others side by side, a row of a grid each, grouped by length so that little of
    the grid is padding. A TFRecord file's records are checked so."""
    lengths = np.fromiter(map(len, messages), dtype=np.int64, count=len(messages))
    out = [0] * len(messages)
    alone = (lengths >= _ROW) | (lengths < 4)
    for i in np.flatnonzero(alone).tolist():
        out[i] = crc32c(messages[i])
    together = np.flatnonzero(~alone)
    together = together[np.argsort(lengths[together], kind="stable")]
    ordered = lengths[together]
    begin = 0
    while begin < len(together):  # groups whose longest message is at most twice its shortest
        end = int(np.searchsorted(ordered, 2 * ordered[begin], side="right"))
        group = together[begin:end].tolist()
        for i, register in zip(group, _side_by_side([messages[i] for i in group], ordered[begin:end]).tolist()):
            out[i] = register ^ 0xFFFFFFFF
        begin = end
    return out


def _side_by_side(messages: list, lengths: np.ndarray) -> np.ndarray:
    """The registers after ``messages`` (each at least 4 bytes), started as a CRC starts."""
    width = int(lengths[-1])
    if width > _BLOCK:
        width = -(-width // _BLOCK) * _BLOCK
    zeros = memoryview(bytes(width))
    parts = []
    for message in messages:  # (each right-aligned in its row)
        parts += (zeros[len(message):], message)
    grid = np.frombuffer(b"".join(parts), dtype=np.uint8).reshape(len(messages), width).copy()
    grid[np.arange(len(messages))[:, None], (width - lengths)[:, None] + np.arange(4)] ^= 0xFF
    return _rows(grid)


def masked_many(messages: list) -> list[int]:
    return [mask(crc) for crc in crc32c_many(messages)]
